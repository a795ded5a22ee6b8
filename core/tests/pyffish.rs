//! Legal moves compared with an independent generator: data/movegen-pyffish.tsv
//! holds 1,500 positions from random playouts with Fairy-Stockfish's legal
//! moves (pyffish, converted to ICCS), made by tools/pyffish_fixture.py.

use xqcore::Position;

#[test]
fn legal_moves_match_fairy_stockfish() {
    let text = include_str!("../../data/movegen-pyffish.tsv");
    let mut positions = 0;
    let (mut in_check, mut lost) = (0, 0);
    for (n, line) in text
        .lines()
        .enumerate()
        .filter(|(_, l)| !l.starts_with('#'))
    {
        let (fen, moves) = line
            .split_once('\t')
            .unwrap_or_else(|| panic!("line {}", n + 1));
        let pos = Position::from_fen(fen).unwrap_or_else(|e| panic!("line {}: {fen}: {e}", n + 1));
        let mut ours: Vec<String> = pos.legal_moves().iter().map(|m| m.to_string()).collect();
        ours.sort();
        let mut theirs: Vec<&str> = moves.split_whitespace().collect();
        theirs.sort();
        assert_eq!(ours, theirs, "line {}: {fen}", n + 1);
        positions += 1;
        in_check += pos.in_check() as usize;
        lost += pos.is_lost() as usize;
    }
    // The fixture's own counts, from its header: this guards against a truncated file.
    assert_eq!((positions, in_check, lost), (1500, 183, 14));
}
