//! Endurance: 1,000 fast games engine against engine through the match
//! runner, with the default book and endgame tables on, each pair of engine
//! processes kept for all the games it plays. Every move is legal, every
//! game ends by the rules, no engine fails or overruns its clock by more
//! than 100 ms, and the engines' memory stays flat.
//!
//! About 10 minutes on 2 cores:
//! `cargo test --release -p xqengine --test endurance -- --ignored --nocapture`.

use std::sync::atomic::AtomicBool;
use std::time::{Duration, Instant};

use egtbgen::{build, plan};
use xqegtb::Material;
use xqmatch::{
    run_tournament, EngineSpec, FinishedGame, Memory, MoveLimit, Termination, TournamentSpec,
};
use xqrecords::{read_openings, BUNDLED_OPENINGS};

/// Games played; `XQ_ENDURANCE_GAMES` sets fewer for a quick look.
fn games() -> usize {
    std::env::var("XQ_ENDURANCE_GAMES")
        .ok()
        .and_then(|n| n.parse().ok())
        .unwrap_or(1_000)
}

/// Every table of up to four pieces (kings included) into `dir`.
fn small_tables(dir: &std::path::Path) {
    let pieces = "RNCPAB";
    let mut materials = Vec::new();
    for a in pieces.chars() {
        for b in pieces.chars() {
            for name in [format!("K{a}{b}K"), format!("K{a}K{b}")] {
                if let Ok(m) = name.parse::<Material>() {
                    materials.push(m.canonical().0);
                }
            }
        }
    }
    build(dir, &plan(&materials), &|_| {}).unwrap();
}

/// The game's moves replayed from the start: each one legal.
fn replay(game: &FinishedGame) -> xqcore::Position {
    let mut pos = game.record.opening.position();
    for &m in &game.record.moves {
        assert!(pos.is_legal(m), "game {}: {m} is illegal", game.number);
        pos.make_move(m);
    }
    pos
}

#[test]
#[ignore = "1,000 games: about 10 minutes on 2 cores"]
fn a_thousand_fast_games_with_book_and_tables() {
    let tables = tempfile::tempdir().unwrap();
    small_tables(tables.path());
    let options = [
        "usebook=true".to_string(),
        "useegtb=true".to_string(),
        format!("egtbpaths={}", tables.path().display()),
        "hashsize=16".to_string(),
    ];
    let engine = EngineSpec {
        options: options.iter().map(|o| o.parse().unwrap()).collect(),
        ..EngineSpec::new(env!("CARGO_BIN_EXE_xqengine"))
    };
    let openings = read_openings(BUNDLED_OPENINGS).unwrap();
    let total = games();
    let limit = MoveLimit::clock(
        Duration::from_millis(200),
        Duration::from_millis(2),
        Duration::from_millis(100),
    );
    let spec = TournamentSpec {
        concurrency: 2,
        keep_engines: true,
        ..TournamentSpec::head_to_head([engine.clone(), engine], limit, openings, total)
    };
    let started = Instant::now();
    let mut games: Vec<FinishedGame> = Vec::new();
    let report = run_tournament(&spec, &[], &AtomicBool::new(false), |game, _| {
        games.push(game.clone());
        Ok(())
    });
    assert!(report.failure.is_none(), "{:?}", report.failure);
    assert_eq!(games.len(), total);
    games.sort_by_key(|g| g.number);

    let mut endings = std::collections::BTreeMap::new();
    let mut worst_overrun = i64::MIN;
    for game in &games {
        replay(game);
        let ending = &game.record.termination;
        assert!(
            !matches!(
                ending,
                Termination::IllegalMove(_)
                    | Termination::TimeForfeit
                    | Termination::EngineFailure(_)
            ),
            "game {}: {ending}",
            game.number
        );
        *endings.entry(ending.to_string()).or_insert(0) += 1;
        worst_overrun = worst_overrun.max(game.record.worst_overrun_ms.unwrap_or(i64::MIN));
    }

    // Memory: the engines after their first games, halfway and at the end.
    let memory = |g: &FinishedGame| g.memory.map(|m| m.expect("/proc tells"));
    let around = |at: usize| -> Vec<[Memory; 2]> {
        let start = at.min(total.saturating_sub(10));
        games[start..(start + 10).min(total)]
            .iter()
            .map(memory)
            .collect()
    };
    let most =
        |ms: &[[Memory; 2]], f: fn(&Memory) -> u64| ms.iter().flatten().map(f).max().unwrap();
    let points = [("first", 0), ("middle", total / 2), ("last", total)];
    let anon: Vec<u64> = points
        .iter()
        .map(|&(_, at)| most(&around(at), |m| m.anon_kb))
        .collect();
    let peak: Vec<u64> = points
        .iter()
        .map(|&(_, at)| most(&around(at), |m| m.peak_kb))
        .collect();
    println!(
        "{total} games in {:.0} s; endings {endings:?}; worst clock overrun {worst_overrun} ms; \
         engine memory (kB, anonymous/peak, most of 10 games' engines) after the first games \
         {}/{}, halfway {}/{}, at the end {}/{}",
        started.elapsed().as_secs_f64(),
        anon[0],
        peak[0],
        anon[1],
        peak[1],
        anon[2],
        peak[2],
    );
    // The hash table (16 MB) is touched bit by bit as it fills, and each
    // table file opened keeps a few blocks: growth early on, bounded by
    // those; none in the second half.
    assert!(
        anon[1] <= anon[0] + 24 * 1024,
        "anonymous memory grew from {} kB to {} kB in the first half",
        anon[0],
        anon[1]
    );
    assert!(
        anon[2] <= anon[1] + 2 * 1024,
        "anonymous memory grew from {} kB to {} kB in the second half",
        anon[1],
        anon[2]
    );
}
