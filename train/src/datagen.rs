//! Training games from fast self-play.
//!
//! A game starts from a varied opening: weighted-random book moves (or an
//! opening line), then a few uniformly random moves. From there both sides
//! search each move with a fixed node budget, and every searched move is
//! recorded with its score ([`xqlearn::GameRecord`]): the filters (quiet
//! positions, no mate scores) are the trainer's, applied when it reads the
//! games, so the record keeps everything and stays four bytes a ply.
//!
//! A game ends by the rules, by adjudication once both sides agree the
//! score is lopsided, at a cap on its length, or — with endgame tables —
//! as soon as it reaches a position the tables hold: the tables' exact
//! result is the game's.

use std::io::Write;
use std::sync::atomic::{AtomicBool, AtomicUsize, Ordering};
use std::sync::mpsc::channel;
use std::sync::Arc;

use xqbook::AnyBook;
use xqcore::{Color, EndRules, GameResult, Move, Position, SplitMix64};
use xqegtb::{Repetitions, Tablebase, Wdl};
use xqengine::{Limits, SearchConfig, Searcher, Silent, MATE_BOUND};
use xqlearn::{write_game, GameRecord, NO_SCORE};
use xqrecords::Opening;

/// Where games start.
pub enum Openings {
    /// Weighted-random moves from a book, up to this many plies.
    Book(AnyBook, usize),
    /// Opening lines, taken in turn.
    Lines(Vec<Opening>),
}

/// How to generate.
#[derive(Clone)]
pub struct DatagenConfig {
    pub games: usize,
    /// Nodes searched per move.
    pub nodes: u64,
    pub threads: usize,
    /// Random plies played after the opening (at most; at least half).
    pub random_plies: usize,
    pub seed: u64,
    /// Endgame tables: games end on reaching them, with their result.
    pub tables: Option<Arc<Tablebase>>,
    /// The net both sides evaluate with; `None`: the hand-crafted
    /// evaluation.
    pub net: Option<Arc<xqnnue::Network>>,
}

/// A game adjudicated by score once both sides agree it is this lopsided.
const RESIGN_SCORE: i32 = 1_000;
/// Plies the score must stay beyond [`RESIGN_SCORE`].
const RESIGN_PLIES: usize = 6;
/// Games longer than this are scored as draws (a cap, not a rule).
const MAX_PLIES: usize = 400;

/// What a finished run produced.
#[derive(Clone, Copy, Debug, Default, PartialEq, Eq)]
pub struct DatagenSummary {
    pub games: usize,
    /// Searched moves recorded (positions with a score).
    pub positions: usize,
    /// Games decided by the endgame tables.
    pub by_tables: usize,
}

/// The opening moves of game `index`, drawn with `rng` from a book.
fn opening_moves(openings: &Openings, index: usize, rng: &mut SplitMix64) -> Vec<Move> {
    let mut moves = Vec::new();
    match openings {
        Openings::Lines(lines) if !lines.is_empty() => {
            moves.extend_from_slice(&lines[index % lines.len()].moves);
        }
        Openings::Lines(_) => {}
        Openings::Book(book, max_plies) => {
            let mut pos = Position::start();
            let plies = rng.below(max_plies + 1);
            for _ in 0..plies {
                let Ok(choices) = book.probe(&pos) else { break };
                let total: u64 = choices.iter().map(|c| u64::from(c.weight.max(1))).sum();
                if total == 0 {
                    break;
                }
                let mut pick = rng.next_u64() % total;
                let Some(choice) = choices.iter().find(|c| {
                    let w = u64::from(c.weight.max(1));
                    if pick < w {
                        true
                    } else {
                        pick -= w;
                        false
                    }
                }) else {
                    break;
                };
                pos.make_move(choice.mv);
                moves.push(choice.mv);
            }
        }
    }
    moves
}

/// The start of opening `index`: its FEN (`None`: the start position).
fn opening_fen(openings: &Openings, index: usize) -> Option<String> {
    match openings {
        Openings::Lines(lines) if !lines.is_empty() => lines[index % lines.len()].fen.clone(),
        _ => None,
    }
}

/// The result the tables give `pos`, when they hold it.
fn table_result(tables: Option<&Tablebase>, pos: &Position) -> Option<GameResult> {
    let value = tables?
        .under(Repetitions::CheckAndChase)
        .value(pos)
        .ok()??;
    let wdl = value.wdl();
    Some(match (wdl, pos.turn()) {
        (Wdl::Draw, _) => GameResult::Draw,
        (Wdl::Win, Color::Red) | (Wdl::Loss, Color::Black) => GameResult::RedWins,
        (Wdl::Win, Color::Black) | (Wdl::Loss, Color::Red) => GameResult::BlackWins,
    })
}

/// Plays game `index`; `None` when its random start already ended it.
/// The flag says whether the tables decided it.
fn play_game(
    openings: &Openings,
    index: usize,
    cfg: &DatagenConfig,
    rng: &mut SplitMix64,
    searcher: &mut Searcher,
) -> Option<(GameRecord, bool)> {
    let start = opening_fen(openings, index);
    let mut pos = match &start {
        Some(fen) => Position::from_fen(fen).ok()?,
        None => Position::start(),
    };
    let mut record = GameRecord {
        start,
        moves: Vec::new(),
        result: GameResult::Draw,
    };
    let rules = EndRules::default();
    for m in opening_moves(openings, index, rng) {
        pos.make_move(m);
        record.moves.push((m, NO_SCORE));
    }
    let random = cfg.random_plies / 2 + rng.below(cfg.random_plies / 2 + 1);
    for _ in 0..random {
        let moves = pos.legal_moves();
        if moves.is_empty() || pos.outcome(&rules).is_some() {
            return None;
        }
        let m = moves[rng.below(moves.len())];
        pos.make_move(m);
        record.moves.push((m, NO_SCORE));
    }
    let limits = Limits::nodes(cfg.nodes);
    searcher.new_game();
    let mut lopsided = 0usize;
    loop {
        if let Some(outcome) = pos.outcome(&rules) {
            record.result = outcome.result();
            return Some((record, false));
        }
        if let Some(result) = table_result(cfg.tables.as_deref(), &pos) {
            record.result = result;
            return Some((record, true));
        }
        if record.moves.len() >= MAX_PLIES {
            record.result = GameResult::Draw;
            return Some((record, false));
        }
        let r = searcher.search(&pos, &limits, &Silent);
        let best = r.best?;
        let found = searcher.config().score_in_net_units(r.score);
        // Mate and table scores are distances, not evaluations: not kept.
        let score = if found.abs() < MATE_BOUND {
            found.clamp(-30_000, 30_000) as i16
        } else {
            NO_SCORE
        };
        record.moves.push((best, score));
        let red_score = if pos.turn() == Color::Red {
            found
        } else {
            -found
        };
        lopsided = if red_score.abs() >= RESIGN_SCORE {
            lopsided + 1
        } else {
            0
        };
        if lopsided >= RESIGN_PLIES {
            record.result = if red_score > 0 {
                GameResult::RedWins
            } else {
                GameResult::BlackWins
            };
            return Some((record, false));
        }
        pos.make_move(best);
    }
}

/// Plays `cfg.games` games on `cfg.threads` threads and appends each to
/// `out` as it finishes (the header is the caller's). `progress` sees the
/// running summary after each game.
pub fn generate(
    openings: &Openings,
    cfg: &DatagenConfig,
    out: &mut (dyn Write + Send),
    progress: &(dyn Fn(&DatagenSummary) + Sync),
) -> std::io::Result<DatagenSummary> {
    let next_game = AtomicUsize::new(0);
    let failed = AtomicBool::new(false);
    let (tx, rx) = channel::<Option<(GameRecord, bool)>>();
    let mut summary = DatagenSummary::default();
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
                    let config = SearchConfig {
                        egtb: cfg.tables.clone(),
                        net: cfg.net.clone(),
                        ..SearchConfig::default()
                    };
                    let mut searcher = Searcher::new(config, 16);
                    loop {
                        let g = next_game.fetch_add(1, Ordering::Relaxed);
                        if g >= cfg.games || failed.load(Ordering::Relaxed) {
                            break;
                        }
                        let game = play_game(openings, g, cfg, &mut rng, &mut searcher);
                        if tx.send(game).is_err() {
                            break;
                        }
                    }
                })
                .expect("spawn a datagen thread");
        }
        drop(tx);
        for game in rx {
            let Some((record, by_tables)) = game else {
                continue;
            };
            if let Err(e) = write_game(out, &record).and_then(|_| out.flush()) {
                failed.store(true, Ordering::Relaxed);
                error = Some(e);
                break;
            }
            summary.games += 1;
            summary.by_tables += usize::from(by_tables);
            summary.positions += record.moves.iter().filter(|m| m.1 != NO_SCORE).count();
            progress(&summary);
        }
    });
    match error {
        Some(e) => Err(e),
        None => Ok(summary),
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use xqlearn::{read_games, write_header};

    #[test]
    fn generated_games_read_back_and_end_decided() {
        let openings = Openings::Lines(vec![Opening::default()]);
        let cfg = DatagenConfig {
            games: 2,
            nodes: 300,
            threads: 2,
            random_plies: 4,
            seed: 7,
            tables: None,
            net: None,
        };
        let mut buf: Vec<u8> = Vec::new();
        write_header(&mut buf).unwrap();
        let summary = generate(&openings, &cfg, &mut buf, &|_| {}).unwrap();
        let games = read_games(&mut buf.as_slice()).unwrap();
        assert_eq!(games.len(), summary.games);
        assert!(summary.positions > 0, "some moves are searched");
        for game in &games {
            // The random plies come first and carry no score.
            assert!(game.moves.len() >= 2);
            assert_eq!(game.moves[0].1, NO_SCORE);
            assert_ne!(game.result, GameResult::Unknown);
            for &(_, score) in &game.moves {
                assert!(score == NO_SCORE || i32::from(score).abs() < MATE_BOUND);
            }
        }
    }
}
