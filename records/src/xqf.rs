//! XQF: the binary record format of XQStudio (象棋演播室) and the record
//! editors after it.
//!
//! A 1024-byte header (signature `XQ`, version, key bytes, the 32 piece
//! squares, result, text fields of a length byte and GBK text), then the
//! move tree from 0x400: records of from, to, flags and a reserved byte,
//! with a comment length and text where flagged. The tree is stored in
//! pre-order, each node followed by its continuation and then by its
//! alternative (a move from the same position), so the main line comes
//! first.
//!
//! Versions up to 10 are plain. From version 11 the piece squares, the
//! move squares and the comment lengths are offset by keys derived from
//! the header, and every byte from 0x400 on has a 32-byte key stream
//! (from the string `[(C) Copyright Mr. Dong Shiwei.]`) subtracted,
//! indexed by file offset. From version 12 the piece table is also
//! rotated. Squares are `file * 10 + rank`, file 0 = a, rank 0 = Red's back
//! rank.

use xqcore::{Board, Color, GameResult, IccsMove, Move, Piece, Position, Setup, Square};

use crate::encoding::decode;
use crate::pgn::{Game, MoveNote};

/// Where the move tree starts.
const TREE: usize = 0x400;

/// The text of the key stream.
const KEY_TEXT: &[u8; 32] = b"[(C) Copyright Mr. Dong Shiwei.]";

/// FEN letters of the 32 piece slots: Red's, then Black's.
const SLOTS: &[u8; 32] = b"RNBAKABNRCCPPPPPrnbakabnrccppppp";

/// Why an XQF file cannot be read.
#[derive(Clone, Debug, PartialEq, Eq, thiserror::Error)]
#[error("{0}")]
pub struct XqfError(pub String);

fn fail<T>(why: impl Into<String>) -> Result<T, XqfError> {
    Err(XqfError(why.into()))
}

/// The keys of a file, derived from its header.
#[derive(Clone, Copy, Debug, Default)]
struct Keys {
    version: u8,
    /// Subtracted from piece squares.
    pieces: u8,
    /// Subtracted from move origins (besides the fixed 0x18).
    from: u8,
    /// Subtracted from move targets (besides the fixed 0x20).
    to: u8,
    /// Subtracted from comment lengths.
    comment: u32,
    /// The stream key, by file offset modulo 32.
    stream: [u8; 32],
}

/// `54 b² + 221`, the scrambling step of the key derivation, modulo 256.
fn scramble(b: u8) -> u8 {
    let b = u32::from(b);
    (54 * b * b + 221) as u8
}

impl Keys {
    fn from_header(h: &[u8]) -> Result<Keys, XqfError> {
        let version = h[2];
        if version > 18 {
            return fail(format!("XQF version {version}, at most 18 is known"));
        }
        let (mask, or) = (h[3], [h[8], h[9], h[10], h[11]]);
        let (sum, xy, xyf, xyt) = (h[12], h[13], h[14], h[15]);
        if sum.wrapping_add(xy).wrapping_add(xyf).wrapping_add(xyt) != 0 {
            return fail("key checksum does not add up: not an XQF file, or damaged");
        }
        if version <= 10 {
            return Ok(Keys {
                version,
                ..Keys::default()
            });
        }
        let pieces = scramble(xy).wrapping_mul(xy);
        let from = scramble(xyf).wrapping_mul(pieces);
        let to = scramble(xyt).wrapping_mul(from);
        let comment = (u32::from(sum) * 256 + u32::from(xy)) % 32000 + 767;
        let bytes = [sum, xy, xyf, xyt];
        let mut stream = [0u8; 32];
        for (k, s) in stream.iter_mut().enumerate() {
            *s = KEY_TEXT[k] & ((bytes[k % 4] & mask) | or[k % 4]);
        }
        Ok(Keys {
            version,
            pieces,
            from,
            to,
            comment,
            stream,
        })
    }
}

/// A reader of the tree bytes that undoes the key stream.
struct Stream<'a> {
    bytes: &'a [u8],
    at: usize,
    keys: &'a Keys,
}

impl Stream<'_> {
    fn take(&mut self, n: usize) -> Result<Vec<u8>, XqfError> {
        let end = self.at.checked_add(n).filter(|&e| e <= self.bytes.len());
        let Some(end) = end else {
            return fail(format!(
                "the move tree ends early at byte {}",
                self.bytes.len()
            ));
        };
        let out = (self.at..end)
            .map(|p| self.bytes[p].wrapping_sub(self.keys.stream[p % 32]))
            .collect();
        self.at = end;
        Ok(out)
    }
}

/// One record of the tree, decoded.
struct Node {
    from: u8,
    to: u8,
    next: bool,
    alternative: bool,
}

fn read_node(s: &mut Stream<'_>) -> Result<Node, XqfError> {
    let r = s.take(4)?;
    let keys = s.keys;
    let (next, alternative, has_comment) = if keys.version <= 10 {
        (r[2] & 0xf0 != 0, r[2] & 0x0f != 0, true)
    } else {
        (r[2] & 0x80 != 0, r[2] & 0x40 != 0, r[2] & 0x20 != 0)
    };
    if has_comment {
        let len = s.take(4)?;
        let mut len = u32::from_le_bytes([len[0], len[1], len[2], len[3]]);
        if len > 0 {
            len = len.wrapping_sub(keys.comment);
        }
        if len as usize > s.bytes.len() {
            return fail(format!(
                "a comment of {len} bytes in a file of {}",
                s.bytes.len()
            ));
        }
        s.take(len as usize)?;
    }
    Ok(Node {
        from: r[0].wrapping_sub(0x18).wrapping_sub(keys.from),
        to: r[1].wrapping_sub(0x20).wrapping_sub(keys.to),
        next,
        alternative,
    })
}

fn square(sq: u8) -> Option<Square> {
    (sq <= 89).then(|| Square::new(sq / 10, sq % 10)).flatten()
}

/// A header text field: a length byte and GBK (or Big5) text.
fn text(h: &[u8], at: usize, width: usize) -> String {
    let len = (h[at] as usize).min(width - 1);
    let raw = &h[at + 1..at + 1 + len];
    let raw = raw.split(|&b| b == 0).next().unwrap_or_default();
    decode(raw, None).text.trim().to_string()
}

/// The lines of an XQF file's tree, each from the start: the main line
/// first, then every alternative that the file holds.
fn lines(bytes: &[u8], keys: &Keys) -> Result<Vec<Vec<(u8, u8)>>, XqfError> {
    let mut s = Stream {
        bytes,
        at: TREE,
        keys,
    };
    let root = read_node(&mut s)?;
    let mut out = Vec::new();
    if !root.next {
        out.push(Vec::new());
        return Ok(out);
    }
    // Pre-order: a node, its continuation, then its alternative. The stack
    // holds the lines from which alternatives are still to be read.
    let mut line: Vec<(u8, u8)> = Vec::new();
    let mut pending: Vec<usize> = Vec::new();
    loop {
        let node = read_node(&mut s)?;
        if node.alternative {
            pending.push(line.len());
        }
        line.push((node.from, node.to));
        if node.next {
            continue;
        }
        out.push(line.clone());
        match pending.pop() {
            Some(len) => line.truncate(len),
            None => return Ok(out),
        }
    }
}

/// Reads an XQF file: its main line, and with `variations` also every
/// alternative line as a game of its own (same tags and result).
pub fn read_xqf(bytes: &[u8], variations: bool) -> Result<Vec<Game>, XqfError> {
    if bytes.len() < TREE + 4 {
        return fail(format!(
            "{} bytes is too short for an XQF file",
            bytes.len()
        ));
    }
    if &bytes[..2] != b"XQ" {
        return fail("not an XQF file (no 'XQ' signature)");
    }
    let h = &bytes[..TREE];
    let keys = Keys::from_header(h)?;
    let board = pieces(h, &keys);
    let result = match h[0x33] {
        1 => GameResult::RedWins,
        2 => GameResult::BlackWins,
        3 | 4 => GameResult::Draw,
        _ => GameResult::Unknown,
    };
    let mut tags = vec![("Format".to_string(), "XQF".to_string())];
    for (name, at, width) in [
        ("Title", 0x50, 64),
        ("Event", 0xd0, 64),
        ("Date", 0x110, 16),
        ("Site", 0x120, 16),
        ("Red", 0x130, 16),
        ("Black", 0x140, 16),
    ] {
        let value = text(h, at, width);
        if !value.is_empty() {
            tags.push((name.to_string(), value));
        }
    }
    tags.push(("Result".to_string(), result.to_string()));
    let all = lines(bytes, &keys)?;
    let keep = if variations { all.len() } else { 1 };
    let mut games = Vec::with_capacity(keep);
    for (i, line) in all.into_iter().take(keep).enumerate() {
        let start = start_position(&board, h[0x32], line.first())?;
        let moves =
            play(&start, &line).map_err(|e| XqfError(format!("line {}: {}", i + 1, e.0)))?;
        games.push(Game {
            index: i + 1,
            tags: tags.clone(),
            start,
            // The file's comments are not read.
            notes: vec![MoveNote::default(); moves.len()],
            comment: String::new(),
            moves,
            result,
        });
    }
    Ok(games)
}

/// The board of the header's piece table.
fn pieces(h: &[u8], keys: &Keys) -> Board {
    let raw = &h[0x10..0x30];
    let mut slots = [0u8; 32];
    for (i, &b) in raw.iter().enumerate() {
        let at = if keys.version >= 12 {
            (i + 1 + keys.pieces as usize) % 32
        } else {
            i
        };
        slots[at] = b;
    }
    let mut board = Board::empty();
    for (slot, &b) in slots.iter().enumerate() {
        if let Some(sq) = square(b.wrapping_sub(keys.pieces)) {
            board.set(sq, Piece::from_char(SLOTS[slot] as char));
        }
    }
    board
}

/// The start position: the header's pieces, with the side to move taken
/// from the first move's piece (version 10 files leave the side byte 0
/// even when Black starts), else from the header.
fn start_position(board: &Board, side: u8, first: Option<&(u8, u8)>) -> Result<Position, XqfError> {
    let black_first = match first.and_then(|&(from, _)| square(from)) {
        Some(sq) => board.piece_at(sq).is_some_and(|p| p.color == Color::Black),
        None => side == 1,
    };
    let setup = Setup {
        board: board.clone(),
        turn: if black_first {
            Color::Black
        } else {
            Color::Red
        },
        plies_since_capture: 0,
        fullmoves: 1,
    };
    Position::from_setup(setup)
        .map_err(|e| XqfError(format!("the start position is not legal: {e}")))
}

fn play(start: &Position, line: &[(u8, u8)]) -> Result<Vec<Move>, XqfError> {
    let mut pos = start.clone();
    let mut moves = Vec::with_capacity(line.len());
    for (i, &(from, to)) in line.iter().enumerate() {
        let (Some(from), Some(to)) = (square(from), square(to)) else {
            return fail(format!("move {}: a square off the board", i + 1));
        };
        let m = pos
            .resolve(IccsMove { from, to })
            .map_err(|e| XqfError(format!("move {}: {e}", i + 1)))?;
        pos.make_move(m);
        moves.push(m);
    }
    Ok(moves)
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn keys_follow_the_documented_values() {
        // f(1) = 275, so KeyXY = 1 gives 19; chained, KeyXYf = 1 gives 105.
        assert_eq!(scramble(1).wrapping_mul(1), 19);
        assert_eq!(scramble(1).wrapping_mul(19), 105);
        assert_eq!(scramble(200).wrapping_mul(200), 168);
        let mut h = [0u8; TREE];
        h[2] = 18;
        h[3] = 0xff;
        h[8..12].copy_from_slice(&[0x10, 0x20, 0x30, 0x40]);
        h[12..16].copy_from_slice(&[106, 30, 50, 70]);
        let k = Keys::from_header(&h).unwrap();
        assert_eq!((k.pieces, k.from, k.to, k.comment), (54, 46, 6, 27933));
        assert_eq!(&k.stream[..4], &[0x5a, 0x28, 0x02, 0x00]);
        h[12] = 0;
        assert!(Keys::from_header(&h).is_err());
    }
}
