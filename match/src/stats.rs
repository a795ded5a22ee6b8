//! Match statistics from the first engine's side: score, Elo difference with a
//! 95 % confidence interval, likelihood of superiority, and the SPRT
//! log-likelihood ratio. All from win/draw/loss counts (trinomial model, normal
//! approximation), as cutechess and fishtest report them.

use std::fmt;
use std::str::FromStr;

/// Two-sided 95 % quantile of the standard normal distribution.
const Z_95: f64 = 1.959_963_984_540_054;

/// One game's result from the first engine's side.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum GameScore {
    Win,
    Draw,
    Loss,
}

/// Game counts from the first engine's side.
#[derive(Clone, Copy, Debug, Default, PartialEq, Eq)]
pub struct Tally {
    pub wins: u32,
    pub draws: u32,
    pub losses: u32,
}

impl Tally {
    /// Counts one more game.
    pub fn add(&mut self, score: GameScore) {
        match score {
            GameScore::Win => self.wins += 1,
            GameScore::Draw => self.draws += 1,
            GameScore::Loss => self.losses += 1,
        }
    }

    /// Number of games counted.
    pub fn games(&self) -> u32 {
        self.wins + self.draws + self.losses
    }

    /// Score in percent (a draw counts half); 0 with no games.
    pub fn percent(&self) -> f64 {
        score_mean_and_variance(self).map_or(0.0, |(mean, _)| 100.0 * mean)
    }
}

/// Game pairs counted by the pair's score from the first engine's side: the
/// two games of an opening, one with each colour, scored together (0, ½, 1,
/// 1½ or 2 points). Pairs vary less than single games, since the opening's
/// bias cancels within a pair: fastchess and fishtest test on these counts.
#[derive(Clone, Copy, Debug, Default, PartialEq, Eq)]
pub struct Pentanomial {
    /// `counts[k]`: pairs that scored `k` half points (LL, LD, WL or DD, WD, WW).
    pub counts: [u32; 5],
}

impl Pentanomial {
    /// Counts a pair of games.
    pub fn add(&mut self, first: GameScore, second: GameScore) {
        let half_points = |s| match s {
            GameScore::Win => 2,
            GameScore::Draw => 1,
            GameScore::Loss => 0,
        };
        self.counts[half_points(first) + half_points(second)] += 1;
    }

    /// These pairs and `other`'s together.
    pub fn merged(self, other: Pentanomial) -> Pentanomial {
        Pentanomial {
            counts: std::array::from_fn(|k| self.counts[k] + other.counts[k]),
        }
    }

    /// Number of pairs counted.
    pub fn pairs(&self) -> u32 {
        self.counts.iter().sum()
    }

    /// Mean and (population) variance of a pair's score per game (0, ¼, ½,
    /// ¾, 1), or `None` with no pairs.
    pub fn mean_and_variance(&self) -> Option<(f64, f64)> {
        let pairs = f64::from(self.pairs());
        if pairs == 0.0 {
            return None;
        }
        let outcomes = self
            .counts
            .iter()
            .enumerate()
            .map(|(k, &n)| (k as f64 / 4.0, f64::from(n) / pairs));
        let mean: f64 = outcomes.clone().map(|(x, p)| x * p).sum();
        let variance = outcomes.map(|(x, p)| p * (x - mean).powi(2)).sum();
        Some((mean, variance))
    }
}

/// Text that is not five counts of game pairs.
#[derive(Clone, Debug, PartialEq, Eq, thiserror::Error)]
#[error("'{0}' is not five counts of pairs LL/LD/DD/WD/WW")]
pub struct BadPairs(pub String);

impl FromStr for Pentanomial {
    type Err = BadPairs;

    /// The counts as `docs` record them, `LL/LD/DD/WD/WW` (e.g.
    /// `63/146/228/156/60`).
    fn from_str(text: &str) -> Result<Pentanomial, BadPairs> {
        let counts: Option<Vec<u32>> = text.split('/').map(|n| n.trim().parse().ok()).collect();
        counts
            .and_then(|counts| counts.try_into().ok())
            .map(|counts| Pentanomial { counts })
            .ok_or_else(|| BadPairs(text.to_string()))
    }
}

/// Mean and (population) variance of the per-game score (1, ½, 0), or `None`
/// with no games.
pub(crate) fn score_mean_and_variance(tally: &Tally) -> Option<(f64, f64)> {
    let games = f64::from(tally.games());
    if games == 0.0 {
        return None;
    }
    let (w, d, l) = (
        f64::from(tally.wins) / games,
        f64::from(tally.draws) / games,
        f64::from(tally.losses) / games,
    );
    let mean = w + 0.5 * d;
    let variance = w * (1.0 - mean).powi(2) + d * (0.5 - mean).powi(2) + l * mean.powi(2);
    Some((mean, variance))
}

/// An Elo difference. A score of 100 % (or 0 %) has no finite Elo: it is
/// marked as infinite rather than carried as an IEEE infinity or NaN.
#[derive(Clone, Copy, Debug, PartialEq)]
pub enum Elo {
    Finite(f64),
    PlusInfinity,
    MinusInfinity,
}

impl fmt::Display for Elo {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        match self {
            Elo::Finite(elo) => write!(f, "{elo:+.1}"),
            Elo::PlusInfinity => f.write_str("+inf"),
            Elo::MinusInfinity => f.write_str("-inf"),
        }
    }
}

/// The expected score of a player `elo` points stronger (logistic model).
pub(crate) fn score_from_elo(elo: f64) -> f64 {
    1.0 / (1.0 + 10f64.powf(-elo / 400.0))
}

/// The Elo difference that gives the expected score `score` (0..=1): the
/// inverse of [`score_from_elo`]. Scores at or beyond 0 and 1 are infinite.
pub(crate) fn elo_from_score(score: f64) -> Elo {
    if score >= 1.0 {
        Elo::PlusInfinity
    } else if score <= 0.0 || score.is_nan() {
        Elo::MinusInfinity
    } else {
        Elo::Finite(400.0 * (score / (1.0 - score)).log10())
    }
}

/// An Elo difference with its 95 % confidence interval.
#[derive(Clone, Copy, Debug, PartialEq)]
pub struct EloEstimate {
    pub elo: Elo,
    pub lower: Elo,
    pub upper: Elo,
}

/// Elo difference and 95 % confidence interval from the mean score and its
/// standard error (normal approximation); `None` with no games.
pub(crate) fn elo_estimate(tally: &Tally) -> Option<EloEstimate> {
    let (mean, variance) = score_mean_and_variance(tally)?;
    let margin = Z_95 * (variance / f64::from(tally.games())).sqrt();
    Some(EloEstimate {
        elo: elo_from_score(mean),
        lower: elo_from_score(mean - margin),
        upper: elo_from_score(mean + margin),
    })
}

/// Likelihood of superiority: the probability that the first engine is the
/// stronger, from wins and losses (draws carry no information). 0.5 with no
/// decisive game.
pub(crate) fn likelihood_of_superiority(tally: &Tally) -> f64 {
    let decisive = f64::from(tally.wins + tally.losses);
    if decisive == 0.0 {
        return 0.5;
    }
    let lead = f64::from(tally.wins) - f64::from(tally.losses);
    0.5 * (1.0 + erf(lead / (2.0 * decisive).sqrt()))
}

/// The error function, to 1.5e-7 (Abramowitz and Stegun 7.1.26).
fn erf(x: f64) -> f64 {
    const P: f64 = 0.327_591_1;
    const A: [f64; 5] = [
        0.254_829_592,
        -0.284_496_736,
        1.421_413_741,
        -1.453_152_027,
        1.061_405_429,
    ];
    let t = 1.0 / (1.0 + P * x.abs());
    let polynomial = A.iter().rev().fold(0.0, |acc, a| acc * t + a) * t;
    let magnitude = 1.0 - polynomial * (-x * x).exp();
    magnitude.copysign(x)
}

/// A sequential probability ratio test between H0 "the Elo difference is
/// `elo0`" and H1 "it is `elo1`", with error rates `alpha` and `beta`.
#[derive(Clone, Copy, Debug, PartialEq)]
pub struct Sprt {
    pub elo0: f64,
    pub elo1: f64,
    pub alpha: f64,
    pub beta: f64,
    /// Pairs played before this run whose games are not at hand (a test
    /// whose PGN was lost goes on from its recorded counts): they count in
    /// every pentanomial LLR as if played now.
    pub earlier: Pentanomial,
}

/// What an SPRT concludes at some point.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum SprtVerdict {
    AcceptH0,
    AcceptH1,
    Continue,
}

impl fmt::Display for SprtVerdict {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        f.write_str(match self {
            SprtVerdict::AcceptH0 => "H0 accepted",
            SprtVerdict::AcceptH1 => "H1 accepted",
            SprtVerdict::Continue => "inconclusive",
        })
    }
}

/// Text that is not the two Elo bounds of an SPRT.
#[derive(Clone, Debug, PartialEq, Eq, thiserror::Error)]
#[error("'{0}' is not ELO0,ELO1 with ELO0 < ELO1 (e.g. 0,5)")]
pub struct BadBounds(pub String);

impl FromStr for Sprt {
    type Err = BadBounds;

    /// `ELO0,ELO1`: the test of [`Sprt::new`].
    fn from_str(text: &str) -> Result<Sprt, BadBounds> {
        let bounds = text
            .split_once(',')
            .and_then(|(elo0, elo1)| Some((elo0.trim().parse().ok()?, elo1.trim().parse().ok()?)));
        bounds
            .and_then(|(elo0, elo1)| Sprt::new(elo0, elo1))
            .ok_or_else(|| BadBounds(text.to_string()))
    }
}

impl Sprt {
    /// The test with alpha = beta = 0.05; `None` unless `elo0 < elo1`, both finite.
    pub fn new(elo0: f64, elo1: f64) -> Option<Sprt> {
        (elo0.is_finite() && elo1.is_finite() && elo0 < elo1).then_some(Sprt {
            elo0,
            elo1,
            alpha: 0.05,
            beta: 0.05,
            earlier: Pentanomial::default(),
        })
    }

    /// The same test going on from `earlier` pairs (see [`Sprt::earlier`]).
    pub fn with_earlier(self, earlier: Pentanomial) -> Sprt {
        Sprt { earlier, ..self }
    }

    /// Lower (accept H0) and upper (accept H1) bounds of the LLR.
    pub fn bounds(&self) -> (f64, f64) {
        (
            (self.beta / (1.0 - self.alpha)).ln(),
            ((1.0 - self.beta) / self.alpha).ln(),
        )
    }

    /// Log-likelihood ratio of H1 against H0 (the GSPRT approximation of
    /// cutechess and fishtest): with mean score `s`, per-game variance `v`
    /// over `n` games and expected scores `s0`, `s1` of the two hypotheses,
    /// `(s1 - s0) (2 s - s0 - s1) n / (2 v)`. 0 with no games, and 0 while
    /// every game has had the same result (no variance estimate yet).
    pub fn llr(&self, tally: &Tally) -> f64 {
        score_mean_and_variance(tally).map_or(0.0, |(mean, variance)| {
            self.gsprt(mean, variance, tally.games())
        })
    }

    /// The LLR of samples with mean score `mean` and variance `variance`,
    /// `samples` of them; 0 without variance.
    fn gsprt(&self, mean: f64, variance: f64, samples: u32) -> f64 {
        if variance <= 0.0 {
            return 0.0;
        }
        let (s0, s1) = (score_from_elo(self.elo0), score_from_elo(self.elo1));
        let variance_of_mean = variance / f64::from(samples);
        (s1 - s0) * (2.0 * mean - s0 - s1) / (2.0 * variance_of_mean)
    }

    /// Log-likelihood ratio of H1 against H0 on game pairs: the formula of
    /// [`Sprt::llr`] with the pairs as the samples, `(s1 - s0) (2 s - s0 -
    /// s1) N / (2 v)`, `s` the mean score per game, `v` the variance of a
    /// pair's score per game and `N` the number of pairs (fastchess' and
    /// fishtest's logistic pentanomial test). 0 with no pairs or no
    /// variance yet. [`Sprt::earlier`]'s pairs count with `pairs`.
    pub fn llr_pentanomial(&self, pairs: &Pentanomial) -> f64 {
        let pairs = pairs.merged(self.earlier);
        pairs.mean_and_variance().map_or(0.0, |(mean, variance)| {
            self.gsprt(mean, variance, pairs.pairs())
        })
    }

    /// The verdict for a log-likelihood ratio.
    pub fn verdict(&self, llr: f64) -> SprtVerdict {
        let (lower, upper) = self.bounds();
        if llr >= upper {
            SprtVerdict::AcceptH1
        } else if llr <= lower {
            SprtVerdict::AcceptH0
        } else {
            SprtVerdict::Continue
        }
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    fn tally(wins: u32, draws: u32, losses: u32) -> Tally {
        Tally {
            wins,
            draws,
            losses,
        }
    }

    fn finite(elo: Elo) -> f64 {
        match elo {
            Elo::Finite(e) => e,
            other => panic!("expected a finite Elo, got {other:?}"),
        }
    }

    fn assert_close(actual: f64, expected: f64, tolerance: f64) {
        assert!(
            (actual - expected).abs() <= tolerance,
            "{actual} is not within {tolerance} of {expected}"
        );
    }

    #[test]
    fn elo_of_even_and_three_quarter_scores() {
        assert_close(finite(elo_from_score(0.5)), 0.0, 1e-12);
        assert_eq!(elo_from_score(0.5).to_string(), "+0.0");
        assert_close(finite(elo_from_score(0.75)), 190.85, 0.01);
        assert_close(finite(elo_from_score(0.25)), -190.85, 0.01);
        assert_close(score_from_elo(190.848_501_887_865), 0.75, 1e-12);
    }

    #[test]
    fn perfect_scores_are_marked_infinite_not_nan() {
        assert_eq!(elo_from_score(1.0), Elo::PlusInfinity);
        assert_eq!(elo_from_score(0.0), Elo::MinusInfinity);
        assert_eq!(elo_from_score(f64::NAN), Elo::MinusInfinity);
        let all_wins = elo_estimate(&tally(5, 0, 0)).unwrap();
        assert_eq!(all_wins.elo, Elo::PlusInfinity);
        assert_eq!(all_wins.elo.to_string(), "+inf");
        assert_eq!(
            elo_estimate(&tally(0, 0, 3)).unwrap().upper,
            Elo::MinusInfinity
        );
        assert_eq!(elo_estimate(&tally(0, 0, 0)), None);
    }

    #[test]
    fn confidence_interval_brackets_the_estimate() {
        // 6 wins, 4 draws, 2 losses: score 2/3, checked by hand with Python.
        let estimate = elo_estimate(&tally(6, 4, 2)).unwrap();
        assert_close(finite(estimate.elo), 120.41, 0.01);
        assert_close(finite(estimate.lower), -30.79, 0.01);
        assert_close(finite(estimate.upper), 342.09, 0.01);
        let all_draws = elo_estimate(&tally(0, 7, 0)).unwrap();
        assert_eq!(all_draws.lower, Elo::Finite(0.0));
        assert_eq!(all_draws.upper, Elo::Finite(0.0));
    }

    #[test]
    fn likelihood_of_superiority_follows_the_decisive_games() {
        assert_close(likelihood_of_superiority(&tally(6, 4, 2)), 0.921_35, 1e-5);
        assert_close(likelihood_of_superiority(&tally(2, 4, 6)), 0.078_65, 1e-5);
        assert_close(likelihood_of_superiority(&tally(3, 10, 3)), 0.5, 1e-6);
        assert_eq!(likelihood_of_superiority(&tally(0, 0, 0)), 0.5);
        assert!(likelihood_of_superiority(&tally(100, 0, 0)) <= 1.0);
    }

    #[test]
    fn sprt_bounds_for_five_percent_errors() {
        let sprt = Sprt::new(0.0, 10.0).unwrap();
        let (lower, upper) = sprt.bounds();
        assert_close(lower, -2.944_44, 1e-5);
        assert_close(upper, 2.944_44, 1e-5);
        assert_eq!(sprt.verdict(3.0), SprtVerdict::AcceptH1);
        assert_eq!(sprt.verdict(-3.0), SprtVerdict::AcceptH0);
        assert_eq!(sprt.verdict(0.5), SprtVerdict::Continue);
        assert!(Sprt::new(10.0, 0.0).is_none());
        assert!(Sprt::new(0.0, f64::NAN).is_none());
    }

    #[test]
    fn sprt_llr_hand_checked() {
        let sprt = Sprt::new(0.0, 10.0).unwrap();
        assert_eq!(sprt.llr(&tally(0, 0, 0)), 0.0);
        // Values computed by hand (Python) from the formula in `llr`.
        assert_close(sprt.llr(&tally(2, 1, 1)), 0.039_445, 1e-6);
        assert_close(sprt.llr(&tally(1, 1, 2)), -0.044_262, 1e-6);
        // Same proportions over ten times the games: ten times the evidence.
        assert_close(sprt.llr(&tally(20, 10, 10)), 0.394_450, 1e-6);
        // Symmetric hypotheses and an even score: no evidence either way.
        let symmetric = Sprt::new(-5.0, 5.0).unwrap();
        assert_close(symmetric.llr(&tally(4, 2, 4)), 0.0, 1e-12);
        assert_close(symmetric.llr(&tally(3, 1, 1)), 0.089_939, 1e-6);
        assert_eq!(sprt.llr(&tally(9, 0, 0)), 0.0, "no variance yet");
    }

    #[test]
    fn sprt_llr_grows_with_wins_and_falls_with_losses() {
        let sprt = Sprt::new(0.0, 5.0).unwrap();
        let mut previous = 0.0;
        for n in 1..=20 {
            let llr = sprt.llr(&tally(8 * n, n, n));
            assert!(llr > previous, "{llr} after {n} rounds");
            previous = llr;
        }
        assert_eq!(sprt.verdict(previous), SprtVerdict::AcceptH1);
        let losing = sprt.llr(&tally(200, 200, 600));
        assert!(losing < 0.0);
        assert_eq!(sprt.verdict(losing), SprtVerdict::AcceptH0);
    }

    /// The exact generalized SPRT on pentanomial counts (M. Van den Bergh,
    /// "A simple approximation of the GSPRT", as fishtest states it): under
    /// each hypothesis the pair distribution of the greatest likelihood
    /// with mean score `s` is `p_k = q_k / (1 + λ (a_k - s))`, `q` the
    /// observed frequencies, `a_k = k / 4` the outcomes and `λ` the root of
    /// `Σ q_k (a_k - s) / (1 + λ (a_k - s)) = 0`; the LLR is `Σ n_k ln(p1_k
    /// / p0_k)`. Written apart from the library's approximation to check it.
    fn exact_pentanomial_llr(counts: [u32; 5], elo0: f64, elo1: f64) -> f64 {
        let total: f64 = counts.iter().map(|&n| f64::from(n)).sum();
        let seen: Vec<(f64, f64, f64)> = (0..5)
            .filter(|&k| counts[k] > 0)
            .map(|k| {
                (
                    k as f64 / 4.0,
                    f64::from(counts[k]),
                    f64::from(counts[k]) / total,
                )
            })
            .collect();
        let fitted = |s: f64| -> Vec<f64> {
            let top = seen.iter().map(|o| o.0).fold(f64::MIN, f64::max);
            let bottom = seen.iter().map(|o| o.0).fold(f64::MAX, f64::min);
            let (mut lo, mut hi) = (-1.0 / (top - s) + 1e-12, 1.0 / (s - bottom) - 1e-12);
            let slope = |l: f64| {
                seen.iter()
                    .map(|&(a, _, q)| q * (a - s) / (1.0 + l * (a - s)))
                    .sum::<f64>()
            };
            for _ in 0..200 {
                let mid = 0.5 * (lo + hi);
                if slope(mid) > 0.0 {
                    lo = mid;
                } else {
                    hi = mid;
                }
            }
            let l = 0.5 * (lo + hi);
            seen.iter()
                .map(|&(a, _, q)| q / (1.0 + l * (a - s)))
                .collect()
        };
        let p0 = fitted(score_from_elo(elo0));
        let p1 = fitted(score_from_elo(elo1));
        seen.iter()
            .zip(p0.iter().zip(&p1))
            .map(|(&(_, n, _), (a, b))| n * (b / a).ln())
            .sum()
    }

    #[test]
    fn pentanomial_sprt_agrees_with_the_exact_test() {
        let cases = [
            ([10, 60, 200, 70, 12], 0.0, 5.0),
            ([30, 150, 500, 180, 40], 0.0, 5.0),
            ([5, 40, 120, 30, 5], 0.0, 10.0),
            ([100, 400, 1000, 350, 80], -3.0, 1.0),
            ([20, 100, 300, 130, 25], 0.0, 2.0),
            ([2, 10, 40, 15, 3], 0.0, 10.0),
        ];
        for (counts, elo0, elo1) in cases {
            let sprt = Sprt::new(elo0, elo1).unwrap();
            let approx = sprt.llr_pentanomial(&Pentanomial { counts });
            let exact = exact_pentanomial_llr(counts, elo0, elo1);
            assert!(
                (approx - exact).abs() <= 0.04 * exact.abs() + 0.01,
                "{counts:?}: {approx} against {exact}"
            );
            assert_eq!(sprt.verdict(approx), sprt.verdict(exact), "{counts:?}");
        }
        // By hand (Python): 10 LL, 60 LD, 200 DD or WL, 70 WD, 12 WW.
        let sprt = Sprt::new(0.0, 5.0).unwrap();
        let pairs = Pentanomial {
            counts: [10, 60, 200, 70, 12],
        };
        assert_close(sprt.llr_pentanomial(&pairs), 0.416_266, 1e-5);
        assert_eq!(sprt.llr_pentanomial(&Pentanomial::default()), 0.0);
        let same = Pentanomial {
            counts: [0, 0, 9, 0, 0],
        };
        assert_eq!(sprt.llr_pentanomial(&same), 0.0, "no variance yet");
    }

    #[test]
    fn earlier_pairs_count_as_if_played_in_this_run() {
        let sprt = Sprt::new(0.0, 5.0).unwrap();
        let earlier = Pentanomial {
            counts: [6, 40, 120, 45, 7],
        };
        let now = Pentanomial {
            counts: [4, 20, 80, 25, 5],
        };
        let going_on = sprt.with_earlier(earlier);
        // The counts of both runs together, by hand: 10/60/200/70/12.
        assert_close(going_on.llr_pentanomial(&now), 0.416_266, 1e-5);
        assert_eq!(
            going_on.llr_pentanomial(&now),
            sprt.llr_pentanomial(&now.merged(earlier))
        );
        assert_eq!(
            going_on.llr_pentanomial(&Pentanomial::default()),
            sprt.llr_pentanomial(&earlier)
        );
        assert_ne!(going_on.llr_pentanomial(&now), sprt.llr_pentanomial(&now));
    }

    #[test]
    fn pairs_are_counted_by_their_score() {
        use GameScore::{Draw, Loss, Win};
        let mut pairs = Pentanomial::default();
        for (a, b) in [
            (Win, Win),
            (Win, Loss),
            (Loss, Win),
            (Draw, Draw),
            (Draw, Loss),
            (Win, Draw),
        ] {
            pairs.add(a, b);
        }
        assert_eq!(pairs.counts, [0, 1, 3, 1, 1]);
        assert_eq!(pairs.pairs(), 6);
        let (mean, variance) = pairs.mean_and_variance().unwrap();
        assert_close(mean, 0.583_333, 1e-6);
        assert_close(variance, 0.055_556, 1e-6);
    }

    #[test]
    fn bounds_and_pairs_read_from_text() {
        let sprt: Sprt = " -1.5, 3".parse().unwrap();
        assert_eq!((sprt.elo0, sprt.elo1), (-1.5, 3.0));
        for bad in ["5,0", "0,0", "zero,5", "5", "0,inf"] {
            assert_eq!(bad.parse::<Sprt>(), Err(BadBounds(bad.to_string())));
        }
        assert_eq!(
            "5,0".parse::<Sprt>().unwrap_err().to_string(),
            "'5,0' is not ELO0,ELO1 with ELO0 < ELO1 (e.g. 0,5)"
        );
        assert_eq!(
            "63/146/228/156/60".parse::<Pentanomial>().map(|p| p.counts),
            Ok([63, 146, 228, 156, 60])
        );
        for bad in ["1/2/3", "1/2/3/4/5/6", "1/2/x/4/5", "1/2/-3/4/5"] {
            assert_eq!(bad.parse::<Pentanomial>(), Err(BadPairs(bad.to_string())));
        }
    }
}
