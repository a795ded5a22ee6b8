//! FEN parsing: any text is either refused with an error or gives a
//! position whose FEN reads back to the same position, whose legal moves
//! can all be played and taken back.
#![no_main]

use libfuzzer_sys::fuzz_target;
use xqcore::Position;

fuzz_target!(|text: &str| {
    let Ok(pos) = Position::from_fen(text) else {
        return;
    };
    let fen = pos.fen();
    let again = Position::from_fen(&fen).expect("a position's own FEN is accepted");
    assert_eq!(again.fen(), fen, "the FEN round trip is stable");
    assert_eq!(again.key(), pos.key());
    let mut play = pos.clone();
    for m in pos.legal_moves().iter() {
        play.make_move(*m);
        assert_eq!(play.key(), play.compute_key(), "incremental key after {m}");
        play.unmake_move();
        assert_eq!(play.fen(), fen, "unmake restores the position after {m}");
    }
});
