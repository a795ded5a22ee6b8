//! `xqengine bench`: the search's signature, its node count over the fixed
//! bench positions, and its speed.

use std::path::Path;
use std::sync::Arc;

use xqcli::{out, Failure};
use xqengine::{EngineOptions, Evaluation};
use xqnnue::Network;

/// The evaluations `bench` can run with.
#[derive(Clone, Copy, clap::ValueEnum)]
pub enum BenchEval {
    Nnue,
    Hce,
}

/// One line a position (nodes, FEN), then the time and `N nodes K nps`;
/// the net in use on stderr.
///
/// # Errors
///
/// A net file that cannot be used (exit status 2).
pub fn run(depth: u32, eval: Option<BenchEval>, net_file: Option<&Path>) -> xqcli::Result {
    let eval = match eval {
        Some(BenchEval::Nnue) => Evaluation::Nnue,
        Some(BenchEval::Hce) => Evaluation::Hce,
        None => EngineOptions::default().evaluation,
    };
    let net = match net_file {
        Some(file) => Some(
            Network::load(file).map_err(|e| Failure::usage(format!("{}: {e}", file.display())))?,
        ),
        None => (eval == Evaluation::Nnue).then(|| Network::embedded().clone()),
    };
    if let Some(net) = &net {
        eprintln!("net {:08x} ({})", net.checksum(), net.architecture());
    }
    let r = xqengine::bench::run(depth, net.map(Arc::new), |fen, nodes| {
        out!("{nodes:>12} {fen}")
    });
    let secs = r.elapsed.as_secs_f64().max(1e-9);
    out!("time {:.3} s", secs);
    out!("{} nodes {} nps", r.nodes, (r.nodes as f64 / secs) as u64);
    Ok(())
}
