//! Every option the engine announces, declared once ([`OPTIONS`]): its
//! UCCI and UCI names, its kind with default and range, what it does in
//! words, and which [`Setting`] it sets. The protocol prints both option
//! lists from this table and looks `setoption` up in it; nothing else names
//! an option.
//!
//! The table knows names, kinds and values only, nothing of the engine:
//! the [`Engine`](crate::Engine) sets what a [`Setting`] names
//! (`Engine::set_option`), and the protocol's [`Session`](crate::Session)
//! keeps the options that are the protocol's own. The search's parameters
//! are options of a tuning build, read from their table ([`TUNABLES`]).

use crate::search::{Tunable, TUNABLES};

/// The kind of an option, with its default and range.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum OptionKind {
    Check {
        default: bool,
    },
    Spin {
        default: i64,
        min: i64,
        max: i64,
    },
    Combo {
        default: &'static str,
        vars: &'static [&'static str],
    },
    /// A string (UCI `string`).
    Text {
        default: &'static str,
    },
    Button,
    /// Announced, takes no value (UCCI `dualtime`: both clocks understood).
    Label,
}

impl std::fmt::Display for OptionKind {
    /// `check, default false`, `spin 0..65536, default 64`, `combo a|b,
    /// default a`, `string, default ''`, `button`, `label`.
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        match self {
            OptionKind::Check { default } => write!(f, "check, default {default}"),
            OptionKind::Spin { default, min, max } => {
                write!(f, "spin {min}..{max}, default {default}")
            }
            OptionKind::Combo { default, vars } => {
                write!(f, "combo {}, default {default}", vars.join("|"))
            }
            OptionKind::Text { default } => write!(f, "string, default '{default}'"),
            OptionKind::Button => f.write_str("button"),
            OptionKind::Label => f.write_str("label"),
        }
    }
}

/// A `setoption` value, checked against its option's kind.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum OptionValue<'a> {
    Check(bool),
    Spin(i64),
    /// The index of the chosen `var`.
    Combo(usize),
    Text(&'a str),
    /// A button pressed (or a label set, which does nothing).
    Press,
}

/// A `setoption` value its option does not take; shows what it takes.
#[derive(Clone, Debug, PartialEq, Eq, thiserror::Error)]
pub enum BadValue {
    #[error("true or false")]
    Check,
    #[error("a number from {min} to {max}")]
    Spin { min: i64, max: i64 },
    #[error("one of {}", .vars.join(", "))]
    Combo { vars: &'static [&'static str] },
}

/// A number outside its spin option's range, clamped into it: what was
/// asked and what is used. Shown as the user is told it
/// (`999999999 is out of range (0 to 65536), 65536 used`).
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub struct Clamped {
    pub asked: i64,
    pub used: i64,
    pub min: i64,
    pub max: i64,
}

impl std::fmt::Display for Clamped {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        let Clamped {
            asked,
            used,
            min,
            max,
        } = self;
        write!(f, "{asked} is out of range ({min} to {max}), {used} used")
    }
}

/// What an option sets. The first four are the protocol's own (the
/// session keeps them, the engine never sees them); the others are the
/// engine's.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum Setting {
    /// UCCI times are milliseconds, not seconds (`usemillisec`).
    UseMillisec,
    /// Read nothing while a search that ends by itself runs (`batch`).
    Batch,
    /// Say more (`info string`) about what is ignored (`debug`).
    Debug,
    /// Print win, draw and loss with each score (UCI `UCI_ShowWDL`).
    ShowWdl,
    Ponder,
    UseBook,
    BookFiles,
    BookMargin,
    BookVariety,
    UseEgtb,
    EgtbPaths,
    HashSize,
    Threads,
    MultiPv,
    /// Time kept back on a clock for the GUI's lag.
    MoveOverhead,
    /// The level played at when the strength is not limited by Elo
    /// (`Skill Level`).
    SkillLevel,
    /// Play at the Elo of `UCI_Elo` (`UCI_LimitStrength`).
    LimitStrength,
    /// The Elo played at under `UCI_LimitStrength`.
    Elo,
    DrawMoves,
    Repetition,
    Pruning,
    Evaluation,
    EvalFile,
    Knowledge,
    Selectivity,
    Style,
    LoadBook,
    ClearHash,
    NewGame,
    /// Announced only: both clocks are understood.
    DualTime,
    /// Announced only: xiangqi is the one variant.
    UciVariant,
    /// The search parameter of this name (a tuning build's options).
    Param(&'static str),
}

/// One option.
#[derive(Clone, Copy, Debug)]
pub struct OptionSpec {
    /// The UCCI name (one lower-case word); `None` for an option only UCI has.
    pub ucci: Option<&'static str>,
    /// The UCI name; `None` for an option only UCCI has.
    pub uci: Option<&'static str>,
    pub kind: OptionKind,
    /// What it sets, in words.
    pub effect: &'static str,
    /// What it sets, for the code that sets it.
    pub setting: Setting,
}

/// The levels of `pruning`, `knowledge`, `selectivity` and `bookvariety`.
const LEVELS: &[&str] = &["none", "small", "medium", "large"];

/// Every option, in the order they are announced.
pub const OPTIONS: &[OptionSpec] = &[
    OptionSpec {
        ucci: Some("usemillisec"),
        uci: None,
        kind: OptionKind::Check { default: false },
        effect: "UCCI times (go time, increment, movetime) in milliseconds instead of seconds",
        setting: Setting::UseMillisec,
    },
    OptionSpec {
        ucci: Some("batch"),
        uci: None,
        kind: OptionKind::Check { default: false },
        effect: "read no command while a search that ends by itself runs",
        setting: Setting::Batch,
    },
    OptionSpec {
        ucci: Some("debug"),
        uci: None,
        kind: OptionKind::Check { default: false },
        effect: "info strings on ignored options and on each go's limits",
        setting: Setting::Debug,
    },
    OptionSpec {
        ucci: Some("ponder"),
        uci: Some("Ponder"),
        kind: OptionKind::Check { default: false },
        effect: "the GUI may ask the engine to think on the opponent's time (go ponder)",
        setting: Setting::Ponder,
    },
    OptionSpec {
        ucci: Some("usebook"),
        uci: Some("UseBook"),
        kind: OptionKind::Check { default: true },
        effect: "play book moves under a clock or move time",
        setting: Setting::UseBook,
    },
    OptionSpec {
        ucci: Some("bookfiles"),
        uci: Some("BookFiles"),
        kind: OptionKind::Text { default: "" },
        effect: "book files, ';'-separated, probed in order: ours (.xqb) or ElephantEye's \
                 BOOK.DAT (empty: the program's default books; xqengine: data/book.xqb); each \
                 is opened at once, and one that cannot be used is named",
        setting: Setting::BookFiles,
    },
    OptionSpec {
        ucci: Some("bookmargin"),
        uci: Some("BookMargin"),
        kind: OptionKind::Spin {
            default: 15,
            min: 0,
            max: 1_000,
        },
        effect: "in a book with an analysis beside it (.xqa), play only moves whose backed-up \
                 score is within this many centipawns of the best the analysis knows",
        setting: Setting::BookMargin,
    },
    OptionSpec {
        ucci: Some("bookvariety"),
        uci: Some("BookVariety"),
        kind: OptionKind::Combo {
            default: "none",
            vars: LEVELS,
        },
        effect: "how freely book moves are chosen: the heaviest (none), or by weight squared, \
                 weight or its square root; `selectivity` sets it too, with evaluation noise",
        setting: Setting::BookVariety,
    },
    OptionSpec {
        ucci: Some("useegtb"),
        uci: Some("UseEGTB"),
        kind: OptionKind::Check { default: true },
        effect: "probe the endgame tables at the root and after captures",
        setting: Setting::UseEgtb,
    },
    OptionSpec {
        ucci: Some("egtbpaths"),
        uci: Some("EGTBPaths"),
        kind: OptionKind::Text { default: "" },
        effect: "directories of endgame tables, ';'-separated (empty: the program's default \
                 tables; xqengine: data/egtb); each is read at once, and one that cannot be read \
                 is named",
        setting: Setting::EgtbPaths,
    },
    OptionSpec {
        ucci: Some("hashsize"),
        uci: Some("Hash"),
        kind: OptionKind::Spin {
            default: 64,
            min: 0,
            max: 65_536,
        },
        effect: "transposition table size in MB (0: 64), at most half the machine's memory",
        setting: Setting::HashSize,
    },
    OptionSpec {
        ucci: Some("threads"),
        uci: Some("Threads"),
        kind: OptionKind::Spin {
            default: 1,
            min: 0,
            max: 256,
        },
        effect: "search threads (0: one per core)",
        setting: Setting::Threads,
    },
    OptionSpec {
        ucci: Some("multipv"),
        uci: Some("MultiPV"),
        kind: OptionKind::Spin {
            default: 1,
            min: 1,
            max: 128,
        },
        effect: "principal variations reported",
        setting: Setting::MultiPv,
    },
    OptionSpec {
        ucci: None,
        uci: Some("UCI_ShowWDL"),
        kind: OptionKind::Check { default: false },
        effect: "print `wdl W D L` (per mille) after each score: the chances of a win, a \
                 draw and a loss for the side to move, from a model fitted on our games \
                 (docs/wdl.md)",
        setting: Setting::ShowWdl,
    },
    OptionSpec {
        ucci: Some("moveoverhead"),
        uci: Some("Move Overhead"),
        kind: OptionKind::Spin {
            default: crate::time::DEFAULT_MOVE_OVERHEAD.as_millis() as i64,
            min: 0,
            max: 5_000,
        },
        effect: "milliseconds a move on a clock keeps back for the GUI's and the \
                 connection's lag: the time a move may take counts them off what is left",
        setting: Setting::MoveOverhead,
    },
    OptionSpec {
        ucci: Some("skilllevel"),
        uci: Some("Skill Level"),
        kind: OptionKind::Spin {
            default: crate::strength::MAX_SKILL,
            min: 0,
            max: crate::strength::MAX_SKILL,
        },
        effect: "how well the engine plays, 0 (a beginner) to 20 (full strength): a weaker \
                 level looks less far ahead and now and then prefers a move a little \
                 worse than its best; each level's Elo is measured (docs/strength.md)",
        setting: Setting::SkillLevel,
    },
    OptionSpec {
        ucci: Some("limitstrength"),
        uci: Some("UCI_LimitStrength"),
        kind: OptionKind::Check { default: false },
        effect: "play at the Elo of `UCI_Elo` instead of the skill level",
        setting: Setting::LimitStrength,
    },
    OptionSpec {
        ucci: Some("elo"),
        uci: Some("UCI_Elo"),
        kind: OptionKind::Spin {
            default: crate::strength::elo_range().1,
            min: crate::strength::elo_range().0,
            max: crate::strength::elo_range().1,
        },
        effect: "the Elo played at under `UCI_LimitStrength`, on the scale of the \
                 measured ladder where ElephantEye at 10 s + 0.1 s is 2000 \
                 (docs/strength.md)",
        setting: Setting::Elo,
    },
    OptionSpec {
        ucci: Some("drawmoves"),
        uci: Some("DrawMoves"),
        kind: OptionKind::Spin {
            default: xqcore::NATURAL_MOVE_LIMIT as i64,
            min: 1,
            max: 10_000,
        },
        effect: "plies without a capture after which the game is drawn",
        setting: Setting::DrawMoves,
    },
    OptionSpec {
        ucci: Some("repetition"),
        uci: Some("Repetition"),
        kind: OptionKind::Combo {
            default: "asianrule",
            vars: &["alwaysdraw", "checkban", "asianrule"],
        },
        effect: "repetition rule: every repetition draws (alwaysdraw), perpetual check loses \
                 (checkban), or perpetual check and perpetual chase lose (asianrule, the AXF \
                 rules), in the search and in reading the endgame tables; chineserule is not \
                 offered (the Chinese association's differences are not implemented)",
        setting: Setting::Repetition,
    },
    OptionSpec {
        ucci: Some("pruning"),
        uci: Some("Pruning"),
        kind: OptionKind::Combo {
            default: "large",
            vars: LEVELS,
        },
        effect: "search pruning: none (full width), small (null move), medium (and reductions), \
                 large (and futility and late-move pruning)",
        setting: Setting::Pruning,
    },
    OptionSpec {
        ucci: Some("evaluation"),
        uci: Some("Evaluation"),
        kind: OptionKind::Combo {
            default: "nnue",
            vars: &["nnue", "hce"],
        },
        effect: "nnue: the learned net (evalfile); hce: the hand-crafted terms (knowledge)",
        setting: Setting::Evaluation,
    },
    OptionSpec {
        ucci: Some("evalfile"),
        uci: Some("EvalFile"),
        kind: OptionKind::Text { default: "" },
        effect: "net file of the learned evaluation (empty: the one built in); a file that \
                 cannot be used is named with the reason, and the net in use stays",
        setting: Setting::EvalFile,
    },
    OptionSpec {
        ucci: Some("knowledge"),
        uci: Some("Knowledge"),
        kind: OptionKind::Combo {
            default: "large",
            vars: LEVELS,
        },
        effect: "hand-crafted evaluation terms: none (material), small, medium, large (all)",
        setting: Setting::Knowledge,
    },
    OptionSpec {
        ucci: Some("selectivity"),
        uci: Some("Selectivity"),
        kind: OptionKind::Combo {
            default: "none",
            vars: LEVELS,
        },
        effect: "randomness: evaluation noise of 0, 10, 25 or 50 cp, and book moves chosen \
                 by weight squared, weight or its square root instead of the heaviest",
        setting: Setting::Selectivity,
    },
    OptionSpec {
        ucci: Some("style"),
        uci: Some("Style"),
        kind: OptionKind::Combo {
            default: "normal",
            vars: &["solid", "normal", "risky"],
        },
        effect: "draw aversion: a draw scores 0, 10 or 30 cp below even for the engine",
        setting: Setting::Style,
    },
    OptionSpec {
        ucci: Some("loadbook"),
        uci: None,
        kind: OptionKind::Button,
        effect: "open the book files again now, and say how many are open",
        setting: Setting::LoadBook,
    },
    OptionSpec {
        ucci: Some("clearhash"),
        uci: Some("Clear Hash"),
        kind: OptionKind::Button,
        effect: "empty the transposition table",
        setting: Setting::ClearHash,
    },
    OptionSpec {
        ucci: Some("newgame"),
        uci: None,
        kind: OptionKind::Button,
        effect: "a new game starts: forget what was learnt (UCI: ucinewgame)",
        setting: Setting::NewGame,
    },
    OptionSpec {
        ucci: Some("dualtime"),
        uci: None,
        kind: OptionKind::Label,
        effect: "go wtime W btime B is understood as well as go time T",
        setting: Setting::DualTime,
    },
    OptionSpec {
        ucci: None,
        uci: Some("UCI_Variant"),
        kind: OptionKind::Combo {
            default: "xiangqi",
            vars: &["xiangqi"],
        },
        effect: "the variant played, for GUIs that play several: xiangqi only",
        setting: Setting::UciVariant,
    },
];

impl OptionSpec {
    /// Whether `name` (as a GUI writes it, in any case, spaces or not)
    /// names this option.
    pub fn is_named(&self, name: &str) -> bool {
        let key = normalise(name);
        [self.ucci, self.uci]
            .into_iter()
            .flatten()
            .any(|n| key == normalise(n))
    }

    /// Reads a `setoption` value for this option. A spin outside its
    /// range is clamped into it, and the clamp returned beside the value,
    /// for the user to be told.
    ///
    /// # Errors
    ///
    /// A value of the wrong kind; the error says what the option takes.
    pub fn parse<'a>(
        &self,
        value: Option<&'a str>,
    ) -> Result<(OptionValue<'a>, Option<Clamped>), BadValue> {
        let v = value.unwrap_or("").trim();
        let value = match self.kind {
            OptionKind::Check { .. } => match v.to_ascii_lowercase().as_str() {
                "true" | "on" | "1" | "yes" => OptionValue::Check(true),
                "false" | "off" | "0" | "no" => OptionValue::Check(false),
                _ => return Err(BadValue::Check),
            },
            OptionKind::Spin { min, max, .. } => {
                let asked = v.parse::<i64>().map_err(|_| BadValue::Spin { min, max })?;
                let used = asked.clamp(min, max);
                let clamped = (used != asked).then_some(Clamped {
                    asked,
                    used,
                    min,
                    max,
                });
                return Ok((OptionValue::Spin(used), clamped));
            }
            OptionKind::Combo { vars, .. } => vars
                .iter()
                .position(|var| v.eq_ignore_ascii_case(var))
                .map(OptionValue::Combo)
                .ok_or(BadValue::Combo { vars })?,
            // UCI GUIs send `<empty>` for an empty string.
            OptionKind::Text { .. } if v == "<empty>" => OptionValue::Text(""),
            OptionKind::Text { .. } => OptionValue::Text(v),
            OptionKind::Button | OptionKind::Label => OptionValue::Press,
        };
        Ok((value, None))
    }

    /// The option's default as a value, for a button nothing.
    pub fn default_value(&self) -> Option<OptionValue<'static>> {
        match self.kind {
            OptionKind::Check { default } => Some(OptionValue::Check(default)),
            OptionKind::Spin { default, .. } => Some(OptionValue::Spin(default)),
            OptionKind::Combo { default, vars } => vars
                .iter()
                .position(|v| *v == default)
                .map(OptionValue::Combo),
            OptionKind::Text { default } => Some(OptionValue::Text(default)),
            OptionKind::Button | OptionKind::Label => None,
        }
    }
}

/// The search's parameters as options (announced only with the `tune`
/// feature): a spin of each one's range, named as the parameter.
pub(crate) const PARAM_OPTIONS: [OptionSpec; TUNABLES.len()] = {
    let mut specs = [param_option(&TUNABLES[0]); TUNABLES.len()];
    let mut i = 1;
    while i < TUNABLES.len() {
        specs[i] = param_option(&TUNABLES[i]);
        i += 1;
    }
    specs
};

/// The option of the search parameter `t`.
const fn param_option(t: &Tunable) -> OptionSpec {
    OptionSpec {
        ucci: Some(t.name),
        uci: Some(t.name),
        kind: OptionKind::Spin {
            default: t.default as i64,
            min: t.min as i64,
            max: t.max as i64,
        },
        effect: t.effect,
        setting: Setting::Param(t.name),
    }
}

/// The options this build announces, in order: [`OPTIONS`], and with the
/// `tune` feature the search's parameters after them.
pub fn all() -> impl Iterator<Item = &'static OptionSpec> {
    let params: &[OptionSpec] = if cfg!(feature = "tune") {
        &PARAM_OPTIONS
    } else {
        &[]
    };
    OPTIONS.iter().chain(params)
}

/// The option `name` names among those this build announces, if any.
pub fn find(name: &str) -> Option<&'static OptionSpec> {
    all().find(|spec| spec.is_named(name))
}

/// Lower case without spaces or underscores: `Clear Hash` and `clearhash`
/// are one name, as are `UCI_Variant` and `ucivariant`.
fn normalise(name: &str) -> String {
    name.chars()
        .filter(|c| !c.is_whitespace() && *c != '_')
        .map(|c| c.to_ascii_lowercase())
        .collect()
}

impl<'a> OptionValue<'a> {
    /// A check option's value (`false` for a value of another kind).
    pub fn check(self) -> bool {
        matches!(self, OptionValue::Check(true))
    }

    /// A spin option's number (0 for a value of another kind).
    pub fn spin(self) -> i64 {
        match self {
            OptionValue::Spin(n) => n,
            _ => 0,
        }
    }

    /// The chosen var of a combo option (0 for a value of another kind).
    pub fn combo(self) -> usize {
        match self {
            OptionValue::Combo(i) => i,
            _ => 0,
        }
    }

    /// A string option's text (empty for a value of another kind).
    pub fn text(self) -> &'a str {
        match self {
            OptionValue::Text(s) => s,
            _ => "",
        }
    }
}

/// `;`-separated paths, trimmed, empty ones left out.
pub(crate) fn split_paths(v: &str) -> Vec<String> {
    v.split(';')
        .map(str::trim)
        .filter(|s| !s.is_empty())
        .map(String::from)
        .collect()
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn names_are_unique_in_each_protocol() {
        let every: Vec<_> = OPTIONS.iter().chain(&PARAM_OPTIONS).collect();
        for (i, a) in every.iter().enumerate() {
            for b in &every[i + 1..] {
                for name in [a.ucci, a.uci].into_iter().flatten() {
                    assert!(!b.is_named(name), "{name} twice");
                }
            }
        }
        assert_eq!(find("Clear Hash").unwrap().ucci, Some("clearhash"));
        assert_eq!(find("HASH").unwrap().ucci, Some("hashsize"));
        assert_eq!(find("uci_variant").unwrap().uci, Some("UCI_Variant"));
        assert!(find("nosuchoption").is_none());
    }

    /// The value `name` takes from `text`, if it takes one.
    fn value<'a>(name: &str, text: Option<&'a str>) -> Option<OptionValue<'a>> {
        let (value, _) = find(name).unwrap().parse(text).ok()?;
        Some(value)
    }

    #[test]
    fn values_are_checked_against_the_kind() {
        let hash = find("hashsize").unwrap();
        assert_eq!(value("hashsize", Some("32")), Some(OptionValue::Spin(32)));
        let why = hash.parse(Some("big")).unwrap_err().to_string();
        assert!(why.contains("0 to 65536"), "{why}");
        let rule = find("repetition").unwrap();
        assert_eq!(
            value("repetition", Some("AsianRule")),
            Some(OptionValue::Combo(2))
        );
        assert!(rule.parse(Some("fide")).is_err());
        let flag = find("usebook").unwrap();
        assert_eq!(
            value("usebook", Some("off")),
            Some(OptionValue::Check(false))
        );
        assert!(flag.parse(Some("maybe")).is_err());
        assert_eq!(
            value("bookfiles", Some("<empty>")),
            Some(OptionValue::Text(""))
        );
        assert_eq!(value("clearhash", None), Some(OptionValue::Press));
        let variant = find("UCI_Variant").unwrap();
        let why = variant.parse(Some("chess")).unwrap_err().to_string();
        assert!(why.contains("xiangqi"), "{why}");
    }

    #[test]
    fn out_of_range_numbers_are_clamped_and_said() {
        let hash = find("hashsize").unwrap();
        assert_eq!(hash.parse(Some("64")), Ok((OptionValue::Spin(64), None)));
        assert_eq!(hash.parse(Some(" 65536 ")).unwrap().1, None);
        let (used, clamped) = hash.parse(Some("999999999")).unwrap();
        assert_eq!(used, OptionValue::Spin(65_536));
        assert_eq!(
            clamped.map(|c| c.to_string()).as_deref(),
            Some("999999999 is out of range (0 to 65536), 65536 used")
        );
        let (used, clamped) = find("multipv").unwrap().parse(Some("-3")).unwrap();
        assert_eq!(used, OptionValue::Spin(1));
        assert_eq!(
            clamped,
            Some(Clamped {
                asked: -3,
                used: 1,
                min: 1,
                max: 128
            })
        );
        assert_eq!(find("usebook").unwrap().parse(Some("1")).unwrap().1, None);
    }
}
