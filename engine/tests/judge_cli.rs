//! `xqengine judge` rules games as a referee would, on the worked cycles
//! of data/repetition/ and on the other ends of a game; bad input is
//! refused, naming the move.

use std::process::{Command, Output};

fn judge(args: &[&str]) -> Output {
    Command::new(env!("CARGO_BIN_EXE_xqengine"))
        .arg("judge")
        .args(args)
        .output()
        .expect("run xqengine judge")
}

fn ruling(args: &[&str]) -> String {
    let out = judge(args);
    assert!(
        out.status.success(),
        "{}",
        String::from_utf8_lossy(&out.stderr)
    );
    String::from_utf8(out.stdout).unwrap().trim().to_string()
}

#[test]
fn worked_cycles_are_ruled_as_their_sources_say() {
    let files = [
        include_str!("../../data/repetition/examples.tsv"),
        include_str!("../../data/repetition/axf.tsv"),
        include_str!("../../data/repetition/fsf-extra.tsv"),
        include_str!("../../data/repetition/disputed.tsv"),
    ];
    for line in files
        .iter()
        .flat_map(|f| f.lines().skip(1))
        .filter(|l| !l.is_empty())
    {
        let cols: Vec<&str> = line.split('\t').collect();
        let (id, fen, moves, expected) = (cols[0], cols[1], cols[2], cols[3]);
        let mut args = vec!["--fen", fen];
        args.extend(moves.split_whitespace());
        let said = ruling(&args);
        match expected {
            "draw" => assert!(said.starts_with("draw: "), "{id}: {said}"),
            loses => assert!(said.starts_with(loses), "{id}: {said}, expected {loses}"),
        }
    }
}

#[test]
fn every_end_of_a_game_is_named() {
    // Red chases the black rook with a cannon: red loses.
    let chase = "2bakabnr/9/r1n1c4/2p1p1p1p/PP7/9/4P1P1P/2C3NC1/9/1NBAKAB1R w";
    let cycle = "c2a2 a7b7 a2b2 b7a7 b2a2 a7b7 a2b2 b7a7 b2a2";
    let mut args = vec!["--fen", chase];
    args.extend(cycle.split_whitespace());
    assert_eq!(ruling(&args), "red loses: perpetual chase");
    // The same cycle once round is not over yet.
    let mut args = vec!["--fen", chase];
    args.extend(cycle.split_whitespace().take(5));
    assert_eq!(ruling(&args), "ongoing");
    let check = "3k5/9/9/9/9/9/9/9/9/4K2R1 w";
    let mut args = vec!["--fen", check];
    args.extend("h0h9 d9d8 h9h8 d8d9 h8h9 d9d8 h9h8 d8d9 h8h9".split_whitespace());
    assert_eq!(ruling(&args), "red loses: perpetual check");
    // A move after the end is refused, naming it.
    args.push("d9d8");
    let out = judge(&args);
    assert_eq!(out.status.code(), Some(2));
    let err = String::from_utf8_lossy(&out.stderr);
    assert!(
        err.contains("move 10 (d9d8): the game was already over"),
        "{err}"
    );
    let shuffle = [
        "b0c2", "b9c7", "c2b0", "c7b9", "b0c2", "b9c7", "c2b0", "c7b9",
    ];
    assert_eq!(ruling(&shuffle), "draw: repetition");
    // A move after a drawn repetition: refused, saying how the game ended
    // and at which move.
    let out = judge(&[&shuffle[..], &["h2e2"]].concat());
    assert_eq!(out.status.code(), Some(2));
    let err = String::from_utf8_lossy(&out.stderr);
    assert_eq!(
        err.trim(),
        "xqengine judge: move 9 (h2e2): the game was already over: draw: repetition after \
         move 8 (c7b9)"
    );
    assert_eq!(
        ruling(&["--fen", "3k5/1R7/9/9/9/9/9/9/9/R3K4 w", "a0a9"]),
        "black loses: no legal move"
    );
    assert_eq!(ruling(&[]), "ongoing");
}

#[test]
fn bad_input_names_the_move() {
    let out = judge(&["h2e2", "h9g7", "e2e9"]);
    assert_eq!(out.status.code(), Some(2));
    let err = String::from_utf8_lossy(&out.stderr);
    assert!(err.contains("move 3 (e2e9)"), "{err}");
    let out = judge(&["--fen", "9/9 w"]);
    assert_eq!(out.status.code(), Some(2));
    assert!(String::from_utf8_lossy(&out.stderr).contains("bad --fen"));
    let out = judge(&["h2e2", "zz"]);
    assert!(String::from_utf8_lossy(&out.stderr).contains("move 2 (zz)"));
}
