//! The engine under XBoard's protocol (CECP 2), as XBoard drives it: the
//! features, moves on its own turn by the clock, `force`, `undo`,
//! `setboard`, `st`/`sd`, `ping`, analysis, and a whole game between two
//! engines relayed move by move as XBoard's two-machine mode relays them.

mod common;

use common::{Engine, SECS};
use xqcore::{EndRules, Position};

/// An engine in XBoard mode, its features read, at a new game of xiangqi.
fn xboard() -> Engine {
    let mut e = Engine::start();
    e.send("xboard");
    e.send("protover 2");
    let features = e.collect_until("feature done=1", SECS(5));
    let all = features.join(" ");
    for feature in [
        "variants=\"xiangqi\"",
        "usermove=1",
        "setboard=1",
        "ping=1",
        "analyze=1",
    ] {
        assert!(all.contains(feature), "{feature}: {features:#?}");
    }
    e.send("new");
    e.send("variant xiangqi");
    e
}

/// The move of a `move M` line.
fn moved(line: &str) -> String {
    line.strip_prefix("move ")
        .unwrap_or_else(|| panic!("{line}"))
        .to_string()
}

#[test]
fn the_engine_answers_on_its_turn_by_the_clock_and_posts_its_thinking() {
    let mut e = xboard();
    e.send("level 0 1 0");
    e.send("post");
    e.send("time 6000");
    e.send("otim 6000");
    // Out of the book, so that the engine thinks.
    e.send("setboard r1bakab1r/9/1cn3nc1/p1p1p1p1p/9/9/P1P1P1P1P/1CN3NC1/9/R1BAKAB1R w - - 0 1");
    e.send("usermove a3a4");
    let lines = e.collect_until("move ", SECS(20));
    let answer = moved(lines.last().unwrap());
    let mut pos =
        Position::from_fen("r1bakab1r/9/1cn3nc1/p1p1p1p1p/9/9/P1P1P1P1P/1CN3NC1/9/R1BAKAB1R w")
            .unwrap();
    pos.make_move(pos.parse_move("a3a4").unwrap());
    assert!(pos.parse_move(&answer).is_ok(), "{answer}");
    // Thinking: depth, score, centiseconds, nodes, the line.
    let thinking: Vec<&String> = lines
        .iter()
        .filter(|l| {
            l.split(' ')
                .next()
                .is_some_and(|d| d.parse::<u32>().is_ok())
        })
        .collect();
    assert!(!thinking.is_empty(), "{lines:#?}");
    for l in &thinking {
        let fields: Vec<&str> = l.split(' ').collect();
        assert!(fields.len() >= 5, "{l}");
        assert!(fields[1..4].iter().all(|f| f.parse::<i64>().is_ok()), "{l}");
    }
    e.send("ping 7");
    e.expect("pong 7", SECS(5));
    e.send("quit");
    assert!(e.wait_exit(SECS(5)));
}

#[test]
fn force_undo_setboard_and_go_set_up_the_game_the_gui_wants() {
    let mut e = xboard();
    e.send("sd 2");
    e.send("force");
    e.send("usermove h2e2");
    e.send("usermove h9g7");
    // In force mode nothing is played; an illegal move is refused.
    e.send("usermove a0a5");
    e.expect("Illegal move: a0a5", SECS(5));
    e.send("undo");
    // Black to move again (h9g7 taken back): `go` makes the engine Black.
    e.send("go");
    let answer = moved(&e.expect("move ", SECS(20)));
    let mut pos = Position::start();
    pos.make_move(pos.parse_move("h2e2").unwrap());
    assert!(pos.parse_move(&answer).is_ok(), "{answer}");
    // A position of the GUI's: a rook against a bare king; the engine, Red,
    // mates.
    e.send("force");
    e.send("setboard 3k5/9/9/9/9/9/9/9/4R4/4K4 w - - 0 1");
    e.send("st 1");
    e.send("go");
    let answer = moved(&e.expect("move ", SECS(20)));
    let pos = Position::from_fen("3k5/9/9/9/9/9/9/9/4R4/4K4 w").unwrap();
    assert!(pos.parse_move(&answer).is_ok(), "{answer}");
    e.send("variant shogi");
    e.expect("Error (unsupported variant): shogi", SECS(5));
    e.send("quit");
}

#[test]
fn analyze_posts_lines_until_exit() {
    let mut e = xboard();
    e.send("post");
    e.send("analyze");
    let line = e.expect("", SECS(10));
    assert!(
        line.split(' ').next().unwrap().parse::<u32>().is_ok(),
        "{line}"
    );
    e.send("usermove h2e2");
    e.send("exit");
    e.send("ping 1");
    e.collect_until("pong 1", SECS(10));
    e.send("quit");
    assert!(e.wait_exit(SECS(5)));
}

#[test]
fn two_engines_play_a_whole_game_through_the_protocol() {
    // As XBoard's two-machine mode: Red told `go`, each move passed to the
    // other as `usermove`, until the game ends (by the rules, or a side
    // resigns) or 200 plies.
    let mut red = xboard();
    let mut black = xboard();
    for e in [&mut red, &mut black] {
        e.send("sd 3");
    }
    red.send("go");
    let mut pos = Position::start();
    let mut to_move = 0;
    let mut plies = 0;
    while pos.outcome(&EndRules::default()).is_none() && plies < 200 {
        let (mover, other) = if to_move == 0 {
            (&mut red, &mut black)
        } else {
            (&mut black, &mut red)
        };
        let line = loop {
            let line = mover.next_line(SECS(20)).expect("an answer within 20 s");
            if line.starts_with("move ") || line == "resign" {
                break line;
            }
        };
        if line == "resign" {
            break;
        }
        let text = moved(&line);
        let mv = pos
            .parse_move(&text)
            .unwrap_or_else(|e| panic!("ply {plies}: {text}: {e}"));
        pos.make_move(mv);
        other.send(&format!("usermove {text}"));
        to_move = 1 - to_move;
        plies += 1;
    }
    assert!(plies >= 20, "{plies} plies");
    for e in [&mut red, &mut black] {
        e.send("quit");
        assert!(e.wait_exit(SECS(5)));
    }
}
