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

use std::collections::HashMap;
use std::path::Path;
use std::sync::Mutex;
use std::time::{SystemTime, UNIX_EPOCH};

use md5::{Digest, Md5};
use xqcore::Position;

use crate::chessdb::{Library, Params, Reply, Style};
use crate::store::Source;

/// Positions in a batch of `getqueue`.
pub const BATCH: usize = 10;

/// The MD5 of `parts` joined, in lowercase hex (PHP's `hash('md5', ...)`).
pub fn md5_hex(parts: &[&str]) -> String {
    let mut hasher = Md5::new();
    for part in parts {
        hasher.update(part.as_bytes());
    }
    hasher
        .finalize()
        .iter()
        .map(|b| format!("{b:02x}"))
        .collect()
}

/// A position as chessdb writes a board in its protocol: the placement
/// and the side to move (`w`/`b`), no counters.
pub fn board_text(pos: &Position) -> String {
    let fen = pos.fen();
    let mut fields = fen.split(' ');
    let placement = fields.next().unwrap_or_default();
    let side = fields.next().unwrap_or("w");
    format!("{placement} {side}")
}

/// Who asks: the client's address, and whether it is this machine (whose
/// queries no rate limit holds back, as chessdb exempts its own).
#[derive(Clone, Debug, PartialEq, Eq)]
pub struct Client {
    pub address: String,
    pub local: bool,
}

impl Client {
    /// This machine: a query in-process, or over the loopback.
    pub fn local() -> Client {
        Client {
            address: "127.0.0.1".into(),
            local: true,
        }
    }

    /// A client at `ip`.
    pub fn at(ip: std::net::IpAddr) -> Client {
        Client {
            address: ip.to_string(),
            local: ip.is_loopback(),
        }
    }
}

/// The secret tokens are made from, when the operator keeps one.
#[derive(Clone, Default)]
pub struct Tokens {
    secret: Option<String>,
}

impl Tokens {
    /// No secret: every write is refused.
    pub fn none() -> Tokens {
        Tokens::default()
    }

    /// The secret `secret` (surrounding white space dropped).
    pub fn from_secret(secret: &str) -> Tokens {
        Tokens {
            secret: Some(secret.trim().to_string()),
        }
    }

    /// The secret kept in the file `path`: its first line.
    ///
    /// # Errors
    ///
    /// The file cannot be read, or its first line is empty (naming the
    /// file).
    pub fn from_file(path: &Path) -> Result<Tokens, String> {
        let text = std::fs::read_to_string(path)
            .map_err(|e| format!("token file {}: {e}", path.display()))?;
        let secret = text.lines().next().unwrap_or_default().trim();
        if secret.is_empty() {
            return Err(format!(
                "token file {}: empty (its first line is the secret)",
                path.display()
            ));
        }
        Ok(Tokens::from_secret(secret))
    }

    /// The token of a worker at `address`; `None` without a secret.
    pub fn worker_token(&self, address: &str) -> Option<String> {
        let secret = self.secret.as_deref()?;
        Some(md5_hex(&["ChessDB", address, secret]))
    }

    /// Whether `proof` is the MD5 of the token of a worker at `address`
    /// and `written`; never without a secret.
    pub fn proves(&self, address: &str, written: &[&str], proof: &str) -> bool {
        let Some(token) = self.worker_token(address) else {
            return false;
        };
        let mut parts = vec![token.as_str()];
        parts.extend_from_slice(written);
        !proof.is_empty() && md5_hex(&parts) == proof.to_ascii_lowercase()
    }

    /// Whether `token` is the token of a worker at `address`.
    pub fn is_token(&self, address: &str, token: &str) -> bool {
        self.worker_token(address)
            .is_some_and(|t| !token.is_empty() && t == token.to_ascii_lowercase())
    }
}

/// Queries a client may make in a second; the server's own are not
/// counted.
pub struct RateLimit {
    per_second: u32,
    /// Each client's second and queries in it.
    seen: Mutex<HashMap<String, (u64, u32)>>,
}

impl RateLimit {
    /// At most `per_second` queries a second a client; 0: no limit.
    pub fn new(per_second: u32) -> RateLimit {
        RateLimit {
            per_second,
            seen: Mutex::default(),
        }
    }

    /// Counts a query of `client`: whether it is within the limit.
    pub fn allows(&self, client: &Client) -> bool {
        if self.per_second == 0 || client.local {
            return true;
        }
        let second = SystemTime::now()
            .duration_since(UNIX_EPOCH)
            .map_or(0, |d| d.as_secs());
        let mut seen = self.seen.lock().unwrap_or_else(|e| e.into_inner());
        // Clients of past seconds are forgotten now and then, so the map
        // stays as small as the clients of a second.
        if seen.len() > 4096 {
            seen.retain(|_, (s, _)| *s == second);
        }
        let entry = seen.entry(client.address.clone()).or_insert((second, 0));
        if entry.0 != second {
            *entry = (second, 0);
        }
        entry.1 += 1;
        entry.1 <= self.per_second
    }
}

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

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn md5_is_phps() {
        // PHP: echo hash('md5', 'ChessDB');
        assert_eq!(md5_hex(&[""]), "d41d8cd98f00b204e9800998ecf8427e");
        assert_eq!(md5_hex(&["Chess", "DB"]), md5_hex(&["ChessDB"]));
        assert_eq!(md5_hex(&["abc"]), "900150983cd24fb0d6963f7d28e17f72");
    }

    #[test]
    fn tokens_are_bound_to_the_secret_and_the_address() {
        let tokens = Tokens::from_secret("s3cret\n");
        let token = tokens.worker_token("10.0.0.7").unwrap();
        assert_eq!(token, md5_hex(&["ChessDB", "10.0.0.7", "s3cret"]));
        assert!(tokens.is_token("10.0.0.7", &token));
        assert!(!tokens.is_token("10.0.0.8", &token));
        let proof = md5_hex(&[&token, "batch"]);
        assert!(tokens.proves("10.0.0.7", &["batch"], &proof));
        assert!(!tokens.proves("10.0.0.7", &["other"], &proof));
        assert!(!Tokens::none().proves("10.0.0.7", &["batch"], &proof));
        assert!(!Tokens::none().is_token("10.0.0.7", ""));
    }

    #[test]
    fn a_client_over_the_limit_is_held_back_and_this_machine_never() {
        let limit = RateLimit::new(3);
        let remote = Client::at("10.0.0.9".parse().unwrap());
        let allowed = (0..10).filter(|_| limit.allows(&remote)).count();
        // Three a second (four when the second turned during the loop).
        assert!((3..=4).contains(&allowed), "{allowed}");
        assert!((0..10).all(|_| limit.allows(&Client::local())));
        assert!((0..10).all(|_| RateLimit::new(0).allows(&remote)));
    }

    #[test]
    fn a_board_is_written_without_counters() {
        assert_eq!(
            board_text(&Position::start()),
            "rnbakabnr/9/1c5c1/p1p1p1p1p/9/9/P1P1P1P1P/1C5C1/9/RNBAKABNR w"
        );
    }
}
