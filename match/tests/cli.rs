//! `xqmatch` as a user runs it, against small shell engines: one that
//! speaks UCCI and resigns at once, one that speaks only UCI. (Real games
//! between real engines, in both protocols, are played by the engine's own
//! tests: engine/tests/matches.rs.)

use std::process::{Command, Output};

use xqrecords::{read_records, ReadOptions};

/// A UCCI engine that resigns every move, with a move legal for Red at the
/// start, so Red loses every game at once.
const RESIGNS: &str = "while read -r line; do case \"$line\" in \
    ucci) echo 'id name Resigner'; echo 'option usemillisec type check default false'; echo ucciok;; \
    isready) echo readyok;; go*) echo 'bestmove h2e2 resign';; quit) exit 0;; esac; done";

/// A UCI engine that says so when spoken to in UCCI and has no move to
/// give: it loses every game it is asked to move in.
const UCI_NO_MOVE: &str = "while read -r line; do case \"$line\" in \
    uci) echo 'id name NoMove'; echo uciok;; isready) echo readyok;; \
    go*) echo 'info depth 1 score cp 0'; echo 'bestmove (none)';; quit) exit 0;; \
    ucinewgame|position*|setoption*) ;; *) echo \"Unknown command: '$line'\";; esac; done";

/// A UCCI engine that shuffles its knights (b0c2 b9c7 c2b0 c7b9, over and
/// over) and reports `score` for Red when Red moves and `-score` (for
/// Black) when Black does: both sides agree that Red is `score` ahead.
fn knight_shuffler(score: i32) -> String {
    format!(
        "while read -r line; do case \"$line\" in \
         ucci) echo ucciok;; isready) echo readyok;; \
         position*) n=0; seen=; for w in $line; do [ -n \"$seen\" ] && n=$((n + 1)); \
             [ \"$w\" = moves ] && seen=1; done;; \
         go*) case $((n % 4)) in 0) m=b0c2;; 1) m=b9c7;; 2) m=c2b0;; 3) m=c7b9;; esac; \
              s={score}; [ $((n % 2)) = 1 ] && s=$((0 - s)); \
              echo \"info depth 1 score $s pv $m\"; echo \"bestmove $m\";; \
         quit) exit 0;; esac; done"
    )
}

/// `xqmatch` with `args`, run from the temporary directory (no data/ there:
/// the bundled openings are used).
fn xqmatch(args: &[&str]) -> Output {
    Command::new(env!("CARGO_BIN_EXE_xqmatch"))
        .args(args)
        .current_dir(std::env::temp_dir())
        .output()
        .expect("run xqmatch")
}

/// `xqmatch` of [`RESIGNS`] against itself, with `args`.
fn resigners(args: &[&str]) -> Output {
    let mut all = vec!["--engine1", RESIGNS, "--engine2", RESIGNS];
    all.extend_from_slice(args);
    xqmatch(&all)
}

/// A unique path in the temporary directory, empty at first, removed when dropped.
struct TempFile(std::path::PathBuf);

impl TempFile {
    fn new(name: &str) -> TempFile {
        let unique = format!("xqmatch-{}-{name}", std::process::id());
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

fn stdout(out: &Output) -> String {
    let text = String::from_utf8_lossy(&out.stdout).into_owned();
    assert!(
        out.status.success(),
        "{text}\n{}",
        String::from_utf8_lossy(&out.stderr)
    );
    text
}

#[test]
fn concurrent_games_write_pgn_the_toolkit_reads_back() {
    let pgn = TempFile::new("concurrent.pgn");
    let path = pgn.0.to_str().expect("UTF-8 temporary path");
    let text = stdout(&resigners(&[
        "--concurrency",
        "2",
        "--games",
        "4",
        "--depth",
        "2",
        "--pgn",
        path,
    ]));
    let game_lines: Vec<&str> = text.lines().filter(|l| l.starts_with("game ")).collect();
    assert_eq!(game_lines.len(), 4, "{text}");
    assert!(
        game_lines.iter().all(|l| l.contains("(resignation)")),
        "{text}"
    );
    // Red resigns every game: engine1 (Red in games 1 and 3) loses two, wins two.
    let summary: Vec<&str> = text.lines().rev().take(2).collect();
    assert!(
        summary[1].starts_with("engine1 +2 =0 -2 score 50.0 %"),
        "{text}"
    );
    assert_eq!(summary[0], "ended by: resignation 4");

    let bytes = std::fs::read(&pgn.0).expect("PGN written");
    let games = read_records(&bytes, &ReadOptions::default(), &|_| {});
    assert!(games.errors.is_empty(), "{:?}", games.errors);
    assert_eq!(games.games.len(), 4);
    let mut rounds: Vec<&str> = games
        .games
        .iter()
        .map(|g| g.tag("Round").unwrap())
        .collect();
    rounds.sort();
    assert_eq!(rounds, ["1", "2", "3", "4"]);
    let round = |n: &str| {
        games
            .games
            .iter()
            .find(|g| g.tag("Round") == Some(n))
            .unwrap()
    };
    for (even, odd) in [(round("1"), round("2")), (round("3"), round("4"))] {
        // Each opening twice, colours swapped; engine1 is Red first.
        assert_eq!(even.tag("Opening"), odd.tag("Opening"));
        assert_eq!(even.tag("Red"), Some("Resigner (engine1)"));
        assert_eq!(even.tag("Red"), odd.tag("Black"));
        assert_eq!(even.tag("Result"), Some("0-1"));
    }
    assert_ne!(round("1").tag("Opening"), round("3").tag("Opening"));
    for game in &games.games {
        assert_eq!(game.tag("TimeControl"), Some("depth=2"));
        assert_eq!(game.tag("Termination"), Some("resignation"));
        let opening: Vec<String> = game.moves.iter().map(|m| m.to_string()).collect();
        assert_eq!(game.tag("Opening"), Some(opening.join(" ").as_str()));
    }
}

#[test]
fn a_uci_engine_is_found_out_and_can_be_told() {
    for proto in [None, Some("uci")] {
        let mut args = vec![
            "--engine1",
            RESIGNS,
            "--engine2",
            UCI_NO_MOVE,
            "--depth",
            "1",
        ];
        if let Some(proto) = proto {
            args.extend_from_slice(&["--proto2", proto, "--option2", "Hash=16"]);
        }
        let text = stdout(&xqmatch(&args));
        // Game 1: Red (engine1) resigns. Game 2: Red (NoMove) has no move.
        assert!(
            text.contains("game   1: Resigner - NoMove: 0-1 (resignation)"),
            "{text}"
        );
        assert!(
            text.contains("game   2: NoMove - Resigner: 0-1 (illegal move no move)"),
            "{text}"
        );
    }
    // Told UCCI, the UCI engine cannot be started: the match stops, saying why.
    let out = xqmatch(&[
        "--engine1",
        RESIGNS,
        "--engine2",
        UCI_NO_MOVE,
        "--proto2",
        "ucci",
    ]);
    assert_eq!(out.status.code(), Some(1));
    let stderr = String::from_utf8_lossy(&out.stderr);
    assert!(stderr.contains("no ucciok to ucci"), "{stderr}");
}

#[test]
fn openings_from_a_fen_are_played_from_it() {
    let openings = TempFile::new("openings.txt");
    let fen = "3k5/9/9/9/9/9/9/9/4R4/4K4 w";
    std::fs::write(&openings.0, format!("# one line\nfen {fen} moves e1e2\n")).unwrap();
    let pgn = TempFile::new("fen.pgn");
    stdout(&resigners(&[
        "--depth",
        "1",
        "--openings",
        openings.0.to_str().unwrap(),
        "--pgn",
        pgn.0.to_str().unwrap(),
    ]));
    let bytes = std::fs::read(&pgn.0).unwrap();
    let games = read_records(&bytes, &ReadOptions::default(), &|_| {});
    assert_eq!(games.games.len(), 2);
    for game in &games.games {
        assert_eq!(game.tag("FEN"), Some(fen));
        assert_eq!(
            game.start.fen(),
            xqcore::Position::from_fen(fen).unwrap().fen()
        );
        // Black, to move after the opening, resigns: Red wins.
        assert_eq!(game.tag("Termination"), Some("resignation"));
        assert_eq!(game.tag("Result"), Some("1-0"));
    }
}

/// The ICCS moves of the first game of the PGN file at `path` as the
/// Python library `cchess` reads them; `None` when python3 or cchess is
/// not installed (`python3 -m pip install cchess==1.25.5`).
fn cchess_moves(path: &std::path::Path) -> Option<Vec<String>> {
    let script = "import sys, cchess\n\
        game = cchess.read_from_pgn(sys.argv[1])\n\
        print(' '.join(game.dump_iccs_moves()[0]) if game.dump_iccs_moves() else '')";
    let out = Command::new("python3")
        .args(["-c", script])
        .arg(path)
        .output()
        .ok()?;
    let stderr = String::from_utf8_lossy(&out.stderr);
    if !out.status.success() && stderr.contains("No module named 'cchess'") {
        return None;
    }
    assert!(out.status.success(), "cchess failed: {stderr}");
    let text = String::from_utf8_lossy(&out.stdout);
    Some(text.split_whitespace().map(String::from).collect())
}

#[test]
fn the_pgn_says_its_moves_are_iccs_and_other_readers_read_them() {
    let pgn = TempFile::new("format.pgn");
    // One game (cchess reads the first game of a file, and stumbles on the
    // next one's tags), where Red resigns at once: the opening's six moves.
    let path = pgn.0.to_str().unwrap();
    stdout(&resigners(&["--games", "1", "--depth", "1", "--pgn", path]));
    let text = std::fs::read_to_string(&pgn.0).unwrap();
    assert_eq!(text.matches("\n[Format \"ICCS\"]\n").count(), 1, "{text}");
    let games = read_records(text.as_bytes(), &ReadOptions::default(), &|_| {});
    assert_eq!(games.games.len(), 1);
    let ours: Vec<String> = games.games[0].moves.iter().map(|m| m.to_string()).collect();
    assert_eq!(ours.len(), 6, "{text}");
    match cchess_moves(&pgn.0) {
        Some(theirs) => assert_eq!(theirs, ours, "{text}"),
        None => eprintln!("cchess not installed: its reading is not checked"),
    }
}

#[test]
fn bad_arguments_are_refused() {
    let refused = |out: Output, mention: &str| {
        let stderr = String::from_utf8_lossy(&out.stderr);
        assert_eq!(out.status.code(), Some(2), "{mention}: {stderr}");
        assert!(stderr.contains(mention), "{mention}: {stderr}");
        assert!(out.stdout.is_empty(), "{mention}: games were played");
    };
    refused(resigners(&["--tc", "fast"]), "--tc");
    refused(resigners(&["--tc", "1e30+0"]), "--tc");
    refused(
        resigners(&["--openings", "/nonexistent/openings.txt"]),
        "/nonexistent/openings.txt",
    );
    // An openings file without an opening, or with a line that is not one,
    // is refused, naming the file (and the line).
    let openings = TempFile::new("bad-openings.txt");
    let path = openings.0.to_str().unwrap();
    for (text, mention) in [
        ("", path.to_string()),
        ("# nothing but a comment\n\n", path.to_string()),
        ("h2e2\nfen\n", format!("{path}: line 2: ")),
        (
            "h2e2\nfen 3k5/9/9/9/9/9/9/9/4R4/4K4 w e1e2\n",
            format!("{path}: line 2: 'e1e2' after the FEN"),
        ),
        ("h2e2 h2e2\n", format!("{path}: line 1: move 2: ")),
    ] {
        std::fs::write(&openings.0, text).unwrap();
        refused(resigners(&["--depth", "1", "--openings", path]), &mention);
    }
    refused(resigners(&["--concurrency", "0"]), "--concurrency");
    refused(resigners(&["--depth", "0"]), "--depth");
    refused(resigners(&["--depth", "3", "--nodes", "1000"]), "--nodes");
    refused(resigners(&["--depth", "3", "--tc", "1+0"]), "--tc");
    refused(resigners(&["--sprt", "5,0"]), "ELO0,ELO1");
    refused(resigners(&["--sprt", "zero,5"]), "ELO0,ELO1");
    refused(resigners(&["--proto1", "xboard"]), "xboard");
    refused(resigners(&["--option1", "=5"]), "names no option");
    refused(
        resigners(&["--depth", "1", "--pgn", "/nonexistent/dir/games.pgn"]),
        "/nonexistent/dir/games.pgn",
    );
}

#[test]
fn help_names_every_flag() {
    let out = xqmatch(&["--help"]);
    let text = stdout(&out);
    for flag in [
        "--engine1",
        "--engine2",
        "--proto1",
        "--option1",
        "--games",
        "--tc",
        "--depth",
        "--nodes",
        "--concurrency",
        "--openings",
        "--pgn",
        "--sprt",
    ] {
        assert!(text.contains(flag), "{flag} missing from --help");
    }
}

#[test]
fn agreeing_scores_end_games_when_asked() {
    let openings = TempFile::new("start.txt");
    let start_fen = format!("fen {}\n", xqcore::START_FEN);
    std::fs::write(&openings.0, start_fen).unwrap();
    let start = openings.0.to_str().expect("UTF-8 temporary path");
    let shufflers = |score: i32, rule: &[&str]| {
        let engine = knight_shuffler(score);
        let mut args = vec!["--engine1", &engine, "--engine2", &engine, "--depth", "1"];
        args.extend_from_slice(&["--openings", start, "--games", "1"]);
        args.extend_from_slice(rule);
        stdout(&xqmatch(&args))
    };
    // Without adjudication the shuffle is a repetition at its third occurrence.
    let text = shufflers(700, &[]);
    assert!(
        text.contains("1/2-1/2 (repetition) after 8 plies"),
        "{text}"
    );
    // Both say Red is 7 pawns up: Red wins once each has said so twice.
    let resign = ["--resign", "movecount=2,score=600"];
    let text = shufflers(700, &resign);
    assert!(
        text.contains("1-0 (resign adjudication) after 4 plies"),
        "{text}"
    );
    assert!(text.contains("ended by: resign adjudication 1"), "{text}");
    assert!(
        shufflers(500, &resign).contains("(repetition)"),
        "500 < 600"
    );
    let draw = ["--draw", "movenumber=1,movecount=1,score=10"];
    let text = shufflers(-10, &draw);
    assert!(
        text.contains("1/2-1/2 (draw adjudication) after 2 plies"),
        "{text}"
    );
    let late = ["--draw", "movenumber=3,movecount=1,score=10"];
    assert!(shufflers(0, &late).contains("(draw adjudication) after 6 plies"));
    assert!(shufflers(11, &draw).contains("(repetition)"), "11 > 10");
    let bad = xqmatch(&[
        "--engine1",
        "x",
        "--engine2",
        "x",
        "--draw",
        "movecount=3,score=10",
    ]);
    assert!(!bad.status.success());
    assert!(String::from_utf8_lossy(&bad.stderr).contains("movenumber is missing"));
}
