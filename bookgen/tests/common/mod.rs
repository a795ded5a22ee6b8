//! Running `bookgen` as users do, for the integration tests.

#![allow(dead_code)]

use std::path::Path;
use std::process::{Command, Output};

/// `bookgen` run with `args`.
pub fn bookgen(args: &[&str]) -> Output {
    Command::new(env!("CARGO_BIN_EXE_bookgen"))
        .args(args)
        .output()
        .unwrap()
}

/// The standard output of a run that must have succeeded.
pub fn stdout(o: &Output) -> String {
    assert!(o.status.success(), "{}", String::from_utf8_lossy(&o.stderr));
    String::from_utf8(o.stdout.clone()).unwrap()
}

/// A path as an argument.
pub fn s(p: &Path) -> &str {
    p.to_str().unwrap()
}
