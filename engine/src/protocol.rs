//! Protocol text: parses UCCI and UCI command lines into typed commands and
//! formats the engine's replies. Nothing here searches or keeps state.

use std::fmt::Write as _;
use std::time::Duration;

use xqcore::{Color, IccsMove, Move};

use crate::answer::BestMove;
use crate::book::BookCandidate;
use crate::options::{OptionKind, OptionSpec};
use crate::score::Score;
use crate::search::SearchInfo;
use crate::time::{Clock, Limits};

/// Which protocol the GUI speaks, decided by its first command.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum Dialect {
    Ucci,
    Uci,
}

/// What reading a `go` takes besides its words: the unit of its times
/// (UCCI counts seconds unless `usemillisec` is on, UCI milliseconds) and
/// whose turn it is (UCI gives both clocks).
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub struct GoContext {
    pub millisec: bool,
    pub turn: Color,
}

impl Default for GoContext {
    /// UCCI's seconds, Red to move.
    fn default() -> Self {
        GoContext {
            millisec: false,
            turn: Color::Red,
        }
    }
}

/// Why a command line was refused. Text quoted back is cut short.
#[derive(Clone, Debug, PartialEq, Eq, thiserror::Error)]
pub enum ProtocolError {
    #[error("unknown command '{0}'")]
    UnknownCommand(String),
    #[error("'{0}' needs a number")]
    MissingNumber(&'static str),
    #[error("'{word}' needs a number, not '{value}'")]
    NotANumber { word: &'static str, value: String },
    #[error("go: unknown word '{0}'")]
    UnknownGoWord(String),
    #[error("go: time {0} is out of range")]
    TimeOutOfRange(String),
    #[error("go: searchmoves: '{0}' is not a move")]
    NotAMove(String),
    #[error("position fen: the FEN is missing")]
    MissingFen,
    #[error("position: expected 'startpos' or 'fen <FEN>'")]
    NoStart,
    #[error("setoption: which option?")]
    MissingOptionName,
}

/// A command line, parsed.
#[derive(Clone, Debug, PartialEq)]
pub enum Command {
    Ucci,
    Uci,
    IsReady,
    NewGame,
    SetOption {
        name: String,
        value: Option<String>,
    },
    /// `fen: None` is the start position.
    Position {
        fen: Option<String>,
        moves: Vec<String>,
    },
    BanMoves(Vec<String>),
    Go {
        limits: Limits,
        /// The opponent offers a draw (UCCI `go draw`).
        draw_offered: bool,
    },
    PonderHit {
        draw: bool,
    },
    Stop,
    Quit,
    /// A blank line.
    Empty,
}

/// The number after `word`.
fn number<T: std::str::FromStr>(
    word: &'static str,
    value: Option<&str>,
) -> Result<T, ProtocolError> {
    let v = value.ok_or(ProtocolError::MissingNumber(word))?;
    v.parse().map_err(|_| ProtocolError::NotANumber {
        word,
        value: clip(v),
    })
}

/// Shortens text quoted back in a message.
pub fn clip(s: &str) -> String {
    if s.chars().count() > 40 {
        format!("{}...", s.chars().take(40).collect::<String>())
    } else {
        s.to_string()
    }
}

/// The words of a `go` as written: times in the protocol's unit, both
/// sides' clocks.
#[derive(Default)]
struct GoWords {
    limits: Limits,
    draw_offered: bool,
    time: Option<f64>,
    wtime: Option<f64>,
    btime: Option<f64>,
    movestogo: Option<u32>,
    increment: Option<f64>,
    winc: Option<f64>,
    binc: Option<f64>,
    movetime: Option<f64>,
}

impl GoWords {
    /// Reads the word at `words[i]` (with its value after it); returns how
    /// many words it took, or `None` at `searchmoves`, which takes the rest.
    fn read(&mut self, words: &[&str], i: usize) -> Result<Option<usize>, ProtocolError> {
        let next = words.get(i + 1).copied();
        let limits = &mut self.limits;
        match words[i] {
            "ponder" => limits.ponder = true,
            "draw" => self.draw_offered = true,
            "infinite" => limits.infinite = true,
            // UCCI allows `depth infinite`.
            "depth" if next == Some("infinite") => limits.infinite = true,
            "depth" => limits.depth = Some(number("depth", next)?),
            "nodes" => limits.nodes = Some(number("nodes", next)?),
            "mate" => limits.mate = Some(number("mate", next)?),
            "time" => self.time = Some(number("time", next)?),
            "wtime" => self.wtime = Some(number("wtime", next)?),
            "btime" => self.btime = Some(number("btime", next)?),
            "movestogo" => self.movestogo = Some(number("movestogo", next)?),
            "increment" => self.increment = Some(number("increment", next)?),
            "winc" => self.winc = Some(number("winc", next)?),
            "binc" => self.binc = Some(number("binc", next)?),
            "movetime" => self.movetime = Some(number("movetime", next)?),
            // The opponent's clock (UCCI 3.0): accepted, not needed.
            "opptime" => _ = number::<f64>("opptime", next)?,
            "oppmovestogo" => _ = number::<f64>("oppmovestogo", next)?,
            "oppincrement" => _ = number::<f64>("oppincrement", next)?,
            "searchmoves" => {
                for word in &words[i + 1..] {
                    let iccs: IccsMove = word
                        .parse()
                        .map_err(|_| ProtocolError::NotAMove(clip(word)))?;
                    limits.search_moves.push(Move::new(iccs.from, iccs.to));
                }
                return Ok(None);
            }
            other => return Err(ProtocolError::UnknownGoWord(clip(other))),
        }
        let flag = matches!(words[i], "ponder" | "draw" | "infinite");
        Ok(Some(if flag { 1 } else { 2 }))
    }

    /// The limits, with the times in `context`'s unit and the clock of
    /// the side to move.
    fn into_limits(self, context: GoContext) -> Result<(Limits, bool), ProtocolError> {
        let times = [
            self.time,
            self.wtime,
            self.btime,
            self.increment,
            self.winc,
            self.binc,
            self.movetime,
        ];
        if let Some(t) = times
            .into_iter()
            .flatten()
            .find(|t| !t.is_finite() || *t < 0.0)
        {
            return Err(ProtocolError::TimeOutOfRange(t.to_string()));
        }
        let duration = |t: f64| {
            let ms = if context.millisec { t } else { t * 1000.0 };
            Duration::from_secs_f64((ms / 1000.0).clamp(0.0, 1e9))
        };
        let red = context.turn == Color::Red;
        let remaining = self.time.or(if red { self.wtime } else { self.btime });
        let increment = self.increment.or(if red { self.winc } else { self.binc });
        let mut limits = self.limits;
        limits.movetime = self.movetime.map(duration);
        limits.clock = remaining.map(|t| Clock {
            remaining: duration(t),
            movestogo: self.movestogo,
            increment: increment.map_or(Duration::ZERO, duration),
        });
        Ok((limits, self.draw_offered))
    }
}

fn parse_go(words: &[&str], context: GoContext) -> Result<Command, ProtocolError> {
    let mut go = GoWords::default();
    let mut i = 0;
    while i < words.len() {
        match go.read(words, i)? {
            Some(taken) => i += taken,
            None => break,
        }
    }
    let (limits, draw_offered) = go.into_limits(context)?;
    Ok(Command::Go {
        limits,
        draw_offered,
    })
}

fn parse_position(words: &[&str]) -> Result<Command, ProtocolError> {
    let moves_at = words.iter().position(|w| *w == "moves");
    let (setup, moves) = match moves_at {
        Some(i) => (
            &words[..i],
            words[i + 1..].iter().map(|s| s.to_string()).collect(),
        ),
        None => (words, Vec::new()),
    };
    let fen = match setup.first() {
        Some(&"startpos") if setup.len() == 1 => None,
        Some(&"fen") if setup.len() > 1 => Some(setup[1..].join(" ")),
        Some(&"fen") => return Err(ProtocolError::MissingFen),
        _ => return Err(ProtocolError::NoStart),
    };
    Ok(Command::Position { fen, moves })
}

/// Reads `setoption name N [value V]` (UCI, and some UCCI GUIs) or
/// `setoption N [V]` (UCCI). The value keeps its inner spaces (file paths).
fn parse_setoption(rest: &str) -> Result<Command, ProtocolError> {
    let rest = rest.trim();
    if let Some(named) = rest.strip_prefix("name ") {
        let (name, value) = match named.find(" value") {
            Some(i) => (named[..i].trim(), Some(named[i + 6..].trim().to_string())),
            None => (named.trim(), None),
        };
        return Ok(Command::SetOption {
            name: name.to_string(),
            value,
        });
    }
    let mut parts = rest.splitn(2, char::is_whitespace);
    let name = parts
        .next()
        .filter(|n| !n.is_empty())
        .ok_or(ProtocolError::MissingOptionName)?;
    let value = parts
        .next()
        .map(|v| v.trim().to_string())
        .filter(|v| !v.is_empty());
    Ok(Command::SetOption {
        name: name.to_string(),
        value,
    })
}

/// Parses one command line (either dialect; the words are the same);
/// `context` is how a `go`'s times are read.
///
/// # Errors
///
/// A line that is no command, or a command with words it does not take,
/// is refused with the reason.
pub fn parse(line: &str, context: GoContext) -> Result<Command, ProtocolError> {
    let line = line.trim_matches(|c: char| c.is_whitespace() || c == '\0');
    let words: Vec<&str> = line.split_whitespace().collect();
    let Some(&first) = words.first() else {
        return Ok(Command::Empty);
    };
    let args = &words[1..];
    Ok(match first {
        "ucci" => Command::Ucci,
        "uci" => Command::Uci,
        "isready" => Command::IsReady,
        "ucinewgame" => Command::NewGame,
        "setoption" => parse_setoption(line["setoption".len()..].trim())?,
        "position" => parse_position(args)?,
        // XBoard's UCI adapter in its xiangqi (Cyclone) dialect leaves out
        // `position`: `fen <FEN> [moves ...]`.
        "fen" => parse_position(&words)?,
        "banmoves" => Command::BanMoves(args.iter().map(|s| s.to_string()).collect()),
        "go" => parse_go(args, context)?,
        "ponderhit" => Command::PonderHit {
            draw: args.first() == Some(&"draw"),
        },
        "stop" => Command::Stop,
        "quit" | "bye" | "exit" => Command::Quit,
        other => return Err(ProtocolError::UnknownCommand(clip(other))),
    })
}

/// An `info` line for a finished iteration; with `wdl` (UCI only), win,
/// draw and loss in per mille after the score, as Stockfish prints them.
pub fn format_info(dialect: Dialect, info: &SearchInfo, wdl: Option<[u32; 3]>) -> String {
    let ms = info.time.as_millis() as u64;
    let nps = info.nodes * 1000 / ms.max(1);
    let mut s = format!("info depth {} seldepth {}", info.depth, info.seldepth);
    match dialect {
        Dialect::Ucci => {
            let _ = write!(s, " score {}", info.raw_score);
        }
        Dialect::Uci => {
            let _ = write!(s, " multipv {}", info.multipv);
            match info.score {
                Score::Cp(cp) => {
                    let _ = write!(s, " score cp {cp}");
                }
                Score::Mate(n) => {
                    let _ = write!(s, " score mate {n}");
                }
            }
            if let Some([w, d, l]) = wdl {
                let _ = write!(s, " wdl {w} {d} {l}");
            }
            let _ = write!(s, " hashfull {}", info.hashfull);
        }
    }
    let _ = write!(s, " time {ms} nodes {} nps {nps}", info.nodes);
    if info.tbhits > 0 {
        let _ = write!(s, " tbhits {}", info.tbhits);
    }
    s.push_str(" pv");
    for m in &info.pv {
        let _ = write!(s, " {m}");
    }
    s
}

/// The final answer of a search.
pub fn format_bestmove(dialect: Dialect, best: &BestMove) -> String {
    let Some(mv) = best.mv else {
        return match dialect {
            Dialect::Ucci => "nobestmove".into(),
            Dialect::Uci => "bestmove (none)".into(),
        };
    };
    let mut s = format!("bestmove {mv}");
    if let Some(p) = best.ponder {
        let _ = write!(s, " ponder {p}");
    }
    if dialect == Dialect::Ucci {
        if best.draw {
            s.push_str(" draw");
        } else if best.resign {
            s.push_str(" resign");
        }
    }
    s
}

/// A book candidate, as a string in both protocols: its weight is how
/// often the book plays it, not an evaluation, and a GUI would show a
/// `score` as one.
pub fn format_book_move(c: &BookCandidate) -> String {
    let mut line = format!("info string book move {}", c.mv);
    match c.score {
        // An analysed book: the backed-up score is the one to show.
        Some(score) => write!(line, " score {score}"),
        None => write!(line, " weight {}", c.weight),
    }
    .expect("writing to a String");
    if let Some(games) = c.games {
        write!(line, " games {games}").expect("writing to a String");
    }
    line
}

/// The `option` line announcing `spec`, or `None` when the dialect does
/// not have the option.
pub fn format_option(dialect: Dialect, spec: &OptionSpec) -> Option<String> {
    let mut s = match dialect {
        Dialect::Ucci => format!("option {}", spec.ucci?),
        Dialect::Uci => format!("option name {}", spec.uci?),
    };
    let _ = match (spec.kind, dialect) {
        (OptionKind::Check { default }, _) => write!(s, " type check default {default}"),
        (OptionKind::Spin { default, min, max }, Dialect::Ucci) => {
            write!(s, " type spin min {min} max {max} default {default}")
        }
        (OptionKind::Spin { default, min, max }, Dialect::Uci) => {
            write!(s, " type spin default {default} min {min} max {max}")
        }
        (OptionKind::Combo { default, vars }, Dialect::Ucci) => {
            let vars: String = vars.iter().map(|v| format!(" var {v}")).collect();
            write!(s, " type combo{vars} default {default}")
        }
        (OptionKind::Combo { default, vars }, Dialect::Uci) => {
            let vars: String = vars.iter().map(|v| format!(" var {v}")).collect();
            write!(s, " type combo default {default}{vars}")
        }
        (OptionKind::Text { default }, Dialect::Ucci) => {
            write!(s, " type string default {default}")
        }
        (OptionKind::Text { default }, Dialect::Uci) => {
            let default = if default.is_empty() {
                "<empty>"
            } else {
                default
            };
            write!(s, " type string default {default}")
        }
        (OptionKind::Button, _) => write!(s, " type button"),
        (OptionKind::Label, _) => write!(s, " type label"),
    };
    Some(s.trim_end().to_string())
}

/// An `info currmove` line.
pub fn format_currmove(mv: Move, number: usize) -> String {
    format!("info currmove {mv} currmovenumber {number}")
}

#[cfg(test)]
mod tests {
    use super::*;

    /// Parses with UCCI's seconds, Red to move.
    fn parse_line(line: &str) -> Result<Command, ProtocolError> {
        parse(line, GoContext::default())
    }

    /// The limits of a `go` line read in `context`.
    fn go_limits(line: &str, context: GoContext) -> (Limits, bool) {
        match parse(line, context).unwrap() {
            Command::Go {
                limits,
                draw_offered,
            } => (limits, draw_offered),
            other => panic!("{other:?}"),
        }
    }

    #[test]
    fn parses_every_command() {
        assert_eq!(parse_line("ucci").unwrap(), Command::Ucci);
        assert_eq!(parse_line("  isready\r").unwrap(), Command::IsReady);
        assert_eq!(parse_line("").unwrap(), Command::Empty);
        assert_eq!(
            parse_line("position startpos moves h2e2 h9g7").unwrap(),
            Command::Position {
                fen: None,
                moves: vec!["h2e2".into(), "h9g7".into()]
            }
        );
        assert_eq!(
            parse_line("position fen 4k4/9/9/9/9/9/9/9/9/3K5 w - - 0 1").unwrap(),
            Command::Position {
                fen: Some("4k4/9/9/9/9/9/9/9/9/3K5 w - - 0 1".into()),
                moves: vec![]
            }
        );
        assert_eq!(
            parse_line("setoption name Hash value 32").unwrap(),
            Command::SetOption {
                name: "Hash".into(),
                value: Some("32".into())
            }
        );
        assert_eq!(
            parse_line("setoption bookfiles my books/a.bin;b.bin").unwrap(),
            Command::SetOption {
                name: "bookfiles".into(),
                value: Some("my books/a.bin;b.bin".into())
            }
        );
        assert_eq!(
            parse_line("setoption loadbook").unwrap(),
            Command::SetOption {
                name: "loadbook".into(),
                value: None
            }
        );
        assert_eq!(
            parse_line("ponderhit draw").unwrap(),
            Command::PonderHit { draw: true }
        );
        assert_eq!(parse_line("quit").unwrap(), Command::Quit);
        assert_eq!(parse_line("bye").unwrap(), Command::Quit);
        assert_eq!(
            parse_line("fen 4k4/9/9/9/9/9/9/9/9/3K5 w - - 0 1 moves d0e0").unwrap(),
            Command::Position {
                fen: Some("4k4/9/9/9/9/9/9/9/9/3K5 w - - 0 1".into()),
                moves: vec!["d0e0".into()]
            }
        );
        assert!(parse_line("fen").is_err());
    }

    #[test]
    fn parses_go_modes() {
        let secs = Duration::from_secs;
        let ucci = GoContext::default();
        let (g, draw) = go_limits(
            "go ponder time 300 increment 2 opptime 300 oppincrement 2",
            ucci,
        );
        assert!(g.ponder && !draw);
        let clock = Clock {
            remaining: secs(300),
            movestogo: None,
            increment: secs(2),
        };
        assert_eq!(g.clock, Some(clock));
        // UCI: milliseconds, and the clock of the side to move.
        let black = GoContext {
            millisec: true,
            turn: Color::Black,
        };
        let (g, draw) = go_limits("go draw wtime 1000 btime 2000 movestogo 20", black);
        assert!(draw);
        let clock = Clock {
            remaining: secs(2),
            movestogo: Some(20),
            increment: Duration::ZERO,
        };
        assert_eq!(g.clock, Some(clock));
        let (g, _) = go_limits("go depth infinite", ucci);
        assert!(g.infinite);
        assert_eq!(go_limits("go nodes 5000", ucci).0, Limits::nodes(5000));
        let (g, _) = go_limits("go movetime 100 searchmoves h2e2 b2e2", ucci);
        assert_eq!(g.movetime, Some(secs(100)));
        let moves: Vec<String> = g.search_moves.iter().map(Move::to_string).collect();
        assert_eq!(moves, ["h2e2", "b2e2"]);
        assert!(
            !g.is_game_move(),
            "picked root moves are searched, not played from the book"
        );
        let (g, _) = go_limits("go time 10 increment 0.1", ucci);
        assert!(g.is_game_move());
        assert!(!go_limits("go depth 5", ucci).0.is_game_move());
    }

    #[test]
    fn options_are_announced_in_each_dialect() {
        let line = |dialect, name| format_option(dialect, crate::options::find(name).unwrap());
        assert_eq!(
            line(Dialect::Ucci, "hashsize").as_deref(),
            Some("option hashsize type spin min 0 max 65536 default 64")
        );
        assert_eq!(
            line(Dialect::Uci, "hashsize").as_deref(),
            Some("option name Hash type spin default 64 min 0 max 65536")
        );
        assert_eq!(
            line(Dialect::Ucci, "style").as_deref(),
            Some("option style type combo var solid var normal var risky default normal")
        );
        assert_eq!(
            line(Dialect::Uci, "style").as_deref(),
            Some("option name Style type combo default normal var solid var normal var risky")
        );
        assert_eq!(
            line(Dialect::Ucci, "bookfiles").as_deref(),
            Some("option bookfiles type string default")
        );
        assert_eq!(
            line(Dialect::Uci, "bookfiles").as_deref(),
            Some("option name BookFiles type string default <empty>")
        );
        assert_eq!(
            line(Dialect::Uci, "UCI_Variant").as_deref(),
            Some("option name UCI_Variant type combo default xiangqi var xiangqi")
        );
        assert_eq!(line(Dialect::Ucci, "UCI_Variant"), None);
        assert_eq!(line(Dialect::Uci, "usemillisec"), None);
        assert_eq!(
            line(Dialect::Uci, "clearhash").as_deref(),
            Some("option name Clear Hash type button")
        );
    }

    #[test]
    fn refuses_malformed_lines_with_a_reason() {
        let why = |line| parse_line(line).unwrap_err().to_string();
        assert!(why("go depth").contains("needs a number"));
        assert!(why("go depth x").contains("'x'"));
        assert!(why("go time -5").contains("out of range"));
        assert!(why("go sideways").contains("unknown word"));
        assert!(why("go searchmoves h2e2 h2").contains("'h2' is not a move"));
        assert!(parse_line("position").is_err());
        assert!(parse_line("position fen").is_err());
        assert!(parse_line("position middle").is_err());
        assert!(parse_line("setoption").is_err());
        assert!(why("fly").contains("unknown command"));
        assert!(why(&"x".repeat(100_000)).len() < 100);
    }
}
