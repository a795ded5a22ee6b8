//! How moves are marked and ordered: chessdb's ranks (`!` best, `*`
//! good, `?` the rest) and its bands below the best score, and the score
//! of a book move from its games, the one ranking that both the chessdb
//! API and the board's book pane (`/api/book`) give.

use xqbook::{BookError, BookFile, BookMove, PositionAnalysis, WeightedMove};
use xqcore::{Move, Position};

/// Beyond this a score is a mate (or a table result), and has no winrate.
pub const DECIDED: i32 = 10_000;

/// chessdb's mark of a move.
#[derive(Clone, Copy, Debug, PartialEq, Eq, PartialOrd, Ord)]
pub enum Rank {
    /// `?`: neither best nor good.
    Other = 0,
    /// `*`: good.
    Good = 1,
    /// `!`: best.
    Best = 2,
}

impl Rank {
    /// The number chessdb's `rank` field gives.
    pub fn number(self) -> u8 {
        self as u8
    }

    /// The mark chessdb's `note` starts with.
    pub fn mark(self) -> char {
        match self {
            Rank::Best => '!',
            Rank::Good => '*',
            Rank::Other => '?',
        }
    }
}

/// chessdb's winrate of a score: `100 / (1 + e^(-score / 330))`, two
/// decimals; none for a decided score.
pub fn winrate(score: i32) -> Option<String> {
    (score.abs() < DECIDED)
        .then(|| format!("{:.2}", 100.0 / (1.0 + (-f64::from(score) / 330.0).exp())))
}

/// The score whose winrate is the result rate `p` (0..1): the inverse of
/// [`winrate`], kept within ±2,280.
pub fn score_of_rate(p: f64) -> i32 {
    let p = p.clamp(0.001, 0.999);
    (330.0 * (p / (1.0 - p)).ln()).round() as i32
}

/// chessdb's bands below a position's best score: a move is good when it
/// scores at least `good`, best when it scores at least `best` as well.
/// Near a level position (best scores from -30 up to +75 for good, +50
/// for best) the bands reach a few points below the best score, as scores
/// there are uncertain; elsewhere only the best score itself is in them.
///
/// Unlike chessdb, a best score below -50 still has its best move: chessdb
/// then marks every move `?` and gives no best move, but our book scores
/// are results of human games, where the second player's usual 45 % is no
/// lost position.
#[derive(Clone, Copy, Debug, PartialEq)]
pub struct Bands {
    good: f64,
    best: f64,
}

impl Bands {
    /// The bands of a position whose best move scores `max`.
    pub fn below(max: i32) -> Bands {
        let m = f64::from(max);
        let near_level = |width: f64, scale: f64| m - width * sigmoid(m.abs() / scale);
        let good = if (-30..75).contains(&max) {
            near_level(10.0, 10.0)
        } else {
            m
        };
        let best = match max {
            1..50 => near_level(5.0, 20.0).max(1.0),
            -30..=0 => near_level(5.0, 20.0),
            _ => m,
        };
        Bands { good, best }
    }

    /// The rank of a move scoring `score`.
    pub fn rank(self, score: i32) -> Rank {
        let s = f64::from(score);
        if s >= self.good && s >= self.best {
            Rank::Best
        } else if s >= self.good {
            Rank::Good
        } else {
            Rank::Other
        }
    }
}

/// The logistic step `1 / (1 + e^(-x))` of chessdb's bands.
fn sigmoid(x: f64) -> f64 {
    1.0 / (1.0 + (-x).exp())
}

/// Games of the position's average result that every book move is
/// credited with before its own (see [`book_score`]).
pub const PRIOR_GAMES: f64 = 10.0;

/// How sure the lower bound of [`book_score`] is: 1.96 standard errors,
/// the bound a move's result rate stays above 97.5 % of the time.
pub const CONFIDENCE_Z: f64 = 1.96;

/// Games with a known result and the mover's points in them (a win 1, a
/// draw 1/2).
#[derive(Clone, Copy, Debug, Default, PartialEq)]
pub struct Results {
    pub games: f64,
    pub points: f64,
}

impl Results {
    /// The results of a book move.
    pub fn of(m: &BookMove) -> Results {
        Results {
            games: f64::from(m.wins + m.draws + m.losses),
            points: f64::from(m.wins) + 0.5 * f64::from(m.draws),
        }
    }

    /// The mover's average result, 1/2 without games.
    pub fn rate(self) -> f64 {
        if self.games > 0.0 {
            self.points / self.games
        } else {
            0.5
        }
    }
}

impl std::iter::Sum for Results {
    fn sum<I: Iterator<Item = Results>>(iter: I) -> Results {
        iter.fold(Results::default(), |a, b| Results {
            games: a.games + b.games,
            points: a.points + b.points,
        })
    }
}

/// The score of a book move with `results`, in a position whose moves
/// together have `position` (each for the side to move).
///
/// A result rate over few games says little: 3 wins of 3 games, or 63 %
/// over 87 games, are luck as much as merit next to 54 % over 15,000. So:
///
/// 1. the move's rate is drawn toward the position's average result by
///    [`PRIOR_GAMES`] imaginary games of that average (a Bayesian prior:
///    with no games the move is taken to be as good as the position's
///    moves on average);
/// 2. the score is the lower bound of that rate, [`CONFIDENCE_Z`]
///    standard errors below it, the error that of a rate over the move's
///    games and the imaginary ones, `sqrt(r (1 - r) / (n + k))` (a
///    draw counted as half a win: the widest spread a rate can have, as
///    the games of a book are not independent draws from one population:
///    the same players play the same lines).
///
/// The bound rises with the games behind a rate, so popularity counts: a
/// move must be played often to be credited with a high rate, and a move
/// played in thousands of games is ranked on its own results. The rate is
/// then written as the score whose chessdb winrate it is, so that the
/// `winrate` field reads as the result the move can be counted on to
/// reach.
pub fn book_score(results: Results, position: Results) -> i32 {
    let prior = position.rate();
    let games = results.games + PRIOR_GAMES;
    let rate = (results.points + PRIOR_GAMES * prior) / games;
    let error = (rate * (1.0 - rate) / games).sqrt();
    score_of_rate(rate - CONFIDENCE_Z * error)
}

/// A book move as the API gives it: its score and rank in its position.
#[derive(Clone, Copy, Debug, PartialEq)]
pub struct RankedBookMove {
    pub mv: Move,
    /// The book's weight of the move.
    pub weight: u32,
    /// Its games and results, where the book keeps them.
    pub stats: Option<BookMove>,
    /// For the side to move: the analysis's backed-up score in an analysed
    /// book, else [`book_score`] (0 for a move with a weight only).
    pub score: i32,
    pub rank: Rank,
    /// Whether the score is the analysis's (a search's, in centipawns).
    pub analysed: bool,
}

impl RankedBookMove {
    /// chessdb's note: the mark, then the games' wins-draws-losses (or
    /// the weight, for a book that keeps no results).
    pub fn note(&self) -> String {
        match self.stats {
            Some(s) => format!("{} ({}-{}-{})", self.rank.mark(), s.wins, s.draws, s.losses),
            // A move no game played, which the analysis added.
            None if self.analysed => format!("{} (analysis)", self.rank.mark()),
            None => format!("{} (weight {})", self.rank.mark(), self.weight),
        }
    }
}

/// The moves of one position in a book, best first: by [`book_score`],
/// then by weight, then by name; ranked by chessdb's [`Bands`] below the
/// best.
pub fn rank_book_moves(moves: &[WeightedMove]) -> Vec<RankedBookMove> {
    let position: Results = moves
        .iter()
        .filter_map(|m| m.stats.as_ref())
        .map(Results::of)
        .sum();
    let ranked: Vec<RankedBookMove> = moves
        .iter()
        .map(|m| RankedBookMove {
            mv: m.mv,
            weight: m.weight,
            stats: m.stats,
            score: m.stats.map_or(0, |s| book_score(Results::of(&s), position)),
            rank: Rank::Other,
            analysed: false,
        })
        .collect();
    order_and_rank(ranked)
}

/// Moves best score first (of equal scores, as a position's mirror-image
/// moves score alike, the heaviest first, then by name), ranked by
/// chessdb's [`Bands`] below the best.
fn order_and_rank(mut ranked: Vec<RankedBookMove>) -> Vec<RankedBookMove> {
    ranked.sort_by(|a, b| {
        b.score
            .cmp(&a.score)
            .then(b.weight.cmp(&a.weight))
            .then(a.mv.to_string().cmp(&b.mv.to_string()))
    });
    if let Some(max) = ranked.first().map(|m| m.score) {
        let bands = Bands::below(max);
        for m in &mut ranked {
            m.rank = bands.rank(m.score);
        }
    }
    ranked
}

/// The moves of `pos` in a book file, best first and ranked: by the
/// analysis where it knows the position (every move it scored, the ones it
/// added included), else by [`rank_book_moves`]; `None` when the book has
/// no move there.
///
/// # Errors
///
/// The book cannot be read.
pub fn book_file_moves(
    file: &BookFile,
    pos: &Position,
) -> Result<Option<Vec<RankedBookMove>>, BookError> {
    let moves = file.book.probe(pos)?;
    let ranked = match file.analysis.as_ref().and_then(|a| a.probe(pos)) {
        Some(analysis) => rank_analysed_moves(&analysis, &moves),
        None => rank_book_moves(&moves),
    };
    Ok((!ranked.is_empty()).then_some(ranked))
}

/// An analysed position's moves, best first, ranked by chessdb's
/// [`Bands`] below the best score, with the book's games where it has them.
pub fn rank_analysed_moves(
    analysis: &PositionAnalysis,
    moves: &[WeightedMove],
) -> Vec<RankedBookMove> {
    let ranked: Vec<RankedBookMove> = analysis
        .moves
        .iter()
        .map(|m| {
            let known = moves.iter().find(|b| b.mv == m.mv);
            RankedBookMove {
                mv: m.mv,
                weight: known.map_or(0, |b| b.weight),
                stats: known.and_then(|b| b.stats),
                // Both scales count a forced result's plies down from 30,000.
                score: i32::from(m.score),
                rank: Rank::Other,
                analysed: true,
            }
        })
        .collect();
    order_and_rank(ranked)
}

#[cfg(test)]
mod tests {
    use super::*;

    fn results(wins: u32, draws: u32, losses: u32) -> Results {
        Results::of(&BookMove {
            mv: Move::NULL,
            games: wins + draws + losses,
            wins,
            draws,
            losses,
        })
    }

    #[test]
    fn winrates_and_scores_invert() {
        assert_eq!(winrate(0).unwrap(), "50.00");
        assert_eq!(winrate(29_990), None);
        for s in [-500, -40, 0, 7, 300] {
            let w: f64 = winrate(s).unwrap().parse().unwrap();
            assert!((score_of_rate(w / 100.0) - s).abs() <= 1, "{s}");
        }
    }

    #[test]
    fn bands_follow_chessdb() {
        // A clear best move: only its score is good, and best.
        let clear = Bands::below(200);
        assert_eq!(clear.rank(200), Rank::Best);
        assert_eq!(clear.rank(199), Rank::Other);
        // Near level: a band of best, then of good, below the best.
        let level = Bands::below(10);
        assert_eq!(level.rank(10), Rank::Best);
        assert_eq!(level.rank(8), Rank::Best);
        assert_eq!(level.rank(5), Rank::Good);
        assert_eq!(level.rank(0), Rank::Other);
        // A positive best keeps best moves positive.
        assert_eq!(Bands::below(2).rank(0), Rank::Good);
        // A poor best score is still the best move's.
        assert_eq!(Bands::below(-80).rank(-80), Rank::Best);
        assert_eq!(Bands::below(-80).rank(-81), Rank::Other);
    }

    #[test]
    fn more_games_at_the_same_rate_score_higher() {
        let position = results(5_000, 3_000, 2_000);
        let few = book_score(results(6, 3, 1), position);
        let many = book_score(results(600, 300, 100), position);
        let most = book_score(results(6_000, 3_000, 1_000), position);
        assert!(few < many && many < most, "{few} {many} {most}");
    }

    #[test]
    fn a_few_lucky_games_do_not_beat_thousands() {
        // The start position of our book: b0a2 63 % over 87 games, h2e2
        // 54 % over 14,975, the position 56 % over 24,959.
        let position = results(9_280, 9_321, 6_358);
        let b0a2 = book_score(results(42, 26, 19), position);
        let h2e2 = book_score(results(5_671, 4_933, 4_367), position);
        assert!(h2e2 > b0a2, "{h2e2} {b0a2}");
        // No games: below the position's average, above its worst moves.
        let none = book_score(Results::default(), position);
        assert!(none < score_of_rate(position.rate()), "{none}");
        assert!(none > book_score(results(0, 10, 90), position), "{none}");
    }
}
