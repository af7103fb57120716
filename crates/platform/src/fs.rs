//! Files only their owner may read, as the platform can make them.

use std::fs::{File, OpenOptions};
use std::io;
use std::path::Path;

/// Creates (or truncates) `path` for writing, readable and writable by its owner only
/// on Unix (mode 0600, set as the file is made, so it is never readable by others).
/// Elsewhere the file takes the directory's permissions: on Windows a user's profile
/// directories are the user's own.
pub fn create_private(path: &Path) -> io::Result<File> {
    let mut options = OpenOptions::new();
    options.write(true).create(true).truncate(true);
    #[cfg(unix)]
    {
        use std::os::unix::fs::OpenOptionsExt;
        options.mode(0o600);
    }
    options.open(path)
}

#[cfg(all(test, unix))]
mod tests {
    use std::os::unix::fs::PermissionsExt;

    #[test]
    fn a_private_file_is_its_owners_alone() {
        let path = std::env::temp_dir().join(format!("netarena-private-{}", std::process::id()));
        let _ = std::fs::remove_file(&path);
        drop(super::create_private(&path).unwrap());
        let mode = std::fs::metadata(&path).unwrap().permissions().mode();
        std::fs::remove_file(&path).unwrap();
        assert_eq!(mode & 0o777, 0o600);
    }
}
