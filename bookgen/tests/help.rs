//! The binary answers --help with its purpose.

#[test]
fn help_describes_the_program() {
    let out = std::process::Command::new(env!("CARGO_BIN_EXE_bookgen"))
        .arg("--help")
        .output()
        .unwrap();
    assert!(out.status.success());
    let text = String::from_utf8(out.stdout).unwrap();
    assert!(text.contains("Usage: bookgen"), "{text}");
    assert!(text.contains("xiangqi"), "{text}");
}
