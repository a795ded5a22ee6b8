//! `xqserve work`: a worker on any machine that reaches the server. It
//! asks for its address (`getip`), makes its token from the operator's
//! secret, takes batches of queued positions (`getqueue`), analyses each
//! position as the server's own analysers do, sends every move's score
//! (`store`) and acknowledges the batch (`ackqueue`), until told to stop.

use std::time::Duration;

use xqcore::Position;
use xqengine::Searcher;

use crate::analysers::{analyse, AnalysisConfig};
use crate::workers::{md5_hex, Tokens};

/// What a worker does.
#[derive(Clone)]
pub struct WorkConfig {
    /// The server's API: `http://HOST:PORT/chessdb.php` (or the server's
    /// address, to which `/chessdb.php` is added).
    pub server: String,
    /// The secret, from the operator's token file.
    pub tokens: Tokens,
    /// How positions are analysed.
    pub analysis: AnalysisConfig,
    /// Stop when the queue is empty (otherwise wait for more).
    pub until_empty: bool,
    /// Stop after this many positions.
    pub max_positions: Option<u64>,
    /// How long to wait before asking an empty queue again.
    pub idle: Duration,
}

/// Why a worker stopped before it was done.
#[derive(Debug, thiserror::Error)]
pub enum WorkError {
    #[error("{server}: {reason}")]
    Server { server: String, reason: String },
    #[error("{server}: the server refused this worker's token (is --token-file the server's, and does the server have one?)")]
    Token { server: String },
    #[error("{server}: {action} answered {answer:?}")]
    Refused {
        server: String,
        action: &'static str,
        answer: String,
    },
}

/// A worker's connection to the server.
struct Server {
    url: String,
    agent: ureq::Agent,
}

impl Server {
    fn new(server: &str) -> Server {
        let url = if server.ends_with(".php") {
            server.to_string()
        } else {
            format!("{}/chessdb.php", server.trim_end_matches('/'))
        };
        let agent: ureq::Agent = ureq::Agent::config_builder()
            .timeout_global(Some(Duration::from_secs(60)))
            .http_status_as_error(false)
            .build()
            .into();
        Server { url, agent }
    }

    /// The server's answer to `query` (NUL ending dropped); a server that
    /// cannot be reached is asked again twice, two seconds apart.
    fn ask(&self, query: &[(&str, &str)]) -> Result<String, WorkError> {
        let mut tries = 0;
        loop {
            let mut request = self.agent.get(&self.url);
            for (k, v) in query {
                request = request.query(k, v);
            }
            let reason = match request.call() {
                Ok(mut response) if response.status() == 200 => {
                    return response
                        .body_mut()
                        .read_to_string()
                        .map(|body| body.trim_end_matches('\0').to_string())
                        .map_err(|e| self.error(e.to_string()));
                }
                Ok(response) => format!("HTTP status {}", response.status()),
                Err(e) => e.to_string(),
            };
            tries += 1;
            if tries == 3 {
                return Err(self.error(reason));
            }
            std::thread::sleep(Duration::from_secs(2));
        }
    }

    fn error(&self, reason: String) -> WorkError {
        WorkError::Server {
            server: self.url.clone(),
            reason,
        }
    }
}

/// Works for the server until the queue is empty (with `until_empty`), or
/// `max_positions` are done; the number of positions analysed.
///
/// # Errors
///
/// The server cannot be reached, refuses the token, or refuses a result.
pub fn work(config: &WorkConfig) -> Result<u64, WorkError> {
    let server = Server::new(&config.server);
    let address = server.ask(&[("action", "getip")])?;
    let Some(token) = config.tokens.worker_token(address.trim()) else {
        return Err(WorkError::Token {
            server: server.url.clone(),
        });
    };
    let mut searcher = Searcher::new(config.analysis.search.clone(), 16);
    let mut done = 0;
    while config.max_positions.is_none_or(|max| done < max) {
        let batch = server.ask(&[("action", "getqueue"), ("token", &token)])?;
        if batch == "tokenerror" {
            return Err(WorkError::Token {
                server: server.url.clone(),
            });
        }
        if batch.is_empty() {
            if config.until_empty {
                break;
            }
            std::thread::sleep(config.idle);
            continue;
        }
        for board in batch.lines().filter(|l| !l.is_empty()) {
            // A line this worker cannot read is left for the batch's lease
            // to send elsewhere.
            let Ok(pos) = Position::from_fen(board) else {
                eprintln!("xqserve work: a batch line that is no position: {board:?}");
                continue;
            };
            let Some(found) = analyse(&mut searcher, &pos, &config.analysis) else {
                continue;
            };
            for (mv, score, depth) in found.moves {
                // chessdb's `store` takes the score for the side to move
                // after the move.
                let (mv, score, depth) = (mv.to_string(), (-score).to_string(), depth.to_string());
                let proof = md5_hex(&[&token, board, &mv, &score]);
                let answer = server.ask(&[
                    ("action", "store"),
                    ("board", board),
                    ("move", &mv),
                    ("score", &score),
                    ("depth", &depth),
                    ("token", &proof),
                ])?;
                if answer != "ok" {
                    return Err(WorkError::Refused {
                        server: server.url.clone(),
                        action: "store",
                        answer,
                    });
                }
            }
            done += 1;
        }
        let key = md5_hex(&[&batch]);
        let proof = md5_hex(&[&token, &key]);
        let answer = server.ask(&[("action", "ackqueue"), ("key", &key), ("token", &proof)])?;
        if answer != "ok" {
            return Err(WorkError::Refused {
                server: server.url.clone(),
                action: "ackqueue",
                answer,
            });
        }
    }
    Ok(done)
}
