//! Sharding: one machine's part of a book's positions, split by key,
//! searched into a journal of its own ([`Shard::journal`]); the run
//! without a shard then folds every shard's journal into its own
//! ([`merge_shards`]) before it grows the book and writes the analysis.

use std::path::{Path, PathBuf};

use xqbook::Searched;

use crate::budget::Budget;
use crate::error::AnalyseError;
use crate::journal::Journal;

/// One of `count` parts of a book's positions, split by key: shard `index`
/// holds the positions whose book key leaves `index` divided by `count`.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub struct Shard {
    pub index: u32,
    pub count: u32,
}

impl std::str::FromStr for Shard {
    type Err = String;

    /// `I/N`, `I` from 0 to `N - 1`.
    fn from_str(s: &str) -> Result<Shard, String> {
        let bad = || format!("`{s}`: a shard is I/N with I from 0 to N-1, e.g. 0/8");
        let (i, n) = s.split_once('/').ok_or_else(bad)?;
        let (index, count): (u32, u32) =
            (i.parse().map_err(|_| bad())?, n.parse().map_err(|_| bad())?);
        if index >= count {
            return Err(bad());
        }
        Ok(Shard { index, count })
    }
}

impl Shard {
    pub(super) fn holds(self, key: u64) -> bool {
        key % u64::from(self.count) == u64::from(self.index)
    }

    /// The journal of this shard of the analysis written to `output`.
    pub fn journal(self, output: &Path) -> PathBuf {
        let mut name = output.as_os_str().to_owned();
        name.push(format!(".shard-{}-of-{}.journal", self.index, self.count));
        PathBuf::from(name)
    }
}

/// Folds the journals of the shards of the analysis written to `output`
/// (those beside it) into `journal` and `searched`, then removes them.
pub(super) fn merge_shards(
    output: &Path,
    settings: &str,
    journal: &mut Journal,
    done: &mut Vec<(u64, Searched, Budget)>,
) -> Result<(), AnalyseError> {
    for path in shard_journals(output) {
        let (_, results) = Journal::open(&path, settings)?;
        for &(key, searched, budget) in &results {
            journal.append(key, searched, budget)?;
        }
        done.extend(results);
        std::fs::remove_file(&path).map_err(|source| AnalyseError::Io { path, source })?;
    }
    Ok(())
}

/// The shard journals beside `output`, in name order.
fn shard_journals(output: &Path) -> Vec<PathBuf> {
    let dir = match output.parent() {
        Some(d) if !d.as_os_str().is_empty() => d.to_path_buf(),
        _ => PathBuf::from("."),
    };
    let Some(name) = output.file_name().map(|n| n.to_string_lossy().into_owned()) else {
        return Vec::new();
    };
    let prefix = format!("{name}.shard-");
    let mut out: Vec<PathBuf> = std::fs::read_dir(&dir)
        .into_iter()
        .flatten()
        .filter_map(|e| e.ok().map(|e| e.path()))
        .filter(|p| {
            p.file_name()
                .map(|n| n.to_string_lossy())
                .is_some_and(|n| n.starts_with(&prefix) && n.ends_with(".journal"))
        })
        .collect();
    out.sort();
    out
}
