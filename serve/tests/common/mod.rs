//! Starting `xqserve` as a user starts it, for the tests that talk to the
//! binary.

use std::io::{BufRead, BufReader};
use std::process::{Child, Command, Stdio};

/// The server on a free local port with `args` (run from the workspace
/// root, so the default book is found), and the URL it says it serves.
pub fn start_server(args: &[&std::ffi::OsStr]) -> (Child, String) {
    let root = concat!(env!("CARGO_MANIFEST_DIR"), "/..");
    let mut server = Command::new(env!("CARGO_BIN_EXE_xqserve"))
        .args(["--listen", "127.0.0.1:0"])
        .args(args)
        .current_dir(root)
        .stderr(Stdio::piped())
        .spawn()
        .expect("start xqserve");
    let mut lines = BufReader::new(server.stderr.take().unwrap()).lines();
    let url = lines
        .by_ref()
        .map_while(Result::ok)
        .find_map(|l| l.strip_prefix("listening on ").map(str::to_string))
        .expect("xqserve says where it listens");
    (server, url)
}
