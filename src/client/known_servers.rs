//! The servers this player has joined, by key, as ssh's `known_hosts` keeps hosts: the
//! first join pins the server's static key (`net::secure`), and a later join of that
//! address that presents another key is refused with one line saying how to accept it.
//!
//! The file is `known_servers` in the config directory (`$XDG_CONFIG_HOME/netarena`,
//! else `~/.config/netarena` on Linux), one server a line: the key in hex, then the
//! address it was last joined at. A key is what a server is; the address is only a
//! hint (a LAN's DHCP hands addresses round), so a pinned key is welcome at any
//! address, and only an address whose pinned key differs, and a key never seen, is
//! refused.

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
    if let Some(at) = parsed
        .iter()
        .position(|p| p.is_some_and(|(k, _)| &k == key))
    {
        // Known: the address is a hint, kept up to date.
        if parsed[at].is_some_and(|(_, a)| a != hint) {
            lines[at] = format!("{} {hint}", hex(key));
            write(path, &lines)?;
        }
        return Ok(());
    }
    if let Some(line) = parsed
        .iter()
        .position(|p| p.is_some_and(|(_, a)| a == hint))
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
        assert!(pin.check(b, &k2).is_ok(), "a pinned key at any address");
        let _ = std::fs::remove_dir_all(&dir);
        assert!(ServerPin::Key(k1).check(a, &k2).is_err());
        assert!(ServerPin::Any.check(a, &k2).is_ok());
    }
}
