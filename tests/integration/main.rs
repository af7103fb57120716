//! The whole-program tests that need no terminal, in one binary (each binary links the
//! crate again): one module per subject. `cargo test --test integration NAME` runs the
//! tests whose path contains NAME, e.g. `hardening::` for one module.
//!
//! Real-time tests that take more than about two seconds are in the slow tier: ignored
//! by `cargo test`, run by `.ci/run` with `cargo test -- --ignored` (CONTRIBUTING.md).

#[path = "../support/mod.rs"]
mod support;

mod bench;
mod causes;
mod cli_reference;
mod combat;
mod config;
mod crowd;
mod datagram_budget;
mod escapes;
mod flood;
mod hardening;
mod hostile_server;
mod key_cadence;
mod lab;
mod loopback;
mod prediction;
mod protocol_props;
mod record;
mod replay;
mod rulebook;
mod server_rules;
mod truth;

/// The timing retry (`support/retry.rs`): a miss is measured again, the first attempt in
/// time wins, and the test fails only after every attempt missed, saying what each saw.
#[test]
fn a_timing_miss_is_measured_again_and_only_three_fail() {
    use support::retry::{ATTEMPTS, in_time, retry};
    let mut tries = Vec::new();
    let got = retry("the second attempt", |n| {
        tries.push(n);
        in_time(n == 2, || format!("attempt {n} was slow")).map(|()| n)
    });
    assert_eq!((got, tries), (2, vec![1, 2]));

    let failed = std::panic::catch_unwind(|| {
        retry("never in time", |n| in_time(false, || format!("slow {n}")))
    });
    let why = *failed
        .expect_err("three misses fail")
        .downcast::<String>()
        .unwrap();
    assert_eq!(ATTEMPTS, 3);
    assert!(
        why.contains("slow 1") && why.contains("slow 2") && why.contains("slow 3"),
        "{why}"
    );
}
