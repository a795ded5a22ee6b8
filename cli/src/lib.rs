//! Plumbing shared by the toolkit's binaries, which keeps them thin and
//! alike:
//!
//! - [`Failure`], [`Result`] and [`finish`]: the one way a program fails,
//!   `PROGRAM: MESSAGE` on standard error with exit status 1 (or 2 for
//!   arguments and input refused);
//! - [`out!`] for standard output that ends quietly on a closed pipe;
//! - (feature `interrupt`) [`remove_unfinished_files_on_interrupt`] for
//!   the programs that write books and tables;
//! - (feature `data`) `data`: where the shipped book and tables are found,
//!   and the tools' `--tables` option;
//! - (feature `help`, for tests) `help_test!` and
//!   `help::undescribed`: every command and option a `--help` shows says
//!   what it is for;
//! - (feature `cchess`, for tests) `cchess::pgn_moves`: the moves another
//!   program, PyPI's cchess, reads from a PGN file.

#[cfg(feature = "cchess")]
pub mod cchess;
#[cfg(feature = "data")]
pub mod data;
mod failure;
#[cfg(feature = "help")]
pub mod help;

pub use failure::{finish, Failure, Result};

/// A test named `help_describes_every_command_and_option` that fails when
/// the `--help` of the clap parser `$cli` (a type deriving `Parser`) shows
/// a command or an option without a description. Put it in the binary's
/// test module: `xqcli::help_test!(super::Cli);`.
#[cfg(feature = "help")]
#[macro_export]
macro_rules! help_test {
    ($cli:ty) => {
        #[test]
        fn help_describes_every_command_and_option() {
            $crate::help::assert_described(&<$cli as clap::CommandFactory>::command());
        }
    };
}

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
