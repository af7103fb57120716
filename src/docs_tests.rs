//! Docs that name files are checked against the files, so a move or a new file cannot
//! leave them stale: `docs/ARCHITECTURE.md`'s module tree names every `.rs` file under
//! `src/` and no file that does not exist, and `CONTRIBUTING.md`'s test table has one row
//! for each file and folder at the top of `tests/`. A failure lists exactly the paths to
//! add or remove.

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

/// The text from the line `heading` to the next heading of the same or a higher level.
fn section<'a>(text: &'a str, heading: &str) -> &'a str {
    let start = text
        .find(&format!("\n{heading}\n"))
        .unwrap_or_else(|| panic!("no `{heading}` heading"))
        + 1;
    let body = &text[start + heading.len()..];
    let end = body.find("\n## ").map_or(body.len(), |i| i + 1);
    &body[..end]
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

/// Paths the docs give from the repository root.
const ROOTED: [&str; 6] = ["src/", "tests/", "fuzz/", "docs/", "maps/", ".ci/"];

fn rooted(span: &str) -> bool {
    ROOTED.iter().any(|prefix| span.starts_with(prefix)) && !span.contains(' ')
}

/// `client/play/app.rs`, not `.rs` or a sentence.
fn is_rust_file(span: &str) -> bool {
    span.strip_suffix(".rs")
        .is_some_and(|stem| !stem.is_empty() && !stem.ends_with('/') && !stem.contains(' '))
}

fn list(paths: &BTreeSet<String>) -> String {
    paths.iter().map(|p| format!("\n    {p}")).collect()
}

#[test]
fn the_architecture_module_tree_names_every_file_in_src() {
    let doc = read("docs/ARCHITECTURE.md");
    // In the tree a file is named relative to `src/` (`client/play/app.rs`).
    let named: BTreeSet<String> = code_spans(section(&doc, "## Module tree"))
        .into_iter()
        .filter(|span| is_rust_file(span))
        .map(|span| {
            if rooted(&span) {
                span
            } else {
                format!("src/{span}")
            }
        })
        .collect();
    let files = files_under("src", ".rs");
    let missing: BTreeSet<String> = files.difference(&named).cloned().collect();
    let absent: BTreeSet<String> = named.difference(&files).cloned().collect();
    // Anywhere on the page, a path from the root names something that exists.
    let stale: BTreeSet<String> = code_spans(&doc)
        .into_iter()
        .filter(|span| rooted(span) && !exists(span))
        .collect();
    assert!(
        missing.is_empty() && absent.is_empty() && stale.is_empty(),
        "docs/ARCHITECTURE.md is out of date.\n\
         Files under src/ that its module tree does not name (add them, relative to src/):{}\n\
         Files its module tree names that do not exist (remove or rename them):{}\n\
         Paths elsewhere on the page that do not exist:{}",
        list(&missing),
        list(&absent),
        list(&stale),
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
    let doc = "# t\n\n## A\nx\n### sub\ny\n## B\nz\n";
    assert_eq!(section(doc, "## A"), "\nx\n### sub\ny\n");
    assert!(is_rust_file("client/play/app.rs") && is_rust_file("lib.rs"));
    assert!(!is_rust_file(".rs") && !is_rust_file("a b.rs") && !is_rust_file("x.rsx"));
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
