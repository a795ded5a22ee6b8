//! Checks of a program's `--help`, for the binaries' tests (feature
//! `help`): every command and every option a user can see says what it is
//! for.

use clap::{Arg, Command};

/// The commands and arguments of `command`, at any depth of subcommands,
/// that `--help` shows without a description: `xqtrain nnue --threads`,
/// `egtbgen info <FILE>`, `xqtrain` (a command with no about text). Empty
/// when every one is described. Hidden arguments and commands are left
/// out.
pub fn undescribed(command: &Command) -> Vec<String> {
    let mut command = command.clone();
    command.build();
    let mut missing = Vec::new();
    collect_undescribed(&command, command.get_name(), &mut missing);
    missing
}

/// Panics naming every command and argument of `command` that `--help`
/// shows without a description (see [`undescribed`]), after clap's own
/// checks of the definition ([`Command::debug_assert`]).
///
/// # Panics
///
/// When any is undescribed, or the definition is inconsistent.
pub fn assert_described(command: &Command) {
    command.clone().debug_assert();
    let missing = undescribed(command);
    assert!(
        missing.is_empty(),
        "--help shows these without a description: {}",
        missing.join(", ")
    );
}

fn collect_undescribed(command: &Command, path: &str, missing: &mut Vec<String>) {
    if command.get_about().or(command.get_long_about()).is_none() {
        missing.push(path.to_string());
    }
    let shown = command.get_arguments().filter(|arg| !arg.is_hide_set());
    for arg in shown {
        if arg.get_help().or(arg.get_long_help()).is_none() {
            missing.push(format!("{path} {}", arg_name(arg)));
        }
    }
    for sub in command.get_subcommands().filter(|sub| !sub.is_hide_set()) {
        collect_undescribed(sub, &format!("{path} {}", sub.get_name()), missing);
    }
}

/// An argument as `--help` names it: `--long`, `-s`, or `<ID>`.
fn arg_name(arg: &Arg) -> String {
    match (arg.get_long(), arg.get_short()) {
        (Some(long), _) => format!("--{long}"),
        (None, Some(short)) => format!("-{short}"),
        (None, None) => format!("<{}>", arg.get_id().as_str().to_uppercase()),
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn every_undescribed_command_and_argument_is_named() {
        let described = Command::new("tool")
            .about("A tool")
            .arg(Arg::new("level").long("level").help("How hard"))
            .subcommand(Command::new("go").about("Go"));
        assert_eq!(undescribed(&described), Vec::<String>::new());
        let bare = Command::new("tool")
            .arg(Arg::new("level").long("level"))
            .arg(Arg::new("file"))
            .arg(Arg::new("secret").long("secret").hide(true))
            .subcommand(
                Command::new("go")
                    .about("Go")
                    .arg(Arg::new("fast").short('f')),
            );
        assert_eq!(
            undescribed(&bare),
            ["tool", "tool --level", "tool <FILE>", "tool go -f"]
        );
    }
}
