//! What the system tells and does for an engine's processes: their memory
//! (from /proc, on Linux), and killing all of them at once.

use std::process::{Command, Stdio};

/// Memory of an engine's processes, in kB, from /proc.
#[derive(Clone, Copy, Debug, Default, PartialEq, Eq)]
pub struct Memory {
    /// Resident anonymous memory now (heap and stacks; not the mapped book
    /// and table files, whose pages the system may drop at will).
    pub anon_kb: u64,
    /// The most resident memory so far (VmHWM), mapped files included.
    pub peak_kb: u64,
}

/// Kills the process group `id` leads (the engine's shell and whatever it
/// started), where the system has groups.
pub(super) fn kill_group(id: u32) {
    #[cfg(unix)]
    let _ = Command::new("kill")
        .args(["-KILL", "--", &format!("-{id}")])
        .stderr(Stdio::null())
        .status();
    #[cfg(not(unix))]
    let _ = id;
}

/// The memory of process `pid` and its descendants, summed.
pub(super) fn memory_of_tree(pid: u32) -> Option<Memory> {
    let status = std::fs::read_to_string(format!("/proc/{pid}/status")).ok()?;
    let field = |name: &str| {
        status
            .lines()
            .find_map(|l| l.strip_prefix(name))
            .and_then(|v| v.split_whitespace().next()?.parse::<u64>().ok())
            .unwrap_or(0)
    };
    let mut total = Memory {
        anon_kb: field("RssAnon:"),
        peak_kb: field("VmHWM:"),
    };
    let children =
        std::fs::read_to_string(format!("/proc/{pid}/task/{pid}/children")).unwrap_or_default();
    for child in children.split_whitespace().filter_map(|c| c.parse().ok()) {
        if let Some(m) = memory_of_tree(child) {
            total.anon_kb += m.anon_kb;
            total.peak_kb += m.peak_kb;
        }
    }
    Some(total)
}
