//! The decompressed-block cache that all readers share: it stays within its
//! budget however many blocks and files are read, still returns the right
//! bytes, and lets go of a file's blocks when its reader closes. (A file of
//! its own: the cache is process-wide, so no other test may read beside it.)

use std::path::Path;

use xqstore::{cached_bytes, Kind, Reader, Writer, CACHE_BUDGET};

const KIND: Kind = Kind {
    magic: *b"XQCACHE\0",
    name: "cache test container",
    format_version: 1,
    key_scheme: 1,
};

const BLOCK: usize = 16 << 10;

/// Block `b` of file `f`: 16 KB that tell file and block apart.
fn raw(f: u64, b: u64) -> Vec<u8> {
    (0..BLOCK as u64)
        .map(|i| (i.wrapping_mul(2_654_435_761) ^ (f * 131 + b * 7)) as u8)
        .collect()
}

fn write(path: &Path, f: u64, blocks: u64) {
    let mut w = Writer::create(path, KIND, b"", 1).unwrap();
    for b in 0..blocks {
        w.add_block(b * 100, 100, &raw(f, b)).unwrap();
    }
    w.finish().unwrap();
}

#[test]
fn the_cache_keeps_its_budget_over_many_files_and_frees_a_closed_one() {
    let dir = tempfile::tempdir().unwrap();
    let blocks_each = (CACHE_BUDGET / BLOCK) as u64;
    let paths: Vec<_> = (0..3u64)
        .map(|f| {
            let path = dir.path().join(format!("{f}.bin"));
            write(&path, f, blocks_each);
            path
        })
        .collect();
    let readers: Vec<Reader> = paths
        .iter()
        .map(|p| Reader::open(p, KIND).unwrap())
        .collect();
    // Three budgets' worth of blocks, read twice over.
    for _ in 0..2 {
        for (f, r) in readers.iter().enumerate() {
            for b in 0..blocks_each {
                assert_eq!(*r.block(b as usize).unwrap(), *raw(f as u64, b));
                assert!(
                    cached_bytes() <= CACHE_BUDGET,
                    "{} bytes cached",
                    cached_bytes()
                );
            }
        }
    }
    assert_eq!(
        cached_bytes(),
        CACHE_BUDGET,
        "the cache fills to its budget"
    );
    // The budget is held by the last file read; closing it empties the cache.
    let mut readers = readers;
    readers.pop();
    assert_eq!(cached_bytes(), 0);
    assert_eq!(*readers[0].block(3).unwrap(), *raw(0, 3));
    assert_eq!(cached_bytes(), BLOCK);
}
