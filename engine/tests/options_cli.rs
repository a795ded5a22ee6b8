//! `xqengine options` lists the option table, and docs/engine.md's table of
//! options names every option in it; the search parameters a tuning build
//! adds are `xqengine params`'s lines instead.

use std::process::Command;

use xqengine::{all_options, OPTIONS, TUNABLES};

#[test]
fn every_option_is_listed_and_documented() {
    let out = Command::new(env!("CARGO_BIN_EXE_xqengine"))
        .arg("options")
        .output()
        .expect("run xqengine options");
    assert!(out.status.success());
    let text = String::from_utf8(out.stdout).unwrap();
    assert_eq!(text.lines().count(), all_options().count() + 1, "{text}");
    let table = include_str!("../../docs/engine.md");
    for spec in all_options() {
        for name in [spec.ucci, spec.uci].into_iter().flatten() {
            assert!(text.contains(name), "{name} not listed:\n{text}");
            let documented = if OPTIONS
                .iter()
                .any(|o| (o.ucci, o.uci) == (spec.ucci, spec.uci))
            {
                table.contains(&format!("`{name}`"))
            } else {
                TUNABLES.iter().any(|t| t.name == name)
            };
            assert!(documented, "docs/engine.md does not name the option {name}");
        }
        assert!(text.contains(spec.effect), "{}", spec.effect);
    }
    assert!(text.contains("spin 0..65536, default 64"), "{text}");
}
