//! `xqengine bench`: a fixed search over fixed positions. Its node count is
//! the search's signature: any change to search or evaluation that changes
//! it should say so in its commit message.

use std::sync::Arc;
use std::time::{Duration, Instant};

use xqcore::Position;
use xqnnue::Network;

use crate::search::{SearchConfig, Silent};
use crate::searcher::Searcher;
use crate::time::Limits;

/// Bench positions: the opening, middlegames and endgames.
pub const BENCH_FENS: &[&str] = &[
    "rnbakabnr/9/1c5c1/p1p1p1p1p/9/9/P1P1P1P1P/1C5C1/9/RNBAKABNR w",
    "r1bakab1r/9/1cn3nc1/p1p1p1p1p/9/9/P1P1P1P1P/1CN3NC1/9/R1BAKAB1R w",
    "r1ba1a3/4kn3/2n1b4/pNp1p1p1p/4c4/6P2/P1P2R2P/1CcC5/9/2BAKAB2 w",
    "r2akab1r/3n5/4b3n/p1p1pRp1p/9/2P3P2/P3P3c/N2C3C1/4A4/1RBAK1B2 w",
    "2bakab2/9/2n1c1n2/p1p1p3p/6p2/2P6/P3P1P1P/2N1C1N2/9/2BAKAB2 b",
    "3akab2/9/4b4/p3p3p/2p6/6P2/P3P3P/4B4/4A4/2BAK4 w",
    "5a3/3k5/3aR4/9/5r3/5n3/9/3A1A3/5K3/2BC2B2 w",
    "CRN1k1b2/3ca4/4ba3/9/2nr5/9/9/4B4/4A4/4KA3 w",
    "4k4/4a4/4ba3/9/2b6/9/9/4B4/4A4/R3KA3 w",
    "5k3/9/9/9/9/9/9/9/4p4/3K1A3 b",
];

/// Depth of the bench search.
pub const BENCH_DEPTH: u32 = 13;

/// Totals of a bench run.
pub struct BenchResult {
    pub nodes: u64,
    pub elapsed: Duration,
}

/// Searches every bench position to `depth` with `net` (`None`: the
/// hand-crafted evaluation) on one thread with a fresh searcher: a new
/// 16 MB table and fresh thread memory.
pub fn run(depth: u32, net: Option<Arc<Network>>, mut each: impl FnMut(&str, u64)) -> BenchResult {
    let config = SearchConfig {
        net,
        ..SearchConfig::default()
    };
    let limits = Limits::depth(depth);
    let mut nodes = 0;
    let mut elapsed = Duration::ZERO;
    for fen in BENCH_FENS {
        let pos = Position::from_fen(fen).expect("bench FENs are valid");
        // Only the search is timed: allocating and zeroing the table and
        // the thread's memory is setup.
        let mut searcher = Searcher::new(config.clone(), 16);
        let started = Instant::now();
        let r = searcher.search(&pos, &limits, &Silent);
        elapsed += started.elapsed();
        nodes += r.nodes;
        each(fen, r.nodes);
    }
    BenchResult { nodes, elapsed }
}
