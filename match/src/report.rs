//! The text `xqmatch` prints: a line a game, the standings with their
//! crosstable, and for two engines the score, the game pairs and the SPRT;
//! and a finished game as a line of JSON (`--results`).

use crate::rating::fit_ratings;
use crate::run::{FinishedGame, Results, TournamentReport, TournamentSpec};
use crate::stats::{elo_estimate, likelihood_of_superiority, Pentanomial, Sprt, Tally};

/// `game N: RED - BLACK: RESULT (why) after P plies[, worst clock overrun X ms]`,
/// then for two engines `; engine1 +W =D -L (S %)` and, under an SPRT, its
/// log-likelihood ratio so far (`, LLR 1.23 (-2.94, 2.94)`), and the memory
/// when the system tells (`; memory kB anon/peak A/P, A/P`, Red's then Black's).
pub fn game_line(game: &FinishedGame, results: &Results, sprt: Option<&Sprt>) -> String {
    let record = &game.record;
    let plies = record.plies();
    let overrun = record
        .worst_overrun_ms
        .map_or(String::new(), |ms| format!(", worst clock overrun {ms} ms"));
    let score = if results.table.players() == 2 {
        let llr = sprt.map_or(String::new(), |sprt| {
            let (lower, upper) = sprt.bounds();
            let llr = sprt.llr_pentanomial(&results.pairs_of(0, 1));
            format!(", LLR {llr:.2} ({lower:.2}, {upper:.2})")
        });
        format!("; {}{llr}", tally_text(&results.first_engine()))
    } else {
        String::new()
    };
    format!(
        "game {:>3}: {} - {}: {} ({}) after {plies} plies{overrun}{score}{}",
        game.number,
        record.red,
        record.black,
        record.result,
        record.termination,
        memory_text(game),
    )
}

/// `; memory kB anon/peak A/P, A/P` for Red's and Black's engine, when the
/// system tells.
fn memory_text(game: &FinishedGame) -> String {
    let [Some(red), Some(black)] = game.memory else {
        return String::new();
    };
    format!(
        "; memory kB anon/peak {}/{}, {}/{}",
        red.anon_kb, red.peak_kb, black.anon_kb, black.peak_kb
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

/// The end of a tournament, a line each: for two engines the score and
/// the game pairs, for more the standings and the crosstable; then the
/// kinds of end (once a game has been played) and the SPRT's verdict.
pub fn summary(spec: &TournamentSpec, report: &TournamentReport) -> String {
    let results = &report.results;
    let mut lines = if spec.players.len() == 2 {
        vec![
            summary_line(&results.first_engine()),
            pairs_line(&results.pairs_of(0, 1)),
        ]
    } else {
        vec![standings_and_crosstable(results)]
    };
    if results.table.games() > 0 {
        lines.push(endings_line(results));
    }
    if let Some(sprt) = &spec.sprt {
        lines.push(sprt_line(sprt, report));
    }
    lines.join("\n")
}

/// [`standings`], then [`crosstable`], without the last line's end.
pub fn standings_and_crosstable(results: &Results) -> String {
    format!(
        "{}\n{}",
        standings(results).trim_end(),
        crosstable(results).trim_end()
    )
}

/// A finished game as a line of JSON, ending with its newline: its number,
/// engines, result, kind of end, plies and opening (for `--results`).
pub fn result_json(game: &FinishedGame) -> String {
    let record = &game.record;
    let line = serde_json::json!({
        "number": game.number,
        "red": record.red,
        "black": record.black,
        "result": record.result.to_string(),
        "termination": record.termination.to_string(),
        "kind": record.termination.kind(),
        "plies": record.plies(),
        "opening": record.opening.moves_text(),
        "fen": record.opening.fen,
    });
    format!("{line}\n")
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

/// `pentanomial: 0 a, 0.5 b, 1 c, 1.5 d, 2 e (N pairs of games, engine1's points a pair)`.
pub fn pairs_line(pairs: &Pentanomial) -> String {
    let counts: Vec<String> = pairs
        .counts
        .iter()
        .enumerate()
        .map(|(k, n)| format!("{} {n}", k as f64 / 2.0))
        .collect();
    format!(
        "pentanomial: {} ({} pairs of games, engine1's points a pair)",
        counts.join(", "),
        pairs.pairs()
    )
}

/// The standings: every engine by its rating fitted on all games (see
/// [`crate::fit_ratings`]), with its 95 % margin, games, score and draws.
pub fn standings(results: &Results) -> String {
    standings_anchored(results, None)
}

/// [`standings`] with the ratings shifted so that engine `anchor.0` is
/// rated `anchor.1` (the margins stay those of the fit).
pub fn standings_anchored(results: &Results, anchor: Option<(usize, f64)>) -> String {
    let names = &results.names;
    let mut ratings = fit_ratings(&results.table);
    if let Some((i, elo)) = anchor {
        let shift = elo - ratings[i].elo;
        ratings.iter_mut().for_each(|r| r.elo += shift);
    }
    let mut order: Vec<usize> = (0..names.len()).collect();
    // Engines yet to play come last, unrated.
    let played = |i: usize| results.table.total(i).games() > 0;
    order.sort_by(|&a, &b| {
        (played(b), ratings[b].elo)
            .partial_cmp(&(played(a), ratings[a].elo))
            .expect("finite ratings")
    });
    let width = names
        .iter()
        .map(|n| n.chars().count())
        .max()
        .unwrap_or(0)
        .max(4);
    let mut text = format!(
        "{:>4}  {:<width$}  {:>7}  {:>6}  {:>5}  {:>7}  {:>7}\n",
        "Rank", "Name", "Elo", "+/-", "Games", "Score", "Draws"
    );
    for (rank, &i) in order.iter().enumerate() {
        let tally = results.table.total(i);
        let draws = if tally.games() == 0 {
            0.0
        } else {
            100.0 * f64::from(tally.draws) / f64::from(tally.games())
        };
        let (elo, margin) = if played(i) {
            (
                if anchor.is_some() {
                    format!("{:.0}", ratings[i].elo)
                } else {
                    format!("{:+.1}", ratings[i].elo)
                },
                format!("{:.1}", ratings[i].margin),
            )
        } else {
            ("-".to_string(), "-".to_string())
        };
        text.push_str(&format!(
            "{:>4}  {:<width$}  {elo:>7}  {margin:>6}  {:>5}  {:>5.1} %  {:>5.1} %\n",
            rank + 1,
            names[i],
            tally.games(),
            tally.percent(),
            draws,
        ));
    }
    text
}

/// The crosstable: each engine's results against each other one, from the
/// row's side, `+W =D -L`.
pub fn crosstable(results: &Results) -> String {
    let names = &results.names;
    let n = names.len();
    let cell = |i: usize, j: usize| {
        if i == j {
            return "-".to_string();
        }
        let t = results.table.against(i, j);
        if t.games() == 0 {
            String::new()
        } else {
            format!("+{} ={} -{}", t.wins, t.draws, t.losses)
        }
    };
    let cells: Vec<Vec<String>> = (0..n)
        .map(|i| (0..n).map(|j| cell(i, j)).collect())
        .collect();
    let column = cells
        .iter()
        .flatten()
        .map(String::len)
        .max()
        .unwrap_or(1)
        .max(3);
    let width = names.iter().map(|s| s.chars().count()).max().unwrap_or(0);
    let mut text = format!("{:>3}  {:<width$}", "", "");
    for j in 0..n {
        text.push_str(&format!("  {:>column$}", j + 1));
    }
    text.push('\n');
    for (i, row) in cells.iter().enumerate() {
        text.push_str(&format!("{:>3}  {:<width$}", i + 1, names[i]));
        for c in row {
            text.push_str(&format!("  {c:>column$}"));
        }
        text.push('\n');
    }
    text
}

/// `ended by: KIND N, KIND N, ...`, the most common first.
pub fn endings_line(results: &Results) -> String {
    let mut endings: Vec<(&str, u32)> = results
        .endings
        .iter()
        .map(|(k, &n)| (k.as_str(), n))
        .collect();
    endings.sort_by_key(|&(kind, n)| (std::cmp::Reverse(n), kind));
    let counts: Vec<String> = endings
        .iter()
        .map(|(kind, n)| format!("{kind} {n}"))
        .collect();
    format!("ended by: {}", counts.join(", "))
}

/// `SPRT: VERDICT, LLR x after N games (bounds a, b; elo0 e0, elo1 e1;
/// pentanomial)`; when games finished after the decision, also the LLR
/// over all of them.
pub fn sprt_line(sprt: &Sprt, report: &TournamentReport) -> String {
    let (lower, upper) = sprt.bounds();
    let earlier = match sprt.earlier.pairs() {
        0 => String::new(),
        n => format!(", with {n} earlier pairs"),
    };
    let hypotheses = format!(
        "(bounds {lower:.2}, {upper:.2}; elo0 {}, elo1 {}; game pairs{earlier})",
        sprt.elo0, sprt.elo1
    );
    let games = report.results.table.games();
    let final_llr = sprt.llr_pentanomial(&report.results.pairs_of(0, 1));
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
    use crate::record::{GameRecord, Termination};
    use crate::run::SprtDecision;
    use crate::stats::{GameScore, SprtVerdict};
    use crate::tournament::{Format, OpeningOrder, Pairings};
    use xqcore::GameResult;
    use xqrecords::Opening;

    fn tally(wins: u32, draws: u32, losses: u32) -> Tally {
        Tally {
            wins,
            draws,
            losses,
        }
    }

    /// The results of `players` engines' round robin of `games` games an
    /// encounter, each result `result`.
    fn results(players: usize, games: usize, result: impl Fn(usize) -> GameResult) -> Results {
        let pairings = Pairings {
            format: Format::RoundRobin,
            rounds: 1,
            games,
            order: OpeningOrder::Sequential,
        };
        let names = ["Alpha", "Beta", "Gamma", "Delta"][..players]
            .iter()
            .map(|n| n.to_string());
        let mut results = Results::new(names.collect());
        for game in pairings.schedule(players, 0) {
            results.add(&game, result(game.number), "resignation");
        }
        results
    }

    #[test]
    fn game_line_names_result_and_reason() {
        let game = FinishedGame {
            number: 7,
            red: 1,
            black: 0,
            pair: Some(3),
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
        let won = results(2, 1, |_| GameResult::RedWins);
        assert_eq!(
            game_line(&game, &won, None),
            "game   7: B - A: 0-1 (time forfeit) after 0 plies, worst clock overrun 312 ms; \
             engine1 +1 =0 -0 (100.0 %)"
        );
        // Under an SPRT the line carries its LLR so far, as the summary's.
        let sprt = Sprt::new(0.0, 5.0).unwrap();
        let pairs = results(2, 40, |n| {
            [GameResult::RedWins, GameResult::Draw, GameResult::RedWins][n % 3]
        });
        let llr = sprt.llr_pentanomial(&pairs.pairs_of(0, 1));
        assert!(llr.abs() > 0.01, "{llr}");
        let line = game_line(&game, &pairs, Some(&sprt));
        assert!(
            line.ends_with(&format!(", LLR {llr:.2} (-2.94, 2.94)")),
            "{line}"
        );
        let three = results(3, 1, |_| GameResult::RedWins);
        assert_eq!(
            game_line(&game, &three, Some(&sprt)),
            "game   7: B - A: 0-1 (time forfeit) after 0 plies, worst clock overrun 312 ms"
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
    fn pairs_and_endings_are_counted() {
        let mut pairs = Pentanomial::default();
        pairs.add(GameScore::Win, GameScore::Draw);
        pairs.add(GameScore::Loss, GameScore::Win);
        assert_eq!(
            pairs_line(&pairs),
            "pentanomial: 0 0, 0.5 0, 1 1, 1.5 1, 2 0 (2 pairs of games, engine1's points a pair)"
        );
        let mut results = Results::default();
        for (kind, n) in [
            ("resignation", 3),
            ("draw adjudication", 5),
            ("length cap", 3),
        ] {
            results.endings.insert(kind.to_string(), n);
        }
        assert_eq!(
            endings_line(&results),
            "ended by: draw adjudication 5, length cap 3, resignation 3"
        );
    }

    #[test]
    fn standings_rank_by_rating_and_the_crosstable_reads_by_row() {
        // Games 1-2: engines 0 and 1 win a game each (as Red); 3-4: engine
        // 0 beats 2 twice; 5-6: engines 1 and 2 draw twice.
        let results = results(3, 2, |number| match number {
            1..=3 => GameResult::RedWins,
            4 => GameResult::BlackWins,
            _ => GameResult::Draw,
        });
        let table = standings(&results);
        let lines: Vec<&str> = table.lines().collect();
        assert_eq!(lines.len(), 4, "{table}");
        assert!(lines[0].starts_with("Rank  Name"), "{table}");
        assert!(lines[1].contains("Alpha"), "{table}");
        assert!(lines[1].contains("75.0 %"), "{table}");
        let cross = crosstable(&results);
        let rows: Vec<&str> = cross.lines().collect();
        assert_eq!(rows.len(), 4, "{cross}");
        assert!(rows[1].starts_with("  1  Alpha"), "{cross}");
        assert!(
            rows[1].contains("+1 =0 -1") && rows[1].contains("+2 =0 -0"),
            "{cross}"
        );
        assert!(
            rows[3].contains("+0 =0 -2") && rows[3].contains("+0 =2 -0"),
            "{cross}"
        );
    }

    #[test]
    fn engines_yet_to_play_stand_last_unrated() {
        // The first encounter only (Alpha against Beta) of a round robin of
        // three: Beta wins both games.
        let mut partial = Results::new(vec!["Alpha".into(), "Beta".into(), "Gamma".into()]);
        let pairings = Pairings {
            format: Format::RoundRobin,
            rounds: 1,
            games: 2,
            order: OpeningOrder::Sequential,
        };
        for game in pairings.schedule(3, 0).into_iter().take(2) {
            let beta_wins = if game.red == 1 {
                GameResult::RedWins
            } else {
                GameResult::BlackWins
            };
            partial.add(&game, beta_wins, "resignation");
        }
        let table = standings(&partial);
        let lines: Vec<&str> = table.lines().collect();
        assert!(lines[1].contains("Beta"), "{table}");
        assert!(lines[2].contains("Alpha"), "{table}");
        let gamma: Vec<&str> = lines[3].split_whitespace().collect();
        assert_eq!(gamma[..5], ["3", "Gamma", "-", "-", "0"], "{table}");
    }

    #[test]
    fn sprt_line_reports_verdict_and_llr() {
        let sprt = Sprt::new(0.0, 10.0).unwrap();
        let undecided = TournamentReport {
            results: results(2, 4, |n| {
                if n == 3 {
                    GameResult::RedWins
                } else {
                    GameResult::Draw
                }
            }),
            ..TournamentReport::default()
        };
        let line = sprt_line(&sprt, &undecided);
        assert!(line.starts_with("SPRT: inconclusive, LLR "), "{line}");
        assert!(
            line.ends_with(" after 4 games (bounds -2.94, 2.94; elo0 0, elo1 10; game pairs)"),
            "{line}"
        );
        let decided = TournamentReport {
            results: results(2, 340, |n| {
                if n % 2 == 1 {
                    GameResult::RedWins
                } else {
                    GameResult::Draw
                }
            }),
            sprt_decision: Some(SprtDecision {
                verdict: SprtVerdict::AcceptH1,
                llr: 2.95,
                games: 338,
            }),
            ..TournamentReport::default()
        };
        let line = sprt_line(&sprt, &decided);
        assert!(
            line.starts_with("SPRT: H1 accepted, LLR 2.95 after 338 games (bounds"),
            "{line}"
        );
        assert!(line.contains("over all 340 games"), "{line}");

        let going_on = sprt.with_earlier(Pentanomial {
            counts: [1, 2, 3, 2, 1],
        });
        let line = sprt_line(&going_on, &undecided);
        assert!(
            line.ends_with("game pairs, with 9 earlier pairs)"),
            "{line}"
        );
    }

    /// A tournament of `players` engines that run `echo`, at depth 1.
    fn spec(players: usize) -> TournamentSpec {
        let engine = crate::engine::EngineSpec::new("echo");
        let limit = crate::time_control::MoveLimit::Depth(1);
        let mut spec = TournamentSpec::head_to_head([engine.clone(), engine], limit, Vec::new(), 2);
        spec.players.resize(players, spec.players[0].clone());
        spec
    }

    #[test]
    fn the_summary_is_the_score_or_the_standings_then_the_endings() {
        let report = |results| TournamentReport {
            results,
            ..TournamentReport::default()
        };
        let two = report(results(2, 2, |_| GameResult::RedWins));
        let lines: Vec<String> = summary(&spec(2), &two).lines().map(String::from).collect();
        assert_eq!(
            lines,
            [
                summary_line(&two.results.first_engine()),
                pairs_line(&two.results.pairs_of(0, 1)),
                "ended by: resignation 2".to_string(),
            ]
        );
        // No game: no endings; an SPRT: its line last.
        let mut tested = spec(2);
        tested.sprt = Sprt::new(0.0, 5.0);
        let none = report(Results::new(vec!["A".into(), "B".into()]));
        let text = summary(&tested, &none);
        let lines: Vec<&str> = text.lines().collect();
        assert_eq!(lines.len(), 3, "{text}");
        assert_eq!(lines[0], "engine1 +0 =0 -0, no games played");
        assert!(lines[2].starts_with("SPRT: inconclusive"), "{text}");
        let three = report(results(3, 2, |_| GameResult::Draw));
        assert_eq!(
            summary(&spec(3), &three),
            format!(
                "{}\nended by: resignation 6",
                standings_and_crosstable(&three.results)
            )
        );
        let table = standings_and_crosstable(&three.results);
        assert_eq!(table.lines().count(), 4 + 4, "{table}");
        assert!(table.starts_with("Rank  Name"), "{table}");
        assert!(!table.ends_with('\n'), "{table}");
    }

    #[test]
    fn a_result_is_a_line_of_json() {
        let opening = Opening::parse("h2e2 h9g7").unwrap();
        let game = FinishedGame {
            number: 12,
            red: 0,
            black: 1,
            pair: Some(6),
            record: GameRecord {
                red: "Red \"one\"".into(),
                black: "B".into(),
                opening,
                moves: Vec::new(),
                stats: Vec::new(),
                result: GameResult::Draw,
                termination: Termination::LengthCap,
                worst_overrun_ms: None,
            },
            memory: [None, None],
        };
        let line = result_json(&game);
        assert!(line.ends_with("}\n") && line.lines().count() == 1, "{line}");
        let json: serde_json::Value = serde_json::from_str(&line).unwrap();
        assert_eq!(json["number"], 12);
        assert_eq!(json["red"], "Red \"one\"");
        assert_eq!(json["result"], "1/2-1/2");
        assert_eq!(json["termination"], "length cap");
        assert_eq!(json["kind"], "length cap");
        assert_eq!(json["plies"], 2);
        assert_eq!(json["opening"], "h2e2 h9g7");
        assert!(json["fen"].is_null());
    }
}
