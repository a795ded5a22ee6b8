//! Ending a game from outside the moves: by the rules and the length cap
//! ([`adjudicate`]), by both engines' agreeing scores as cutechess-cli's
//! `-resign` and `-draw` do ([`ScoreAdjudication`]), or by the endgame
//! tables ([`adjudicate_by_tables`]).

use std::str::FromStr;

use xqcore::{Color, EndRules, GameResult, Position};
use xqegtb::RULE_DTM;
use xqegtb::{Repetitions, Tablebase, Value};

use crate::protocol::EngineScore;
use crate::record::{MoveStats, Termination};

/// Judges the position after a move: `Some` when the game is over, by the
/// rules (a repetition at its `rules.occurrences`-th occurrence) or by the
/// length cap.
pub fn adjudicate(
    pos: &Position,
    rules: &EndRules,
    max_plies: usize,
) -> Option<(GameResult, Termination)> {
    if let Some(outcome) = pos.outcome(rules) {
        return Some((outcome.result(), Termination::Rules(outcome)));
    }
    (pos.ply() >= max_plies).then_some((GameResult::Draw, Termination::LengthCap))
}

/// The tables' ruling on `pos`, if they hold it and it is sure under
/// `rules`: a draw, or a mate that comes before the natural-move limit.
pub fn adjudicate_by_tables(
    pos: &Position,
    tables: &Tablebase,
    rules: &EndRules,
) -> Option<(GameResult, Termination)> {
    let value = tables.under(Repetitions::CheckAndChase).value(pos).ok()??;
    let in_time = |plies: u16| {
        plies < RULE_DTM && pos.plies_since_capture() + u32::from(plies) <= rules.natural_move_limit
    };
    let side = pos.turn();
    let result = match value {
        Value::Draw => GameResult::Draw,
        Value::Win(plies) if in_time(plies) => GameResult::win_for(side),
        Value::Loss(plies) if in_time(plies) => GameResult::win_for(!side),
        Value::Win(_) | Value::Loss(_) => return None,
    };
    Some((result, Termination::TablesAdjudication))
}

/// Ending a game early on what both engines say, as cutechess-cli's
/// `-resign` and `-draw` do; neither is on unless set. A move without a
/// score (a book move, an engine that reports none) breaks a run.
#[derive(Clone, Copy, Debug, Default, PartialEq, Eq)]
pub struct ScoreAdjudication {
    pub resign: Option<ResignRule>,
    pub draw: Option<DrawRule>,
}

/// A win for one side once both engines have scored the game at least
/// `score_cp` for it on each of their last `moves` moves.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub struct ResignRule {
    pub score_cp: i32,
    pub moves: usize,
}

/// A draw once, from move `after_move` on, both engines have scored the game
/// within `score_cp` of zero on each of their last `moves` moves.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub struct DrawRule {
    pub after_move: usize,
    pub score_cp: i32,
    pub moves: usize,
}

/// The text of a [`ResignRule`] or a [`DrawRule`] that cannot be read:
/// what is wrong with it.
#[derive(Clone, Debug, PartialEq, Eq, thiserror::Error)]
#[error("{0}")]
pub struct BadRule(String);

impl FromStr for ResignRule {
    type Err = BadRule;

    /// `movecount=MOVES,score=SCORE`, the keys in any order (cutechess-cli's
    /// `-resign` words).
    fn from_str(text: &str) -> Result<ResignRule, BadRule> {
        let [moves, score] = read_settings(text, ["movecount", "score"])?;
        if moves == 0 {
            return Err(BadRule("movecount must be at least 1".into()));
        }
        Ok(ResignRule {
            score_cp: score as i32,
            moves: moves as usize,
        })
    }
}

impl FromStr for DrawRule {
    type Err = BadRule;

    /// `movenumber=NUMBER,movecount=MOVES,score=SCORE`, the keys in any
    /// order (cutechess-cli's `-draw` words).
    fn from_str(text: &str) -> Result<DrawRule, BadRule> {
        let [after_move, moves, score] = read_settings(text, ["movenumber", "movecount", "score"])?;
        if moves == 0 {
            return Err(BadRule("movecount must be at least 1".into()));
        }
        Ok(DrawRule {
            after_move: after_move as usize,
            score_cp: score as i32,
            moves: moves as usize,
        })
    }
}

/// `key=value,key=value` pairs with exactly the keys `keys`, in any order,
/// each a number from 0 to a million: their values in the order of `keys`.
fn read_settings<const N: usize>(text: &str, keys: [&str; N]) -> Result<[i64; N], BadRule> {
    let mut values = [None; N];
    for pair in text.split(',') {
        let (key, value) = pair
            .split_once('=')
            .ok_or_else(|| BadRule(format!("'{pair}' is not key=value")))?;
        let slot = keys.iter().position(|k| *k == key.trim()).ok_or_else(|| {
            BadRule(format!(
                "unknown key '{}' (keys: {})",
                key.trim(),
                keys.join(", ")
            ))
        })?;
        let number = value
            .trim()
            .parse::<i64>()
            .ok()
            .filter(|v| (0..=1_000_000).contains(v))
            .ok_or_else(|| {
                BadRule(format!(
                    "{key}: '{value}' is not a number from 0 to 1000000"
                ))
            })?;
        values[slot] = Some(number);
    }
    let mut all = [0; N];
    for (i, value) in values.iter().enumerate() {
        all[i] = value.ok_or_else(|| BadRule(format!("{} is missing", keys[i])))?;
    }
    Ok(all)
}

impl ScoreAdjudication {
    /// Judges a game at `ply` (counted from the start of its opening's
    /// position, as [`Position::ply`] does) whose last move was made by
    /// `last_mover`, from the scores of the moves played after the opening,
    /// each from its mover's side.
    pub fn judge(
        &self,
        ply: usize,
        last_mover: Color,
        stats: &[MoveStats],
    ) -> Option<(GameResult, Termination)> {
        if let Some(rule) = self.resign {
            if let Some(red_view) = last_scores_for_red(stats, last_mover, 2 * rule.moves) {
                if red_view.iter().all(|&cp| cp >= rule.score_cp) {
                    return Some((GameResult::RedWins, Termination::ResignAdjudication));
                }
                if red_view.iter().all(|&cp| cp <= -rule.score_cp) {
                    return Some((GameResult::BlackWins, Termination::ResignAdjudication));
                }
            }
        }
        if let Some(rule) = self.draw {
            let red_view = last_scores_for_red(stats, last_mover, 2 * rule.moves)?;
            if ply >= 2 * rule.after_move && red_view.iter().all(|cp| cp.abs() <= rule.score_cp) {
                return Some((GameResult::Draw, Termination::DrawAdjudication));
            }
        }
        None
    }
}

/// A mate score, compared with centipawn bounds.
const MATE_AS_CP: i32 = 1_000_000;

/// The scores of the last `count` moves, in centipawns for Red (a mate as a
/// score beyond any centipawn bound); `None` when fewer moves were played
/// or one of them came without a score.
fn last_scores_for_red(stats: &[MoveStats], last_mover: Color, count: usize) -> Option<Vec<i32>> {
    if count == 0 || stats.len() < count {
        return None;
    }
    let mut mover = last_mover;
    let mut scores = Vec::with_capacity(count);
    for stat in stats.iter().rev().take(count) {
        let cp = match stat.score? {
            EngineScore::Cp(cp) => cp,
            EngineScore::Mate(n) if n < 0 => -MATE_AS_CP,
            EngineScore::Mate(_) => MATE_AS_CP,
        };
        scores.push(if mover == Color::Red { cp } else { -cp });
        mover = !mover;
    }
    Some(scores)
}

#[cfg(test)]
mod tests {
    use super::*;
    use xqcore::Outcome;

    fn play(fen: &str, moves: &str) -> Position {
        let mut pos = Position::from_fen(fen).unwrap();
        for m in moves.split_whitespace() {
            pos.make_move(pos.parse_move(m).unwrap());
        }
        pos
    }

    #[test]
    fn the_rules_and_the_length_cap_end_games() {
        let rules = EndRules::default();
        let mate = play("3k5/1R7/9/9/9/9/9/9/9/R3K4 w", "a0a9");
        assert_eq!(
            adjudicate(&mate, &rules, 400),
            Some((
                GameResult::RedWins,
                Termination::Rules(Outcome::NoLegalMove {
                    loser: Color::Black
                })
            ))
        );
        let fen = "3k5/9/9/9/9/9/9/9/9/4K2R1 w";
        let twice = play(fen, "h0h9 d9d8 h9h8 d8d9 h8h9 d9d8");
        assert_eq!(
            adjudicate(&twice, &rules, 400),
            None,
            "second occurrence: play on"
        );
        let thrice = play(fen, "h0h9 d9d8 h9h8 d8d9 h8h9 d9d8 h9h8 d8d9 h8h9 d9d8");
        let (result, why) = adjudicate(&thrice, &rules, 400).unwrap();
        assert_eq!(result, GameResult::BlackWins);
        assert_eq!(why.to_string(), "perpetual check by red");
        let pos = play(xqcore::START_FEN, "b0c2 b9c7 c2b0 c7b9");
        assert_eq!(
            adjudicate(&pos, &rules, 4),
            Some((GameResult::Draw, Termination::LengthCap))
        );
        // Red's cannon chases the black rook to the third occurrence.
        let chase = play(
            "2bakabnr/9/r1n1c4/2p1p1p1p/PP7/9/4P1P1P/2C3NC1/9/1NBAKAB1R w",
            "c2a2 a7b7 a2b2 b7a7 b2a2 a7b7 a2b2 b7a7 b2a2",
        );
        let (result, why) = adjudicate(&chase, &rules, 400).unwrap();
        assert_eq!(result, GameResult::BlackWins);
        assert_eq!(why.to_string(), "perpetual chase by red");
    }

    /// Stats of moves scored `cps`, each from its mover's side.
    fn scored(cps: &[i32]) -> Vec<MoveStats> {
        cps.iter()
            .map(|&cp| MoveStats {
                score: Some(EngineScore::Cp(cp)),
                ..MoveStats::default()
            })
            .collect()
    }

    #[test]
    fn scores_adjudicate_only_when_both_engines_agree_long_enough() {
        let resign = ScoreAdjudication {
            resign: Some(ResignRule {
                score_cp: 500,
                moves: 2,
            }),
            draw: None,
        };
        // Red moved last: +600 for Red, then Black's -550 (Red +550), ...
        let red_winning = scored(&[30, 520, -510, 600, -550, 600]);
        assert_eq!(
            resign.judge(20, Color::Red, &red_winning),
            Some((GameResult::RedWins, Termination::ResignAdjudication))
        );
        // Black moved last: the same scores now favour Black.
        assert_eq!(
            resign.judge(20, Color::Black, &red_winning),
            Some((GameResult::BlackWins, Termination::ResignAdjudication))
        );
        // One engine disagrees.
        assert_eq!(
            resign.judge(20, Color::Red, &scored(&[520, -510, 400, -550, 600])),
            None
        );
        // Too few moves.
        assert_eq!(
            resign.judge(20, Color::Red, &scored(&[-510, 600, -550])),
            None
        );
        // A move without a score breaks the run; a mate counts as a win.
        let mut unscored = scored(&[520, -510, 600, -550, 600]);
        unscored[2].score = None;
        assert_eq!(resign.judge(20, Color::Red, &unscored), None);
        let mut mating = scored(&[520, -510, 600, -550, 600]);
        mating[3].score = Some(EngineScore::Mate(-4));
        mating[4].score = Some(EngineScore::Mate(5));
        assert_eq!(
            resign.judge(20, Color::Red, &mating).map(|(r, _)| r),
            Some(GameResult::RedWins)
        );

        let draw = ScoreAdjudication {
            resign: None,
            draw: Some(DrawRule {
                after_move: 30,
                score_cp: 10,
                moves: 3,
            }),
        };
        let level = scored(&[40, -10, 10, 0, -5, 7, -10]);
        assert_eq!(
            draw.judge(60, Color::Red, &level),
            Some((GameResult::Draw, Termination::DrawAdjudication))
        );
        assert_eq!(draw.judge(59, Color::Red, &level), None, "before move 30");
        assert_eq!(
            draw.judge(60, Color::Red, &level[..6]),
            None,
            "40 cp is too far"
        );
        assert_eq!(
            ScoreAdjudication::default().judge(400, Color::Red, &level),
            None
        );
    }

    #[test]
    fn rules_read_as_cutechess_writes_them() {
        assert_eq!(
            "score=600, movecount=3".parse(),
            Ok(ResignRule {
                score_cp: 600,
                moves: 3
            })
        );
        assert_eq!(
            "movenumber=30,movecount=8,score=10".parse(),
            Ok(DrawRule {
                after_move: 30,
                score_cp: 10,
                moves: 8
            })
        );
        let refused = |text: &str| text.parse::<DrawRule>().unwrap_err().to_string();
        assert_eq!(refused("movecount=3,score=10"), "movenumber is missing");
        assert_eq!(
            refused("movenumber=1,movecount=0,score=10"),
            "movecount must be at least 1"
        );
        assert_eq!(
            refused("movenumber=1,movecount=2,score=-1"),
            "score: '-1' is not a number from 0 to 1000000"
        );
        assert_eq!(
            refused("movenumber=1,moves=2"),
            "unknown key 'moves' (keys: movenumber, movecount, score)"
        );
        assert_eq!(refused("movenumber"), "'movenumber' is not key=value");
        assert_eq!(
            "movecount=0,score=5"
                .parse::<ResignRule>()
                .unwrap_err()
                .to_string(),
            "movecount must be at least 1"
        );
    }

    #[test]
    fn tables_end_games_they_hold_when_sure() {
        // No table is loaded: two bare kings are a draw by material alone.
        let tables = Tablebase::new();
        let rules = EndRules::default();
        let kings = Position::from_fen("4k4/9/9/9/9/9/9/9/9/3K5 w").unwrap();
        assert_eq!(
            adjudicate_by_tables(&kings, &tables, &rules),
            Some((GameResult::Draw, Termination::TablesAdjudication))
        );
        let rook = Position::from_fen("4k4/9/9/9/9/9/9/9/9/3K1R3 w").unwrap();
        assert_eq!(
            adjudicate_by_tables(&rook, &tables, &rules),
            None,
            "no KRK table here"
        );
    }
}
