//! How fast virtual time runs against real time, stepped by keys: the lab's `<` `>`
//! and the replay's `+` `-` step through the same table.

/// The speeds, slowest first.
const SPEEDS: [f64; 7] = [0.1, 0.25, 0.5, 1.0, 1.5, 2.0, 4.0];
/// Where both start: real time.
const REAL_TIME: usize = 3;

/// One of [`SPEEDS`]; starts at 1x.
#[derive(Clone, Copy, Debug, PartialEq)]
pub(crate) struct Speed(usize);

impl Default for Speed {
    fn default() -> Speed {
        Speed(REAL_TIME)
    }
}

impl Speed {
    /// Virtual seconds per real second.
    pub(crate) fn factor(self) -> f64 {
        SPEEDS[self.0]
    }

    /// The next speed up, or this one at the top.
    pub(crate) fn faster(self) -> Speed {
        Speed((self.0 + 1).min(SPEEDS.len() - 1))
    }

    /// The next speed down, or this one at the bottom.
    pub(crate) fn slower(self) -> Speed {
        Speed(self.0.saturating_sub(1))
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn steps_stop_at_both_ends() {
        let mut s = Speed::default();
        assert_eq!(s.factor(), 1.0);
        for _ in 0..10 {
            s = s.faster();
        }
        assert_eq!(s.factor(), 4.0);
        for _ in 0..10 {
            s = s.slower();
        }
        assert_eq!(s.factor(), 0.1);
        assert_eq!(Speed::default().slower().faster(), Speed::default());
    }
}
