//! What comes from the network reaches no terminal raw: a `Bye` whose reason is full of
//! escape sequences, sealed by a relay standing for a hostile server (it holds the
//! session's keys, from the test-only key log), ends the real client with one line and
//! none of them; a map whose file name holds them reaches the server
//! console without them.

use std::net::{SocketAddr, UdpSocket};
use std::process::{Command, Stdio};
use std::time::{Duration, Instant};

use netarena::net::codec;
use netarena::net::protocol::ServerMsg;

use crate::support::process::{BIN, NO_CONFIG, isolated, key_log, start_server};

/// A window title, a cleared screen, the alternate screen on, the cursor hidden, a
/// bell, and the C1 forms of CSI and OSC.
const EVIL: &str =
    "bye\u{1b}]0;pwned\u{7}\u{1b}[2J\u{1b}[?1049h\u{1b}[?25l\u{9b}31m\u{9d}2;x\u{9c}!";

/// Whether `text` holds anything a terminal acts on.
fn acts_on_a_terminal(text: &str) -> bool {
    text.chars().any(|c| c.is_control() && c != '\n')
}

// The reason was printed raw after the terminal was restored: the title changed, the
// screen cleared and the shell was left on the alternate screen, the cursor hidden.
#[test]
#[ignore = "slow tier: .ci/run runs it with --ignored"]
fn a_bye_full_of_escape_sequences_prints_none_of_them() {
    let server = start_server(&[]);
    let to = SocketAddr::from(([127, 0, 0, 1], server.port));
    let front = UdpSocket::bind("127.0.0.1:0").unwrap();
    let back = UdpSocket::bind("127.0.0.1:0").unwrap();
    front.set_nonblocking(true).unwrap();
    back.set_nonblocking(true).unwrap();
    let port = front.local_addr().unwrap().port();
    let client = isolated(&mut Command::new(BIN))
        .args(["join", &format!("127.0.0.1:{port}"), "--headless"])
        .args(["--seconds", "10"])
        .stdout(Stdio::null())
        .stderr(Stdio::piped())
        .spawn()
        .expect("client starts");
    // Forward both ways; once the client has had a second of play, the Bye, sealed as
    // the server's next datagram (a bare one is dropped: `hardening.rs` forges those),
    // and nothing more from the server.
    let mut keys = codec::KeyLog::new(key_log());
    let mut buf = vec![0u8; 65_536];
    let (mut from_client, mut down, mut sent) = (None, 0, false);
    let start = Instant::now();
    while start.elapsed() < Duration::from_secs(8) && !sent {
        while let Ok((n, from)) = front.recv_from(&mut buf) {
            from_client = Some(from);
            let _ = back.send_to(&buf[..n], to);
        }
        while let Ok((n, _)) = back.recv_from(&mut buf) {
            let Some(c) = from_client else { continue };
            let mut bye = Vec::new();
            let evil = ServerMsg::Bye(EVIL.to_owned());
            if down > 20
                && codec::is_sealed(&buf[..n])
                && keys.seal_server_after(&buf[..n], &evil, &mut bye).is_some()
            {
                front.send_to(&bye, c).unwrap();
                sent = true;
                break;
            }
            let _ = front.send_to(&buf[..n], c);
            down += 1;
        }
        std::thread::sleep(Duration::from_millis(2));
    }
    assert!(
        sent,
        "the client never got a second of play through the relay"
    );
    let out = client.wait_with_output().unwrap();
    let stderr = String::from_utf8_lossy(&out.stderr);
    assert!(
        stderr.contains("the server closed the connection: bye"),
        "{stderr:?}"
    );
    assert!(!acts_on_a_terminal(&stderr), "{stderr:?}");
}

// The map name, from the file name, went raw to the server console.
#[test]
#[ignore = "slow tier: .ci/run runs it with --ignored"]
fn a_map_file_name_full_of_escape_sequences_reaches_the_console_without_them() {
    let dir = std::env::temp_dir().join(format!("netarena-escapes-{}", std::process::id()));
    std::fs::create_dir_all(&dir).unwrap();
    let path = dir.join("pit\u{1b}]0;pwned\u{7}\u{1b}[2J.txt");
    std::fs::write(&path, "#####\n#S.S#\n#...#\n#S.S#\n#####\n").unwrap();
    let out = Command::new(BIN)
        .env("NETARENA_CONFIG", NO_CONFIG)
        .args(["server", "--port", "0", "--map"])
        .arg(&path)
        .stdout(Stdio::piped())
        .stderr(Stdio::piped())
        .spawn()
        .expect("server starts");
    // The banner is the first line; then the server is stopped.
    let mut child = out;
    let mut first = String::new();
    std::io::BufRead::read_line(
        &mut std::io::BufReader::new(child.stdout.take().unwrap()),
        &mut first,
    )
    .unwrap();
    let _ = child.kill();
    let _ = child.wait();
    let _ = std::fs::remove_dir_all(&dir);
    assert!(first.contains("listening on"), "{first:?}");
    assert!(first.contains("map pit"), "{first:?}");
    assert!(!acts_on_a_terminal(&first), "{first:?}");
}
