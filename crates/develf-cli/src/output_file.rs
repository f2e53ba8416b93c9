//! Writing an output file so that it is either untouched or complete: the
//! bytes go to a temporary file beside it, which then takes its place.
//!
//! nvlink opens its output and writes into it; a name that stands for
//! something else than a file of its own is treated as nvlink treats it
//! (session 24, sweep7): a symlink is followed (the file it names is
//! replaced, the link stays), and a device or FIFO (`-o /dev/null`), a file
//! with other hard links, and a file whose directory takes no new entries
//! are written in place. An existing file develf may not write is an error,
//! as for nvlink, not replaced; a replaced file keeps its permissions.

use std::io::Write as _;
use std::path::Path;
use std::sync::atomic::{AtomicU64, Ordering};

static TEMP_COUNTER: AtomicU64 = AtomicU64::new(0);

/// Writes `bytes` to `path` through a temporary file in the same directory:
/// `path` is either untouched or complete.
pub fn write_atomically(path: &Path, bytes: &[u8]) -> std::io::Result<()> {
    write_atomically_with(path, |f| f.write_all(bytes))
}

/// [`write_atomically`], the contents written by `fill` (through a buffer)
/// into the temporary file: `path` is either untouched or complete.
pub fn write_atomically_with(
    path: &Path,
    fill: impl FnOnce(&mut dyn std::io::Write) -> std::io::Result<()>,
) -> std::io::Result<()> {
    write_atomically_to_file(path, |f| {
        let mut w = std::io::BufWriter::with_capacity(1 << 16, f);
        fill(&mut w)?;
        w.flush()
    })
}

/// [`write_atomically`], `fill` writing the temporary file as it likes
/// (positional writes from several threads included).
pub fn write_atomically_to_file(
    path: &Path,
    fill: impl FnOnce(&std::fs::File) -> std::io::Result<()>,
) -> std::io::Result<()> {
    let path = &followed(path);
    let existing = std::fs::metadata(path).ok();
    if let Some(m) = &existing {
        if m.is_dir() {
            return Err(std::io::Error::new(std::io::ErrorKind::IsADirectory, "the output path is a directory"));
        }
        if !m.is_file() {
            return fill(&open_truncated(path)?);
        }
        // What nvlink's open would refuse (a read-only file), refused here too.
        drop(std::fs::OpenOptions::new().write(true).open(path)?);
        if shares_its_data(m) {
            return write_in_place(path, fill);
        }
    }
    let dir = match path.parent() {
        Some(p) if !p.as_os_str().is_empty() => p,
        _ => Path::new("."),
    };
    let Some(file_name) = path.file_name() else {
        return Err(std::io::Error::new(std::io::ErrorKind::InvalidInput, "the output path names no file"));
    };
    let unique = TEMP_COUNTER.fetch_add(1, Ordering::Relaxed);
    let temp = dir.join(format!(".{}.develf-{}-{unique}.tmp", file_name.to_string_lossy(), std::process::id()));
    let created = std::fs::OpenOptions::new().write(true).create_new(true).open(&temp);
    let file = match created {
        Ok(file) => file,
        // A directory that takes no new entries, with the file already there.
        Err(e) if e.kind() == std::io::ErrorKind::PermissionDenied && existing.is_some() => {
            return write_in_place(path, fill);
        }
        Err(e) => return Err(e),
    };
    let result = fill(&file)
        .and_then(|()| match &existing {
            Some(m) => file.set_permissions(m.permissions()),
            None => Ok(()),
        })
        .and_then(|()| replace(&temp, path));
    if result.is_err() {
        let _ = std::fs::remove_file(&temp);
    }
    result
}

/// `path` with its symlinks followed, as far as they lead (a dangling
/// link's target is where nvlink would create the file; 40 links at most).
fn followed(path: &Path) -> std::path::PathBuf {
    let mut at = path.to_path_buf();
    for _ in 0..40 {
        let Ok(target) = std::fs::read_link(&at) else { break };
        at = match at.parent() {
            Some(dir) if target.is_relative() => dir.join(target),
            _ => target,
        };
    }
    at
}

/// Whether a regular file has other names (hard links), which a rename
/// would leave with the old contents.
fn shares_its_data(m: &std::fs::Metadata) -> bool {
    #[cfg(unix)]
    {
        use std::os::unix::fs::MetadataExt;
        m.nlink() > 1
    }
    #[cfg(not(unix))]
    {
        let _ = m;
        false
    }
}

/// `path` opened for writing from its start, as nvlink opens its output:
/// how a device (`-o /dev/null`) is written.
fn open_truncated(path: &Path) -> std::io::Result<std::fs::File> {
    std::fs::OpenOptions::new().write(true).truncate(true).open(path)
}

/// Writes into the existing regular file `path`, as nvlink does: the
/// finished bytes come from a temporary file in the system's temporary
/// directory, copied in once `fill` is done. The output may be one of the
/// link's inputs, whose mapped pages `fill` still reads and truncating
/// would pull away (`-o a.cubin a.cubin` with a hard link to `a.cubin`).
fn write_in_place(path: &Path, fill: impl FnOnce(&std::fs::File) -> std::io::Result<()>) -> std::io::Result<()> {
    let unique = TEMP_COUNTER.fetch_add(1, Ordering::Relaxed);
    let staging = std::env::temp_dir().join(format!(".develf-{}-{unique}.tmp", std::process::id()));
    let result = (|| {
        let mut file = std::fs::OpenOptions::new().read(true).write(true).create_new(true).open(&staging)?;
        fill(&file)?;
        std::io::Seek::seek(&mut file, std::io::SeekFrom::Start(0))?;
        std::io::copy(&mut file, &mut open_truncated(path)?).map(drop)
    })();
    let _ = std::fs::remove_file(&staging);
    result
}

/// Puts the complete file `temp` in `path`'s place, in one step.
///
/// An existing regular file is swapped with `temp` (Linux's
/// `RENAME_EXCHANGE`), then removed under `temp`'s name. A plain rename
/// over an existing file makes ext4 write the new file's data out at once
/// (its `auto_da_alloc` guard for programs that rename without `fsync`):
/// 20-40 ms for a 20 MB cubin, a quarter of a big link, spent waiting on
/// the disk. Like ld.bfd and mold, which also write a new file rather than
/// rename over the old one, develf leaves syncing to the system. Elsewhere,
/// and when swapping fails, it is a rename.
fn replace(temp: &Path, path: &Path) -> std::io::Result<()> {
    #[cfg(all(target_os = "linux", target_env = "gnu"))]
    if std::fs::symlink_metadata(path).is_ok_and(|m| m.file_type().is_file()) && exchange(temp, path).is_ok() {
        // `temp` names the old file now. Should removing it fail, the output
        // is still in place; only a hidden stale file is left.
        let _ = std::fs::remove_file(temp);
        return Ok(());
    }
    std::fs::rename(temp, path)
}

/// Swaps the files `a` and `b` name, atomically (`renameat2` with
/// `RENAME_EXCHANGE`); fails where the file system cannot.
#[cfg(all(target_os = "linux", target_env = "gnu"))]
#[allow(unsafe_code)]
fn exchange(a: &Path, b: &Path) -> std::io::Result<()> {
    use std::os::unix::ffi::OsStrExt;
    let a = std::ffi::CString::new(a.as_os_str().as_bytes())?;
    let b = std::ffi::CString::new(b.as_os_str().as_bytes())?;
    // SAFETY: both arguments are NUL-terminated strings that outlive the
    // call; renameat2 only reads them.
    let status =
        unsafe { libc::renameat2(libc::AT_FDCWD, a.as_ptr(), libc::AT_FDCWD, b.as_ptr(), libc::RENAME_EXCHANGE) };
    if status == 0 { Ok(()) } else { Err(std::io::Error::last_os_error()) }
}

#[cfg(test)]
#[allow(clippy::unwrap_used)] // a failing unwrap is a failing test
mod tests {
    use super::*;

    fn scratch(name: &str) -> std::path::PathBuf {
        let dir = std::env::temp_dir().join(format!("develf-output-file-{name}-{}", std::process::id()));
        let _ = std::fs::remove_dir_all(&dir);
        std::fs::create_dir_all(&dir).unwrap();
        dir
    }

    fn entries(dir: &Path) -> Vec<String> {
        let mut names: Vec<String> =
            std::fs::read_dir(dir).unwrap().map(|e| e.unwrap().file_name().to_string_lossy().into_owned()).collect();
        names.sort();
        names
    }

    #[test]
    fn an_existing_file_is_replaced_and_nothing_else_is_left() {
        let dir = scratch("replace");
        let out = dir.join("out.cubin");
        std::fs::write(&out, b"old contents").unwrap();
        write_atomically(&out, b"new").unwrap();
        assert_eq!(std::fs::read(&out).unwrap(), b"new");
        assert_eq!(entries(&dir), ["out.cubin"]);
        write_atomically(&dir.join("fresh.cubin"), b"made").unwrap();
        assert_eq!(std::fs::read(dir.join("fresh.cubin")).unwrap(), b"made");
        assert_eq!(entries(&dir), ["fresh.cubin", "out.cubin"]);
        std::fs::remove_dir_all(&dir).unwrap();
    }

    #[test]
    fn a_failed_write_leaves_the_old_file_and_no_temporary() {
        let dir = scratch("fail");
        let out = dir.join("out.cubin");
        std::fs::write(&out, b"old contents").unwrap();
        let failed = write_atomically_with(&out, |w| {
            w.write_all(b"partial")?;
            Err(std::io::Error::other("the link failed"))
        });
        assert!(failed.is_err());
        assert_eq!(std::fs::read(&out).unwrap(), b"old contents");
        assert_eq!(entries(&dir), ["out.cubin"]);
        std::fs::remove_dir_all(&dir).unwrap();
    }

    #[test]
    fn a_directory_in_the_way_is_an_error_and_stays() {
        let dir = scratch("dir");
        let out = dir.join("out.cubin");
        std::fs::create_dir(&out).unwrap();
        std::fs::write(out.join("inside"), b"kept").unwrap();
        assert!(write_atomically(&out, b"new").is_err());
        assert_eq!(std::fs::read(out.join("inside")).unwrap(), b"kept");
        assert_eq!(entries(&dir), ["out.cubin"]);
        std::fs::remove_dir_all(&dir).unwrap();
    }

    #[cfg(unix)]
    #[test]
    fn a_symlink_is_followed_as_nvlink_does() {
        let dir = scratch("link");
        let target = dir.join("target.cubin");
        std::fs::write(&target, b"target").unwrap();
        let out = dir.join("out.cubin");
        std::os::unix::fs::symlink("target.cubin", &out).unwrap();
        write_atomically(&out, b"new").unwrap();
        assert!(std::fs::symlink_metadata(&out).unwrap().file_type().is_symlink());
        assert_eq!(std::fs::read(&target).unwrap(), b"new");
        // A dangling link: its target is created.
        let dangling = dir.join("dangling.cubin");
        std::os::unix::fs::symlink("made.cubin", &dangling).unwrap();
        write_atomically(&dangling, b"made").unwrap();
        assert_eq!(std::fs::read(dir.join("made.cubin")).unwrap(), b"made");
        std::fs::remove_dir_all(&dir).unwrap();
    }

    /// A device (`-o /dev/null`) stays a device: written into, not replaced.
    #[cfg(unix)]
    #[test]
    fn a_device_is_written_into() {
        write_atomically(Path::new("/dev/null"), b"discarded").unwrap();
        assert!(!std::fs::symlink_metadata("/dev/null").unwrap().file_type().is_file());
    }

    /// An output written in place that is also an input: what `fill` reads
    /// of it while writing is still the input (the link's inputs are mapped).
    #[cfg(unix)]
    #[test]
    fn an_input_written_in_place_is_read_whole_first() {
        let dir = scratch("inplace");
        let out = dir.join("out.cubin");
        std::fs::write(&out, b"input bytes").unwrap();
        std::fs::hard_link(&out, dir.join("other.cubin")).unwrap();
        write_atomically_to_file(&out, |f| {
            let input = std::fs::read(&out)?;
            std::os::unix::fs::FileExt::write_all_at(f, &input.to_ascii_uppercase(), 0)
        })
        .unwrap();
        assert_eq!(std::fs::read(dir.join("other.cubin")).unwrap(), b"INPUT BYTES");
        std::fs::remove_dir_all(&dir).unwrap();
    }

    /// Every name of a hard-linked output sees the new contents, as with
    /// nvlink; a replaced file keeps its permissions.
    #[cfg(unix)]
    #[test]
    fn hard_links_and_permissions_are_kept() {
        use std::os::unix::fs::PermissionsExt;
        let dir = scratch("hard");
        let out = dir.join("out.cubin");
        std::fs::write(&out, b"old").unwrap();
        std::fs::hard_link(&out, dir.join("other.cubin")).unwrap();
        write_atomically(&out, b"new").unwrap();
        assert_eq!(std::fs::read(dir.join("other.cubin")).unwrap(), b"new");
        let single = dir.join("single.cubin");
        std::fs::write(&single, b"old").unwrap();
        std::fs::set_permissions(&single, std::fs::Permissions::from_mode(0o640)).unwrap();
        write_atomically(&single, b"new").unwrap();
        assert_eq!(std::fs::metadata(&single).unwrap().permissions().mode() & 0o777, 0o640);
        assert_eq!(std::fs::read(&single).unwrap(), b"new");
        std::fs::remove_dir_all(&dir).unwrap();
    }
}
