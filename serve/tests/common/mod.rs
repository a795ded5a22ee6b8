//! Helpers of the tests that talk to the server: starting `xqserve` as a
//! user starts it, small tables to serve, and plain HTTP requests.

// Each test crate uses a part of them.
#![allow(dead_code)]

use std::io::{BufRead, BufReader, Read, Write};
use std::net::{SocketAddr, TcpStream};
use std::process::{Child, Command, Stdio};
use std::time::Duration;

use xqstore::{Header, Layout, HEADER_LEN};

/// The server on a free local port with `args` (run from the workspace
/// root, so the default book is found), and the URL it says it serves.
pub fn start_server(args: &[&std::ffi::OsStr]) -> (Child, String) {
    let mut server = spawn_server(args);
    let mut lines = BufReader::new(server.stderr.take().unwrap()).lines();
    let url = lines
        .by_ref()
        .map_while(Result::ok)
        .find_map(|l| l.strip_prefix("listening on ").map(str::to_string))
        .expect("xqserve says where it listens");
    // Keep reading what it says: a closed pipe would fail its next line.
    std::thread::spawn(move || lines.map_while(Result::ok).for_each(|l| eprintln!("{l}")));
    (server, url)
}

/// xqserve on a free local port with `args`, from the workspace root,
/// its standard error piped for the caller to read.
fn spawn_server(args: &[&std::ffi::OsStr]) -> Child {
    Command::new(env!("CARGO_BIN_EXE_xqserve"))
        .args(["--listen", "127.0.0.1:0"])
        .args(args)
        .current_dir(concat!(env!("CARGO_MANIFEST_DIR"), "/.."))
        .stderr(Stdio::piped())
        .spawn()
        .expect("start xqserve")
}

/// A server a test started, stopped when dropped: a failed assertion
/// leaves no server running.
pub struct Running(pub Child);

impl Drop for Running {
    fn drop(&mut self) {
        self.0.kill().ok();
        self.0.wait().ok();
    }
}

/// The server as [`start_server`] starts it, and every line it says on
/// standard error (those before `listening on` too), as they come.
pub fn start_server_logged(
    args: &[&std::ffi::OsStr],
) -> (
    Running,
    String,
    std::sync::Arc<std::sync::Mutex<Vec<String>>>,
) {
    let mut server = spawn_server(args);
    let log = std::sync::Arc::new(std::sync::Mutex::new(Vec::new()));
    let (tx, rx) = std::sync::mpsc::channel();
    let lines = BufReader::new(server.stderr.take().unwrap()).lines();
    let kept = log.clone();
    std::thread::spawn(move || {
        for line in lines.map_while(Result::ok) {
            if let Some(url) = line.strip_prefix("listening on ") {
                tx.send(url.to_string()).ok();
            }
            kept.lock().unwrap().push(line);
        }
    });
    let server = Running(server);
    let url = rx
        .recv_timeout(Duration::from_secs(60))
        .unwrap_or_else(|_| panic!("xqserve says where it listens: {:?}", log.lock().unwrap()));
    (server, url, log)
}

/// Damages a table file's header: its record count changed under the old
/// checksum, so the header fails its check and the file cannot be opened.
pub fn damage_header(table: &std::path::Path) {
    let mut bytes = std::fs::read(table).unwrap();
    let old: [u8; HEADER_LEN] = bytes[..HEADER_LEN].try_into().unwrap();
    let header = Header::decode(&old).expect("a sound header");
    let mut damaged = Header {
        record_count: header.record_count ^ 0x55,
        ..header
    }
    .encode();
    // The header's own checksum, its last four bytes, as it was.
    damaged[HEADER_LEN - 4..].copy_from_slice(&old[HEADER_LEN - 4..]);
    assert_eq!(Header::decode(&damaged), None);
    bytes[..HEADER_LEN].copy_from_slice(&damaged);
    std::fs::write(table, bytes).unwrap();
}

/// Damages every byte of every block of a table file (the header, the
/// metadata and the block index stay sound): the file opens, and a probe
/// fails the block's checksum.
pub fn damage_blocks(table: &std::path::Path) {
    let layout = Layout::read(table).unwrap();
    let mut bytes = std::fs::read(table).unwrap();
    for block in &layout.blocks {
        for b in &mut bytes[block.start as usize..block.end as usize] {
            *b ^= 0x55;
        }
    }
    std::fs::write(table, bytes).unwrap();
}

/// The address of a server URL (`http://127.0.0.1:PORT/...`).
pub fn address(url: &str) -> SocketAddr {
    let rest = url.trim_start_matches("http://");
    rest[..rest.find('/').unwrap_or(rest.len())]
        .parse()
        .unwrap()
}

/// Builds the tables of rook and king against king (and of the bare
/// kings it captures into) in `dir`.
pub fn build_rook_tables(dir: &std::path::Path) {
    let krk: xqegtb::Material = "KRK".parse().unwrap();
    let metrics = [
        xqegtb::Metric::Wdl,
        xqegtb::Metric::Dtm,
        xqegtb::Metric::Dtc,
    ];
    egtbgen::build_metrics(dir, &egtbgen::plan(&[krk]), &metrics, None, &|_| {}).unwrap();
}

/// An HTTP answer.
pub struct Answer {
    pub status: u16,
    pub content_type: String,
    pub body: String,
}

/// `method path` with `body`, the whole answer (the connection closed by
/// the server).
pub fn request(addr: SocketAddr, method: &str, path: &str, body: &[u8]) -> Answer {
    let mut s = TcpStream::connect(addr).unwrap();
    s.set_read_timeout(Some(Duration::from_secs(30))).unwrap();
    write!(
        s,
        "{method} {path} HTTP/1.1\r\nHost: x\r\nConnection: close\r\nContent-Length: {}\r\n\r\n",
        body.len()
    )
    .unwrap();
    // The server may answer, and close, before reading a body it refuses.
    s.write_all(body).ok();
    let mut bytes = Vec::new();
    s.read_to_end(&mut bytes).ok();
    let text = String::from_utf8_lossy(&bytes).to_string();
    let (head, body) = text.split_once("\r\n\r\n").unwrap_or((&text, ""));
    let content_type = head
        .lines()
        .find_map(|l| {
            l.to_ascii_lowercase()
                .strip_prefix("content-type: ")
                .map(str::to_string)
        })
        .unwrap_or_default();
    Answer {
        status: head[9..12].parse().unwrap(),
        content_type,
        body: body.to_string(),
    }
}

/// GET `path`: the status and body.
pub fn get(addr: SocketAddr, path: &str) -> (u16, String) {
    let answer = request(addr, "GET", path, b"");
    (answer.status, answer.body)
}
