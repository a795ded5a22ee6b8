//! `xqengine judge`: rules a game as a referee would, after its last move.

use xqcli::{out, Failure};
use xqcore::EndRules;

/// Prints the ruling after `moves` from `fen` (or the start).
///
/// # Errors
///
/// A bad `--fen`, a move that is not legal, or a move after the game ended
/// (exit status 2); each names the move, and a move after the end says how
/// and when the game ended.
pub fn run(fen: Option<&str>, moves: &[String]) -> xqcli::Result {
    out!("{}", ruling(fen, moves)?);
    Ok(())
}

/// The ruling after `moves` from `fen` (or the start): `ongoing`, or how
/// the game ended (`draw: repetition`, `red loses: perpetual chase`).
fn ruling(fen: Option<&str>, moves: &[String]) -> xqcli::Result<String> {
    let rules = EndRules::default();
    let mut pos = super::start(fen)?;
    for (i, text) in moves.iter().enumerate() {
        if let Some(outcome) = pos.outcome(&rules) {
            let when = match i.checked_sub(1) {
                Some(last) => format!("after move {} ({})", last + 1, moves[last]),
                None => "in the position given".to_string(),
            };
            return Err(Failure::usage(format!(
                "move {} ({text}): the game was already over: {} {when}",
                i + 1,
                outcome.ruling()
            )));
        }
        let mv = pos
            .parse_move(text)
            .map_err(|e| Failure::usage(format!("move {} ({text}): {e}", i + 1)))?;
        pos.make_move(mv);
    }
    Ok(match pos.outcome(&rules) {
        Some(outcome) => outcome.ruling(),
        None => "ongoing".to_string(),
    })
}

#[cfg(test)]
mod tests {
    use super::*;

    fn moves(text: &str) -> Vec<String> {
        text.split_whitespace().map(String::from).collect()
    }

    #[test]
    fn a_move_after_the_end_says_how_and_when_the_game_ended() {
        let shuffle = moves("b0c2 b9c7 c2b0 c7b9 b0c2 b9c7 c2b0 c7b9");
        assert_eq!(ruling(None, &shuffle).unwrap(), "draw: repetition");
        let mut after = shuffle;
        after.push("h2e2".into());
        let failure = ruling(None, &after).unwrap_err();
        assert_eq!(failure.status(), Failure::USAGE);
        assert_eq!(
            failure.message(),
            "move 9 (h2e2): the game was already over: draw: repetition after move 8 (c7b9)"
        );
        let mated = Some("R2k5/1R7/9/9/9/9/9/9/9/4K4 b");
        let failure = ruling(mated, &moves("d9e9")).unwrap_err();
        assert_eq!(
            failure.message(),
            "move 1 (d9e9): the game was already over: black loses: no legal move in the \
             position given"
        );
    }

    #[test]
    fn bad_input_names_the_move() {
        let failure = ruling(None, &moves("h2e2 zz")).unwrap_err();
        assert!(failure.message().starts_with("move 2 (zz): "), "{failure}");
        assert_eq!(failure.status(), Failure::USAGE);
        let failure = ruling(Some("9/9 w"), &[]).unwrap_err();
        assert!(failure.message().starts_with("bad --fen: "), "{failure}");
    }
}
