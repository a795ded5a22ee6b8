//! Plumbing shared by `xqengine`, `bookgen` and `egtbgen`, which keeps the
//! binaries thin and alike: [`out!`] for standard output, (feature
//! `interrupt`) [`remove_unfinished_files_on_interrupt`] for the programs
//! that write books and tables, and (feature `help`, for tests)
//! `help::undescribed`, the options a `--help` leaves without a word.

#[cfg(feature = "help")]
pub mod help;

/// Writes a line to standard output; when that fails (the reader closed the
/// pipe, as `| head` does), exits quietly with status 0 instead of
/// panicking as `println!` would.
#[macro_export]
macro_rules! out {
    ($($arg:tt)*) => {{
        use std::io::Write as _;
        if writeln!(std::io::stdout(), $($arg)*).is_err() {
            std::process::exit(0);
        }
    }};
}

/// On Ctrl-C or SIGTERM, removes the files being written (those
/// [`xqstore`] registered as unfinished), says `PROGRAM: interrupted` on
/// standard error and exits with status 130, so an interrupted run leaves
/// nothing half-written behind. (After SIGKILL, which cannot be caught, the
/// next run removes them.)
#[cfg(feature = "interrupt")]
pub fn remove_unfinished_files_on_interrupt(program: &'static str) {
    // Only fails when a handler is already set: the first one stays.
    let _ = ctrlc::set_handler(move || {
        xqstore::remove_unfinished();
        eprintln!("{program}: interrupted");
        std::process::exit(130);
    });
}
