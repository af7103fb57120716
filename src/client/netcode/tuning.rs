//! The client's own dials: how many input packets a second, how far behind the server
//! remote players are drawn, how many unacknowledged commands each input packet
//! repeats, and how far past the newest snapshot a remote player may be extrapolated.
//! The defaults are what the client always did; `host`/`join` flags and the lab's live
//! dials change them through [`ClientSession::set_tuning`](super::session::ClientSession::set_tuning).

use std::ops::RangeInclusive;

use crate::net::protocol::MAX_COMMANDS_PER_INPUT;

/// Commands an input packet may repeat: at least the newest, at most what one packet
/// holds.
pub const REDUNDANCY: RangeInclusive<u8> = 1..=MAX_COMMANDS_PER_INPUT as u8;
/// A fixed interpolation delay, in snapshot periods.
pub const INTERP_RATIOS: RangeInclusive<f64> = 0.5..=10.0;
/// The extrapolation bound, in ms.
pub const EXTRAPOLATION_LIMITS_MS: RangeInclusive<u32> = 0..=1000;

#[derive(Clone, Copy, Debug, PartialEq, serde::Serialize, serde::Deserialize)]
pub struct Tuning {
    /// Input packets per second while the buttons stay the same.
    pub input_rate: u16,
    /// The interpolation delay as this many snapshot periods; None: automatic (sized
    /// from the snapshot period, the jitter and the recent loss).
    pub interp_ratio: Option<f64>,
    /// The most unacknowledged commands one input packet repeats.
    pub redundancy: u8,
    /// How far past the newest snapshot a remote player may be extrapolated, in ms;
    /// None: the built-in bound (100 ms behind the server, 250 ms with dead reckoning).
    pub extrapolation_limit_ms: Option<u32>,
}

impl Default for Tuning {
    fn default() -> Tuning {
        Tuning {
            input_rate: super::session::DEFAULT_INPUT_RATE,
            interp_ratio: None,
            redundancy: MAX_COMMANDS_PER_INPUT as u8,
            extrapolation_limit_ms: None,
        }
    }
}

impl Tuning {
    /// These dials brought within their bounds (a hostile config file or a test cannot
    /// make a packet repeat no command, nor a delay negative).
    pub(crate) fn bounded(self) -> Tuning {
        Tuning {
            input_rate: self.input_rate.max(1),
            interp_ratio: self
                .interp_ratio
                .filter(|r| r.is_finite())
                .map(|r| r.clamp(*INTERP_RATIOS.start(), *INTERP_RATIOS.end())),
            redundancy: self
                .redundancy
                .clamp(*REDUNDANCY.start(), *REDUNDANCY.end()),
            extrapolation_limit_ms: self
                .extrapolation_limit_ms
                .map(|ms| ms.min(*EXTRAPOLATION_LIMITS_MS.end())),
        }
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn out_of_bounds_dials_are_brought_within_them() {
        let t = Tuning {
            input_rate: 0,
            interp_ratio: Some(f64::NAN),
            redundancy: 0,
            extrapolation_limit_ms: Some(5000),
        }
        .bounded();
        assert_eq!(t.input_rate, 1);
        assert_eq!(t.interp_ratio, None);
        assert_eq!(t.redundancy, 1);
        assert_eq!(t.extrapolation_limit_ms, Some(1000));
        let huge = Tuning {
            interp_ratio: Some(99.0),
            redundancy: 200,
            ..Tuning::default()
        };
        assert_eq!(huge.bounded().interp_ratio, Some(10.0));
        assert_eq!(huge.bounded().redundancy, 64);
    }
}
