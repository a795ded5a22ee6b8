//! The engine facade: position, options, transposition table and the search
//! thread. Typed in, typed out: the protocol front ends do all the text.

use std::sync::{Arc, Mutex};
use std::thread::JoinHandle;
use std::time::Duration;

use xqcore::{Move, Position, SplitMix64, NATURAL_MOVE_LIMIT};

use crate::book::{BookCandidate, BookVariety, Books};
use crate::egtb::{EvalPreference, RootPlay, Tables, MAX_LINE};
use crate::eval::{Evaluation, Knowledge};
use crate::score::{is_rule_score, Score, MATE, MATE_BOUND, TB_WIN};
use crate::search::{Pruning, RepetitionRule, Reporter, SearchConfig, SearchInfo, SearchParams};
use crate::searcher::Searcher;
use crate::time::{Limits, SearchControl};
use xqegtb::{Answers, Repetitions, Tablebase, Value};
use xqnnue::Network;

/// Engine settings, set through protocol options.
#[derive(Clone, Debug)]
pub struct EngineOptions {
    /// Transposition table size in MB (0: automatic).
    pub hash_mb: usize,
    /// Search threads (0: one per core).
    pub threads: usize,
    pub ponder: bool,
    pub use_book: bool,
    pub use_egtb: bool,
    pub egtb_paths: Vec<String>,
    /// Natural-move limit in plies.
    pub draw_plies: u32,
    pub repetition: RepetitionRule,
    pub pruning: Pruning,
    pub knowledge: Knowledge,
    /// Random noise amplitude in centipawns (UCCI `selectivity`).
    pub randomness: i32,
    /// How freely book moves are chosen (UCCI `selectivity` too).
    pub book_variety: BookVariety,
    /// In an analysed book, moves scored more than this many centipawns
    /// below the best are never played.
    pub book_margin: i16,
    /// Draw aversion in centipawns (UCCI `style`).
    pub contempt: i32,
    pub multipv: usize,
    /// The learned evaluation or the hand-crafted one.
    pub evaluation: Evaluation,
    /// The net the learned evaluation uses (`evalfile`; the built-in one).
    pub net: Arc<Network>,
    /// The search's margins: their defaults, but in a tuning build.
    pub params: SearchParams,
}

/// Transposition table size when `hashsize` is 0.
pub const AUTO_HASH_MB: usize = 64;

/// The table size for `hashsize` `asked` MB: at most `cap` MB, half the
/// machine's memory, since the table is written whole when it is made and a
/// larger one would push the system into swapping (`hashsize 65536` took
/// 43 s and 16 GB of a 24 GB machine before this cap).
fn table_mb(asked: usize, cap: Option<usize>) -> usize {
    cap.map_or(asked, |cap| asked.min(cap.max(1)))
}

/// Half the machine's memory in MB, where the system tells it (Linux).
fn memory_cap_mb() -> Option<usize> {
    let info = std::fs::read_to_string("/proc/meminfo").ok()?;
    let kb: usize = info
        .lines()
        .find_map(|l| l.strip_prefix("MemTotal:"))?
        .trim()
        .trim_end_matches("kB")
        .trim()
        .parse()
        .ok()?;
    Some(kb / 1024 / 2)
}

impl Default for EngineOptions {
    fn default() -> Self {
        EngineOptions {
            hash_mb: AUTO_HASH_MB,
            threads: 1,
            ponder: false,
            use_book: true,
            use_egtb: true,
            egtb_paths: Vec::new(),
            draw_plies: NATURAL_MOVE_LIMIT,
            repetition: RepetitionRule::AsianRule,
            pruning: Pruning::Large,
            knowledge: Knowledge::Large,
            randomness: 0,
            book_variety: BookVariety::None,
            book_margin: 15,
            contempt: 10,
            multipv: 1,
            evaluation: Evaluation::Nnue,
            net: Arc::new(Network::embedded().clone()),
            params: SearchParams::default(),
        }
    }
}

/// The engine's answer to `go`.
#[derive(Clone, Debug, PartialEq, Eq)]
pub struct BestMove {
    /// `None`: no move (no legal move, or `go depth 0`).
    pub mv: Option<Move>,
    pub ponder: Option<Move>,
    /// Accept the offered draw.
    pub draw: bool,
    pub resign: bool,
}

/// Accept a draw offer when the engine's score is at most this.
pub const DRAW_ACCEPT_SCORE: i32 = -50;
/// Resign when the score is at most this (or a mate against is proven),
/// but not on a result of the repetition rules: the opponent may still
/// leave the cycle.
pub const RESIGN_SCORE: i32 = -2_000;
/// What the engine does at the root of a `go`.
enum RootDecision {
    /// Answer at once: a book move, or the tables' move in a won or lost
    /// position.
    Answer(BestMove),
    /// Search among these moves (with the tables, when they are used),
    /// reporting to `reporter`.
    Search {
        root_moves: Vec<Move>,
        tables: Option<Arc<Tablebase>>,
        reporter: Arc<dyn Reporter>,
    },
}

struct Running {
    control: Arc<SearchControl>,
    handle: JoinHandle<()>,
}

/// The engine: a position with its history, options, and at most one search.
pub struct Engine {
    pub options: EngineOptions,
    position: Position,
    banned: Vec<Move>,
    /// The search with its hash table and each thread's memory, kept for
    /// the engine's life; the search thread holds it while it runs.
    searcher: Arc<Mutex<Searcher>>,
    /// The `hashsize` (MB, 0 read as the default) the table was made for.
    hash_asked: usize,
    running: Option<Running>,
    game_seed: u64,
    books: Books,
    /// The generator behind weighted book choices.
    book_random: SplitMix64,
    tables: Tables,
}

impl Default for Engine {
    fn default() -> Self {
        Engine::new()
    }
}

/// A seed for the engine's randomness (`selectivity`: book choices and
/// evaluation noise) that differs from process to process: a GUI that
/// starts the engine anew, or a match runner that starts one for each
/// game, would otherwise get the same "random" game every time.
fn process_seed() -> u64 {
    let nanos = std::time::SystemTime::now()
        .duration_since(std::time::UNIX_EPOCH)
        .map_or(0, |d| d.as_nanos() as u64);
    // Engines made in one process at one instant differ by their number.
    static MADE: std::sync::atomic::AtomicU64 = std::sync::atomic::AtomicU64::new(0);
    let made = MADE.fetch_add(1, std::sync::atomic::Ordering::Relaxed);
    let mut mix =
        SplitMix64::new(0x9E37_79B9_7F4A_7C15 ^ nanos ^ u64::from(std::process::id()) << 32);
    mix.mix(made);
    mix.next_u64()
}

impl Engine {
    /// An engine at the start position with default options.
    pub fn new() -> Engine {
        let seed = process_seed();
        Engine {
            options: EngineOptions::default(),
            position: Position::start(),
            banned: Vec::new(),
            searcher: Arc::new(Mutex::new(Searcher::new(SearchConfig::default(), 1))),
            hash_asked: 0,
            running: None,
            game_seed: seed,
            books: Books::default(),
            book_random: SplitMix64::new(0x2545_F491_4F6C_DD1D ^ seed),
            tables: Tables::default(),
        }
    }

    /// The current position.
    pub fn position(&self) -> &Position {
        &self.position
    }

    /// Sets the position (clears banned moves).
    pub fn set_position(&mut self, pos: Position) {
        self.position = pos;
        self.banned.clear();
    }

    /// Moves the engine must not play in the current position.
    pub fn set_banned(&mut self, moves: Vec<Move>) {
        self.banned = moves;
    }

    /// The banned moves.
    pub fn banned(&self) -> &[Move] {
        &self.banned
    }

    /// Sets the book files, probed in order (none: the default book).
    pub fn set_book_files(&mut self, files: Vec<String>) {
        self.books.set_files(files);
    }

    /// Sets the endgame table directories (none: the default one) and
    /// reads them now; returns a message for each that cannot be read.
    pub fn set_egtb_paths(&mut self, paths: Vec<String>) -> Vec<String> {
        self.options.egtb_paths = paths;
        let mut messages = Vec::new();
        self.tables.get(&self.options.egtb_paths, &mut messages);
        messages
    }

    /// Loads the net of `evalfile` (empty: the built-in one). A file that
    /// cannot be used is refused with the reason, and the net in use stays.
    pub fn set_eval_file(&mut self, path: &str) -> Vec<String> {
        let path = path.trim();
        if path.is_empty() {
            self.options.net = Arc::new(Network::embedded().clone());
            return vec![format!(
                "evalfile: the built-in net ({:08x})",
                self.options.net.checksum()
            )];
        }
        match Network::load(std::path::Path::new(path)) {
            Ok(net) => {
                let message = format!(
                    "evalfile: {path}: net {:08x} ({}) loaded",
                    net.checksum(),
                    net.architecture()
                );
                self.options.net = Arc::new(net);
                vec![message]
            }
            Err(e) => vec![format!(
                "evalfile: {path}: {e}; keeping net {:08x}",
                self.options.net.checksum()
            )],
        }
    }

    /// Does now what the first search would otherwise do on the game's
    /// clock: makes the hash table at the asked `hashsize`, opens the books
    /// (with `usebook`) and registers the tables (with `useegtb`). A GUI or
    /// match runner asks `isready` (and starts a new game) before a clock
    /// runs; made at the first `go` instead, a 64 MB table took some 0.3 s
    /// of a 3-second game, and that move was searched to depth 1. Returns
    /// a message for each book or table directory that cannot be used.
    pub fn prepare(&mut self) -> Vec<String> {
        self.stop_and_wait();
        let mut messages: Vec<String> = self.ensure_table().into_iter().collect();
        if self.options.use_book {
            messages.extend(self.books.ensure_loaded());
        }
        if self.options.use_egtb {
            self.tables.get(&self.options.egtb_paths, &mut messages);
        }
        messages
    }

    /// Opens the book files now (UCCI `loadbook`). Returns a message for
    /// each file that cannot be used, and how many are open.
    pub fn load_books(&mut self) -> (Vec<String>, usize) {
        let errors = self.books.load();
        (errors, self.books.loaded())
    }

    /// A book move for the current position, if the books have a playable
    /// one; messages report books that cannot be used.
    pub fn book_move(&mut self, messages: &mut Vec<String>) -> Option<crate::book::BookChoice> {
        let random = self.book_random.unit();
        self.books.choose(
            &self.position,
            &self.banned,
            self.options.book_variety,
            self.options.book_margin,
            random,
            messages,
        )
    }

    /// The searcher, once no search holds it.
    fn searcher(&self) -> std::sync::MutexGuard<'_, Searcher> {
        self.searcher.lock().unwrap_or_else(|e| e.into_inner())
    }

    /// Empties the transposition table (after ending a running search).
    pub fn clear_hash(&mut self) {
        self.stop_and_wait();
        self.searcher().clear_hash();
    }

    /// Forgets everything learnt in the last game and reseeds randomness.
    pub fn new_game(&mut self) {
        self.stop_and_wait();
        self.searcher().new_game();
        self.game_seed = self
            .game_seed
            .wrapping_mul(6364136223846793005)
            .wrapping_add(1442695040888963407);
        self.book_random.mix(self.game_seed);
    }

    /// Asks the running search to stop (its result is still reported).
    pub fn stop(&self) {
        if let Some(r) = &self.running {
            r.control.stop();
        }
    }

    /// The opponent played the pondered move: the clock starts now.
    pub fn ponderhit(&self) {
        if let Some(r) = &self.running {
            r.control.ponderhit();
        }
    }

    /// Waits for the running search to finish and report.
    pub fn wait(&mut self) {
        if let Some(r) = self.running.take() {
            let _ = r.handle.join();
        }
    }

    /// Stops the running search, if any, and waits for it.
    pub fn stop_and_wait(&mut self) {
        self.stop();
        self.wait();
    }

    fn config(&self) -> SearchConfig {
        let threads = match self.options.threads {
            0 => std::thread::available_parallelism().map_or(1, |n| n.get()),
            n => n,
        };
        SearchConfig {
            knowledge: self.options.knowledge,
            pruning: self.options.pruning,
            randomness: self.options.randomness,
            random_seed: self.game_seed,
            contempt: self.options.contempt,
            draw_plies: self.options.draw_plies,
            repetition: self.options.repetition,
            threads,
            multipv: self.options.multipv.max(1),
            egtb: None,
            net: (self.options.evaluation == Evaluation::Nnue).then(|| self.options.net.clone()),
            params: self.options.params,
        }
    }

    /// The engine's evaluation, as the tables' last word among moves of
    /// equal value and material.
    fn table_preference(&self) -> EvalPreference {
        let net = (self.options.evaluation == Evaluation::Nnue).then(|| self.options.net.clone());
        EvalPreference::new(net, self.options.knowledge)
    }

    /// Makes the table `hashsize` asks for, if it is not made yet; says so
    /// when the machine's memory cuts it down.
    fn ensure_table(&mut self) -> Option<String> {
        let asked = if self.options.hash_mb == 0 {
            AUTO_HASH_MB
        } else {
            self.options.hash_mb
        };
        if asked == self.hash_asked {
            return None;
        }
        let mb = table_mb(asked, memory_cap_mb());
        self.searcher().set_hash_mb(mb);
        self.hash_asked = asked;
        (mb < asked).then(|| {
            format!(
                "hashsize {asked} MB is more than half this machine's memory: \
                 the table gets at most {mb} MB"
            )
        })
    }

    /// The root moves: legal, not banned, and among `search_moves` if given.
    pub fn root_moves(&self, search_moves: &[Move]) -> Vec<Move> {
        self.position
            .legal_moves()
            .iter()
            .copied()
            .filter(|m| !self.banned.contains(m))
            .filter(|m| search_moves.is_empty() || search_moves.contains(m))
            .collect()
    }

    /// Starts answering a `go` on its own thread. `done` receives the
    /// answer once it is found and, when pondering or infinite, once the
    /// engine was told to end (`stop`, or `ponderhit` for pondering).
    /// `draw_offered`: the opponent offers a draw, which the answer may
    /// accept.
    ///
    /// The root is decided first (the book, then the tables), then
    /// searched.
    pub fn go(
        &mut self,
        limits: Limits,
        draw_offered: bool,
        reporter: Arc<dyn Reporter>,
        done: Box<dyn FnOnce(BestMove) + Send>,
    ) {
        self.stop_and_wait();
        let control = Arc::new(SearchControl::new(limits.ponder));
        let infinite = limits.budget().infinite;
        match self.decide_root(&limits, reporter) {
            RootDecision::Answer(answer) => {
                self.answer_on_thread(control, infinite, move || answer, done)
            }
            RootDecision::Search {
                root_moves,
                tables,
                reporter,
            } => {
                let work =
                    self.search(limits, draw_offered, root_moves, tables, &control, reporter);
                self.answer_on_thread(control, infinite, work, done);
            }
        }
    }

    /// What to do at the root before any search. The book answers first
    /// (a game move under a clock), then the tables: a won or lost root is
    /// played from them with the table's value and line; a drawn one is
    /// searched among the moves that keep the draw, and reported as the
    /// draw it is.
    fn decide_root(&mut self, limits: &Limits, reporter: Arc<dyn Reporter>) -> RootDecision {
        if let Some(answer) = self.book_answer(limits, reporter.as_ref()) {
            return RootDecision::Answer(answer);
        }
        let root_moves = self.root_moves(&limits.search_moves);
        if !self.options.use_egtb {
            return RootDecision::Search {
                root_moves,
                tables: None,
                reporter,
            };
        }
        let mut messages = Vec::new();
        let tb = self.tables.get(&self.options.egtb_paths, &mut messages);
        for m in &messages {
            reporter.message(m);
        }
        let rule = self.options.repetition.table_rules();
        let preference = self.table_preference();
        let answers = tb.under(rule).preferring(&preference);
        let (root_moves, reporter) =
            match crate::egtb::root_play(answers, &self.position, &root_moves) {
                Ok(RootPlay::Play(mv, value)) => {
                    let answer =
                        answer_from_tables(answers, &self.position, mv, value, reporter.as_ref());
                    return RootDecision::Answer(answer);
                }
                Ok(RootPlay::Restrict(keep)) => {
                    let drawn: Arc<dyn Reporter> = Arc::new(DrawnRoot {
                        inner: reporter,
                        tables: tb.clone(),
                        root: self.position.clone(),
                        rules: rule,
                    });
                    (keep, drawn)
                }
                Ok(RootPlay::Search) => (root_moves, reporter),
                Err(e) => {
                    reporter.message(&format!("endgame tables: {e}"));
                    (root_moves, reporter)
                }
            };
        RootDecision::Search {
            root_moves,
            tables: Some(tb),
            reporter,
        }
    }

    /// The search of a `go` among `root_moves`, as work for the search
    /// thread: it holds the searcher while it runs.
    fn search(
        &mut self,
        limits: Limits,
        draw_offered: bool,
        root_moves: Vec<Move>,
        tables: Option<Arc<Tablebase>>,
        control: &Arc<SearchControl>,
        reporter: Arc<dyn Reporter>,
    ) -> impl FnOnce() -> BestMove + Send + 'static {
        if let Some(note) = self.ensure_table() {
            reporter.message(&note);
        }
        let config = SearchConfig {
            egtb: tables,
            ..self.config()
        };
        let (pos, searcher, control) = (
            self.position.clone(),
            self.searcher.clone(),
            control.clone(),
        );
        move || {
            if root_moves.is_empty() || limits.depth == Some(0) {
                return BestMove::NONE;
            }
            let mut searcher = searcher.lock().unwrap_or_else(|e| e.into_inner());
            searcher.set_config(config);
            // A bug in the search must not leave the GUI waiting for a
            // move forever: answer with a legal move instead.
            let searched = std::panic::catch_unwind(std::panic::AssertUnwindSafe(|| {
                searcher.search_among(&pos, &root_moves, &limits, &control, reporter.as_ref())
            }));
            match searched {
                Ok(r) => BestMove {
                    mv: r.best,
                    ponder: r.ponder,
                    draw: draw_offered && r.score <= DRAW_ACCEPT_SCORE,
                    resign: r.score <= -MATE_BOUND
                        || (r.score <= RESIGN_SCORE && !is_rule_score(r.score)),
                },
                Err(panic) => {
                    let why = panic
                        .downcast_ref::<&str>()
                        .map(|s| s.to_string())
                        .or_else(|| panic.downcast_ref::<String>().cloned())
                        .unwrap_or_default();
                    reporter.message(&format!(
                        "search failed ({why}); playing the first legal move"
                    ));
                    searcher.new_game();
                    BestMove {
                        mv: root_moves.first().copied(),
                        ..BestMove::NONE
                    }
                }
            }
        }
    }

    /// The book's move, when these are a game move's limits and the
    /// books have a playable move; the candidates are reported as `info
    /// string` lines (a weight is no score), and books that cannot be
    /// used are named.
    fn book_answer(&mut self, limits: &Limits, reporter: &dyn Reporter) -> Option<BestMove> {
        if !self.options.use_book || !limits.is_game_move() {
            return None;
        }
        let mut messages = Vec::new();
        let choice = self.book_move(&mut messages);
        for m in &messages {
            reporter.message(m);
        }
        let choice = choice?;
        for candidate in &choice.candidates {
            reporter.book_move(candidate);
        }
        Some(BestMove {
            mv: Some(choice.mv),
            ..BestMove::NONE
        })
    }

    /// Runs `work` on the search thread and hands its answer to `done`; a
    /// pondering or infinite search answers only once told to (`stop`,
    /// or `ponderhit` for pondering).
    fn answer_on_thread(
        &mut self,
        control: Arc<SearchControl>,
        infinite: bool,
        work: impl FnOnce() -> BestMove + Send + 'static,
        done: Box<dyn FnOnce(BestMove) + Send>,
    ) {
        let ctl = control.clone();
        let handle = std::thread::Builder::new()
            .name("search".into())
            .stack_size(16 << 20)
            .spawn(move || {
                let answer = work();
                while (ctl.pondering() || infinite) && !ctl.stopped() {
                    std::thread::sleep(Duration::from_millis(1));
                }
                done(answer);
            })
            .expect("spawn the search thread");
        self.running = Some(Running { control, handle });
    }
}

impl BestMove {
    /// No move, no offer.
    pub const NONE: BestMove = BestMove {
        mv: None,
        ponder: None,
        draw: false,
        resign: false,
    };
}

/// The score of a table value for the side to move: a mate in its distance,
/// a table win below mates for a result of a repetition rule (no
/// mate: its distance is counted from the rule's first distance, and a
/// result that needs the chase rule ranks below one of the check rule
/// alone), 0 for a draw.
fn table_score(value: Value) -> i32 {
    let rule_distance = |d: u16| {
        if d >= xqegtb::CHASE_DTM {
            400 + (d - xqegtb::CHASE_DTM).min(99) as i32
        } else {
            d.saturating_sub(xqegtb::RULE_DTM).min(399) as i32
        }
    };
    match value {
        Value::Win(d) if value.by_rule() => TB_WIN - rule_distance(d),
        Value::Loss(d) if value.by_rule() => -TB_WIN + rule_distance(d),
        Value::Win(d) => MATE - d as i32,
        Value::Loss(d) => -MATE + d as i32,
        Value::Draw => 0,
    }
}

/// The answer at a won or lost table root: the tables' move, reported
/// with the position's value and the line the tables play from it.
fn answer_from_tables(
    answers: Answers,
    root: &Position,
    mv: Move,
    value: Value,
    reporter: &dyn Reporter,
) -> BestMove {
    let score = table_score(value);
    let pv = answers
        .line_after(root, mv, MAX_LINE)
        .unwrap_or_else(|_| vec![mv]);
    let depth = pv.len() as i32;
    reporter.info(&SearchInfo {
        depth,
        seldepth: depth,
        multipv: 1,
        score: Score::from_internal(score),
        raw_score: score,
        nodes: 0,
        time: Duration::ZERO,
        hashfull: 0,
        tbhits: pv.len() as u64,
        pv: pv.clone(),
    });
    BestMove {
        mv: Some(mv),
        ponder: pv.get(1).copied(),
        draw: false,
        resign: score <= -MATE_BOUND,
    }
}

/// Reports a search among the moves that keep a table draw as the draw it
/// is: score 0, and the line cut where the tables no longer confirm the
/// draw (the search's own scores there are its evaluation's, which the
/// tables overrule).
struct DrawnRoot {
    inner: Arc<dyn Reporter>,
    tables: Arc<Tablebase>,
    root: Position,
    rules: Repetitions,
}

impl Reporter for DrawnRoot {
    fn info(&self, info: &SearchInfo) {
        let answers = self.tables.under(self.rules);
        let pv = crate::egtb::drawn_prefix(answers, &self.root, &info.pv);
        self.inner.info(&SearchInfo {
            score: Score::Cp(0),
            raw_score: 0,
            pv,
            ..info.clone()
        });
    }

    fn currmove(&self, mv: Move, number: usize, depth: i32) {
        self.inner.currmove(mv, number, depth);
    }

    fn message(&self, text: &str) {
        self.inner.message(text);
    }

    fn book_move(&self, candidate: &BookCandidate) {
        self.inner.book_move(candidate);
    }
}

#[cfg(test)]
mod tests {

    #[test]
    fn prepare_leaves_no_setup_to_the_first_search() {
        let mut e = Engine::new();
        e.options.hash_mb = 2;
        assert_ne!(e.hash_asked, 2, "a new engine has not made the table yet");
        assert!(e.prepare().is_empty());
        assert_eq!(e.hash_asked, 2);
        assert_eq!(e.searcher().hash_mb(), 2);
        // What `go` would do first now finds nothing left to do.
        assert_eq!(e.ensure_table(), None);
        assert_eq!(e.books.ensure_loaded(), Vec::<String>::new());
        e.options.hash_mb = 4;
        e.prepare();
        assert_eq!(e.searcher().hash_mb(), 4, "a new hashsize is made at once");
    }

    #[test]
    fn each_engine_draws_other_random_choices() {
        let (a, b) = (Engine::new(), Engine::new());
        assert_ne!(a.game_seed, b.game_seed);
        assert_ne!(
            a.book_random.clone().next_u64(),
            b.book_random.clone().next_u64()
        );
    }

    use super::*;

    #[test]
    fn the_table_is_capped_at_half_the_memory() {
        assert_eq!(table_mb(65_536, Some(12_000)), 12_000);
        assert_eq!(table_mb(64, Some(12_000)), 64);
        assert_eq!(table_mb(64, None), 64);
        assert_eq!(table_mb(16, Some(0)), 1);
        if cfg!(target_os = "linux") {
            let cap = memory_cap_mb().expect("/proc/meminfo gives MemTotal");
            assert!(cap >= 64, "half the memory read as {cap} MB");
        }
    }
}
