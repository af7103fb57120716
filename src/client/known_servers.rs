//! The servers this player has joined, by key, as ssh's `known_hosts` keeps hosts: the
//! first join pins the server's static key (`net::secure`), and a later join of that
//! address that presents another key is refused with one line saying how to accept it.
//!
//! The file is `known_servers` in the config directory (`$XDG_CONFIG_HOME/netarena`,
//! else `~/.config/netarena` on Linux), one server a line: the key in hex, then the
//! address it was last joined at. An address pinned to one key refuses every other,
//! even a key pinned for another address. A pinned key is welcome at an address no
//! line pins (a LAN's DHCP hands addresses round), and its line's address follows it;
//! a key never seen at an address never pinned is pinned.

use std::net::SocketAddr;
use std::path::{Path, PathBuf};

use crate::net::secure::{fingerprint, hex, parse_key};

/// What a client accepts as its server's key.
#[derive(Clone, Debug, PartialEq, Eq)]
pub enum ServerPin {
    /// The keys pinned in this file (pinning a new server's on first join).
    File(PathBuf),
    /// Exactly this key: `host`'s client knows its own server's.
    Key([u8; 32]),
    /// Any key, pinned nowhere: there is no home directory to keep the file in.
    Any,
}

impl ServerPin {
    /// `known_servers` in the config directory, or [`ServerPin::Any`] without one.
    pub fn default_file() -> ServerPin {
        match directories::ProjectDirs::from("", "", "netarena") {
            Some(d) => ServerPin::File(d.config_dir().join("known_servers")),
            None => ServerPin::Any,
        }
    }

    /// Whether `key`, presented by the server at `addr`, is accepted: pins it when the
    /// file does not know it yet. The error is one line: what differs, and how to
    /// accept the new key.
    pub fn check(&self, addr: SocketAddr, key: &[u8; 32]) -> Result<(), String> {
        match self {
            ServerPin::Any => Ok(()),
            ServerPin::Key(k) if k == key => Ok(()),
            ServerPin::Key(k) => Err(format!(
                "the server at {addr} presents key {}, not its own {}",
                fingerprint(key),
                fingerprint(k)
            )),
            ServerPin::File(path) => check_file(path, addr, key),
        }
    }
}

fn check_file(path: &Path, addr: SocketAddr, key: &[u8; 32]) -> Result<(), String> {
    let text = match std::fs::read_to_string(path) {
        Ok(text) => text,
        Err(e) if e.kind() == std::io::ErrorKind::NotFound => String::new(),
        Err(e) => return Err(format!("cannot read {}: {e}", path.display())),
    };
    let mut lines: Vec<String> = text.lines().map(str::to_owned).collect();
    let parsed: Vec<Option<([u8; 32], &str)>> = text
        .lines()
        .map(|l| {
            let mut words = l.split_whitespace();
            Some((parse_key(words.next()?)?, words.next().unwrap_or("")))
        })
        .collect();
    let hint = addr.to_string();
    // The address first: one pinned to another key refuses this one, even a key that
    // is pinned elsewhere (a server may not take over another's address by its own key).
    if let Some(line) = parsed
        .iter()
        .position(|p| p.is_some_and(|(k, a)| a == hint && &k != key))
    {
        let pinned = parsed[line].map(|(k, _)| k).unwrap_or_default();
        return Err(format!(
            "the server at {addr} presents key {}, but key {} is pinned for it (line {} of {}): if its key really changed, delete that line and join again",
            fingerprint(key),
            fingerprint(&pinned),
            line + 1,
            path.display()
        ));
    }
    if let Some(at) = parsed
        .iter()
        .position(|p| p.is_some_and(|(k, _)| &k == key))
    {
        // Known, and the address is pinned to no other key: the hint follows the server.
        if parsed[at].is_some_and(|(_, a)| a != hint) {
            lines[at] = format!("{} {hint}", hex(key));
            write(path, &lines)?;
        }
        return Ok(());
    }
    lines.push(format!("{} {hint}", hex(key)));
    write(path, &lines)?;
    tracing::info!(
        "pinned the key {} of the server at {addr} in {}",
        fingerprint(key),
        path.display()
    );
    Ok(())
}

fn write(path: &Path, lines: &[String]) -> Result<(), String> {
    if let Some(dir) = path.parent() {
        std::fs::create_dir_all(dir)
            .map_err(|e| format!("cannot create {}: {e}", dir.display()))?;
    }
    let mut text = lines.join("\n");
    text.push('\n');
    std::fs::write(path, text).map_err(|e| format!("cannot write {}: {e}", path.display()))
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn first_join_pins_a_known_key_may_move_and_a_changed_one_is_refused() {
        let dir = std::env::temp_dir().join(format!("netarena-pin-{}", std::process::id()));
        let path = dir.join("known_servers");
        let _ = std::fs::remove_file(&path);
        let pin = ServerPin::File(path.clone());
        let a: SocketAddr = "10.0.0.5:7777".parse().unwrap();
        let b: SocketAddr = "10.0.0.9:7777".parse().unwrap();
        let (k1, k2) = ([1u8; 32], [2u8; 32]);
        assert_eq!(pin.check(a, &k1), Ok(()));
        assert_eq!(pin.check(a, &k1), Ok(()));
        let err = pin.check(a, &k2).unwrap_err();
        assert!(
            err.contains("0202-0202-0202-0202")
                && err.contains("0101-0101-0101-0101")
                && err.contains("line 1")
                && err.contains("delete that line"),
            "{err}"
        );
        assert!(!err.contains('\n'));
        // The same server at another address is welcome, and the hint follows it.
        assert_eq!(pin.check(b, &k1), Ok(()));
        let text = std::fs::read_to_string(&path).unwrap();
        assert_eq!(text, format!("{} {b}\n", hex(&k1)));
        // A new server at the old address, now free, is pinned beside it.
        assert_eq!(pin.check(a, &k2), Ok(()));
        assert!(pin.check(b, &k2).is_err(), "b is pinned to k1");
        let _ = std::fs::remove_dir_all(&dir);
        assert!(ServerPin::Key(k1).check(a, &k2).is_err());
        assert!(ServerPin::Any.check(a, &k2).is_ok());
    }

    #[test]
    fn a_key_known_elsewhere_does_not_take_an_address_pinned_to_another() {
        let dir = std::env::temp_dir().join(format!("netarena-pin2-{}", std::process::id()));
        let path = dir.join("known_servers");
        let _ = std::fs::remove_file(&path);
        let pin = ServerPin::File(path.clone());
        let a: SocketAddr = "10.0.0.5:7777".parse().unwrap();
        let b: SocketAddr = "10.0.0.9:7777".parse().unwrap();
        let (k1, k2) = ([1u8; 32], [2u8; 32]);
        assert_eq!(pin.check(a, &k1), Ok(()));
        assert_eq!(pin.check(b, &k2), Ok(()));
        let before = std::fs::read_to_string(&path).unwrap();
        // k2 is a known key, but a is k1's: refused, and neither line rewritten.
        let err = pin.check(a, &k2).unwrap_err();
        assert!(
            err.contains("delete that line") && !err.contains('\n'),
            "{err}"
        );
        assert_eq!(std::fs::read_to_string(&path).unwrap(), before);
        let _ = std::fs::remove_dir_all(&dir);
    }
}
