//! `bookgen build`: a book counted from record files or a game database,
//! written whole or not at all, and refused when it would hold nothing.

use std::path::{Path, PathBuf};
use std::time::Instant;

use bookgen::db::GameDb;
use bookgen::{count_games, record_files, GameMoves, Report};
use clap::ValueEnum;
use xqbook::{write_book, BuildConfig, SideFilter};
use xqcli::{out, Failure};
use xqrecords::pgn::SkipReason;

use super::records::{read_files, ReadArgs};

#[derive(clap::Args)]
pub struct BuildArgs {
    /// The book file to write (written whole or not at all).
    #[arg(short, long)]
    output: PathBuf,
    /// PGN or XQF files, or directories searched for *.pgn and *.xqf.
    #[arg(required_unless_present = "db", conflicts_with = "db")]
    inputs: Vec<PathBuf>,
    /// Build from the games of this SQLite game database instead.
    #[arg(long)]
    db: Option<PathBuf>,
    /// Keep positions reached by at least this many distinct games.
    #[arg(long, default_value_t = 3)]
    min_games: u32,
    /// Keep positions up to this ply of each game (0: the start only).
    #[arg(long, default_value_t = 20)]
    max_ply: usize,
    /// Whose moves to keep.
    #[arg(long, value_enum, default_value_t = Side::Both)]
    side: Side,
    /// Drop moves scoring below this for the mover (0.0 to 1.0).
    #[arg(long, default_value_t = 0.0)]
    min_score: f64,
    /// Write the book even when it would hold nothing (no game could be
    /// read, or no position passes the filters); without this, that is an
    /// error and no file is written.
    #[arg(long)]
    allow_empty: bool,
    #[command(flatten)]
    read: ReadArgs,
}

#[derive(Clone, Copy, ValueEnum)]
enum Side {
    Red,
    Black,
    Both,
}

/// Runs `bookgen build`.
pub fn run(args: BuildArgs) -> xqcli::Result {
    if !(0.0..=1.0).contains(&args.min_score) {
        return Err(Failure::new(format!(
            "--min-score {} is not within 0..1",
            args.min_score
        )));
    }
    let started = Instant::now();
    let mut report = Report::default();
    let games = match &args.db {
        Some(db) => games_from_db(db, &mut report)?,
        None => games_from_files(&args, &mut report)?,
    };
    let config = BuildConfig {
        max_ply: args.max_ply,
        min_games: args.min_games,
        side: match args.side {
            Side::Red => SideFilter::Red,
            Side::Black => SideFilter::Black,
            Side::Both => SideFilter::Both,
        },
        min_score: args.min_score,
    };
    let (builder, duplicates) = count_games(games, config);
    report.duplicates = duplicates;
    let entries = builder.entries();
    if !args.allow_empty {
        refuse_empty(&report, entries.is_empty(), &args)?;
    }
    let describe = format!(
        "built by bookgen {} from {} games; min-games {} max-ply {} side {:?} min-score {}",
        env!("CARGO_PKG_VERSION"),
        builder.games(),
        args.min_games,
        args.max_ply,
        config.side,
        args.min_score
    );
    report.book = write_book(&args.output, &entries, &describe)?;
    print_report(&report, started.elapsed().as_secs_f64());
    Ok(())
}

/// An error, naming why, when the book would hold nothing: no game was
/// read, or no position passes the filters.
fn refuse_empty(report: &Report, no_entries: bool, args: &BuildArgs) -> xqcli::Result {
    let skipped: usize = report.skipped.values().sum();
    if report.games == 0 {
        let reasons: Vec<String> = report
            .skipped
            .iter()
            .map(|(k, n)| format!("{k} {n}"))
            .collect();
        let why = if skipped == 0 {
            "no games found".to_string()
        } else {
            format!("all {skipped} games were skipped ({})", reasons.join(", "))
        };
        return Err(Failure::new(format!(
            "{}: not written: {why}; nothing to build a book from (--allow-empty writes an empty book)",
            args.output.display()
        )));
    }
    if no_entries {
        return Err(Failure::new(format!(
            "{}: not written: no position of the {} games read passes the filters (--min-games {}, \
             --max-ply {}, --side, --min-score {}); --allow-empty writes an empty book",
            args.output.display(),
            report.games,
            args.min_games,
            args.max_ply,
            args.min_score
        )));
    }
    Ok(())
}

fn print_report(r: &Report, seconds: f64) {
    let skipped: usize = r.skipped.values().sum();
    let reasons: Vec<String> = r.skipped.iter().map(|(k, n)| format!("{k} {n}")).collect();
    let per_entry = r.book.bytes as f64 / r.book.entries.max(1) as f64;
    out!(
        "files {}, games read {}, skipped {}{}, duplicates {}, positions {}, entries {}, {} bytes ({:.2} per entry), {:.2} s",
        r.files,
        r.games,
        skipped,
        if reasons.is_empty() {
            String::new()
        } else {
            format!(" ({})", reasons.join(", "))
        },
        r.duplicates,
        r.book.positions,
        r.book.entries,
        r.book.bytes,
        per_entry,
        seconds
    );
}

fn games_from_files(args: &BuildArgs, report: &mut Report) -> xqcli::Result<Vec<GameMoves>> {
    let files = record_files(&args.inputs)?;
    let mut games = Vec::new();
    read_files(
        &files,
        &args.read,
        10,
        |_| Ok(false),
        |_, read| {
            report.files += 1;
            for e in &read.errors {
                *report.skipped.entry(e.reason).or_default() += 1;
            }
            report.games += read.games.len();
            games.extend(read.games.into_iter().map(|g| (g.start, g.moves, g.result)));
            Ok(())
        },
    )?;
    Ok(games)
}

fn games_from_db(db: &Path, report: &mut Report) -> xqcli::Result<Vec<GameMoves>> {
    if !db.is_file() {
        return Err(Failure::new(format!(
            "{}: no such game database",
            db.display()
        )));
    }
    let db = GameDb::open(db)?;
    let mut games = Vec::new();
    for g in db.games()? {
        match g {
            Ok(g) => games.push((g.start, g.moves, g.result)),
            Err(e) => {
                eprintln!("skipped: {e}");
                *report.skipped.entry(SkipReason::IllegalMove).or_default() += 1;
            }
        }
    }
    report.games = games.len();
    Ok(games)
}
