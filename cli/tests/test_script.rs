//! README's test command, scripts/test.sh, checked against stand-ins for
//! apt-get, pip and cargo (tools/check_test_sh.sh): it installs what is
//! missing and only that, without recommends, names what it could not
//! install, and runs the Slurm tests without compiling again.

use std::path::Path;
use std::process::Command;

#[test]
fn the_test_script_installs_only_what_is_missing_and_says_so() {
    let check = Path::new(env!("CARGO_MANIFEST_DIR")).join("../tools/check_test_sh.sh");
    let out = Command::new("bash")
        .arg(&check)
        .output()
        .expect("bash runs");
    let stdout = String::from_utf8_lossy(&out.stdout);
    assert!(
        out.status.success() && stdout.trim_end().ends_with("ok"),
        "{}:\n{stdout}{}",
        check.display(),
        String::from_utf8_lossy(&out.stderr)
    );
}
