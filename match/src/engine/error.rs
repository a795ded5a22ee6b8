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
    /// The engine's output ended: it exited.
    #[error("{engine}: exited")]
    Exited { engine: String },
    /// The engine did not complete the protocol's handshake.
    #[error("{engine}: no {} to {protocol}", protocol.hello_done())]
    NotThisProtocol { engine: String, protocol: Protocol },
    /// Found out at the handshake: the engine answered neither protocol;
    /// `source` is why UCI failed.
    #[error("{source} (and it did not answer ucci either)")]
    NeitherProtocol { source: Box<EngineError> },
    /// The shell could not find the command (exit status 127) or run it
    /// (126); `shell_says` is the last line it printed, if any.
    #[error("cannot start '{command}': {}{}", not_run_reason(*.status), parenthesized(.shell_says))]
    NotFound {
        command: String,
        status: i32,
        shell_says: String,
    },
    /// The engine did not announce the option at its handshake: it would
    /// ignore it.
    #[error("{engine}: unknown option '{name}' (not among the options it announces)")]
    UnknownOption { engine: String, name: String },
    /// The engine answered the option with a refusal (`reply`).
    #[error("{engine}: option '{option}' refused: {reply}")]
    OptionRefused {
        engine: String,
        option: String,
        reply: String,
    },
}

/// Why the shell did not run a command, by its exit status.
fn not_run_reason(status: i32) -> &'static str {
    match status {
        126 => "not executable",
        _ => "not found",
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
