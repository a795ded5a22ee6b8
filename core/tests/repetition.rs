//! The Asian repetition rules on worked cycles: data/repetition/*.tsv, each
//! row a position, the moves of a cycle played to the third occurrence, the
//! verdict its source prints, and that source (data/repetition/README.md).

use xqcore::{EndRules, GameResult, Outcome, Position};

/// One row: id, the position after the moves, and the expected result.
fn cycles(tsv: &str) -> Vec<(String, Position, GameResult, String)> {
    tsv.lines()
        .skip(1)
        .filter(|l| !l.trim().is_empty())
        .map(|line| {
            let cols: Vec<&str> = line.split('\t').collect();
            let [id, fen, moves, expected, source] = cols[..] else {
                panic!("five columns: {line}");
            };
            let mut pos = Position::from_fen(fen).unwrap_or_else(|e| panic!("{id}: {e}"));
            for m in moves.split_whitespace() {
                let mv = pos
                    .parse_move(m)
                    .unwrap_or_else(|e| panic!("{id}: {m}: {e}"));
                pos.make_move(mv);
            }
            let result = match expected {
                "red loses" => GameResult::BlackWins,
                "black loses" => GameResult::RedWins,
                "draw" => GameResult::Draw,
                other => panic!("{id}: verdict '{other}'"),
            };
            (id.to_string(), pos, result, source.to_string())
        })
        .collect()
}

/// Every cycle is ruled at its third occurrence as its source says.
fn check_file(tsv: &str) -> usize {
    let rows = cycles(tsv);
    let mut wrong = Vec::new();
    for (id, pos, expected, source) in &rows {
        let outcome = pos.outcome(&EndRules::default());
        let result = outcome.map(Outcome::result);
        if result != Some(*expected) {
            wrong.push(format!(
                "{id}: ruled {outcome:?}, the source says {expected} ({source})"
            ));
        }
    }
    assert!(
        wrong.is_empty(),
        "{} of {}:\n{}",
        wrong.len(),
        rows.len(),
        wrong.join("\n")
    );
    rows.len()
}

#[test]
fn worked_examples_are_ruled_as_printed() {
    let n = check_file(include_str!("../../data/repetition/examples.tsv"));
    assert!(n >= 11);
}

#[test]
fn the_axf_rule_books_diagrams_are_ruled_as_printed() {
    let n = check_file(include_str!("../../data/repetition/axf.tsv"));
    assert!(n >= 30);
}

#[test]
fn fairy_stockfish_cycles_are_ruled_as_its_tests_say() {
    check_file(include_str!("../../data/repetition/fsf-extra.tsv"));
}

/// A check that also attacks counts as a check only (docs/rules.md): these
/// two cycles are then one check and one chase, which the rules allow.
#[test]
fn a_check_that_also_attacks_is_a_check() {
    check_file(include_str!("../../data/repetition/disputed.tsv"));
}
