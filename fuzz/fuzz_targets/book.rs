//! Opening book files (our xqbook container), their checksums resealed
//! after mutation so the fuzzer gets past them: a file is refused with an
//! error or every probe gives legal moves, and reading every block either
//! works or fails with an error, never a panic.
#![no_main]

use libfuzzer_sys::fuzz_target;
use xqbook::Book;
use xqcore::Position;

fuzz_target!(|bytes: &[u8]| {
    let path = xq_fuzz::resealed_file("book.xqb", bytes);
    let Ok(book) = Book::open(&path) else {
        return;
    };
    let _ = book.info();
    let mut pos = Position::start();
    for _ in 0..4 {
        let Ok(moves) = book.probe(&pos) else { break };
        let Some(first) = moves.first() else { break };
        assert!(
            pos.is_legal(first.mv),
            "book move {} is not legal",
            first.mv
        );
        pos.make_move(first.mv);
    }
    for block in book.positions() {
        if block.is_err() {
            break;
        }
    }
});
