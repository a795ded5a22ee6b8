//! The temporary files writers fill before renaming them into place, and
//! the clean-up of those a killed writer left behind.
//!
//! A writer holds an exclusive lock on its temporary file for as long as it
//! writes; the operating system drops the lock when the process ends, however
//! it ends (`SIGKILL` included). So a temporary file nobody holds locked was
//! left by a writer that died, and the next writer into the same directory
//! removes it; one another live writer holds is left alone. A file is locked
//! before it gets its `.tmp` name, so no live writer's file is ever seen
//! unlocked under that name.

use std::fs::{self, File, OpenOptions};
use std::io;
use std::path::{Path, PathBuf};
use std::sync::atomic::{AtomicU64, Ordering};
use std::sync::Mutex;
use std::time::{Duration, SystemTime};

/// The name every temporary file starts with.
const PREFIX: &str = ".xqstore-";
/// The suffix of a locked temporary file being written.
const SUFFIX: &str = ".tmp";
/// The suffix of a file just created, not yet locked.
const NEW_SUFFIX: &str = ".new";
/// A `.new` file older than this was left by a writer killed between
/// creating and locking it: a window of microseconds.
const NEW_FILE_AGE: Duration = Duration::from_secs(60);

/// Temporary files of this process not yet renamed into place, for
/// [`remove_unfinished`].
static LIVE: Mutex<Vec<PathBuf>> = Mutex::new(Vec::new());

fn live() -> std::sync::MutexGuard<'static, Vec<PathBuf>> {
    LIVE.lock().unwrap_or_else(|e| e.into_inner())
}

/// A temporary file being written: removed when dropped unless renamed
/// into place by [`TempFile::persist`].
pub(crate) struct TempFile {
    path: PathBuf,
    persisted: bool,
}

impl TempFile {
    /// Creates a locked temporary file in `dir` and returns it with its
    /// open handle (the lock lasts as long as the handle).
    pub(crate) fn create(dir: &Path) -> io::Result<(TempFile, File)> {
        static COUNTER: AtomicU64 = AtomicU64::new(0);
        loop {
            let stem = format!(
                "{PREFIX}{}-{}-{}",
                std::process::id(),
                COUNTER.fetch_add(1, Ordering::Relaxed),
                SystemTime::now()
                    .duration_since(SystemTime::UNIX_EPOCH)
                    .map_or(0, |d| d.subsec_nanos())
            );
            let new = dir.join(format!("{stem}{NEW_SUFFIX}"));
            let file = match OpenOptions::new()
                .read(true)
                .write(true)
                .create_new(true)
                .open(&new)
            {
                Ok(f) => f,
                Err(e) if e.kind() == io::ErrorKind::AlreadyExists => continue,
                Err(e) => return Err(e),
            };
            let path = dir.join(format!("{stem}{SUFFIX}"));
            let locked = file.try_lock().map_err(io::Error::from);
            let renamed = locked.and_then(|()| {
                let mut live = live();
                fs::rename(&new, &path)?;
                live.push(path.clone());
                Ok(())
            });
            if let Err(e) = renamed {
                let _ = fs::remove_file(&new);
                return Err(e);
            }
            return Ok((
                TempFile {
                    path,
                    persisted: false,
                },
                file,
            ));
        }
    }

    /// The file's current path.
    pub(crate) fn path(&self) -> &Path {
        &self.path
    }

    /// Renames the file to `target`, replacing any file there.
    pub(crate) fn persist(mut self, target: &Path) -> io::Result<()> {
        let mut live = live();
        fs::rename(&self.path, target)?;
        live.retain(|p| *p != self.path);
        self.persisted = true;
        Ok(())
    }
}

impl Drop for TempFile {
    fn drop(&mut self) {
        if !self.persisted {
            let mut live = live();
            let _ = fs::remove_file(&self.path);
            live.retain(|p| *p != self.path);
        }
    }
}

/// Writes the file `target` whole or not at all: `fill` writes a locked
/// temporary file beside it (given by path, for writers such as SQLite
/// that open files themselves, and as an open handle), which is renamed
/// to `target` only when `fill` succeeds. On an error, a panic or an
/// interrupt (see [`remove_unfinished`]) the temporary file is removed
/// and whatever was at `target` stays as it was.
pub fn write_whole<T>(
    target: &Path,
    fill: impl FnOnce(&Path, &mut File) -> io::Result<T>,
) -> io::Result<T> {
    let dir = match target.parent() {
        Some(d) if !d.as_os_str().is_empty() => d,
        _ => Path::new("."),
    };
    remove_stale(dir);
    let (temp, mut file) = TempFile::create(dir)?;
    let value = fill(temp.path(), &mut file)?;
    file.sync_all()?;
    temp.persist(target)?;
    Ok(value)
}

/// Removes the temporary files in `dir` that writers killed before they
/// finished left behind; files of live writers, in this process or
/// another, are left alone. Returns how many were removed.
pub fn remove_stale(dir: &Path) -> usize {
    let Ok(entries) = fs::read_dir(dir) else {
        return 0;
    };
    let mut removed = 0;
    for entry in entries.flatten() {
        let name = entry.file_name();
        let Some(name) = name.to_str().filter(|n| n.starts_with(PREFIX)) else {
            continue;
        };
        let path = entry.path();
        let stale = if name.ends_with(SUFFIX) {
            unlocked(&path)
        } else if name.ends_with(NEW_SUFFIX) {
            older_than(&path, NEW_FILE_AGE) && unlocked(&path)
        } else {
            false
        };
        if stale && fs::remove_file(&path).is_ok() {
            removed += 1;
        }
    }
    removed
}

/// Whether nobody holds `path` locked (so its writer is gone).
fn unlocked(path: &Path) -> bool {
    File::open(path).is_ok_and(|f| f.try_lock().is_ok())
}

fn older_than(path: &Path, age: Duration) -> bool {
    fs::metadata(path)
        .and_then(|m| m.modified())
        .is_ok_and(|t| t.elapsed().is_ok_and(|e| e > age))
}

/// Removes every temporary file this process is writing: for an interrupt
/// handler, just before the process exits, so that `Ctrl-C` leaves nothing
/// behind. Writers still running afterwards fail to rename their files.
/// Returns how many were removed.
pub fn remove_unfinished() -> usize {
    let mut live = live();
    let removed = live.iter().filter(|p| fs::remove_file(p).is_ok()).count();
    live.clear();
    removed
}
