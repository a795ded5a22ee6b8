//! Opening lines: where each pair of games starts.
//!
//! A line of an openings file is either ICCS moves from the start position
//! (`h2e2 h9g7`), or a FEN with moves after it (`fen FEN [moves m1 m2 ...]`,
//! or a FEN alone). `#` starts a comment line. Every move is checked.

use xqcore::{Move, Position};

/// The 60 opening lines of data/openings.txt, bundled so that matches run
/// from any directory.
pub const BUNDLED_OPENINGS: &str = include_str!("../../data/openings.txt");

/// Where a game starts: a position (the start, or a FEN) and moves from it.
#[derive(Clone, Debug)]
pub struct Opening {
    /// The FEN the line starts from; `None` for the start position.
    pub fen: Option<String>,
    /// The moves played from there before the engines take over.
    pub moves: Vec<Move>,
    /// The position of `fen`.
    start: Position,
}

impl Default for Opening {
    /// The start position, no moves.
    fn default() -> Self {
        Opening {
            fen: None,
            moves: Vec::new(),
            start: Position::start(),
        }
    }
}

impl Opening {
    /// Reads one line (see the module's documentation).
    pub fn parse(line: &str) -> Result<Opening, String> {
        let line = line.trim();
        let (setup, moves) = match line.split_once("moves") {
            Some((setup, moves)) => (setup.trim(), moves),
            None if is_fen(line) => (line, ""),
            None => ("", line),
        };
        let fen = setup.strip_prefix("fen").unwrap_or(setup).trim();
        let mut opening = Opening::default();
        if !fen.is_empty() {
            opening.start = Position::from_fen(fen).map_err(|e| format!("bad FEN: {e}"))?;
            opening.fen = Some(fen.to_string());
        }
        let mut pos = opening.start.clone();
        for (i, m) in moves.split_whitespace().enumerate() {
            let mv = pos
                .parse_move(m)
                .map_err(|e| format!("move {}: {e}", i + 1))?;
            pos.make_move(mv);
            opening.moves.push(mv);
        }
        Ok(opening)
    }

    /// The position the opening starts from (the start, or its FEN's).
    pub fn start(&self) -> &Position {
        &self.start
    }

    /// The position after the opening's moves, with their history.
    pub fn position(&self) -> Position {
        let mut pos = self.start.clone();
        for &m in &self.moves {
            pos.make_move(m);
        }
        pos
    }

    /// The moves as ICCS text, space-separated.
    pub fn moves_text(&self) -> String {
        let moves: Vec<String> = self.moves.iter().map(Move::to_string).collect();
        moves.join(" ")
    }
}

/// Whether a line starts with a FEN (`fen ...`, or a board with `/`).
fn is_fen(line: &str) -> bool {
    line.starts_with("fen")
        || line
            .split_whitespace()
            .next()
            .is_some_and(|w| w.contains('/'))
}

/// Reads the opening lines of a file's text, naming the line of an error.
pub fn read_openings(text: &str) -> Result<Vec<Opening>, String> {
    let mut out = Vec::new();
    for (n, line) in text.lines().enumerate() {
        let line = line.trim();
        if line.is_empty() || line.starts_with('#') {
            continue;
        }
        out.push(Opening::parse(line).map_err(|e| format!("openings line {}: {e}", n + 1))?);
    }
    Ok(out)
}

/// The opening lines of the file at `path`, or the bundled ones when
/// there is none; the start position alone when the file has no line.
/// Errors name the file (and the line).
pub fn load_openings(path: Option<&std::path::Path>) -> Result<Vec<Opening>, String> {
    let lines = match path {
        None => read_openings(BUNDLED_OPENINGS).map_err(|e| format!("bundled openings: {e}"))?,
        Some(path) => std::fs::read_to_string(path)
            .map_err(|e| e.to_string())
            .and_then(|text| read_openings(&text))
            .map_err(|e| format!("{}: {e}", path.display()))?,
    };
    Ok(if lines.is_empty() {
        vec![Opening::default()]
    } else {
        lines
    })
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn bundled_openings_are_legal() {
        let openings = read_openings(BUNDLED_OPENINGS).unwrap();
        assert_eq!(openings.len(), 60);
        assert!(openings
            .iter()
            .all(|o| o.fen.is_none() && o.moves.len() == 6));
    }

    #[test]
    fn lines_start_from_the_start_or_a_fen() {
        let moves = Opening::parse("h2e2 h9g7").unwrap();
        assert_eq!(moves.moves_text(), "h2e2 h9g7");
        assert_eq!(moves.position().ply(), 2);
        let fen = "3k5/9/9/9/9/9/9/9/4R4/4K4 w";
        let from_fen = Opening::parse(&format!("fen {fen} moves e1e2 d9d8")).unwrap();
        assert_eq!(from_fen.fen.as_deref(), Some(fen));
        assert_eq!(from_fen.moves.len(), 2);
        let bare = Opening::parse(fen).unwrap();
        assert_eq!(
            bare.position().fen(),
            Position::from_fen(fen).unwrap().fen()
        );
        let e = read_openings("# comment\nh2e2\nh2e2 h2e2\n").unwrap_err();
        assert!(e.starts_with("openings line 3: move 2"), "{e}");
        let e = read_openings("fen 9/9 w").unwrap_err();
        assert!(e.contains("bad FEN"), "{e}");
    }
}
