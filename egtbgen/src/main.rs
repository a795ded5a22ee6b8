//! `egtbgen`: builds, probes, describes and checks xiangqi endgame tables.
//! The work is in the `xqegtb` library; this binary parses arguments,
//! shows progress and reports errors.

use std::path::{Path, PathBuf};
use std::process::ExitCode;
use std::sync::Mutex;
use std::time::Instant;

use clap::{Parser, Subcommand};
use egtbgen::{cluster, jobs, Event, MemoryBound, Progress};
use indicatif::{ProgressBar, ProgressStyle};
use xqcli::out;
use xqcore::Position;
use xqegtb::{
    board_of, Defenders, Material, MaterialClass, Placement, Repetitions, TableFile, Tablebase,
    Value,
};
use xqengine::EvalPreference;

#[derive(Parser)]
#[command(
    name = "egtbgen",
    version,
    about = "Build, probe and check xiangqi endgame tables (retrograde analysis)",
    long_about = "Build, probe and check xiangqi endgame tables.\n\n\
        Tables are named by material with FEN letters, stronger side first, kings included: \
        KRKAABB is king and rook against king, two advisors and two elephants. \
        Each table holds win/draw/loss and the distance to mate in plies for both sides to move.\n\n\
        Rules (Asian): a side with no legal move loses (stalemate too). A side that can only \
        avoid losing by checking for ever loses: such results are reported as by the \
        perpetual-check rule, with distances from 1000 plies up. Where both sides have a rook, \
        horse or cannon, a side that can only avoid losing by chasing one piece for ever, \
        against a side that neither checks nor chases, loses too: results that need this rule \
        have distances from 2000 plies up. Every other repetition is scored as a draw."
)]
struct Cli {
    #[command(subcommand)]
    command: Command,
}

/// Which tables: named ones, every one up to a number of pieces, or a
/// class by attackers and defenders (and every table their captures lead
/// into).
#[derive(clap::Args)]
struct Selection {
    /// Materials, e.g. KRKAABB.
    materials: Vec<String>,
    /// Every table with at most this many pieces, kings included; with
    /// --max-attackers, a bound on that class.
    #[arg(long)]
    max_pieces: Option<usize>,
    /// A class of tables: at most this many attacking pieces (rooks,
    /// horses, cannons, pawns) in all.
    #[arg(long)]
    max_attackers: Option<usize>,
    /// With --max-attackers: at most this many on one side.
    #[arg(long, requires = "max_attackers")]
    attackers_per_side: Option<usize>,
    /// With --max-attackers: advisors and elephants: none, any (0 to 2 of
    /// each, on each side), or full (all four on both sides).
    #[arg(long, value_enum, default_value_t = DefendersArg::Any)]
    defenders: DefendersArg,
}

#[derive(Clone, Copy, clap::ValueEnum)]
enum DefendersArg {
    None,
    Any,
    Full,
}

impl Selection {
    /// The tables selected (not yet with their dependencies).
    fn targets(&self) -> Result<Vec<Material>, String> {
        let mut targets = parse_materials(&self.materials)?;
        if let Some(n) = self.max_pieces {
            if !(3..=xqegtb::MAX_PIECES).contains(&n) {
                return Err(format!(
                    "--max-pieces {n}: tables have 3 to {} pieces",
                    xqegtb::MAX_PIECES
                ));
            }
        }
        match self.max_attackers {
            Some(attackers) => {
                let class = MaterialClass {
                    max_attackers: attackers,
                    max_attackers_per_side: self.attackers_per_side.unwrap_or(attackers),
                    defenders: match self.defenders {
                        DefendersArg::None => Defenders::None,
                        DefendersArg::Any => Defenders::Any,
                        DefendersArg::Full => Defenders::Full,
                    },
                    max_pieces: self.max_pieces.unwrap_or(usize::MAX),
                };
                targets.extend(class.materials());
            }
            None => targets.extend(self.max_pieces.map(Material::all_up_to).unwrap_or_default()),
        }
        if targets.is_empty() {
            return Err(
                "nothing selected: name materials (like KRKAABB), or give --max-pieces or --max-attackers"
                    .into(),
            );
        }
        let big: Vec<String> = targets
            .iter()
            .filter(|m| m.piece_count() > xqegtb::MAX_PIECES)
            .map(|m| m.to_string())
            .collect();
        if let Some(first) = big.first() {
            return Err(format!(
                "{first} and {} more: tables have at most {} pieces (--max-pieces {} leaves them out)",
                big.len() - 1,
                xqegtb::MAX_PIECES,
                xqegtb::MAX_PIECES
            ));
        }
        Ok(targets)
    }
}

#[derive(Subcommand)]
enum Command {
    /// Build tables and every smaller table their captures lead into.
    Gen {
        /// Directory to write the tables to (created if missing). Tables
        /// already there are kept, so an interrupted build can be rerun.
        #[arg(short, long)]
        output: PathBuf,
        #[command(flatten)]
        selection: Selection,
        /// Worker threads (default: all cores).
        #[arg(long)]
        threads: Option<usize>,
        /// What the solver may hold in memory, e.g. 256M or 8G: a table
        /// past it keeps its two-byte cells and its solution in scratch
        /// files mapped into memory (paged by the kernel, whose cache of
        /// them it takes back under pressure), and the repetition rules'
        /// candidate lists go there too once they would pass it; only the
        /// bit-packed state and the smaller tables stay in memory.
        /// Default: no bound.
        #[arg(long, value_parser = parse_bytes)]
        max_memory: Option<u64>,
        /// Where the scratch files go (removed as soon as they are made;
        /// default: the output directory).
        #[arg(long, requires = "max_memory")]
        scratch: Option<PathBuf>,
        /// No progress bars.
        #[arg(short, long)]
        quiet: bool,
    },
    /// Write the jobs that build a set of tables, one `egtbgen gen` per
    /// table, for make (`make -j N`) or Slurm (job arrays by dependency
    /// level), and print what each table is estimated to cost.
    Plan {
        #[command(flatten)]
        selection: Selection,
        /// The directory the jobs write the tables to.
        #[arg(short, long, default_value = "tables")]
        output: String,
        /// Write a Makefile here.
        #[arg(long)]
        makefile: Option<PathBuf>,
        /// Write a Slurm submission script here.
        #[arg(long)]
        slurm: Option<PathBuf>,
        /// Instead, report which tables of the set are in the output
        /// directory, and for each missing one why, from its Slurm job's
        /// output (killed for memory, with its estimate and request;
        /// failed; never run); exits with status 1 when one is missing.
        /// The Slurm script runs this last.
        #[arg(long, conflicts_with_all = ["makefile", "slurm"])]
        report: bool,
        /// Also play the Slurm script out on a cluster of identical nodes,
        /// NODESxCORESxMEMORY (e.g. 8x64x256G), and print its wall time;
        /// may be given more than once.
        #[arg(long = "cluster", value_name = "NODESxCORESxMEMORY")]
        clusters: Vec<cluster::Cluster>,
        /// With --cluster: cores a job (the script's CPUS).
        #[arg(long, default_value_t = cluster::MEASURED.cpus_per_job, requires = "clusters")]
        cpus_per_job: u32,
        /// With --cluster: positions a job solves a second per core it
        /// holds [default: measured on Slurm, docs/egtb-sets.md].
        #[arg(long, requires = "clusters")]
        rate: Option<f64>,
        /// With --cluster: seconds Slurm takes to start a job in a finished
        /// one's place [default: measured].
        #[arg(long, requires = "clusters")]
        seconds_between_jobs: Option<f64>,
    },
    /// Print the value of a position and the best move by the tables.
    Probe {
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
    },
    /// Describe a table file: positions, results per side to move, the longest mate.
    Info {
        /// The table file (`.xqtb`).
        file: PathBuf,
    },
    /// Time probes: the median with the block already decompressed, and the
    /// median of first probes into a block (decompressing it).
    Bench {
        /// Directories holding tables, separated by ';'.
        #[arg(long, default_value = "data/egtb")]
        path: String,
        /// The table whose positions are probed.
        material: String,
        /// Positions to probe.
        #[arg(long, default_value_t = 2000)]
        positions: usize,
    },
    /// Check that every position's value agrees with its successors': one
    /// table, several, or every table of a directory (smallest first).
    /// Fails when any table does, after checking them all.
    Verify {
        /// Table files, or directories whose `.xqtb` files are all checked.
        #[arg(required = true)]
        files: Vec<PathBuf>,
        /// Where the smaller tables behind captures are (default: each file's directory).
        #[arg(long)]
        path: Option<PathBuf>,
        /// No progress bar.
        #[arg(short, long)]
        quiet: bool,
    },
}

fn main() -> ExitCode {
    let cli = Cli::parse();
    xqcli::remove_unfinished_files_on_interrupt("egtbgen");
    let outcome = match cli.command {
        Command::Gen {
            output,
            selection,
            threads,
            max_memory,
            scratch,
            quiet,
        } => {
            let bound = max_memory.map(|bytes| MemoryBound {
                bytes,
                scratch: scratch.unwrap_or_else(|| output.clone()),
            });
            gen(&output, &selection, threads, bound.as_ref(), quiet)
        }
        Command::Plan {
            selection,
            output,
            report: true,
            ..
        } => plan_report(&selection, &output),
        Command::Plan {
            selection,
            output,
            makefile,
            slurm,
            clusters,
            cpus_per_job,
            rate,
            seconds_between_jobs,
            ..
        } => {
            let rates = cluster::JobRates {
                cpus_per_job,
                positions_per_core_second: rate
                    .unwrap_or(cluster::MEASURED.positions_per_core_second),
                seconds_between_jobs: seconds_between_jobs
                    .unwrap_or(cluster::MEASURED.seconds_between_jobs),
            };
            plan(&selection, &output, makefile.as_deref(), slurm.as_deref())
                .and_then(|plan| plan_on_clusters(&plan, &clusters, &rates))
        }
        Command::Probe {
            path,
            fen,
            all,
            line,
        } => probe(&path, &fen.join(" "), all, line),
        Command::Info { file } => info(&file),
        Command::Bench {
            path,
            material,
            positions,
        } => bench(&path, &material, positions),
        Command::Verify { files, path, quiet } => verify_all(&files, path.as_deref(), quiet),
    };
    match outcome {
        Ok(()) => ExitCode::SUCCESS,
        Err(e) => {
            eprintln!("egtbgen: {e}");
            ExitCode::FAILURE
        }
    }
}

fn parse_materials(names: &[String]) -> Result<Vec<Material>, String> {
    names
        .iter()
        .map(|n| n.parse::<Material>().map_err(|e| e.to_string()))
        .collect()
}

/// A size in bytes: a number with an optional K, M or G (powers of 1024).
fn parse_bytes(text: &str) -> Result<u64, String> {
    let (digits, unit) = match text.trim().char_indices().last() {
        Some((i, c)) if c.is_ascii_alphabetic() => (&text.trim()[..i], c.to_ascii_uppercase()),
        _ => (text.trim(), 'B'),
    };
    let shift = match unit {
        'B' => 0,
        'K' => 10,
        'M' => 20,
        'G' => 30,
        _ => return Err(format!("{text}: a size is a number with K, M or G")),
    };
    let n: u64 = digits
        .parse()
        .map_err(|_| format!("{text}: a size is a number with K, M or G"))?;
    n.checked_mul(1 << shift)
        .ok_or_else(|| format!("{text}: too large"))
}

fn gen(
    dir: &Path,
    selection: &Selection,
    threads: Option<usize>,
    bound: Option<&MemoryBound>,
    quiet: bool,
) -> Result<(), String> {
    if let Some(n) = threads {
        rayon::ThreadPoolBuilder::new()
            .num_threads(n)
            .build_global()
            .map_err(|e| e.to_string())?;
    }
    let targets = selection.targets()?;
    let plan = egtbgen::plan(&targets);
    let started = Instant::now();
    let bar = Mutex::new(ProgressBar::hidden());
    let events = |e: Event| on_event(e, &bar, quiet);
    if let Some(bound) = bound {
        std::fs::create_dir_all(&bound.scratch)
            .map_err(|e| format!("{}: {e}", bound.scratch.display()))?;
    }
    let summary = egtbgen::build_bounded(dir, &plan, bound, &events).map_err(|e| e.to_string())?;
    let seconds = started.elapsed().as_secs_f64();
    let bits = 8.0 * summary.bytes as f64 / summary.positions.max(1) as f64;
    out!(
        "{} tables in {} ({} built, {} already there) in {seconds:.2} s; \
         {} bytes written for {} positions ({bits:.3} bits/position); \
         at most {:.1} MB of values, counters, capture tables and rule lists held",
        plan.len(),
        dir.display(),
        summary.solved,
        summary.existing,
        summary.bytes,
        summary.positions,
        summary.peak_memory as f64 / 1e6
    );
    if let Some(bound) = bound.filter(|b| summary.peak_memory > b.bytes) {
        out!(
            "note: the repetition rules' passes, which the bound cannot foresee, went past it ({:.1} MB)",
            bound.bytes as f64 / 1e6
        );
    }
    Ok(())
}

fn plan(
    selection: &Selection,
    dir: &str,
    makefile: Option<&Path>,
    slurm: Option<&Path>,
) -> Result<Vec<Material>, String> {
    let plan = egtbgen::plan(&selection.targets()?);
    let estimates: Vec<jobs::Estimate> = plan.iter().map(|m| jobs::estimate(*m)).collect();
    out!("table                positions   memory MB     disk MB   CPU hours");
    for e in &estimates {
        out!(
            "{:<16} {:>13} {:>11.1} {:>11.1} {:>11.3}",
            e.material.to_string(),
            e.positions,
            e.memory as f64 / 1e6,
            e.disk as f64 / 1e6,
            e.cpu_seconds / 3600.0
        );
    }
    let positions: u64 = estimates.iter().map(|e| e.positions).sum();
    let disk: u64 = estimates.iter().map(|e| e.disk).sum();
    let memory = estimates.iter().map(|e| e.memory).max().unwrap_or(0);
    let hours: f64 = estimates.iter().map(|e| e.cpu_seconds).sum::<f64>() / 3600.0;
    out!(
        "{} tables in {} dependency levels: {positions} positions, {:.1} MB on disk, at most {:.1} MB of memory for one table and {:.1} MB for one `egtbgen gen` of them all, {hours:.2} CPU hours (estimated: {} bits a position, {} positions a core-second)",
        plan.len(),
        jobs::levels(&plan).len(),
        disk as f64 / 1e6,
        memory as f64 / 1e6,
        jobs::build_memory(&plan) as f64 / 1e6,
        jobs::ESTIMATED_BITS_PER_POSITION,
        jobs::ESTIMATED_POSITIONS_PER_CORE_SECOND
    );
    let write = |path: &Path, text: String| {
        xqstore::write_whole(path, |_, f| std::io::Write::write_all(f, text.as_bytes()))
            .map_err(|e| format!("{}: {e}", path.display()))
    };
    if let Some(path) = makefile {
        write(path, jobs::makefile(&plan, dir))?;
        out!("wrote {} (make -j N -f {})", path.display(), path.display());
    }
    if let Some(path) = slurm {
        write(path, jobs::slurm(&plan, dir))?;
        out!(
            "wrote {} (sh {} where sbatch is)",
            path.display(),
            path.display()
        );
    }
    Ok(plan)
}

/// `plan --cluster`: the Slurm run of the plan on each cluster.
fn plan_on_clusters(
    plan: &[Material],
    clusters: &[cluster::Cluster],
    rates: &cluster::JobRates,
) -> Result<(), String> {
    if clusters.is_empty() {
        return Ok(());
    }
    out!(
        "as Slurm jobs of {} cores, {:.0} positions a second per core, {:.1} s between jobs:",
        rates.cpus_per_job,
        rates.positions_per_core_second,
        rates.seconds_between_jobs
    );
    for c in clusters {
        let run = cluster::run(plan, c, rates).map_err(|e| format!("{c}: {e}"))?;
        let longest = run
            .jobs
            .iter()
            .max_by(|a, b| a.seconds.total_cmp(&b.seconds))
            .expect("a plan has a table");
        let largest = run.jobs.iter().map(|j| j.memory).max().unwrap_or(0);
        out!(
            "  {c}: {} jobs, {} wall, {:.1} core-hours held, {:.0} % of the cores busy; the longest job {} {}, the largest request {:.1} GiB",
            run.jobs.len(),
            duration(run.wall_seconds),
            run.core_seconds / 3600.0,
            100.0 * run.utilisation(c),
            longest.material,
            duration(longest.seconds),
            largest as f64 / f64::from(1u32 << 30)
        );
    }
    Ok(())
}

/// Seconds as a person reads them: "42 s", "12.5 min", "3.2 h".
fn duration(seconds: f64) -> String {
    if seconds < 60.0 {
        format!("{seconds:.0} s")
    } else if seconds < 3600.0 {
        format!("{:.1} min", seconds / 60.0)
    } else {
        format!("{:.1} h", seconds / 3600.0)
    }
}

/// `plan --report`: each table of the plan in `dir`, or why not.
fn plan_report(selection: &Selection, dir: &str) -> Result<(), String> {
    let plan = egtbgen::plan(&selection.targets()?);
    let rows = jobs::report(&plan, Path::new(dir));
    let mut missing = 0;
    for (m, level, e, asked, outcome) in &rows {
        let why = match outcome {
            jobs::Outcome::Built => continue,
            jobs::Outcome::OutOfMemory(words) => format!(
                "killed for memory (estimated {:.1} MB, asked {asked} MiB): {words}",
                e.memory as f64 / 1e6
            ),
            jobs::Outcome::Failed(words) => format!("its job failed: {words}"),
            jobs::Outcome::NotRun => "never run (a table it needs is missing)".to_string(),
        };
        missing += 1;
        out!("{m} (level {level}): missing: {why}");
    }
    out!(
        "{} of {} tables in {dir}, {missing} missing",
        rows.len() - missing,
        rows.len()
    );
    if missing > 0 {
        return Err(format!("{missing} tables missing in {dir}"));
    }
    Ok(())
}

fn on_event(e: Event, bar: &Mutex<ProgressBar>, quiet: bool) {
    let mut bar = bar.lock().unwrap_or_else(|e| e.into_inner());
    match e {
        Event::Solving { material, indexes } => {
            if quiet {
                return;
            }
            let b = ProgressBar::new(indexes);
            b.set_style(
                ProgressStyle::with_template("{prefix:>10} {bar:30} {pos}/{len} {wide_msg}")
                    .expect("a valid template"),
            );
            b.set_prefix(material.to_string());
            b.set_message("setting up");
            *bar = b;
        }
        Event::Progress(Progress::Setup(n)) => bar.inc(n),
        Event::Progress(Progress::Round { dtm, settled }) => {
            bar.set_message(format!("distance {dtm}: {settled} positions"));
        }
        Event::Progress(Progress::Perpetual { trapped }) => {
            bar.set_message(format!("perpetual check: {trapped} checkers trapped"));
        }
        Event::Progress(Progress::RuleLists { .. }) => {}
        Event::Progress(Progress::PerpetualChase { trapped }) => {
            bar.set_message(format!("perpetual chase: {trapped} chasers trapped"));
        }
        Event::Written {
            material,
            info,
            bytes,
            elapsed,
            held,
        } => {
            bar.finish_and_clear();
            if quiet {
                return;
            }
            let positions = 2 * info.size;
            out!(
                "{material}: {positions} positions, {} bytes ({:.3} bits/position), longest mate {} plies, {:.2} s, {:.1} MB held",
                bytes,
                8.0 * bytes as f64 / positions as f64,
                info.stats[0].longest.max(info.stats[1].longest),
                elapsed.as_secs_f64(),
                held as f64 / 1e6
            );
        }
        Event::Existing { material } => {
            if !quiet {
                out!("{material}: already built");
            }
        }
    }
}

fn probe(paths: &str, fen: &str, all: bool, line: bool) -> Result<(), String> {
    let pos = Position::from_fen(fen).map_err(|e| format!("bad FEN {fen:?}: {e}"))?;
    let mut tb = Tablebase::new();
    for dir in paths.split(';').filter(|d| !d.is_empty()) {
        tb.add_dir(Path::new(dir))
            .map_err(|e| format!("{dir}: {e}"))?;
    }
    let value = tb
        .probe(&pos)
        .map_err(|e| e.to_string())?
        .ok_or_else(|| format!("no table for this position's material in {paths}"))?;
    out!("{}", value.wdl());
    if let Some(d) = value.dtm() {
        out!("dtm {d}");
    }
    if value.by_chase_rule() {
        out!(
            "by the perpetual-chase rule: the losing side can only avoid mate by checking or \
             chasing one piece for ever (distances from {} up; a draw where only perpetual check loses)",
            xqegtb::CHASE_DTM
        );
    } else if value.by_rule() {
        out!(
            "by the perpetual-check rule: the losing side can only avoid mate by checking for ever \
             (distances from {} up count to such a position)",
            xqegtb::RULE_DTM
        );
    }
    // Moves of equal value and material in the order the engine and the
    // server give them: by the engine's evaluation.
    let answers = tb
        .under(Repetitions::CheckAndChase)
        .preferring(EvalPreference::builtin());
    match answers.best_move(&pos).map_err(|e| e.to_string())? {
        Some((m, _)) => out!("bestmove {m}"),
        None if pos.legal_moves().is_empty() => out!("bestmove none (no legal move)"),
        None => out!("bestmove unknown (a table its moves lead into is missing)"),
    }
    if all {
        if let Some(moves) = answers.ranked_moves(&pos).map_err(|e| e.to_string())? {
            out!("moves {}", moves.len());
            for (m, v) in moves {
                out!("{m} {v}");
            }
        }
    }
    if line {
        let line = answers.line(&pos, MAX_LINE).map_err(|e| e.to_string())?;
        let moves: Vec<String> = line.iter().map(|(m, _)| m.to_string()).collect();
        out!("line {} plies: {}", moves.len(), moves.join(" "));
    }
    Ok(())
}

/// The longest line `probe --line` prints.
const MAX_LINE: usize = 400;

/// Times the tables are opened afresh in `bench` for first probes.
const COLD_PROBES: usize = 200;

fn bench(paths: &str, name: &str, count: usize) -> Result<(), String> {
    let material = name
        .parse::<Material>()
        .map_err(|e| e.to_string())?
        .canonical()
        .0;
    let dirs: Vec<&str> = paths.split(';').filter(|d| !d.is_empty()).collect();
    let file = dirs
        .iter()
        .map(|d| egtbgen::table_path(Path::new(d), material))
        .find(|p| p.is_file())
        .ok_or_else(|| format!("no {material} table in {paths}"))?;
    let table = TableFile::open(&file).map_err(|e| e.to_string())?;
    // Legal positions spread over the whole table, in a shuffled order so
    // that consecutive probes rarely share a block.
    let ix = table.indexer();
    let mut positions = Vec::new();
    let mut placement = Placement::new();
    let mut state = 0x9E37_79B9_7F4A_7C15u64;
    while positions.len() < count {
        state = state
            .wrapping_mul(6364136223846793005)
            .wrapping_add(1442695040888963407);
        let index = (state >> 11) % ix.size();
        ix.placement(index, &mut placement);
        if !ix.is_canonical(index, &placement) {
            continue;
        }
        let board = board_of(ix, &placement);
        let turn = if state >> 63 == 0 {
            xqcore::Color::Red
        } else {
            xqcore::Color::Black
        };
        let setup = xqcore::Setup {
            board,
            turn,
            plies_since_capture: 0,
            fullmoves: 1,
        };
        if let Ok(pos) = Position::from_setup(setup) {
            positions.push(pos);
        }
    }
    let open = || -> Result<Tablebase, String> {
        let mut tb = Tablebase::new();
        for dir in &dirs {
            tb.add_dir(Path::new(dir))
                .map_err(|e| format!("{dir}: {e}"))?;
        }
        Ok(tb)
    };
    let time = |tb: &Tablebase, pos: &Position| -> Result<f64, String> {
        let started = Instant::now();
        let v = tb.probe(pos).map_err(|e| e.to_string())?;
        let ns = started.elapsed().as_nanos() as f64;
        v.ok_or_else(|| format!("{material}: no value for {}", pos.fen()))?;
        Ok(ns)
    };
    // First probes into a block: each in tables opened afresh (closing
    // them frees their cached blocks), after a probe that opens the file.
    let mut opened = Vec::new();
    let mut cold = Vec::new();
    for pos in positions.iter().skip(1).take(COLD_PROBES) {
        let tb = open()?;
        opened.push(time(&tb, &positions[0])?);
        cold.push(time(&tb, pos)?);
    }
    // The same position again: its block is in the cache.
    let tb = open()?;
    let mut cached = Vec::with_capacity(positions.len());
    for pos in &positions {
        time(&tb, pos)?;
        cached.push(time(&tb, pos)?);
    }
    let median = |v: &mut Vec<f64>| {
        v.sort_by(f64::total_cmp);
        v.get(v.len() / 2).map_or(f64::NAN, |ns| ns / 1000.0)
    };
    out!(
        "{material}: {} positions; median probe {:.2} us with the block cached, \
         {:.2} us for a first probe into a block, {:.1} us for a first probe opening the file \
         ({} openings)",
        positions.len(),
        median(&mut cached),
        median(&mut cold),
        median(&mut opened),
        opened.len()
    );
    Ok(())
}

fn info(path: &Path) -> Result<(), String> {
    let table = TableFile::open(path).map_err(|e| e.to_string())?;
    // Describing a file vouches for it: every block's checksum, not only
    // the header's and the index's.
    table.check_blocks().map_err(|e| e.to_string())?;
    let info = table.info();
    let positions = 2 * info.size;
    out!("table      {}", info.material);
    out!("file       {}", path.display());
    out!(
        "rules      {} (rule set {})",
        if info.rules >= xqegtb::RULES_AS_GAMES {
            "no legal move loses; checking for ever loses (unless both sides do), and so does chasing one piece for ever (unless the other side only checks or only chases one piece); other repetitions draw"
        } else {
            "no legal move loses; checking for ever loses; other repetitions draw"
        },
        info.rules
    );
    out!("indexes    {} per side to move", info.size);
    for (side, s) in info.stats.iter().enumerate() {
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
            let turn = xqegtb::color_of_side(side, false);
            let fen = format!("{} {}", board.fen_placement(), turn.fen_char());
            let kind = match table.value(side, s.longest_index) {
                Ok(Value::Win(_)) => "mate in",
                _ => "mated in",
            };
            out!("           longest: {kind} {} plies, e.g. {fen}", s.longest);
        }
        let (check_wins, check_losses) =
            (s.rule_wins - s.chase_wins, s.rule_losses - s.chase_losses);
        if check_wins + check_losses > 0 {
            out!(
                "           by the perpetual-check rule: {check_wins} wins, {check_losses} losses"
            );
        }
        if s.chase_wins + s.chase_losses > 0 {
            out!(
                "           by the perpetual-chase rule: {} wins, {} losses (draws where only perpetual check loses)",
                s.chase_wins,
                s.chase_losses
            );
        }
    }
    out!(
        "size       {} bytes, {:.3} bits per position",
        table.file_len(),
        8.0 * table.file_len() as f64 / positions as f64
    );
    Ok(())
}

/// [`verify`] on each table of `files` (directories expanded to their
/// tables, smallest file first), going on past a failed one; with more
/// than one table, a line of totals.
fn verify_all(files: &[PathBuf], dir: Option<&Path>, quiet: bool) -> Result<(), String> {
    let tables = table_files(files)?;
    let started = Instant::now();
    let (mut checked, mut failed) = (0u64, Vec::new());
    for (i, path) in tables.iter().enumerate() {
        let label = format!("[{}/{}]", i + 1, tables.len());
        match verify(path, dir, quiet, &label) {
            Ok(positions) => checked += positions,
            // One table: its own error is the whole message.
            Err(e) if tables.len() == 1 => return Err(e),
            Err(e) => {
                eprintln!("egtbgen: {e}");
                failed.push(path.display().to_string());
            }
        }
    }
    if tables.len() > 1 {
        out!(
            "{} tables: {} pass ({} positions), {} fail ({:.1} s)",
            tables.len(),
            tables.len() - failed.len(),
            checked,
            failed.len(),
            started.elapsed().as_secs_f64()
        );
    }
    match failed.len() {
        0 => Ok(()),
        _ => Err(format!("verify failed on {}", failed.join(", "))),
    }
}

/// The table files `paths` name: files as given, and each directory's
/// `.xqtb` files, smallest first (errors show soonest, and large tables
/// come last). A directory without tables is an error.
fn table_files(paths: &[PathBuf]) -> Result<Vec<PathBuf>, String> {
    let mut tables = Vec::new();
    for path in paths {
        if !path.is_dir() {
            tables.push(path.clone());
            continue;
        }
        let entries = std::fs::read_dir(path).map_err(|e| format!("{}: {e}", path.display()))?;
        let mut found = Vec::new();
        for entry in entries {
            let entry = entry.map_err(|e| format!("{}: {e}", path.display()))?;
            let file = entry.path();
            if file.extension().is_some_and(|x| x == "xqtb") {
                let len = entry
                    .metadata()
                    .map_err(|e| format!("{}: {e}", file.display()))?
                    .len();
                found.push((len, file));
            }
        }
        if found.is_empty() {
            return Err(format!("{}: no table files (.xqtb) in it", path.display()));
        }
        found.sort();
        tables.extend(found.into_iter().map(|(_, file)| file));
    }
    Ok(tables)
}

/// Checks one table against its successors; the positions checked.
fn verify(path: &Path, dir: Option<&Path>, quiet: bool, label: &str) -> Result<u64, String> {
    let dir = dir
        .map(Path::to_path_buf)
        .or_else(|| path.parent().map(Path::to_path_buf))
        .unwrap_or_default();
    let (table, captures) = egtbgen::load_with_captures(path, &dir).map_err(|e| e.to_string())?;
    let material = table.indexer.material();
    let bar = if quiet {
        ProgressBar::hidden()
    } else {
        let bar = ProgressBar::new(table.indexer.size());
        let style = ProgressStyle::with_template("{prefix} {bar:30} {percent:>3}% {eta} left")
            .expect("a valid template");
        bar.set_style(style);
        bar.set_prefix(format!("{label} {material}"));
        bar
    };
    let started = Instant::now();
    let report = egtbgen::verify(&table, &captures, &|n| bar.inc(n));
    bar.finish_and_clear();
    if report.mismatch_count > 0 {
        for m in &report.mismatches {
            eprintln!(
                "{}: stored {}, its successors give {}",
                m.fen, m.stored, m.from_successors
            );
        }
        return Err(format!(
            "{}: {} of {} positions disagree with their successors",
            path.display(),
            report.mismatch_count,
            report.checked
        ));
    }
    out!(
        "{}: all {} positions agree with their successors ({:.2} s)",
        path.display(),
        report.checked,
        started.elapsed().as_secs_f64()
    );
    Ok(report.checked)
}

#[cfg(test)]
mod tests {
    xqcli::help_test!(super::Cli);
}
