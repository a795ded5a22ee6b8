//! `bookgen probe`: the book moves of a position, with the analysis's
//! scores when the book has one.

use std::path::PathBuf;

use xqbook::{AnyBook, PositionAnalysis, WeightedMove};
use xqcli::{out, Failure};
use xqcore::Position;
use xqrecords::notation::parse_and_resolve;

use super::open_analysis;

#[derive(clap::Args)]
pub struct ProbeArgs {
    /// The book file.
    book: PathBuf,
    /// The position, as FEN (default: the start).
    #[arg(long, conflicts_with = "moves")]
    fen: Option<String>,
    /// Moves from the start (ICCS, WXF or Chinese notation).
    #[arg(long, num_args = 1..)]
    moves: Vec<String>,
}

/// Runs `bookgen probe`.
pub fn run(args: &ProbeArgs) -> xqcli::Result {
    let book = xqbook::open(&args.book)?;
    let mut pos = match &args.fen {
        Some(f) => Position::from_fen(f).map_err(|e| Failure::new(format!("--fen: {e}")))?,
        None => Position::start(),
    };
    for (i, token) in args.moves.iter().enumerate() {
        let m = parse_and_resolve(&pos, token)
            .map_err(|e| Failure::new(format!("--moves, move {}: {e}", i + 1)))?;
        pos.make_move(m);
    }
    let found = book.probe(&pos)?;
    if let AnyBook::Ours(ours) = &book {
        if let Some(analysis) = open_analysis(&args.book, ours) {
            if let Some(a) = analysis.probe(&pos) {
                print_analysed(&a, &found);
                return Ok(());
            }
        }
    }
    if found.is_empty() {
        out!("no book moves");
    }
    for m in found {
        print_move(&m);
    }
    Ok(())
}

/// An analysed position: its value and search, then each move best first
/// with its backed-up score, the book behind it and its games.
fn print_analysed(a: &PositionAnalysis, found: &[WeightedMove]) {
    let depth = match a.search.depth {
        bookgen::analyse::TABLES_DEPTH => "tables".to_string(),
        d => format!("depth {d}"),
    };
    out!(
        "value {} (search {} {depth}, best {})",
        a.value,
        a.search.score,
        a.search.best
    );
    for m in &a.moves {
        let games = found.iter().find(|b| b.mv == m.mv).and_then(|b| b.stats);
        let games = match (m.in_book, games) {
            (true, Some(s)) => format!("games {} wdl {}/{}/{}", s.games, s.wins, s.draws, s.losses),
            _ => "added by the analysis".to_string(),
        };
        out!("{} score {} book {} {games}", m.mv, m.score, m.depth);
    }
}

/// `MOVE games G wdl W/D/L weight X`, or `MOVE weight X` for a book that
/// keeps no game counts (ElephantEye's).
fn print_move(m: &WeightedMove) {
    match m.stats {
        Some(s) => out!(
            "{} games {} wdl {}/{}/{} weight {}",
            m.mv,
            s.games,
            s.wins,
            s.draws,
            s.losses,
            m.weight
        ),
        None => out!("{} weight {}", m.mv, m.weight),
    }
}
