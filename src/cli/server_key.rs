//! The server's long-lived key (`net::secure`), kept in the state directory so that a
//! restarted server is the same server to the clients that pinned it.

use std::io::Write;
use std::path::PathBuf;

use anyhow::{Context, anyhow};
use netarena::net::secure::{ServerKey, fingerprint};

/// `server_key` in the XDG state directory (`~/.local/state/netarena` on Linux; the
/// local data directory where there is no state directory).
fn path() -> anyhow::Result<PathBuf> {
    let dirs = directories::ProjectDirs::from("", "", "netarena")
        .context("no home directory to keep the server's key in")?;
    let dir = dirs.state_dir().unwrap_or_else(|| dirs.data_local_dir());
    Ok(dir.join("server_key"))
}

/// The key kept in the state directory, made (readable by its owner only) on first use.
/// Two servers starting at once agree on one: the key is written aside and linked into
/// place, which only the first does.
pub(crate) fn load_or_create() -> anyhow::Result<ServerKey> {
    let path = path()?;
    match std::fs::read_to_string(&path) {
        Ok(text) => ServerKey::from_file_text(&text).map_err(|e| {
            anyhow!(
                "{}: {e}; delete it to make a new key (clients that joined before then refuse the server until they accept the new one)",
                path.display()
            )
        }),
        Err(e) if e.kind() == std::io::ErrorKind::NotFound => {
            let key = ServerKey::generate();
            let dir = path.parent().context("the key file has a directory")?;
            std::fs::create_dir_all(dir)
                .with_context(|| format!("cannot create {}", dir.display()))?;
            let aside = dir.join(format!("server_key.{}", std::process::id()));
            // One left by a process of this id that died before linking it.
            let _ = std::fs::remove_file(&aside);
            let mut file = netarena::platform::fs::create_private(&aside)
                .with_context(|| format!("cannot create {}", aside.display()))?;
            file.write_all(key.to_file_text().as_bytes())
                .with_context(|| format!("cannot write {}", aside.display()))?;
            let linked = std::fs::hard_link(&aside, &path);
            let _ = std::fs::remove_file(&aside);
            match linked {
                Ok(()) => {
                    tracing::info!(
                        "made the server key {} in {}",
                        fingerprint(&key.public()),
                        path.display()
                    );
                    Ok(key)
                }
                // Another server made it first: use that one.
                Err(e) if e.kind() == std::io::ErrorKind::AlreadyExists => load_or_create(),
                Err(e) => Err(anyhow!("cannot create {}: {e}", path.display())),
            }
        }
        Err(e) => Err(anyhow!("cannot read {}: {e}", path.display())),
    }
}
