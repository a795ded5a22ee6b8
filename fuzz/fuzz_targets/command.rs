//! UCCI/UCI command lines, fed to a session in-process: no input makes it
//! panic, and only `quit`/`bye` end it. Searches are stopped by the next
//! line, as a GUI's `stop` would.
#![no_main]

use libfuzzer_sys::fuzz_target;
use xqengine::{parse_command, Command, GoContext, Limits, Output, Session};

fuzz_target!(|bytes: &[u8]| {
    let text = String::from_utf8_lossy(bytes);
    let mut session = Session::new(Output::new(Box::new(std::io::sink())));
    for line in text.lines().take(64) {
        let command = parse_command(line, GoContext::default());
        // Resources, not parsing: a table of gigabytes or hundreds of
        // threads per input would only slow the fuzzer down.
        let lower = line.to_ascii_lowercase();
        if lower.contains("hash") || lower.contains("threads") {
            continue;
        }
        // In batch mode a search runs to its end whatever follows (as the
        // protocol says): a deep or long one would stall the fuzzer.
        if matches!(&command, Ok(Command::Go { limits, .. }) if long_search(limits)) {
            continue;
        }
        let quit = matches!(command, Ok(Command::Quit));
        assert_eq!(session.handle_line(line), !quit, "{line:?}");
        if quit {
            break;
        }
        if matches!(command, Ok(Command::Go { .. })) {
            session.handle_line("stop");
        }
    }
    session.finish();
});

/// Whether a search could run for seconds when nothing stops it.
fn long_search(limits: &Limits) -> bool {
    let second = std::time::Duration::from_secs(1);
    let long_clock = limits
        .clock
        .is_some_and(|c| c.remaining > second || c.increment > second);
    limits.depth.is_some_and(|d| d > 8)
        || limits.nodes.is_some_and(|n| n > 200_000)
        || limits.mate.is_some_and(|m| m > 4)
        || limits.movetime.is_some_and(|t| t > second)
        || long_clock
}
