//! `xqengine options` and `xqengine params`: the option table and the
//! search's tunable parameters, one a line.

use xqcli::out;
use xqengine::{all_options, TUNABLES};

/// One line an option: UCCI name, UCI name, kind with default and range,
/// and what it sets.
pub fn options() -> xqcli::Result {
    out!("{:<12} {:<12} {:<46} effect", "UCCI", "UCI", "kind");
    for spec in all_options() {
        out!(
            "{:<12} {:<12} {:<46} {}",
            spec.ucci.unwrap_or("-"),
            spec.uci.unwrap_or("-"),
            spec.kind.to_string(),
            spec.effect
        );
    }
    Ok(())
}

/// One line a tunable parameter, in the tuner's format.
pub fn params() -> xqcli::Result {
    let tuning = if cfg!(feature = "tune") {
        "this build takes them as options"
    } else {
        "this build does not take them as options: build with --features tune"
    };
    out!("# name default min max step ({tuning})");
    for t in TUNABLES {
        out!("{} {} {} {} {}", t.name, t.default, t.min, t.max, t.step);
    }
    Ok(())
}
