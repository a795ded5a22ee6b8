//! Workers on other machines, by chessdb's worker protocol: `getqueue`
//! hands out a batch of queued positions, `store` writes one move's score,
//! `ackqueue` says the batch is done; `getip` and `gettoken` help a worker
//! make its token. Writes need a token made from a secret the operator
//! keeps in a file; without that file every write is refused.
//!
//! A worker's token is chessdb's: the MD5 (in hex) of `ChessDB`, the
//! worker's address as the server sees it, and the secret. Each write
//! proves itself by the MD5 of the token and what it writes (`store`: the
//! board as the server writes it, the move and the score as sent;
//! `ackqueue`: the batch's name).

use xqcore::Position;

use crate::library::Library;
use crate::reply::{Params, Reply, Style};
use crate::store::Source;

pub use crate::tokens::{board_text, md5_hex, Client, RateLimit, Tokens};

/// Positions in a batch of `getqueue`.
pub const BATCH: usize = 10;

/// A reply as chessdb writes those outside a board's query: the text
/// alone, no NUL.
pub(crate) fn plain(text: &str) -> Reply {
    Reply {
        status: 200,
        body: text.to_string(),
        json: false,
    }
}

/// `getqueue&token=T`: a batch of up to [`BATCH`] queued positions, a
/// line each (the board, then a newline), held for the policy's lease;
/// nothing when the queue is empty; `tokenerror` for a token that is not
/// the worker's. The batch's name, for `ackqueue`, is the MD5 of its text.
pub(crate) fn get_queue(library: &Library, params: &Params, client: &Client) -> Reply {
    let token = params.get("token").unwrap_or_default();
    if !library.policy.tokens.is_token(&client.address, token) {
        return plain("tokenerror");
    }
    let leased = match library.store.lease(BATCH, library.policy.lease) {
        Ok(leased) => leased,
        Err(e) => return failure(&e),
    };
    let text: String = leased
        .iter()
        .map(|l| format!("{}\n", board_text(&l.pos)))
        .collect();
    if !leased.is_empty() {
        let keys: Vec<u64> = leased.iter().map(|l| l.key).collect();
        if let Err(e) = library.store.name_batch(&keys, &md5_hex(&[&text])) {
            return failure(&e);
        }
    }
    plain(&text)
}

/// `ackqueue&key=K&token=MD5(T . K)`: the worker is done with batch `K`,
/// whose positions leave the queue; `ok`, or `tokenerror`.
pub(crate) fn ack_queue(library: &Library, params: &Params, client: &Client) -> Reply {
    let key = params.get("key").unwrap_or_default();
    let proof = params.get("token").unwrap_or_default();
    if key.is_empty() || !library.policy.tokens.proves(&client.address, &[key], proof) {
        return plain("tokenerror");
    }
    match library.store.ack_batch(key) {
        Ok(_) => plain("ok"),
        Err(e) => failure(&e),
    }
}

/// `gettoken&key=K`: the token the key `K` makes for the client's
/// address (a worker's own token when `K` is the secret).
pub(crate) fn get_token(params: &Params, client: &Client) -> Reply {
    match params.get("key") {
        Some(key) => plain(&md5_hex(&["ChessDB", &client.address, key])),
        None => plain("invalid parameters"),
    }
}

/// `store&board=B&move=M&score=S&token=MD5(T . B . M . S)`: a worker's
/// score `S` of move `M` of board `B`, for the side to move after it (as
/// chessdb takes it; `depth=D`, ours, the search's depth), written to the
/// store; `ok`, `tokenerror`, or what is wrong with the move or score.
pub(crate) fn store(
    library: &Library,
    pos: &Position,
    params: &Params,
    client: &Client,
    style: Style,
) -> Reply {
    let text_move = params.get("move").unwrap_or_default();
    let text_score = params.get("score").unwrap_or_default();
    let proof = params.get("token").unwrap_or_default();
    let board = board_text(pos);
    if !library
        .policy
        .tokens
        .proves(&client.address, &[&board, text_move, text_score], proof)
    {
        return style.word(200, "tokenerror");
    }
    let Ok(mv) = pos.parse_move(text_move) else {
        return style.word(
            200,
            &format!("invalid move: {text_move:?} is not a legal move of {board}"),
        );
    };
    let mate = i32::from(xqbook::MATE);
    let score = match text_score.parse::<i32>() {
        Ok(score) if score.abs() <= mate => score,
        _ => {
            return style.word(
                200,
                &format!(
                    "invalid score: {text_score:?} is not a whole number from -{mate} to {mate}"
                ),
            )
        }
    };
    let depth = match params.get("depth").map(str::parse::<u8>) {
        None => 0,
        Some(Ok(depth)) => depth,
        Some(Err(_)) => return style.word(200, "invalid depth: a whole number from 0 to 255"),
    };
    let mut child = pos.clone();
    child.make_move(mv);
    // For the side that plays the move; a move that mates is a mate in
    // one whatever the worker said.
    let score = if child.legal_moves().is_empty() {
        mate - 1
    } else {
        -score
    };
    match library
        .store
        .record_move(pos, mv, score as i16, depth, Source::Analysis)
    {
        Ok(()) => style.word(200, "ok"),
        Err(e) => style.word(503, &format!("Error: {e}")),
    }
}

/// The store failed: chessdb's answer to its own failures.
fn failure(e: &crate::store::StoreError) -> Reply {
    Reply {
        status: 503,
        body: format!("Error: {e}"),
        json: false,
    }
}
