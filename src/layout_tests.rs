//! The module layout, checked: each layer imports only the layers below it, and no two
//! sibling modules import each other. A shared item goes down into the lower of the two
//! (or a third file both import), so each folder's files stack in floors that can be
//! read bottom up.

use std::collections::{BTreeMap, BTreeSet};
use std::path::{Path, PathBuf};

/// The code of a file up to its test module (tests may reach anywhere), without
/// comments (a doc link is no import).
fn non_test_code(path: &Path) -> String {
    let text = std::fs::read_to_string(path).unwrap_or_default();
    let code = match text.find("#[cfg(test)]") {
        Some(at) => &text[..at],
        None => &text,
    };
    code.lines()
        .filter(|l| !l.trim_start().starts_with("//"))
        .collect::<Vec<_>>()
        .join("\n")
}

/// A file of tests (`tests.rs`, `format_tests.rs`, ...).
fn is_tests(path: &Path) -> bool {
    path.file_stem()
        .and_then(|s| s.to_str())
        .is_some_and(|s| s.contains("tests"))
}

/// Every `.rs` file under `dir` but files of tests.
fn rust_files(dir: &Path) -> Vec<PathBuf> {
    let mut out = Vec::new();
    for entry in std::fs::read_dir(dir).expect("src is readable").flatten() {
        let path = entry.path();
        if path.is_dir() {
            out.extend(rust_files(&path));
        } else if path.extension().is_some_and(|e| e == "rs") && !is_tests(&path) {
            out.push(path);
        }
    }
    out
}

/// The names in `text` that follow `prefix` (`crate::server::` gives `roster`, ...).
fn names_after(text: &str, prefix: &str, into: &mut BTreeSet<String>) {
    for (at, _) in text.match_indices(prefix) {
        let rest = &text[at + prefix.len()..];
        let name: String = rest
            .chars()
            .take_while(|c| c.is_alphanumeric() || *c == '_')
            .collect();
        if !name.is_empty() {
            into.insert(name);
        }
        // `use super::{a, b::C}`: every name in the braces.
        if let Some(group) = rest.strip_prefix('{') {
            let group = &group[..group.find('}').unwrap_or(group.len())];
            for part in group.split(',') {
                let name: String = part
                    .trim()
                    .chars()
                    .take_while(|c| c.is_alphanumeric() || *c == '_')
                    .collect();
                if !name.is_empty() {
                    into.insert(name);
                }
            }
        }
    }
}

/// For the folder module at `dir` (`crate::` + `path`), each child module and the
/// sibling modules its non-test code names.
fn sibling_imports(dir: &Path, path: &str) -> BTreeMap<String, BTreeSet<String>> {
    let mut children: BTreeMap<String, BTreeSet<String>> = BTreeMap::new();
    for entry in std::fs::read_dir(dir).expect("a module folder").flatten() {
        let p = entry.path();
        let stem = p.file_stem().and_then(|s| s.to_str()).unwrap_or_default();
        let files = if p.is_dir() {
            rust_files(&p)
        } else if p.extension().is_some_and(|e| e == "rs") && stem != "mod" && !is_tests(&p) {
            vec![p.clone()]
        } else {
            continue;
        };
        // `app.rs` and `app/` are one module.
        let (name, named) = (
            stem.to_owned(),
            children.entry(stem.to_owned()).or_default(),
        );
        for file in &files {
            let text = non_test_code(file);
            names_after(&text, &format!("crate::{path}::"), named);
            if *file == p {
                names_after(&text, "super::", named);
            }
        }
        let _ = name;
    }
    let names: BTreeSet<String> = children.keys().cloned().collect();
    children
        .into_iter()
        .map(|(name, named)| {
            let siblings = named
                .into_iter()
                .filter(|n| *n != name && names.contains(n))
                .collect();
            (name, siblings)
        })
        .collect()
}

/// Four pairs once imported each other: `server::connection` and `server::roster`
/// (`Driver` is now in `connection`), `cli::args` and `cli::config` (`default_name` is
/// in `cli::player_name`), `cli::args` and `cli::lab` (`LabArgs` is in `args/lab.rs`),
/// `bench::net` and `bench::relay` (the header bytes are in `net::wire_bytes`).
#[test]
fn no_two_sibling_modules_import_each_other() {
    let root = Path::new(env!("CARGO_MANIFEST_DIR"));
    let mut folders = vec![(root.join("src"), String::new())];
    for layer in ["sim", "net", "server"] {
        folders.push((root.join("crates").join(layer).join("src"), String::new()));
    }
    let mut cycles = Vec::new();
    while let Some((dir, path)) = folders.pop() {
        for entry in std::fs::read_dir(&dir).expect("src is readable").flatten() {
            let p = entry.path();
            if p.is_dir() {
                let name = p.file_name().and_then(|n| n.to_str()).unwrap_or_default();
                let sub = if path.is_empty() {
                    name.to_owned()
                } else {
                    format!("{path}::{name}")
                };
                folders.push((p, sub));
            }
        }
        if path.is_empty() {
            continue;
        }
        let imports = sibling_imports(&dir, &path);
        for (a, names) in &imports {
            for b in names {
                if a < b && imports.get(b).is_some_and(|n| n.contains(a)) {
                    cycles.push(format!("{path}::{a} <-> {path}::{b}"));
                }
            }
        }
    }
    assert!(
        cycles.is_empty(),
        "modules that import each other: {cycles:?}"
    );
}

/// The layers ARCHITECTURE states, checked on the code outside tests where the compiler
/// cannot: `sim`, `net` and `server` are crates of their own (`crates/`), so their
/// manifests keep them apart; inside this crate `ui` imports only `sim` (the client
/// fills its view types).
#[test]
fn each_layer_imports_only_the_layers_below() {
    let src = Path::new(env!("CARGO_MANIFEST_DIR")).join("src");
    let layers: [(&str, &[&str]); 1] = [("ui", &["sim"])];
    let mut wrong = Vec::new();
    for (layer, allowed) in layers {
        for file in rust_files(&src.join(layer)) {
            let mut used = BTreeSet::new();
            names_after(&non_test_code(&file), "crate::", &mut used);
            for name in used {
                if name != layer && !allowed.contains(&name.as_str()) {
                    let shown = file.strip_prefix(&src).unwrap_or(&file).display();
                    wrong.push(format!("src/{shown} imports crate::{name}"));
                }
            }
        }
    }
    assert!(wrong.is_empty(), "imports across the layers: {wrong:#?}");
}

/// The platform seam (issue 30): every OS-specific call is in the `netarena-platform`
/// crate (`crates/platform/`), so the rest builds on every system. No file of another
/// crate names a Unix-only module or crate in its code outside tests.
#[test]
fn os_specific_calls_are_only_in_the_platform_crate() {
    let root = Path::new(env!("CARGO_MANIFEST_DIR"));
    let unix_only = [
        "std::os::unix",
        "std::os::fd",
        "nix::",
        "rustix::",
        "libc::",
        "mio::unix",
    ];
    let mut files: Vec<PathBuf> = rust_files(&root.join("src"));
    for layer in ["sim", "net", "server"] {
        files.extend(rust_files(&root.join("crates").join(layer).join("src")));
    }
    let mut wrong = Vec::new();
    for file in &files {
        let code = non_test_code(file);
        for name in unix_only {
            if code.contains(name) {
                let shown = file.strip_prefix(root).unwrap_or(file).display();
                wrong.push(format!("{shown} names {name}"));
            }
        }
    }
    assert!(
        files.iter().any(|f| f.ends_with("net/src/transport.rs")),
        "the walk found the transport"
    );
    assert!(
        wrong.is_empty(),
        "OS-specific calls outside crates/platform: {wrong:#?}"
    );
}

/// Issue 33: no source file is over 500 lines counting its code before any test module
/// (files of tests are exempt), so each file can be read whole.
#[test]
fn no_source_file_is_over_500_lines_before_its_tests() {
    let root = Path::new(env!("CARGO_MANIFEST_DIR"));
    let mut files: Vec<PathBuf> = rust_files(&root.join("src"));
    for entry in std::fs::read_dir(root.join("crates")).expect("crates is readable") {
        files.extend(rust_files(&entry.expect("a crate").path().join("src")));
    }
    let mut long = Vec::new();
    for file in &files {
        let text = std::fs::read_to_string(file).expect("a source file is readable");
        let code = match text.find("#[cfg(test)]") {
            Some(at) => &text[..at],
            None => &text,
        };
        let lines = code.lines().count();
        if lines > 500 {
            let shown = file.strip_prefix(root).unwrap_or(file).display();
            long.push(format!("{shown}: {lines}"));
        }
    }
    assert!(
        files.iter().any(|f| f.ends_with("sim/src/step.rs")),
        "the walk reached the crates"
    );
    assert!(long.is_empty(), "files over 500 lines: {long:#?}");
}

/// Structs still over [`MAX_FIELDS`], each with why it is not yet split into parts.
const MANY_FIELDS: &[(&str, &str)] = &[
    (
        "Server",
        "its methods over eight files reach the same fields; to become intake, delivery, roster, rate",
    ),
    (
        "SessionStats",
        "serialized into reports and keyframes field by field: a split changes both",
    ),
    (
        "Watch",
        "a lesson's watch of client 1: its snapshots at the start and the last look, to be parts",
    ),
    (
        "LabStart",
        "a lab recording's start record, mirroring ServerConfig (issue 33: one table per fact)",
    ),
    (
        "StatsView",
        "the stats overlay's figures, one field a line it draws",
    ),
    (
        "View",
        "what one frame draws, borrowed from the session for the drawing code",
    ),
    (
        "NetResult",
        "the net benchmark's printed result, one field a figure",
    ),
    (
        "Link",
        "the terminal client's link (socket, conditioners, counters), to be grouped",
    ),
];

/// Most fields a struct holding state may have (issue 33): past this it is split into
/// named parts, as `ClientSession` owns its timing, own player, remote players and feed.
const MAX_FIELDS: usize = 15;

/// `text` up to its first test module (a `#[cfg(test)]` line before a `mod`).
fn before_test_module(text: &str) -> &str {
    let mut at = 0;
    let mut lines = text.split_inclusive('\n').peekable();
    while let Some(line) = lines.next() {
        let next = lines.peek().map_or("", |l| l.trim_start());
        if line.trim_end() == "#[cfg(test)]" && (next.starts_with("mod ") || next.contains(" mod "))
        {
            return &text[..at];
        }
        at += line.len();
    }
    text
}

/// The fields of each struct with named fields in `code`: (name, count, derives).
fn struct_fields(code: &str) -> Vec<(String, usize, String)> {
    let lines: Vec<&str> = code.lines().collect();
    let mut found = Vec::new();
    for (i, line) in lines.iter().enumerate() {
        let t = line.trim_start();
        let Some(rest) = t
            .strip_prefix("pub struct ")
            .or_else(|| t.strip_prefix("struct "))
            .or_else(|| t.split_once(") struct ").map(|(_, r)| r))
        else {
            continue;
        };
        if !line.trim_end().ends_with('{') {
            continue;
        }
        let name: String = rest
            .chars()
            .take_while(|c| c.is_alphanumeric() || *c == '_')
            .collect();
        let derives: String = lines[..i]
            .iter()
            .rev()
            .take_while(|l| {
                let l = l.trim();
                !l.is_empty() && !l.ends_with('}') && !l.ends_with(';')
            })
            .copied()
            .collect();
        let indent = line.len() - t.len();
        let mut count = 0;
        for inner in &lines[i + 1..] {
            let it = inner.trim_start();
            if inner.len() - it.len() == indent && it.starts_with('}') {
                break;
            }
            let field = it.strip_prefix("pub ").unwrap_or(it);
            let field = match field.strip_prefix("pub(") {
                Some(r) => r.split_once(") ").map_or("", |(_, f)| f),
                None => field,
            };
            if inner.len() - it.len() == indent + 4
                && field.split_once(':').is_some_and(|(n, _)| {
                    !n.is_empty()
                        && n.chars()
                            .all(|c| c.is_ascii_lowercase() || c.is_ascii_digit() || c == '_')
                })
            {
                count += 1;
            }
        }
        found.push((name, count, derives));
    }
    found
}

/// Issue 33: no struct holding state has more than [`MAX_FIELDS`] fields, outside the
/// command line's (clap `Parser`/`Args`) and configs (`*Config`), which are flat lists
/// of settings by nature. The known exceptions are named in [`MANY_FIELDS`].
#[test]
fn no_struct_holds_over_15_fields() {
    let root = Path::new(env!("CARGO_MANIFEST_DIR"));
    let mut files: Vec<PathBuf> = rust_files(&root.join("src"));
    for entry in std::fs::read_dir(root.join("crates")).expect("crates is readable") {
        files.extend(rust_files(&entry.expect("a crate").path().join("src")));
    }
    let mut over = BTreeMap::new();
    let mut counted = BTreeMap::new();
    for file in &files {
        let text = std::fs::read_to_string(file).expect("a source file is readable");
        for (name, count, derives) in struct_fields(before_test_module(&text)) {
            counted.insert(name.clone(), count);
            let exempt =
                name.ends_with("Config") || derives.contains("Parser") || derives.contains("Args");
            if count > MAX_FIELDS && !exempt {
                over.insert(name, count);
            }
        }
    }
    // The count itself is right: the lab's `Joining` has its 11 fields.
    assert_eq!(counted.get("Joining"), Some(&11), "the field count is off");
    let known: BTreeSet<&str> = MANY_FIELDS.iter().map(|(name, _)| *name).collect();
    let unknown: Vec<_> = over
        .iter()
        .filter(|(n, _)| !known.contains(n.as_str()))
        .collect();
    assert!(
        unknown.is_empty(),
        "structs over {MAX_FIELDS} fields: {unknown:#?}"
    );
    let stale: Vec<_> = known.iter().filter(|n| !over.contains_key(**n)).collect();
    assert!(
        stale.is_empty(),
        "known exceptions no longer over the limit: {stale:?}"
    );
}
