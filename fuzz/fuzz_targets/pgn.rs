//! Game records as bookgen reads them: bytes in any encoding, decoded,
//! cut into games and parsed move by move (ICCS, WXF or Chinese notation).
//! No input panics; every game read is a legal line from its start; every
//! refused game names a line of the file that exists.
#![no_main]

use libfuzzer_sys::fuzz_target;
use xqrecords::{encoding, pgn};

fuzz_target!(|bytes: &[u8]| {
    let decoded = encoding::decode(bytes, None);
    let lines = decoded.text.lines().count().max(1);
    for game in pgn::split(&decoded.text) {
        match pgn::parse_game(&game) {
            Ok(read) => {
                let mut pos = read.start.clone();
                for m in &read.moves {
                    assert!(pos.is_legal(*m), "game {}: {m} is not legal", read.index);
                    pos.make_move(*m);
                }
            }
            Err(e) => assert!(
                (1..=lines).contains(&e.line),
                "{e} names a line outside the file's {lines}"
            ),
        }
    }
});
