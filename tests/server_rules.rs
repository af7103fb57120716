//! Server and CLI rules from issues 14 and 15, through the real binary where it is
//! about the command line.

mod support;

use std::process::Stdio;
use std::time::Duration;

use support::process::{BIN, start_server};

#[test]
fn join_without_a_terminal_never_reaches_the_server() {
    let server = start_server(&[]);
    let out = std::process::Command::new(BIN)
        .args(["join", &format!("127.0.0.1:{}", server.port)])
        .stdin(Stdio::null())
        .stdout(Stdio::piped())
        .stderr(Stdio::piped())
        .output()
        .unwrap();
    let stderr = String::from_utf8_lossy(&out.stderr);
    assert!(!out.status.success(), "{stderr}");
    assert!(stderr.contains("needs a terminal"), "{stderr}");
    assert!(stderr.contains("--headless"), "{stderr}");
    // The server saw nobody: no join line within a generous wait.
    let joined = server
        .lines
        .recv_timeout(Duration::from_millis(1500))
        .ok()
        .filter(|l| l.starts_with("join"));
    assert_eq!(joined, None);
}
