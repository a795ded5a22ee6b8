//! `egtbgen verify`: every position of one table, several, or every table
//! of a directory against its successors (the minimax rule), going on
//! past a table that fails.

use std::path::{Path, PathBuf};
use std::time::Instant;

use indicatif::{ProgressBar, ProgressStyle};
use xqcli::{out, Failure};
use xqegtb::{Metric, MetricFile};

/// Arguments of `egtbgen verify`.
#[derive(clap::Args)]
pub struct VerifyArgs {
    /// Table files (`.xqtb`), win/draw/loss files (`.xqwdl`: their
    /// verdicts against the table file beside them) and
    /// distance-to-conversion files (`.xqdtc`: against the table file and
    /// their successors), or directories whose files are all checked.
    #[arg(required = true)]
    files: Vec<PathBuf>,
    /// Where the smaller tables behind captures are (default: each file's directory).
    #[arg(long)]
    path: Option<PathBuf>,
    /// No progress bar.
    #[arg(short, long)]
    quiet: bool,
}

/// Checks each table of `files` (directories expanded to their tables,
/// smallest file first), going on past a failed one; with more than one
/// table, a line of totals.
///
/// # Errors
///
/// A table that cannot be read or disagrees with its successors (with one
/// table, its own error; with more, one naming those that failed), or a
/// directory without tables.
pub fn run(args: &VerifyArgs) -> xqcli::Result {
    let tables = table_files(&args.files)?;
    let started = Instant::now();
    let (mut checked, mut failed) = (0u64, Vec::new());
    for (i, path) in tables.iter().enumerate() {
        let label = format!("[{}/{}]", i + 1, tables.len());
        match verify_one(path, args.path.as_deref(), args.quiet, &label) {
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
            "{} files: {} pass ({} positions), {} fail ({:.1} s)",
            tables.len(),
            tables.len() - failed.len(),
            checked,
            failed.len(),
            started.elapsed().as_secs_f64()
        );
    }
    match failed.len() {
        0 => Ok(()),
        _ => Err(Failure::new(format!(
            "verify failed on {}",
            failed.join(", ")
        ))),
    }
}

/// An I/O error of `path`, naming it.
fn named(path: &Path) -> impl FnOnce(std::io::Error) -> Failure + '_ {
    move |e| Failure::new(e).context(path.display())
}

/// The table files `paths` name: files as given, and each directory's
/// `.xqtb` files, smallest first (errors show soonest, and large tables
/// come last). A directory without tables is an error.
fn table_files(paths: &[PathBuf]) -> xqcli::Result<Vec<PathBuf>> {
    let mut tables = Vec::new();
    for path in paths {
        if !path.is_dir() {
            tables.push(path.clone());
            continue;
        }
        let mut found = Vec::new();
        for entry in std::fs::read_dir(path).map_err(named(path))? {
            let entry = entry.map_err(named(path))?;
            let file = entry.path();
            let metric = file
                .extension()
                .and_then(|x| x.to_str())
                .and_then(Metric::of_extension);
            if metric.is_some() {
                let len = entry.metadata().map_err(named(&file))?.len();
                found.push((len, file));
            }
        }
        if found.is_empty() {
            return Err(Failure::new(format!(
                "{}: no table files (.xqtb, .xqwdl, .xqdtc) in it",
                path.display()
            )));
        }
        found.sort();
        tables.extend(found.into_iter().map(|(_, file)| file));
    }
    Ok(tables)
}

/// A progress bar over `indexes` indexes (hidden when `quiet`).
fn bar(indexes: u64, quiet: bool, prefix: String) -> ProgressBar {
    if quiet {
        return ProgressBar::hidden();
    }
    let bar = ProgressBar::new(indexes);
    let style = ProgressStyle::with_template("{prefix} {bar:30} {percent:>3}% {eta} left")
        .expect("a valid template");
    bar.set_style(style);
    bar.set_prefix(prefix);
    bar
}

/// Checks a win/draw/loss or distance-to-conversion file against the
/// table file beside it (and the tables its captures lead to in `dir`);
/// the positions checked.
fn verify_metric(
    path: &Path,
    metric: Metric,
    dir: &Path,
    quiet: bool,
    label: &str,
) -> xqcli::Result<u64> {
    let file = MetricFile::open(path, metric)?;
    let material = file.info().material;
    let table_path = egtbgen::table_path(path.parent().unwrap_or(dir), material);
    if !table_path.is_file() {
        return Err(Failure::new(format!(
            "{}: checked against the table file {}, which is not there",
            path.display(),
            table_path.display()
        )));
    }
    let (table, captures) = egtbgen::load_with_captures(&table_path, dir)?;
    let codes = file.all_codes()?;
    let bar = bar(
        table.indexer.size(),
        quiet,
        format!("{label} {material} {metric}"),
    );
    let started = Instant::now();
    let report = match metric {
        Metric::Wdl => egtbgen::verify_wdl(&table, &codes, &|n| bar.inc(n)),
        _ => {
            let stored = file.info().stored_side;
            egtbgen::verify_dtc(&table, &codes, stored, &captures, &|n| bar.inc(n))
        }
    };
    bar.finish_and_clear();
    if report.mismatch_count > 0 {
        for m in &report.mismatches {
            eprintln!("{}: stored {}, expected {}", m.fen, m.stored, m.expected);
        }
        return Err(Failure::new(format!(
            "{}: {} of {} positions disagree with the table file and their successors",
            path.display(),
            report.mismatch_count,
            report.checked
        )));
    }
    out!(
        "{}: all {} positions agree with the table file{} ({:.2} s)",
        path.display(),
        report.checked,
        if metric == Metric::Dtc {
            " and their successors"
        } else {
            ""
        },
        started.elapsed().as_secs_f64()
    );
    Ok(report.checked)
}

/// Checks one table against its successors (those behind captures read
/// from `dir`, or the table's own directory); the positions checked.
fn verify_one(path: &Path, dir: Option<&Path>, quiet: bool, label: &str) -> xqcli::Result<u64> {
    let dir = dir
        .map(Path::to_path_buf)
        .or_else(|| path.parent().map(Path::to_path_buf))
        .unwrap_or_default();
    let metric = super::metric_of(path);
    if metric != Metric::Dtm {
        return verify_metric(path, metric, &dir, quiet, label);
    }
    let (table, captures) = egtbgen::load_with_captures(path, &dir)?;
    let material = table.indexer.material();
    let bar = bar(table.indexer.size(), quiet, format!("{label} {material}"));
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
        return Err(Failure::new(format!(
            "{}: {} of {} positions disagree with their successors",
            path.display(),
            report.mismatch_count,
            report.checked
        )));
    }
    out!(
        "{}: all {} positions agree with their successors ({:.2} s)",
        path.display(),
        report.checked,
        started.elapsed().as_secs_f64()
    );
    Ok(report.checked)
}
