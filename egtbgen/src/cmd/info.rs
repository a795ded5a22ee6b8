//! `egtbgen info`: what a table file holds: its rules, its positions and
//! results per side to move, its longest mate with a position of it.

use std::path::{Path, PathBuf};

use xqcli::out;
use xqegtb::{
    board_of, color_of_side, Indexer, Metric, MetricFile, Placement, SideStats, TableFile, Value,
    RULES_AS_GAMES,
};

/// Arguments of `egtbgen info`.
#[derive(clap::Args)]
pub struct InfoArgs {
    /// The table file (`.xqtb`), or a win/draw/loss (`.xqwdl`) or
    /// distance-to-conversion (`.xqdtc`) file.
    file: PathBuf,
}

/// Checks the whole file, then describes it.
///
/// # Errors
///
/// A file that cannot be read or fails a checksum.
pub fn run(args: &InfoArgs) -> xqcli::Result {
    let path: &Path = &args.file;
    let metric = super::metric_of(path);
    if metric != Metric::Dtm {
        return describe_metric_file(path, metric);
    }
    let table = TableFile::open(path)?;
    // Describing a file vouches for it: every block's checksum, not only
    // the header's and the index's.
    table.check_blocks()?;
    let info = table.info();
    let positions = 2 * info.size;
    out!("table      {}", info.material);
    out!("file       {}", path.display());
    out!(
        "rules      {} (rule set {})",
        if info.rules >= RULES_AS_GAMES {
            "no legal move loses; checking for ever loses (unless both sides do), and so does chasing one piece for ever (unless the other side only checks or only chases one piece); other repetitions draw"
        } else {
            "no legal move loses; checking for ever loses; other repetitions draw"
        },
        info.rules
    );
    out!("indexes    {} per side to move", info.size);
    for (side, stats) in info.stats.iter().enumerate() {
        describe_side(&table, side, stats);
    }
    out!(
        "size       {} bytes, {:.3} bits per position",
        table.file_len(),
        8.0 * table.file_len() as f64 / positions as f64
    );
    Ok(())
}

/// Describes a win/draw/loss or distance-to-conversion file, once its
/// blocks' checksums are checked.
fn describe_metric_file(path: &Path, metric: Metric) -> xqcli::Result {
    let file = MetricFile::open(path, metric)?;
    file.check_blocks()?;
    let info = file.info();
    let indexer = Indexer::new(info.material);
    out!("table      {}", info.material);
    out!("file       {}", path.display());
    out!(
        "metric     {}",
        match metric {
            Metric::Wdl => "win, draw or loss under the Asian rules",
            _ => "distance to conversion: plies to the next capture that keeps the win, or to mate",
        }
    );
    out!("rules      rule set {}", info.rules);
    if metric == Metric::Dtc && info.stored_side != xqegtb::BOTH_SIDES {
        let who = if info.stored_side == 0 {
            "first"
        } else {
            "second"
        };
        out!("stores     the {who} side to move's distances; the other side's follow one ply on");
    }
    out!("indexes    {} per side to move", info.size);
    for (side, s) in info.stats.iter().enumerate() {
        let who = if side == 0 {
            "first side"
        } else {
            "second side"
        };
        out!(
            "{who:<12}to move: {} wins, {} draws, {} losses",
            s.wins,
            s.draws,
            s.losses
        );
        if metric == Metric::Dtc && s.longest > 0 {
            let mut placement = Placement::new();
            indexer.placement(s.longest_index, &mut placement);
            let board = board_of(&indexer, &placement);
            let fen = format!(
                "{} {}",
                board.fen_placement(),
                color_of_side(side, false).fen_char()
            );
            out!(
                "           longest: {} plies to conversion, e.g. {fen}",
                s.longest
            );
        }
        if s.orders > 0 {
            out!(
                "           decided by the repetition rules in {} passes (orders 1 to {})",
                s.orders,
                s.orders
            );
        }
    }
    out!(
        "size       {} bytes, {:.3} bits per position",
        file.file_len(),
        8.0 * file.file_len() as f64 / (2 * info.size) as f64
    );
    Ok(())
}

/// The lines of one side to move: its results, its longest mate with a
/// position of it, and the results the repetition rules decide.
fn describe_side(table: &TableFile, side: usize, s: &SideStats) {
    let who = if side == 0 {
        "first side"
    } else {
        "second side"
    };
    out!(
        "{who:<12}to move: {} wins, {} draws, {} losses (legal positions: {})",
        s.wins,
        s.draws,
        s.losses,
        s.wins + s.draws + s.losses
    );
    if s.longest > 0 {
        let mut placement = Placement::new();
        table.indexer().placement(s.longest_index, &mut placement);
        let board = board_of(table.indexer(), &placement);
        let turn = color_of_side(side, false);
        let fen = format!("{} {}", board.fen_placement(), turn.fen_char());
        let kind = match table.value(side, s.longest_index) {
            Ok(Value::Win(_)) => "mate in",
            _ => "mated in",
        };
        out!("           longest: {kind} {} plies, e.g. {fen}", s.longest);
    }
    let (check_wins, check_losses) = (s.rule_wins - s.chase_wins, s.rule_losses - s.chase_losses);
    if check_wins + check_losses > 0 {
        out!("           by the perpetual-check rule: {check_wins} wins, {check_losses} losses");
    }
    if s.chase_wins + s.chase_losses > 0 {
        out!(
            "           by the perpetual-chase rule: {} wins, {} losses (draws where only perpetual check loses)",
            s.chase_wins,
            s.chase_losses
        );
    }
}
