//! Opening books as the engine uses them: the files of `bookfiles` (or the
//! default ones the engine is given), opened when set (or on first use),
//! probed in order; a move chosen by weight, never a banned move or one
//! that repeats a position. When to play from them (a game move's answer)
//! is the engine's to decide.
//!
//! Our own books and ElephantEye's `BOOK.DAT` are both read
//! ([`xqbook::open`] tells them apart). A book of ours may have an
//! analysis beside it ([`xqbook::Analysis`]): then the engine chooses only
//! among the moves whose backed-up score is within a margin of the best,
//! by weight among those, and says each candidate's score and games.

use std::path::PathBuf;

use xqbook::BookFile;
use xqcore::{Move, Position, SplitMix64};

/// How much chance picks among book moves (`bookvariety`, and `selectivity`).
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

impl BookVariety {
    /// How often each of `candidates` (heaviest first, as
    /// [`BookChoice::candidates`] lists them) is chosen: shares adding up
    /// to 1, or nothing for no candidates.
    pub fn shares(self, candidates: &[BookCandidate]) -> Vec<f64> {
        let odds = |w: u32| -> f64 {
            let w = f64::from(w);
            match self {
                BookVariety::None => 0.0,
                BookVariety::Small => w * w,
                BookVariety::Medium => w,
                BookVariety::Large => w.sqrt(),
            }
        };
        let total: f64 = candidates.iter().map(|c| odds(c.weight)).sum();
        if self == BookVariety::None || total == 0.0 {
            // The heaviest always (and with no weight at all, the first).
            return (0..candidates.len())
                .map(|i| if i == 0 { 1.0 } else { 0.0 })
                .collect();
        }
        candidates.iter().map(|c| odds(c.weight) / total).collect()
    }
}

/// A move the engine may play from its book, as it reports it.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub struct BookCandidate {
    pub mv: Move,
    /// How often it is to be played, among the candidates.
    pub weight: u32,
    /// Games that played it, in a book that keeps them (ours).
    pub games: Option<u32>,
    /// Its backed-up score for the mover, in an analysed book.
    pub score: Option<i16>,
}

/// A book move chosen, with the candidates it was chosen from.
#[derive(Clone, Debug, PartialEq, Eq)]
pub struct BookChoice {
    /// The move to play.
    pub mv: Move,
    /// Every playable candidate, heaviest first.
    pub candidates: Vec<BookCandidate>,
}

/// The engine's books: the configured files (or the default ones), opened
/// on first use, and the generator behind weighted choices.
#[derive(Debug)]
pub struct Books {
    files: Vec<String>,
    /// The files played from when `files` is empty.
    defaults: Vec<PathBuf>,
    open: Option<Vec<BookFile>>,
    random: SplitMix64,
}

impl Default for Books {
    fn default() -> Self {
        Books::new(0)
    }
}

/// The constant mixed into a book generator's seed.
const BOOK_SEED: u64 = 0x2545_F491_4F6C_DD1D;

impl Books {
    /// No books yet; weighted choices drawn from `seed`.
    pub fn new(seed: u64) -> Books {
        Books {
            files: Vec::new(),
            defaults: Vec::new(),
            open: None,
            random: SplitMix64::new(BOOK_SEED ^ seed),
        }
    }

    /// Mixes `entropy` into the generator behind weighted choices (a new
    /// game).
    pub fn reseed(&mut self, entropy: u64) {
        self.random.mix(entropy);
    }

    /// The generator behind weighted choices, as it stands.
    #[cfg(test)]
    pub(crate) fn random(&self) -> SplitMix64 {
        self.random
    }

    /// Sets the book files (`;`-separated in the protocol); they are opened
    /// on the next probe or [`Books::load`].
    pub fn set_files(&mut self, files: Vec<String>) {
        self.files = files;
        self.open = None;
    }

    /// Sets the books played from when no files are set; when they are
    /// the ones in use, they are opened anew on the next probe.
    pub fn set_defaults(&mut self, defaults: Vec<PathBuf>) {
        self.defaults = defaults;
        if self.files.is_empty() {
            self.open = None;
        }
    }

    /// The configured files, or the default books when none are.
    pub fn files(&self) -> Vec<PathBuf> {
        if self.files.is_empty() {
            self.defaults.clone()
        } else {
            self.files.iter().map(PathBuf::from).collect()
        }
    }

    /// Opens the book files now, each with its analysis when there is one;
    /// returns a message for each book that could not be opened (it is
    /// left out) and each analysis that cannot be used (its book then
    /// plays by weight).
    pub fn load(&mut self) -> Vec<String> {
        let mut open = Vec::new();
        let mut errors = Vec::new();
        for path in self.files() {
            match BookFile::open(&path) {
                Ok((book, None)) => open.push(book),
                Ok((book, Some(e))) => {
                    errors.push(format!(
                        "book analysis not used, {} plays by weight: {e}",
                        path.display()
                    ));
                    open.push(book);
                }
                Err(e) => errors.push(format!("book not used: {e}")),
            }
        }
        self.open = Some(open);
        errors
    }

    /// Opens the book files unless they are open already (or were tried
    /// since the files were last set); returns [`Books::load`]'s messages.
    pub fn ensure_loaded(&mut self) -> Vec<String> {
        if self.open.is_some() {
            return Vec::new();
        }
        self.load()
    }

    /// Whether any book file is open (after [`Books::load`]).
    pub fn loaded(&self) -> usize {
        self.open.as_ref().map_or(0, Vec::len)
    }

    /// A book move for `pos`, chosen as [`Books::choose`] does with the
    /// books' own generator.
    pub fn draw(
        &mut self,
        pos: &Position,
        banned: &[Move],
        variety: BookVariety,
        margin: i16,
        messages: &mut Vec<String>,
    ) -> Option<BookChoice> {
        let random = self.random.unit();
        self.choose(pos, banned, variety, margin, random, messages)
    }

    /// Picks a book move for `pos` from the first book that has a playable
    /// one: legal, not banned, not repeating a position and, in an
    /// analysed book, scored within `margin` centipawns of the best the
    /// analysis knows there. `random` is a uniform value in 0..1 for the
    /// weighted choice. Messages report books that fail while probed.
    pub fn choose(
        &mut self,
        pos: &Position,
        banned: &[Move],
        variety: BookVariety,
        margin: i16,
        random: f64,
        messages: &mut Vec<String>,
    ) -> Option<BookChoice> {
        messages.extend(self.ensure_loaded());
        for open in self.open.as_deref().unwrap_or_default() {
            let mut candidates = match candidates(open, pos, margin) {
                Ok(c) => c,
                Err(e) => {
                    messages.push(format!("book not used: {e}"));
                    continue;
                }
            };
            candidates.retain(|c| c.weight > 0 && !banned.contains(&c.mv) && !repeats(pos, c.mv));
            if candidates.is_empty() {
                continue;
            }
            candidates.sort_by(|a, b| b.weight.cmp(&a.weight).then(a.mv.cmp(&b.mv)));
            let mv = pick(&candidates, variety, random);
            return Some(BookChoice { mv, candidates });
        }
        None
    }
}

/// The moves of `pos` the book offers: every book move by weight, or, where
/// the analysis knows the position, its moves within `margin` of the best
/// value (a move the analysis added, which no game played, weighs 1).
fn candidates(
    open: &BookFile,
    pos: &Position,
    margin: i16,
) -> Result<Vec<BookCandidate>, xqbook::BookError> {
    let moves = open.book.probe(pos)?;
    let analysed = open.analysis.as_ref().and_then(|a| a.probe(pos));
    let Some(analysed) = analysed else {
        return Ok(moves
            .iter()
            .map(|m| BookCandidate {
                mv: m.mv,
                weight: m.weight,
                games: m.stats.map(|s| s.games),
                score: None,
            })
            .collect());
    };
    Ok(analysed
        .within(margin)
        .map(|m| {
            let known = moves.iter().find(|b| b.mv == m.mv);
            BookCandidate {
                mv: m.mv,
                weight: known.map_or(1, |b| b.weight.max(1)),
                games: Some(known.and_then(|b| b.stats).map_or(0, |s| s.games)),
                score: Some(m.score),
            }
        })
        .collect())
}

/// Whether playing `m` brings back a position seen before.
fn repeats(pos: &Position, m: Move) -> bool {
    let mut after = pos.clone();
    after.make_move(m);
    after.repetition().is_some()
}

/// A weighted choice among candidates sorted heaviest first.
fn pick(candidates: &[BookCandidate], variety: BookVariety, random: f64) -> Move {
    let shares = variety.shares(candidates);
    let mut target = random.clamp(0.0, 1.0);
    for (c, share) in candidates.iter().zip(&shares) {
        target -= share;
        if target < 0.0 {
            return c.mv;
        }
    }
    // Rounding, or `random` of 1: the last move with a share.
    let last = shares.iter().rposition(|&s| s > 0.0).unwrap_or(0);
    candidates[last].mv
}

#[cfg(test)]
mod tests {
    use super::*;
    use std::path::Path;

    fn mv(pos: &Position, s: &str) -> Move {
        pos.parse_move(s).unwrap()
    }

    #[test]
    fn choices_follow_the_variety() {
        let pos = Position::start();
        let c = [("h2e2", 100), ("c3c4", 10), ("g0e2", 1)].map(|(m, weight)| BookCandidate {
            mv: mv(&pos, m),
            weight,
            games: None,
            score: None,
        });
        for r in [0.0, 0.5, 0.999] {
            assert_eq!(pick(&c, BookVariety::None, r), c[0].mv);
        }
        // Medium: shares 100, 10, 1 of 111.
        assert_eq!(pick(&c, BookVariety::Medium, 0.5), c[0].mv);
        assert_eq!(pick(&c, BookVariety::Medium, 0.95), c[1].mv);
        assert_eq!(pick(&c, BookVariety::Medium, 0.999), c[2].mv);
        // Small squares the weights: the side lines almost never.
        assert_eq!(pick(&c, BookVariety::Small, 0.98), c[0].mv);
        // Large takes roots: 10, 3.2, 1 of 14.2.
        assert_eq!(pick(&c, BookVariety::Large, 0.8), c[1].mv);
        for variety in [BookVariety::None, BookVariety::Small, BookVariety::Large] {
            assert_eq!(
                pick(&c, variety, 1.0),
                c[if variety == BookVariety::None { 0 } else { 2 }].mv
            );
        }
        let shares = BookVariety::Small.shares(&c);
        assert!((shares[1] - 100.0 / 10101.0).abs() < 1e-12, "{shares:?}");
        assert_eq!(BookVariety::None.shares(&c), [1.0, 0.0, 0.0]);
        assert!(BookVariety::Medium.shares(&[]).is_empty());
    }

    #[test]
    fn banned_and_repeating_moves_are_never_chosen() {
        let eleeye = Path::new(env!("CARGO_MANIFEST_DIR")).join("../data/eleeye/BOOK.DAT");
        let mut books = Books::default();
        books.set_files(vec![eleeye.to_str().unwrap().into()]);
        let pos = Position::start();
        let mut messages = Vec::new();
        let first = books
            .choose(&pos, &[], BookVariety::None, 0, 0.0, &mut messages)
            .unwrap();
        assert!(messages.is_empty(), "{messages:?}");
        // ElephantEye's start: b2e2 and h2e2 share the top weight.
        assert_eq!(first.mv.to_string(), "b2e2");
        let banned = [first.mv, mv(&pos, "h2e2")];
        let next = books
            .choose(&pos, &banned, BookVariety::None, 0, 0.0, &mut messages)
            .unwrap();
        assert_eq!(next.mv.to_string(), "c3c4");
        assert!(next.candidates.iter().all(|c| !banned.contains(&c.mv)));
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
                0,
                0.0,
                &mut messages,
            )
            .unwrap();
        assert_eq!(again.mv.to_string(), "c3c4");
        assert!(again.candidates.iter().all(|c| c.mv.to_string() != "h2e2"));
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
            .choose(&Position::start(), &[], BookVariety::None, 0, 0.0, &mut m)
            .is_some());
        std::fs::remove_dir_all(&dir).unwrap();
    }

    /// A book of the start position's h2e2 (100 games), c3c4 (50) and b0c2
    /// (10), with an analysis that finds h2e2 poor and adds g0e2.
    fn analysed_book(dir: &Path) -> PathBuf {
        use xqbook::{
            write_analysis, AnalysisHeader, BookBuilder, BookId, BuildConfig, GameResult,
            PositionAnalysis, ScoredMove,
        };
        let pos = Position::start();
        let mut builder = BookBuilder::new(BuildConfig {
            min_games: 1,
            max_ply: 0,
            ..BuildConfig::default()
        });
        for (m, games) in [("h2e2", 100), ("c3c4", 50), ("b0c2", 10)] {
            for _ in 0..games {
                let moves = [mv(&pos, m)];
                builder.add_game(&pos, &moves, GameResult::Draw).unwrap();
            }
        }
        let path = dir.join("analysed.xqb");
        builder.write(&path, "test").unwrap();
        let book = xqbook::Book::open(&path).unwrap();
        let scored = |m: &str, score: i16, in_book: bool| ScoredMove {
            mv: mv(&pos, m),
            score,
            depth: 1,
            in_book,
        };
        let analysis = PositionAnalysis {
            search: xqbook::Searched {
                score: 40,
                best: mv(&pos, "g0e2"),
                depth: 12,
            },
            value: 40,
            moves: vec![
                scored("g0e2", 40, false),
                scored("c3c4", 30, true),
                scored("b0c2", 19, true),
                scored("h2e2", -60, true),
            ],
        };
        let header = AnalysisHeader {
            book: BookId::of(&book),
            engine: "test".into(),
            net: "hce".into(),
            budget: "depth 1".into(),
            searched: 5,
        };
        let positions = std::collections::HashMap::from([(xqbook::book_key(&pos).0, analysis)]);
        write_analysis(&path.with_extension("xqa"), &header, &positions).unwrap();
        path
    }

    #[test]
    fn an_analysed_book_plays_only_moves_within_the_margin() {
        let dir = tempfile::tempdir().unwrap();
        let path = analysed_book(dir.path());
        let mut books = Books::default();
        books.set_files(vec![path.to_str().unwrap().into()]);
        let pos = Position::start();
        let mut messages = Vec::new();
        let choice = books
            .choose(&pos, &[], BookVariety::None, 20, 0.0, &mut messages)
            .unwrap();
        assert!(messages.is_empty(), "{messages:?}");
        // h2e2 has the most games but scores 100 below the best: never.
        let moves: Vec<String> = choice.candidates.iter().map(|c| c.mv.to_string()).collect();
        assert_eq!(moves, ["c3c4", "g0e2"]);
        assert_eq!(choice.mv.to_string(), "c3c4");
        assert_eq!(choice.candidates[0].score, Some(30));
        assert_eq!(choice.candidates[0].games, Some(50));
        // The move the analysis added, which no game played, weighs 1.
        assert_eq!(choice.candidates[1].weight, 1);
        assert_eq!(choice.candidates[1].games, Some(0));
        for r in [0.0, 0.3, 0.6, 0.99] {
            let c = books.choose(&pos, &[], BookVariety::Large, 20, r, &mut messages);
            assert_ne!(c.unwrap().mv.to_string(), "h2e2");
        }
        // A wider margin lets b0c2 in; a banned move is never played.
        let wide = books
            .choose(
                &pos,
                &[choice.mv],
                BookVariety::None,
                25,
                0.0,
                &mut messages,
            )
            .unwrap();
        assert_eq!(wide.mv.to_string(), "b0c2");

        // A damaged analysis: the book plays by weight, and says why.
        let xqa = path.with_extension("xqa");
        let mut bytes = std::fs::read(&xqa).unwrap();
        let last = bytes.len() - 1;
        bytes[last] ^= 1;
        std::fs::write(&xqa, &bytes).unwrap();
        books.set_files(vec![path.to_str().unwrap().into()]);
        let mut messages = Vec::new();
        let by_weight = books
            .choose(&pos, &[], BookVariety::None, 20, 0.0, &mut messages)
            .unwrap();
        assert_eq!(by_weight.mv.to_string(), "h2e2");
        assert_eq!(by_weight.candidates[0].score, None);
        assert_eq!(messages.len(), 1, "{messages:?}");
        assert!(messages[0].contains("analysed.xqa"), "{messages:?}");
        assert!(messages[0].contains("plays by weight"), "{messages:?}");
    }
}
