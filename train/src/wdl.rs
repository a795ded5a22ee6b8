//! Fitting the engine's win-draw-loss model ([`xqengine::wdl`]) on
//! self-play games, as Stockfish fits its win-rate model: the positions
//! are grouped by the material on the board, `a` and `b` fitted for each
//! group by maximum likelihood, then a cubic in the material share fitted
//! through each, weighted by the groups' sizes.

use xqcore::{Color, GameResult};
use xqengine::wdl::{material_count, WdlModel, START_MATERIAL};
use xqlearn::{GameRecord, NO_SCORE};

/// One scored position of a game: the mover's score in net units, the
/// material on the board, and how the game ended for the mover.
#[derive(Clone, Copy, Debug, PartialEq)]
pub struct Sample {
    pub score: f64,
    pub material: u32,
    /// 1 won, 0 drawn, −1 lost, for the side to move.
    pub outcome: i8,
}

/// Scores beyond this are decided games the model need not learn (a mate
/// score is never recorded).
const MAX_SCORE: i32 = 3_000;

/// Every scored position of `games`.
pub fn samples(games: &[GameRecord]) -> Vec<Sample> {
    let mut out = Vec::new();
    for game in games {
        let Some(mut pos) = game.start_position() else {
            continue;
        };
        let red = match game.result {
            GameResult::RedWins => 1,
            GameResult::BlackWins => -1,
            GameResult::Draw => 0,
            _ => continue,
        };
        for &(mv, score) in &game.moves {
            if score != NO_SCORE && i32::from(score).abs() < MAX_SCORE {
                out.push(Sample {
                    score: f64::from(score),
                    material: material_count(&pos),
                    outcome: if pos.turn() == Color::Red { red } else { -red },
                });
            }
            if !pos.is_legal(mv) {
                break;
            }
            pos.make_move(mv);
        }
    }
    out
}

/// The log-likelihood of `samples` under logistic parameters `a`, `b`.
fn likelihood(samples: &[&Sample], a: f64, b: f64) -> f64 {
    let model = WdlModel {
        a: [a, 0.0, 0.0, 0.0],
        b: [b, 0.0, 0.0, 0.0],
    };
    samples
        .iter()
        .map(|s| {
            let (w, d, l) = model.probabilities(s.score, 0.0);
            let p = match s.outcome {
                1 => w,
                0 => d,
                _ => l,
            };
            p.max(1e-9).ln()
        })
        .sum()
}

/// The `a` and `b` that make `samples` likeliest: Nelder-Mead over `a`
/// and `ln b`, from a = 200, b = 100.
fn fit_group(samples: &[&Sample]) -> (f64, f64) {
    let cost = |p: [f64; 2]| -likelihood(samples, p[0], p[1].exp());
    let mut simplex = [
        [200.0, 100f64.ln()],
        [300.0, 100f64.ln()],
        [200.0, 150f64.ln()],
    ];
    let mut costs = simplex.map(cost);
    for _ in 0..300 {
        let mut order = [0, 1, 2];
        order.sort_by(|&i, &j| costs[i].total_cmp(&costs[j]));
        let [best, mid, worst] = order;
        if (costs[worst] - costs[best]).abs() < 1e-6 * costs[best].abs().max(1.0) {
            break;
        }
        let centre = [
            (simplex[best][0] + simplex[mid][0]) / 2.0,
            (simplex[best][1] + simplex[mid][1]) / 2.0,
        ];
        let towards = |t: f64| {
            [
                centre[0] + t * (simplex[worst][0] - centre[0]),
                centre[1] + t * (simplex[worst][1] - centre[1]),
            ]
        };
        let reflected = towards(-1.0);
        let r = cost(reflected);
        if r < costs[best] {
            let expanded = towards(-2.0);
            let e = cost(expanded);
            (simplex[worst], costs[worst]) = if e < r { (expanded, e) } else { (reflected, r) };
        } else if r < costs[mid] {
            (simplex[worst], costs[worst]) = (reflected, r);
        } else {
            let contracted = towards(0.5);
            let c = cost(contracted);
            if c < costs[worst] {
                (simplex[worst], costs[worst]) = (contracted, c);
            } else {
                for i in [mid, worst] {
                    simplex[i] = [
                        (simplex[i][0] + simplex[best][0]) / 2.0,
                        (simplex[i][1] + simplex[best][1]) / 2.0,
                    ];
                    costs[i] = cost(simplex[i]);
                }
            }
        }
    }
    let best = (0..3)
        .min_by(|&i, &j| costs[i].total_cmp(&costs[j]))
        .unwrap_or(0);
    (simplex[best][0], simplex[best][1].exp())
}

/// The cubic through `(x, y)` points weighted by `w`, least squares:
/// coefficients lowest power first.
fn cubic_fit(points: &[(f64, f64, f64)]) -> [f64; 4] {
    // The normal equations, solved by Gaussian elimination.
    let mut m = [[0.0f64; 5]; 4];
    for &(x, y, w) in points {
        let powers = [1.0, x, x * x, x * x * x];
        for i in 0..4 {
            for j in 0..4 {
                m[i][j] += w * powers[i] * powers[j];
            }
            m[i][4] += w * powers[i] * y;
        }
    }
    for col in 0..4 {
        let pivot = (col..4)
            .max_by(|&a, &b| m[a][col].abs().total_cmp(&m[b][col].abs()))
            .unwrap_or(col);
        m.swap(col, pivot);
        if m[col][col].abs() < 1e-12 {
            continue;
        }
        let pivot_row = m[col];
        for (row, r) in m.iter_mut().enumerate() {
            if row != col {
                let f = r[col] / pivot_row[col];
                for (x, p) in r.iter_mut().zip(pivot_row).skip(col) {
                    *x -= f * p;
                }
            }
        }
    }
    std::array::from_fn(|i| {
        if m[i][i].abs() < 1e-12 {
            0.0
        } else {
            m[i][4] / m[i][i]
        }
    })
}

/// A group of positions of one material count, and its fit.
#[derive(Clone, Copy, Debug, PartialEq)]
pub struct Group {
    pub material: u32,
    pub positions: usize,
    pub a: f64,
    pub b: f64,
}

/// Predicted against observed, over positions whose score falls in a bin.
#[derive(Clone, Copy, Debug, PartialEq)]
pub struct Calibration {
    pub low: i32,
    pub high: i32,
    pub positions: usize,
    /// Win, draw and loss shares: observed, then predicted.
    pub observed: [f64; 3],
    pub predicted: [f64; 3],
}

/// What the fit found, and how well the model fits.
#[derive(Clone, Debug, PartialEq)]
pub struct Fit {
    pub model: WdlModel,
    pub positions: usize,
    pub groups: Vec<Group>,
    /// Mean log loss of the model over all positions, and of the overall
    /// win, draw and loss shares alone (what knowing nothing gives).
    pub log_loss: f64,
    pub baseline_log_loss: f64,
    pub calibration: Vec<Calibration>,
}

/// Fits the model on `samples`: groups of one material count with at
/// least `min_group` positions.
pub fn fit(samples: &[Sample], min_group: usize) -> Fit {
    let mut by_material: std::collections::BTreeMap<u32, Vec<&Sample>> = Default::default();
    for s in samples {
        by_material.entry(s.material).or_default().push(s);
    }
    let groups: Vec<Group> = by_material
        .iter()
        .filter(|(_, g)| g.len() >= min_group)
        .map(|(&material, g)| {
            let (a, b) = fit_group(g);
            Group {
                material,
                positions: g.len(),
                a,
                b,
            }
        })
        .collect();
    let share = |m: u32| f64::from(m) / f64::from(START_MATERIAL);
    let model = WdlModel {
        a: cubic_fit(
            &groups
                .iter()
                .map(|g| (share(g.material), g.a, g.positions as f64))
                .collect::<Vec<_>>(),
        ),
        b: cubic_fit(
            &groups
                .iter()
                .map(|g| (share(g.material), g.b, g.positions as f64))
                .collect::<Vec<_>>(),
        ),
    };
    let n = samples.len().max(1) as f64;
    let counts = samples.iter().fold([0.0; 3], |mut c, s| {
        c[(1 - s.outcome) as usize] += 1.0;
        c
    });
    let shares = counts.map(|c| c / n);
    let p_of = |p: [f64; 3], s: &Sample| p[(1 - s.outcome) as usize].max(1e-9);
    let mut log_loss = 0.0;
    let mut baseline = 0.0;
    for s in samples {
        let (w, d, l) = model.probabilities(s.score, share(s.material));
        log_loss -= p_of([w, d, l], s).ln();
        baseline -= p_of(shares, s).ln();
    }
    let calibration = (-6..6)
        .map(|i| {
            let (low, high) = (i * 100, i * 100 + 100);
            let mut observed = [0.0; 3];
            let mut predicted = [0.0; 3];
            let mut positions = 0;
            for s in samples
                .iter()
                .filter(|s| (low..high).contains(&(s.score as i32)))
            {
                positions += 1;
                observed[(1 - s.outcome) as usize] += 1.0;
                let (w, d, l) = model.probabilities(s.score, share(s.material));
                predicted = [predicted[0] + w, predicted[1] + d, predicted[2] + l];
            }
            let k = positions.max(1) as f64;
            Calibration {
                low,
                high,
                positions,
                observed: observed.map(|o| o / k),
                predicted: predicted.map(|p| p / k),
            }
        })
        .collect();
    Fit {
        model,
        positions: samples.len(),
        groups,
        log_loss: log_loss / n,
        baseline_log_loss: baseline / n,
        calibration,
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn a_cubic_through_points_on_a_cubic_is_that_cubic() {
        let c = [1.0, -2.0, 0.5, 3.0];
        let points: Vec<_> = (0..10)
            .map(|i| {
                let x = f64::from(i) / 10.0;
                (x, c[0] + c[1] * x + c[2] * x * x + c[3] * x * x * x, 1.0)
            })
            .collect();
        let fitted = cubic_fit(&points);
        for (f, c) in fitted.iter().zip(c) {
            assert!((f - c).abs() < 1e-6, "{fitted:?}");
        }
    }

    #[test]
    fn the_fit_finds_the_model_the_outcomes_were_drawn_from() {
        // Outcomes drawn from a known model at one material count: the
        // fitted a and b come back within a few percent.
        let truth = WdlModel {
            a: [250.0, 0.0, 0.0, 0.0],
            b: [120.0, 0.0, 0.0, 0.0],
        };
        let mut rng = xqcore::SplitMix64::new(3);
        let samples: Vec<Sample> = (0..40_000)
            .map(|_| {
                let score = rng.below(1200) as f64 - 600.0;
                let (w, d, _) = truth.probabilities(score, 0.0);
                let u = rng.unit();
                let outcome = if u < w {
                    1
                } else if u < w + d {
                    0
                } else {
                    -1
                };
                Sample {
                    score,
                    material: 100,
                    outcome,
                }
            })
            .collect();
        let refs: Vec<&Sample> = samples.iter().collect();
        let (a, b) = fit_group(&refs);
        assert!(
            (a - 250.0).abs() < 12.0 && (b - 120.0).abs() < 8.0,
            "{a} {b}"
        );
        let fitted = fit(&samples, 1000);
        assert!(fitted.log_loss < fitted.baseline_log_loss);
    }
}
