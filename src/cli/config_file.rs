//! The config file: defaults for any flag, the player name and key bindings, so they
//! need not be typed every time. A flag on the command line always wins.
//!
//! It is TOML at `$NETARENA_CONFIG`, else `config.toml` in the XDG config directory
//! (`~/.config/netarena/config.toml` on Linux and macOS; `%APPDATA%\netarena\config`
//! on Windows). A top-level `key = value` is the flag
//! `--key value` for every subcommand that has that flag (so `name` names you in `host`
//! and `join`, and `theme` sets the colours wherever there is a `--theme`); a section
//! named after a subcommand (`[host]`, `[join]`, ...) holds flags for it alone and wins
//! over the top level; `[keys]` rebinds the game's keys. The file is checked against
//! every subcommand's flags whatever runs, so a typo is reported at once, as one line
//! naming the file and line.
//!
//! The flags are applied by the command line's own parser: they are inserted right
//! after the subcommand, unless the command line gives the flag itself, and clap checks
//! them with the bounds and messages `--help` documents. Nothing here knows any flag by
//! name, so a flag added later is configurable as soon as it exists.

use std::ffi::OsString;
use std::path::{Path, PathBuf};

use anyhow::{Context, anyhow, bail};
use clap::parser::ValueSource;
use clap::{ArgMatches, CommandFactory, FromArgMatches};
use toml::de::{DeTable, DeValue};

use netarena::client::play::input::Bindings;

use super::args::{Cli, Subcmd};

mod settings;
use settings::{Setting, Value, bindings, line_of, setting};

/// The environment variable naming the config file, in place of the XDG location.
pub(crate) const ENV: &str = "NETARENA_CONFIG";

/// Subcommands that the file never applies to: they are about the file or the docs.
const UNCONFIGURED: [&str; 4] = ["completions", "manpage", "config", "help"];

/// Where the config file is read from (it need not exist); None when there is no home
/// directory to put it in.
pub(crate) fn path() -> Option<PathBuf> {
    if let Some(p) = std::env::var_os(ENV).filter(|p| !p.is_empty()) {
        return Some(PathBuf::from(p));
    }
    if cfg!(windows) {
        // The roaming application data: %APPDATA%\netarena\config\config.toml.
        return directories::ProjectDirs::from("", "", "netarena")
            .map(|d| d.config_dir().join("config.toml"));
    }
    let home = directories::BaseDirs::new().map(|b| b.home_dir().to_path_buf());
    xdg_config_file(std::env::var_os("XDG_CONFIG_HOME"), home)
}

/// `netarena/config.toml` in the XDG config directory: `$XDG_CONFIG_HOME` when it is an
/// absolute path (the XDG rule), else `~/.config`. On macOS too, where terminal tools
/// keep their files there rather than in `~/Library/Application Support`.
fn xdg_config_file(xdg: Option<std::ffi::OsString>, home: Option<PathBuf>) -> Option<PathBuf> {
    let base = xdg
        .map(PathBuf::from)
        .filter(|p| p.is_absolute())
        .or_else(|| Some(home?.join(".config")))?;
    Some(base.join("netarena").join("config.toml"))
}

/// The example `config --example` prints: a template in which every setting is
/// commented out and shows its default, so the file as printed changes nothing, and a
/// line with its `#` taken out still sets the default (a test takes every `#` out and
/// compares each value with clap's default).
pub(crate) const EXAMPLE: &str = r#"# netarena config file: `netarena config --path` says where it goes.
# A flag on the command line always wins over this file.
#
# Every setting below is commented out and shows its default, so this file changes
# nothing as it is. To change one, take out its `#` and change the value. A line
# `flag = value` is `--flag value`; a switch is `flag = true`; a repeatable flag
# takes a list, as `discovery-port = [7777, 9000]`. `netarena help host` (or join,
# server, ...) lists every flag and its default.

# Top level: a flag for every subcommand that has it. Your player name (--name, host
# and join) is your login name unless a line here gives one, as `name = "ann"`.
# theme = "auto"           # --theme: auto, dark, light or mono
# input-rate = 30          # --input-rate: input packets a second (host, join)
# redundancy = 64          # --redundancy: commands each input packet repeats
# seed = 7                 # --seed: the simulated network's seed

# A section named after a subcommand holds flags for that subcommand alone; they win
# over the top level.
# [host]
# map = "arena"            # a built-in map (arena, duel, warehouse, catacombs) or a file
# bots = 0                 # bots that hunt and shoot; `--bots 3` fills the arena
# bot-skill = 2            # 1 (slow and sloppy) to 5 (quick and precise)
# frag-limit = 30
# time-limit = 300         # seconds
# port = 7777

# [join]
# ghosts = "off"           # off, server or trail: where the server says players are
# correction = "smooth"

# [server]
# server-name = "netarena"
# max-players = 16

# [list]
# scope = "lan"            # lan, or loopback (this machine only)
# wait-ms = 1000

# The game's keys (host and join): `action = "key"`, or a list of keys, in place of
# the action's default keys; `fire = ["space", "f"]` fires with space or f. Keys: one
# character (lower case), or space, tab, esc, enter, backspace, up, down, left, right,
# f1 to f12. Shift with a direction's key turns; Ctrl-C quits and Ctrl-Z suspends
# whatever is bound. The actions are listed in docs/PLAYING.md ("Config file").
# [keys]
"#;

/// The file, read and checked.
pub(crate) struct ConfigFile {
    path: PathBuf,
    common: Vec<Setting>,
    sections: Vec<(String, Vec<Setting>)>,
    keys: Bindings,
}

impl ConfigFile {
    /// Reads the file at `path`; Ok(None) if there is none.
    pub(crate) fn load(path: &Path) -> anyhow::Result<Option<ConfigFile>> {
        let text = match std::fs::read_to_string(path) {
            Ok(t) => t,
            Err(e) if e.kind() == std::io::ErrorKind::NotFound => return Ok(None),
            Err(e) => return Err(e).with_context(|| format!("cannot read {}", path.display())),
        };
        ConfigFile::parse(path, &text)
            .map(Some)
            .map_err(|(line, why)| anyhow!("{}:{line}: {why}", path.display()))
    }

    /// Parses and checks `text` against every subcommand; the error is (line, why).
    fn parse(path: &Path, text: &str) -> Result<ConfigFile, (usize, String)> {
        let table = DeTable::parse(text).map_err(|e| {
            let line = e.span().map_or(1, |s| line_of(text, s.start));
            (line, format!("not valid TOML: {}", e.message().trim()))
        })?;
        let cli = Cli::command();
        let mut file = ConfigFile {
            path: path.to_owned(),
            common: Vec::new(),
            sections: Vec::new(),
            keys: Bindings::default(),
        };
        for (key, value) in table.get_ref() {
            let line = line_of(text, key.span().start);
            let name = key.get_ref().as_ref();
            match value.get_ref() {
                DeValue::Table(t) if name == "keys" => file.keys = bindings(text, t)?,
                DeValue::Table(t) => {
                    let Some(sub) = cli
                        .find_subcommand(name)
                        .filter(|_| !UNCONFIGURED.contains(&name))
                    else {
                        return Err((line, format!("unknown section [{name}]")));
                    };
                    let mut settings = Vec::new();
                    for (k, v) in t {
                        let s = setting(text, k, v)?;
                        check(sub, &s).map_err(|why| (s.line, why))?;
                        settings.push(s);
                    }
                    file.sections.push((name.to_owned(), settings));
                }
                _ => {
                    let s = setting(text, key, value)?;
                    let mut known = false;
                    for sub in cli.get_subcommands() {
                        if has_flag(sub, &s.flag) {
                            check(sub, &s).map_err(|why| (s.line, why))?;
                            known = true;
                        }
                    }
                    if !known {
                        return Err((line, format!("no subcommand has a flag --{}", s.flag)));
                    }
                    file.common.push(s);
                }
            }
        }
        Ok(file)
    }

    /// The arguments the file adds to subcommand `sub`, one group per line: the flags
    /// `given` (what the command line parsed to) did not get from the command line.
    fn arguments(&self, sub: &clap::Command, given: &ArgMatches) -> Vec<(usize, Vec<OsString>)> {
        let own = self
            .sections
            .iter()
            .find(|(name, _)| name == sub.get_name())
            .map_or(&[][..], |(_, s)| s.as_slice());
        let common = self
            .common
            .iter()
            .filter(|c| !own.iter().any(|s| s.flag == c.flag));
        let mut out = Vec::new();
        for s in own.iter().chain(common) {
            let Some(arg) = sub.get_arguments().find(|a| a.get_long() == Some(&s.flag)) else {
                continue;
            };
            if given.value_source(arg.get_id().as_str()) == Some(ValueSource::CommandLine) {
                continue;
            }
            if let Ok(args) = flag_arguments(arg, s) {
                out.push((s.line, args));
            }
        }
        out
    }
}

fn has_flag(sub: &clap::Command, flag: &str) -> bool {
    sub.get_arguments()
        .any(|a| a.get_long() == Some(flag) && !a.is_hide_set())
}

/// Whether subcommand `sub` takes setting `s`: the flag exists and the value's kind
/// fits (its content is clap's to check, when the subcommand runs).
fn check(sub: &clap::Command, s: &Setting) -> Result<(), String> {
    let Some(arg) = sub
        .get_arguments()
        .find(|a| a.get_long() == Some(&s.flag) && !a.is_hide_set())
    else {
        return Err(format!(
            "`netarena {}` has no flag --{}",
            sub.get_name(),
            s.flag
        ));
    };
    flag_arguments(arg, s).map(|_| ())
}

/// The command-line arguments for setting `s` of flag `arg`.
fn flag_arguments(arg: &clap::Arg, s: &Setting) -> Result<Vec<OsString>, String> {
    let takes_value = arg.get_action().takes_values();
    let flag = &s.flag;
    match (&s.value, takes_value) {
        (Value::Switch(true), false) => Ok(vec![format!("--{flag}").into()]),
        (Value::Switch(false), false) => Ok(Vec::new()),
        (Value::Switch(_), true) => Err(format!("--{flag} takes a value, not true or false")),
        (Value::Text(_), false) => Err(format!(
            "--{flag} is a switch: write `{flag} = true` (or false)"
        )),
        (Value::Text(values), true) => {
            let repeats = matches!(arg.get_action(), clap::ArgAction::Append);
            if values.len() != 1 && !repeats {
                return Err(format!("--{flag} takes one value, not a list"));
            }
            Ok(values
                .iter()
                .map(|v| format!("--{flag}={v}").into())
                .collect())
        }
    }
}

/// The command line, parsed with the config file's defaults under it. Help, version
/// and errors on the command line itself end the program as clap does.
pub(crate) fn parse(argv: Vec<OsString>) -> anyhow::Result<Cli> {
    parse_with_file(argv, path)
}

/// [`parse`] with the file at `path()`, if any.
fn parse_with_file(
    argv: Vec<OsString>,
    path: impl FnOnce() -> Option<PathBuf>,
) -> anyhow::Result<Cli> {
    let matches = Cli::command()
        .try_get_matches_from(&argv)
        .unwrap_or_else(|e| e.exit());
    let plain = |m: &ArgMatches| Cli::from_arg_matches(m).map_err(|e| anyhow!("{e}"));
    let Some((name, given)) = matches.subcommand() else {
        return plain(&matches);
    };
    if UNCONFIGURED.contains(&name) {
        return plain(&matches);
    }
    let Some(path) = path() else {
        return plain(&matches);
    };
    let Some(file) = ConfigFile::load(&path)? else {
        return plain(&matches);
    };
    let command = Cli::command();
    let sub = command
        .find_subcommand(name)
        .ok_or_else(|| anyhow!("no subcommand {name}"))?;
    let added = file.arguments(sub, given);
    // The subcommand is the first argument that is not an option.
    let at = argv
        .iter()
        .skip(1)
        .position(|a| a.to_str() == Some(name))
        .map_or(1, |i| i + 2);
    let with = |extra: &[OsString]| -> Vec<OsString> {
        let mut full = argv[..at].to_vec();
        full.extend_from_slice(extra);
        full.extend_from_slice(&argv[at..]);
        full
    };
    let all: Vec<OsString> = added.iter().flat_map(|(_, a)| a.clone()).collect();
    let mut cli = match Cli::command().try_get_matches_from(with(&all)) {
        Ok(m) => plain(&m)?,
        Err(e) => {
            // Name the line: the first setting that fails on its own.
            for (line, args) in &added {
                if let Err(e) = Cli::command().try_get_matches_from(with(args)) {
                    let text = e.render().to_string();
                    let first = text.lines().next().unwrap_or_default();
                    let why = first.strip_prefix("error: ").unwrap_or(first);
                    bail!("{}:{line}: {why}", file.path.display());
                }
            }
            e.exit()
        }
    };
    if let Subcmd::Host(a) = &mut cli.command {
        a.player.view.keys = file.keys.clone();
    }
    if let Subcmd::Join(a) = &mut cli.command {
        a.player.view.keys = file.keys;
    }
    Ok(cli)
}

#[cfg(test)]
mod tests {
    use super::*;

    /// The config file's place on Linux and macOS alike: `$XDG_CONFIG_HOME` if absolute,
    /// else `~/.config` (on macOS it was `~/Library/Application Support`, issue 30).
    /// Unix paths: `/cfg` is not absolute on Windows, which does not use this.
    #[cfg(unix)]
    #[test]
    fn the_config_file_is_in_xdg_config_home_else_dot_config() {
        let home = || Some(PathBuf::from("/home/ann"));
        let at = |xdg: Option<&str>, home| xdg_config_file(xdg.map(Into::into), home);
        assert_eq!(
            at(Some("/cfg"), home()),
            Some(PathBuf::from("/cfg/netarena/config.toml"))
        );
        let dot_config = Some(PathBuf::from("/home/ann/.config/netarena/config.toml"));
        assert_eq!(at(None, home()), dot_config);
        // A relative (or empty) XDG_CONFIG_HOME is ignored, as the XDG rule says.
        assert_eq!(at(Some("cfg"), home()), dot_config);
        assert_eq!(at(Some(""), home()), dot_config);
        assert_eq!(at(None, None), None);
    }

    /// The command line `netarena ARGS` parsed over a config file holding `file`.
    fn parse_with(file: &str, args: &[&str]) -> anyhow::Result<Cli> {
        static N: std::sync::atomic::AtomicUsize = std::sync::atomic::AtomicUsize::new(0);
        let n = N.fetch_add(1, std::sync::atomic::Ordering::Relaxed);
        let path = std::env::temp_dir().join(format!(
            "netarena-config-unit-{}-{n}.toml",
            std::process::id()
        ));
        std::fs::write(&path, file).unwrap();
        let mut argv: Vec<OsString> = vec!["netarena".into()];
        argv.extend(args.iter().map(OsString::from));
        let cli = parse_with_file(argv, || Some(path.clone()));
        std::fs::remove_file(&path).unwrap();
        cli
    }

    fn host(cli: Cli) -> super::super::args::HostArgs {
        match cli.command {
            Subcmd::Host(h) => h,
            _ => panic!("not host"),
        }
    }

    #[test]
    fn the_file_sets_defaults_and_the_command_line_wins() {
        let file = "name = \"filed\"\nfps-cap = 90\n[host]\nbots = 3\nno-prediction = true\n";
        let h = host(parse_with(file, &["host"]).unwrap());
        assert_eq!(h.player.name, "filed");
        assert_eq!(h.player.view.fps_cap, Some(90));
        assert_eq!(h.game.bots, 3);
        assert!(h.player.view.no_prediction);
        let h = host(parse_with(file, &["host", "--name", "typed", "--bots", "1"]).unwrap());
        assert_eq!(h.player.name, "typed");
        assert_eq!(h.game.bots, 1);
        assert_eq!(h.player.view.fps_cap, Some(90));
    }

    #[test]
    fn a_value_refused_by_the_flag_names_its_line() {
        let err = parse_with("name = \"x\"\n[host]\nbots = 999\n", &["host"])
            .err()
            .expect("999 bots refused");
        let err = err.to_string();
        assert!(
            err.contains(".toml:3: invalid value '999' for '--bots"),
            "{err}"
        );
        assert!(!err.contains('\n'), "{err}");
    }

    #[test]
    fn keys_reach_host_and_join_and_a_missing_file_is_no_error() {
        let h = host(parse_with("[keys]\nchat = \"y\"\n", &["host"]).unwrap());
        let mut chat_on_y = Bindings::default();
        chat_on_y.bind("chat", &["y"]).unwrap();
        assert_eq!(h.player.view.keys, chat_on_y);
        let argv = vec!["netarena".into(), "host".into()];
        let h = host(parse_with_file(argv, || Some("/nonexistent/netarena.toml".into())).unwrap());
        assert_eq!(h.player.view.keys, Bindings::default());
    }

    /// A top-level flag (as `theme` will be: host, join, lab and replay only) goes to
    /// the subcommands that have it and leaves the others alone.
    #[test]
    fn a_top_level_flag_goes_only_where_it_exists() {
        let file = "fps-cap = 90\n";
        assert!(matches!(
            parse_with(file, &["server"]).unwrap().command,
            Subcmd::Server(_)
        ));
        assert_eq!(
            host(parse_with(file, &["host"]).unwrap())
                .player
                .view
                .fps_cap,
            Some(90)
        );
        let err = ConfigFile::parse(Path::new("c.toml"), "[server]\nfps-cap = 90\n")
            .err()
            .expect("server has no --fps-cap");
        assert_eq!(
            err,
            (2, "`netarena server` has no flag --fps-cap".to_owned())
        );
    }

    #[test]
    fn the_section_wins_over_the_top_level() {
        let file = "fps-cap = 90\n[host]\nfps-cap = 30\n";
        assert_eq!(
            host(parse_with(file, &["host"]).unwrap())
                .player
                .view
                .fps_cap,
            Some(30)
        );
    }

    #[test]
    fn every_mistake_is_one_line_naming_the_line() {
        for (file, line, what) in [
            (
                "name = \"x\"\nbogus = 1\n",
                2,
                "no subcommand has a flag --bogus",
            ),
            ("\n[hots]\nbots = 1\n", 2, "unknown section [hots]"),
            (
                "[host]\nbots = 1\nwait-ms = 5\n",
                3,
                "`netarena host` has no flag --wait-ms",
            ),
            (
                "[keys]\nfire = \"f\"\njump = \"j\"\n",
                3,
                "unknown action \"jump\"",
            ),
            ("[keys]\nfire = \"ctrl-f\"\n", 2, "unknown key \"ctrl-f\""),
            ("[host]\nno-prediction = \"yes\"\n", 2, "is a switch"),
            ("name = [\n", 1, "not valid TOML"),
        ] {
            let err = ConfigFile::parse(Path::new("c.toml"), file)
                .err()
                .unwrap_or_else(|| panic!("{file:?} was accepted"));
            assert_eq!(err.0, line, "{file:?}: {err:?}");
            assert!(err.1.contains(what), "{file:?}: {err:?}");
            assert!(!err.1.contains('\n'), "one line: {err:?}");
        }
    }

    /// Issue 30: the example held live settings (`name = "alice"`, the Wi-Fi profile,
    /// the warehouse map, chat on `y`): saved as the config file, it changed the game.
    /// As printed it sets nothing; with every `#` taken out of its settings, each value is
    /// clap's default for that flag in every subcommand it reaches, and the keys are the
    /// defaults.
    #[test]
    fn the_example_is_the_defaults_commented_out() {
        let as_printed = ConfigFile::parse(Path::new("example.toml"), EXAMPLE)
            .unwrap_or_else(|(line, why)| panic!("example line {line}: {why}"));
        assert!(as_printed.common.is_empty() && as_printed.sections.is_empty());
        assert_eq!(as_printed.keys, Bindings::default());

        // A commented setting is `# flag = value` or `# [section]`; prose never starts
        // with a word and ` = `.
        let setting = |rest: &str| {
            let flag = rest.split(" = ").next().unwrap_or_default();
            rest.contains(" = ")
                && !flag.is_empty()
                && flag
                    .chars()
                    .all(|c| c.is_ascii_lowercase() || c.is_ascii_digit() || c == '-')
        };
        let section = |rest: &str| rest.starts_with('[') && rest.ends_with(']');
        let uncommented: String = EXAMPLE
            .lines()
            .map(|l| match l.strip_prefix("# ") {
                Some(rest) if setting(rest) || section(rest) => format!("{rest}\n"),
                _ => format!("{l}\n"),
            })
            .collect();
        let file = ConfigFile::parse(Path::new("example.toml"), &uncommented)
            .unwrap_or_else(|(line, why)| panic!("uncommented line {line}: {why}"));
        assert_eq!(file.keys, Bindings::default());
        let cli = Cli::command();
        let mut checked = 0;
        let mut compare = |sub: &clap::Command, s: &Setting| {
            let arg = sub
                .get_arguments()
                .find(|a| a.get_long() == Some(s.flag.as_str()))
                .expect("checked by parse");
            let default: Vec<String> = arg
                .get_default_values()
                .iter()
                .map(|v| v.to_string_lossy().into_owned())
                .collect();
            match &s.value {
                Value::Text(values) => assert_eq!(
                    values,
                    &default,
                    "line {}: `{} {}`",
                    s.line,
                    sub.get_name(),
                    s.flag
                ),
                Value::Switch(on) => assert!(!on, "line {}: a switch on", s.line),
            }
            checked += 1;
        };
        for s in &file.common {
            for sub in cli.get_subcommands().filter(|sub| has_flag(sub, &s.flag)) {
                compare(sub, s);
            }
        }
        for (name, settings) in &file.sections {
            let sub = cli.find_subcommand(name).expect("checked by parse");
            for s in settings {
                compare(sub, s);
            }
        }
        assert!(checked >= 20, "{checked} settings compared");
        let h = host(parse_with(&uncommented, &["host", "--name", "ann"]).unwrap());
        assert_eq!((h.game.map.as_str(), h.game.bots), ("arena", 0));
        assert_eq!(h.player.net.conditions().unwrap(), Default::default());
    }
}
