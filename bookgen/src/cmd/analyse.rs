//! `bookgen analyse`: the options of an analysis, the analysis run with a
//! progress bar, or (`--plan`) the Makefile and Slurm script that run it
//! in shards.

use std::path::{Path, PathBuf};
use std::sync::atomic::AtomicBool;
use std::time::Instant;

use bookgen::analyse::{
    analyse, makefile, slurm, AnalyseConfig, AnalyseSummary, Budget, Refine, Shard, Together,
};
use bookgen::record_files;
use indicatif::{ProgressBar, ProgressStyle};
use xqbook::Book;
use xqcli::{out, Failure};
use xqcore::Position;

use super::open_ours;
use super::options::{all_cores, at_least_one, net_option};
use super::records::{read_files, ReadArgs};

#[derive(clap::Args)]
pub struct AnalyseArgs {
    /// The book to analyse (ours: convert others with `export --format xqb`).
    book: PathBuf,
    /// Nodes searched a position (the default budget: 200,000).
    #[arg(long, group = "budget", value_parser = at_least_one::<u64>)]
    nodes: Option<u64>,
    /// Depth searched a position, instead of nodes.
    #[arg(long, group = "budget", value_parser = at_least_one::<u32>)]
    depth: Option<u32>,
    /// Milliseconds a position, instead of nodes (results then vary from
    /// run to run).
    #[arg(long, group = "budget", value_parser = at_least_one::<u64>)]
    movetime: Option<u64>,
    /// Search the positions before this ply with --deep-nodes instead: the
    /// lines every game goes through, searched deeper.
    #[arg(long, requires = "deep_nodes", value_parser = at_least_one::<usize>)]
    deep_plies: Option<usize>,
    /// Nodes a position before --deep-plies.
    #[arg(long, requires = "deep_plies", value_parser = at_least_one::<u64>)]
    deep_nodes: Option<u64>,
    /// Refine the engine's own lines before this ply: from the start, both
    /// sides playing every move within --refine-margin of the best, each
    /// position and the positions its moves lead to searched at
    /// --refine-nodes, the best move added where missing, until the moves
    /// within the margin stay the same. Repeat with --refine-nodes for
    /// tiers: e.g. 30 plies at 4M nodes, and the first 10 at 10M.
    #[arg(long, requires = "refine_nodes", value_parser = at_least_one::<usize>)]
    refine_plies: Vec<usize>,
    /// Nodes a position of the refined lines (one for each --refine-plies,
    /// in order).
    #[arg(long, requires = "refine_plies", value_parser = at_least_one::<u64>)]
    refine_nodes: Vec<u64>,
    /// The margin the refined lines follow (the engine's bookmargin, or
    /// more, so that every move it may play is refined).
    #[arg(long, default_value_t = 20)]
    refine_margin: i16,
    /// Then, along the engine's own lines before this ply (both sides
    /// playing every move within --refine-margin of the best, as refining
    /// follows them), score each position's moves together: those within
    /// 60 cp of the best and the position's own best move, in one search to
    /// --together-depth with a line each (MultiPV), so that they are
    /// compared alike rather than by searches apart; again until the moves
    /// within the margin stay the same.
    #[arg(long, requires = "together_depth", value_parser = at_least_one::<usize>)]
    together_plies: Option<usize>,
    /// Depth of the searches that score moves together.
    #[arg(long, requires = "together_plies", value_parser = at_least_one::<u32>)]
    together_depth: Option<u32>,
    /// Score each move scored together by the mean of its scores at the
    /// search's last N depths (1: its last depth's score). One depth's
    /// scores swing by tens of centipawns from the next; their mean tells
    /// moves apart by their worth.
    #[arg(long, default_value_t = 1, value_parser = clap::value_parser!(u32).range(1..=64))]
    together_average: u32,
    /// Searches at once [default: every core].
    #[arg(long, value_parser = at_least_one::<usize>)]
    threads: Option<usize>,
    /// The net to evaluate with: a net file, `builtin` (the engine's own)
    /// or `hce` (the hand-crafted evaluation).
    #[arg(long, default_value = "builtin")]
    net: PathBuf,
    /// Directory of endgame tables for the searches [default: data/egtb
    /// when present]; `none`: no tables.
    #[arg(long)]
    tables: Option<PathBuf>,
    /// Moves the analysis may add to the book: where the search's
    /// best move is not in the book it is added and the position after it
    /// searched, lowest plies first. The positions of --grow-from's games
    /// gain their best moves besides, beyond this count.
    #[arg(long, default_value_t = 20_000)]
    grow: usize,
    /// Add moves only from positions before this ply.
    #[arg(long, default_value_t = 24)]
    grow_plies: usize,
    /// Games whose moves join the book first, up to --grow-plies (PGN or
    /// XQF files, or directories of them: the engine's self-play or match
    /// games). Each of their positions gains the search's best move where
    /// it is missing, outside --grow's count. A run that resumes must be
    /// given the same games.
    #[arg(long, num_args = 1.., value_name = "RECORDS")]
    grow_from: Vec<PathBuf>,
    /// Hash table of each search, in MB.
    #[arg(long, default_value_t = 16)]
    hash: usize,
    /// Where to write the analysis [default: BOOK with the extension .xqa].
    #[arg(short, long)]
    output: Option<PathBuf>,
    /// Search only shard I of N of the book's positions (split by key),
    /// into a journal of its own beside the output; a run without --shard
    /// then merges the shards' journals, grows the book and writes the
    /// analysis.
    #[arg(long, value_name = "I/N", conflicts_with = "plan")]
    shard: Option<Shard>,
    /// Write no analysis: plan one in N shards and a merge, as a Makefile
    /// (--makefile) and a Slurm script (--slurm) that run this command with
    /// the same options.
    #[arg(long, value_name = "N", value_parser = at_least_one::<u32>)]
    plan: Option<u32>,
    /// The Makefile of --plan.
    #[arg(long, requires = "plan")]
    makefile: Option<PathBuf>,
    /// The Slurm script of --plan.
    #[arg(long, requires = "plan")]
    slurm: Option<PathBuf>,
    /// No progress bar.
    #[arg(long, short)]
    quiet: bool,
}

/// Runs `bookgen analyse`.
pub fn run(args: &AnalyseArgs) -> xqcli::Result {
    let started = Instant::now();
    let book = open_ours(
        &args.book,
        "ElephantEye's BOOK.DAT holds no games to analyse; write it as ours first \
         (bookgen export --format xqb)",
    )?;
    if args.refine_plies.len() != args.refine_nodes.len() {
        return Err(Failure::new(format!(
            "--refine-plies given {} times and --refine-nodes {}: one of each a tier",
            args.refine_plies.len(),
            args.refine_nodes.len()
        )));
    }
    let cfg = config(args)?;
    if let Some(shards) = args.plan {
        return plan_analysis(args, shards);
    }
    let summary = analyse_with_progress(&book, args, &cfg)?;
    out!(
        "{}: {} positions analysed with {} moves ({} added by the analysis); {} positions \
         searched at {} with {} ({} by this run, {} nodes); {} bytes in {:.0} s",
        summary.output.display(),
        summary.positions,
        summary.moves,
        summary.grown,
        summary.searched,
        cfg.budget_text(),
        cfg.net_name(),
        summary.searched_now,
        summary.nodes,
        summary.bytes,
        started.elapsed().as_secs_f64()
    );
    Ok(())
}

/// Nodes a position is searched when no budget is given.
const DEFAULT_NODES: u64 = 200_000;

/// The budget of a position, as --nodes, --depth or --movetime give it
/// (clap lets only one through), or [`DEFAULT_NODES`].
fn budget(args: &AnalyseArgs) -> Budget {
    match (args.nodes, args.depth, args.movetime) {
        (_, Some(d), _) => Budget::Depth(d),
        (_, _, Some(ms)) => Budget::Millis(ms),
        (n, _, _) => Budget::Nodes(n.unwrap_or(DEFAULT_NODES)),
    }
}

/// How to analyse, as the arguments say: the net and tables loaded, the
/// games to grow from read.
fn config(args: &AnalyseArgs) -> xqcli::Result<AnalyseConfig> {
    let net = net_option(&args.net)?;
    let tables = xqcli::data::open_tables_option(args.tables.as_deref())?.map(|(tb, _)| tb);
    Ok(AnalyseConfig {
        budget: budget(args),
        deep: args.deep_plies.zip(args.deep_nodes.map(Budget::Nodes)),
        refine: args
            .refine_plies
            .iter()
            .zip(&args.refine_nodes)
            .map(|(&plies, &nodes)| Refine {
                plies,
                budget: Budget::Nodes(nodes),
                margin: args.refine_margin,
            })
            .collect(),
        threads: all_cores(args.threads),
        net,
        tables,
        grow: args.grow,
        grow_plies: args.grow_plies,
        hash_mb: args.hash,
        shard: args.shard,
        grow_from: games_to_grow_from(&args.grow_from, args.quiet)?,
        together: args
            .together_plies
            .zip(args.together_depth)
            .map(|(plies, depth)| Together {
                plies,
                depth,
                margin: args.refine_margin,
                averaged: args.together_average,
            }),
    })
}

/// The analysis of `book`, with a progress bar unless `--quiet`.
fn analyse_with_progress(
    book: &Book,
    args: &AnalyseArgs,
    cfg: &AnalyseConfig,
) -> xqcli::Result<AnalyseSummary> {
    let bar = if args.quiet {
        ProgressBar::hidden()
    } else {
        ProgressBar::new(0)
    };
    bar.set_style(
        ProgressStyle::with_template(
            "{elapsed_precise} [{bar:30}] {pos}/{len} positions searched, {msg} (ETA {eta})",
        )
        .expect("a valid template"),
    );
    let stop = AtomicBool::new(false);
    let summary = analyse(book, args.output.as_deref(), cfg, &stop, &|p| {
        bar.set_length(p.to_search as u64);
        bar.set_position(p.searched as u64);
        bar.set_message(format!("{} moves added", p.grown));
    })?;
    bar.finish_and_clear();
    Ok(summary)
}

/// The games of `analyse --grow-from`, their moves from their start.
fn games_to_grow_from(
    inputs: &[PathBuf],
    quiet: bool,
) -> xqcli::Result<Vec<(Position, Vec<xqcore::Move>)>> {
    if inputs.is_empty() {
        return Ok(Vec::new());
    }
    let read = ReadArgs {
        encoding: None,
        variations: false,
        quiet,
    };
    let (mut games, mut skipped) = (Vec::new(), 0);
    read_files(
        &record_files(inputs)?,
        &read,
        10,
        |_| Ok(false),
        |_, r| {
            skipped += r.errors.len();
            games.extend(r.games.into_iter().map(|g| (g.start, g.moves)));
            Ok(())
        },
    )?;
    out!("{} games to grow from ({skipped} skipped)", games.len());
    Ok(games)
}

/// Writes the Makefile and Slurm script of `analyse --plan`.
fn plan_analysis(args: &AnalyseArgs, shards: u32) -> xqcli::Result {
    if args.makefile.is_none() && args.slurm.is_none() {
        return Err(Failure::new(
            "--plan writes a --makefile FILE, a --slurm FILE or both: name one",
        ));
    }
    let output = args
        .output
        .clone()
        .unwrap_or_else(|| xqbook::analysis_path(&args.book));
    let options = plan_options(args);
    let write = |path: &Path, text: String| -> xqcli::Result {
        xqstore::write_whole(path, |_, f| std::io::Write::write_all(f, text.as_bytes()))
            .map_err(|e| Failure::new(format!("{}: {e}", path.display())))?;
        out!("{} written", path.display());
        Ok(())
    };
    if let Some(path) = &args.makefile {
        write(path, makefile(&args.book, &output, shards, &options))?;
    }
    if let Some(path) = &args.slurm {
        write(path, slurm(&args.book, &output, shards, &options))?;
    }
    Ok(())
}

/// The options every run of a plan takes, as given: the budgets, the net
/// and tables, growth and the hash table.
fn plan_options(args: &AnalyseArgs) -> String {
    let mut options = vec![match budget(args) {
        Budget::Nodes(n) => format!("--nodes {n}"),
        Budget::Depth(d) => format!("--depth {d}"),
        Budget::Millis(ms) => format!("--movetime {ms}"),
        other => unreachable!("no option of analyse gives the budget {other}"),
    }];
    if let (Some(plies), Some(nodes)) = (args.deep_plies, args.deep_nodes) {
        options.push(format!("--deep-plies {plies} --deep-nodes {nodes}"));
    }
    for (plies, nodes) in args.refine_plies.iter().zip(&args.refine_nodes) {
        options.push(format!("--refine-plies {plies} --refine-nodes {nodes}"));
    }
    if let (Some(plies), Some(depth)) = (args.together_plies, args.together_depth) {
        options.push(format!("--together-plies {plies} --together-depth {depth}"));
        if args.together_average > 1 {
            options.push(format!("--together-average {}", args.together_average));
        }
    }
    if !args.refine_plies.is_empty() || args.together_plies.is_some() {
        options.push(format!("--refine-margin {}", args.refine_margin));
    }
    options.push(format!("--net {}", args.net.display()));
    if let Some(t) = &args.tables {
        options.push(format!("--tables {}", t.display()));
    }
    options.push(format!(
        "--grow {} --grow-plies {} --hash {}",
        args.grow, args.grow_plies, args.hash
    ));
    options.join(" ")
}
