//! What the program prints about itself: shell completions and the manual page, both
//! generated from the one clap definition in `args.rs` (so they cannot drift from
//! `--help`), and the config file's path and example.

use std::io::Write;
use std::process::ExitCode;

use anyhow::Context;
use clap::CommandFactory;
use clap_complete::Shell;

use netarena::sim::map::Map;

use super::args::{Cli, ConfigArgs};
use super::config_file;

/// `netarena completions SHELL`: the completion script on standard output.
pub(crate) fn completions(shell: Shell) -> anyhow::Result<ExitCode> {
    write_out(completion_script(shell).as_bytes())
}

/// The completion script for `shell`, `--map` offering the built-in maps' names as
/// well as files where the shell can say so (bash, zsh, fish; clap_complete offers
/// files only).
fn completion_script(shell: Shell) -> String {
    let mut out = Vec::new();
    clap_complete::generate(shell, &mut Cli::command(), "netarena", &mut out);
    let script = String::from_utf8_lossy(&out).into_owned();
    let names = Map::BUILTIN_NAMES.join(" ");
    let mut lines: Vec<String> = Vec::new();
    for line in script.lines() {
        let trimmed = line.trim_start();
        let indent = &line[..line.len() - trimmed.len()];
        let after_map = lines.last().is_some_and(|l| l.trim() == "--map)");
        let line = match shell {
            Shell::Bash if after_map && trimmed == r#"COMPREPLY=($(compgen -f "${cur}"))"# => {
                format!(
                    r#"{indent}COMPREPLY=($(compgen -W "{names}" -- "${{cur}}") $(compgen -f -- "${{cur}}"))"#
                )
            }
            Shell::Zsh if trimmed.starts_with("'--map=[") => line.replace(
                ":MAP:_default'",
                &format!(
                    r#":MAP:_alternative "maps:built-in map:({names})" "files:map file:_files"'"#
                ),
            ),
            Shell::Fish if line.contains(" -l map ") && line.ends_with(" -r") => {
                format!(r#"{line} -F -a "{names}""#)
            }
            _ => line.to_owned(),
        };
        lines.push(line);
    }
    let mut script = lines.join("\n");
    script.push('\n');
    script
}

/// `netarena manpage`: netarena(1) in roff on standard output, its subcommands listed,
/// then a page for each subcommand (netarena-host(1), ...) with all its flags.
pub(crate) fn manpage() -> anyhow::Result<ExitCode> {
    write_out(&manual()?)
}

/// The manual pages in roff, each subcommand's named and titled `netarena-host` (not
/// `host`), its synopsis `netarena host ...`.
fn manual() -> anyhow::Result<Vec<u8>> {
    let mut out = Vec::new();
    let cli = Cli::command();
    clap_mangen::Man::new(cli.clone())
        .render(&mut out)
        .context("cannot render the manual page")?;
    for sub in cli.get_subcommands().filter(|s| !s.is_hide_set()) {
        let page = format!("netarena-{}", sub.get_name());
        let sub = sub
            .clone()
            .display_name(page.clone())
            .bin_name(format!("netarena {}", sub.get_name()));
        clap_mangen::Man::new(sub)
            .title(page)
            .source(format!("netarena {}", env!("CARGO_PKG_VERSION")))
            .render(&mut out)
            .context("cannot render the manual page")?;
    }
    Ok(out)
}

/// `netarena config --path | --example`.
pub(crate) fn config(args: &ConfigArgs) -> anyhow::Result<ExitCode> {
    if args.example {
        return write_out(config_file::EXAMPLE.as_bytes());
    }
    let path = config_file::path().context(
        "no home directory to keep a config file in: set NETARENA_CONFIG to a file's path",
    )?;
    write_out(format!("{}\n", path.display()).as_bytes())
}

fn write_out(bytes: &[u8]) -> anyhow::Result<ExitCode> {
    let mut stdout = std::io::stdout().lock();
    stdout
        .write_all(bytes)
        .and_then(|()| stdout.flush())
        .context("cannot write to standard output")?;
    Ok(ExitCode::SUCCESS)
}

#[cfg(test)]
mod tests {
    use super::*;

    /// Issue 30: the subcommands' pages were named `host` (NAME and footer), not
    /// `netarena-host`.
    #[test]
    fn each_subcommand_page_is_named_netarena_dash_it() {
        let roff = String::from_utf8(manual().unwrap()).unwrap();
        let pages: Vec<&str> = roff.split(".TH ").skip(1).collect();
        assert!(pages.len() > 10, "{} pages", pages.len());
        for page in &pages[1..] {
            let title = page.split_whitespace().next().unwrap();
            let name = title.strip_prefix("netarena-").expect(title);
            let after_name = page.split(".SH NAME\n").nth(1).expect("a NAME section");
            assert!(
                after_name.starts_with(&format!("netarena\\-{}", name.replace('-', "\\-"))),
                "{title}: {}",
                &after_name[..40.min(after_name.len())]
            );
            assert!(
                page.contains(&format!("netarena {name}")),
                "{title}: the synopsis names `netarena {name}`"
            );
        }
    }

    /// Issue 30: `--map` completed every file and no built-in map name.
    #[test]
    fn map_completion_offers_the_built_in_names_and_files() {
        let names = Map::BUILTIN_NAMES.join(" ");
        for (shell, wanted) in [
            (Shell::Bash, format!(r#"compgen -W "{names}""#)),
            (Shell::Zsh, format!("maps:built-in map:({names})")),
            (Shell::Fish, format!(r#"-F -a "{names}""#)),
        ] {
            let script = completion_script(shell);
            // host, server, lab and `bench net` take --map.
            assert_eq!(script.matches(&wanted).count(), 4, "{shell}");
        }
        let bash = completion_script(Shell::Bash);
        assert_eq!(bash.matches(r#"compgen -f -- "${cur}")"#).count(), 4);
    }

    /// In bash itself: `netarena host --map ` offers the names and the files here.
    #[cfg(unix)]
    #[test]
    fn bash_completes_map_names_and_files() {
        let dir = std::env::temp_dir().join(format!("netarena-compl-{}", std::process::id()));
        std::fs::create_dir_all(&dir).unwrap();
        std::fs::write(dir.join("pit.txt"), "").unwrap();
        let script = dir.join("netarena.bash");
        std::fs::write(&script, completion_script(Shell::Bash)).unwrap();
        let complete = |words: &str| {
            let out = std::process::Command::new("bash")
                .current_dir(&dir)
                .arg("-c")
                .arg(format!(
                    "source {}; COMP_WORDS=({words}); COMP_CWORD=$((${{#COMP_WORDS[@]}} - 1)); \
                     _netarena netarena \"${{COMP_WORDS[COMP_CWORD]}}\" \
                     \"${{COMP_WORDS[COMP_CWORD-1]}}\"; printf '%s\\n' \"${{COMPREPLY[@]}}\"",
                    script.display()
                ))
                .output()
                .expect("bash runs");
            assert!(
                out.status.success(),
                "{}",
                String::from_utf8_lossy(&out.stderr)
            );
            let mut got: Vec<String> = String::from_utf8_lossy(&out.stdout)
                .lines()
                .map(str::to_owned)
                .collect();
            got.sort();
            got
        };
        let all = complete("netarena host --map ''");
        let partial = complete("netarena host --map d");
        let files = complete("netarena host --map p");
        std::fs::remove_dir_all(&dir).unwrap();
        for name in Map::BUILTIN_NAMES {
            assert!(all.contains(&name.to_string()), "{all:?}");
        }
        assert!(all.contains(&"pit.txt".to_owned()), "{all:?}");
        assert_eq!(partial, ["duel"]);
        assert_eq!(files, ["pit.txt"]);
    }
}
