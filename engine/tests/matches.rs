//! The engine against itself through the match runner (`xqmatch`'s
//! library), spoken to in UCCI and in UCI: every game ends by the rules,
//! every move replays legally, and the scores the engine reports are read.

use std::sync::atomic::AtomicBool;
use std::time::Duration;

use xqengine::MATE;
use xqmatch::{
    run_tournament, EngineError, EngineScore, EngineSpec, FinishedGame, MatchConfig, MoveLimit,
    Protocol, Termination, TournamentSpec,
};
use xqrecords::{read_openings, BUNDLED_OPENINGS};

fn engine(protocol: Option<Protocol>) -> EngineSpec {
    let option = match protocol {
        Some(Protocol::Uci) => "Hash=16",
        _ => "hashsize=16",
    };
    EngineSpec {
        protocol,
        options: vec![option.parse().unwrap()],
        ..EngineSpec::new(env!("CARGO_BIN_EXE_xqengine"))
    }
}

/// Plays `games` games of `spec`'s engines at `limit`, two at once.
fn play(engines: [EngineSpec; 2], games: usize, limit: MoveLimit) -> Vec<FinishedGame> {
    let openings = read_openings(BUNDLED_OPENINGS).unwrap();
    let spec = TournamentSpec {
        concurrency: 2,
        ..TournamentSpec::head_to_head(engines, limit, openings, games)
    };
    let mut finished = Vec::new();
    let report = run_tournament(&spec, &[], &AtomicBool::new(false), |game, _| {
        finished.push(game.clone());
        Ok(())
    });
    assert!(report.failure.is_none(), "{:?}", report.failure);
    assert_eq!(report.results.table.games() as usize, games);
    finished.sort_by_key(|g| g.number);
    finished
}

/// Checks that a game replays legally and ended by the rules or a
/// resignation, never by a fault.
fn check(game: &FinishedGame) {
    let mut pos = game.record.opening.position();
    for &m in &game.record.moves {
        assert!(pos.is_legal(m), "game {}: {m} is illegal", game.number);
        pos.make_move(m);
    }
    assert_eq!(game.record.stats.len(), game.record.moves.len());
    match &game.record.termination {
        Termination::Rules(outcome) => {
            assert_eq!(pos.outcome(&MatchConfig::default().rules), Some(*outcome))
        }
        Termination::Resignation | Termination::LengthCap => {}
        other => panic!("game {}: {other}", game.number),
    }
}

#[test]
fn games_in_both_protocols_end_by_the_rules() {
    let games = play(
        [engine(Some(Protocol::Uci)), engine(Some(Protocol::Ucci))],
        4,
        MoveLimit::Depth(3),
    );
    for game in &games {
        check(game);
        // Both engines' scores were read: UCI's `score cp`, UCCI's `score`.
        let scored = game
            .record
            .stats
            .iter()
            .filter(|s| s.score.is_some())
            .count();
        assert!(
            scored * 10 >= game.record.moves.len() * 9,
            "game {}",
            game.number
        );
        assert!(game.record.stats.iter().all(|s| s.depth.is_some()));
    }
}

#[test]
fn the_protocol_is_found_at_the_handshake() {
    let mut spec = engine(None);
    spec.options = vec!["hashsize=1".parse().unwrap()];
    let mut process = xqmatch::EngineProcess::start(&spec).unwrap();
    // UCCI is tried first, and the engine speaks it.
    assert_eq!(process.protocol(), Protocol::Ucci);
    assert!(process.millis());
    assert!(process.name.starts_with("xqengine"));
    assert!(process.new_game().is_ok());
}

#[test]
fn options_the_engine_refuses_or_lacks_are_not_taken() {
    let start = |protocol: Option<Protocol>, option: &str| {
        let mut spec = engine(protocol);
        spec.options = vec![option.parse().unwrap()];
        xqmatch::EngineProcess::start(&spec).err()
    };
    for (protocol, bad_value) in [(None, "hashsize=abc"), (Some(Protocol::Uci), "Hash=abc")] {
        let refused = start(protocol, bad_value).expect("refused");
        assert!(
            matches!(refused, EngineError::OptionRefused { .. }),
            "{refused}"
        );
        assert!(refused.to_string().contains("bad value 'abc'"), "{refused}");
    }
    let unknown = start(None, "hashsiz=16").expect("refused");
    assert!(
        matches!(unknown, EngineError::UnknownOption { .. }),
        "{unknown}"
    );
    // A file that cannot be used, said in a note of its own.
    let missing = start(None, "evalfile=/nonexistent/net.xqnn").expect("refused");
    assert!(
        missing.to_string().contains("/nonexistent/net.xqnn"),
        "{missing}"
    );
}

#[test]
fn a_clock_game_is_played_in_time() {
    let games = play(
        [engine(Some(Protocol::Uci)), engine(None)],
        2,
        MoveLimit::clock(
            Duration::from_millis(600),
            Duration::from_millis(20),
            Duration::from_millis(1000),
        ),
    );
    for game in &games {
        check(game);
        assert!(
            game.record.worst_overrun_ms.is_some_and(|ms| ms < 0),
            "game {}",
            game.number
        );
        // Mates are reported to the UCI engine's side as mates, never as
        // huge centipawns. engine1 plays Red in odd games; the openings
        // are from the start position.
        let uci_is_red = game.red == 0;
        let opening = game.record.opening.moves.len();
        for (i, stats) in game.record.stats.iter().enumerate() {
            let red_moved = (opening + i) % 2 == 0;
            if let (true, Some(EngineScore::Cp(cp))) = (red_moved == uci_is_red, stats.score) {
                assert!(cp.abs() < MATE - 1000, "game {}: cp {cp}", game.number);
            }
        }
    }
}

/// The engine behind a GUI whose connection is 200 ms slow: a shell
/// wrapper (in `dir`) that passes every line on, each `bestmove` 200 ms
/// late, so that the clock runs 200 ms longer on every move than the
/// engine sees.
fn lagged_engine(dir: &std::path::Path, overhead: u64) -> EngineSpec {
    use std::os::unix::fs::PermissionsExt;
    let script = dir.join("lagged.sh");
    std::fs::write(
        &script,
        format!(
            "#!/usr/bin/env bash\n\"{}\" \"$@\" | while IFS= read -r line; do\n  \
             case $line in bestmove*) sleep 0.2 ;; esac\n  printf '%s\\n' \"$line\"\ndone\n",
            env!("CARGO_BIN_EXE_xqengine")
        ),
    )
    .unwrap();
    std::fs::set_permissions(&script, std::fs::Permissions::from_mode(0o755)).unwrap();
    EngineSpec {
        protocol: Some(Protocol::Uci),
        options: vec![
            "Hash=16".parse().unwrap(),
            format!("Move Overhead={overhead}").parse().unwrap(),
        ],
        ..EngineSpec::new(script.to_str().unwrap())
    }
}

/// Two games of the lagged engine against itself at 1 s + 0.25 s, no
/// overrun allowed, 40 plies each: how many were lost on time.
fn flags_fallen(overhead: u64) -> usize {
    let dir = tempfile::tempdir().unwrap();
    let engine = lagged_engine(dir.path(), overhead);
    let openings = read_openings(BUNDLED_OPENINGS).unwrap();
    let limit = MoveLimit::clock(
        Duration::from_millis(1000),
        Duration::from_millis(250),
        Duration::ZERO,
    );
    let mut spec = TournamentSpec {
        concurrency: 2,
        ..TournamentSpec::head_to_head([engine.clone(), engine], limit, openings, 2)
    };
    spec.config.max_plies = 40;
    let mut forfeits = 0;
    let report = run_tournament(&spec, &[], &AtomicBool::new(false), |game, _| {
        forfeits += usize::from(game.record.termination == Termination::TimeForfeit);
        Ok(())
    });
    assert!(report.failure.is_none(), "{:?}", report.failure);
    forfeits
}

#[test]
fn move_overhead_keeps_the_flag_up_through_200_ms_of_lag() {
    // Told of the lag, the engine never loses on time.
    assert_eq!(flags_fallen(300), 0);
    // Not told (no overhead at all), it runs its clock out.
    assert!(flags_fallen(0) > 0);
}
