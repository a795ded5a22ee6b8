//! `bookgen`: builds, probes, describes and merges opening books.

use std::collections::BTreeMap;
use std::path::{Path, PathBuf};
use std::process::ExitCode;
use std::time::Instant;

use std::sync::Arc;

use bookgen::analyse::{AnalyseConfig, Budget, Refine, Searches, Shard, Together};
use bookgen::db::GameDb;
use bookgen::obk::{write_obk, ObkBook, ObkKeys};
use bookgen::quality::{QualityConfig, Scoring};
use bookgen::{book_positions, count_games, probe_latency, record_files, GameMoves, Report};
use clap::{Parser, Subcommand, ValueEnum};
use indicatif::{ProgressBar, ProgressStyle};
use xqbook::EleeyeBook;
use xqbook::{book_moves, our_entries, walk, write_eleeye, Walked};
use xqbook::{
    write_book, AnyBook, Book, BookFormat, BookMove, BuildConfig, SideFilter, WeightedMove,
};
use xqcli::out;
use xqcore::Position;
use xqrecords::encoding::TextEncoding;
use xqrecords::notation::parse_and_resolve;
use xqrecords::pgn::SkipReason;
use xqrecords::{read_file, ReadOptions, Records};

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
    Build(BuildArgs),
    /// Store games from PGN and XQF files in a SQLite game database (duplicates
    /// skipped; files imported before and unchanged are skipped, so an
    /// interrupted import resumes); or, with --obk, turn a BHGUI .obk book
    /// into one of ours.
    Import {
        /// The database file (created if missing).
        #[arg(long, required_unless_present = "obk", conflicts_with = "obk")]
        db: Option<PathBuf>,
        /// PGN or XQF files, or directories searched for *.pgn and *.xqf.
        #[arg(required_unless_present = "obk", conflicts_with = "obk")]
        inputs: Vec<PathBuf>,
        /// A BHGUI .obk book to write as ours (to --output), walked from the
        /// start position like `export`; needs --obk-keys.
        #[arg(long, requires_all = ["output", "obk_keys"])]
        obk: Option<PathBuf>,
        /// The book --obk is written to (whole or not at all).
        #[arg(short, long, requires = "obk")]
        output: Option<PathBuf>,
        #[command(flatten)]
        keys: ObkKeysArg,
        #[command(flatten)]
        read: ReadArgs,
    },
    /// List the book moves of a position.
    Probe {
        /// The book file.
        book: PathBuf,
        /// The position, as FEN (default: the start).
        #[arg(long, conflicts_with = "moves")]
        fen: Option<String>,
        /// Moves from the start (ICCS, WXF or Chinese notation).
        #[arg(long, num_args = 1..)]
        moves: Vec<String>,
    },
    /// Describe a book: counts, size, how it was built.
    Stats {
        /// The book file.
        book: PathBuf,
    },
    /// Time probes of a book's own positions (the median is the figure).
    Bench {
        /// The book file.
        book: PathBuf,
        /// How many positions to probe, walked from the start along book moves.
        #[arg(long, default_value_t = 10_000)]
        positions: usize,
    },
    /// Write a book in another format: ours (xqb), ElephantEye's BOOK.DAT
    /// (eleeye) or BHGUI's .obk (obk). The book (any of those formats) is
    /// walked from the start position through its moves, and through up to
    /// --max-gap moves in a row that are not in it.
    Export {
        /// The book to read: ours, a BOOK.DAT or an .obk (with --obk-keys).
        book: PathBuf,
        #[command(flatten)]
        keys: ObkKeysArg,
        /// The format to write.
        #[arg(long, value_enum)]
        format: ExportFormat,
        /// The file to write (written whole or not at all).
        #[arg(short, long)]
        output: PathBuf,
        /// Moves in a row outside the book the walk goes through.
        #[arg(long, default_value_t = 1)]
        max_gap: u32,
    },
    /// Analyse a book of ours: search every book position and every
    /// position a book move leads to, add the search's best move where the
    /// book lacks it, back the scores up through the book, and write the
    /// analysis beside it (BOOK with the extension .xqa), where the engine
    /// and the server find it. A journal (.xqa.journal) keeps every search,
    /// so a run that is stopped goes on where it stopped when run again.
    Analyse(Box<AnalyseArgs>),
    /// Judge the moves the engine plays from a book by a deeper search:
    /// both sides play the book from the start as the engine does (every
    /// move with at least --min-share of its choices), each position is
    /// searched to --depth and each move played there one ply less deep
    /// after it. Says how many moves fall 50 and 100 cp below the best, and
    /// the loss per move weighted by its share: by weight, and with the
    /// book's analysis when it has one.
    Quality(QualityArgs),
    /// Merge books into one, adding up the statistics of shared moves.
    Merge {
        /// The merged book to write.
        #[arg(short, long)]
        output: PathBuf,
        /// The books to merge.
        #[arg(required = true, num_args = 2..)]
        books: Vec<PathBuf>,
    },
}

#[derive(clap::Args)]
struct AnalyseArgs {
    /// The book to analyse (ours: convert others with `export --format xqb`).
    book: PathBuf,
    /// Nodes searched a position (the default budget: 200,000).
    #[arg(long, group = "budget")]
    nodes: Option<u64>,
    /// Depth searched a position, instead of nodes.
    #[arg(long, group = "budget")]
    depth: Option<u32>,
    /// Milliseconds a position, instead of nodes (results then vary from
    /// run to run).
    #[arg(long, group = "budget")]
    movetime: Option<u64>,
    /// Search the positions before this ply with --deep-nodes instead: the
    /// lines every game goes through, searched deeper.
    #[arg(long, requires = "deep_nodes")]
    deep_plies: Option<usize>,
    /// Nodes a position before --deep-plies.
    #[arg(long, requires = "deep_plies")]
    deep_nodes: Option<u64>,
    /// Refine the engine's own lines before this ply: from the start, both
    /// sides playing every move within --refine-margin of the best, each
    /// position and the positions its moves lead to searched at
    /// --refine-nodes, the best move added where missing, until the moves
    /// within the margin stay the same. Repeat with --refine-nodes for
    /// tiers: e.g. 30 plies at 4M nodes, and the first 10 at 10M.
    #[arg(long, requires = "refine_nodes")]
    refine_plies: Vec<usize>,
    /// Nodes a position of the refined lines (one for each --refine-plies,
    /// in order).
    #[arg(long, requires = "refine_plies")]
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
    #[arg(long, requires = "together_depth")]
    together_plies: Option<usize>,
    /// Depth of the searches that score moves together.
    #[arg(long, requires = "together_plies")]
    together_depth: Option<u32>,
    /// Score each move scored together by the mean of its scores at the
    /// search's last N depths (1: its last depth's score). One depth's
    /// scores swing by tens of centipawns from the next; their mean tells
    /// moves apart by their worth.
    #[arg(long, default_value_t = 1, value_parser = clap::value_parser!(u32).range(1..=64))]
    together_average: u32,
    /// Searches at once [default: every core].
    #[arg(long)]
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
    #[arg(long, value_name = "N")]
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

#[derive(clap::Args)]
struct QualityArgs {
    /// The book (ours; its analysis, BOOK.xqa, is judged too when present).
    book: PathBuf,
    /// Depth of the judging search.
    #[arg(long, default_value_t = 16)]
    depth: u32,
    /// Judge positions before this ply.
    #[arg(long, default_value_t = 8)]
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
    #[arg(long)]
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

/// Book formats `export` writes.
#[derive(Clone, Copy, clap::ValueEnum)]
enum ExportFormat {
    /// Ours.
    Xqb,
    /// ElephantEye's BOOK.DAT.
    Eleeye,
    /// BHGUI's .obk (a SQLite database; needs --obk-keys).
    Obk,
}

/// BHGUI's key table, for reading or writing .obk books.
#[derive(clap::Args)]
struct ObkKeysArg {
    /// BHGUI's Zobrist key table, needed for .obk books: a text file of
    /// 3,585 numbers (the 14x256 piece-square keys, then the side key),
    /// checked against the start position's key. docs/serve.md says where
    /// to get it.
    #[arg(long, value_name = "FILE")]
    obk_keys: Option<PathBuf>,
}

impl ObkKeysArg {
    /// The key table, or why there is none.
    fn load(&self, purpose: &str) -> Outcome<ObkKeys> {
        let path = self.obk_keys.as_ref().ok_or_else(|| {
            format!("{purpose} needs --obk-keys FILE, BHGUI's key table (see docs/serve.md)")
        })?;
        Ok(ObkKeys::read(path)?)
    }
}

#[derive(clap::Args)]
struct BuildArgs {
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

/// How record files are read, for `build` and `import`.
#[derive(clap::Args)]
struct ReadArgs {
    /// Text encoding of the records (default: detected per file).
    #[arg(long, value_parser = parse_encoding)]
    encoding: Option<TextEncoding>,
    /// Also take the variations of XQF files, each line as a game.
    #[arg(long)]
    variations: bool,
    /// No progress bar.
    #[arg(long, short)]
    quiet: bool,
}

#[derive(Clone, Copy, ValueEnum)]
enum Side {
    Red,
    Black,
    Both,
}

fn parse_encoding(s: &str) -> Result<TextEncoding, xqrecords::encoding::UnknownEncoding> {
    s.parse()
}

/// What a command gives: nothing, or the error `main` prints. The
/// library's errors name their files; the messages made here name theirs.
type Outcome<T = ()> = Result<T, Box<dyn std::error::Error>>;

fn main() -> ExitCode {
    let cli = Cli::parse();
    xqcli::remove_unfinished_files_on_interrupt("bookgen");
    let outcome = match cli.command {
        Command::Build(args) => build(args),
        Command::Import {
            obk: Some(obk),
            output: Some(output),
            keys,
            ..
        } => import_obk(&obk, &keys, &output),
        Command::Import {
            db: Some(db),
            inputs,
            read,
            ..
        } => import(&db, &inputs, &read),
        Command::Import { .. } => unreachable!("clap requires --db or --obk --output"),
        Command::Probe { book, fen, moves } => probe(&book, fen.as_deref(), &moves),
        Command::Stats { book } => stats(&book),
        Command::Merge { output, books } => merge(&output, &books),
        Command::Export {
            book,
            keys,
            format,
            output,
            max_gap,
        } => export(&book, &keys, format, &output, max_gap),
        Command::Bench { book, positions } => bench(&book, positions),
        Command::Analyse(args) => analyse(&args),
        Command::Quality(args) => quality(&args),
    };
    match outcome {
        Ok(()) => ExitCode::SUCCESS,
        Err(e) => {
            eprintln!("bookgen: {e}");
            ExitCode::FAILURE
        }
    }
}

fn analyse(args: &AnalyseArgs) -> Outcome {
    let started = Instant::now();
    let book = match xqbook::open(&args.book)? {
        AnyBook::Ours(book) => book,
        AnyBook::Eleeye(_) => {
            return Err(format!(
                "{}: ElephantEye's BOOK.DAT holds no games to analyse; write it as ours first \
                 (bookgen export --format xqb)",
                args.book.display()
            )
            .into())
        }
    };
    if args.refine_plies.len() != args.refine_nodes.len() {
        return Err(format!(
            "--refine-plies given {} times and --refine-nodes {}: one of each a tier",
            args.refine_plies.len(),
            args.refine_nodes.len()
        )
        .into());
    }
    let budget = match (args.nodes, args.depth, args.movetime) {
        (_, Some(d), _) => Budget::Depth(d),
        (_, _, Some(ms)) => Budget::Millis(ms),
        (n, _, _) => Budget::Nodes(n.unwrap_or(200_000)),
    };
    let net = net_option(&args.net)?;
    let tables = xqcli::data::open_tables_option(args.tables.as_deref())?.map(|(tb, _)| tb);
    let threads = all_cores(args.threads);
    let cfg = AnalyseConfig {
        budget,
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
        threads,
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
    };
    if let Some(shards) = args.plan {
        return plan_analysis(args, shards.max(1));
    }
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
    let stop = std::sync::atomic::AtomicBool::new(false);
    let summary = bookgen::analyse::analyse(&book, args.output.as_deref(), &cfg, &stop, &|p| {
        bar.set_length(p.to_search as u64);
        bar.set_position(p.searched as u64);
        bar.set_message(format!("{} moves added", p.grown));
    })?;
    bar.finish_and_clear();
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

/// The net a command asks for: a file, `builtin` or `hce` (none).
fn net_option(net: &Path) -> Outcome<Option<Arc<xqnnue::Network>>> {
    Ok(match net.to_str() {
        Some("hce") => None,
        Some("builtin") => Some(Arc::new(xqnnue::Network::embedded().clone())),
        _ => Some(Arc::new(xqnnue::Network::load(net)?)),
    })
}

fn all_cores(threads: Option<usize>) -> usize {
    threads.unwrap_or_else(|| std::thread::available_parallelism().map_or(1, |n| n.get()))
}

/// The games of `analyse --grow-from`, their moves from their start.
fn games_to_grow_from(
    inputs: &[PathBuf],
    quiet: bool,
) -> Outcome<Vec<(Position, Vec<xqcore::Move>)>> {
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
fn plan_analysis(args: &AnalyseArgs, shards: u32) -> Outcome {
    if args.makefile.is_none() && args.slurm.is_none() {
        return Err("--plan writes a --makefile FILE, a --slurm FILE or both: name one".into());
    }
    let output = args
        .output
        .clone()
        .unwrap_or_else(|| xqbook::analysis_path(&args.book));
    let mut options = vec![match (args.nodes, args.depth, args.movetime) {
        (_, Some(d), _) => format!("--depth {d}"),
        (_, _, Some(ms)) => format!("--movetime {ms}"),
        (n, _, _) => format!("--nodes {}", n.unwrap_or(200_000)),
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
    let options = options.join(" ");
    let write = |path: &Path, text: String| -> Outcome {
        xqstore::write_whole(path, |_, f| std::io::Write::write_all(f, text.as_bytes()))
            .map_err(|e| format!("{}: {e}", path.display()))?;
        out!("{} written", path.display());
        Ok(())
    };
    if let Some(path) = &args.makefile {
        write(
            path,
            bookgen::analyse::makefile(&args.book, &output, shards, &options),
        )?;
    }
    if let Some(path) = &args.slurm {
        write(
            path,
            bookgen::analyse::slurm(&args.book, &output, shards, &options),
        )?;
    }
    Ok(())
}

fn quality(args: &QualityArgs) -> Outcome {
    let started = Instant::now();
    if let AnyBook::Eleeye(_) = xqbook::open(&args.book)? {
        return Err(format!("{}: judge books of ours", args.book.display()).into());
    }
    if args.analysed_only && !xqbook::analysis_path(&args.book).is_file() {
        return Err(format!("{}: no analysis beside it to judge", args.book.display()).into());
    }
    let net = net_option(&args.net)?;
    let external = args.judge.as_ref().map(|command| xqmatch::EngineSpec {
        options: args.judge_option.clone(),
        ..xqmatch::EngineSpec::new(command)
    });
    let (engine_name, net_name) = match &external {
        // Started once here to learn the name its journal is kept under.
        Some(spec) => (
            xqmatch::EngineProcess::start(spec)
                .map_err(|e| format!("--judge: {e}"))?
                .name
                .clone(),
            "its own".to_string(),
        ),
        None => (
            format!("xqengine {}", env!("CARGO_PKG_VERSION")),
            bookgen::analyse::net_name(net.as_deref()),
        ),
    };
    let cfg = QualityConfig {
        depth: args.depth,
        max_ply: args.max_ply,
        min_share: args.min_share,
        variety: args.selectivity.into(),
        margin: args.margin,
        analysed_only: args.analysed_only,
        searches: Searches {
            threads: all_cores(args.threads),
            net: net.clone(),
            tables: None,
            hash_mb: args.hash,
            external,
        },
        journal: args.journal.clone(),
        engine_name: engine_name.clone(),
        net_name,
        scoring: if args.separate {
            Scoring::Separate
        } else {
            Scoring::MultiPv
        },
    };
    let (by_weight, analysed) = bookgen::quality::judge(&args.book, &cfg)?;
    out!(
        "judged by {engine_name} at depth {}, positions before ply {}, moves with a share of at least {} \
         at selectivity {}, {}",
        args.depth,
        args.max_ply,
        args.min_share,
        args.selectivity.to_possible_value().expect("not skipped").get_name(),
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
    for (name, j) in &rows {
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
        if args.list {
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
    }
    out!("{:.0} s", started.elapsed().as_secs_f64());
    Ok(())
}

fn build(args: BuildArgs) -> Outcome {
    if !(0.0..=1.0).contains(&args.min_score) {
        return Err(format!("--min-score {} is not within 0..1", args.min_score).into());
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
fn refuse_empty(report: &Report, no_entries: bool, args: &BuildArgs) -> Outcome {
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
        return Err(format!(
            "{}: not written: {why}; nothing to build a book from (--allow-empty writes an empty book)",
            args.output.display()
        )
        .into());
    }
    if no_entries {
        return Err(format!(
            "{}: not written: no position of the {} games read passes the filters (--min-games {}, \
             --max-ply {}, --side, --min-score {}); --allow-empty writes an empty book",
            args.output.display(),
            report.games,
            args.min_games,
            args.max_ply,
            args.min_score
        )
        .into());
    }
    Ok(())
}

/// A progress bar over the bytes of `files` (hidden when quiet).
fn progress(files: &[PathBuf], quiet: bool) -> ProgressBar {
    if quiet {
        return ProgressBar::hidden();
    }
    let bytes = files
        .iter()
        .filter_map(|f| std::fs::metadata(f).ok())
        .map(|m| m.len())
        .sum();
    let bar = ProgressBar::new(bytes);
    bar.set_style(
        ProgressStyle::with_template("{bar:30} {bytes}/{total_bytes} {eta} {wide_msg}")
            .expect("a valid template"),
    );
    bar
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

fn probe(path: &Path, fen: Option<&str>, moves: &[String]) -> Outcome {
    let book = xqbook::open(path)?;
    let mut pos = match fen {
        Some(f) => Position::from_fen(f).map_err(|e| format!("--fen: {e}"))?,
        None => Position::start(),
    };
    for (i, token) in moves.iter().enumerate() {
        let m =
            parse_and_resolve(&pos, token).map_err(|e| format!("--moves, move {}: {e}", i + 1))?;
        pos.make_move(m);
    }
    let found = book.probe(&pos)?;
    if let AnyBook::Ours(ours) = &book {
        if let Some(analysis) = open_analysis(path, ours) {
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

/// The analysis beside a book, when it has one; one it cannot use is
/// named on standard error.
fn open_analysis(book_path: &Path, book: &Book) -> Option<xqbook::Analysis> {
    let at = xqbook::analysis_path(book_path);
    if !at.is_file() {
        return None;
    }
    xqbook::Analysis::open(&at, book)
        .map_err(|e| eprintln!("bookgen: analysis not used: {e}"))
        .ok()
}

/// An analysed position: its value and search, then each move best first
/// with its backed-up score, the book behind it and its games.
fn print_analysed(a: &xqbook::PositionAnalysis, found: &[WeightedMove]) {
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

fn stats(path: &Path) -> Outcome {
    let book = match xqbook::open(path)? {
        AnyBook::Ours(book) => book,
        AnyBook::Eleeye(book) => return eleeye_stats(&book),
    };
    let info = book.info();
    let mut positions = 0u64;
    let mut games = 0u64;
    for block in book.positions() {
        let block = block?;
        positions += block.len() as u64;
        games += block
            .iter()
            .flat_map(|p| p.1.iter())
            .map(|m| u64::from(m.games))
            .sum::<u64>();
    }
    let bytes = std::fs::metadata(path)
        .map_err(|e| format!("{}: {e}", path.display()))?
        .len();
    out!("file {}", path.display());
    out!("format {}", BookFormat::Xqbook);
    out!("positions {positions}");
    out!("entries {}", info.entries);
    out!("blocks {}", info.blocks);
    out!("game moves counted {games}");
    out!(
        "bytes {bytes} ({:.2} per entry)",
        bytes as f64 / info.entries.max(1) as f64
    );
    out!("description {}", info.description);
    if let Some(a) = open_analysis(path, &book) {
        let h = a.header();
        let moves: usize = a.positions().values().map(|p| p.moves.len()).sum();
        let added: usize = a
            .positions()
            .values()
            .flat_map(|p| &p.moves)
            .filter(|m| !m.in_book)
            .count();
        out!(
            "analysis {}: {} positions, {moves} moves ({added} added), {} searched at {} by {} with {}",
            a.path().display(),
            a.len(),
            h.searched,
            h.budget,
            h.engine,
            h.net
        );
    }
    Ok(())
}

/// `stats` of an ElephantEye book: what such a file holds.
fn eleeye_stats(book: &EleeyeBook) -> Outcome {
    let path = book.path();
    let bytes = std::fs::metadata(path)
        .map_err(|e| format!("{}: {e}", path.display()))?
        .len();
    out!("file {}", path.display());
    out!("format {}", BookFormat::Eleeye);
    out!(
        "positions {} (a position and its mirror image count apart)",
        book.positions()
    );
    out!("entries {}", book.len());
    out!("bytes {bytes} (8 per entry)");
    Ok(())
}

fn merge(output: &Path, inputs: &[PathBuf]) -> Outcome {
    let mut all: BTreeMap<u64, BTreeMap<u16, BookMove>> = BTreeMap::new();
    for path in inputs {
        let book = Book::open(path)?;
        for block in book.positions() {
            for (key, moves) in block? {
                let entry = all.entry(key).or_default();
                for m in moves {
                    let slot = entry.entry(m.mv.to_u16()).or_insert(BookMove {
                        games: 0,
                        wins: 0,
                        draws: 0,
                        losses: 0,
                        ..m
                    });
                    slot.games += m.games;
                    slot.wins += m.wins;
                    slot.draws += m.draws;
                    slot.losses += m.losses;
                }
            }
        }
    }
    let positions: Vec<(u64, Vec<BookMove>)> = all
        .into_iter()
        .map(|(key, moves)| {
            let mut moves: Vec<BookMove> = moves.into_values().collect();
            moves.sort_by(|a, b| b.games.cmp(&a.games).then(a.mv.cmp(&b.mv)));
            (key, moves)
        })
        .collect();
    let names: Vec<String> = inputs.iter().map(|p| p.display().to_string()).collect();
    let summary = write_book(
        output,
        &positions,
        &format!("merged from {}", names.join(", ")),
    )?;
    out!(
        "positions {}, entries {}, {} bytes",
        summary.positions,
        summary.entries,
        summary.bytes
    );
    Ok(())
}

/// Whether `path` is a SQLite database (an .obk book), by its first bytes.
fn is_sqlite(path: &Path) -> bool {
    use std::io::Read;
    let mut magic = [0u8; 16];
    std::fs::File::open(path)
        .and_then(|mut f| f.read_exact(&mut magic))
        .is_ok_and(|()| &magic == b"SQLite format 3\0")
}

/// The positions of the book at `input` (any format), walked from the start.
fn walk_book(input: &Path, keys: &ObkKeysArg, max_gap: u32) -> Outcome<Walked> {
    if is_sqlite(input) {
        let keys = keys.load(&format!("reading {}", input.display()))?;
        let book = ObkBook::open(input, &keys)?;
        out!(
            "{}: {} rows read, {} unreadable rows skipped",
            input.display(),
            book.rows(),
            book.skipped()
        );
        return Ok(walk(|p| book.probe(p), max_gap, usize::MAX));
    }
    let book = xqbook::open(input)?;
    Ok(walk(|p| book_moves(&book, p), max_gap, usize::MAX))
}

fn export(
    input: &Path,
    keys: &ObkKeysArg,
    format: ExportFormat,
    output: &Path,
    max_gap: u32,
) -> Outcome {
    // Checked before the walk, which can take a while.
    let obk_keys = match format {
        ExportFormat::Obk => Some(keys.load("--format obk")?),
        _ => None,
    };
    let walked = walk_book(input, keys, max_gap)?;
    let moves: usize = walked.iter().map(|w| w.1.len()).sum();
    let written = match (format, obk_keys) {
        (ExportFormat::Obk, Some(keys)) => write_obk(output, &keys, &walked)?,
        // The system's error does not say which file; the others do.
        (ExportFormat::Eleeye, _) => {
            write_eleeye(output, &walked).map_err(|e| format!("{}: {e}", output.display()))?
        }
        _ => {
            let describe = format!("exported from {}", input.display());
            write_book(output, &our_entries(&walked), &describe)?.entries as usize
        }
    };
    out!(
        "{} positions, {moves} moves walked from the start; {written} entries written to {}",
        walked.len(),
        output.display()
    );
    Ok(())
}

/// `import --obk`: an .obk book written as ours.
fn import_obk(obk: &Path, keys: &ObkKeysArg, output: &Path) -> Outcome {
    if !is_sqlite(obk) {
        return Err(format!(
            "{}: not a BHGUI .obk book (not a SQLite database)",
            obk.display()
        )
        .into());
    }
    export(obk, keys, ExportFormat::Xqb, output, 1)
}

fn bench(path: &Path, limit: usize) -> Outcome {
    let book = Book::open(path)?;
    let positions = book_positions(&book, limit.max(1))?;
    let (median, p90) = probe_latency(&book, &positions)?;
    out!(
        "{} positions probed warm: median {median:.2} us, 90th percentile {p90:.2} us",
        positions.len()
    );
    Ok(())
}

/// Reads the record files with a progress bar over their bytes. Files for
/// which `skip` says so are passed over; `each` gets what every other file
/// gave, after its unreadable games are listed (at most `show` lines in
/// all). A file that cannot be read at all is reported and passed over.
fn read_files(
    files: &[PathBuf],
    read: &ReadArgs,
    show: usize,
    mut skip: impl FnMut(&Path) -> Outcome<bool>,
    mut each: impl FnMut(&Path, Records) -> Outcome,
) -> Outcome {
    let bar = progress(files, read.quiet);
    let mut done = 0;
    let mut shown = 0;
    for path in files {
        bar.set_message(path.display().to_string());
        if !skip(path)? {
            let options = ReadOptions {
                encoding: read.encoding,
                variations: read.variations,
            };
            match read_file(path, &options, &|n| bar.inc(n)) {
                Ok(games) => {
                    for e in games.errors.iter().take(show.saturating_sub(shown)) {
                        bar.suspend(|| eprintln!("skipped: {}: {e}", path.display()));
                        shown += 1;
                    }
                    each(path, games)?;
                }
                Err(e) => bar.suspend(|| eprintln!("bookgen: skipping {e}")),
            }
        }
        // Whatever the file gave, it is done: unreadable or skipped files too.
        done += std::fs::metadata(path).map_or(0, |m| m.len());
        bar.set_position(done);
    }
    bar.finish_and_clear();
    Ok(())
}

fn games_from_files(args: &BuildArgs, report: &mut Report) -> Outcome<Vec<GameMoves>> {
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

fn games_from_db(db: &Path, report: &mut Report) -> Outcome<Vec<GameMoves>> {
    if !db.is_file() {
        return Err(format!("{}: no such game database", db.display()).into());
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

fn import(db: &Path, inputs: &[PathBuf], read: &ReadArgs) -> Outcome {
    let started = Instant::now();
    let files = record_files(inputs)?;
    let store = std::cell::RefCell::new(GameDb::open(db)?);
    let (mut added, mut duplicates, mut skipped, mut unchanged) = (0, 0, 0, 0);
    read_files(
        &files,
        read,
        usize::MAX,
        |path| {
            let known = store.borrow().is_imported(path)?;
            unchanged += usize::from(known);
            Ok(known)
        },
        |path, games| {
            skipped += games.errors.len();
            let done = store.borrow_mut().import(path, &games.games)?;
            added += done.added;
            duplicates += done.duplicates;
            Ok(())
        },
    )?;
    out!(
        "files {}, unchanged since last import {unchanged}, games added {added}, duplicates {duplicates}, skipped {skipped}, games in database {}, {:.2} s",
        files.len(),
        store.borrow().count()?,
        started.elapsed().as_secs_f64()
    );
    Ok(())
}

#[cfg(test)]
mod tests {
    xqcli::help_test!(super::Cli);
}
