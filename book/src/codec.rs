//! One block of a book, byte for byte (format version 1).
//!
//! A block holds the positions of a key range and their moves, column by
//! column so that zstd finds the regularities of each column:
//!
//! ```text
//! varint   P            positions
//! varint   E            entries (position, move)
//! u8       w            bytes per key gap
//! (P-1)*w  key gaps     key[i] - key[i-1], little-endian; key[0] is the block's first key
//! P        move counts  entries of each position, 1..=255
//! E        from squares
//! E        to squares
//! E varint games, E varint wins, E varint draws, E varint losses
//! ```
//!
//! Wins, draws and losses are from the side that played the move; games
//! with an unknown result count in `games` only.

use xqcore::{Move, Square};

use crate::BookMove;

/// A position's key and its moves, in move order.
pub(crate) type PositionMoves = (u64, Vec<BookMove>);

/// Why a block's bytes, which passed their checksum, are not a block: a
/// file from a faulty writer.
#[derive(Clone, Debug, PartialEq, Eq, thiserror::Error)]
pub enum BlockError {
    /// The counts at the head of the block cannot fit in it.
    #[error("{positions} positions and {entries} entries in {len} bytes")]
    Counts {
        positions: usize,
        entries: usize,
        len: usize,
    },
    /// Key gaps wider than a key.
    #[error("key gaps of {0} bytes")]
    GapWidth(usize),
    /// A key not above the one before it.
    #[error("keys not increasing")]
    KeysNotIncreasing,
    /// The positions' move counts and the entry count disagree.
    #[error("move counts do not add up to the entries")]
    MoveCounts,
    /// A game count that does not fit in 32 bits.
    #[error("a count beyond 32 bits")]
    CountTooLarge,
    /// Bytes after the last column.
    #[error("bytes left after the last column")]
    TrailingBytes,
    /// A square index past the 90 squares.
    #[error("a square off the board")]
    SquareOffBoard,
    /// A move with more wins, draws and losses than games.
    #[error("{mv}: more results than games")]
    MoreResultsThanGames { mv: Move },
    /// The block ends inside a column.
    #[error("block ends early")]
    EndsEarly,
    /// A varint of more than 64 bits.
    #[error("a number longer than 64 bits")]
    VarintTooLong,
    /// An analysis score beyond 16 bits.
    #[error("a score beyond 16 bits")]
    ScoreTooLarge,
    /// An analysed move's flags other than 0 or 1.
    #[error("bad move flags")]
    BadFlags,
    /// An analysed position without moves.
    #[error("a position without moves")]
    NoMoves,
}

/// Encodes positions sorted by key, each with 1..=255 moves.
pub(crate) fn encode(positions: &[PositionMoves]) -> Vec<u8> {
    let entries: usize = positions.iter().map(|p| p.1.len()).sum();
    let mut out = Vec::with_capacity(16 + positions.len() * 8 + entries * 8);
    put_varint(&mut out, positions.len() as u64);
    put_varint(&mut out, entries as u64);
    let max_gap = positions
        .windows(2)
        .map(|w| w[1].0 - w[0].0)
        .max()
        .unwrap_or(0);
    let width = (8 - max_gap.leading_zeros() as usize / 8) as u8;
    out.push(width);
    for w in positions.windows(2) {
        out.extend_from_slice(&(w[1].0 - w[0].0).to_le_bytes()[..width as usize]);
    }
    let moves = || positions.iter().flat_map(|p| p.1.iter());
    out.extend(positions.iter().map(|p| p.1.len() as u8));
    out.extend(moves().map(|m| m.mv.from().index() as u8));
    out.extend(moves().map(|m| m.mv.to().index() as u8));
    for field in [
        |m: &BookMove| m.games,
        |m: &BookMove| m.wins,
        |m: &BookMove| m.draws,
        |m: &BookMove| m.losses,
    ] {
        for m in moves() {
            put_varint(&mut out, u64::from(field(m)));
        }
    }
    out
}

/// Decodes a whole block whose first key is `first_key`.
///
/// # Errors
///
/// The bytes are not a block of this format (see [`BlockError`]).
pub(crate) fn decode(raw: &[u8], first_key: u64) -> Result<Vec<PositionMoves>, BlockError> {
    let block = Columns::parse(raw, first_key)?;
    let mut out = Vec::with_capacity(block.keys.len());
    let mut moves = block.moves()?.into_iter();
    for (&key, &count) in block.keys.iter().zip(block.counts) {
        out.push((key, moves.by_ref().take(count as usize).collect()));
    }
    Ok(out)
}

/// A block split into its columns, lengths checked.
struct Columns<'a> {
    keys: Vec<u64>,
    counts: &'a [u8],
    from: &'a [u8],
    to: &'a [u8],
    stats: &'a [u8],
}

impl<'a> Columns<'a> {
    fn parse(raw: &'a [u8], first_key: u64) -> Result<Columns<'a>, BlockError> {
        let mut r = Cursor { raw, at: 0 };
        let positions = r.varint()? as usize;
        let entries = r.varint()? as usize;
        if positions == 0 || positions > raw.len() || entries > raw.len() {
            return Err(BlockError::Counts {
                positions,
                entries,
                len: raw.len(),
            });
        }
        let width = r.take(1)?[0] as usize;
        if width > 8 {
            return Err(BlockError::GapWidth(width));
        }
        let gaps = r.take((positions - 1) * width)?;
        let mut keys = Vec::with_capacity(positions);
        keys.push(first_key);
        for gap in gaps.chunks_exact(width.max(1)).take(positions - 1) {
            let mut bytes = [0u8; 8];
            bytes[..width].copy_from_slice(gap);
            let prev = *keys.last().expect("first key pushed");
            let key = prev
                .checked_add(u64::from_le_bytes(bytes))
                .filter(|&k| k > prev)
                .ok_or(BlockError::KeysNotIncreasing)?;
            keys.push(key);
        }
        if width == 0 && positions > 1 {
            return Err(BlockError::KeysNotIncreasing);
        }
        let counts = r.take(positions)?;
        if counts.contains(&0) || counts.iter().map(|&c| c as usize).sum::<usize>() != entries {
            return Err(BlockError::MoveCounts);
        }
        let from = r.take(entries)?;
        let to = r.take(entries)?;
        Ok(Columns {
            keys,
            counts,
            from,
            to,
            stats: &raw[r.at..],
        })
    }

    fn moves(&self) -> Result<Vec<BookMove>, BlockError> {
        let n = self.from.len();
        let mut r = Cursor {
            raw: self.stats,
            at: 0,
        };
        let mut columns = [vec![0u32; n], vec![0u32; n], vec![0u32; n], vec![0u32; n]];
        for column in columns.iter_mut() {
            for v in column.iter_mut() {
                *v = u32::try_from(r.varint()?).map_err(|_| BlockError::CountTooLarge)?;
            }
        }
        if r.at != self.stats.len() {
            return Err(BlockError::TrailingBytes);
        }
        let [games, wins, draws, losses] = columns;
        (0..n)
            .map(|i| {
                let square =
                    |s: u8| Square::from_index(s as usize).ok_or(BlockError::SquareOffBoard);
                let mv = Move::new(square(self.from[i])?, square(self.to[i])?);
                let m = BookMove {
                    mv,
                    games: games[i],
                    wins: wins[i],
                    draws: draws[i],
                    losses: losses[i],
                };
                let decided = u64::from(m.wins) + u64::from(m.draws) + u64::from(m.losses);
                if decided > u64::from(m.games) {
                    return Err(BlockError::MoreResultsThanGames { mv });
                }
                Ok(m)
            })
            .collect()
    }
}

/// Reads a block front to back.
pub(crate) struct Cursor<'a> {
    pub(crate) raw: &'a [u8],
    pub(crate) at: usize,
}

impl<'a> Cursor<'a> {
    pub(crate) fn take(&mut self, n: usize) -> Result<&'a [u8], BlockError> {
        let end = self.at.checked_add(n).filter(|&e| e <= self.raw.len());
        let end = end.ok_or(BlockError::EndsEarly)?;
        let s = &self.raw[self.at..end];
        self.at = end;
        Ok(s)
    }

    pub(crate) fn varint(&mut self) -> Result<u64, BlockError> {
        let mut v = 0u64;
        for shift in (0..64).step_by(7) {
            let b = self.take(1)?[0];
            v |= u64::from(b & 0x7f) << shift;
            if b & 0x80 == 0 {
                return Ok(v);
            }
        }
        Err(BlockError::VarintTooLong)
    }
}

pub(crate) fn put_varint(out: &mut Vec<u8>, mut v: u64) {
    while v >= 0x80 {
        out.push(v as u8 | 0x80);
        v >>= 7;
    }
    out.push(v as u8);
}

#[cfg(test)]
mod tests {
    use super::*;
    use proptest::prelude::*;

    fn book_move(from: usize, to: usize, games: u32) -> BookMove {
        BookMove {
            mv: Move::new(
                Square::from_index(from).unwrap(),
                Square::from_index(to).unwrap(),
            ),
            games,
            wins: games / 2,
            draws: games / 3,
            losses: games / 7,
        }
    }

    proptest! {
        #[test]
        fn blocks_round_trip(
            gaps in prop::collection::vec(1u64..u64::MAX / 512, 1..200),
            first in 0u64..u64::MAX / 2,
            games in prop::collection::vec(0u32..100_000, 1..6),
        ) {
            let mut key = first;
            let positions: Vec<PositionMoves> = gaps
                .iter()
                .enumerate()
                .map(|(i, &gap)| {
                    let moves = games
                        .iter()
                        .enumerate()
                        .map(|(j, &g)| book_move((i + j) % 90, (i * 7 + j) % 90, g))
                        .collect();
                    let entry = (key, moves);
                    key += gap;
                    entry
                })
                .collect();
            let raw = encode(&positions);
            prop_assert_eq!(&decode(&raw, first).unwrap(), &positions);
        }
    }

    #[test]
    fn every_cut_or_garbled_block_is_an_error_not_a_panic() {
        let positions: Vec<PositionMoves> = (0..20u64)
            .map(|i| {
                (
                    1000 + i * 12_345,
                    vec![book_move(i as usize, 89 - i as usize, 5)],
                )
            })
            .collect();
        let raw = encode(&positions);
        for len in 0..raw.len() {
            assert!(decode(&raw[..len], 1000).is_err(), "cut at {len}");
        }
        let cut = decode(&raw[..raw.len() - 1], 1000);
        assert_eq!(cut, Err(BlockError::EndsEarly));
        let mut extra = raw.clone();
        extra.push(0);
        assert_eq!(decode(&extra, 1000), Err(BlockError::TrailingBytes));
        for at in 0..raw.len() {
            for x in [0x01, 0x80, 0xff] {
                let mut bad = raw.clone();
                bad[at] ^= x;
                // Any answer but a panic: a checksum guards real files.
                let _ = decode(&bad, 1000);
            }
        }
    }
}
