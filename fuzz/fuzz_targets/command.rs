//! UCCI/UCI command lines, fed to a session in-process: no input makes it
//! panic, and only `quit`/`bye` end it. Searches are stopped by the next
//! line, as a GUI's `stop` would.
#![no_main]

use libfuzzer_sys::fuzz_target;
use xqengine::protocol::{self, Command};
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
