//! Training samples from self-play games.
//!
//! A sample is a quiet position of a game — the move was searched (it has
//! a score that is not a mate distance), the side to move is not in check
//! and the move played is not a capture — with the mover's score and the
//! game's result from the mover's side. Positions where a capture is the
//! best move are left out because the static evaluation cannot see the
//! capture coming; the score of such a position belongs to the search.
//!
//! Every game goes either to training or to validation, whole (positions
//! of one game are too alike to test each other), and once: a game read
//! again (a reservoir holds a sample of the games files read beside it) is
//! left out, so that no held-out game has a copy in training.

use std::collections::HashSet;
use std::hash::{DefaultHasher, Hash, Hasher};
use std::path::{Path, PathBuf};

use xqcore::{Board, Color, GameResult, Piece, Position, Role, Square};
use xqnnue::{bucket, king_home, FeatureSet};

use crate::games::{read_games_until_damage, GameRecord, GamesError, NO_SCORE};
use crate::reservoir::{is_reservoir, Reservoir, ReservoirDamage};

/// A games file that cannot be read at all.
#[derive(Debug, thiserror::Error)]
#[error("{path}: {source}", path = .path.display())]
pub struct GamesFileError {
    /// The file.
    pub path: PathBuf,
    /// Why (the system's reason, not a games file of this version, or a
    /// damaged reservoir).
    pub source: GamesFileDamage,
}

/// Why a games file or a reservoir of games cannot be used.
#[derive(Debug, thiserror::Error)]
pub enum GamesFileDamage {
    #[error(transparent)]
    Games(#[from] GamesError),
    #[error(transparent)]
    Reservoir(#[from] ReservoirDamage),
}

/// Damage found part way through a games file: the games before it are
/// used (a run that was killed can leave its last game cut short).
#[derive(Debug, thiserror::Error)]
#[error("{path}: {damage}; the {games_before} games before it are used", path = .path.display())]
pub struct DamagedGamesFile {
    /// The file.
    pub path: PathBuf,
    /// The first damaged game and what is wrong with it.
    pub damage: GamesError,
    /// Games read before the damage.
    pub games_before: usize,
}

/// Most pieces on a board.
pub const MAX_PIECES: usize = 32;

/// One position with its labels, in 72 bytes.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub struct Sample {
    /// Each piece as `piece index * 90 + square` (Red's view), `count` used.
    pub pieces: [u16; MAX_PIECES],
    pub count: u8,
    /// The side to move.
    pub turn: Color,
    /// Output bucket ([`xqnnue::bucket`]).
    pub bucket: u8,
    /// Game result for the side to move: 0 lost, 1 drawn, 2 won.
    pub result: u8,
    /// Search score for the side to move, centipawns; [`NO_SCORE`] for a
    /// position of a game record, judged by the result alone.
    pub score: i16,
}

impl Sample {
    /// The sample of `pos` with its labels.
    pub fn new(pos: &Position, score: i16, result: GameResult) -> Sample {
        let mut pieces = [0u16; MAX_PIECES];
        let mut count = 0;
        for (sq, piece) in pos.board().pieces().take(MAX_PIECES) {
            pieces[count] = (piece.index() * 90 + sq.index()) as u16;
            count += 1;
        }
        let turn = pos.turn();
        let result = match (result, turn) {
            (GameResult::RedWins, Color::Red) | (GameResult::BlackWins, Color::Black) => 2,
            (GameResult::RedWins, Color::Black) | (GameResult::BlackWins, Color::Red) => 0,
            _ => 1,
        };
        Sample {
            pieces,
            count: count as u8,
            turn,
            bucket: bucket(pos.board()) as u8,
            result,
            score,
        }
    }

    /// The active inputs of both perspectives, the side to move's first,
    /// optionally of the left-right mirrored position (which has the same
    /// value: free extra data). Returns how many each holds.
    pub fn features(
        &self,
        set: FeatureSet,
        mirror: bool,
        us: &mut [u16; MAX_PIECES],
        them: &mut [u16; MAX_PIECES],
    ) -> usize {
        let n = self.count as usize;
        // The kings' squares, looked for only when the inputs read them.
        let king = |color: Color| {
            self.pieces[..n]
                .iter()
                .map(|&code| piece_square(code))
                .find(|&(piece, _)| piece == Piece::new(color, Role::King))
                .map_or(king_home(color), |(_, sq)| sq)
        };
        let (our_king, their_king) = if set.king_relative() {
            (king(self.turn), king(!self.turn))
        } else {
            (king_home(self.turn), king_home(!self.turn))
        };
        for i in 0..n {
            let (piece, sq) = piece_square(self.pieces[i]);
            let (mut u, mut t) = (
                set.feature(self.turn, piece, sq, our_king),
                set.feature(!self.turn, piece, sq, their_king),
            );
            if mirror {
                (u, t) = (set.mirrored(u), set.mirrored(t));
            }
            us[i] = u as u16;
            them[i] = t as u16;
        }
        n
    }

    /// The placement the sample was made from (what a net reads).
    pub fn board(&self) -> Board {
        let mut board = Board::empty();
        for &code in &self.pieces[..usize::from(self.count)] {
            let (piece, sq) = piece_square(code);
            board.set(sq, Some(piece));
        }
        board
    }

    /// The result as a score for the side to move: 0, 0.5 or 1.
    pub fn result_score(&self) -> f32 {
        f32::from(self.result) / 2.0
    }
}

/// The piece and square of a sample's piece code.
fn piece_square(code: u16) -> (Piece, Square) {
    let piece = Piece::from_index(usize::from(code) / 90);
    let sq = Square::from_index(usize::from(code) % 90).expect("a square below 90");
    (piece, sq)
}

/// Samples split into training and validation.
#[derive(Default)]
pub struct Dataset {
    pub train: Vec<Sample>,
    pub validation: Vec<Sample>,
    /// Games read (each once).
    pub games: usize,
    /// Games left out because the same game (start, moves, scores and
    /// result) was read before.
    pub duplicates: usize,
    /// Fingerprints of the games read: 64-bit hashes, so two different
    /// games collide with odds under one in 10^7 at a million games.
    seen: HashSet<u64>,
}

/// Which positions of a game become samples.
#[derive(Clone, Copy, Debug)]
pub struct Filter {
    /// Scores beyond this (centipawns, either sign) are left out: the game
    /// is decided and the score says little about the position.
    pub max_score: i16,
    /// Every this many games, one goes to validation (0: none).
    pub validation_every: usize,
}

impl Default for Filter {
    fn default() -> Self {
        Filter {
            max_score: 3_000,
            validation_every: 20,
        }
    }
}

/// The quiet searched positions of `game` (see the module notes).
pub fn game_samples(game: &GameRecord, filter: &Filter) -> Vec<Sample> {
    let Some(mut pos) = game.start_position() else {
        return Vec::new();
    };
    let mut samples = Vec::new();
    for &(m, score) in &game.moves {
        let quiet = pos.board().piece_at(m.to()).is_none() && !pos.in_check();
        if score != NO_SCORE && quiet && score.abs() <= filter.max_score {
            samples.push(Sample::new(&pos, score, game.result));
        }
        pos.make_move(m);
    }
    samples
}

impl Dataset {
    /// Adds the quiet positions of a game record (moves from `start`, a
    /// decided `result`) to training, without scores: from ply 10 on, the
    /// side to move not in check, the move played not a capture. Returns
    /// how many.
    pub fn add_record(
        &mut self,
        start: &Position,
        moves: &[xqcore::Move],
        result: GameResult,
    ) -> usize {
        let mut pos = start.clone();
        let before = self.train.len();
        for &m in moves {
            let quiet = pos.board().piece_at(m.to()).is_none() && !pos.in_check();
            if quiet && pos.ply() >= 10 {
                self.train.push(Sample::new(&pos, NO_SCORE, result));
            }
            pos.make_move(m);
        }
        self.train.len() - before
    }

    /// Adds a game's samples to training or validation, unless the same
    /// game was added before (counted in [`Dataset::duplicates`]).
    pub fn add_game(&mut self, game: &GameRecord, filter: &Filter) {
        if !self.seen.insert(fingerprint(game)) {
            self.duplicates += 1;
            return;
        }
        let samples = game_samples(game, filter);
        let held_out =
            filter.validation_every > 0 && self.games.is_multiple_of(filter.validation_every);
        self.games += 1;
        if held_out {
            self.validation.extend(samples);
        } else {
            self.train.extend(samples);
        }
    }

    /// Adds the games of a games file or of a reservoir of them
    /// ([`read_games_file`]), returning the damage that cut a games file
    /// short as a warning.
    ///
    /// # Errors
    ///
    /// As [`read_games_file`].
    pub fn add_file(
        &mut self,
        path: &Path,
        filter: &Filter,
    ) -> Result<Option<DamagedGamesFile>, GamesFileError> {
        let (games, damage) = read_games_file(path)?;
        for game in &games {
            self.add_game(game, filter);
        }
        Ok(damage)
    }
}

/// A game's hash, the same in every run (`DefaultHasher::new` has fixed
/// keys).
fn fingerprint(game: &GameRecord) -> u64 {
    let mut hasher = DefaultHasher::new();
    game.hash(&mut hasher);
    hasher.finish()
}

/// The games of a games file or of a reservoir of them
/// ([`crate::Reservoir`]). A games file cut short (a killed run) gives the
/// games before the damage, with the damage; a reservoir is read whole or
/// not at all.
///
/// # Errors
///
/// The file cannot be read, is not a games file of this version, or is a
/// damaged reservoir.
pub fn read_games_file(
    path: &Path,
) -> Result<(Vec<GameRecord>, Option<DamagedGamesFile>), GamesFileError> {
    let file_error = |source: GamesFileDamage| GamesFileError {
        path: path.to_path_buf(),
        source,
    };
    let bytes = std::fs::read(path).map_err(|e| file_error(GamesError::Io(e).into()))?;
    let (games, damage) = if is_reservoir(&bytes) {
        let reservoir = Reservoir::from_bytes(&bytes).map_err(|e| file_error(e.into()))?;
        (reservoir.games, None)
    } else {
        read_games_until_damage(&mut bytes.as_slice()).map_err(|e| file_error(e.into()))?
    };
    let damage = damage.map(|damage| DamagedGamesFile {
        path: path.to_path_buf(),
        damage,
        games_before: games.len(),
    });
    Ok((games, damage))
}

#[cfg(test)]
mod tests {
    use super::*;
    use xqcore::{IccsMove, Move};

    #[test]
    fn a_sample_keeps_the_placement_it_was_made_from() {
        let mut pos = Position::start();
        for text in ["h2e2", "h9g7", "e2e6", "g6g5"] {
            let iccs: IccsMove = text.parse().unwrap();
            let m = Move::new(iccs.from, iccs.to);
            assert!(pos.is_legal(m), "{text}");
            pos.make_move(m);
        }
        let sample = Sample::new(&pos, 0, GameResult::Draw);
        assert!(sample.board() == *pos.board());
        assert!(sample.board() != *Position::start().board());
    }

    #[test]
    fn samples_keep_quiet_scored_positions_with_the_movers_result() {
        let mut pos = Position::start();
        let mut moves = Vec::new();
        // An unscored opening move, then Red's e2e6 captures a pawn.
        for (text, score) in [
            ("h2e2", NO_SCORE),
            ("h9g7", 30),
            ("e2e6", -20),
            ("g6g5", 15),
        ] {
            let iccs: IccsMove = text.parse().unwrap();
            let m = Move::new(iccs.from, iccs.to);
            assert!(pos.is_legal(m), "{text}");
            pos.make_move(m);
            moves.push((m, score));
        }
        let game = GameRecord {
            start: None,
            moves,
            result: GameResult::RedWins,
        };
        let samples = game_samples(&game, &Filter::default());
        // e2e6 captures a pawn: left out. Black's h9g7 and g6g5 remain.
        assert_eq!(samples.len(), 2);
        assert_eq!(samples[0].turn, Color::Black);
        assert_eq!(samples[0].score, 30);
        assert_eq!(samples[0].result, 0, "Black lost");
        assert_eq!(samples[1].turn, Color::Black);
    }

    /// A game of one opening move and one scored reply; `reply` picks
    /// which, so that games differ.
    fn short_game(reply: &str, score: i16) -> GameRecord {
        let mut pos = Position::start();
        let mut moves = Vec::new();
        for (text, score) in [("h2e2", NO_SCORE), (reply, score)] {
            let iccs: IccsMove = text.parse().unwrap();
            let m = Move::new(iccs.from, iccs.to);
            assert!(pos.is_legal(m), "{text}");
            pos.make_move(m);
            moves.push((m, score));
        }
        GameRecord {
            start: None,
            moves,
            result: GameResult::Draw,
        }
    }

    #[test]
    fn a_game_read_twice_is_used_once() {
        let dir = tempfile::tempdir().unwrap();
        let games = [
            short_game("h9g7", 30),
            short_game("b9c7", 25),
            short_game("h9g7", 31),
        ];
        let file = dir.path().join("a.games");
        let mut bytes = Vec::new();
        crate::games::write_header(&mut bytes).unwrap();
        for game in &games {
            crate::games::write_game(&mut bytes, game).unwrap();
        }
        std::fs::write(&file, &bytes).unwrap();
        // A reservoir sampled from the same games, read beside their file.
        let sample = dir.path().join("sample.xqres");
        let mut reservoir = Reservoir::new(10);
        reservoir.offer([games[2].clone(), games[0].clone()], 1);
        reservoir.save(&sample).unwrap();

        let filter = Filter {
            validation_every: 2,
            ..Filter::default()
        };
        let mut data = Dataset::default();
        assert!(data.add_file(&file, &filter).unwrap().is_none());
        assert!(data.add_file(&sample, &filter).unwrap().is_none());
        // The third game differs from the first in one score, so it is a
        // game of its own; the reservoir's two are read again.
        assert_eq!((data.games, data.duplicates), (3, 2));
        // Games 1 and 3 held out, game 2 trained on; nothing added twice.
        assert_eq!((data.validation.len(), data.train.len()), (2, 1));
    }

    #[test]
    fn files_name_themselves_in_errors_and_damage() {
        let dir = tempfile::tempdir().unwrap();
        let mut data = Dataset::default();
        let missing = dir.path().join("missing.games");
        let e = data.add_file(&missing, &Filter::default()).unwrap_err();
        assert!(
            matches!(e.source, GamesFileDamage::Games(GamesError::Io(_))),
            "{e}"
        );
        assert!(e.to_string().starts_with(&missing.display().to_string()));
        let cut = dir.path().join("cut.games");
        let mut bytes = Vec::new();
        crate::games::write_header(&mut bytes).unwrap();
        let game = GameRecord {
            start: None,
            moves: Vec::new(),
            result: GameResult::Draw,
        };
        crate::games::write_game(&mut bytes, &game).unwrap();
        bytes.push(1); // a second game cut after its result byte
        std::fs::write(&cut, &bytes).unwrap();
        let damage = data.add_file(&cut, &Filter::default()).unwrap().unwrap();
        assert_eq!(damage.games_before, 1);
        assert_eq!(
            damage.to_string(),
            format!(
                "{}: game 2: cut short; the 1 games before it are used",
                cut.display()
            )
        );
    }

    #[test]
    fn mirrored_features_are_those_of_the_mirrored_position() {
        for fen in [
            "rnbakab1r/9/1c4nc1/p1p1p1p1p/9/9/P1P1P1P1P/1C2C1N2/9/RNBAKAB1R b - - 0 1",
            // Kings off the middle file: the king buckets mirror too.
            "3k5/4a4/9/9/9/2R6/9/9/4K4/3A5 w - - 0 1",
        ] {
            let pos = Position::from_fen(fen).unwrap();
            for set in [FeatureSet::PieceSquare, FeatureSet::KingSquare] {
                let a = Sample::new(&pos, 0, GameResult::Draw);
                let b = Sample::new(&pos.mirror(), 0, GameResult::Draw);
                let (mut au, mut at, mut bu, mut bt) = ([0; 32], [0; 32], [0; 32], [0; 32]);
                let n = a.features(set, true, &mut au, &mut at);
                b.features(set, false, &mut bu, &mut bt);
                let sorted = |x: &[u16]| {
                    let mut v = x.to_vec();
                    v.sort();
                    v
                };
                assert_eq!(sorted(&au[..n]), sorted(&bu[..n]), "{set} {fen}");
                assert_eq!(sorted(&at[..n]), sorted(&bt[..n]), "{set} {fen}");
                let (mut plain, mut rest) = ([0; 32], [0; 32]);
                a.features(set, false, &mut plain, &mut rest);
                assert_ne!(sorted(&plain[..n]), sorted(&bu[..n]), "the mirror differs");
            }
        }
    }

    #[test]
    fn sample_features_are_the_nets_inputs() {
        let pos = Position::from_fen("3k5/4a4/9/9/9/2R6/9/9/4K4/3A5 b - - 0 1").unwrap();
        let sample = Sample::new(&pos, 0, GameResult::Draw);
        let set = FeatureSet::KingSquare;
        let (mut us, mut them) = ([0; 32], [0; 32]);
        let n = sample.features(set, false, &mut us, &mut them);
        let board = pos.board();
        let mut want_us: Vec<u16> = board
            .pieces()
            .map(|(sq, p)| set.feature(Color::Black, p, sq, pos.king(Color::Black)) as u16)
            .collect();
        let mut want_them: Vec<u16> = board
            .pieces()
            .map(|(sq, p)| set.feature(Color::Red, p, sq, pos.king(Color::Red)) as u16)
            .collect();
        let (mut got_us, mut got_them) = (us[..n].to_vec(), them[..n].to_vec());
        for v in [&mut want_us, &mut want_them, &mut got_us, &mut got_them] {
            v.sort();
        }
        assert_eq!((got_us, got_them), (want_us, want_them));
    }
}
