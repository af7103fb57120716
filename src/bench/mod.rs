//! `netarena bench`: reproducible numbers for the frame rate, the server tick, the
//! bandwidth and the headless lab's speed. Each benchmark returns a flat result that
//! prints as a table or as one JSON object whose keys stay stable.
#![doc(hidden)] // Public for the binary, tests or fuzz targets: see the crate docs.

pub mod lab;
#[cfg(unix)]
pub mod latency;
pub mod net;
pub mod relay;
pub mod render;
pub mod server;

use std::time::Duration;

use serde::Serialize;

/// The value at quantile `q` (0..=1) of `samples`, in microseconds.
pub(crate) fn percentile_us(samples: &mut [Duration], q: f64) -> f64 {
    if samples.is_empty() {
        return 0.0;
    }
    samples.sort_unstable();
    let i = ((samples.len() - 1) as f64 * q).round() as usize;
    samples[i].as_secs_f64() * 1e6
}

/// Prints a result as `key  value` lines, or as one line of JSON.
/// A reader that stops early (`| head`) is not an error worth a panic.
pub fn print<T: Serialize>(title: &str, result: &T, json: bool) -> anyhow::Result<()> {
    use std::io::Write;
    let mut out = std::io::stdout().lock();
    if json {
        let _ = writeln!(out, "{}", serde_json::to_string(result)?);
        return Ok(());
    }
    let _ = writeln!(out, "{title}");
    let value = serde_json::to_value(result)?;
    if let Some(map) = value.as_object() {
        let width = map.keys().map(String::len).max().unwrap_or(0);
        for (k, v) in map {
            let shown = match v.as_f64() {
                Some(f) if f.fract() != 0.0 => format!("{f:.2}"),
                _ => v.to_string(),
            };
            let _ = writeln!(out, "  {k:<width$}  {shown}");
        }
    }
    Ok(())
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn percentiles() {
        let mut v: Vec<Duration> = (1..=100).map(Duration::from_micros).collect();
        assert_eq!(percentile_us(&mut v, 0.5), 51.0);
        assert_eq!(percentile_us(&mut v, 0.99), 99.0);
        assert_eq!(percentile_us(&mut [], 0.5), 0.0);
    }
}
