//! Our own JSON API, for the analysis board:
//!
//! - `GET /api/book?board=B`: the book moves with their games and results.
//! - `GET /api/tables?board=B`: every move's exact value and the line to
//!   mate, when the tables hold the position.
//! - `GET /api/analyse?board=B&lines=N&ms=T`: the engine's analysis with
//!   `N` lines, streamed as server-sent events while it thinks (`info`
//!   events, then `done`); under the same bound as chessdb's engine
//!   queries.
//!
//! `board` is read as in the chessdb API (a FEN, optionally `moves ...`).
//! Errors are JSON `{"error": reason}` with a 4xx or 503 status.

use std::convert::Infallible;
use std::sync::Arc;
use std::time::Duration;

use axum::extract::{Query, State};
use axum::http::StatusCode;
use axum::response::sse::{Event, Sse};
use axum::response::{IntoResponse, Response};
use axum::Json;
use serde::Deserialize;
use serde_json::json;
use tokio_stream::wrappers::UnboundedReceiverStream;
use tokio_stream::StreamExt;
use xqcore::{Move, Position};
use xqegtb::Value;
use xqengine::{Score, SearchInfo};

use crate::board::parse_board;
use crate::chessdb::Library;

/// Query parameters of the API.
#[derive(Deserialize)]
pub struct BoardQuery {
    board: String,
    /// Analysis lines (1..=5).
    lines: Option<usize>,
    /// Analysis time in milliseconds (at most 60,000).
    ms: Option<u64>,
}

fn error(status: StatusCode, reason: impl std::fmt::Display) -> Response {
    (status, Json(json!({ "error": reason.to_string() }))).into_response()
}

fn position(q: &BoardQuery) -> Result<Position, crate::board::BoardError> {
    parse_board(&q.board)
}

/// `/api/book`.
pub async fn book(State(library): State<Arc<Library>>, Query(q): Query<BoardQuery>) -> Response {
    let pos = match position(&q) {
        Ok(p) => p,
        Err(e) => return error(StatusCode::BAD_REQUEST, e),
    };
    for b in &library.books {
        let Ok(moves) = b.probe(&pos) else { continue };
        if moves.is_empty() {
            continue;
        }
        let moves: Vec<_> = moves
            .iter()
            .map(|m| {
                let stats = m.stats.map(|s| json!({ "games": s.games, "wins": s.wins, "draws": s.draws, "losses": s.losses }));
                json!({ "uci": m.mv.to_string(), "weight": m.weight, "stats": stats })
            })
            .collect();
        return Json(
            json!({ "book": b.path().file_name().map(|n| n.to_string_lossy()), "moves": moves }),
        )
        .into_response();
    }
    Json(json!({ "moves": [] })).into_response()
}

/// `/api/tables`.
pub async fn tables(State(library): State<Arc<Library>>, Query(q): Query<BoardQuery>) -> Response {
    let pos = match position(&q) {
        Ok(p) => p,
        Err(e) => return error(StatusCode::BAD_REQUEST, e),
    };
    let Some(tb) = library.tables.as_deref() else {
        return Json(json!({ "moves": [] })).into_response();
    };
    let answers = crate::chessdb::table_answers(tb);
    let Ok(Some(values)) = answers.ranked_moves(&pos) else {
        return Json(json!({ "moves": [] })).into_response();
    };
    let moves: Vec<_> = values
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
    let line: Vec<String> = values
        .first()
        .and_then(|&(m, _)| answers.line_after(&pos, m, crate::chessdb::TABLE_LINE).ok())
        .unwrap_or_default()
        .iter()
        .map(Move::to_string)
        .collect();
    Json(json!({ "moves": moves, "line": line })).into_response()
}

/// One analysis line as JSON.
fn info_json(info: &SearchInfo) -> serde_json::Value {
    let score = match info.score {
        Score::Cp(cp) => json!({ "cp": cp }),
        Score::Mate(n) => json!({ "mate": n }),
    };
    let pv: Vec<String> = info.pv.iter().map(Move::to_string).collect();
    json!({ "depth": info.depth, "line": info.multipv, "score": score, "nodes": info.nodes, "pv": pv })
}

/// `/api/analyse`: server-sent events.
pub async fn analyse(State(library): State<Arc<Library>>, Query(q): Query<BoardQuery>) -> Response {
    let pos = match position(&q) {
        Ok(p) => p,
        Err(e) => return error(StatusCode::BAD_REQUEST, e),
    };
    if pos.legal_moves().is_empty() {
        return error(StatusCode::BAD_REQUEST, "the side to move has no move");
    }
    let lines = q.lines.unwrap_or(3).clamp(1, 5);
    let think = Duration::from_millis(q.ms.unwrap_or(3_000).clamp(10, 60_000));
    let (tx, rx) = tokio::sync::mpsc::unbounded_channel::<SearchInfo>();
    let Some(done) = library.engine.stream(pos, lines, think, tx) else {
        return error(
            StatusCode::SERVICE_UNAVAILABLE,
            "busy: too many searches waiting",
        );
    };
    let infos = UnboundedReceiverStream::new(rx).map(|info| {
        Ok::<Event, Infallible>(
            Event::default()
                .event("info")
                .data(info_json(&info).to_string()),
        )
    });
    let end = tokio_stream::once(done).then(|done| async move {
        let best = done.await.ok().flatten().map(|m| m.to_string());
        Ok::<Event, Infallible>(
            Event::default()
                .event("done")
                .data(json!({ "best": best }).to_string()),
        )
    });
    Sse::new(infos.chain(end)).into_response()
}

/// `/api/position`: the position's FEN, side to move, legal moves, and
/// the ruling when the game is over.
pub async fn position_info(Query(q): Query<BoardQuery>) -> Response {
    let pos = match position(&q) {
        Ok(p) => p,
        Err(e) => return error(StatusCode::BAD_REQUEST, e),
    };
    let over = pos
        .outcome(&xqcore::EndRules::default())
        .map(|o| o.ruling());
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
    Json(json!({ "fen": pos.fen(), "turn": turn, "check": pos.in_check(), "legal": legal, "over": over }))
        .into_response()
}

/// Longest PGN text `/api/pgn` reads.
pub const MAX_PGN_LEN: usize = 256 * 1024;

/// `POST /api/pgn`: the first game of a PGN text (ICCS, WXF or Chinese
/// notation), as its start FEN and its moves.
pub async fn pgn(body: axum::body::Bytes) -> Response {
    if body.len() > MAX_PGN_LEN {
        return error(
            StatusCode::PAYLOAD_TOO_LARGE,
            format!("PGN of {} bytes (at most {MAX_PGN_LEN})", body.len()),
        );
    }
    let text = String::from_utf8_lossy(&body);
    let Some(game) = xqrecords::pgn::split(&text).into_iter().next() else {
        return error(StatusCode::BAD_REQUEST, "no game in the text");
    };
    match xqrecords::pgn::parse_game(&game) {
        Ok(g) => {
            let moves: Vec<String> = g.moves.iter().map(Move::to_string).collect();
            Json(json!({ "start": g.start.fen(), "moves": moves })).into_response()
        }
        Err(e) => error(StatusCode::BAD_REQUEST, e),
    }
}
