//! How moves are marked and ordered: chessdb's ranks (`!` best, `*`
//! good, `?` the rest) and its throttles below the best score, its order
//! of table moves, and the score
//! of a book move from its games, the one ranking that both the chessdb
//! API and the board's book pane (`/api/book`) give.

use std::cmp::Ordering;
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

/// chessdb's `getthrottle`: the least score of a good move (`*`, rank 1)
/// in a position whose best move scores `max`, the moves `query` and
/// `querysearch` choose among. From +75 up only the best score; from -30
/// up to +75 a band below the best, `10 / (1 + e^(-|max| / 10))` wide,
/// narrowing from +50 to nothing at +75; from -50 to -30 the band's floor
/// slides linearly from -50 to its value at -30; at -50 and below, -50
/// (so below -50 no move is good, not even the best).
pub fn throttle(max: i32) -> f64 {
    const UPPER_MAX: f64 = 75.0;
    const UPPER_MIN: f64 = 50.0;
    const LOWER_MAX: f64 = -30.0;
    const LOWER_MIN: f64 = -50.0;
    let m = f64::from(max);
    if m >= UPPER_MAX {
        m
    } else if m >= LOWER_MAX {
        let t = m - 10.0 / (1.0 + (-m.abs() / 10.0).exp());
        if m > UPPER_MIN {
            t + (m - UPPER_MIN) / (UPPER_MAX - UPPER_MIN) * (m - t)
        } else {
            t
        }
    } else if m > LOWER_MIN {
        let at_lower_max = LOWER_MAX - 10.0 / (1.0 + (-LOWER_MAX.abs() / 10.0).exp());
        LOWER_MIN + (m - LOWER_MIN) / (LOWER_MAX - LOWER_MIN) * (at_lower_max - LOWER_MIN)
    } else {
        LOWER_MIN
    }
}

/// chessdb's `getbestthrottle`: the least score of a best move (`!`,
/// rank 2, with [`throttle`] as well), the moves `querybest` chooses
/// among. From -30 up to +50 a band `5 / (1 + e^(-|max| / 20))` below the
/// best, kept at 1 or more when the best is positive; elsewhere the best
/// score itself.
pub fn best_throttle(max: i32) -> f64 {
    let m = f64::from(max);
    if (-30..50).contains(&max) {
        let t = m - 5.0 / (1.0 + (-m.abs() / 20.0).exp());
        if max > 0 {
            t.max(1.0)
        } else {
            t
        }
    } else {
        m
    }
}

/// chessdb's `getlearnthrottle`: the least score of the moves `querylearn`
/// chooses among. From -30 up to +50 a band `40 / (1 + e^(-|max| / 10))`
/// below the best; from +50 up the best score; below -30, -75.
pub fn learn_throttle(max: i32) -> f64 {
    let m = f64::from(max);
    if max >= 50 {
        m
    } else if max >= -30 {
        m - 40.0 / (1.0 + (-m.abs() / 10.0).exp())
    } else {
        -75.0
    }
}

impl Rank {
    /// chessdb's rank (`queryall`) of a move scoring `score` in a position
    /// whose best move scores `max`: best when it reaches both
    /// [`throttle`] and [`best_throttle`], good when it reaches
    /// [`throttle`], else neither. Below a best score of -50 no move is
    /// either, the best included.
    pub fn among(score: i32, max: i32) -> Rank {
        let s = f64::from(score);
        let good = throttle(max);
        if s >= good && s >= best_throttle(max) {
            Rank::Best
        } else if s >= good {
            Rank::Good
        } else {
            Rank::Other
        }
    }
}

/// How one of chessdb's move choices picks from scored moves.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum Pick {
    /// `querybest`: the moves from [`best_throttle`] up.
    Best,
    /// `query` and `querysearch`: the moves from [`throttle`] up.
    Good,
    /// `querylearn`: the moves from [`learn_throttle`] up.
    Learn,
}

impl Pick {
    /// The least best score with a move to give: below it the answer is
    /// `nobestmove` (-50; -75 for `querylearn`).
    pub fn floor(self) -> i32 {
        match self {
            Pick::Learn => -75,
            Pick::Best | Pick::Good => -50,
        }
    }

    /// The least score of a candidate in a position whose best move
    /// scores `max`.
    pub fn throttle(self, max: i32) -> f64 {
        match self {
            Pick::Best => best_throttle(max),
            Pick::Good => throttle(max),
            Pick::Learn => learn_throttle(max),
        }
    }

    /// The candidates among `moves` (each with its score, in any order),
    /// in the order given; empty when there is none, or the best score is
    /// below [`Pick::floor`] (`nobestmove`).
    pub fn pool<T: Copy>(self, moves: &[(T, i32)]) -> Vec<T> {
        let Some(max) = moves.iter().map(|m| m.1).max() else {
            return Vec::new();
        };
        if max < self.floor() {
            return Vec::new();
        }
        let least = self.throttle(max);
        moves
            .iter()
            .filter(|m| f64::from(m.1) >= least)
            .map(|m| m.0)
            .collect()
    }
}

/// A move of the endgame tables as chessdb orders and ranks them: its
/// score for the side to move (`30000 - n` for a mate in `n` plies, `0` a
/// draw; by distance to conversion `30000 - n`, or `20000 - n` for a result
/// of the repetition rules, `n` the plies after the move plus one), the
/// order of a distance to conversion (0 by distance to mate), whether it
/// captures and whether it gives check.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub struct TableMove {
    pub mv: Move,
    pub score: i32,
    pub order: u8,
    pub capture: bool,
    pub check: bool,
}

impl TableMove {
    /// Whether chessdb takes the two moves for equals: the same score and
    /// order, and both or neither capturing, both or neither checking.
    pub fn alike(&self, other: &TableMove) -> bool {
        self.score == other.score
            && self.order == other.order
            && self.capture == other.capture
            && self.check == other.check
    }
}

/// chessdb's `dtmcmp`: whether `a` comes before `b` among the moves of a
/// position whose own score is `position`, on chessdb's scale, where a
/// position's score counts one ply more than its best move's (a position
/// lost in `n` plies, whose best move scores `n - 30000`, scores
/// `n + 1 - 30000`).
///
/// - In a lost position, when one move scores at least the position and the
///   other at least two below it, the first goes after the second: a move
///   that seems to hold out longer than the position's own value comes
///   after the moves that keep to it.
/// - Otherwise the higher score first; of equal scores, in a win a capture
///   first, then a move that does not check; in a draw or a loss a move
///   that does not check first, then, of two quiet moves, the one that
///   does not capture, of two checks, the capture.
pub fn dtm_cmp(a: &TableMove, b: &TableMove, position: i32) -> std::cmp::Ordering {
    use std::cmp::Ordering::{Greater, Less};
    let later_if = |a_later: bool| if a_later { Greater } else { Less };
    if position < 0
        && ((a.score >= position && b.score >= position - 2)
            || (b.score >= position && a.score >= position - 2))
    {
        return later_if(a.score >= position);
    }
    if a.score != b.score {
        return later_if(a.score < b.score);
    }
    if a.capture == b.capture {
        return a.check.cmp(&b.check);
    }
    if a.score > 0 {
        return later_if(!a.capture);
    }
    if a.check != b.check {
        return a.check.cmp(&b.check);
    }
    // Both quiet: the capture later; both checks: the capture first.
    later_if(a.capture != a.check)
}

/// Sorts `moves` as chessdb's `uasort` with [`dtm_cmp`] does: moves it
/// takes for equals keep their order (a stable insertion sort, which
/// stays sound however the comparison treats moves out of line with the
/// position's value).
pub fn dtm_order<T>(moves: &mut [(TableMove, T)], position: i32) {
    for i in 1..moves.len() {
        let mut j = i;
        while j > 0 && dtm_cmp(&moves[j - 1].0, &moves[j].0, position) == Ordering::Greater {
            moves.swap(j - 1, j);
            j -= 1;
        }
    }
}

/// chessdb's `dtccmp`: whether `a` comes before `b` among the moves of a
/// position whose own score and order are `position` (by distance to
/// conversion: `30000 - n`, or `20000 - n` in an order of the rules, for a
/// win in `n - 1` plies; `n - 30000` for a loss).
///
/// - In a decided position, when one move keeps the position's order and
///   scores at least the position, a move of its order comes first, and
///   of one order a move that keeps the score before a capture.
/// - Then of two captures or two quiet moves: of one order the higher
///   score, of equal scores the move that does not check; of other orders
///   a win before a draw before a loss, of equal scores the higher order,
///   in a win the lower order, in a loss the higher.
/// - Of a capture and a quiet move: the higher score, of equal scores the
///   move that does not check (a capture that checks before a quiet one
///   that checks, a quiet move before a capture); in a win the capture,
///   in a loss the quiet move.
pub fn dtc_cmp(a: &TableMove, b: &TableMove, (score, order): (i32, u8)) -> Ordering {
    use std::cmp::Ordering::{Equal, Greater, Less};
    let first_if = |a_first: bool| if a_first { Less } else { Greater };
    let opposite = |a: &TableMove, b: &TableMove| {
        (a.score >= 0 && b.score <= 0) || (a.score <= 0 && b.score >= 0)
    };
    if score != 0
        && ((a.order == order && a.score >= score) || (b.order == order && b.score >= score))
    {
        if a.order != b.order {
            return first_if(a.order == order);
        } else if a.capture != b.capture {
            return first_if(a.score >= score);
        }
    }
    if a.capture == b.capture {
        if a.order == b.order {
            if a.score == b.score {
                return if a.check != b.check {
                    first_if(!a.check)
                } else {
                    Equal
                };
            }
            return first_if(a.score > b.score);
        }
        if opposite(a, b) {
            if a.score == b.score {
                return first_if(a.order > b.order);
            }
            return first_if(a.score > b.score);
        }
        return if a.score > 0 {
            first_if(a.order <= b.order)
        } else {
            first_if(a.order > b.order)
        };
    }
    if opposite(a, b) {
        if a.score == b.score {
            if a.check != b.check {
                return first_if(!a.check);
            }
            return first_if(if a.capture { a.check } else { !a.check });
        }
        return first_if(a.score > b.score);
    }
    first_if(if a.score > 0 { a.capture } else { !a.capture })
}

/// Orders table moves as chessdb's `uasort` with [`dtc_cmp`] does for a
/// position of `position`'s score and order (an insertion sort, as PHP's
/// sort is for the few moves of a position).
pub fn dtc_order<T>(moves: &mut [(TableMove, T)], position: (i32, u8)) {
    for i in 1..moves.len() {
        let mut j = i;
        while j > 0 && dtc_cmp(&moves[j - 1].0, &moves[j].0, position) == Ordering::Greater {
            moves.swap(j - 1, j);
            j -= 1;
        }
    }
}

/// chessdb's ranks of table moves (in [`dtm_order`], the first the best),
/// as its `queryall` gives them: the first best (`!`), and every move
/// [`TableMove::alike`] it; then every other win good (`*`); a draw good
/// when the best draws, else neither (`?`); a loss good when the best
/// loses, else neither.
pub fn table_ranks(moves: &[TableMove]) -> Vec<Rank> {
    let Some(best) = moves.first() else {
        return Vec::new();
    };
    moves
        .iter()
        .map(|m| {
            if m.alike(best) {
                Rank::Best
            } else if m.score > 0
                || (m.score == 0 && best.score == 0)
                || (m.score < 0 && best.score < 0)
            {
                Rank::Good
            } else {
                Rank::Other
            }
        })
        .collect()
}

/// The moves chessdb's `querybest` picks from in the tables (in
/// [`dtm_order`]): the first and the moves right after it that are
/// [`TableMove::alike`] it.
pub fn table_finals(moves: &[TableMove]) -> &[TableMove] {
    let n = match moves.first() {
        Some(best) => moves.iter().take_while(|m| m.alike(best)).count(),
        None => 0,
    };
    &moves[..n]
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
/// then by weight, then by name; ranked by chessdb's [`throttle`] and
/// [`best_throttle`] below the best.
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
/// [`Rank::among`] below the best.
fn order_and_rank(mut ranked: Vec<RankedBookMove>) -> Vec<RankedBookMove> {
    ranked.sort_by(|a, b| {
        b.score
            .cmp(&a.score)
            .then(b.weight.cmp(&a.weight))
            .then(a.mv.to_string().cmp(&b.mv.to_string()))
    });
    if let Some(max) = ranked.first().map(|m| m.score) {
        for m in &mut ranked {
            m.rank = Rank::among(m.score, max);
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

/// An analysed position's moves, best first, ranked by [`Rank::among`]
/// below the best score, with the book's games where it has them.
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

    /// (best score, getthrottle, getbestthrottle, getlearnthrottle) as
    /// chessdb's PHP functions compute them (php 8.2, printed to 12
    /// decimals).
    const CHESSDB_THROTTLES: [(i32, f64, f64, f64); 39] = [
        (-30000, -50.0, -30000.0, -75.0),
        (-100, -50.0, -100.0, -75.0),
        (-76, -50.0, -76.0, -75.0),
        (-75, -50.0, -75.0, -75.0),
        (-74, -50.0, -74.0, -75.0),
        (-60, -50.0, -60.0, -75.0),
        (-51, -50.0, -51.0, -75.0),
        (-50, -50.0, -50.0, -75.0),
        (-49, -49.476287063411, -49.0, -75.0),
        (-45, -47.381435317056, -45.0, -75.0),
        (-40, -44.762870634112, -40.0, -75.0),
        (-35, -42.144305951168, -35.0, -75.0),
        (-31, -40.049454204813, -31.0, -75.0),
        (-30, -39.525741268224, -34.087872380968, -68.102965072897),
        (-29, -38.478464369216, -33.049992169923, -66.913857476863),
        (-20, -28.807970779779, -23.655292893150, -55.231883119115),
        (-10, -17.310585786300, -13.112296656009, -39.242343145200),
        (-5, -11.224593312019, -7.810882504429, -29.898373248074),
        (-1, -6.249791874789, -3.562486982421, -21.999167499158),
        (0, -5.0, -2.5, -20.0),
        (1, -4.249791874789, 1.0, -19.999167499158),
        (2, -3.498339973125, 1.0, -19.993359892499),
        (5, -1.224593312019, 2.189117495571, -19.898373248074),
        (10, 2.689414213700, 6.887703343991, -19.242343145200),
        (20, 11.192029220221, 16.344707106850, -15.231883119115),
        (30, 20.474258731776, 25.912127619032, -8.102965072897),
        (40, 30.179862099621, 35.596014610111, 0.719448398484),
        (49, 39.073915413443, 44.397192745920, 9.295661653771),
        (50, 40.066928509243, 50.0, 50.0),
        (51, 41.458174094319, 51.0, 51.0),
        (55, 47.032561101727, 55.0, 55.0),
        (60, 54.014835738940, 60.0, 60.0),
        (65, 61.006004729027, 65.0, 65.0),
        (70, 68.001822102389, 70.0, 70.0),
        (74, 73.600244351744, 74.0, 74.0),
        (75, 75.0, 75.0, 75.0),
        (76, 76.0, 76.0, 76.0),
        (100, 100.0, 100.0, 100.0),
        (29999, 29999.0, 29999.0, 29999.0),
    ];

    #[test]
    fn throttles_are_chessdbs() {
        for (max, good, best, learn) in CHESSDB_THROTTLES {
            for (name, ours, theirs) in [
                ("getthrottle", throttle(max), good),
                ("getbestthrottle", best_throttle(max), best),
                ("getlearnthrottle", learn_throttle(max), learn),
            ] {
                assert!(
                    (ours - theirs).abs() < 1e-9,
                    "{name}({max}): {ours} != {theirs}"
                );
            }
        }
    }

    #[test]
    fn ranks_follow_the_throttles() {
        // A clear best move: only its score is good, and best.
        assert_eq!(Rank::among(200, 200), Rank::Best);
        assert_eq!(Rank::among(199, 200), Rank::Other);
        // Near level: a band of best, then of good, below the best.
        assert_eq!(Rank::among(10, 10), Rank::Best);
        assert_eq!(Rank::among(7, 10), Rank::Best);
        assert_eq!(Rank::among(6, 10), Rank::Good);
        assert_eq!(Rank::among(3, 10), Rank::Good);
        assert_eq!(Rank::among(2, 10), Rank::Other);
        // A positive best keeps best moves positive.
        assert_eq!(Rank::among(0, 2), Rank::Good);
        // Between +50 and +75 the good band narrows to nothing.
        assert_eq!(Rank::among(55, 60), Rank::Good);
        assert_eq!(Rank::among(54, 60), Rank::Other);
        assert_eq!(Rank::among(73, 74), Rank::Other);
        // Between -50 and -30 the floor slides to -50; best is the best
        // score alone.
        assert_eq!(Rank::among(-40, -40), Rank::Best);
        assert_eq!(Rank::among(-44, -40), Rank::Good);
        assert_eq!(Rank::among(-45, -40), Rank::Other);
        // From -50 down nothing is good, the best included.
        assert_eq!(Rank::among(-50, -50), Rank::Best);
        assert_eq!(Rank::among(-51, -51), Rank::Other);
        assert_eq!(Rank::among(-80, -80), Rank::Other);
    }

    #[test]
    fn picks_follow_chessdbs_choices() {
        let moves = [("a", 10), ("b", 7), ("c", 3), ("d", -12)];
        assert_eq!(Pick::Best.pool(&moves), ["a", "b"]);
        assert_eq!(Pick::Good.pool(&moves), ["a", "b", "c"]);
        assert_eq!(Pick::Learn.pool(&moves), ["a", "b", "c", "d"]);
        // Below -50 (-75 to learn) there is no move to give.
        let poor = [("a", -60), ("b", -70), ("c", -80)];
        assert!(Pick::Best.pool(&poor).is_empty());
        assert!(Pick::Good.pool(&poor).is_empty());
        assert_eq!(Pick::Learn.pool(&poor), ["a", "b"]);
        assert_eq!(Pick::Good.pool(&[("a", -50)]), ["a"]);
        assert!(Pick::Learn.pool(&[("a", -76)]).is_empty());
    }

    fn table_move(n: u16, score: i32, capture: bool, check: bool) -> TableMove {
        TableMove {
            mv: Move::from_u16(n).unwrap(),
            score,
            order: 0,
            capture,
            check,
        }
    }

    /// The moves' numbers after [`dtm_order`].
    fn ordered(moves: &[TableMove], position: i32) -> Vec<u16> {
        let mut v: Vec<(TableMove, u16)> = moves.iter().zip(1..).map(|(m, i)| (*m, i)).collect();
        dtm_order(&mut v, position);
        v.into_iter().map(|m| m.1).collect()
    }

    #[test]
    fn table_moves_are_ordered_as_dtmcmp_orders_them() {
        // Wins: the fastest first; of equal speed a capture first, then a
        // move that does not check.
        let wins = [
            table_move(1, 29_990, false, true),
            table_move(2, 29_990, false, false),
            table_move(3, 29_990, true, true),
            table_move(4, 29_995, false, true),
            table_move(5, 29_990, true, false),
        ];
        assert_eq!(ordered(&wins, 29_994), [4, 5, 3, 2, 1]);
        // Draws: no check first; of two quiet moves the one that does not
        // capture, of two checks the capture; moves alike keep their order.
        let draws = [
            table_move(1, 0, true, true),
            table_move(2, 0, false, true),
            table_move(3, 0, true, false),
            table_move(4, 0, false, false),
            table_move(5, 0, false, false),
        ];
        assert_eq!(ordered(&draws, 0), [4, 5, 3, 1, 2]);
        // A lost position (scores one ply above its best move): a move that
        // seems to hold out longer than the position goes after the moves
        // that keep to its value.
        let lost = [
            table_move(1, -29_980, false, false),
            table_move(2, -29_989, false, false),
            table_move(3, -29_995, false, false),
        ];
        assert_eq!(ordered(&lost, -29_988), [2, 1, 3]);
        assert_eq!(ordered(&lost, -29_978), [1, 2, 3]);
    }

    #[test]
    fn table_ranks_and_finals_follow_chessdb() {
        let won = [
            table_move(1, 29_995, true, false),
            table_move(2, 29_995, true, false),
            table_move(3, 29_995, false, false),
            table_move(4, 29_990, false, false),
            table_move(5, 0, false, false),
            table_move(6, -29_990, false, false),
        ];
        use Rank::{Best, Good, Other};
        assert_eq!(table_ranks(&won), [Best, Best, Good, Good, Other, Other]);
        assert_eq!(table_finals(&won), &won[..2]);
        let drawn = [
            table_move(1, 0, false, false),
            table_move(2, 0, false, true),
            table_move(3, -29_990, false, false),
        ];
        assert_eq!(table_ranks(&drawn), [Best, Good, Other]);
        let lost = [
            table_move(1, -29_980, false, false),
            table_move(2, -29_980, false, true),
            table_move(3, -29_990, false, false),
        ];
        assert_eq!(table_ranks(&lost), [Best, Good, Good]);
        assert_eq!(table_finals(&lost), &lost[..1]);
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
