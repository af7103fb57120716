//! The game in a pseudo-terminal the bench opens itself: the bench holds the master end,
//! writes keys to it and reads the game's output from it, with no relay process between
//! (`script(1)` copied every byte through a process of its own, whose scheduling on a
//! busy machine was most of what the bench measured). The game runs as a child in a new
//! session with the pseudo-terminal's other end as its controlling terminal, as in a
//! terminal emulator. Unix only: Windows has no pseudo-terminal of this kind.

use std::fs::File;
use std::io::{ErrorKind, Read, Write};
use std::os::unix::process::CommandExt;
use std::path::Path;
use std::process::{Child, Command, ExitStatus};
use std::time::{Duration, Instant};

use anyhow::Context;
use rustix::event::{PollFd, PollFlags, Timespec, poll};
use rustix::fs::{Mode, OFlags, open};
use rustix::pty::{OpenptFlags, grantpt, openpt, ptsname, unlockpt};
use rustix::termios::{Winsize, tcsetwinsize};

/// What one read of the game's output gave.
pub enum Output {
    /// Bytes, and when the read returned them.
    Bytes(Vec<u8>, Instant),
    /// Nothing before the deadline.
    Quiet,
    /// The game closed its terminal: it exited.
    Gone,
}

/// A running game and the master end of its pseudo-terminal. Dropping it asks the game
/// to quit, then kills it if it has not within 3 s, and always reaps it.
pub struct Game {
    master: File,
    child: Child,
    gone: bool,
}

impl Game {
    /// Runs `bin args` in a new pseudo-terminal of `cols` x `rows`.
    pub fn spawn(bin: &Path, args: &[String], cols: u16, rows: u16) -> anyhow::Result<Game> {
        let master = openpt(OpenptFlags::RDWR | OpenptFlags::NOCTTY)
            .context("cannot open a pseudo-terminal (/dev/ptmx), which the game runs in")?;
        // Not inherited by the game (macOS's openpt takes no CLOEXEC flag).
        rustix::io::fcntl_setfd(&master, rustix::io::FdFlags::CLOEXEC)
            .context("cannot mark the pseudo-terminal close-on-exec")?;
        grantpt(&master).context("grantpt on the pseudo-terminal")?;
        unlockpt(&master).context("unlockpt on the pseudo-terminal")?;
        let size = Winsize {
            ws_row: rows,
            ws_col: cols,
            ws_xpixel: 0,
            ws_ypixel: 0,
        };
        tcsetwinsize(&master, size).context("cannot set the pseudo-terminal's size")?;
        let name = ptsname(&master, Vec::new()).context("ptsname on the pseudo-terminal")?;
        let flags = OFlags::RDWR | OFlags::NOCTTY | OFlags::CLOEXEC;
        let tty = File::from(
            open(name.as_c_str(), flags, Mode::empty())
                .with_context(|| format!("cannot open the pseudo-terminal {name:?}"))?,
        );
        let mut cmd = Command::new(bin);
        cmd.args(args)
            .stdin(tty.try_clone()?)
            .stdout(tty.try_clone()?)
            .stderr(tty);
        // SAFETY: the hook runs in the forked child before exec and makes only two
        // system calls (no allocation, no locks): a new session, then the terminal on
        // stdin (already the pseudo-terminal) as its controlling terminal.
        unsafe {
            cmd.pre_exec(|| {
                rustix::process::setsid()?;
                rustix::process::ioctl_tiocsctty(rustix::stdio::stdin())?;
                Ok(())
            });
        }
        let child = cmd
            .spawn()
            .with_context(|| format!("cannot run {}", bin.display()))?;
        // `cmd` held the parent's copies of the terminal's end: with them closed, the
        // master reports the game gone once the game exits.
        drop(cmd);
        Ok(Game {
            master: File::from(master),
            child,
            gone: false,
        })
    }

    /// Where keys (and answers to the game's terminal queries) are written.
    pub fn input(&mut self) -> &mut File {
        &mut self.master
    }

    /// The next output, waiting until `deadline` at most.
    pub fn read(&mut self, deadline: Instant) -> Output {
        if self.gone {
            return Output::Gone;
        }
        loop {
            let left = deadline.saturating_duration_since(Instant::now());
            let timeout = Timespec::try_from(left).unwrap_or(Timespec {
                tv_sec: 1,
                tv_nsec: 0,
            });
            let mut fds = [PollFd::new(&self.master, PollFlags::IN)];
            match poll(&mut fds, Some(&timeout)) {
                Ok(0) if left.is_zero() => return Output::Quiet,
                Ok(0) => continue,
                Ok(_) => {}
                Err(rustix::io::Errno::INTR) => continue,
                Err(_) => break,
            }
            let mut buf = vec![0u8; 65_536];
            match (&self.master).read(&mut buf) {
                Ok(0) => break,
                Ok(n) => {
                    let at = Instant::now();
                    buf.truncate(n);
                    return Output::Bytes(buf, at);
                }
                Err(e) if e.kind() == ErrorKind::Interrupted => continue,
                // Linux answers EIO once no process holds the terminal's other end.
                Err(_) => break,
            }
        }
        self.gone = true;
        Output::Gone
    }

    /// Whether a read found the game gone.
    pub fn gone(&self) -> bool {
        self.gone
    }

    #[cfg(all(test, target_os = "linux"))]
    fn id(&self) -> u32 {
        self.child.id()
    }

    /// How the game ended, if it has.
    pub fn status(&mut self) -> Option<ExitStatus> {
        self.child.try_wait().ok().flatten()
    }
}

impl Drop for Game {
    fn drop(&mut self) {
        let _ = self.master.write_all(b"q");
        // Its output is read meanwhile, so a game writing its last frame never blocks.
        let deadline = Instant::now() + Duration::from_secs(3);
        while self.status().is_none() && Instant::now() < deadline {
            if let Output::Gone = self.read(Instant::now() + Duration::from_millis(20)) {
                std::thread::sleep(Duration::from_millis(5));
            }
        }
        let _ = self.child.kill();
        let _ = self.child.wait();
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    fn spawn_sh(script: &str) -> Game {
        let args = ["-c".to_owned(), script.to_owned()];
        Game::spawn(Path::new("sh"), &args, 100, 30).unwrap()
    }

    /// Everything the child writes until it closes the terminal.
    fn all_output(game: &mut Game) -> String {
        let mut text = Vec::new();
        let deadline = Instant::now() + Duration::from_secs(5);
        while let Output::Bytes(bytes, _) = game.read(deadline) {
            text.extend_from_slice(&bytes);
        }
        String::from_utf8_lossy(&text).into_owned()
    }

    #[test]
    fn the_child_has_the_terminal_its_size_and_the_keys() {
        // /dev/tty opens only for a process with a controlling terminal.
        let mut game = spawn_sh("stty size </dev/tty; read -r line; echo got:$line");
        game.input().write_all(b"abc\n").unwrap();
        let text = all_output(&mut game);
        assert!(text.contains("30 100"), "{text:?}");
        assert!(text.contains("got:abc"), "{text:?}");
        assert!(game.gone());
    }

    #[test]
    fn a_child_that_does_not_quit_is_killed_and_reaped() {
        let mut game = spawn_sh("exec sleep 30");
        #[cfg(target_os = "linux")]
        let pid = game.id();
        assert!(matches!(
            game.read(Instant::now() + Duration::from_millis(200)),
            Output::Quiet
        ));
        let dropped = Instant::now();
        drop(game);
        // Killed: not waited for until the sleep ends.
        assert!(dropped.elapsed() < Duration::from_secs(10));
        // Reaped too: a zombie would still have its /proc entry (Linux has /proc).
        #[cfg(target_os = "linux")]
        assert!(
            !Path::new(&format!("/proc/{pid}")).exists(),
            "{pid} still there"
        );
    }
}
