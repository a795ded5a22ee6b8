//! Games as PGN: the seven-tag roster with `Red`/`Black` for the players, then
//! `Format`, `TimeControl`, `Termination` and `Opening` (and `SetUp`/`FEN` for
//! an opening from a FEN); moves in ICCS with move numbers, from the opening's
//! start (its moves included), each engine move followed by a comment
//! with its score, depth and time as cutechess writes them (`{+0.35/12
//! 1.204s}`, scores in pawns from the mover's side).

use std::fs::File;
use std::io::Write;
use std::time::{SystemTime, UNIX_EPOCH};

use xqcore::GameResult;

use crate::record::{GameRecord, MoveStats, Termination};
use crate::run::{FinishedGame, PlayedGame, TournamentSpec};

/// Longest movetext line written.
const LINE_WIDTH: usize = 80;

/// The tags of a game that its record does not hold.
#[derive(Clone, Debug)]
pub struct PgnTags<'a> {
    pub event: &'a str,
    /// `YYYY.MM.DD`, see [`pgn_date`].
    pub date: &'a str,
    /// The game number.
    pub round: usize,
    /// Red's and Black's time controls (see [`crate::MoveLimit`]'s
    /// `Display`): one `TimeControl` tag when they are the same, else
    /// `RedTimeControl` and `BlackTimeControl` (as cutechess writes
    /// `WhiteTimeControl` and `BlackTimeControl`).
    pub time_controls: [&'a str; 2],
}

/// A finished game of the tournament `spec` as PGN text ([`format_game`]),
/// event `xqmatch`, played on `date`, with its engines' time controls.
pub fn tournament_game(spec: &TournamentSpec, game: &FinishedGame, date: &str) -> String {
    let limits = [game.red, game.black].map(|i| spec.players[i].limit.to_string());
    let tags = PgnTags {
        event: "xqmatch",
        date,
        round: game.number,
        time_controls: [&limits[0], &limits[1]],
    };
    format_game(&game.record, &tags)
}

/// The game as PGN text, ending with an empty line.
pub fn format_game(record: &GameRecord, tags: &PgnTags) -> String {
    let opening = record.opening.moves_text();
    let termination = record.termination.to_string();
    let round = tags.round.to_string();
    let result = record.result.to_string();
    let mut tag_pairs = vec![
        ("Event", tags.event),
        ("Site", "?"),
        ("Date", tags.date),
        ("Round", round.as_str()),
        ("Red", record.red.as_str()),
        ("Black", record.black.as_str()),
        ("Result", &result),
        // The notation of the moves: readers that do not detect it (the
        // Python `cchess` library) read no move of an ICCS game without it.
        ("Format", "ICCS"),
    ];
    let [red_tc, black_tc] = tags.time_controls;
    if red_tc == black_tc {
        tag_pairs.push(("TimeControl", red_tc));
    } else {
        tag_pairs.extend([("RedTimeControl", red_tc), ("BlackTimeControl", black_tc)]);
    }
    tag_pairs.extend([("Termination", termination.as_str()), ("Opening", &opening)]);
    if let Some(fen) = &record.opening.fen {
        tag_pairs.extend([("SetUp", "1"), ("FEN", fen.as_str())]);
    }
    let mut text = String::new();
    for (name, value) in tag_pairs {
        text.push_str(&format!("[{name} \"{}\"]\n", escape_tag_value(value)));
    }
    text.push('\n');
    text.push_str(&movetext(record));
    text.push_str("\n\n");
    text
}

/// Numbered moves with their comments, and the result, wrapped at
/// [`LINE_WIDTH`] (a comment may be broken over lines).
fn movetext(record: &GameRecord) -> String {
    let start = record.opening.start();
    let first_number = start.fullmoves() as usize;
    let first_ply = usize::from(start.turn() == xqcore::Color::Black);
    let opening_len = record.opening.moves.len();
    let mut tokens = Vec::new();
    for (i, mv) in record.all_moves().enumerate() {
        let ply = first_ply + i;
        if ply % 2 == 0 {
            tokens.push(format!("{}.", first_number + ply / 2));
        } else if i == 0 {
            tokens.push(format!("{}...", first_number));
        }
        tokens.push(mv.to_string());
        if let Some(stats) = i.checked_sub(opening_len).and_then(|j| record.stats.get(j)) {
            tokens.extend(comment(stats).split(' ').map(String::from));
        }
    }
    tokens.push(record.result.to_string());
    wrap(&tokens, LINE_WIDTH)
}

/// `{SCORE/DEPTH TIMEs}`, leaving out what the engine did not say.
fn comment(stats: &MoveStats) -> String {
    let evaluation = match (stats.score, stats.depth) {
        (Some(score), Some(depth)) => format!("{score}/{depth} "),
        (Some(score), None) => format!("{score} "),
        (None, Some(depth)) => format!("/{depth} "),
        (None, None) => String::new(),
    };
    format!("{{{evaluation}{:.3}s}}", stats.took.as_secs_f64())
}

/// Joins `tokens` with spaces, breaking lines before they exceed `width`.
fn wrap(tokens: &[String], width: usize) -> String {
    let mut text = String::new();
    let mut line_len = 0;
    for token in tokens {
        if line_len > 0 && line_len + 1 + token.len() > width {
            text.push('\n');
            line_len = 0;
        } else if line_len > 0 {
            text.push(' ');
            line_len += 1;
        }
        text.push_str(token);
        line_len += token.len();
    }
    text
}

/// A tag value with `\` and `"` escaped and control characters made spaces.
fn escape_tag_value(value: &str) -> String {
    let mut escaped = String::with_capacity(value.len());
    for c in value.chars() {
        match c {
            '\\' | '"' => {
                escaped.push('\\');
                escaped.push(c);
            }
            c if c.is_control() => escaped.push(' '),
            c => escaped.push(c),
        }
    }
    escaped
}

/// The PGN date (`YYYY.MM.DD`, UTC) of a time in seconds since 1970.
pub fn pgn_date(unix_seconds: u64) -> String {
    let (year, month, day) = civil_date(unix_seconds / 86_400);
    format!("{year:04}.{month:02}.{day:02}")
}

/// Today's PGN date (UTC).
pub fn pgn_date_today() -> String {
    let now = SystemTime::now()
        .duration_since(UNIX_EPOCH)
        .map_or(0, |d| d.as_secs());
    pgn_date(now)
}

/// Year, month and day of a day number counted from 1970-01-01 (the
/// proleptic Gregorian calendar; H. Hinnant's `civil_from_days`).
fn civil_date(days_since_1970: u64) -> (u64, u64, u64) {
    let days = days_since_1970 + 719_468;
    let era = days / 146_097;
    let day_of_era = days % 146_097;
    let year_of_era =
        (day_of_era - day_of_era / 1460 + day_of_era / 36_524 - day_of_era / 146_096) / 365;
    let day_of_year = day_of_era - (365 * year_of_era + year_of_era / 4 - year_of_era / 100);
    let month_from_march = (5 * day_of_year + 2) / 153;
    let day = day_of_year - (153 * month_from_march + 2) / 5 + 1;
    let month = if month_from_march < 10 {
        month_from_march + 3
    } else {
        month_from_march - 9
    };
    let year = year_of_era + era * 400 + u64::from(month <= 2);
    (year, month, day)
}

/// Appends one complete game to `file` with a single write, then flushes, so
/// that a crash never leaves half a game in the file.
pub fn append_game(file: &mut File, game_text: &str) -> std::io::Result<()> {
    file.write_all(game_text.as_bytes())?;
    file.flush()
}

/// The finished games of a PGN text that [`format_game`] wrote, as a
/// resumed tournament needs them.
#[derive(Clone, Debug, PartialEq, Eq)]
pub struct PlayedGames {
    pub games: Vec<PlayedGame>,
    /// The length in bytes of the text up to the end of its last complete
    /// game: shorter than the text when the last game was cut off as it
    /// was written (the runner killed).
    pub complete_len: usize,
}

/// A game of a PGN text that cannot be taken as one of a tournament's.
#[derive(Clone, Debug, PartialEq, Eq, thiserror::Error)]
#[error("game {index} (line {line}): {reason}")]
pub struct UnreadableGame {
    /// 1-based number of the game in the text.
    pub index: usize,
    /// 1-based line where it starts.
    pub line: usize,
    pub reason: String,
}

/// Reads back the games of a tournament's PGN: each game's number
/// (`Round`), engines, result and kind of end. A last game without its
/// result at the end of its move text is cut off and left out.
///
/// # Errors
///
/// A complete game without the tags this module writes, or a game cut off
/// before the last.
pub fn read_played_games(text: &str) -> Result<PlayedGames, UnreadableGame> {
    let chunks = xqrecords::pgn::split(text);
    let mut played = PlayedGames {
        games: Vec::new(),
        complete_len: 0,
    };
    for (i, chunk) in chunks.iter().enumerate() {
        let unreadable = |reason: &str| UnreadableGame {
            index: chunk.index,
            line: chunk.line,
            reason: reason.to_string(),
        };
        let tags = read_tags(chunk.text);
        let tag = |name: &str| {
            tags.iter()
                .find(|(k, _)| k == name)
                .map(|(_, v)| v.as_str())
        };
        let result = tag("Result").and_then(|r| r.parse::<GameResult>().ok());
        let complete = result.is_some_and(|r| {
            r != GameResult::Unknown && chunk.text.trim_end().ends_with(&r.to_string())
        });
        if !complete {
            if i + 1 == chunks.len() {
                break;
            }
            return Err(unreadable("cut off before its result"));
        }
        let number = tag("Round")
            .and_then(|r| r.parse::<usize>().ok())
            .ok_or_else(|| unreadable("no game number (Round tag)"))?;
        let (Some(red), Some(black)) = (tag("Red"), tag("Black")) else {
            return Err(unreadable("no Red or Black tag"));
        };
        let ending = tag("Termination")
            .and_then(Termination::kind_of_text)
            .ok_or_else(|| unreadable("no Termination tag the runner writes"))?;
        played.games.push(PlayedGame {
            number,
            result: result.expect("complete"),
            ending: ending.to_string(),
            players: Some([red.to_string(), black.to_string()]),
        });
        played.complete_len =
            chunk.text.as_ptr() as usize - text.as_ptr() as usize + chunk.text.len();
    }
    Ok(played)
}

/// The tag pairs at the head of a game's text, values unescaped.
fn read_tags(game: &str) -> Vec<(String, String)> {
    let mut tags = Vec::new();
    for line in game.lines().map(str::trim) {
        let Some(inner) = line.strip_prefix('[').and_then(|l| l.strip_suffix(']')) else {
            if line.is_empty() {
                continue;
            }
            break;
        };
        let Some((name, quoted)) = inner.split_once(' ') else {
            continue;
        };
        let Some(value) = quoted
            .trim()
            .strip_prefix('"')
            .and_then(|v| v.strip_suffix('"'))
        else {
            continue;
        };
        let mut unescaped = String::with_capacity(value.len());
        let mut chars = value.chars();
        while let Some(c) = chars.next() {
            unescaped.push(if c == '\\' {
                chars.next().unwrap_or(c)
            } else {
                c
            });
        }
        tags.push((name.to_string(), unescaped));
    }
    tags
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::protocol::EngineScore;
    use crate::record::Termination;
    use std::time::Duration;
    use xqcore::{GameResult, Move, Outcome, Position};
    use xqrecords::Opening;

    fn moves(line: &str) -> Vec<Move> {
        let mut pos = Position::start();
        line.split_whitespace()
            .map(|text| {
                let mv = pos.parse_move(text).unwrap();
                pos.make_move(mv);
                mv
            })
            .collect()
    }

    fn record(opening: &str, game: &str, result: GameResult, why: Termination) -> GameRecord {
        let all = moves(&format!("{opening} {game}"));
        let opening = Opening::parse(opening).unwrap();
        let played = all[opening.moves.len()..].to_vec();
        GameRecord {
            red: "xqengine 0.1.0 (engine1)".into(),
            black: "Fairy-Stockfish \"wasm\"".into(),
            opening,
            stats: vec![MoveStats::default(); played.len()],
            moves: played,
            result,
            termination: why,
            worst_overrun_ms: None,
        }
    }

    #[test]
    fn short_game_exact_text() {
        let game = record(
            "h2e2 h9g7",
            "h0g2 i9h9 i0h0",
            GameResult::BlackWins,
            Termination::IllegalMove("b0b9".into()),
        );
        let tags = PgnTags {
            event: "xqmatch",
            date: "2024.02.29",
            round: 3,
            time_controls: ["10+0.1"; 2],
        };
        let expected = "[Event \"xqmatch\"]\n\
                        [Site \"?\"]\n\
                        [Date \"2024.02.29\"]\n\
                        [Round \"3\"]\n\
                        [Red \"xqengine 0.1.0 (engine1)\"]\n\
                        [Black \"Fairy-Stockfish \\\"wasm\\\"\"]\n\
                        [Result \"0-1\"]\n\
                        [Format \"ICCS\"]\n\
                        [TimeControl \"10+0.1\"]\n\
                        [Termination \"illegal move b0b9\"]\n\
                        [Opening \"h2e2 h9g7\"]\n\
                        \n\
                        1. h2e2 h9g7 2. h0g2 {+0.35/12 1.204s} i9h9 {-M3/7 0.010s} 3. i0h0 {0.000s} 0-1\n\
                        \n";
        let mut game = game;
        game.stats[0] = MoveStats {
            score: Some(EngineScore::Cp(35)),
            depth: Some(12),
            took: Duration::from_millis(1204),
        };
        game.stats[1] = MoveStats {
            score: Some(EngineScore::Mate(-3)),
            depth: Some(7),
            took: Duration::from_millis(10),
        };
        assert_eq!(format_game(&game, &tags), expected);
    }

    #[test]
    fn a_tournament_game_carries_its_number_and_each_engines_time_control() {
        use crate::engine::EngineSpec;
        use crate::run::FinishedGame;
        use crate::time_control::MoveLimit;
        let engines = [EngineSpec::new("a"), EngineSpec::new("b")];
        let mut spec = TournamentSpec::head_to_head(engines, MoveLimit::Depth(3), Vec::new(), 2);
        spec.players[1].limit = MoveLimit::Nodes(500);
        let game = FinishedGame {
            number: 2,
            red: 1,
            black: 0,
            pair: Some(1),
            record: record("h2e2", "", GameResult::Draw, Termination::LengthCap),
            memory: [None, None],
        };
        let text = tournament_game(&spec, &game, "2025.01.31");
        for tag in [
            "[Event \"xqmatch\"]\n",
            "[Date \"2025.01.31\"]\n",
            "[Round \"2\"]\n",
            "[RedTimeControl \"nodes=500\"]\n[BlackTimeControl \"depth=3\"]\n",
        ] {
            assert!(text.contains(tag), "{tag} in {text}");
        }
    }

    #[test]
    fn games_from_a_fen_say_so_and_number_from_it() {
        let fen = "3k5/9/9/9/9/9/9/9/4R4/4K4 b - - 0 30";
        let mut game = record("", "", GameResult::Draw, Termination::LengthCap);
        game.opening = Opening::parse(&format!("fen {fen}")).unwrap();
        let mut pos = game.opening.position();
        for m in ["d9d8", "e1e2", "d8d9"] {
            let mv = pos.parse_move(m).unwrap();
            pos.make_move(mv);
            game.moves.push(mv);
            game.stats.push(MoveStats::default());
        }
        let text = format_game(
            &game,
            &PgnTags {
                event: "e",
                date: "2024.01.01",
                round: 1,
                time_controls: ["depth=3"; 2],
            },
        );
        assert!(
            text.contains(&format!("[SetUp \"1\"]\n[FEN \"{fen}\"]\n")),
            "{text}"
        );
        assert!(
            text.contains("\n30... d9d8 {0.000s} 31. e1e2 {0.000s} d8d9 {0.000s} 1/2-1/2"),
            "{text}"
        );
    }

    #[test]
    fn long_movetext_wraps_at_80_columns() {
        let shuffle = "b0c2 b9c7 c2b0 c7b9 ".repeat(9);
        let mut game = record(
            "",
            shuffle.trim(),
            GameResult::Draw,
            Termination::Rules(Outcome::Repetition),
        );
        // No comments: the moves alone.
        game.stats.clear();
        let tags = PgnTags {
            event: "e",
            date: "2024.01.01",
            round: 1,
            time_controls: ["depth=3"; 2],
        };
        let text = format_game(&game, &tags);
        let movetext: Vec<&str> = text.split("\n\n").nth(1).unwrap().lines().collect();
        assert!(movetext.len() > 1, "{text}");
        assert!(movetext.iter().all(|l| l.len() <= 80), "{text}");
        assert!(movetext[0].starts_with("1. b0c2 b9c7 2. c2b0 c7b9 3. b0c2"));
        assert!(
            movetext.join(" ").ends_with(" 18. c2b0 c7b9 1/2-1/2"),
            "{text}"
        );
    }

    #[test]
    fn dates_from_unix_time() {
        assert_eq!(pgn_date(0), "1970.01.01");
        assert_eq!(pgn_date(951_782_400), "2000.02.29");
        assert_eq!(pgn_date(1_700_000_000), "2023.11.14");
        assert_eq!(pgn_date(4_107_542_399), "2100.02.28");
    }

    #[test]
    fn played_games_are_read_back_and_a_cut_game_left_out() {
        let tags = |round| PgnTags {
            event: "xqmatch",
            date: "2026.11.28",
            round,
            time_controls: ["10+0.1"; 2],
        };
        let won = record(
            "h2e2",
            "h9g7",
            GameResult::RedWins,
            Termination::ResignAdjudication,
        );
        let illegal = record(
            "",
            "h2e2",
            GameResult::RedWins,
            Termination::IllegalMove("a0a5".into()),
        );
        let text = format_game(&won, &tags(3)) + &format_game(&illegal, &tags(1));
        let played = read_played_games(&text).unwrap();
        assert_eq!(played.complete_len, text.len());
        assert_eq!(
            played.games[0],
            PlayedGame {
                number: 3,
                result: GameResult::RedWins,
                ending: "resign adjudication".into(),
                players: Some([
                    "xqengine 0.1.0 (engine1)".into(),
                    "Fairy-Stockfish \"wasm\"".into()
                ]),
            }
        );
        assert_eq!(played.games[1].ending, "illegal move");
        // The runner killed while it wrote game 2: that game is left out.
        let whole = format_game(&won, &tags(2));
        let cut = format!("{text}{}", &whole[..whole.len() - 5]);
        let played = read_played_games(&cut).unwrap();
        assert_eq!(played.games.len(), 2);
        assert_eq!(played.complete_len, text.len());
        // A cut game followed by others is not the runner's writing.
        let e = read_played_games(&format!("{cut}\n{whole}")).unwrap_err();
        assert_eq!(e.index, 3);
        assert_eq!(e.reason, "cut off before its result");
        let untagged = "[Event \"x\"]\n[Result \"1-0\"]\n\n1. h2e2 1-0\n";
        let e = read_played_games(untagged).unwrap_err();
        assert_eq!(e.to_string(), "game 1 (line 1): no game number (Round tag)");
        assert_eq!(read_played_games("").unwrap().games, []);
    }
}
