//! Move and attack tables, computed at compile time.
//!
//! Every table is indexed by square index (`rank * 9 + file`). Short lists are
//! stored as a length plus a fixed array, so the move generator reads them without
//! allocation or bounds surprises.

use crate::types::NUM_SQUARES;

/// A short list of squares (up to `N`).
#[derive(Clone, Copy)]
pub(crate) struct SqList<const N: usize> {
    pub len: u8,
    pub sq: [u8; N],
}

impl<const N: usize> SqList<N> {
    const EMPTY: Self = SqList { len: 0, sq: [0; N] };

    const fn push(mut self, s: u8) -> Self {
        self.sq[self.len as usize] = s;
        self.len += 1;
        self
    }

    /// The stored squares.
    #[inline]
    pub fn as_slice(&self) -> &[u8] {
        &self.sq[..self.len as usize]
    }
}

/// A short list of (target, blocker) pairs: a horse destination with its leg, or
/// an elephant destination with its eye.
#[derive(Clone, Copy)]
pub(crate) struct PairList<const N: usize> {
    pub len: u8,
    pub pairs: [(u8, u8); N],
}

impl<const N: usize> PairList<N> {
    const EMPTY: Self = PairList {
        len: 0,
        pairs: [(0, 0); N],
    };

    const fn push(mut self, target: u8, blocker: u8) -> Self {
        self.pairs[self.len as usize] = (target, blocker);
        self.len += 1;
        self
    }

    /// The stored pairs.
    #[inline]
    pub fn as_slice(&self) -> &[(u8, u8)] {
        &self.pairs[..self.len as usize]
    }
}

const fn square_at(file: i32, rank: i32) -> Option<u8> {
    if file >= 0 && file < 9 && rank >= 0 && rank < 10 {
        Some((rank * 9 + file) as u8)
    } else {
        None
    }
}

const fn in_palace(file: i32, rank: i32) -> bool {
    file >= 3 && file <= 5 && (rank <= 2 || rank >= 7) && rank >= 0 && rank <= 9
}

/// Whether two ranks lie in the same palace or on the same side of the river.
const fn same_half(r1: i32, r2: i32) -> bool {
    (r1 <= 4) == (r2 <= 4)
}

const ORTHOGONAL: [(i32, i32); 4] = [(0, 1), (0, -1), (1, 0), (-1, 0)];
const DIAGONAL: [(i32, i32); 4] = [(1, 1), (1, -1), (-1, 1), (-1, -1)];
const HORSE: [(i32, i32); 8] = [
    (1, 2),
    (-1, 2),
    (1, -2),
    (-1, -2),
    (2, 1),
    (2, -1),
    (-2, 1),
    (-2, -1),
];

const fn signum(x: i32) -> i32 {
    if x > 0 {
        1
    } else if x < 0 {
        -1
    } else {
        0
    }
}

/// King steps: one orthogonal step, staying in the palace the king stands in.
pub(crate) static KING_STEPS: [SqList<4>; NUM_SQUARES] = {
    let mut t = [SqList::EMPTY; NUM_SQUARES];
    let mut s = 0;
    while s < NUM_SQUARES {
        let (f, r) = ((s % 9) as i32, (s / 9) as i32);
        if in_palace(f, r) {
            let mut d = 0;
            while d < 4 {
                let (nf, nr) = (f + ORTHOGONAL[d].0, r + ORTHOGONAL[d].1);
                if in_palace(nf, nr) && same_half(r, nr) {
                    if let Some(to) = square_at(nf, nr) {
                        t[s] = t[s].push(to);
                    }
                }
                d += 1;
            }
        }
        s += 1;
    }
    t
};

/// Advisor steps: one diagonal step, staying in the palace.
pub(crate) static ADVISOR_STEPS: [SqList<4>; NUM_SQUARES] = {
    let mut t = [SqList::EMPTY; NUM_SQUARES];
    let mut s = 0;
    while s < NUM_SQUARES {
        let (f, r) = ((s % 9) as i32, (s / 9) as i32);
        if in_palace(f, r) {
            let mut d = 0;
            while d < 4 {
                let (nf, nr) = (f + DIAGONAL[d].0, r + DIAGONAL[d].1);
                if in_palace(nf, nr) && same_half(r, nr) {
                    if let Some(to) = square_at(nf, nr) {
                        t[s] = t[s].push(to);
                    }
                }
                d += 1;
            }
        }
        s += 1;
    }
    t
};

/// Elephant steps: two diagonal steps (destination, eye), never crossing the river.
pub(crate) static ELEPHANT_STEPS: [PairList<4>; NUM_SQUARES] = {
    let mut t = [PairList::EMPTY; NUM_SQUARES];
    let mut s = 0;
    while s < NUM_SQUARES {
        let (f, r) = ((s % 9) as i32, (s / 9) as i32);
        let mut d = 0;
        while d < 4 {
            let (df, dr) = DIAGONAL[d];
            if same_half(r, r + 2 * dr) {
                if let (Some(to), Some(eye)) =
                    (square_at(f + 2 * df, r + 2 * dr), square_at(f + df, r + dr))
                {
                    t[s] = t[s].push(to, eye);
                }
            }
            d += 1;
        }
        s += 1;
    }
    t
};

/// Horse steps: (destination, leg). The leg is the orthogonal neighbour in the
/// direction of the long side of the move.
pub(crate) static HORSE_STEPS: [PairList<8>; NUM_SQUARES] = {
    let mut t = [PairList::EMPTY; NUM_SQUARES];
    let mut s = 0;
    while s < NUM_SQUARES {
        let (f, r) = ((s % 9) as i32, (s / 9) as i32);
        let mut d = 0;
        while d < 8 {
            let (df, dr) = HORSE[d];
            let (lf, lr) = if df.abs() == 2 {
                (f + signum(df), r)
            } else {
                (f, r + signum(dr))
            };
            if let (Some(to), Some(leg)) = (square_at(f + df, r + dr), square_at(lf, lr)) {
                t[s] = t[s].push(to, leg);
            }
            d += 1;
        }
        s += 1;
    }
    t
};

/// Horses that attack a square: (horse square, leg). The leg of a horse that
/// attacks `s` is always a diagonal neighbour of `s`.
pub(crate) static HORSE_ATTACKERS: [PairList<8>; NUM_SQUARES] = {
    let mut t = [PairList::EMPTY; NUM_SQUARES];
    let mut s = 0;
    while s < NUM_SQUARES {
        let (f, r) = ((s % 9) as i32, (s / 9) as i32);
        let mut d = 0;
        while d < 8 {
            let (df, dr) = HORSE[d];
            if let (Some(from), Some(leg)) = (
                square_at(f + df, r + dr),
                square_at(f + signum(df), r + signum(dr)),
            ) {
                t[s] = t[s].push(from, leg);
            }
            d += 1;
        }
        s += 1;
    }
    t
};

const fn pawn_forward(color: usize) -> i32 {
    if color == 0 {
        1
    } else {
        -1
    }
}

const fn crossed_river(color: usize, rank: i32) -> bool {
    if color == 0 {
        rank >= 5
    } else {
        rank <= 4
    }
}

/// Pawn steps by colour: forward, and sideways once across the river.
pub(crate) static PAWN_STEPS: [[SqList<3>; NUM_SQUARES]; 2] = pawn_steps();

const fn pawn_steps() -> [[SqList<3>; NUM_SQUARES]; 2] {
    let mut t = [[SqList::EMPTY; NUM_SQUARES]; 2];
    let mut c = 0;
    while c < 2 {
        let mut s = 0;
        while s < NUM_SQUARES {
            let (f, r) = ((s % 9) as i32, (s / 9) as i32);
            if let Some(to) = square_at(f, r + pawn_forward(c)) {
                t[c][s] = t[c][s].push(to);
            }
            if crossed_river(c, r) {
                if let Some(to) = square_at(f - 1, r) {
                    t[c][s] = t[c][s].push(to);
                }
                if let Some(to) = square_at(f + 1, r) {
                    t[c][s] = t[c][s].push(to);
                }
            }
            s += 1;
        }
        c += 1;
    }
    t
}

/// Squares from which a pawn of the given colour attacks a square.
pub(crate) static PAWN_ATTACKERS: [[SqList<3>; NUM_SQUARES]; 2] = {
    let all_steps = pawn_steps();
    let mut t = [[SqList::EMPTY; NUM_SQUARES]; 2];
    let mut c = 0;
    while c < 2 {
        let mut from = 0;
        while from < NUM_SQUARES {
            let steps = all_steps[c][from];
            let mut i = 0;
            while i < steps.len as usize {
                let to = steps.sq[i] as usize;
                t[c][to] = t[c][to].push(from as u8);
                i += 1;
            }
            from += 1;
        }
        c += 1;
    }
    t
};

/// What a rook or cannon at one point of a line (a rank of 9 points or a file
/// of 10) can do, given the line's occupancy bits. Bit `i` stands for point
/// `i` of the line (the file on a rank, the rank on a file).
#[derive(Clone, Copy)]
pub(crate) struct Slide {
    /// Empty points reachable without jumping: the quiet moves of both.
    pub quiet: u16,
    /// The first occupied point each way: rook captures, and the pieces that
    /// see the point directly (a rook or the facing king attacks from there).
    pub rook: u16,
    /// The second occupied point each way: cannon captures over a screen.
    pub cannon: u16,
    /// The points a cannon controls: past the first occupied point (the
    /// screen) up to and including the second.
    pub over: u16,
}

const fn slides<const OCC: usize, const LEN: usize>() -> [[Slide; OCC]; LEN] {
    let len = LEN;
    let empty = Slide {
        quiet: 0,
        rook: 0,
        cannon: 0,
        over: 0,
    };
    let mut t = [[empty; OCC]; LEN];
    let mut p = 0;
    while p < len {
        let mut occ = 0;
        while occ < OCC {
            let mut s = empty;
            let mut dir = 0;
            while dir < 2 {
                let step: i32 = if dir == 0 { -1 } else { 1 };
                let mut i = p as i32 + step;
                let mut seen = 0;
                while i >= 0 && i < len as i32 && seen < 2 {
                    let bit = 1u16 << i;
                    if occ & (1 << i) == 0 {
                        if seen == 0 {
                            s.quiet |= bit;
                        } else {
                            s.over |= bit;
                        }
                    } else {
                        if seen == 1 {
                            s.over |= bit;
                        }
                        if seen == 0 {
                            s.rook |= bit;
                        } else {
                            s.cannon |= bit;
                        }
                        seen += 1;
                    }
                    i += step;
                }
                dir += 1;
            }
            t[p][occ] = s;
            occ += 1;
        }
        p += 1;
    }
    t
}

/// Slides along a rank, by file (0..9) and the rank's occupancy (9 bits).
pub(crate) static RANK_SLIDES: [[Slide; 512]; 9] = slides::<512, 9>();

/// Slides along a file, by rank (0..10) and the file's occupancy (10 bits).
pub(crate) static FILE_SLIDES: [[Slide; 1024]; 10] = slides::<1024, 10>();

/// The bitboard of each square alone (a table load is cheaper than a
/// variable 128-bit shift).
pub(crate) static BIT: [u128; NUM_SQUARES] = {
    let mut t = [0u128; NUM_SQUARES];
    let mut s = 0;
    while s < NUM_SQUARES {
        t[s] = 1u128 << s;
        s += 1;
    }
    t
};

/// The rank (0..10) of each square index.
pub(crate) static RANK_OF: [u8; NUM_SQUARES] = {
    let mut t = [0u8; NUM_SQUARES];
    let mut s = 0;
    while s < NUM_SQUARES {
        t[s] = (s / 9) as u8;
        s += 1;
    }
    t
};

/// The file (0..9) of each square index.
pub(crate) static FILE_OF: [u8; NUM_SQUARES] = {
    let mut t = [0u8; NUM_SQUARES];
    let mut s = 0;
    while s < NUM_SQUARES {
        t[s] = (s % 9) as u8;
        s += 1;
    }
    t
};

/// Squares whose change of occupancy can alter whether a king on `s` is attacked
/// by a rook, cannon, horse or the other king: its rank, its file and its four
/// diagonal neighbours (horse legs). Used to skip the full legality test for
/// most moves.
pub(crate) static KING_SENSITIVE: [u128; NUM_SQUARES] = {
    let all_lines = lines();
    let mut t = [0u128; NUM_SQUARES];
    let mut s = 0;
    while s < NUM_SQUARES {
        t[s] = all_lines[s];
        let (f, r) = ((s % 9) as i32, (s / 9) as i32);
        let mut d = 0;
        while d < 4 {
            if let Some(x) = square_at(f + DIAGONAL[d].0, r + DIAGONAL[d].1) {
                t[s] |= 1u128 << x;
            }
            d += 1;
        }
        s += 1;
    }
    t
};

/// The squares of each rank, as bitboards.
pub(crate) static RANK_BB: [u128; 10] = {
    let mut t = [0u128; 10];
    let mut s = 0;
    while s < NUM_SQUARES {
        t[s / 9] |= 1u128 << s;
        s += 1;
    }
    t
};

/// The squares of each file, as bitboards.
pub(crate) static FILE_BB: [u128; 9] = {
    let mut t = [0u128; 9];
    let mut s = 0;
    while s < NUM_SQUARES {
        t[s % 9] |= 1u128 << s;
        s += 1;
    }
    t
};

const fn file_mask(file: usize) -> u128 {
    let mut m = 0u128;
    let mut s = file;
    while s < NUM_SQUARES {
        m |= 1u128 << s;
        s += 9;
    }
    m
}

/// The squares of file a (the leftmost, seen from Red).
pub(crate) const FILE_BB_A: u128 = file_mask(0);

/// The squares of file i (the rightmost, seen from Red).
pub(crate) const FILE_BB_I: u128 = file_mask(8);

/// Red's half of the board: ranks 0 to 4.
pub(crate) const RED_HALF: u128 = (1u128 << 45) - 1;

/// Black's half of the board: ranks 5 to 9.
pub(crate) const BLACK_HALF: u128 = ((1u128 << NUM_SQUARES) - 1) & !RED_HALF;

/// Squares from which a horse could attack each square (legs aside).
pub(crate) static HORSE_REACH: [u128; NUM_SQUARES] = {
    let mut t = [0u128; NUM_SQUARES];
    let mut s = 0;
    while s < NUM_SQUARES {
        let list = HORSE_ATTACKERS[s];
        let mut i = 0;
        while i < list.len as usize {
            t[s] |= 1u128 << list.pairs[i].0;
            i += 1;
        }
        s += 1;
    }
    t
};

/// The squares of a short list, as one bitboard per square.
const fn list_sets<const N: usize>(lists: &[SqList<N>; NUM_SQUARES]) -> [u128; NUM_SQUARES] {
    let mut t = [0u128; NUM_SQUARES];
    let mut s = 0;
    while s < NUM_SQUARES {
        let mut i = 0;
        while i < lists[s].len as usize {
            t[s] |= 1u128 << lists[s].sq[i];
            i += 1;
        }
        s += 1;
    }
    t
}

/// One square of each pair of a pair list (`second`: the blocking square
/// rather than the target), as one bitboard per square.
const fn pair_sets<const N: usize>(
    lists: &[PairList<N>; NUM_SQUARES],
    second: bool,
) -> [u128; NUM_SQUARES] {
    let mut t = [0u128; NUM_SQUARES];
    let mut s = 0;
    while s < NUM_SQUARES {
        let mut i = 0;
        while i < lists[s].len as usize {
            let (to, block) = lists[s].pairs[i];
            t[s] |= 1u128 << if second { block } else { to };
            i += 1;
        }
        s += 1;
    }
    t
}

/// Squares from which a pawn of each colour attacks each square.
pub(crate) static PAWN_REACH: [[u128; NUM_SQUARES]; 2] =
    [list_sets(&PAWN_ATTACKERS[0]), list_sets(&PAWN_ATTACKERS[1])];

/// Squares a pawn of each colour steps to from each square (and attacks).
pub(crate) static PAWN_TARGETS: [[u128; NUM_SQUARES]; 2] =
    [list_sets(&PAWN_STEPS[0]), list_sets(&PAWN_STEPS[1])];

/// Squares an advisor steps to from each square (and attacks it from).
pub(crate) static ADVISOR_REACH: [u128; NUM_SQUARES] = list_sets(&ADVISOR_STEPS);

/// Squares a king steps to from each square (and attacks it from).
pub(crate) static KING_REACH: [u128; NUM_SQUARES] = list_sets(&KING_STEPS);

/// Squares an elephant reaches from each square, eyes aside.
pub(crate) static ELEPHANT_REACH: [u128; NUM_SQUARES] = pair_sets(&ELEPHANT_STEPS, false);

/// The eyes of an elephant on each square: the squares that can block it.
pub(crate) static ELEPHANT_EYES: [u128; NUM_SQUARES] = pair_sets(&ELEPHANT_STEPS, true);

/// The leg of a horse `d` squares away from its target, as an offset from
/// the target, at `d + 19`: the target's diagonal neighbour toward the horse.
static HORSE_LEG: [i8; 39] = {
    let mut t = [0; 39];
    let mut i = 0;
    let steps = HORSE;
    while i < 8 {
        let (df, dr) = steps[i];
        t[(df + 9 * dr + 19) as usize] = (df.signum() + 9 * dr.signum()) as i8;
        i += 1;
    }
    t
};

/// The leg of a horse on `horse` that attacks (or moves to) `target`.
#[inline]
pub(crate) fn horse_leg(horse: usize, target: usize) -> usize {
    (target as isize + HORSE_LEG[horse + 19 - target] as isize) as usize
}

/// The bitboard of the points `points` of rank `rank` (bit `file` for each file).
#[inline]
pub(crate) fn rank_points(points: u16, rank: usize) -> u128 {
    (points as u128) << (rank * 9)
}

/// The bitboard of the points `points` of file `file` (bit `rank` for each rank).
#[inline]
pub(crate) fn file_points(points: u16, file: usize) -> u128 {
    FILE_SPREAD[points as usize & 1023] << file
}

/// Spreads a file's 10 rank bits over the squares of file `a`.
pub(crate) static FILE_SPREAD: [u128; 1024] = {
    let mut t = [0u128; 1024];
    let mut m = 0;
    while m < 1024 {
        let mut r = 0;
        while r < 10 {
            if m & (1 << r) != 0 {
                t[m] |= 1u128 << (r * 9);
            }
            r += 1;
        }
        m += 1;
    }
    t
};

/// Squares from which a piece of each colour other than a rook or cannon
/// could attack each square: the union of the pawn, advisor, elephant,
/// horse and king reaches.
pub(crate) static STEP_REACH: [[u128; NUM_SQUARES]; 2] = {
    let mut t = [[0u128; NUM_SQUARES]; 2];
    let mut c = 0;
    while c < 2 {
        let mut s = 0;
        while s < NUM_SQUARES {
            t[c][s] = PAWN_REACH[c][s]
                | ADVISOR_REACH[s]
                | ELEPHANT_REACH[s]
                | HORSE_REACH[s]
                | KING_REACH[s];
            s += 1;
        }
        c += 1;
    }
    t
};

/// For a king of one colour on each square, the squares where a piece of
/// the other colour can stand and attack it, or stand on its lines: its
/// rank and file, the horse squares around it and the pawn squares next to
/// it. Indexed by the attacking colour. A move of that colour that neither
/// lands here nor leaves [`KING_SENSITIVE`] cannot check the king.
pub(crate) static CHECK_LANDINGS: [[u128; NUM_SQUARES]; 2] = {
    let all_lines = lines();
    let mut t = [[0u128; NUM_SQUARES]; 2];
    let mut c = 0;
    while c < 2 {
        let mut s = 0;
        while s < NUM_SQUARES {
            t[c][s] = all_lines[s] | HORSE_REACH[s] | PAWN_REACH[c][s];
            s += 1;
        }
        c += 1;
    }
    t
};

/// Each square's bit in its rank's occupancy (`1 << file`) and in its
/// file's (`1 << rank`), so [`crate::board::Board`] updates need no shifts.
pub(crate) static LINE_BITS: [(u16, u16); NUM_SQUARES] = {
    let mut t = [(0u16, 0u16); NUM_SQUARES];
    let mut s = 0;
    while s < NUM_SQUARES {
        t[s] = (1 << (s % 9), 1 << (s / 9));
        s += 1;
    }
    t
};

/// The rank and file through each square (the square itself excluded).
pub(crate) static LINES: [u128; NUM_SQUARES] = lines();

const fn lines() -> [u128; NUM_SQUARES] {
    let mut t = [0u128; NUM_SQUARES];
    let mut s = 0;
    while s < NUM_SQUARES {
        let mut x = 0;
        while x < NUM_SQUARES {
            if x != s && (x % 9 == s % 9 || x / 9 == s / 9) {
                t[s] |= 1u128 << x;
            }
            x += 1;
        }
        s += 1;
    }
    t
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn line_bits_are_the_file_and_rank_bits() {
        for s in 0..NUM_SQUARES {
            assert_eq!(LINE_BITS[s], (1 << FILE_OF[s], 1 << RANK_OF[s]));
        }
    }

    #[test]
    fn table_sizes_match_the_rules() {
        let king: usize = KING_STEPS.iter().map(|l| l.len as usize).sum();
        // Each palace has 12 orthogonal adjacencies, counted from both ends.
        assert_eq!(king, 2 * 12 * 2);
        // An advisor in the palace centre has four steps, in a corner one.
        assert_eq!(ADVISOR_STEPS[9 + 4].len, 4);
        assert_eq!(ADVISOR_STEPS[3].len, 1);
        assert_eq!(ADVISOR_STEPS[9 * 9 + 5].len, 1);
        // The centre of the board has 8 horse moves, a corner 2.
        assert_eq!(HORSE_STEPS[4 * 9 + 4].len, 8);
        assert_eq!(HORSE_STEPS[0].len, 2);
        // A red pawn across the river has three steps, at home one.
        assert_eq!(PAWN_STEPS[0][5 * 9 + 4].len, 3);
        assert_eq!(PAWN_STEPS[0][3 * 9 + 4].len, 1);
        assert_eq!(PAWN_STEPS[1][4 * 9 + 4].len, 3);
        // On the last rank only sideways steps remain.
        assert_eq!(PAWN_STEPS[1][4].len, 2);
        // Elephants on the river bank may not cross it.
        assert_eq!(ELEPHANT_STEPS[4 * 9 + 2].len, 2);
    }

    #[test]
    fn line_points_make_bitboards() {
        for points in 0..1024u16 {
            for line in 0..9 {
                let by_square = |on: &dyn Fn(usize) -> usize| {
                    (0..10)
                        .filter(|&i| points & 1 << i != 0)
                        .fold(0u128, |bb, i| bb | 1 << on(i))
                };
                assert_eq!(file_points(points, line), by_square(&|i| i * 9 + line));
                let rank = points & 0x1ff;
                assert_eq!(rank_points(rank, line), {
                    (0..9)
                        .filter(|&i| rank & 1 << i != 0)
                        .fold(0u128, |bb, i| bb | 1 << (line * 9 + i))
                });
            }
        }
    }

    #[test]
    fn slide_tables_see_first_and_second_blockers() {
        // A rook on file c of a rank holding pieces on files a, e, g and i.
        let occ = 0b1_0101_0101;
        let s = RANK_SLIDES[2][occ];
        assert_eq!(s.quiet, 0b0_0000_1010, "b and d are empty and in reach");
        assert_eq!(
            s.rook, 0b0_0001_0001,
            "a and e are the first pieces each way"
        );
        assert_eq!(
            s.cannon, 0b0_0100_0000,
            "g is the second piece towards i; none towards a"
        );
        // A file with nothing on it but the piece itself.
        let s = FILE_SLIDES[0][1];
        assert_eq!(s.quiet, 0b11_1111_1110);
        assert_eq!((s.rook, s.cannon), (0, 0));
    }
}
