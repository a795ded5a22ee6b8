//! Fuzzing the command parser and session in-process: random bytes and
//! command-shaped lines with random arguments never panic, a refused
//! `position` leaves the position as it was, an accepted one sets exactly
//! the position the rules give, and the session still answers `isready`.

use std::io::Write;
use std::sync::{Arc, Mutex};

use proptest::prelude::*;
use xqcore::Position;
use xqengine::{parse_command, Command, GoContext, Output, Session};

/// A line read as the session reads it before `uci` (UCCI's seconds).
fn parse(line: &str) -> Result<Command, xqengine::ProtocolError> {
    parse_command(line, GoContext::default())
}

/// A writer whose bytes the test can read back.
#[derive(Clone, Default)]
struct Buffer(Arc<Mutex<Vec<u8>>>);

impl Write for Buffer {
    fn write(&mut self, b: &[u8]) -> std::io::Result<usize> {
        self.0.lock().unwrap().extend_from_slice(b);
        Ok(b.len())
    }
    fn flush(&mut self) -> std::io::Result<()> {
        Ok(())
    }
}

impl Buffer {
    fn text(&self) -> String {
        String::from_utf8_lossy(&self.0.lock().unwrap()).into_owned()
    }
}

/// What the position should be after `line`, given the one before:
/// `None` when the line is not a `position` command.
fn expected_fen(line: &str, before: &str) -> Option<String> {
    let Ok(Command::Position { fen, moves }) = parse(line) else {
        return parse(line)
            .is_err()
            .then(|| before.to_string())
            .filter(|_| line.trim_start().starts_with("position"));
    };
    let start = match fen {
        None => Position::start(),
        Some(f) => match Position::from_fen(&f) {
            Ok(p) => p,
            Err(_) => return Some(before.to_string()),
        },
    };
    let mut pos = start;
    for m in &moves {
        match pos.parse_move(m) {
            Ok(mv) => pos.make_move(mv),
            Err(_) => return Some(before.to_string()),
        }
    }
    Some(pos.fen())
}

fn word() -> impl Strategy<Value = String> {
    prop_oneof![
        "[a-i][0-9][a-i][0-9]",
        "[A-I][0-9]-[A-I][0-9]",
        "-?[0-9]{1,12}",
        "[a-z]{1,8}",
        "\\PC{0,6}",
        Just("infinite".to_string()),
        Just("moves".to_string()),
        Just("startpos".to_string()),
    ]
}

fn fen_like() -> impl Strategy<Value = String> {
    let rank = "[rnbakcpRNBAKCPeh1-9]{0,9}";
    (
        proptest::collection::vec(rank, 8..=11),
        "[wbr]?",
        proptest::option::of("[0-9 -]{0,10}"),
    )
        .prop_map(|(ranks, side, tail)| {
            format!("{} {side} {}", ranks.join("/"), tail.unwrap_or_default())
        })
}

fn command_line() -> impl Strategy<Value = String> {
    let words = || proptest::collection::vec(word(), 0..6).prop_map(|w| w.join(" "));
    let go_word = prop_oneof![
        Just("depth"),
        Just("nodes"),
        Just("time"),
        Just("movetime"),
        Just("increment"),
        Just("movestogo"),
        Just("wtime"),
        Just("btime"),
        Just("infinite"),
        Just("ponder"),
        Just("draw"),
        Just("mate"),
        Just("opptime"),
        Just("searchmoves"),
    ];
    let go = proptest::collection::vec((go_word, "-?[0-9]{0,4}(\\.[0-9])?"), 0..4).prop_map(|ws| {
        let args: Vec<String> = ws.iter().map(|(w, n)| format!("{w} {n}")).collect();
        // Keep searches short: the next command stops them anyway.
        format!("go {} depth 2", args.join(" "))
    });
    prop_oneof![
        words().prop_map(|w| format!("position startpos moves {w}")),
        (fen_like(), words()).prop_map(|(f, w)| format!("position fen {f} moves {w}")),
        fen_like().prop_map(|f| format!("position fen {f}")),
        Just("position startpos moves h2e2 h9g7 h0g2".to_string()),
        words().prop_map(|w| format!("position {w}")),
        go,
        words().prop_map(|w| format!("setoption {w}")),
        words().prop_map(|w| format!("setoption name {w} value {w}")),
        words().prop_map(|w| format!("banmoves {w}")),
        prop_oneof![
            Just("stop"),
            Just("isready"),
            Just("ponderhit"),
            Just("ponderhit draw"),
            Just("ucci"),
            Just("uci"),
            Just("ucinewgame"),
        ]
        .prop_map(String::from),
        "\\PC{0,40}",
        proptest::collection::vec(any::<u8>(), 0..60)
            .prop_map(|b| String::from_utf8_lossy(&b).into_owned()),
    ]
}

proptest! {
    #![proptest_config(ProptestConfig::with_cases(300))]

    #[test]
    fn the_parser_never_panics_and_quotes_little(line in "\\PC{0,300}") {
        if let Err(reason) = parse(&line) {
            let reason = reason.to_string();
            prop_assert!(reason.len() < 200, "{reason}");
        }
    }

    #[test]
    fn any_command_sequence_keeps_the_session_sound(lines in proptest::collection::vec(command_line(), 1..8)) {
        let buffer = Buffer::default();
        let mut session = Session::new(Output::new(Box::new(buffer.clone())));
        for line in &lines {
            if parse(line) == Ok(Command::Quit) {
                continue;
            }
            let before = session.engine().position().fen();
            let expected = expected_fen(line, &before);
            prop_assert!(session.handle_line(line), "only quit ends a session");
            if let Some(want) = expected {
                prop_assert_eq!(session.engine().position().fen(), want, "after {:?}", line);
            }
        }
        session.handle_line("isready");
        session.finish();
        prop_assert!(buffer.text().contains("readyok"));
    }
}
