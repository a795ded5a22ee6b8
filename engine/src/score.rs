//! The search's score scale: centipawns for the side to move, with the
//! results the search proves (mates, rule results, table results) in
//! bands above every evaluation. UCCI prints these numbers as they are;
//! [`Score`] is the reported form, mates in moves. The endgame tables'
//! values become scores here too, and only here ([`table_score`] at the
//! root, [`table_result_score`] in the tree).

use xqegtb::{Value, Wdl};

/// Score of being mated at the root; mated in `n` plies scores `-MATE + n`.
pub const MATE: i32 = 30_000;
/// Scores beyond this are mate scores.
pub const MATE_BOUND: i32 = MATE - 1_000;
/// Score for winning by a repetition the rules forbid the other side
/// (perpetual check, perpetual chase), less the ply: below mate scores.
pub(crate) const BAN: i32 = MATE_BOUND - 500;
/// Score of a position the endgame tables call won, less the ply: above
/// every evaluation, below mates (the tables know the result, the search
/// does not see the mate).
pub(crate) const TB_WIN: i32 = BAN - 500;
/// Deepest ply the search reaches.
pub(crate) const MAX_PLY: usize = 128;

/// Whether `score` is a result of the repetition rules ([`BAN`] less a
/// ply), found at a repetition inside the tree: the players could still
/// leave the cycle, so it is no proven result.
pub(crate) fn is_rule_score(score: i32) -> bool {
    (BAN - MAX_PLY as i32..=BAN).contains(&score.abs())
}

/// The score at the root of a table value for the side to move: a mate in
/// its distance, a table win below mates for a result of a repetition rule
/// (no mate: its distance is counted from the rule's first distance, and a
/// result that needs the chase rule ranks below one of the check rule
/// alone), 0 for a draw.
pub(crate) fn table_score(value: Value) -> i32 {
    let rule_distance = |d: u16| {
        if d >= xqegtb::CHASE_DTM {
            400 + (d - xqegtb::CHASE_DTM).min(99) as i32
        } else {
            d.saturating_sub(xqegtb::RULE_DTM).min(399) as i32
        }
    };
    match value {
        Value::Win(d) if value.by_rule() => TB_WIN - rule_distance(d),
        Value::Loss(d) if value.by_rule() => -TB_WIN + rule_distance(d),
        Value::Win(d) => MATE - d as i32,
        Value::Loss(d) => -MATE + d as i32,
        Value::Draw => 0,
    }
}

/// The score inside the search's tree of a table result at `ply`: a won or
/// lost position scores [`TB_WIN`] less the ply, a drawn one `draw` (the
/// search's draw score). The tree ranks by result alone; the distances are
/// for the root's report ([`table_score`]).
pub(crate) fn table_result_score(wdl: Wdl, ply: usize, draw: i32) -> i32 {
    match wdl {
        Wdl::Win => TB_WIN - ply as i32,
        Wdl::Loss => -TB_WIN + ply as i32,
        Wdl::Draw => draw,
    }
}

/// A reported score.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum Score {
    Cp(i32),
    /// Mate in this many moves (negative: being mated).
    Mate(i32),
}

impl Score {
    /// The reported form of a score on the search's scale.
    pub fn from_internal(s: i32) -> Score {
        if s >= MATE_BOUND {
            Score::Mate((MATE - s + 1) / 2)
        } else if s <= -MATE_BOUND {
            Score::Mate(-(MATE + s) / 2)
        } else {
            Score::Cp(s)
        }
    }
}
