//! `xqtrain`: self-play data, and the two trainers of the engine's
//! evaluation that learn from it: Texel tuning of the hand-crafted weights,
//! and the NNUE. A module per command (`cmd/`) does the work; this file
//! parses the command line and dispatches.
//!
//! A trainer writes only where it is told: the shipped net, checkpoint
//! and weights are rewritten only when named as `--out` or
//! `--checkpoint`.

mod cmd;

use std::process::ExitCode;

use clap::{Parser, Subcommand};

#[derive(Parser)]
#[command(
    name = "xqtrain",
    version,
    about = "Training tools for xqengine's evaluation: self-play data, Texel tuning of the hand-crafted weights, and NNUE training"
)]
struct Cli {
    #[command(subcommand)]
    command: Command,
}

#[derive(Subcommand)]
enum Command {
    /// Play fast self-play games and append them, every searched move with
    /// its score, to a games file: the data of `nnue` and `tune`.
    Datagen(cmd::datagen::DatagenArgs),
    /// Fit the evaluation weights to labelled positions (Texel tuning) and
    /// write them as Rust source.
    Tune(cmd::tune::TuneArgs),
    /// Train the NNUE on games from `datagen`: resumes from the checkpoint
    /// when there is one, writes it and the quantised net after each epoch.
    Nnue(cmd::nnue::NnueArgs),
    /// Measure checkpoints' loss on the same games, e.g. ones none of them
    /// was trained on, so that nets from rounds on different data compare.
    Loss(cmd::loss::LossArgs),
    /// Offer games to a reservoir: a uniform random sample of every game
    /// ever offered, small enough to commit (`nnue` reads it as a games
    /// file), so that past sessions' self-play outlives their machines.
    Reservoir(cmd::reservoir::ReservoirArgs),
    /// Fit the engine's win-draw-loss model (score and material to the
    /// chances of a win, a draw and a loss) on games from `datagen`, and
    /// print it with how well it fits.
    Wdl(cmd::wdl::WdlArgs),
}

impl Command {
    /// The command's name, which its messages start with after `xqtrain`.
    fn name(&self) -> &'static str {
        match self {
            Command::Datagen(_) => "datagen",
            Command::Tune(_) => "tune",
            Command::Nnue(_) => "nnue",
            Command::Loss(_) => "loss",
            Command::Reservoir(_) => "reservoir",
            Command::Wdl(_) => "wdl",
        }
    }
}

fn main() -> ExitCode {
    let command = Cli::parse().command;
    let program = format!("xqtrain {}", command.name());
    xqcli::finish(&program, dispatch(&command))
}

fn dispatch(command: &Command) -> xqcli::Result {
    match command {
        Command::Datagen(args) => cmd::datagen::run(args),
        Command::Tune(args) => cmd::tune::run(args),
        Command::Nnue(args) => cmd::nnue::run(args),
        Command::Loss(args) => cmd::loss::run(args),
        Command::Reservoir(args) => cmd::reservoir::run(args),
        Command::Wdl(args) => cmd::wdl::run(args),
    }
}

#[cfg(test)]
mod tests {
    use clap::{CommandFactory, Parser};

    xqcli::help_test!(super::Cli);

    #[test]
    fn help_names_every_tool_and_what_datagen_feeds() {
        let cli = super::Cli::command();
        let about = cli.get_about().expect("an about text").to_string();
        for tool in ["self-play", "Texel", "NNUE"] {
            assert!(about.contains(tool), "{tool}: {about}");
        }
        let datagen = cli.find_subcommand("datagen").expect("datagen");
        let about = datagen.get_about().expect("an about text").to_string();
        assert!(
            about.contains("`nnue`") && about.contains("`tune`"),
            "{about}"
        );
    }

    /// The shipped files a trainer could overwrite: none is a default.
    const SHIPPED: [&str; 3] = [
        "nnue/nets/default.xqnn",
        "nnue/train/checkpoint.xqck",
        "engine/src/eval/weights.rs",
    ];

    #[test]
    fn no_option_defaults_to_a_shipped_file() {
        let cli = super::Cli::command();
        for sub in cli.get_subcommands() {
            for arg in sub.get_arguments() {
                for default in arg.get_default_values() {
                    let default = default.to_string_lossy();
                    assert!(
                        !SHIPPED.iter().any(|s| default.ends_with(s)),
                        "xqtrain {} --{}: [default: {default}]",
                        sub.get_name(),
                        arg.get_id()
                    );
                }
            }
        }
    }

    #[test]
    fn the_trainers_outputs_must_be_named() {
        for args in [
            &["xqtrain", "nnue", "data.games"][..],
            &["xqtrain", "nnue", "data.games", "--out", "net.xqnn"],
            &["xqtrain", "nnue", "data.games", "--checkpoint", "run.xqck"],
            &["xqtrain", "tune", "data.games"],
        ] {
            let refused = super::Cli::try_parse_from(args).err();
            let kind = refused.as_ref().map(clap::Error::kind);
            assert_eq!(
                kind,
                Some(clap::error::ErrorKind::MissingRequiredArgument),
                "{args:?}"
            );
        }
        let named = [
            "xqtrain",
            "nnue",
            "d.games",
            "--checkpoint",
            "c.xqck",
            "--out",
            "n.xqnn",
        ];
        assert!(super::Cli::try_parse_from(named).is_ok());
    }
}
