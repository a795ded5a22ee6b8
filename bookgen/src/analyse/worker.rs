//! What searches on one thread of the pool: our engine (one thread, a
//! cleared hash table before each search, so that a result depends on the
//! position alone) or another program; and the endgame tables, whose
//! exact value a position they hold takes instead of a search.

use xqbook::{book_key, move_key, Searched, MATE};
use xqcore::{Move, Position};
use xqengine::{Limits, SearchConfig, Searcher, Silent};

use super::searches::{Job, Searches};
use crate::budget::{as_stored, averaged_scores, Budget};
use crate::error::AnalyseError;

/// What searches on one thread: our engine, or another program.
pub(super) enum Worker {
    Ours(Box<Searcher>),
    External(Box<xqmatch::EngineProcess>),
}

impl Worker {
    pub(super) fn new(how: &Searches) -> Result<Worker, AnalyseError> {
        if let Some(spec) = &how.external {
            let engine = xqmatch::EngineProcess::start(spec)?;
            return Ok(Worker::External(Box::new(engine)));
        }
        let config = SearchConfig {
            egtb: how.tables.clone(),
            net: how.net.clone(),
            threads: 1,
            ..SearchConfig::default()
        };
        Ok(Worker::Ours(Box::new(Searcher::new(config, how.hash_mb))))
    }

    /// `job`'s results, under their keys, and the nodes they took (0 when
    /// another program searched): a position the tables hold takes their
    /// value.
    pub(super) fn make(
        &mut self,
        job: &Job,
        tables: Option<&xqegtb::Tablebase>,
    ) -> Result<(Vec<(u64, Searched)>, u64), AnalyseError> {
        let each_move = match job.budget {
            Budget::EachMove(depth) => Some((depth, 1)),
            Budget::EachMoveAveraged { depth, iterations } => Some((depth, iterations)),
            _ => None,
        };
        if let Some((depth, iterations)) = each_move {
            return self.score_moves(job.key, &job.pos, &job.moves, depth, iterations);
        }
        let result = match tables.and_then(|tb| from_tables(tb, &job.pos)) {
            Some(exact) => (exact, 0),
            None => self.search(&job.pos, job.budget)?,
        };
        Ok((vec![(job.key, result.0)], result.1))
    }

    /// The search of `met` at `budget`, as its book key stores it, and the
    /// nodes it took (0 when another program searched).
    ///
    /// The position is searched as its book key stores it (a mirror image
    /// turned round) and without the line that reached it: a search's move
    /// ordering is not mirror-symmetric, so this makes the result a
    /// function of the key alone, whichever image and line a run met first.
    fn search(&mut self, met: &Position, budget: Budget) -> Result<(Searched, u64), AnalyseError> {
        let stored = stored_image(met);
        if stored.legal_moves().is_empty() {
            let lost = Searched {
                score: -MATE,
                best: Move::NULL,
                depth: 0,
            };
            return Ok((lost, 0));
        }
        match self {
            Worker::Ours(searcher) => Ok(search_one(searcher, &stored, budget)),
            Worker::External(engine) => {
                crate::external::search(engine, &stored, budget).map(|searched| (searched, 0))
            }
        }
    }

    /// `moves` of `met` scored in one search to `depth`, each under
    /// [`move_key`] of `key` and the move as stored, with the nodes it
    /// took; searched as the book key stores the position, as
    /// [`Worker::search`] does.
    fn score_moves(
        &mut self,
        key: u64,
        met: &Position,
        moves: &[Move],
        depth: u32,
        iterations: u32,
    ) -> Result<(Vec<(u64, Searched)>, u64), AnalyseError> {
        let mirrored = book_key(met).1;
        let stored = stored_image(met);
        let moves: Vec<Move> = moves
            .iter()
            .map(|&m| if mirrored { m.mirror() } else { m })
            .collect();
        let (scores, nodes) = match self {
            Worker::Ours(searcher) => {
                score_moves_ours(searcher, &stored, &moves, depth, iterations)
            }
            Worker::External(engine) => (
                crate::external::score_moves(engine, &stored, &moves, depth, iterations)?,
                0,
            ),
        };
        let results = scores
            .into_iter()
            .map(|(mv, searched)| (move_key(key, mv), searched))
            .collect();
        Ok((results, nodes))
    }
}

/// `met` as its book key stores it: a mirror image turned round, without
/// the line that reached it.
fn stored_image(met: &Position) -> Position {
    let image = if book_key(met).1 {
        met.mirror()
    } else {
        met.clone()
    };
    Position::from_fen(&image.fen()).expect("a position's own FEN")
}

/// The depth recorded for a position the endgame tables hold: their value
/// is exact.
pub const TABLES_DEPTH: u8 = u8::MAX;

/// The tables' value and best move of `met` (under the Asian rules, as
/// the server answers), as its book key stores them, when they hold it.
fn from_tables(tb: &xqegtb::Tablebase, met: &Position) -> Option<Searched> {
    let answers = tb
        .under(xqegtb::Repetitions::CheckAndChase)
        .preferring(xqengine::EvalPreference::builtin());
    let (best, value) = answers.best_move(met).ok()??;
    // A forced result `d` plies away, as the search scores a mate; a
    // result of the repetition rules (counted from far beyond any mate)
    // stays beyond the decided bound.
    let far = |d: u16| MATE - d.min(999) as i16;
    let score = match value {
        xqegtb::Value::Win(d) => far(d),
        xqegtb::Value::Loss(d) => -far(d),
        xqegtb::Value::Draw => 0,
    };
    let best = if book_key(met).1 { best.mirror() } else { best };
    Some(Searched {
        score,
        best,
        depth: TABLES_DEPTH,
    })
}

/// Our search of `pos`, a position as its book key stores it with a legal
/// move, and its nodes.
fn search_one(searcher: &mut Searcher, pos: &Position, budget: Budget) -> (Searched, u64) {
    searcher.new_game();
    let r = searcher.search(pos, &budget.limits(), &Silent);
    let searched = as_stored(r.score, r.best.unwrap_or(Move::NULL), r.depth);
    (searched, r.nodes)
}

/// The lines of a MultiPV search as it reports them at the end of each
/// iteration: depth, score and first move.
#[derive(Default)]
struct Lines(std::sync::Mutex<Vec<(i32, i32, Move)>>);

impl xqengine::Reporter for Lines {
    fn info(&self, info: &xqengine::SearchInfo) {
        if let Some(&mv) = info.pv.first() {
            let mut lines = self.0.lock().expect("no panic while held");
            lines.push((info.depth, info.raw_score, mv));
        }
    }
}

/// Our one search of `pos` (as its book key stores it) among `moves`, to
/// `depth`, with a line for each (MultiPV): each move's score as
/// [`averaged_scores`] makes it of its last `iterations` depths, and the
/// nodes.
fn score_moves_ours(
    searcher: &mut Searcher,
    pos: &Position,
    moves: &[Move],
    depth: u32,
    iterations: u32,
) -> (Vec<(Move, Searched)>, u64) {
    let single = searcher.config().clone();
    searcher.set_config(SearchConfig {
        multipv: moves.len(),
        ..single.clone()
    });
    searcher.new_game();
    let limits = Limits {
        search_moves: moves.to_vec(),
        ..Limits::depth(depth)
    };
    let lines = Lines::default();
    let r = searcher.search(pos, &limits, &lines);
    searcher.set_config(single);
    let lines = lines.0.into_inner().expect("no panic while held");
    (averaged_scores(&lines, iterations), r.nodes)
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn positions_the_tables_hold_take_their_exact_value() {
        let dir = tempfile::tempdir().unwrap();
        let krk: xqegtb::Material = "KRK".parse().unwrap();
        egtbgen::build(dir.path(), &egtbgen::plan(&[krk]), &|_| {}).unwrap();
        let mut tb = xqegtb::Tablebase::new();
        tb.add_dir(dir.path()).unwrap();
        // The rook mates; its mirror image is stored with the mirrored move.
        let pos = Position::from_fen("3k5/9/9/9/9/9/9/9/4R4/4K4 w").unwrap();
        let found = from_tables(&tb, &pos).unwrap();
        assert!(found.score > xqbook::DECIDED, "{found:?}");
        assert_eq!(found.depth, TABLES_DEPTH);
        let mirrored = from_tables(&tb, &pos.mirror()).unwrap();
        assert_eq!(mirrored.score, found.score);
        let (stored, mirror_stored) = (book_key(&pos), book_key(&pos.mirror()));
        assert_eq!(stored.0, mirror_stored.0);
        assert_eq!(found.best, mirrored.best);
        // Black to move, a rook down: lost, by as many plies less one.
        let black = Position::from_fen("3k5/9/9/9/9/9/9/9/4R4/4K4 b").unwrap();
        assert!(from_tables(&tb, &black).unwrap().score < -xqbook::DECIDED);
        // A position of other material is the search's.
        assert!(from_tables(&tb, &Position::start()).is_none());
    }
}
