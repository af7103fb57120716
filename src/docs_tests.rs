//! Docs that name files are checked against the files, so a move or a new file cannot
//! leave them stale: `docs/MODULES.md` is generated from every `.rs` file's own `//!`
//! docs (`NETARENA_UPDATE_DOCS=1` writes it again), the paths the architecture,
//! protocol and contributing docs name exist, `CONTRIBUTING.md`'s test table has one
//! row for each file and folder at the top of `tests/`, and the README and the
//! architecture stay short. A failure lists exactly the paths or lines to change.

use std::collections::BTreeSet;
use std::fs;
use std::path::{Path, PathBuf};

fn root() -> PathBuf {
    PathBuf::from(env!("CARGO_MANIFEST_DIR"))
}

fn read(relative: &str) -> String {
    fs::read_to_string(root().join(relative))
        .unwrap_or_else(|e| panic!("cannot read {relative}: {e}"))
}

/// Every inline code span (`like this`) outside fenced code blocks.
fn code_spans(text: &str) -> Vec<String> {
    let mut prose = String::new();
    let mut fenced = false;
    for line in text.lines() {
        if line.trim_start().starts_with("```") {
            fenced = !fenced;
        } else if !fenced {
            prose.push_str(line);
            prose.push('\n');
        }
    }
    prose
        .split('`')
        .skip(1)
        .step_by(2)
        .map(|span| span.split_whitespace().collect::<Vec<_>>().join(" "))
        .collect()
}

/// Paths under `dir` (relative to the repository root, `/`-separated) of the files whose
/// name ends with `suffix`.
fn files_under(dir: &str, suffix: &str) -> BTreeSet<String> {
    fn walk(path: &Path, suffix: &str, out: &mut BTreeSet<String>) {
        let mut entries: Vec<_> = fs::read_dir(path)
            .unwrap_or_else(|e| panic!("cannot list {}: {e}", path.display()))
            .map(|entry| entry.expect("a directory entry").path())
            .collect();
        entries.sort();
        for entry in entries {
            if entry.is_dir() {
                walk(&entry, suffix, out);
            } else if entry.to_string_lossy().ends_with(suffix) {
                let relative = entry.strip_prefix(root()).expect("under the root");
                out.insert(relative.to_string_lossy().replace('\\', "/"));
            }
        }
    }
    let mut out = BTreeSet::new();
    walk(&root().join(dir), suffix, &mut out);
    out
}

fn exists(relative: &str) -> bool {
    root().join(relative.trim_end_matches('/')).exists()
}

/// Paths the docs give from the repository root (a pattern such as `crates/*/src/` or
/// `fuzz/corpus/<target>/` is not a path).
const ROOTED: [&str; 6] = ["src/", "crates/", "tests/", "fuzz/", "docs/", ".ci/"];

fn rooted(span: &str) -> bool {
    ROOTED.iter().any(|prefix| span.starts_with(prefix)) && !span.contains([' ', '*', '<'])
}

fn list(paths: &BTreeSet<String>) -> String {
    paths.iter().map(|p| format!("\n    {p}")).collect()
}

/// The docs whose paths from the repository root (`src/...`, `crates/...`) must exist.
const CHECKED_DOCS: [&str; 4] = [
    "docs/ARCHITECTURE.md",
    "docs/PROTOCOL.md",
    "docs/MODULES.md",
    "CONTRIBUTING.md",
];

#[test]
fn paths_the_docs_name_exist() {
    let stale: BTreeSet<String> = CHECKED_DOCS
        .iter()
        .flat_map(|doc| {
            code_spans(&read(doc))
                .into_iter()
                .filter(|span| rooted(span) && !exists(span))
                .map(move |span| format!("{doc}: {span}"))
        })
        .collect();
    assert!(
        stale.is_empty(),
        "paths in the docs that do not exist (fix or remove them):{}",
        list(&stale)
    );
}

/// The pages a newcomer reads first stay short: the depth goes to the docs that need it.
const SIZE_LIMITS: [(&str, usize); 2] = [("README.md", 12_000), ("docs/ARCHITECTURE.md", 15_000)];

#[test]
fn the_readme_and_the_architecture_stay_short() {
    let over: BTreeSet<String> = SIZE_LIMITS
        .iter()
        .filter_map(|&(doc, limit)| {
            let size = read(doc).len();
            (size > limit).then(|| format!("{doc}: {size} bytes, at most {limit}"))
        })
        .collect();
    assert!(
        over.is_empty(),
        "docs over their size (move the depth to the docs that need it):{}",
        list(&over)
    );
}

/// The generated module list.
const MODULES: &str = "docs/MODULES.md";
const UPDATE: &str = "NETARENA_UPDATE_DOCS";

/// The first sentence of a file's own docs: the `//!` lines it begins with, up to the
/// first blank one, on one line, with rustdoc's link brackets dropped. `None` if the
/// file does not begin with a `//!` line.
fn summary(text: &str) -> Option<String> {
    let words: Vec<&str> = text
        .lines()
        .map_while(|line| line.strip_prefix("//!"))
        .map(str::trim)
        .take_while(|line| !line.is_empty())
        .flat_map(str::split_whitespace)
        .collect();
    if words.is_empty() {
        return None;
    }
    let paragraph = words.join(" ");
    let end = paragraph.find(". ").map_or(paragraph.len(), |at| at + 1);
    Some(unlink(&paragraph[..end]))
}

/// ``[`Server`]`` and ``[`format`](mod@format)`` as plain code spans.
fn unlink(text: &str) -> String {
    let mut out = String::new();
    let mut rest = text;
    while let Some(at) = rest.find("[`") {
        out.push_str(&rest[..at]);
        let span = &rest[at + 1..];
        let Some(close) = span[1..].find("`]").map(|i| i + 1) else {
            out.push_str(&rest[at..]);
            return out;
        };
        out.push_str(&span[..=close]);
        rest = &span[close + 2..];
        if let Some(target) = rest.strip_prefix('(') {
            rest = target.find(')').map_or(rest, |i| &target[i + 1..]);
        }
    }
    out.push_str(rest);
    out
}

/// The source folders: `src/` and each crate's under `crates/`.
fn source_roots() -> Vec<String> {
    let mut crates: Vec<String> = fs::read_dir(root().join("crates"))
        .expect("crates/ lists")
        .map(|entry| entry.expect("a directory entry").file_name())
        .map(|name| format!("crates/{}/src", name.to_string_lossy()))
        .filter(|dir| exists(dir))
        .collect();
    crates.sort();
    crates.push("src".to_string());
    crates
}

/// `docs/MODULES.md` as it should read, and the files that have no `//!` line to give.
fn module_list() -> (String, BTreeSet<String>) {
    let mut text = String::from(
        "# Modules\n\n\
         Every `.rs` file of the workspace, with the first sentence of its own `//!` docs.\n\
         Generated by `src/docs_tests.rs` (do not edit): `cargo test --lib docs_tests` fails\n\
         when this list differs from the files, and `NETARENA_UPDATE_DOCS=1 cargo test --lib\n\
         docs_tests` writes it again. How the parts fit is in [ARCHITECTURE.md](ARCHITECTURE.md).\n",
    );
    let mut undocumented = BTreeSet::new();
    for dir in source_roots() {
        text.push_str(&format!("\n## {dir}/\n\n"));
        // A folder's own files first (`lib.rs`, `mod.rs` leading), then each subfolder's.
        let mut files: Vec<(String, bool, String)> = files_under(&dir, ".rs")
            .into_iter()
            .map(|path| {
                let inner = &path[dir.len() + 1..];
                let folder = inner.split_once('/').map_or("", |(first, _)| first);
                let name = inner.rsplit('/').next().unwrap_or(inner);
                let head = !matches!(name, "lib.rs" | "main.rs" | "mod.rs");
                (folder.to_string(), head, path)
            })
            .collect();
        files.sort();
        let mut group = String::new();
        for (folder, _, path) in files {
            if folder != group {
                text.push_str(&format!("\n### {dir}/{folder}/\n\n"));
                group = folder;
            }
            match summary(&read(&path)) {
                Some(line) => text.push_str(&format!("- `{path}`: {line}\n")),
                None => {
                    undocumented.insert(path);
                }
            }
        }
    }
    (text, undocumented)
}

#[test]
fn the_module_list_is_generated_from_every_files_own_docs() {
    let (text, undocumented) = module_list();
    assert!(
        undocumented.is_empty(),
        "these files do not begin with a `//!` line saying what they are for (add one):{}",
        list(&undocumented)
    );
    if std::env::var_os(UPDATE).is_some() {
        fs::write(root().join(MODULES), &text).expect("docs/MODULES.md is writable");
        return;
    }
    let old = fs::read_to_string(root().join(MODULES)).unwrap_or_default();
    let lines = |t: &str| -> BTreeSet<String> { t.lines().map(str::to_string).collect() };
    let (new_lines, old_lines) = (lines(&text), lines(&old));
    assert!(
        old == text,
        "{MODULES} is out of date: run `{UPDATE}=1 cargo test --lib docs_tests` and commit it.\n\
         Lines it lacks:{}\n\
         Lines it has that it should not:{}",
        list(&new_lines.difference(&old_lines).cloned().collect()),
        list(&old_lines.difference(&new_lines).cloned().collect()),
    );
}

/// What the test table must have a row for: each folder under `tests/` and each `.rs`
/// file in it, except inside `tests/support/` and `tests/data/`, whose rows say what
/// they hold.
fn test_entries() -> BTreeSet<String> {
    fn walk(dir: &std::path::Path, rel: &str, out: &mut BTreeSet<String>) {
        for entry in fs::read_dir(dir).expect("a test folder lists") {
            let path = entry.expect("a directory entry").path();
            let name = path
                .file_name()
                .expect("a name")
                .to_string_lossy()
                .into_owned();
            let rel = format!("{rel}{name}");
            if path.is_dir() {
                out.insert(format!("{rel}/"));
                if rel != "tests/support" && rel != "tests/data" {
                    walk(&path, &format!("{rel}/"), out);
                }
            } else if name.ends_with(".rs") {
                out.insert(rel);
            }
        }
    }
    let mut entries = BTreeSet::new();
    walk(&root().join("tests"), "tests/", &mut entries);
    entries
}

#[test]
fn the_contributing_test_table_has_a_row_for_every_test_file_and_folder() {
    let doc = read("CONTRIBUTING.md");
    let rows: BTreeSet<String> = doc
        .lines()
        .filter(|line| line.starts_with("| `tests/"))
        .map(|line| code_spans(line).swap_remove(0))
        .collect();
    let entries = test_entries();
    let missing: BTreeSet<String> = entries.difference(&rows).cloned().collect();
    let absent: BTreeSet<String> = rows.difference(&entries).cloned().collect();
    assert!(
        missing.is_empty() && absent.is_empty(),
        "CONTRIBUTING.md's test table is out of date (a row is `| `tests/NAME.rs` | ... |`, \
         a folder's `| `tests/NAME/` | ... |`).\n\
         Files and folders in tests/ without a row:{}\n\
         Rows for files or folders that do not exist:{}",
        list(&missing),
        list(&absent),
    );
}

#[test]
fn code_spans_skip_fences_and_join_wrapped_lines() {
    let text = "a `src/x.rs` b\n```sh\n`not/this.rs`\n```\nc `one\ntwo` d";
    assert_eq!(code_spans(text), ["src/x.rs", "one two"]);
}

#[test]
fn a_summary_is_the_first_sentence_of_the_leading_docs_without_link_targets() {
    let file = "//! The [`Server`] state machine, fed\n//! [`format`](mod@format) bytes. More\n\
                //! text.\n//!\n//! Another paragraph.\nuse x;\n";
    assert_eq!(
        summary(file).as_deref(),
        Some("The `Server` state machine, fed `format` bytes.")
    );
    assert_eq!(
        summary("//! No full stop\n\n//! later").as_deref(),
        Some("No full stop")
    );
    assert_eq!(summary("use x;\n//! too late\n"), None);
    assert_eq!(summary("//!\n//! after a blank line\n"), None);
}

/// The README's sample screen (between `<!-- screen -->` and `<!-- /screen -->`) is
/// the game's own frame: `host --bots 3`'s match (the arena, three bots, seed 7) played
/// for six seconds in the lab, the player wandering and firing, its client's view drawn
/// at 80x24 with ratatui's TestBackend. `NETARENA_UPDATE_DOCS=1` rewrites the block.
#[test]
fn the_readme_screen_is_the_game_drawn() {
    use std::time::{Duration, Instant};

    use ratatui::Terminal;
    use ratatui::backend::TestBackend;

    use crate::lab::{Lab, ScriptedClient};
    use crate::server::ServerConfig;
    use crate::sim::map::Map;
    use crate::sim::world::{Buttons, Command};

    let mut server = ServerConfig::new(Map::builtin("arena").unwrap());
    server.bots = 3;
    server.seed = 7;
    let you = ScriptedClient {
        name: "you".into(),
        up: Default::default(),
        down: Default::default(),
        seeds: (7, 8),
        first_command: Duration::from_millis(10),
    };
    let start = Instant::now();
    let mut lab = Lab::scripted(server, &[you], start).unwrap();
    // Round the map's middle, firing, a direction each 1.5 s.
    let ways = [Buttons::LEFT, Buttons::UP, Buttons::RIGHT, Buttons::DOWN];
    lab.run_with(start + Duration::from_secs(6), |_, _, at| {
        let leg = at.duration_since(start).as_millis() / 1500;
        Command {
            buttons: ways[leg as usize % 4].union(Buttons::FIRE),
            weapon: 1,
            aim: 0,
        }
    });
    lab.frame();
    let c = &lab.clients[0];
    let view = c.driver.view(lab.now(), 60.0, c.rates.rates());
    let mut terminal = Terminal::new(TestBackend::new(80, 24)).unwrap();
    terminal.draw(|f| crate::ui::draw(f, &view)).unwrap();
    let buf = terminal.backend().buffer();
    let rows: Vec<String> = (0..24)
        .map(|y| {
            let row: String = (0..80).map(|x| buf[(x, y)].symbol()).collect();
            row.trim_end().to_owned()
        })
        .collect();
    // The map takes 23 rows: the last is blank.
    let drawn: String = rows
        .iter()
        .take(
            rows.iter()
                .rposition(|r| !r.is_empty())
                .map_or(0, |i| i + 1),
        )
        .map(|r| format!("{r}\n"))
        .collect();

    let (open, close) = ("<!-- screen -->\n```text\n", "```\n<!-- /screen -->");
    let readme = read("README.md");
    let start_at = readme.find(open).expect("README.md has <!-- screen -->") + open.len();
    let end_at = start_at
        + readme[start_at..]
            .find(close)
            .expect("and <!-- /screen -->");
    if std::env::var_os("NETARENA_UPDATE_DOCS").is_some() {
        let mut fresh = readme.clone();
        fresh.replace_range(start_at..end_at, &drawn);
        fs::write(root().join("README.md"), fresh).unwrap();
        return;
    }
    assert_eq!(
        readme[start_at..end_at],
        drawn,
        "README.md's screen is not the game's: NETARENA_UPDATE_DOCS=1 cargo test --lib docs_tests"
    );
    assert!(
        readme.len() <= 12_000,
        "README.md is {} bytes",
        readme.len()
    );
}
