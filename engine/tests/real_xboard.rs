//! The engine in the real XBoard (Debian's `xboard`, no adapter), on a
//! virtual display (Xvfb): XBoard plays a whole game of xiangqi between
//! two of our engines in its two-machine mode, saves it, and draws the
//! final position, which ImageMagick's `import` takes a picture of. Every
//! move the engines sent, as XBoard's debug log has them, replays legally,
//! and the game has a result. Needs `xboard`, `xvfb`, `xauth` and
//! `imagemagick` (Debian packages; scripts/test.sh installs them).

use std::path::Path;
use std::process::Command;
use std::time::{Duration, Instant};

use xqcore::Position;

/// XBoard's path: Debian puts it in /usr/games, off root's PATH.
const XBOARD: &str = "/usr/games/xboard";

/// Fails the test, before anything starts, when a program it needs is
/// missing: the message says what to install.
fn need(program: &str) {
    let found = Path::new(program).is_file()
        || Command::new("sh")
            .args(["-c", &format!("command -v {program}")])
            .output()
            .is_ok_and(|o| o.status.success());
    if !found {
        let why = format!(
            "{program} is missing: the XBoard test needs it. Install it with `apt-get install \
             --no-install-recommends xboard xvfb xauth imagemagick`, or run scripts/test.sh, \
             which installs what the tests need and runs them."
        );
        eprintln!("{why}");
        std::panic::resume_unwind(Box::new(why));
    }
}

#[test]
fn xboard_plays_a_whole_game_between_two_engines() {
    for program in [XBOARD, "xvfb-run", "import"] {
        need(program);
    }
    let dir = tempfile::tempdir().unwrap();
    let (game, log, shot) = (
        dir.path().join("game.pgn"),
        dir.path().join("xboard.debug"),
        dir.path().join("xboard.png"),
    );
    let engine = env!("CARGO_BIN_EXE_xqengine");
    let workspace = concat!(env!("CARGO_MANIFEST_DIR"), "/..");
    // XBoard in the background; once the saved game has its result, the
    // picture, then XBoard closed.
    let script = format!(
        "{XBOARD} -variant xiangqi -fcp '{engine}' -fd '{workspace}' -scp '{engine}' \
         -sd '{workspace}' -mode TwoMachines -tc 0:30 -inc 0.3 -depth 3 -sgf '{game}' \
         -popupExitMessage false -soundMove '' -debug -nameOfDebugFile '{log}' &\n\
         pid=$!\n\
         for i in $(seq 1 240); do grep -q '^{{.*}} *[-0-9/]*$' '{game}' 2>/dev/null && break; \
         sleep 0.5; done\n\
         sleep 1\n\
         import -window root '{shot}'\n\
         kill $pid\n",
        game = game.display(),
        log = log.display(),
        shot = shot.display(),
    );
    let mut run = Command::new("xvfb-run")
        .args(["-a", "-s", "-screen 0 1000x760x24", "sh", "-c", &script])
        .spawn()
        .unwrap();
    let started = Instant::now();
    while run.try_wait().unwrap().is_none() {
        if started.elapsed() > Duration::from_secs(240) {
            let _ = run.kill();
            panic!("XBoard's game did not end within 4 minutes");
        }
        std::thread::sleep(Duration::from_millis(200));
    }

    // The engines' moves, in XBoard's order, replay legally.
    let log = std::fs::read_to_string(&log).expect("XBoard's debug log");
    let moves: Vec<&str> = log
        .lines()
        .filter_map(|l| {
            l.split_once("<first : move ")
                .or(l.split_once("<second: move "))
        })
        .map(|(_, mv)| mv.trim())
        .collect();
    let mut pos = Position::start();
    for (ply, text) in moves.iter().enumerate() {
        let mv = pos
            .parse_move(text)
            .unwrap_or_else(|e| panic!("ply {ply}: {text}: {e}"));
        pos.make_move(mv);
    }
    assert!(moves.len() >= 20, "{} plies: {log}", moves.len());
    let saved = std::fs::read_to_string(&game).expect("the saved game");
    assert!(saved.contains("[Variant \"xiangqi\"]"), "{saved}");
    let result = saved
        .lines()
        .find_map(|l| l.strip_prefix("[Result \""))
        .unwrap_or_default();
    assert!(
        ["1-0\"]", "0-1\"]", "1/2-1/2\"]"].contains(&result),
        "{saved}"
    );
    // The picture of the final position (a copy kept to look at).
    let png = std::fs::read(&shot).expect("a screenshot");
    assert!(
        png.len() > 20_000 && png.starts_with(b"\x89PNG"),
        "{} bytes",
        png.len()
    );
    let _ = std::fs::write("/tmp/xboard_game.png", &png);
}
