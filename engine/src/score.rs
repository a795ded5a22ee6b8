//! The search's score scale: centipawns for the side to move, with the
//! results the search proves (mates, rule results, table results) in
//! bands above every evaluation. UCCI prints these numbers as they are;
//! [`Score`] is the reported form, mates in moves.

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
