//! What the tests that run `egtbgen` as a program share.
#![allow(dead_code)] // each test file uses its own part

use std::path::Path;
use std::process::{Command, Output};

/// Runs the built `egtbgen` with `args`.
pub fn egtbgen(args: &[&str]) -> Output {
    Command::new(env!("CARGO_BIN_EXE_egtbgen"))
        .args(args)
        .output()
        .unwrap()
}

pub fn s(p: &Path) -> &str {
    p.to_str().unwrap()
}

/// The files in `dir` whose names `keep` accepts, by name, with their
/// bytes.
pub fn files(dir: &Path, keep: impl Fn(&str) -> bool) -> Vec<(String, Vec<u8>)> {
    let mut out: Vec<(String, Vec<u8>)> = std::fs::read_dir(dir)
        .unwrap()
        .map(|e| e.unwrap().path())
        .filter_map(|p| {
            let name = p.file_name().unwrap().to_string_lossy().to_string();
            keep(&name).then(|| (name, std::fs::read(&p).unwrap()))
        })
        .collect();
    out.sort();
    out
}
