//! Move-ordering statistics learnt during the search: which quiet moves and
//! captures caused cutoffs before, alone and as replies to the moves before
//! them.

use xqcore::{Color, Move, Piece, Role, Square, NUM_SQUARES};

use super::params::SearchParams;
use crate::huge::HugeArray;

/// Histories saturate at this magnitude ("gravity" keeps them bounded).
pub const HISTORY_MAX: i32 = 16_384;

/// A piece arriving on a square: the index continuation histories use.
/// `NONE` marks a null move or no move.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub struct PieceTo(u16);

impl PieceTo {
    /// Index of "no move": continuation entries after it are shared and harmless.
    pub const NONE: PieceTo = PieceTo((14 * NUM_SQUARES) as u16);
    const COUNT: usize = 14 * NUM_SQUARES + 1;

    /// The piece `piece` arriving on `to`.
    #[cfg(test)]
    pub fn new(piece: Piece, to: Square) -> PieceTo {
        PieceTo((piece.index() * NUM_SQUARES + to.index()) as u16)
    }

    /// The piece of [`Piece::index`] `piece` arriving on `to`.
    #[inline]
    pub fn from_index(piece: usize, to: Square) -> PieceTo {
        PieceTo((piece * NUM_SQUARES + to.index()) as u16)
    }

    #[inline]
    fn index(self) -> usize {
        self.0 as usize
    }
}

/// Adds `bonus` to `entry`, pulling it back toward zero the fuller it is.
#[inline]
fn gravity(entry: &mut i16, bonus: i32) {
    let e = *entry as i32;
    let bonus = bonus.clamp(-HISTORY_MAX, HISTORY_MAX);
    *entry = (e + bonus - e * bonus.abs() / HISTORY_MAX) as i16;
}

/// The cutoff bonus for a search of `depth` plies.
#[inline]
pub fn bonus(depth: i32, p: &SearchParams) -> i32 {
    (p.bonus_quad * depth * depth + p.bonus_lin * depth).min(p.bonus_max)
}

/// All history tables of one search thread.
pub struct Histories {
    /// Quiet moves by side to move, from and to (the butterfly table).
    main: Vec<i16>,
    /// Captures by moving piece, target and captured role.
    capture: Vec<i16>,
    /// Quiet moves as replies to an earlier move: `[earlier][reply]` piece-to.
    continuation: HugeArray<i16>,
    /// The quiet move that last refuted each piece-to move.
    counter: Vec<Move>,
}

impl Default for Histories {
    fn default() -> Self {
        Histories {
            main: vec![0; 2 * NUM_SQUARES * NUM_SQUARES],
            capture: vec![0; PieceTo::COUNT * 7],
            // 3.2 MB read a row at a time all over: huge pages spare the TLB.
            continuation: HugeArray::new(PieceTo::COUNT * PieceTo::COUNT)
                .expect("memory for the continuation histories"),
            counter: vec![Move::NULL; PieceTo::COUNT],
        }
    }
}

/// [`Histories::main`] plus both [`Histories::continuation`]s of a quiet
/// move, for one side to move and one pair of earlier moves.
pub struct QuietScorer<'a> {
    /// The butterfly table of the side to move, by from and to.
    main: &'a [i16],
    /// The continuation rows of the two earlier moves, by piece-to.
    continuation: [&'a [i16]; 2],
}

impl<'a> QuietScorer<'a> {
    /// The entries of the three tables for the moves of `piece` from
    /// `from`, by target square: a move's score is the sum of its three.
    #[inline]
    pub fn rows(&self, piece: Piece, from: Square) -> [&'a [i16; NUM_SQUARES]; 3] {
        fn row(table: &[i16], i: usize) -> &[i16; NUM_SQUARES] {
            table[i * NUM_SQUARES..][..NUM_SQUARES]
                .try_into()
                .expect("a whole row")
        }
        let [c0, c1] = self.continuation;
        [
            row(self.main, from.index()),
            row(c0, piece.index()),
            row(c1, piece.index()),
        ]
    }

    /// The score of `m`, which moves a piece to make `moved` (the move
    /// picker reads the rows instead).
    #[cfg(test)]
    pub fn score(&self, m: Move, moved: PieceTo) -> i32 {
        let [c0, c1] = self.continuation;
        self.main[m.from().index() * NUM_SQUARES + m.to().index()] as i32
            + c0[moved.index()] as i32
            + c1[moved.index()] as i32
    }
}

#[inline]
fn butterfly(color: Color, m: Move) -> usize {
    (color.index() * NUM_SQUARES + m.from().index()) * NUM_SQUARES + m.to().index()
}

impl Histories {
    /// Empties every table.
    pub fn clear(&mut self) {
        self.main.fill(0);
        self.capture.fill(0);
        self.continuation.fill(0);
        self.counter.fill(Move::NULL);
    }

    /// The butterfly score of a quiet move.
    #[inline]
    pub fn main(&self, color: Color, m: Move) -> i32 {
        self.main[butterfly(color, m)] as i32
    }

    /// The continuation score of `reply` after `earlier`.
    #[inline]
    pub fn continuation(&self, earlier: PieceTo, reply: PieceTo) -> i32 {
        self.continuation[earlier.index() * PieceTo::COUNT + reply.index()] as i32
    }

    /// The capture score of `moved` taking a `victim` on its target (the
    /// move picker reads [`Histories::capture_row`] instead).
    #[cfg(test)]
    pub fn capture(&self, moved: PieceTo, victim: Role) -> i32 {
        self.capture[moved.index() * 7 + victim.index()] as i32
    }

    /// The capture scores of `piece`'s captures, at `to * 7 + victim`
    /// (looked up once for all the piece's captures).
    #[inline]
    pub fn capture_row(&self, piece: Piece) -> &[i16; NUM_SQUARES * 7] {
        let row = NUM_SQUARES * 7;
        self.capture[piece.index() * row..][..row]
            .try_into()
            .expect("a whole row")
    }

    /// The counter move stored for a reply to `earlier`.
    #[inline]
    pub fn counter(&self, earlier: PieceTo) -> Move {
        self.counter[earlier.index()]
    }

    /// The tables that score the quiet moves of `color` after the moves
    /// `earlier`, looked up once for a whole move list.
    #[inline]
    pub fn quiet_scorer(&self, color: Color, earlier: [PieceTo; 2]) -> QuietScorer<'_> {
        let squares = NUM_SQUARES * NUM_SQUARES;
        let row = |e: PieceTo| &self.continuation[e.index() * PieceTo::COUNT..][..PieceTo::COUNT];
        QuietScorer {
            main: &self.main[color.index() * squares..][..squares],
            continuation: [row(earlier[0]), row(earlier[1])],
        }
    }

    /// Rewards (positive bonus) or punishes a quiet move, in the butterfly
    /// table and as a reply to the moves one and two plies earlier.
    pub fn update_quiet(
        &mut self,
        color: Color,
        m: Move,
        moved: PieceTo,
        earlier: [PieceTo; 2],
        bonus: i32,
    ) {
        gravity(&mut self.main[butterfly(color, m)], bonus);
        for e in earlier {
            if e != PieceTo::NONE {
                let i = e.index() * PieceTo::COUNT + moved.index();
                gravity(&mut self.continuation[i], bonus);
            }
        }
    }

    /// Rewards or punishes a capture.
    pub fn update_capture(&mut self, moved: PieceTo, victim: Role, bonus: i32) {
        gravity(&mut self.capture[moved.index() * 7 + victim.index()], bonus);
    }

    /// Remembers `m` as the refutation of `earlier`.
    pub fn set_counter(&mut self, earlier: PieceTo, m: Move) {
        if earlier != PieceTo::NONE {
            self.counter[earlier.index()] = m;
        }
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn bonus_is_the_formula_before_it_was_tunable_at_its_old_values() {
        let p = SearchParams {
            bonus_quad: 16,
            bonus_lin: 32,
            bonus_max: 1_600,
            ..SearchParams::default()
        };
        for depth in 0..64 {
            assert_eq!(
                bonus(depth, &p),
                (16 * depth * depth + 32 * depth).min(1_600)
            );
        }
        let flatter = SearchParams { bonus_quad: 8, ..p };
        assert!(bonus(4, &flatter) < bonus(4, &p));
    }

    #[test]
    fn gravity_keeps_entries_bounded() {
        let mut e = 0i16;
        for _ in 0..1000 {
            gravity(&mut e, 1_600);
        }
        assert!(e as i32 <= HISTORY_MAX && e > 15_000, "{e}");
        for _ in 0..1000 {
            gravity(&mut e, -1_600);
        }
        assert!(e as i32 >= -HISTORY_MAX && e < -15_000, "{e}");
    }

    #[test]
    fn updates_reach_every_table() {
        let mut h = Histories::default();
        let m = Move::new(Square::parse("h2").unwrap(), Square::parse("e2").unwrap());
        let cannon = Piece::new(Color::Red, Role::Cannon);
        let moved = PieceTo::new(cannon, m.to());
        let before = PieceTo::new(Piece::new(Color::Black, Role::Horse), m.from());
        h.update_quiet(Color::Red, m, moved, [before, PieceTo::NONE], 500);
        assert_eq!(h.main(Color::Red, m), 500);
        assert_eq!(h.main(Color::Black, m), 0);
        assert_eq!(h.continuation(before, moved), 500);
        h.update_capture(moved, Role::Pawn, -300);
        assert_eq!(h.capture(moved, Role::Pawn), -300);
        let other = PieceTo::new(Piece::new(Color::Red, Role::Rook), m.from());
        for earlier in [
            [before, PieceTo::NONE],
            [PieceTo::NONE, before],
            [before, other],
        ] {
            for color in [Color::Red, Color::Black] {
                let want = h.main(color, m)
                    + h.continuation(earlier[0], moved)
                    + h.continuation(earlier[1], moved);
                assert_eq!(h.quiet_scorer(color, earlier).score(m, moved), want);
            }
        }
        h.set_counter(before, m);
        assert_eq!(h.counter(before), m);
        h.clear();
        assert_eq!(h.main(Color::Red, m), 0);
    }
}
