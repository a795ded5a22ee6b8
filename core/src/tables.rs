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

/// Ray directions: up the board (towards Black), down, right (towards file i), left.
pub(crate) const DIR_UP: usize = 0;
#[cfg(test)]
pub(crate) const DIR_DOWN: usize = 1;

/// The squares met walking from a square in each of the four directions, nearest first.
pub(crate) static RAYS: [[SqList<9>; 4]; NUM_SQUARES] = {
    let mut t = [[SqList::EMPTY; 4]; NUM_SQUARES];
    let dirs: [(i32, i32); 4] = [(0, 1), (0, -1), (1, 0), (-1, 0)];
    let mut s = 0;
    while s < NUM_SQUARES {
        let mut d = 0;
        while d < 4 {
            let (mut f, mut r) = ((s % 9) as i32, (s / 9) as i32);
            loop {
                f += dirs[d].0;
                r += dirs[d].1;
                match square_at(f, r) {
                    Some(to) => t[s][d] = t[s][d].push(to),
                    None => break,
                }
            }
            d += 1;
        }
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
        assert_eq!(RAYS[0][DIR_UP].len, 9);
        assert_eq!(RAYS[0][DIR_DOWN].len, 0);
    }
}
