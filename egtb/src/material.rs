//! Material signatures: which pieces each side has, named with FEN letters,
//! stronger side first, kings included (`KRKAABB`).

use std::fmt;
use std::str::FromStr;

use xqcore::{Board, Color, Piece, Role};

/// Roles in the order they are written within one side: the king, the
/// attacking pieces strongest first, then the defenders.
pub const WRITING_ORDER: [Role; 7] = [
    Role::King,
    Role::Rook,
    Role::Horse,
    Role::Cannon,
    Role::Pawn,
    Role::Advisor,
    Role::Elephant,
];

/// Letters as written in material names (upper-case FEN letters).
fn letter(role: Role) -> char {
    role.char().to_ascii_uppercase()
}

/// Rough value of a role, only to decide which side is written first:
/// attacking pieces count far above defenders, so the side that can mate
/// comes first.
const fn weight(role: Role) -> u32 {
    match role {
        Role::King => 0,
        Role::Rook => 1800,
        Role::Cannon => 900,
        Role::Horse => 800,
        Role::Pawn => 200,
        Role::Advisor | Role::Elephant => 4,
    }
}

/// Why a material name was refused.
#[derive(Clone, Debug, PartialEq, Eq, thiserror::Error)]
pub enum MaterialError {
    #[error("{name:?}: unknown piece letter {letter:?} (use K A B N R C P)")]
    UnknownLetter { name: String, letter: char },
    #[error("{name:?}: a material name is two sides, each starting with its king (like KRKAABB)")]
    NotTwoSides { name: String },
    #[error("{name:?}: too many {role}s on one side ({count}, at most {max})")]
    TooMany {
        name: String,
        role: &'static str,
        count: usize,
        max: usize,
    },
}

/// The pieces of both sides of an endgame. Side 0 is the one written first
/// (the stronger, after [`Material::canonical`]); tables place it as Red.
#[derive(Clone, Copy, PartialEq, Eq, Hash, PartialOrd, Ord)]
pub struct Material {
    /// Pieces by side, then by [`Role::index`].
    counts: [[u8; 7]; 2],
}

impl Material {
    /// The material of both sides on `board`: side 0 is Red.
    pub fn of_board(board: &Board) -> Material {
        let mut counts = [[0u8; 7]; 2];
        for (_, piece) in board.pieces() {
            counts[piece.color.index()][piece.role.index()] += 1;
        }
        Material { counts }
    }

    /// How many `role`s side `side` (0 or 1) has.
    pub fn count(&self, side: usize, role: Role) -> usize {
        self.counts[side][role.index()] as usize
    }

    /// Pieces of side `side` (0 or 1), its king included.
    pub fn piece_count_of(&self, side: usize) -> usize {
        self.counts[side].iter().map(|&c| c as usize).sum()
    }

    /// Pieces on the board, kings included.
    pub fn piece_count(&self) -> usize {
        self.counts.iter().flatten().map(|&c| c as usize).sum()
    }

    /// The same material with the sides swapped.
    pub fn swapped(&self) -> Material {
        Material {
            counts: [self.counts[1], self.counts[0]],
        }
    }

    /// The stronger side first (by a rough piece value, then by name), so
    /// that each endgame has one name; the flag says whether the sides were
    /// swapped to get there.
    pub fn canonical(&self) -> (Material, bool) {
        let key = |side: &[u8; 7]| {
            let w: u32 = Role::ALL
                .iter()
                .map(|&r| weight(r) * side[r.index()] as u32)
                .sum();
            (w, side_name(side))
        };
        if key(&self.counts[1]) > key(&self.counts[0]) {
            (self.swapped(), true)
        } else {
            (*self, false)
        }
    }

    /// Whether both sides have the same pieces: then one table serves both
    /// ways round without swapping colours.
    pub fn is_symmetric(&self) -> bool {
        self.counts[0] == self.counts[1]
    }

    /// Whether `side` has a piece that can give mate: a rook, horse, cannon or pawn.
    pub fn has_attackers(&self, side: usize) -> bool {
        [Role::Rook, Role::Horse, Role::Cannon, Role::Pawn]
            .iter()
            .any(|&r| self.count(side, r) > 0)
    }

    /// Whether `side` has a rook, horse or cannon: a piece whose attack on
    /// any enemy piece may be a chase.
    pub fn has_chasers(&self, side: usize) -> bool {
        [Role::Rook, Role::Horse, Role::Cannon]
            .iter()
            .any(|&r| self.count(side, r) > 0)
    }

    /// Whether the tables apply the perpetual-chase rule to this material:
    /// both sides have a rook, horse or cannon. (Elsewhere the brute-force
    /// tests, which apply it to every table of up to four pieces, find
    /// nothing it decides.)
    pub fn chase_rule_applies(&self) -> bool {
        self.has_chasers(0) && self.has_chasers(1)
    }

    /// Whether neither side can ever mate: every position is a draw and no
    /// table is needed.
    pub fn is_dead_draw(&self) -> bool {
        !self.has_attackers(0) && !self.has_attackers(1)
    }

    /// The material left after `side` loses one `role` (a capture), in
    /// canonical form, with the swap flag of [`Material::canonical`].
    pub fn without(&self, side: usize, role: Role) -> (Material, bool) {
        let mut m = *self;
        debug_assert!(m.counts[side][role.index()] > 0 && role != Role::King);
        m.counts[side][role.index()] -= 1;
        m.canonical()
    }

    /// Every material reachable from this one by captures (this one
    /// excluded), canonical, without dead draws, smallest first: the tables
    /// this one depends on, in an order they can be built in.
    pub fn dependencies(&self) -> Vec<Material> {
        let mut found = std::collections::BTreeSet::new();
        let mut stack = vec![self.canonical().0];
        while let Some(m) = stack.pop() {
            for sub in m.captures() {
                if found.insert(sub) {
                    stack.push(sub);
                }
            }
        }
        let mut list: Vec<Material> = found.into_iter().collect();
        list.sort_by_key(|m| (m.piece_count(), m.to_string()));
        list
    }

    /// The materials one capture leads to (canonical, without dead draws):
    /// the tables a solver of this one looks values up in.
    pub fn captures(&self) -> Vec<Material> {
        let mut out = Vec::new();
        for (sub, _) in self.capture_sides() {
            if !out.contains(&sub) {
                out.push(sub);
            }
        }
        out
    }

    /// The sides to move one capture leads to: each material of
    /// [`Material::captures`] with the side to move after the capture (0:
    /// the side written first in its name).
    pub fn capture_sides(&self) -> Vec<(Material, usize)> {
        let mut out = Vec::new();
        for victim in 0..2 {
            for role in Role::ALL.into_iter().filter(|&r| r != Role::King) {
                if self.count(victim, role) == 0 {
                    continue;
                }
                let (sub, swapped) = self.without(victim, role);
                if sub.is_dead_draw() {
                    continue;
                }
                // The captured side moves next, and keeps its place in the
                // name unless the smaller material is written the other way.
                let to_move = if swapped { 1 - victim } else { victim };
                if !out.contains(&(sub, to_move)) {
                    out.push((sub, to_move));
                }
            }
        }
        out
    }

    /// Every canonical material with at most `pieces` pieces (kings
    /// included), without dead draws, smallest first.
    pub fn all_up_to(pieces: usize) -> Vec<Material> {
        let mut sides = Vec::new();
        let mut king = [0u8; 7];
        king[Role::King.index()] = 1;
        let others = &WRITING_ORDER[1..];
        piece_choices(&mut king, 0, pieces.saturating_sub(2), others, &mut sides);
        let mut found = std::collections::BTreeSet::new();
        for a in &sides {
            for b in &sides {
                let m = Material { counts: [*a, *b] };
                if m.piece_count() <= pieces && !m.is_dead_draw() {
                    found.insert(m.canonical().0);
                }
            }
        }
        let mut list: Vec<Material> = found.into_iter().collect();
        list.sort_by_key(|m| (m.piece_count(), m.to_string()));
        list
    }
}

/// Which defenders (advisors and elephants) the materials of a
/// [`MaterialClass`] give each side.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum Defenders {
    /// None: kings and attacking pieces only.
    None,
    /// Any number of advisors and elephants (0 to 2 each), on each side
    /// independently.
    Any,
    /// Both advisors and both elephants on both sides.
    Full,
}

/// A set of tables named by what is on the board rather than by name: at
/// most `max_attackers` attacking pieces (rooks, horses, cannons, pawns)
/// in all, at most `max_attackers_per_side` on one side, defenders as
/// `defenders` says, at most `max_pieces` pieces.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub struct MaterialClass {
    pub max_attackers: usize,
    pub max_attackers_per_side: usize,
    pub defenders: Defenders,
    pub max_pieces: usize,
}

impl MaterialClass {
    /// The class's materials, canonical, without dead draws, smallest
    /// first. (Building them also builds what their captures lead into,
    /// which may lie outside the class: see `egtbgen::plan`.)
    pub fn materials(&self) -> Vec<Material> {
        const ATTACKERS: [Role; 4] = [Role::Rook, Role::Horse, Role::Cannon, Role::Pawn];
        let mut armies = Vec::new();
        piece_choices(
            &mut [0u8; 7],
            0,
            self.max_attackers_per_side,
            &ATTACKERS,
            &mut armies,
        );
        let defence: Vec<(u8, u8)> = match self.defenders {
            Defenders::None => vec![(0, 0)],
            Defenders::Full => vec![(2, 2)],
            Defenders::Any => (0..=2).flat_map(|a| (0..=2).map(move |b| (a, b))).collect(),
        };
        let mut sides = Vec::new();
        for army in &armies {
            for &(advisors, elephants) in &defence {
                let mut side = *army;
                side[Role::King.index()] = 1;
                side[Role::Advisor.index()] = advisors;
                side[Role::Elephant.index()] = elephants;
                sides.push(side);
            }
        }
        let attackers = |side: &[u8; 7]| {
            ATTACKERS
                .iter()
                .map(|r| side[r.index()] as usize)
                .sum::<usize>()
        };
        let mut found = std::collections::BTreeSet::new();
        for a in &sides {
            for b in &sides {
                let m = Material { counts: [*a, *b] };
                if attackers(a) + attackers(b) <= self.max_attackers
                    && m.piece_count() <= self.max_pieces
                    && !m.is_dead_draw()
                {
                    found.insert(m.canonical().0);
                }
            }
        }
        let mut list: Vec<Material> = found.into_iter().collect();
        list.sort_by_key(|m| (m.piece_count(), m.to_string()));
        list
    }
}

/// Every choice of up to `left` more pieces from `roles[from..]` (within
/// each role's count) added to `side`, appended to `out`.
fn piece_choices(
    side: &mut [u8; 7],
    from: usize,
    left: usize,
    roles: &[Role],
    out: &mut Vec<[u8; 7]>,
) {
    out.push(*side);
    if left == 0 {
        return;
    }
    for (i, &role) in roles.iter().enumerate().skip(from) {
        if (side[role.index()] as usize) < role.max_count() {
            side[role.index()] += 1;
            piece_choices(side, i, left - 1, roles, out);
            side[role.index()] -= 1;
        }
    }
}

fn side_name(side: &[u8; 7]) -> String {
    WRITING_ORDER
        .iter()
        .flat_map(|&r| std::iter::repeat_n(letter(r), side[r.index()] as usize))
        .collect()
}

impl fmt::Display for Material {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        write!(
            f,
            "{}{}",
            side_name(&self.counts[0]),
            side_name(&self.counts[1])
        )
    }
}

impl fmt::Debug for Material {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        write!(f, "Material({self})")
    }
}

impl FromStr for Material {
    type Err = MaterialError;

    /// Reads a name such as `KRKAABB` (either case; `E` and `H` are read as
    /// elephant and horse). The sides are kept in the order written: use
    /// [`Material::canonical`] for the table's own name.
    fn from_str(name: &str) -> Result<Material, MaterialError> {
        let mut counts = [[0u8; 7]; 2];
        let mut side: Option<usize> = None;
        for ch in name.chars() {
            let role = Role::from_char(ch).ok_or_else(|| MaterialError::UnknownLetter {
                name: name.to_string(),
                letter: ch,
            })?;
            if role == Role::King {
                side = match side {
                    None => Some(0),
                    Some(0) => Some(1),
                    Some(_) => {
                        return Err(MaterialError::NotTwoSides {
                            name: name.to_string(),
                        })
                    }
                };
            }
            let Some(s) = side else {
                return Err(MaterialError::NotTwoSides {
                    name: name.to_string(),
                });
            };
            counts[s][role.index()] += 1;
            let count = counts[s][role.index()] as usize;
            if count > role.max_count() {
                return Err(MaterialError::TooMany {
                    name: name.to_string(),
                    role: role.name(),
                    count,
                    max: role.max_count(),
                });
            }
        }
        if side != Some(1) {
            return Err(MaterialError::NotTwoSides {
                name: name.to_string(),
            });
        }
        Ok(Material { counts })
    }
}

/// The colour that plays side `side` of a table when `swapped` says whether
/// the position's colours are the table's reversed.
pub fn color_of_side(side: usize, swapped: bool) -> Color {
    match (side == 0) != swapped {
        true => Color::Red,
        false => Color::Black,
    }
}

/// The piece `role` of side `side` as placed in a table (side 0 is Red).
pub fn table_piece(side: usize, role: Role) -> Piece {
    Piece::new(color_of_side(side, false), role)
}

#[cfg(test)]
mod tests {
    use super::*;

    fn m(s: &str) -> Material {
        s.parse().unwrap()
    }

    #[test]
    fn names_read_and_print_in_writing_order() {
        assert_eq!(m("KRKAABB").to_string(), "KRKAABB");
        assert_eq!(m("kbbaakr").to_string(), "KAABBKR");
        assert_eq!(m("KRKAABB").count(1, Role::Elephant), 2);
        assert_eq!(m("KHEKE").to_string(), "KNBKB");
    }

    #[test]
    fn the_stronger_side_is_written_first() {
        assert_eq!(m("KAABBKR").canonical(), (m("KRKAABB"), true));
        assert_eq!(m("KRKAABB").canonical(), (m("KRKAABB"), false));
        assert_eq!(m("KCKR").canonical().0.to_string(), "KRKC");
        assert!(m("KRKR").is_symmetric());
        assert_eq!(m("KAKP").canonical(), (m("KPKA"), true));
        assert_eq!(m("KAABBKP").canonical().0.to_string(), "KPKAABB");
    }

    #[test]
    fn bad_names_are_refused_with_the_reason() {
        assert!(matches!(
            "KRXK".parse::<Material>(),
            Err(MaterialError::UnknownLetter { letter: 'X', .. })
        ));
        assert!(matches!(
            "RK".parse::<Material>(),
            Err(MaterialError::NotTwoSides { .. })
        ));
        assert!(matches!(
            "KRRRK".parse::<Material>(),
            Err(MaterialError::TooMany { count: 3, .. })
        ));
        assert!(matches!("KRK".parse::<Material>().map(|_| ()), Ok(())));
        assert!(matches!(
            "KKKR".parse::<Material>(),
            Err(MaterialError::NotTwoSides { .. })
        ));
    }

    #[test]
    fn dependencies_are_the_capture_closure_without_dead_draws() {
        let deps: Vec<String> = m("KRKAABB")
            .dependencies()
            .iter()
            .map(|d| d.to_string())
            .collect();
        // Every subset of the defenders against the rook; the rook's capture
        // leaves no attacker on either side.
        for want in [
            "KRK", "KRKA", "KRKB", "KRKAA", "KRKAB", "KRKBB", "KRKAAB", "KRKABB",
        ] {
            assert!(deps.contains(&want.to_string()), "{want} in {deps:?}");
        }
        assert_eq!(deps.len(), 8, "{deps:?}");
        assert!(!deps.contains(&"KRKAABB".to_string()));
    }

    #[test]
    fn classes_list_their_materials_once() {
        let names = |class: MaterialClass| -> Vec<String> {
            class.materials().iter().map(|m| m.to_string()).collect()
        };
        let bare = MaterialClass {
            max_attackers: 1,
            max_attackers_per_side: 1,
            defenders: Defenders::None,
            max_pieces: 32,
        };
        assert_eq!(names(bare), ["KCK", "KNK", "KPK", "KRK"]);
        // One attacker, any defenders: 4 attackers x 9 defences x 9 defences.
        let any = MaterialClass {
            defenders: Defenders::Any,
            ..bare
        };
        let listed = names(any);
        assert_eq!(listed.len(), 4 * 9 * 9);
        assert!(listed.contains(&"KRAABBKAABB".to_string()));
        assert!(listed.contains(&"KPKA".to_string()));
        let full = MaterialClass {
            defenders: Defenders::Full,
            ..bare
        };
        assert_eq!(
            names(full),
            ["KCAABBKAABB", "KNAABBKAABB", "KPAABBKAABB", "KRAABBKAABB"]
        );
        // One attacker a side: KRKR is in, KRRK is not; the piece bound cuts.
        let each = MaterialClass {
            max_attackers: 2,
            max_pieces: 4,
            ..bare
        };
        let listed = names(each);
        assert!(listed.contains(&"KRKR".to_string()) && listed.contains(&"KRK".to_string()));
        assert!(!listed.iter().any(|n| n == "KRRK" || n.len() > 4));
        // Exactly the materials of up to 4 pieces with no defenders and
        // at most one attacker a side.
        let attackers = |m: &Material, side| {
            [Role::Rook, Role::Horse, Role::Cannon, Role::Pawn]
                .iter()
                .map(|&r| m.count(side, r))
                .sum::<usize>()
        };
        let mut want: Vec<String> = Material::all_up_to(4)
            .iter()
            .filter(|m| (0..2).all(|side| attackers(m, side) <= 1))
            .filter(|m| !m.to_string().contains(['A', 'B']))
            .map(|m| m.to_string())
            .collect();
        let mut listed = listed;
        want.sort();
        listed.sort();
        assert_eq!(listed, want);
    }

    #[test]
    fn all_small_materials_are_listed_once() {
        let three = Material::all_up_to(3);
        let names: Vec<String> = three.iter().map(|m| m.to_string()).collect();
        assert_eq!(names, ["KCK", "KNK", "KPK", "KRK"]);
        let four = Material::all_up_to(4);
        assert!(four
            .iter()
            .all(|m| m.piece_count() <= 4 && !m.is_dead_draw()));
        assert!(four.iter().any(|m| m.to_string() == "KRKR"));
        assert!(four.iter().any(|m| m.to_string() == "KRKA"));
        assert!(!four.iter().any(|m| m.to_string() == "KAKA"));
        let mut sorted = four.clone();
        sorted.dedup();
        assert_eq!(sorted.len(), four.len());
    }
}
