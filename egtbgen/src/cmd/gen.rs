//! `egtbgen gen`: builds tables, and every smaller table their captures
//! lead into, into a directory, with a progress bar per table.

use std::path::PathBuf;
use std::sync::Mutex;
use std::time::Instant;

use egtbgen::{build_metrics, plan, Event, MemoryBound, Progress};
use indicatif::{ProgressBar, ProgressStyle};
use xqcli::{out, Failure};
use xqegtb::Metric;

use super::selection::Selection;

/// Arguments of `egtbgen gen`.
#[derive(clap::Args)]
pub struct GenArgs {
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
    /// The metrics to write, each its own file beside the others:
    /// `wdl` (win, draw or loss, KRKAABB.xqwdl), `dtm` (the table file,
    /// win, draw or loss with the distance to mate, KRKAABB.xqtb), `dtc`
    /// (the distance to conversion, KRKAABB.xqdtc). Comma-separated or
    /// repeated; a table's files already there are kept.
    #[arg(long, value_delimiter = ',', default_values = ["wdl", "dtm"])]
    metric: Vec<Metric>,
    /// No progress bars.
    #[arg(short, long)]
    quiet: bool,
}

/// Builds the tables selected into `--output`, then says what was built
/// and what it cost.
///
/// # Errors
///
/// A bad selection, a thread pool that cannot be made, a scratch
/// directory that cannot be made, or a table that cannot be built.
pub fn run(args: &GenArgs) -> xqcli::Result {
    let dir = &args.output;
    let bound = args.max_memory.map(|bytes| MemoryBound {
        bytes,
        scratch: args.scratch.clone().unwrap_or_else(|| dir.clone()),
    });
    if let Some(n) = args.threads {
        rayon::ThreadPoolBuilder::new()
            .num_threads(n)
            .build_global()?;
    }
    let plan = plan(&args.selection.targets()?);
    let started = Instant::now();
    let bar = Mutex::new(ProgressBar::hidden());
    let events = |e: Event| on_event(e, &bar, args.quiet);
    if let Some(bound) = &bound {
        std::fs::create_dir_all(&bound.scratch)
            .map_err(|e| Failure::new(e).context(bound.scratch.display()))?;
    }
    let summary = build_metrics(dir, &plan, &args.metric, bound.as_ref(), &events)?;
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

/// Shows a build's events: a progress bar per table being solved (none
/// when `quiet`), and a line per table written.
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
        Event::Progress(Progress::Conversion {
            order,
            plies,
            settled,
        }) => {
            let rules = if order > 0 {
                format!(" (repetition rules, order {order})")
            } else {
                String::new()
            };
            bar.set_message(format!(
                "distance to conversion {plies}{rules}: {settled} positions"
            ));
        }
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

#[cfg(test)]
mod tests {
    use super::parse_bytes;

    #[test]
    fn sizes_take_k_m_and_g_in_powers_of_1024() {
        assert_eq!(parse_bytes("512"), Ok(512));
        assert_eq!(parse_bytes("256M"), Ok(256 << 20));
        assert_eq!(parse_bytes("8g"), Ok(8 << 30));
        assert!(parse_bytes("12T").unwrap_err().contains("K, M or G"));
        assert!(parse_bytes("99999999999G")
            .unwrap_err()
            .contains("too large"));
    }
}
