//! Where the programs find the data the project ships (feature `data`):
//! the default book and the default table directory, looked for under the
//! working directory and then beside the executable, and the `--tables`
//! option the tools share. This is the tools' policy, not the libraries':
//! the engine's library plays from the files it is given, and its binary
//! gives it these.

use std::path::{Path, PathBuf};
use std::sync::Arc;

use xqegtb::Tablebase;

/// The default book, relative to the repository (or the working directory).
const DEFAULT_BOOK: &str = "data/book.xqb";

/// The default table directory, relative to the repository (or the working
/// directory).
const DEFAULT_EGTB_DIR: &str = "data/egtb";

/// The default book: data/book.xqb under the working directory, or under
/// the directory of the executable or its ancestors (a build tree's
/// `target/release` finds the repository's data/).
pub fn default_book() -> Option<PathBuf> {
    find(DEFAULT_BOOK, Path::is_file)
}

/// The default table directory: data/egtb, found as the default book is.
pub fn default_egtb_dir() -> Option<PathBuf> {
    find(DEFAULT_EGTB_DIR, Path::is_dir)
}

/// `relative` (a path under the repository, like data/book.xqb) under the
/// working directory, else under the executable's directory or one of its
/// four nearest ancestors: the first that `accept`s.
fn find(relative: &str, accept: fn(&Path) -> bool) -> Option<PathBuf> {
    let cwd = PathBuf::from(relative);
    if accept(&cwd) {
        return Some(cwd);
    }
    let exe = std::env::current_exe().ok()?;
    exe.ancestors()
        .skip(1)
        .take(4)
        .map(|dir| dir.join(relative))
        .find(|p| accept(p))
}

/// A table directory that cannot be read.
#[derive(Debug)]
pub struct TablesError {
    /// The directory named.
    pub dir: PathBuf,
    /// Why it cannot be read.
    pub source: std::io::Error,
}

impl std::fmt::Display for TablesError {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        write!(f, "{}: {}", self.dir.display(), self.source)
    }
}

impl std::error::Error for TablesError {
    fn source(&self) -> Option<&(dyn std::error::Error + 'static)> {
        Some(&self.source)
    }
}

/// The tables a tool's `--tables` option names: `none` for none, a
/// directory, or (no option) the default directory when there is one.
/// Returns the tables with the directory they came from.
///
/// # Errors
///
/// The directory cannot be read; the error names it.
pub fn open_tables_option(
    option: Option<&Path>,
) -> Result<Option<(Arc<Tablebase>, PathBuf)>, TablesError> {
    let dir = match option {
        Some(dir) if dir.as_os_str() == "none" => return Ok(None),
        Some(dir) => dir.to_path_buf(),
        None => match default_egtb_dir() {
            Some(dir) => dir,
            None => return Ok(None),
        },
    };
    let mut tb = Tablebase::new();
    if let Err(source) = tb.add_dir(&dir) {
        return Err(TablesError { dir, source });
    }
    Ok(Some((Arc::new(tb), dir)))
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn none_opens_no_tables_and_a_missing_directory_is_named() {
        assert!(open_tables_option(Some(Path::new("none")))
            .unwrap()
            .is_none());
        let err = open_tables_option(Some(Path::new("/no/such/tables"))).unwrap_err();
        assert!(err.to_string().starts_with("/no/such/tables: "), "{err}");
    }

    #[test]
    fn the_shipped_book_is_found_from_the_repository() {
        // Tests run in the crate's directory; the executable lies under
        // the workspace's target/, whose parent holds data/.
        let book = default_book().expect("data/book.xqb above the test binary");
        assert!(book.ends_with(DEFAULT_BOOK), "{}", book.display());
    }
}
