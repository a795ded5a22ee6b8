//! `egtbgen probe`: a position's value and best move by the tables, and on
//! request every move's value and the line to the end.

use xqcli::{out, Failure};
use xqcore::Position;
use xqegtb::{Repetitions, CHASE_DTM, RULE_DTM};
use xqengine::EvalPreference;

/// The longest line `probe --line` prints.
const MAX_LINE: usize = 400;

/// Arguments of `egtbgen probe`.
#[derive(clap::Args)]
pub struct ProbeArgs {
    /// Directories holding tables, separated by ';'.
    #[arg(long, default_value = "data/egtb")]
    path: String,
    /// The position, as a FEN.
    fen: Vec<String>,
    /// Also print every legal move with the value it leads to, best first.
    #[arg(long)]
    all: bool,
    /// Also print the line to mate: both sides' best moves, each with the
    /// value of the position it is played from.
    #[arg(long)]
    line: bool,
}

/// Prints the position's value, the rule that decides it if one does,
/// the best move, and (as asked) every move's value and the line.
///
/// # Errors
///
/// A bad FEN, a directory that cannot be read, no table for the
/// position's material, or a table file that cannot be read.
pub fn run(args: &ProbeArgs) -> xqcli::Result {
    let fen = args.fen.join(" ");
    let pos =
        Position::from_fen(&fen).map_err(|e| Failure::new(format!("bad FEN {fen:?}: {e}")))?;
    let tb = super::tables_in(&args.path)?;
    let missing = || {
        Failure::new(format!(
            "no table for this position's material in {}",
            args.path
        ))
    };
    let dtc = tb.probe_dtc(&pos)?;
    let Some(value) = tb.probe(&pos)? else {
        // No table file: what the other metrics' files say.
        let wdl = tb.probe_wdl(&pos)?.ok_or_else(missing)?;
        out!("{wdl}");
        if let Some(dtc) = dtc.filter(|d| d.wdl != xqegtb::Wdl::Draw) {
            out!("dtc {}", dtc.plies);
        }
        return Ok(());
    };
    out!("{}", value.wdl());
    if let Some(d) = value.dtm() {
        out!("dtm {d}");
    }
    if let Some(dtc) = dtc.filter(|d| d.wdl != xqegtb::Wdl::Draw) {
        out!("dtc {}", dtc.plies);
        if dtc.order > 0 {
            out!(
                "dtc counts to where a repetition rule decides (order {}: the rules' pass that found it)",
                dtc.order
            );
        }
    }
    if value.by_chase_rule() {
        out!(
            "by the perpetual-chase rule: the losing side can only avoid mate by checking or \
             chasing one piece for ever (distances from {CHASE_DTM} up; a draw where only perpetual check loses)"
        );
    } else if value.by_rule() {
        out!(
            "by the perpetual-check rule: the losing side can only avoid mate by checking for ever \
             (distances from {RULE_DTM} up count to such a position)"
        );
    }
    // Moves of equal value and material in the order the engine and the
    // server give them: by the engine's evaluation.
    let answers = tb
        .under(Repetitions::CheckAndChase)
        .preferring(EvalPreference::builtin());
    match answers.best_move(&pos)? {
        Some((m, _)) => out!("bestmove {m}"),
        None if pos.legal_moves().is_empty() => out!("bestmove none (no legal move)"),
        None => out!("bestmove unknown (a table its moves lead into is missing)"),
    }
    if args.all {
        if let Some(moves) = answers.ranked_moves(&pos)? {
            out!("moves {}", moves.len());
            for (m, v) in moves {
                out!("{m} {v}");
            }
        }
    }
    if args.line {
        let line = answers.line(&pos, MAX_LINE)?;
        let moves: Vec<String> = line.iter().map(|(m, _)| m.to_string()).collect();
        out!("line {} plies: {}", moves.len(), moves.join(" "));
    }
    Ok(())
}
