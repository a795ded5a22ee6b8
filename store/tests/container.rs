//! Round trips and damaged files for the block container.

use std::fs;
use std::path::Path;

use xqstore::{Kind, Layout, Reader, StoreError, Writer, HEADER_LEN};

const KIND: Kind = Kind {
    magic: *b"XQTEST\0\0",
    name: "test container",
    format_version: 2,
    key_scheme: 5,
};

/// Blocks of varied sizes whose bytes depend on the block number.
fn blocks() -> Vec<(u64, u32, Vec<u8>)> {
    (0..7u64)
        .map(|b| {
            let len = (b as usize * 37) % 200;
            let raw: Vec<u8> = (0..len).map(|i| (i as u64 * 31 + b * 7) as u8).collect();
            (b * 1000 + 5, len as u32 / 4, raw)
        })
        .collect()
}

fn write(path: &Path, meta: &[u8]) -> u64 {
    let mut w = Writer::create(path, KIND, meta, 3).unwrap();
    for (key, records, raw) in blocks() {
        w.add_block(key, records, &raw).unwrap();
    }
    w.finish().unwrap()
}

/// Opens the file and reads every block: the whole of what a reader checks.
fn read_all(path: &Path) -> Result<(Vec<u8>, Vec<Vec<u8>>), StoreError> {
    let r = Reader::open(path, KIND)?;
    let blocks = (0..r.index().len())
        .map(|i| r.block(i).map(|b| b.to_vec()))
        .collect::<Result<_, _>>()?;
    Ok((r.meta().to_vec(), blocks))
}

#[test]
fn blocks_and_metadata_round_trip() {
    let dir = tempfile::tempdir().unwrap();
    let path = dir.path().join("t.bin");
    let len = write(&path, b"meta data");
    assert_eq!(fs::metadata(&path).unwrap().len(), len);
    let (meta, got) = read_all(&path).unwrap();
    assert_eq!(meta, b"meta data");
    let want: Vec<Vec<u8>> = blocks().into_iter().map(|b| b.2).collect();
    assert_eq!(got, want);
    let r = Reader::open(&path, KIND).unwrap();
    let records: u64 = blocks().iter().map(|b| u64::from(b.1)).sum();
    assert_eq!(r.header().record_count, records);
    // Cached reads give the same bytes again.
    for i in (0..7).rev() {
        assert_eq!(r.block(i).unwrap().to_vec(), want[i]);
    }
}

#[test]
fn the_layout_tiles_the_file_whatever_its_payload() {
    let dir = tempfile::tempdir().unwrap();
    let path = dir.path().join("t.bin");
    let len = write(&path, b"meta data");
    let layout = Layout::read(&path).unwrap();
    assert_eq!(layout.meta, HEADER_LEN as u64..HEADER_LEN as u64 + 9);
    assert_eq!(layout.blocks.len(), blocks().len());
    // Header, metadata, the blocks back to back, the index: every byte once.
    let mut at = layout.meta.end;
    for block in &layout.blocks {
        assert_eq!(block.start, at);
        at = block.end;
    }
    assert_eq!(layout.index, at..len);
    let ends: Vec<u64> = layout.block_ends().collect();
    assert_eq!(ends.last(), Some(&layout.index.start));
    // An open reader gives the same layout, and a payload of another kind
    // (which a reader of KIND refuses) is laid out all the same.
    assert_eq!(Reader::open(&path, KIND).unwrap().layout(), layout);
    let other = Kind {
        magic: *b"XQOTHER\0",
        ..KIND
    };
    let other_path = dir.path().join("other.bin");
    let mut w = Writer::create(&other_path, other, b"", 1).unwrap();
    w.add_block(1, 1, b"one record").unwrap();
    w.finish().unwrap();
    assert!(Reader::open(&other_path, KIND).is_err());
    assert_eq!(Layout::read(&other_path).unwrap().blocks.len(), 1);
    // A damaged index is refused, naming the file.
    let mut bytes = fs::read(&path).unwrap();
    bytes[layout.index.start as usize + 1] ^= 1;
    fs::write(&path, &bytes).unwrap();
    let e = Layout::read(&path).unwrap_err();
    assert!(matches!(e, StoreError::Corrupt { .. }), "{e}");
    assert!(e.to_string().contains("t.bin"), "{e}");
}

#[test]
fn block_for_finds_the_last_block_starting_at_or_below_a_key() {
    let dir = tempfile::tempdir().unwrap();
    let path = dir.path().join("t.bin");
    write(&path, b"");
    let r = Reader::open(&path, KIND).unwrap();
    assert_eq!(r.block_for(0), None);
    assert_eq!(r.block_for(4), None);
    assert_eq!(r.block_for(5), Some(0));
    assert_eq!(r.block_for(1004), Some(0));
    assert_eq!(r.block_for(1005), Some(1));
    assert_eq!(r.block_for(u64::MAX), Some(6));
}

#[test]
fn every_flipped_byte_is_refused_somewhere() {
    let dir = tempfile::tempdir().unwrap();
    let path = dir.path().join("t.bin");
    write(&path, b"some meta");
    let good = fs::read(&path).unwrap();
    let bad = dir.path().join("bad.bin");
    for at in 0..good.len() {
        let mut bytes = good.clone();
        bytes[at] ^= 0x5a;
        fs::write(&bad, &bytes).unwrap();
        assert!(read_all(&bad).is_err(), "byte {at} flipped went unnoticed");
    }
}

#[test]
fn check_blocks_finds_every_flipped_block_byte_without_reading_the_blocks() {
    let dir = tempfile::tempdir().unwrap();
    let path = dir.path().join("t.bin");
    write(&path, b"some meta");
    let good = fs::read(&path).unwrap();
    Reader::open(&path, KIND).unwrap().check_blocks().unwrap();
    let reader = Reader::open(&path, KIND).unwrap();
    let (start, end) = (
        reader.index()[0].offset as usize,
        reader.header().index_offset as usize,
    );
    let bad = dir.path().join("bad.bin");
    for at in start..end {
        let mut bytes = good.clone();
        bytes[at] ^= 0x5a;
        fs::write(&bad, &bytes).unwrap();
        let err = Reader::open(&bad, KIND)
            .unwrap()
            .check_blocks()
            .unwrap_err();
        assert!(err.to_string().contains("bad.bin"), "{err}");
    }
}

#[test]
fn every_truncation_is_refused_at_open() {
    let dir = tempfile::tempdir().unwrap();
    let path = dir.path().join("t.bin");
    write(&path, b"m");
    let good = fs::read(&path).unwrap();
    let bad = dir.path().join("short.bin");
    for len in 0..good.len() {
        fs::write(&bad, &good[..len]).unwrap();
        match Reader::open(&bad, KIND) {
            Err(StoreError::Truncated { actual, .. }) => assert_eq!(actual, len as u64),
            // A cut inside the header's own bytes breaks its magic or checksum.
            Err(StoreError::Foreign { .. }) | Err(StoreError::Corrupt { .. }) if len < 64 => {}
            other => panic!("length {len}: {other:?}"),
        }
    }
    // Trailing garbage is refused too.
    let mut long = good.clone();
    long.push(0);
    fs::write(&bad, &long).unwrap();
    assert!(matches!(
        Reader::open(&bad, KIND),
        Err(StoreError::Corrupt { .. })
    ));
}

#[test]
fn foreign_files_and_other_versions_are_refused_with_their_reason() {
    let dir = tempfile::tempdir().unwrap();
    let path = dir.path().join("t.bin");
    write(&path, b"");
    let other = Kind {
        magic: *b"XQOTHER\0",
        ..KIND
    };
    let err = Reader::open(&path, other).unwrap_err();
    assert!(matches!(err, StoreError::Foreign { .. }));
    assert!(err.to_string().contains("t.bin"), "{err}");
    let newer = Kind {
        format_version: 3,
        ..KIND
    };
    let err = Reader::open(&path, newer).unwrap_err();
    assert!(
        matches!(
            err,
            StoreError::Version {
                what: "format",
                found: 2,
                supported: 3,
                ..
            }
        ),
        "{err}"
    );
    let keys = Kind {
        key_scheme: 6,
        ..KIND
    };
    assert!(matches!(
        Reader::open(&path, keys),
        Err(StoreError::Version {
            what: "key scheme",
            ..
        })
    ));
    let text = dir.path().join("notes.txt");
    fs::write(&text, "x".repeat(100)).unwrap();
    assert!(matches!(
        Reader::open(&text, KIND),
        Err(StoreError::Foreign { .. })
    ));
    let missing = Reader::open(&dir.path().join("none.bin"), KIND).unwrap_err();
    assert!(matches!(missing, StoreError::Io { .. }));
}

#[test]
fn an_unfinished_writer_leaves_nothing_behind() {
    let dir = tempfile::tempdir().unwrap();
    let path = dir.path().join("t.bin");
    {
        let mut w = Writer::create(&path, KIND, b"", 1).unwrap();
        w.add_block(1, 1, b"abc").unwrap();
        // Dropped: an error or an interrupted build.
    }
    assert_eq!(fs::read_dir(dir.path()).unwrap().count(), 0);
    // And a finished one replaces an older file whole.
    fs::write(&path, b"old").unwrap();
    write(&path, b"");
    assert!(read_all(&path).is_ok());
    assert_eq!(fs::read_dir(dir.path()).unwrap().count(), 1);
}

#[test]
fn a_whole_file_write_replaces_the_target_only_when_it_succeeds() {
    use std::io::Write;
    let dir = tempfile::tempdir().unwrap();
    let path = dir.path().join("out.dat");
    fs::write(&path, b"old").unwrap();
    let failed = xqstore::write_whole(&path, |_, f| {
        f.write_all(b"half")?;
        Err::<(), _>(std::io::Error::other("disk full"))
    });
    assert_eq!(failed.unwrap_err().to_string(), "disk full");
    assert_eq!(fs::read(&path).unwrap(), b"old");
    assert_eq!(names(dir.path()), ["out.dat"]);
    let written = xqstore::write_whole(&path, |temp, f| {
        assert_eq!(temp.parent(), Some(dir.path()));
        f.write_all(b"new")?;
        Ok(3)
    });
    assert_eq!(written.unwrap(), 3);
    assert_eq!(fs::read(&path).unwrap(), b"new");
    assert_eq!(names(dir.path()), ["out.dat"]);
}

/// The names of the files in `dir`.
fn names(dir: &Path) -> Vec<String> {
    let mut names: Vec<String> = fs::read_dir(dir)
        .unwrap()
        .map(|e| e.unwrap().file_name().into_string().unwrap())
        .collect();
    names.sort();
    names
}

#[test]
fn temporary_files_of_killed_writers_are_removed_and_live_ones_kept() {
    let dir = tempfile::tempdir().unwrap();
    // What a writer killed mid-file leaves: nobody holds it locked.
    let stale = dir.path().join(".xqstore-99999-0-0.tmp");
    fs::write(&stale, b"half a file").unwrap();
    // A live writer in another process holds its file locked.
    let held = dir.path().join(".xqstore-88888-0-0.tmp");
    fs::write(&held, b"being written").unwrap();
    // (`-o`: flock itself holds the lock, not the command it runs.)
    let mut holder = std::process::Command::new("flock")
        .arg("-o")
        .arg(&held)
        .args(["sleep", "30"])
        .spawn()
        .unwrap();
    // Wait until the lock is taken: a lock attempt of our own fails.
    let probe = fs::File::open(&held).unwrap();
    while probe.try_lock().is_ok() {
        probe.unlock().unwrap();
        std::thread::sleep(std::time::Duration::from_millis(10));
    }
    drop(probe);
    // A live writer of this process, and a second one to the same target.
    let target = dir.path().join("t.bin");
    let mut first = Writer::create(&target, KIND, b"first", 1).unwrap();
    first.add_block(1, 1, b"abc").unwrap();
    write(&target, b"second");
    assert!(!stale.exists(), "the dead writer's file is removed");
    assert!(held.exists(), "the other process's live file is kept");
    first.add_block(2, 1, b"def").unwrap();
    first.finish().unwrap();
    let (meta, _) = read_all(&target).unwrap();
    assert_eq!(meta, b"first", "the last writer to finish wins, whole");
    holder.kill().unwrap();
    holder.wait().unwrap();
    // Once its holder is gone, the next writer removes it too.
    write(&target, b"third");
    assert_eq!(names(dir.path()), ["t.bin"]);
}

#[test]
fn blocks_out_of_key_order_are_refused_by_the_writer() {
    let dir = tempfile::tempdir().unwrap();
    let path = dir.path().join("t.bin");
    let mut w = Writer::create(&path, KIND, b"", 1).unwrap();
    w.add_block(10, 1, b"a").unwrap();
    w.add_block(10, 1, b"b").unwrap();
    assert!(matches!(
        w.add_block(9, 1, b"c"),
        Err(StoreError::Misuse { .. })
    ));
}

#[test]
fn an_empty_container_is_valid() {
    let dir = tempfile::tempdir().unwrap();
    let path = dir.path().join("empty.bin");
    Writer::create(&path, KIND, b"", 1)
        .unwrap()
        .finish()
        .unwrap();
    let r = Reader::open(&path, KIND).unwrap();
    assert_eq!(r.index().len(), 0);
    assert_eq!(r.block_for(7), None);
}
