//! Attack sets as bitboards (bit `i` = square index `i`), for evaluation:
//! which squares each piece attacks or defends, given the placement.
//!
//! A rook attacks the empty squares it can slide to and the first piece each
//! way; a cannon attacks past its screen: the empty squares beyond it and the
//! piece it would capture. Blocked horse legs and elephant eyes are honoured.
//! Pieces of either colour count, so the sets serve for attack and defence.

use crate::board::{codes, Board, Code};
use crate::tables::{
    file_points, rank_points, Slide, ADVISOR_REACH, BIT, ELEPHANT_EYES, ELEPHANT_REACH,
    ELEPHANT_STEPS, FILE_OF, FILE_SLIDES, FILE_SPREAD, HORSE_ATTACKERS, HORSE_REACH, HORSE_STEPS,
    KING_REACH, LINES, PAWN_REACH, PAWN_TARGETS, RANK_OF, RANK_SLIDES,
};
use crate::types::{Color, Square, NUM_SQUARES};

/// A set of squares.
pub type Bitboard = u128;

/// All 90 squares.
pub const ALL_SQUARES: Bitboard = (1u128 << NUM_SQUARES) - 1;

/// Squares a horse attacks from each square, by which of its legs are
/// blocked: bit 0 the file to the left, bit 1 the rank below, bit 2 the file
/// to the right, bit 3 the rank above.
static HORSE_SETS: [[Bitboard; 16]; NUM_SQUARES] = {
    let mut t = [[0u128; 16]; NUM_SQUARES];
    let mut s = 0;
    while s < NUM_SQUARES {
        let mut blocked = 0;
        while blocked < 16 {
            let steps = &HORSE_STEPS[s];
            let mut i = 0;
            while i < steps.len as usize {
                let (to, leg) = steps.pairs[i];
                let leg = leg as usize;
                let side = if leg + 1 == s {
                    0
                } else if leg + 9 == s {
                    1
                } else if leg == s + 1 {
                    2
                } else {
                    3
                };
                if blocked & (1 << side) == 0 {
                    t[s][blocked] |= 1u128 << to;
                }
                i += 1;
            }
            blocked += 1;
        }
        s += 1;
    }
    t
};

/// Iterates the squares of a bitboard, lowest index first.
#[inline]
pub fn squares(bb: Bitboard) -> impl Iterator<Item = Square> {
    crate::board::bits(bb).map(Square::from_index_unchecked)
}

/// Calls `f` with the index of each square of `bb`, lowest first. The two
/// halves of the board are walked as 64-bit words in one loop, so that `f`
/// is inlined once, not once per half: the evaluation's piece loops take
/// half the code. An index of 90 or more ends the walk, which lets the
/// compiler see every index is below 90: the `*_at` functions need no
/// bounds checks.
#[inline(always)]
pub fn for_each_index(bb: Bitboard, mut f: impl FnMut(usize)) {
    let mut word = bb as u64;
    let mut high = (bb >> 64) as u64;
    let mut base = 0;
    loop {
        if word == 0 {
            if high == 0 {
                break;
            }
            (word, high, base) = (high, 0, 64);
        }
        let i = base + word.trailing_zeros() as usize;
        if i >= NUM_SQUARES {
            break;
        }
        f(i);
        word &= word - 1;
    }
}

/// The rank and file of a square index.
#[inline(always)]
fn lines(sq: usize) -> (usize, usize) {
    (RANK_OF[sq] as usize, FILE_OF[sq] as usize)
}

/// `1 << (9 * rank)`: a rank's bits times this lie on that rank.
static RANK_UNIT: [u128; 10] = {
    let mut t = [0u128; 10];
    let mut r = 0;
    while r < 10 {
        t[r] = 1u128 << (9 * r);
        r += 1;
    }
    t
};

/// `1 << file`, read from a table so that the compiler multiplies by it
/// (one widening product) instead of shifting 128 bits by a variable amount.
static FILE_UNIT: [u64; 9] = [1, 2, 4, 8, 16, 32, 64, 128, 256];

#[inline(always)]
fn spread(rank: usize, file: usize, rank_bits: u16, file_bits: u16) -> Bitboard {
    // Products instead of variable 128-bit shifts: a rank's bits times the
    // unit of the rank, a spread file times the unit of the file.
    ((rank_bits as u128) * RANK_UNIT[rank])
        | (FILE_SPREAD[file_bits as usize & 1023] * FILE_UNIT[file] as u128)
}

/// The square of index `sq` (below 90) alone.
#[inline(always)]
pub fn bit(sq: usize) -> Bitboard {
    BIT[sq]
}

/// The rank and file through each square, the square itself excluded.
#[inline]
pub fn lines_through(sq: Square) -> Bitboard {
    LINES[sq.index()]
}

/// Points strictly between two points of a rank or file, as line bits.
static BETWEEN: [[u16; 10]; 10] = {
    let mut t = [[0u16; 10]; 10];
    let mut a = 0;
    while a < 10 {
        let mut b = 0;
        while b < 10 {
            let (lo, hi) = if a < b { (a, b) } else { (b, a) };
            let mut x = lo + 1;
            while x < hi {
                t[a][b] |= 1 << x;
                x += 1;
            }
            b += 1;
        }
        a += 1;
    }
    t
};

impl Board {
    /// The slide table entries of the rank and the file through square index `sq`.
    #[inline(always)]
    fn slides(&self, sq: usize) -> (usize, usize, &'static Slide, &'static Slide) {
        let (r, f) = lines(sq);
        let rank = &RANK_SLIDES[f][self.ranks[r] as usize & 511];
        let file = &FILE_SLIDES[r][self.files[f] as usize & 1023];
        (r, f, rank, file)
    }

    /// How square index `a` lines up with square index `king` (both below
    /// 90, sharing a rank or a file): whether on the king's file, and the
    /// pieces strictly between ([`Board::pieces_between`]), from the rank
    /// and file occupancy. For the evaluation's king lines.
    #[inline(always)]
    pub fn king_line(&self, a: usize, king: usize) -> (bool, u32) {
        let (ar, af) = lines(a);
        let (kr, kf) = lines(king);
        let on_file = af == kf;
        let (occupied, x, y) = if on_file {
            (self.files[kf], ar, kr)
        } else {
            (self.ranks[kr], af, kf)
        };
        (on_file, (occupied & BETWEEN[x][y]).count_ones())
    }

    /// Squares a rook on `sq` attacks: empty squares in reach and the first piece each way.
    #[inline]
    pub fn rook_attacks(&self, sq: Square) -> Bitboard {
        self.rook_attacks_at(sq.index())
    }

    /// [`Board::rook_attacks`] by square index (below 90).
    #[inline(always)]
    pub fn rook_attacks_at(&self, sq: usize) -> Bitboard {
        let (r, f, rank, file) = self.slides(sq);
        spread(r, f, rank.quiet | rank.rook, file.quiet | file.rook)
    }

    /// Squares a cannon on `sq` attacks: past its screen, up to the piece it would capture.
    #[inline]
    pub fn cannon_attacks(&self, sq: Square) -> Bitboard {
        self.cannon_attacks_at(sq.index()).0
    }

    /// [`Board::cannon_attacks`] by square index (below 90), with the
    /// number of empty squares the cannon can move to.
    #[inline(always)]
    pub fn cannon_attacks_at(&self, sq: usize) -> (Bitboard, u32) {
        let (r, f, rank, file) = self.slides(sq);
        let quiets = rank.quiet.count_ones() + file.quiet.count_ones();
        (spread(r, f, rank.over, file.over), quiets)
    }

    /// Empty squares a rook or cannon on `sq` can move to.
    #[inline]
    pub fn slide_quiets(&self, sq: Square) -> Bitboard {
        let (r, f, rank, file) = self.slides(sq.index());
        spread(r, f, rank.quiet, file.quiet)
    }

    /// Squares a horse on `sq` attacks (its leg toward each one free).
    #[inline]
    pub fn horse_attacks(&self, sq: Square) -> Bitboard {
        self.horse_attacks_at(sq.index())
    }

    /// [`Board::horse_attacks`] by square index (below 90).
    #[inline(always)]
    pub fn horse_attacks_at(&self, sq: usize) -> Bitboard {
        let (r, f) = lines(sq);
        // Bits 0 and 2: the neighbours on the rank; bits 1 and 3: on the file.
        let rank = ((self.ranks[r] as u32) << 1 >> f) & 0b101;
        let file = ((self.files[f] as u32) << 1 >> r) & 0b101;
        HORSE_SETS[sq][(rank | file << 1) as usize]
    }

    /// Squares an elephant on `sq` attacks (its eye toward each one free).
    #[inline]
    pub fn elephant_attacks(&self, sq: Square) -> Bitboard {
        self.elephant_attacks_at(sq.index())
    }

    /// [`Board::elephant_attacks`] by square index (below 90).
    #[inline(always)]
    pub fn elephant_attacks_at(&self, sq: usize) -> Bitboard {
        if self.occupied() & ELEPHANT_EYES[sq] == 0 {
            return ELEPHANT_REACH[sq];
        }
        let mut bb = 0;
        for &(to, eye) in ELEPHANT_STEPS[sq].as_slice() {
            if self.squares[eye as usize] == 0 {
                bb |= BIT[to as usize];
            }
        }
        bb
    }
}

/// Squares a pawn of `color` on `sq` attacks.
#[inline]
pub fn pawn_attacks(color: Color, sq: Square) -> Bitboard {
    pawn_attacks_at(color, sq.index())
}

/// The squares on the given files and ranks.
const fn files_bb(files: [bool; 9], ranks: [bool; 10]) -> Bitboard {
    let mut bb = 0u128;
    let mut s = 0;
    while s < NUM_SQUARES {
        if files[s % 9] && ranks[s / 9] {
            bb |= 1u128 << s;
        }
        s += 1;
    }
    bb
}

/// Pawns that can step sideways (across the river) and are not on file `a`
/// or `i`, by colour: `[not on a, not on i]`.
const PAWN_SIDEWAYS: [[Bitboard; 2]; 2] = {
    let not_a = [false, true, true, true, true, true, true, true, true];
    let not_i = [true, true, true, true, true, true, true, true, false];
    let red = [
        false, false, false, false, false, true, true, true, true, true,
    ];
    let black = [
        true, true, true, true, true, false, false, false, false, false,
    ];
    [
        [files_bb(not_a, red), files_bb(not_i, red)],
        [files_bb(not_a, black), files_bb(not_i, black)],
    ]
};

/// Squares attacked by the pawns of `color` standing on `pawns`.
#[inline(always)]
pub fn pawns_attacks(color: Color, pawns: Bitboard) -> Bitboard {
    let [not_a, not_i] = PAWN_SIDEWAYS[color.index()];
    let sideways = ((pawns & not_a) >> 1) | ((pawns & not_i) << 1);
    let forward = match color {
        Color::Red => (pawns << 9) & ALL_SQUARES,
        Color::Black => pawns >> 9,
    };
    forward | sideways
}

/// [`pawn_attacks`] by square index (below 90).
#[inline(always)]
pub fn pawn_attacks_at(color: Color, sq: usize) -> Bitboard {
    PAWN_TARGETS[color.index()][sq]
}

/// Squares an advisor on `sq` attacks.
#[inline]
pub fn advisor_attacks(sq: Square) -> Bitboard {
    advisor_attacks_at(sq.index())
}

/// [`advisor_attacks`] by square index (below 90).
#[inline(always)]
pub fn advisor_attacks_at(sq: usize) -> Bitboard {
    ADVISOR_REACH[sq]
}

/// The centre and the four corners of `color`'s palace: the advisor points.
const fn advisor_points(color: Color) -> (Bitboard, Bitboard) {
    let (centre, corner) = match color {
        Color::Red => (13, 3),
        Color::Black => (76, 66),
    };
    let corners =
        1u128 << corner | 1u128 << (corner + 2) | 1u128 << (corner + 18) | 1u128 << (corner + 20);
    (1u128 << centre, corners)
}

/// Squares attacked by the advisors of `color` standing on `advisors`: on
/// the palace points, the centre attacks the corners and each corner the
/// centre, so no square needs looking at one by one.
#[inline(always)]
pub fn advisors_attacks(color: Color, advisors: Bitboard) -> Bitboard {
    let (centre, corners) = advisor_points(color);
    if advisors & !(centre | corners) != 0 {
        // Off the points (a bare board, not a position): square by square.
        let mut bb = 0;
        for_each_index(advisors, |sq| bb |= ADVISOR_REACH[sq]);
        return bb;
    }
    let from_corners = if advisors & corners != 0 { centre } else { 0 };
    let from_centre = if advisors & centre != 0 { corners } else { 0 };
    from_corners | from_centre
}

/// The seven elephant points of `color`'s half.
const fn elephant_points(color: Color) -> Bitboard {
    let mut bb = 0u128;
    let mut s = 0;
    while s < NUM_SQUARES {
        let (file, rank) = (s % 9, s / 9);
        let own_rank = match color {
            Color::Red => rank,
            Color::Black => 9 - rank,
        };
        if own_rank <= 4 && own_rank % 2 == 0 && file % 2 == 0 && (own_rank / 2 + file / 2) % 2 == 1
        {
            bb |= 1u128 << s;
        }
        s += 1;
    }
    bb
}

/// [`elephant_points`] by colour, computed at compile time.
const ELEPHANT_POINTS: [Bitboard; 2] = [elephant_points(Color::Red), elephant_points(Color::Black)];

/// Squares attacked by the elephants of `color` standing on `elephants`,
/// given the occupied squares. On the points (always, in a position) the
/// whole set moves at once, diagonal by diagonal, with no loop to
/// mispredict: a point steps over a free eye onto another point. A step
/// that wraps round the board's edge or leaves the half lands off the
/// points and is dropped, so no edge masks are needed. The points of a half
/// fit a 64-bit word.
#[inline(always)]
pub fn elephants_attacks(color: Color, elephants: Bitboard, occupied: Bitboard) -> Bitboard {
    let points = ELEPHANT_POINTS[color.index()];
    if elephants & !points != 0 {
        // Off the points (a bare board, not a position): square by square.
        let board_free = !occupied;
        let mut bb = 0;
        for_each_index(elephants, |sq| {
            for &(to, eye) in ELEPHANT_STEPS[sq].as_slice() {
                if board_free & BIT[eye as usize] != 0 {
                    bb |= BIT[to as usize];
                }
            }
        });
        return bb;
    }
    // Red's half is squares 0..45, Black's 45..90.
    let base = match color {
        Color::Red => 0,
        Color::Black => 45,
    };
    let (points, elephants, free) = (
        (points >> base) as u64,
        (elephants >> base) as u64,
        !(occupied >> base) as u64,
    );
    // Up-right +10, up-left +8, down-right -8, down-left -10.
    let up = |d: u32| ((elephants << d) & free) << d;
    let down = |d: u32| ((elephants >> d) & free) >> d;
    let targets = (up(10) | up(8) | down(8) | down(10)) & points;
    (targets as u128) << base
}

/// Squares a king on `sq` attacks (its palace steps).
#[inline]
pub fn king_attacks(sq: Square) -> Bitboard {
    KING_REACH[sq.index()]
}

/// The nine squares of `color`'s palace.
pub const fn palace(color: Color) -> Bitboard {
    let mut bb = 0u128;
    let mut r = 0;
    while r < 3 {
        let rank = match color {
            Color::Red => r,
            Color::Black => 9 - r,
        };
        let mut f = 3;
        while f <= 5 {
            bb |= 1u128 << (rank * 9 + f);
            f += 1;
        }
        r += 1;
    }
    bb
}

/// Whether `target` is attacked by `by`'s rooks, cannons, horses, pawns or king
/// (the king only along an open file: the facing rule). Advisors and elephants
/// never reach the other side's palace, so they are not looked at: this is
/// meant for king squares.
#[inline]
pub(crate) fn square_attacked(board: &Board, target: usize, by: Color) -> bool {
    let [king, _, _, horse, rook, cannon, pawn] = codes(by);
    let pieces = |c: Code| board.by_piece[c as usize - 1];
    if pieces(pawn) & PAWN_REACH[by.index()][target] != 0 {
        return true;
    }
    let horses = pieces(horse);
    if horses & HORSE_REACH[target] != 0 {
        let sq = &board.squares;
        for &(h, leg) in HORSE_ATTACKERS[target].as_slice() {
            if horses & BIT[h as usize] != 0 && sq[leg as usize] == 0 {
                return true;
            }
        }
    }
    let (r, f) = (RANK_OF[target] as usize, FILE_OF[target] as usize);
    let rank = &RANK_SLIDES[f][board.ranks[r] as usize];
    let file = &FILE_SLIDES[r][board.files[f] as usize];
    let rooks = pieces(rook);
    (rank_points(rank.rook, r) & rooks)
        | (file_points(file.rook, f) & (rooks | pieces(king)))
        | ((rank_points(rank.cannon, r) | file_points(file.cannon, f)) & pieces(cannon))
        != 0
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::tables::PAWN_STEPS;
    use crate::Position;

    fn sq(name: &str) -> Square {
        Square::parse(name).unwrap()
    }

    fn set(names: &[&str]) -> Bitboard {
        names.iter().fold(0, |bb, n| bb | 1u128 << sq(n).index())
    }

    #[test]
    fn slider_attacks_stop_at_pieces() {
        let pos = Position::start();
        let b = pos.board();
        // The red rook on a0 sees a1, a2 and the pawn on a3; b0 holds the horse.
        assert_eq!(b.rook_attacks(sq("a0")), set(&["a1", "a2", "a3", "b0"]));
        // The red cannon on b2: its screen upward is the black cannon on b7;
        // past it lie b8 and the horse on b9.
        let up = set(&["b8", "b9"]);
        assert_eq!(b.cannon_attacks(sq("b2")) & up, up);
        assert_eq!(b.cannon_attacks(sq("b2")) & set(&["b3", "b6"]), 0);
        assert_eq!(b.slide_quiets(sq("b2")).count_ones(), 11);
    }

    #[test]
    fn table_attacks_agree_with_the_step_lists() {
        for fen in [
            "rnbakabnr/9/1c5c1/p1p1p1p1p/9/9/P1P1P1P1P/1C5C1/9/RNBAKABNR w",
            "r1ba1a3/4kn3/2n1b4/pNp1p1p1p/4c4/6P2/P1P2R2P/1CcC5/9/2BAKAB2 w",
            "r2akab1r/3n5/4b3n/p1p1pRp1p/9/2P3P2/P3P3c/N2C3C1/4A4/1RBAK1B2 w",
        ] {
            let pos = Position::from_fen(fen).unwrap();
            let b = pos.board();
            let mut seen = 0;
            for i in 0..NUM_SQUARES {
                let free = |s: u8| b.squares[s as usize] == 0;
                let horse = HORSE_STEPS[i]
                    .as_slice()
                    .iter()
                    .filter(|&&(_, leg)| free(leg))
                    .fold(0, |bb, &(to, _)| bb | BIT[to as usize]);
                assert_eq!(b.horse_attacks_at(i), horse, "{fen} {i}");
                let elephant = ELEPHANT_STEPS[i]
                    .as_slice()
                    .iter()
                    .filter(|&&(_, eye)| free(eye))
                    .fold(0, |bb, &(to, _)| bb | BIT[to as usize]);
                assert_eq!(b.elephant_attacks_at(i), elephant, "{fen} {i}");
                for color in Color::ALL {
                    let pawn = PAWN_STEPS[color.index()][i]
                        .as_slice()
                        .iter()
                        .fold(0, |bb, &to| bb | BIT[to as usize]);
                    assert_eq!(pawn_attacks_at(color, i), pawn);
                    assert_eq!(pawns_attacks(color, BIT[i]), pawn);
                }
                let (cannon, quiets) = b.cannon_attacks_at(i);
                assert_eq!(cannon, b.cannon_attacks(Square::from_index_unchecked(i)));
                let square = Square::from_index_unchecked(i);
                assert_eq!(quiets, b.slide_quiets(square).count_ones());
                assert_eq!(quiets, b.slide_squares(square));
            }
            for (i, &bit_i) in BIT.iter().enumerate() {
                for (k, &line) in LINES.iter().enumerate() {
                    if line & bit_i != 0 {
                        let (a, king) = (
                            Square::from_index_unchecked(i),
                            Square::from_index_unchecked(k),
                        );
                        let on_file = a.file() == king.file();
                        assert_eq!(b.king_line(i, k), (on_file, b.pieces_between(a, king)));
                    }
                }
            }
            for_each_index(b.occupied(), |i| seen |= BIT[i]);
            assert_eq!(seen, b.occupied());
        }
    }

    /// A xorshift generator of test inputs.
    fn xorshift(mut state: u64) -> impl FnMut() -> u64 {
        move || {
            state ^= state << 13;
            state ^= state >> 7;
            state ^= state << 17;
            state
        }
    }

    #[test]
    fn for_each_index_lists_the_squares_in_order() {
        let mut next = xorshift(0x9e37_79b9_7f4a_7c15);
        for _ in 0..2000 {
            // Sparse and dense sets, some with bits past the last square.
            let (a, b, c) = (next(), next(), next());
            let bb = ((a as u128) << 64 | b as u128) & (c as u128 | (c as u128) << 64);
            let mut got = Vec::new();
            for_each_index(bb, |i| got.push(i));
            let want: Vec<usize> = crate::board::bits(bb & ALL_SQUARES).collect();
            assert_eq!(got, want, "{bb:#x}");
        }
        for bb in [0, 1, 1 << 63, 1 << 64, 1 << 89, ALL_SQUARES, !0] {
            let mut got = Vec::new();
            for_each_index(bb, |i| got.push(i));
            assert_eq!(
                got,
                crate::board::bits(bb & ALL_SQUARES).collect::<Vec<_>>()
            );
        }
    }

    #[test]
    fn advisors_attack_as_one_by_one() {
        for color in Color::ALL {
            for advisors in [0, palace(color), ALL_SQUARES] {
                let mut want = 0;
                for_each_index(advisors, |sq| want |= advisor_attacks_at(sq));
                assert_eq!(advisors_attacks(color, advisors), want);
            }
            let (centre, corners) = advisor_points(color);
            let points = centre | corners;
            assert_eq!(points & palace(color), points);
            // Every subset of the five points.
            let list: Vec<usize> = (0..NUM_SQUARES).filter(|&i| points & BIT[i] != 0).collect();
            for subset in 0..32 {
                let advisors = list
                    .iter()
                    .enumerate()
                    .filter(|&(k, _)| subset & (1 << k) != 0)
                    .fold(0, |bb, (_, &i)| bb | BIT[i]);
                let mut want = 0;
                for_each_index(advisors, |sq| want |= advisor_attacks_at(sq));
                assert_eq!(
                    advisors_attacks(color, advisors),
                    want,
                    "{color:?} {subset}"
                );
            }
        }
    }

    #[test]
    fn elephants_attack_as_one_by_one() {
        let mut next = xorshift(0x9e37_79b9_7f4a_7c15);
        for color in Color::ALL {
            let points = ELEPHANT_POINTS[color.index()];
            assert_eq!(points.count_ones(), 7);
            let list: Vec<usize> = (0..NUM_SQUARES).filter(|&i| points & BIT[i] != 0).collect();
            for _ in 0..500 {
                let occupied = ((next() as u128) << 64 | next() as u128) & ALL_SQUARES;
                let mut board = Board::empty();
                for_each_index(occupied, |i| board.toggle(i, 1));
                // Every subset of the points, and sets off the points.
                let subset = next() as usize;
                let on_points = list
                    .iter()
                    .enumerate()
                    .filter(|&(k, _)| subset & (1 << k) != 0)
                    .fold(0, |bb, (_, &i)| bb | BIT[i]);
                let anywhere = (next() as u128) << 26 & ALL_SQUARES;
                for elephants in [on_points, anywhere, on_points | BIT[40]] {
                    let mut want = 0;
                    for_each_index(elephants, |sq| want |= board.elephant_attacks_at(sq));
                    let got = elephants_attacks(color, elephants, board.occupied());
                    assert_eq!(got, want, "{color:?} {elephants:#x} {occupied:#x}");
                }
            }
        }
    }

    #[test]
    fn blocked_steps_are_not_attacks() {
        let pos = Position::start();
        let b = pos.board();
        // The horse on b0: its leg b1 is free, c0 holds the elephant.
        assert_eq!(b.horse_attacks(sq("b0")), set(&["a2", "c2"]));
        assert_eq!(b.elephant_attacks(sq("c0")), set(&["a2", "e2"]));
        assert_eq!(pawn_attacks(Color::Red, sq("e5")), set(&["e6", "d5", "f5"]));
        assert_eq!(palace(Color::Black).count_ones(), 9);
        assert_eq!(advisor_attacks(sq("e1")).count_ones(), 4);
        assert_eq!(king_attacks(sq("e0")), set(&["d0", "f0", "e1"]));
    }
}
