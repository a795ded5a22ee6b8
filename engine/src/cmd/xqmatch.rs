//! `xqengine match`: the match runner is `xqmatch` now; this runs it from
//! beside this executable, for scripts written before.

use std::ffi::OsString;

use xqcli::Failure;

/// Runs `xqmatch` with `args`; its exit status is this program's.
///
/// # Errors
///
/// No `xqmatch` beside this executable, or one that cannot be started
/// (exit status 2).
pub fn run(args: &[OsString]) -> xqcli::Result {
    let exe = std::env::current_exe()
        .ok()
        .and_then(|e| Some(e.parent()?.join("xqmatch")))
        .filter(|p| p.is_file())
        .ok_or_else(|| {
            Failure::usage(
                "the match runner is xqmatch now; build it with `cargo build --release -p xqmatch`",
            )
        })?;
    let status = std::process::Command::new(&exe)
        .args(args)
        .status()
        .map_err(|e| Failure::usage(format!("{}: {e}", exe.display())))?;
    if !status.success() {
        // xqmatch has said why on stderr: its status is ours, with nothing
        // added.
        std::process::exit(status.code().unwrap_or(1));
    }
    Ok(())
}
