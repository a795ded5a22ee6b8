//! Protocol abuse: commands in the wrong state, `go` before `position`,
//! `stop` and `ponderhit` when idle, bursts of thousands of commands,
//! closing stdin mid-search. The engine always gives the documented reply
//! (README, "Engine") or exits cleanly.

mod common;

use common::{best_of, Engine, SECS};
use xqcore::Position;

/// Whether `mv` is legal after `moves` from the start.
fn legal_after(moves: &[&str], mv: &str) -> bool {
    let mut pos = Position::start();
    for m in moves {
        pos.make_move(pos.parse_move(m).unwrap());
    }
    pos.parse_move(mv).is_ok()
}

/// Sets `position` and starts `go`, then waits until the search is under way.
fn thinking(e: &mut Engine, position: &str, go: &str) {
    e.send(position);
    e.send(go);
    e.expect("info depth 2", SECS(10));
}

#[test]
fn go_before_any_position_searches_the_start() {
    let mut e = Engine::ucci();
    e.send("go depth 2");
    let best = best_of(&e.expect("bestmove", SECS(10)));
    assert!(legal_after(&[], &best), "{best}");
    // Even before the handshake.
    let mut e = Engine::start();
    e.send("go depth 1");
    let best = best_of(&e.expect("bestmove", SECS(10)));
    assert!(legal_after(&[], &best), "{best}");
}

#[test]
fn stop_and_ponderhit_when_idle() {
    let mut e = Engine::ucci();
    // ponderhit with nothing to hit is ignored; a stray stop gets nobestmove.
    e.send("ponderhit");
    e.send("ponderhit draw");
    e.send("stop");
    assert_eq!(e.expect("nobestmove", SECS(5)), "nobestmove");
    e.send("isready");
    let lines = e.collect_until("readyok", SECS(5));
    assert_eq!(lines, ["readyok"], "nothing else was printed");
}

#[test]
fn idle_commands_sent_while_thinking_first_end_the_search() {
    let mut e = Engine::ucci();
    thinking(&mut e, "position startpos", "go infinite");
    // `position` ends the search (its answer is printed for the old
    // position), then takes effect.
    e.send("position startpos moves h2e2");
    let first = best_of(&e.expect("bestmove", SECS(5)));
    assert!(legal_after(&[], &first), "{first}");
    e.send("banmoves h9g7");
    e.send("go depth 3");
    let second = best_of(&e.expect("bestmove", SECS(10)));
    assert!(
        legal_after(&["h2e2"], &second) && second != "h9g7",
        "{second}"
    );
    // The same for setoption, banmoves, ucci and go itself.
    for intruder in [
        "setoption hashsize 8",
        "banmoves h9g7",
        "ucci",
        "go depth 1",
    ] {
        thinking(&mut e, "position startpos moves h2e2", "go infinite");
        e.send(intruder);
        let best = best_of(&e.expect("bestmove", SECS(5)));
        assert!(legal_after(&["h2e2"], &best), "{intruder}: {best}");
    }
    e.expect("bestmove", SECS(10)); // the answer to the last `go depth 1`
    e.send("isready");
    e.expect("readyok", SECS(5));
}

#[test]
fn ten_thousand_commands_in_a_burst_are_all_answered() {
    let mut e = Engine::ucci();
    let mut burst = String::new();
    for i in 0..10_000 {
        burst.push_str(match i % 4 {
            0 => "position startpos moves h2e2 h9g7\n",
            1 => "isready\n",
            2 => "setoption drawmoves 100\n",
            _ => "banmoves b0c2\n",
        });
    }
    burst.push_str("go depth 1\n");
    e.send_raw(burst.as_bytes());
    let mut ready = 0;
    loop {
        let line = e.next_line(SECS(30)).expect("an answer to every command");
        if line == "readyok" {
            ready += 1;
        } else if line.starts_with("bestmove") {
            let best = best_of(&line);
            assert!(
                legal_after(&["h2e2", "h9g7"], &best) && best != "b0c2",
                "{best}"
            );
            break;
        }
    }
    assert_eq!(ready, 2_500);
    // And a burst of searches: each `go` gets exactly one answer. (The
    // final `isready` may be answered while the last search still runs.)
    let mut burst = String::new();
    for _ in 0..200 {
        burst.push_str("position startpos\ngo depth 1\n");
    }
    burst.push_str("isready\n");
    e.send_raw(burst.as_bytes());
    let (mut answers, mut ready) = (0, 0);
    while answers < 200 || ready < 1 {
        let line = e.next_line(SECS(30)).expect("an answer to every go");
        answers += line.starts_with("bestmove") as usize;
        ready += (line == "readyok") as usize;
    }
    // Nothing more: one answer per go.
    e.send("isready");
    let rest = e.collect_until("readyok", SECS(10));
    assert_eq!(rest, ["readyok"]);
}

#[test]
fn closing_stdin_mid_search_or_mid_line_exits_cleanly() {
    let mut e = Engine::ucci();
    thinking(&mut e, "position startpos", "go ponder infinite");
    e.send_raw(b"position startpos mo");
    e.close_stdin();
    assert!(e.wait_exit(SECS(5)));
}
