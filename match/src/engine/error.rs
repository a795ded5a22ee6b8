//! Why an engine cannot be started or talked to ([`EngineError`]), each
//! error naming the engine.

use std::time::Duration;

use crate::protocol::Protocol;

/// Why an engine cannot be started or talked to. Every variant names the
/// engine: the name it gave (`id name`), or its command.
#[derive(Debug, thiserror::Error)]
pub enum EngineError {
    /// The shell that runs the command cannot be started.
    #[error("cannot start '{command}': {source}")]
    Spawn {
        command: String,
        source: std::io::Error,
    },
    /// A line cannot be written to the engine (it has gone).
    #[error("{engine}: {source}")]
    Write {
        engine: String,
        source: std::io::Error,
    },
    /// The engine said nothing that was awaited in time.
    #[error("{engine}: no answer within {timeout:?}")]
    NoAnswer { engine: String, timeout: Duration },
    /// The engine's output ended: it exited; `stderr` is the last line it
    /// wrote on its standard error, if any (a panic, a file it needs).
    #[error("{engine}: exited{}", stderr_note(.stderr))]
    Exited { engine: String, stderr: String },
    /// The engine did not complete the protocol's handshake; `stderr` as
    /// for [`EngineError::Exited`].
    #[error("{engine}: no {} to {protocol}{}", protocol.hello_done(), stderr_note(.stderr))]
    NotThisProtocol {
        engine: String,
        protocol: Protocol,
        stderr: String,
    },
    /// Found out at the handshake: the engine answered neither protocol;
    /// `source` is why UCI failed.
    #[error("{source} (and it did not answer ucci either)")]
    NeitherProtocol { source: Box<EngineError> },
    /// The shell could not find the command: it exited with 127 and said
    /// so (`shell_says`, the last line it printed).
    #[error("cannot start '{command}': not found{}", parenthesized(.shell_says))]
    NotFound {
        command: String,
        status: i32,
        shell_says: String,
    },
    /// The command could not be run: the shell exited with 126 (not
    /// executable) or with 127 for another reason than a missing command
    /// (the dynamic loader's missing library); `shell_says` is the last
    /// line printed.
    #[error("cannot start '{command}': {}", not_run_reason(*.status, .shell_says))]
    NotRun {
        command: String,
        status: i32,
        shell_says: String,
    },
    /// The engine did not announce the option at its handshake: it would
    /// ignore it. `announced` are the options it did announce, for the
    /// name meant (`hashsize` where UCI says `Hash`).
    #[error("{engine}: unknown option '{name}' (not among the options it announces: {})", announced.join(", "))]
    UnknownOption {
        engine: String,
        name: String,
        announced: Vec<String>,
    },
    /// The engine answered the option with a refusal (`reply`).
    #[error("{engine}: option '{option}' refused: {reply}")]
    OptionRefused {
        engine: String,
        option: String,
        reply: String,
    },
}

/// Why the shell did not run a command, by its exit status, with what
/// was printed.
fn not_run_reason(status: i32, shell_says: &str) -> String {
    match (status, shell_says) {
        (126, _) => format!("not executable{}", parenthesized(shell_says)),
        (_, "") => format!("cannot be run (exit {status})"),
        _ => format!("cannot be run (exit {status}: {shell_says})"),
    }
}

/// ` (stderr: LINE)`, or nothing for no line.
fn stderr_note(line: &str) -> String {
    if line.is_empty() {
        String::new()
    } else {
        format!(" (stderr: {line})")
    }
}

/// ` (TEXT)`, or nothing for no text.
fn parenthesized(text: &str) -> String {
    if text.is_empty() {
        String::new()
    } else {
        format!(" ({text})")
    }
}
