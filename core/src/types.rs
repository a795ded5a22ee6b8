//! Small `Copy` types: colours, roles, pieces and squares.

use std::fmt;

/// The side a piece belongs to. Red moves first and sits on ranks 0-4.
#[derive(Clone, Copy, PartialEq, Eq, Hash, Debug, PartialOrd, Ord)]
pub enum Color {
    Red = 0,
    Black = 1,
}

impl Color {
    /// Both colours, Red first.
    pub const ALL: [Color; 2] = [Color::Red, Color::Black];

    /// Index 0 for Red, 1 for Black.
    #[inline]
    pub const fn index(self) -> usize {
        self as usize
    }

    /// The colour's name in lower case: `red`, `black`.
    pub const fn name(self) -> &'static str {
        match self {
            Color::Red => "red",
            Color::Black => "black",
        }
    }

    /// The FEN side-to-move letter (`w` for Red, as UCCI writes it, `b` for Black).
    pub const fn fen_char(self) -> char {
        match self {
            Color::Red => 'w',
            Color::Black => 'b',
        }
    }
}

impl std::ops::Not for Color {
    type Output = Color;
    #[inline]
    fn not(self) -> Color {
        match self {
            Color::Red => Color::Black,
            Color::Black => Color::Red,
        }
    }
}

/// The kind of a piece, independent of colour.
#[derive(Clone, Copy, PartialEq, Eq, Hash, Debug, PartialOrd, Ord)]
pub enum Role {
    King = 0,
    Advisor = 1,
    Elephant = 2,
    Horse = 3,
    Rook = 4,
    Cannon = 5,
    Pawn = 6,
}

impl Role {
    /// Every role, in index order.
    pub const ALL: [Role; 7] = [
        Role::King,
        Role::Advisor,
        Role::Elephant,
        Role::Horse,
        Role::Rook,
        Role::Cannon,
        Role::Pawn,
    ];

    /// Index 0..7 in the order of [`Role::ALL`].
    #[inline]
    pub const fn index(self) -> usize {
        self as usize
    }

    /// Lower-case FEN letter: k a b n r c p.
    pub const fn char(self) -> char {
        match self {
            Role::King => 'k',
            Role::Advisor => 'a',
            Role::Elephant => 'b',
            Role::Horse => 'n',
            Role::Rook => 'r',
            Role::Cannon => 'c',
            Role::Pawn => 'p',
        }
    }

    /// Reads a FEN letter of either case; also accepts `e` (elephant) and `h` (horse).
    pub fn from_char(c: char) -> Option<Role> {
        Some(match c.to_ascii_lowercase() {
            'k' => Role::King,
            'a' => Role::Advisor,
            'b' | 'e' => Role::Elephant,
            'n' | 'h' => Role::Horse,
            'r' => Role::Rook,
            'c' => Role::Cannon,
            'p' => Role::Pawn,
            _ => return None,
        })
    }

    /// How many pieces of this role one side starts with (and may ever have).
    pub const fn max_count(self) -> usize {
        match self {
            Role::King => 1,
            Role::Pawn => 5,
            _ => 2,
        }
    }

    /// The English name, for messages.
    pub const fn name(self) -> &'static str {
        match self {
            Role::King => "king",
            Role::Advisor => "advisor",
            Role::Elephant => "elephant",
            Role::Horse => "horse",
            Role::Rook => "rook",
            Role::Cannon => "cannon",
            Role::Pawn => "pawn",
        }
    }
}

/// A coloured piece.
#[derive(Clone, Copy, PartialEq, Eq, Hash, Debug)]
pub struct Piece {
    pub color: Color,
    pub role: Role,
}

impl Piece {
    /// Builds a piece.
    pub const fn new(color: Color, role: Role) -> Piece {
        Piece { color, role }
    }

    /// Dense index 0..14: Red roles 0..7, Black roles 7..14.
    #[inline]
    pub const fn index(self) -> usize {
        self.color.index() * 7 + self.role.index()
    }

    /// Inverse of [`Piece::index`].
    #[inline]
    pub const fn from_index(i: usize) -> Piece {
        let color = if i < 7 { Color::Red } else { Color::Black };
        Piece::new(color, Role::ALL[i % 7])
    }

    /// FEN letter: upper case for Red.
    pub const fn char(self) -> char {
        let c = self.role.char();
        match self.color {
            Color::Red => c.to_ascii_uppercase(),
            Color::Black => c,
        }
    }

    /// Reads a FEN letter (upper case Red); `e` and `h` are accepted too.
    pub fn from_char(c: char) -> Option<Piece> {
        let role = Role::from_char(c)?;
        let color = if c.is_ascii_uppercase() {
            Color::Red
        } else {
            Color::Black
        };
        Some(Piece::new(color, role))
    }
}

impl fmt::Display for Piece {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        let color = match self.color {
            Color::Red => "red",
            Color::Black => "black",
        };
        write!(f, "{color} {}", self.role.name())
    }
}

/// Number of squares on the board: 9 files by 10 ranks.
pub const NUM_SQUARES: usize = 90;

/// A square: file `a`..`i` (0..9) and rank 0..10 counted from Red's side, as in
/// ICCS moves (`h2e2`). Its index is `rank * 9 + file`.
#[derive(Clone, Copy, PartialEq, Eq, Hash, PartialOrd, Ord)]
pub struct Square(u8);

impl Square {
    /// Builds a square from file (0..9) and rank (0..10); `None` when off the board.
    #[inline]
    pub const fn new(file: u8, rank: u8) -> Option<Square> {
        if file < 9 && rank < 10 {
            Some(Square(rank * 9 + file))
        } else {
            None
        }
    }

    /// Builds a square from its index 0..90; `None` when out of range.
    #[inline]
    pub const fn from_index(index: usize) -> Option<Square> {
        if index < NUM_SQUARES {
            Some(Square(index as u8))
        } else {
            None
        }
    }

    /// Builds a square from an index known to be below 90.
    #[inline]
    pub(crate) const fn from_index_unchecked(index: usize) -> Square {
        debug_assert!(index < NUM_SQUARES);
        Square(index as u8)
    }

    /// The index `rank * 9 + file`.
    #[inline]
    pub const fn index(self) -> usize {
        self.0 as usize
    }

    /// File 0..9 (`a`..`i`).
    #[inline]
    pub const fn file(self) -> u8 {
        self.0 % 9
    }

    /// Rank 0..10 from Red's side.
    #[inline]
    pub const fn rank(self) -> u8 {
        self.0 / 9
    }

    /// The square seen in a left-right mirror (file `a` <-> `i`).
    #[inline]
    pub const fn mirror(self) -> Square {
        Square(self.rank() * 9 + 8 - self.file())
    }

    /// The square seen from the other side (rank r <-> 9 - r, file f <-> 8 - f),
    /// used to swap colours.
    #[inline]
    pub const fn rotate(self) -> Square {
        Square(89 - self.0)
    }

    /// Parses `a0`..`i9`, either case.
    pub fn parse(s: &str) -> Option<Square> {
        let b = s.as_bytes();
        if b.len() != 2 {
            return None;
        }
        let file = b[0].to_ascii_lowercase().wrapping_sub(b'a');
        let rank = b[1].wrapping_sub(b'0');
        Square::new(file, rank)
    }

    /// Iterates all 90 squares in index order.
    pub fn all() -> impl Iterator<Item = Square> {
        (0..NUM_SQUARES as u8).map(Square)
    }

    /// Whether the square lies on `color`'s half of the board (before the river).
    #[inline]
    pub const fn on_own_side(self, color: Color) -> bool {
        match color {
            Color::Red => self.rank() <= 4,
            Color::Black => self.rank() >= 5,
        }
    }

    /// Whether the square lies in `color`'s palace (files d-f, three ranks).
    #[inline]
    pub const fn in_palace(self, color: Color) -> bool {
        let f = self.file();
        let r = self.rank();
        f >= 3
            && f <= 5
            && match color {
                Color::Red => r <= 2,
                Color::Black => r >= 7,
            }
    }
}

impl fmt::Display for Square {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        write!(f, "{}{}", (b'a' + self.file()) as char, self.rank())
    }
}

impl fmt::Debug for Square {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        fmt::Display::fmt(self, f)
    }
}
