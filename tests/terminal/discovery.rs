//! Finding servers without typing an address.

use crate::support;
use crate::support::tmux as term;

use std::process::Command;

use support::process::{BIN, NO_CONFIG, headless_join, start_server};
use term::{Tmux, framed, game_script, quit_and_check_terminal, require_tmux};

fn list(ports: &[u16]) -> Vec<serde_json::Value> {
    let mut cmd = Command::new(BIN);
    cmd.env("NETARENA_CONFIG", NO_CONFIG);
    cmd.args(["list", "--json", "--scope", "loopback", "--wait-ms", "600"]);
    for p in ports {
        cmd.args(["--discovery-port", &p.to_string()]);
    }
    let out = cmd.output().unwrap();
    assert!(
        out.status.success(),
        "{}",
        String::from_utf8_lossy(&out.stderr)
    );
    let v: serde_json::Value = serde_json::from_slice(&out.stdout).expect("list --json is JSON");
    v.as_array().expect("an array").clone()
}

#[test]
fn list_finds_servers_and_respects_opt_out_and_versions() {
    let open = start_server(&["--server-name", "lan party", "--bots", "2", "--map", "duel"]);
    let hidden = start_server(&["--no-discovery"]);
    let future = start_server(&["--debug-protocol-version", "99"]);
    let found = list(&[open.port, hidden.port, future.port]);

    let by_port = |p: u16| {
        found
            .iter()
            .find(|s| s["address"].as_str().unwrap().ends_with(&format!(":{p}")))
    };
    let s = by_port(open.port).expect("the open server is listed");
    assert_eq!(s["name"], "lan party");
    assert_eq!(s["map"], "duel");
    assert_eq!(s["players"], 2);
    assert_eq!(s["max_players"], 16);
    assert_eq!(s["compatible"], true);
    assert!(s["ping_ms"].as_f64().unwrap() < 500.0);

    assert!(
        by_port(hidden.port).is_none(),
        "--no-discovery is not listed"
    );

    let f = by_port(future.port).expect("the other version is listed");
    assert_eq!(f["compatible"], false);
    assert_eq!(f["version"], 99);
    let out = headless_join(future.port, "1").output().unwrap();
    assert!(
        !out.status.success(),
        "an incompatible server cannot be joined"
    );
    assert!(String::from_utf8_lossy(&out.stderr).contains("version mismatch"));
}

#[test]
fn the_join_screen_lists_and_joins_in_a_real_terminal() {
    // Before any server starts: without tmux, fail with a clear message and leave
    // nothing running.
    require_tmux();
    let server = start_server(&["--server-name", "screen test"]);
    let future = start_server(&[
        "--server-name",
        "the future",
        "--debug-protocol-version",
        "99",
    ]);
    let tmux = Tmux::start(
        "discovery",
        80,
        24,
        &game_script(&format!(
            "join --scope loopback --discovery-port {} --discovery-port {} --fps-cap 100 \
             --name tester",
            future.port, server.port
        )),
    );
    let s = tmux.wait_for_text("screen test");
    assert!(
        s.contains("the future") && s.contains("incompatible"),
        "{}",
        framed(&s)
    );
    // Each row shows where its server answered from.
    for (name, port) in [("screen test", server.port), ("the future", future.port)] {
        let row = s.lines().find(|l| l.contains(name)).unwrap();
        assert!(
            row.contains(&format!("127.0.0.1:{port}")),
            "{name}'s address:\n{}",
            framed(&s)
        );
    }
    // Pick the incompatible one: refused in place, the screen stays.
    let rows: Vec<&str> = s.lines().collect();
    let future_row = rows.iter().position(|l| l.contains("the future")).unwrap();
    let test_row = rows.iter().position(|l| l.contains("screen test")).unwrap();
    // The list's order is the order answers came in; move to "the future" first.
    let future_first = future_row < test_row;
    if !future_first {
        tmux.key("Down");
    }
    tmux.key("Enter");
    tmux.wait_for_text("cannot be joined");
    // Now the compatible one: the game starts.
    tmux.key(if future_first { "Down" } else { "Up" });
    tmux.key("Enter");
    tmux.wait_for_text("@ tester");
    quit_and_check_terminal(&tmux, "q", true);
}

/// Issue 30: in the browser `r` searched again and `q` quit while nothing was typed, so
/// `raspberrypi.local` became `aspberrypi.local` and `quakebox:7779` quit. Every letter
/// types; a typed host name (`localhost`, here) joins.
#[test]
fn the_browser_takes_any_host_name_typed() {
    require_tmux();
    let server = start_server(&["--server-name", "typed to"]);
    // Ask a port nobody listens on: the list stays empty, the address is typed.
    let silent = std::net::UdpSocket::bind("127.0.0.1:0")
        .unwrap()
        .local_addr()
        .unwrap()
        .port();
    let tmux = Tmux::start(
        "typed",
        80,
        24,
        &game_script(&format!(
            "join --scope loopback --discovery-port {silent} --fps-cap 100 --name typist"
        )),
    );
    tmux.wait_for_text("games on your network");
    for typed in ["raspberrypi.local", "quakebox:7779"] {
        tmux.type_text(typed);
        let s = tmux.wait_for_text(&format!("address: {typed}_"));
        assert!(s.contains("Esc quit"), "{}", framed(&s));
        for _ in typed.chars() {
            tmux.key("BSpace");
        }
        tmux.wait_for("the address to be erased", |s| {
            s.lines().any(|l| l.trim_end() == "address:").then_some(())
        });
    }
    tmux.type_text(&format!("localhost:{}", server.port));
    tmux.key("Enter");
    tmux.wait_for_text("@ typist");
    quit_and_check_terminal(&tmux, "q", true);
}

/// The config file is read (its `[list]` section makes `list` print JSON and ask a port
/// nobody listens on), and a flag on the command line overrides it (the server's port).
#[test]
fn list_reads_the_config_file_and_flags_override_it() {
    let server = start_server(&["--server-name", "configured"]);
    let dir = std::env::temp_dir().join(format!("netarena-xdg-{}", std::process::id()));
    std::fs::create_dir_all(dir.join("netarena")).unwrap();
    // A port no server is on: a free one, taken and given back.
    let silent = std::net::UdpSocket::bind("127.0.0.1:0")
        .unwrap()
        .local_addr()
        .unwrap()
        .port();
    std::fs::write(
        dir.join("netarena/config.toml"),
        format!("[list]\njson = true\nscope = \"loopback\"\ndiscovery-port = [{silent}]\n"),
    )
    .unwrap();
    let list = |extra: &[&str]| {
        let out = Command::new(BIN)
            .args(["list", "--wait-ms", "600"])
            .args(extra)
            .env_remove("NETARENA_CONFIG")
            .env("XDG_CONFIG_HOME", &dir)
            .output()
            .unwrap();
        assert!(
            out.status.success(),
            "{}",
            String::from_utf8_lossy(&out.stderr)
        );
        let v: serde_json::Value = serde_json::from_slice(&out.stdout)
            .unwrap_or_else(|_| panic!("not JSON: {}", String::from_utf8_lossy(&out.stdout)));
        v.as_array().expect("an array").clone()
    };
    assert!(list(&[]).is_empty(), "the file's port has no server");
    let found = list(&["--discovery-port", &server.port.to_string()]);
    std::fs::remove_dir_all(&dir).unwrap();
    assert_eq!(found.len(), 1, "{found:?}");
    assert_eq!(found[0]["name"], "configured");
}

/// A host on a port the browser did not ask was not found, and the browser said only
/// "No servers found". Now the browser and `list` name the ports they asked and how to
/// ask another, and a server off the default ports says how it is found.
#[test]
fn the_ports_asked_are_named_and_a_server_off_them_says_how_to_find_it() {
    require_tmux();
    // `--port 0`: a port the system picks, never one of 7777-7781.
    let server = start_server(&["--server-name", "elsewhere"]);
    let hint = format!("find this server with --discovery-port {}", server.port);
    assert!(
        server
            .wait_for_line(&hint, std::time::Duration::from_secs(5))
            .is_some(),
        "the server should say `{hint}`"
    );
    let silent = std::net::UdpSocket::bind("127.0.0.1:0")
        .unwrap()
        .local_addr()
        .unwrap()
        .port();
    let out = Command::new(BIN)
        .args(["list", "--scope", "loopback", "--wait-ms", "300"])
        .args(["--discovery-port", &silent.to_string()])
        .env("NETARENA_CONFIG", NO_CONFIG)
        .output()
        .unwrap();
    let text = String::from_utf8_lossy(&out.stdout);
    assert!(
        text.contains(&format!(
            "no servers found on port {silent} on this machine; for a server on another \
             port: --discovery-port PORT"
        )),
        "{text}"
    );

    let tmux = Tmux::start(
        "ports",
        80,
        24,
        &game_script(&format!("join --scope loopback --discovery-port {silent}")),
    );
    let words = tmux.wait_for("the browser to give up searching", |s| {
        let words = s
            .split(|c: char| c.is_whitespace() || c == '│')
            .filter(|w| !w.is_empty())
            .collect::<Vec<_>>()
            .join(" ");
        words.contains("No servers found").then_some(words)
    });
    assert!(
        words.contains(&format!(
            "No servers found on port {silent} on this machine."
        )) && words.contains("netarena join --discovery-port PORT"),
        "{words}"
    );
    // Ask the server's port by typing its address: found and joined.
    tmux.type_text(&format!("127.0.0.1:{}", server.port));
    tmux.key("Enter");
    tmux.wait_for_text("@ ");
    quit_and_check_terminal(&tmux, "q", true);
}
