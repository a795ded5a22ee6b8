//! The CCPD fixtures: Chinese notation in Big5 read move for move as the
//! ICCS versions of the same games say.

use std::path::PathBuf;

use xqcore::GameResult;
use xqrecords::encoding::{decode, TextEncoding};
use xqrecords::pgn::{parse_game, split, Game};

fn read(name: &str) -> (Vec<Game>, TextEncoding) {
    let path = PathBuf::from(env!("CARGO_MANIFEST_DIR"))
        .join("../data/games")
        .join(name);
    let bytes = std::fs::read(&path).unwrap();
    let decoded = decode(&bytes, None);
    assert_eq!(decoded.malformed, 0, "{name}");
    let games = split(&decoded.text)
        .iter()
        .map(|g| parse_game(g).unwrap_or_else(|e| panic!("{name}: {e}")))
        .collect();
    (games, decoded.encoding)
}

#[test]
fn chinese_notation_in_big5_reads_as_the_iccs_versions() {
    let (chinese, encoding) = read("ccpd-first-200.big5.pgn");
    assert_eq!(encoding, TextEncoding::Big5);
    assert_eq!(chinese.len(), 200);
    let (iccs, encoding) = read("ccpd-sample-3000.iccs.pgn");
    assert_eq!(encoding, TextEncoding::Utf8);
    assert_eq!(iccs.len(), 3000);
    // The ICCS sample holds the games with a known result, in order.
    let known = chinese.iter().filter(|g| g.result != GameResult::Unknown);
    let mut compared = 0;
    for (c, i) in known.zip(&iccs) {
        assert_eq!(c.tag("Event"), i.tag("Event"));
        assert_eq!(c.tag("Red"), i.tag("Red"));
        assert_eq!(c.result, i.result, "game {}", c.index);
        assert_eq!(c.start.fen(), i.start.fen());
        assert_eq!(c.moves, i.moves, "game {} ({:?})", c.index, c.tag("Event"));
        compared += 1;
    }
    assert!(compared > 150, "{compared}");
}
