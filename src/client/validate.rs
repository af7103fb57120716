//! The bounds a [`ClientConfig`] must keep, whoever built it: checked once, before the
//! client starts, so no rate or delay can overflow the arithmetic that uses it.

use std::ops::RangeInclusive;

use super::ClientConfig;
use super::netcode::tuning;
use crate::bounds::{ConfigError, check};
use crate::net::conditioner::Conditions;

/// Input packets per second while the buttons stay the same.
pub const INPUT_RATES: RangeInclusive<u16> = 1..=240;
/// Frames per second a cap may ask for.
pub const FPS_CAPS: RangeInclusive<u32> = 1..=10_000;
/// Simulated one-way latency and jitter, in ms: up to a minute.
pub const DELAYS_MS: RangeInclusive<u32> = 0..=60_000;
/// Seconds of silence before giving up.
pub const TIMEOUTS_SECS: RangeInclusive<u64> = 1..=3600;
/// Longest player name asked for, in characters (the server keeps fewer).
pub const MAX_NAME_CHARS: usize = 64;

fn check_conditions(side: &str, c: &Conditions) -> Result<(), ConfigError> {
    check(&format!("{side} latency (ms)"), c.latency_ms, &DELAYS_MS)?;
    check(&format!("{side} jitter (ms)"), c.jitter_ms, &DELAYS_MS)?;
    for (what, pct) in [
        ("loss", c.loss_pct),
        ("dup", c.dup_pct),
        ("reorder", c.reorder_pct),
    ] {
        check(&format!("{side} {what} (%)"), pct, &(0.0..=100.0))?;
    }
    if !(c.burst_len.is_finite() && c.burst_len >= 0.0) {
        return Err(ConfigError(format!(
            "{side} burst length must be a number of packets, got {}",
            c.burst_len
        )));
    }
    Ok(())
}

impl ClientConfig {
    /// Checks every value against its bounds (the constants above).
    pub fn validate(&self) -> Result<(), ConfigError> {
        let chars = self.name.chars().count();
        check("name length", chars, &(0..=MAX_NAME_CHARS))?;
        check("input rate", self.tuning.input_rate, &INPUT_RATES)?;
        check("redundancy", self.tuning.redundancy, &tuning::REDUNDANCY)?;
        if let Some(r) = self.tuning.interp_ratio
            && !tuning::INTERP_RATIOS.contains(&r)
        {
            return Err(ConfigError(format!(
                "interpolation delay must be {} to {} snapshot periods, got {r}",
                tuning::INTERP_RATIOS.start(),
                tuning::INTERP_RATIOS.end()
            )));
        }
        if let Some(fps) = self.fps_cap {
            check("frame rate cap", fps, &FPS_CAPS)?;
        }
        check("timeout (s)", self.timeout.as_secs(), &TIMEOUTS_SECS)?;
        check_conditions("outgoing", &self.outgoing)?;
        check_conditions("incoming", &self.incoming)?;
        Ok(())
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    fn config() -> ClientConfig {
        ClientConfig::new("127.0.0.1:7777".parse().unwrap(), "tester")
    }

    #[test]
    fn defaults_are_valid() {
        assert_eq!(config().validate(), Ok(()));
    }

    #[test]
    fn each_bound_is_enforced() {
        type Breaker = fn(&mut ClientConfig);
        let cases: [(&str, Breaker); 8] = [
            ("input rate", |c| c.tuning.input_rate = 0),
            ("redundancy", |c| c.tuning.redundancy = 0),
            ("interpolation delay", |c| {
                c.tuning.interp_ratio = Some(f64::NAN)
            }),
            ("frame rate", |c| c.fps_cap = Some(0)),
            ("outgoing latency", |c| c.outgoing.latency_ms = 60_001),
            ("incoming jitter", |c| c.incoming.jitter_ms = u32::MAX),
            ("outgoing loss", |c| c.outgoing.loss_pct = f64::NAN),
            ("name length", |c| c.name = "x".repeat(65)),
        ];
        for (what, break_it) in cases {
            let mut c = config();
            break_it(&mut c);
            let err = c.validate().unwrap_err().to_string();
            assert!(err.contains(what), "{what}: {err}");
        }
    }
}
