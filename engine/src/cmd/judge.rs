//! `xqengine judge`: rules a game as a referee would, after its last move.

use xqcli::{out, Failure};
use xqcore::EndRules;

/// Prints the ruling after `moves` from `fen` (or the start).
///
/// # Errors
///
/// A bad `--fen`, a move that is not legal, or a move after the game ended
/// (exit status 2); each names the move.
pub fn run(fen: Option<&str>, moves: &[String]) -> xqcli::Result {
    out!("{}", ruling(fen, moves)?);
    Ok(())
}

/// The ruling after `moves` from `fen` (or the start): `ongoing`, or how
/// the game ended (`draw: repetition`, `red loses: perpetual chase`).
fn ruling(fen: Option<&str>, moves: &[String]) -> xqcli::Result<String> {
    let rules = EndRules::default();
    let mut pos = super::perft::start(fen)?;
    for (i, text) in moves.iter().enumerate() {
        if pos.outcome(&rules).is_some() {
            return Err(Failure::usage(format!(
                "move {} ({text}): the game was already over",
                i + 1
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
    fn bad_input_names_the_move() {
        let failure = ruling(None, &moves("h2e2 zz")).unwrap_err();
        assert!(failure.message().starts_with("move 2 (zz): "), "{failure}");
        assert_eq!(failure.status(), Failure::USAGE);
        let failure = ruling(Some("9/9 w"), &[]).unwrap_err();
        assert!(failure.message().starts_with("bad --fen: "), "{failure}");
    }
}
