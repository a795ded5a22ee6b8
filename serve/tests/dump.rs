//! The store to a book and back: the shipped analysed book seeds a store;
//! the store dumps to one of our books with its analysis, which the
//! engine plays from; `xqserve dump` and `seed` as a user runs them.

use std::io::Write;
use std::path::Path;
use std::process::Command;
use std::sync::{Arc, Mutex};

use xqbook::BookFile;
use xqcore::Position;
use xqserve::dump::{dump, seed};
use xqserve::store::{Source, Store};

fn default_book() -> (BookFile, std::path::PathBuf) {
    let path = Path::new(env!("CARGO_MANIFEST_DIR")).join("../data/book.xqb");
    let (book, unusable) = BookFile::open(&path).unwrap();
    assert!(unusable.is_none(), "{unusable:?}");
    (book, path)
}

fn after(moves: &[&str]) -> Position {
    let mut pos = Position::start();
    for m in moves {
        let mv = pos.parse_move(m).unwrap();
        pos.make_move(mv);
    }
    pos
}

/// The engine's move after `moves` from the start, a game move played
/// from `book` through the engine's own protocol (UCCI).
fn engine_book_move(book: &Path, moves: &str) -> String {
    #[derive(Clone, Default)]
    struct Lines(Arc<Mutex<Vec<u8>>>);
    impl Write for Lines {
        fn write(&mut self, bytes: &[u8]) -> std::io::Result<usize> {
            self.0.lock().unwrap().extend_from_slice(bytes);
            Ok(bytes.len())
        }
        fn flush(&mut self) -> std::io::Result<()> {
            Ok(())
        }
    }
    let lines = Lines::default();
    let mut session = xqengine::Session::new(xqengine::Output::new(Box::new(lines.clone())));
    for line in [
        "ucci".to_string(),
        format!("setoption bookfiles {}", book.display()),
        format!("position startpos moves {moves}"),
        // A game move (the book answers those, not analyses).
        "go time 60 increment 0".into(),
    ] {
        session.handle_line(&line);
    }
    session.finish();
    let said = String::from_utf8(lines.0.lock().unwrap().clone()).unwrap();
    assert!(
        said.contains("info string book move"),
        "not from the book: {said}"
    );
    said.lines()
        .find_map(|l| l.strip_prefix("bestmove "))
        .map(|m| m.split(' ').next().unwrap().to_string())
        .unwrap_or_else(|| panic!("no bestmove: {said}"))
}

#[test]
fn the_analysed_book_seeds_a_store_and_the_store_dumps_to_a_book_the_engine_plays() {
    let dir = tempfile::tempdir().unwrap();
    let store = Store::open(Some(&dir.path().join("store.sqlite"))).unwrap();
    let (book, path) = default_book();
    let seeded = seed(&store, &book, &path).unwrap();
    assert!(seeded > 10_000, "{seeded}");
    assert_eq!(store.counts().unwrap().positions, seeded);
    // The start position as the book's analysis has it.
    let start = Position::start();
    let analysed = book.analysis.as_ref().unwrap().probe(&start).unwrap();
    let stored = store.get(&start).unwrap().unwrap();
    assert_eq!(stored.search, analysed.search);
    assert_eq!(stored.moves.len(), analysed.moves.len());
    for m in &analysed.moves {
        let s = stored.moves.iter().find(|s| s.mv == m.mv).unwrap();
        assert_eq!((s.score, s.source), (m.score, Source::Book));
    }

    // A position the book never reached, analysed since.
    let out_of_book = after(&["a3a4", "a6a5", "a4a5"]);
    let reply = out_of_book.parse_move("a9a5").unwrap();
    let search = xqbook::Searched {
        score: 15,
        best: reply,
        depth: 12,
    };
    store
        .record(&out_of_book, search, &[(reply, 15, 12)], Source::Analysis)
        .unwrap();

    let dumped_path = dir.path().join("dump.xqb");
    let dumped = dump(&store, &dumped_path).unwrap();
    assert_eq!(dumped.positions, seeded + 1);
    let (dumped_book, unusable) = BookFile::open(&dumped_path).unwrap();
    assert!(unusable.is_none(), "{unusable:?}");
    let analysis = dumped_book.analysis.as_ref().expect("the dump's analysis");
    // The dump's start position: the store's moves, backed up as the
    // book's analysis backs them up (the same positions, the same backup).
    let from_dump = analysis.probe(&start).unwrap();
    let mut dumped_moves: Vec<_> = from_dump.moves.iter().map(|m| m.mv).collect();
    let mut stored_moves: Vec<_> = stored.moves.iter().map(|m| m.mv).collect();
    dumped_moves.sort();
    stored_moves.sort();
    assert_eq!(dumped_moves, stored_moves);
    assert_eq!(from_dump.moves[0].mv, analysed.moves[0].mv);
    assert!(analysis.probe(&out_of_book).is_some());

    // The engine plays from the dump: at the start one of its best moves,
    // and out of the shipped book the move the store knows.
    let first = engine_book_move(&dumped_path, "");
    let within: Vec<String> = from_dump.within(20).map(|m| m.mv.to_string()).collect();
    assert!(within.contains(&first), "{first} not in {within:?}");
    assert_eq!(engine_book_move(&dumped_path, "a3a4 a6a5 a4a5"), "a9a5");

    // To BHGUI's .obk, as `bookgen export --format obk` writes it (random
    // keys here: a GUI's come from its own table): the same moves, the
    // best the heaviest.
    let mut rng = xqcore::SplitMix64::new(5);
    let mut pieces = Box::new([0u64; bookgen::obk::PIECE_KEYS]);
    pieces.iter_mut().for_each(|k| *k = rng.next_u64());
    let keys = bookgen::obk::ObkKeys::new(pieces, rng.next_u64());
    let book = xqbook::open(&dumped_path).unwrap();
    let walked = xqbook::walk(|p| xqbook::book_moves(&book, p), 0, usize::MAX);
    let obk = dir.path().join("dump.obk");
    bookgen::obk::write_obk(&obk, &keys, &walked).unwrap();
    let read = bookgen::obk::ObkBook::open(&obk, &keys).unwrap();
    let mut from_obk = read.probe(&start);
    from_obk.sort_by_key(|m| std::cmp::Reverse(m.games));
    let mut obk_moves: Vec<_> = from_obk.iter().map(|m| m.mv).collect();
    obk_moves.sort();
    assert_eq!(obk_moves, stored_moves);
    assert_eq!(from_obk[0].mv, from_dump.moves[0].mv, "{from_obk:?}");
    assert_eq!(from_obk[0].games, 100);
}

#[test]
fn dump_and_seed_as_a_user_runs_them() {
    let dir = tempfile::tempdir().unwrap();
    let store = dir.path().join("store.sqlite");
    let xqserve = |args: &[&std::ffi::OsStr]| {
        Command::new(env!("CARGO_BIN_EXE_xqserve"))
            .args(args)
            .current_dir(concat!(env!("CARGO_MANIFEST_DIR"), "/.."))
            .output()
            .unwrap()
    };
    let out = xqserve(&["seed".as_ref(), "--store".as_ref(), store.as_os_str()]);
    let said = String::from_utf8_lossy(&out.stdout);
    assert!(
        out.status.success(),
        "{said}{}",
        String::from_utf8_lossy(&out.stderr)
    );
    assert!(
        said.contains("positions of data/book.xqb written to"),
        "{said}"
    );
    let book = dir.path().join("dump.xqb");
    let out = xqserve(&[
        "dump".as_ref(),
        "--store".as_ref(),
        store.as_os_str(),
        book.as_os_str(),
    ]);
    let said = String::from_utf8_lossy(&out.stdout);
    assert!(
        out.status.success(),
        "{said}{}",
        String::from_utf8_lossy(&out.stderr)
    );
    assert!(said.contains("and its analysis"), "{said}");
    assert!(book.with_extension("xqa").is_file());
    // A store that is not there is named, not created.
    let missing = dir.path().join("missing.sqlite");
    let out = xqserve(&[
        "dump".as_ref(),
        "--store".as_ref(),
        missing.as_os_str(),
        book.as_os_str(),
    ]);
    assert_eq!(out.status.code(), Some(2));
    let said = String::from_utf8_lossy(&out.stderr);
    assert!(said.contains("missing.sqlite: no such store"), "{said}");
    assert!(!missing.exists());
}
