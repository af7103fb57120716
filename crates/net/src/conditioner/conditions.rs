//! What a conditioned link does to each datagram: the one-way figures of [`Conditions`],
//! their named profiles and the short summary the screens show.

use std::fmt;

use super::fraction;

/// How the delay varies from one datagram to the next.
#[derive(
    Clone, Copy, Debug, PartialEq, Eq, Default, Hash, serde::Serialize, serde::Deserialize,
)]
pub enum JitterMode {
    /// A delay that wanders within `latency ± jitter`; a datagram never departs before
    /// the one pushed ahead of it, so jitter alone never reorders.
    #[default]
    Ordered,
    /// Each datagram's delay drawn on its own, uniform within `latency ± jitter`: one
    /// that draws a short delay overtakes those pushed before it (netem's jitter).
    Independent,
}

impl JitterMode {
    /// The names `--jitter-mode` takes, in the order of the modes' numbers.
    pub const NAMES: [&'static str; 2] = ["ordered", "independent"];

    /// The mode of this name, or `None`.
    pub fn parse(name: &str) -> Option<JitterMode> {
        match name.to_ascii_lowercase().as_str() {
            "ordered" => Some(JitterMode::Ordered),
            "independent" => Some(JitterMode::Independent),
            _ => None,
        }
    }

    /// Its name, as [`JitterMode::parse`] reads it.
    pub fn name(self) -> &'static str {
        Self::NAMES[self as usize]
    }
}

/// What the simulated link does to each datagram. `Default` is a clean link.
#[derive(Clone, Debug, PartialEq, Default, serde::Serialize, serde::Deserialize)]
pub struct Conditions {
    /// One-way delay added to every datagram, in ms.
    pub latency_ms: u32,
    /// Delay varies by up to this many ms either side of `latency_ms`; whether that
    /// reorders is `jitter_mode`'s.
    pub jitter_ms: u32,
    /// Long-run share of datagrams lost, in percent (0..=100).
    pub loss_pct: f64,
    /// Mean length, in datagrams, of a run of consecutive losses. At or below 1.0 losses
    /// are independent; above it a Gilbert–Elliott chain clusters them.
    pub burst_len: f64,
    /// Chance, in percent, that a datagram is delivered twice.
    pub dup_pct: f64,
    /// Chance, in percent, that a datagram may overtake ones pushed before it.
    pub reorder_pct: f64,
    /// Link rate in kbit/s; 0 means unlimited.
    pub bandwidth_kbps: u32,
    /// Whether jitter keeps datagrams in order (the default) or lets them overtake.
    pub jitter_mode: JitterMode,
}

impl Conditions {
    /// Names accepted by [`Conditions::profile`], in the order a "cycle" key visits them.
    pub const PROFILES: &'static [&'static str] = &["off", "lan", "wifi", "mobile", "bad"];

    /// True when every setting is neutral, so datagrams pass straight through.
    pub(crate) fn is_clean(&self) -> bool {
        self.latency_ms == 0
            && self.jitter_ms == 0
            && fraction(self.loss_pct) == 0.0
            && fraction(self.dup_pct) == 0.0
            && fraction(self.reorder_pct) == 0.0
            && self.bandwidth_kbps == 0
    }

    /// A named preset, or `None` if the name is unknown. Case-insensitive; "none" is an
    /// alias for "off".
    ///
    /// The figures are one-way (see the module docs), picked to resemble what each kind
    /// of path tends to add: a switched LAN barely anything, home Wi-Fi a little delay
    /// with spiky jitter and short loss clusters, a cellular link tens of ms with wide
    /// jitter, and "bad" a congested long-haul path that also duplicates and reorders.
    pub fn profile(name: &str) -> Option<Conditions> {
        let c = match name.to_ascii_lowercase().as_str() {
            "off" | "none" => Conditions::default(),
            "lan" => Conditions {
                latency_ms: 1,
                ..Conditions::default()
            },
            "wifi" => Conditions {
                latency_ms: 10,
                jitter_ms: 8,
                loss_pct: 1.0,
                burst_len: 2.0,
                ..Conditions::default()
            },
            "mobile" => Conditions {
                latency_ms: 50,
                jitter_ms: 25,
                loss_pct: 2.0,
                burst_len: 3.0,
                ..Conditions::default()
            },
            "bad" => Conditions {
                latency_ms: 150,
                jitter_ms: 40,
                loss_pct: 5.0,
                burst_len: 3.0,
                dup_pct: 1.0,
                reorder_pct: 1.0,
                bandwidth_kbps: 0,
                jitter_mode: JitterMode::Ordered,
            },
            _ => return None,
        };
        Some(c)
    }

    /// These conditions with their jitter in `mode`.
    pub fn with_jitter_mode(self, mode: JitterMode) -> Conditions {
        Conditions {
            jitter_mode: mode,
            ..self
        }
    }

    /// The preset `self` is, jitter mode aside, or `None` (hand-tuned settings).
    pub fn profile_name(&self) -> Option<&'static str> {
        let ordered = self.clone().with_jitter_mode(JitterMode::Ordered);
        Self::PROFILES
            .iter()
            .find(|name| Self::profile(name).as_ref() == Some(&ordered))
            .copied()
    }

    /// The preset after the one equal to `self` (jitter mode aside, and kept), wrapping
    /// around; the first preset if `self` matches none (e.g. hand-tuned settings).
    pub fn next_profile(&self) -> (&'static str, Conditions) {
        let next = self
            .profile_name()
            .and_then(|p| Self::PROFILES.iter().position(|name| *name == p))
            .map_or(0, |i| (i + 1) % Self::PROFILES.len());
        let name = Self::PROFILES[next];
        let c = Self::profile(name).unwrap_or_default();
        (name, c.with_jitter_mode(self.jitter_mode))
    }

    /// Short text for a HUD, e.g. `150±40ms 5.0% loss(b3) 1% dup 1% reorder`, or `clean`.
    pub fn summary(&self) -> String {
        if self.is_clean() {
            return "clean".to_owned();
        }
        let mut parts: Vec<String> = Vec::new();
        if self.jitter_ms > 0 {
            let how = match self.jitter_mode {
                JitterMode::Ordered => "",
                JitterMode::Independent => " indep",
            };
            parts.push(format!("{}±{}ms{how}", self.latency_ms, self.jitter_ms));
        } else if self.latency_ms > 0 {
            parts.push(format!("{}ms", self.latency_ms));
        }
        if fraction(self.loss_pct) > 0.0 {
            let mut loss = trim_number(self.loss_pct.min(100.0));
            if !loss.contains('.') {
                // One decimal even when whole, so "5.0%" reads as a measured rate.
                loss.push_str(".0");
            }
            loss.push_str("% loss");
            if self.burst_len > 1.0 {
                loss.push_str(&format!("(b{})", trim_number(self.burst_len)));
            }
            parts.push(loss);
        }
        if fraction(self.dup_pct) > 0.0 {
            parts.push(format!("{}% dup", trim_number(self.dup_pct.min(100.0))));
        }
        if fraction(self.reorder_pct) > 0.0 {
            parts.push(format!(
                "{}% reorder",
                trim_number(self.reorder_pct.min(100.0))
            ));
        }
        if self.bandwidth_kbps > 0 {
            parts.push(format!("{}kbps", self.bandwidth_kbps));
        }
        parts.join(" ")
    }
}

impl fmt::Display for Conditions {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        f.write_str(&self.summary())
    }
}

/// `1`, `0.5`, `2.25`: at most two decimals, no trailing zeros.
fn trim_number(v: f64) -> String {
    let s = format!("{v:.2}");
    s.trim_end_matches('0').trim_end_matches('.').to_owned()
}
