//! The retry for tests whose requirement is about time (CONTRIBUTING.md, "Tests"): a
//! loaded machine only makes things look slower, so a rate or a deadline that is missed
//! once is measured again, up to [`ATTEMPTS`] times, before the test fails. Only the
//! timing checks go through [`in_time`]; everything else still panics at once.

/// How many times a timing requirement is measured before the test fails.
pub const ATTEMPTS: u32 = 3;

/// Runs `attempt` (given its number, from 1) until it returns `Ok`, at most
/// [`ATTEMPTS`] times; then fails the test with what every attempt saw.
pub fn retry<T>(what: &str, mut attempt: impl FnMut(u32) -> Result<T, String>) -> T {
    let mut seen = String::new();
    for n in 1..=ATTEMPTS {
        match attempt(n) {
            Ok(done) => return done,
            Err(why) => {
                eprintln!("{what}: attempt {n} of {ATTEMPTS} missed its time: {why}");
                seen.push_str(&format!("attempt {n}: {why}\n"));
            }
        }
    }
    panic!("{what}: no attempt of {ATTEMPTS} met its timing requirement:\n{seen}")
}

/// A timing requirement inside an attempt: `Err(why())` when `met` is false.
pub fn in_time(met: bool, why: impl FnOnce() -> String) -> Result<(), String> {
    if met { Ok(()) } else { Err(why()) }
}
