//! Files the program creates, written so that a crash at any instruction
//! leaves either the old file (or none) or the whole new one, never a
//! truncated one: the bytes go to a temporary file in the same directory,
//! which is synced, then moved into place, then the directory is synced so
//! the move itself survives a power loss (issue #17, "First start").

use std::fs;
use std::io::Write as _;
use std::path::{Path, PathBuf};

/// A temporary name beside `path`, unique to this process and call.
fn temp_beside(path: &Path) -> PathBuf {
    let mut rnd = [0u8; 6];
    // Uniqueness rests on create_new; the random part only avoids retries.
    let _ = getrandom::fill(&mut rnd);
    let name = path
        .file_name()
        .map(|n| n.to_string_lossy().into_owned())
        .unwrap_or_default();
    path.with_file_name(format!(
        ".{name}.{}.{}.tmp",
        std::process::id(),
        hex::encode(rnd)
    ))
}

/// Writes `bytes` to a new temporary file beside `path` (with `mode` on
/// Unix) and syncs it. The caller moves it into place.
fn write_temp(path: &Path, bytes: &[u8], mode: Option<u32>) -> std::io::Result<PathBuf> {
    let tmp = temp_beside(path);
    let mut options = fs::OpenOptions::new();
    options.write(true).create_new(true);
    #[cfg(unix)]
    if let Some(mode) = mode {
        use std::os::unix::fs::OpenOptionsExt;
        options.mode(mode);
    }
    #[cfg(not(unix))]
    let _ = mode;
    let written = options.open(&tmp).and_then(|mut f| {
        f.write_all(bytes)?;
        f.sync_all()
    });
    match written {
        Ok(()) => Ok(tmp),
        Err(e) => {
            let _ = fs::remove_file(&tmp);
            Err(e)
        }
    }
}

/// Syncs the directory holding `path`, so a rename or link into it is
/// durable. Best effort: not every platform can open a directory.
pub fn sync_parent(path: &Path) {
    let dir = match path.parent() {
        Some(d) if !d.as_os_str().is_empty() => d,
        _ => Path::new("."),
    };
    if let Ok(d) = fs::File::open(dir) {
        let _ = d.sync_all();
    }
}

/// Writes `bytes` to `path` atomically, replacing what is there.
pub fn write_atomic(path: &Path, bytes: &[u8], mode: Option<u32>) -> std::io::Result<()> {
    let tmp = write_temp(path, bytes, mode)?;
    if let Err(e) = fs::rename(&tmp, path) {
        let _ = fs::remove_file(&tmp);
        return Err(e);
    }
    sync_parent(path);
    Ok(())
}

/// Writes `bytes` to `path` atomically only if `path` does not exist yet:
/// `Ok(true)` when this call created it, `Ok(false)` when another process
/// (or an earlier run) already had, in which case nothing was changed. The
/// complete temporary file is hard-linked into place, which fails rather
/// than replaces.
pub fn create_atomic(path: &Path, bytes: &[u8], mode: Option<u32>) -> std::io::Result<bool> {
    let tmp = write_temp(path, bytes, mode)?;
    let linked = fs::hard_link(&tmp, path);
    let _ = fs::remove_file(&tmp);
    match linked {
        Ok(()) => {
            sync_parent(path);
            Ok(true)
        }
        Err(e) if e.kind() == std::io::ErrorKind::AlreadyExists => Ok(false),
        Err(e) => Err(e),
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn write_atomic_replaces_and_leaves_no_temporary_file() {
        let dir = tempfile::tempdir().unwrap();
        let p = dir.path().join("f.txt");
        write_atomic(&p, b"one", None).unwrap();
        write_atomic(&p, b"two", Some(0o600)).unwrap();
        assert_eq!(fs::read(&p).unwrap(), b"two");
        let names: Vec<_> = fs::read_dir(dir.path()).unwrap().collect();
        assert_eq!(names.len(), 1);
    }

    #[test]
    fn create_atomic_never_replaces() {
        let dir = tempfile::tempdir().unwrap();
        let p = dir.path().join("key");
        assert!(create_atomic(&p, b"first", Some(0o600)).unwrap());
        assert!(!create_atomic(&p, b"second", Some(0o600)).unwrap());
        assert_eq!(fs::read(&p).unwrap(), b"first");
        assert_eq!(fs::read_dir(dir.path()).unwrap().count(), 1);
        #[cfg(unix)]
        {
            use std::os::unix::fs::PermissionsExt;
            let mode = fs::metadata(&p).unwrap().permissions().mode() & 0o777;
            assert_eq!(mode, 0o600);
        }
    }
}
