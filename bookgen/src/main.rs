//! `bookgen`: builds, probes, describes and merges opening books; converts
//! them between formats, analyses them with the engine and judges the
//! moves the engine plays from them. This file parses the command line and
//! hands each subcommand to its module under `cmd`.

mod cmd;

use std::process::ExitCode;

use clap::{Parser, Subcommand};

use cmd::{analyse, bench, build, export, import, merge, probe, quality, stats};

#[derive(Parser)]
#[command(
    name = "bookgen",
    version,
    about = "Build a xiangqi opening book from game records (PGN in ICCS, WXF or Chinese notation; XQF; a SQLite game database), and probe, describe or merge books"
)]
struct Cli {
    #[command(subcommand)]
    command: Command,
}

#[derive(Subcommand)]
enum Command {
    /// Build a book from PGN and XQF files and directories of them, or from a game database.
    Build(build::BuildArgs),
    /// Store games from PGN and XQF files in a SQLite game database (duplicates
    /// skipped; files imported before and unchanged are skipped, so an
    /// interrupted import resumes); or, with --obk, turn a BHGUI .obk book
    /// into one of ours.
    Import(import::ImportArgs),
    /// List the book moves of a position.
    Probe(probe::ProbeArgs),
    /// Describe a book: counts, size, how it was built.
    Stats(stats::StatsArgs),
    /// Time probes of a book's own positions (the median is the figure).
    Bench(bench::BenchArgs),
    /// Write a book in another format: ours (xqb), ElephantEye's BOOK.DAT
    /// (eleeye) or BHGUI's .obk (obk). The book (any of those formats) is
    /// walked from the start position through its moves, and through up to
    /// --max-gap moves in a row that are not in it.
    Export(export::ExportArgs),
    /// Analyse a book of ours: search every book position and every
    /// position a book move leads to, add the search's best move where the
    /// book lacks it, back the scores up through the book, and write the
    /// analysis beside it (BOOK with the extension .xqa), where the engine
    /// and the server find it. A journal (.xqa.journal) keeps every search,
    /// so a run that is stopped goes on where it stopped when run again.
    Analyse(Box<analyse::AnalyseArgs>),
    /// Judge the moves the engine plays from a book by a deeper search:
    /// both sides play the book from the start as the engine does (every
    /// move with at least --min-share of its choices), each position is
    /// searched to --depth and each move played there one ply less deep
    /// after it. Says how many moves fall 50 and 100 cp below the best, and
    /// the loss per move weighted by its share: by weight, and with the
    /// book's analysis when it has one.
    Quality(quality::QualityArgs),
    /// Merge books into one, adding up the statistics of shared moves.
    Merge(merge::MergeArgs),
}

fn main() -> ExitCode {
    let cli = Cli::parse();
    xqcli::remove_unfinished_files_on_interrupt("bookgen");
    xqcli::finish("bookgen", dispatch(cli.command))
}

/// Runs the subcommand.
fn dispatch(command: Command) -> xqcli::Result {
    match command {
        Command::Build(args) => build::run(args),
        Command::Import(args) => import::run(args),
        Command::Probe(args) => probe::run(&args),
        Command::Stats(args) => stats::run(&args),
        Command::Bench(args) => bench::run(&args),
        Command::Export(args) => export::run(&args),
        Command::Analyse(args) => analyse::run(&args),
        Command::Quality(args) => quality::run(&args),
        Command::Merge(args) => merge::run(&args),
    }
}

#[cfg(test)]
mod tests {
    use clap::Parser;

    use super::Cli;

    xqcli::help_test!(super::Cli);

    /// The command line `bookgen ARGS`, parsed.
    fn parse(args: &[&str]) -> Result<Cli, clap::Error> {
        Cli::try_parse_from(std::iter::once("bookgen").chain(args.iter().copied()))
    }

    #[test]
    fn counts_that_leave_nothing_to_do_at_zero_are_refused() {
        let zero_refused = [
            ("quality", "--depth"),
            ("quality", "--max-ply"),
            ("quality", "--threads"),
            ("bench", "--positions"),
            ("analyse", "--nodes"),
            ("analyse", "--depth"),
            ("analyse", "--movetime"),
            ("analyse", "--threads"),
            ("analyse", "--plan"),
        ];
        for (command, option) in zero_refused {
            let e = parse(&[command, "book.xqb", option, "0"]).err();
            let e = e.unwrap_or_else(|| panic!("{command} {option} 0 was taken"));
            assert_eq!(e.kind(), clap::error::ErrorKind::ValueValidation);
            let said = e.to_string();
            assert!(
                said.contains(option) && said.contains("must be 1 or more"),
                "{said}"
            );
            assert!(parse(&[command, "book.xqb", option, "1"]).is_ok());
        }
        // The tiers of analyse, which come in pairs.
        for (option, other) in [
            ("--deep-plies", "--deep-nodes"),
            ("--refine-plies", "--refine-nodes"),
            ("--together-plies", "--together-depth"),
        ] {
            for (zero, one) in [(option, other), (other, option)] {
                let args = ["analyse", "book.xqb", zero, "0", one, "1"];
                let e = parse(&args).err().expect("a zero was taken");
                assert!(e.to_string().contains(zero), "{e}");
            }
            assert!(parse(&["analyse", "book.xqb", option, "1", other, "1"]).is_ok());
        }
    }
}
