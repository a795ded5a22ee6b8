//! The text lines `xqmatch` prints: one per game, the summary, the SPRT.

use crate::run::{FinishedGame, MatchReport};
use crate::stats::{elo_estimate, likelihood_of_superiority, Sprt, Tally};

/// `game N: RED - BLACK: RESULT (why) after P plies[, worst clock overrun X ms];
/// engine1 +W =D -L (S %)[; memory kB anon/peak A/P, A/P]`.
pub fn game_line(game: &FinishedGame, tally: &Tally) -> String {
    let record = &game.record;
    let plies = record.plies();
    let overrun = record
        .worst_overrun_ms
        .map_or(String::new(), |ms| format!(", worst clock overrun {ms} ms"));
    format!(
        "game {:>3}: {} - {}: {} ({}) after {plies} plies{overrun}; {}{}",
        game.number,
        record.red,
        record.black,
        record.result,
        record.termination,
        tally_text(tally),
        memory_text(game),
    )
}

/// `; memory kB anon/peak A/P, A/P` for the first and the second engine, when
/// the system tells.
fn memory_text(game: &FinishedGame) -> String {
    let [Some(first), Some(second)] = game.memory else {
        return String::new();
    };
    format!(
        "; memory kB anon/peak {}/{}, {}/{}",
        first.anon_kb, first.peak_kb, second.anon_kb, second.peak_kb
    )
}

/// `engine1 +W =D -L (S %)`.
fn tally_text(tally: &Tally) -> String {
    format!(
        "engine1 +{} ={} -{} ({:.1} %)",
        tally.wins,
        tally.draws,
        tally.losses,
        tally.percent()
    )
}

/// `engine1 +W =D -L score S %, Elo E (95 % CI L .. U), LOS P %`.
pub fn summary_line(tally: &Tally) -> String {
    let counts = format!("engine1 +{} ={} -{}", tally.wins, tally.draws, tally.losses);
    let Some(elo) = elo_estimate(tally) else {
        return format!("{counts}, no games played");
    };
    format!(
        "{counts} score {:.1} %, Elo {} (95 % CI {} .. {}), LOS {:.1} %",
        tally.percent(),
        elo.elo,
        elo.lower,
        elo.upper,
        100.0 * likelihood_of_superiority(tally)
    )
}

/// `ended by: KIND N, KIND N, ...`, the most common first.
pub fn endings_line(report: &MatchReport) -> String {
    let mut endings: Vec<(&str, u32)> = report.endings.iter().map(|(&k, &n)| (k, n)).collect();
    endings.sort_by_key(|&(kind, n)| (std::cmp::Reverse(n), kind));
    let counts: Vec<String> = endings
        .iter()
        .map(|(kind, n)| format!("{kind} {n}"))
        .collect();
    format!("ended by: {}", counts.join(", "))
}

/// `SPRT: VERDICT, LLR x after N games (bounds a, b; elo0 e0, elo1 e1)`; when
/// games finished after the decision, also the LLR over all of them.
pub fn sprt_line(sprt: &Sprt, report: &MatchReport) -> String {
    let (lower, upper) = sprt.bounds();
    let hypotheses = format!(
        "(bounds {lower:.2}, {upper:.2}; elo0 {}, elo1 {})",
        sprt.elo0, sprt.elo1
    );
    let games = report.tally.games();
    let final_llr = sprt.llr(&report.tally);
    match report.sprt_decision {
        None => format!("SPRT: inconclusive, LLR {final_llr:.2} after {games} games {hypotheses}"),
        Some(decision) => {
            let mut line = format!(
                "SPRT: {}, LLR {:.2} after {} games {hypotheses}",
                decision.verdict, decision.llr, decision.games
            );
            if games > decision.games {
                line.push_str(&format!("; LLR {final_llr:.2} over all {games} games"));
            }
            line
        }
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::game::{GameRecord, Termination};
    use crate::run::SprtDecision;
    use crate::stats::SprtVerdict;
    use xqcore::GameResult;
    use xqrecords::Opening;

    fn tally(wins: u32, draws: u32, losses: u32) -> Tally {
        Tally {
            wins,
            draws,
            losses,
        }
    }

    #[test]
    fn game_line_names_result_and_reason() {
        let game = FinishedGame {
            number: 7,
            first_is_red: false,
            record: GameRecord {
                red: "B".into(),
                black: "A".into(),
                opening: Opening::default(),
                moves: Vec::new(),
                stats: Vec::new(),
                result: GameResult::BlackWins,
                termination: Termination::TimeForfeit,
                worst_overrun_ms: Some(312),
            },
            memory: [None, None],
        };
        assert_eq!(
            game_line(&game, &tally(1, 0, 0)),
            "game   7: B - A: 0-1 (time forfeit) after 0 plies, worst clock overrun 312 ms; \
             engine1 +1 =0 -0 (100.0 %)"
        );
    }

    #[test]
    fn summary_has_score_elo_and_los() {
        assert_eq!(
            summary_line(&tally(6, 4, 2)),
            "engine1 +6 =4 -2 score 66.7 %, Elo +120.4 (95 % CI -30.8 .. +342.1), LOS 92.1 %"
        );
        assert_eq!(
            summary_line(&tally(4, 0, 0)),
            "engine1 +4 =0 -0 score 100.0 %, Elo +inf (95 % CI +inf .. +inf), LOS 97.7 %"
        );
        assert_eq!(
            summary_line(&tally(0, 0, 0)),
            "engine1 +0 =0 -0, no games played"
        );
    }

    #[test]
    fn endings_are_counted_most_common_first() {
        let report = MatchReport {
            endings: [
                ("resignation", 3),
                ("draw adjudication", 5),
                ("length cap", 3),
            ]
            .into(),
            ..MatchReport::default()
        };
        assert_eq!(
            endings_line(&report),
            "ended by: draw adjudication 5, length cap 3, resignation 3"
        );
    }

    #[test]
    fn sprt_line_reports_verdict_and_llr() {
        let sprt = Sprt::new(0.0, 10.0).unwrap();
        let undecided = MatchReport {
            tally: tally(2, 1, 1),
            ..MatchReport::default()
        };
        assert_eq!(
            sprt_line(&sprt, &undecided),
            "SPRT: inconclusive, LLR 0.04 after 4 games (bounds -2.94, 2.94; elo0 0, elo1 10)"
        );
        let decided = MatchReport {
            tally: tally(300, 20, 20),
            sprt_decision: Some(SprtDecision {
                verdict: SprtVerdict::AcceptH1,
                llr: 2.95,
                games: 339,
            }),
            ..MatchReport::default()
        };
        let line = sprt_line(&sprt, &decided);
        assert!(
            line.starts_with("SPRT: H1 accepted, LLR 2.95 after 339 games (bounds"),
            "{line}"
        );
        assert!(line.contains("over all 340 games"), "{line}");
    }
}
