//! Self-play games as a compact binary record: a game is its start, its
//! result and its moves, each move with the search score of the side that
//! played it, four bytes a ply. Positions are rebuilt by replaying the
//! moves, so the record stays small whatever the evaluation's inputs.
//!
//! Layout, little-endian:
//!
//! ```text
//! file:  magic "XQGAMES\0", u16 version (1), then games to the end
//! game:  u8 result (0 Red won, 1 draw, 2 Black won)
//!        u8 start length n, then n bytes of FEN (n = 0: the start position)
//!        u16 plies, then per ply:
//!          u16 move (from square << 7 | to square, squares rank * 9 + file)
//!          i16 score of the mover in centipawns ([`NO_SCORE`]: none,
//!              as for opening moves that were not searched)
//! ```
//!
//! Reading checks every move against the position it is played in, so a
//! damaged file is refused with the game and ply named, never replayed
//! into positions that cannot occur.

use std::io::{self, Read, Write};

use xqcore::{FenError, GameResult, Move, Position, Square, START_FEN};

/// The first bytes of a games file.
pub const MAGIC: [u8; 8] = *b"XQGAMES\0";
/// The layout version written and read.
pub const VERSION: u16 = 1;
/// The score of a move that was not searched.
pub const NO_SCORE: i16 = i16::MIN;

/// One game: where it starts, its moves with their scores, and its result.
#[derive(Clone, Debug, PartialEq, Eq, Hash)]
pub struct GameRecord {
    /// FEN of the start; `None` for the usual start position.
    pub start: Option<String>,
    /// Each move with the mover's score ([`NO_SCORE`] when not searched).
    pub moves: Vec<(Move, i16)>,
    /// Red won, draw or Black won (an unfinished game is not recorded).
    pub result: GameResult,
}

impl GameRecord {
    /// The position the game starts from; `None` when the start FEN is
    /// not a legal position.
    pub fn start_position(&self) -> Option<Position> {
        match &self.start {
            Some(fen) => Position::from_fen(fen).ok(),
            None => Some(Position::start()),
        }
    }
}

/// Why a games file could not be read.
#[derive(Debug, thiserror::Error)]
pub enum GamesError {
    #[error(transparent)]
    Io(#[from] io::Error),
    #[error("not a games file (no XQGAMES header)")]
    NotGames,
    #[error("games file version {0}: this program reads version {VERSION}")]
    Version(u16),

    #[error("game {game}: {damage}")]
    Bad {
        /// 1-based number of the game in the file.
        game: usize,
        /// What is wrong with it.
        damage: GameDamage,
    },
}

/// What is wrong with a game of a games file.
#[derive(Clone, Debug, PartialEq, Eq, thiserror::Error)]
pub enum GameDamage {
    /// The file ends inside the game (a run killed while writing it).
    #[error("cut short")]
    CutShort,
    /// A result byte other than 0, 1 or 2.
    #[error("result byte {0}")]
    ResultByte(u8),
    /// The start FEN is not UTF-8.
    #[error("start is not text")]
    StartNotText,
    /// The start FEN is not a legal position.
    #[error("start {fen:?}: {source}")]
    BadStart { fen: String, source: FenError },
    /// A move code that names no square.
    #[error("ply {ply}: no such move (code {code})")]
    NoSuchMove { ply: usize, code: u16 },
    /// A move not legal where it is played.
    #[error("ply {ply}: {mv} is illegal in {fen}")]
    IllegalMove { ply: usize, mv: Move, fen: String },
}

/// Writes the file header.
pub fn write_header(out: &mut impl Write) -> io::Result<()> {
    out.write_all(&MAGIC)?;
    out.write_all(&VERSION.to_le_bytes())
}

/// Appends one game. Its result must be decided and its start, if any, a
/// FEN of at most 255 bytes; moves past 65,535 plies are not written.
pub fn write_game(out: &mut (impl Write + ?Sized), game: &GameRecord) -> io::Result<()> {
    let result = match game.result {
        GameResult::RedWins => 0u8,
        GameResult::Draw => 1,
        GameResult::BlackWins => 2,
        GameResult::Unknown => {
            return Err(io::Error::new(
                io::ErrorKind::InvalidInput,
                "an unfinished game",
            ))
        }
    };
    let start = game.start.as_deref().unwrap_or("");
    let len = u8::try_from(start.len())
        .map_err(|_| io::Error::new(io::ErrorKind::InvalidInput, "a start FEN over 255 bytes"))?;
    let plies = game.moves.len().min(u16::MAX as usize);
    let mut bytes = Vec::with_capacity(4 + start.len() + 4 * plies);
    bytes.push(result);
    bytes.push(len);
    bytes.extend_from_slice(start.as_bytes());
    bytes.extend_from_slice(&(plies as u16).to_le_bytes());
    for &(m, score) in &game.moves[..plies] {
        let code = (m.from().index() as u16) << 7 | m.to().index() as u16;
        bytes.extend_from_slice(&code.to_le_bytes());
        bytes.extend_from_slice(&score.to_le_bytes());
    }
    out.write_all(&bytes)
}

/// Checks that `bytes` start with the header of a games file this program
/// reads.
pub fn check_header(bytes: &[u8]) -> Result<(), GamesError> {
    if bytes.len() < 10 || bytes[..8] != MAGIC {
        return Err(GamesError::NotGames);
    }
    let version = u16::from_le_bytes([bytes[8], bytes[9]]);
    if version != VERSION {
        return Err(GamesError::Version(version));
    }
    Ok(())
}

/// Reads a whole games file: every game, its moves checked by replaying.
pub fn read_games(input: &mut impl Read) -> Result<Vec<GameRecord>, GamesError> {
    match read_games_until_damage(input)? {
        (_, Some(damage)) => Err(damage),
        (games, None) => Ok(games),
    }
}

/// Reads a games file up to its first damaged game: the games before it,
/// and the damage (a run that was killed can leave its last game cut
/// short). A file without the header is refused outright.
pub fn read_games_until_damage(
    input: &mut impl Read,
) -> Result<(Vec<GameRecord>, Option<GamesError>), GamesError> {
    let mut bytes = Vec::new();
    input.read_to_end(&mut bytes)?;
    check_header(&bytes)?;
    let mut at = 10;
    let mut games = Vec::new();
    while at < bytes.len() {
        match read_game(&bytes, at) {
            Ok((game, next)) => {
                games.push(game);
                at = next;
            }
            Err(damage) => {
                let game = games.len() + 1;
                return Ok((games, Some(GamesError::Bad { game, damage })));
            }
        }
    }
    Ok((games, None))
}

/// One game from `bytes[at..]`, and where the next one starts.
fn read_game(bytes: &[u8], at: usize) -> Result<(GameRecord, usize), GameDamage> {
    let take = |from: usize, n: usize| bytes.get(from..from + n).ok_or(GameDamage::CutShort);
    let head = take(at, 2)?;
    let result = match head[0] {
        0 => GameResult::RedWins,
        1 => GameResult::Draw,
        2 => GameResult::BlackWins,
        r => return Err(GameDamage::ResultByte(r)),
    };
    let len = head[1] as usize;
    let fen = std::str::from_utf8(take(at + 2, len)?).map_err(|_| GameDamage::StartNotText)?;
    let start = (len > 0).then(|| fen.to_string());
    let mut pos = Position::from_fen(start.as_deref().unwrap_or(START_FEN)).map_err(|source| {
        GameDamage::BadStart {
            fen: fen.to_string(),
            source,
        }
    })?;
    let mut at = at + 2 + len;
    let plies = u16::from_le_bytes(take(at, 2)?.try_into().expect("two bytes")) as usize;
    at += 2;
    let mut moves = Vec::with_capacity(plies);
    for ply in 1..=plies {
        let b = take(at, 4)?;
        at += 4;
        let code = u16::from_le_bytes([b[0], b[1]]);
        let score = i16::from_le_bytes([b[2], b[3]]);
        let square = |i: u16| Square::from_index(i as usize);
        let m = match (square(code >> 7), square(code & 127)) {
            (Some(from), Some(to)) => Move::new(from, to),
            _ => return Err(GameDamage::NoSuchMove { ply, code }),
        };
        if !pos.is_legal(m) {
            return Err(GameDamage::IllegalMove {
                ply,
                mv: m,
                fen: pos.fen(),
            });
        }
        pos.make_move(m);
        moves.push((m, score));
    }
    Ok((
        GameRecord {
            start,
            moves,
            result,
        },
        at,
    ))
}

#[cfg(test)]
mod tests {
    use super::*;

    fn game(start: Option<&str>, line: &[&str], result: GameResult) -> GameRecord {
        let mut pos = Position::from_fen(start.unwrap_or(START_FEN)).unwrap();
        let moves = line
            .iter()
            .enumerate()
            .map(|(i, text)| {
                let m = pos.parse_move(text).unwrap();
                pos.make_move(m);
                (m, if i < 2 { NO_SCORE } else { 30 - 7 * i as i16 })
            })
            .collect();
        GameRecord {
            start: start.map(String::from),
            moves,
            result,
        }
    }

    fn file(games: &[GameRecord]) -> Vec<u8> {
        let mut bytes = Vec::new();
        write_header(&mut bytes).unwrap();
        for g in games {
            write_game(&mut bytes, g).unwrap();
        }
        bytes
    }

    #[test]
    fn games_round_trip_in_four_bytes_a_ply() {
        let games = [
            game(None, &["h2e2", "h9g7", "h0g2", "i9h9"], GameResult::RedWins),
            game(
                Some("3k5/9/9/9/9/9/9/9/4R4/4K4 w"),
                &["e1e4", "d9d8", "e4d4"],
                GameResult::Draw,
            ),
            game(None, &[], GameResult::BlackWins),
        ];
        let bytes = file(&games);
        let fen_len = "3k5/9/9/9/9/9/9/9/4R4/4K4 w".len();
        assert_eq!(bytes.len(), 10 + (4 + 16) + (4 + fen_len + 12) + 4);
        assert_eq!(read_games(&mut bytes.as_slice()).unwrap(), games);
    }

    #[test]
    fn damaged_files_are_refused_with_the_game_named() {
        let good = file(&[
            game(None, &["h2e2", "h9g7"], GameResult::Draw),
            game(None, &["c3c4", "g6g5", "b2d2"], GameResult::RedWins),
        ]);
        // Cut inside the second game.
        let err = read_games(&mut &good[..good.len() - 3]).unwrap_err();
        assert_eq!(err.to_string(), "game 2: cut short");
        // A move of the second game changed into an illegal one (a1a9).
        let mut bad = good.clone();
        let at = 10 + 4 + 8 + 4;
        bad[at..at + 2].copy_from_slice(&((9u16 << 7) | 81).to_le_bytes());
        let err = read_games(&mut bad.as_slice()).unwrap_err().to_string();
        assert!(err.starts_with("game 2: ply 1: a1a9 is illegal"), "{err}");
        // Not ours, and a later version.
        assert!(matches!(
            read_games(&mut &b"PGN"[..]),
            Err(GamesError::NotGames)
        ));
        let mut later = good;
        later[8] = 2;
        assert!(matches!(
            read_games(&mut later.as_slice()),
            Err(GamesError::Version(2))
        ));
        // An unfinished game is not written.
        let mut sink = Vec::new();
        assert!(write_game(&mut sink, &game(None, &[], GameResult::Unknown)).is_err());
    }
}
