//! Training positions for the evaluation tuner, from fast self-play.
//!
//! Games start from an opening line plus a few random moves and are played
//! in-process with a fixed node budget per move. Every quiet position (side
//! to move not in check, best move not a capture, no mate score in sight)
//! is kept with the search score; when the game ends, all of them are
//! labelled with its result. Output lines read `FEN | score | result`, the
//! score in centipawns and the result (1, 0.5 or 0) both from Red's side.

use std::io::Write;
use std::sync::atomic::{AtomicBool, AtomicUsize, Ordering};
use std::sync::mpsc::channel;
use std::sync::Mutex;

use xqcore::{Color, EndRules, GameResult};
use xqengine::rng::SplitMix64;
use xqengine::search::{
    self, Limits, SearchConfig, SearchControl, Silent, ThreadMemory, MATE_BOUND,
};
use xqengine::tt::TranspositionTable;
use xqmatch::Opening;

/// How to generate.
#[derive(Clone, Debug)]
pub struct DatagenConfig {
    pub games: usize,
    /// Nodes searched per move.
    pub nodes: u64,
    pub threads: usize,
    /// Random plies played after the opening line (at most; at least half).
    pub random_plies: usize,
    pub seed: u64,
}

/// A game adjudicated by score once both sides agree it is this lopsided.
const RESIGN_SCORE: i32 = 1_000;
/// Plies the score must stay beyond [`RESIGN_SCORE`].
const RESIGN_PLIES: usize = 6;
/// Positions before this ply are not kept (the opening is random).
const FIRST_KEPT_PLY: usize = 8;

/// One labelled game's positions as output lines.
fn label(positions: &[(String, i32)], result: GameResult) -> String {
    let r = match result {
        GameResult::RedWins => "1",
        GameResult::BlackWins => "0",
        GameResult::Draw | GameResult::Unknown => "0.5",
    };
    positions
        .iter()
        .map(|(fen, score)| format!("{fen} | {score} | {r}\n"))
        .collect()
}

/// Games longer than this are scored as draws (a cap, not a rule).
const MAX_PLIES: usize = 400;

/// Plays one game; returns its kept positions (FEN, score from Red's side)
/// and result, or `None` when the random start ended the game already.
fn play_game(
    opening: &Opening,
    cfg: &DatagenConfig,
    rng: &mut SplitMix64,
) -> Option<(Vec<(String, i32)>, GameResult)> {
    let mut pos = opening.position();
    let random = cfg.random_plies / 2 + rng.below(cfg.random_plies / 2 + 1);
    for _ in 0..random {
        let moves = pos.legal_moves();
        if moves.is_empty() {
            return None;
        }
        pos.make_move(moves[rng.below(moves.len())]);
    }
    let config = SearchConfig::default();
    let limits = Limits {
        nodes: Some(cfg.nodes),
        ..Limits::default()
    };
    let tt = TranspositionTable::new(16);
    let mut memory: Vec<ThreadMemory> = Vec::new();
    let mut kept = Vec::new();
    let mut lopsided = 0usize;
    loop {
        if let Some(outcome) = pos.outcome(&EndRules::default()) {
            return Some((kept, outcome.result()));
        }
        if pos.ply() >= MAX_PLIES {
            return Some((kept, GameResult::Draw));
        }
        let moves = pos.legal_moves().to_vec();
        let control = SearchControl::new(false);
        let r = search::search(
            &pos,
            &moves,
            &config,
            &limits,
            &tt,
            &control,
            &Silent,
            &mut memory,
        );
        let best = r.best?;
        let red_score = if pos.turn() == Color::Red {
            r.score
        } else {
            -r.score
        };
        let quiet = !pos.in_check() && pos.board().piece_at(best.to()).is_none();
        if quiet && pos.ply() >= FIRST_KEPT_PLY && r.score.abs() < MATE_BOUND {
            kept.push((pos.fen(), red_score));
        }
        lopsided = if red_score.abs() >= RESIGN_SCORE {
            lopsided + 1
        } else {
            0
        };
        if lopsided >= RESIGN_PLIES {
            let result = if red_score > 0 {
                GameResult::RedWins
            } else {
                GameResult::BlackWins
            };
            return Some((kept, result));
        }
        pos.make_move(best);
    }
}

/// Plays `cfg.games` games on `cfg.threads` threads, writing labelled
/// positions to `out` game by game. `progress` sees (games, positions) after
/// each game. Returns the number of positions written.
pub fn generate(
    openings: &[Opening],
    cfg: &DatagenConfig,
    out: &mut (dyn Write + Send),
    progress: &(dyn Fn(usize, usize) + Sync),
) -> std::io::Result<usize> {
    let next_game = AtomicUsize::new(0);
    let failed = AtomicBool::new(false);
    let (tx, rx) = channel::<String>();
    let out = Mutex::new(out);
    let mut written = 0usize;
    let mut games = 0usize;
    let mut error = None;
    std::thread::scope(|scope| {
        for t in 0..cfg.threads.max(1) {
            let tx = tx.clone();
            let (next_game, failed) = (&next_game, &failed);
            std::thread::Builder::new()
                .stack_size(16 << 20)
                .spawn_scoped(scope, move || {
                    let mut rng =
                        SplitMix64::new(cfg.seed ^ (t as u64).wrapping_mul(0xA076_1D64_78BD_642F));
                    loop {
                        let g = next_game.fetch_add(1, Ordering::Relaxed);
                        if g >= cfg.games || failed.load(Ordering::Relaxed) {
                            break;
                        }
                        let opening = &openings[g % openings.len().max(1)];
                        let text = play_game(opening, cfg, &mut rng)
                            .map(|(kept, result)| label(&kept, result))
                            .unwrap_or_default();
                        if tx.send(text).is_err() {
                            break;
                        }
                    }
                })
                .expect("spawn a datagen thread");
        }
        drop(tx);
        for text in rx {
            games += 1;
            written += text.lines().count();
            let mut w = out.lock().unwrap_or_else(|e| e.into_inner());
            if let Err(e) = w.write_all(text.as_bytes()).and_then(|_| w.flush()) {
                failed.store(true, Ordering::Relaxed);
                error = Some(e);
                break;
            }
            progress(games, written);
        }
    });
    match error {
        Some(e) => Err(e),
        None => Ok(written),
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use xqcore::Position;

    #[test]
    fn generated_lines_are_labelled_legal_positions() {
        let openings = vec![Opening::default()];
        let cfg = DatagenConfig {
            games: 2,
            nodes: 300,
            threads: 2,
            random_plies: 4,
            seed: 7,
        };
        let mut buf: Vec<u8> = Vec::new();
        let n = generate(&openings, &cfg, &mut buf, &|_, _| {}).unwrap();
        let text = String::from_utf8(buf).unwrap();
        assert_eq!(text.lines().count(), n);
        assert!(n > 0, "some positions are kept");
        for line in text.lines() {
            let parts: Vec<&str> = line.split(" | ").collect();
            assert_eq!(parts.len(), 3, "{line}");
            let pos = Position::from_fen(parts[0]).unwrap();
            assert!(!pos.in_check());
            let score: i32 = parts[1].parse().unwrap();
            assert!(score.abs() < MATE_BOUND);
            assert!(["1", "0.5", "0"].contains(&parts[2]), "{line}");
        }
    }
}
