//! XQF files (every version, encrypted or not), main line and variations:
//! no input panics, and every line read is legal from its start.
#![no_main]

use libfuzzer_sys::fuzz_target;
use xqrecords::xqf::read_xqf;

fuzz_target!(|bytes: &[u8]| {
    for variations in [false, true] {
        let Ok(games) = read_xqf(bytes, variations) else {
            continue;
        };
        for game in &games {
            let mut pos = game.start.clone();
            for m in &game.moves {
                assert!(pos.is_legal(*m), "{m} is not legal");
                pos.make_move(*m);
            }
        }
    }
});
