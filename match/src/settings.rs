//! An engine's settings as a tournament's command line gives them, in the
//! spirit of cutechess-cli's `-engine`: `key=value` words, `cmd=./engine
//! name=Ours proto=ucci tc=10+0.1 option.hashsize=64`, and the same words
//! once for all engines (`--each`), which each engine's own override.

use std::time::Duration;

use crate::engine::EngineSpec;
use crate::protocol::{EngineOption, Protocol};
use crate::run::Player;
use crate::time_control::MoveLimit;

/// The settings of one engine, or of all.
#[derive(Clone, Debug, Default, PartialEq, Eq)]
pub struct EngineSettings {
    /// `cmd=`: the command line, run by `sh -c`.
    pub command: Option<String>,
    /// `name=`: the name in results and PGN.
    pub name: Option<String>,
    /// `proto=ucci|uci`.
    pub protocol: Option<Protocol>,
    /// `tc=[MOVES/]BASE[+INC]`, `st=SECONDS`, `depth=N` or `nodes=N`.
    pub limit: Option<MoveLimit>,
    /// `option.NAME=VALUE` (`option.NAME` for a button), in order.
    pub options: Vec<EngineOption>,
}

/// A setting that cannot be read.
#[derive(Clone, Debug, PartialEq, Eq, thiserror::Error)]
pub enum SettingsError {
    /// A word that is not `key=value` with a known key.
    #[error(
        "'{0}' is not a setting (cmd=, name=, proto=, tc=, st=, depth=, nodes=, option.NAME=)"
    )]
    Unknown(String),
    /// A value that does not fit its key.
    #[error("{0}")]
    BadValue(String),
    /// Two time controls for one engine.
    #[error("'{0}': an engine has one time control (tc=, st=, depth= or nodes=)")]
    TwoLimits(String),
    /// An engine without a command.
    #[error("engine {0} has no cmd=")]
    NoCommand(usize),
}

impl EngineSettings {
    /// Reads `key=value` words.
    ///
    /// # Errors
    ///
    /// An unknown key, a bad protocol or time control, or two time controls.
    pub fn parse<S: AsRef<str>>(words: &[S]) -> Result<EngineSettings, SettingsError> {
        let mut settings = EngineSettings::default();
        for word in words {
            let word = word.as_ref();
            if let Some(option) = word.strip_prefix("option.") {
                let option = option
                    .parse()
                    .map_err(|e: crate::protocol::NamelessOption| {
                        SettingsError::BadValue(e.to_string())
                    })?;
                settings.options.push(option);
                continue;
            }
            let (key, value) = word
                .split_once('=')
                .ok_or_else(|| SettingsError::Unknown(word.to_string()))?;
            match key {
                "cmd" => settings.command = Some(value.to_string()),
                "name" => settings.name = Some(value.to_string()),
                "proto" => {
                    let protocol =
                        value
                            .parse()
                            .map_err(|e: crate::protocol::UnknownProtocol| {
                                SettingsError::BadValue(e.to_string())
                            })?;
                    settings.protocol = Some(protocol);
                }
                "tc" | "st" | "depth" | "nodes" => {
                    let text = if key == "tc" {
                        value.to_string()
                    } else {
                        word.to_string()
                    };
                    let limit =
                        text.parse()
                            .map_err(|e: crate::time_control::BadTimeControl| {
                                SettingsError::BadValue(e.to_string())
                            })?;
                    if settings.limit.replace(limit).is_some() {
                        return Err(SettingsError::TwoLimits(word.to_string()));
                    }
                }
                _ => return Err(SettingsError::Unknown(word.to_string())),
            }
        }
        Ok(settings)
    }

    /// The player of engine `number` (1-based, for errors): these settings
    /// over `shared` (options: `shared`'s first), at `default_limit` when
    /// neither sets a time control, every clock with `tolerance`.
    ///
    /// # Errors
    ///
    /// Neither gives a command.
    pub fn player(
        &self,
        number: usize,
        shared: &EngineSettings,
        default_limit: MoveLimit,
        tolerance: Duration,
    ) -> Result<Player, SettingsError> {
        let command = self
            .command
            .as_ref()
            .or(shared.command.as_ref())
            .ok_or(SettingsError::NoCommand(number))?;
        let limit = self.limit.or(shared.limit).unwrap_or(default_limit);
        let engine = EngineSpec {
            command: command.clone(),
            protocol: self.protocol.or(shared.protocol),
            options: shared
                .options
                .iter()
                .chain(&self.options)
                .cloned()
                .collect(),
        };
        Ok(Player {
            engine,
            name: self.name.clone(),
            limit: limit.with_tolerance(tolerance),
        })
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn settings_are_read_and_an_engine_overrides_all() {
        let each = EngineSettings::parse(&["tc=10+0.1", "option.Threads=1", "proto=uci"]).unwrap();
        let ours = EngineSettings::parse(&[
            "cmd=./xqengine --flag",
            "name=Ours",
            "option.hashsize=64",
            "option.clearhash",
            "proto=UCCI",
            "st=0.5",
        ])
        .unwrap();
        assert_eq!(ours.command.as_deref(), Some("./xqengine --flag"));
        let tolerance = Duration::from_millis(300);
        let player = ours
            .player(1, &each, MoveLimit::Depth(3), tolerance)
            .unwrap();
        assert_eq!(player.name.as_deref(), Some("Ours"));
        assert_eq!(player.engine.protocol, Some(Protocol::Ucci));
        assert_eq!(
            player.limit,
            MoveLimit::MoveTime {
                time: Duration::from_millis(500),
                tolerance
            }
        );
        let options: Vec<String> = player
            .engine
            .options
            .iter()
            .map(|o| Protocol::Ucci.set_option(o))
            .collect();
        assert_eq!(
            options,
            [
                "setoption Threads 1",
                "setoption hashsize 64",
                "setoption clearhash"
            ]
        );
        let plain = EngineSettings::parse(&["cmd=pikafish"]).unwrap();
        let player = plain
            .player(2, &each, MoveLimit::Depth(3), tolerance)
            .unwrap();
        assert_eq!(player.limit.to_string(), "10+0.1");
        assert_eq!(player.engine.protocol, Some(Protocol::Uci));
        let bare = plain.player(
            2,
            &EngineSettings::default(),
            MoveLimit::Depth(3),
            tolerance,
        );
        assert_eq!(bare.unwrap().limit, MoveLimit::Depth(3));
    }

    #[test]
    fn bad_settings_are_refused_with_the_word() {
        let refused = |words: &[&str]| EngineSettings::parse(words).unwrap_err().to_string();
        assert!(refused(&["command=x"]).starts_with("'command=x' is not a setting"));
        assert!(refused(&["x"]).starts_with("'x' is not a setting"));
        assert!(refused(&["proto=xboard"]).contains("'xboard' is not a protocol"));
        assert!(refused(&["tc=fast"]).contains("'fast' is not a time control"));
        assert!(refused(&["depth=0"]).contains("'depth=0' is not a time control"));
        assert!(refused(&["option.=5"]).contains("names no option"));
        assert_eq!(
            refused(&["tc=1+0", "nodes=5"]),
            "'nodes=5': an engine has one time control (tc=, st=, depth= or nodes=)"
        );
        let no_command = EngineSettings::parse(&["name=A"]).unwrap();
        let e = no_command.player(
            3,
            &EngineSettings::default(),
            MoveLimit::Depth(1),
            Duration::ZERO,
        );
        assert_eq!(e.unwrap_err().to_string(), "engine 3 has no cmd=");
    }
}
