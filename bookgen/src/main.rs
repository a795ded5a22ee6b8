//! `bookgen`: builds opening books from game records (work in progress).

use clap::Parser;

#[derive(Parser)]
#[command(
    name = "bookgen",
    version,
    about = "Build a xiangqi opening book from game records (PGN in ICCS, WXF or Chinese notation, XQF, SQLite)",
    long_about = "Build a xiangqi opening book from game records.\n\nNot implemented yet: this release only answers --help and --version."
)]
struct Cli {}

fn main() {
    Cli::parse();
    eprintln!("bookgen: not implemented yet (see --help)");
    std::process::exit(2);
}
