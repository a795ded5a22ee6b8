//! `xqtrain datagen` then `xqtrain tune` and `xqtrain nnue`, as a user
//! runs them.

use std::process::Command;

fn xqtrain(args: &[&str]) -> std::process::Output {
    Command::new(env!("CARGO_BIN_EXE_xqtrain"))
        .args(args)
        .output()
        .expect("run xqtrain")
}

/// Plays `games` quick self-play games into the games file `data`, drawn
/// from `seed` (the same seed plays the same games).
fn self_play(data: &std::path::Path, games: usize, seed: u64) {
    let (games, seed) = (games.to_string(), seed.to_string());
    let data = data.to_str().unwrap();
    let out = xqtrain(&[
        "datagen", "--out", data, "--games", &games, "--nodes", "300", "--tables", "none",
        "--seed", &seed,
    ]);
    assert!(
        out.status.success(),
        "{}",
        String::from_utf8_lossy(&out.stderr)
    );
}

#[test]
fn data_from_self_play_and_records_tunes_the_weights() {
    let dir = tempfile::tempdir().unwrap();
    let data = dir.path().join("data.games");
    self_play(&data, 2, 1);
    let mut file = std::fs::File::open(&data).unwrap();
    let games = xqlearn::read_games(&mut file).unwrap();
    assert_eq!(games.len(), 2);
    // Game records in Chinese notation and Big5, read by xqrecords.
    let games = concat!(
        env!("CARGO_MANIFEST_DIR"),
        "/../data/games/ccpd-first-200.big5.pgn"
    );
    let weights = dir.path().join("weights.rs");
    let out = xqtrain(&[
        "tune",
        data.to_str().unwrap(),
        "--pgn",
        games,
        "--epochs",
        "2",
        "--out",
        weights.to_str().unwrap(),
    ]);
    let stderr = String::from_utf8_lossy(&out.stderr);
    assert!(out.status.success(), "{stderr}");
    assert!(stderr.contains("ccpd-first-200.big5.pgn: "), "{stderr}");
    let used: usize = stderr
        .split("ccpd-first-200.big5.pgn: ")
        .nth(1)
        .and_then(|rest| rest.split_whitespace().next()?.parse().ok())
        .unwrap();
    assert!(used > 150, "{stderr}");
    let source = std::fs::read_to_string(&weights).unwrap();
    assert!(source.contains("pub const WEIGHTS"), "{source}");
    // A missing record file is refused, naming it.
    let out = xqtrain(&[
        "tune",
        data.to_str().unwrap(),
        "--pgn",
        "/nonexistent/games.pgn",
        "--out",
        weights.to_str().unwrap(),
    ]);
    assert_eq!(out.status.code(), Some(2));
    assert!(String::from_utf8_lossy(&out.stderr).contains("/nonexistent/games.pgn"));
}

#[test]
fn nnue_training_writes_a_net_and_resumes_from_its_checkpoint() {
    let dir = tempfile::tempdir().unwrap();
    let data = dir.path().join("data.games");
    self_play(&data, 4, 1);
    let checkpoint = dir.path().join("run.xqck");
    let net = dir.path().join("run.xqnn");
    let run = |more: &[&str]| {
        let mut args = vec![
            "nnue",
            data.to_str().unwrap(),
            "--checkpoint",
            checkpoint.to_str().unwrap(),
            "--out",
            net.to_str().unwrap(),
            "--batch-size",
            "64",
        ];
        args.extend_from_slice(more);
        xqtrain(&args)
    };
    let train = |epochs: &str| run(&["--epochs", epochs, "--validation-every", "2"]);
    let out = train("2");
    let stderr = String::from_utf8_lossy(&out.stderr);
    assert!(out.status.success(), "{stderr}");
    assert!(stderr.contains("epoch 2/2: train"), "{stderr}");
    assert!(stderr.contains("validation"), "{stderr}");
    let first = xqnnue::Network::load(&net).unwrap();
    let out = train("3");
    let stderr = String::from_utf8_lossy(&out.stderr);
    assert!(stderr.contains("after epoch 2"), "{stderr}");
    assert!(stderr.contains("epoch 3/3"), "{stderr}");
    assert!(!stderr.contains("epoch 1/3"), "{stderr}");
    assert_ne!(xqnnue::Network::load(&net).unwrap(), first);
    // A damaged checkpoint is refused, naming it, and left alone.
    std::fs::write(&checkpoint, b"XQCKPT\0\0 not really").unwrap();
    let out = train("4");
    assert_eq!(out.status.code(), Some(2));
    assert!(String::from_utf8_lossy(&out.stderr).contains("run.xqck"));
    // A new net of another width, written with its width in the header;
    // a width the engine cannot take, or another than the checkpoint's, is
    // refused.
    let wide = |hidden: &str, fresh: bool| {
        let args = ["--epochs", "1", "--hidden", hidden, "--fresh"];
        run(&args[..if fresh { 5 } else { 4 }])
    };
    let out = wide("64", true);
    let stdout = String::from_utf8_lossy(&out.stdout);
    assert!(
        out.status.success(),
        "{}",
        String::from_utf8_lossy(&out.stderr)
    );
    assert!(stdout.contains("1260->64x2"), "{stdout}");
    assert_eq!(xqnnue::Network::load(&net).unwrap().hidden(), 64);
    // A king-square net goes on from its checkpoint; asking another
    // feature set of it is refused.
    let out = run(&["--epochs", "1", "--features", "king-square", "--fresh"]);
    assert!(
        out.status.success(),
        "{}",
        String::from_utf8_lossy(&out.stderr)
    );
    assert!(String::from_utf8_lossy(&out.stdout).contains("king-square 11340->256x2"));
    let out = run(&["--epochs", "2", "--features", "piece-square"]);
    assert_eq!(out.status.code(), Some(2));
    assert!(String::from_utf8_lossy(&out.stderr).contains("not --features piece-square"));
    let out = run(&["--epochs", "2"]);
    assert!(
        out.status.success(),
        "{}",
        String::from_utf8_lossy(&out.stderr)
    );
    let net = xqnnue::Network::load(&net).unwrap();
    assert_eq!(
        net.architecture().features(),
        xqnnue::FeatureSet::KingSquare
    );
    for (hidden, fresh, says) in [
        ("100", true, "100 hidden"),
        ("128", false, "not --hidden 128"),
    ] {
        let out = wide(hidden, fresh);
        let stderr = String::from_utf8_lossy(&out.stderr);
        assert_eq!(out.status.code(), Some(2), "{stderr}");
        assert!(stderr.contains(says), "{stderr}");
    }
    // Games files that are not games files are refused, naming them.
    let out = xqtrain(&[
        "nnue",
        "/nonexistent/x.games",
        "--checkpoint",
        checkpoint.to_str().unwrap(),
        "--out",
        dir.path().join("run.xqnn").to_str().unwrap(),
    ]);
    assert_eq!(out.status.code(), Some(2));
    assert!(String::from_utf8_lossy(&out.stderr).contains("/nonexistent/x.games"));
}

/// `xqtrain datagen` with `args` after a games file in `dir`: its exit
/// code and what it said.
fn datagen_refusal(dir: &std::path::Path, args: &[&str]) -> (Option<i32>, String) {
    let out_file = dir.join("refused.games");
    let mut all = vec!["datagen", "--out", out_file.to_str().unwrap()];
    all.extend_from_slice(args);
    all.extend_from_slice(&["--games", "1", "--nodes", "100", "--tables", "none"]);
    let out = xqtrain(&all);
    let stderr = String::from_utf8_lossy(&out.stderr).into_owned();
    (out.status.code(), stderr)
}

#[test]
fn unusable_openings_and_books_are_refused_naming_the_file_once() {
    let dir = tempfile::tempdir().unwrap();
    let openings = dir.path().join("openings.txt");
    let name = openings.to_str().unwrap();
    for (text, says) in [
        ("", "no opening"),
        ("# a comment only\n", "no opening"),
        ("h2e2\nh2e2 h2e2\n", "line 2: move 2"),
    ] {
        std::fs::write(&openings, text).unwrap();
        let (code, stderr) = datagen_refusal(dir.path(), &["--openings", name]);
        assert_eq!(code, Some(2), "{text:?}: {stderr}");
        assert!(stderr.contains(&format!("{name}: {says}")), "{stderr}");
    }
    let book = std::fs::read(concat!(env!("CARGO_MANIFEST_DIR"), "/../data/book.xqb")).unwrap();
    let cut = dir.path().join("cut.xqb");
    let empty = dir.path().join("empty.xqb");
    std::fs::write(&cut, &book[..100]).unwrap();
    std::fs::write(&empty, b"").unwrap();
    for (path, says) in [(&cut, "truncated"), (&empty, "empty")] {
        let name = path.to_str().unwrap();
        let (code, stderr) = datagen_refusal(dir.path(), &["--book", name]);
        assert_eq!(code, Some(2), "{stderr}");
        assert_eq!(stderr.matches(name).count(), 1, "{stderr}");
        assert!(stderr.contains(&format!("{name}: {says}")), "{stderr}");
        assert!(!stderr.contains("ElephantEye"), "{stderr}");
    }
    // A games file cut inside its header is not a games file.
    let games = dir.path().join("cut.games");
    std::fs::write(&games, b"XQGAM").unwrap();
    let name = games.to_str().unwrap();
    let out = xqtrain(&["datagen", "--out", name, "--games", "1", "--tables", "none"]);
    let stderr = String::from_utf8_lossy(&out.stderr);
    assert_eq!(out.status.code(), Some(2), "{stderr}");
    assert!(
        stderr.contains(&format!("{name}: not a games file")),
        "{stderr}"
    );
}

#[test]
fn a_reservoir_keeps_a_sample_of_the_games_and_a_new_round_trains_on_it() {
    let dir = tempfile::tempdir().unwrap();
    let path = |name: &str| dir.path().join(name).to_str().unwrap().to_string();
    let (first, second, reservoir) = (path("1.games"), path("2.games"), path("r.xqres"));
    self_play(std::path::Path::new(&first), 4, 1);
    // Another seed: games played again would be read once.
    self_play(std::path::Path::new(&second), 3, 2);
    let offer = |file: &str, keep: &str| {
        let out = xqtrain(&["reservoir", &reservoir, "--add", file, "--keep", keep]);
        assert!(
            out.status.success(),
            "{}",
            String::from_utf8_lossy(&out.stderr)
        );
        String::from_utf8_lossy(&out.stdout).into_owned()
    };
    let said = offer(&first, "5");
    assert!(
        said.contains("4 games offered, 4 kept; 4 games of 4 ever offered"),
        "{said}"
    );
    let said = offer(&second, "5");
    assert!(said.contains("3 games offered"), "{said}");
    assert!(said.contains("5 games of 7 ever offered"), "{said}");
    // The reservoir trains like a games file; a new round starts from the
    // first round's checkpoint with its epochs counted afresh.
    let train_as = |data: &str, checkpoint: &str, init: Option<&str>, shape: &[&str]| {
        let (net, epochs) = (path("net.xqnn"), "1");
        let mut args = vec![
            "nnue",
            data,
            "--checkpoint",
            checkpoint,
            "--out",
            &net,
            "--epochs",
            epochs,
            "--batch-size",
            "64",
            "--validation-every",
            // A round holds games out: the starting net's loss on them is said.
            if init.is_some() { "2" } else { "0" },
        ];
        if let Some(from) = init {
            args.extend(["--init-from", from]);
        }
        args.extend_from_slice(shape);
        let out = xqtrain(&args);
        (
            out.status.code(),
            String::from_utf8_lossy(&out.stderr).into_owned(),
        )
    };
    let train =
        |data: &str, checkpoint: &str, init: Option<&str>| train_as(data, checkpoint, init, &[]);
    let (round1, round2) = (path("round1.xqck"), path("round2.xqck"));
    let (code, stderr) = train(&reservoir, &round1, None);
    assert_eq!(code, Some(0), "{stderr}");
    assert!(stderr.contains("5 games: "), "{stderr}");
    // Read beside the file it sampled, the reservoir's copies count once:
    // at least 2 of its 5 games are the first file's (the second has 3).
    let out = xqtrain(&["loss", &first, &reservoir, "--checkpoint", &round1]);
    let said = String::from_utf8_lossy(&out.stderr);
    assert!(out.status.success(), "{said}");
    let figures: Vec<usize> = said
        .split(|c: char| !c.is_ascii_digit())
        .filter_map(|w| w.parse().ok())
        .collect();
    let (games, again) = (figures[1], figures[2]);
    assert!(
        said.contains(" read again and left out)") && games + again == 9 && again >= 2,
        "{said}"
    );
    let (code, stderr) = train(&first, &round2, Some(&round1));
    assert_eq!(code, Some(0), "{stderr}");
    assert!(
        stderr.contains("a new round from")
            && stderr.contains("after its epoch 1")
            && stderr.contains("(the starting net)"),
        "{stderr}"
    );
    assert!(stderr.contains("epoch 1/1: train"), "{stderr}");
    // A round may grow the net, wider and over king squares: it starts
    // from the same evaluation, so at the same loss on the held-out games.
    let starting_loss = |stderr: &str| -> f64 {
        let line = stderr.lines().find(|l| l.contains("(the starting net)"));
        let figure = line.and_then(|l| l.split_whitespace().nth(3));
        figure.and_then(|f| f.parse().ok()).expect(stderr)
    };
    let grow = ["--features", "king-square", "--hidden", "320"];
    let (code, grown) = train_as(&first, &path("grown.xqck"), Some(&round1), &grow);
    assert_eq!(code, Some(0), "{grown}");
    assert!(
        grown.contains("grown from piece-square 1260->256x2->1x8 into king-square 11340->320x2"),
        "{grown}"
    );
    assert!((starting_loss(&grown) - starting_loss(&stderr)).abs() < 1e-5);
    assert_eq!(
        xqnnue::Network::load(std::path::Path::new(&path("net.xqnn")))
            .unwrap()
            .architecture(),
        xqnnue::Architecture::new(xqnnue::FeatureSet::KingSquare, 320).unwrap()
    );
    // Narrower is refused, naming the checkpoint.
    let (code, said) = train_as(
        &first,
        &path("narrow.xqck"),
        Some(&round1),
        &["--hidden", "128"],
    );
    assert_eq!(code, Some(2), "{said}");
    assert!(
        said.contains("round1.xqck") && said.contains("cannot grow"),
        "{said}"
    );
    // A round cannot start from its own checkpoint.
    let (code, stderr) = train(&first, &round2, Some(&round2));
    assert_eq!(code, Some(2), "{stderr}");
    // A damaged reservoir is refused by both, naming it.
    let mut bytes = std::fs::read(&reservoir).unwrap();
    let last = bytes.len() - 1;
    bytes[last] ^= 0x55;
    std::fs::write(&reservoir, bytes).unwrap();
    let (code, stderr) = train(&reservoir, &path("round3.xqck"), None);
    assert_eq!(code, Some(2), "{stderr}");
    assert!(
        stderr.contains("r.xqres") && stderr.contains("checksum"),
        "{stderr}"
    );
    let out = xqtrain(&["reservoir", &reservoir, "--add", &first]);
    assert_eq!(out.status.code(), Some(2));
    assert!(String::from_utf8_lossy(&out.stderr).contains("r.xqres"));
}

#[test]
fn loss_reproduces_a_rounds_held_out_figures_for_any_checkpoint() {
    let dir = tempfile::tempdir().unwrap();
    let data = dir.path().join("data.games");
    self_play(&data, 6, 1);
    let path = |name: &str| dir.path().join(name).to_str().unwrap().to_owned();
    let (first, round, net) = (path("first.xqck"), path("round.xqck"), path("n.xqnn"));
    let data = data.to_str().unwrap();
    let common = [
        data,
        "--out",
        &net,
        "--batch-size",
        "64",
        "--validation-every",
        "3",
    ];
    let mut args = vec!["nnue", "--checkpoint", &first, "--epochs", "1"];
    args.extend_from_slice(&common);
    assert!(xqtrain(&args).status.success());
    let mut args = vec!["nnue", "--checkpoint", &round, "--init-from", &first];
    args.extend_from_slice(&["--epochs", "1", "--learning-rate", "0.01"]);
    args.extend_from_slice(&common);
    let out = xqtrain(&args);
    let stderr = String::from_utf8_lossy(&out.stderr);
    assert!(out.status.success(), "{stderr}");
    // The round's figures: its starting net's, then its epoch's.
    let figures: Vec<&str> = stderr
        .lines()
        .filter_map(|l| l.split("validation ").nth(1))
        .map(|rest| &rest[..8])
        .collect();
    assert_eq!(figures.len(), 2, "{stderr}");
    assert_ne!(figures[0], figures[1]);

    let loss = |every: &str, checkpoints: &[&str]| {
        let mut args = vec!["loss", data, "--held-out-every", every, "--checkpoint"];
        args.extend_from_slice(checkpoints);
        xqtrain(&args)
    };
    let out = loss("3", &[&first, &round]);
    let stdout = String::from_utf8_lossy(&out.stdout);
    assert!(
        out.status.success(),
        "{}",
        String::from_utf8_lossy(&out.stderr)
    );
    let measured: Vec<&str> = stdout
        .lines()
        .filter_map(|l| l.split("loss ").nth(1))
        .map(|rest| &rest[..8])
        .collect();
    assert_eq!(measured, figures, "{stdout}\n{stderr}");
    assert!(String::from_utf8_lossy(&out.stderr).contains("of 2 games"));
    // Every game by default; a checkpoint that cannot be read is named.
    let out = loss("1", &[&first]);
    assert!(String::from_utf8_lossy(&out.stderr).contains("of 6 games"));
    let out = loss("1", &[&first, &path("missing.xqck")]);
    assert_eq!(out.status.code(), Some(2));
    assert!(String::from_utf8_lossy(&out.stderr).contains("missing.xqck"));

    // The round's quantised net, alone: near its float model's figure.
    let out = xqtrain(&["loss", data, "--held-out-every", "3", "--net", &net]);
    let stdout = String::from_utf8_lossy(&out.stdout);
    assert!(out.status.success(), "{stdout}");
    let quantised: f64 = stdout
        .lines()
        .find(|l| l.contains("quantised"))
        .and_then(|l| l.split("loss ").nth(1))
        .and_then(|rest| rest[..8].parse().ok())
        .unwrap_or_else(|| panic!("no quantised loss in {stdout}"));
    let float: f64 = figures[1].parse().unwrap();
    assert!(
        (quantised - float).abs() < 0.05 * float,
        "{quantised} against {float}"
    );
    let out = xqtrain(&["loss", data, "--net", &path("missing.xqnn")]);
    assert_eq!(out.status.code(), Some(2));
    assert!(String::from_utf8_lossy(&out.stderr).contains("missing.xqnn"));

    // Master games as a ground of their own, and beside the held-out games:
    // their positions and those alone join the held-out ones.
    let masters = concat!(
        env!("CARGO_MANIFEST_DIR"),
        "/../data/games/ccpd-first-200.big5.pgn"
    );
    let counted = |stderr: &str, tail: &str| -> usize {
        let line = stderr.lines().find(|l| l.contains(tail)).unwrap_or("");
        let figure = line.split(tail).next().unwrap_or("");
        let figure = figure
            .rsplit([' ', ','])
            .find(|w| !w.is_empty())
            .unwrap_or("");
        figure
            .parse()
            .unwrap_or_else(|_| panic!("no '{tail}' figure in {stderr}"))
    };
    let out = xqtrain(&["loss", "--pgn", masters, "--net", &net]);
    let alone = String::from_utf8_lossy(&out.stderr).into_owned();
    assert!(out.status.success(), "{alone}");
    let records = counted(&alone, " positions;");
    assert!(records > 1_000, "{alone}");
    assert_eq!(counted(&alone, " positions scored in all"), records);
    let out = xqtrain(&[
        "loss",
        data,
        "--held-out-every",
        "3",
        "--pgn",
        masters,
        "--net",
        &net,
    ]);
    let both = String::from_utf8_lossy(&out.stderr).into_owned();
    assert!(out.status.success(), "{both}");
    let held_out = counted(&both, " positions of 2 games");
    assert_eq!(
        counted(&both, " positions scored in all"),
        held_out + records
    );
}

/// Run where README's examples are run, beside copies of the shipped
/// files they could overwrite (the net the engine embeds, the committed
/// checkpoint `nnue` would resume from, the engine's weights), the
/// trainers write their named outputs and leave the shipped files as they
/// were. (That the outputs must be named is the binary's unit test.)
#[test]
fn the_trainers_write_only_where_they_are_told() {
    let dir = tempfile::tempdir().unwrap();
    let root = concat!(env!("CARGO_MANIFEST_DIR"), "/..");
    let shipped = [
        "nnue/nets/default.xqnn",
        "nnue/train/checkpoint.xqck",
        "engine/src/eval/weights.rs",
    ];
    for file in shipped {
        let copy = dir.path().join(file);
        std::fs::create_dir_all(copy.parent().unwrap()).unwrap();
        std::fs::copy(format!("{root}/{file}"), &copy).unwrap();
    }
    let before: Vec<Vec<u8>> = shipped
        .iter()
        .map(|f| std::fs::read(dir.path().join(f)).unwrap())
        .collect();
    self_play(&dir.path().join("data.games"), 2, 1);
    let run = |args: &[&str]| {
        let out = Command::new(env!("CARGO_BIN_EXE_xqtrain"))
            .args(args)
            .current_dir(dir.path())
            .output()
            .expect("run xqtrain");
        assert!(
            out.status.success(),
            "{args:?}: {}",
            String::from_utf8_lossy(&out.stderr)
        );
    };
    run(&[
        "nnue",
        "data.games",
        "--epochs",
        "1",
        "--batch-size",
        "64",
        "--checkpoint",
        "mine.xqck",
        "--out",
        "mine.xqnn",
    ]);
    run(&["tune", "data.games", "--epochs", "1", "--out", "mine.rs"]);
    for named in ["mine.xqck", "mine.xqnn", "mine.rs"] {
        assert!(dir.path().join(named).is_file(), "{named} not written");
    }
    for (file, bytes) in shipped.iter().zip(&before) {
        let now = std::fs::read(dir.path().join(file)).unwrap();
        assert!(now == *bytes, "{file} was rewritten");
    }
}

#[test]
fn a_file_that_holds_no_games_is_named_with_one_clear_reason() {
    let dir = tempfile::tempdir().unwrap();
    // Neither a games file nor text: bytes that are not UTF-8.
    let junk = dir.path().join("junk.bin");
    std::fs::write(
        &junk,
        [
            0xff, 0xfe, 0x00, 0x80, 0x81, 0x82, 0x83, 0x84, 0x85, 0x86, 0x87,
        ],
    )
    .unwrap();
    let name = junk.to_str().unwrap();
    let path = |file: &str| dir.path().join(file).to_str().unwrap().to_owned();
    let (weights, checkpoint, net, reservoir) = (
        path("w.rs"),
        path("c.xqck"),
        path("n.xqnn"),
        path("r.xqres"),
    );
    for args in [
        vec!["tune", name, "--out", &weights],
        vec!["nnue", name, "--checkpoint", &checkpoint, "--out", &net],
        vec!["loss", name, "--net", &net],
        vec!["reservoir", &reservoir, "--add", name],
    ] {
        let out = xqtrain(&args);
        let stderr = String::from_utf8_lossy(&out.stderr);
        assert_eq!(out.status.code(), Some(2), "{args:?}: {stderr}");
        let message = stderr.trim();
        assert_eq!(message.lines().count(), 1, "{args:?}: {stderr}");
        assert!(
            message.starts_with(&format!("xqtrain {}: {name}: not a games file", args[0])),
            "{args:?}: {stderr}"
        );
        assert!(!message.contains("UTF-8"), "{args:?}: {stderr}");
    }
    for file in [&weights, &checkpoint, &net, &reservoir] {
        assert!(!std::path::Path::new(file).exists(), "{file} written");
    }
}
