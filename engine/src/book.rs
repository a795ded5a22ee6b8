//! Opening books as the engine uses them: the files of `bookfiles`, opened
//! when set (or on first use), probed in order; a move chosen by weight,
//! never a banned move or one that repeats a position.
//!
//! Our own books and ElephantEye's `BOOK.DAT` are both read
//! ([`xqbook::open`] tells them apart).

use std::path::{Path, PathBuf};

use xqbook::AnyBook;
use xqcore::{Move, Position};

/// The default book's file name in data/.
pub const DEFAULT_BOOK: &str = "data/book.xqb";

/// How much chance picks among book moves (UCCI `selectivity`).
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum BookVariety {
    /// Always the heaviest move.
    None,
    /// At random, in proportion to weight squared: mostly the main lines.
    Small,
    /// In proportion to weight.
    Medium,
    /// In proportion to the square root of the weight: side lines often.
    Large,
}

/// A book move chosen, with the candidates it was chosen from.
#[derive(Clone, Debug, PartialEq, Eq)]
pub struct BookChoice {
    /// The move to play.
    pub mv: Move,
    /// Every playable candidate with its weight, heaviest first.
    pub candidates: Vec<(Move, u32)>,
}

/// The engine's books: the configured files, opened on first use.
#[derive(Debug, Default)]
pub struct Books {
    files: Vec<String>,
    open: Option<Vec<AnyBook>>,
}

impl Books {
    /// Sets the book files (`;`-separated in the protocol); they are opened
    /// on the next probe or [`Books::load`].
    pub fn set_files(&mut self, files: Vec<String>) {
        self.files = files;
        self.open = None;
    }

    /// The configured files, or the default book when none are.
    pub fn files(&self) -> Vec<PathBuf> {
        if self.files.is_empty() {
            default_book().into_iter().collect()
        } else {
            self.files.iter().map(PathBuf::from).collect()
        }
    }

    /// Opens the book files now; returns a message for each that could not
    /// be opened (it is left out).
    pub fn load(&mut self) -> Vec<String> {
        let mut open = Vec::new();
        let mut errors = Vec::new();
        for path in self.files() {
            match xqbook::open(&path) {
                Ok(b) => open.push(b),
                Err(e) => errors.push(format!("book not used: {e}")),
            }
        }
        self.open = Some(open);
        errors
    }

    /// Whether any book file is open (after [`Books::load`]).
    pub fn loaded(&self) -> usize {
        self.open.as_ref().map_or(0, Vec::len)
    }

    /// Picks a book move for `pos` from the first book that has a playable
    /// one: legal, not banned, not repeating a position. `random` is a
    /// uniform value in 0..1 for the weighted choice. Messages report books
    /// that fail while probed.
    pub fn choose(
        &mut self,
        pos: &Position,
        banned: &[Move],
        variety: BookVariety,
        random: f64,
        messages: &mut Vec<String>,
    ) -> Option<BookChoice> {
        if self.open.is_none() {
            messages.extend(self.load());
        }
        for book in self.open.as_deref().unwrap_or_default() {
            let moves = match book.probe(pos) {
                Ok(m) => m,
                Err(e) => {
                    messages.push(format!("book not used: {e}"));
                    continue;
                }
            };
            let mut candidates: Vec<(Move, u32)> = moves
                .into_iter()
                .map(|m| (m.mv, m.weight))
                .filter(|(m, w)| *w > 0 && !banned.contains(m) && !repeats(pos, *m))
                .collect();
            if candidates.is_empty() {
                continue;
            }
            candidates.sort_by(|a, b| b.1.cmp(&a.1).then(a.0.cmp(&b.0)));
            let mv = pick(&candidates, variety, random);
            return Some(BookChoice { mv, candidates });
        }
        None
    }
}

/// Whether playing `m` brings back a position seen before.
fn repeats(pos: &Position, m: Move) -> bool {
    let mut after = pos.clone();
    after.make_move(m);
    after.repetition().is_some()
}

/// A weighted choice among candidates sorted heaviest first.
fn pick(candidates: &[(Move, u32)], variety: BookVariety, random: f64) -> Move {
    let share = |w: u32| -> f64 {
        let w = f64::from(w);
        match variety {
            BookVariety::None => 0.0,
            BookVariety::Small => w * w,
            BookVariety::Medium => w,
            BookVariety::Large => w.sqrt(),
        }
    };
    if variety == BookVariety::None {
        return candidates[0].0;
    }
    let total: f64 = candidates.iter().map(|c| share(c.1)).sum();
    let mut target = random.clamp(0.0, 1.0) * total;
    for &(m, w) in candidates {
        target -= share(w);
        if target < 0.0 {
            return m;
        }
    }
    candidates[candidates.len() - 1].0
}

/// The default book: data/book.xqb under the working directory, or under
/// the directory of the executable or its ancestors (a build tree's
/// `target/release` finds the repository's data/).
pub fn default_book() -> Option<PathBuf> {
    find_data(DEFAULT_BOOK, Path::is_file)
}

/// `relative` (a path under the repository, like data/book.xqb) under the
/// working directory, else under the executable's directory or one of its
/// ancestors: the first that `accept`s.
pub(crate) fn find_data(relative: &str, accept: fn(&Path) -> bool) -> Option<PathBuf> {
    let cwd = PathBuf::from(relative);
    if accept(&cwd) {
        return Some(cwd);
    }
    let exe = std::env::current_exe().ok()?;
    exe.ancestors()
        .skip(1)
        .take(4)
        .map(|dir| dir.join(relative))
        .find(|p| accept(p))
}

#[cfg(test)]
mod tests {
    use super::*;

    fn mv(pos: &Position, s: &str) -> Move {
        pos.parse_move(s).unwrap()
    }

    #[test]
    fn choices_follow_the_variety() {
        let pos = Position::start();
        let c = [
            (mv(&pos, "h2e2"), 100),
            (mv(&pos, "c3c4"), 10),
            (mv(&pos, "g0e2"), 1),
        ];
        for r in [0.0, 0.5, 0.999] {
            assert_eq!(pick(&c, BookVariety::None, r), c[0].0);
        }
        // Medium: shares 100, 10, 1 of 111.
        assert_eq!(pick(&c, BookVariety::Medium, 0.5), c[0].0);
        assert_eq!(pick(&c, BookVariety::Medium, 0.95), c[1].0);
        assert_eq!(pick(&c, BookVariety::Medium, 0.999), c[2].0);
        // Small squares the weights: the side lines almost never.
        assert_eq!(pick(&c, BookVariety::Small, 0.98), c[0].0);
        // Large takes roots: 10, 3.2, 1 of 14.2.
        assert_eq!(pick(&c, BookVariety::Large, 0.8), c[1].0);
    }

    #[test]
    fn banned_and_repeating_moves_are_never_chosen() {
        let eleeye = Path::new(env!("CARGO_MANIFEST_DIR")).join("../data/eleeye/BOOK.DAT");
        let mut books = Books::default();
        books.set_files(vec![eleeye.to_str().unwrap().into()]);
        let pos = Position::start();
        let mut messages = Vec::new();
        let first = books
            .choose(&pos, &[], BookVariety::None, 0.0, &mut messages)
            .unwrap();
        assert!(messages.is_empty(), "{messages:?}");
        // ElephantEye's start: b2e2 and h2e2 share the top weight.
        assert_eq!(first.mv.to_string(), "b2e2");
        let banned = [first.mv, mv(&pos, "h2e2")];
        let next = books
            .choose(&pos, &banned, BookVariety::None, 0.0, &mut messages)
            .unwrap();
        assert_eq!(next.mv.to_string(), "c3c4");
        assert!(next.candidates.iter().all(|(m, _)| !banned.contains(m)));
        // Moves played back and forth return to the start.
        let mut pos = Position::start();
        for m in ["h2e2", "h9g7", "e2h2", "g7h9"] {
            pos.make_move(mv(&pos, m));
        }
        // Back at the start with the same side to move: h2e2 now repeats,
        // so with b2e2 banned the next heaviest, c3c4, is played.
        let again = books
            .choose(
                &pos,
                &[mv(&pos, "b2e2")],
                BookVariety::None,
                0.0,
                &mut messages,
            )
            .unwrap();
        assert_eq!(again.mv.to_string(), "c3c4");
        assert!(again
            .candidates
            .iter()
            .all(|(m, _)| m.to_string() != "h2e2"));
    }

    #[test]
    fn unreadable_books_are_reported_and_skipped() {
        let dir = std::env::temp_dir().join(format!("xqbook-test-{}", std::process::id()));
        std::fs::create_dir_all(&dir).unwrap();
        let bad = dir.join("bad.xqb");
        std::fs::write(&bad, b"XQBOOK\0\0garbage").unwrap();
        let eleeye = Path::new(env!("CARGO_MANIFEST_DIR")).join("../data/eleeye/BOOK.DAT");
        let mut books = Books::default();
        books.set_files(vec![
            bad.to_str().unwrap().into(),
            dir.join("missing.xqb").to_str().unwrap().into(),
            eleeye.to_str().unwrap().into(),
        ]);
        let messages = books.load();
        assert_eq!(messages.len(), 2, "{messages:?}");
        assert!(messages[0].contains("bad.xqb"), "{messages:?}");
        assert!(messages[1].contains("missing.xqb"), "{messages:?}");
        assert_eq!(books.loaded(), 1);
        let mut m = Vec::new();
        assert!(books
            .choose(&Position::start(), &[], BookVariety::None, 0.0, &mut m)
            .is_some());
        std::fs::remove_dir_all(&dir).unwrap();
    }
}
