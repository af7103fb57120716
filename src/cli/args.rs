//! Every flag, its default and its help text: the one definition `--help` comes from.
//! Numeric flags are parsed against the same bounds the configs' `validate` enforces.

use std::fmt::Display;
use std::ops::RangeInclusive;
use std::path::PathBuf;
use std::str::FromStr;

use clap::{Args, Parser, Subcommand, ValueEnum};

mod lab;
mod play;
pub(crate) use lab::LabArgs;
pub(crate) use play::{HostArgs, JoinArgs, PanicSite, PlayerArgs, ThemeArgs, ViewArgs};

use netarena::client::shell::discovery::Scope;
use netarena::client::validate::DELAYS_MS;
use netarena::net::conditioner::JitterMode;
use netarena::server::InputBuffer;
use netarena::server::config::{
    BOT_SKILLS, CLIENT_TIMEOUTS_SECS, FRAG_LIMITS, MAX_PLAYERS, MAX_REWINDS_MS, PLAYER_LIMIT,
    SNAPSHOT_RATES, TICK_RATES, TIME_LIMITS, defaults,
};

pub(crate) const DEFAULT_PORT: u16 = 7777;

/// The interpolation delay a flag asks for: automatic (None), or this many snapshot
/// periods.
#[derive(Clone, Copy, Debug, PartialEq)]
pub(crate) struct InterpDelay(pub(crate) Option<f64>);

/// Parses `auto` or a ratio of the snapshot period within its bounds.
pub(crate) fn interp_delay(text: &str) -> Result<InterpDelay, String> {
    use netarena::client::netcode::tuning::INTERP_RATIOS;
    if text.eq_ignore_ascii_case("auto") {
        return Ok(InterpDelay(None));
    }
    let expected = || {
        format!(
            "must be auto or from {} to {} snapshot periods",
            INTERP_RATIOS.start(),
            INTERP_RATIOS.end()
        )
    };
    match text.parse::<f64>() {
        Ok(r) if INTERP_RATIOS.contains(&r) => Ok(InterpDelay(Some(r))),
        _ => Err(expected()),
    }
}

/// A parser for a number in `range`, whose error reads "must be from 10 to 86400 seconds".
fn bounded<T>(
    range: RangeInclusive<T>,
    unit: &'static str,
) -> impl Fn(&str) -> Result<T, String> + Clone + Send + Sync + 'static
where
    T: FromStr + PartialOrd + Display + Clone + Send + Sync + 'static,
{
    move |text: &str| {
        let expected = || format!("must be from {} to {}{unit}", range.start(), range.end());
        match text.parse::<T>() {
            Ok(v) if range.contains(&v) => Ok(v),
            Ok(_) => Err(expected()),
            Err(_) => Err(format!("not a whole number: {}", expected())),
        }
    }
}

#[derive(Parser)]
#[command(
    name = "netarena",
    after_help = "Defaults for any flag, the player name and key bindings can be kept in a \
                  config file: see `netarena config --example`.",
    version,
    about = "A fast top-down ASCII deathmatch for the LAN, whose netcode you can see",
    long_about = None
)]
pub(crate) struct Cli {
    #[command(subcommand)]
    pub(crate) command: Subcmd,
}

#[derive(Subcommand)]
pub(crate) enum Subcmd {
    /// Host a match: run the server and play in this terminal
    Host(HostArgs),
    /// Run a dedicated, headless server (one line per event; Ctrl-C stops it)
    Server(ServerArgs),
    /// Join a match running on another terminal or machine (no address: browse the LAN)
    Join(JoinArgs),
    /// List the servers on the local network, for scripts
    List(ListArgs),
    /// Measure frame rendering, the server tick, bandwidth, or key-to-screen latency
    Bench(BenchArgs),
    /// The server and 2-4 clients side by side, each on its own network; time can stop
    Lab(LabArgs),
    /// Guided lessons in the lab that check what you do: list them, start one, or resume
    Learn(LearnArgs),
    /// Replay a recording made with --record: in the terminal, or headless to a report
    Replay(ReplayArgs),
    /// Put the simulated network between real clients and a server (counts at exit)
    Relay(RelayArgs),
    /// Print a shell completion script (e.g. `netarena completions bash > FILE`)
    Completions {
        /// The shell to complete for
        #[arg(value_enum)]
        shell: clap_complete::Shell,
    },
    /// Print the manual page (roff; e.g. `netarena manpage | man -l -`)
    Manpage,
    /// The config file: where it is read from, or an example of one
    Config(ConfigArgs),
}

#[derive(Args)]
pub(crate) struct RelayArgs {
    /// Where clients send: ADDR:PORT to listen on (e.g. 0.0.0.0:7778)
    #[arg(long, value_name = "ADDR")]
    pub(crate) listen: String,
    /// The server, HOST:PORT
    #[arg(long, value_name = "ADDR")]
    pub(crate) server: String,
    /// Print the counts at exit as one line of JSON
    #[arg(long)]
    pub(crate) json: bool,
    #[command(flatten)]
    pub(crate) net: NetArgs,
}

#[derive(Args)]
#[group(required = true, multiple = false)]
pub(crate) struct ConfigArgs {
    /// Print the path the config file is read from ($NETARENA_CONFIG, else the XDG
    /// config directory); it need not exist
    #[arg(long)]
    pub(crate) path: bool,
    /// Print an example config file, with every section explained
    #[arg(long)]
    pub(crate) example: bool,
}

#[derive(Args)]
pub(crate) struct LearnArgs {
    /// The lesson to start (1 to the number listed); without it, resume where you were,
    /// or list the lessons if you have not begun
    pub(crate) lesson: Option<usize>,
    /// Start the lesson at this step
    #[arg(long, default_value_t = 1, value_name = "N")]
    pub(crate) step: usize,
    /// List the lessons, each with the articles it draws on and whether it is done
    #[arg(long, conflicts_with = "lesson")]
    pub(crate) list: bool,
    /// Keep progress in this file (default: $NETARENA_LEARN_PROGRESS, else learn.txt in
    /// the XDG state directory)
    #[arg(long, value_name = "FILE")]
    pub(crate) progress: Option<PathBuf>,
    /// Cap the frame rate (0: draw as fast as the terminal takes frames)
    #[arg(long, default_value_t = 60, value_name = "N")]
    pub(crate) fps_cap: u32,
    #[command(flatten)]
    pub(crate) theme: ThemeArgs,
}

#[derive(Args)]
pub(crate) struct ReplayArgs {
    /// The recording to replay
    pub(crate) file: PathBuf,
    /// Re-run without a terminal (with --report: write the report the live session wrote;
    /// a whole lab's recording prints the lab's report without --report)
    #[arg(long)]
    pub(crate) headless: bool,
    /// Headless only: write the re-run's JSON report here
    #[arg(long, value_name = "FILE", requires = "headless")]
    pub(crate) report: Option<PathBuf>,
    /// Write one CSV row per tick (RTT, interpolation delay, pending commands,
    /// corrections, bytes in and out), or `trace`: Chrome trace event JSON for Perfetto
    /// (ui.perfetto.dev) or chrome://tracing (a track per client and the server), to
    /// standard output, or to --output
    #[arg(long, value_name = "FORMAT", value_parser = ["csv", "trace"])]
    pub(crate) export: Option<String>,
    /// With --export: the file to write
    #[arg(long, value_name = "FILE", requires = "export")]
    pub(crate) output: Option<PathBuf>,
    #[command(flatten)]
    pub(crate) theme: ThemeArgs,
}

#[derive(Args)]
pub(crate) struct BenchArgs {
    #[command(subcommand)]
    pub(crate) which: BenchCommand,
    /// Print one JSON object instead of a table
    #[arg(long, global = true)]
    pub(crate) json: bool,
    /// A short run, for smoke tests (overrides sizes and durations)
    #[arg(long, global = true)]
    pub(crate) quick: bool,
}

#[derive(Subcommand)]
pub(crate) enum BenchCommand {
    /// Real game frames through ratatui into a byte sink, against a static floor
    Render {
        #[arg(long, default_value_t = 200)]
        width: u16,
        #[arg(long, default_value_t = 60)]
        height: u16,
        #[arg(long, default_value_t = 32)]
        players: u8,
        #[arg(long, default_value_t = 5000)]
        frames: u32,
        /// Overlays to draw: none, or all (ghosts, trails, stats with lagometer)
        #[arg(long, default_value = "all", value_parser = ["none", "all"])]
        overlays: String,
    },
    /// A server with N remote players ticking as fast as it can
    Server {
        #[arg(long, default_value_t = 64)]
        players: u16,
        /// Fighting server bots beside the players
        #[arg(long, default_value_t = 0, value_parser = bounded(0..=PLAYER_LIMIT, ""))]
        bots: u16,
        #[arg(long, default_value_t = 3000)]
        ticks: u32,
    },
    /// Key-to-screen latency of `host` in a pseudo-terminal, at 0 and 200 ms RTT (Unix only)
    Latency {
        #[arg(long, default_value_t = 100)]
        samples: u32,
    },
    /// The headless lab's speed as a multiple of real time: defaults, extremes,
    /// with the whole-lab recording off and on
    Lab {
        /// Virtual seconds each run lasts
        #[arg(long, default_value_t = 60.0)]
        seconds: f64,
    },
    /// A real server and N headless clients over loopback UDP
    Net {
        #[arg(long, default_value_t = 16, value_parser = bounded(0..=PLAYER_LIMIT, ""))]
        players: u16,
        /// Fighting server bots beside the clients (a real match)
        #[arg(long, default_value_t = 0, value_parser = bounded(0..=PLAYER_LIMIT, ""))]
        bots: u16,
        #[arg(long, default_value = "warehouse")]
        map: String,
        #[arg(long, default_value_t = 10.0)]
        seconds: f64,
        #[command(flatten)]
        net: NetArgs,
    },
}

#[derive(Args, Clone)]
pub(crate) struct MatchArgs {
    /// UDP port to listen on
    #[arg(long, default_value_t = DEFAULT_PORT)]
    pub(crate) port: u16,
    /// Built-in map name (arena, duel, warehouse, catacombs) or a path to a map file
    #[arg(long, default_value = "arena")]
    pub(crate) map: String,
    /// Map rotation, comma-separated (names or paths); overrides --map
    #[arg(long, value_delimiter = ',', value_name = "A,B,C")]
    pub(crate) maps: Vec<String>,
    /// Server-side bot players that hunt and shoot
    #[arg(long, default_value_t = 0, value_parser = bounded(0..=PLAYER_LIMIT, ""))]
    pub(crate) bots: u16,
    /// Bot skill, 1 (slow and sloppy) to 5 (quick and precise)
    #[arg(long, default_value_t = defaults::BOT_SKILL, value_parser = bounded(BOT_SKILLS, ""))]
    pub(crate) bot_skill: u8,
    /// Frags that win a match
    #[arg(long, default_value_t = defaults::FRAG_LIMIT, value_parser = bounded(FRAG_LIMITS, " frags"))]
    pub(crate) frag_limit: u16,
    /// Match length in seconds
    #[arg(long, default_value_t = defaults::TIME_LIMIT_SECS, value_parser = bounded(TIME_LIMITS, " seconds"))]
    pub(crate) time_limit: u32,
    /// Test rail shots against the present, not where the shooter saw its target
    #[arg(long)]
    pub(crate) no_lag_comp: bool,
    /// The furthest back (ms) lag compensation rewinds; older views are not compensated
    #[arg(long, default_value_t = defaults::MAX_REWIND_MS, value_parser = bounded(MAX_REWINDS_MS, " ms"))]
    pub(crate) max_rewind_ms: u32,
    /// Simulation ticks per second
    #[arg(long, default_value_t = defaults::TICK_RATE, value_parser = bounded(TICK_RATES, " per second"))]
    pub(crate) tick_rate: u16,
    /// Snapshots sent to each client per second
    #[arg(long, default_value_t = defaults::SNAPSHOT_RATE, value_parser = bounded(SNAPSHOT_RATES, " per second"))]
    pub(crate) snapshot_rate: u16,
    /// Most players (humans and bots) at once
    #[arg(long, default_value_t = defaults::MAX_PLAYERS, value_parser = bounded(MAX_PLAYERS, ""))]
    pub(crate) max_players: u16,
    /// How the server applies each client's commands: adaptive (a jitter buffer as deep
    /// as the measured arrival jitter needs: one a tick, so others see you move evenly),
    /// N (a jitter buffer: one a tick once N ticks' worth wait), credit (as they come,
    /// catching up to 6 a tick)
    #[arg(long, default_value_t = InputBuffer::default(), value_name = "credit|N|adaptive")]
    pub(crate) input_buffer: InputBuffer,
}

#[derive(Args, Clone, Default)]
pub(crate) struct NetArgs {
    /// Simulated network profile: off, lan, wifi, mobile, bad (one-way figures; see the README)
    #[arg(long, value_name = "NAME")]
    pub(crate) profile: Option<String>,
    /// Simulated one-way latency in ms, added to every datagram in each direction
    #[arg(long, value_name = "MS", value_parser = bounded(DELAYS_MS, " ms"))]
    pub(crate) lag: Option<u32>,
    /// Simulated jitter in ms (+-), in order unless --jitter-mode independent
    #[arg(long, value_name = "MS", value_parser = bounded(DELAYS_MS, " ms"))]
    pub(crate) jitter: Option<u32>,
    /// Jitter that keeps datagrams in order, or gives each its own delay (they reorder)
    #[arg(long, value_name = "ordered|independent", value_parser = lab::jitter_mode)]
    pub(crate) jitter_mode: Option<JitterMode>,
    /// Simulated loss in percent, in each direction
    #[arg(long, value_name = "PCT")]
    pub(crate) loss: Option<f64>,
    /// Mean length of a loss burst in packets (1 = independent losses)
    #[arg(long, value_name = "PACKETS")]
    pub(crate) burst: Option<f64>,
    /// Simulated duplication in percent
    #[arg(long, value_name = "PCT")]
    pub(crate) dup: Option<f64>,
    /// Simulated reordering in percent
    #[arg(long, value_name = "PCT")]
    pub(crate) reorder: Option<f64>,
    /// Simulated bandwidth cap in kbit/s (0 = none)
    #[arg(long, value_name = "KBPS")]
    pub(crate) bandwidth: Option<u32>,
    /// Seed for the simulated network, so a run can be repeated exactly
    #[arg(long, default_value_t = defaults::SEED)]
    pub(crate) seed: u64,
}

#[derive(Args)]
pub(crate) struct ServerArgs {
    #[command(flatten)]
    pub(crate) game: MatchArgs,
    /// Server name shown to players
    #[arg(long, default_value = defaults::NAME)]
    pub(crate) server_name: String,
    /// Do not answer LAN discovery (join by address only)
    #[arg(long)]
    pub(crate) no_discovery: bool,
    /// Testing aid: speak another protocol version
    #[arg(long, hide = true)]
    pub(crate) debug_protocol_version: Option<u16>,
    /// Seconds of silence after which a client is dropped
    #[arg(long, default_value_t = defaults::CLIENT_TIMEOUT_SECS, value_parser = bounded(CLIENT_TIMEOUTS_SECS, " seconds"))]
    pub(crate) client_timeout: u64,
    #[command(flatten)]
    pub(crate) net: NetArgs,
    /// Write logs to this file
    #[arg(long, value_name = "FILE")]
    pub(crate) log: Option<PathBuf>,
}

/// Where discovery requests go (the CLI's names for [`Scope`]).
#[derive(Clone, Copy, Debug, PartialEq, Eq, ValueEnum)]
pub(crate) enum ScopeArg {
    /// This machine only.
    Loopback,
    /// Broadcast on the local network, and this machine.
    Lan,
}

impl From<ScopeArg> for Scope {
    fn from(s: ScopeArg) -> Scope {
        match s {
            ScopeArg::Loopback => Scope::Loopback,
            ScopeArg::Lan => Scope::Lan,
        }
    }
}

#[derive(Args, Clone)]
pub(crate) struct DiscoveryArgs {
    /// Where to look for servers: lan (broadcast, and this machine) or loopback
    #[arg(long, value_enum, default_value_t = ScopeArg::Lan)]
    pub(crate) scope: ScopeArg,
    /// UDP port to ask (repeatable; default 7777 to 7781)
    #[arg(long = "discovery-port", value_name = "PORT")]
    pub(crate) ports: Vec<u16>,
}

#[derive(Args)]
pub(crate) struct ListArgs {
    /// Print a JSON array instead of a table
    #[arg(long)]
    pub(crate) json: bool,
    /// How long to wait for answers, in milliseconds
    #[arg(long, default_value_t = 1000)]
    pub(crate) wait_ms: u64,
    #[command(flatten)]
    pub(crate) discovery: DiscoveryArgs,
}

#[cfg(test)]
mod tests {
    use netarena::ui::Theme;

    use super::play::{ThemeArg, with_no_color};
    use super::*;

    fn error(args: &[&str]) -> String {
        let mut argv = vec!["netarena"];
        argv.extend_from_slice(args);
        match Cli::try_parse_from(argv) {
            Ok(_) => panic!("{args:?} was accepted"),
            Err(e) => e.to_string(),
        }
    }

    #[test]
    fn out_of_range_flags_say_what_would_do() {
        let err = error(&["server", "--time-limit", "5"]);
        assert!(err.contains("must be from 10 to 86400 seconds"), "{err}");
        let err = error(&["server", "--frag-limit", "32768"]);
        assert!(err.contains("must be from 1 to 32767 frags"), "{err}");
        let err = error(&["host", "--tick-rate", "abc"]);
        assert!(
            err.contains("not a whole number: must be from 10 to 240"),
            "{err}"
        );
    }

    #[test]
    fn the_extremes_are_accepted() {
        for (flag, value) in [
            ("--time-limit", "86400"),
            ("--frag-limit", "32767"),
            ("--max-rewind-ms", "1000"),
            ("--tick-rate", "240"),
        ] {
            let argv = ["netarena", "server", flag, value];
            assert!(Cli::try_parse_from(argv).is_ok(), "{flag} {value}");
        }
    }

    /// Host and join once had their player flags written twice, and the two `--report`
    /// helps had drifted apart: every flag of one block is now the same flag in both.
    #[test]
    fn host_and_join_share_their_player_flags() {
        use clap::CommandFactory;
        let cli = Cli::command();
        let flags = |sub: &str| -> Vec<(String, String)> {
            let sub = cli.find_subcommand(sub).expect(sub);
            sub.get_arguments()
                .filter(|a| a.get_long().is_some())
                .map(|a| {
                    let help = a.get_help().map(|h| h.to_string()).unwrap_or_default();
                    (a.get_id().to_string(), help)
                })
                .collect()
        };
        let (host, join) = (flags("host"), flags("join"));
        for (id, help) in &host {
            if let Some((_, other)) = join.iter().find(|(i, _)| i == id) {
                assert_eq!(
                    help, other,
                    "--{id} means one thing in host, another in join"
                );
            }
        }
        let player = PlayerArgs::augment_args(clap::Command::new("p"));
        let ids: Vec<&str> = player
            .get_arguments()
            .map(|a| a.get_id().as_str())
            .collect();
        assert!(ids.contains(&"report") && ids.contains(&"fps_cap") && ids.contains(&"seed"));
        for id in ids {
            let of = |all: &[(String, String)]| all.iter().find(|(i, _)| i == id).cloned();
            assert!(of(&host).is_some(), "host lacks {id}");
            assert_eq!(of(&host), of(&join), "--{id} differs between host and join");
        }
    }

    /// `--theme` is one flag on every command that draws a game screen (a config file
    /// passes its `theme` through it), with the names the guide gives.
    #[test]
    fn every_screen_takes_a_theme() {
        let theme = |argv: &[&str]| -> Theme {
            let cli = Cli::try_parse_from(argv).unwrap_or_else(|e| panic!("{argv:?}: {e}"));
            match cli.command {
                Subcmd::Host(a) => a.player.view.theme.theme.into(),
                Subcmd::Join(a) => a.player.view.theme.theme.into(),
                Subcmd::Lab(a) => a.theme.theme.into(),
                Subcmd::Replay(a) => a.theme.theme.into(),
                Subcmd::Learn(a) => a.theme.theme.into(),
                _ => panic!("{argv:?}"),
            }
        };
        assert_eq!(theme(&["netarena", "host"]), Theme::Auto);
        assert_eq!(
            theme(&["netarena", "host", "--theme", "light"]),
            Theme::Light
        );
        assert_eq!(
            theme(&["netarena", "join", "h", "--theme", "mono"]),
            Theme::Mono
        );
        assert_eq!(theme(&["netarena", "lab", "--theme", "dark"]), Theme::Dark);
        assert_eq!(
            theme(&["netarena", "learn", "2", "--theme", "mono"]),
            Theme::Mono
        );
        assert_eq!(
            theme(&["netarena", "replay", "f", "--theme", "auto"]),
            Theme::Auto
        );
        let mono = |v: &str| with_no_color(ThemeArg::Light, Some(v.into()));
        assert_eq!(mono("1"), Theme::Mono, "NO_COLOR=1 means no colour");
        assert_eq!(mono(""), Theme::Light, "an empty NO_COLOR is not set");
        assert_eq!(with_no_color(ThemeArg::Dark, None), Theme::Dark);
        let err = error(&["host", "--theme", "purple"]);
        assert!(
            err.contains("[possible values: auto, dark, light, mono]"),
            "{err}"
        );
    }
}
