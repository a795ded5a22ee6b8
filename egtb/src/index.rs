//! The position index of a table (index scheme 1).
//!
//! A table's positions are numbered so that every index names at most one
//! position and nearly every number is used:
//!
//! - Each side's king, advisors and elephants are one *group*, numbered
//!   together over the squares they can stand on (king 9, advisor 5,
//!   elephant 7), without two of them on one square.
//! - Rooks, horses and cannons stand on any of the 90 squares, pawns on the
//!   55 their side can reach; identical pieces are one combination
//!   (colex rank of their sorted squares).
//! - Left-right mirror images are the same position: only groups of the
//!   first side that are no greater than their mirror image are numbered.
//!   When that group is its own mirror image, the position and its mirror
//!   are both numbered and the smaller index is the position's
//!   ([`Indexer::is_canonical`]); the other is never probed.
//!
//! Index = group 0, group 1, then each free piece set in table order, as
//! digits of a mixed radix number. The side to move is not in the index:
//! a table holds one value per index for each side to move.
//!
//! Squares are in table orientation: side 0 (written first in the material
//! name) plays as Red, from the bottom of the board.

use xqcore::{Role, NUM_SQUARES};

use crate::material::Material;

/// Version of this numbering; written into every table file.
pub const INDEX_SCHEME: u16 = 1;

/// Most pieces a table may have, kings included: room for one attacking
/// piece a side with both sides' advisors and elephants (the numbering of
/// smaller tables does not depend on it).
pub const MAX_PIECES: usize = 12;

/// Marks a square that is not one of a piece's squares.
const OFF: u8 = u8::MAX;

const PALACE_RED: [u8; 9] = [3, 4, 5, 12, 13, 14, 21, 22, 23];
const ADVISOR_RED: [u8; 5] = [3, 5, 13, 21, 23];
const ELEPHANT_RED: [u8; 7] = [2, 6, 18, 22, 26, 38, 42];

/// The squares a pawn of side 0 (Red) can stand on: its own ranks 3 and 4
/// on the five starting files, and everything across the river.
fn red_pawn_squares() -> Vec<u8> {
    (0..NUM_SQUARES as u8)
        .filter(|&s| {
            let (rank, file) = (s / 9, s % 9);
            rank >= 5 || (rank >= 3 && file % 2 == 0)
        })
        .collect()
}

/// `points` seen from the other side of the board (for side 1), ascending.
fn rotated(points: &[u8]) -> Vec<u8> {
    let mut v: Vec<u8> = points.iter().map(|&s| 89 - s).collect();
    v.sort_unstable();
    v
}

/// Where each square lies in `points` (or [`OFF`]).
fn slots_of(points: &[u8]) -> [u8; NUM_SQUARES] {
    let mut t = [OFF; NUM_SQUARES];
    for (i, &s) in points.iter().enumerate() {
        t[s as usize] = i as u8;
    }
    t
}

/// Every square's mirror image (file `a` <-> `i`).
static MIRROR: [u8; NUM_SQUARES] = {
    let mut t = [0u8; NUM_SQUARES];
    let mut s = 0;
    while s < NUM_SQUARES {
        t[s] = (s / 9 * 9 + 8 - s % 9) as u8;
        s += 1;
    }
    t
};

/// The mirror image of square `s` (file `a` <-> `i`).
pub fn mirror_square(s: u8) -> u8 {
    MIRROR[s as usize]
}

/// Binomial coefficients C(n, k) for n <= 90, k <= 5 (no more than five
/// identical pieces exist), by table: ranking combinations looks them up
/// for every piece of every position.
fn binomial(n: usize, k: usize) -> u64 {
    BINOMIAL[n][k]
}

static BINOMIAL: [[u64; 6]; NUM_SQUARES + 1] = {
    let mut t = [[0u64; 6]; NUM_SQUARES + 1];
    let mut n = 0;
    while n <= NUM_SQUARES {
        t[n][0] = 1;
        let mut k = 1;
        while k < 6 {
            t[n][k] = if n == 0 {
                0
            } else {
                t[n - 1][k - 1] + t[n - 1][k]
            };
            k += 1;
        }
        n += 1;
    }
    t
};

/// The king-advisor-elephant group of one side.
#[derive(Clone, Debug)]
struct Group {
    palace: Vec<u8>,
    advisor_points: Vec<u8>,
    elephant_points: Vec<u8>,
    palace_slot: [u8; NUM_SQUARES],
    advisor_slot: [u8; NUM_SQUARES],
    elephant_slot: [u8; NUM_SQUARES],
    advisors: usize,
    elephants: usize,
    /// By code (`king << 12 | advisor mask << 7 | elephant mask`): the
    /// group's number, or `u32::MAX` when not numbered.
    number: Vec<u32>,
    /// By number: the code.
    codes: Vec<u32>,
    /// By number: whether the group is its own mirror image.
    symmetric: Vec<bool>,
    /// By code: the code of the mirror image (0 for codes that are no group).
    mirror: Vec<u32>,
}

impl Group {
    /// The groups of `advisors` advisors and `elephants` elephants around
    /// a king, on the side of `red` or black; `fold` keeps only groups no
    /// greater than their mirror image.
    fn new(red: bool, advisors: usize, elephants: usize, fold: bool) -> Group {
        let (palace, advisor_points, elephant_points) = if red {
            (
                PALACE_RED.to_vec(),
                ADVISOR_RED.to_vec(),
                ELEPHANT_RED.to_vec(),
            )
        } else {
            (
                rotated(&PALACE_RED),
                rotated(&ADVISOR_RED),
                rotated(&ELEPHANT_RED),
            )
        };
        let mut g = Group {
            palace_slot: slots_of(&palace),
            advisor_slot: slots_of(&advisor_points),
            elephant_slot: slots_of(&elephant_points),
            palace,
            advisor_points,
            elephant_points,
            advisors,
            elephants,
            number: vec![u32::MAX; 9 << 12],
            codes: Vec::new(),
            symmetric: Vec::new(),
            mirror: vec![0; 9 << 12],
        };
        for king in 0..9u32 {
            for am in 0..32u32 {
                for em in 0..128u32 {
                    if am.count_ones() as usize != advisors || em.count_ones() as usize != elephants
                    {
                        continue;
                    }
                    let code = king << 12 | am << 7 | em;
                    if g.overlaps(code) {
                        continue;
                    }
                    let mirrored = g.mirror_of(code);
                    g.mirror[code as usize] = mirrored;
                    if fold && mirrored < code {
                        continue;
                    }
                    g.number[code as usize] = g.codes.len() as u32;
                    g.codes.push(code);
                    g.symmetric.push(mirrored == code);
                }
            }
        }
        g
    }

    fn len(&self) -> usize {
        self.codes.len()
    }

    /// The squares of a code: the king, then advisors, then elephants.
    fn squares(&self, code: u32, out: &mut impl Extend<u8>) {
        let mut sq = [0u8; 5];
        let n = self.squares_into(code, &mut sq);
        out.extend(sq[..n].iter().copied());
    }

    /// [`Group::squares`] into an array; returns how many.
    fn squares_into(&self, code: u32, out: &mut [u8; 5]) -> usize {
        out[0] = self.palace[(code >> 12) as usize];
        let mut n = 1;
        for (i, &s) in self.advisor_points.iter().enumerate() {
            if code >> 7 & 1 << i != 0 {
                out[n] = s;
                n += 1;
            }
        }
        for (i, &s) in self.elephant_points.iter().enumerate() {
            if code & 1 << i != 0 {
                out[n] = s;
                n += 1;
            }
        }
        n
    }

    fn overlaps(&self, code: u32) -> bool {
        let mut sq = [0u8; 5];
        let n = self.squares_into(code, &mut sq);
        sq[1..n].contains(&sq[0])
    }

    /// The code of the mirror image of a group's code (worked out once, in
    /// [`Group::new`]; later looked up in `mirror`).
    fn mirror_of(&self, code: u32) -> u32 {
        let mut sq = [0u8; 5];
        let n = self.squares_into(code, &mut sq);
        for s in &mut sq[..n] {
            *s = MIRROR[*s as usize];
        }
        self.code_of(&sq[..n]).expect("a mirrored group is a group")
    }

    /// The code of a king, advisors and elephants (in that order, as
    /// [`Group::squares`] lists them); `None` when a piece is off its points.
    fn code_of(&self, squares: &[u8]) -> Option<u32> {
        let king = self.palace_slot[squares[0] as usize];
        if king == OFF {
            return None;
        }
        let mut code = (king as u32) << 12;
        for &s in &squares[1..1 + self.advisors] {
            let a = self.advisor_slot[s as usize];
            if a == OFF {
                return None;
            }
            code |= 1 << (7 + a);
        }
        for &s in &squares[1 + self.advisors..1 + self.advisors + self.elephants] {
            let e = self.elephant_slot[s as usize];
            if e == OFF {
                return None;
            }
            code |= 1 << e;
        }
        Some(code)
    }
}

/// A set of identical free pieces (rooks, horses, cannons or pawns of one side).
#[derive(Clone, Debug)]
struct FreeSet {
    count: usize,
    points: Vec<u8>,
    slot: [u8; NUM_SQUARES],
    radix: u64,
    /// What one step of its digit adds to an index (the product of the
    /// radices after it), and the placement slot of its first piece: set
    /// once, so that moving a piece divides nothing.
    weight: u64,
    first: usize,
}

impl FreeSet {
    fn rank(&self, squares: &[u8]) -> Option<u64> {
        if let [s] = squares {
            // One piece: its point's number (the binomial of it over one).
            let p = self.slot[*s as usize];
            return (p != OFF).then_some(u64::from(p));
        }
        let mut slots = [0u8; 5];
        for (i, &s) in squares.iter().enumerate() {
            let p = self.slot[s as usize];
            if p == OFF {
                return None;
            }
            slots[i] = p;
        }
        let slots = &mut slots[..squares.len()];
        slots.sort_unstable();
        Some(
            slots
                .iter()
                .enumerate()
                .map(|(i, &p)| binomial(p as usize, i + 1))
                .sum(),
        )
    }

    fn unrank(&self, mut r: u64, out: &mut Vec<u8>) {
        if self.count == 1 {
            // One piece: its rank is its point's number.
            out.push(self.points[r as usize]);
            return;
        }
        let start = out.len();
        let mut n = self.points.len();
        for i in (0..self.count).rev() {
            n -= 1;
            while binomial(n, i + 1) > r {
                n -= 1;
            }
            r -= binomial(n, i + 1);
            out.push(self.points[n]);
        }
        out[start..].reverse();
    }
}

/// The groups of `advisors` advisors and `elephants` elephants on Red's
/// side (folded by mirror image) or Black's, made once and shared by every
/// indexer: each holds two 36,864-entry arrays, about 300 KB, too much to
/// repeat in each of the hundreds of tables an engine may open.
fn shared_group(red: bool, advisors: usize, elephants: usize) -> &'static Group {
    const KINDS: usize = 3;
    static GROUPS: [std::sync::OnceLock<Group>; 2 * KINDS * KINDS] =
        [const { std::sync::OnceLock::new() }; 2 * KINDS * KINDS];
    let at = (usize::from(red) * KINDS + advisors) * KINDS + elephants;
    GROUPS[at].get_or_init(|| Group::new(red, advisors, elephants, red))
}

/// What one slot of a [`Placement`] holds: the side and role of its piece.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub struct SlotPiece {
    /// 0: the side written first (Red in the table), 1: the other.
    pub side: usize,
    pub role: Role,
}

/// The squares of a table's pieces, one per slot in the indexer's slot
/// order ([`Indexer::slots`]), in table orientation.
pub type Placement = Vec<u8>;

/// Numbers the positions of one material.
#[derive(Clone, Debug)]
pub struct Indexer {
    material: Material,
    groups: [&'static Group; 2],
    free: Vec<FreeSet>,
    slots: Vec<SlotPiece>,
    /// Indexes per side to move.
    size: u64,
    /// Product of the radices after group 0 (what one group-0 number spans).
    span0: u64,
    /// Product of the free sets' radices (what one group-1 number spans).
    span1: u64,
}

impl Indexer {
    /// The indexer of `material` (taken as written: side 0 is its first side).
    ///
    /// # Panics
    /// If the material has more than [`MAX_PIECES`] pieces.
    pub fn new(material: Material) -> Indexer {
        assert!(material.piece_count() <= MAX_PIECES, "too many pieces");
        let groups = [0, 1].map(|side| {
            shared_group(
                side == 0,
                material.count(side, Role::Advisor),
                material.count(side, Role::Elephant),
            )
        });
        let mut slots = Vec::new();
        for (side, g) in groups.iter().enumerate() {
            slots.push(SlotPiece {
                side,
                role: Role::King,
            });
            slots.extend(std::iter::repeat_n(
                SlotPiece {
                    side,
                    role: Role::Advisor,
                },
                g.advisors,
            ));
            slots.extend(std::iter::repeat_n(
                SlotPiece {
                    side,
                    role: Role::Elephant,
                },
                g.elephants,
            ));
        }
        let red_pawns = red_pawn_squares();
        let black_pawns = rotated(&red_pawns);
        let all: Vec<u8> = (0..NUM_SQUARES as u8).collect();
        let mut free = Vec::new();
        for side in 0..2 {
            for role in [Role::Rook, Role::Horse, Role::Cannon, Role::Pawn] {
                let count = material.count(side, role);
                if count == 0 {
                    continue;
                }
                let points = match (role, side) {
                    (Role::Pawn, 0) => red_pawns.clone(),
                    (Role::Pawn, _) => black_pawns.clone(),
                    _ => all.clone(),
                };
                slots.extend(std::iter::repeat_n(SlotPiece { side, role }, count));
                free.push(FreeSet {
                    count,
                    slot: slots_of(&points),
                    radix: binomial(points.len(), count),
                    points,
                    weight: 0,
                    first: slots.len() - count,
                });
            }
        }
        let mut weight = 1;
        for f in free.iter_mut().rev() {
            f.weight = weight;
            weight *= f.radix;
        }
        let span0 = groups[1].len() as u64 * weight;
        Indexer {
            material,
            size: groups[0].len() as u64 * span0,
            groups,
            free,
            slots,
            span0,
            span1: weight,
        }
    }

    /// The material this indexer numbers.
    pub fn material(&self) -> Material {
        self.material
    }

    /// Number of indexes for each side to move.
    pub fn size(&self) -> u64 {
        self.size
    }

    /// What each slot of a [`Placement`] holds.
    pub fn slots(&self) -> &[SlotPiece] {
        &self.slots
    }

    /// The index of a placement, the mirror image folded away; `None` when
    /// a piece stands where the index has no room for it (an advisor off
    /// its points, a pawn behind its start). Two pieces on one square are
    /// not detected here.
    pub fn index(&self, placement: &[u8]) -> Option<u64> {
        debug_assert_eq!(placement.len(), self.slots.len());
        let g0 = self.groups[0].len_squares();
        let code = self.groups[0].code_of(&placement[..g0])?;
        let mirrored = self.groups[0].mirror[code as usize];
        if code < mirrored {
            return self.raw_index_of(code, placement);
        }
        let mut mirror = [0u8; MAX_PIECES];
        let mirror = &mut mirror[..placement.len()];
        for (m, &s) in mirror.iter_mut().zip(placement) {
            *m = MIRROR[s as usize];
        }
        debug_assert_eq!(self.groups[0].code_of(&mirror[..g0]), Some(mirrored));
        if code > mirrored {
            return self.raw_index_of(mirrored, mirror);
        }
        Some(
            self.raw_index_of(code, placement)?
                .min(self.raw_index_of(mirrored, mirror)?),
        )
    }

    /// The index of a placement as it stands (group 0 must be numbered).
    fn raw_index(&self, placement: &[u8]) -> Option<u64> {
        let code = self.groups[0].code_of(&placement[..self.groups[0].len_squares()])?;
        self.raw_index_of(code, placement)
    }

    /// [`Indexer::raw_index`] given group 0's code (the placement's first
    /// squares: found once by a caller that needs it too).
    fn raw_index_of(&self, code0: u32, placement: &[u8]) -> Option<u64> {
        let [g0, g1] = &self.groups;
        let n0 = g0.len_squares();
        let n1 = g1.len_squares();
        let a = g0.number[code0 as usize];
        let b = g1.number[g1.code_of(&placement[n0..n0 + n1])? as usize];
        if a == u32::MAX || b == u32::MAX {
            return None;
        }
        let mut index = a as u64 * g1.len() as u64 + b as u64;
        let mut at = n0 + n1;
        for f in &self.free {
            index = index * f.radix + f.rank(&placement[at..at + f.count])?;
            at += f.count;
        }
        Some(index)
    }

    /// The placement of an index (in slot order, identical pieces by
    /// ascending square). It may put two pieces on one square: see
    /// [`Indexer::is_canonical`] and callers' own checks.
    pub fn placement(&self, index: u64, out: &mut Placement) {
        debug_assert!(index < self.size);
        out.clear();
        let [g0, g1] = &self.groups;
        let mut rest = index % self.span0;
        let a = index / self.span0;
        let mut digits = [0u64; 8];
        for (d, f) in digits.iter_mut().zip(&self.free).rev() {
            *d = rest % f.radix;
            rest /= f.radix;
        }
        g0.squares(g0.codes[a as usize], out);
        g1.squares(g1.codes[rest as usize], out);
        for (f, &d) in self.free.iter().zip(&digits) {
            f.unrank(d, out);
        }
    }

    /// [`Indexer::placement`] of `index`, given `out` holding that of
    /// `index - 1`: most steps change the last piece set only.
    pub fn step_placement(&self, index: u64, out: &mut Placement) {
        match self.free.last() {
            Some(last) if !index.is_multiple_of(last.radix) => {
                out.truncate(out.len() - last.count);
                last.unrank(index % last.radix, out);
            }
            _ => self.placement(index, out),
        }
    }

    /// Whether `index` is the index its position is probed by: its
    /// pieces on distinct squares, and not the larger of a position and
    /// its mirror image.
    pub fn is_canonical(&self, index: u64, placement: &[u8]) -> bool {
        let mut seen = 0u128;
        for &s in placement {
            if seen & 1 << s != 0 {
                return false;
            }
            seen |= 1 << s;
        }
        let a = (index / self.span0) as usize;
        !self.groups[0].symmetric[a] || self.index(placement) == Some(index)
    }
}

impl Indexer {
    /// The index of `placement` with the piece of `slot` moved to `to`,
    /// given `raw`, the index `placement` has as it stands (as
    /// [`Indexer::placement`] decodes it, before mirror folding). A piece
    /// outside group 0 changes one digit of the number, so the child's
    /// index is found without ranking every piece again.
    ///
    /// # Panics
    /// If the moved piece has no index on `to` (never for a move by the
    /// rules).
    pub fn moved_index(&self, raw: u64, placement: &[u8], slot: usize, to: u8) -> u64 {
        self.moved_index_mirrored(raw, placement, None, slot, to)
    }

    /// When group 0 of `placement` is its own mirror image: the raw index
    /// of the placement's mirror image, with that placement in `out`
    /// (for [`Indexer::moved_index_mirrored`]).
    pub fn mirror_raw(
        &self,
        raw: u64,
        placement: &[u8],
        out: &mut [u8; MAX_PIECES],
    ) -> Option<u64> {
        if !self.groups[0].symmetric[(raw / self.span0) as usize] {
            return None;
        }
        for (m, &s) in out.iter_mut().zip(placement) {
            *m = MIRROR[s as usize];
        }
        self.raw_index(&out[..placement.len()])
    }

    /// [`Indexer::moved_index`], given for a placement whose group 0 is
    /// its own mirror image the mirror image and its raw index
    /// ([`Indexer::mirror_raw`]): the child is then the smaller of two
    /// one-digit changes instead of two whole rankings.
    pub fn moved_index_mirrored(
        &self,
        raw: u64,
        placement: &[u8],
        mirror: Option<(u64, &[u8])>,
        slot: usize,
        to: u8,
    ) -> u64 {
        let n0 = self.groups[0].len_squares();
        let symmetric = self.groups[0].symmetric[(raw / self.span0) as usize];
        if slot >= n0 && symmetric {
            if let Some((mirror_raw, mirrored)) = mirror {
                let direct = self.moved_raw(raw, placement, slot, to);
                return direct.min(self.moved_raw(mirror_raw, mirrored, slot, MIRROR[to as usize]));
            }
        }
        if slot < n0 {
            // A group 0 that stays on the numbered side of its mirror
            // image changes the first digit only.
            let g0 = self.groups[0];
            let mut group = [0u8; 5];
            let group = &mut group[..n0];
            group.copy_from_slice(&placement[..n0]);
            group[slot] = to;
            let code = g0.code_of(group).expect("a moved piece on its points");
            if code < g0.mirror[code as usize] {
                let old = raw / self.span0;
                let new = u64::from(g0.number[code as usize]);
                return raw - old * self.span0 + new * self.span0;
            }
        }
        if slot < n0 || symmetric {
            // Group 0 decides the mirror folding: rank the whole child.
            let mut child = [0u8; MAX_PIECES];
            let child = &mut child[..placement.len()];
            child.copy_from_slice(placement);
            child[slot] = to;
            return self.index(child).expect("a moved piece on its points");
        }
        self.moved_raw(raw, placement, slot, to)
    }

    /// The raw index of `placement` (raw index `raw`) with the piece of
    /// `slot`, outside group 0, moved to `to`: one digit changed.
    fn moved_raw(&self, raw: u64, placement: &[u8], slot: usize, to: u8) -> u64 {
        let n0 = self.groups[0].len_squares();
        let g1 = self.groups[1];
        let n1 = g1.len_squares();
        if slot < n0 + n1 {
            let mut group = [0u8; 5];
            let group = &mut group[..n1];
            group.copy_from_slice(&placement[n0..n0 + n1]);
            let old = g1.number[g1.code_of(group).expect("on its points") as usize];
            group[slot - n0] = to;
            let new = g1.number[g1.code_of(group).expect("a moved piece on its points") as usize];
            return (raw as i64 + (i64::from(new) - i64::from(old)) * self.span1 as i64) as u64;
        }
        let f = self
            .free
            .iter()
            .find(|f| slot < f.first + f.count)
            .expect("the slot is one of the placement's");
        let set = &placement[f.first..f.first + f.count];
        let old = f.rank(set).expect("on its points");
        let mut moved = [0u8; 5];
        let moved = &mut moved[..f.count];
        moved.copy_from_slice(set);
        moved[slot - f.first] = to;
        let new = f.rank(moved).expect("a moved piece on its points");
        (raw as i64 + (new as i64 - old as i64) * f.weight as i64) as u64
    }
}

impl Group {
    /// Squares the group occupies: the king, advisors and elephants.
    fn len_squares(&self) -> usize {
        1 + self.advisors + self.elephants
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    fn indexer(name: &str) -> Indexer {
        Indexer::new(name.parse().unwrap())
    }

    #[test]
    fn every_canonical_index_decodes_and_encodes_back() {
        for name in [
            "KRK", "KPK", "KRKA", "KNKB", "KAKR", "KCKAB", "KRKR", "KPPK",
        ] {
            let ix = indexer(name);
            let mut p = Placement::new();
            let mut canonical = 0;
            for i in 0..ix.size() {
                ix.placement(i, &mut p);
                if ix.is_canonical(i, &p) {
                    canonical += 1;
                    assert_eq!(ix.index(&p), Some(i), "{name} index {i}: {p:?}");
                    let mirror: Vec<u8> = p.iter().map(|&s| MIRROR[s as usize]).collect();
                    assert_eq!(ix.index(&mirror), Some(i), "{name} mirror of {i}");
                }
            }
            assert!(
                canonical > ix.size() / 2,
                "{name}: {canonical} of {}",
                ix.size()
            );
        }
    }

    #[test]
    fn stepping_decodes_as_decoding_does() {
        for name in ["KRKNAABB", "KPPKAB", "KCKNA", "KAABK"] {
            let ix = indexer(name);
            let (mut stepped, mut whole) = (Placement::new(), Placement::new());
            let start = ix.size() / 3;
            ix.placement(start, &mut stepped);
            for i in start + 1..(start + 200_000).min(ix.size()) {
                ix.step_placement(i, &mut stepped);
                ix.placement(i, &mut whole);
                assert_eq!(stepped, whole, "{name} {i}");
            }
        }
    }

    #[test]
    fn sizes_follow_the_scheme() {
        // Red king folded to six of its nine squares; black king 9, rook 90.
        assert_eq!(indexer("KRK").size(), 6 * 9 * 90);
        // Two pawns of one side: C(55, 2) combinations.
        assert_eq!(indexer("KPPK").size(), 6 * 9 * 55 * 54 / 2);
        // King with two advisors and two elephants: 9 * 10 * 21 less the
        // king on the elephant point e7 (10 advisor pairs times the 6
        // elephant pairs through it) and the king on one of the 5 advisor
        // points (4 advisor pairs through it, times 21 elephant pairs).
        assert_eq!(
            indexer("KRKAABB").size(),
            6 * (9 * 10 * 21 - 10 * 6 - 5 * 4 * 21) * 90
        );
    }

    #[test]
    fn a_moved_piece_is_indexed_as_the_whole_placement_is() {
        for name in ["KRKNAABB", "KPPKAB", "KCKNA", "KAABKRP"] {
            let ix = indexer(name);
            let mut p = Placement::new();
            let step = ix.size() / 2000 + 1;
            let mut checked = 0;
            for raw in (0..ix.size()).step_by(step as usize) {
                ix.placement(raw, &mut p);
                if !ix.is_canonical(raw, &p) {
                    continue;
                }
                for slot in 0..p.len() {
                    for to in 0..NUM_SQUARES as u8 {
                        if p.contains(&to) {
                            continue;
                        }
                        let mut child = p.clone();
                        child[slot] = to;
                        if let Some(whole) = ix.index(&child) {
                            assert_eq!(
                                ix.moved_index(raw, &p, slot, to),
                                whole,
                                "{name} {p:?} {slot} {to}"
                            );
                            let mut m = [0u8; MAX_PIECES];
                            let mirror = ix.mirror_raw(raw, &p, &mut m).map(|r| (r, &m[..p.len()]));
                            assert_eq!(
                                ix.moved_index_mirrored(raw, &p, mirror, slot, to),
                                whole,
                                "{name} {p:?} {slot} {to} mirrored"
                            );
                            checked += 1;
                        }
                    }
                }
            }
            assert!(checked > 10_000, "{name}: {checked}");
        }
    }

    #[test]
    fn pieces_off_their_points_have_no_index() {
        let ix = indexer("KAK");
        // Red king e0, advisor on e0's neighbour d1 (not an advisor point).
        assert_eq!(ix.index(&[4, 12, 85]), None);
        assert!(ix.index(&[4, 13, 85]).is_some());
    }
}
