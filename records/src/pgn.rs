//! PGN files of xiangqi games: tag pairs, then move text in any notation
//! of [`crate::notation`], detected move by move (no `[Format]` tag is
//! needed). The main line is read, with each move's comments `{...}`
//! and numeric annotations (`$n`, or a `!?` suffix) as its [`MoveNote`];
//! `;...` comments, variations `(...)` and move numbers are skipped. `[FEN]` gives the start, `[Result]` (or the result token ending
//! the move text) the result.
//!
//! [`split`] cuts a file's text into games cheaply, so that games can be
//! parsed in parallel with [`parse_game`].

use std::fmt;

use xqcore::{GameResult, Move, Position};

use crate::notation::{parse_and_resolve, MoveError};

/// The text of one game within a file.
#[derive(Clone, Copy, Debug)]
pub struct GameText<'a> {
    /// 1-based number of the game in its file.
    pub index: usize,
    /// 1-based line of the file where the game starts.
    pub line: usize,
    /// The game's lines.
    pub text: &'a str,
}

/// A game read from a record.
#[derive(Clone, Debug)]
pub struct Game {
    /// 1-based number of the game in its file.
    pub index: usize,
    /// Tag pairs in file order.
    pub tags: Vec<(String, String)>,
    /// The start position.
    pub start: Position,
    /// The main line, every move legal.
    pub moves: Vec<Move>,
    /// What the record says of each move of the main line: its comments
    /// and annotations (one note a move).
    pub notes: Vec<MoveNote>,
    /// The comment before the first move.
    pub comment: String,
    /// The result.
    pub result: GameResult,
}

impl Game {
    /// The value of a tag, if present.
    pub fn tag(&self, name: &str) -> Option<&str> {
        self.tags
            .iter()
            .find(|(k, _)| k.eq_ignore_ascii_case(name))
            .map(|(_, v)| v.as_str())
    }
}

/// The comments and numeric annotation glyphs a record gives a move.
#[derive(Clone, Debug, Default, PartialEq, Eq)]
pub struct MoveNote {
    /// Its comments after it, joined by a space (empty: none).
    pub comment: String,
    /// Its annotations: `$n` after it, or its suffix (`?` is 2, `??` 4,
    /// `?!` 6, as `$2`, `$4`, `$6`).
    pub nags: Vec<u8>,
}

/// Why a game was skipped.
#[derive(Clone, Copy, Debug, PartialEq, Eq, Hash, PartialOrd, Ord)]
pub enum SkipReason {
    /// The `[FEN]` tag is not a legal position.
    BadFen,
    /// A move token in no known notation.
    UnreadableMove,
    /// A move no piece can make.
    IllegalMove,
    /// A move more than one piece can make.
    AmbiguousMove,
    /// An XQF file that cannot be read.
    BadXqf,
}

impl fmt::Display for SkipReason {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        f.write_str(match self {
            SkipReason::BadFen => "bad FEN",
            SkipReason::UnreadableMove => "unreadable move",
            SkipReason::IllegalMove => "illegal move",
            SkipReason::AmbiguousMove => "ambiguous move",
            SkipReason::BadXqf => "unreadable XQF file",
        })
    }
}

/// A game that could not be read: where and why.
#[derive(Clone, Debug, PartialEq, Eq, thiserror::Error)]
#[error("game {index}, line {line}: {reason}: {detail}")]
pub struct GameError {
    /// 1-based number of the game in its file.
    pub index: usize,
    /// 1-based line of the file.
    pub line: usize,
    /// The kind of problem, for summaries.
    pub reason: SkipReason,
    /// What exactly.
    pub detail: String,
}

/// Cuts a file's text into games: a game starts at a tag line that follows
/// move text (or at the first line).
pub fn split(text: &str) -> Vec<GameText<'_>> {
    let mut games = Vec::new();
    let mut start = 0; // byte offset of the current game
    let mut start_line = 1;
    let mut seen_moves = false;
    let mut in_comment = false;
    let mut offset = 0;
    for (i, line) in text.split_inclusive('\n').enumerate() {
        let trimmed = line.trim_start_matches(['\u{feff}', ' ', '\t', '\u{3000}']);
        if !in_comment && trimmed.starts_with('[') && seen_moves {
            games.push(GameText {
                index: games.len() + 1,
                line: start_line,
                text: &text[start..offset],
            });
            start = offset;
            start_line = i + 1;
            seen_moves = false;
        }
        if !in_comment && !trimmed.starts_with('[') && !trimmed.trim().is_empty() {
            seen_moves = true;
        }
        for c in line.chars() {
            match c {
                '{' => in_comment = true,
                '}' => in_comment = false,
                _ => {}
            }
        }
        offset += line.len();
    }
    if text[start..].trim().chars().any(|c| !c.is_whitespace()) {
        games.push(GameText {
            index: games.len() + 1,
            line: start_line,
            text: &text[start..],
        });
    }
    games
}

/// Reads one game: tags, start position and main line.
pub fn parse_game(game: &GameText<'_>) -> Result<Game, GameError> {
    let err = |line, reason, detail: String| GameError {
        index: game.index,
        line,
        reason,
        detail,
    };
    let mut tags = Vec::new();
    let mut fen_line = game.line;
    let mut movetext = Vec::new(); // (line, text)
    for (i, line) in game.text.lines().enumerate() {
        let trimmed = line.trim_matches(['\u{feff}', ' ', '\t', '\u{3000}', '\r']);
        match parse_tag(trimmed) {
            Some(tag) if movetext.is_empty() => {
                if tag.0.eq_ignore_ascii_case("FEN") {
                    fen_line = game.line + i;
                }
                tags.push(tag)
            }
            _ => movetext.push((game.line + i, line)),
        }
    }
    let tag = |name: &str| {
        tags.iter()
            .find(|(k, _): &&(String, String)| k.eq_ignore_ascii_case(name))
            .map(|(_, v)| v.clone())
    };
    let start = match tag("FEN") {
        Some(fen) => Position::from_fen(&fen)
            .map_err(|e| err(fen_line, SkipReason::BadFen, format!("{fen}: {e}")))?,
        None => Position::start(),
    };
    let mut pos = start.clone();
    let mut moves = Vec::new();
    let mut notes: Vec<MoveNote> = Vec::new();
    let mut comment = String::new();
    let mut final_token = None;
    for token in tokens(&movetext) {
        let (line, token) = match token {
            Token::Word(line, word) => (line, word),
            Token::Comment(text) => {
                let into = notes.last_mut().map_or(&mut comment, |n| &mut n.comment);
                if !into.is_empty() && !text.is_empty() {
                    into.push(' ');
                }
                into.push_str(&text);
                continue;
            }
            Token::Nag(nag) => {
                if let Some(note) = notes.last_mut() {
                    note.nags.push(nag);
                }
                continue;
            }
        };
        if let Ok(result) = token.parse::<GameResult>() {
            final_token = Some(result);
            break;
        }
        let m = parse_and_resolve(&pos, token).map_err(|e| {
            let reason = match e {
                MoveError::Unreadable(_) => SkipReason::UnreadableMove,
                MoveError::Illegal(_) => SkipReason::IllegalMove,
                MoveError::Ambiguous(_) => SkipReason::AmbiguousMove,
            };
            err(line, reason, format!("move {}: {e}", moves.len() + 1))
        })?;
        pos.make_move(m);
        moves.push(m);
        notes.push(MoveNote {
            nags: suffix_nag(token).into_iter().collect(),
            ..MoveNote::default()
        });
    }
    let result = tag("Result")
        .and_then(|r| r.parse().ok())
        .or(final_token)
        .unwrap_or(GameResult::Unknown);
    Ok(Game {
        index: game.index,
        tags,
        start,
        moves,
        notes,
        comment,
        result,
    })
}

/// `[Name "value"]`, with `\"` and `\\` escapes.
fn parse_tag(line: &str) -> Option<(String, String)> {
    let inner = line.strip_prefix('[')?.strip_suffix(']')?;
    let (name, rest) = inner.split_once(char::is_whitespace)?;
    let quoted = rest.trim().strip_prefix('"')?.strip_suffix('"')?;
    let value = quoted.replace("\\\"", "\"").replace("\\\\", "\\");
    Some((name.to_string(), value))
}

/// A piece of the main line's move text.
#[derive(Clone, Debug, PartialEq, Eq)]
enum Token<'a> {
    /// A move or result, with its line.
    Word(usize, &'a str),
    /// A comment's text, trimmed.
    Comment(String),
    /// A numeric annotation glyph (`$n`).
    Nag(u8),
}

/// The main line's move and result words, with their lines, its comments
/// and its numeric annotations, in order.
fn tokens<'a>(lines: &[(usize, &'a str)]) -> Vec<Token<'a>> {
    let mut out = Vec::new();
    let mut comment: Option<String> = None; // inside {...}
    let mut depth = 0usize; // variation nesting
    for &(line, text) in lines {
        let mut rest = text;
        while !rest.is_empty() {
            if let Some(open) = comment.as_mut() {
                let (inside, end) = match rest.find('}') {
                    Some(end) => (&rest[..end], Some(end)),
                    None => (rest, None),
                };
                if !open.is_empty() && !inside.trim().is_empty() {
                    open.push(' ');
                }
                open.push_str(inside.trim());
                let Some(end) = end else { break };
                let text = comment.take().unwrap_or_default();
                if depth == 0 {
                    out.push(Token::Comment(text));
                }
                rest = &rest[end + 1..];
                continue;
            }
            let c = rest.chars().next().expect("not empty");
            match c {
                '{' => {
                    comment = Some(String::new());
                    rest = &rest[1..];
                }
                ';' => break,
                // A stray closing brace: skipped (a word may not start
                // with it, or the walk would stand still).
                '}' => rest = &rest[1..],
                '(' => {
                    depth += 1;
                    rest = &rest[1..];
                }
                ')' => {
                    depth = depth.saturating_sub(1);
                    rest = &rest[1..];
                }
                c if c.is_whitespace() => rest = &rest[c.len_utf8()..],
                _ => {
                    let end = rest
                        .find(|c: char| c.is_whitespace() || "{}();".contains(c))
                        .unwrap_or(rest.len());
                    let word = strip_move_number(&rest[..end]);
                    if depth == 0 && !word.is_empty() {
                        match word.strip_prefix('$') {
                            Some(n) => out.extend(n.parse().ok().map(Token::Nag)),
                            None => out.push(Token::Word(line, word)),
                        }
                    }
                    rest = &rest[end..];
                }
            }
        }
    }
    out
}

/// The numeric annotation of a move's suffix (`!`, `?`, `!!`, `??`, `!?`,
/// `?!`), as `$1` to `$6` give them.
fn suffix_nag(word: &str) -> Option<u8> {
    let glyph = &word[word.trim_end_matches(['!', '?']).len()..];
    ["!", "?", "!!", "??", "!?", "?!"]
        .iter()
        .position(|g| *g == glyph)
        .map(|i| i as u8 + 1)
}

/// `12.`, `12...`, `12.h2e2` without the number; `..` alone becomes empty.
fn strip_move_number(word: &str) -> &str {
    let after_digits = word.trim_start_matches(|c: char| c.is_ascii_digit());
    let after_dots = after_digits.trim_start_matches(['.', '…', '。']);
    if after_dots.len() < after_digits.len() {
        // Digits and dots, or dots alone: a move number, maybe with its move.
        return after_dots;
    }
    word
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn move_numbers_are_stripped_and_results_kept() {
        assert_eq!(strip_move_number("12."), "");
        assert_eq!(strip_move_number("12..."), "");
        assert_eq!(strip_move_number("1.h2e2"), "h2e2");
        assert_eq!(strip_move_number("1-0"), "1-0");
        assert_eq!(strip_move_number("1/2-1/2"), "1/2-1/2");
        assert_eq!(strip_move_number(".."), "");
        assert_eq!(strip_move_number("炮二平五"), "炮二平五");
    }

    #[test]
    fn a_stray_closing_brace_is_skipped() {
        // Found by the pgn fuzz target: the walk used to stand still here.
        let lines = [(3, "1. h2e2 } h9g7 }"), (4, "}2. h0g2")];
        let words: Vec<&str> = tokens(&lines)
            .into_iter()
            .filter_map(|t| match t {
                Token::Word(_, w) => Some(w),
                _ => None,
            })
            .collect();
        assert_eq!(words, ["h2e2", "h9g7", "h0g2"]);
    }

    #[test]
    fn comments_and_annotations_are_each_moves() {
        let text = "[Event \"x\"]\n\n{Before} 1. h2e2 $1 {A central\ncannon.} h9g7?! \
                    ( h9h7 {in a variation} ) 2. h0g2 {one} {two} $2 $4 i9h9 1-0\n";
        let game = parse_game(&split(text)[0]).unwrap();
        assert_eq!(game.moves.len(), 4);
        assert_eq!(game.comment, "Before");
        let notes: Vec<(&str, &[u8])> = game
            .notes
            .iter()
            .map(|n| (n.comment.as_str(), n.nags.as_slice()))
            .collect();
        assert_eq!(
            notes,
            [
                ("A central cannon.", &[1][..]),
                ("", &[6][..]),
                ("one two", &[2, 4][..]),
                ("", &[][..]),
            ]
        );
    }

    #[test]
    fn tags_with_escapes() {
        assert_eq!(
            parse_tag(r#"[Event "A \"big\" one"]"#),
            Some(("Event".into(), "A \"big\" one".into()))
        );
        assert_eq!(parse_tag("[Event]"), None);
        assert_eq!(parse_tag("1. h2e2"), None);
    }
}
