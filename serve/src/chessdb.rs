//! The chessdb.cn cloud database's query API (`chessdb.php`), answered
//! from our own data: the endgame tables first (exact, with distance to
//! mate), then the books (games and results), then a bounded engine search.
//!
//! Replies keep chessdb's shapes (docs/serve.md has the details and where
//! they come from): text entries `move:h2e2,score:1,rank:2,note:! (...),
//! winrate:50.08` joined by `|` and ended by a NUL byte, or with `json=1`
//! objects with a `status`. Scores are for the side to move; a mate in
//! `n` plies scores `30000 - n`. Our extension: `board` may end with
//! `moves` and moves played from the FEN.
//!
//! A position whose answer needs a table that cannot be read (a damaged
//! file) is `unknown`, the table named with the reason in the server's
//! log: neither the books nor the engine answer in the tables' place, as
//! their guess would read as if the position were known.

use xqbook::{BookFile, PositionAnalysis};
use xqcore::{Color, EndRules, Move, Outcome, Position, Role};
use xqegtb::{Answers, Dtc, ProbeError, Repetitions, Tablebase, Value, Wdl};
use xqengine::EvalPreference;

use crate::board::{parse_board, BoardError};
use crate::engine::{EngineError, EnginePool};
use crate::rank::{
    book_file_moves, dtc_order, dtm_order, table_finals, table_ranks, winrate, Pick, Rank,
    TableMove,
};
use crate::store::{Source, Store, StoreError};
use crate::tokens::Client;
use crate::workers;

pub use crate::library::{Library, Policy};
use crate::reply::{json_array, json_string, ordered_object, Style};
pub use crate::reply::{Params, Reply};

/// Mate scores: a mate in `n` plies scores `MATE_SCORE - n`.
pub const MATE_SCORE: i32 = 30_000;
/// The longest line the tables give, in plies.
pub(crate) const TABLE_LINE: usize = 128;

/// The actions answered.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum Action {
    QueryAll,
    QueryBest,
    Query,
    QuerySearch,
    QueryPv,
    QueryScore,
    QueryRule,
    /// How the rules end a game: a number.
    RuleCheck,
    QueryLearn,
    /// Put the position on the queue for analysis.
    Queue,
    /// Search the position now.
    QueryEngine,
    /// A worker's batch of queued positions.
    GetQueue,
    /// A worker done with its batch.
    AckQueue,
    /// A worker's score of one move.
    Store,
    /// The token a key makes for the client's address.
    GetToken,
    /// The client's address as the server sees it.
    GetIp,
}

impl Action {
    fn parse(name: &str) -> Option<Action> {
        Some(match name {
            "queryall" => Action::QueryAll,
            "querybest" => Action::QueryBest,
            "query" => Action::Query,
            "querysearch" => Action::QuerySearch,
            "querypv" => Action::QueryPv,
            "queryscore" => Action::QueryScore,
            "queryrule" => Action::QueryRule,
            "rulecheck" => Action::RuleCheck,
            "querylearn" => Action::QueryLearn,
            "queue" => Action::Queue,
            "queryengine" => Action::QueryEngine,
            "getqueue" => Action::GetQueue,
            "ackqueue" => Action::AckQueue,
            "store" => Action::Store,
            "gettoken" => Action::GetToken,
            "getip" => Action::GetIp,
            _ => return None,
        })
    }
}

/// One move as the API reports it.
#[derive(Clone, Debug, PartialEq)]
struct Entry {
    mv: Move,
    /// For the side to move; `None`: unknown (`??`).
    score: Option<i32>,
    rank: Rank,
    note: String,
}

/// What the first source that knows a position says.
struct Known {
    from_tables: bool,
    /// The scores are searches' (the store's or the engine's): their
    /// winrate is the engine's win-draw-loss model's, not chessdb's curve.
    searched: bool,
    /// Best first.
    entries: Vec<Entry>,
    /// The line from the position, best moves on both sides.
    pv: Vec<Move>,
    /// chessdb's `depth` of `querypv`: the line's length (the tables:
    /// the distance to mate).
    depth: i32,
    /// The tables' moves in chessdb's order (with `from_tables` only).
    table: Vec<TableMove>,
}

/// The tables' answers as the server gives them: under the Asian rules,
/// moves of equal value and material ranked by the engine's evaluation.
pub fn table_answers(tb: &Tablebase) -> Answers<'_> {
    tb.under(Repetitions::CheckAndChase)
        .preferring(EvalPreference::builtin())
}

/// Every legal move but the banned ones.
fn playable(pos: &Position, banned: &[Move]) -> Vec<Move> {
    pos.legal_moves()
        .iter()
        .copied()
        .filter(|m| !banned.contains(m))
        .collect()
}

/// What the tables say of a position: the moves in chessdb's order (its
/// `dtmcmp`, [`dtm_order`]; moves it takes for equals as the tables rank
/// them), each with its exact value, and the line after the first move.
pub(crate) struct TableAnswer {
    pub(crate) values: Vec<(Move, Value)>,
    /// Empty when `values` is.
    pub(crate) line: Vec<Move>,
}

/// A table an answer needs cannot be read; the server's log names it.
pub(crate) struct TablesDamaged;

/// The tables' answer for `pos` among `moves` (the API's one lookup, for
/// chessdb's queries and the board's alike): `Ok(None)` when the server
/// has no tables, or they do not hold the position and every move from
/// it.
///
/// # Errors
///
/// A table the answer needs cannot be read: the file is named in the
/// server's log (once), and nothing may answer in the tables' place.
pub(crate) fn table_answer(
    library: &Library,
    pos: &Position,
    moves: &[Move],
) -> Result<Option<TableAnswer>, TablesDamaged> {
    let Some(tb) = library.tables.as_deref() else {
        return Ok(None);
    };
    probe_tables(tb, pos, moves).map_err(|e| {
        library.log_table_error(&e);
        TablesDamaged
    })
}

/// [`table_answer`] from `tb`, the error as the tables give it.
fn probe_tables(
    tb: &Tablebase,
    pos: &Position,
    moves: &[Move],
) -> Result<Option<TableAnswer>, ProbeError> {
    let answers = table_answers(tb);
    let Some(values) = answers.rank(pos, moves)? else {
        return Ok(None);
    };
    let values = chessdb_order(pos, values, answers.value(pos)?);
    let line = match values.first() {
        Some(&(first, _)) => answers.line_after(pos, first, TABLE_LINE)?,
        None => Vec::new(),
    };
    Ok(Some(TableAnswer { values, line }))
}

/// The score of a table value for the side to move: `30000 - n` for a
/// mate in `n` plies, `n - 30000` for being mated in `n`, 0 for a draw.
fn table_score(value: Value) -> i32 {
    match value {
        Value::Draw => 0,
        Value::Win(d) => MATE_SCORE - i32::from(d),
        Value::Loss(d) => i32::from(d) - MATE_SCORE,
    }
}

/// A move of `pos` worth `value` as chessdb's table answers see it: its
/// score, whether it captures, whether it gives check.
fn table_move(pos: &Position, mv: Move, value: Value) -> TableMove {
    TableMove {
        mv,
        score: table_score(value),
        order: 0,
        capture: pos.board().piece_at(mv.to()).is_some(),
        check: pos.gives_check(mv),
    }
}

/// The tables' moves (as the tables rank them) in chessdb's order, the
/// position worth `position` (`None`: unknown, taken from its best move).
fn chessdb_order(
    pos: &Position,
    values: Vec<(Move, Value)>,
    position: Option<Value>,
) -> Vec<(Move, Value)> {
    let mut keyed: Vec<(TableMove, Value)> = values
        .into_iter()
        .map(|(mv, v)| (table_move(pos, mv, v), v))
        .collect();
    // On chessdb's scale a position counts one ply more than its best move.
    let position = match position {
        Some(Value::Win(d)) => MATE_SCORE - i32::from(d) - 1,
        Some(Value::Loss(d)) => i32::from(d) + 1 - MATE_SCORE,
        Some(Value::Draw) => 0,
        None => keyed.first().map_or(0, |m| m.0.score - m.0.score.signum()),
    };
    dtm_order(&mut keyed, position);
    keyed.into_iter().map(|(m, v)| (m.mv, v)).collect()
}

/// The tables' answer as chessdb gives it: every move's exact score, rank
/// and note (`None` when there is no move).
fn from_tables(pos: &Position, tables: TableAnswer) -> Option<Known> {
    let TableAnswer { values, line } = tables;
    let best = values.first()?.1;
    let table: Vec<TableMove> = values
        .iter()
        .map(|&(mv, v)| table_move(pos, mv, v))
        .collect();
    let entries: Vec<Entry> = values
        .iter()
        .zip(table_ranks(&table))
        .map(|(&(mv, v), rank)| {
            let outcome = match v {
                Value::Draw => 'D',
                Value::Win(_) => 'W',
                Value::Loss(_) => 'L',
            };
            let note = format!("{} ({outcome}-M-{:04})", rank.mark(), v.dtm().unwrap_or(0));
            Entry {
                mv,
                score: Some(table_score(v)),
                rank,
                note,
            }
        })
        .collect();
    Some(Known {
        from_tables: true,
        searched: false,
        depth: best.dtm().map_or(0, i32::from),
        entries,
        pv: line,
        table,
    })
}

/// What the tables say of a position by distance to conversion: its own
/// distance, every move with the distance of the position it leads to, in
/// chessdb's order ([`dtc_order`]), and the line of best moves.
pub(crate) struct DtcAnswer {
    pub(crate) root: Dtc,
    pub(crate) moves: Vec<(TableMove, Dtc)>,
    pub(crate) line: Vec<Move>,
}

/// [`table_answer`] by distance to conversion: `Ok(None)` also where a
/// table the position or a move leads into has no distance-to-conversion
/// file (the distance to mate answers then).
///
/// # Errors
///
/// As [`table_answer`].
pub(crate) fn dtc_answer(
    library: &Library,
    pos: &Position,
    moves: &[Move],
) -> Result<Option<DtcAnswer>, TablesDamaged> {
    let Some(tb) = library.tables.as_deref() else {
        return Ok(None);
    };
    let answer = || -> Result<Option<DtcAnswer>, ProbeError> {
        let Some((root, ordered)) = dtc_moves(tb, pos, moves)? else {
            return Ok(None);
        };
        let line = dtc_line(tb, pos, ordered.first().map(|m| m.0.mv))?;
        Ok(Some(DtcAnswer {
            root,
            moves: ordered,
            line,
        }))
    };
    answer().map_err(|e| {
        library.log_table_error(&e);
        TablesDamaged
    })
}

/// A position's distance to conversion, and each move with the distance
/// of the position it leads to.
type DtcMoves = (Dtc, Vec<(TableMove, Dtc)>);

/// The distance to conversion of `pos` and of what each of `moves` leads
/// to, in chessdb's order; `None` where one is missing.
fn dtc_moves(
    tb: &Tablebase,
    pos: &Position,
    moves: &[Move],
) -> Result<Option<DtcMoves>, ProbeError> {
    let Some(root) = tb.probe_dtc(pos)? else {
        return Ok(None);
    };
    let mut keyed = Vec::with_capacity(moves.len());
    let mut child = pos.clone();
    for &mv in moves {
        child.make_move(mv);
        let after = tb.probe_dtc(&child)?;
        child.unmake_move();
        let Some(after) = after else {
            return Ok(None);
        };
        let table_move = TableMove {
            mv,
            // The mover's view of the position the move leads to.
            score: -dtc_score(after),
            order: after.order,
            capture: pos.board().piece_at(mv.to()).is_some(),
            check: pos.gives_check(mv),
        };
        keyed.push((table_move, after));
    }
    dtc_order(&mut keyed, (dtc_score(root), root.order));
    Ok(Some((root, keyed)))
}

/// The line of best moves by distance to conversion from `pos`, starting
/// with `first`, until a position repeats or the tables end.
fn dtc_line(tb: &Tablebase, pos: &Position, first: Option<Move>) -> Result<Vec<Move>, ProbeError> {
    let mut line = Vec::new();
    let mut walk = pos.clone();
    let mut seen = vec![walk.key()];
    let mut next = first;
    while let Some(mv) = next {
        line.push(mv);
        walk.make_move(mv);
        if line.len() >= TABLE_LINE || seen.contains(&walk.key()) {
            break;
        }
        seen.push(walk.key());
        let moves = walk.legal_moves();
        next = dtc_moves(tb, &walk, &moves)?.and_then(|(_, m)| m.first().map(|m| m.0.mv));
    }
    Ok(line)
}

/// chessdb's score of a distance to conversion for the side to move:
/// `30000 - n` for a win whose stored value is `n` (plies plus one),
/// `20000 - n` in an order of the repetition rules, `n - 30000` (`n -
/// 20000`) for a loss, 0 for a draw.
fn dtc_score(dtc: Dtc) -> i32 {
    let base = if dtc.order > 0 { 20_000 } else { MATE_SCORE };
    let step = i32::from(dtc.plies) + 1;
    match dtc.wdl {
        Wdl::Win => base - step,
        Wdl::Loss => step - base,
        Wdl::Draw => 0,
    }
}

/// The tables' answer by distance to conversion as chessdb gives it:
/// every move's score, rank and note `(W-OO-SSS)` (the mover's result,
/// the order and the stored value of the position it leads to).
fn from_dtc(answer: DtcAnswer) -> Option<Known> {
    let DtcAnswer { moves, line, .. } = answer;
    let best = *moves.first()?;
    let table: Vec<TableMove> = moves.iter().map(|(m, _)| *m).collect();
    let step = |d: Dtc| if d.wdl == Wdl::Draw { 0 } else { d.plies + 1 };
    let entries = moves
        .iter()
        .zip(table_ranks(&table))
        .map(|(&(m, after), rank)| {
            let outcome = match m.score.signum() {
                1 => 'W',
                0 => 'D',
                _ => 'L',
            };
            Entry {
                mv: m.mv,
                score: Some(m.score),
                rank,
                note: format!(
                    "{} ({outcome}-{:02}-{:03})",
                    rank.mark(),
                    after.order,
                    step(after)
                ),
            }
        })
        .collect();
    Some(Known {
        from_tables: true,
        searched: false,
        depth: i32::from(step(best.1)),
        entries,
        pv: line,
        table,
    })
}

/// The first book's answer that has moves for the position: each move's
/// score from its games' results, the note its wins, draws and losses.
fn from_books(books: &[BookFile], pos: &Position, banned: &[Move]) -> Option<Known> {
    let entries = book_entries(books, pos, banned)?;
    // The book line: the best book move on both sides while the book has one.
    let mut line = Vec::new();
    let mut walk = pos.clone();
    while line.len() < 40 {
        let Some(best) = book_entries(books, &walk, &[]).and_then(|e| e.first().map(|e| e.mv))
        else {
            break;
        };
        line.push(best);
        walk.make_move(best);
    }
    if line.first() != entries.first().map(|e| &e.mv) {
        line = entries.first().map(|e| e.mv).into_iter().collect();
    }
    Some(Known {
        from_tables: false,
        searched: false,
        depth: line.len() as i32,
        entries,
        pv: line,
        table: Vec::new(),
    })
}

/// The first book's moves for `pos` (but `banned`), best first, as
/// [`book_file_moves`] ranks them: by the book's analysis where it has
/// one, else by the games.
fn book_entries(books: &[BookFile], pos: &Position, banned: &[Move]) -> Option<Vec<Entry>> {
    books.iter().find_map(|book| {
        let entries: Vec<Entry> = book_file_moves(book, pos)
            .ok()??
            .iter()
            .filter(|m| !banned.contains(&m.mv))
            .map(|m| Entry {
                mv: m.mv,
                score: Some(m.score),
                rank: m.rank,
                note: m.note(),
            })
            .collect();
        (!entries.is_empty()).then_some(entries)
    })
}

/// The engine's answer: its best move with its score and line.
async fn from_engine(
    engine: &EnginePool,
    pos: &Position,
    banned: &[Move],
) -> Result<Known, EngineError> {
    let a = engine.analyse(pos, banned).await?;
    let score = if a.score.abs() >= xqengine::MATE_BOUND {
        // The engine's mate scores count plies from the root as well.
        a.score.signum() * (MATE_SCORE - (xqengine::MATE - a.score.abs()))
    } else {
        a.score
    };
    let rank = Rank::among(score, score);
    let entries = vec![Entry {
        mv: a.pv[0],
        score: Some(score),
        rank,
        note: format!("{} (engine depth {})", rank.mark(), a.depth),
    }];
    Ok(Known {
        from_tables: false,
        searched: true,
        entries,
        depth: a.pv.len() as i32,
        pv: a.pv,
        table: Vec::new(),
    })
}

/// The queue's priority of a position a client asked to be analysed.
const QUEUE_PRIORITY: u8 = 2;
/// The queue's priority of an unknown position a client asked about.
const AUTO_PRIORITY: u8 = 1;
/// Stored positions around a queried one that its answer backs scores up
/// through (chessdb's query walks a few dozen).
const LEARN_AROUND: usize = 64;

/// The reply when the engine gave no answer.
fn engine_failure(e: &EngineError, style: Style) -> Reply {
    match e {
        EngineError::Busy(_) => style.word(503, "busy"),
        EngineError::NoMove => style.word(200, "nobestmove"),
        EngineError::Store(e) => style.word(503, &format!("Error: {e}")),
    }
}

/// chessdb's reply for a position it does not know: `unknown` where it
/// would give scores (with `showall`, `queryall` lists every legal move
/// scored `??` instead, as chessdb does), `nobestmove` where it would give
/// a move.
fn unknown(pos: &Position, action: Action, showall: bool, style: Style) -> Reply {
    match action {
        Action::QueryAll if showall => {
            let nothing = Known {
                from_tables: false,
                searched: false,
                entries: Vec::new(),
                pv: Vec::new(),
                depth: 0,
                table: Vec::new(),
            };
            all(pos, &nothing, true, style)
        }
        Action::QueryAll | Action::QueryPv | Action::QueryScore => style.word(200, "unknown"),
        _ => style.word(200, "nobestmove"),
    }
}

/// `queue`: the position put on the queue for analysis, once; `ok` also
/// when the store or the tables know it already (nothing to queue).
fn queue(library: &Library, pos: &Position, in_tables: bool, style: Style) -> Reply {
    if in_tables {
        return style.word(200, "ok");
    }
    match library.enqueue(pos, QUEUE_PRIORITY) {
        Ok(_) => style.word(200, "ok"),
        Err(e) => style.word(503, &format!("Error: {e}")),
    }
}

/// `queryengine`: a search now (of the position after `movelist`, moves
/// from the board joined by `|`, when given), `move:M`; the search's
/// result goes into the store.
async fn engine_move(
    library: &Library,
    mut pos: Position,
    banned: &[Move],
    params: &Params<'_>,
    style: Style,
) -> Reply {
    if let Some(list) = params.get("movelist").filter(|l| !l.is_empty()) {
        for text in list.split('|') {
            match pos.parse_move(text) {
                Ok(m) if pos.outcome(&EndRules::default()).is_none() => pos.make_move(m),
                _ => return style.word(200, "invalid movelist"),
            }
        }
        if pos.legal_moves().is_empty() {
            return style.word(200, "nobestmove");
        }
    }
    let banned: Vec<Move> = banned
        .iter()
        .copied()
        .filter(|m| pos.legal_moves().contains(m))
        .collect();
    let a = match library.engine.analyse(&pos, &banned).await {
        Ok(a) => a,
        Err(e) => return engine_failure(&e, style),
    };
    // A search among all the moves is what the position is worth; one
    // with moves banned is not.
    if banned.is_empty() {
        let score = a
            .score
            .clamp(-i32::from(xqbook::MATE), i32::from(xqbook::MATE)) as i16;
        let depth = a.depth.clamp(0, 255) as u8;
        let search = xqbook::Searched {
            score,
            best: a.pv[0],
            depth,
        };
        if let Err(e) =
            library
                .store
                .record(&pos, search, &[(a.pv[0], score, depth)], Source::Analysis)
        {
            eprintln!("xqserve: {e}");
        }
    }
    key_value(style, "move", &a.pv[0].to_string())
}

/// What the store knows of `pos`: its stored moves (but `banned`), each
/// scored by backing the stored scores up through the stored positions
/// around it (the backup of book analysis); with `learn`, the scores the
/// backup changed are written back. `None` when the store does not know
/// the position.
///
/// # Errors
///
/// The store cannot be read or written.
fn from_store(
    store: &Store,
    pos: &Position,
    banned: &[Move],
    learn: bool,
) -> Result<Option<Known>, StoreError> {
    let (key, mirrored) = xqbook::book_key(pos);
    let graph = store.graph_around(pos, LEARN_AROUND)?;
    let Some(search) = graph.searched.get(&key).copied() else {
        return Ok(None);
    };
    let analyses = xqbook::back_up(&graph, std::slice::from_ref(pos));
    let as_played =
        |a: &PositionAnalysis, mirrored: bool| if mirrored { a.mirror() } else { a.clone() };
    let analysis = match analyses.get(&key) {
        Some(a) => as_played(a, mirrored),
        // No stored move: the search's own.
        None => {
            let best = if mirrored {
                search.best.mirror()
            } else {
                search.best
            };
            if best == Move::NULL {
                return Ok(None);
            }
            PositionAnalysis {
                search: xqbook::Searched { best, ..search },
                value: search.score,
                moves: vec![xqbook::ScoredMove {
                    mv: best,
                    score: search.score,
                    depth: 1,
                    in_book: false,
                }],
            }
        }
    };
    if learn {
        learn_from(store, pos, &analysis)?;
    }
    let moves: Vec<&xqbook::ScoredMove> = analysis
        .moves
        .iter()
        .filter(|m| !banned.contains(&m.mv))
        .collect();
    let Some(max) = moves.first().map(|m| i32::from(m.score)) else {
        return Ok(None);
    };
    let entries = moves
        .iter()
        .map(|m| {
            let score = i32::from(m.score);
            let rank = Rank::among(score, max);
            // chessdb's note: the moves known after this one, and how many
            // of them are good there.
            let mut child = pos.clone();
            child.make_move(m.mv);
            let (known, good) = analyses
                .get(&xqbook::book_key(&child).0)
                .map_or((0, 0), |a| {
                    let max = a.moves.first().map_or(0, |m| i32::from(m.score));
                    let good = a
                        .moves
                        .iter()
                        .filter(|m| Rank::among(i32::from(m.score), max) >= Rank::Good)
                        .count();
                    (a.moves.len(), good)
                });
            Entry {
                mv: m.mv,
                score: Some(score),
                rank,
                note: format!("{} ({known:02}-{good:02})", rank.mark()),
            }
        })
        .collect();
    // The line: the best stored move on both sides while the store knows
    // the position.
    let mut line = Vec::new();
    let mut walk = pos.clone();
    while line.len() < 40 {
        let (key, mirrored) = xqbook::book_key(&walk);
        let Some(best) = analyses.get(&key).and_then(|a| a.moves.first()) else {
            break;
        };
        let best = if mirrored { best.mv.mirror() } else { best.mv };
        line.push(best);
        walk.make_move(best);
        if walk.repetition().is_some() {
            break;
        }
    }
    if line.first() != moves.first().map(|m| &m.mv) {
        line = moves.first().map(|m| m.mv).into_iter().collect();
    }
    Ok(Some(Known {
        from_tables: false,
        searched: true,
        entries,
        depth: line.len() as i32,
        pv: line,
        table: Vec::new(),
    }))
}

/// Writes back the scores of `analysis` (of `pos`, as it plays its moves)
/// that differ from the stored ones: what the store learned from the
/// positions the moves lead to.
fn learn_from(
    store: &Store,
    pos: &Position,
    analysis: &PositionAnalysis,
) -> Result<(), StoreError> {
    let Some(stored) = store.get(pos)? else {
        return Ok(());
    };
    let changed: Vec<(Move, i16)> = analysis
        .moves
        .iter()
        .filter(|m| {
            stored
                .moves
                .iter()
                .any(|s| s.mv == m.mv && s.score != m.score)
        })
        .map(|m| (m.mv, m.score))
        .collect();
    if changed.is_empty() {
        return Ok(());
    }
    store.learn(pos, &changed)
}

/// The moves of `ban=move:h2e2|move:b2e2` (or `ban=h2e2|b2e2`) legal in
/// `pos`; an entry that is no legal move is ignored, as chessdb ignores
/// it.
fn banned_moves(pos: &Position, ban: Option<&str>) -> Vec<Move> {
    ban.unwrap_or("")
        .split('|')
        .filter_map(|entry| {
            let text = entry.strip_prefix("move:").unwrap_or(entry);
            pos.parse_move(text).ok()
        })
        .collect()
}

/// `checkmate` or `stalemate` (both lost in xiangqi) for a side to move
/// with no move.
fn game_over(pos: &Position, style: Style) -> Reply {
    let word = if pos.in_check() {
        "checkmate"
    } else {
        "stalemate"
    };
    style.word(200, word)
}

/// chessdb's reply when no move is left to answer with (`moves`, the
/// legal moves but the banned ones, is empty): `queryall`, `querypv` and
/// `queryscore` say `checkmate` or `stalemate` when the side to move has
/// no move, `unknown` when every move is banned; the move choices say
/// `nobestmove`.
fn no_moves(pos: &Position, moves: &[Move], action: Action, style: Style) -> Option<Reply> {
    if !moves.is_empty() {
        return None;
    }
    Some(match action {
        Action::QueryAll
        | Action::QueryPv
        | Action::QueryScore
        | Action::QueryRule
        | Action::RuleCheck => {
            if pos.legal_moves().is_empty() {
                game_over(pos, style)
            } else {
                style.word(200, "unknown")
            }
        }
        Action::QueryBest
        | Action::Query
        | Action::QuerySearch
        | Action::QueryLearn
        | Action::Queue
        | Action::QueryEngine
        | Action::GetQueue
        | Action::AckQueue
        | Action::Store
        | Action::GetToken
        | Action::GetIp => style.word(200, "nobestmove"),
    })
}

/// Answers one query from this machine.
pub async fn answer(library: &Library, params: Params<'_>) -> Reply {
    answer_from(library, params, &Client::local()).await
}

/// Answers one query from `client`.
pub async fn answer_from(library: &Library, params: Params<'_>, client: &Client) -> Reply {
    let style = Style {
        json: params.flag("json"),
    };
    let Some(action) = params.get("action") else {
        return style.invalid_parameters();
    };
    let Some(action) = Action::parse(action) else {
        return style.invalid_parameters();
    };
    match action {
        Action::GetQueue => return workers::get_queue(library, &params, client),
        Action::AckQueue => return workers::ack_queue(library, &params, client),
        Action::GetToken => return workers::get_token(&params, client),
        Action::GetIp => return workers::plain(&client.address),
        _ => {}
    }
    // PHP's `empty`: a missing board, an empty one and `0`.
    let Some(board) = params.get("board").filter(|b| !b.is_empty() && *b != "0") else {
        return style.invalid_parameters();
    };
    let pos = match parse_board(board) {
        Ok(pos) => pos,
        Err(BoardError::TooLong(_)) => return style.word(414, "invalid board"),
        Err(_) => return style.word(200, "invalid board"),
    };
    if action == Action::QueryRule {
        return rule(&pos, &params, style);
    }
    if action == Action::RuleCheck {
        return rule_check(&pos, &params);
    }
    if action == Action::Store {
        return workers::store(library, &pos, &params, client, style);
    }
    if !library.allows(client) {
        return style.word(200, "rate limit exceeded");
    }
    let banned = banned_moves(&pos, params.get("ban"));
    let moves = playable(&pos, &banned);
    if let Some(reply) = no_moves(&pos, &moves, action, style) {
        return reply;
    }
    if action == Action::QueryEngine {
        return engine_move(library, pos, &banned, &params, style).await;
    }
    // A damaged table answers nothing, and nothing answers in its place:
    // the engine's guess would read as if the position were known.
    let tables = match table_answer(library, &pos, &moves) {
        Ok(tables) => tables,
        Err(TablesDamaged) => return style.word(200, "unknown"),
    };
    if action == Action::Queue {
        return queue(library, &pos, tables.is_some(), style);
    }
    let learn = params.flag_or("learn", true);
    // chessdb's `egtbmetric=dtc`: the distance to conversion where the
    // tables have it.
    let by_dtc = params
        .get("egtbmetric")
        .is_some_and(|m| m.eq_ignore_ascii_case("dtc"));
    let dtc = match by_dtc && tables.is_some() {
        true => match dtc_answer(library, &pos, &moves) {
            Ok(dtc) => dtc.and_then(from_dtc),
            Err(TablesDamaged) => return style.word(200, "unknown"),
        },
        false => None,
    };
    let mut known = dtc
        .or_else(|| tables.and_then(|t| from_tables(&pos, t)))
        .or_else(|| from_books(&library.books, &pos, &banned));
    if known.is_none() {
        known = match from_store(&library.store, &pos, &banned, learn) {
            Ok(k) => k,
            Err(e) => return style.word(503, &format!("Error: {e}")),
        };
    }
    let known = match known {
        Some(k) => k,
        None if library.policy.search_unknown => {
            match from_engine(&library.engine, &pos, &banned).await {
                Ok(k) => k,
                Err(e) => return engine_failure(&e, style),
            }
        }
        None => {
            // A position someone asks about is worth knowing: analysed
            // when the analysers have time (after any asked for by
            // `queue`), unless the client asks not to teach the server.
            if learn {
                if let Err(e) = library.enqueue(&pos, AUTO_PRIORITY) {
                    return style.word(503, &format!("Error: {e}"));
                }
            }
            return unknown(&pos, action, params.flag("showall"), style);
        }
    };
    match action {
        Action::QueryAll => all(&pos, &known, params.flag("showall"), style),
        Action::QueryBest | Action::Query | Action::QuerySearch | Action::QueryLearn => {
            choose(&pos, &known, action, style)
        }
        Action::QueryPv => pv(&known, style),
        Action::QueryScore => score(&known, style),
        Action::QueryRule
        | Action::RuleCheck
        | Action::Queue
        | Action::QueryEngine
        | Action::GetQueue
        | Action::AckQueue
        | Action::Store
        | Action::GetToken
        | Action::GetIp => unreachable!("answered above"),
    }
}

/// `queryall`: every move known, best first, as
/// `move:M,score:S,rank:R,note:N[,winrate:W]` joined by `|`, or JSON
/// `moves` of `uci`, `score`, `rank`, `note` and `winrate` in that order;
/// with `showall` (not from the tables, as chessdb) every other legal
/// move, banned ones included, with score `??`.
/// The winrate of a searched `score` of `mv` in `pos`, as the engine's
/// win-draw-loss model reads it (docs/wdl.md): the result the side that
/// plays it can expect, in percent (a draw counting half), two decimals;
/// none for a decided score, as chessdb gives none.
fn model_winrate(pos: &Position, mv: Move, score: i32) -> Option<String> {
    if score.abs() >= 10_000 {
        return None;
    }
    let mut after = pos.clone();
    after.make_move(mv);
    let view = xqengine::wdl::WdlView {
        material: xqengine::wdl::material(&after),
        net_scale: Some(xqengine::SearchConfig::default().params.net_scale),
    };
    let [w, d, _] = view.per_mille(score);
    Some(format!("{:.2}", (f64::from(w) + f64::from(d) / 2.0) / 10.0))
}

fn all(pos: &Position, known: &Known, showall: bool, style: Style) -> Reply {
    let mut entries = known.entries.clone();
    if showall && !known.from_tables {
        for &mv in pos.legal_moves().iter() {
            if !entries.iter().any(|e| e.mv == mv) {
                entries.push(Entry {
                    mv,
                    score: None,
                    rank: Rank::Other,
                    note: "? (??-??)".into(),
                });
            }
        }
    }
    let with_winrate = |e: &Entry| {
        if known.from_tables {
            None
        } else if known.searched {
            e.score.and_then(|s| model_winrate(pos, e.mv, s))
        } else {
            e.score.and_then(winrate)
        }
    };
    if style.json {
        let moves: Vec<String> = entries
            .iter()
            .map(|e| {
                let mut fields = vec![
                    ("uci", json_string(&e.mv.to_string())),
                    (
                        "score",
                        e.score.map_or(json_string("??"), |s| s.to_string()),
                    ),
                    ("rank", e.rank.number().to_string()),
                    ("note", json_string(&e.note)),
                ];
                if let Some(w) = with_winrate(e) {
                    fields.push(("winrate", json_string(&w)));
                }
                ordered_object(&fields)
            })
            .collect();
        return style.ok(&[("moves", json_array(&moves))]);
    }
    let text: Vec<String> = entries
        .iter()
        .map(|e| {
            let score = e.score.map_or("??".to_string(), |s| s.to_string());
            let mut t = format!(
                "move:{},score:{score},rank:{},note:{}",
                e.mv,
                e.rank.number(),
                e.note
            );
            if let Some(w) = with_winrate(e) {
                t.push_str(&format!(",winrate:{w}"));
            }
            t
        })
        .collect();
    style.text(200, &text.join("|"))
}

/// Whether `color` has anything that can give mate.
fn has_attackers(pos: &Position, color: Color) -> bool {
    [Role::Rook, Role::Horse, Role::Cannon, Role::Pawn]
        .iter()
        .any(|&r| pos.board().count_of(xqcore::Piece::new(color, r)) > 0)
}

/// One of `moves`, varied by the position (chessdb shuffles; a fixed
/// choice keeps our answers repeatable while a client walking a line
/// still meets variety).
fn one_of(pos: &Position, moves: &[Move]) -> Option<Move> {
    moves.get(pos.key() as usize % moves.len().max(1)).copied()
}

/// `querybest`, `query`, `querysearch` and `querylearn`, as chessdb
/// answers them: from the moves whose score reaches the action's throttle
/// below the best ([`Pick`]), `nobestmove` when the best score is below
/// -50 (-75 for `querylearn`).
fn choose(pos: &Position, known: &Known, action: Action, style: Style) -> Reply {
    if known.from_tables {
        return table_choice(pos, known, style);
    }
    let pick = match action {
        Action::QueryBest => Pick::Best,
        Action::QueryLearn => Pick::Learn,
        _ => Pick::Good,
    };
    let scored: Vec<(Move, i32)> = known
        .entries
        .iter()
        .filter_map(|e| Some((e.mv, e.score?)))
        .collect();
    let pool = pick.pool(&scored);
    if action == Action::QuerySearch && scored.len() > 1 {
        // Several moves known: the candidates for a search, a list even
        // of one.
        return search_list(&pool, style);
    }
    match one_of(pos, &pool) {
        Some(mv) => key_value(style, "move", &mv.to_string()),
        None => style.word(200, "nobestmove"),
    }
}

/// From the tables chessdb answers `querybest`, `query`, `querysearch` and
/// `querylearn` alike: one of the first moves in its order that are alike
/// in score, capture and check (`egtb:`), unless the first only draws
/// while the side to move still has a piece that could win: then every
/// drawing move at the head of the order is a candidate for a search.
fn table_choice(pos: &Position, known: &Known, style: Style) -> Reply {
    let Some(top) = known.table.first() else {
        return style.word(200, "nobestmove");
    };
    if top.score == 0 && has_attackers(pos, pos.turn()) {
        let draws: Vec<Move> = known
            .table
            .iter()
            .take_while(|m| m.score == 0)
            .map(|m| m.mv)
            .collect();
        return search_list(&draws, style);
    }
    let finals: Vec<Move> = table_finals(&known.table).iter().map(|m| m.mv).collect();
    match one_of(pos, &finals) {
        Some(mv) => key_value(style, "egtb", &mv.to_string()),
        None => style.word(200, "nobestmove"),
    }
}

/// `KEY:VALUE`, or JSON `{"status":"ok","KEY":"VALUE"}`.
fn key_value(style: Style, key: &str, value: &str) -> Reply {
    if style.json {
        style.ok(&[(key, json_string(value))])
    } else {
        style.text(200, &format!("{key}:{value}"))
    }
}

/// `search:M|search:M...`, or JSON `search_moves`; `nobestmove` for none.
fn search_list(moves: &[Move], style: Style) -> Reply {
    if moves.is_empty() {
        return style.word(200, "nobestmove");
    }
    if style.json {
        let moves: Vec<String> = moves
            .iter()
            .map(|m| ordered_object(&[("uci", json_string(&m.to_string()))]))
            .collect();
        return style.ok(&[("search_moves", json_array(&moves))]);
    }
    let text: Vec<String> = moves.iter().map(|m| format!("search:{m}")).collect();
    style.text(200, &text.join("|"))
}

/// `querypv`: `score:S,depth:D,pv:M|M...`, or JSON `score`, `depth`, `pv`.
fn pv(known: &Known, style: Style) -> Reply {
    let score = known.entries[0].score.unwrap_or(0);
    let line: Vec<String> = known.pv.iter().map(Move::to_string).collect();
    if style.json {
        let moves: Vec<String> = line.iter().map(|m| json_string(m)).collect();
        return style.ok(&[
            ("score", score.to_string()),
            ("depth", known.depth.to_string()),
            ("pv", json_array(&moves)),
        ]);
    }
    style.text(
        200,
        &format!("score:{score},depth:{},pv:{}", known.depth, line.join("|")),
    )
}

/// `queryscore`: `eval:S`, or JSON `eval` (chessdb's `ply`, the position's
/// distance from the start, we do not know).
fn score(known: &Known, style: Style) -> Reply {
    let score = known.entries[0].score.unwrap_or(0);
    if style.json {
        return style.ok(&[("eval", score.to_string())]);
    }
    style.text(200, &format!("eval:{score}"))
}

/// PHP's `intval` of a string: leading white space, a sign, digits, and a
/// fraction or exponent that make it a number (`1e1` is 10); 0 when it
/// starts with no number.
fn php_intval(text: &str) -> i64 {
    let s = text.trim_start_matches([' ', '\t', '\n', '\r', '\x0b', '\x0c']);
    let b = s.as_bytes();
    let digits = |from: usize| b[from..].iter().take_while(|c| c.is_ascii_digit()).count();
    let mut end = usize::from(matches!(b.first(), Some(b'+' | b'-')));
    let whole = digits(end);
    end += whole;
    let mut float = false;
    if b.get(end) == Some(&b'.') && (whole > 0 || digits(end + 1) > 0) {
        end += 1 + digits(end + 1);
        float = true;
    }
    if whole == 0 && !float {
        return 0;
    }
    if matches!(b.get(end), Some(b'e' | b'E')) {
        let sign = usize::from(matches!(b.get(end + 1), Some(b'+' | b'-')));
        let exponent = digits(end + 1 + sign);
        if exponent > 0 {
            end += 1 + sign + exponent;
            float = true;
        }
    }
    let number = &s[..end];
    if float {
        number.parse::<f64>().map_or(0, |f| f as i64)
    } else {
        number.parse::<i64>().unwrap_or(if number.starts_with('-') {
            i64::MIN
        } else {
            i64::MAX
        })
    }
}

/// `rulecheck`: `board` the start, `movelist=m1|m2|...` the game, legal
/// moves all; how the rules stand once it is played, a number: 0 the game
/// goes on, 1 drawn by repetition, 2 lost by the side to move (it checked
/// or chased throughout the cycle), 3 lost by the side that moved last
/// (likewise). A move list that is missing, too long or not legal gets
/// nothing, as chessdb answers it.
fn rule_check(start: &Position, params: &Params) -> Reply {
    let nothing = Reply {
        status: 200,
        body: "\0".into(),
        json: false,
    };
    let Some(list) = params.get("movelist").filter(|l| !l.is_empty()) else {
        return nothing;
    };
    let moves: Vec<&str> = list.split('|').collect();
    if moves.len() >= 2048 {
        return nothing;
    }
    let mut pos = start.clone();
    for text in moves {
        match pos.parse_move(text) {
            Ok(m) => pos.make_move(m),
            Err(_) => return nothing,
        }
    }
    let rules = EndRules {
        occurrences: 2,
        ..EndRules::default()
    };
    let number = match pos.outcome(&rules) {
        Some(Outcome::Repetition) => 1,
        Some(Outcome::PerpetualCheck { by } | Outcome::PerpetualChase { by }) => {
            if by == pos.turn() {
                2
            } else {
                3
            }
        }
        _ => 0,
    };
    Reply {
        status: 200,
        body: format!("{number}\0"),
        json: false,
    }
}

/// `queryrule`: `board` is the start, `movelist=m1|m2|...` the game (3
/// moves at least, as chessdb asks); for every legal move of the final
/// position, whether playing it draws by repetition (`draw`), loses by
/// perpetual check or chase (`ban`), or neither (`none`), with the
/// position seen `reptimes` times before (PHP's `intval` of it; 1 when it
/// is missing, `0` or outside 1..10) ending the game, as `xqengine judge`
/// rules.
fn rule(start: &Position, params: &Params, style: Style) -> Reply {
    // PHP's `empty`: a missing list, an empty one and `0`.
    let Some(list) = params
        .get("movelist")
        .filter(|l| !l.is_empty() && *l != "0")
    else {
        return style.word(200, "invalid movelist");
    };
    let texts: Vec<&str> = list.split('|').collect();
    if !(3..2047).contains(&texts.len()) {
        return style.word(200, "invalid movelist");
    }
    let mut pos = start.clone();
    for text in texts {
        match pos.parse_move(text) {
            Ok(m) => pos.make_move(m),
            Err(_) => return style.word(200, "invalid movelist"),
        }
    }
    if pos.legal_moves().is_empty() {
        return game_over(&pos, style);
    }
    let reptimes = params
        .get("reptimes")
        .filter(|r| !r.is_empty() && *r != "0")
        .map(php_intval)
        .filter(|r| (1..=10).contains(r))
        .unwrap_or(1) as usize;
    let rules = EndRules {
        occurrences: reptimes + 1,
        ..EndRules::default()
    };
    let mover = pos.turn();
    let rulings: Vec<(Move, &str)> = pos
        .legal_moves()
        .to_vec()
        .into_iter()
        .map(|m| {
            pos.make_move(m);
            let ruling = match pos.outcome(&rules) {
                Some(Outcome::PerpetualCheck { by } | Outcome::PerpetualChase { by })
                    if by == mover =>
                {
                    "ban"
                }
                Some(Outcome::Repetition) => "draw",
                _ => "none",
            };
            pos.unmake_move();
            (m, ruling)
        })
        .collect();
    if style.json {
        let moves: Vec<String> = rulings
            .iter()
            .map(|(m, r)| {
                ordered_object(&[
                    ("uci", json_string(&m.to_string())),
                    ("rule", json_string(r)),
                ])
            })
            .collect();
        return style.ok(&[("moves", json_array(&moves))]);
    }
    let text: Vec<String> = rulings
        .iter()
        .map(|(m, r)| format!("move:{m},rule:{r}"))
        .collect();
    style.text(200, &text.join("|"))
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn intval_reads_as_php_does() {
        // php 8.2's intval of each.
        for (text, want) in [
            ("1e1", 10),
            (" 3", 3),
            ("3abc", 3),
            ("1.9", 1),
            ("1e1abc", 10),
            ("\n5", 5),
            ("+4", 4),
            (".5e1", 5),
            ("5 ", 5),
            ("0x5", 0),
            ("9999999999999999999999", i64::MAX),
            ("1e", 1),
            ("1e+1", 10),
            ("\t7", 7),
            (" +2.9e0z", 2),
            ("-1", -1),
            ("", 0),
            ("abc", 0),
            ("-", 0),
            (".", 0),
        ] {
            assert_eq!(php_intval(text), want, "{text:?}");
        }
    }

    #[test]
    fn json_objects_keep_their_order() {
        assert_eq!(
            ordered_object(&[("status", json_string("ok")), ("eval", "3".into())]),
            r#"{"status":"ok","eval":3}"#
        );
        assert_eq!(json_string("a\"b"), r#""a\"b""#);
    }
}
