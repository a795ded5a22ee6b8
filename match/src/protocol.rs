//! The text the match runner and an engine exchange, in UCCI and in UCI:
//! handshakes, option lines, `go` commands, and the `info` and `bestmove`
//! lines read back ([`read_info`], [`read_answer`]: the toolkit's one
//! reader of engine output, used by the engine's own tests too). Nothing
//! here talks to a process.

use std::fmt;
use std::str::FromStr;
use std::time::Duration;

use xqcore::Color;

/// The protocol an engine speaks.
#[derive(Clone, Copy, Debug, PartialEq, Eq, Hash)]
pub enum Protocol {
    /// The Universal Chinese Chess Protocol (ElephantEye, our engine).
    Ucci,
    /// The Universal Chess Interface, as xiangqi engines speak it
    /// (Pikafish, Fairy-Stockfish): ICCS moves, files a-i, ranks 0-9.
    Uci,
}

impl Protocol {
    /// The first command, which asks the engine to identify itself.
    pub fn hello(self) -> &'static str {
        match self {
            Protocol::Ucci => "ucci",
            Protocol::Uci => "uci",
        }
    }

    /// The line that ends the engine's answer to [`Protocol::hello`].
    pub fn hello_done(self) -> &'static str {
        match self {
            Protocol::Ucci => "ucciok",
            Protocol::Uci => "uciok",
        }
    }

    /// The name of the option an `option` line of the handshake announces
    /// (UCCI `option NAME type ...`, UCI `option name NAME type ...`, where
    /// a UCI name may hold spaces), or `None` for any other line.
    pub fn announced_option(self, line: &str) -> Option<&str> {
        let rest = line.strip_prefix("option ")?;
        let name = match self {
            Protocol::Ucci => rest.split_whitespace().next()?,
            Protocol::Uci => {
                let rest = rest.trim_start().strip_prefix("name ")?;
                rest.split(" type ").next()?.trim()
            }
        };
        (!name.is_empty()).then_some(name)
    }

    /// The command that tells the engine a new game starts.
    pub fn new_game(self) -> &'static str {
        match self {
            Protocol::Ucci => "setoption newgame",
            Protocol::Uci => "ucinewgame",
        }
    }

    /// The `setoption` line for `option`.
    pub fn set_option(self, option: &EngineOption) -> String {
        match (self, &option.value) {
            (Protocol::Ucci, Some(value)) => format!("setoption {} {value}", option.name),
            (Protocol::Ucci, None) => format!("setoption {}", option.name),
            (Protocol::Uci, Some(value)) => {
                format!("setoption name {} value {value}", option.name)
            }
            (Protocol::Uci, None) => format!("setoption name {}", option.name),
        }
    }

    /// The `go` command of a clock game for `side`. UCCI engines are given
    /// their own clock only (`go time T increment I`, or `go time T
    /// movestogo N` in a period of moves), in milliseconds when `millis`
    /// (the engine took `usemillisec`), else in seconds; UCI engines both
    /// clocks in milliseconds (`go wtime W btime B winc I binc J [movestogo
    /// N]`).
    pub fn go_clock(self, side: Color, clock: &ClockReading, millis: bool) -> String {
        match self {
            Protocol::Ucci => {
                let time = ucci_time(clock.times[side.index()], millis);
                match clock.moves_to_go {
                    Some(moves) => format!("go time {time} movestogo {moves}"),
                    None => {
                        let increment = ucci_time(clock.increments[side.index()], millis);
                        format!("go time {time} increment {increment}")
                    }
                }
            }
            Protocol::Uci => {
                let [red, black] = clock.times.map(|c| c.as_millis());
                let [red_inc, black_inc] = clock.increments.map(|c| c.as_millis());
                let mut go =
                    format!("go wtime {red} btime {black} winc {red_inc} binc {black_inc}");
                if let Some(moves) = clock.moves_to_go {
                    go.push_str(&format!(" movestogo {moves}"));
                }
                go
            }
        }
    }

    /// The `go` command for a fixed time a move: UCI's `go movetime MS`;
    /// UCCI has none, so its engines are told the move is the last of a
    /// period (`go time T movestogo 1`).
    pub fn go_move_time(self, time: Duration, millis: bool) -> String {
        match self {
            Protocol::Ucci => format!("go time {} movestogo 1", ucci_time(time, millis)),
            Protocol::Uci => format!("go movetime {}", time.as_millis()),
        }
    }
}

/// The clocks of a game as a `go` command tells them.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub struct ClockReading {
    /// Red's and Black's time left.
    pub times: [Duration; 2],
    /// Red's and Black's increment a move.
    pub increments: [Duration; 2],
    /// Moves the side to move has left in its period, in a game of periods.
    pub moves_to_go: Option<u32>,
}

/// A UCCI time: milliseconds, or seconds to the millisecond.
fn ucci_time(time: Duration, millis: bool) -> String {
    if millis {
        time.as_millis().to_string()
    } else {
        format!("{:.3}", time.as_secs_f64())
    }
}

impl fmt::Display for Protocol {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        f.write_str(self.hello())
    }
}

/// A name that is not a protocol.
#[derive(Clone, Debug, PartialEq, Eq, thiserror::Error)]
#[error("'{0}' is not a protocol (ucci or uci)")]
pub struct UnknownProtocol(pub String);

impl FromStr for Protocol {
    type Err = UnknownProtocol;

    /// `ucci` or `uci`, in any case.
    fn from_str(s: &str) -> Result<Protocol, UnknownProtocol> {
        match s.to_ascii_lowercase().as_str() {
            "ucci" => Ok(Protocol::Ucci),
            "uci" => Ok(Protocol::Uci),
            _ => Err(UnknownProtocol(s.to_string())),
        }
    }
}

/// An option to set in an engine: its name as the engine announces it, and
/// its value (none for a button).
#[derive(Clone, Debug, PartialEq, Eq)]
pub struct EngineOption {
    pub name: String,
    pub value: Option<String>,
}

impl fmt::Display for EngineOption {
    /// `NAME=VALUE`, or `NAME` for a button: as it is given.
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        match &self.value {
            Some(value) => write!(f, "{}={value}", self.name),
            None => f.write_str(&self.name),
        }
    }
}

/// An option text without a name (`=5`).
#[derive(Clone, Debug, PartialEq, Eq, thiserror::Error)]
#[error("'{0}' names no option (NAME=VALUE)")]
pub struct NamelessOption(pub String);

impl FromStr for EngineOption {
    type Err = NamelessOption;

    /// `NAME=VALUE`, or `NAME` alone for a button. UCI names may hold
    /// spaces (`Clear Hash`), so the value starts after the first `=`, and
    /// `NAME=` with nothing after it is a button too; a text without `=`
    /// is also read UCCI's way, `NAME VALUE`.
    fn from_str(s: &str) -> Result<EngineOption, NamelessOption> {
        let s = s.trim();
        let (name, value) = match s.split_once('=') {
            Some((name, value)) => (name.trim(), Some(value.trim()).filter(|v| !v.is_empty())),
            None => match s.split_once(char::is_whitespace) {
                Some((name, value)) => (name, Some(value.trim())),
                None => (s, None),
            },
        };
        if name.is_empty() {
            return Err(NamelessOption(s.to_string()));
        }
        Ok(EngineOption {
            name: name.to_string(),
            value: value.map(str::to_string),
        })
    }
}

/// A score as an engine reports it, from the side to move's view.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum EngineScore {
    /// Centipawns (UCCI scores, which have no mate form, are read as these).
    Cp(i32),
    /// Mate in this many moves; negative when the engine is being mated.
    Mate(i32),
}

impl fmt::Display for EngineScore {
    /// Pawns with a sign (`+0.35`), or `+M5` / `-M3` for mates.
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        match *self {
            EngineScore::Cp(cp) => write!(f, "{:+.2}", f64::from(cp) / 100.0),
            EngineScore::Mate(n) if n < 0 => write!(f, "-M{}", -n),
            EngineScore::Mate(n) => write!(f, "+M{n}"),
        }
    }
}

/// What an `info` line of a search reports: the fields it gives.
#[derive(Clone, Debug, Default, PartialEq, Eq)]
pub struct InfoLine {
    pub depth: Option<u32>,
    pub seldepth: Option<u32>,
    /// Which line of a multi-line search (UCI `MultiPV`), from 1.
    pub multipv: Option<u32>,
    pub score: Option<EngineScore>,
    /// Milliseconds searched.
    pub time_ms: Option<u64>,
    pub nodes: Option<u64>,
    pub nps: Option<u64>,
    /// Positions found in endgame tables.
    pub tbhits: Option<u64>,
    /// The principal variation, ICCS moves as written.
    pub pv: Vec<String>,
}

/// Reads the `info` line of a search: `info depth D seldepth S score N
/// time T nodes N nps N tbhits N pv M...` in UCCI (scores in centipawns),
/// the same with `multipv K` and `score cp N | score mate N` in UCI, in any
/// order, unknown fields skipped. `None` for any other line, `info string`
/// text included, and for an `info` line that gives neither depth nor
/// score (`info currmove ...`, `info time ... nodes ...`).
pub fn read_info(protocol: Protocol, line: &str) -> Option<InfoLine> {
    let mut words = line.split_whitespace();
    if words.next() != Some("info") {
        return None;
    }
    let mut info = InfoLine::default();
    while let Some(word) = words.next() {
        match word {
            "depth" => info.depth = next_number(&mut words),
            "seldepth" => info.seldepth = next_number(&mut words),
            "multipv" => info.multipv = next_number(&mut words),
            "time" => info.time_ms = next_number(&mut words),
            "nodes" => info.nodes = next_number(&mut words),
            "nps" => info.nps = next_number(&mut words),
            "tbhits" => info.tbhits = next_number(&mut words),
            "score" => info.score = read_score(protocol, &mut words),
            // The rest of the line is moves.
            "pv" => {
                info.pv = words.by_ref().map(str::to_string).collect();
            }
            // The rest of the line is text.
            "string" => return None,
            _ => {}
        }
    }
    (info.depth.is_some() || info.score.is_some()).then_some(info)
}

/// The next word as a number, if it is one.
fn next_number<'a, T: FromStr>(words: &mut impl Iterator<Item = &'a str>) -> Option<T> {
    words.next()?.parse().ok()
}

fn read_score<'a>(
    protocol: Protocol,
    words: &mut impl Iterator<Item = &'a str>,
) -> Option<EngineScore> {
    match protocol {
        Protocol::Ucci => next_number(words).map(EngineScore::Cp),
        Protocol::Uci => match words.next()? {
            "cp" => next_number(words).map(EngineScore::Cp),
            "mate" => next_number(words).map(EngineScore::Mate),
            _ => None,
        },
    }
}

/// An engine's answer to `go`.
#[derive(Clone, Debug, PartialEq, Eq)]
pub enum Answer {
    /// `bestmove M [ponder P] [draw | resign]`.
    Move {
        mv: String,
        /// The engine offers a draw, or accepts one offered (UCCI).
        draw: bool,
        /// The engine resigns (UCCI).
        resign: bool,
    },
    /// `nobestmove` (UCCI) or `bestmove (none)` (UCI).
    NoMove,
}

/// Reads a `bestmove` or `nobestmove` line; `None` for any other line.
pub fn read_answer(line: &str) -> Option<Answer> {
    let mut words = line.split_whitespace();
    match words.next()? {
        "nobestmove" => Some(Answer::NoMove),
        "bestmove" => Some(match words.next() {
            None | Some("(none)") => Answer::NoMove,
            Some(mv) => {
                let rest: Vec<&str> = words.collect();
                Answer::Move {
                    mv: mv.to_string(),
                    draw: rest.contains(&"draw"),
                    resign: rest.contains(&"resign"),
                }
            }
        }),
        _ => None,
    }
}

/// Whether a line an engine printed after `ucci` says it does not know the
/// command: such an engine speaks UCI (Pikafish prints `Unknown command:
/// 'ucci'`).
pub(crate) fn refuses_command(line: &str) -> bool {
    let lower = line.to_lowercase();
    lower.contains("unknown command")
        || lower.contains("unrecognized")
        || lower.contains("unrecognised")
}

/// Words of a refusal: of an option, or of its value. Our engine's own
/// are `bad value`, `keeping` (`evalfile: FILE: why; keeping net N`: the
/// net in use stays) and `book not used` (the book is left out).
const REFUSALS: [&str; 18] = [
    "no such option",
    "unknown option",
    "bad value",
    "invalid",
    "not supported",
    "unsupported",
    "refused",
    "ignored",
    "cannot",
    "can't",
    "could not",
    "couldn't",
    "error",
    "failed",
    "no such file",
    "not found",
    "keeping",
    "book not used",
];

/// Words of a fallback, in which the option still takes effect: our
/// engine's `book analysis not used, FILE plays by weight` (the book is
/// played, without its analysis' scores).
const FALLBACKS: [&str; 1] = ["plays by weight"];

/// Whether a line an engine printed after `setoption` (and before its
/// `readyok`) says it refused `option` or its value: a UCI engine's `No
/// such option: NAME`, our engine's `info string option NAME: bad value
/// ...`, Pikafish's `info string ERROR: ...`, or the like.
///
/// Only a line about the option counts, one that names it or a file its
/// value gives, so that what the engine says of something else while it
/// gets ready (a default book it cannot open) is not blamed on it. Its
/// refusal words are looked for in the engine's own words, the value and
/// any path cut out (`evalfile: /nets/failed-run-3.xqnn: net ... loaded`
/// is no refusal), and a line that tells a fallback is none either.
pub(crate) fn refuses_option(line: &str, option: &EngineOption) -> bool {
    let line = line.to_lowercase();
    let value = option.value.as_deref().unwrap_or_default().to_lowercase();
    let own = own_words(&line, &value);
    let names_file = value_files(&value).any(|file| whole_words(&line, file).next().is_some());
    let names_option = whole_words(&own, &option.name.to_lowercase())
        .next()
        .is_some();
    (names_option || names_file)
        && !FALLBACKS.iter().any(|words| own.contains(words))
        && (refuses_command(&own) || REFUSALS.iter().any(|words| own.contains(words)))
}

/// The pieces of an option's value (`;` separates book files) that name
/// files: a letter and a dot or a slash (not a number such as `0.5`).
fn value_files(value: &str) -> impl Iterator<Item = &str> {
    value
        .split(';')
        .map(str::trim)
        .filter(|piece| piece.chars().any(char::is_alphabetic) && piece.contains(['.', '/', '\\']))
}

/// `line` without `value`, the pieces of it, and any path: the engine's
/// own words.
fn own_words(line: &str, value: &str) -> String {
    let mut own = line.to_string();
    for piece in std::iter::once(value).chain(value.split(';')) {
        let piece = piece.trim();
        if !piece.is_empty() {
            own = cut(&own, piece);
        }
    }
    let words: Vec<&str> = own
        .split_whitespace()
        .filter(|word| !word.contains(['/', '\\']))
        .collect();
    words.join(" ")
}

/// `text` with each whole-word `piece` in it made a space.
fn cut(text: &str, piece: &str) -> String {
    let mut out = String::new();
    let mut from = 0;
    for at in whole_words(text, piece).collect::<Vec<usize>>() {
        out.push_str(&text[from..at]);
        out.push(' ');
        from = at + piece.len();
    }
    out.push_str(&text[from..]);
    out
}

/// Where `word` occurs in `text` not as part of a longer word: `hash` in
/// `no such option: hash`, not in `hashsize`.
fn whole_words<'a>(text: &'a str, word: &'a str) -> impl Iterator<Item = usize> + 'a {
    let inner = |c: Option<char>| c.is_some_and(|c| c.is_alphanumeric() || c == '_');
    let (first, last) = (word.chars().next(), word.chars().next_back());
    text.match_indices(word)
        .map(|(at, _)| at)
        .filter(move |&at| {
            let before = text[..at].chars().next_back();
            let after = text[at + word.len()..].chars().next();
            !(word.is_empty() || inner(first) && inner(before) || inner(last) && inner(after))
        })
}

#[cfg(test)]
mod tests {
    #[test]
    fn announced_options_are_named_in_either_protocol() {
        let ucci = Protocol::Ucci;
        let uci = Protocol::Uci;
        let line = "option hashsize type spin min 0 max 1024 default 16";
        assert_eq!(ucci.announced_option(line), Some("hashsize"));
        let line = "option name Skill Level type spin default 20 min 0 max 20";
        assert_eq!(uci.announced_option(line), Some("Skill Level"));
        assert_eq!(
            uci.announced_option("option name Ponder type check"),
            Some("Ponder")
        );
        assert_eq!(ucci.announced_option("id name ElephantEye"), None);
        assert_eq!(uci.announced_option("option name  type spin"), None);
    }

    use super::*;

    #[test]
    fn options_read_as_name_and_value() {
        let option = |s: &str| s.parse::<EngineOption>().unwrap();
        assert_eq!(option("Hash=64").value.as_deref(), Some("64"));
        assert_eq!(option("Clear Hash").name, "Clear");
        assert_eq!(option("Clear Hash=").name, "Clear Hash");
        assert_eq!(option("Clear Hash=").value, None);
        assert_eq!(option("hashsize 16").name, "hashsize");
        assert_eq!(option("hashsize 16").value.as_deref(), Some("16"));
        assert_eq!(
            option("bookfiles=my books/a.xqb").value.as_deref(),
            Some("my books/a.xqb")
        );
        assert_eq!(option("newgame").value, None);
        assert!("=5".parse::<EngineOption>().is_err());
        let hash = option("Hash=64");
        assert_eq!(Protocol::Ucci.set_option(&hash), "setoption Hash 64");
        assert_eq!(
            Protocol::Uci.set_option(&hash),
            "setoption name Hash value 64"
        );
        assert_eq!(
            Protocol::Uci.set_option(&option("Clear Hash=")),
            "setoption name Clear Hash"
        );
        assert_eq!(
            Protocol::Ucci.set_option(&option("clearhash")),
            "setoption clearhash"
        );
    }

    #[test]
    fn go_commands_follow_the_protocol() {
        let ms = Duration::from_millis;
        let mut clock = ClockReading {
            times: [ms(9_500), ms(10_250)],
            increments: [ms(100), ms(300)],
            moves_to_go: None,
        };
        assert_eq!(
            Protocol::Ucci.go_clock(Color::Black, &clock, true),
            "go time 10250 increment 300"
        );
        assert_eq!(
            Protocol::Ucci.go_clock(Color::Red, &clock, false),
            "go time 9.500 increment 0.100"
        );
        assert_eq!(
            Protocol::Uci.go_clock(Color::Black, &clock, true),
            "go wtime 9500 btime 10250 winc 100 binc 300"
        );
        clock.moves_to_go = Some(7);
        assert_eq!(
            Protocol::Ucci.go_clock(Color::Red, &clock, true),
            "go time 9500 movestogo 7"
        );
        assert_eq!(
            Protocol::Uci.go_clock(Color::Red, &clock, true),
            "go wtime 9500 btime 10250 winc 100 binc 300 movestogo 7"
        );
        assert_eq!(
            Protocol::Uci.go_move_time(ms(1_500), false),
            "go movetime 1500"
        );
        assert_eq!(
            Protocol::Ucci.go_move_time(ms(1_500), false),
            "go time 1.500 movestogo 1"
        );
        assert_eq!(
            Protocol::Ucci.go_move_time(ms(1_500), true),
            "go time 1500 movestogo 1"
        );
    }

    #[test]
    fn info_lines_give_depth_and_score() {
        let uci = read_info(
            Protocol::Uci,
            "info depth 12 seldepth 18 multipv 1 score cp -35 nodes 100 pv h2e2 h9g7",
        );
        assert_eq!(
            uci,
            Some(InfoLine {
                depth: Some(12),
                seldepth: Some(18),
                multipv: Some(1),
                score: Some(EngineScore::Cp(-35)),
                nodes: Some(100),
                pv: vec!["h2e2".into(), "h9g7".into()],
                ..InfoLine::default()
            })
        );
        let ucci = read_info(
            Protocol::Ucci,
            "info depth 3 seldepth 5 score 29990 time 4 nodes 0 nps 0 tbhits 1 pv b0c2",
        )
        .unwrap();
        assert_eq!(ucci.score, Some(EngineScore::Cp(29_990)));
        assert_eq!(
            (ucci.time_ms, ucci.nodes, ucci.nps),
            (Some(4), Some(0), Some(0))
        );
        assert_eq!((ucci.tbhits, ucci.pv.len()), (Some(1), 1));
        let mate = read_info(Protocol::Uci, "info depth 9 score mate -3 pv a0a1");
        assert_eq!(mate.unwrap().score, Some(EngineScore::Mate(-3)));
        let ucci = read_info(Protocol::Ucci, "info depth 7 score 120 pv b9c7 h0i2");
        assert_eq!(ucci.unwrap().score, Some(EngineScore::Cp(120)));
        assert_eq!(
            read_info(Protocol::Uci, "info string depth 3 score cp 5"),
            None
        );
        assert_eq!(read_info(Protocol::Ucci, "info time 78 nodes 261629"), None);
        assert_eq!(read_info(Protocol::Ucci, "bestmove h2e2"), None);
        assert_eq!(EngineScore::Cp(35).to_string(), "+0.35");
        assert_eq!(EngineScore::Cp(-120).to_string(), "-1.20");
        assert_eq!(EngineScore::Mate(-3).to_string(), "-M3");
    }

    #[test]
    fn answers_are_read_in_both_protocols() {
        assert_eq!(
            read_answer("bestmove h2e2 ponder h9g7"),
            Some(Answer::Move {
                mv: "h2e2".into(),
                draw: false,
                resign: false
            })
        );
        assert_eq!(
            read_answer("bestmove h2e2 resign"),
            Some(Answer::Move {
                mv: "h2e2".into(),
                draw: false,
                resign: true
            })
        );
        assert_eq!(
            read_answer("bestmove h2e2 ponder h9g7 draw"),
            Some(Answer::Move {
                mv: "h2e2".into(),
                draw: true,
                resign: false
            })
        );
        assert_eq!(read_answer("nobestmove"), Some(Answer::NoMove));
        assert_eq!(read_answer("bestmove (none)"), Some(Answer::NoMove));
        assert_eq!(read_answer("info depth 3"), None);
        assert!(refuses_command(
            "Unknown command: 'ucci'. Type help for more information."
        ));
        assert!(!refuses_command("id name ElephantEye 3.3"));
    }

    #[test]
    fn refused_options_are_told_from_other_answers() {
        let refuses = |option: &str, line: &str| {
            refuses_option(line, &option.parse::<EngineOption>().unwrap())
        };
        for (option, refusal) in [
            ("Hashsize=64", "No such option: Hashsize"),
            ("Hash=16", "No such option: Hash"),
            (
                "hashsize=abc",
                "info string option hashsize: bad value 'abc' (takes a number from 0 to 65536)",
            ),
            ("foo=1", "info string unknown option 'foo' ignored"),
            (
                "evalfile=nn.xqnn",
                "info string evalfile: nn.xqnn: cannot read: No such file or directory \
                 (os error 2); keeping net 1f2e3d4c",
            ),
            (
                "evalfile=/nets/failed-run-3.xqnn",
                "info string evalfile: /nets/failed-run-3.xqnn: not a net; keeping net 1f2e3d4c",
            ),
            (
                "bookfiles=book.xqb",
                "info string book not used: book.xqb: not a book",
            ),
            (
                "bookfiles=a.xqb;b.xqb",
                "info string book not used: b.xqb: No such file or directory (os error 2)",
            ),
            ("hashsize=64", "Unknown command: 'setoption hashsize 64'"),
            (
                "EvalFile=pikafish.nnue",
                "info string ERROR: The UCI option EvalFile might need to specify the full path, \
                 including the directory name, to the network file.",
            ),
            (
                "EvalFile=pikafish.nnue",
                "info string ERROR: The network file pikafish.nnue was not loaded successfully.",
            ),
        ] {
            assert!(refuses(option, refusal), "{option}: {refusal}");
        }
        for (option, note) in [
            // A refusal word in the path the engine echoes.
            (
                "evalfile=/nets/failed-run-3.xqnn",
                "info string evalfile: /nets/failed-run-3.xqnn: net 1f2e3d4c (king-square 256) loaded",
            ),
            // A fallback: the book is still played.
            (
                "bookfiles=my.xqb",
                "info string book analysis not used, my.xqb plays by weight: my.xqa: corrupt: \
                 block 3: error",
            ),
            // Said while getting ready, of something else.
            (
                "hashsize=16",
                "info string book not used: /data/book.xqb: No such file or directory (os error 2)",
            ),
            ("Hash=16", "No such option: Hashsize"),
            (
                "Hash=65536",
                "info string option Hash: 999999999 is out of range (0 to 65536), 65536 used",
            ),
            ("loadbook", "info string loadbook: 1 book file(s) open"),
            ("hashsize=16", "readyok"),
        ] {
            assert!(!refuses(option, note), "{option}: {note}");
        }
        let option = |s: &str| s.parse::<EngineOption>().unwrap().to_string();
        assert_eq!(option("hashsize abc"), "hashsize=abc");
        assert_eq!(option("Clear Hash="), "Clear Hash");
    }
}
