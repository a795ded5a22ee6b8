//! The UCCI and UCI protocols, driven over stdin/stdout.

mod common;
mod levels;

use std::time::{Duration, Instant};

use common::{best_of, search_infos, Engine, SECS};
use xqcore::Position;
use xqmatch::{read_answer, Answer, EngineScore, Protocol};

#[test]
fn ucci_handshake_lists_every_option() {
    let mut e = Engine::start();
    e.send("ucci");
    let lines = e.collect_until("ucciok", SECS(5));
    assert!(lines[0].starts_with("id name xqengine"));
    for name in [
        "usemillisec",
        "batch",
        "debug",
        "ponder",
        "usebook",
        "useegtb",
        "bookfiles",
        "egtbpaths",
        "hashsize",
        "threads",
        "drawmoves",
        "repetition",
        "pruning",
        "knowledge",
        "selectivity",
        "style",
        "loadbook",
        "clearhash",
        "newgame",
        "dualtime",
        "multipv",
        "moveoverhead",
    ] {
        assert!(
            lines
                .iter()
                .any(|l| l.starts_with(&format!("option {name} type "))),
            "option {name} missing: {lines:#?}"
        );
    }
    e.send("isready");
    e.expect("readyok", SECS(5));
    e.send("quit");
    e.expect("bye", SECS(5));
    assert!(e.wait_exit(SECS(5)));
}

#[test]
fn go_depth_answers_a_legal_move_with_info() {
    let mut e = Engine::ucci();
    e.send("position startpos moves h2e2");
    e.send("go depth 5");
    let lines = e.collect_until("bestmove", SECS(30));
    let info = search_infos(Protocol::Ucci, &lines)
        .into_iter()
        .find(|info| info.depth == Some(5))
        .expect("depth 5 info");
    let fields = [
        info.seldepth.map(u64::from),
        info.time_ms,
        info.nodes,
        info.nps,
    ];
    assert!(fields.iter().all(Option::is_some), "{info:?}");
    assert!(info.score.is_some() && !info.pv.is_empty(), "{info:?}");
    let best = best_of(lines.last().unwrap());
    let mut pos = Position::start();
    pos.make_move(pos.parse_move("h2e2").unwrap());
    assert!(pos.parse_move(&best).is_ok(), "{best} illegal");
}

#[test]
fn go_nodes_and_movetime_and_time_controls_all_end() {
    let mut e = Engine::ucci();
    e.send("position startpos");
    e.send("go nodes 20000");
    e.expect("bestmove", SECS(30));
    // UCCI times are seconds unless usemillisec.
    let t = Instant::now();
    e.send("go time 2 increment 0");
    e.expect("bestmove", SECS(10));
    assert!(
        t.elapsed() < Duration::from_millis(1500),
        "{:?}",
        t.elapsed()
    );
    e.send("setoption usemillisec true");
    let t = Instant::now();
    e.send("go time 3000 movestogo 10");
    e.expect("bestmove", SECS(10));
    assert!(
        t.elapsed() < Duration::from_millis(1500),
        "{:?}",
        t.elapsed()
    );
    e.send("go wtime 2000 btime 60000 increment 0");
    e.expect("bestmove", SECS(10));
    e.send("go time 1000 increment 100 opptime 5000 oppincrement 100");
    e.expect("bestmove", SECS(10));
}

#[test]
fn stop_ends_an_infinite_search_promptly() {
    let mut e = Engine::ucci();
    e.send("position startpos");
    e.send("go infinite");
    // An infinite search does not answer by itself.
    e.expect("info depth 3", SECS(10));
    std::thread::sleep(Duration::from_millis(300));
    e.send("isready");
    e.expect("readyok", SECS(2));
    let t = Instant::now();
    e.send("stop");
    let best = e.expect("bestmove", SECS(5));
    // The 50 ms target is checked by hand and in the README; this bound is generous for CI.
    assert!(
        t.elapsed() < Duration::from_millis(500),
        "stop took {:?}",
        t.elapsed()
    );
    assert!(Position::start().parse_move(&best_of(&best)).is_ok());
}

#[test]
fn ponder_waits_for_ponderhit_or_stop() {
    let mut e = Engine::ucci();
    e.send("position startpos moves h2e2");
    e.send("go ponder time 1 increment 0");
    // Pondering: no bestmove even past the time budget.
    e.expect("info depth 1", SECS(5));
    std::thread::sleep(Duration::from_millis(1200));
    while let Some(l) = e.next_line(Duration::from_millis(10)) {
        assert!(!l.starts_with("bestmove"), "answered while pondering: {l}");
    }
    let t = Instant::now();
    e.send("ponderhit");
    e.expect("bestmove", SECS(5));
    assert!(
        t.elapsed() < Duration::from_millis(1500),
        "{:?}",
        t.elapsed()
    );

    e.send("go ponder depth 3");
    e.expect("info depth 3", SECS(10));
    e.send("stop");
    e.expect("bestmove", SECS(2));
}

/// Red mates in one with h7e7 and no other move (data/mates.txt, verified by brute force).
const UNIQUE_MATE: &str = "2b1kab2/9/7C1/5P3/9/9/4C4/3K5/9/2B6 w - - 0 1";

#[test]
fn banned_moves_are_never_played() {
    let mut e = Engine::ucci();
    // Mate in one with h7e7 only (data/mates.txt); banning it must make the
    // engine play something else.
    e.send(&format!("position fen {UNIQUE_MATE}"));
    e.send("go depth 3");
    assert_eq!(best_of(&e.expect("bestmove", SECS(10))), "h7e7");
    e.send("banmoves h7e7");
    e.send("go depth 3");
    assert_ne!(best_of(&e.expect("bestmove", SECS(10))), "h7e7");
    // A new position clears the ban.
    e.send(&format!("position fen {UNIQUE_MATE}"));
    e.send("go depth 3");
    assert_eq!(best_of(&e.expect("bestmove", SECS(10))), "h7e7");
}

/// Whether an answer to `go` offers (or accepts) a draw.
fn offers_draw(answer: &str) -> bool {
    matches!(read_answer(answer), Some(Answer::Move { draw: true, .. }))
}

/// Reads until `bestmove` or `nobestmove` and returns that line.
fn answer(e: &mut Engine) -> String {
    let deadline = Instant::now() + SECS(20);
    loop {
        let l = e
            .next_line(deadline.saturating_duration_since(Instant::now()))
            .expect("an answer");
        if read_answer(&l).is_some() {
            return l;
        }
    }
}

#[test]
fn mated_and_stalemated_sides_have_no_move() {
    let mut e = Engine::ucci();
    e.send("position fen 3k5/1R7/9/9/9/9/9/9/9/R3K4 w - - 0 1 moves a0a9");
    e.send("go depth 5");
    assert_eq!(answer(&mut e), "nobestmove");
    e.send("position fen 3k5/R8/4R4/9/9/9/9/9/9/4K4 b - - 0 1");
    e.send("go time 5");
    assert_eq!(answer(&mut e), "nobestmove");
    e.send("position startpos");
    e.send("go depth 0");
    assert_eq!(answer(&mut e), "nobestmove");
    e.send("stop");
    assert_eq!(answer(&mut e), "nobestmove", "a stray stop gets nobestmove");
}

#[test]
fn bad_input_leaves_the_position_unchanged() {
    let mut e = Engine::ucci();
    // Mate in one for Red: if any bad line below changed the position, the answer would differ.
    e.send(&format!("position fen {UNIQUE_MATE}"));
    for bad in [
        "position fen 4k4/9/9/9/9/9/9/9/9/4K4 w",
        "position fen rnbakabnr/9/1c5c1/p1p1p1p1p/9/9/P1P1P1P1P/1C5C1/RNBAKABNR w",
        "position fen 3k5/1R7/9/9/9/9/9/9/9/R3K4 w - - 0 1 moves a0a9 d9d8",
        "position startpos moves h2e2 h9g7 e2e9",
        "position fen",
        "position",
        "go depth banana",
        "flibbertigibbet",
        "setoption hashsize lots",
    ] {
        e.send(bad);
        let reply = e.expect("info string", SECS(5));
        assert!(reply.len() > "info string ".len() + 5, "{bad}: {reply}");
    }
    e.send("go depth 3");
    assert_eq!(best_of(&answer(&mut e)), "h7e7");
    // Reasons name what is wrong.
    e.send("position startpos moves h2e2 h9g7 e2e9");
    let reply = e.expect("info string", SECS(5));
    assert!(
        reply.contains("move 3") && reply.contains("e2e9"),
        "{reply}"
    );
}

#[test]
fn garbage_and_long_lines_do_not_crash() {
    let mut e = Engine::ucci();
    e.send_raw(b"\xff\xfe\x00garbage\x01\x02\n");
    e.send(&"position startpos moves ".repeat(2000));
    e.send(&"h2e2 ".repeat(50_000));
    e.send("isready");
    e.expect("readyok", SECS(10));
    // CRLF line ends.
    e.send_raw(b"position startpos moves h2e2\r\ngo depth 2\r\n");
    let best = best_of(&answer(&mut e));
    let mut pos = Position::start();
    pos.make_move(pos.parse_move("h2e2").unwrap());
    assert!(pos.parse_move(&best).is_ok());
}

#[test]
fn commands_sent_right_after_bestmove_are_not_lost() {
    let mut e = Engine::ucci();
    for i in 0..20 {
        e.send("position startpos");
        e.send("go depth 2");
        e.send("position startpos moves h2e2");
        e.send("go depth 1");
        assert!(answer(&mut e).starts_with("bestmove"), "round {i}");
        let second = answer(&mut e);
        let mut pos = Position::start();
        pos.make_move(pos.parse_move("h2e2").unwrap());
        assert!(
            pos.parse_move(&best_of(&second)).is_ok(),
            "round {i}: {second}"
        );
    }
}

#[test]
fn quit_and_end_of_input_exit_even_while_thinking() {
    let mut e = Engine::ucci();
    e.send("position startpos");
    e.send("go infinite");
    e.expect("info depth 2", SECS(10));
    e.send("quit");
    e.expect("bye", SECS(2));
    assert!(e.wait_exit(SECS(2)));

    let mut e = Engine::ucci();
    e.send("go infinite");
    e.expect("info depth 2", SECS(10));
    e.close_stdin();
    assert!(e.wait_exit(SECS(2)));
}

#[test]
fn batch_mode_reads_nothing_until_the_search_ends() {
    let mut e = Engine::ucci();
    e.send("setoption batch true");
    e.send("position startpos");
    e.send("go depth 4");
    // In batch mode this stop is only read after the search: it finds the engine idle.
    e.send("stop");
    assert!(answer(&mut e).starts_with("bestmove"));
    assert_eq!(answer(&mut e), "nobestmove");
    // Searches that only stop or ponderhit can end still read them (the
    // fuzzer found `go ponder` in batch mode waiting for ever).
    for go in ["go ponder depth 2", "go infinite", "go"] {
        e.send(go);
        e.expect("info string batch", SECS(5));
        e.send("stop");
        assert!(answer(&mut e).starts_with("bestmove"), "{go}");
    }
}

#[test]
fn draw_offers_are_accepted_only_when_worse() {
    let mut e = Engine::ucci();
    // Red is a rook up: decline (no `draw`).
    e.send("position fen rnbakabn1/9/1c5c1/p1p1p1p1p/9/9/P1P1P1P1P/1C5C1/9/RNBAKABNR w - - 0 1");
    e.send("go draw depth 4");
    let l = answer(&mut e);
    assert!(!offers_draw(&l), "{l}");
    // Black to move and a rook down: accept.
    e.send("position fen rnbakabn1/9/1c5c1/p1p1p1p1p/9/9/P1P1P1P1P/1C5C1/9/RNBAKABNR b - - 0 1");
    e.send("go draw depth 4");
    let l = answer(&mut e);
    assert!(offers_draw(&l), "{l}");
}

#[test]
fn hopeless_positions_resign() {
    let mut e = Engine::ucci();
    // Black has a lone king against two rooks.
    e.send("position fen 3k5/9/9/9/9/9/9/2N1C4/R8/R3K4 b - - 0 1");
    e.send("go depth 6");
    let l = answer(&mut e);
    let resigns = matches!(read_answer(&l), Some(Answer::Move { resign: true, .. }));
    assert!(resigns, "{l}");
}

#[test]
fn uci_dialect_speaks_uci() {
    let mut e = Engine::start();
    e.send("uci");
    let lines = e.collect_until("uciok", SECS(5));
    assert!(lines
        .iter()
        .any(|l| l.starts_with("option name Hash type spin")));
    assert!(lines
        .iter()
        .any(|l| l.starts_with("option name MultiPV type spin")));
    assert!(lines
        .iter()
        .any(|l| l == "option name Move Overhead type spin default 50 min 0 max 5000"));
    // GUIs that play several variants are told this one plays xiangqi.
    assert!(
        lines
            .iter()
            .any(|l| l == "option name UCI_Variant type combo default xiangqi var xiangqi"),
        "{lines:#?}"
    );
    e.send("setoption name UCI_Variant value chess");
    let refused = e.expect("info string", SECS(5));
    assert!(refused.contains("xiangqi"), "{refused}");
    e.send("setoption name UCI_Variant value xiangqi");
    e.send("setoption name Hash value 8");
    e.send("setoption name MultiPV value 3");
    e.send("ucinewgame");
    e.send("isready");
    e.expect("readyok", SECS(5));
    e.send("position startpos moves h2e2");
    e.send("go depth 4");
    let lines = e.collect_until("bestmove", SECS(20));
    let depth4: Vec<_> = search_infos(Protocol::Uci, &lines)
        .into_iter()
        .filter(|info| info.depth == Some(4))
        .collect();
    for k in 1..=3 {
        assert!(
            depth4
                .iter()
                .any(|info| info.multipv == Some(k)
                    && matches!(info.score, Some(EngineScore::Cp(_)))),
            "{depth4:#?}"
        );
    }
    // Mate scores are given in moves.
    e.send("setoption name MultiPV value 1");
    e.send(&format!("position fen {UNIQUE_MATE}"));
    e.send("go wtime 2000 btime 2000 winc 10 binc 10");
    let lines = e.collect_until("bestmove", SECS(10));
    assert!(
        search_infos(Protocol::Uci, &lines)
            .iter()
            .any(|info| info.score == Some(EngineScore::Mate(1))),
        "{lines:#?}"
    );
    assert_eq!(best_of(lines.last().unwrap()), "h7e7");
    e.send("go movetime 200 searchmoves d2d1");
    assert_eq!(best_of(&e.expect("bestmove", SECS(5))), "d2d1");
    e.send("quit");
    assert!(e.wait_exit(SECS(5)));
}

/// XBoard's UCI adapter in its xiangqi (Cyclone) dialect sends the
/// position as `fen <FEN> [moves ...]`, without `position`.
#[test]
fn a_position_given_as_fen_alone_is_taken() {
    let mut e = Engine::start();
    e.send("uci");
    e.expect("uciok", SECS(5));
    // Red mates at once by h7e7 from here, and only from here.
    e.send(&format!("fen {UNIQUE_MATE}"));
    e.send("go depth 3");
    let lines = e.collect_until("bestmove", SECS(10));
    assert!(
        !lines.iter().any(|l| l.starts_with("info string")),
        "{lines:#?}"
    );
    assert_eq!(best_of(lines.last().unwrap()), "h7e7");
    e.send("fen rnbakabnr/9/1c5c1/p1p1p1p1p/9/9/P1P1P1P1P/1C5C1/9/RNBAKABNR w moves h2e2");
    e.send("go depth 1");
    let best = best_of(&e.expect("bestmove", SECS(10)));
    let mut pos = Position::start();
    pos.make_move(pos.parse_move("h2e2").unwrap());
    assert!(pos.parse_move(&best).is_ok(), "{best} is Black's move");
    // A bad one changes nothing, and says why.
    e.send("fen 9/9 w");
    assert!(e.expect("info string", SECS(5)).contains("FEN"));
}

#[test]
fn uci_show_wdl_prints_win_draw_and_loss_after_each_score() {
    let mut e = Engine::start();
    e.send("uci");
    let lines = e.collect_until("uciok", SECS(5));
    assert!(
        lines
            .iter()
            .any(|l| l == "option name UCI_ShowWDL type check default false"),
        "{lines:#?}"
    );
    e.send("setoption name Hash value 8");
    e.send("isready");
    e.expect("readyok", SECS(5));
    // Off by default: no `wdl`.
    e.send("position startpos");
    e.send("go depth 3");
    let lines = e.collect_until("bestmove", SECS(20));
    assert!(lines.iter().all(|l| !l.contains(" wdl ")), "{lines:#?}");
    e.send("setoption name UCI_ShowWDL value true");
    e.send("go depth 3");
    let lines = e.collect_until("bestmove", SECS(20));
    let wdl = |line: &String| -> Option<[u32; 3]> {
        let rest = line.split(" wdl ").nth(1)?;
        let n: Vec<u32> = rest
            .split(' ')
            .take(3)
            .map(|t| t.parse().unwrap())
            .collect();
        Some([n[0], n[1], n[2]])
    };
    let scored: Vec<[u32; 3]> = lines
        .iter()
        .filter(|l| l.contains(" score "))
        .filter_map(wdl)
        .collect();
    assert!(!scored.is_empty(), "{lines:#?}");
    for [w, d, l] in &scored {
        assert_eq!(w + d + l, 1000, "{lines:#?}");
    }
    // A rook up, Red wins nearly every game.
    e.send("position fen 3k5/9/9/9/9/9/9/9/4R4/4K4 w");
    e.send("go depth 6");
    let lines = e.collect_until("bestmove", SECS(20));
    let last = lines
        .iter()
        .rev()
        .filter(|l| l.contains(" score "))
        .find_map(wdl)
        .unwrap();
    assert!(last[0] > 900, "{lines:#?}");
    e.send("quit");
}

#[test]
fn ucci_has_no_wdl_option() {
    let mut e = Engine::start();
    e.send("ucci");
    let lines = e.collect_until("ucciok", SECS(5));
    assert!(
        lines.iter().all(|l| !l.to_lowercase().contains("showwdl")),
        "{lines:#?}"
    );
    e.send("quit");
}
