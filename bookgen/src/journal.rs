//! The analysis journal: each search's result appended as soon as it is
//! known, so that an analysis killed at any moment resumes where it
//! stopped.
//!
//! Layout, little-endian:
//!
//! ```text
//! 8 bytes   magic "XQBJRNL\0"
//! u32       settings length, then the settings (engine, net, budget: text)
//! u32       CRC-32 of the settings
//! records of 24 bytes:
//!   u64 book key, i16 score, u16 best move (Move::to_u16; 0: none),
//!   u8 depth, u8 budget kind (0 nodes, 1 depth, 2 milliseconds),
//!   u32 budget, 2 bytes zero, u32 CRC-32 of the 20 bytes before it
//! ```
//!
//! The settings name the engine and the net; each record its own budget,
//! so that a run may search some positions deeper than others and keep
//! what earlier runs found.
//!
//! A record cut short or failing its checksum (the process was killed
//! while writing it) ends the journal: it and anything after it are
//! dropped when the journal is opened again, and the file is cut there
//! before new records are appended.

use std::fs::{File, OpenOptions};
use std::io::{Read, Write};
use std::path::{Path, PathBuf};

use xqbook::Searched;
use xqcore::Move;

use crate::budget::Budget;

/// A journal's results in the order they were written: a position's key,
/// its search and the budget (a position searched at several budgets has
/// a record for each).
pub type Results = Vec<(u64, Searched, Budget)>;

const MAGIC: &[u8; 8] = b"XQBJRNL\0";
const RECORD_LEN: usize = 24;

/// Why a journal cannot be used.
#[derive(Debug, thiserror::Error)]
pub enum JournalError {
    #[error("{path}: {source}", path = .path.display())]
    Io {
        path: PathBuf,
        source: std::io::Error,
    },
    /// Not a journal.
    #[error("{path}: not an analysis journal (remove it to start afresh)", path = .path.display())]
    Foreign { path: PathBuf },
    /// The journal of searches made otherwise: results are not mixed.
    #[error(
        "{path}: holds searches made with\n{theirs}not with\n{ours}\
         analyse with those settings to go on with it, or remove it to start afresh",
        path = .path.display()
    )]
    OtherSettings {
        path: PathBuf,
        theirs: String,
        ours: String,
    },
}

/// An open journal, appended to.
#[derive(Debug)]
pub struct Journal {
    path: PathBuf,
    file: File,
}

impl Journal {
    /// Opens the journal at `path` for searches made with `settings`,
    /// creating it if it is missing; returns it with the results it holds.
    ///
    /// # Errors
    ///
    /// The file cannot be read or written, is not a journal, or holds
    /// searches made with other settings.
    pub fn open(path: &Path, settings: &str) -> Result<(Journal, Results), JournalError> {
        let io = |source| JournalError::Io {
            path: path.to_path_buf(),
            source,
        };
        let mut file = OpenOptions::new()
            .read(true)
            .write(true)
            .create(true)
            .truncate(false)
            .open(path)
            .map_err(io)?;
        let mut bytes = Vec::new();
        file.read_to_end(&mut bytes).map_err(io)?;
        let head = header(settings);
        let (done, good_len) = if bytes.is_empty() {
            file.write_all(&head).map_err(io)?;
            (Vec::new(), head.len())
        } else {
            check_header(path, &bytes, settings)?;
            read_records(&bytes[head.len()..], head.len())
        };
        if good_len < bytes.len() {
            file.set_len(good_len as u64).map_err(io)?;
        }
        let file = OpenOptions::new().append(true).open(path).map_err(io)?;
        let journal = Journal {
            path: path.to_path_buf(),
            file,
        };
        Ok((journal, done))
    }

    /// Appends one search's result.
    ///
    /// # Errors
    ///
    /// The file cannot be written.
    pub fn append(
        &mut self,
        key: u64,
        searched: Searched,
        budget: Budget,
    ) -> Result<(), JournalError> {
        self.file
            .write_all(&record(key, searched, budget))
            .map_err(|source| JournalError::Io {
                path: self.path.clone(),
                source,
            })
    }
}

fn header(settings: &str) -> Vec<u8> {
    let mut out = MAGIC.to_vec();
    out.extend((settings.len() as u32).to_le_bytes());
    out.extend(settings.as_bytes());
    out.extend(crc32fast::hash(settings.as_bytes()).to_le_bytes());
    out
}

fn check_header(path: &Path, bytes: &[u8], settings: &str) -> Result<(), JournalError> {
    let foreign = || JournalError::Foreign {
        path: path.to_path_buf(),
    };
    if bytes.len() < 12 || &bytes[..8] != MAGIC {
        return Err(foreign());
    }
    let len = u32::from_le_bytes(bytes[8..12].try_into().expect("4 bytes")) as usize;
    let text = bytes.get(12..12 + len).ok_or_else(foreign)?;
    let crc = bytes.get(12 + len..16 + len).ok_or_else(foreign)?;
    if crc32fast::hash(text) != u32::from_le_bytes(crc.try_into().expect("4 bytes")) {
        return Err(foreign());
    }
    if text != settings.as_bytes() {
        return Err(JournalError::OtherSettings {
            path: path.to_path_buf(),
            theirs: String::from_utf8_lossy(text).into_owned(),
            ours: settings.to_string(),
        });
    }
    Ok(())
}

fn record(key: u64, s: Searched, budget: Budget) -> [u8; RECORD_LEN] {
    let mut r = [0u8; RECORD_LEN];
    r[0..8].copy_from_slice(&key.to_le_bytes());
    r[8..10].copy_from_slice(&s.score.to_le_bytes());
    r[10..12].copy_from_slice(&s.best.to_u16().to_le_bytes());
    r[12] = s.depth;
    let (kind, amount) = budget.encode();
    r[13] = kind;
    r[14..18].copy_from_slice(&amount.to_le_bytes());
    let crc = crc32fast::hash(&r[..20]);
    r[20..24].copy_from_slice(&crc.to_le_bytes());
    r
}

/// The good records of `bytes` (which start at `offset` in the file), and
/// the length of the file up to the last good one.
fn read_records(bytes: &[u8], offset: usize) -> (Results, usize) {
    let mut done = Vec::new();
    let mut good = 0;
    for r in bytes.chunks_exact(RECORD_LEN) {
        let crc = u32::from_le_bytes(r[20..24].try_into().expect("4 bytes"));
        let best = u16::from_le_bytes(r[10..12].try_into().expect("2 bytes"));
        let best = match best {
            0 => Some(Move::NULL),
            raw => Move::from_u16(raw),
        };
        let amount = u32::from_le_bytes(r[14..18].try_into().expect("4 bytes"));
        let budget = Budget::decode(r[13], amount);
        let (true, Some(best), Some(budget)) = (crc32fast::hash(&r[..20]) == crc, best, budget)
        else {
            break;
        };
        let key = u64::from_le_bytes(r[..8].try_into().expect("8 bytes"));
        let score = i16::from_le_bytes(r[8..10].try_into().expect("2 bytes"));
        let searched = Searched {
            score,
            best,
            depth: r[12],
        };
        done.push((key, searched, budget));
        good += RECORD_LEN;
    }
    (done, offset + good)
}

#[cfg(test)]
mod tests {
    use super::*;

    const NODES: Budget = Budget::Nodes(200_000);

    fn by_key(results: Results) -> std::collections::HashMap<u64, (Searched, Budget)> {
        results.into_iter().map(|(k, s, b)| (k, (s, b))).collect()
    }

    fn searched(i: u16) -> Searched {
        Searched {
            score: i as i16 - 50,
            best: Move::from_u16(i + 1 + (7 << 7)).unwrap(),
            depth: (i % 20) as u8,
        }
    }

    #[test]
    fn a_journal_cut_anywhere_keeps_every_whole_record() {
        let dir = tempfile::tempdir().unwrap();
        let path = dir.path().join("a.journal");
        let (mut j, done) = Journal::open(&path, "budget nodes 1\n").unwrap();
        assert!(done.is_empty());
        for i in 0..10 {
            j.append(u64::from(i) * 1000, searched(i), NODES).unwrap();
        }
        drop(j);
        let whole = std::fs::read(&path).unwrap();
        let head = whole.len() - 10 * RECORD_LEN;
        for cut in head..=whole.len() {
            std::fs::write(&path, &whole[..cut]).unwrap();
            let (mut j, done) = Journal::open(&path, "budget nodes 1\n").unwrap();
            let done = by_key(done);
            let whole_records = (cut - head) / RECORD_LEN;
            assert_eq!(done.len(), whole_records, "cut at {cut}");
            for i in 0..whole_records as u16 {
                assert_eq!(done[&(u64::from(i) * 1000)], (searched(i), NODES));
            }
            // What comes next is appended after the last whole record.
            j.append(77, searched(77), Budget::Depth(9)).unwrap();
            drop(j);
            let (_, again) = Journal::open(&path, "budget nodes 1\n").unwrap();
            let again = by_key(again);
            assert_eq!(again.len(), whole_records + 1);
            assert_eq!(again[&77], (searched(77), Budget::Depth(9)));
        }
    }

    #[test]
    fn a_garbled_record_ends_the_journal_and_other_settings_are_refused() {
        let dir = tempfile::tempdir().unwrap();
        let path = dir.path().join("b.journal");
        let (mut j, _) = Journal::open(&path, "budget depth 9\n").unwrap();
        for i in 0..3 {
            j.append(u64::from(i), searched(i), NODES).unwrap();
        }
        drop(j);
        let mut bytes = std::fs::read(&path).unwrap();
        let second = bytes.len() - 2 * RECORD_LEN;
        bytes[second + 3] ^= 1;
        std::fs::write(&path, &bytes).unwrap();
        let (_, done) = Journal::open(&path, "budget depth 9\n").unwrap();
        assert_eq!(done.len(), 1);
        let err = Journal::open(&path, "budget depth 10\n").unwrap_err();
        assert!(matches!(err, JournalError::OtherSettings { .. }), "{err}");
        assert!(err.to_string().contains("b.journal"), "{err}");
        std::fs::write(&path, b"something else entirely").unwrap();
        let err = Journal::open(&path, "budget depth 9\n").unwrap_err();
        assert!(matches!(err, JournalError::Foreign { .. }), "{err}");
    }
}
