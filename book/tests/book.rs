//! Games in, book out, probed back; damaged books refused.

use std::fs;
use std::path::{Path, PathBuf};

use xqbook::EleeyeBook;
use xqbook::{
    game_fingerprint, retain_unique, Book, BookBuilder, BookError, BuildConfig, GameResult,
    SideFilter,
};
use xqcore::{Move, Position};

fn moves(start: &Position, iccs: &str) -> Vec<Move> {
    let mut pos = start.clone();
    iccs.split_whitespace()
        .map(|t| {
            let m = pos.parse_move(t).unwrap();
            pos.make_move(m);
            m
        })
        .collect()
}

/// A small collection: the central cannon three times (two wins, one
/// loss), its mirror image once (a draw), an elephant opening twice.
fn collection() -> Vec<(Vec<Move>, GameResult)> {
    let s = Position::start();
    vec![
        (moves(&s, "h2e2 h9g7 h0g2"), GameResult::RedWins),
        (moves(&s, "h2e2 h9g7 h0g2 i9h9"), GameResult::RedWins),
        (moves(&s, "h2e2 h7e7"), GameResult::BlackWins),
        (moves(&s, "b2e2 b9c7 b0c2"), GameResult::Draw),
        (moves(&s, "g0e2 h9g7"), GameResult::Draw),
        (moves(&s, "g0e2 h9g7"), GameResult::Unknown),
    ]
}

fn build(config: BuildConfig, path: &Path) -> xqbook::BuildSummary {
    let mut b = BookBuilder::new(config);
    for (m, r) in collection() {
        b.add_game(&Position::start(), &m, r).unwrap();
    }
    b.write(path, "test book").unwrap()
}

fn probe(book: &Book, iccs: &str) -> Vec<(String, u32, u32, u32, u32)> {
    let s = Position::start();
    let mut pos = s.clone();
    for m in moves(&s, iccs) {
        pos.make_move(m);
    }
    book.probe(&pos)
        .unwrap()
        .into_iter()
        .map(|m| (m.mv.to_string(), m.games, m.wins, m.draws, m.losses))
        .collect()
}

fn all_plies() -> BuildConfig {
    BuildConfig {
        min_games: 1,
        ..BuildConfig::default()
    }
}

#[test]
fn games_round_trip_through_a_book() {
    let dir = tempfile::tempdir().unwrap();
    let path = dir.path().join("b.xqb");
    let summary = build(all_plies(), &path);
    let book = Book::open(&path).unwrap();
    assert_eq!(book.info().entries, summary.entries);
    assert_eq!(book.info().description, "test book");
    // The start is symmetric: h2e2 and b2e2 stay apart.
    assert_eq!(
        probe(&book, ""),
        vec![
            ("h2e2".into(), 3, 2, 0, 1),
            ("g0e2".into(), 2, 0, 1, 0),
            ("b2e2".into(), 1, 0, 1, 0)
        ]
    );
    // After h2e2 and after b2e2, the mirror images share one entry,
    // each seen from its own side: black's h9g7 from h2e2 games is b9c7
    // after b2e2.
    assert_eq!(
        probe(&book, "h2e2"),
        vec![("h9g7".into(), 3, 0, 1, 2), ("h7e7".into(), 1, 1, 0, 0)]
    );
    assert_eq!(
        probe(&book, "b2e2"),
        vec![("b9c7".into(), 3, 0, 1, 2), ("b7e7".into(), 1, 1, 0, 0)]
    );
    assert_eq!(probe(&book, "b2e2 b9c7"), vec![("b0c2".into(), 3, 2, 1, 0)]);
    // Unknown results count as games only.
    assert_eq!(probe(&book, "g0e2"), vec![("h9g7".into(), 2, 0, 1, 0)]);
    // Off the book: nothing.
    assert_eq!(probe(&book, "c3c4"), vec![]);
}

#[test]
fn filters_drop_rare_positions_late_plies_one_side_and_bad_moves() {
    let dir = tempfile::tempdir().unwrap();
    let path = dir.path().join("b.xqb");
    // Reached by 3 games at least: the start, h2e2 and h2e2 h9g7 (with
    // their mirror images).
    build(
        BuildConfig {
            min_games: 3,
            ..BuildConfig::default()
        },
        &path,
    );
    let book = Book::open(&path).unwrap();
    assert_eq!(probe(&book, "").len(), 3);
    assert_eq!(probe(&book, "h2e2").len(), 2);
    // Reached by games 1, 2 and (mirrored) 4.
    assert_eq!(probe(&book, "h2e2 h9g7"), vec![("h0g2".into(), 3, 2, 1, 0)]);
    assert_eq!(probe(&book, "g0e2"), vec![]);

    build(
        BuildConfig {
            max_ply: 0,
            ..all_plies()
        },
        &path,
    );
    let book = Book::open(&path).unwrap();
    assert_eq!(probe(&book, "").len(), 3);
    assert_eq!(probe(&book, "h2e2"), vec![]);

    build(
        BuildConfig {
            side: SideFilter::Black,
            ..all_plies()
        },
        &path,
    );
    let book = Book::open(&path).unwrap();
    assert_eq!(probe(&book, ""), vec![]);
    assert_eq!(probe(&book, "h2e2").len(), 2);

    // A minimum score of 50 % drops h2e2's black replies that lost.
    build(
        BuildConfig {
            min_score: 0.5,
            ..all_plies()
        },
        &path,
    );
    let book = Book::open(&path).unwrap();
    assert_eq!(probe(&book, "h2e2"), vec![("h7e7".into(), 1, 1, 0, 0)]);
}

#[test]
fn duplicate_games_are_counted_once() {
    let mut games = collection();
    games.extend(collection());
    let start = Position::start();
    let dropped = retain_unique(&mut games, |(m, _)| game_fingerprint(&start, m));
    // The collection itself holds one pair of equal games (with different
    // results: the same moves are the same game).
    assert_eq!(dropped, 7);
    assert_eq!(games.len(), 5);
}

#[test]
fn an_illegal_move_rejects_the_game_and_counts_nothing() {
    let start = Position::start();
    let mut b = BookBuilder::new(all_plies());
    let mut bad = moves(&start, "h2e2 h9g7");
    bad.push(
        "a0a5"
            .parse::<xqcore::IccsMove>()
            .map(|m| Move::new(m.from, m.to))
            .unwrap(),
    );
    let err = b.add_game(&start, &bad, GameResult::Draw).unwrap_err();
    assert_eq!(err.0, 2);
    assert_eq!(b.games(), 0);
    assert!(b.entries().is_empty());
}

#[test]
fn many_blocks_probe_like_one() {
    // Random games from the start: enough positions for several blocks.
    let dir = tempfile::tempdir().unwrap();
    let path = dir.path().join("big.xqb");
    let mut b = BookBuilder::new(all_plies());
    let mut seed = 12345u64;
    let mut rng = || {
        seed ^= seed << 13;
        seed ^= seed >> 7;
        seed ^= seed << 17;
        seed
    };
    let mut games = Vec::new();
    for _ in 0..400 {
        let mut pos = Position::start();
        let mut line = Vec::new();
        for _ in 0..12 {
            let legal = pos.legal_moves();
            if legal.is_empty() {
                break;
            }
            let m = legal[(rng() % legal.len() as u64) as usize];
            line.push(m);
            pos.make_move(m);
        }
        b.add_game(&Position::start(), &line, GameResult::Draw)
            .unwrap();
        games.push(line);
    }
    let summary = b.write(&path, "").unwrap();
    let book = Book::open(&path).unwrap();
    assert!(book.info().blocks > 5, "{:?}", book.info());
    // Every position of every game is found with its move.
    for line in &games {
        let mut pos = Position::start();
        for &m in line {
            let found = book.probe(&pos).unwrap();
            assert!(found.iter().any(|b| b.mv == m), "{m} missing");
            pos.make_move(m);
        }
    }
    // The whole book reads back as the builder's entries.
    let read: Vec<_> = book
        .positions()
        .collect::<Result<Vec<_>, _>>()
        .unwrap()
        .into_iter()
        .flatten()
        .collect();
    assert_eq!(read, b.entries());
    assert_eq!(
        read.iter().map(|p| p.1.len() as u64).sum::<u64>(),
        summary.entries
    );
}

#[test]
fn damaged_books_are_refused_with_the_file_named() {
    let dir = tempfile::tempdir().unwrap();
    let path = dir.path().join("b.xqb");
    build(all_plies(), &path);
    let good = fs::read(&path).unwrap();
    let bad: PathBuf = dir.path().join("bad.xqb");
    let start = Position::start();
    for at in 0..good.len() {
        let mut bytes = good.clone();
        bytes[at] ^= 0x21;
        fs::write(&bad, &bytes).unwrap();
        let outcome = Book::open(&bad).and_then(|b| b.probe(&start));
        let err = outcome.expect_err(&format!("byte {at} flipped went unnoticed"));
        assert!(err.to_string().contains("bad.xqb"), "{err}");
    }
    for len in [0, 10, 63, 64, good.len() / 2, good.len() - 1] {
        fs::write(&bad, &good[..len]).unwrap();
        assert!(
            matches!(Book::open(&bad), Err(BookError::Store(_))),
            "{len}"
        );
    }
    // A book is not a BOOK.DAT and the other way round.
    let eleeye = Path::new(env!("CARGO_MANIFEST_DIR")).join("../data/eleeye/BOOK.DAT");
    let err = Book::open(&eleeye).unwrap_err();
    assert!(
        err.to_string().contains("not a xqbook opening book"),
        "{err}"
    );
}

#[test]
fn elephant_eye_books_give_their_documented_moves() {
    let path = Path::new(env!("CARGO_MANIFEST_DIR")).join("../data/eleeye/BOOK.DAT");
    let book = EleeyeBook::open(&path).unwrap();
    assert_eq!(book.len(), 12_081);
    let mut start: Vec<(String, u16)> = book
        .probe(&Position::start())
        .into_iter()
        .map(|(m, w)| (m.to_string(), w))
        .collect();
    start.sort_by(|a, b| b.1.cmp(&a.1).then(a.0.cmp(&b.0)));
    assert_eq!(
        &start[..8],
        &[
            ("b2e2".into(), 1473),
            ("h2e2".into(), 1473),
            ("c3c4".into(), 546),
            ("g3g4".into(), 546),
            ("c0e2".into(), 311),
            ("g0e2".into(), 311),
            ("b0c2".into(), 89),
            ("h0g2".into(), 89),
        ]
    );
    let mut pos = Position::start();
    pos.make_move(pos.parse_move("h2e2").unwrap());
    let mut reply = book.probe(&pos);
    reply.sort_by_key(|r| std::cmp::Reverse(r.1));
    let top: Vec<_> = reply
        .iter()
        .take(3)
        .map(|(m, w)| (m.to_string(), *w))
        .collect();
    assert_eq!(
        top,
        vec![
            ("h9g7".into(), 761),
            ("b9c7".into(), 172),
            ("h7e7".into(), 97)
        ]
    );
    // Through the mirror: after b2e2 the same replies, mirrored.
    let mut pos = Position::start();
    pos.make_move(pos.parse_move("b2e2").unwrap());
    let mirrored: Vec<_> = book
        .probe(&pos)
        .into_iter()
        .map(|(m, w)| (m.mirror(), w))
        .collect();
    let mut direct = reply.clone();
    direct.sort();
    let mut mirrored = mirrored;
    mirrored.sort();
    assert_eq!(mirrored, direct);
}

#[test]
fn malformed_elephant_eye_books_are_refused() {
    let dir = tempfile::tempdir().unwrap();
    let path = dir.path().join("BOOK.DAT");
    fs::write(&path, [0u8; 12]).unwrap();
    assert!(EleeyeBook::open(&path).is_err());
    let mut unsorted = Vec::new();
    unsorted.extend_from_slice(&[9, 0, 0, 0, 0, 0, 1, 0]);
    unsorted.extend_from_slice(&[1, 0, 0, 0, 0, 0, 1, 0]);
    fs::write(&path, &unsorted).unwrap();
    let err = EleeyeBook::open(&path).unwrap_err();
    assert!(err.to_string().contains("out of lock order"), "{err}");
}

#[test]
fn either_kind_of_book_opens_by_its_first_bytes() {
    let data = PathBuf::from(env!("CARGO_MANIFEST_DIR")).join("../data");
    let ours = xqbook::open(&data.join("book.xqb")).unwrap();
    assert_eq!(ours.format(), xqbook::BookFormat::Xqbook);
    let start = ours.probe(&Position::start()).unwrap();
    assert_eq!(start[0].mv.to_string(), "h2e2");
    assert!(start[0]
        .stats
        .is_some_and(|s| s.weight() == start[0].weight));
    let eleeye = xqbook::open(&data.join("eleeye/BOOK.DAT")).unwrap();
    assert_eq!(eleeye.format(), xqbook::BookFormat::Eleeye);
    let start = eleeye.probe(&Position::start()).unwrap();
    assert_eq!(
        (start[0].mv.to_string(), start[0].weight),
        ("b2e2".into(), 1473)
    );
    assert!(start.windows(2).all(|w| w[0].weight >= w[1].weight));
    // Our container holding something else is refused as ours, with the
    // container's reason; a file of neither kind as neither.
    let dir = tempfile::tempdir().unwrap();
    let table = dir.path().join("table.xqb");
    let mut bytes = b"XQEGTB\0\0".to_vec();
    bytes.resize(200, 0);
    fs::write(&table, bytes).unwrap();
    let e = xqbook::open(&table).unwrap_err().to_string();
    assert!(e.contains("table.xqb") && e.contains("xqbook"), "{e}");
    let odd = dir.path().join("odd.dat");
    fs::write(&odd, b"12345").unwrap();
    let e = xqbook::open(&odd).unwrap_err().to_string();
    assert!(
        e.contains("odd.dat") && e.contains("nor an ElephantEye BOOK.DAT"),
        "{e}"
    );
    let e = xqbook::open(&dir.path().join("none.xqb"))
        .unwrap_err()
        .to_string();
    assert!(e.contains("none.xqb"), "{e}");
}

#[test]
fn empty_and_cut_books_say_so_naming_the_file() {
    let dir = tempfile::tempdir().unwrap();
    let ours =
        fs::read(PathBuf::from(env!("CARGO_MANIFEST_DIR")).join("../data/book.xqb")).unwrap();
    for (len, says) in [
        (0, "empty file"),
        (5, "truncated"),
        (8, "truncated"),
        (100, "truncated"),
    ] {
        let path = dir.path().join(format!("cut{len}.xqb"));
        fs::write(&path, &ours[..len]).unwrap();
        let e = xqbook::open(&path).unwrap_err().to_string();
        let name = path.display().to_string();
        assert!(e.starts_with(&format!("{name}: {says}")), "{len}: {e}");
        assert_eq!(e.matches(&name).count(), 1, "{e}");
        assert!(!e.contains("ElephantEye"), "{len}: {e}");
    }
}

#[test]
fn a_file_of_neither_kind_is_named_as_neither_ours_nor_a_book_dat() {
    let dir = tempfile::tempdir().unwrap();
    let mut noise = Vec::new();
    let mut rng = xqcore::SplitMix64::new(7);
    while noise.len() < 4000 {
        noise.extend_from_slice(&rng.next_u64().to_le_bytes());
    }
    let text = b"hello world, not a book\n".to_vec();
    for (name, bytes) in [("noise.xqb", noise), ("notes.xqb", text)] {
        let path = dir.path().join(name);
        fs::write(&path, bytes).unwrap();
        let e = xqbook::open(&path).unwrap_err().to_string();
        let named = path.display().to_string();
        assert!(
            e.starts_with(&format!(
                "{named}: not a book: not one of ours (it does not start with the magic \
                 XQBOOK) nor an ElephantEye BOOK.DAT ("
            )),
            "{e}"
        );
        assert_eq!(e.matches(&named).count(), 1, "{e}");
    }
}
