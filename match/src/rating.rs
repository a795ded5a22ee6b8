//! Ratings of a tournament's engines fitted on all games at once, as Ordo
//! and BayesElo do: the Elo of every engine such that the logistic model
//! `E = 1 / (1 + 10^(-(r_i - r_j) / 400))` makes the games played most
//! likely (a draw counts as half a win and half a loss). At the fit each
//! engine's expected score over its games equals the score it made. The
//! ratings are centred on the average of the engines that have played,
//! and each has a 95 % interval from the curvature of the likelihood,
//! widened or narrowed by how much the game scores really vary about the
//! model (draws make them vary less).
//!
//! A weak prior (ratings spread about their average with a standard
//! deviation of [`PRIOR_SD`] Elo) keeps an engine that won or lost every
//! game at a finite rating; over a few hundred games it moves no rating by
//! a tenth of an Elo.

use crate::stats::Tally;

/// The prior's standard deviation, in Elo.
pub(crate) const PRIOR_SD: f64 = 1000.0;

/// Two-sided 95 % quantile of the standard normal distribution.
const Z_95: f64 = 1.959_963_984_540_054;

/// The results of each pair of engines.
#[derive(Clone, Debug, Default, PartialEq, Eq)]
pub struct Crosstable {
    players: usize,
    /// `tallies[i * players + j]`: engine `i`'s games against `j`, from `i`'s side.
    tallies: Vec<Tally>,
}

impl Crosstable {
    /// An empty table of `players` engines.
    pub fn new(players: usize) -> Crosstable {
        Crosstable {
            players,
            tallies: vec![Tally::default(); players * players],
        }
    }

    /// The number of engines.
    pub fn players(&self) -> usize {
        self.players
    }

    /// Counts a game of engine `first` against engine `second`, `score`
    /// from `first`'s side.
    ///
    /// # Panics
    ///
    /// An engine index out of range, or an engine against itself.
    pub fn add(&mut self, first: usize, second: usize, score: crate::stats::GameScore) {
        use crate::stats::GameScore;
        assert!(first != second && first < self.players && second < self.players);
        let mirrored = match score {
            GameScore::Win => GameScore::Loss,
            GameScore::Draw => GameScore::Draw,
            GameScore::Loss => GameScore::Win,
        };
        self.tallies[first * self.players + second].add(score);
        self.tallies[second * self.players + first].add(mirrored);
    }

    /// Makes room for one more engine, yet to play; returns its index.
    pub fn add_player(&mut self) -> usize {
        let old = self.players;
        let mut grown = Crosstable::new(old + 1);
        for i in 0..old {
            grown.tallies[i * (old + 1)..i * (old + 1) + old]
                .copy_from_slice(&self.tallies[i * old..(i + 1) * old]);
        }
        *self = grown;
        old
    }

    /// Engine `i`'s games against engine `j`, from `i`'s side.
    pub fn against(&self, i: usize, j: usize) -> Tally {
        self.tallies[i * self.players + j]
    }

    /// All of engine `i`'s games, from its side.
    pub fn total(&self, i: usize) -> Tally {
        (0..self.players).fold(Tally::default(), |sum, j| {
            let t = self.against(i, j);
            Tally {
                wins: sum.wins + t.wins,
                draws: sum.draws + t.draws,
                losses: sum.losses + t.losses,
            }
        })
    }

    /// The number of games played.
    pub fn games(&self) -> u32 {
        (0..self.players)
            .map(|i| self.total(i).games())
            .sum::<u32>()
            / 2
    }
}

/// An engine's fitted rating.
#[derive(Clone, Copy, Debug, PartialEq)]
pub struct Rating {
    /// Elo relative to the engines' average.
    pub elo: f64,
    /// Half the width of its 95 % interval.
    pub margin: f64,
}

/// Natural logarithm's Elo scale: `E = 1 / (1 + e^(-K d))` for a difference `d`.
const K: f64 = std::f64::consts::LN_10 / 400.0;

/// Fits every engine's rating on all the games of `table` (see the module
/// documentation). The ratings are centred on the average of the engines
/// that played; an engine without games (a tournament just begun) gets 0
/// and the prior's margin, and moves no one else's rating or margin.
pub fn fit_ratings(table: &Crosstable) -> Vec<Rating> {
    let n = table.players();
    if n == 0 {
        return Vec::new();
    }
    let mut r = vec![0.0; n];
    for _ in 0..100 {
        let (gradient, information) = derivatives(table, &r);
        let Some(step) = solve(&information, &gradient) else {
            break;
        };
        let mut scale = 1.0;
        let before = log_posterior(table, &r);
        let mut next = r.clone();
        while scale > 1e-6 {
            next = r.iter().zip(&step).map(|(x, d)| x + scale * d).collect();
            if log_posterior(table, &next) >= before - 1e-12 {
                break;
            }
            scale *= 0.5;
        }
        let largest = step.iter().fold(0.0f64, |m, d| m.max((scale * d).abs()));
        r = next;
        if largest < 1e-9 {
            break;
        }
    }
    let (_, information) = derivatives(table, &r);
    let covariance = invert(&information).unwrap_or_else(|| vec![vec![0.0; n]; n]);
    let dispersion = dispersion(table, &r);
    let played: Vec<bool> = (0..n).map(|i| table.total(i).games() > 0).collect();
    let active = played.iter().filter(|&&p| p).count().max(1) as f64;
    let mean = (0..n).filter(|&i| played[i]).map(|i| r[i]).sum::<f64>() / active;
    (0..n)
        .map(|i| {
            // The variance of r_i minus the players' average: a' C a with
            // a = e_i - 1/m on the m engines that played.
            let share = |k: usize| f64::from(u8::from(played[k])) / active;
            let weight = |k: usize| f64::from(u8::from(k == i)) - share(k);
            let variance: f64 = (0..n)
                .flat_map(|a| (0..n).map(move |b| (a, b)))
                .map(|(a, b)| weight(a) * covariance[a][b] * weight(b))
                .sum();
            Rating {
                elo: r[i] - mean,
                margin: Z_95 * (dispersion * variance.max(0.0)).sqrt(),
            }
        })
        .collect()
}

/// The expected score of a rating difference `d` (Elo).
fn expected(d: f64) -> f64 {
    1.0 / (1.0 + (-K * d).exp())
}

/// The pairs that played: `(i, j, tally of i against j)` with `i < j`.
fn pairs(table: &Crosstable) -> impl Iterator<Item = (usize, usize, Tally)> + '_ {
    let n = table.players();
    (0..n)
        .flat_map(move |i| (i + 1..n).map(move |j| (i, j)))
        .map(|(i, j)| (i, j, table.against(i, j)))
        .filter(|(_, _, t)| t.games() > 0)
}

/// A tally's points (a draw is half).
fn points(t: &Tally) -> f64 {
    f64::from(t.wins) + 0.5 * f64::from(t.draws)
}

/// The logarithm of the likelihood of the games under ratings `r`, plus the
/// prior's.
fn log_posterior(table: &Crosstable, r: &[f64]) -> f64 {
    let data: f64 = pairs(table)
        .map(|(i, j, t)| {
            let e = expected(r[i] - r[j]);
            let p = points(&t);
            p * e.ln() + (f64::from(t.games()) - p) * (1.0 - e).ln()
        })
        .sum();
    let prior: f64 = r.iter().map(|x| x * x).sum::<f64>() / (2.0 * PRIOR_SD * PRIOR_SD);
    data - prior
}

/// The gradient of [`log_posterior`] and its negative Hessian (the
/// information matrix, positive definite thanks to the prior).
fn derivatives(table: &Crosstable, r: &[f64]) -> (Vec<f64>, Vec<Vec<f64>>) {
    let n = r.len();
    let prior = 1.0 / (PRIOR_SD * PRIOR_SD);
    let mut gradient: Vec<f64> = r.iter().map(|x| -x * prior).collect();
    let mut information = vec![vec![0.0; n]; n];
    for (i, row) in information.iter_mut().enumerate() {
        row[i] = prior;
    }
    for (i, j, t) in pairs(table) {
        let e = expected(r[i] - r[j]);
        let games = f64::from(t.games());
        let pull = K * (points(&t) - games * e);
        gradient[i] += pull;
        gradient[j] -= pull;
        let curvature = K * K * games * e * (1.0 - e);
        information[i][i] += curvature;
        information[j][j] += curvature;
        information[i][j] -= curvature;
        information[j][i] -= curvature;
    }
    (gradient, information)
}

/// How much the game scores vary about the fitted model, relative to what
/// the model expects of a win-or-loss game: 1 without draws, less with
/// them. 1 when no game was played.
fn dispersion(table: &Crosstable, r: &[f64]) -> f64 {
    let (mut observed, mut modelled) = (0.0, 0.0);
    for (i, j, t) in pairs(table) {
        let e = expected(r[i] - r[j]);
        observed += f64::from(t.wins) * (1.0 - e).powi(2)
            + f64::from(t.draws) * (0.5 - e).powi(2)
            + f64::from(t.losses) * e * e;
        modelled += f64::from(t.games()) * e * (1.0 - e);
    }
    if modelled > 0.0 {
        observed / modelled
    } else {
        1.0
    }
}

/// The solution `x` of `a x = b`, by Gaussian elimination with partial
/// pivoting; `None` when `a` is singular.
fn solve(a: &[Vec<f64>], b: &[f64]) -> Option<Vec<f64>> {
    let n = b.len();
    let mut m: Vec<Vec<f64>> = a
        .iter()
        .zip(b)
        .map(|(row, &y)| row.iter().copied().chain([y]).collect())
        .collect();
    for col in 0..n {
        let pivot = (col..n).max_by(|&x, &y| m[x][col].abs().total_cmp(&m[y][col].abs()))?;
        if m[pivot][col].abs() < 1e-300 {
            return None;
        }
        m.swap(col, pivot);
        let pivot_row = m[col].clone();
        for (row, values) in m.iter_mut().enumerate() {
            if row != col {
                let factor = values[col] / pivot_row[col];
                for (value, pivot) in values.iter_mut().zip(&pivot_row).skip(col) {
                    *value -= factor * pivot;
                }
            }
        }
    }
    Some((0..n).map(|i| m[i][n] / m[i][i]).collect())
}

/// The inverse of `a`, column by column; `None` when it is singular.
fn invert(a: &[Vec<f64>]) -> Option<Vec<Vec<f64>>> {
    let n = a.len();
    let columns: Option<Vec<Vec<f64>>> = (0..n)
        .map(|c| {
            solve(
                a,
                &(0..n)
                    .map(|r| f64::from(u8::from(r == c)))
                    .collect::<Vec<_>>(),
            )
        })
        .collect();
    let columns = columns?;
    Some(
        (0..n)
            .map(|r| (0..n).map(|c| columns[c][r]).collect())
            .collect(),
    )
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::stats::{elo_estimate, Elo, GameScore};

    fn table_of(players: usize, games: &[(usize, usize, u32, u32, u32)]) -> Crosstable {
        let mut table = Crosstable::new(players);
        for &(i, j, w, d, l) in games {
            for (score, count) in [
                (GameScore::Win, w),
                (GameScore::Draw, d),
                (GameScore::Loss, l),
            ] {
                for _ in 0..count {
                    table.add(i, j, score);
                }
            }
        }
        table
    }

    fn finite(elo: Elo) -> f64 {
        match elo {
            Elo::Finite(e) => e,
            other => panic!("{other:?}"),
        }
    }

    #[test]
    fn engines_yet_to_play_change_no_one_elses_rating() {
        let two = fit_ratings(&table_of(2, &[(0, 1, 13, 5, 2)]));
        let four = fit_ratings(&table_of(4, &[(0, 1, 13, 5, 2)]));
        for i in 0..2 {
            assert!((two[i].elo - four[i].elo).abs() < 1e-6, "{two:?} {four:?}");
            assert!(
                (two[i].margin - four[i].margin).abs() < 1e-3,
                "{two:?} {four:?}"
            );
        }
        assert!(two[0].margin < 300.0, "{two:?}");
        assert_eq!(four[2].elo, 0.0);
        assert!(four[3].margin > 1000.0, "{four:?}");
    }

    #[test]
    fn two_engines_get_the_match_score_elo_and_interval() {
        let tally = Tally {
            wins: 600,
            draws: 400,
            losses: 200,
        };
        let table = table_of(2, &[(0, 1, 600, 400, 200)]);
        assert_eq!(table.games(), 1200);
        assert_eq!(table.total(1).wins, 200);
        let ratings = fit_ratings(&table);
        let estimate = elo_estimate(&tally).unwrap();
        let difference = ratings[0].elo - ratings[1].elo;
        assert!(
            (difference - finite(estimate.elo)).abs() < 0.1,
            "{ratings:?}"
        );
        assert!((ratings[0].elo + ratings[1].elo).abs() < 1e-9);
        // The match's interval carried into Elo by the slope of the Elo
        // curve at the score (the delta method), halved: each engine
        // carries half the difference's uncertainty about the average.
        let (score, variance) = crate::stats::score_mean_and_variance(&tally).unwrap();
        let slope = 400.0 / (std::f64::consts::LN_10 * score * (1.0 - score));
        let half_width = 0.5 * Z_95 * (variance / 1200.0).sqrt() * slope;
        assert!(
            (ratings[0].margin - half_width).abs() < 0.01 * half_width,
            "{ratings:?} against {half_width}"
        );
        assert_eq!(ratings[0].margin, ratings[1].margin);
    }

    #[test]
    fn ratings_recover_the_ones_the_games_were_drawn_from() {
        // Decisive games in exactly the proportions ratings 0, 100 and 250
        // give, 10,000 games a pair.
        let truth = [0.0, 100.0, 250.0];
        let mut games = Vec::new();
        for i in 0..3 {
            for j in i + 1..3 {
                let wins = (10_000.0 * expected(truth[i] - truth[j])).round() as u32;
                games.push((i, j, wins, 0, 10_000 - wins));
            }
        }
        let ratings = fit_ratings(&table_of(3, &games));
        let mean = truth.iter().sum::<f64>() / 3.0;
        for (rating, t) in ratings.iter().zip(truth) {
            assert!((rating.elo - (t - mean)).abs() < 0.5, "{ratings:?}");
        }
    }

    #[test]
    fn each_engine_is_expected_to_score_what_it_scored() {
        // An intransitive round robin with draws and a pair that never met.
        let table = table_of(
            4,
            &[
                (0, 1, 30, 40, 10),
                (1, 2, 25, 30, 25),
                (2, 0, 20, 40, 20),
                (0, 3, 50, 20, 10),
                (1, 3, 40, 30, 30),
            ],
        );
        let ratings = fit_ratings(&table);
        for i in 0..4 {
            let expected_points: f64 = (0..4)
                .filter(|&j| j != i)
                .map(|j| {
                    let games = f64::from(table.against(i, j).games());
                    games * expected(ratings[i].elo - ratings[j].elo)
                })
                .sum();
            let scored = points(&table.total(i));
            assert!(
                (expected_points - scored).abs() < 0.1,
                "engine {i}: {expected_points} against {scored}"
            );
        }
        assert!(ratings.iter().map(|r| r.elo).sum::<f64>().abs() < 1e-6);
        assert!(
            ratings.iter().all(|r| r.margin > 0.0 && r.margin < 200.0),
            "{ratings:?}"
        );
    }

    #[test]
    fn a_perfect_score_stays_finite_and_first() {
        let ratings = fit_ratings(&table_of(3, &[(0, 1, 10, 0, 0), (1, 2, 5, 3, 2)]));
        assert!(ratings
            .iter()
            .all(|r| r.elo.is_finite() && r.margin.is_finite()));
        assert!(ratings[0].elo > ratings[1].elo && ratings[1].elo > ratings[2].elo);
        let unplayed = fit_ratings(&Crosstable::new(2));
        assert_eq!(unplayed[0].elo, 0.0);
        assert!(fit_ratings(&Crosstable::new(0)).is_empty());
    }
}
