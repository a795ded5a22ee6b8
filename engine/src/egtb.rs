//! Endgame tables for the engine: which directories to use, and what to do
//! at the root of a position the tables know.

use std::path::{Path, PathBuf};
use std::sync::Arc;

use xqcore::{Move, Position};
use xqegtb::{ProbeError, Repetitions, Tablebase, Value, Wdl};

/// Where tables are looked for when `egtbpaths` is not set.
pub const DEFAULT_EGTB_DIR: &str = "data/egtb";

/// The default table directory: data/egtb under the working directory, or
/// under the directory of the executable or its ancestors (as the default
/// book is found).
pub fn default_dir() -> Option<PathBuf> {
    crate::book::find_data(DEFAULT_EGTB_DIR, Path::is_dir)
}

/// The tables a tool's `--tables` option names: `none` for none, a
/// directory, or (no option) the default directory when there is one.
/// Returns the tables with the directory they came from; an unreadable
/// directory is an error naming it.
pub fn open_tables_option(
    option: Option<&Path>,
) -> Result<Option<(Arc<Tablebase>, PathBuf)>, String> {
    let dir = match option {
        Some(dir) if dir.as_os_str() == "none" => return Ok(None),
        Some(dir) => dir.to_path_buf(),
        None => match default_dir() {
            Some(dir) => dir,
            None => return Ok(None),
        },
    };
    let mut tb = Tablebase::new();
    tb.add_dir(&dir)
        .map_err(|e| format!("{}: {e}", dir.display()))?;
    Ok(Some((Arc::new(tb), dir)))
}

/// The tables of the directories in `egtbpaths`, registered when the
/// paths change (files open on first probe).
#[derive(Default)]
pub struct Tables {
    /// The paths the current set was registered from.
    registered: Option<Vec<String>>,
    tablebase: Arc<Tablebase>,
}

impl Tables {
    /// The tables of `paths` (empty: the default directory), registering
    /// them anew if the paths changed. Directories that cannot be read are
    /// reported in `messages`.
    pub fn get(&mut self, paths: &[String], messages: &mut Vec<String>) -> Arc<Tablebase> {
        if self.registered.as_deref() != Some(paths) {
            let dirs: Vec<PathBuf> = if paths.is_empty() {
                default_dir().into_iter().collect()
            } else {
                paths.iter().map(PathBuf::from).collect()
            };
            let mut tb = Tablebase::new();
            for dir in dirs {
                if let Err(e) = tb.add_dir(&dir) {
                    messages.push(format!("egtbpaths: {}: {e}", dir.display()));
                }
            }
            self.tablebase = Arc::new(tb);
            self.registered = Some(paths.to_vec());
        }
        self.tablebase.clone()
    }
}

/// What the tables say to do at the root.
#[derive(Clone, Debug, PartialEq)]
pub enum RootPlay {
    /// A won or lost position: play this move (fastest mate, or longest
    /// defence) at once. The value is the position's.
    Play(Move, Value),
    /// A drawn position: search only among these moves, which keep the draw.
    Restrict(Vec<Move>),
    /// The tables do not cover every move here: search as usual.
    Search,
}

/// The longest line reported from the tables, in plies.
const MAX_LINE: usize = 128;

/// The tables' value of each of `moves` at `pos`, read under `rules`;
/// `None` when a move leads out of the tables.
fn values_under(
    tb: &Tablebase,
    pos: &Position,
    moves: &[Move],
    rules: Repetitions,
) -> Result<Option<Vec<(Move, Value)>>, ProbeError> {
    Ok(tb.move_values(pos, moves)?.map(|scored| {
        scored
            .into_iter()
            .map(|(m, v)| (m, v.under(rules)))
            .collect()
    }))
}

/// The tables' best move at `pos` and the value it leads to: the fastest
/// mate, the longest defence, or a move that keeps the draw; `None` when
/// the side to move has no move, or a move leads out of the tables.
fn best_by_tables(tb: &Tablebase, pos: &Position, rules: Repetitions) -> Option<(Move, Value)> {
    values_under(tb, pos, &pos.legal_moves(), rules)
        .ok()??
        .into_iter()
        .reduce(|a, b| if b.1.better_than(a.1) { b } else { a })
}

/// The line the tables play from `pos` after `first`: both sides' best
/// moves, to the mate (or to the first repetition, for a result of the
/// repetition rules), at most [`MAX_LINE`] plies.
pub fn table_line(tb: &Tablebase, pos: &Position, first: Move, rules: Repetitions) -> Vec<Move> {
    let mut line = vec![first];
    let mut pos = pos.clone();
    pos.make_move(first);
    while line.len() < MAX_LINE && pos.repetition().is_none() {
        let Some((mv, _)) = best_by_tables(tb, &pos, rules) else {
            break;
        };
        pos.make_move(mv);
        line.push(mv);
    }
    line
}

/// The longest start of `pv` along which the tables confirm the draw of
/// `pos`: each position it reaches is a drawn table position (results of
/// repetition rules that do not apply count as draws).
pub fn drawn_prefix(tb: &Tablebase, pos: &Position, pv: &[Move], rules: Repetitions) -> Vec<Move> {
    let mut pos = pos.clone();
    let mut kept = Vec::new();
    for &mv in pv {
        if !pos.is_legal(mv) {
            break;
        }
        pos.make_move(mv);
        let value = tb.probe(&pos).ok().flatten();
        let value = value.map(|v| v.under(rules));
        if value.map(Value::wdl) != Some(Wdl::Draw) {
            break;
        }
        kept.push(mv);
    }
    kept
}

/// The root decision for `pos` among `root_moves` (legal, not banned).
/// `rules`: the repetition rules the game is played under; the tables'
/// results by rules that do not apply count as draws.
pub fn root_play(
    tb: &Tablebase,
    pos: &Position,
    root_moves: &[Move],
    rules: Repetitions,
) -> Result<RootPlay, ProbeError> {
    if tb.is_empty() || root_moves.is_empty() || pos.board().count() as usize > tb.max_pieces() {
        return Ok(RootPlay::Search);
    }
    let Some(scored) = values_under(tb, pos, root_moves, rules)? else {
        return Ok(RootPlay::Search);
    };
    let &(best, value) = scored
        .iter()
        .reduce(|a, b| if b.1.better_than(a.1) { b } else { a })
        .expect("root moves");
    Ok(match value.wdl() {
        Wdl::Draw => RootPlay::Restrict(
            scored
                .iter()
                .filter(|(_, v)| v.wdl() == Wdl::Draw)
                .map(|&(m, _)| m)
                .collect(),
        ),
        _ => RootPlay::Play(best, value),
    })
}
