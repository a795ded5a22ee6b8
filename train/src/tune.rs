//! Texel tuning: fits the evaluation weights to labelled positions.
//!
//! Each position's evaluation is linear in the weights ([`xqengine::hce::trace`]),
//! so the tuner keeps only the feature counts, blends midgame and endgame
//! sums by phase as the engine does, and minimises the squared error between
//! `sigmoid(K * eval)` and the target: the game result, optionally mixed with
//! the search score that was recorded with it. `K` is fitted first, on the
//! current weights, so that the weights keep their centipawn scale.

use std::fmt::Write as _;

use xqcore::{GameResult, Position};
use xqengine::hce::{self, feature, MAX_PHASE, S};
use xqlearn::{GameRecord, NO_SCORE};
use xqrecords::pgn::Game;

/// One position: a slice of the shared feature list and what blends it.
#[derive(Clone, Copy, Debug)]
struct Sample {
    start: u32,
    len: u16,
    phase: u8,
    scale: u8,
    /// Game result from Red's side: 1, 0.5 or 0.
    result: f32,
    /// The recorded search score from Red's side, in centipawns; NaN when
    /// unknown (positions from game records), then the result alone counts.
    score: f32,
}

/// Positions ready for tuning.
#[derive(Default)]
pub struct Dataset {
    features: Vec<(u16, i16)>,
    samples: Vec<Sample>,
}

/// Why a data line was refused.
#[derive(Debug, PartialEq, Eq)]
pub struct BadLine {
    pub line: usize,
    pub reason: LineError,
}

/// Why a `FEN | score | result` line was skipped.
#[derive(Clone, Debug, PartialEq, Eq, thiserror::Error)]
pub enum LineError {
    #[error("expected 'FEN | score | result'")]
    Shape,
    #[error("bad FEN: {0}")]
    Fen(#[from] xqcore::FenError),
    #[error("bad score '{0}'")]
    Score(String),
    #[error("bad result '{0}'")]
    Result(String),
}

/// A weight group `--only` names that does not exist.
#[derive(Clone, Debug, PartialEq, Eq, thiserror::Error)]
#[error("unknown weight group '{name}' (known: {})", known.join(", "))]
pub struct UnknownGroup {
    pub name: String,
    pub known: Vec<&'static str>,
}

impl Dataset {
    /// Number of positions.
    pub fn len(&self) -> usize {
        self.samples.len()
    }

    /// Whether there are none.
    pub fn is_empty(&self) -> bool {
        self.samples.is_empty()
    }

    /// Adds the positions of `FEN | score | result` lines; returns the bad
    /// lines (skipped, with the reason), numbered from `first_line`.
    pub fn add_text(&mut self, text: &str, first_line: usize) -> Vec<BadLine> {
        let mut bad = Vec::new();
        for (i, line) in text.lines().enumerate() {
            if line.trim().is_empty() {
                continue;
            }
            if let Err(reason) = self.add_line(line) {
                bad.push(BadLine {
                    line: first_line + i,
                    reason,
                });
            }
        }
        bad
    }

    /// Adds the positions of a game record ([`xqrecords`] reads PGN in any
    /// notation, and XQF), labelled with its result: from ply 10 on, the
    /// side to move not in check and the move played not a capture.
    /// Returns false, adding nothing, when the result is unknown.
    pub fn add_game(&mut self, game: &Game) -> bool {
        let result = match game.result {
            GameResult::RedWins => 1.0,
            GameResult::BlackWins => 0.0,
            GameResult::Draw => 0.5,
            GameResult::Unknown => return false,
        };
        let mut pos = game.start.clone();
        for &m in &game.moves {
            let quiet = pos.board().piece_at(m.to()).is_none();
            if pos.ply() >= 10 && !pos.in_check() && quiet {
                self.push(&pos, result, f32::NAN);
            }
            pos.make_move(m);
        }
        true
    }

    /// Adds the quiet searched positions of a self-play game
    /// ([`xqlearn::GameRecord`]): the move has a score, the side to move is not in
    /// check and the move played is not a capture.
    pub fn add_record(&mut self, game: &GameRecord) {
        let result = match game.result {
            GameResult::RedWins => 1.0,
            GameResult::BlackWins => 0.0,
            _ => 0.5,
        };
        let Some(mut pos) = game.start_position() else {
            return;
        };
        for &(m, score) in &game.moves {
            let quiet = pos.board().piece_at(m.to()).is_none();
            if score != NO_SCORE && quiet && !pos.in_check() {
                let red = match pos.turn() {
                    xqcore::Color::Red => f32::from(score),
                    xqcore::Color::Black => -f32::from(score),
                };
                self.push(&pos, result, red);
            }
            pos.make_move(m);
        }
    }

    fn push(&mut self, pos: &Position, result: f32, score: f32) {
        let trace = hce::trace(pos);
        let start = self.features.len() as u32;
        self.features.extend_from_slice(&trace.features);
        self.samples.push(Sample {
            start,
            len: trace.features.len() as u16,
            phase: trace.phase.min(MAX_PHASE) as u8,
            scale: trace.scale as u8,
            result,
            score,
        });
    }

    fn add_line(&mut self, line: &str) -> Result<(), LineError> {
        let parts: Vec<&str> = line.split('|').map(str::trim).collect();
        let [fen, score, result] = parts[..] else {
            return Err(LineError::Shape);
        };
        let pos = Position::from_fen(fen)?;
        let score: f32 = score
            .parse()
            .map_err(|_| LineError::Score(score.to_string()))?;
        let result: f32 = match result {
            "1" | "1.0" | "1-0" => 1.0,
            "0" | "0.0" | "0-1" => 0.0,
            "0.5" | "1/2-1/2" => 0.5,
            other => return Err(LineError::Result(other.to_string())),
        };
        self.push(&pos, result, score);
        Ok(())
    }
}

/// Weights as floating point midgame and endgame values.
#[derive(Clone, Debug)]
pub struct Weights {
    pub mg: Vec<f64>,
    pub eg: Vec<f64>,
}

impl Weights {
    /// The built-in weights.
    pub fn current() -> Weights {
        Weights {
            mg: hce::WEIGHTS.iter().map(|w| w.mg as f64).collect(),
            eg: hce::WEIGHTS.iter().map(|w| w.eg as f64).collect(),
        }
    }

    /// Red's evaluation of a sample, in centipawns.
    fn evaluate(&self, data: &Dataset, s: &Sample) -> f64 {
        let (mut mg, mut eg) = (0.0, 0.0);
        for &(i, c) in &data.features[s.start as usize..s.start as usize + s.len as usize] {
            mg += self.mg[i as usize] * c as f64;
            eg += self.eg[i as usize] * c as f64;
        }
        let p = s.phase as f64 / MAX_PHASE as f64;
        (mg * p + eg * (1.0 - p)) * s.scale as f64 / 64.0
    }

    /// The weights rounded to integers.
    pub fn rounded(&self) -> Vec<S> {
        self.mg
            .iter()
            .zip(&self.eg)
            .map(|(mg, eg)| S::new(mg.round() as i32, eg.round() as i32))
            .collect()
    }
}

fn sigmoid(x: f64) -> f64 {
    1.0 / (1.0 + (-x).exp())
}

/// Tuning settings.
#[derive(Clone, Debug)]
pub struct TuneConfig {
    /// Weight of the game result in the target; the rest is the search score.
    pub result_weight: f64,
    pub epochs: usize,
    pub learning_rate: f64,
    /// Which weights may change (indexed like the weights); `None`: all.
    pub free: Option<Vec<bool>>,
    /// Pull of each weight back to its starting value (L2, per centipawn²
    /// of distance, against the mean squared error): keeps weights of rarely
    /// seen features from wandering on noise.
    pub regularization: f64,
    pub threads: usize,
}

/// Splits `0..n` into `parts` ranges and maps them on threads.
fn par_map<T: Send>(
    n: usize,
    parts: usize,
    f: impl Fn(std::ops::Range<usize>) -> T + Sync,
) -> Vec<T> {
    let parts = parts.max(1);
    let chunk = n.div_ceil(parts).max(1);
    std::thread::scope(|scope| {
        let handles: Vec<_> = (0..parts)
            .map(|p| {
                let f = &f;
                scope.spawn(move || f(p * chunk..((p + 1) * chunk).min(n)))
            })
            .collect();
        handles
            .into_iter()
            .map(|h| h.join().expect("a tuning thread"))
            .collect()
    })
}

/// The target of a sample for a given `k`.
fn target(s: &Sample, k: f64, result_weight: f64) -> f64 {
    if s.score.is_nan() {
        return s.result as f64;
    }
    result_weight * s.result as f64 + (1.0 - result_weight) * sigmoid(k * s.score as f64)
}

/// Mean squared error of the weights on the data.
pub fn error(data: &Dataset, w: &Weights, k: f64, result_weight: f64, threads: usize) -> f64 {
    let sums = par_map(data.samples.len(), threads, |range| {
        data.samples[range]
            .iter()
            .map(|s| {
                let d = sigmoid(k * w.evaluate(data, s)) - target(s, k, result_weight);
                d * d
            })
            .sum::<f64>()
    });
    sums.iter().sum::<f64>() / data.samples.len().max(1) as f64
}

/// The `K` that best maps the weights' evaluations to game results
/// (golden-section search over a plausible range).
pub fn fit_k(data: &Dataset, w: &Weights, threads: usize) -> f64 {
    let (mut lo, mut hi) = (0.0005f64, 0.02f64);
    let phi = (5f64.sqrt() - 1.0) / 2.0;
    for _ in 0..40 {
        let a = hi - phi * (hi - lo);
        let b = lo + phi * (hi - lo);
        if error(data, w, a, 1.0, threads) < error(data, w, b, 1.0, threads) {
            hi = b;
        } else {
            lo = a;
        }
    }
    (lo + hi) / 2.0
}

/// Gradient of the error over the weights (midgame, endgame).
fn gradient(data: &Dataset, w: &Weights, k: f64, result_weight: f64, threads: usize) -> Weights {
    let n = feature::COUNT;
    let parts = par_map(data.samples.len(), threads, |range| {
        let mut g = Weights {
            mg: vec![0.0; n],
            eg: vec![0.0; n],
        };
        for s in &data.samples[range] {
            let e = w.evaluate(data, s);
            let p = sigmoid(k * e);
            let d = (p - target(s, k, result_weight)) * p * (1.0 - p) * k * s.scale as f64 / 64.0;
            let phase = s.phase as f64 / MAX_PHASE as f64;
            let (dm, de) = (d * phase, d * (1.0 - phase));
            for &(i, c) in &data.features[s.start as usize..s.start as usize + s.len as usize] {
                g.mg[i as usize] += dm * c as f64;
                g.eg[i as usize] += de * c as f64;
            }
        }
        g
    });
    let mut total = Weights {
        mg: vec![0.0; n],
        eg: vec![0.0; n],
    };
    for g in parts {
        for i in 0..n {
            total.mg[i] += g.mg[i];
            total.eg[i] += g.eg[i];
        }
    }
    let scale = 2.0 / data.samples.len().max(1) as f64;
    total.mg.iter_mut().for_each(|v| *v *= scale);
    total.eg.iter_mut().for_each(|v| *v *= scale);
    total
}

/// Fits the weights with Adam, starting from `start`. `each` sees (epoch,
/// error) every few epochs. Returns the fitted weights.
pub fn tune(
    data: &Dataset,
    start: Weights,
    k: f64,
    cfg: &TuneConfig,
    mut each: impl FnMut(usize, f64),
) -> Weights {
    let n = feature::COUNT;
    let anchor = start.clone();
    let mut w = start;
    let (b1, b2, eps) = (0.9, 0.999, 1e-8);
    let mut m = vec![0.0; 2 * n];
    let mut v = vec![0.0; 2 * n];
    for epoch in 1..=cfg.epochs {
        let mut g = gradient(data, &w, k, cfg.result_weight, cfg.threads);
        for i in 0..n {
            g.mg[i] += 2.0 * cfg.regularization * (w.mg[i] - anchor.mg[i]);
            g.eg[i] += 2.0 * cfg.regularization * (w.eg[i] - anchor.eg[i]);
        }
        if let Some(free) = &cfg.free {
            for i in (0..n).filter(|&i| !free[i]) {
                g.mg[i] = 0.0;
                g.eg[i] = 0.0;
            }
        }
        let grads = g.mg.iter().chain(g.eg.iter());
        for (j, gj) in grads.enumerate() {
            m[j] = b1 * m[j] + (1.0 - b1) * gj;
            v[j] = b2 * v[j] + (1.0 - b2) * gj * gj;
            let mh = m[j] / (1.0 - b1.powi(epoch as i32));
            let vh = v[j] / (1.0 - b2.powi(epoch as i32));
            let step = cfg.learning_rate * mh / (vh.sqrt() + eps);
            if j < n {
                w.mg[j] -= step;
            } else {
                w.eg[j - n] -= step;
            }
        }
        if epoch % 50 == 0 || epoch == cfg.epochs {
            each(epoch, error(data, &w, k, cfg.result_weight, cfg.threads));
        }
    }
    w
}

/// The weight groups `--only` can name, with their index ranges.
pub fn groups() -> Vec<(&'static str, std::ops::Range<usize>)> {
    use feature::*;
    vec![
        ("material", MATERIAL..PST),
        ("pst", PST..ROOK_MOBILITY),
        ("mobility", ROOK_MOBILITY..KING_ATTACK),
        ("king", KING_ATTACK..HANGING),
        ("threats", HANGING..TEMPO),
        ("tempo", TEMPO..COUNT),
    ]
}

/// Which weights the named groups cover.
///
/// # Errors
///
/// A name that is no group; the error lists the groups.
pub fn free_weights(names: &[String]) -> Result<Vec<bool>, UnknownGroup> {
    let all = groups();
    let mut free = vec![false; feature::COUNT];
    for name in names {
        let (_, range) = all
            .iter()
            .find(|(n, _)| n == name)
            .ok_or_else(|| UnknownGroup {
                name: name.clone(),
                known: all.iter().map(|(n, _)| *n).collect(),
            })?;
        free[range.clone()].iter_mut().for_each(|f| *f = true);
    }
    Ok(free)
}

/// The source of `eval/weights.rs` holding `weights`.
pub fn weights_source(weights: &[S], note: &str) -> String {
    let mut out = String::new();
    out.push_str(
        "//! Evaluation weights: `(midgame, endgame)` pairs in centipawns, laid out as\n\
         //! [`super::feature`] says. Written by `xqtrain tune`; do not edit by hand.\n",
    );
    for line in note.lines() {
        let _ = writeln!(out, "//! {line}");
    }
    out.push_str(
        "\nuse super::S;\n\n\
         /// The weight of every feature, indexed by [`super::feature`] offsets.\n\
         #[rustfmt::skip]\n\
         pub const WEIGHTS: [S; super::feature::COUNT] = [\n",
    );
    let mut line = String::from("   ");
    for w in weights {
        let item = format!(" S::new({}, {}),", w.mg, w.eg);
        if line.len() + item.len() > 96 {
            out.push_str(&line);
            out.push('\n');
            line = String::from("   ");
        }
        line.push_str(&item);
    }
    out.push_str(&line);
    out.push_str("\n];\n");
    out
}

#[cfg(test)]
mod tests {
    use super::*;

    /// A tiny data set: Red a rook up wins, the start position draws.
    fn data() -> Dataset {
        let mut d = Dataset::default();
        let text = "\
rnbakabn1/9/1c5c1/p1p1p1p1p/9/9/P1P1P1P1P/1C5C1/9/RNBAKABNR w | 900 | 1
rnbakabnr/9/1c5c1/p1p1p1p1p/9/9/P1P1P1P1P/1C5C1/9/RNBAKABN1 b | 900 | 0
rnbakabnr/9/1c5c1/p1p1p1p1p/9/9/P1P1P1P1P/1C5C1/9/RNBAKABNR w | 0 | 0.5
";
        assert!(d.add_text(text, 1).is_empty());
        d
    }

    #[test]
    fn bad_lines_are_named_and_skipped() {
        let mut d = Dataset::default();
        let bad = d.add_text(
            "nonsense\n4k4/9/9/9/9/9/9/9/9/4K4 w | 0 | 1\n3k5/9/9/9/9/9/9/9/9/4K4 w | 1 | 2\n",
            10,
        );
        assert_eq!(bad.len(), 3, "{bad:?}");
        assert_eq!(bad[0].line, 10);
        assert_eq!(bad[0].reason, LineError::Shape);
        assert!(matches!(bad[1].reason, LineError::Fen(_)), "{:?}", bad[1]);
        assert!(bad[1].reason.to_string().starts_with("bad FEN: "));
        assert_eq!(bad[2].reason, LineError::Result("2".into()));
        assert!(d.is_empty());
    }

    #[test]
    fn game_records_give_labelled_quiet_positions() {
        let mut d = Dataset::default();
        let pgn = "[Result \"1-0\"]\n\n1. h2e2 h9g7 2. h0g2 i9h9 3. i0h0 g6g5 4. h0h6 b9c7 5. b2d2 a9b9 6. b0c2 b7a7 7. e3e4 h7h8 1-0\n\n[Result \"*\"]\n\n1. h2e2 h9g7 *\n";
        let read = xqrecords::read_records(pgn.as_bytes(), &Default::default(), &|_| {});
        let used: Vec<bool> = read.games.iter().map(|g| d.add_game(g)).collect();
        assert_eq!(used, [true, false], "unknown result skipped");
        // Plies 10 to 13 of the first game, all quiet and not in check.
        assert_eq!(d.len(), 4);
        assert!(d
            .samples
            .iter()
            .all(|s| s.result == 1.0 && s.score.is_nan()));
        let w = Weights::current();
        assert!(error(&d, &w, 0.004, 0.5, 1).is_finite());
    }

    #[test]
    fn tuner_evaluation_matches_the_engine() {
        let d = data();
        let w = Weights::current();
        let pos =
            Position::from_fen("rnbakabn1/9/1c5c1/p1p1p1p1p/9/9/P1P1P1P1P/1C5C1/9/RNBAKABNR w")
                .unwrap();
        let engine = hce::evaluate(&pos, xqengine::Knowledge::Large) as f64;
        let tuner = w.evaluate(&d, &d.samples[0]);
        assert!((engine - tuner).abs() <= 1.0, "{engine} vs {tuner}");
    }

    #[test]
    fn tuning_lowers_the_error() {
        let d = data();
        let w = Weights::current();
        let k = 0.004;
        let before = error(&d, &w, k, 1.0, 2);
        let cfg = TuneConfig {
            result_weight: 1.0,
            epochs: 100,
            learning_rate: 2.0,
            free: None,
            regularization: 0.0,
            threads: 2,
        };
        let tuned = tune(&d, w, k, &cfg, |_, _| {});
        assert!(error(&d, &tuned, k, 1.0, 2) < before);
    }

    #[test]
    fn groups_cover_every_weight_once() {
        let mut covered = vec![0; feature::COUNT];
        for (_, range) in groups() {
            range.for_each(|i| covered[i] += 1);
        }
        assert!(covered.iter().all(|&c| c == 1));
        let unknown = free_weights(&["bogus".into()]).unwrap_err().to_string();
        assert!(unknown.contains("'bogus' (known: material, "), "{unknown}");
        let free = free_weights(&["tempo".into()]).unwrap();
        assert_eq!(free.iter().filter(|&&f| f).count(), 1);
    }

    #[test]
    fn frozen_weights_do_not_move() {
        let d = data();
        let w = Weights::current();
        let cfg = TuneConfig {
            result_weight: 1.0,
            epochs: 20,
            learning_rate: 2.0,
            free: Some(free_weights(&["material".into()]).unwrap()),
            regularization: 0.0,
            threads: 1,
        };
        let tuned = tune(&d, w.clone(), 0.004, &cfg, |_, _| {});
        let pst = feature::PST..feature::COUNT;
        assert_eq!(tuned.mg[pst.clone()], w.mg[pst.clone()]);
        assert_ne!(
            tuned.mg[feature::MATERIAL..feature::PST],
            w.mg[feature::MATERIAL..feature::PST]
        );
    }

    #[test]
    fn weights_source_round_trips_the_layout() {
        let w = Weights::current().rounded();
        let src = weights_source(&w, "test");
        assert!(src.contains("pub const WEIGHTS"));
        assert_eq!(src.matches("S::new(").count(), feature::COUNT);
    }
}
