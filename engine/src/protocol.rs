//! Protocol text: parses UCCI and UCI command lines into typed commands and
//! formats the engine's replies. Nothing here searches or keeps state.

use std::fmt::Write as _;

use xqcore::Move;

use crate::engine::BestMove;
use crate::options::{OptionKind, OptionSpec};
use crate::search::{Score, SearchInfo};

/// Which protocol the GUI speaks, decided by its first command.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum Dialect {
    Ucci,
    Uci,
}

/// Arguments of `go`, as written (times in the protocol's unit).
#[derive(Clone, Debug, Default, PartialEq)]
pub struct GoArgs {
    pub ponder: bool,
    pub draw: bool,
    pub depth: Option<u32>,
    pub nodes: Option<u64>,
    pub infinite: bool,
    pub mate: Option<u32>,
    /// UCCI `time`.
    pub time: Option<f64>,
    pub wtime: Option<f64>,
    pub btime: Option<f64>,
    pub movestogo: Option<u32>,
    /// UCCI `increment`.
    pub increment: Option<f64>,
    pub winc: Option<f64>,
    pub binc: Option<f64>,
    pub movetime: Option<f64>,
    pub search_moves: Vec<String>,
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
    Go(GoArgs),
    PonderHit {
        draw: bool,
    },
    Stop,
    Quit,
    /// A blank line.
    Empty,
}

fn number<T: std::str::FromStr>(word: &str, value: Option<&str>) -> Result<T, String> {
    let v = value.ok_or_else(|| format!("'{word}' needs a number"))?;
    v.parse()
        .map_err(|_| format!("'{word}' needs a number, not '{}'", clip(v)))
}

/// Shortens text quoted back in a message.
pub fn clip(s: &str) -> String {
    if s.chars().count() > 40 {
        format!("{}...", s.chars().take(40).collect::<String>())
    } else {
        s.to_string()
    }
}

fn parse_go(words: &[&str]) -> Result<GoArgs, String> {
    let mut go = GoArgs::default();
    let mut i = 0;
    while i < words.len() {
        let w = words[i];
        let next = words.get(i + 1).copied();
        let mut takes_value = true;
        match w {
            "ponder" => (go.ponder, takes_value) = (true, false),
            "draw" => (go.draw, takes_value) = (true, false),
            "infinite" => (go.infinite, takes_value) = (true, false),
            "depth" => {
                // UCCI allows `depth infinite`.
                if next == Some("infinite") {
                    go.infinite = true;
                } else {
                    go.depth = Some(number(w, next)?);
                }
            }
            "nodes" => go.nodes = Some(number(w, next)?),
            "mate" => go.mate = Some(number(w, next)?),
            "time" => go.time = Some(number(w, next)?),
            "wtime" => go.wtime = Some(number(w, next)?),
            "btime" => go.btime = Some(number(w, next)?),
            "movestogo" => go.movestogo = Some(number(w, next)?),
            "increment" => go.increment = Some(number(w, next)?),
            "winc" => go.winc = Some(number(w, next)?),
            "binc" => go.binc = Some(number(w, next)?),
            "movetime" => go.movetime = Some(number(w, next)?),
            // The opponent's clock (UCCI 3.0): accepted, not needed.
            "opptime" | "oppmovestogo" | "oppincrement" => {
                number::<f64>(w, next)?;
            }
            "searchmoves" => {
                go.search_moves = words[i + 1..].iter().map(|s| s.to_string()).collect();
                break;
            }
            other => return Err(format!("go: unknown word '{}'", clip(other))),
        }
        i += if takes_value { 2 } else { 1 };
    }
    for t in [
        go.time,
        go.wtime,
        go.btime,
        go.increment,
        go.winc,
        go.binc,
        go.movetime,
    ]
    .into_iter()
    .flatten()
    {
        if !t.is_finite() || t < 0.0 {
            return Err(format!("go: time {t} is out of range"));
        }
    }
    Ok(go)
}

fn parse_position(words: &[&str]) -> Result<Command, String> {
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
        Some(&"fen") => return Err("position fen: the FEN is missing".into()),
        _ => return Err("position: expected 'startpos' or 'fen <FEN>'".into()),
    };
    Ok(Command::Position { fen, moves })
}

/// Reads `setoption name N [value V]` (UCI, and some UCCI GUIs) or
/// `setoption N [V]` (UCCI). The value keeps its inner spaces (file paths).
fn parse_setoption(rest: &str) -> Result<Command, String> {
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
        .ok_or("setoption: which option?")?;
    let value = parts
        .next()
        .map(|v| v.trim().to_string())
        .filter(|v| !v.is_empty());
    Ok(Command::SetOption {
        name: name.to_string(),
        value,
    })
}

/// Parses one command line (either dialect; the words are the same).
pub fn parse(line: &str) -> Result<Command, String> {
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
        "go" => Command::Go(parse_go(args)?),
        "ponderhit" => Command::PonderHit {
            draw: args.first() == Some(&"draw"),
        },
        "stop" => Command::Stop,
        "quit" | "bye" | "exit" => Command::Quit,
        other => return Err(format!("unknown command '{}'", clip(other))),
    })
}

/// An `info` line for a finished iteration.
pub fn format_info(dialect: Dialect, info: &SearchInfo) -> String {
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
pub fn format_book_move(mv: Move, weight: u32) -> String {
    format!("info string book move {mv} weight {weight}")
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

    #[test]
    fn parses_every_command() {
        assert_eq!(parse("ucci").unwrap(), Command::Ucci);
        assert_eq!(parse("  isready\r").unwrap(), Command::IsReady);
        assert_eq!(parse("").unwrap(), Command::Empty);
        assert_eq!(
            parse("position startpos moves h2e2 h9g7").unwrap(),
            Command::Position {
                fen: None,
                moves: vec!["h2e2".into(), "h9g7".into()]
            }
        );
        assert_eq!(
            parse("position fen 4k4/9/9/9/9/9/9/9/9/3K5 w - - 0 1").unwrap(),
            Command::Position {
                fen: Some("4k4/9/9/9/9/9/9/9/9/3K5 w - - 0 1".into()),
                moves: vec![]
            }
        );
        assert_eq!(
            parse("setoption name Hash value 32").unwrap(),
            Command::SetOption {
                name: "Hash".into(),
                value: Some("32".into())
            }
        );
        assert_eq!(
            parse("setoption bookfiles my books/a.bin;b.bin").unwrap(),
            Command::SetOption {
                name: "bookfiles".into(),
                value: Some("my books/a.bin;b.bin".into())
            }
        );
        assert_eq!(
            parse("setoption loadbook").unwrap(),
            Command::SetOption {
                name: "loadbook".into(),
                value: None
            }
        );
        assert_eq!(
            parse("ponderhit draw").unwrap(),
            Command::PonderHit { draw: true }
        );
        assert_eq!(parse("quit").unwrap(), Command::Quit);
        assert_eq!(parse("bye").unwrap(), Command::Quit);
        assert_eq!(
            parse("fen 4k4/9/9/9/9/9/9/9/9/3K5 w - - 0 1 moves d0e0").unwrap(),
            Command::Position {
                fen: Some("4k4/9/9/9/9/9/9/9/9/3K5 w - - 0 1".into()),
                moves: vec!["d0e0".into()]
            }
        );
        assert!(parse("fen").is_err());
    }

    #[test]
    fn parses_go_modes() {
        let Command::Go(g) =
            parse("go ponder time 300 increment 2 opptime 300 oppincrement 2").unwrap()
        else {
            panic!()
        };
        assert!(g.ponder);
        assert_eq!((g.time, g.increment), (Some(300.0), Some(2.0)));
        let Command::Go(g) = parse("go draw wtime 1000 btime 2000 movestogo 20").unwrap() else {
            panic!()
        };
        assert!(g.draw);
        assert_eq!(
            (g.wtime, g.btime, g.movestogo),
            (Some(1000.0), Some(2000.0), Some(20))
        );
        let Command::Go(g) = parse("go depth infinite").unwrap() else {
            panic!()
        };
        assert!(g.infinite);
        let Command::Go(g) = parse("go nodes 5000").unwrap() else {
            panic!()
        };
        assert_eq!(g.nodes, Some(5000));
        let Command::Go(g) = parse("go movetime 100 searchmoves h2e2 b2e2").unwrap() else {
            panic!()
        };
        assert_eq!(g.search_moves, vec!["h2e2", "b2e2"]);
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
        assert!(parse("go depth").unwrap_err().contains("needs a number"));
        assert!(parse("go depth x").unwrap_err().contains("'x'"));
        assert!(parse("go time -5").unwrap_err().contains("out of range"));
        assert!(parse("go sideways").unwrap_err().contains("unknown word"));
        assert!(parse("position").is_err());
        assert!(parse("position fen").is_err());
        assert!(parse("position middle").is_err());
        assert!(parse("setoption").is_err());
        assert!(parse("fly").unwrap_err().contains("unknown command"));
        assert!(parse(&"x".repeat(100_000)).unwrap_err().len() < 100);
    }
}
