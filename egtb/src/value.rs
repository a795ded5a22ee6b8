//! The value of a position for the side to move, and its code in a table.

use std::fmt;

/// Win, draw or loss for the side to move.
#[derive(Clone, Copy, Debug, PartialEq, Eq, PartialOrd, Ord, Hash)]
pub enum Wdl {
    Loss,
    Draw,
    Win,
}

impl fmt::Display for Wdl {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        f.write_str(match self {
            Wdl::Loss => "loss",
            Wdl::Draw => "draw",
            Wdl::Win => "win",
        })
    }
}

/// A position's value for the side to move: a draw, or a win or loss with
/// its distance in plies (a win's distance is odd, a loss's even; a side
/// with no legal move has lost in 0).
///
/// Distances below [`RULE_DTM`] count plies to mate. From [`RULE_DTM`] up
/// the result comes from the repetition rules: a loss at such a distance
/// with no shorter line is a position whose side to move can only avoid
/// mate by checking for ever, or (from [`CHASE_DTM`] up) by checking or
/// chasing one piece for ever, and so loses by the rule; longer distances
/// lead to such a loss. Results from [`RULE_DTM`] up are draws when
/// repetitions are always draws; those from [`CHASE_DTM`] up are draws
/// when only perpetual check loses.
#[derive(Clone, Copy, Debug, PartialEq, Eq, Hash)]
pub enum Value {
    Draw,
    Win(u16),
    Loss(u16),
}

/// Longest distance a table can hold, in plies.
pub const MAX_DTM: u16 = u16::MAX - 2;

/// The distance of a loss by the perpetual-check rule: mates are shorter,
/// longer distances lead to such a loss. Even, as a loss's distance is.
/// (The longest 5-piece mate, KNPKN's, is 154 plies; the rule's repeated
/// passes need more room than a byte had: KCPKN takes 94 plies.)
pub const RULE_DTM: u16 = 1000;

/// The first distance that depends on the perpetual-chase rule: every
/// result of the perpetual-check rule alone is settled first, below it.
/// (The longest 5-piece perpetual-check line, KCPKN's, is 94 plies past
/// [`RULE_DTM`].)
pub const CHASE_DTM: u16 = 2000;

/// Which repetitions lose, as a game is played (and how a table's values
/// are read): the tables hold results under [`Repetitions::CheckAndChase`].
#[derive(Clone, Copy, Debug, PartialEq, Eq, Hash)]
pub enum Repetitions {
    /// Every repetition is a draw.
    AllDraw,
    /// Perpetual check loses; every other repetition is a draw.
    CheckLoses,
    /// Perpetual check and perpetual chase lose (the Asian rules).
    CheckAndChase,
}

/// The code of a position that cannot occur (or is never probed): the
/// writer replaces it with whatever compresses best.
pub const INVALID: u16 = u16::MAX;

impl Value {
    /// Win, draw or loss.
    pub fn wdl(self) -> Wdl {
        match self {
            Value::Draw => Wdl::Draw,
            Value::Win(_) => Wdl::Win,
            Value::Loss(_) => Wdl::Loss,
        }
    }

    /// Whether a repetition rule decides this value (its distance is
    /// [`RULE_DTM`] or more); under rules where every repetition is a draw
    /// such a position is a draw.
    pub fn by_rule(self) -> bool {
        self.dtm().is_some_and(|d| d >= RULE_DTM)
    }

    /// Whether the perpetual-chase rule takes part in this value (its
    /// distance is [`CHASE_DTM`] or more); where only perpetual check
    /// loses such a position is a draw.
    pub fn by_chase_rule(self) -> bool {
        self.dtm().is_some_and(|d| d >= CHASE_DTM)
    }

    /// The value when every repetition is a draw: results of the
    /// repetition rules become draws.
    pub fn without_rule(self) -> Value {
        self.under(Repetitions::AllDraw)
    }

    /// The value under `rules`: results of the rules that do not apply
    /// become draws.
    pub fn under(self, rules: Repetitions) -> Value {
        let drawn = match rules {
            Repetitions::AllDraw => self.by_rule(),
            Repetitions::CheckLoses => self.by_chase_rule(),
            Repetitions::CheckAndChase => false,
        };
        if drawn {
            Value::Draw
        } else {
            self
        }
    }

    /// Plies to mate (or, by the rule, to a perpetual checker's loss), if
    /// decided.
    pub fn dtm(self) -> Option<u16> {
        match self {
            Value::Draw => None,
            Value::Win(d) | Value::Loss(d) => Some(d),
        }
    }

    /// The value one ply earlier, for the side that moves into this
    /// position: a loss here is a win there, one ply longer.
    pub fn parent(self) -> Value {
        match self {
            Value::Draw => Value::Draw,
            Value::Win(d) => Value::Loss(d + 1),
            Value::Loss(d) => Value::Win(d + 1),
        }
    }

    /// The table code: 0 for a draw, otherwise the distance plus one (its
    /// parity tells a win from a loss).
    pub fn to_code(self) -> u16 {
        match self {
            Value::Draw => 0,
            Value::Win(d) | Value::Loss(d) => d + 1,
        }
    }

    /// Reads a table code; `None` for [`INVALID`].
    pub fn from_code(b: u16) -> Option<Value> {
        match b {
            0 => Some(Value::Draw),
            INVALID => None,
            b if (b - 1) % 2 == 1 => Some(Value::Win(b - 1)),
            b => Some(Value::Loss(b - 1)),
        }
    }

    /// Whether this value is better for the side to move than `other`:
    /// a win beats a draw beats a loss; a shorter win and a longer loss are
    /// better.
    pub fn better_than(self, other: Value) -> bool {
        self.order_key() > other.order_key()
    }

    /// Orders values best first (see [`Value::better_than`]), for sorting
    /// moves by the values they lead to.
    pub fn best_first(self, other: Value) -> std::cmp::Ordering {
        other.order_key().cmp(&self.order_key())
    }

    fn order_key(self) -> i32 {
        // Past every distance a code holds.
        const FAR: i32 = 1 << 17;
        match self {
            Value::Win(d) => FAR - d as i32,
            Value::Draw => 0,
            Value::Loss(d) => -FAR + d as i32,
        }
    }
}

impl fmt::Display for Value {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        match self {
            Value::Draw => f.write_str("draw"),
            Value::Win(d) if *d >= CHASE_DTM => {
                write!(f, "win dtm {d} by the perpetual-chase rule")
            }
            Value::Loss(d) if *d >= CHASE_DTM => {
                write!(f, "loss dtm {d} by the perpetual-chase rule")
            }
            Value::Win(d) if *d >= RULE_DTM => write!(f, "win dtm {d} by the perpetual-check rule"),
            Value::Loss(d) if *d >= RULE_DTM => {
                write!(f, "loss dtm {d} by the perpetual-check rule")
            }
            Value::Win(d) => write!(f, "win dtm {d}"),
            Value::Loss(d) => write!(f, "loss dtm {d}"),
        }
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn bytes_round_trip_and_parity_tells_win_from_loss() {
        for v in [
            Value::Draw,
            Value::Loss(0),
            Value::Win(1),
            Value::Loss(2),
            Value::Win(MAX_DTM),
        ] {
            assert_eq!(Value::from_code(v.to_code()), Some(v));
        }
        assert_eq!(Value::from_code(INVALID), None);
        assert_eq!(Value::Loss(4).parent(), Value::Win(5));
        assert!(Value::Win(3).better_than(Value::Win(5)));
        assert!(Value::Loss(6).better_than(Value::Loss(2)));
        assert!(Value::Draw.better_than(Value::Loss(40)));
    }

    #[test]
    fn rule_results_rank_behind_mates_and_vanish_without_the_rule() {
        let rule_win = Value::Win(RULE_DTM + 1);
        assert!(rule_win.by_rule() && !Value::Win(RULE_DTM - 1).by_rule());
        assert!(Value::Win(RULE_DTM - 1).better_than(rule_win));
        assert!(rule_win.better_than(Value::Draw));
        assert!(Value::Loss(RULE_DTM).better_than(Value::Loss(RULE_DTM - 2)));
        assert_eq!(rule_win.without_rule(), Value::Draw);
        assert_eq!(Value::Loss(4).without_rule(), Value::Loss(4));
        assert!(Value::Loss(RULE_DTM)
            .to_string()
            .contains("perpetual-check rule"));
    }

    #[test]
    fn chase_results_are_draws_where_only_perpetual_check_loses() {
        let chase_win = Value::Win(CHASE_DTM + 3);
        let check_win = Value::Win(RULE_DTM + 3);
        assert!(chase_win.by_rule() && chase_win.by_chase_rule());
        assert!(check_win.by_rule() && !check_win.by_chase_rule());
        assert_eq!(chase_win.under(Repetitions::CheckLoses), Value::Draw);
        assert_eq!(check_win.under(Repetitions::CheckLoses), check_win);
        assert_eq!(check_win.under(Repetitions::AllDraw), Value::Draw);
        assert_eq!(chase_win.under(Repetitions::CheckAndChase), chase_win);
        assert_eq!(Value::Win(7).under(Repetitions::AllDraw), Value::Win(7));
        assert!(check_win.better_than(chase_win));
        assert!(Value::Loss(CHASE_DTM)
            .to_string()
            .contains("perpetual-chase rule"));
    }
}
