//! Our own JSON API, for the analysis board:
//!
//! - `GET /api/position?board=B`: the FEN, side to move, legal moves and
//!   the ruling and the result when the game is over.
//! - `GET /api/book?board=B`: the book moves with their games and results,
//!   scored and ranked as chessdb's `queryall` gives them ([`crate::rank`]).
//! - `GET /api/tables?board=B`: every move's exact value and the line to
//!   mate, when the tables hold the position (an error, 500, when a table
//!   they need cannot be read).
//! - `GET /api/analyse?board=B&lines=N&ms=T`: the engine's analysis with
//!   `N` lines, streamed as server-sent events while it thinks (`info`
//!   events, then `done`); under the same bound as chessdb's engine
//!   queries.
//! - `GET /api/levels`: the levels a game may be played at, with their
//!   measured Elo.
//! - `GET /api/play?board=B&level=L&time=T&inc=I&draw=1`: the engine's
//!   move in a game, at `level` (0-20, default 20), with `T` ms left on
//!   its clock and `I` ms added a move (no `time`: a second a move), the
//!   player offering a draw with `draw=1`; streamed as `info` events while
//!   it thinks, then `done` with the move and whether it accepts the draw
//!   or resigns.
//! - `POST /api/pgn`: the first game of a PGN text.
//! - `POST /api/review`: starts a review of the first game of a PGN text
//!   (its id); `GET /api/review/ID`: the review as it stands, each
//!   position judged by the tables, books or engine, each move's drop in
//!   expected score and its mark, and once done the review as PGN.
//!
//! `board` is read as in the chessdb API (a FEN, optionally `moves ...`).
//! Scores and results are for the side to move, as in chessdb's API.
//! Every error, a bad query, an unknown route or method, a body too
//! large, is JSON `{"error": reason}` with a 4xx or 503 status (500 for
//! a damaged table).

use std::convert::Infallible;
use std::sync::Arc;
use std::time::Duration;

use axum::body::Bytes;
use axum::extract::rejection::BytesRejection;
use axum::extract::{FromRequestParts, Query, State};
use axum::http::request::Parts;
use axum::http::StatusCode;
use axum::response::sse::{Event, Sse};
use axum::response::{IntoResponse, Response};
use axum::Json;
use serde::Deserialize;
use serde_json::json;
use tokio_stream::wrappers::UnboundedReceiverStream;
use tokio_stream::StreamExt;
use xqcore::{Move, Position};
use xqegtb::{Metric, Value, Wdl};
use xqengine::wdl::WdlView;
use xqengine::{Score, SearchInfo};

use crate::board::parse_board;
use crate::chessdb::{dtc_answer, table_answer, DtcAnswer, TablesDamaged};
use crate::library::Library;
use crate::rank::{book_file_moves, winrate};
use crate::review::Reviews;

/// Query parameters of the API.
#[derive(Deserialize)]
struct BoardQuery {
    board: String,
    /// Analysis lines (1..=5).
    lines: Option<usize>,
    /// Analysis time in milliseconds (at most 60,000).
    ms: Option<u64>,
    /// The tables' metric: `dtm` (the default) or `dtc`.
    metric: Option<String>,
}

/// The position a query asks about, with the analysis options. As an
/// extractor it refuses a query it cannot read, or a board that is not a
/// position, with a JSON error (400).
pub struct Board {
    pos: Position,
    lines: Option<usize>,
    ms: Option<u64>,
    metric: Metric,
}

impl<S: Send + Sync> FromRequestParts<S> for Board {
    type Rejection = Response;

    async fn from_request_parts(parts: &mut Parts, state: &S) -> Result<Board, Response> {
        let Query(q) = Query::<BoardQuery>::from_request_parts(parts, state)
            .await
            .map_err(|e| error(e.status(), e.body_text()))?;
        let pos = parse_board(&q.board).map_err(|e| error(StatusCode::BAD_REQUEST, e))?;
        let metric = match q.metric.as_deref() {
            None => Metric::Dtm,
            Some(m) => match m.parse() {
                Ok(metric @ (Metric::Dtm | Metric::Dtc)) => metric,
                _ => return Err(error(StatusCode::BAD_REQUEST, "metric: dtm or dtc")),
            },
        };
        Ok(Board {
            pos,
            lines: q.lines,
            ms: q.ms,
            metric,
        })
    }
}

/// An API error: `{"error": reason}` with `status`.
fn error(status: StatusCode, reason: impl std::fmt::Display) -> Response {
    (status, Json(json!({ "error": reason.to_string() }))).into_response()
}

/// Any other route under `/api/`.
pub async fn not_found() -> Response {
    error(StatusCode::NOT_FOUND, "no such API route")
}

/// A route asked with a method it does not take.
pub async fn method_not_allowed() -> Response {
    error(
        StatusCode::METHOD_NOT_ALLOWED,
        "method not allowed (GET, or POST for /api/pgn)",
    )
}

/// `/api/book`: the first book's moves, best first, with chessdb's
/// score, rank, note and winrate.
pub async fn book(State(library): State<Arc<Library>>, Board { pos, .. }: Board) -> Response {
    for b in &library.books {
        let Ok(Some(ranked)) = book_file_moves(b, &pos) else {
            continue;
        };
        let moves: Vec<_> = ranked
            .iter()
            .map(|m| {
                let stats = m.stats.map(|s| json!({ "games": s.games, "wins": s.wins, "draws": s.draws, "losses": s.losses }));
                json!({
                    "uci": m.mv.to_string(),
                    "weight": m.weight,
                    "stats": stats,
                    "score": m.score,
                    "rank": m.rank.number(),
                    "note": m.note(),
                    "winrate": winrate(m.score),
                    "analysed": m.analysed,
                })
            })
            .collect();
        return Json(
            json!({ "book": b.path().file_name().map(|n| n.to_string_lossy()), "moves": moves }),
        )
        .into_response();
    }
    Json(json!({ "moves": [] })).into_response()
}

/// `/api/tables`: every move's result and distance, by distance to mate,
/// or with `metric=dtc` by distance to conversion where the tables have
/// it (`metric` in the reply says which answered).
pub async fn tables(
    State(library): State<Arc<Library>>,
    Board { pos, metric, .. }: Board,
) -> Response {
    if metric == Metric::Dtc {
        match dtc_answer(&library, &pos, &pos.legal_moves()) {
            Ok(Some(found)) => return dtc_json(&found),
            Ok(None) => {}
            Err(TablesDamaged) => return tables_damaged(),
        }
    }
    let found = match table_answer(&library, &pos, &pos.legal_moves()) {
        Ok(Some(found)) => found,
        Ok(None) => return Json(json!({ "moves": [] })).into_response(),
        Err(TablesDamaged) => return tables_damaged(),
    };
    let moves: Vec<_> = found
        .values
        .iter()
        .map(|(m, v)| {
            let result = match v {
                Value::Win(_) => "win",
                Value::Draw => "draw",
                Value::Loss(_) => "loss",
            };
            json!({ "uci": m.to_string(), "result": result, "plies": v.dtm() })
        })
        .collect();
    let line: Vec<String> = found.line.iter().map(Move::to_string).collect();
    Json(json!({ "metric": "dtm", "moves": moves, "line": line })).into_response()
}

/// `/api/tables` by distance to conversion: each move's result for the
/// mover, its plies to conversion (counted from before the move) and the
/// order of the repetition rules' pass that decides it (0: none).
fn dtc_json(found: &DtcAnswer) -> Response {
    let moves: Vec<_> = found
        .moves
        .iter()
        .map(|(m, after)| {
            let result = match after.wdl {
                Wdl::Win => "loss",
                Wdl::Draw => "draw",
                Wdl::Loss => "win",
            };
            let plies = (after.wdl != Wdl::Draw).then_some(after.plies + 1);
            json!({ "uci": m.mv.to_string(), "result": result, "plies": plies, "order": after.order })
        })
        .collect();
    let line: Vec<String> = found.line.iter().map(Move::to_string).collect();
    let root = json!({ "result": found.root.wdl.to_string(), "plies": found.root.plies, "order": found.root.order });
    Json(json!({ "metric": "dtc", "position": root, "moves": moves, "line": line })).into_response()
}

/// The reply when a table the answer needs cannot be read: an error, with
/// the table named in the server's log only (the client has no business
/// with the server's files).
fn tables_damaged() -> Response {
    error(
        StatusCode::INTERNAL_SERVER_ERROR,
        "the endgame tables cannot answer: a table they need is damaged (the server's log names it)",
    )
}

/// One analysis line as JSON.
/// An analysis line as the board reads it; `wdl`: the chances of a win,
/// a draw and a loss for the side to move in per mille, by the engine's
/// win-draw-loss model (docs/wdl.md).
fn info_json(info: &SearchInfo, view: &WdlView) -> serde_json::Value {
    let score = match info.score {
        Score::Cp(cp) => json!({ "cp": cp }),
        Score::Mate(n) => json!({ "mate": n }),
    };
    let pv: Vec<String> = info.pv.iter().map(Move::to_string).collect();
    let wdl = view.per_mille(info.raw_score);
    json!({ "depth": info.depth, "line": info.multipv, "score": score, "wdl": wdl, "nodes": info.nodes, "pv": pv })
}

/// `/api/analyse`: server-sent events.
pub async fn analyse(
    State(library): State<Arc<Library>>,
    Board { pos, lines, ms, .. }: Board,
) -> Response {
    if pos.legal_moves().is_empty() {
        return error(StatusCode::BAD_REQUEST, "the side to move has no move");
    }
    let lines = lines.unwrap_or(3).clamp(1, 5);
    let think = Duration::from_millis(ms.unwrap_or(3_000).clamp(10, 60_000));
    let view = wdl_view(&library, &pos);
    let (tx, rx) = tokio::sync::mpsc::unbounded_channel::<SearchInfo>();
    let Some(done) = library.engine.stream(pos, lines, think, tx) else {
        return busy();
    };
    search_events(
        rx,
        view,
        done,
        |best| json!({ "best": best.flatten().map(|m| m.to_string()) }),
    )
}

/// How the engine's scores in `pos` read as win, draw and loss.
fn wdl_view(library: &Library, pos: &Position) -> WdlView {
    let search = &library.engine.config().search;
    WdlView {
        material: xqengine::wdl::material(pos),
        net_scale: search.net.is_some().then_some(search.params.net_scale),
    }
}

/// The refusal when the engine's queue is full.
fn busy() -> Response {
    error(
        StatusCode::SERVICE_UNAVAILABLE,
        "busy: too many searches waiting",
    )
}

/// A search as server-sent events: `info` for each line sent on `infos`
/// (with its win-draw-loss by `view`), then `done` with `answer` of what
/// the search's task gave (`None`: it failed).
fn search_events<T: Send + 'static>(
    infos: tokio::sync::mpsc::UnboundedReceiver<SearchInfo>,
    view: WdlView,
    done: tokio::task::JoinHandle<T>,
    answer: impl Fn(Option<T>) -> serde_json::Value + Clone + Send + 'static,
) -> Response {
    let infos = UnboundedReceiverStream::new(infos).map(move |info| {
        Ok::<Event, Infallible>(
            Event::default()
                .event("info")
                .data(info_json(&info, &view).to_string()),
        )
    });
    let end = tokio_stream::once(done).then(move |done| {
        let answer = answer.clone();
        async move {
            let done = done.await.ok();
            let data = answer(done);
            Ok::<Event, Infallible>(Event::default().event("done").data(data.to_string()))
        }
    });
    Sse::new(infos.chain(end)).into_response()
}

/// `/api/levels`: each level with the Elo it claims (`null`: full
/// strength, rated by the clock).
pub async fn levels() -> Response {
    let levels: Vec<_> = crate::play::levels()
        .into_iter()
        .map(|(level, elo)| json!({ "level": level, "elo": elo }))
        .collect();
    Json(json!({ "levels": levels })).into_response()
}

/// Query parameters of `/api/play`.
#[derive(Deserialize)]
pub struct PlayQuery {
    board: String,
    level: Option<i64>,
    /// Milliseconds left on the engine's clock.
    time: Option<u64>,
    /// Milliseconds added to it a move.
    inc: Option<u64>,
    draw: Option<u8>,
}

/// `/api/play`: server-sent events, `info` while the engine thinks, then
/// `done` with `best` (`null`: no move), `ponder`, `draw` (the offer
/// accepted), `resign` and `book` (the move is the book's).
pub async fn play(
    State(library): State<Arc<Library>>,
    query: Result<Query<PlayQuery>, axum::extract::rejection::QueryRejection>,
) -> Response {
    let Query(q) = match query {
        Ok(q) => q,
        Err(e) => return error(e.status(), e.body_text()),
    };
    let pos = match parse_board(&q.board) {
        Ok(pos) => pos,
        Err(e) => return error(StatusCode::BAD_REQUEST, e),
    };
    if pos.outcome(&xqcore::EndRules::default()).is_some() {
        return error(StatusCode::BAD_REQUEST, "the game is over");
    }
    let level = q.level.unwrap_or(xqengine::strength::MAX_SKILL);
    if !(0..=xqengine::strength::MAX_SKILL).contains(&level) {
        return error(StatusCode::BAD_REQUEST, "level: a number from 0 to 20");
    }
    let clock = q.time.map(|ms| xqengine::Clock {
        remaining: Duration::from_millis(ms),
        movestogo: None,
        increment: Duration::from_millis(q.inc.unwrap_or(0)),
    });
    let view = wdl_view(&library, &pos);
    let request = crate::play::MoveRequest {
        pos,
        level,
        clock,
        draw_offered: q.draw == Some(1),
    };
    let (tx, rx) = tokio::sync::mpsc::unbounded_channel::<SearchInfo>();
    let worker = library.clone();
    let Some(done) = library.engine.spawn_queued(move || {
        crate::play::engine_move(&worker, request, Arc::new(crate::engine::Forward(tx)))
    }) else {
        return busy();
    };
    search_events(rx, view, done, |answer| match answer.flatten() {
        Some(a) => json!({
            "best": a.mv.map(|m| m.to_string()),
            "ponder": a.ponder.map(|m| m.to_string()),
            "draw": a.draw,
            "resign": a.resign,
            "book": !a.book.is_empty(),
        }),
        None => json!({ "best": null, "error": "the engine failed" }),
    })
}

/// `/api/position`: the position's FEN, side to move, legal moves, and
/// the ruling and result (`1-0`, `0-1`, `1/2-1/2`) when the game is over.
pub async fn position_info(Board { pos, .. }: Board) -> Response {
    let outcome = pos.outcome(&xqcore::EndRules::default());
    let over = outcome.map(|o| o.ruling());
    // The result as PGN writes it.
    let result = outcome.map(|o| match o.winner() {
        Some(xqcore::Color::Red) => "1-0",
        Some(xqcore::Color::Black) => "0-1",
        None => "1/2-1/2",
    });
    let legal: Vec<String> = if over.is_some() {
        Vec::new()
    } else {
        pos.legal_moves().iter().map(Move::to_string).collect()
    };
    let turn = if pos.turn() == xqcore::Color::Red {
        "red"
    } else {
        "black"
    };
    Json(json!({ "fen": pos.fen(), "turn": turn, "check": pos.in_check(), "legal": legal, "over": over, "result": result }))
        .into_response()
}

/// `POST /api/review`: starts a review of the first game of a PGN text;
/// `{"id": N, "moves": M}`.
pub async fn start_review(
    State(library): State<Arc<Library>>,
    axum::Extension(reviews): axum::Extension<Arc<Reviews>>,
    body: Result<Bytes, BytesRejection>,
) -> Response {
    let game = match first_game(body) {
        Ok(game) => game,
        Err((status, why)) => return error(status, why),
    };
    let id = reviews.start(library, &game);
    Json(json!({ "id": id, "moves": game.moves.len() })).into_response()
}

/// `GET /api/review/N`: review `N` as it stands: each position's
/// judgement and each move's drop and mark as they come, `done` once all
/// are in, and then the review as PGN (`pgn`, with a comment and a glyph
/// a move; `plain_pgn` the moves alone).
pub async fn review(
    axum::Extension(reviews): axum::Extension<Arc<Reviews>>,
    axum::extract::Path(id): axum::extract::Path<String>,
) -> Response {
    let Some(review) = id.parse().ok().and_then(|id| reviews.get(id)) else {
        return error(StatusCode::NOT_FOUND, "no such review (or no longer kept)");
    };
    let mut body = serde_json::to_value(&review).unwrap_or_default();
    body["done"] = json!(review.done());
    body["pgn"] = json!(review.done().then(|| review.pgn()));
    body["plain_pgn"] = json!(review.plain_pgn());
    Json(body).into_response()
}

/// Longest PGN text `/api/pgn` reads.
pub const MAX_PGN_LEN: usize = 256 * 1024;

/// `POST /api/pgn`: the first game of a PGN text (ICCS, WXF or Chinese
/// notation; UTF-8, GBK or Big5), as its start FEN and its moves.
pub async fn pgn(body: Result<Bytes, BytesRejection>) -> Response {
    match first_game(body) {
        Ok(g) => {
            let moves: Vec<String> = g.moves.iter().map(Move::to_string).collect();
            Json(json!({ "start": g.start.fen(), "moves": moves })).into_response()
        }
        Err((status, why)) => error(status, why),
    }
}

/// The first game of a PGN text in a request's body, or why not: the
/// refusal's status and reason.
fn first_game(
    body: Result<Bytes, BytesRejection>,
) -> Result<xqrecords::pgn::Game, (StatusCode, String)> {
    let body = body.map_err(|e| (e.status(), e.body_text()))?;
    if body.len() > MAX_PGN_LEN {
        return Err((
            StatusCode::PAYLOAD_TOO_LARGE,
            format!("PGN of {} bytes (at most {MAX_PGN_LEN})", body.len()),
        ));
    }
    // A file as it was saved: UTF-8, GBK or Big5, as the records library
    // detects it.
    let text = xqrecords::encoding::decode(&body, None).text;
    let Some(game) = xqrecords::pgn::split(&text).into_iter().next() else {
        return Err((StatusCode::BAD_REQUEST, "no game in the text".into()));
    };
    xqrecords::pgn::parse_game(&game).map_err(|e| (StatusCode::BAD_REQUEST, e.to_string()))
}
