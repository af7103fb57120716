//! Files only their owner may read, as the platform can make them.

use std::fs::{File, OpenOptions};
use std::io;
use std::path::Path;

/// Creates `path` for writing, readable and writable by its owner only on Unix (mode
/// 0600, set as the file is made, so it is never readable by others). A file already
/// there is an error (`AlreadyExists`): its permissions, and whoever holds it open,
/// are not this call's. Elsewhere the file takes the directory's permissions: on
/// Windows a user's profile directories are the user's own.
pub fn create_private(path: &Path) -> io::Result<File> {
    let mut options = OpenOptions::new();
    options.write(true).create_new(true);
    #[cfg(unix)]
    {
        use std::os::unix::fs::OpenOptionsExt;
        options.mode(0o600);
    }
    options.open(path)
}

/// Opens `path` for appending, made as [`create_private`] makes a file when it is not
/// there. On Unix a file already there is used only if it is no link, is this user's,
/// and no one else may read or write it; otherwise the error says so.
pub fn append_private(path: &Path) -> io::Result<File> {
    let mut options = OpenOptions::new();
    options.append(true).create(true);
    #[cfg(unix)]
    {
        use std::os::unix::fs::{MetadataExt, OpenOptionsExt};
        options
            .mode(0o600)
            .custom_flags(rustix::fs::OFlags::NOFOLLOW.bits() as i32);
        let file = options.open(path)?;
        let meta = file.metadata()?;
        if meta.uid() != rustix::process::geteuid().as_raw() || meta.mode() & 0o077 != 0 {
            return Err(io::Error::new(
                io::ErrorKind::PermissionDenied,
                "it is another user's, or others may read or write it",
            ));
        }
        Ok(file)
    }
    #[cfg(not(unix))]
    options.open(path)
}

/// Makes a new directory under the system's temporary directory, named `prefix`, the
/// process id and a count, that only its owner may enter on Unix (mode 0700): a file
/// made in it has a path no one else can take first.
pub fn private_temp_dir(prefix: &str) -> io::Result<std::path::PathBuf> {
    let mut builder = std::fs::DirBuilder::new();
    #[cfg(unix)]
    {
        use std::os::unix::fs::DirBuilderExt;
        builder.mode(0o700);
    }
    let base = std::env::temp_dir();
    let mut n = 0u32;
    loop {
        let dir = base.join(format!("{prefix}-{}-{n}", std::process::id()));
        match builder.create(&dir) {
            Ok(()) => return Ok(dir),
            Err(e) if e.kind() == io::ErrorKind::AlreadyExists && n < 100 => n += 1,
            Err(e) => return Err(e),
        }
    }
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

    /// A file already there, readable by others, was truncated and written with its
    /// permissions kept: the key went into a file anyone could read.
    #[test]
    fn a_file_already_there_is_not_taken_as_private() {
        let dir = super::private_temp_dir("netarena-private-test").unwrap();
        let mode = |p: &std::path::Path| std::fs::metadata(p).unwrap().permissions().mode();
        assert_eq!(mode(&dir) & 0o777, 0o700);
        let open = dir.join("open");
        std::fs::write(&open, "").unwrap();
        std::fs::set_permissions(&open, std::fs::Permissions::from_mode(0o644)).unwrap();
        assert!(super::create_private(&open).is_err());
        assert!(super::append_private(&open).is_err());
        let link = dir.join("link");
        std::os::unix::fs::symlink(&open, &link).unwrap();
        assert!(super::append_private(&link).is_err());
        let fresh = dir.join("fresh");
        drop(super::append_private(&fresh).unwrap());
        assert_eq!(mode(&fresh) & 0o777, 0o600);
        drop(super::append_private(&fresh).unwrap());
        assert_eq!(mode(&open) & 0o777, 0o644, "left as it was");
        std::fs::remove_dir_all(&dir).unwrap();
    }
}
