//! The engine: the front object a GUI drives through the protocol. It
//! keeps the position with its history, the options, the books and tables,
//! and at most one search on its own thread. Typed in, typed out: the
//! protocol front ends do all the text.
//!
//! A `go` is decided at the root first, by the books (a game move) and then
//! by the tables (a won or lost position); only what they leave is
//! searched.

use std::path::PathBuf;
use std::sync::{Arc, Mutex};
use std::thread::JoinHandle;
use std::time::Duration;

use xqcore::{Move, Position, SplitMix64};
use xqegtb::Tablebase;
use xqnnue::Network;

use crate::answer::{BestMove, RootSearch};
use crate::book::{BookChoice, Books};
use crate::egtb::{self, EvalPreference, TableRoot, Tables};
use crate::eval::Evaluation;
use crate::options::{split_paths, OptionValue, Setting};
use crate::search::{Reporter, SearchConfig};
use crate::searcher::Searcher;
use crate::settings::{memory_cap_mb, table_mb, EngineOptions};
use crate::strength::Chooser;
use crate::time::{Budget, Limits, SearchControl};

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
    /// The table size (MB, as [`EngineOptions::hash_asked`] reads
    /// `hashsize`) the table was made for; 0: not made yet.
    table_made_for_mb: usize,
    /// The most the table may take, in MB: half the machine's memory,
    /// where the system tells it.
    pub(crate) memory_cap_mb: Option<usize>,
    running: Option<Running>,
    game_seed: u64,
    books: Books,
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
            table_made_for_mb: 0,
            memory_cap_mb: memory_cap_mb(),
            running: None,
            game_seed: seed,
            books: Books::new(seed),
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

    /// Sets the option `setting` to `value` (as [`OptionSpec::parse`]
    /// reads it); returns notes for the user. A setting that is plain data
    /// is set in [`Engine::options`]; files are opened and the hash table
    /// made at once, so that no `go` waits for them. The protocol's own
    /// options (UCCI `usemillisec`, `batch`, `debug`) set nothing here.
    ///
    /// [`OptionSpec::parse`]: crate::OptionSpec::parse
    pub fn set_option(&mut self, setting: Setting, value: OptionValue) -> Vec<String> {
        match setting {
            Setting::BookFiles => {
                self.set_book_files(split_paths(value.text()));
                self.load_books().0
            }
            Setting::LoadBook => {
                let (mut notes, open) = self.load_books();
                notes.push(format!("loadbook: {open} book file(s) open"));
                notes
            }
            Setting::EgtbPaths => self.set_egtb_paths(split_paths(value.text())),
            Setting::EvalFile => self.set_eval_file(value.text()),
            Setting::HashSize => {
                self.options.set(setting, value);
                self.stop_and_wait();
                self.ensure_table().into_iter().collect()
            }
            Setting::ClearHash => {
                self.clear_hash();
                Vec::new()
            }
            Setting::NewGame => {
                self.new_game();
                Vec::new()
            }
            Setting::Ponder
            | Setting::UseBook
            | Setting::BookMargin
            | Setting::BookVariety
            | Setting::UseEgtb
            | Setting::Threads
            | Setting::MultiPv
            | Setting::MoveOverhead
            | Setting::SkillLevel
            | Setting::LimitStrength
            | Setting::Elo
            | Setting::DrawMoves
            | Setting::Repetition
            | Setting::Pruning
            | Setting::Evaluation
            | Setting::Knowledge
            | Setting::Selectivity
            | Setting::Style
            | Setting::Param(_) => {
                self.options.set(setting, value);
                Vec::new()
            }
            // The protocol's own, and the announced only.
            Setting::UseMillisec
            | Setting::Batch
            | Setting::Debug
            | Setting::ShowWdl
            | Setting::DualTime
            | Setting::UciVariant => Vec::new(),
        }
    }

    /// Sets the books and table directories played from when no option
    /// names others (`bookfiles`, `egtbpaths`): the library has none of
    /// its own; the `xqengine` binary gives the shipped book and tables.
    /// Books in use are opened anew on their next probe, and the tables
    /// registered anew on their next use.
    pub fn set_default_data(&mut self, books: Vec<PathBuf>, egtb_dirs: Vec<PathBuf>) {
        self.books.set_defaults(books);
        self.tables.set_defaults(egtb_dirs);
    }

    /// Plays from `tablebase`, opened already, when `egtbpaths` names no
    /// directory: a server's tables, opened once for the engines of all
    /// its games, instead of default directories registered anew by each.
    pub fn set_default_tables(&mut self, tablebase: Arc<Tablebase>) {
        self.tables.set_opened(tablebase);
    }

    /// Sets the book files, probed in order (none: the default books of
    /// [`Engine::set_default_data`]).
    pub fn set_book_files(&mut self, files: Vec<String>) {
        self.books.set_files(files);
    }

    /// Sets the endgame table directories (none: the default ones of
    /// [`Engine::set_default_data`]) and reads them now; returns a
    /// message for each that cannot be read.
    fn set_egtb_paths(&mut self, paths: Vec<String>) -> Vec<String> {
        self.options.egtb_paths = paths;
        let mut messages = Vec::new();
        self.tables(&mut messages);
        messages
    }

    /// Loads the net of `evalfile` (empty: the built-in one). A file that
    /// cannot be used is refused with the reason, and the net in use stays.
    fn set_eval_file(&mut self, path: &str) -> Vec<String> {
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
            self.tables(&mut messages);
        }
        messages
    }

    /// Opens the book files now (UCCI `loadbook`). Returns a message for
    /// each file that cannot be used, and how many are open.
    fn load_books(&mut self) -> (Vec<String>, usize) {
        let errors = self.books.load();
        (errors, self.books.loaded())
    }

    /// A book move for the current position, if the books have a playable
    /// one; messages report books that cannot be used.
    pub fn book_move(&mut self, messages: &mut Vec<String>) -> Option<BookChoice> {
        let options = &self.options;
        self.books.draw(
            &self.position,
            &self.banned,
            options.book_variety,
            options.book_margin,
            messages,
        )
    }

    /// The tables of the options' directories; those that cannot be read
    /// are named in `messages`.
    fn tables(&mut self, messages: &mut Vec<String>) -> Arc<Tablebase> {
        self.tables.get(&self.options.egtb_paths, messages)
    }

    /// The searcher, once no search holds it.
    fn searcher(&self) -> std::sync::MutexGuard<'_, Searcher> {
        self.searcher.lock().unwrap_or_else(|e| e.into_inner())
    }

    /// The size of the hash table made, in MB (once no search holds it).
    #[cfg(test)]
    pub(crate) fn hash_mb(&self) -> usize {
        self.searcher().hash_mb()
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
        self.books.reseed(self.game_seed);
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

    /// The search's settings, from the options.
    fn config(&self, tables: Option<Arc<Tablebase>>) -> SearchConfig {
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
            egtb: tables,
            net: self.net(),
            params: self.options.params,
        }
    }

    /// The net, when the learned evaluation is the one in use.
    /// How this engine's scores at its position read as win, draw and
    /// loss (UCI's `wdl`).
    pub fn wdl_view(&self) -> crate::wdl::WdlView {
        crate::wdl::WdlView {
            material: crate::wdl::material(&self.position),
            net_scale: (self.options.evaluation == Evaluation::Nnue)
                .then_some(self.options.params.net_scale),
        }
    }

    fn net(&self) -> Option<Arc<Network>> {
        (self.options.evaluation == Evaluation::Nnue).then(|| self.options.net.clone())
    }

    /// Makes the table `hashsize` asks for, if it is not made yet; says so
    /// when the machine's memory cuts it down.
    fn ensure_table(&mut self) -> Option<String> {
        let asked = self.options.hash_asked();
        if asked == self.table_made_for_mb {
            return None;
        }
        let mb = table_mb(asked, self.memory_cap_mb);
        self.searcher().set_hash_mb(mb);
        self.table_made_for_mb = asked;
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
        let budget = limits.budget_with(self.options.move_overhead);
        self.go_within(limits, budget, draw_offered, reporter, done);
    }

    /// [`Engine::go`] with the budget already worked out from `limits`.
    pub(crate) fn go_within(
        &mut self,
        limits: Limits,
        budget: Budget,
        draw_offered: bool,
        reporter: Arc<dyn Reporter>,
        done: Box<dyn FnOnce(BestMove) + Send>,
    ) {
        self.stop_and_wait();
        let control = Arc::new(SearchControl::new(limits.ponder));
        let infinite = budget.infinite;
        match self.decide_root(&limits, reporter) {
            RootDecision::Answer(answer) => {
                self.answer_on_thread(control, infinite, move || answer, done)
            }
            RootDecision::Search {
                root_moves,
                tables,
                reporter,
            } => {
                let (budget, reporter, chooser) = self.weaken(budget, reporter);
                let search = RootSearch {
                    root_moves,
                    budget,
                    depth_zero: limits.depth == Some(0),
                    draw_offered,
                    reporter,
                    chooser,
                };
                let work = self.search(search, tables, &control);
                self.answer_on_thread(control, infinite, work, done);
            }
        }
    }

    /// A search's budget and reporter at the engine's strength: below
    /// full strength a search that ends by itself gets the level's node
    /// budget, and its reporter becomes the [`Chooser`] that picks the
    /// move played among the best lines.
    fn weaken(
        &self,
        mut budget: Budget,
        reporter: Arc<dyn Reporter>,
    ) -> (Budget, Arc<dyn Reporter>, Option<Arc<Chooser>>) {
        let strength = self.options.strength();
        let Some(nodes) = strength.node_limit().filter(|_| !budget.infinite) else {
            return (budget, reporter, None);
        };
        budget.nodes = Some(budget.nodes.map_or(nodes, |n| n.min(nodes)));
        let mut seed = SplitMix64::new(self.game_seed);
        seed.mix(self.position.key());
        let chooser = Arc::new(Chooser::new(
            strength,
            seed.next_u64(),
            self.options.multipv,
            reporter,
        ));
        (budget, chooser.clone(), Some(chooser))
    }

    /// What to do at the root before any search: the book's move (a game
    /// move under a clock), then the tables' decision.
    fn decide_root(&mut self, limits: &Limits, reporter: Arc<dyn Reporter>) -> RootDecision {
        if let Some(answer) = self.book_answer(limits, reporter.as_ref()) {
            return RootDecision::Answer(answer);
        }
        let root_moves = self.root_moves(&limits.search_moves);
        // A weakened engine knows no tables: it plays the ending as its
        // level does.
        if !self.options.use_egtb || self.options.strength().is_limited() {
            return RootDecision::Search {
                root_moves,
                tables: None,
                reporter,
            };
        }
        let mut messages = Vec::new();
        let tables = self.tables(&mut messages);
        for m in &messages {
            reporter.message(m);
        }
        let rules = self.options.repetition.table_rules();
        let preference = EvalPreference::new(self.net(), self.options.knowledge);
        match egtb::decide_root(
            &tables,
            rules,
            &preference,
            &self.position,
            root_moves,
            reporter,
        ) {
            TableRoot::Play { mv, ponder, score } => {
                RootDecision::Answer(BestMove::from_tables(mv, ponder, score))
            }
            TableRoot::Search {
                root_moves,
                reporter,
            } => RootDecision::Search {
                root_moves,
                tables: Some(tables),
                reporter,
            },
        }
    }

    /// The book's answer to a `go` under `limits`, when these are a game
    /// move's limits ([`Limits::is_game_move`]: only a game move is played
    /// from the book), the books are used and have a playable move; books
    /// that cannot be used are named.
    fn book_answer(&mut self, limits: &Limits, reporter: &dyn Reporter) -> Option<BestMove> {
        if !self.options.use_book
            || !limits.is_game_move()
            || !self.options.strength().plays_book_at(&self.position)
        {
            return None;
        }
        let mut messages = Vec::new();
        let choice = self.book_move(&mut messages);
        for m in &messages {
            reporter.message(m);
        }
        choice.map(BestMove::from_book)
    }

    /// The search of a `go`, as work for the search thread: it holds the
    /// searcher while it runs.
    fn search(
        &mut self,
        search: RootSearch,
        tables: Option<Arc<Tablebase>>,
        control: &Arc<SearchControl>,
    ) -> impl FnOnce() -> BestMove + Send + 'static {
        // Made at `isready` or when set; only an engine that was never
        // prepared makes its table here.
        if let Some(note) = self.ensure_table() {
            search.reporter.message(&note);
        }
        let mut config = self.config(tables);
        if let Some(chooser) = &search.chooser {
            config.multipv = chooser.multipv();
        }
        let (pos, searcher, control) = (
            self.position.clone(),
            self.searcher.clone(),
            control.clone(),
        );
        move || {
            let mut searcher = searcher.lock().unwrap_or_else(|e| e.into_inner());
            searcher.set_config(config);
            search.run(&mut searcher, &pos, &control)
        }
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

#[cfg(test)]
mod tests {
    use super::*;

    /// The shipped book, as the `xqengine` binary gives it.
    fn shipped_book() -> PathBuf {
        PathBuf::from(concat!(env!("CARGO_MANIFEST_DIR"), "/../data/book.xqb"))
    }

    #[test]
    fn prepare_leaves_no_setup_to_the_first_search() {
        let mut e = Engine::new();
        e.set_default_data(vec![shipped_book()], Vec::new());
        e.options.hash_mb = 2;
        assert_ne!(
            e.table_made_for_mb, 2,
            "a new engine has not made the table yet"
        );
        assert_eq!(e.books.loaded(), 0, "nor opened the books");
        assert!(e.prepare().is_empty());
        assert_eq!(e.table_made_for_mb, 2);
        assert_eq!(e.hash_mb(), 2);
        assert_eq!(e.books.loaded(), 1, "the default book is open");
        // What `go` would do first now finds nothing left to do.
        assert_eq!(e.ensure_table(), None);
        assert_eq!(e.books.ensure_loaded(), Vec::<String>::new());
        e.options.hash_mb = 4;
        e.prepare();
        assert_eq!(e.hash_mb(), 4, "a new hashsize is made at once");
    }

    /// The option table's defaults are the engine's: setting every option
    /// to its default, through the engine as the protocol does, changes
    /// nothing (the files of `bookfiles` and `egtbpaths` and the net of
    /// `evalfile` among them).
    #[test]
    fn option_defaults_are_the_engines() {
        let mut e = Engine::new();
        e.set_default_data(vec![shipped_book()], Vec::new());
        e.memory_cap_mb = Some(8);
        let state = |e: &Engine| (format!("{:?}", e.options), e.books.files());
        let before = state(&e);
        for spec in crate::OPTIONS.iter().chain(&crate::options::PARAM_OPTIONS) {
            if let Some(value) = spec.default_value() {
                e.set_option(spec.setting, value);
            }
        }
        assert_eq!(before, state(&e));
    }

    #[test]
    fn each_engine_draws_other_random_choices() {
        let (a, b) = (Engine::new(), Engine::new());
        assert_ne!(a.game_seed, b.game_seed);
        assert_ne!(a.books.random(), b.books.random());
    }
}
