//! Engine-versus-engine matches over UCCI, with adjudication by the rules:
//! mate and stalemate (no legal move loses), repetition (perpetual check loses
//! for the checker, other repetitions draw), the natural-move limit, a length
//! cap, illegal moves, resignations and lost time.

use std::io::{BufRead, BufReader, Write};
use std::process::{Child, ChildStdin, Command, Stdio};
use std::sync::mpsc::{channel, Receiver, RecvTimeoutError};
use std::time::{Duration, Instant};

use xqcore::{Color, Move, Position, RepetitionKind};

/// How a game ended, from Red's side.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum GameResult {
    RedWins,
    BlackWins,
    Draw,
}

/// Why a game ended.
#[derive(Clone, Debug, PartialEq, Eq)]
pub enum Termination {
    /// The side to move had no legal move (checkmate or stalemate).
    NoLegalMove,
    PerpetualCheck,
    Repetition,
    NaturalMoveLimit,
    LengthCap,
    IllegalMove(String),
    Resignation,
    TimeForfeit,
    EngineFailure(String),
}

/// Judges the position after a move: `Some` when the game is over.
/// Repetition ends the game at the third occurrence.
pub fn adjudicate(
    pos: &Position,
    draw_plies: u32,
    max_plies: usize,
) -> Option<(GameResult, Termination)> {
    let loser_wins = |loser: Color| match loser {
        Color::Red => GameResult::BlackWins,
        Color::Black => GameResult::RedWins,
    };
    if pos.is_lost() {
        return Some((loser_wins(pos.turn()), Termination::NoLegalMove));
    }
    if pos.repetition_count() >= 3 {
        let kind = pos.repetition().map(|r| r.kind);
        return Some(match kind {
            Some(RepetitionKind::PerpetualCheck { by }) => {
                (loser_wins(by), Termination::PerpetualCheck)
            }
            _ => (GameResult::Draw, Termination::Repetition),
        });
    }
    if pos.plies_since_capture() >= draw_plies {
        return Some((GameResult::Draw, Termination::NaturalMoveLimit));
    }
    if pos.ply() >= max_plies {
        return Some((GameResult::Draw, Termination::LengthCap));
    }
    None
}

/// A UCCI engine process.
pub struct EngineProcess {
    child: Child,
    stdin: ChildStdin,
    lines: Receiver<String>,
    pub name: String,
}

impl EngineProcess {
    /// Starts `command` (run by `sh -c`) and completes the UCCI handshake.
    pub fn start(command: &str, options: &[String]) -> Result<EngineProcess, String> {
        let mut child = Command::new("sh")
            .arg("-c")
            .arg(command)
            .stdin(Stdio::piped())
            .stdout(Stdio::piped())
            .stderr(Stdio::null())
            .spawn()
            .map_err(|e| format!("cannot start '{command}': {e}"))?;
        let stdout = child.stdout.take().expect("piped");
        let stdin = child.stdin.take().expect("piped");
        let (tx, rx) = channel();
        std::thread::spawn(move || {
            for line in BufReader::new(stdout).lines() {
                let Ok(line) = line else { break };
                if tx.send(line).is_err() {
                    break;
                }
            }
        });
        let mut e = EngineProcess {
            child,
            stdin,
            lines: rx,
            name: command.to_string(),
        };
        e.send("ucci")?;
        let id = e.wait_for(
            |l| l == "ucciok" || l.starts_with("id name "),
            Duration::from_secs(30),
        )?;
        if let Some(name) = id.strip_prefix("id name ") {
            e.name = name.to_string();
            e.wait_for(|l| l == "ucciok", Duration::from_secs(30))?;
        }
        e.send("setoption usemillisec true")?;
        for o in options {
            e.send(&format!("setoption {o}"))?;
        }
        Ok(e)
    }

    fn send(&mut self, line: &str) -> Result<(), String> {
        writeln!(self.stdin, "{line}")
            .and_then(|_| self.stdin.flush())
            .map_err(|e| format!("{}: {e}", self.name))
    }

    fn wait_for(
        &mut self,
        pred: impl Fn(&str) -> bool,
        timeout: Duration,
    ) -> Result<String, String> {
        let deadline = Instant::now() + timeout;
        loop {
            match self
                .lines
                .recv_timeout(deadline.saturating_duration_since(Instant::now()))
            {
                Ok(l) if pred(l.trim()) => return Ok(l.trim().to_string()),
                Ok(_) => {}
                Err(RecvTimeoutError::Timeout) => {
                    return Err(format!("{}: no answer within {timeout:?}", self.name))
                }
                Err(RecvTimeoutError::Disconnected) => {
                    return Err(format!("{}: exited", self.name))
                }
            }
        }
    }

    /// Asks for a move with the given clocks (milliseconds); returns the
    /// `bestmove` line and the time it took.
    fn think(
        &mut self,
        pos_cmd: &str,
        remaining: Duration,
        increment: Duration,
        limit: Duration,
    ) -> Result<(String, Duration), String> {
        self.send(pos_cmd)?;
        let started = Instant::now();
        self.send(&format!(
            "go time {} increment {}",
            remaining.as_millis(),
            increment.as_millis()
        ))?;
        let line = self.wait_for(|l| l.starts_with("bestmove") || l == "nobestmove", limit)?;
        Ok((line, started.elapsed()))
    }
}

impl Drop for EngineProcess {
    fn drop(&mut self) {
        let _ = self.send("quit");
        let deadline = Instant::now() + Duration::from_millis(500);
        while Instant::now() < deadline {
            if let Ok(Some(_)) = self.child.try_wait() {
                return;
            }
            std::thread::sleep(Duration::from_millis(10));
        }
        let _ = self.child.kill();
        let _ = self.child.wait();
    }
}

/// Match settings.
#[derive(Clone, Debug)]
pub struct MatchConfig {
    pub base: Duration,
    pub increment: Duration,
    /// Lateness tolerated beyond the clock before a game is forfeited.
    pub tolerance: Duration,
    pub draw_plies: u32,
    pub max_plies: usize,
}

/// One finished game.
#[derive(Clone, Debug)]
pub struct GameRecord {
    pub red: String,
    pub black: String,
    pub opening: Vec<Move>,
    pub moves: Vec<Move>,
    pub result: GameResult,
    pub termination: Termination,
    /// Longest time a side took beyond its clock allowance, in ms.
    pub worst_overrun_ms: i64,
}

/// Plays one game from the start position after `opening`.
pub fn play_game(
    red: &mut EngineProcess,
    black: &mut EngineProcess,
    opening: &[Move],
    cfg: &MatchConfig,
) -> GameRecord {
    let mut pos = Position::start();
    for &m in opening {
        pos.make_move(m);
    }
    let mut clocks = [cfg.base, cfg.base];
    let mut moves = Vec::new();
    let mut worst_overrun_ms = i64::MIN;
    let (red_name, black_name) = (red.name.clone(), black.name.clone());
    let record = |moves: Vec<Move>, result, termination, worst| GameRecord {
        red: red_name.clone(),
        black: black_name.clone(),
        opening: opening.to_vec(),
        moves,
        result,
        termination,
        worst_overrun_ms: worst,
    };
    let loses = |c: Color| {
        if c == Color::Red {
            GameResult::BlackWins
        } else {
            GameResult::RedWins
        }
    };
    loop {
        if let Some((result, why)) = adjudicate(&pos, cfg.draw_plies, cfg.max_plies) {
            return record(moves, result, why, worst_overrun_ms);
        }
        let side = pos.turn();
        let engine = if side == Color::Red {
            &mut *red
        } else {
            &mut *black
        };
        let history: Vec<String> = opening
            .iter()
            .chain(moves.iter())
            .map(|m| m.to_string())
            .collect();
        let pos_cmd = if history.is_empty() {
            "position startpos".to_string()
        } else {
            format!("position startpos moves {}", history.join(" "))
        };
        let clock = clocks[side.index()];
        let limit = clock + cfg.tolerance + Duration::from_secs(5);
        let (line, took) = match engine.think(&pos_cmd, clock, cfg.increment, limit) {
            Ok(r) => r,
            Err(e) => {
                return record(
                    moves,
                    loses(side),
                    Termination::EngineFailure(e),
                    worst_overrun_ms,
                )
            }
        };
        worst_overrun_ms = worst_overrun_ms.max(took.as_millis() as i64 - clock.as_millis() as i64);
        if took > clock + cfg.tolerance {
            return record(
                moves,
                loses(side),
                Termination::TimeForfeit,
                worst_overrun_ms,
            );
        }
        clocks[side.index()] = clock.saturating_sub(took) + cfg.increment;
        let words: Vec<&str> = line.split_whitespace().collect();
        if words[0] == "nobestmove" {
            return record(
                moves,
                loses(side),
                Termination::IllegalMove("nobestmove with legal moves".into()),
                worst_overrun_ms,
            );
        }
        let Some(mv) = words.get(1).and_then(|m| pos.parse_move(m).ok()) else {
            return record(
                moves,
                loses(side),
                Termination::IllegalMove(line.clone()),
                worst_overrun_ms,
            );
        };
        if words.contains(&"resign") {
            return record(
                moves,
                loses(side),
                Termination::Resignation,
                worst_overrun_ms,
            );
        }
        pos.make_move(mv);
        moves.push(mv);
    }
}

/// Reads opening lines (ICCS moves, `#` comments) and checks their legality.
pub fn read_openings(text: &str) -> Result<Vec<Vec<Move>>, String> {
    let mut out = Vec::new();
    for (n, line) in text.lines().enumerate() {
        let line = line.trim();
        if line.is_empty() || line.starts_with('#') {
            continue;
        }
        let mut pos = Position::start();
        let mut moves = Vec::new();
        for m in line.split_whitespace() {
            let mv = pos
                .parse_move(m)
                .map_err(|e| format!("openings line {}: {e}", n + 1))?;
            pos.make_move(mv);
            moves.push(mv);
        }
        out.push(moves);
    }
    Ok(out)
}

#[cfg(test)]
mod tests {
    use super::*;

    fn play(fen: &str, moves: &str) -> Position {
        let mut pos = Position::from_fen(fen).unwrap();
        for m in moves.split_whitespace() {
            pos.make_move(pos.parse_move(m).unwrap());
        }
        pos
    }

    #[test]
    fn mate_and_stalemate_lose() {
        let mate = play("3k5/1R7/9/9/9/9/9/9/9/R3K4 w", "a0a9");
        assert_eq!(
            adjudicate(&mate, 120, 400),
            Some((GameResult::RedWins, Termination::NoLegalMove))
        );
        let stalemate = play("3k5/R8/4R4/9/9/9/9/9/9/4K4 b", "");
        assert_eq!(
            adjudicate(&stalemate, 120, 400),
            Some((GameResult::RedWins, Termination::NoLegalMove))
        );
    }

    #[test]
    fn perpetual_check_loses_and_idle_repetition_draws() {
        let fen = "3k5/9/9/9/9/9/9/9/9/4K2R1 w";
        let twice = play(fen, "h0h9 d9d8 h9h8 d8d9 h8h9 d9d8");
        assert_eq!(
            adjudicate(&twice, 120, 400),
            None,
            "second occurrence: play on"
        );
        let thrice = play(fen, "h0h9 d9d8 h9h8 d8d9 h8h9 d9d8 h9h8 d8d9 h8h9 d9d8");
        assert_eq!(
            adjudicate(&thrice, 120, 400),
            Some((GameResult::BlackWins, Termination::PerpetualCheck))
        );
        let idle = play(
            Position::start().fen().as_str(),
            "b0c2 b9c7 c2b0 c7b9 b0c2 b9c7 c2b0 c7b9",
        );
        assert_eq!(
            adjudicate(&idle, 120, 400),
            Some((GameResult::Draw, Termination::Repetition))
        );
    }

    #[test]
    fn move_limits_draw() {
        let pos = play(Position::start().fen().as_str(), "b0c2 b9c7 c2b0 c7b9");
        assert_eq!(
            adjudicate(&pos, 4, 400),
            Some((GameResult::Draw, Termination::NaturalMoveLimit))
        );
        assert_eq!(
            adjudicate(&pos, 120, 4),
            Some((GameResult::Draw, Termination::LengthCap))
        );
    }

    #[test]
    fn bundled_openings_are_legal() {
        let openings = read_openings(include_str!("../../data/openings.txt")).unwrap();
        assert_eq!(openings.len(), 60);
        assert!(read_openings("h2e2 h2e2").is_err());
    }
}

/// Totals from the first engine's side.
#[derive(Clone, Debug, Default, PartialEq, Eq)]
pub struct Tally {
    pub wins: u32,
    pub draws: u32,
    pub losses: u32,
}

impl Tally {
    /// Score in percent (a draw counts half).
    pub fn percent(&self) -> f64 {
        let games = (self.wins + self.draws + self.losses).max(1) as f64;
        100.0 * (self.wins as f64 + 0.5 * self.draws as f64) / games
    }
}

/// Plays `games` games, alternating colours over each opening; engines are
/// restarted for every game so none carries state over. `each` sees every game.
pub fn run_match(
    first: (&str, &[String]),
    second: (&str, &[String]),
    openings: &[Vec<Move>],
    games: usize,
    cfg: &MatchConfig,
    mut each: impl FnMut(usize, &GameRecord, &Tally),
) -> Result<Tally, String> {
    let mut tally = Tally::default();
    for g in 0..games {
        let opening = &openings[(g / 2) % openings.len().max(1)];
        let mut a = EngineProcess::start(first.0, first.1)?;
        let mut b = EngineProcess::start(second.0, second.1)?;
        let first_is_red = g % 2 == 0;
        let record = if first_is_red {
            play_game(&mut a, &mut b, opening, cfg)
        } else {
            play_game(&mut b, &mut a, opening, cfg)
        };
        let first_won = match record.result {
            GameResult::Draw => None,
            GameResult::RedWins => Some(first_is_red),
            GameResult::BlackWins => Some(!first_is_red),
        };
        match first_won {
            None => tally.draws += 1,
            Some(true) => tally.wins += 1,
            Some(false) => tally.losses += 1,
        }
        each(g, &record, &tally);
    }
    Ok(tally)
}
