//! `egtbgen`: builds endgame tables by retrograde analysis (work in progress).

use clap::Parser;

#[derive(Parser)]
#[command(
    name = "egtbgen",
    version,
    about = "Build xiangqi endgame tables by retrograde analysis",
    long_about = "Build xiangqi endgame tables by retrograde analysis.\n\nNot implemented yet: this release only answers --help and --version."
)]
struct Cli {}

fn main() {
    Cli::parse();
    eprintln!("egtbgen: not implemented yet (see --help)");
    std::process::exit(2);
}
