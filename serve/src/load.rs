//! A load generator for the server: many clients at once, each on its
//! own keep-alive connection, sending GET requests in turn and timing
//! every answer. Used by `xqserve bench` and by the load test.
//!
//! The client side is a few lines of HTTP/1.1 by hand on purpose: it only
//! sends GETs to our own server and reads `Content-Length` bodies, and
//! needs no second HTTP stack.

use std::collections::BTreeMap;
use std::net::SocketAddr;
use std::sync::Arc;
use std::time::{Duration, Instant};

use tokio::io::{AsyncBufReadExt, AsyncReadExt, AsyncWriteExt, BufReader};
use tokio::net::TcpStream;

/// What a load run measured.
#[derive(Clone, Debug, Default)]
pub struct LoadReport {
    /// Answers by HTTP status.
    pub statuses: BTreeMap<u16, usize>,
    /// Requests that got no answer (connection refused, reset, timed out).
    pub unanswered: usize,
    pub elapsed: Duration,
    /// Every answer's latency, sorted.
    pub latencies: Vec<Duration>,
}

impl LoadReport {
    /// Answers of any status.
    pub fn answered(&self) -> usize {
        self.statuses.values().sum()
    }

    /// Answers per second.
    pub fn per_second(&self) -> f64 {
        self.answered() as f64 / self.elapsed.as_secs_f64().max(1e-9)
    }

    /// The latency below which `q` (0..1) of the answers came.
    pub fn percentile(&self, q: f64) -> Duration {
        if self.latencies.is_empty() {
            return Duration::ZERO;
        }
        let i = ((self.latencies.len() as f64 - 1.0) * q).round() as usize;
        self.latencies[i]
    }
}

/// Sends `queries` requests from `clients` connections at once, request
/// `i` asking for `paths[i % paths.len()]`.
pub async fn run(
    addr: SocketAddr,
    clients: usize,
    queries: usize,
    paths: Arc<Vec<String>>,
) -> LoadReport {
    let started = Instant::now();
    let clients = clients.max(1);
    let mut tasks = Vec::new();
    for c in 0..clients {
        let paths = paths.clone();
        // Client c sends requests c, c + clients, c + 2 clients...
        let mine: Vec<usize> = (c..queries).step_by(clients).collect();
        tasks.push(tokio::spawn(
            async move { client(addr, &mine, &paths).await },
        ));
    }
    let mut report = LoadReport::default();
    for task in tasks {
        let Ok(part) = task.await else { continue };
        for (status, n) in part.statuses {
            *report.statuses.entry(status).or_default() += n;
        }
        report.unanswered += part.unanswered;
        report.latencies.extend(part.latencies);
    }
    report.elapsed = started.elapsed();
    report.latencies.sort();
    report
}

/// One client's requests, on one connection (opened again if the server
/// closes it).
async fn client(addr: SocketAddr, requests: &[usize], paths: &[String]) -> LoadReport {
    let mut report = LoadReport::default();
    let mut conn: Option<BufReader<TcpStream>> = None;
    for &i in requests {
        let path = &paths[i % paths.len()];
        let sent = Instant::now();
        let mut status = None;
        for _attempt in 0..2 {
            if conn.is_none() {
                conn = TcpStream::connect(addr).await.ok().map(BufReader::new);
            }
            let Some(c) = conn.as_mut() else { break };
            let exchange = tokio::time::timeout(Duration::from_secs(120), get(c, path)).await;
            match exchange {
                Ok(Ok(s)) => {
                    status = Some(s);
                    break;
                }
                _ => conn = None,
            }
        }
        match status {
            Some(s) => {
                *report.statuses.entry(s).or_default() += 1;
                report.latencies.push(sent.elapsed());
            }
            None => report.unanswered += 1,
        }
    }
    report
}

/// One GET on a kept-alive connection: the answer's status (its body is
/// read and dropped).
async fn get(conn: &mut BufReader<TcpStream>, path: &str) -> std::io::Result<u16> {
    let request = format!("GET {path} HTTP/1.1\r\nHost: localhost\r\n\r\n");
    conn.get_mut().write_all(request.as_bytes()).await?;
    let mut line = String::new();
    conn.read_line(&mut line).await?;
    let status: u16 = line
        .split_whitespace()
        .nth(1)
        .and_then(|s| s.parse().ok())
        .ok_or_else(|| std::io::Error::other(format!("bad status line {line:?}")))?;
    let mut length = 0usize;
    loop {
        line.clear();
        conn.read_line(&mut line).await?;
        if line == "\r\n" || line.is_empty() {
            break;
        }
        if let Some((name, value)) = line.split_once(':') {
            if name.eq_ignore_ascii_case("content-length") {
                length = value.trim().parse().unwrap_or(0);
            }
        }
    }
    let mut body = vec![0u8; length];
    conn.read_exact(&mut body).await?;
    Ok(status)
}

/// `/chessdb.php?action=...&board=...`, the board percent-encoded.
pub fn chessdb_path(action: &str, board: &str) -> String {
    let mut encoded = String::with_capacity(board.len() * 3);
    for b in board.bytes() {
        if b.is_ascii_alphanumeric() || b == b'/' || b == b'-' {
            encoded.push(b as char);
        } else {
            encoded.push_str(&format!("%{b:02X}"));
        }
    }
    format!("/chessdb.php?action={action}&board={encoded}")
}
