//! The commands of `egtbgen`, one module each, with the arguments each
//! takes: `main` parses the command line and hands it to one of them.

pub mod bench;
pub mod gen;
pub mod info;
pub mod plan;
pub mod probe;
mod selection;
pub mod verify;

use std::path::Path;

use xqcli::Failure;
use xqegtb::{Metric, Tablebase};

/// The tables of the directories in `paths`, separated by `;` (files open
/// on first probe).
///
/// # Errors
///
/// A directory that cannot be read, named.
fn tables_in(paths: &str) -> xqcli::Result<Tablebase> {
    let mut tb = Tablebase::new();
    for dir in directories(paths) {
        tb.add_dir(Path::new(dir))
            .map_err(|e| Failure::new(e).context(dir))?;
    }
    Ok(tb)
}

/// The directories of a `--path` option: separated by `;`, empty ones
/// left out.
fn directories(paths: &str) -> impl Iterator<Item = &str> {
    paths.split(';').filter(|d| !d.is_empty())
}

/// The metric of a table file, by its extension (the table file's, `dtm`,
/// when it names none).
fn metric_of(path: &Path) -> Metric {
    path.extension()
        .and_then(|x| x.to_str())
        .and_then(Metric::of_extension)
        .unwrap_or(Metric::Dtm)
}
