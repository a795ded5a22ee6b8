//! Move notations of game records, parsed without a position and resolved
//! against one:
//!
//! - ICCS: `h2e2`, `H2-E2`;
//! - WXF: `C2.5`, `H8+7`, `R1=2`, tandem pieces `+P+1`, `-R=7` (also with
//!   the marker after the letter, `R+-1`); full-width characters allowed;
//! - Chinese: `炮二平五`, `馬８進７`, `前車進一`, `後炮平四`, `中兵進一`, `二兵平三`,
//!   in simplified or traditional glyphs, with Chinese, ASCII or full-width
//!   numbers.
//!
//! WXF and Chinese notation say which piece moves by its file, counted from
//! the mover's right, or by its place among pieces of its kind sharing a
//! file (front, middle, rear). Real records often leave out front/rear;
//! [`resolve`] then tries every piece the move could mean and keeps the
//! legal one.

use xqcore::{Color, IccsMove, Move, Piece, Position, Role, Square};

/// A move as written, before it is resolved against a position.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum Notation {
    /// Coordinates: from and to squares.
    Iccs(IccsMove),
    /// WXF or Chinese: which piece, which way, how far or where.
    Descriptive(Descriptive),
}

/// A WXF or Chinese move.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub struct Descriptive {
    /// The kind of piece that moves.
    pub role: Role,
    /// Which of the mover's pieces of that kind.
    pub which: Which,
    /// Forward, backward or along the rank.
    pub action: Action,
    /// Ranks moved (straight movers going forward or back), else the file
    /// arrived on, counted from the mover's right: 1..=9.
    pub number: u8,
}

/// Which piece of a kind moves.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum Which {
    /// The one on this file, counted 1..=9 from the mover's right.
    File(u8),
    /// The most advanced of those sharing a file.
    Front,
    /// The middle one of three sharing a file.
    Middle,
    /// The least advanced of those sharing a file.
    Rear,
    /// The n-th from the front (1-based) among those sharing a file.
    Ordinal(u8),
}

/// The direction of a WXF or Chinese move.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum Action {
    /// Toward the enemy (进, `+`).
    Advance,
    /// Back toward the own side (退, `-`).
    Retreat,
    /// Along the rank (平, `.` or `=`).
    Traverse,
}

/// Why a move token cannot be read or played.
#[derive(Clone, Debug, PartialEq, Eq, thiserror::Error)]
pub enum MoveError {
    /// Not a move in any notation this reader knows.
    #[error("'{0}' is not a move in ICCS, WXF or Chinese notation")]
    Unreadable(String),
    /// Read, but no piece can make it here.
    #[error("'{0}' is illegal here")]
    Illegal(String),
    /// Read, and more than one piece could make it.
    #[error("'{0}' is ambiguous here")]
    Ambiguous(String),
}

/// Replaces full-width forms (`Ｒ`, `１`, `＋`, `．`) by their ASCII
/// letters and drops annotation marks.
fn normalize(token: &str) -> String {
    token
        .chars()
        .map(|c| match c {
            '\u{ff01}'..='\u{ff5e}' => {
                char::from_u32(c as u32 - 0xfee0).expect("full-width forms map to ASCII")
            }
            _ => c,
        })
        .filter(|c| !matches!(c, '!' | '?'))
        .collect()
}

/// Reads a move token in any of the notations.
pub fn parse(token: &str) -> Result<Notation, MoveError> {
    let text = normalize(token);
    let unreadable = || MoveError::Unreadable(token.to_string());
    if let Ok(m) = text.parse::<IccsMove>() {
        if text.chars().all(|c| c.is_ascii_alphanumeric() || c == '-') {
            return Ok(Notation::Iccs(m));
        }
    }
    let chars: Vec<char> = text.chars().collect();
    if chars.len() != 4 {
        return Err(unreadable());
    }
    let d = descriptive(&chars).ok_or_else(unreadable)?;
    Ok(Notation::Descriptive(d))
}

/// A four-symbol WXF or Chinese move.
fn descriptive(c: &[char]) -> Option<Descriptive> {
    let action = action(c[2])?;
    let distance = number(c[3])?;
    let (role, which) = if let Some(role) = role(c[0]) {
        // Piece first: then its file, or a tandem mark after it.
        let which = match number(c[1]) {
            Some(n) => Which::File(n),
            None => place(c[1])?,
        };
        (role, which)
    } else {
        // A place (front, rear, or an ordinal) first, then the piece.
        let which = place(c[0]).or_else(|| number(c[0]).map(Which::Ordinal))?;
        (role(c[1])?, which)
    };
    Some(Descriptive {
        role,
        which,
        action,
        number: distance,
    })
}

fn role(c: char) -> Option<Role> {
    Some(match c {
        'K' | 'k' | '帅' | '帥' | '将' | '將' => Role::King,
        'A' | 'a' | '仕' | '士' => Role::Advisor,
        'E' | 'e' | 'B' | 'b' | '相' | '象' => Role::Elephant,
        'H' | 'h' | 'N' | 'n' | '马' | '馬' | '傌' | '碼' => Role::Horse,
        'R' | 'r' | '车' | '車' | '俥' => Role::Rook,
        'C' | 'c' | '炮' | '砲' | '包' => Role::Cannon,
        'P' | 'p' | '兵' | '卒' => Role::Pawn,
        _ => return None,
    })
}

fn place(c: char) -> Option<Which> {
    Some(match c {
        '前' | '+' => Which::Front,
        '中' => Which::Middle,
        '后' | '後' | '-' => Which::Rear,
        _ => return None,
    })
}

fn action(c: char) -> Option<Action> {
    Some(match c {
        '进' | '進' | '+' => Action::Advance,
        '退' | '-' => Action::Retreat,
        '平' | '.' | '=' => Action::Traverse,
        _ => return None,
    })
}

fn number(c: char) -> Option<u8> {
    const CHINESE: [char; 9] = ['一', '二', '三', '四', '五', '六', '七', '八', '九'];
    match c {
        '1'..='9' => Some(c as u8 - b'0'),
        _ => CHINESE.iter().position(|&x| x == c).map(|i| i as u8 + 1),
    }
}

/// Resolves a parsed move against `pos`: the one legal move it can mean.
pub fn resolve(pos: &Position, notation: Notation, token: &str) -> Result<Move, MoveError> {
    match notation {
        Notation::Iccs(m) => pos
            .resolve(m)
            .map_err(|_| MoveError::Illegal(token.to_string())),
        Notation::Descriptive(d) => resolve_descriptive(pos, d, token),
    }
}

/// Reads and resolves a move token.
pub fn parse_and_resolve(pos: &Position, token: &str) -> Result<Move, MoveError> {
    resolve(pos, parse(token)?, token)
}

fn resolve_descriptive(pos: &Position, d: Descriptive, token: &str) -> Result<Move, MoveError> {
    let us = pos.turn();
    let mut found = None;
    for from in candidates(pos, d.role, d.which) {
        let Some(to) = destination(us, d, from) else {
            continue;
        };
        let m = Move::new(from, to);
        if !pos.is_legal(m) {
            continue;
        }
        if found.replace(m).is_some_and(|other| other != m) {
            return Err(MoveError::Ambiguous(token.to_string()));
        }
    }
    found.ok_or_else(|| MoveError::Illegal(token.to_string()))
}

/// The board file (0 = a) of a file counted 1..=9 from `color`'s right.
fn board_file(color: Color, n: u8) -> Option<u8> {
    (1..=9).contains(&n).then(|| match color {
        Color::Red => 9 - n,
        Color::Black => n - 1,
    })
}

/// How far forward a rank is for `color`: 0 at its own back rank.
fn advancement(color: Color, sq: Square) -> u8 {
    match color {
        Color::Red => sq.rank(),
        Color::Black => 9 - sq.rank(),
    }
}

/// The squares of the mover's pieces the move may mean. Front, rear and
/// the others pick among pieces sharing a file; with several such files,
/// each gives its candidate and legality decides.
fn candidates(pos: &Position, role: Role, which: Which) -> Vec<Square> {
    let us = pos.turn();
    let mine: Vec<Square> = pos.board().squares_of(Piece::new(us, role)).collect();
    if let Which::File(n) = which {
        let Some(file) = board_file(us, n) else {
            return Vec::new();
        };
        return mine.into_iter().filter(|s| s.file() == file).collect();
    }
    let mut out = Vec::new();
    for file in 0..9 {
        let mut column: Vec<Square> = mine.iter().copied().filter(|s| s.file() == file).collect();
        if column.len() < 2 {
            continue;
        }
        column.sort_by_key(|&s| std::cmp::Reverse(advancement(us, s)));
        let pick = match which {
            Which::Front => Some(0),
            Which::Rear => Some(column.len() - 1),
            Which::Middle => (column.len() == 3).then_some(1),
            Which::Ordinal(k) => Some(k as usize - 1),
            Which::File(_) => unreachable!("handled above"),
        };
        out.extend(pick.and_then(|i| column.get(i)));
    }
    out
}

/// Where the piece on `from` lands, if the move's geometry allows it.
fn destination(us: Color, d: Descriptive, from: Square) -> Option<Square> {
    let forward: i32 = match us {
        Color::Red => 1,
        Color::Black => -1,
    };
    let sign = match d.action {
        Action::Advance => forward,
        Action::Retreat => -forward,
        Action::Traverse => 0,
    };
    let (file, rank) = (i32::from(from.file()), i32::from(from.rank()));
    let straight = matches!(d.role, Role::King | Role::Rook | Role::Cannon | Role::Pawn);
    let (to_file, to_rank) = if straight {
        if d.action == Action::Traverse {
            (i32::from(board_file(us, d.number)?), rank)
        } else {
            (file, rank + sign * i32::from(d.number))
        }
    } else {
        if d.action == Action::Traverse {
            return None;
        }
        let to_file = i32::from(board_file(us, d.number)?);
        let ranks = match (d.role, (to_file - file).abs()) {
            (Role::Horse, 1) | (Role::Elephant, 2) => 2,
            (Role::Horse, 2) | (Role::Advisor, 1) => 1,
            _ => return None,
        };
        (to_file, rank + sign * ranks)
    };
    let on_board = |v: i32, max: i32| (0..=max).contains(&v).then_some(v as u8);
    Square::new(on_board(to_file, 8)?, on_board(to_rank, 9)?)
}

#[cfg(test)]
mod tests {
    use super::*;

    /// Plays tokens from `fen` (the start if empty) and gives ICCS moves.
    fn play(fen: &str, tokens: &str) -> Vec<String> {
        let mut pos = if fen.is_empty() {
            Position::start()
        } else {
            Position::from_fen(fen).unwrap()
        };
        tokens
            .split_whitespace()
            .map(|t| {
                let m = parse_and_resolve(&pos, t).unwrap_or_else(|e| panic!("{t}: {e}"));
                pos.make_move(m);
                m.to_string()
            })
            .collect()
    }

    #[test]
    fn chinese_traditional_and_simplified_agree_with_iccs() {
        let iccs = "h2e2 h9g7 h0g2 i9h9 i0h0 g6g5 h0h6 b9c7";
        assert_eq!(
            play(
                "",
                "炮二平五 馬８進７ 馬二進三 車９平８ 車一平二 卒７進１ 車二進六 馬２進３"
            )
            .join(" "),
            iccs
        );
        assert_eq!(
            play(
                "",
                "炮二平五 马8进7 马二进三 车9平8 车一平二 卒7进1 车二进六 马2进3"
            )
            .join(" "),
            iccs
        );
        assert_eq!(play("", "h2e2 H9-G7 h0g2").join(" "), "h2e2 h9g7 h0g2");
    }

    #[test]
    fn wxf_with_ascii_and_full_width_characters() {
        let iccs = "h2e2 h9g7 h0g2 i9h9";
        assert_eq!(play("", "C2.5 H8+7 H2+3 R9.8").join(" "), iccs);
        assert_eq!(play("", "C2=5 h8+7 N2+3 R9=8").join(" "), iccs);
        assert_eq!(
            play("", "Ｃ２．５ Ｈ８＋７ Ｈ２＋３ Ｒ９．８").join(" "),
            iccs
        );
        // Elephants and advisors: Red's file 3 is g, Black's 7 is g too.
        assert_eq!(play("", "E3+5 E7+5 A4+5").join(" "), "g0e2 g9e7 f0e1");
    }

    #[test]
    fn tandem_pieces_by_front_and_rear() {
        // Two red rooks on file e (red's 5th), two black cannons on file e.
        let fen = "4k4/4c4/9/9/4c4/9/4R4/9/4R4/3K5 w";
        assert_eq!(play(fen, "前車進一"), ["e3e4"]);
        assert_eq!(play(fen, "+R+1"), ["e3e4"]);
        assert_eq!(play(fen, "R+-1"), ["e3e2"]);
        assert_eq!(play(fen, "後車平六"), ["e1d1"]);
        assert_eq!(play(fen, "-R=6"), ["e1d1"]);
        // Black's front cannon is the lower one (nearer red).
        let black = "4k4/4c4/9/9/4c4/9/4R4/9/4R4/3K5 b";
        assert_eq!(play(black, "前炮平4"), ["e5d5"]);
        assert_eq!(play(black, "后炮进1"), ["e8e7"]);
    }

    #[test]
    fn three_pawns_on_a_file_by_front_middle_rear_and_ordinals() {
        // Red's files count from its right: 四 is file f, 六 is file d.
        let fen = "3k5/9/4P4/4P4/4P4/9/9/9/9/4K4 w";
        assert_eq!(play(fen, "前兵平四"), ["e7f7"]);
        assert_eq!(play(fen, "中兵平四"), ["e6f6"]);
        assert_eq!(play(fen, "後兵平四"), ["e5f5"]);
        assert_eq!(play(fen, "二兵平四"), ["e6f6"]);
        assert_eq!(play(fen, "三兵平六"), ["e5d5"]);
    }

    #[test]
    fn a_missing_front_or_rear_is_resolved_by_legality() {
        // Two red rooks on file e; only the front one can advance 3.
        let fen = "3k5/9/9/9/9/4R4/9/4R4/9/4K4 w";
        assert_eq!(play(fen, "車五進三"), ["e4e7"]);
        // Both could traverse to file d: ambiguous.
        let pos = Position::from_fen(fen).unwrap();
        assert_eq!(
            parse_and_resolve(&pos, "車五平六"),
            Err(MoveError::Ambiguous("車五平六".into()))
        );
    }

    #[test]
    fn bad_tokens_and_illegal_moves_are_told_apart() {
        let pos = Position::start();
        for bad in [
            "",
            "x",
            "炮二平",
            "炮二走五",
            "Z2.5",
            "h2e2e2",
            "炮十平五",
            "C0.5",
        ] {
            assert!(
                matches!(parse_and_resolve(&pos, bad), Err(MoveError::Unreadable(_))),
                "{bad}"
            );
        }
        for illegal in ["炮二進九", "車一平二", "H2+4", "E3.5", "a0a5", "馬二進二"] {
            assert!(
                matches!(parse_and_resolve(&pos, illegal), Err(MoveError::Illegal(_))),
                "{illegal}"
            );
        }
    }
}
