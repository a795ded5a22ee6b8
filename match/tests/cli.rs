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
    let summary: Vec<&str> = text.lines().rev().take(3).collect();
    assert!(
        summary[2].starts_with("engine1 +2 =0 -2 score 50.0 %"),
        "{text}"
    );
    // Each pair of games a win and a loss: one point a pair.
    assert!(
        summary[1].starts_with("pentanomial: 0 0, 0.5 0, 1 2, 1.5 0, 2 0 (2 pairs"),
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
fn a_missing_engine_is_said_to_be_not_found_and_no_score_is_printed() {
    for missing in [["./no-such-engine", RESIGNS], [RESIGNS, "./no-such-engine"]] {
        let out = xqmatch(&[
            "--engine1",
            missing[0],
            "--engine2",
            missing[1],
            "--depth",
            "1",
        ]);
        assert_eq!(out.status.code(), Some(1));
        let stderr = String::from_utf8_lossy(&out.stderr);
        assert!(
            stderr.starts_with("xqmatch: cannot start './no-such-engine': not found ("),
            "{stderr}"
        );
        assert!(
            !stderr.contains("Broken pipe") && !stderr.contains("did not answer"),
            "{stderr}"
        );
        let stdout = String::from_utf8_lossy(&out.stdout);
        assert!(stdout.is_empty(), "a score table for no game: {stdout}");
    }
}

/// A UCCI engine with one option, `hashsize`, that answers a value that is
/// not a number as our engine does, and resigns every move.
const PICKY: &str = "while read -r line; do case \"$line\" in \
    ucci) echo 'id name Picky'; echo 'option hashsize type spin min 0 max 64 default 16'; echo ucciok;; \
    'setoption hashsize '*[!0-9]*) echo \"info string option hashsize: bad value '${line#setoption hashsize }'\";; \
    isready) echo readyok;; go*) echo 'bestmove h2e2 resign';; quit) exit 0;; esac; done";

#[test]
fn an_option_the_engine_refuses_stops_the_match_before_its_first_game() {
    let with_option = |option: &str| {
        let args = ["--engine1", PICKY, "--engine2", RESIGNS, "--depth", "1"];
        let mut args = args.to_vec();
        args.extend_from_slice(&["--option1", option]);
        xqmatch(&args)
    };
    let refused = |out: Output, why: &str| {
        assert_eq!(out.status.code(), Some(1), "{why}");
        let stderr = String::from_utf8_lossy(&out.stderr);
        assert_eq!(stderr, format!("xqmatch: Picky: {why}\n"));
        assert!(out.stdout.is_empty(), "{why}: games were played");
    };
    refused(
        with_option("hashsize=abc"),
        "option 'hashsize=abc' refused: info string option hashsize: bad value 'abc'",
    );
    refused(
        with_option("hashsiz=64"),
        "unknown option 'hashsiz' (not among the options it announces: hashsize)",
    );
    let text = stdout(&with_option("hashsize=64"));
    assert!(text.contains("game   2: Resigner - Picky: 0-1"), "{text}");
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
    match xqcli::cchess::pgn_moves(&pgn.0) {
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
    refused(
        resigners(&["--sprt", "0,5", "--sprt-earlier", "1/2/3"]),
        "five counts of pairs",
    );
    refused(resigners(&["--sprt-earlier", "1/2/3/4/5"]), "--sprt");
    refused(resigners(&["--proto1", "xboard"]), "xboard");
    refused(resigners(&["--option1", "=5"]), "names no option");
    refused(
        xqmatch(&["--engine", "cmd=x", "--depth", "1"]),
        "two engines or more",
    );
    refused(
        xqmatch(&["--engine", "cmd=x", "tc=fast", "--engine", "cmd=y"]),
        "--engine 1: 'fast' is not a time control",
    );
    refused(
        xqmatch(&["--engine", "name=A", "--engine", "cmd=y"]),
        "engine 1 has no cmd=",
    );
    refused(
        xqmatch(&[
            "--engine", "cmd=x", "--engine", "cmd=y", "--each", "speed=9",
        ]),
        "--each: 'speed=9'",
    );
    refused(resigners(&["--resume"]), "--pgn");
    refused(
        resigners(&["--tables", "/nonexistent/tables"]),
        "/nonexistent/tables",
    );
    refused(
        resigners(&["--depth", "1", "--pgn", "/nonexistent/dir/games.pgn"]),
        "/nonexistent/dir/games.pgn",
    );
}

#[test]
fn an_sprt_goes_on_from_earlier_pairs() {
    let out = resigners(&[
        "--depth",
        "1",
        "--games",
        "4",
        "--sprt",
        "0,5",
        "--sprt-earlier",
        "10/60/200/70/12",
    ]);
    let text = stdout(&out);
    assert!(out.status.success(), "{text}");
    // Every pair here is a win and a loss (Red resigns at once), which
    // alone has no variance (LLR 0); with the earlier 352 pairs, counts
    // 10/60/202/70/12: 0.417 by hand (Python).
    assert!(
        text.contains("SPRT: inconclusive, LLR 0.42 after 4 games")
            && text.contains("game pairs, with 352 earlier pairs)"),
        "{text}"
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
        "--sprt-earlier",
        "--engine ",
        "--each",
        "--format",
        "--rounds",
        "--openings-order",
        "--openings-plies",
        "--resume",
        "--results",
        "--tables",
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

/// [`knight_shuffler`] that writes every `go` line it gets to `log` and
/// waits `pause` seconds before each answer.
fn logging_shuffler(log: &std::path::Path, pause: &str) -> String {
    knight_shuffler(0).replace(
        "go*) ",
        &format!("go*) echo \"$line\" >> {}; sleep {pause}; ", log.display()),
    )
}

#[test]
fn a_round_robin_of_three_gives_standings_a_crosstable_and_json() {
    let pgn = TempFile::new("rr.pgn");
    let json = TempFile::new("rr.jsonl");
    let openings = TempFile::new("rr-start.txt");
    std::fs::write(&openings.0, format!("fen {}\n", xqcore::START_FEN)).unwrap();
    let shuffler = knight_shuffler(0);
    let out = xqmatch(&[
        "--openings",
        openings.0.to_str().unwrap(),
        "--engine",
        &format!("cmd={RESIGNS}"),
        "name=Quitter",
        "--engine",
        &format!("cmd={shuffler}"),
        "name=Knights",
        "--engine",
        &format!("cmd={UCI_NO_MOVE}"),
        "proto=uci",
        "--each",
        "depth=1",
        "--games",
        "2",
        "--concurrency",
        "2",
        "--report-every",
        "3",
        "--pgn",
        pgn.0.to_str().unwrap(),
        "--results",
        json.0.to_str().unwrap(),
    ]);
    let text = stdout(&out);
    let games: Vec<&str> = text.lines().filter(|l| l.starts_with("game ")).collect();
    assert_eq!(games.len(), 6, "{text}");
    // Standings after games 3 and 6, and the summary's.
    assert_eq!(text.matches("Rank  Name").count(), 3, "{text}");
    // Knights wins its four games (the others resign or have no move when
    // they must move); Quitter and NoMove beat each other as Black.
    let lines: Vec<&str> = text.lines().collect();
    let summary = &lines[lines.len() - 9..];
    assert!(summary[0].starts_with("Rank  Name"), "{text}");
    assert!(summary[1].starts_with("   1  Knights"), "{text}");
    assert!(summary[1].ends_with("4  100.0 %    0.0 %"), "{text}");
    assert!(
        summary[2].contains("Quitter") && summary[2].contains(" 25.0 %"),
        "{text}"
    );
    assert!(
        summary[3].contains("NoMove") && summary[3].contains(" 25.0 %"),
        "{text}"
    );
    // The crosstable, from each row's side.
    assert!(summary[6].starts_with("  2  Knights"), "{text}");
    assert_eq!(summary[6].matches("+2 =0 -0").count(), 2, "{text}");
    assert!(summary[5].ends_with("+1 =0 -1"), "{text}");
    assert!(summary[8].starts_with("ended by: "), "{text}");
    let lines = std::fs::read_to_string(&json.0).unwrap();
    let results: Vec<serde_json::Value> = lines
        .lines()
        .map(|l| serde_json::from_str(l).expect("a line of JSON"))
        .collect();
    assert_eq!(results.len(), 6);
    let mut numbers: Vec<u64> = results
        .iter()
        .map(|r| r["number"].as_u64().unwrap())
        .collect();
    numbers.sort();
    assert_eq!(numbers, [1, 2, 3, 4, 5, 6]);
    assert!(results
        .iter()
        .all(|r| r["kind"].is_string() && r["plies"].is_u64()));
    let named: Vec<&str> = results.iter().map(|r| r["red"].as_str().unwrap()).collect();
    assert!(
        named.contains(&"NoMove") && named.contains(&"Quitter"),
        "{named:?}"
    );
}

#[test]
fn each_engine_gets_its_own_time_control() {
    let dir = tempfile::tempdir().unwrap();
    let (fast_log, slow_log) = (dir.path().join("fast"), dir.path().join("slow"));
    let pgn = dir.path().join("odds.pgn");
    let (fast, slow) = (
        logging_shuffler(&fast_log, "0"),
        logging_shuffler(&slow_log, "0"),
    );
    let (fast, slow) = (format!("cmd={fast}"), format!("cmd={slow}"));
    let odds = |openings: &std::path::Path| {
        xqmatch(&[
            "--engine",
            &fast,
            "tc=40/2",
            "--engine",
            &slow,
            "st=0.25",
            "--games",
            "1",
            "--openings",
            openings.to_str().unwrap(),
            "--pgn",
            pgn.to_str().unwrap(),
        ])
    };
    // No such openings file: refused.
    assert_eq!(odds(&dir.path().join("none.txt")).status.code(), Some(2));
    let start = dir.path().join("start.txt");
    std::fs::write(&start, format!("fen {}\n", xqcore::START_FEN)).unwrap();
    let text = stdout(&odds(&start));
    assert!(text.contains("(repetition) after 8 plies"), "{text}");
    let fast = std::fs::read_to_string(&fast_log).unwrap();
    let slow = std::fs::read_to_string(&slow_log).unwrap();
    // The shell engine takes no usemillisec: UCCI times in seconds.
    let first: Vec<&str> = fast.lines().collect();
    assert_eq!(first.len(), 4, "{fast}");
    assert!(first[0].starts_with("go time 2.000 movestogo 40"), "{fast}");
    assert!(first[1].ends_with("movestogo 39"), "{fast}");
    assert!(
        slow.lines().all(|l| l == "go time 0.250 movestogo 1"),
        "{slow}"
    );
    let record = std::fs::read_to_string(&pgn).unwrap();
    assert!(
        record.contains("[RedTimeControl \"40/2\"]\n[BlackTimeControl \"st=0.25\"]"),
        "{record}"
    );
    assert!(!record.contains("[TimeControl"), "{record}");
}

#[test]
fn a_resumed_match_plays_only_what_is_missing() {
    let pgn = TempFile::new("resume.pgn");
    let path = pgn.0.to_str().unwrap();
    let args = ["--games", "4", "--depth", "1", "--pgn", path];
    stdout(&resigners(&args));
    let text = std::fs::read_to_string(&pgn.0).unwrap();
    assert_eq!(text.matches("[Event").count(), 4);
    // Keep games 1 and 2 and half of game 3, as a runner killed while it
    // wrote game 3 would leave them.
    let third = text.match_indices("[Event").nth(2).unwrap().0;
    let fourth = text.match_indices("[Event").nth(3).unwrap().0;
    let cut = &text[..third + (fourth - third) / 2];
    std::fs::write(&pgn.0, cut).unwrap();
    let mut resumed = args.to_vec();
    resumed.push("--resume");
    let out = resigners(&resumed);
    let again = stdout(&out);
    let played: Vec<&str> = again.lines().filter(|l| l.starts_with("game ")).collect();
    assert_eq!(played.len(), 2, "{again}");
    assert!(
        played
            .iter()
            .all(|l| l.starts_with("game   3") || l.starts_with("game   4")),
        "{again}"
    );
    assert!(again.contains("engine1 +2 =0 -2 score 50.0 %"), "{again}");
    assert!(String::from_utf8_lossy(&out.stderr).contains("removed a game cut off"));
    let after = std::fs::read_to_string(&pgn.0).unwrap();
    let records = read_records(after.as_bytes(), &ReadOptions::default(), &|_| {});
    assert!(records.errors.is_empty(), "{:?}", records.errors);
    assert_eq!(records.games.len(), 4);
    // Resuming a finished match plays nothing.
    let done = stdout(&resigners(&resumed));
    assert_eq!(
        done.lines().filter(|l| l.starts_with("game ")).count(),
        0,
        "{done}"
    );
    // Another tournament's PGN is refused.
    let other = xqmatch(&[
        "--engine1",
        UCI_NO_MOVE,
        "--engine2",
        RESIGNS,
        "--games",
        "4",
        "--depth",
        "1",
        "--pgn",
        path,
        "--resume",
    ]);
    assert_eq!(other.status.code(), Some(1));
    assert!(
        String::from_utf8_lossy(&other.stderr).contains("game 1 was played by Resigner"),
        "{other:?}"
    );
}

#[test]
fn ctrl_c_keeps_every_finished_game_and_resume_finishes_the_match() {
    let dir = tempfile::tempdir().unwrap();
    let log = dir.path().join("go");
    let slow = logging_shuffler(&log, "0.05");
    let pgn = dir.path().join("stopped.pgn");
    let start = dir.path().join("start.txt");
    std::fs::write(&start, format!("fen {}\n", xqcore::START_FEN)).unwrap();
    let args = [
        "--engine1",
        slow.as_str(),
        "--engine2",
        slow.as_str(),
        "--depth",
        "1",
        "--games",
        "12",
        "--openings",
        start.to_str().unwrap(),
        "--pgn",
        pgn.to_str().unwrap(),
    ];
    let child = Command::new(env!("CARGO_BIN_EXE_xqmatch"))
        .args(args)
        .stdout(std::process::Stdio::piped())
        .stderr(std::process::Stdio::piped())
        .spawn()
        .unwrap();
    // Each game takes 8 moves of 50 ms: stop in the middle of the match.
    std::thread::sleep(std::time::Duration::from_millis(1500));
    Command::new("kill")
        .args(["-INT", &child.id().to_string()])
        .status()
        .unwrap();
    let out = child.wait_with_output().unwrap();
    assert_eq!(
        out.status.code(),
        Some(130),
        "{}",
        String::from_utf8_lossy(&out.stderr)
    );
    assert!(String::from_utf8_lossy(&out.stderr).contains("--resume"));
    let text = std::fs::read_to_string(&pgn).unwrap_or_default();
    let finished = text.matches("[Event").count();
    assert!(
        (1..12).contains(&finished),
        "{finished} games before the interrupt"
    );
    let records = read_records(text.as_bytes(), &ReadOptions::default(), &|_| {});
    assert!(records.errors.is_empty(), "{:?}", records.errors);
    let mut resumed = args.to_vec();
    resumed.push("--resume");
    let again = stdout(&xqmatch(&resumed));
    let played = again.lines().filter(|l| l.starts_with("game ")).count();
    assert_eq!(played, 12 - finished, "{again}");
    assert!(again.contains("engine1 +0 =12 -0"), "{again}");
}

/// A UCCI engine with one option, `strength`: below 50 it resigns every
/// move; from 50 on it shuffles its knights (so two such engines draw by
/// repetition).
const STRENGTH_OPTION: &str = "s=50; while read -r line; do case \"$line\" in \
    ucci) echo 'option strength type spin min 0 max 100 default 50'; echo ucciok;; \
    setoption*) set -- $line; s=$3;; isready) echo readyok;; \
    position*) n=0; seen=; for w in $line; do [ -n \"$seen\" ] && n=$((n + 1)); \
        [ \"$w\" = moves ] && seen=1; done;; \
    go*) if [ \"$s\" -lt 50 ]; then echo 'bestmove a0a1 resign'; else \
        case $((n % 4)) in 0) m=b0c2;; 1) m=b9c7;; 2) m=c2b0;; 3) m=c7b9;; esac; \
        echo \"bestmove $m\"; fi;; \
    quit) exit 0;; esac; done";

/// The value of `name` in an spsa state file.
fn tuned_value(state: &std::path::Path, name: &str) -> f64 {
    let text = std::fs::read_to_string(state).unwrap();
    let line = text.lines().find(|l| l.starts_with(name)).unwrap();
    line.split_whitespace().nth(1).unwrap().parse().unwrap()
}

#[test]
fn spsa_moves_a_parameter_towards_the_copy_that_wins_and_resumes() {
    let params = TempFile::new("spsa-params");
    let state = TempFile::new("spsa-state");
    std::fs::write(
        &params.0,
        "# a parameter below 50 loses\nstrength 40 0 100 10\n",
    )
    .unwrap();
    let args = |pairs: &str| {
        let mut all = vec!["spsa", "--engine", STRENGTH_OPTION, "--iterations", "20"];
        all.extend_from_slice(&["--r-end", "0.5", "--tc", "60+1", "--pairs", pairs]);
        all.extend_from_slice(&["--params", params.0.to_str().unwrap()]);
        all.extend_from_slice(&["--state", state.0.to_str().unwrap()]);
        all.iter().map(|s| s.to_string()).collect::<Vec<_>>()
    };
    let run = |pairs: &str| {
        let args = args(pairs);
        stdout(&xqmatch(
            &args.iter().map(String::as_str).collect::<Vec<_>>(),
        ))
    };
    let first = run("3");
    assert!(first.contains("pair 3 of 20"), "{first}");
    let after_three = tuned_value(&state.0, "strength");
    // Each pair is won twice by the copy at 50 or more, and the value moves
    // its way; once both copies reach 50 they draw and it stays.
    assert!(after_three > 40.0, "{first}");
    // The same command goes on from the state (its --params is not read again).
    std::fs::write(&params.0, "not a parameter file").unwrap();
    let second = run("2");
    assert!(
        second.contains("spsa: 1 parameters, pair 3 of 20"),
        "{second}"
    );
    assert!(
        second.contains("pair 5 of 20:") && !second.contains("pair 3 of 20:"),
        "{second}"
    );
    assert!(tuned_value(&state.0, "strength") >= after_three);
    // A bad parameter file is refused with its line.
    let fresh = TempFile::new("spsa-fresh");
    let start_fresh = || {
        let params = params.0.to_str().unwrap();
        let state = fresh.0.to_str().unwrap();
        xqmatch(&[
            "spsa",
            "--engine",
            STRENGTH_OPTION,
            "--params",
            params,
            "--state",
            state,
        ])
    };
    let out = start_fresh();
    assert_eq!(out.status.code(), Some(2));
    let why = String::from_utf8_lossy(&out.stderr);
    assert!(
        why.contains("line 1: 'not a parameter file' is not: name value min max step"),
        "{why}"
    );
    // A parameter the engine does not announce would tune nothing.
    std::fs::write(&params.0, "strength 40 0 100 10\nstrenght 5 0 9 1\n").unwrap();
    let out = start_fresh();
    assert_eq!(out.status.code(), Some(1));
    let why = String::from_utf8_lossy(&out.stderr);
    assert!(why.contains("announces no option 'strenght'"), "{why}");
    assert!(
        !fresh.0.exists(),
        "no state is written for a run that did not start"
    );
}
