//! The tables' answers under a rule: among moves of equal value, those
//! that keep material come first, then the caller's preference.

use egtbgen::{build, plan};
use xqcore::{Move, Position};
use xqegtb::{Material, Preference, Repetitions, Tablebase, Value};
use xqstore::{Header, Layout, HEADER_LEN};

/// KRKAABB's tables (and those its captures lead into), built once.
fn krkaabb() -> &'static Tablebase {
    static TABLES: std::sync::OnceLock<(tempfile::TempDir, Tablebase)> = std::sync::OnceLock::new();
    &TABLES
        .get_or_init(|| {
            let dir = tempfile::tempdir().unwrap();
            let m: Material = "KRKAABB".parse().unwrap();
            build(dir.path(), &plan(&[m]), &|_| {}).unwrap();
            let mut tb = Tablebase::new();
            tb.add_dir(dir.path()).unwrap();
            (dir, tb)
        })
        .1
}

/// A rook against a full defence: a draw, whatever the rook does short of
/// giving itself up (e1e7 takes an elephant and is taken back).
const DRAWN: &str = "3akab2/9/4b4/9/9/9/9/9/4R4/4K4 w";

/// Whether Red still has its rook.
fn red_has_rook(pos: &Position) -> bool {
    pos.fen()
        .split(' ')
        .next()
        .unwrap_or_default()
        .contains('R')
}

#[test]
fn the_line_of_a_drawn_ending_never_gives_the_rook_away() {
    let answers = krkaabb().under(Repetitions::CheckAndChase);
    let root = Position::from_fen(DRAWN).unwrap();
    assert_eq!(answers.value(&root).unwrap(), Some(Value::Draw));
    let line = answers.line(&root, 60).unwrap();
    assert!(line.len() >= 4, "{line:?}");
    let mut pos = root.clone();
    for &(mv, value) in &line {
        assert_eq!(value, Value::Draw, "{mv}");
        pos.make_move(mv);
        assert!(red_has_rook(&pos), "{mv} loses the rook in {line:?}");
    }
}

#[test]
fn a_move_that_gives_material_away_ranks_below_those_of_equal_value_that_keep_it() {
    let answers = krkaabb().under(Repetitions::CheckAndChase);
    let root = Position::from_fen(DRAWN).unwrap();
    let ranked = answers
        .ranked_moves(&root)
        .unwrap()
        .expect("every move is in the tables");
    assert!(ranked.iter().all(|&(_, v)| v == Value::Draw), "{ranked:?}");
    let e1e7 = root.parse_move("e1e7").unwrap();
    assert_eq!(ranked.last().map(|m| m.0), Some(e1e7), "{ranked:?}");
    let best = answers
        .best_of(&root, &root.legal_moves())
        .unwrap()
        .unwrap();
    assert_eq!(best.len(), ranked.len() - 1, "{best:?}");
    assert!(best.iter().all(|&(m, _)| m != e1e7));
}

/// Prefers one move above all others.
struct Favour(Move);

impl Preference for Favour {
    fn score(&self, _: &Position, mv: Move) -> i32 {
        i32::from(mv == self.0)
    }
}

#[test]
fn the_preference_orders_moves_of_equal_value_and_material() {
    let tb = krkaabb();
    let root = Position::from_fen(DRAWN).unwrap();
    for text in ["e1i1", "e0f0"] {
        let favourite = root.parse_move(text).unwrap();
        let favour = Favour(favourite);
        let answers = tb.under(Repetitions::CheckAndChase).preferring(&favour);
        assert_eq!(
            answers.best_move(&root).unwrap().map(|b| b.0),
            Some(favourite)
        );
        let ranked = answers.ranked_moves(&root).unwrap().unwrap();
        assert_eq!(ranked[0].0, favourite);
    }
    // No preference can make the engine give the rook away.
    let e1e7 = root.parse_move("e1e7").unwrap();
    let favour = Favour(e1e7);
    let answers = tb.under(Repetitions::CheckAndChase).preferring(&favour);
    assert_ne!(answers.best_move(&root).unwrap().map(|b| b.0), Some(e1e7));
}

/// Damages a table file's header: its record count changed under the old
/// checksum, so the header fails its check and the file cannot be opened.
fn damage_header(table: &std::path::Path) {
    let mut bytes = std::fs::read(table).unwrap();
    let old: [u8; HEADER_LEN] = bytes[..HEADER_LEN].try_into().unwrap();
    let header = Header::decode(&old).expect("a sound header");
    let mut damaged = Header {
        record_count: header.record_count ^ 0x55,
        ..header
    }
    .encode();
    // The header's own checksum, its last four bytes, as it was.
    damaged[HEADER_LEN - 4..].copy_from_slice(&old[HEADER_LEN - 4..]);
    assert_eq!(Header::decode(&damaged), None);
    bytes[..HEADER_LEN].copy_from_slice(&damaged);
    std::fs::write(table, bytes).unwrap();
}

/// Damages every byte of every block of a table file (the header, the
/// metadata and the block index stay sound): the file opens, and a probe
/// fails the block's checksum.
fn damage_blocks(table: &std::path::Path) {
    let layout = Layout::read(table).unwrap();
    let mut bytes = std::fs::read(table).unwrap();
    for block in &layout.blocks {
        for b in &mut bytes[block.start as usize..block.end as usize] {
            *b ^= 0x55;
        }
    }
    std::fs::write(table, bytes).unwrap();
}

#[test]
fn damaged_tables_are_named_when_opened_or_probed_never_read_as_values() {
    let dir = tempfile::tempdir().unwrap();
    let tables: Vec<Material> = ["KRK", "KCKA"].map(|m| m.parse().unwrap()).to_vec();
    build(dir.path(), &plan(&tables), &|_| {}).unwrap();
    let (header, blocks) = (dir.path().join("KRK.xqtb"), dir.path().join("KCKA.xqtb"));
    damage_header(&header);
    damage_blocks(&blocks);
    let mut tb = Tablebase::new();
    tb.add_dir(dir.path()).unwrap();
    // Opening every table names the one whose header is damaged, and only
    // it: a damaged block shows when a probe reads it.
    let errors = tb.open_all();
    assert_eq!(errors.len(), 1, "{errors:?}");
    assert_eq!(errors[0].path(), header);
    assert!(errors[0].to_string().contains("checksum"), "{}", errors[0]);
    for (fen, file) in [
        ("3k5/9/9/9/9/9/9/9/4R4/4K4 w", &header),
        ("3k5/4a4/9/9/9/9/9/9/4C4/4K4 w", &blocks),
    ] {
        let pos = Position::from_fen(fen).unwrap();
        let e = tb.probe(&pos).unwrap_err();
        assert_eq!(e.path(), file, "{fen}");
        assert!(e.to_string().contains("checksum"), "{fen}: {e}");
    }
}
