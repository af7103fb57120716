//! docs/CLI.md is generated from the binary's own `--help` output, so the reference cannot
//! drift from the clap definitions. This test regenerates it in memory and compares;
//! `NETARENA_UPDATE_DOCS=1 cargo test --test integration cli_reference` rewrites the file.

use std::path::Path;
use std::process::Command;

const DOC: &str = "docs/CLI.md";
const REGENERATE: &str = "NETARENA_UPDATE_DOCS=1 cargo test --test integration cli_reference";

/// `netarena <path...> --help`, in an environment that cannot change the text: no `$USER`
/// (it is the default player name), no colour forcing, and a fixed terminal size in case
/// clap ever wraps by width (it does only with its `wrap_help` feature).
fn help(path: &[String]) -> String {
    let out = Command::new(env!("CARGO_BIN_EXE_netarena"))
        .args(path)
        .arg("--help")
        .env_clear()
        .env("COLUMNS", "100")
        .env("LINES", "40")
        .output()
        .expect("run netarena --help");
    assert!(
        out.status.success(),
        "`netarena {} --help` failed: {}",
        path.join(" "),
        String::from_utf8_lossy(&out.stderr)
    );
    String::from_utf8(out.stdout).expect("help is UTF-8")
}

/// The subcommand names listed under `Commands:` in a help text, without clap's own `help`.
fn subcommands(help: &str) -> Vec<String> {
    help.lines()
        .skip_while(|l| l.trim_end() != "Commands:")
        .skip(1)
        .take_while(|l| l.starts_with("  "))
        // A name sits at two spaces; deeper lines continue a description.
        .filter(|l| !l.starts_with("   "))
        .filter_map(|l| l.split_whitespace().next())
        .filter(|name| *name != "help")
        .map(str::to_owned)
        .collect()
}

/// One section per command, depth first, in the order the help lists them.
fn render(path: &mut Vec<String>, out: &mut String) {
    let text = help(path);
    let name = std::iter::once("netarena")
        .chain(path.iter().map(String::as_str))
        .collect::<Vec<_>>()
        .join(" ");
    out.push_str(&format!("\n## `{name}`\n\n```text\n"));
    for line in text.trim_end().lines() {
        // Trailing blanks would not survive an editor that trims them.
        out.push_str(line.trim_end());
        out.push('\n');
    }
    out.push_str("```\n");
    for sub in subcommands(&text) {
        path.push(sub);
        render(path, out);
        path.pop();
    }
}

fn reference() -> String {
    let mut out = format!(
        "# Command-line reference\n\n\
         Generated from `netarena --help` and the `--help` of every subcommand by\n\
         `tests/integration/cli_reference.rs`. Do not edit it by hand: change the help in `src/cli/`\n\
         and run `{REGENERATE}`.\n"
    );
    render(&mut Vec::new(), &mut out);
    out
}

#[test]
fn subcommands_are_read_from_the_commands_section() {
    let text = "Usage: x <COMMAND>\n\nCommands:\n  host    Host\n  bench\n          Measure\n  help    Print\n\nOptions:\n  -h, --help  Print help\n";
    assert_eq!(subcommands(text), ["host", "bench"]);
    assert!(subcommands("Usage: x [OPTIONS]\n\nOptions:\n  --json  JSON\n").is_empty());
}

#[test]
fn cli_reference_is_current() {
    let fresh = reference();
    // Nested subcommands are found, not listed here: `bench` has its own.
    assert!(fresh.contains("## `netarena bench render`"), "{fresh}");
    let path = Path::new(env!("CARGO_MANIFEST_DIR")).join(DOC);
    if std::env::var_os("NETARENA_UPDATE_DOCS").is_some() {
        std::fs::write(&path, &fresh).expect("write docs/CLI.md");
        return;
    }
    let current = std::fs::read_to_string(&path).unwrap_or_default();
    if current != fresh {
        let first = current
            .lines()
            .zip(fresh.lines())
            .position(|(a, b)| a != b)
            .unwrap_or(current.lines().count().min(fresh.lines().count()));
        panic!(
            "{DOC} is out of date with the binary's --help (first difference at line {}).\n\
             Regenerate it with:\n    {REGENERATE}",
            first + 1
        );
    }
}

/// `netarena ARGS` in an environment with nothing of the user's (no config file, no
/// `$HOME`) but `env`; its status, stdout and stderr.
fn run(args: &[&str], env: &[(&str, &str)]) -> (bool, String, String) {
    let out = Command::new(env!("CARGO_BIN_EXE_netarena"))
        .args(args)
        .env_clear()
        .envs(env.iter().copied())
        .output()
        .expect("run netarena");
    let text = |b: Vec<u8>| String::from_utf8(b).expect("UTF-8");
    (out.status.success(), text(out.stdout), text(out.stderr))
}

/// The subcommand names `netarena --help` lists.
fn top_subcommands() -> Vec<String> {
    let names = subcommands(&help(&[]));
    assert!(names.len() >= 10, "{names:?}");
    names
}

#[test]
fn completions_are_generated_for_bash_zsh_and_fish() {
    for (shell, marker) in [
        ("bash", "complete -F _netarena"),
        ("zsh", "#compdef netarena"),
        ("fish", "complete -c netarena"),
    ] {
        let (ok, script, err) = run(&["completions", shell], &[]);
        assert!(ok, "completions {shell}: {err}");
        assert!(
            script.contains(marker),
            "{shell}: no {marker:?} in\n{script}"
        );
        for sub in top_subcommands() {
            assert!(script.contains(&sub), "{shell}: {sub} is not completed");
        }
        assert!(
            script.contains("discovery-port"),
            "{shell}: flags are completed"
        );
    }
    let (ok, _, err) = run(&["completions", "tcsh"], &[]);
    assert!(!ok && err.contains("invalid value 'tcsh'"), "{err}");
}

#[test]
fn the_manpage_is_roff_with_every_subcommand_and_its_flags() {
    let (ok, page, err) = run(&["manpage"], &[]);
    assert!(ok, "{err}");
    assert!(
        page.starts_with(".ie "),
        "roff: {}",
        &page[..80.min(page.len())]
    );
    assert!(page.contains(".TH netarena 1"), "the main page");
    assert!(page.contains(".SH SUBCOMMANDS"));
    for sub in top_subcommands() {
        assert!(
            page.contains(&format!(".TH netarena-{sub} 1")),
            "no page for {sub}"
        );
    }
    // roff escapes '-' in flags.
    assert!(
        page.contains(r"\-\-discovery\-port"),
        "the flags are documented"
    );
}

#[test]
fn config_path_follows_netarena_config_then_xdg() {
    let (ok, out, err) = run(
        &["config", "--path"],
        &[("NETARENA_CONFIG", "/tmp/somewhere/mine.toml")],
    );
    assert!(ok, "{err}");
    assert_eq!(out, "/tmp/somewhere/mine.toml\n");
    let (ok, out, err) = run(
        &["config", "--path"],
        &[("HOME", "/home/someone"), ("XDG_CONFIG_HOME", "/tmp/xdg")],
    );
    assert!(ok, "{err}");
    assert_eq!(out, "/tmp/xdg/netarena/config.toml\n");
    let (ok, example, _) = run(&["config", "--example"], &[]);
    assert!(ok && example.contains("[keys]"), "{example}");
}

/// A config file with a mistake stops every subcommand that reads it, with one line
/// naming the file and the line.
#[test]
fn a_bad_config_file_is_one_line_naming_its_line() {
    let path = std::env::temp_dir().join(format!("netarena-bad-{}.toml", std::process::id()));
    std::fs::write(&path, "name = \"ok\"\n[keys]\nfire = \"ctrl-f\"\n").unwrap();
    let p = path.to_str().unwrap();
    let (ok, _, err) = run(&["list", "--wait-ms", "10"], &[("NETARENA_CONFIG", p)]);
    std::fs::remove_file(&path).unwrap();
    assert!(!ok);
    assert_eq!(err, format!("netarena: {p}:3: unknown key \"ctrl-f\"\n"));
}
