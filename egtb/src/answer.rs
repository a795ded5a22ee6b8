//! The tables' answers under the repetition rules a game is played by: a
//! position's value, its moves ranked, the best move and the line to the
//! end. Every program asks the tables these through [`Answers`], so the
//! engine, `egtbgen probe` and the server agree.
//!
//! The tables give many moves the same value (every move that keeps a
//! draw, or mates as fast). Among those, moves are ranked as a player
//! would rank them: first by the material they keep, so that no move gives
//! a piece away while another of the same value keeps it; then by the
//! caller's [`Preference`] (the engine's evaluation); then by the moves'
//! order, so that every program gives the same answer.

use xqcore::{Move, Position, Role};

use crate::probe::{ProbeError, Tablebase};
use crate::value::{Repetitions, Value};

/// What orders moves of equal value and material: the engine's view of a
/// move, higher first.
pub trait Preference: Sync {
    /// How much the side to move in `pos` likes playing `mv` (legal in
    /// `pos`); higher comes first.
    fn score(&self, pos: &Position, mv: Move) -> i32;
}

/// No preference: moves of equal value and material come in move order.
#[derive(Clone, Copy, Debug, Default)]
pub struct NoPreference;

impl Preference for NoPreference {
    fn score(&self, _: &Position, _: Move) -> i32 {
        0
    }
}

/// The tables read under a repetition rule (results of rules that do not
/// apply read as draws), with moves of equal value ranked by material and
/// a [`Preference`]. Made by [`Tablebase::under`].
#[derive(Clone, Copy)]
pub struct Answers<'a> {
    tables: &'a Tablebase,
    rules: Repetitions,
    preference: &'a dyn Preference,
}

impl Tablebase {
    /// The tables' answers for a game played under `rules`; moves of equal
    /// value and material come in move order until
    /// [`Answers::preferring`] says otherwise.
    pub fn under(&self, rules: Repetitions) -> Answers<'_> {
        Answers {
            tables: self,
            rules,
            preference: &NoPreference,
        }
    }
}

impl<'a> Answers<'a> {
    /// The same answers, with moves of equal value and material ordered by
    /// `preference`.
    pub fn preferring(self, preference: &'a dyn Preference) -> Answers<'a> {
        Answers { preference, ..self }
    }

    /// The tables under which these answers are read.
    pub fn tables(&self) -> &'a Tablebase {
        self.tables
    }

    /// The value of `pos` for the side to move; `Ok(None)` when its
    /// material has no table. The history of `pos` is not looked at.
    ///
    /// # Errors
    ///
    /// A table file that cannot be read.
    pub fn value(&self, pos: &Position) -> Result<Option<Value>, ProbeError> {
        Ok(self.tables.probe(pos)?.map(|v| v.under(self.rules)))
    }

    /// The value each of `moves` (legal in `pos`) leads to, for the side
    /// that plays it, in the order given; `Ok(None)` when a position they
    /// reach has no table.
    ///
    /// # Errors
    ///
    /// A table file that cannot be read.
    pub fn move_values(
        &self,
        pos: &Position,
        moves: &[Move],
    ) -> Result<Option<Vec<(Move, Value)>>, ProbeError> {
        let mut child = pos.clone();
        let mut values = Vec::with_capacity(moves.len());
        for &m in moves {
            child.make_move(m);
            let v = self.value(&child);
            child.unmake_move();
            let Some(v) = v? else { return Ok(None) };
            values.push((m, v.parent()));
        }
        Ok(Some(values))
    }

    /// `moves` (legal in `pos`) with their values, best first; among moves
    /// of equal value, those that keep the most material first, then the
    /// preferred. `Ok(None)` when a position they reach has no table.
    ///
    /// # Errors
    ///
    /// A table file that cannot be read.
    pub fn rank(
        &self,
        pos: &Position,
        moves: &[Move],
    ) -> Result<Option<Vec<(Move, Value)>>, ProbeError> {
        let Some(mut values) = self.move_values(pos, moves)? else {
            return Ok(None);
        };
        values.sort_by(|a, b| a.1.best_first(b.1).then(a.0.cmp(&b.0)));
        let mut start = 0;
        while start < values.len() {
            let value = values[start].1;
            let end = start + values[start..].iter().take_while(|v| v.1 == value).count();
            self.break_ties(pos, &mut values[start..end])?;
            start = end;
        }
        Ok(Some(values))
    }

    /// Every legal move of `pos` ranked as [`Answers::rank`] ranks them.
    ///
    /// # Errors
    ///
    /// A table file that cannot be read.
    pub fn ranked_moves(&self, pos: &Position) -> Result<Option<Vec<(Move, Value)>>, ProbeError> {
        self.rank(pos, &pos.legal_moves())
    }

    /// The moves of `moves` the tables rank first: those of the best value
    /// that keep the most material, the preferred first. Empty when
    /// `moves` is; `Ok(None)` when a position they reach has no table.
    ///
    /// # Errors
    ///
    /// A table file that cannot be read.
    pub fn best_of(
        &self,
        pos: &Position,
        moves: &[Move],
    ) -> Result<Option<Vec<(Move, Value)>>, ProbeError> {
        let Some(mut values) = self.move_values(pos, moves)? else {
            return Ok(None);
        };
        let Some(best) = values.iter().map(|v| v.1).reduce(better) else {
            return Ok(Some(values));
        };
        values.retain(|v| v.1 == best);
        values.sort_by_key(|v| v.0);
        let kept = self.break_ties(pos, &mut values)?;
        let most = kept.first().map_or(0, |k| k.0);
        values.truncate(kept.iter().take_while(|k| k.0 == most).count());
        Ok(Some(values))
    }

    /// The best move of `pos` and the value it leads to: the fastest mate,
    /// the longest defence, or a move that keeps the draw, keeping the most
    /// material, the preferred among those. `Ok(None)` when a position the
    /// moves lead to has no table, or when there is no legal move.
    ///
    /// # Errors
    ///
    /// A table file that cannot be read.
    pub fn best_move(&self, pos: &Position) -> Result<Option<(Move, Value)>, ProbeError> {
        let best = self.best_of(pos, &pos.legal_moves())?;
        Ok(best.and_then(|moves| moves.first().copied()))
    }

    /// The line the tables play from `pos`: both sides' best moves, each
    /// with the value it leads to for the side that plays it, up to the
    /// mate, the first repeated position (a result of the repetition rules,
    /// or a draw), a position without table, or `max_plies`.
    ///
    /// # Errors
    ///
    /// A table file that cannot be read.
    pub fn line(&self, pos: &Position, max_plies: usize) -> Result<Vec<(Move, Value)>, ProbeError> {
        let mut pos = pos.clone();
        let mut line = Vec::new();
        while line.len() < max_plies && pos.repetition().is_none() {
            let Some((mv, value)) = self.best_move(&pos)? else {
                break;
            };
            line.push((mv, value));
            pos.make_move(mv);
        }
        Ok(line)
    }

    /// The line the tables play after `first` (legal in `pos`), `first`
    /// included: at most `max_plies` moves.
    ///
    /// # Errors
    ///
    /// A table file that cannot be read.
    pub fn line_after(
        &self,
        pos: &Position,
        first: Move,
        max_plies: usize,
    ) -> Result<Vec<Move>, ProbeError> {
        let mut after = pos.clone();
        after.make_move(first);
        let rest = self.line(&after, max_plies.saturating_sub(1))?;
        Ok(std::iter::once(first)
            .chain(rest.into_iter().map(|(m, _)| m))
            .collect())
    }

    /// Orders `moves` of `pos`, all of one value: most material kept
    /// first, then the preferred, then by move. Returns each move's
    /// material and preference, in the new order.
    fn break_ties(
        &self,
        pos: &Position,
        moves: &mut [(Move, Value)],
    ) -> Result<Vec<(i32, i32)>, ProbeError> {
        if moves.len() < 2 {
            return Ok(vec![(0, 0); moves.len()]);
        }
        let mut keyed = Vec::with_capacity(moves.len());
        for &(mv, value) in moves.iter() {
            let material = self.material_kept(pos, mv)?;
            keyed.push(((material, self.preference.score(pos, mv)), (mv, value)));
        }
        keyed.sort_by(|a, b| b.0.cmp(&a.0).then(a.1 .0.cmp(&b.1 .0)));
        for (slot, (_, entry)) in moves.iter_mut().zip(&keyed) {
            *slot = *entry;
        }
        Ok(keyed.into_iter().map(|(key, _)| key).collect())
    }

    /// The material `mv` keeps for the side that plays it: what it
    /// captures, less the most the opponent can then capture without
    /// changing the result (a capture the tables count among the
    /// opponent's best moves), in [`piece_value`]s.
    fn material_kept(&self, pos: &Position, mv: Move) -> Result<i32, ProbeError> {
        let gained = captured_value(pos, mv);
        let mut after = pos.clone();
        after.make_move(mv);
        let Some(theirs) = self.value(&after)? else {
            return Ok(gained);
        };
        let mut given_up = 0;
        for &reply in after.legal_moves().iter() {
            let taken = captured_value(&after, reply);
            if taken <= given_up {
                continue;
            }
            after.make_move(reply);
            let kept = self.value(&after)?.map(Value::parent);
            after.unmake_move();
            if kept.is_some_and(|v| v.wdl() == theirs.wdl()) {
                given_up = taken;
            }
        }
        Ok(gained - given_up)
    }
}

/// The better of two values for the side to move.
fn better(a: Value, b: Value) -> Value {
    if b.better_than(a) {
        b
    } else {
        a
    }
}

/// A piece's worth, for the material a move keeps: the usual rough
/// values, in tenths of a pawn.
fn piece_value(role: Role) -> i32 {
    match role {
        Role::King => 0,
        Role::Advisor | Role::Elephant => 20,
        Role::Horse => 40,
        Role::Rook => 90,
        Role::Cannon => 45,
        Role::Pawn => 10,
    }
}

/// The worth of the piece `mv` captures in `pos` (0 for a quiet move).
fn captured_value(pos: &Position, mv: Move) -> i32 {
    pos.board()
        .piece_at(mv.to())
        .map_or(0, |piece| piece_value(piece.role))
}
