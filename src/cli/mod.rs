//! Command-line interface: every flag, its default and its help text live here, and are
//! mapped to [`ServerConfig`] and [`ClientConfig`] in one place.

use std::io::Write;
use std::net::{SocketAddr, ToSocketAddrs};
use std::path::PathBuf;
use std::process::ExitCode;
use std::sync::Arc;
use std::sync::atomic::{AtomicBool, AtomicUsize, Ordering};
use std::sync::mpsc;
use std::time::Duration;

use anyhow::{Context, anyhow, bail};
use clap::{Args, Parser, Subcommand};

use netarena::client::discovery::{self, DEFAULT_PORTS, Scope};
use netarena::client::headless::{self, BotKind};
use netarena::client::interactive::{self, Outcome};
use netarena::client::join_screen;
use netarena::client::{ClientConfig, GhostMode, Switches};
use netarena::net::conditioner::Conditions;
use netarena::server::event_loop::{self, NetOptions, Observer};
use netarena::server::{Server, ServerConfig, ServerEvent};
use netarena::sim::map::Map;

pub const DEFAULT_PORT: u16 = 7777;

#[derive(Parser)]
#[command(
    name = "netarena",
    version,
    about = "A fast top-down ASCII deathmatch for the LAN, whose netcode you can see",
    long_about = None
)]
struct Cli {
    #[command(subcommand)]
    command: Command,
}

#[derive(Subcommand)]
enum Command {
    /// Host a match: run the server and play in this terminal
    Host(HostArgs),
    /// Run a dedicated, headless server (one line per event; Ctrl-C stops it)
    Server(ServerArgs),
    /// Join a match running on another terminal or machine (no address: browse the LAN)
    Join(JoinArgs),
    /// List the servers on the local network, for scripts
    List(ListArgs),
    /// Measure frame rendering, the server tick, or bandwidth
    Bench(BenchArgs),
}

#[derive(Args)]
struct BenchArgs {
    #[command(subcommand)]
    which: BenchCommand,
    /// Print one JSON object instead of a table
    #[arg(long, global = true)]
    json: bool,
    /// A short run, for smoke tests (overrides sizes and durations)
    #[arg(long, global = true)]
    quick: bool,
}

#[derive(Subcommand)]
enum BenchCommand {
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
        #[arg(long, default_value_t = 0)]
        bots: u16,
        #[arg(long, default_value_t = 3000)]
        ticks: u32,
    },
    /// Key-to-screen latency of `host` in a pseudo-terminal, at 0 and 200 ms RTT
    Latency {
        #[arg(long, default_value_t = 100)]
        samples: u32,
    },
    /// A real server and N headless clients over loopback UDP
    Net {
        #[arg(long, default_value_t = 16)]
        players: u16,
        /// Fighting server bots beside the clients (a real match)
        #[arg(long, default_value_t = 0)]
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
struct MatchArgs {
    /// UDP port to listen on
    #[arg(long, default_value_t = DEFAULT_PORT)]
    port: u16,
    /// Built-in map name (arena, duel, warehouse, catacombs) or a path to a map file
    #[arg(long, default_value = "arena")]
    map: String,
    /// Map rotation, comma-separated (names or paths); overrides --map
    #[arg(long, value_delimiter = ',', value_name = "A,B,C")]
    maps: Vec<String>,
    /// Server-side bot players that hunt and shoot
    #[arg(long, default_value_t = 0)]
    bots: u16,
    /// Bot skill, 1 (slow and sloppy) to 5 (quick and precise)
    #[arg(long, default_value_t = 2, value_parser = clap::value_parser!(u8).range(1..=5))]
    bot_skill: u8,
    /// Frags that win a match
    #[arg(long, default_value_t = 20, value_parser = clap::value_parser!(u16).range(1..))]
    frag_limit: u16,
    /// Match length in seconds
    #[arg(long, default_value_t = 300, value_parser = clap::value_parser!(u32).range(10..))]
    time_limit: u32,
    /// Test rail shots against the present, not where the shooter saw its target
    #[arg(long)]
    no_lag_comp: bool,
    /// The furthest back (ms) lag compensation rewinds; older views are not compensated
    #[arg(long, default_value_t = 250)]
    max_rewind_ms: u32,
    /// Simulation ticks per second
    #[arg(long, default_value_t = 60, value_parser = clap::value_parser!(u16).range(10..=240))]
    tick_rate: u16,
    /// Snapshots sent to each client per second
    #[arg(long, default_value_t = 20, value_parser = clap::value_parser!(u16).range(1..=240))]
    snapshot_rate: u16,
    /// Most players (humans and bots) at once
    #[arg(long, default_value_t = 16, value_parser = clap::value_parser!(u16).range(1..=256))]
    max_players: u16,
}

#[derive(Args, Clone, Default)]
struct NetArgs {
    /// Simulated network profile: off, lan, wifi, mobile, bad (one-way figures; see the README)
    #[arg(long, value_name = "NAME")]
    profile: Option<String>,
    /// Simulated one-way latency in ms, added to every datagram in each direction
    #[arg(long, value_name = "MS")]
    lag: Option<u32>,
    /// Simulated jitter in ms (+-), without reordering
    #[arg(long, value_name = "MS")]
    jitter: Option<u32>,
    /// Simulated loss in percent, in each direction
    #[arg(long, value_name = "PCT")]
    loss: Option<f64>,
    /// Mean length of a loss burst in packets (1 = independent losses)
    #[arg(long, value_name = "PACKETS")]
    burst: Option<f64>,
    /// Simulated duplication in percent
    #[arg(long, value_name = "PCT")]
    dup: Option<f64>,
    /// Simulated reordering in percent
    #[arg(long, value_name = "PCT")]
    reorder: Option<f64>,
    /// Simulated bandwidth cap in kbit/s (0 = none)
    #[arg(long, value_name = "KBPS")]
    bandwidth: Option<u32>,
    /// Seed for the simulated network, so a run can be repeated exactly
    #[arg(long, default_value_t = 7)]
    seed: u64,
}

impl NetArgs {
    /// The profile (or clean), with each explicit flag overriding its field.
    fn conditions(&self) -> anyhow::Result<Conditions> {
        let mut c = match &self.profile {
            Some(name) => Conditions::profile(name).ok_or_else(|| {
                anyhow!(
                    "unknown network profile '{name}' (profiles: {})",
                    Conditions::PROFILES.join(", ")
                )
            })?,
            None => Conditions::default(),
        };
        if let Some(v) = self.lag {
            c.latency_ms = v;
        }
        if let Some(v) = self.jitter {
            c.jitter_ms = v;
        }
        if let Some(v) = self.loss {
            c.loss_pct = percent("loss", v)?;
        }
        if let Some(v) = self.burst {
            if !(v.is_finite() && v >= 0.0) {
                bail!("--burst must be a number of packets, got {v}");
            }
            c.burst_len = v;
        }
        if let Some(v) = self.dup {
            c.dup_pct = percent("dup", v)?;
        }
        if let Some(v) = self.reorder {
            c.reorder_pct = percent("reorder", v)?;
        }
        if let Some(v) = self.bandwidth {
            c.bandwidth_kbps = v;
        }
        Ok(c)
    }
}

fn percent(flag: &str, v: f64) -> anyhow::Result<f64> {
    if (0.0..=100.0).contains(&v) {
        Ok(v)
    } else {
        bail!("--{flag} must be a percentage from 0 to 100, got {v}")
    }
}

#[derive(Args, Clone)]
struct ViewArgs {
    /// Start with client-side prediction off (the local player waits for the server)
    #[arg(long)]
    no_prediction: bool,
    /// Start with reconciliation off (prediction errors are never corrected)
    #[arg(long)]
    no_reconciliation: bool,
    /// Start with interpolation off (remote players jump to each snapshot)
    #[arg(long)]
    no_interpolation: bool,
    /// Start with dead reckoning of remote players instead of interpolation
    #[arg(long)]
    extrapolate: bool,
    /// Start with correction smoothing off (corrections snap)
    #[arg(long)]
    no_smoothing: bool,
    /// Debug ghosts: where the server says each player is
    #[arg(long, value_enum, default_value_t = GhostMode::Off)]
    ghosts: GhostMode,
    /// Cap the frame rate (default: uncapped)
    #[arg(long, value_name = "N")]
    fps_cap: Option<u32>,
    /// Input packets per second while keys stay the same (a change is sent at once)
    #[arg(long, default_value_t = netarena::client::session::DEFAULT_INPUT_RATE, value_parser = clap::value_parser!(u16).range(1..=240))]
    input_rate: u16,
    /// Testing aid: panic on this thread a second after start
    #[arg(long, hide = true, value_enum)]
    debug_panic: Option<PanicSite>,
}

#[derive(Clone, Copy, PartialEq, Eq, clap::ValueEnum)]
enum PanicSite {
    Client,
    Server,
}

impl ViewArgs {
    fn panic_after(&self, site: PanicSite) -> Option<Duration> {
        (self.debug_panic == Some(site)).then_some(Duration::from_secs(1))
    }
}

impl ViewArgs {
    fn switches(&self) -> Switches {
        Switches {
            prediction: !self.no_prediction,
            reconciliation: !self.no_reconciliation && !self.no_prediction,
            interpolation: !self.no_interpolation,
            extrapolation: self.extrapolate,
            smoothing: !self.no_smoothing,
            ghosts: self.ghosts,
        }
    }
}

#[derive(Args)]
struct HostArgs {
    #[command(flatten)]
    game: MatchArgs,
    /// Your player name
    #[arg(long, default_value_t = default_name())]
    name: String,
    /// Server name shown to players browsing the LAN (default: "NAME's game")
    #[arg(long)]
    server_name: Option<String>,
    /// Do not answer LAN discovery (join by address only)
    #[arg(long)]
    no_discovery: bool,
    #[command(flatten)]
    view: ViewArgs,
    #[command(flatten)]
    net: NetArgs,
    /// Write logs to this file (the screen belongs to the game)
    #[arg(long, value_name = "FILE")]
    log: Option<PathBuf>,
}

#[derive(Args)]
struct ServerArgs {
    #[command(flatten)]
    game: MatchArgs,
    /// Server name shown to players
    #[arg(long, default_value = "netarena")]
    server_name: String,
    /// Do not answer LAN discovery (join by address only)
    #[arg(long)]
    no_discovery: bool,
    /// Testing aid: speak another protocol version
    #[arg(long, hide = true)]
    debug_protocol_version: Option<u16>,
    /// Seconds of silence after which a client is dropped
    #[arg(long, default_value_t = 5)]
    client_timeout: u64,
    #[command(flatten)]
    net: NetArgs,
    /// Write logs to this file
    #[arg(long, value_name = "FILE")]
    log: Option<PathBuf>,
}

#[derive(Args, Clone)]
struct DiscoveryArgs {
    /// Where to look for servers: lan (broadcast, and this machine) or loopback
    #[arg(long, value_enum, default_value_t = Scope::Lan)]
    scope: Scope,
    /// UDP port to ask (repeatable; default 7777 to 7781)
    #[arg(long = "discovery-port", value_name = "PORT")]
    ports: Vec<u16>,
}

impl DiscoveryArgs {
    fn ports(&self) -> Vec<u16> {
        if self.ports.is_empty() {
            DEFAULT_PORTS.collect()
        } else {
            self.ports.clone()
        }
    }
}

#[derive(Args)]
struct ListArgs {
    /// Print a JSON array instead of a table
    #[arg(long)]
    json: bool,
    /// How long to wait for answers, in milliseconds
    #[arg(long, default_value_t = 1000)]
    wait_ms: u64,
    #[command(flatten)]
    discovery: DiscoveryArgs,
}

#[derive(Args)]
struct JoinArgs {
    /// Server address, HOST or HOST:PORT (default port 7777); omit to browse the LAN
    #[arg(required_if_eq("headless", "true"))]
    address: Option<String>,
    #[command(flatten)]
    discovery: DiscoveryArgs,
    /// Your player name
    #[arg(long, default_value_t = default_name())]
    name: String,
    /// Run without a terminal, driven by a bot (for tests, load tests and benchmarks)
    #[arg(long)]
    headless: bool,
    /// Headless only: what drives the keys
    #[arg(long, value_enum, default_value_t = BotKind::Wander, requires = "headless")]
    bot: BotKind,
    /// Headless only: how long to play, in seconds
    #[arg(long, default_value_t = 10.0, requires = "headless")]
    seconds: f64,
    /// Headless only: write a JSON report here at exit
    #[arg(long, value_name = "FILE", requires = "headless")]
    report: Option<PathBuf>,
    #[command(flatten)]
    view: ViewArgs,
    #[command(flatten)]
    net: NetArgs,
    /// Write logs to this file (the screen belongs to the game)
    #[arg(long, value_name = "FILE")]
    log: Option<PathBuf>,
}

fn default_name() -> String {
    std::env::var("USER")
        .ok()
        .filter(|u| !u.is_empty())
        .unwrap_or_else(|| "player".to_owned())
}

pub fn run() -> anyhow::Result<ExitCode> {
    let cli = Cli::parse();
    let stop = Arc::new(AtomicBool::new(false));
    let signal = Arc::new(AtomicUsize::new(0));
    for sig in [
        signal_hook::consts::SIGINT,
        signal_hook::consts::SIGTERM,
        signal_hook::consts::SIGHUP,
    ] {
        signal_hook::flag::register_usize(sig, Arc::clone(&signal), sig as usize)
            .and_then(|_| signal_hook::flag::register(sig, Arc::clone(&stop)))
            .context("cannot install signal handlers")?;
    }
    watchdog(Arc::clone(&stop), Arc::clone(&signal));
    match cli.command {
        Command::Host(args) => host(args, &stop, &signal),
        Command::Server(args) => server(args, &stop),
        Command::Join(args) => join(args, &stop, &signal),
        Command::List(args) => list(args),
        Command::Bench(args) => bench(args),
    }
}

/// Keeps the log writer's worker alive for as long as the program runs.
type LogGuard = Option<tracing_appender::non_blocking::WorkerGuard>;

fn init_log(path: Option<&PathBuf>) -> anyhow::Result<LogGuard> {
    let Some(path) = path else { return Ok(None) };
    let file = std::fs::File::create(path)
        .with_context(|| format!("cannot create log file {}", path.display()))?;
    let (writer, guard) = tracing_appender::non_blocking(file);
    tracing_subscriber::fmt()
        .with_writer(writer)
        .with_ansi(false)
        .with_max_level(tracing::Level::DEBUG)
        .init();
    Ok(Some(guard))
}

fn server_config(game: &MatchArgs, name: &str, seed: u64) -> anyhow::Result<ServerConfig> {
    let map = Map::load(&game.map)?;
    if game.snapshot_rate > game.tick_rate {
        bail!(
            "--snapshot-rate ({}) cannot exceed --tick-rate ({})",
            game.snapshot_rate,
            game.tick_rate
        );
    }
    if game.bots > game.max_players {
        bail!(
            "--bots {} is more than --max-players {}",
            game.bots,
            game.max_players
        );
    }
    let mut config = ServerConfig::new(map);
    if !game.maps.is_empty() {
        config.game.maps = game
            .maps
            .iter()
            .map(|m| Map::load(m.trim()))
            .collect::<Result<_, _>>()?;
    }
    config.game.frag_limit = game.frag_limit;
    config.game.time_limit_secs = game.time_limit;
    config.game.lag_compensation = !game.no_lag_comp;
    config.game.max_rewind_ms = game.max_rewind_ms;
    config.bot_skill = game.bot_skill;
    config.bots = game.bots;
    config.tick_rate = game.tick_rate;
    config.snapshot_rate = game.snapshot_rate;
    config.max_players = game.max_players;
    config.name = name.to_owned();
    config.seed = seed;
    Ok(config)
}

/// Prints one line of the dedicated server's output. A closed stdout (the reader went
/// away) must not take the server down with it, so write errors are ignored.
fn say(line: std::fmt::Arguments) {
    use std::io::Write;
    let mut out = std::io::stdout().lock();
    let _ = writeln!(out, "{line}");
    let _ = out.flush();
}

/// Prints the dedicated server's lines.
struct PrintEvents;

impl Observer for PrintEvents {
    fn started(&mut self, addr: SocketAddr, server: &Server) {
        let c = server.config();
        say(format_args!(
            "netarena server \"{}\" listening on {addr} (UDP), map {} ({}x{}), {} Hz ticks, {} Hz snapshots, max {} players",
            c.name,
            c.game.maps[0].name(),
            c.game.maps[0].width(),
            c.game.maps[0].height(),
            c.tick_rate,
            c.snapshot_rate,
            c.max_players
        ));
    }

    fn event(&mut self, event: &ServerEvent) {
        say(format_args!("{event}"));
    }
}

fn server(args: ServerArgs, stop: &AtomicBool) -> anyhow::Result<ExitCode> {
    let _log = init_log(args.log.as_ref())?;
    let mut config = server_config(&args.game, &args.server_name, args.net.seed)?;
    config.discoverable = !args.no_discovery;
    if let Some(v) = args.debug_protocol_version {
        config.protocol_version = v;
    }
    config.client_timeout = Duration::from_secs(args.client_timeout.max(1));
    let conditions = args.net.conditions()?;
    let net = NetOptions {
        bind: SocketAddr::from(([0, 0, 0, 0], args.game.port)),
        outgoing: conditions.clone(),
        incoming: conditions,
    };
    event_loop::run(config, net, stop, &mut PrintEvents)?;
    say(format_args!("server stopped"));
    Ok(ExitCode::SUCCESS)
}

/// In host mode the server's events go to the log: the screen belongs to the game.
struct LogEvents(mpsc::Sender<anyhow::Result<SocketAddr>>);

impl Observer for LogEvents {
    fn started(&mut self, addr: SocketAddr, _server: &Server) {
        let _ = self.0.send(Ok(addr));
    }

    fn event(&mut self, event: &ServerEvent) {
        tracing::info!("{event}");
    }
}

fn host(args: HostArgs, stop: &AtomicBool, signal: &AtomicUsize) -> anyhow::Result<ExitCode> {
    let _log = init_log(args.log.as_ref())?;
    let server_name = args
        .server_name
        .clone()
        .unwrap_or_else(|| format!("{}'s game", args.name));
    let mut config = server_config(&args.game, &server_name, args.net.seed)?;
    config.discoverable = !args.no_discovery;
    config.debug_panic_after = args.view.panic_after(PanicSite::Server);
    let conditions = args.net.conditions()?;
    let (tx, rx) = mpsc::channel();
    let server_stop = Arc::new(AtomicBool::new(false));
    let server_thread = {
        let server_stop = Arc::clone(&server_stop);
        let net = NetOptions {
            bind: SocketAddr::from(([0, 0, 0, 0], args.game.port)),
            outgoing: Conditions::default(),
            incoming: Conditions::default(),
        };
        std::thread::Builder::new()
            .name("server".into())
            .spawn(move || {
                let mut observer = LogEvents(tx.clone());
                if let Err(e) = event_loop::run(config, net, &server_stop, &mut observer) {
                    let _ = tx.send(Err(e));
                }
            })
            .context("cannot start the server thread")?
    };
    let addr = rx
        .recv_timeout(Duration::from_secs(5))
        .map_err(|_| anyhow!("the server did not start within 5 s"))??;

    // The host's own client joins over loopback, through the simulated network if any:
    // it plays under exactly the conditions a remote player would.
    let mut client = ClientConfig::new(SocketAddr::from(([127, 0, 0, 1], addr.port())), &args.name);
    client.switches = args.view.switches();
    client.fps_cap = args.view.fps_cap;
    client.input_rate = args.view.input_rate;
    client.outgoing = conditions.clone();
    client.incoming = conditions;
    client.seed = args.net.seed;
    client.debug_panic_after = args.view.panic_after(PanicSite::Client);
    let result = interactive::run(client, stop);
    server_stop.store(true, Ordering::Relaxed);
    let _ = server_thread.join();
    finish(result, signal)
}

/// Exit status for a run ended by a signal: 128 + its number, as shells report it.
fn signal_status(signal: usize) -> u8 {
    128u8.saturating_add(u8::try_from(signal).unwrap_or(0))
}

/// After a signal, the loops notice `stop` and exit cleanly within a few hundred ms. If
/// one does not (crossterm can spin inside `event::poll` once the terminal has hung up),
/// this gives the terminal back and exits anyway.
fn watchdog(stop: Arc<AtomicBool>, signal: Arc<AtomicUsize>) {
    const GRACE: Duration = Duration::from_secs(3);
    let spawned = std::thread::Builder::new()
        .name("watchdog".into())
        .spawn(move || {
            while !stop.load(Ordering::Relaxed) {
                std::thread::sleep(Duration::from_millis(100));
            }
            std::thread::sleep(GRACE);
            netarena::client::terminal::restore();
            // stderr may be a terminal that hung up: a failed write must not panic.
            let _ = writeln!(
                std::io::stderr(),
                "netarena: did not stop within {} s of a signal; exiting",
                GRACE.as_secs()
            );
            std::process::exit(i32::from(signal_status(signal.load(Ordering::Relaxed))));
        });
    if let Err(e) = spawned {
        tracing::warn!("no watchdog thread: {e}");
    }
}

fn finish(result: anyhow::Result<Outcome>, signal: &AtomicUsize) -> anyhow::Result<ExitCode> {
    match result? {
        Outcome::Quit => Ok(ExitCode::SUCCESS),
        Outcome::Stopped => Ok(ExitCode::from(signal_status(
            signal.load(Ordering::Relaxed),
        ))),
    }
}

fn resolve(address: &str) -> anyhow::Result<SocketAddr> {
    let with_port = if address.parse::<SocketAddr>().is_ok()
        || address
            .rsplit_once(':')
            .is_some_and(|(h, p)| !h.contains(':') && p.parse::<u16>().is_ok())
    {
        address.to_owned()
    } else if address.contains(':') && !address.starts_with('[') {
        format!("[{address}]:{DEFAULT_PORT}")
    } else {
        format!("{address}:{DEFAULT_PORT}")
    };
    let addrs: Vec<SocketAddr> = with_port
        .to_socket_addrs()
        .with_context(|| format!("cannot resolve server address '{address}'"))?
        .collect();
    addrs
        .iter()
        .find(|a| a.is_ipv4())
        .or(addrs.first())
        .copied()
        .ok_or_else(|| anyhow!("server address '{address}' resolves to nothing"))
}

fn join(args: JoinArgs, stop: &AtomicBool, signal: &AtomicUsize) -> anyhow::Result<ExitCode> {
    let _log = init_log(args.log.as_ref())?;
    let conditions = args.net.conditions()?;
    let server = match &args.address {
        Some(address) => resolve(address)?,
        None => {
            match join_screen::choose(args.discovery.scope, &args.discovery.ports(), stop, resolve)?
            {
                Some(addr) => addr,
                None => return Ok(ExitCode::SUCCESS),
            }
        }
    };
    let mut client = ClientConfig::new(server, &args.name);
    client.switches = args.view.switches();
    client.fps_cap = args.view.fps_cap;
    client.input_rate = args.view.input_rate;
    client.debug_panic_after = args.view.panic_after(PanicSite::Client);
    client.outgoing = conditions.clone();
    client.incoming = conditions;
    client.seed = args.net.seed;
    if args.headless {
        headless::run(
            &client,
            args.bot,
            args.seconds,
            args.report.as_deref(),
            stop,
        )?;
        return Ok(ExitCode::SUCCESS);
    }
    finish(interactive::run(client, stop), signal)
}

fn bench(args: BenchArgs) -> anyhow::Result<ExitCode> {
    use netarena::bench::{self, latency, net, render, server};
    match args.which {
        BenchCommand::Render {
            width,
            height,
            players,
            frames,
            overlays,
        } => {
            let opts = render::RenderOptions {
                width,
                height,
                players,
                frames: if args.quick { frames.min(50) } else { frames },
                overlays: overlays == "all",
            };
            bench::print("bench render", &render::run(&opts)?, args.json)?;
        }
        BenchCommand::Server {
            players,
            bots,
            ticks,
        } => {
            let opts = server::ServerOptions {
                players,
                bots,
                ticks: if args.quick { ticks.min(60) } else { ticks },
            };
            bench::print("bench server", &server::run(&opts)?, args.json)?;
        }
        BenchCommand::Latency { samples } => {
            let opts = latency::LatencyOptions {
                binary: std::env::current_exe()?,
                samples: if args.quick { samples.min(5) } else { samples },
            };
            bench::print("bench latency", &latency::run(&opts)?, args.json)?;
        }
        BenchCommand::Net {
            players,
            bots,
            map,
            seconds,
            net,
        } => {
            let opts = net::NetBenchOptions {
                players: if args.quick { players.min(2) } else { players },
                bots: if args.quick { bots.min(3) } else { bots },
                seconds: if args.quick {
                    seconds.min(1.5)
                } else {
                    seconds
                },
                conditions: net.conditions()?,
                map,
            };
            bench::print("bench net", &net::run(&opts)?, args.json)?;
        }
    }
    Ok(ExitCode::SUCCESS)
}

fn list(args: ListArgs) -> anyhow::Result<ExitCode> {
    let found = discovery::search(
        args.discovery.scope,
        &args.discovery.ports(),
        Duration::from_millis(args.wait_ms),
    )?;
    if args.json {
        say(format_args!("{}", serde_json::to_string(&found)?));
        return Ok(ExitCode::SUCCESS);
    }
    if found.is_empty() {
        say(format_args!("no servers found"));
    }
    for s in &found {
        let version = if s.compatible {
            "ok".to_owned()
        } else {
            format!("v{} incompatible", s.version)
        };
        say(format_args!(
            "{:<22} {:<24} {:<10} {:>3}/{:<3} {:>5.1} ms  {version}",
            s.address.to_string(),
            s.name,
            s.map,
            s.players,
            s.max_players,
            s.ping_ms
        ));
    }
    Ok(ExitCode::SUCCESS)
}
