//! The one way the toolkit's programs fail: every command returns
//! [`Result`], whose error is a [`Failure`], and `main` hands it to
//! [`finish`], which prints `PROGRAM: MESSAGE` on standard error and gives
//! the exit status.
//!
//! Any error type converts with `?` (its message names the file, line and
//! reason, as the libraries' errors do); a message made on the spot is
//! [`Failure::new`], or [`Failure::usage`] when the arguments or the input
//! given were refused before any work began.

use std::fmt;
use std::process::ExitCode;

/// Why a program stopped: the message it prints and its exit status.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct Failure {
    message: String,
    status: u8,
}

/// What a command of a program gives: its value, or why it failed.
pub type Result<T = (), E = Failure> = std::result::Result<T, E>;

impl Failure {
    /// The exit status of a run that failed.
    pub const FAILED: u8 = 1;
    /// The exit status of a run whose arguments or input were refused.
    pub const USAGE: u8 = 2;

    /// A failure while working (exit status 1).
    pub fn new(message: impl fmt::Display) -> Failure {
        Failure {
            message: message.to_string(),
            status: Self::FAILED,
        }
    }

    /// Arguments or input refused before any work began (exit status 2).
    pub fn usage(message: impl fmt::Display) -> Failure {
        Failure {
            message: message.to_string(),
            status: Self::USAGE,
        }
    }

    /// The same failure with `context` in front: `context: message`.
    #[must_use]
    pub fn context(self, context: impl fmt::Display) -> Failure {
        Failure {
            message: format!("{context}: {}", self.message),
            status: self.status,
        }
    }

    /// What is printed after the program's name.
    pub fn message(&self) -> &str {
        &self.message
    }

    /// The exit status.
    pub fn status(&self) -> u8 {
        self.status
    }
}

impl fmt::Display for Failure {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        f.write_str(&self.message)
    }
}

// Not `std::error::Error` itself, so that every error converts: the same
// choice as anyhow's.
impl<E: std::error::Error> From<E> for Failure {
    fn from(error: E) -> Failure {
        Failure::new(error)
    }
}

/// The exit of `program` after a command: status 0, or the failure's
/// message on standard error as `PROGRAM: MESSAGE` and its status.
pub fn finish(program: &str, result: Result) -> ExitCode {
    match result {
        Ok(()) => ExitCode::SUCCESS,
        Err(failure) => {
            eprintln!("{program}: {failure}");
            ExitCode::from(failure.status)
        }
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn errors_convert_with_their_message_and_status_one() {
        let io = std::io::Error::new(std::io::ErrorKind::NotFound, "book.xqb: not found");
        let failure: Failure = io.into();
        assert_eq!(failure.message(), "book.xqb: not found");
        assert_eq!(failure.status(), Failure::FAILED);
    }

    #[test]
    fn usage_failures_exit_with_two_and_context_goes_in_front() {
        let failure = Failure::usage("not a number").context("--depth abc");
        assert_eq!(failure.to_string(), "--depth abc: not a number");
        assert_eq!(failure.status(), Failure::USAGE);
        assert_eq!(finish("tool", Ok(())), ExitCode::SUCCESS);
        assert_eq!(finish("tool", Err(failure)), ExitCode::from(2));
    }
}
