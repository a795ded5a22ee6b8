//! A reservoir of self-play games small enough to commit: a uniform random
//! sample of every game ever offered to it, so that what the machines of
//! past sessions played outlives their disks.
//!
//! Each session's new games are offered to the reservoir (Vitter's
//! algorithm R: game `n` of all those ever offered takes a place with
//! probability `capacity / n`, replacing one at random), and the next
//! training round reads it beside the new games: old play keeps a voice
//! however many rounds have passed, at a fixed size.
//!
//! Layout, little-endian:
//!
//! ```text
//! magic "XQRESV\0\0", u16 version (1), u16 0,
//! u64 games ever offered, u32 games kept, u32 capacity,
//! u32 payload length, u32 CRC-32 of the payload
//! payload: a games file (the layout of games.rs), zstd-compressed
//! ```
//!
//! A file is written whole or not at all; a damaged one is refused with
//! the reason, never half read.

use std::io;
use std::path::{Path, PathBuf};

use xqcore::SplitMix64;

use crate::games::{read_games, write_game, write_header, GameRecord, GamesError};

/// The first bytes of a reservoir file.
pub const MAGIC: [u8; 8] = *b"XQRESV\0\0";
/// The layout version written and read.
pub const VERSION: u16 = 1;
/// Header bytes before the payload.
const HEAD: usize = 36;
/// zstd level: the file is written once a session and read a few times.
const LEVEL: i32 = 19;

/// Games sampled uniformly from all those offered.
#[derive(Clone, Debug, PartialEq, Eq)]
pub struct Reservoir {
    /// Games ever offered, kept or not.
    pub offered: u64,
    /// Most games kept.
    pub capacity: u32,
    /// The games kept (at most `capacity`).
    pub games: Vec<GameRecord>,
}

/// Why a reservoir file cannot be used.
#[derive(Debug, thiserror::Error)]
#[error("{path}: {reason}", path = .path.display())]
pub struct ReservoirError {
    pub path: PathBuf,
    pub reason: ReservoirDamage,
}

/// What is wrong with a reservoir file.
#[derive(Debug, thiserror::Error)]
pub enum ReservoirDamage {
    #[error(transparent)]
    Io(#[from] io::Error),
    #[error("not a reservoir of games (no XQRESV header)")]
    NotReservoir,
    #[error("reservoir version {0}: this program reads version {VERSION}")]
    Version(u16),
    #[error("{0} bytes where the header says {1}: the file is cut short or lengthened")]
    Length(usize, usize),
    #[error("checksum mismatch (the file is damaged)")]
    Checksum,
    #[error("the games inside: {0}")]
    Games(#[from] GamesError),
    #[error("the header says {said} games kept, the payload holds {held}")]
    Count { said: u32, held: usize },
}

impl Reservoir {
    /// An empty reservoir keeping at most `capacity` games.
    pub fn new(capacity: u32) -> Reservoir {
        Reservoir {
            offered: 0,
            capacity,
            games: Vec::new(),
        }
    }

    /// Offers `games` in turn (algorithm R). The choices are drawn from
    /// `seed` and the count offered before, so the same offers give the
    /// same reservoir. Returns how many of them were kept.
    pub fn offer(&mut self, games: impl IntoIterator<Item = GameRecord>, seed: u64) -> usize {
        let mut rng = SplitMix64::new(seed ^ self.offered.wrapping_mul(0x9E37_79B9_7F4A_7C15));
        let capacity = self.capacity as usize;
        let mut kept = 0;
        for game in games {
            self.offered += 1;
            if self.games.len() < capacity {
                self.games.push(game);
                kept += 1;
            } else {
                let place = rng.next_u64() % self.offered;
                if place < capacity as u64 {
                    self.games[place as usize] = game;
                    kept += 1;
                }
            }
        }
        kept
    }

    /// Keeps at most `capacity` games from now on: a smaller one drops
    /// games at random (the rest stay a uniform sample).
    pub fn set_capacity(&mut self, capacity: u32, seed: u64) {
        let mut rng = SplitMix64::new(seed);
        while self.games.len() > capacity as usize {
            let i = rng.below(self.games.len());
            self.games.swap_remove(i);
        }
        self.capacity = capacity;
    }

    /// The file's bytes.
    ///
    /// # Errors
    ///
    /// A game cannot be written (an unfinished one, or a start FEN over
    /// 255 bytes).
    pub fn to_bytes(&self) -> io::Result<Vec<u8>> {
        let mut plain = Vec::new();
        write_header(&mut plain)?;
        for game in &self.games {
            write_game(&mut plain, game)?;
        }
        let payload = zstd::bulk::compress(&plain, LEVEL)?;
        let mut out = Vec::with_capacity(HEAD + payload.len());
        out.extend_from_slice(&MAGIC);
        out.extend_from_slice(&VERSION.to_le_bytes());
        out.extend_from_slice(&0u16.to_le_bytes());
        out.extend_from_slice(&self.offered.to_le_bytes());
        out.extend_from_slice(&(self.games.len() as u32).to_le_bytes());
        out.extend_from_slice(&self.capacity.to_le_bytes());
        out.extend_from_slice(&(payload.len() as u32).to_le_bytes());
        out.extend_from_slice(&crc32fast::hash(&payload).to_le_bytes());
        out.extend_from_slice(&payload);
        Ok(out)
    }

    /// Reads a reservoir from its bytes.
    ///
    /// # Errors
    ///
    /// Not a reservoir of this version, cut short, damaged, or games
    /// inside that do not replay.
    pub fn from_bytes(bytes: &[u8]) -> Result<Reservoir, ReservoirDamage> {
        if bytes.len() < 8 || bytes[..8] != MAGIC {
            return Err(ReservoirDamage::NotReservoir);
        }
        let field = |at: usize, n: usize| -> Result<&[u8], ReservoirDamage> {
            bytes
                .get(at..at + n)
                .ok_or(ReservoirDamage::Length(bytes.len(), HEAD))
        };
        let u32_at = |at| -> Result<u32, ReservoirDamage> {
            Ok(u32::from_le_bytes(
                field(at, 4)?.try_into().expect("4 bytes"),
            ))
        };
        let version = u16::from_le_bytes(field(8, 2)?.try_into().expect("2 bytes"));
        if version != VERSION {
            return Err(ReservoirDamage::Version(version));
        }
        let offered = u64::from_le_bytes(field(12, 8)?.try_into().expect("8 bytes"));
        let (kept, capacity, length, crc) = (u32_at(20)?, u32_at(24)?, u32_at(28)?, u32_at(32)?);
        if bytes.len() != HEAD + length as usize {
            return Err(ReservoirDamage::Length(bytes.len(), HEAD + length as usize));
        }
        let payload = &bytes[HEAD..];
        if crc32fast::hash(payload) != crc {
            return Err(ReservoirDamage::Checksum);
        }
        let plain = zstd::stream::decode_all(payload)?;
        let games = read_games(&mut plain.as_slice())?;
        if games.len() != kept as usize {
            return Err(ReservoirDamage::Count {
                said: kept,
                held: games.len(),
            });
        }
        Ok(Reservoir {
            offered,
            capacity,
            games,
        })
    }

    /// Reads a reservoir file.
    ///
    /// # Errors
    ///
    /// The file cannot be read or is not a sound reservoir: the error
    /// names it.
    pub fn load(path: &Path) -> Result<Reservoir, ReservoirError> {
        let error = |reason| ReservoirError {
            path: path.to_path_buf(),
            reason,
        };
        let bytes = std::fs::read(path).map_err(|e| error(ReservoirDamage::Io(e)))?;
        Reservoir::from_bytes(&bytes).map_err(error)
    }

    /// Writes the file whole or not at all (an interrupted write leaves
    /// the old one).
    ///
    /// # Errors
    ///
    /// The file cannot be written, or a game cannot be.
    pub fn save(&self, path: &Path) -> io::Result<()> {
        let bytes = self.to_bytes()?;
        xqstore::write_whole(path, |_, file| io::Write::write_all(file, &bytes))
    }
}

/// Whether `bytes` begin as a reservoir file.
pub fn is_reservoir(bytes: &[u8]) -> bool {
    bytes.starts_with(&MAGIC)
}

#[cfg(test)]
mod tests {
    use super::*;
    use xqcore::{GameResult, Position};

    /// A short game told apart by `tag` (its first move's score; tags up
    /// to 32,767), its moves drawn from the tag.
    fn game(tag: u64) -> GameRecord {
        let mut pos = Position::start();
        let mut rng = SplitMix64::new(tag);
        let mut moves = Vec::new();
        for ply in 0..(tag % 5 + 1) {
            let legal = pos.legal_moves();
            let m = legal[rng.below(legal.len())];
            pos.make_move(m);
            let score = if ply == 0 { tag as i16 } else { -3 };
            moves.push((m, score));
        }
        GameRecord {
            start: None,
            moves,
            result: [GameResult::RedWins, GameResult::Draw, GameResult::BlackWins]
                [tag as usize % 3],
        }
    }

    fn tag(game: &GameRecord) -> u64 {
        game.moves[0].1 as u64
    }

    #[test]
    fn keeps_everything_until_full_then_a_uniform_sample() {
        let mut r = Reservoir::new(100);
        assert_eq!(r.offer((0..60).map(game), 1), 60);
        assert_eq!(r.games.len(), 60);
        r.offer((60..100).map(game), 2);
        assert_eq!(r.games, (0..100).map(game).collect::<Vec<_>>());
        // 10,000 more: each game ever offered is kept with probability
        // 100 / 10,100, so the kept ones spread over the whole history,
        // about half from each half of it (sd 5).
        r.offer((100..10_100).map(game), 3);
        assert_eq!((r.offered, r.games.len()), (10_100, 100));
        let early = r.games.iter().filter(|g| tag(g) < 5_050).count();
        assert!(
            (30..=70).contains(&early),
            "{early} of 100 from the first half"
        );
        let mut tags: Vec<u64> = r.games.iter().map(tag).collect();
        tags.sort_unstable();
        tags.dedup();
        assert_eq!(tags.len(), 100, "no game kept twice");
    }

    #[test]
    fn round_trips_and_refuses_damage() {
        let mut r = Reservoir::new(50);
        r.offer((0..80).map(game), 7);
        let bytes = r.to_bytes().unwrap();
        assert_eq!(Reservoir::from_bytes(&bytes).unwrap(), r);
        assert!(is_reservoir(&bytes));
        let refuses = |b: &[u8]| Reservoir::from_bytes(b).unwrap_err().to_string();
        assert!(refuses(&bytes[..bytes.len() - 1]).contains("cut short"));
        assert!(refuses(b"XQGAMES\0\x01\x00").contains("no XQRESV header"));
        let mut flipped = bytes.clone();
        *flipped.last_mut().unwrap() ^= 1;
        assert!(refuses(&flipped).contains("checksum"));
        let mut other = bytes.clone();
        other[8] = 2;
        assert!(refuses(&other).contains("version 2"));
        assert!(refuses(&bytes[..20]).contains("cut short"));
    }

    #[test]
    fn the_same_offers_give_the_same_reservoir_and_a_smaller_capacity_drops_games() {
        let fill = || {
            let mut r = Reservoir::new(20);
            r.offer((0..200).map(game), 5);
            r
        };
        assert_eq!(fill(), fill());
        let mut r = fill();
        let before = r.games.clone();
        r.set_capacity(8, 9);
        assert_eq!((r.games.len(), r.capacity), (8, 8));
        assert!(r.games.iter().all(|g| before.contains(g)));
    }

    #[test]
    fn a_saved_reservoir_loads_and_a_missing_one_is_named() {
        let dir = tempfile::tempdir().unwrap();
        let path = dir.path().join("r.xqres");
        let mut r = Reservoir::new(10);
        r.offer((0..30).map(game), 1);
        r.save(&path).unwrap();
        assert_eq!(Reservoir::load(&path).unwrap(), r);
        let missing = dir.path().join("none.xqres");
        let e = Reservoir::load(&missing).unwrap_err().to_string();
        assert!(e.contains("none.xqres"), "{e}");
    }
}
