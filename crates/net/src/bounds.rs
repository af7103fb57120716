//! The bounds check both configs' `validate` make (`server::config`, `client::validate`),
//! and its error: a leaf module, imported by both sides and importing nothing.

use std::fmt::Display;
use std::ops::RangeInclusive;

/// A value outside its bounds: which one, and what it may be.
#[derive(Clone, Debug, PartialEq, Eq, thiserror::Error)]
#[error("{0}")]
pub struct ConfigError(pub String);

/// Ok if `value` lies in `range`, else an error naming `what` and the range.
pub fn check<T: PartialOrd + Display>(
    what: &str,
    value: T,
    range: &RangeInclusive<T>,
) -> Result<(), ConfigError> {
    if range.contains(&value) {
        Ok(())
    } else {
        Err(ConfigError(format!(
            "{what} must be from {} to {}, got {value}",
            range.start(),
            range.end()
        )))
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn the_error_names_the_value_and_its_bounds() {
        assert_eq!(check("tick rate", 10u16, &(10..=240)), Ok(()));
        assert_eq!(check("loss (%)", 100.0, &(0.0..=100.0)), Ok(()));
        let err = check("tick rate", 241u16, &(10..=240)).unwrap_err();
        assert_eq!(err.to_string(), "tick rate must be from 10 to 240, got 241");
        assert!(check("loss (%)", f64::NAN, &(0.0..=100.0)).is_err());
    }
}
