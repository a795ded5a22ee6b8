//! Endgame tables for the engine: the tables of the directories it is
//! given, and what to do at the root of a position they know. A won or
//! lost root is played from them at once, reported with the table's value
//! and line; a drawn one is searched among the moves that keep the draw,
//! and reported as the draw it is.

use std::path::{Path, PathBuf};
use std::sync::{Arc, OnceLock};
use std::time::Duration;

use xqcore::{Move, Position};
use xqegtb::{Answers, Preference, ProbeError, Repetitions, Tablebase, Value, Wdl};
use xqnnue::Network;

use crate::eval::Knowledge;
use crate::score::{table_score, Score};
use crate::search::{Reporter, SearchInfo};

/// The tables of the directories in `egtbpaths` (or the default ones),
/// registered when the directories change (files open on first probe).
#[derive(Default)]
pub struct Tables {
    /// The directories read when `egtbpaths` names none.
    defaults: Vec<PathBuf>,
    /// The `egtbpaths` the current set was registered for; `None`: none
    /// registered since the defaults were set.
    registered: Option<Vec<String>>,
    tablebase: Arc<Tablebase>,
}

impl Tables {
    /// Sets the directories read when `egtbpaths` names none; the tables
    /// are registered anew on the next [`Tables::get`].
    pub fn set_defaults(&mut self, defaults: Vec<PathBuf>) {
        self.defaults = defaults;
        self.registered = None;
    }

    /// Plays from `tablebase`, opened already, when `egtbpaths` names no
    /// directory (a server's tables, opened once for all its games).
    pub fn set_opened(&mut self, tablebase: Arc<Tablebase>) {
        self.defaults = Vec::new();
        self.registered = Some(Vec::new());
        self.tablebase = tablebase;
    }

    /// The tables of `paths` (none: the default directories), registering
    /// them anew if the directories changed. Directories that cannot be
    /// read are reported in `messages`.
    pub fn get(&mut self, paths: &[String], messages: &mut Vec<String>) -> Arc<Tablebase> {
        if self.registered.as_deref() != Some(paths) {
            self.tablebase = Arc::new(self.register(paths, messages));
            self.registered = Some(paths.to_vec());
        }
        self.tablebase.clone()
    }

    /// The tables of the directories `paths` names (none: the defaults).
    fn register(&self, paths: &[String], messages: &mut Vec<String>) -> Tablebase {
        let dirs: Vec<&Path> = if paths.is_empty() {
            self.defaults.iter().map(PathBuf::as_path).collect()
        } else {
            paths.iter().map(Path::new).collect()
        };
        let mut tb = Tablebase::new();
        for dir in dirs {
            if let Err(e) = tb.add_dir(dir) {
                messages.push(format!("egtbpaths: {}: {e}", dir.display()));
            }
        }
        tb
    }
}

/// What the tables say to do at the root.
#[derive(Clone, Debug, PartialEq)]
pub enum RootPlay {
    /// A won or lost position: play this move (fastest mate, or longest
    /// defence) at once. The value is the position's.
    Play(Move, Value),
    /// A drawn position: search only among these moves, which keep the
    /// draw and give no material away.
    Restrict(Vec<Move>),
    /// The tables do not cover every move here: search as usual.
    Search,
}

/// The longest line reported from the tables, in plies.
pub const MAX_LINE: usize = 128;

/// The engine's evaluation as the tables' last word among moves of equal
/// value and material: the static evaluation of the position a move leads
/// to, for the side that plays it.
pub struct EvalPreference {
    /// The net; `None`: the hand-crafted evaluation.
    net: Option<Arc<Network>>,
    knowledge: Knowledge,
}

impl EvalPreference {
    /// The preference of an engine evaluating with `net` (`None`: the
    /// hand-crafted evaluation at `knowledge`).
    pub fn new(net: Option<Arc<Network>>, knowledge: Knowledge) -> EvalPreference {
        EvalPreference { net, knowledge }
    }

    /// The preference of the engine's default evaluation, the built-in
    /// net: the one `egtbgen probe` and the server rank moves by.
    pub fn builtin() -> &'static EvalPreference {
        static BUILTIN: OnceLock<EvalPreference> = OnceLock::new();
        BUILTIN.get_or_init(|| {
            let net = Arc::new(Network::embedded().clone());
            EvalPreference::new(Some(net), Knowledge::Large)
        })
    }
}

impl Preference for EvalPreference {
    fn score(&self, pos: &Position, mv: Move) -> i32 {
        let mut after = pos.clone();
        after.make_move(mv);
        -crate::eval::static_eval(&after, self.net.as_deref(), self.knowledge)
    }
}

/// The longest start of `pv` along which the tables confirm the draw of
/// the root: each position it reaches is a drawn table position.
pub fn drawn_prefix(answers: Answers, pos: &Position, pv: &[Move]) -> Vec<Move> {
    let mut pos = pos.clone();
    let mut kept = Vec::new();
    for &mv in pv {
        if !pos.is_legal(mv) {
            break;
        }
        pos.make_move(mv);
        let value = answers.value(&pos).ok().flatten();
        if value.map(Value::wdl) != Some(Wdl::Draw) {
            break;
        }
        kept.push(mv);
    }
    kept
}

/// The root decision for `pos` among `root_moves` (legal, not banned),
/// by the tables' answers under the game's rules.
pub fn root_play(
    answers: Answers,
    pos: &Position,
    root_moves: &[Move],
) -> Result<RootPlay, ProbeError> {
    let tb = answers.tables();
    if tb.is_empty() || root_moves.is_empty() || pos.board().count() as usize > tb.max_pieces() {
        return Ok(RootPlay::Search);
    }
    let Some(best) = answers.best_of(pos, root_moves)? else {
        return Ok(RootPlay::Search);
    };
    let &(mv, value) = best.first().expect("root moves");
    Ok(match value.wdl() {
        Wdl::Draw => RootPlay::Restrict(best.iter().map(|&(m, _)| m).collect()),
        _ => RootPlay::Play(mv, value),
    })
}

/// What the tables decide at the root of a `go`.
pub(crate) enum TableRoot {
    /// A won or lost root: play the tables' move at once. Its line and
    /// score (on the search's scale) have been reported.
    Play {
        mv: Move,
        ponder: Option<Move>,
        score: i32,
    },
    /// Search among these moves, reporting to this reporter (at a drawn
    /// root one that reports the draw).
    Search {
        root_moves: Vec<Move>,
        reporter: Arc<dyn Reporter>,
    },
}

/// The tables' decision at `root` among `root_moves` (legal, not banned),
/// read under `rules` with `preference` as the last word among equal
/// moves. A table that cannot be read is reported, and the root searched.
pub(crate) fn decide_root(
    tables: &Arc<Tablebase>,
    rules: Repetitions,
    preference: &EvalPreference,
    root: &Position,
    root_moves: Vec<Move>,
    reporter: Arc<dyn Reporter>,
) -> TableRoot {
    let answers = tables.under(rules).preferring(preference);
    match root_play(answers, root, &root_moves) {
        Ok(RootPlay::Play(mv, value)) => play(answers, root, mv, value, reporter.as_ref()),
        Ok(RootPlay::Restrict(keep)) => TableRoot::Search {
            root_moves: keep,
            reporter: Arc::new(DrawnRoot {
                inner: reporter,
                tables: tables.clone(),
                root: root.clone(),
                rules,
            }),
        },
        Ok(RootPlay::Search) => TableRoot::Search {
            root_moves,
            reporter,
        },
        Err(e) => {
            reporter.message(&format!("endgame tables: {e}"));
            TableRoot::Search {
                root_moves,
                reporter,
            }
        }
    }
}

/// The tables' move at a won or lost root, reported with the position's
/// value and the line the tables play from it.
fn play(
    answers: Answers,
    root: &Position,
    mv: Move,
    value: Value,
    reporter: &dyn Reporter,
) -> TableRoot {
    let score = table_score(value);
    let pv = answers
        .line_after(root, mv, MAX_LINE)
        .unwrap_or_else(|_| vec![mv]);
    let depth = pv.len() as i32;
    reporter.info(&SearchInfo {
        depth,
        seldepth: depth,
        multipv: 1,
        score: Score::from_internal(score),
        raw_score: score,
        nodes: 0,
        time: Duration::ZERO,
        hashfull: 0,
        tbhits: pv.len() as u64,
        pv: pv.clone(),
    });
    TableRoot::Play {
        mv,
        ponder: pv.get(1).copied(),
        score,
    }
}

/// Reports a search among the moves that keep a table draw as the draw it
/// is: score 0, and the line cut where the tables no longer confirm the
/// draw (the search's own scores there are its evaluation's, which the
/// tables overrule).
struct DrawnRoot {
    inner: Arc<dyn Reporter>,
    tables: Arc<Tablebase>,
    root: Position,
    rules: Repetitions,
}

impl Reporter for DrawnRoot {
    fn info(&self, info: &SearchInfo) {
        let answers = self.tables.under(self.rules);
        let pv = drawn_prefix(answers, &self.root, &info.pv);
        let draw = table_score(Value::Draw);
        self.inner.info(&SearchInfo {
            score: Score::from_internal(draw),
            raw_score: draw,
            pv,
            ..info.clone()
        });
    }

    fn currmove(&self, mv: Move, number: usize, depth: i32) {
        self.inner.currmove(mv, number, depth);
    }

    fn message(&self, text: &str) {
        self.inner.message(text);
    }
}
