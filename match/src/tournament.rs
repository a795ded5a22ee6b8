//! Who plays whom, with which colour, from which opening: a tournament's
//! games in the order they are handed out.
//!
//! Engines meet in encounters (every pair in a round robin; the first
//! engine and each other one in a gauntlet), once a round. An encounter's
//! games come in pairs: one opening, played once with each colour, so that
//! the opening's bias cancels within the pair. Each pair takes the next
//! opening, in the file's order or shuffled with a seed.

use std::fmt;
use std::str::FromStr;

/// Who meets whom.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum Format {
    /// Every engine against every other.
    RoundRobin,
    /// The first engine against each of the others.
    Gauntlet,
    /// Each engine against the next in the list: a ladder of levels,
    /// weakest to strongest, calibrated by their neighbours' games.
    Ladder,
}

impl FromStr for Format {
    type Err = String;

    fn from_str(text: &str) -> Result<Format, String> {
        match text {
            "round-robin" => Ok(Format::RoundRobin),
            "gauntlet" => Ok(Format::Gauntlet),
            "ladder" => Ok(Format::Ladder),
            _ => Err(format!(
                "'{text}' is not a format (round-robin, gauntlet or ladder)"
            )),
        }
    }
}

impl fmt::Display for Format {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        f.write_str(match self {
            Format::RoundRobin => "round-robin",
            Format::Gauntlet => "gauntlet",
            Format::Ladder => "ladder",
        })
    }
}

/// The order openings are taken in.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum OpeningOrder {
    /// The file's order, from its first line, starting over at its end.
    Sequential,
    /// Shuffled with this seed; each pass over the openings is a new
    /// shuffle, so none repeats before all have been played.
    Random(u64),
}

/// How a tournament is drawn up.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub struct Pairings {
    pub format: Format,
    /// Times every encounter is played.
    pub rounds: usize,
    /// Games of an encounter in each round (pairs of colours, then a
    /// single game when odd).
    pub games: usize,
    pub order: OpeningOrder,
}

/// One game of the schedule.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub struct ScheduledGame {
    /// 1-based, in schedule order; the PGN's `Round`.
    pub number: usize,
    /// The engines playing Red and Black (indices into the tournament's engines).
    pub red: usize,
    pub black: usize,
    /// Index into the openings (0 with none: the start position).
    pub opening: usize,
    /// The pair of games this one belongs to (the same opening with colours
    /// swapped), numbered across the tournament; `None` for a game without
    /// a partner.
    pub pair: Option<usize>,
}

impl Pairings {
    /// Every game of the tournament between `engines` engines with
    /// `openings` openings (0: every game from the start position).
    pub fn schedule(&self, engines: usize, openings: usize) -> Vec<ScheduledGame> {
        let encounters: Vec<(usize, usize)> = match self.format {
            Format::RoundRobin => (0..engines)
                .flat_map(|a| (a + 1..engines).map(move |b| (a, b)))
                .collect(),
            Format::Gauntlet => (1..engines).map(|b| (0, b)).collect(),
            Format::Ladder => (1..engines).map(|b| (b - 1, b)).collect(),
        };
        let mut deck = OpeningDeck::new(self.order, openings);
        let mut games = Vec::new();
        let mut pairs = 0;
        for round in 0..self.rounds {
            for &(a, b) in &encounters {
                for k in 0..self.games {
                    let partner = k % 2 == 1;
                    let alone = !partner && k + 1 == self.games;
                    // A game without a partner alternates colours by round.
                    let a_is_red = if alone { round % 2 == 0 } else { !partner };
                    let opening = if partner {
                        games.last().map_or(0, |g: &ScheduledGame| g.opening)
                    } else {
                        deck.deal()
                    };
                    let pair = (!alone).then_some(pairs);
                    if partner {
                        pairs += 1;
                    }
                    let (red, black) = if a_is_red { (a, b) } else { (b, a) };
                    games.push(ScheduledGame {
                        number: games.len() + 1,
                        red,
                        black,
                        opening,
                        pair,
                    });
                }
            }
        }
        games
    }
}

/// Deals opening indices in an [`OpeningOrder`].
struct OpeningDeck {
    order: OpeningOrder,
    openings: usize,
    rng: SplitMix64,
    pass: Vec<usize>,
    dealt: usize,
}

impl OpeningDeck {
    fn new(order: OpeningOrder, openings: usize) -> OpeningDeck {
        let seed = match order {
            OpeningOrder::Random(seed) => seed,
            OpeningOrder::Sequential => 0,
        };
        OpeningDeck {
            order,
            openings,
            rng: SplitMix64(seed),
            pass: Vec::new(),
            dealt: 0,
        }
    }

    fn deal(&mut self) -> usize {
        if self.openings == 0 {
            return 0;
        }
        if self.dealt == self.pass.len() {
            self.pass = (0..self.openings).collect();
            if self.order != OpeningOrder::Sequential {
                // Fisher-Yates.
                for i in (1..self.pass.len()).rev() {
                    let j = (self.rng.next() % (i as u64 + 1)) as usize;
                    self.pass.swap(i, j);
                }
            }
            self.dealt = 0;
        }
        self.dealt += 1;
        self.pass[self.dealt - 1]
    }
}

/// A small, fixed pseudo-random sequence (Steele, Lea and Flood's
/// SplitMix64): the same seed gives the same schedule on every machine.
pub(crate) struct SplitMix64(pub(crate) u64);

impl SplitMix64 {
    pub(crate) fn next(&mut self) -> u64 {
        self.0 = self.0.wrapping_add(0x9e37_79b9_7f4a_7c15);
        let mut z = self.0;
        z = (z ^ (z >> 30)).wrapping_mul(0xbf58_476d_1ce4_e5b9);
        z = (z ^ (z >> 27)).wrapping_mul(0x94d0_49bb_1331_11eb);
        z ^ (z >> 31)
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    fn pairings(format: Format, rounds: usize, games: usize) -> Pairings {
        Pairings {
            format,
            rounds,
            games,
            order: OpeningOrder::Sequential,
        }
    }

    #[test]
    fn two_engines_alternate_colours_on_each_opening() {
        let games = pairings(Format::RoundRobin, 1, 5).schedule(2, 3);
        let seen: Vec<(usize, usize, usize, Option<usize>)> = games
            .iter()
            .map(|g| (g.red, g.black, g.opening, g.pair))
            .collect();
        assert_eq!(
            seen,
            [
                (0, 1, 0, Some(0)),
                (1, 0, 0, Some(0)),
                (0, 1, 1, Some(1)),
                (1, 0, 1, Some(1)),
                (0, 1, 2, None),
            ]
        );
        assert_eq!(
            games.iter().map(|g| g.number).collect::<Vec<_>>(),
            [1, 2, 3, 4, 5]
        );
        // A gauntlet of two is the same match.
        assert_eq!(pairings(Format::Gauntlet, 1, 5).schedule(2, 3), games);
    }

    #[test]
    fn each_format_meets_the_right_engines() {
        let rr = pairings(Format::RoundRobin, 2, 2).schedule(4, 10);
        assert_eq!(rr.len(), 6 * 2 * 2);
        for a in 0..4 {
            for b in 0..4 {
                let met = rr.iter().filter(|g| g.red == a && g.black == b).count();
                assert_eq!(met, if a == b { 0 } else { 2 }, "{a} as Red against {b}");
            }
        }
        let ladder = pairings(Format::Ladder, 1, 2).schedule(4, 10);
        let met: Vec<(usize, usize)> = ladder.iter().map(|g| (g.red, g.black)).collect();
        assert_eq!(met, [(0, 1), (1, 0), (1, 2), (2, 1), (2, 3), (3, 2)]);
        let gauntlet = pairings(Format::Gauntlet, 1, 4).schedule(4, 10);
        assert_eq!(gauntlet.len(), 3 * 4);
        assert!(gauntlet.iter().all(|g| g.red == 0 || g.black == 0));
        // Every opening once per pair, pairs numbered in order.
        let pairs: Vec<usize> = gauntlet.iter().filter_map(|g| g.pair).collect();
        assert_eq!(pairs, [0, 0, 1, 1, 2, 2, 3, 3, 4, 4, 5, 5]);
        let openings: Vec<usize> = gauntlet.iter().map(|g| g.opening).collect();
        assert_eq!(openings, [0, 0, 1, 1, 2, 2, 3, 3, 4, 4, 5, 5]);
        // Single games alternate colours round by round.
        let singles = pairings(Format::RoundRobin, 2, 1).schedule(2, 0);
        assert_eq!(singles.iter().map(|g| g.red).collect::<Vec<_>>(), [0, 1]);
        assert!(singles.iter().all(|g| g.pair.is_none() && g.opening == 0));
    }

    #[test]
    fn shuffled_openings_are_seeded_and_each_pass_plays_all() {
        let shuffled = |seed| Pairings {
            order: OpeningOrder::Random(seed),
            ..pairings(Format::RoundRobin, 1, 20)
        };
        let openings = |seed| -> Vec<usize> {
            shuffled(seed)
                .schedule(2, 5)
                .iter()
                .step_by(2)
                .map(|g| g.opening)
                .collect()
        };
        let first = openings(7);
        assert_eq!(first, openings(7), "the same seed, the same order");
        assert_ne!(first, openings(8));
        for pass in first.chunks(5) {
            let mut sorted = pass.to_vec();
            sorted.sort();
            assert_eq!(sorted, [0, 1, 2, 3, 4], "{first:?}");
        }
        assert_ne!(first[..5], [0, 1, 2, 3, 4]);
    }
}
