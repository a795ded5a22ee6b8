//! `bookgen analyse`: a small book searched, grown and backed up; a run
//! stopped midway resumes to the same analysis; a damaged or foreign
//! analysis is refused, naming the file.

mod common;

use std::collections::HashMap;
use std::path::Path;
use std::sync::atomic::{AtomicBool, AtomicUsize, Ordering};

use bookgen::analyse::{
    analyse, journal_path, AnalyseConfig, AnalyseError, Budget, Together, TOGETHER_WINDOW,
};
use common::{bookgen, s, small_book, stdout};
use xqbook::{book_key, Book};
use xqbook::{Analysis, AnalysisError, PositionAnalysis};
use xqcore::Position;

fn config() -> AnalyseConfig {
    AnalyseConfig {
        budget: Budget::Depth(3),
        deep: None,
        refine: Vec::new(),
        threads: 2,
        net: None,
        tables: None,
        grow: 12,
        grow_plies: 3,
        hash_mb: 1,
        shard: None,
        grow_from: Vec::new(),
        together: None,
    }
}

#[test]
fn a_stopped_analysis_resumes_to_the_same_file() {
    let dir = tempfile::tempdir().unwrap();
    let book_path = small_book(dir.path(), "small.xqb", "3");
    let book = Book::open(&book_path).unwrap();
    let whole = dir.path().join("whole.xqa");
    let never = AtomicBool::new(false);
    let summary = analyse(&book, Some(&whole), &config(), &never, &|_| {}).unwrap();
    assert!(summary.positions > 10, "{summary:?}");
    assert!(summary.grown > 0 && summary.grown <= 12, "{summary:?}");
    assert_eq!(summary.searched, summary.searched_now);

    // Stopped after a few searches, then run again (twice: the second
    // finds everything in the journal and searches nothing).
    let resumed = dir.path().join("resumed.xqa");
    let stop = AtomicBool::new(false);
    let seen = AtomicUsize::new(0);
    let stopped = analyse(&book, Some(&resumed), &config(), &stop, &|p| {
        if seen.fetch_add(1, Ordering::Relaxed) > 0 && p.searched >= 7 {
            stop.store(true, Ordering::Relaxed);
        }
    });
    assert!(matches!(stopped, Err(AnalyseError::Stopped)), "{stopped:?}");
    assert!(!resumed.exists());
    // A record cut short by a kill is dropped.
    let journal = journal_path(&resumed);
    let len = std::fs::metadata(&journal).unwrap().len();
    std::fs::OpenOptions::new()
        .write(true)
        .open(&journal)
        .unwrap()
        .set_len(len - 5)
        .unwrap();
    let again = analyse(&book, Some(&resumed), &config(), &never, &|_| {}).unwrap();
    assert!(again.searched_now < summary.searched, "{again:?}");
    assert_eq!(
        std::fs::read(&whole).unwrap(),
        std::fs::read(&resumed).unwrap()
    );
    let third = analyse(&book, Some(&resumed), &config(), &never, &|_| {}).unwrap();
    assert_eq!(third.searched_now, 0);

    // A deeper budget searches again; the deeper results then do for the
    // shallower budget too.
    let mut deeper = config();
    deeper.budget = Budget::Depth(4);
    let again = analyse(&book, Some(&resumed), &deeper, &never, &|_| {}).unwrap();
    assert!(again.searched_now >= summary.searched, "{again:?}");
    let shallow = analyse(&book, Some(&resumed), &config(), &never, &|_| {}).unwrap();
    assert_eq!(shallow.searched_now, 0, "{shallow:?}");
    // Another net's results do not mix with the journal's.
    let mut other_net = config();
    other_net.net = Some(std::sync::Arc::new(xqnnue::Network::embedded().clone()));
    let err = analyse(&book, Some(&resumed), &other_net, &never, &|_| {}).unwrap_err();
    assert!(err.to_string().contains("resumed.xqa.journal"), "{err}");
}

#[test]
fn scores_are_backed_up_and_the_search_best_is_in_the_book() {
    let dir = tempfile::tempdir().unwrap();
    let book_path = small_book(dir.path(), "small.xqb", "3");
    let book = Book::open(&book_path).unwrap();
    let never = AtomicBool::new(false);
    let mut cfg = config();
    cfg.grow = 1_000;
    analyse(&book, None, &cfg, &never, &|_| {}).unwrap();
    let analysis = Analysis::open(&book_path.with_extension("xqa"), &book).unwrap();
    assert_eq!(analysis.header().budget, "depth 3");
    assert_eq!(analysis.header().net, "hce");
    let positions: &HashMap<u64, PositionAnalysis> = analysis.positions();
    // Walk the analysed book from the start: each move's score is the
    // negated value of the position it leads to, when that is analysed.
    let mut checked = 0;
    let mut stack = vec![Position::start()];
    while let Some(pos) = stack.pop() {
        let Some(a) = analysis.probe(&pos) else {
            continue;
        };
        // Grown to ply 3: the search's best move is among the moves, and
        // the value is the best line's, moved towards the position's own
        // search by up to the searches' noise.
        if pos.ply() < 3 {
            assert!(
                a.moves.iter().any(|m| m.mv == a.search.best),
                "{}",
                pos.fen()
            );
            let line = i32::from(a.moves[0].score);
            let own = i32::from(a.search.score);
            let beyond = ((line - own).abs() - i32::from(xqbook::SEARCH_NOISE)).max(0);
            let decided = i32::from(xqbook::DECIDED);
            if line.abs() <= decided && own.abs() <= decided {
                assert_eq!(i32::from(a.value), own + beyond * (line - own).signum());
            }
        }
        for m in &a.moves {
            let mut child = pos.clone();
            child.make_move(m.mv);
            if let Some(c) = positions.get(&book_key(&child).0) {
                assert_eq!(m.score, xqbook::one_ply_up(c.value), "{}", pos.fen());
                // The book behind it: its own ply and the line its score
                // comes from (none when that is the search's alone).
                let behind = if c.value == c.moves[0].score || c.value != c.search.score {
                    c.moves[0].depth
                } else {
                    0
                };
                assert_eq!(m.depth, behind + 1);
                checked += 1;
            }
            stack.push(child);
        }
    }
    assert!(checked > 10, "{checked}");
    // The book moves are all there, with their games.
    let start = analysis.probe(&Position::start()).unwrap();
    for b in book.probe(&Position::start()).unwrap() {
        assert!(start.moves.iter().any(|m| m.mv == b.mv && m.in_book));
    }
}

#[test]
fn a_damaged_or_foreign_analysis_is_refused_naming_the_file() {
    let dir = tempfile::tempdir().unwrap();
    let book_path = small_book(dir.path(), "a.xqb", "2");
    let other_path = small_book(dir.path(), "b.xqb", "3");
    let (book, other) = (
        Book::open(&book_path).unwrap(),
        Book::open(&other_path).unwrap(),
    );
    let never = AtomicBool::new(false);
    analyse(&book, None, &config(), &never, &|_| {}).unwrap();
    let xqa = book_path.with_extension("xqa");
    let err = Analysis::open(&xqa, &other).unwrap_err();
    assert!(matches!(err, AnalysisError::OtherBook { .. }), "{err}");
    assert!(err.to_string().contains("a.xqa"), "{err}");
    let mut bytes = std::fs::read(&xqa).unwrap();
    let middle = bytes.len() / 2;
    bytes[middle] ^= 0x40;
    std::fs::write(&xqa, &bytes).unwrap();
    let err = Analysis::open(&xqa, &book).unwrap_err();
    assert!(err.to_string().contains("a.xqa"), "{err}");
    std::fs::write(&xqa, &bytes[..bytes.len() - 9]).unwrap();
    let err = Analysis::open(&xqa, &book).unwrap_err();
    assert!(err.to_string().contains("a.xqa"), "{err}");
}

#[test]
fn the_command_analyses_and_says_what_it_did() {
    let dir = tempfile::tempdir().unwrap();
    let book_path = small_book(dir.path(), "c.xqb", "2");
    let out = stdout(&bookgen(&[
        "analyse",
        "-q",
        "--depth",
        "2",
        "--net",
        "hce",
        "--tables",
        "none",
        "--grow",
        "5",
        s(&book_path),
    ]));
    assert!(out.contains("positions analysed"), "{out}");
    assert!(out.contains("(5 added by the analysis)"), "{out}");
    assert!(out.contains("at depth 2 with hce"), "{out}");
    assert!(book_path.with_extension("xqa").is_file());
    // probe gives the analysis: the value, then each move with its score.
    let probe = stdout(&bookgen(&["probe", s(&book_path)]));
    assert!(probe.starts_with("value "), "{probe}");
    assert!(
        probe.contains(" score ") && probe.contains(" games "),
        "{probe}"
    );
    let stats = stdout(&bookgen(&["stats", s(&book_path)]));
    assert!(stats.contains("at depth 2 by xqengine"), "{stats}");
    // ElephantEye's book has no games to analyse.
    let eleeye = Path::new(env!("CARGO_MANIFEST_DIR")).join("../data/eleeye/BOOK.DAT");
    let o = bookgen(&["analyse", "-q", "--depth", "1", s(&eleeye)]);
    assert!(!o.status.success());
    assert!(String::from_utf8_lossy(&o.stderr).contains("BOOK.DAT"));
}

#[test]
fn shards_and_their_merge_give_the_analysis_of_one_run() {
    let dir = tempfile::tempdir().unwrap();
    let book_path = small_book(dir.path(), "small.xqb", "3");
    let book = Book::open(&book_path).unwrap();
    let never = AtomicBool::new(false);
    let whole = dir.path().join("whole.xqa");
    analyse(&book, Some(&whole), &config(), &never, &|_| {}).unwrap();
    let merged = dir.path().join("merged.xqa");
    let mut searched = 0;
    for index in 0..3 {
        let mut cfg = config();
        cfg.shard = Some(bookgen::analyse::Shard { index, count: 3 });
        let s = analyse(&book, Some(&merged), &cfg, &never, &|_| {}).unwrap();
        assert!(s
            .output
            .to_string_lossy()
            .ends_with(&format!("merged.xqa.shard-{index}-of-3.journal")));
        searched += s.searched_now;
    }
    assert!(!merged.exists());
    let last = analyse(&book, Some(&merged), &config(), &never, &|_| {}).unwrap();
    // The merge searched only what the book grew by.
    assert!(last.searched_now <= 12, "{last:?}");
    assert_eq!(searched + last.searched_now, last.searched);
    assert_eq!(
        std::fs::read(&whole).unwrap(),
        std::fs::read(&merged).unwrap()
    );
    assert!(!dir.path().join("merged.xqa.shard-0-of-3.journal").exists());
}

#[test]
fn the_plan_runs_under_make() {
    let dir = tempfile::tempdir().unwrap();
    let book_path = small_book(dir.path(), "small.xqb", "2");
    let makefile = dir.path().join("Makefile");
    let slurm = dir.path().join("submit.sh");
    let args = [
        "--depth", "2", "--net", "hce", "--tables", "none", "--grow", "4",
    ];
    let mut plan = vec![
        "analyse",
        "--plan",
        "3",
        "--makefile",
        s(&makefile),
        "--slurm",
        s(&slurm),
    ];
    plan.extend(args);
    plan.push(s(&book_path));
    stdout(&bookgen(&plan));
    let script = std::fs::read_to_string(&slurm).unwrap();
    assert!(
        script.contains("--array=0-2") && script.contains("afterok"),
        "{script}"
    );
    let make = std::process::Command::new("make")
        .args(["-j", "2", "-f", s(&makefile)])
        .arg(format!("BOOKGEN={}", env!("CARGO_BIN_EXE_bookgen")))
        .current_dir(dir.path())
        .output()
        .unwrap();
    assert!(
        make.status.success(),
        "{}",
        String::from_utf8_lossy(&make.stderr)
    );
    // The same analysis as one run with those options.
    let one = dir.path().join("one.xqa");
    let mut run = vec!["analyse", "-q", "-o", s(&one)];
    run.extend(args);
    run.push(s(&book_path));
    stdout(&bookgen(&run));
    let planned = book_path.with_extension("xqa");
    assert_eq!(
        std::fs::read(&planned).unwrap(),
        std::fs::read(&one).unwrap()
    );
}

#[test]
fn games_grow_the_book_with_their_lines() {
    let dir = tempfile::tempdir().unwrap();
    let book_path = small_book(dir.path(), "small.xqb", "2");
    let book = Book::open(&book_path).unwrap();
    let start = Position::start();
    let line: Vec<xqcore::Move> = ["a3a4", "a6a5", "i3i4", "i6i5"]
        .iter()
        .scan(start.clone(), |pos, m| {
            let mv = pos.parse_move(m).unwrap();
            pos.make_move(mv);
            Some(mv)
        })
        .collect();
    let mut cfg = config();
    cfg.grow = 0;
    cfg.grow_from = vec![(start.clone(), line.clone())];
    let never = AtomicBool::new(false);
    analyse(&book, None, &cfg, &never, &|_| {}).unwrap();
    let analysis = Analysis::open(&book_path.with_extension("xqa"), &book).unwrap();
    // Up to --grow-plies (3): the game's first three moves, each scored.
    let mut pos = start;
    for (ply, mv) in line.iter().enumerate() {
        let a = analysis.probe(&pos);
        let found = a
            .as_ref()
            .and_then(|a| a.moves.iter().find(|m| m.mv == *mv));
        if ply < 3 {
            assert!(found.is_some_and(|m| !m.in_book), "ply {ply}: {a:?}");
            // The games' positions gain their best moves though --grow
            // allows none: the lines the engine meets end in no position
            // whose best move is unknown.
            let a = a.unwrap();
            assert!(
                a.moves.iter().any(|m| m.mv == a.search.best),
                "ply {ply}: {a:?}"
            );
        } else {
            assert!(found.is_none(), "ply {ply}: {a:?}");
        }
        pos.make_move(*mv);
    }
}

#[test]
fn the_first_plies_are_searched_at_the_deep_budget() {
    let dir = tempfile::tempdir().unwrap();
    let book_path = small_book(dir.path(), "small.xqb", "3");
    let book = Book::open(&book_path).unwrap();
    let never = AtomicBool::new(false);
    let shallow = analyse(&book, None, &config(), &never, &|_| {}).unwrap();
    // Positions before ply 2 again, deeper; the rest as they were.
    let mut deep = config();
    deep.deep = Some((2, Budget::Depth(5)));
    let s = analyse(&book, None, &deep, &never, &|_| {}).unwrap();
    assert!(
        s.searched_now > 0 && s.searched_now < shallow.searched / 2,
        "{s:?}"
    );
    let analysis = Analysis::open(&book_path.with_extension("xqa"), &book).unwrap();
    assert_eq!(analysis.header().budget, "depth 3, depth 5 before ply 2");
    let start = analysis.probe(&Position::start()).unwrap();
    assert_eq!(start.search.depth, 5);
}

#[test]
fn the_engines_own_lines_are_refined_deeper() {
    let dir = tempfile::tempdir().unwrap();
    let book_path = small_book(dir.path(), "small.xqb", "3");
    let book = Book::open(&book_path).unwrap();
    let never = AtomicBool::new(false);
    let mut cfg = config();
    cfg.refine = vec![bookgen::analyse::Refine {
        plies: 2,
        budget: Budget::Depth(5),
        margin: 30,
    }];
    analyse(&book, None, &cfg, &never, &|_| {}).unwrap();
    // Run again, it finds every search in the journal and writes the same.
    let xqa = book_path.with_extension("xqa");
    let written = std::fs::read(&xqa).unwrap();
    let again = analyse(&book, None, &cfg, &never, &|_| {}).unwrap();
    assert_eq!(again.searched_now, 0);
    assert_eq!(std::fs::read(&xqa).unwrap(), written);
    let analysis = Analysis::open(&xqa, &book).unwrap();
    assert_eq!(
        analysis.header().budget,
        "depth 3, depth 5 along the moves within 30 cp before ply 2"
    );
    // From the start, both sides playing the moves within the margin: the
    // positions before ply 2 and those their moves lead to are searched
    // deeper, and the search's best move is among their moves.
    let start = analysis.probe(&Position::start()).unwrap();
    assert_eq!(start.search.depth, 5);
    assert!(start.moves.iter().any(|m| m.mv == start.search.best));
    let mut deeper = 0;
    for m in start.moves.iter().filter(|m| m.score >= start.value - 30) {
        let mut child = Position::start();
        child.make_move(m.mv);
        let a = analysis.probe(&child).unwrap();
        assert_eq!(a.search.depth, 5, "{}", m.mv);
        assert!(a.moves.iter().any(|x| x.mv == a.search.best));
        deeper += 1;
    }
    assert!(deeper >= 1);
}

/// Tiers of refining: each searches its own plies at its own budget, the
/// deeper tier's budget wins where they overlap, and a rerun finds all of
/// it in the journal.
#[test]
fn refining_tiers_search_the_first_plies_deepest() {
    let dir = tempfile::tempdir().unwrap();
    let book_path = small_book(dir.path(), "tiers.xqb", "3");
    let book = Book::open(&book_path).unwrap();
    let never = AtomicBool::new(false);
    let mut cfg = config();
    let tier = |plies, depth| bookgen::analyse::Refine {
        plies,
        budget: Budget::Depth(depth),
        margin: 30,
    };
    cfg.refine = vec![tier(2, 5), tier(1, 6)];
    analyse(&book, None, &cfg, &never, &|_| {}).unwrap();
    let again = analyse(&book, None, &cfg, &never, &|_| {}).unwrap();
    assert_eq!(again.searched_now, 0);
    let analysis = Analysis::open(&book_path.with_extension("xqa"), &book).unwrap();
    assert_eq!(
        analysis.header().budget,
        "depth 3, depth 5 along the moves within 30 cp before ply 2, \
         depth 6 along the moves within 30 cp before ply 1"
    );
    let start = analysis.probe(&Position::start()).unwrap();
    assert_eq!(start.search.depth, 6);
    let mut grandchildren = 0;
    for m in start.moves.iter().filter(|m| m.score >= start.value - 30) {
        let mut child = Position::start();
        child.make_move(m.mv);
        let a = analysis.probe(&child).unwrap();
        // Reached by a move of the first tier's position: its budget.
        assert_eq!(a.search.depth, 6, "{}", m.mv);
        for r in a.moves.iter().filter(|r| r.score >= a.value - 30) {
            let mut grandchild = child.clone();
            grandchild.make_move(r.mv);
            if let Some(g) = analysis.probe(&grandchild) {
                assert_eq!(g.search.depth, 5, "{} {}", m.mv, r.mv);
                grandchildren += 1;
            }
        }
    }
    assert!(grandchildren >= 1);
}

/// The engine's lines scored together: the moves near the best at the
/// start take their scores from one search of it, not from the searches
/// after them; a run cut inside those searches resumes to the same file,
/// and a rerun finds them all in the journal.
#[test]
fn moves_scored_together_take_the_place_of_searches_apart() {
    let dir = tempfile::tempdir().unwrap();
    let book_path = small_book(dir.path(), "t.xqb", "3");
    let book = Book::open(&book_path).unwrap();
    let never = AtomicBool::new(false);
    let mut cfg = config();
    // One thread: the journal ends with the last search of moves together.
    cfg.threads = 1;
    cfg.together = Some(Together {
        plies: 2,
        depth: 4,
        margin: 30,
        averaged: 1,
    });
    let whole = dir.path().join("whole.xqa");
    analyse(&book, Some(&whole), &cfg, &never, &|_| {}).unwrap();
    let analysis = Analysis::open(&whole, &book).unwrap();
    assert_eq!(
        analysis.header().budget,
        "depth 3, moves scored together at depth 4 along the moves within 30 cp before ply 2"
    );
    let start = analysis.probe(&Position::start()).unwrap();
    let best = start.moves[0].score;
    let near: Vec<_> = start
        .moves
        .iter()
        .filter(|m| m.score >= best - TOGETHER_WINDOW)
        .collect();
    assert!(near.len() >= 2, "{start:?}");
    // Scored by the start's own search: one ply of book behind them.
    assert!(near.iter().all(|m| m.depth == 1), "{near:?}");
    let plain = analyse(
        &book,
        Some(&dir.path().join("plain.xqa")),
        &config(),
        &never,
        &|_| {},
    );
    plain.unwrap();
    let plain = Analysis::open(&dir.path().join("plain.xqa"), &book).unwrap();
    let plain_start = plain.probe(&Position::start()).unwrap();
    assert_ne!(plain_start.moves, start.moves);
    // Cut inside the last search of moves together (its records half
    // written): the resumed run searches it again and writes the same.
    let journal = journal_path(&whole);
    let cut = dir.path().join("cut.xqa");
    std::fs::copy(&journal, journal_path(&cut)).unwrap();
    let len = std::fs::metadata(&journal).unwrap().len();
    std::fs::OpenOptions::new()
        .write(true)
        .open(journal_path(&cut))
        .unwrap()
        .set_len(len - 24 - 7)
        .unwrap();
    let resumed = analyse(&book, Some(&cut), &cfg, &never, &|_| {}).unwrap();
    assert_eq!(resumed.searched_now, 1, "{resumed:?}");
    assert_eq!(std::fs::read(&cut).unwrap(), std::fs::read(&whole).unwrap());
    let again = analyse(&book, Some(&whole), &cfg, &never, &|_| {}).unwrap();
    assert_eq!(again.searched_now, 0, "{again:?}");
}

#[test]
fn quality_judges_both_ways_and_resumes_from_its_journal() {
    let dir = tempfile::tempdir().unwrap();
    let book_path = small_book(dir.path(), "q.xqb", "3");
    let analyse_args = [
        "analyse", "-q", "--depth", "2", "--net", "hce", "--tables", "none",
    ];
    let mut run = analyse_args.to_vec();
    run.push(s(&book_path));
    stdout(&bookgen(&run));
    let journal = dir.path().join("judge.journal");
    let quality = |extra: &str| {
        let mut args = vec!["quality", "--depth", "3", "--max-ply", "3", "--net", "hce"];
        args.extend_from_slice(&[extra, s(&book_path)]);
        stdout(&bookgen(&args))
    };
    let journal_flag = format!("--journal={}", s(&journal));
    let judge = || quality(&journal_flag);
    let first = judge();
    let lines: Vec<&str> = first.lines().collect();
    assert!(lines[1].starts_with("by weight: "), "{first}");
    assert!(lines[2].starts_with("analysed, margin 15: "), "{first}");
    // The analysed book alone is judged as it is beside the book by weight.
    let only = quality("--analysed-only");
    assert_eq!(only.lines().nth(1), Some(lines[2]), "{only}");
    assert!(!only.contains("by weight"), "{only}");
    // At the engine's default selectivity it plays the heaviest move only:
    // one move a position, among those judged by weight.
    let counts = |row: &str| -> (usize, usize) {
        let n: Vec<usize> = row
            .split(|c: char| !c.is_ascii_digit())
            .filter_map(|w| w.parse().ok())
            .collect();
        // "NAME[, margin 15]: P positions, M moves; ..."
        let skip = usize::from(row.starts_with("analysed"));
        (n[skip], n[skip + 1])
    };
    let heaviest = quality("--selectivity=none");
    assert!(
        heaviest
            .lines()
            .next()
            .unwrap()
            .contains("at selectivity none"),
        "{heaviest}"
    );
    for row in heaviest.lines().skip(1).take(2) {
        let (positions, moves) = counts(row);
        assert!(positions > 0 && moves == positions, "{heaviest}");
        // One line, every move in it played in every game: as games play
        // them is move by move, and its moves 50 cp short are the count.
        let figure = |after: &str| -> f64 {
            let at = row.find(after).unwrap_or_else(|| panic!("{after}: {row}"));
            let rest = &row[at + after.len()..];
            let word = rest.split_whitespace().next().unwrap();
            word.trim_end_matches([';', ',']).parse().unwrap()
        };
        assert_eq!(
            figure("(by share) "),
            figure("as games play them: "),
            "{row}"
        );
        assert_eq!(figure("a move, "), figure("best: "), "{row}");
    }
    let (positions, moves) = counts(lines[1]);
    assert!(
        moves > positions,
        "by weight, several moves somewhere: {first}"
    );
    let searched = std::fs::metadata(&journal).unwrap().len();
    // Again: every search is in the journal, the same judgement.
    let second = judge();
    assert_eq!(std::fs::metadata(&journal).unwrap().len(), searched);
    assert_eq!(
        first.lines().take(3).collect::<Vec<_>>(),
        second.lines().take(3).collect::<Vec<_>>()
    );
}

/// A UCI engine that plays the edge pawn of the side to move (legal in the
/// small book's positions) and scores each position by the length of the
/// `position` line it was sent; asked to search some moves, it gives each
/// a line (MultiPV) scored by that length and the line's number, and
/// plays the first; it names itself `name`. With `bad`, it
/// answers a move that is never legal. It refuses UCCI at once, as
/// Pikafish does.
fn fake_judge(name: &str, bad: bool) -> String {
    let (red, black) = if bad {
        ("a0a0", "a9a9")
    } else {
        ("i3i4", "a6a5")
    };
    format!(
        "while read -r line; do case \"$line\" in \
         uci) echo 'id name {name}'; echo uciok;; isready) echo readyok;; \
         position*) n=${{#line}}; case \"$line\" in *' w '*) m={red};; *) m={black};; esac;; \
         go*searchmoves*) set -- $line; shift 4; i=1; for x in \"$@\"; do \
           echo \"info depth 3 multipv $i score cp $(( ((n + i) % 7) * 10 )) pv $x\"; i=$((i + 1)); done; \
           echo \"bestmove $1\";; \
         go*) echo \"info depth 3 score cp $(( (n % 7) * 10 )) pv $m\"; echo \"bestmove $m\";; \
         ucinewgame|setoption*) ;; quit) exit 0;; *) echo \"Unknown command: '$line'\";; esac; done"
    )
}

#[test]
fn quality_takes_another_program_as_its_judge() {
    let dir = tempfile::tempdir().unwrap();
    let book_path = small_book(dir.path(), "j.xqb", "3");
    let journal = dir.path().join("fake.journal");
    let judge = |engine: &str| {
        bookgen(&[
            "quality",
            "--depth",
            "3",
            "--max-ply",
            "3",
            "--threads",
            "2",
            "--judge",
            engine,
            "--journal",
            s(&journal),
            s(&book_path),
        ])
    };
    let first = stdout(&judge(&fake_judge("Fake", false)));
    assert!(first.starts_with("judged by Fake at depth 3,"), "{first}");
    let by_weight = first.lines().nth(1).unwrap();
    assert!(by_weight.starts_with("by weight: "), "{first}");
    // The fake's scores differ from position to position: some moves lose.
    assert!(
        !by_weight.contains("loss per move (by share) 0.0 cp"),
        "{first}"
    );
    let journal_text = String::from_utf8_lossy(&std::fs::read(&journal).unwrap()).into_owned();
    assert!(
        journal_text.contains("engine Fake\n"),
        "the journal is kept under its name"
    );
    let searched = std::fs::metadata(&journal).unwrap().len();
    let again = stdout(&judge(&fake_judge("Fake", false)));
    let judgement = |text: &str| text.lines().take(2).collect::<Vec<_>>().join("\n");
    assert_eq!(judgement(&again), judgement(&first));
    assert_eq!(std::fs::metadata(&journal).unwrap().len(), searched);
    // Another program's journal is refused; an illegal answer names the program.
    let other = judge(&fake_judge("Other", false));
    assert!(!other.status.success());
    let failing = judge(&fake_judge("Broken", true));
    assert!(!failing.status.success());
    let why = String::from_utf8_lossy(&failing.stderr);
    assert!(why.contains("Other") || why.contains("Broken"), "{why}");
    // Nothing to judge with --analysed-only: this book has no analysis.
    let none = bookgen(&["quality", "--analysed-only", s(&book_path)]);
    assert!(!none.status.success());
    assert!(String::from_utf8_lossy(&none.stderr).contains("no analysis beside it to judge"));
    let fresh = dir.path().join("broken.journal");
    let broken = bookgen(&[
        "quality",
        "--depth",
        "3",
        "--judge",
        &fake_judge("Broken", true),
        "--journal",
        s(&fresh),
        s(&book_path),
    ]);
    let why = String::from_utf8_lossy(&broken.stderr);
    assert!(
        why.contains("Broken: illegal best move a0a0, searching ") && why.contains(" w - - ")
            || why.contains("Broken: illegal best move a9a9, searching ")
                && why.contains(" b - - "),
        "{why}"
    );
}

#[test]
fn a_journal_holding_deeper_searches_gives_the_unbroken_runs_analysis() {
    let refine = |margin| {
        let mut cfg = config();
        cfg.refine = vec![bookgen::analyse::Refine {
            plies: 3,
            budget: Budget::Depth(5),
            margin,
        }];
        cfg
    };
    let never = AtomicBool::new(false);
    let analysed = |dir: &Path, margins: &[i16]| {
        let book_path = small_book(dir, "r.xqb", "3");
        let book = Book::open(&book_path).unwrap();
        for &margin in margins {
            analyse(&book, None, &refine(margin), &never, &|_| {}).unwrap();
        }
        std::fs::read(book_path.with_extension("xqa")).unwrap()
    };
    let unbroken = tempfile::tempdir().unwrap();
    let resumed = tempfile::tempdir().unwrap();
    // The journal of a run refining more lines (a wider margin) holds
    // deeper searches than the narrower refining asks for at first; they
    // are taken in only when asked for, so the narrower run decides as it
    // would alone.
    assert_eq!(
        analysed(resumed.path(), &[200, 30]),
        analysed(unbroken.path(), &[30])
    );
}

/// The games the default book's analysis grows from, from their start.
fn shipped_games(path: &Path) -> Vec<(Position, Vec<xqcore::Move>)> {
    let records = xqrecords::read_file(path, &Default::default(), &|_| {}).unwrap();
    assert!(records.errors.is_empty(), "{:?}", records.errors);
    records
        .games
        .into_iter()
        .map(|g| (g.start, g.moves))
        .collect()
}

/// The default book's analysis is its journal's fixed point: the last
/// command of data/README.md, run again on the shipped journal with the
/// net it was made with, has
/// nothing left to search and writes the shipped file byte for byte (the
/// analysis decides what to search, grow and refine from its results
/// alone, in a fixed order).
#[test]
fn the_shipped_analysis_is_what_its_journal_gives() {
    let data = Path::new(env!("CARGO_MANIFEST_DIR")).join("../data");
    let dir = tempfile::tempdir().unwrap();
    for name in ["book.xqb", "book.xqa.journal"] {
        std::fs::copy(data.join(name), dir.path().join(name)).unwrap();
    }
    let book = Book::open(&dir.path().join("book.xqb")).unwrap();
    // The command's default: data/egtb when it is there (the README's first
    // command builds it; a clean clone has none). No book position has few
    // enough pieces for a table, so the file is the same either way.
    let tables = xqcli::data::open_tables_option(None)
        .unwrap()
        .map(|(tables, _)| tables);
    let cfg = AnalyseConfig {
        budget: Budget::Nodes(200_000),
        deep: Some((9, Budget::Nodes(1_000_000))),
        refine: vec![
            bookgen::analyse::Refine {
                plies: 30,
                budget: Budget::Nodes(4_000_000),
                margin: 20,
            },
            bookgen::analyse::Refine {
                plies: 10,
                budget: Budget::Nodes(10_000_000),
                margin: 20,
            },
        ],
        threads: 2,
        // The net the analysis was made with, the built-in one then.
        net: Some(std::sync::Arc::new(
            xqnnue::Network::load(&data.join("../nnue/nets/d7759b8f.xqnn")).unwrap(),
        )),
        tables,
        grow: 10_000,
        grow_plies: 30,
        hash_mb: 16,
        shard: None,
        grow_from: shipped_games(&data.join("book-games.pgn")),
        together: Some(Together {
            plies: 10,
            depth: 24,
            margin: 20,
            averaged: 6,
        }),
    };
    // A search asked for stops the run at once: none should be.
    let stop = AtomicBool::new(false);
    let outcome = analyse(&book, None, &cfg, &stop, &|p| {
        if p.to_search > p.searched {
            stop.store(true, Ordering::Relaxed);
        }
    });
    match outcome {
        Ok(summary) => assert_eq!(summary.searched_now, 0, "{summary:?}"),
        Err(AnalyseError::Stopped) => panic!(
            "the shipped analysis is not its journal's fixed point: it asks for more \
             searches (run data/README.md's last command to its end)"
        ),
        Err(e) => panic!("{e}"),
    }
    let written = std::fs::read(dir.path().join("book.xqa")).unwrap();
    assert!(written == std::fs::read(data.join("book.xqa")).unwrap());
}
