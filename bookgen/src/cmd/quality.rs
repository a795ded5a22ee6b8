//! `bookgen quality`: the moves the engine plays from a book judged by a
//! deeper search, and the report of how many fall how far below the best.

use std::path::PathBuf;
use std::time::Instant;

use bookgen::analyse::Searches;
use bookgen::quality::{Judgement, QualityConfig, Scoring};
use clap::ValueEnum;
use xqcli::{out, Failure};

use super::open_ours;
use super::options::{all_cores, at_least_one, net_option};

#[derive(clap::Args)]
pub struct QualityArgs {
    /// The book (ours; its analysis, BOOK.xqa, is judged too when present).
    book: PathBuf,
    /// Depth of the judging search.
    #[arg(long, default_value_t = 16, value_parser = at_least_one::<u32>)]
    depth: u32,
    /// Judge positions before this ply.
    #[arg(long, default_value_t = 8, value_parser = at_least_one::<usize>)]
    max_ply: usize,
    /// Follow and judge moves with at least this share of the engine's
    /// choices in their position (drawn as --selectivity draws them).
    #[arg(long, default_value_t = 0.05)]
    min_share: f64,
    /// The engine's selectivity, which decides how often it plays each of
    /// its book moves: none (always the heaviest: its default), small
    /// (by weight squared), medium (by weight), large (by its square root).
    #[arg(long, value_enum, default_value_t = Selectivity::Medium)]
    selectivity: Selectivity,
    /// The engine's bookmargin for the analysed book.
    #[arg(long, default_value_t = 15)]
    margin: i16,
    /// Searches at once [default: every core].
    #[arg(long, value_parser = at_least_one::<usize>)]
    threads: Option<usize>,
    /// The net to judge with: a net file, `builtin` or `hce`.
    #[arg(long, default_value = "builtin")]
    net: PathBuf,
    /// Hash table of each search, in MB.
    #[arg(long, default_value_t = 64)]
    hash: usize,
    /// Judge with another program instead of our engine: the command
    /// starting it (run by `sh -c`, UCCI or UCI, one process a thread; each
    /// search a new game), e.g. Pikafish, for a judge that is not the
    /// analyst. `--net` and `--hash` are then ours alone: set the
    /// program's own with `--judge-option`.
    #[arg(long, value_name = "COMMAND")]
    judge: Option<String>,
    /// An option of the --judge program, `NAME=VALUE` (e.g. `Hash=64`).
    /// Repeat for more.
    #[arg(long, value_name = "NAME=VALUE", requires = "judge")]
    judge_option: Vec<xqmatch::EngineOption>,
    /// Judge the book with its analysis only, not also by weight (fewer
    /// searches: by weight, far more moves pass --min-share).
    #[arg(long)]
    analysed_only: bool,
    /// Also list every move 50 cp or more below the best, with its line.
    #[arg(long)]
    list: bool,
    /// Keep the judging searches in this journal: a judgement stopped
    /// midway goes on where it stopped when run again.
    #[arg(long)]
    journal: Option<PathBuf>,
    /// Score each move by its own search, one ply less deep, of the
    /// position it leads to, instead of all of a position's moves in one
    /// search with a line each (MultiPV; the judge program must take UCI's
    /// MultiPV and searchmoves). Searches apart differ by chance, so this
    /// finds losses that are noise.
    #[arg(long)]
    separate: bool,
}

/// The engine's `selectivity`, as it draws book moves.
#[derive(Clone, Copy, clap::ValueEnum)]
enum Selectivity {
    None,
    Small,
    Medium,
    Large,
}

impl From<Selectivity> for xqengine::BookVariety {
    fn from(s: Selectivity) -> Self {
        match s {
            Selectivity::None => xqengine::BookVariety::None,
            Selectivity::Small => xqengine::BookVariety::Small,
            Selectivity::Medium => xqengine::BookVariety::Medium,
            Selectivity::Large => xqengine::BookVariety::Large,
        }
    }
}

/// Runs `bookgen quality`.
pub fn run(args: &QualityArgs) -> xqcli::Result {
    let started = Instant::now();
    open_ours(&args.book, "judge books of ours")?;
    if args.analysed_only && !xqbook::analysis_path(&args.book).is_file() {
        return Err(Failure::new(format!(
            "{}: no analysis beside it to judge",
            args.book.display()
        )));
    }
    let cfg = config(args)?;
    let (by_weight, analysed) = bookgen::quality::judge(&args.book, &cfg)?;
    out!(
        "judged by {} at depth {}, positions before ply {}, moves with a share of at least {} \
         at selectivity {}, {}",
        cfg.engine_name,
        args.depth,
        args.max_ply,
        args.min_share,
        args.selectivity
            .to_possible_value()
            .expect("not skipped")
            .get_name(),
        match cfg.scoring {
            Scoring::MultiPv => "each position's moves scored in one search (MultiPV)",
            Scoring::Separate => "each move scored by a search after it",
        }
    );
    let mut rows: Vec<(String, _)> = by_weight
        .map(|j| ("by weight".to_string(), j))
        .into_iter()
        .collect();
    if let Some(a) = analysed {
        rows.push((format!("analysed, margin {}", args.margin), a));
    }
    for (name, judgement) in &rows {
        print_judgement(name, judgement, args.list);
    }
    out!("{:.0} s", started.elapsed().as_secs_f64());
    Ok(())
}

/// How to judge, as the arguments say: our engine with its net, or the
/// `--judge` program (started once here to learn the name its journal is
/// kept under).
fn config(args: &QualityArgs) -> xqcli::Result<QualityConfig> {
    let net = net_option(&args.net)?;
    let external = args.judge.as_ref().map(|command| xqmatch::EngineSpec {
        options: args.judge_option.clone(),
        ..xqmatch::EngineSpec::new(command)
    });
    let (engine_name, net_name) = match &external {
        Some(spec) => (
            xqmatch::EngineProcess::start(spec)
                .map_err(|e| Failure::new(format!("--judge: {e}")))?
                .name
                .clone(),
            "its own".to_string(),
        ),
        None => (
            bookgen::analyse::engine_name(),
            bookgen::analyse::net_name(net.as_deref()),
        ),
    };
    Ok(QualityConfig {
        depth: args.depth,
        max_ply: args.max_ply,
        min_share: args.min_share,
        variety: args.selectivity.into(),
        margin: args.margin,
        analysed_only: args.analysed_only,
        searches: Searches {
            threads: all_cores(args.threads),
            net,
            tables: None,
            hash_mb: args.hash,
            external,
        },
        journal: args.journal.clone(),
        engine_name,
        net_name,
        scoring: if args.separate {
            Scoring::Separate
        } else {
            Scoring::MultiPv
        },
    })
}

/// The line of one way of playing the book (`name`), and with `list` each
/// of its moves 50 cp or more below the best, with its line.
fn print_judgement(name: &str, j: &Judgement, list: bool) {
    out!(
        "{name}: {} positions, {} moves; 50 cp or more below the best: {}; 100 cp or more: {}; \
         loss per move (by share) {:.1} cp; as games play them: {:.1} cp a move, {:.3} moves \
         50 cp or more below the best a game",
        j.positions,
        j.moves.len(),
        j.worse_by(50),
        j.worse_by(100),
        j.mean_loss(),
        j.played_loss(),
        j.played_worse_by(50)
    );
    if !list {
        return;
    }
    for m in j.moves.iter().filter(|m| m.loss >= 50) {
        let line: Vec<String> = m.line.iter().map(|m| m.to_string()).collect();
        out!(
            "  {} {} loses {} cp to {} (share {:.0} %, played in {:.2} % of games)",
            line.join(" "),
            m.mv,
            m.loss,
            m.best,
            m.share * 100.0,
            m.reach * m.share * 100.0
        );
    }
}
