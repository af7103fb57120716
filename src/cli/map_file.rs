//! Reading `--map` arguments: a built-in name, or a map file read here (bounded, and
//! only if it is a regular file) and parsed by `sim`, which does no I/O itself.

use std::io::Read;
use std::path::Path;

use netarena::sim::map::{Map, MapError};

/// A full 100x50 map with CRLF endings and comments is well under this; anything bigger
/// is almost certainly the wrong file, and we never want to read a huge one into memory.
const MAX_FILE_BYTES: u64 = 64 * 1024;

/// Whether a `--map` argument is a bare word (a would-be built-in) rather than a path.
fn looks_like_name(arg: &str) -> bool {
    !arg.contains('.') && !arg.chars().any(std::path::is_separator)
}

/// Loads a built-in map by name, or else a map file from a path.
pub(crate) fn load(name_or_path: &str) -> Result<Map, MapError> {
    if let Some(map) = Map::builtin(name_or_path) {
        return Ok(map);
    }
    let path = Path::new(name_or_path);
    let file_error = |msg: String| MapError::File(format!("{name_or_path}: {msg}"));

    let meta = match std::fs::metadata(path) {
        Ok(meta) => meta,
        // A bare word like `arnea` is far more likely a mistyped built-in than a
        // missing file, so list the names that would have worked.
        Err(e) if e.kind() == std::io::ErrorKind::NotFound && looks_like_name(name_or_path) => {
            return Err(MapError::File(format!(
                "no built-in map or file named {name_or_path} (built-ins: {})",
                Map::BUILTIN_NAMES.join(", ")
            )));
        }
        Err(e) => return Err(file_error(e.to_string())),
    };
    if meta.is_dir() {
        return Err(file_error("is a directory".to_owned()));
    }
    // Opening a FIFO blocks until a writer comes, and a device can stream forever: only
    // a regular file is a map file.
    if !meta.is_file() {
        return Err(file_error("not a regular file".to_owned()));
    }
    if meta.len() > MAX_FILE_BYTES {
        return Err(file_error(format!(
            "file too large ({} bytes, limit {MAX_FILE_BYTES})",
            meta.len()
        )));
    }

    // The file can grow after we looked: bound the read too.
    let mut bytes = Vec::new();
    std::fs::File::open(path)
        .and_then(|file| file.take(MAX_FILE_BYTES + 1).read_to_end(&mut bytes))
        .map_err(|e| file_error(e.to_string()))?;
    if bytes.len() as u64 > MAX_FILE_BYTES {
        return Err(file_error(format!(
            "file too large (more than {MAX_FILE_BYTES} bytes)"
        )));
    }
    Map::parse_bytes(name_or_path, &bytes)
}

#[cfg(test)]
mod tests {
    use super::*;

    const SMALL: &str = "#####\n#S..#\n#.#.#\n#..S#\n#####";

    fn load_map(name_or_path: &str) -> Result<Map, MapError> {
        load(name_or_path)
    }

    /// A scratch path unique to this test process and test name.
    fn temp_path(name: &str) -> std::path::PathBuf {
        std::env::temp_dir().join(format!("netarena-map-test-{}-{name}", std::process::id()))
    }

    fn file_error(result: Result<Map, MapError>) -> String {
        match result {
            Err(MapError::File(msg)) => msg,
            other => panic!("expected a file error, got {other:?}"),
        }
    }

    #[test]
    fn load_directory() {
        let dir = std::env::temp_dir();
        let dir = dir.to_str().unwrap();
        assert_eq!(file_error(load_map(dir)), format!("{dir}: is a directory"));
    }

    #[test]
    fn load_too_large_file() {
        let path = temp_path("large.txt");
        std::fs::write(&path, "#".repeat(70_000)).unwrap();
        let path_str = path.to_str().unwrap().to_owned();
        let result = load_map(&path_str);
        std::fs::remove_file(&path).unwrap();
        assert_eq!(
            file_error(result),
            format!("{path_str}: file too large (70000 bytes, limit 65536)")
        );
    }

    #[test]
    fn load_missing_file() {
        let path = temp_path("missing.txt");
        let path = path.to_str().unwrap();
        let msg = file_error(load_map(path));
        // The rest is the OS's wording, which we do not pin down.
        assert!(msg.starts_with(&format!("{path}: ")), "{msg}");
        assert!(msg.len() > path.len() + 2, "{msg}");
    }

    #[test]
    fn load_unknown_name() {
        assert_eq!(
            file_error(load_map("arnea")),
            "no built-in map or file named arnea (built-ins: arena, duel, warehouse, catacombs)"
        );
        // Built-in names are case-sensitive.
        assert!(matches!(load_map("Arena"), Err(MapError::File(_))));
    }

    #[test]
    fn load_builtin_and_file() {
        assert_eq!(load_map("duel").unwrap(), Map::builtin("duel").unwrap());

        let path = temp_path("pit.txt");
        std::fs::write(&path, format!("; a custom map\r\n{SMALL}\r\n")).unwrap();
        let path_str = path.to_str().unwrap().to_owned();
        let result = load_map(&path_str);
        std::fs::remove_file(&path).unwrap();
        let map = result.unwrap();
        assert_eq!(
            map.name(),
            format!("netarena-map-test-{}-pit", std::process::id())
        );
        assert_eq!(map.text(), SMALL);
    }

    #[test]
    fn load_reports_syntax_errors_with_the_path() {
        let path = temp_path("bad.txt");
        std::fs::write(&path, "#####\n#S..#\n#.?.#\n#...#\n#####\n").unwrap();
        let path_str = path.to_str().unwrap().to_owned();
        let result = load_map(&path_str);
        std::fs::remove_file(&path).unwrap();
        let err = result.unwrap_err().to_string();
        assert!(err.starts_with(&format!("{path_str}:3:3: ")), "{err}");
    }

    #[test]
    fn builtins_load_by_name() {
        for &name in Map::BUILTIN_NAMES {
            assert_eq!(load_map(name).unwrap(), Map::builtin(name).unwrap());
        }
    }

    // A FIFO given as --map blocked forever in open(), waiting for a writer. Unix only
    // (mkfifo, /dev/zero).
    #[cfg(unix)]
    #[test]
    fn load_fifo_is_refused() {
        let path = temp_path("fifo");
        let path_str = path.to_str().unwrap().to_owned();
        let made = std::process::Command::new("mkfifo").arg(&path).status();
        assert!(made.is_ok_and(|s| s.success()), "mkfifo failed");
        let result = load_map(&path_str);
        std::fs::remove_file(&path).unwrap();
        assert_eq!(
            file_error(result),
            format!("{path_str}: not a regular file")
        );
    }

    #[cfg(unix)]
    #[test]
    fn load_device_is_refused() {
        assert_eq!(
            file_error(load_map("/dev/zero")),
            "/dev/zero: not a regular file"
        );
    }
}
