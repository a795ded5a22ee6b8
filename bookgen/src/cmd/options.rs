//! Options several subcommands take alike, and how they are read.

use std::path::{Path, PathBuf};
use std::sync::Arc;

use bookgen::obk::ObkKeys;
use xqcli::Failure;

/// BHGUI's key table, for reading or writing .obk books.
#[derive(clap::Args)]
pub struct ObkKeysArg {
    /// BHGUI's Zobrist key table, needed for .obk books: a text file of
    /// 3,585 numbers (the 14x256 piece-square keys, then the side key),
    /// checked against the start position's key. docs/serve.md says where
    /// to get it.
    #[arg(long, value_name = "FILE")]
    pub obk_keys: Option<PathBuf>,
}

impl ObkKeysArg {
    /// The key table, or why there is none (`purpose` says what needs it).
    pub fn load(&self, purpose: &str) -> xqcli::Result<ObkKeys> {
        let path = self.obk_keys.as_ref().ok_or_else(|| {
            Failure::new(format!(
                "{purpose} needs --obk-keys FILE, BHGUI's key table (see docs/serve.md)"
            ))
        })?;
        Ok(ObkKeys::read(path)?)
    }
}

/// The net a command asks for: a file, `builtin` or `hce` (none).
pub fn net_option(net: &Path) -> xqcli::Result<Option<Arc<xqnnue::Network>>> {
    Ok(match net.to_str() {
        Some("hce") => None,
        Some("builtin") => Some(Arc::new(xqnnue::Network::embedded().clone())),
        // The net's errors do not name the file.
        _ => Some(Arc::new(
            xqnnue::Network::load(net).map_err(|e| Failure::from(e).context(net.display()))?,
        )),
    })
}

/// A count that 0 would make meaningless (a search depth, a number of
/// positions, threads, shards): 1 or more, refused at 0 with a message
/// that says so.
pub fn at_least_one<T>(text: &str) -> Result<T, String>
where
    T: std::str::FromStr + PartialOrd + From<u8>,
    T::Err: std::fmt::Display,
{
    let n: T = text.parse().map_err(|e: T::Err| e.to_string())?;
    if n < T::from(1) {
        return Err("must be 1 or more".into());
    }
    Ok(n)
}

/// The threads asked for, or every core.
pub fn all_cores(threads: Option<usize>) -> usize {
    threads.unwrap_or_else(|| std::thread::available_parallelism().map_or(1, |n| n.get()))
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn a_net_that_cannot_be_read_is_named() {
        let missing = Path::new("/nonexistent/net.xqnn");
        let failure = net_option(missing).unwrap_err();
        assert!(
            failure
                .message()
                .starts_with("/nonexistent/net.xqnn: cannot read: "),
            "{failure}"
        );
        assert!(net_option(Path::new("hce")).unwrap().is_none());
    }
}
