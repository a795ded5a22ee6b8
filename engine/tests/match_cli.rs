//! `xqengine match`: engine against itself over UCCI, games adjudicated.

use std::process::{Command, Output};

use xqcore::Position;

/// `xqengine match` of the engine against itself, with `args`.
fn self_match(args: &[&str]) -> Output {
    let exe = env!("CARGO_BIN_EXE_xqengine");
    Command::new(exe)
        .args(["match", "--engine1", exe, "--engine2", exe])
        .args(args)
        .output()
        .expect("run match")
}

/// [`self_match`] on the openings bundled into the binary (no `--openings`),
/// run from a directory without a data/ folder.
fn match_with(args: &[&str]) -> Output {
    let exe = env!("CARGO_BIN_EXE_xqengine");
    Command::new(exe)
        .args(["match", "--engine1", exe, "--engine2", exe])
        .args(args)
        .current_dir(std::env::temp_dir())
        .output()
        .expect("run match")
}

/// The games of a PGN file, each from its `[Event` line.
fn split_games(pgn: &str) -> Vec<String> {
    let mut games: Vec<String> = Vec::new();
    for line in pgn.lines() {
        match games.last_mut() {
            Some(game) if !line.starts_with("[Event ") => game.push_str(line),
            _ => games.push(line.to_string()),
        }
        games.last_mut().unwrap().push('\n');
    }
    games
}

/// A unique path in the temporary directory, empty at first, removed when dropped.
struct TempFile(std::path::PathBuf);

impl TempFile {
    fn new(name: &str) -> TempFile {
        let unique = format!("xqengine-{}-{name}", std::process::id());
        let path = std::env::temp_dir().join(unique);
        let _ = std::fs::remove_file(&path);
        TempFile(path)
    }
}

impl Drop for TempFile {
    fn drop(&mut self) {
        let _ = std::fs::remove_file(&self.0);
    }
}

/// The value of tag `name` in one PGN game.
fn tag<'a>(game: &'a str, name: &str) -> &'a str {
    let prefix = format!("[{name} \"");
    let line = game
        .lines()
        .find(|l| l.starts_with(&prefix))
        .unwrap_or_else(|| panic!("no {name} tag in {game}"));
    &line[prefix.len()..line.len() - 2]
}

/// Replays the movetext of one PGN game; returns the final position and the
/// moves, and checks the move numbers and the closing result.
fn replay(game: &str) -> (Position, Vec<String>) {
    let movetext: Vec<&str> = game
        .lines()
        .filter(|l| !l.starts_with('[') && !l.is_empty())
        .flat_map(|l| l.split_whitespace())
        .collect();
    let (result, tokens) = movetext.split_last().expect("movetext");
    assert_eq!(*result, tag(game, "Result"), "{game}");
    let mut pos = Position::start();
    let mut moves = Vec::new();
    for token in tokens {
        if let Some(number) = token.strip_suffix('.') {
            assert_eq!(number, (moves.len() / 2 + 1).to_string(), "{game}");
            continue;
        }
        let mv = pos
            .parse_move(token)
            .unwrap_or_else(|e| panic!("{token}: {e} in {game}"));
        pos.make_move(mv);
        moves.push(token.to_string());
    }
    (pos, moves)
}

#[test]
fn concurrent_depth_limited_match_writes_replayable_pgn() {
    let pgn = TempFile::new("concurrent.pgn");
    let path = pgn.0.to_str().expect("UTF-8 temporary path");
    let out = match_with(&[
        "--concurrency",
        "2",
        "--games",
        "4",
        "--depth",
        "2",
        "--pgn",
        path,
    ]);
    let text = String::from_utf8_lossy(&out.stdout);
    assert!(
        out.status.success(),
        "{text}\n{}",
        String::from_utf8_lossy(&out.stderr)
    );
    let game_lines = text.lines().filter(|l| l.starts_with("game ")).count();
    assert_eq!(game_lines, 4, "{text}");
    let summary = text.lines().last().unwrap();
    assert!(summary.starts_with("engine1 +"), "{text}");
    assert!(
        summary.contains(" score ") && summary.contains("LOS"),
        "{summary}"
    );

    let pgn_text = std::fs::read_to_string(&pgn.0).expect("PGN written");
    let games = split_games(&pgn_text);
    assert_eq!(games.len(), 4, "{pgn_text}");
    let mut rounds: Vec<String> = games.iter().map(|g| tag(g, "Round").to_string()).collect();
    rounds.sort();
    assert_eq!(rounds, ["1", "2", "3", "4"]);
    let round = |n: &str| games.iter().find(|g| tag(g, "Round") == n).unwrap();
    for (even, odd) in [(round("1"), round("2")), (round("3"), round("4"))] {
        // Each opening twice, colours swapped; engine1 is Red first.
        assert_eq!(tag(even, "Opening"), tag(odd, "Opening"));
        assert!(tag(even, "Red").ends_with("(engine1)"), "{even}");
        assert_eq!(tag(even, "Red"), tag(odd, "Black"));
        assert_eq!(tag(even, "Black"), tag(odd, "Red"));
    }
    assert_ne!(tag(round("1"), "Opening"), tag(round("3"), "Opening"));
    for game in &games {
        assert!(
            ["1-0", "0-1", "1/2-1/2"].contains(&tag(game, "Result")),
            "{game}"
        );
        assert_eq!(tag(game, "TimeControl"), "depth=2");
        let (end, moves) = replay(game);
        let opening: Vec<String> = tag(game, "Opening")
            .split_whitespace()
            .map(String::from)
            .collect();
        assert!(!opening.is_empty() && moves.starts_with(&opening), "{game}");
        if tag(game, "Termination") == "checkmate or stalemate" {
            assert!(end.is_lost(), "{game}");
        }
        assert!(
            !tag(game, "Termination").starts_with("engine failure"),
            "{game}"
        );
    }
}

#[test]
fn a_short_match_plays_to_a_result() {
    let out = match_with(&["--games", "2", "--tc", "0.5+0.02", "--tolerance", "1000"]);
    let text = String::from_utf8_lossy(&out.stdout);
    assert!(
        out.status.success(),
        "{text}\n{}",
        String::from_utf8_lossy(&out.stderr)
    );
    let games: Vec<&str> = text.lines().filter(|l| l.starts_with("game ")).collect();
    assert_eq!(games.len(), 2, "{text}");
    for g in &games {
        // Every game ends by a rule, never by an engine fault.
        assert!(
            !g.contains("illegal move")
                && !g.contains("engine failure")
                && !g.contains("time forfeit"),
            "{g}"
        );
    }
    let last = text.lines().last().unwrap();
    assert!(
        last.starts_with("engine1 +") && last.contains(", Elo ") && last.ends_with('%'),
        "{last}"
    );
}

#[test]
fn bad_arguments_are_refused() {
    let refused = |out: Output, mention: &str| {
        let stderr = String::from_utf8_lossy(&out.stderr);
        assert_eq!(out.status.code(), Some(2), "{mention}: {stderr}");
        assert!(stderr.contains(mention), "{mention}: {stderr}");
        assert!(out.stdout.is_empty(), "{mention}: games were played");
    };
    refused(match_with(&["--tc", "fast"]), "--tc");
    refused(match_with(&["--tc", "1e30+0"]), "--tc");
    refused(
        self_match(&["--openings", "/nonexistent/openings.txt"]),
        "/nonexistent/openings.txt",
    );
    refused(match_with(&["--concurrency", "0"]), "--concurrency");
    refused(match_with(&["--depth", "0"]), "--depth");
    refused(match_with(&["--depth", "3", "--nodes", "1000"]), "--nodes");
    refused(match_with(&["--depth", "3", "--tc", "1+0"]), "--tc");
    refused(match_with(&["--sprt", "5,0"]), "ELO0,ELO1");
    refused(match_with(&["--sprt", "zero,5"]), "ELO0,ELO1");
    refused(
        match_with(&["--depth", "1", "--pgn", "/nonexistent/dir/games.pgn"]),
        "/nonexistent/dir/games.pgn",
    );
}
