//! [`EngineOptions`]: the engine's settings as plain data, with their
//! defaults (those the option table announces), and how an option's value
//! sets them. The settings that are more than data (files to open, the
//! table to make, buttons) are the [`Engine`](crate::Engine)'s to act on.

use std::sync::Arc;
use std::time::Duration;

use xqcore::NATURAL_MOVE_LIMIT;
use xqnnue::Network;

use crate::book::BookVariety;
use crate::eval::{Evaluation, Knowledge};
use crate::options::{OptionValue, Setting};
use crate::search::{Pruning, RepetitionRule, SearchParams};
use crate::strength::Strength;

/// The engine's settings as plain data, set through protocol options
/// ([`Engine::set_option`](crate::Engine::set_option)). The book files and
/// the default books and tables are not here: the engine keeps them with
/// the books and tables it opens
/// ([`Engine::set_book_files`](crate::Engine::set_book_files),
/// [`Engine::set_default_data`](crate::Engine::set_default_data)).
#[derive(Clone, Debug)]
pub struct EngineOptions {
    /// Transposition table size in MB (0: automatic).
    pub hash_mb: usize,
    /// Search threads (0: one per core).
    pub threads: usize,
    pub ponder: bool,
    pub use_book: bool,
    pub use_egtb: bool,
    /// The endgame table directories of `egtbpaths` (none: the engine's
    /// default ones).
    pub egtb_paths: Vec<String>,
    /// Natural-move limit in plies.
    pub draw_plies: u32,
    pub repetition: RepetitionRule,
    pub pruning: Pruning,
    pub knowledge: Knowledge,
    /// Random noise amplitude in centipawns (UCCI `selectivity`).
    pub randomness: i32,
    /// How freely book moves are chosen (UCCI `selectivity` too).
    pub book_variety: BookVariety,
    /// In an analysed book, moves scored more than this many centipawns
    /// below the best are never played.
    pub book_margin: i16,
    /// Draw aversion in centipawns (UCCI `style`).
    pub contempt: i32,
    pub multipv: usize,
    /// Time a move on a clock keeps back for the GUI's lag.
    pub move_overhead: Duration,
    /// `Skill Level`, 0-20.
    pub skill_level: i64,
    /// Play at [`EngineOptions::elo`] instead of the skill level.
    pub limit_strength: bool,
    /// `UCI_Elo`.
    pub elo: i64,
    /// The learned evaluation or the hand-crafted one.
    pub evaluation: Evaluation,
    /// The net the learned evaluation uses (`evalfile`; the built-in one).
    pub net: Arc<Network>,
    /// The search's margins: their defaults, but in a tuning build.
    pub params: SearchParams,
}

/// Transposition table size when `hashsize` is 0.
pub(crate) const AUTO_HASH_MB: usize = 64;

impl Default for EngineOptions {
    fn default() -> Self {
        EngineOptions {
            hash_mb: AUTO_HASH_MB,
            threads: 1,
            ponder: false,
            use_book: true,
            use_egtb: true,
            egtb_paths: Vec::new(),
            draw_plies: NATURAL_MOVE_LIMIT,
            repetition: RepetitionRule::AsianRule,
            pruning: Pruning::Large,
            knowledge: Knowledge::Large,
            randomness: 0,
            book_variety: BookVariety::None,
            book_margin: 15,
            contempt: 10,
            multipv: 1,
            move_overhead: crate::time::DEFAULT_MOVE_OVERHEAD,
            skill_level: crate::strength::MAX_SKILL,
            limit_strength: false,
            elo: crate::strength::elo_range().1,
            evaluation: Evaluation::Nnue,
            net: Arc::new(Network::embedded().clone()),
            params: SearchParams::default(),
        }
    }
}

/// The levels of `pruning`, `knowledge`, `selectivity` and `bookvariety`,
/// in the order of the options' vars (none, small, medium, large).
const PRUNINGS: [Pruning; 4] = [
    Pruning::None,
    Pruning::Small,
    Pruning::Medium,
    Pruning::Large,
];
const KNOWLEDGES: [Knowledge; 4] = [
    Knowledge::None,
    Knowledge::Small,
    Knowledge::Medium,
    Knowledge::Large,
];
const BOOK_VARIETIES: [BookVariety; 4] = [
    BookVariety::None,
    BookVariety::Small,
    BookVariety::Medium,
    BookVariety::Large,
];
/// Evaluation noise in centipawns at each `selectivity` level.
const RANDOMNESS: [i32; 4] = [0, 10, 25, 50];
/// `repetition`'s vars: alwaysdraw, checkban, asianrule.
const REPETITION_RULES: [RepetitionRule; 3] = [
    RepetitionRule::AlwaysDraw,
    RepetitionRule::CheckBan,
    RepetitionRule::AsianRule,
];
/// `evaluation`'s vars: nnue, hce.
const EVALUATIONS: [Evaluation; 2] = [Evaluation::Nnue, Evaluation::Hce];
/// Draw aversion in centipawns of `style`'s vars: solid, normal, risky.
const CONTEMPTS: [i32; 3] = [0, 10, 30];

impl EngineOptions {
    /// The table size `hashsize` asks for, in MB (0 reads as 64).
    pub fn hash_asked(&self) -> usize {
        if self.hash_mb == 0 {
            AUTO_HASH_MB
        } else {
            self.hash_mb
        }
    }

    /// How strongly the engine plays: at `UCI_Elo` under
    /// `UCI_LimitStrength`, else at `Skill Level`.
    pub fn strength(&self) -> Strength {
        if self.limit_strength {
            Strength::from_elo(self.elo)
        } else {
            Strength::from_level(self.skill_level)
        }
    }

    /// Sets the plain setting `setting` to `value` (as the option table
    /// reads it). The others set nothing here: the protocol's own options
    /// are the session's, and files, the table and buttons the engine's
    /// ([`Engine::set_option`](crate::Engine::set_option), which hands
    /// only the plain ones here).
    pub(crate) fn set(&mut self, setting: Setting, value: OptionValue) {
        let level = value.combo();
        match setting {
            Setting::Ponder => self.ponder = value.check(),
            Setting::UseBook => self.use_book = value.check(),
            Setting::UseEgtb => self.use_egtb = value.check(),
            Setting::BookMargin => self.book_margin = value.spin() as i16,
            Setting::BookVariety => set_to(&mut self.book_variety, &BOOK_VARIETIES, level),
            Setting::HashSize => self.hash_mb = value.spin() as usize,
            Setting::Threads => self.threads = value.spin() as usize,
            Setting::MultiPv => self.multipv = value.spin() as usize,
            Setting::MoveOverhead => {
                self.move_overhead = Duration::from_millis(value.spin().max(0) as u64)
            }
            Setting::SkillLevel => self.skill_level = value.spin(),
            Setting::LimitStrength => self.limit_strength = value.check(),
            Setting::Elo => self.elo = value.spin(),
            Setting::DrawMoves => self.draw_plies = value.spin() as u32,
            Setting::Repetition => set_to(&mut self.repetition, &REPETITION_RULES, level),
            Setting::Pruning => set_to(&mut self.pruning, &PRUNINGS, level),
            Setting::Evaluation => set_to(&mut self.evaluation, &EVALUATIONS, level),
            Setting::Knowledge => set_to(&mut self.knowledge, &KNOWLEDGES, level),
            Setting::Selectivity => {
                set_to(&mut self.randomness, &RANDOMNESS, level);
                set_to(&mut self.book_variety, &BOOK_VARIETIES, level);
            }
            Setting::Style => set_to(&mut self.contempt, &CONTEMPTS, level),
            Setting::Param(name) => {
                self.params.set(name, value.spin() as i32);
            }
            Setting::UseMillisec
            | Setting::Batch
            | Setting::Debug
            | Setting::ShowWdl
            | Setting::BookFiles
            | Setting::EgtbPaths
            | Setting::EvalFile
            | Setting::LoadBook
            | Setting::ClearHash
            | Setting::NewGame
            | Setting::DualTime
            | Setting::UciVariant => {}
        }
    }
}

/// Sets `field` to the `index`th of `choices` (a combo's var), if there is
/// one.
fn set_to<T: Copy>(field: &mut T, choices: &[T], index: usize) {
    if let Some(&choice) = choices.get(index) {
        *field = choice;
    }
}

/// The table size for `hashsize` `asked` MB: at most `cap` MB, half the
/// machine's memory, since the table is written whole when it is made and a
/// larger one would push the system into swapping (`hashsize 65536` took
/// 43 s and 16 GB of a 24 GB machine before this cap).
pub(crate) fn table_mb(asked: usize, cap: Option<usize>) -> usize {
    cap.map_or(asked, |cap| asked.min(cap.max(1)))
}

/// Half the machine's memory in MB, where the system tells it (Linux).
pub(crate) fn memory_cap_mb() -> Option<usize> {
    let info = std::fs::read_to_string("/proc/meminfo").ok()?;
    let kb: usize = info
        .lines()
        .find_map(|l| l.strip_prefix("MemTotal:"))?
        .trim()
        .trim_end_matches("kB")
        .trim()
        .parse()
        .ok()?;
    Some(kb / 1024 / 2)
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::options::{find, OptionKind, OPTIONS, PARAM_OPTIONS};
    use crate::search::TUNABLES;

    fn set(options: &mut EngineOptions, name: &str, value: &str) {
        let spec = find(name).unwrap();
        options.set(spec.setting, spec.parse(Some(value)).unwrap().0);
    }

    #[test]
    fn book_variety_varies_the_book_without_evaluation_noise() {
        let mut options = EngineOptions::default();
        set(&mut options, "bookvariety", "small");
        set(&mut options, "BookVariety", "medium");
        assert_eq!(options.book_variety, BookVariety::Medium);
        assert_eq!(options.randomness, 0);
        set(&mut options, "selectivity", "large");
        assert_eq!(options.book_variety, BookVariety::Large);
        assert_eq!(options.randomness, 50);
    }

    /// Every var of every combo sets something: the choices here are as
    /// many as the option's vars.
    #[test]
    fn each_combo_var_has_its_choice() {
        let choices = |setting| match setting {
            Setting::BookVariety => BOOK_VARIETIES.len(),
            Setting::Pruning => PRUNINGS.len(),
            Setting::Knowledge => KNOWLEDGES.len(),
            Setting::Selectivity => RANDOMNESS.len().min(BOOK_VARIETIES.len()),
            Setting::Repetition => REPETITION_RULES.len(),
            Setting::Evaluation => EVALUATIONS.len(),
            Setting::Style => CONTEMPTS.len(),
            _ => 1,
        };
        for spec in OPTIONS {
            if let OptionKind::Combo { vars, .. } = spec.kind {
                assert_eq!(vars.len(), choices(spec.setting), "{:?}", spec.ucci);
            }
        }
    }

    #[test]
    fn each_parameter_option_sets_its_parameter() {
        let mut options = EngineOptions::default();
        for (spec, t) in PARAM_OPTIONS.iter().zip(TUNABLES) {
            let before = options.params;
            options.set(
                spec.setting,
                OptionValue::Spin(i64::from(t.default + t.step)),
            );
            assert_ne!(before, options.params, "{}", t.name);
        }
    }

    #[test]
    fn the_table_is_capped_at_half_the_memory() {
        assert_eq!(table_mb(65_536, Some(12_000)), 12_000);
        assert_eq!(table_mb(64, Some(12_000)), 64);
        assert_eq!(table_mb(64, None), 64);
        assert_eq!(table_mb(16, Some(0)), 1);
        if cfg!(target_os = "linux") {
            let cap = memory_cap_mb().expect("/proc/meminfo gives MemTotal");
            assert!(cap >= 64, "half the memory read as {cap} MB");
        }
    }
}
