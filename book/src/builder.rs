//! Counting games into (position, move) statistics and writing the book.

use std::collections::{HashMap, HashSet};
use std::hash::{DefaultHasher, Hash, Hasher};
use std::path::Path;

pub use xqcore::GameResult;
use xqcore::{Color, IllegalMove, Move, Position};
use xqstore::Writer;

use crate::codec::{self, PositionMoves};
use crate::{book_key, BookMove, BOOK_KIND};

/// Which side's moves a book keeps.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum SideFilter {
    /// Red's moves only.
    Red,
    /// Black's moves only.
    Black,
    /// Both sides' moves.
    Both,
}

/// What a book keeps.
#[derive(Clone, Copy, Debug)]
pub struct BuildConfig {
    /// Positions at plies 0..=`max_ply` of a game (0 is its start) are
    /// counted, with the moves played from them.
    pub max_ply: usize,
    /// A position is kept when at least this many (distinct) games reached it.
    pub min_games: u32,
    /// Whose moves are kept.
    pub side: SideFilter,
    /// A move is kept when its score for the mover (0.0..=1.0, over games
    /// with a known result) is at least this.
    pub min_score: f64,
}

impl Default for BuildConfig {
    fn default() -> Self {
        BuildConfig {
            max_ply: 20,
            min_games: 3,
            side: SideFilter::Both,
            min_score: 0.0,
        }
    }
}

/// Counts of a finished build.
#[derive(Clone, Copy, Debug, Default, PartialEq, Eq)]
pub struct BuildSummary {
    /// Positions written.
    pub positions: u64,
    /// (position, move) entries written.
    pub entries: u64,
    /// Bytes of the book file.
    pub bytes: u64,
}

/// Statistics of one (position, move): games, wins, draws, losses.
type Counts = [u32; 4];

/// Accumulates games. Builders over parts of a collection can be merged
/// ([`BookBuilder::merge`]), so games can be counted in parallel.
#[derive(Debug, Default)]
pub struct BookBuilder {
    config: BuildConfig,
    /// (book key, stored move) -> counts.
    moves: HashMap<(u64, Move), Counts>,
    /// Book key -> games that reached the position (within the ply limit).
    reached: HashMap<u64, u32>,
    games: u64,
}

/// Entries per block: small blocks keep a probe's decompression short.
const ENTRIES_PER_BLOCK: usize = 256;

impl BookBuilder {
    /// An empty builder.
    pub fn new(config: BuildConfig) -> BookBuilder {
        BookBuilder {
            config,
            ..BookBuilder::default()
        }
    }

    /// Games counted so far.
    pub fn games(&self) -> u64 {
        self.games
    }

    /// Replays `moves` from `start` and counts its positions up to
    /// `max_ply` with the moves played from them; later moves are not
    /// looked at. An illegal move among those rejects the whole game, which
    /// then counts for nothing.
    pub fn add_game(
        &mut self,
        start: &Position,
        moves: &[Move],
        result: GameResult,
    ) -> Result<(), (usize, IllegalMove)> {
        let mut pos = start.clone();
        let mut counted = Vec::with_capacity(moves.len().min(self.config.max_ply + 1));
        let mut keys_reached = Vec::with_capacity(counted.capacity());
        for (ply, &m) in moves.iter().enumerate().take(self.config.max_ply + 1) {
            let legal = pos.resolve(m.into()).map_err(|e| (ply, e))?;
            let (key, mirrored) = book_key(&pos);
            keys_reached.push(key);
            if self.keeps(pos.turn()) {
                let stored = if mirrored { legal.mirror() } else { legal };
                counted.push((key, stored, outcome(result, pos.turn())));
            }
            pos.make_move(legal);
        }
        // A position met twice in one game counts once for that game.
        keys_reached.sort_unstable();
        keys_reached.dedup();
        for key in keys_reached {
            *self.reached.entry(key).or_default() += 1;
        }
        for (key, m, outcome) in counted {
            let c = self.moves.entry((key, m)).or_default();
            c[0] += 1;
            if let Some(i) = outcome {
                c[i] += 1;
            }
        }
        self.games += 1;
        Ok(())
    }

    fn keeps(&self, turn: Color) -> bool {
        match self.config.side {
            SideFilter::Both => true,
            SideFilter::Red => turn == Color::Red,
            SideFilter::Black => turn == Color::Black,
        }
    }

    /// Adds the counts of another builder (of other games).
    pub fn merge(&mut self, other: BookBuilder) {
        for (k, c) in other.moves {
            let mine = self.moves.entry(k).or_default();
            for i in 0..4 {
                mine[i] += c[i];
            }
        }
        for (k, n) in other.reached {
            *self.reached.entry(k).or_default() += n;
        }
        self.games += other.games;
    }

    /// The positions and moves the book will hold, sorted by key, moves
    /// by most games first.
    pub fn entries(&self) -> Vec<(u64, Vec<BookMove>)> {
        let mut by_key: HashMap<u64, Vec<BookMove>> = HashMap::new();
        for (&(key, mv), c) in &self.moves {
            if self.reached.get(&key).copied().unwrap_or(0) < self.config.min_games {
                continue;
            }
            let m = BookMove {
                mv,
                games: c[0],
                wins: c[1],
                draws: c[2],
                losses: c[3],
            };
            if m.score() >= self.config.min_score {
                by_key.entry(key).or_default().push(m);
            }
        }
        let mut positions: Vec<_> = by_key.into_iter().collect();
        positions.sort_unstable_by_key(|p| p.0);
        for (_, moves) in &mut positions {
            moves.sort_unstable_by(|a, b| b.games.cmp(&a.games).then(a.mv.cmp(&b.mv)));
            // A position has well under 255 legal moves; the format counts
            // moves in a byte.
            moves.truncate(255);
        }
        positions
    }

    /// Writes the book to `path` (through a temporary file: an error leaves
    /// nothing there). `describe` is stored as the book's description.
    pub fn write(&self, path: &Path, describe: &str) -> Result<BuildSummary, xqstore::StoreError> {
        write_book(path, &self.entries(), describe)
    }
}

/// Writes positions sorted by key (as [`BookBuilder::entries`] gives them)
/// as a book file.
pub fn write_book(
    path: &Path,
    positions: &[PositionMoves],
    describe: &str,
) -> Result<BuildSummary, xqstore::StoreError> {
    let mut writer = Writer::create(path, BOOK_KIND, describe.as_bytes(), 19)?;
    let mut summary = BuildSummary::default();
    let mut start = 0;
    while start < positions.len() {
        let mut end = start;
        let mut entries = 0;
        while end < positions.len() && entries < ENTRIES_PER_BLOCK {
            entries += positions[end].1.len();
            end += 1;
        }
        let block = &positions[start..end];
        writer.add_block(block[0].0, entries as u32, &codec::encode(block))?;
        summary.positions += block.len() as u64;
        summary.entries += entries as u64;
        start = end;
    }
    summary.bytes = writer.finish()?;
    Ok(summary)
}

/// Which count a result adds to for the side `mover`: 1 win, 2 draw, 3 loss.
fn outcome(result: GameResult, mover: Color) -> Option<usize> {
    match (result, mover) {
        (GameResult::Unknown, _) => None,
        (GameResult::Draw, _) => Some(2),
        (GameResult::RedWins, Color::Red) | (GameResult::BlackWins, Color::Black) => Some(1),
        _ => Some(3),
    }
}

/// A fingerprint of a game's start and moves: equal games have equal
/// fingerprints, so duplicates in a collection can be counted once.
pub fn game_fingerprint(start: &Position, moves: &[Move]) -> u128 {
    let half = |salt: u64| {
        let mut h = DefaultHasher::new();
        salt.hash(&mut h);
        start.key().hash(&mut h);
        moves.hash(&mut h);
        h.finish()
    };
    u128::from(half(1)) << 64 | u128::from(half(2))
}

/// Drops games whose fingerprint was seen before; returns how many it dropped.
pub fn retain_unique<T>(games: &mut Vec<T>, fingerprint: impl Fn(&T) -> u128) -> usize {
    let mut seen = HashSet::with_capacity(games.len());
    let before = games.len();
    games.retain(|g| seen.insert(fingerprint(g)));
    before - games.len()
}
