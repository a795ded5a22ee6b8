//! Endurance: 1,000 fast games engine against engine through the match
//! runner, with the default book and endgame tables on, each pair of engine
//! processes kept for all the games it plays. Every move is legal, every
//! game ends by the rules, no engine fails or overruns its clock by more
//! than 100 ms, and the engines' memory stays flat.
//!
//! About 10 minutes on 2 cores:
//! `cargo test --release -p xqengine --test endurance -- --ignored --nocapture`.

use std::time::{Duration, Instant};

use xqcore::Position;
use xqegtb::build::{build, plan};
use xqegtb::Material;
use xqengine::arena::{
    run_match, EngineSpec, FinishedGame, MatchConfig, MatchSpec, Memory, MoveLimit, Termination,
};

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
fn replay(game: &FinishedGame) -> Position {
    let mut pos = Position::start();
    for m in game.record.all_moves() {
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
    let engine = EngineSpec {
        command: env!("CARGO_BIN_EXE_xqengine").to_string(),
        options: vec![
            "usebook true".into(),
            "useegtb true".into(),
            format!("egtbpaths {}", tables.path().display()),
            "hashsize 16".into(),
        ],
    };
    let openings = xqengine::arena::read_openings(include_str!("../../data/openings.txt")).unwrap();
    let total = games();
    let spec = MatchSpec {
        engines: [engine.clone(), engine],
        openings,
        games: total,
        concurrency: 2,
        config: MatchConfig::new(MoveLimit::Clock {
            base: Duration::from_millis(200),
            increment: Duration::from_millis(2),
            tolerance: Duration::from_millis(100),
        }),
        sprt: None,
        keep_engines: true,
    };
    let started = Instant::now();
    let mut games: Vec<FinishedGame> = Vec::new();
    let report = run_match(&spec, |game, _| {
        games.push(game.clone());
        Ok(())
    });
    assert_eq!(report.failure, None);
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

    // Memory: the engines after their first games against their last ones.
    let memory = |g: &FinishedGame| g.memory.map(|m| m.expect("/proc tells"));
    let first: Vec<[Memory; 2]> = games[..10.min(total)].iter().map(memory).collect();
    let last: Vec<[Memory; 2]> = games[total.saturating_sub(10)..]
        .iter()
        .map(memory)
        .collect();
    let most =
        |ms: &[[Memory; 2]], f: fn(&Memory) -> u64| ms.iter().flatten().map(f).max().unwrap();
    let (anon_first, anon_last) = (most(&first, |m| m.anon_kb), most(&last, |m| m.anon_kb));
    let (peak_first, peak_last) = (most(&first, |m| m.peak_kb), most(&last, |m| m.peak_kb));
    println!(
        "{total} games in {:.0} s; endings {endings:?}; worst clock overrun {worst_overrun} ms; \
         engine memory after the first 10 games: {anon_first} kB anonymous, {peak_first} kB peak; \
         after the last 10: {anon_last} kB anonymous, {peak_last} kB peak",
        started.elapsed().as_secs_f64()
    );
    // The hash table (16 MB) is touched bit by bit as it fills; beyond it,
    // nothing may grow with the number of games.
    assert!(
        anon_last <= anon_first + 16 * 1024 + 4 * 1024,
        "anonymous memory grew from {anon_first} kB to {anon_last} kB"
    );
}
