//! `egtbgen plan`: a set of tables as jobs for make or Slurm, what each
//! table is estimated to cost, the Slurm run played out on clusters; or,
//! with `--report`, which tables of the set a run left missing and why.

use std::path::{Path, PathBuf};

use egtbgen::{cluster, jobs};
use xqcli::{out, Failure};
use xqegtb::Material;

use super::selection::Selection;

/// Arguments of `egtbgen plan`.
#[derive(clap::Args)]
pub struct PlanArgs {
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
}

/// The plan of the tables selected: its estimates, the job files asked
/// for and its runs on the clusters asked for; or, with `--report`, the
/// tables missing.
///
/// # Errors
///
/// A bad selection, a job file that cannot be written, a cluster the
/// plan cannot run on, or (`--report`) a table missing.
pub fn run(args: &PlanArgs) -> xqcli::Result {
    if args.report {
        return report(&args.selection, &args.output);
    }
    let rates = cluster::JobRates {
        cpus_per_job: args.cpus_per_job,
        positions_per_core_second: args
            .rate
            .unwrap_or(cluster::MEASURED.positions_per_core_second),
        seconds_between_jobs: args
            .seconds_between_jobs
            .unwrap_or(cluster::MEASURED.seconds_between_jobs),
    };
    let plan = write_plan(
        &args.selection,
        &args.output,
        args.makefile.as_deref(),
        args.slurm.as_deref(),
    )?;
    run_on_clusters(&plan, &args.clusters, &rates)
}

/// Prints the estimates of the plan and writes the job files asked for;
/// the plan.
fn write_plan(
    selection: &Selection,
    dir: &str,
    makefile: Option<&Path>,
    slurm: Option<&Path>,
) -> xqcli::Result<Vec<Material>> {
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
    if let Some(path) = makefile {
        write_text(path, &jobs::makefile(&plan, dir))?;
        out!("wrote {} (make -j N -f {})", path.display(), path.display());
    }
    if let Some(path) = slurm {
        write_text(path, &jobs::slurm(&plan, dir))?;
        out!(
            "wrote {} (sh {} where sbatch is)",
            path.display(),
            path.display()
        );
    }
    Ok(plan)
}

/// Writes `text` to `path`, whole or not at all.
fn write_text(path: &Path, text: &str) -> xqcli::Result {
    xqstore::write_whole(path, |_, f| std::io::Write::write_all(f, text.as_bytes()))
        .map_err(|e| Failure::new(e).context(path.display()))
}

/// `plan --cluster`: the Slurm run of the plan on each cluster.
fn run_on_clusters(
    plan: &[Material],
    clusters: &[cluster::Cluster],
    rates: &cluster::JobRates,
) -> xqcli::Result {
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
        let run = cluster::run(plan, c, rates).map_err(|e| Failure::new(e).context(c))?;
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
fn report(selection: &Selection, dir: &str) -> xqcli::Result {
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
        return Err(Failure::new(format!("{missing} tables missing in {dir}")));
    }
    Ok(())
}

#[cfg(test)]
mod tests {
    use super::duration;

    #[test]
    fn durations_read_in_seconds_minutes_or_hours() {
        assert_eq!(duration(42.0), "42 s");
        assert_eq!(duration(750.0), "12.5 min");
        assert_eq!(duration(3.2 * 3600.0), "3.2 h");
    }
}
