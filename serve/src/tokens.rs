//! Who asks, and what proves a worker: chessdb's tokens (MD5 of a
//! secret, the client's address and what is written), the client's
//! address, and the rate limit per client.

use std::collections::HashMap;
use std::path::Path;
use std::sync::Mutex;
use std::time::{SystemTime, UNIX_EPOCH};

use md5::{Digest, Md5};
use xqcore::Position;

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
