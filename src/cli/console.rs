//! The dedicated server's console: one line per [`ServerEvent`], formatted here from
//! the plain data the server reports.

use std::fmt::{self, Display};
use std::io::Write;
use std::net::SocketAddr;
use std::sync::mpsc;

use netarena::client::shell::discovery::DEFAULT_PORTS;
use netarena::net::safe_text::safe;
use netarena::server::event_loop::Observer;
use netarena::server::{REFUSALS_EVERY, Server, ServerConfig, ServerEvent};

/// Prints one line of output. A closed stdout (the reader went away) must not take the
/// server down with it, so write errors are ignored.
pub(crate) fn say(line: fmt::Arguments) {
    let mut out = std::io::stdout().lock();
    let _ = writeln!(out, "{line}");
    let _ = out.flush();
}

/// Prints a report (JSON) on stdout: a reader that stopped early (`| head`) is no
/// error, any other failure to write is.
pub(crate) fn print_report(json: &str) -> std::io::Result<()> {
    match writeln!(std::io::stdout().lock(), "{json}") {
        Err(e) if e.kind() != std::io::ErrorKind::BrokenPipe => Err(e),
        _ => Ok(()),
    }
}

/// How one server event reads on the console and in the log. Every name in it, from a
/// player or a map file, passes [`safe`].
pub(crate) struct Line<'a>(pub(crate) &'a ServerEvent);

impl Display for Line<'_> {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        match self.0 {
            ServerEvent::Joined { id, name, from } => match (safe(name), from) {
                (name, Some(addr)) => write!(f, "join  #{id} {name} from {addr}"),
                (name, None) => write!(f, "join  #{id} {name} (bot)"),
            },
            ServerEvent::Left { id, name, reason } => {
                let (name, reason) = (safe(name), safe(reason));
                write!(f, "leave #{id} {name} ({reason})")
            }
            ServerEvent::Moved { id, from, to } => write!(f, "move  #{id} from {from} to {to}"),
            ServerEvent::Frag {
                killer,
                victim,
                weapon,
            } => {
                let (killer, victim) = (safe(killer), safe(victim));
                if killer == victim {
                    write!(f, "frag  {victim} fragged themselves ({})", weapon.name())
                } else {
                    let weapon = weapon.name();
                    write!(f, "frag  {killer} fragged {victim} with the {weapon}")
                }
            }
            ServerEvent::Results {
                map,
                lines,
                next_map,
            } => {
                write!(f, "match over on {}:", safe(map))?;
                for (i, p) in lines.iter().enumerate() {
                    let (name, frags, deaths) = (safe(&p.name), p.frags, p.deaths);
                    write!(
                        f,
                        "\n  {}. {name:<16} {frags:>3} frags {deaths:>3} deaths",
                        i + 1
                    )?;
                }
                write!(f, "\nnext map: {}", safe(next_map))
            }
            ServerEvent::Refused(r) => {
                let counts = [
                    (r.malformed, "malformed"),
                    (r.invalid, "invalid"),
                    (r.unknown_sender, "from unknown senders"),
                    (r.rate_limited, "rate-limited"),
                    (r.bad_cookie, "bad cookie"),
                    (r.wrong_version, "wrong version"),
                    (r.unproven, "without the session's proof"),
                ];
                let secs = REFUSALS_EVERY.as_secs();
                write!(f, "refused {} datagrams in {secs} s:", r.total())?;
                let shown = counts.iter().filter(|(n, _)| *n > 0);
                for (i, (n, what)) in shown.enumerate() {
                    let sep = if i == 0 { "" } else { "," };
                    write!(f, "{sep} {n} {what}")?;
                }
                Ok(())
            }
        }
    }
}

/// The server's first line: what it listens on and what it sends. The snapshot rate is
/// the one sent (a whole number of ticks apart), and the one asked when they differ.
fn banner(addr: SocketAddr, c: &ServerConfig) -> String {
    let map = &c.game.maps[0];
    let interval = c.snapshot_interval();
    let sent = f64::from(c.tick_rate) / f64::from(interval);
    let snapshots = if sent == f64::from(c.snapshot_rate) {
        format!("{} Hz snapshots", c.snapshot_rate)
    } else {
        let ticks = if interval == 1 { "tick" } else { "ticks" };
        format!(
            "{} Hz snapshots (asked {}: one every {interval} {ticks})",
            (sent * 10.0).round() / 10.0,
            c.snapshot_rate
        )
    };
    format!(
        "netarena server \"{}\" listening on {addr} (UDP), map {} ({}x{}), {} Hz ticks, {snapshots}, max {} players",
        safe(&c.name),
        safe(map.name()),
        map.width(),
        map.height(),
        c.tick_rate,
        c.max_players
    )
}

/// Prints the dedicated server's lines.
pub(crate) struct PrintEvents;

impl Observer for PrintEvents {
    fn started(&mut self, addr: SocketAddr, server: &Server) {
        let c = server.config();
        say(format_args!("{}", banner(addr, c)));
        let port = addr.port();
        if c.discoverable && !DEFAULT_PORTS.contains(&port) {
            // Browsers ask the default ports only: say how this one is found. (Tests
            // wait for lines with "join" or "leave": this one has neither.)
            say(format_args!(
                "port {port} is not one LAN browsers ask by default ({}-{}): players \
                 find this server with --discovery-port {port}, or by its address",
                DEFAULT_PORTS.start(),
                DEFAULT_PORTS.end()
            ));
        }
    }

    fn event(&mut self, event: &ServerEvent) {
        say(format_args!("{}", Line(event)));
    }
}

/// In host mode the server's events go to the log: the screen belongs to the game.
pub(crate) struct LogEvents(pub(crate) mpsc::Sender<anyhow::Result<SocketAddr>>);

impl Observer for LogEvents {
    fn started(&mut self, addr: SocketAddr, _server: &Server) {
        let _ = self.0.send(Ok(addr));
    }

    fn event(&mut self, event: &ServerEvent) {
        tracing::info!("{}", Line(event));
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use netarena::server::Standing;
    use netarena::sim::combat::Weapon;

    /// Issue 23: the banner said "25 Hz snapshots" while the server sent 30 (a
    /// snapshot every 2 ticks at 60 Hz).
    #[test]
    fn the_banner_gives_the_snapshot_rate_sent() {
        let map = netarena::sim::map::Map::builtin("duel").unwrap();
        let mut c = ServerConfig::new(map);
        let addr: SocketAddr = "127.0.0.1:7894".parse().unwrap();
        let line = |c: &ServerConfig| banner(addr, c);
        assert!(
            line(&c).contains("60 Hz ticks, 20 Hz snapshots, max"),
            "{}",
            line(&c)
        );
        c.snapshot_rate = 25;
        let want = "60 Hz ticks, 30 Hz snapshots (asked 25: one every 2 ticks), max";
        assert!(line(&c).contains(want), "{}", line(&c));
        c.snapshot_rate = 7;
        assert!(line(&c).contains("7.5 Hz snapshots (asked 7: one every 8 ticks)"));
    }

    #[test]
    fn lines_read_as_before() {
        let joined = ServerEvent::Joined {
            id: 3,
            name: "ann".into(),
            from: Some("10.0.0.1:5000".parse().unwrap()),
        };
        assert_eq!(Line(&joined).to_string(), "join  #3 ann from 10.0.0.1:5000");
        let bot = ServerEvent::Joined {
            id: 0,
            name: "bot-1".into(),
            from: None,
        };
        assert_eq!(Line(&bot).to_string(), "join  #0 bot-1 (bot)");
        let left = ServerEvent::Left {
            id: 3,
            name: "ann".into(),
            reason: "timed out",
        };
        assert_eq!(Line(&left).to_string(), "leave #3 ann (timed out)");
        let frag = ServerEvent::Frag {
            killer: "ann".into(),
            victim: "bob".into(),
            weapon: Weapon::Rail,
        };
        let rail = Weapon::Rail.name();
        assert_eq!(
            Line(&frag).to_string(),
            format!("frag  ann fragged bob with the {rail}")
        );
        let results = ServerEvent::Results {
            map: "duel".into(),
            lines: vec![Standing {
                name: "ann".into(),
                frags: 12,
                deaths: 3,
            }],
            next_map: "arena".into(),
        };
        assert_eq!(
            Line(&results).to_string(),
            "match over on duel:\n  1. ann               12 frags   3 deaths\nnext map: arena"
        );
        let refused = ServerEvent::Refused(netarena::server::Refusals {
            malformed: 120,
            rate_limited: 3,
            wrong_version: 1,
            ..Default::default()
        });
        assert_eq!(
            Line(&refused).to_string(),
            "refused 124 datagrams in 60 s: 120 malformed, 3 rate-limited, 1 wrong version"
        );
    }
}
