//! UCCI/UCI command lines, fed to a session in-process: no input makes it
//! panic, and only `quit`/`bye` end it. Searches are stopped by the next
//! line, as a GUI's `stop` would.
#![no_main]

use libfuzzer_sys::fuzz_target;
use xqengine::protocol::{self, Command, GoArgs};
use xqengine::session::{Output, Session};

fuzz_target!(|bytes: &[u8]| {
    let text = String::from_utf8_lossy(bytes);
    let mut session = Session::new(Output::new(Box::new(std::io::sink())));
    for line in text.lines().take(64) {
        let command = protocol::parse(line);
        // Resources, not parsing: a table of gigabytes or hundreds of
        // threads per input would only slow the fuzzer down.
        let lower = line.to_ascii_lowercase();
        if lower.contains("hash") || lower.contains("threads") {
            continue;
        }
        // In batch mode a search runs to its end whatever follows (as the
        // protocol says): a deep or long one would stall the fuzzer.
        if matches!(&command, Ok(Command::Go(go)) if long_search(go)) {
            continue;
        }
        let quit = matches!(command, Ok(Command::Quit));
        assert_eq!(session.handle_line(line), !quit, "{line:?}");
        if quit {
            break;
        }
        if matches!(command, Ok(Command::Go(_))) {
            session.handle_line("stop");
        }
    }
    session.finish();
});

/// Whether a search could run for seconds when nothing stops it.
fn long_search(go: &GoArgs) -> bool {
    let long_time = [
        go.time,
        go.wtime,
        go.btime,
        go.movetime,
        go.increment,
        go.winc,
        go.binc,
    ]
    .iter()
    .any(|t| t.is_some_and(|t| t > 1.0));
    go.depth.is_some_and(|d| d > 8)
        || go.nodes.is_some_and(|n| n > 200_000)
        || go.mate.is_some_and(|m| m > 4)
        || long_time
}
