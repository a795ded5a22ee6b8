//! An interrupt handler's clean-up: every file this process is writing is
//! removed. In a test binary of its own, as it removes the files of every
//! writer in the process.

use std::fs;

use xqstore::{Kind, Writer};

const KIND: Kind = Kind {
    magic: *b"XQTEST\0\0",
    name: "test container",
    format_version: 2,
    key_scheme: 5,
};

#[test]
fn an_interrupt_removes_the_files_being_written() {
    let dir = tempfile::tempdir().unwrap();
    let count = || fs::read_dir(dir.path()).unwrap().count();
    let target = dir.path().join("t.bin");
    let mut w = Writer::create(&target, KIND, b"", 1).unwrap();
    w.add_block(1, 1, b"abc").unwrap();
    assert_eq!(count(), 1);
    assert_eq!(xqstore::remove_unfinished(), 1);
    assert_eq!(count(), 0);
    // The interrupted writer cannot finish: an error, not a file.
    assert!(w.finish().is_err());
    assert_eq!(count(), 0);
}
