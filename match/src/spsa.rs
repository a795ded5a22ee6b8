//! Tuning an engine's parameters by SPSA (simultaneous perturbation
//! stochastic approximation, Spall 1992), as chess engines tune theirs on
//! fishtest: each iteration moves every parameter at once by a random sign
//! times its probe size, up for one copy of the engine and down for the
//! other; the two copies play a pair of games (one opening, each colour
//! once), and every parameter moves towards the copy that scored more.
//!
//! - [`Param`] and [`read_params`]: the parameters, one a line, `name
//!   value min max step` (what `xqengine params` prints).
//! - [`Schedule`]: the gains. The probe size of a parameter shrinks from
//!   about `step x N^0.101` to `step` over the `N` planned iterations; its
//!   learning rate is set by `r_end`, so that the last iterations move it by
//!   `r_end x step` a point of result.
//! - [`Spsa`]: the tuner's state, saved as text after every batch
//!   ([`Spsa::to_text`], [`Spsa::from_text`]), so a run can be stopped and
//!   resumed.
//! - [`run_spsa`]: plays the pairs, `concurrency` at once, and applies
//!   their results in iteration order.

use std::sync::atomic::AtomicBool;
use std::thread;

use xqcore::{Color, GameResult};

use crate::engine::{EngineError, EngineProcess, EngineSpec};
use crate::game::{play_game, MatchConfig};
use crate::protocol::EngineOption;
use crate::time_control::MoveLimit;
use crate::tournament::SplitMix64;
use xqrecords::Opening;

/// One tuned parameter.
#[derive(Clone, Debug, PartialEq)]
pub struct Param {
    /// The engine's option that sets it.
    pub name: String,
    /// The current estimate (the engine is given it rounded).
    pub value: f64,
    pub min: f64,
    pub max: f64,
    /// The probe size at the end of the planned iterations (SPSA's
    /// `c_end`): a change that matters, but not a large one.
    pub step: f64,
}

/// A parameter line or state file that cannot be read.
#[derive(Clone, Debug, PartialEq, Eq, thiserror::Error)]
#[error("line {line}: {reason}")]
pub struct SpsaFileError {
    /// 1-based.
    pub line: usize,
    pub reason: String,
}

/// Reads parameters, one a line: `name value min max step` (blank lines
/// and lines starting with `#` are skipped).
///
/// # Errors
///
/// A line without those five words, a number that is not one, a value
/// outside its range, a step that is not positive, a name given twice, or
/// no parameter at all.
pub fn read_params(text: &str) -> Result<Vec<Param>, SpsaFileError> {
    let mut params: Vec<Param> = Vec::new();
    for (i, line) in text.lines().enumerate() {
        let line_no = i + 1;
        let words: Vec<&str> = line.split_whitespace().collect();
        if words.is_empty() || words[0].starts_with('#') {
            continue;
        }
        let param = parse_param(&words).map_err(|reason| SpsaFileError {
            line: line_no,
            reason,
        })?;
        if params.iter().any(|p| p.name == param.name) {
            return Err(SpsaFileError {
                line: line_no,
                reason: format!("{} is given twice", param.name),
            });
        }
        params.push(param);
    }
    if params.is_empty() {
        return Err(SpsaFileError {
            line: text.lines().count().max(1),
            reason: "no parameter (lines of: name value min max step)".into(),
        });
    }
    Ok(params)
}

fn parse_param(words: &[&str]) -> Result<Param, String> {
    let [name, value, min, max, step] = words else {
        return Err(format!(
            "'{}' is not: name value min max step",
            words.join(" ")
        ));
    };
    let number = |what: &str, text: &str| {
        text.parse::<f64>()
            .ok()
            .filter(|v| v.is_finite())
            .ok_or_else(|| format!("{name}: {what} '{text}' is not a number"))
    };
    let param = Param {
        name: name.to_string(),
        value: number("value", value)?,
        min: number("min", min)?,
        max: number("max", max)?,
        step: number("step", step)?,
    };
    if !(param.min <= param.value && param.value <= param.max) {
        return Err(format!(
            "{name}: {} is not within {}..{}",
            param.value, param.min, param.max
        ));
    }
    if param.step <= 0.0 {
        return Err(format!("{name}: the step must be positive"));
    }
    Ok(param)
}

/// SPSA's gains: `c_k = c / (k + 1)^gamma` and `a_k = a / (A + k + 1)^alpha`
/// for iteration `k` (0-based) of `iterations`, with `c` and `a` set per
/// parameter from its step and `r_end` (as fishtest sets them).
#[derive(Clone, Copy, Debug, PartialEq)]
pub struct Schedule {
    /// The planned iterations (game pairs), `N`.
    pub iterations: u32,
    /// The learning rate at the end, relative to the step squared.
    pub r_end: f64,
    /// `A` as a fraction of `N`: the larger, the gentler the first iterations.
    pub stability: f64,
    pub alpha: f64,
    pub gamma: f64,
}

impl Schedule {
    /// The usual exponents (alpha 0.602, gamma 0.101), `A` a tenth of the
    /// iterations and `r_end` 0.002 (fishtest's defaults).
    pub fn new(iterations: u32) -> Schedule {
        Schedule {
            iterations: iterations.max(1),
            r_end: 0.002,
            stability: 0.1,
            alpha: 0.602,
            gamma: 0.101,
        }
    }

    /// The probe size of a parameter of `step` at iteration `k`.
    pub fn probe_size(&self, step: f64, k: u32) -> f64 {
        let n = f64::from(self.iterations);
        step * n.powf(self.gamma) / f64::from(k + 1).powf(self.gamma)
    }

    /// The gain of a parameter of `step` at iteration `k`.
    pub fn gain(&self, step: f64, k: u32) -> f64 {
        let n = f64::from(self.iterations);
        let big_a = self.stability * n;
        let a = self.r_end * step * step * (big_a + n).powf(self.alpha);
        a / (big_a + f64::from(k) + 1.0).powf(self.alpha)
    }
}

/// The two settings one iteration plays against each other.
#[derive(Clone, Debug, PartialEq)]
pub struct Probe {
    /// 0-based.
    pub iteration: u32,
    /// +1 or -1 for each parameter: which way `plus` moved it.
    pub signs: Vec<f64>,
    /// The values for the engine that moved every parameter by its sign,
    /// rounded and kept in range.
    pub plus: Vec<i64>,
    /// The values for the engine that moved them the other way.
    pub minus: Vec<i64>,
}

/// The tuner's state.
#[derive(Clone, Debug, PartialEq)]
pub struct Spsa {
    pub params: Vec<Param>,
    pub schedule: Schedule,
    /// Iterations done.
    pub iteration: u32,
    /// Seeds every iteration's signs and opening.
    pub seed: u64,
    /// The sum of every iteration's result (the `plus` engine's score less
    /// the `minus` engine's over its pair): near zero when nothing is
    /// learnt, as it should be.
    pub result_sum: f64,
}

impl Spsa {
    /// A tuner at the start of `schedule`.
    pub fn new(params: Vec<Param>, schedule: Schedule, seed: u64) -> Spsa {
        Spsa {
            params,
            schedule,
            iteration: 0,
            seed,
            result_sum: 0.0,
        }
    }

    /// Whether every planned iteration is done.
    pub fn finished(&self) -> bool {
        self.iteration >= self.schedule.iterations
    }

    /// A pseudo-random sequence for iteration `k`, the same on every run.
    fn rng(&self, k: u32) -> SplitMix64 {
        SplitMix64(self.seed ^ u64::from(k).wrapping_mul(0xd605_bbb5_8c8a_bd43))
    }

    /// The probe of iteration `k` from the current values.
    pub fn probe(&self, k: u32) -> Probe {
        let mut rng = self.rng(k);
        let signs: Vec<f64> = self
            .params
            .iter()
            .map(|_| if rng.next() & 1 == 0 { 1.0 } else { -1.0 })
            .collect();
        let moved = |direction: f64| -> Vec<i64> {
            self.params
                .iter()
                .zip(&signs)
                .map(|(p, s)| {
                    let c = self.schedule.probe_size(p.step, k);
                    (p.value + direction * s * c).clamp(p.min, p.max).round() as i64
                })
                .collect()
        };
        Probe {
            iteration: k,
            plus: moved(1.0),
            minus: moved(-1.0),
            signs,
        }
    }

    /// The opening of iteration `k`, among `count`.
    pub fn opening_index(&self, k: u32, count: usize) -> usize {
        let mut rng = self.rng(k);
        rng.next();
        (rng.next() % count.max(1) as u64) as usize
    }

    /// Moves every parameter by the result of `probe`'s pair: `result` is
    /// the `plus` engine's score less the `minus` engine's (-2 to 2).
    pub fn update(&mut self, probe: &Probe, result: f64) {
        let k = probe.iteration;
        for (p, s) in self.params.iter_mut().zip(&probe.signs) {
            let c = self.schedule.probe_size(p.step, k);
            let a = self.schedule.gain(p.step, k);
            p.value = (p.value + a / c * result * s).clamp(p.min, p.max);
        }
        self.iteration = self.iteration.max(k + 1);
        self.result_sum += result;
    }

    /// The current values, rounded, as engine options.
    pub fn options(values: &[i64], params: &[Param]) -> Vec<EngineOption> {
        params
            .iter()
            .zip(values)
            .map(|(p, v)| EngineOption {
                name: p.name.clone(),
                value: Some(v.to_string()),
            })
            .collect()
    }

    /// The current values rounded, in parameter order.
    pub fn rounded(&self) -> Vec<i64> {
        self.params.iter().map(|p| p.value.round() as i64).collect()
    }

    /// The state as text: a header of settings, then the parameters in the
    /// format [`read_params`] reads, with their current values.
    pub fn to_text(&self) -> String {
        let s = &self.schedule;
        let mut text = format!(
            "# xqmatch spsa state\niterations {}\ndone {}\nseed {}\nr_end {}\nstability {}\n\
             alpha {}\ngamma {}\nresult_sum {}\n",
            s.iterations,
            self.iteration,
            self.seed,
            s.r_end,
            s.stability,
            s.alpha,
            s.gamma,
            self.result_sum
        );
        for p in &self.params {
            text += &format!("{} {} {} {} {}\n", p.name, p.value, p.min, p.max, p.step);
        }
        text
    }

    /// Writes the state to `path` whole: to a temporary file beside it,
    /// then renamed over it, so an interrupted write leaves the last state.
    ///
    /// # Errors
    ///
    /// The file cannot be written or renamed.
    pub fn save(&self, path: &std::path::Path) -> std::io::Result<()> {
        let mut part = path.as_os_str().to_owned();
        part.push(".part");
        std::fs::write(&part, self.to_text())?;
        std::fs::rename(&part, path)
    }

    /// Reads a state [`Spsa::to_text`] wrote.
    ///
    /// # Errors
    ///
    /// A missing or unreadable setting, or a bad parameter line.
    pub fn from_text(text: &str) -> Result<Spsa, SpsaFileError> {
        const KEYS: [&str; 8] = [
            "iterations",
            "done",
            "seed",
            "r_end",
            "stability",
            "alpha",
            "gamma",
            "result_sum",
        ];
        // The header's lines by key; every other line is a parameter's
        // (blanked here, so that errors name the right line).
        let mut header = StateHeader::default();
        let mut param_lines = String::new();
        for (i, line) in text.lines().enumerate() {
            match line.split_whitespace().collect::<Vec<_>>().as_slice() {
                [key, value] if KEYS.contains(key) => {
                    header.0.insert(key.to_string(), (i + 1, value.to_string()));
                }
                _ => param_lines += line,
            }
            param_lines.push('\n');
        }
        Ok(Spsa {
            params: read_params(&param_lines)?,
            schedule: Schedule {
                iterations: header.get("iterations")?,
                r_end: header.get("r_end")?,
                stability: header.get("stability")?,
                alpha: header.get("alpha")?,
                gamma: header.get("gamma")?,
            },
            iteration: header.get("done")?,
            // A whole 64-bit number, beyond f64's precision.
            seed: header.get("seed")?,
            result_sum: header.get("result_sum")?,
        })
    }
}

/// A state file's settings: key to line number and value.
#[derive(Default)]
struct StateHeader(std::collections::HashMap<String, (usize, String)>);

impl StateHeader {
    fn get<T: std::str::FromStr>(&self, key: &str) -> Result<T, SpsaFileError> {
        let (line, value) = self.0.get(key).ok_or_else(|| SpsaFileError {
            line: 1,
            reason: format!("no '{key}' line: not a state file of xqmatch spsa"),
        })?;
        value.parse().map_err(|_| SpsaFileError {
            line: *line,
            reason: format!("{key}: '{value}' is not a number"),
        })
    }
}

/// How the engine plays its pairs.
#[derive(Clone, Debug)]
pub struct SpsaGames<'a> {
    /// The engine, with the options both copies share; the tuned ones are
    /// set after them.
    pub engine: &'a EngineSpec,
    pub openings: &'a [Opening],
    pub limit: MoveLimit,
    pub config: &'a MatchConfig,
    /// Pairs played at once.
    pub concurrency: usize,
}

/// One finished iteration.
#[derive(Clone, Debug, PartialEq)]
pub struct PairOutcome {
    pub probe: Probe,
    /// The `plus` engine's results, as Red then as Black.
    pub results: [GameResult; 2],
    /// `plus`'s score less `minus`'s, -2 to 2.
    pub result: f64,
}

/// Why tuning stopped early.
#[derive(Debug, thiserror::Error)]
pub enum SpsaError {
    #[error(transparent)]
    Engine(#[from] EngineError),
    /// The callback asked to stop (it could not save the state).
    #[error("{0}")]
    Callback(String),
    /// Tuned parameters the engine did not announce as options: it would
    /// ignore them (a build without them, or a misspelt name).
    #[error("{engine} announces no option {}: is it a build with the tuned parameters?", quoted(.names))]
    NotAnnounced { engine: String, names: Vec<String> },
}

fn quoted(names: &[String]) -> String {
    let quoted: Vec<String> = names.iter().map(|n| format!("'{n}'")).collect();
    quoted.join(", ")
}

/// Starts the engine once to check that it takes its own options and
/// announces every parameter as an option (the pairs' games then start it
/// with them unchecked).
///
/// The parameters are looked up with [`EngineProcess::announces`], not
/// set with [`EngineProcess::set_option`], which passes any option to an
/// engine that announces none (an old engine may take options it does not
/// list) and stops at the first it lacks: a tuned parameter must be
/// announced, or the engine would ignore it and the tuning measure noise,
/// and all that are missing are named at once.
fn check_announced(engine: &EngineSpec, params: &[Param]) -> Result<(), SpsaError> {
    let process = EngineProcess::start(engine)?;
    let names: Vec<String> = params
        .iter()
        .filter(|p| !process.announces(&p.name))
        .map(|p| p.name.clone())
        .collect();
    if names.is_empty() {
        Ok(())
    } else {
        Err(SpsaError::NotAnnounced {
            engine: process.name.clone(),
            names,
        })
    }
}

/// Plays iterations until the schedule is done, `limit` more are done, or
/// `stop` is set, `games.concurrency` pairs at once, each batch probed from
/// the values before it and applied in iteration order; `after_batch` sees
/// the state and the batch's outcomes (to print them and save the state).
/// An abandoned pair (stopped) is not counted.
///
/// # Errors
///
/// An engine that cannot be started or does not announce every tuned
/// parameter as an option, or a callback error.
pub fn run_spsa(
    spsa: &mut Spsa,
    games: &SpsaGames,
    limit: u32,
    stop: &AtomicBool,
    mut after_batch: impl FnMut(&Spsa, &[PairOutcome]) -> Result<(), String>,
) -> Result<(), SpsaError> {
    if !spsa.finished() && limit > 0 {
        check_announced(games.engine, &spsa.params)?;
    }
    let end = spsa
        .schedule
        .iterations
        .min(spsa.iteration.saturating_add(limit));
    while spsa.iteration < end && !stop.load(std::sync::atomic::Ordering::Relaxed) {
        let batch: Vec<Probe> = (spsa.iteration..end)
            .take(games.concurrency.max(1))
            .map(|k| spsa.probe(k))
            .collect();
        let played: Vec<Result<Option<PairOutcome>, EngineError>> = thread::scope(|scope| {
            let handles: Vec<_> = batch
                .iter()
                .map(|probe| {
                    let opening =
                        &games.openings[spsa.opening_index(probe.iteration, games.openings.len())];
                    let params = &spsa.params;
                    scope.spawn(move || play_pair(games, params, probe, opening, stop))
                })
                .collect();
            handles
                .into_iter()
                .map(|h| h.join().expect("a pair's thread does not panic"))
                .collect()
        });
        // Only a whole prefix of the batch is applied, so that a resumed
        // run plays the rest from the same iteration on.
        let mut outcomes = Vec::new();
        let mut failure = None;
        for outcome in played {
            match outcome {
                Ok(Some(o)) => outcomes.push(o),
                Ok(None) => break,
                Err(e) => {
                    failure = Some(e);
                    break;
                }
            }
        }
        for o in &outcomes {
            spsa.update(&o.probe, o.result);
        }
        after_batch(spsa, &outcomes).map_err(SpsaError::Callback)?;
        if let Some(e) = failure {
            return Err(e.into());
        }
    }
    Ok(())
}

/// The pair of games of `probe` from `opening`: `plus` Red, then Black.
/// `None` when stopped before both ended.
fn play_pair(
    games: &SpsaGames,
    params: &[Param],
    probe: &Probe,
    opening: &Opening,
    stop: &AtomicBool,
) -> Result<Option<PairOutcome>, EngineError> {
    let spec = |values: &[i64]| {
        let mut spec = games.engine.clone();
        spec.options.extend(Spsa::options(values, params));
        spec
    };
    let mut plus = EngineProcess::start_for_game(&spec(&probe.plus))?;
    let mut minus = EngineProcess::start_for_game(&spec(&probe.minus))?;
    let limits = [games.limit; 2];
    let Some(first) = play_game(&mut plus, &mut minus, opening, limits, games.config, stop) else {
        return Ok(None);
    };
    plus.new_game()?;
    minus.new_game()?;
    let Some(second) = play_game(&mut minus, &mut plus, opening, limits, games.config, stop) else {
        return Ok(None);
    };
    let score = |result: GameResult, side: Color| match (result, side) {
        (GameResult::RedWins, Color::Red) | (GameResult::BlackWins, Color::Black) => 1.0,
        (GameResult::RedWins, Color::Black) | (GameResult::BlackWins, Color::Red) => -1.0,
        (GameResult::Draw | GameResult::Unknown, _) => 0.0,
    };
    Ok(Some(PairOutcome {
        probe: probe.clone(),
        result: score(first.result, Color::Red) + score(second.result, Color::Black),
        results: [first.result, second.result],
    }))
}

#[cfg(test)]
mod tests {
    use super::*;

    fn params() -> Vec<Param> {
        read_params("# name value min max step\nmargin 100 0 400 10\n\nscale 50 10 90 4\n").unwrap()
    }

    #[test]
    fn parameter_files_are_read_and_bad_lines_named() {
        let p = params();
        assert_eq!(p.len(), 2);
        assert_eq!(p[1].name, "scale");
        assert_eq!(
            (p[1].value, p[1].min, p[1].max, p[1].step),
            (50.0, 10.0, 90.0, 4.0)
        );
        let bad = |text: &str| read_params(text).unwrap_err().to_string();
        assert_eq!(
            bad("a 1 0 2 1\nb 1 0 2"),
            "line 2: 'b 1 0 2' is not: name value min max step"
        );
        assert!(bad("a 5 0 2 1").contains("not within"));
        assert!(bad("a x 0 2 1").contains("value 'x' is not a number"));
        assert!(bad("a 1 0 2 0").contains("positive"));
        assert!(bad("a 1 0 2 1\na 1 0 2 1").contains("twice"));
        assert!(bad("# nothing\n").contains("no parameter"));
    }

    #[test]
    fn the_gains_shrink_to_the_step_and_the_end_rate() {
        let s = Schedule::new(1_000);
        // The probe ends at the step, starting about N^0.101 times larger.
        assert!((s.probe_size(10.0, 999) - 10.0).abs() < 1e-9);
        assert!((s.probe_size(10.0, 0) - 10.0 * 1_000f64.powf(0.101)).abs() < 1e-9);
        // At the end a point of result moves a parameter r_end steps.
        let end = s.gain(10.0, 999) / s.probe_size(10.0, 999);
        assert!((end - 0.002 * 10.0).abs() < 1e-9, "{end}");
        assert!(s.gain(10.0, 0) > s.gain(10.0, 500));
    }

    #[test]
    fn probes_are_symmetric_seeded_and_in_range() {
        let spsa = Spsa::new(params(), Schedule::new(100), 7);
        let probe = spsa.probe(3);
        assert_eq!(probe, spsa.probe(3), "the same iteration, the same probe");
        for ((p, s), (hi, lo)) in spsa
            .params
            .iter()
            .zip(&probe.signs)
            .zip(probe.plus.iter().zip(&probe.minus))
        {
            assert!(s.abs() == 1.0);
            assert_eq!((hi - lo).signum() as f64, *s, "{p:?}");
            assert!(p.min as i64 <= *lo.min(hi) && *hi.max(lo) <= p.max as i64);
        }
        // Over many iterations both signs come up for each parameter.
        let signs: Vec<f64> = (0..64).map(|k| spsa.probe(k).signs[0]).collect();
        assert!(signs.contains(&1.0) && signs.contains(&-1.0));
    }

    /// The tuner finds the optimum of a noisy match whose expected result
    /// favours the copy nearer the best values (60 and 30 here).
    #[test]
    fn it_converges_on_a_simulated_match() {
        let text = "a 100 0 200 8\nb 70 0 100 4\n";
        let mut spsa = Spsa::new(read_params(text).unwrap(), Schedule::new(4_000), 11);
        spsa.schedule.r_end = 0.02;
        let best = [60.0, 30.0];
        let mut noise = SplitMix64(99);
        let strength = |v: &[i64]| {
            -v.iter()
                .zip(best)
                .map(|(&x, b)| ((x as f64 - b) / 40.0).powi(2))
                .sum::<f64>()
        };
        while !spsa.finished() {
            let probe = spsa.probe(spsa.iteration);
            let edge = (strength(&probe.plus) - strength(&probe.minus)).clamp(-1.0, 1.0);
            // Two games, each won by plus with probability (1 + edge) / 2.
            let game = |r: u64| {
                if (r % 1_000) as f64 / 1_000.0 < (1.0 + edge) / 2.0 {
                    1.0
                } else {
                    -1.0
                }
            };
            let result = game(noise.next()) + game(noise.next());
            spsa.update(&probe, result);
        }
        let v = spsa.rounded();
        assert!((v[0] - 60).abs() <= 8, "{v:?}");
        assert!((v[1] - 30).abs() <= 6, "{v:?}");
    }

    #[test]
    fn the_state_reads_back() {
        let mut spsa = Spsa::new(params(), Schedule::new(500), 3);
        let probe = spsa.probe(0);
        spsa.update(&probe, 2.0);
        let text = spsa.to_text();
        let back = Spsa::from_text(&text).unwrap();
        assert_eq!(back, spsa);
        assert_eq!(back.probe(1), spsa.probe(1));
        let why = Spsa::from_text("margin 100 0 400 10\n")
            .unwrap_err()
            .to_string();
        assert!(why.contains("not a state file"), "{why}");

        let mut big_seed = Spsa::new(params(), Schedule::new(500), u64::MAX - 1);
        big_seed.update(&big_seed.probe(0), -1.0);
        assert_eq!(Spsa::from_text(&big_seed.to_text()).unwrap(), big_seed);
        let bad = big_seed.to_text().replace("done 1", "done one");
        let why = Spsa::from_text(&bad).unwrap_err().to_string();
        assert!(
            why.contains("line 3") && why.contains("done: 'one'"),
            "{why}"
        );
    }
}
