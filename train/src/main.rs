//! `xqtrain`: self-play data, and the two trainers of the engine's
//! evaluation that learn from it: Texel tuning of the hand-crafted weights,
//! and the NNUE.

use std::fs::OpenOptions;
use std::path::{Path, PathBuf};
use std::process::ExitCode;

use clap::{Args, Parser, Subcommand};
use xqcli::out;
use xqlearn::Trainer;
use xqnnue::{Architecture, FeatureSet};
use xqrecords::load_openings;

#[derive(Parser)]
#[command(
    name = "xqtrain",
    version,
    about = "Training tools for xqengine's evaluation: self-play data, Texel tuning of the hand-crafted weights, and NNUE training"
)]
struct Cli {
    #[command(subcommand)]
    command: Command,
}

#[derive(Subcommand)]
enum Command {
    /// Play fast self-play games and append them, every searched move with
    /// its score, to a games file: the data of `nnue` and `tune`.
    Datagen(DatagenArgs),
    /// Fit the evaluation weights to labelled positions (Texel tuning) and
    /// write them as Rust source.
    Tune(TuneArgs),
    /// Train the NNUE on games from `datagen`: resumes from the checkpoint
    /// when there is one, writes it and the quantised net after each epoch.
    Nnue(NnueArgs),
    /// Measure checkpoints' loss on the same games, e.g. ones none of them
    /// was trained on, so that nets from rounds on different data compare.
    Loss(LossArgs),
    /// Offer games to a reservoir: a uniform random sample of every game
    /// ever offered, small enough to commit (`nnue` reads it as a games
    /// file), so that past sessions' self-play outlives their machines.
    Reservoir(ReservoirArgs),
}

/// Arguments of `xqtrain reservoir`.
#[derive(Args)]
struct ReservoirArgs {
    /// The reservoir file (created when missing).
    reservoir: PathBuf,
    /// Games files (from `datagen`) whose games are offered; a file cut
    /// short by a killed run offers the games before the damage.
    #[arg(long, num_args = 1..)]
    add: Vec<PathBuf>,
    /// Most games kept [default: the reservoir's own, 10,000 for a new
    /// one]; a smaller one drops games at random.
    #[arg(long)]
    keep: Option<u32>,
    /// Seed of the random choices (with the count offered before).
    #[arg(long, default_value_t = 1)]
    seed: u64,
}

/// Arguments of `xqtrain nnue`.
#[derive(Args)]
struct NnueArgs {
    /// Games files (from `datagen`).
    #[arg(required = true)]
    data: Vec<PathBuf>,
    /// Game records (PGN in any notation, or XQF) whose quiet positions
    /// join the training positions, judged by their game's result alone.
    #[arg(long)]
    pgn: Vec<PathBuf>,
    /// Checkpoint: training resumes from it when it exists and is
    /// rewritten after every epoch.
    #[arg(long, default_value = "nnue/train/checkpoint.xqck")]
    checkpoint: PathBuf,
    /// Start afresh even if the checkpoint exists (it is overwritten).
    #[arg(long)]
    fresh: bool,
    /// Start a new round of training from this checkpoint's net (its
    /// parameters and optimiser state; epochs count from 0 again), e.g.
    /// the committed one on a session's new games. Used when --checkpoint
    /// (which must be another file) does not exist yet, or with --fresh;
    /// otherwise the round resumes from --checkpoint.
    #[arg(long, value_name = "CHECKPOINT")]
    init_from: Option<PathBuf>,
    /// Where the quantised net is written after every epoch.
    #[arg(long, default_value = "nnue/nets/default.xqnn")]
    out: PathBuf,
    /// Hidden neurons a perspective of a new net (a multiple of 32 up to
    /// 1,024) [default: 256]. With --init-from, a wider net than the
    /// checkpoint's grows it (new neurons that add nothing until trained);
    /// a resumed net keeps its own width, and giving another is an error.
    #[arg(long)]
    hidden: Option<usize>,
    /// Inputs of a new net: piece-square, or king-square (the piece-square
    /// inputs once for each square of the side's own king) [default:
    /// piece-square]. With --init-from, king-square grows a piece-square
    /// checkpoint's net (its columns become the factor every king square
    /// adds); a resumed net keeps its own.
    #[arg(long)]
    features: Option<FeatureSet>,
    /// Epochs in all (a resumed run goes on up to this many).
    #[arg(long, default_value_t = 20)]
    epochs: u32,
    /// Positions per optimiser step.
    #[arg(long, default_value_t = 16_384)]
    batch_size: usize,
    /// AdamW learning rate.
    #[arg(long, default_value_t = 0.001)]
    learning_rate: f32,
    /// Multiply the learning rate by --lr-gamma every this many epochs.
    #[arg(long, default_value_t = 8)]
    lr_step: u32,
    /// Factor the learning rate is multiplied by every --lr-step epochs.
    #[arg(long, default_value_t = 0.3)]
    lr_gamma: f32,
    #[command(flatten)]
    target: TargetArgs,
    /// Decoupled weight decay.
    #[arg(long, default_value_t = 0.01)]
    weight_decay: f32,
    /// One game in this many is held out for validation (0: none).
    #[arg(long, default_value_t = 20)]
    validation_every: usize,
    /// Threads each batch is spread across.
    #[arg(long, default_value_t = 2)]
    threads: usize,
    /// Seed of the initial weights, the shuffles and the mirroring.
    #[arg(long, default_value_t = 1)]
    seed: u64,
}

/// What a net is trained towards, and on which positions: shared by
/// `nnue` and `loss`, so that `loss` measures what a round minimised.
#[derive(Args)]
struct TargetArgs {
    /// Weight of the game result in the target (the rest: the search score).
    /// 0.2 trained the shipped net; rounds before it used 0.5.
    #[arg(long, default_value_t = xqlearn::LossConfig::default().result_weight)]
    result_weight: f32,
    /// Centipawns of one unit of the logistic mapping scores to results.
    #[arg(long, default_value_t = xqlearn::LossConfig::default().k)]
    k: f32,
    /// Positions scored beyond this many centipawns are left out.
    #[arg(long, default_value_t = 3_000)]
    max_score: i16,
}

impl TargetArgs {
    fn loss(&self) -> xqlearn::LossConfig {
        xqlearn::LossConfig {
            result_weight: self.result_weight.clamp(0.0, 1.0),
            k: self.k.max(1.0),
        }
    }
}

/// Arguments of `xqtrain loss`.
#[derive(Args)]
struct LossArgs {
    /// Games files (from `datagen`) whose positions are scored.
    #[arg(required_unless_present = "pgn")]
    data: Vec<PathBuf>,
    /// Game records (PGN in any notation, or XQF) whose quiet positions are
    /// scored too, judged by their game's result alone: ground that no
    /// self-play net played.
    #[arg(long)]
    pgn: Vec<PathBuf>,
    /// Checkpoints (from `nnue`) to measure: the float model trained.
    #[arg(long, num_args = 1.., required_unless_present = "net")]
    checkpoint: Vec<PathBuf>,
    /// Nets (`.xqnn`, from `nnue --out`) to measure: the integer net the
    /// engine plays with, quantisation included.
    #[arg(long, num_args = 1..)]
    net: Vec<PathBuf>,
    /// Only every this many games, counted over the files in order: the
    /// games `nnue --validation-every N` holds out of the same files, so
    /// that a round's epoch-0 figure is reproduced for any other net.
    #[arg(long, default_value_t = 1)]
    held_out_every: usize,
    #[command(flatten)]
    target: TargetArgs,
}

/// Arguments of `xqtrain datagen`.
#[derive(Args)]
struct DatagenArgs {
    /// Games file the games are appended to (created with its header when
    /// missing; an existing one must be a games file).
    #[arg(long)]
    out: PathBuf,
    /// Number of games.
    #[arg(long, default_value_t = 100)]
    games: usize,
    /// Nodes searched per move.
    #[arg(long, default_value_t = 5_000)]
    nodes: u64,
    /// Games played at once.
    #[arg(long, default_value_t = 2)]
    threads: usize,
    /// Book whose weighted-random moves open each game [default:
    /// data/book.xqb when present].
    #[arg(long, conflicts_with = "openings")]
    book: Option<PathBuf>,
    /// Up to this many book plies (uniformly drawn per game).
    #[arg(long, default_value_t = 16)]
    book_plies: usize,
    /// Openings file instead of a book: one opening a line, ICCS moves
    /// from the start or `fen FEN [moves ...]`, taken in turn.
    #[arg(long)]
    openings: Option<PathBuf>,
    /// Up to this many random plies after the opening (at least half).
    #[arg(long, default_value_t = 8)]
    random_plies: usize,
    /// Seed of the random choices.
    #[arg(long, default_value_t = 1)]
    seed: u64,
    /// Directory of endgame tables: a game reaching them ends with their
    /// exact result [default: data/egtb when present]. `none`: no tables.
    #[arg(long)]
    tables: Option<PathBuf>,
    /// Play with the learned evaluation of this net file (`builtin`: the
    /// net inside the engine) instead of the hand-crafted one.
    #[arg(long)]
    net: Option<PathBuf>,
}

/// Arguments of `xqtrain tune`.
#[derive(Args)]
struct TuneArgs {
    /// Games files (from `datagen`) or files of `FEN | score | result` lines.
    data: Vec<PathBuf>,
    /// Game records (PGN in ICCS, WXF or Chinese notation, any encoding;
    /// or XQF): their quiet positions, labelled with the game results,
    /// join the data.
    #[arg(long)]
    pgn: Vec<PathBuf>,
    /// Where to write the fitted weights (Rust source).
    #[arg(long, default_value = "engine/src/eval/weights.rs")]
    out: PathBuf,
    /// Passes over the data.
    #[arg(long, default_value_t = 1000)]
    epochs: usize,
    /// Adam step size, in centipawns.
    #[arg(long, default_value_t = 1.0)]
    learning_rate: f64,
    /// Weight of the game result in the target (the rest: the recorded score).
    #[arg(long, default_value_t = 0.5)]
    result_weight: f64,
    /// Tune only these weight groups (comma-separated: material, pst,
    /// mobility, king, threats, tempo); the rest stay as they are.
    #[arg(long, value_delimiter = ',')]
    only: Vec<String>,
    /// L2 pull of every weight toward its current value.
    #[arg(long, default_value_t = 1e-8)]
    regularization: f64,
    /// Threads.
    #[arg(long, default_value_t = 2)]
    threads: usize,
}

fn datagen(args: &DatagenArgs) -> ExitCode {
    use xqtrain::datagen::{generate, DatagenConfig, Openings};
    let fail = |what: &dyn std::fmt::Display| {
        eprintln!("xqtrain datagen: {what}");
        ExitCode::from(2)
    };
    let openings = match (&args.openings, &args.book) {
        (Some(path), _) => match load_openings(Some(path)) {
            Ok(lines) => Openings::Lines(lines),
            Err(e) => return fail(&e),
        },
        (None, book) => {
            let path = book.clone().or_else(xqcli::data::default_book);
            // The book's errors name its file.
            match path.map(|p| xqbook::open(&p)) {
                Some(Ok(b)) => Openings::Book(b, args.book_plies),
                Some(Err(e)) => return fail(&e),
                None => match load_openings(None) {
                    Ok(lines) => Openings::Lines(lines),
                    Err(e) => return fail(&e),
                },
            }
        }
    };
    let tables = match xqcli::data::open_tables_option(args.tables.as_deref()) {
        Ok(Some((tb, dir))) => {
            eprintln!("{} tables from {}", tb.len(), dir.display());
            Some(tb)
        }
        Ok(None) => None,
        Err(e) => return fail(&e),
    };
    let net = match args.net.as_deref() {
        None => None,
        Some(p) if p.as_os_str() == "builtin" => Some(xqnnue::Network::embedded().clone()),
        Some(p) => match xqnnue::Network::load(p) {
            Ok(net) => Some(net),
            Err(e) => return fail(&format!("{}: {e}", p.display())),
        },
    };
    if let Some(net) = &net {
        eprintln!("evaluating with net {:08x}", net.checksum());
    }
    let mut file = match open_games_file(&args.out) {
        Ok(f) => f,
        Err(e) => return fail(&format!("{}: {e}", args.out.display())),
    };
    let cfg = DatagenConfig {
        games: args.games,
        nodes: args.nodes.max(1),
        threads: args.threads.max(1),
        random_plies: args.random_plies,
        seed: args.seed,
        tables,
        net: net.map(std::sync::Arc::new),
    };
    let bar = indicatif::ProgressBar::new(args.games as u64);
    bar.set_style(
        indicatif::ProgressStyle::with_template(
            "{bar:30} {pos}/{len} games {per_sec} {eta} {wide_msg}",
        )
        .expect("a valid template"),
    );
    let started = std::time::Instant::now();
    // Without a terminal (a run in the background, its output in a log) the
    // bar is hidden: a line every ten minutes says how far it is instead.
    let logged = std::sync::Mutex::new(started);
    let progress = |s: &xqtrain::datagen::DatagenSummary| {
        bar.set_position(s.games as u64);
        let seconds = started.elapsed().as_secs_f64();
        let rate = s.positions as f64 / seconds;
        bar.set_message(format!(
            "{} positions ({rate:.0}/s), {} ended by tables",
            s.positions, s.by_tables
        ));
        if !bar.is_hidden() {
            return;
        }
        let mut last = logged.lock().unwrap_or_else(|e| e.into_inner());
        if last.elapsed() >= LOG_EVERY {
            *last = std::time::Instant::now();
            eprintln!(
                "{} games, {} positions in {:.0} min: {:.0} games and {:.0} positions an hour",
                s.games,
                s.positions,
                seconds / 60.0,
                s.games as f64 * 3600.0 / seconds,
                rate * 3600.0
            );
        }
    };
    let result = generate(&openings, &cfg, &mut file, &progress);
    bar.finish_and_clear();
    match result {
        Ok(s) => {
            out!(
                "{} games, {} positions ({} games ended by tables) appended to {} in {:.0} s",
                s.games,
                s.positions,
                s.by_tables,
                args.out.display(),
                started.elapsed().as_secs_f64()
            );
            ExitCode::SUCCESS
        }
        Err(e) => {
            eprintln!("xqtrain datagen: {}: {e}", args.out.display());
            ExitCode::FAILURE
        }
    }
}

/// How often a datagen run without a terminal logs its progress.
const LOG_EVERY: std::time::Duration = std::time::Duration::from_secs(600);

/// Opens a games file for appending: a new one gets the header, an
/// existing one must start with it.
fn open_games_file(path: &std::path::Path) -> std::io::Result<std::io::BufWriter<std::fs::File>> {
    use std::io::Read;
    let mut file = OpenOptions::new()
        .create(true)
        .append(true)
        .read(true)
        .open(path)?;
    if file.metadata()?.len() == 0 {
        xqlearn::write_header(&mut file)?;
    } else {
        // A file cut inside the header is not a games file either.
        let mut head = Vec::new();
        (&mut file).take(10).read_to_end(&mut head)?;
        xqlearn::check_header(&head).map_err(std::io::Error::other)?;
    }
    Ok(std::io::BufWriter::new(file))
}

fn tune(args: &TuneArgs) -> ExitCode {
    use xqtrain::tune::{error, fit_k, tune, weights_source, Dataset, TuneConfig, Weights};
    let mut data = Dataset::default();
    for path in &args.data {
        if let Ok(mut file) = std::fs::File::open(path) {
            let mut head = [0u8; 10];
            use std::io::{Read, Seek};
            let games = file.read_exact(&mut head).is_ok()
                && matches!(
                    xqlearn::check_header(&head),
                    Ok(()) | Err(xqlearn::GamesError::Version(_))
                );
            if games && file.rewind().is_ok() {
                match xqlearn::read_games_until_damage(&mut std::io::BufReader::new(file)) {
                    Ok((games, damage)) => {
                        games.iter().for_each(|g| data.add_record(g));
                        if let Some(d) = damage {
                            eprintln!("{}: {d}; the games before it are used", path.display());
                        }
                    }
                    Err(e) => {
                        eprintln!("xqtrain tune: {}: {e}", path.display());
                        return ExitCode::from(2);
                    }
                }
                continue;
            }
        }
        let text = match std::fs::read_to_string(path) {
            Ok(t) => t,
            Err(e) => {
                eprintln!("xqtrain tune: {}: {e}", path.display());
                return ExitCode::from(2);
            }
        };
        let bad = data.add_text(&text, 1);
        for b in bad.iter().take(5) {
            eprintln!("{}:{}: skipped: {}", path.display(), b.line, b.reason);
        }
        if bad.len() > 5 {
            eprintln!(
                "{}: {} more bad lines skipped",
                path.display(),
                bad.len() - 5
            );
        }
    }
    for path in &args.pgn {
        match xqrecords::read_file(path, &xqrecords::ReadOptions::default(), &|_| {}) {
            Ok(records) => {
                let used = records.games.iter().filter(|g| data.add_game(g)).count();
                let skipped = records.games.len() - used + records.errors.len();
                eprintln!(
                    "{}: {used} games used, {skipped} skipped (unreadable or no result)",
                    path.display()
                );
            }
            Err(e) => {
                eprintln!("xqtrain tune: {e}");
                return ExitCode::from(2);
            }
        }
    }
    if data.is_empty() {
        eprintln!("xqtrain tune: no positions");
        return ExitCode::from(2);
    }
    let free = if args.only.is_empty() {
        None
    } else {
        match xqtrain::tune::free_weights(&args.only) {
            Ok(f) => Some(f),
            Err(e) => {
                eprintln!("xqtrain tune: --only: {e}");
                return ExitCode::from(2);
            }
        }
    };
    let start = Weights::current();
    let k = fit_k(&data, &start, args.threads);
    let cfg = TuneConfig {
        result_weight: args.result_weight.clamp(0.0, 1.0),
        epochs: args.epochs,
        learning_rate: args.learning_rate,
        free,
        regularization: args.regularization.max(0.0),
        threads: args.threads.max(1),
    };
    let before = error(&data, &start, k, cfg.result_weight, cfg.threads);
    eprintln!("{} positions, K = {k:.6}, error {before:.6}", data.len());
    let tuned = tune(&data, start, k, &cfg, |epoch, e| {
        eprintln!("epoch {epoch}: error {e:.6}");
    });
    let after = error(&data, &tuned, k, cfg.result_weight, cfg.threads);
    let note = format!(
        "Fitted to {} positions, K = {k:.6}, result weight {}, {} epochs: error {before:.6} -> {after:.6}.",
        data.len(),
        cfg.result_weight,
        cfg.epochs
    );
    let source = weights_source(&tuned.rounded(), &note);
    if let Err(e) = xqlearn::write_atomically(&args.out, source.as_bytes()) {
        eprintln!("xqtrain tune: {}: {e}", args.out.display());
        return ExitCode::FAILURE;
    }
    out!("{note}");
    ExitCode::SUCCESS
}

fn nnue(args: &NnueArgs) -> ExitCode {
    use xqlearn::Filter;
    use xqlearn::TrainConfig;
    let filter = Filter {
        max_score: args.target.max_score,
        validation_every: args.validation_every,
    };
    let mut data = match read_games("nnue", &args.data, &filter) {
        Ok(data) => data,
        Err(code) => return code,
    };
    for path in &args.pgn {
        if let Err(code) = add_records("nnue", path, &mut data) {
            return code;
        }
    }
    if data.train.is_empty() {
        eprintln!("xqtrain nnue: no training positions in the games");
        return ExitCode::from(2);
    }
    eprintln!(
        "{} games{}: {} training positions, {} held out",
        data.games,
        duplicates_note(&data),
        data.train.len(),
        data.validation.len()
    );
    let cfg = TrainConfig {
        loss: args.target.loss(),
        epochs: args.epochs,
        batch_size: args.batch_size.max(1),
        learning_rate: args.learning_rate,
        lr_step: args.lr_step.max(1),
        lr_gamma: args.lr_gamma,
        weight_decay: args.weight_decay,
        threads: args.threads.max(1),
        seed: args.seed,
    };
    if args.init_from.as_ref() == Some(&args.checkpoint) {
        eprintln!(
            "xqtrain nnue: --init-from {} is the round's own --checkpoint: give the round another",
            args.checkpoint.display()
        );
        return ExitCode::from(2);
    }
    let mut trainer = match starting_trainer(args) {
        Ok(t) => t,
        Err(code) => return code,
    };
    if let Err(e) = rayon::ThreadPoolBuilder::new()
        .num_threads(cfg.threads)
        .build_global()
    {
        eprintln!("xqtrain nnue: threads: {e}");
    }
    // A round starts from a trained net: its loss is the mark each epoch
    // must beat to be worth a match.
    if trainer.epoch == 0 && args.init_from.is_some() && !data.validation.is_empty() {
        let before = trainer.loss(&data.validation, &cfg.loss);
        eprintln!(
            "epoch 0/{}: validation {before:.6} (the starting net)",
            cfg.epochs
        );
    }
    while trainer.epoch < cfg.epochs {
        let r = trainer.epoch(&data.train, &data.validation, &cfg);
        let validation = r
            .validation_loss
            .map_or(String::new(), |v| format!(", validation {v:.6}"));
        eprintln!(
            "epoch {}/{}: train {:.6}{validation}, {:.0} samples/s, lr {}",
            r.epoch, cfg.epochs, r.train_loss, r.samples_per_second, r.learning_rate
        );
        if let Some(code) = save(&trainer, &args.checkpoint, &args.out) {
            return code;
        }
    }
    // The net again, for a run that had no epoch left: a checkpoint is
    // exported as it is; one written before the activations were measured
    // (version 2) is measured on these games first.
    if !trainer.activations_measured() && !data.train.is_empty() {
        trainer.measure_activations(&data.train);
        eprintln!("activations measured (the output weights' rounding folded into the biases)");
    }
    if let Some(code) = save(&trainer, &args.checkpoint, &args.out) {
        return code;
    }
    let net = trainer.net();
    out!(
        "net {} ({}, checksum {:08x}) after {} epochs",
        args.out.display(),
        net.architecture(),
        net.checksum(),
        trainer.epoch
    );
    ExitCode::SUCCESS
}

/// The games of `files` as samples, split as `filter` says; the exit code
/// of `command` having said why a file cannot be read.
fn read_games(
    command: &str,
    files: &[PathBuf],
    filter: &xqlearn::Filter,
) -> Result<xqlearn::Dataset, ExitCode> {
    let mut data = xqlearn::Dataset::default();
    for path in files {
        match data.add_file(path, filter) {
            Ok(None) => {}
            Ok(Some(warning)) => eprintln!("xqtrain {command}: {warning}"),
            Err(e) => {
                eprintln!("xqtrain {command}: {e}");
                return Err(ExitCode::from(2));
            }
        }
    }
    Ok(data)
}

/// Adds the quiet positions of the game records in `path` (those with a
/// result) to `data`'s training positions, saying how many; the exit code
/// of `command` having said why the file cannot be read.
fn add_records(command: &str, path: &Path, data: &mut xqlearn::Dataset) -> Result<(), ExitCode> {
    let records = match xqrecords::read_file(path, &xqrecords::ReadOptions::default(), &|_| {}) {
        Ok(records) => records,
        Err(e) => {
            eprintln!("xqtrain {command}: {e}");
            return Err(ExitCode::from(2));
        }
    };
    let (mut used, mut positions) = (0, 0);
    for g in records
        .games
        .iter()
        .filter(|g| g.result != xqcore::GameResult::Unknown)
    {
        positions += data.add_record(&g.start, &g.moves, g.result);
        used += 1;
    }
    let skipped = records.games.len() - used + records.errors.len();
    eprintln!(
        "{}: {used} games, {positions} positions; {skipped} skipped (unreadable or no result)",
        path.display()
    );
    Ok(())
}

/// Says how many games were read twice (and used once), if any.
fn duplicates_note(data: &xqlearn::Dataset) -> String {
    match data.duplicates {
        0 => String::new(),
        n => format!(" ({n} read again and left out)"),
    }
}

fn loss(args: &LossArgs) -> ExitCode {
    let filter = xqlearn::Filter {
        max_score: args.target.max_score,
        validation_every: args.held_out_every.max(1),
    };
    // Every game the filter holds out is scored: all of them by default.
    let mut data = match read_games("loss", &args.data, &filter) {
        Ok(data) => data,
        Err(code) => return code,
    };
    if !args.data.is_empty() {
        eprintln!(
            "{} positions of {} games{}",
            data.validation.len(),
            data.games.div_ceil(filter.validation_every),
            duplicates_note(&data)
        );
    }
    // Only the games held out are scored, and every position of the
    // records: they are read apart, as training positions of their own.
    let mut records = xqlearn::Dataset::default();
    for path in &args.pgn {
        if let Err(code) = add_records("loss", path, &mut records) {
            return code;
        }
    }
    data.validation.append(&mut records.train);
    if data.validation.is_empty() {
        eprintln!("xqtrain loss: no positions to score in the games");
        return ExitCode::from(2);
    }
    if !args.pgn.is_empty() {
        eprintln!("{} positions scored in all", data.validation.len());
    }
    let config = args.target.loss();
    for path in &args.checkpoint {
        let trainer = match read_checkpoint("loss", path) {
            Ok(t) => t,
            Err(code) => return code,
        };
        out!(
            "{}: loss {:.6} (net {:08x}, after epoch {})",
            path.display(),
            trainer.loss(&data.validation, &config),
            trainer.net().checksum(),
            trainer.epoch
        );
    }
    for path in &args.net {
        let net = match xqnnue::Network::load(path) {
            Ok(net) => net,
            Err(e) => {
                eprintln!("xqtrain loss: {}: {e}", path.display());
                return ExitCode::from(2);
            }
        };
        out!(
            "{}: loss {:.6} (net {:08x}, quantised)",
            path.display(),
            xqlearn::quantised_loss(&net, &data.validation, &config),
            net.checksum()
        );
    }
    ExitCode::SUCCESS
}

/// Games a new reservoir keeps: at about 120 plies a game, 4.8 MB before
/// compression.
const RESERVOIR_GAMES: u32 = 10_000;

/// The trainer `nnue` starts from: its own checkpoint resumed; or, when
/// there is none or `--fresh`, a new round from `--init-from` (grown into
/// the shape `--hidden` and `--features` ask for, when that is another) or
/// a new net of `--hidden` neurons.
fn starting_trainer(args: &NnueArgs) -> Result<Trainer, ExitCode> {
    if !args.fresh && args.checkpoint.exists() {
        let t = load_checkpoint(&args.checkpoint, args)?;
        eprintln!(
            "resuming from {} after epoch {}",
            args.checkpoint.display(),
            t.epoch
        );
        return Ok(t);
    }
    let Some(from) = &args.init_from else {
        let hidden = args.hidden.unwrap_or(Architecture::DEFAULT.hidden());
        let features = args.features.unwrap_or(Architecture::DEFAULT.features());
        return match Architecture::new(features, hidden) {
            Ok(arch) => Ok(Trainer::new(arch, args.seed)),
            Err(e) => {
                eprintln!("xqtrain nnue: --hidden {hidden}: {e}");
                Err(ExitCode::from(2))
            }
        };
    };
    let t = read_checkpoint("nnue", from)?;
    eprintln!(
        "a new round from {} (after its epoch {}, step {})",
        from.display(),
        t.epoch,
        t.step
    );
    // A shape asked for that is not the checkpoint's grows its net.
    let arch = t.layout.arch;
    let grown = match Architecture::new(
        args.features.unwrap_or(arch.features()),
        args.hidden.unwrap_or(arch.hidden()),
    ) {
        Ok(asked) if asked == arch => return Ok(t.new_round()),
        Ok(asked) => t.grown(asked, args.seed).map_err(|e| e.to_string()),
        Err(e) => Err(e.to_string()),
    };
    match grown {
        Ok(t) => {
            eprintln!("grown from {arch} into {}", t.layout.arch);
            Ok(t)
        }
        Err(e) => {
            eprintln!("xqtrain nnue: --init-from {}: {e}", from.display());
            Err(ExitCode::from(2))
        }
    }
}

/// A checkpoint, or the exit code of `command` having said why it cannot
/// be read.
fn read_checkpoint(command: &str, path: &Path) -> Result<Trainer, ExitCode> {
    Trainer::load(path).map_err(|e| {
        eprintln!("xqtrain {command}: {}: {e}", path.display());
        ExitCode::from(2)
    })
}

/// A checkpoint to resume (of the shape `--hidden` and `--features` ask
/// for, when given), or the exit code of `nnue` having said why it cannot
/// be.
fn load_checkpoint(path: &Path, args: &NnueArgs) -> Result<Trainer, ExitCode> {
    let t = read_checkpoint("nnue", path)?;
    let arch = t.layout.arch;
    let other = match (args.hidden, args.features) {
        (Some(h), _) if h != arch.hidden() => Some(format!("--hidden {h}")),
        (_, Some(f)) if f != arch.features() => Some(format!("--features {f}")),
        _ => None,
    };
    match other {
        Some(asked) => {
            eprintln!(
                "xqtrain nnue: {} holds a net of {} hidden over {} inputs, not {asked}",
                path.display(),
                arch.hidden(),
                arch.features()
            );
            Err(ExitCode::from(2))
        }
        None => Ok(t),
    }
}

fn reservoir(args: &ReservoirArgs) -> ExitCode {
    use xqlearn::Reservoir;
    let fail = |what: &dyn std::fmt::Display| {
        eprintln!("xqtrain reservoir: {what}");
        ExitCode::from(2)
    };
    let mut reservoir = if args.reservoir.exists() {
        match Reservoir::load(&args.reservoir) {
            Ok(r) => r,
            Err(e) => return fail(&e),
        }
    } else {
        Reservoir::new(args.keep.unwrap_or(RESERVOIR_GAMES))
    };
    if let Some(keep) = args.keep {
        reservoir.set_capacity(keep, args.seed ^ reservoir.offered);
    }
    let mut offered = 0;
    let mut kept = 0;
    for path in &args.add {
        let games = match xqlearn::read_games_file(path) {
            Ok((games, damage)) => {
                if let Some(d) = damage {
                    eprintln!("xqtrain reservoir: {d}");
                }
                games
            }
            Err(e) => return fail(&e),
        };
        offered += games.len();
        kept += reservoir.offer(games, args.seed);
    }
    if let Err(e) = reservoir.save(&args.reservoir) {
        return fail(&format_args!("{}: {e}", args.reservoir.display()));
    }
    let bytes = std::fs::metadata(&args.reservoir).map_or(0, |m| m.len());
    out!(
        "{}: {offered} games offered, {kept} kept; {} games of {} ever offered, {bytes} bytes",
        args.reservoir.display(),
        reservoir.games.len(),
        reservoir.offered
    );
    ExitCode::SUCCESS
}

/// Writes the checkpoint and the quantised net, each whole or not at all;
/// `Some(exit code)` when one cannot be written.
fn save(
    trainer: &xqlearn::Trainer,
    checkpoint: &std::path::Path,
    net: &std::path::Path,
) -> Option<ExitCode> {
    let bytes = trainer.net().to_bytes();
    for (path, bytes) in [(checkpoint, trainer.to_bytes()), (net, bytes)] {
        if let Some(dir) = path.parent().filter(|d| !d.as_os_str().is_empty()) {
            let _ = std::fs::create_dir_all(dir);
        }
        if let Err(e) = xqlearn::write_atomically(path, &bytes) {
            eprintln!("xqtrain nnue: {}: {e}", path.display());
            return Some(ExitCode::FAILURE);
        }
    }
    None
}

fn main() -> ExitCode {
    match Cli::parse().command {
        Command::Datagen(args) => datagen(&args),
        Command::Tune(args) => tune(&args),
        Command::Nnue(args) => nnue(&args),
        Command::Loss(args) => loss(&args),
        Command::Reservoir(args) => reservoir(&args),
    }
}

#[cfg(test)]
mod tests {
    use clap::CommandFactory;

    xqcli::help_test!(super::Cli);

    #[test]
    fn help_names_every_tool_and_what_datagen_feeds() {
        let cli = super::Cli::command();
        let about = cli.get_about().expect("an about text").to_string();
        for tool in ["self-play", "Texel", "NNUE"] {
            assert!(about.contains(tool), "{tool}: {about}");
        }
        let datagen = cli.find_subcommand("datagen").expect("datagen");
        let about = datagen.get_about().expect("an about text").to_string();
        assert!(
            about.contains("`nnue`") && about.contains("`tune`"),
            "{about}"
        );
    }
}
