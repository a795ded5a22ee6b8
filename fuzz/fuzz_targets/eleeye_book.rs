//! ElephantEye BOOK.DAT files: refused with an error or probed without a
//! panic, every move given legal where it is given.
#![no_main]

use libfuzzer_sys::fuzz_target;
use xqbook::EleeyeBook;
use xqcore::Position;

fuzz_target!(|bytes: &[u8]| {
    let path = xq_fuzz::write_scratch("BOOK.DAT", bytes);
    let Ok(book) = EleeyeBook::open(&path) else {
        return;
    };
    let mut pos = Position::start();
    for _ in 0..4 {
        let moves = book.probe(&pos);
        let Some(&(m, _)) = moves.first() else { break };
        assert!(pos.is_legal(m), "book move {m} is not legal");
        pos.make_move(m);
    }
});
