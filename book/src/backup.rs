//! Backing search scores up through a book: negamax over the book graph.
//!
//! A book position's moves lead to other book positions or out of the book
//! (leaves). A leaf is worth what the search found there; a book position
//! is worth the best of its moves, each worth the negated value of the
//! position it leads to, and of the search's own score when the search's
//! best move is not among the book's (the book does not know that line,
//! but the position is worth at least that), moved towards the position's
//! own search by up to [`SEARCH_NOISE`]: each move is scored by searches of
//! its own, and the best of several noisy scores is the luckiest, so a
//! plain maximum would make a position with many book moves worth more to
//! its side than one with few. Positions reached by several
//! move orders are one node (their book key), and a move that brings back
//! a position of the line above it is scored by the rules: a draw, unless
//! one side checked or chased throughout the cycle, which loses.
//!
//! A value found below such a cycle is kept for every line through that
//! position (the graph-history interaction every transposition-merging
//! search lives with): books hold almost no cycles.

use std::collections::HashMap;

use xqcore::{Move, Outcome, Position};

use crate::analysis::{PositionAnalysis, ScoredMove, Searched, DECIDED, MATE};
use crate::book_key;

/// A book to back scores up through, under book keys and as stored.
#[derive(Clone, Debug, Default)]
pub struct BookGraph {
    /// Book positions: their moves, each with whether the games played it
    /// (otherwise the analysis added it).
    pub nodes: HashMap<u64, Vec<(Move, bool)>>,
    /// The search of every position searched: book positions and the
    /// positions their moves lead to.
    pub searched: HashMap<u64, Searched>,
    /// Book moves scored together in one search of their position (a line
    /// each, MultiPV), under [`move_key`]: the score from the position's
    /// side to move, the move, the search's depth. Such a score stands in
    /// for the value of the position the move leads to unless a deeper
    /// search (or the tables, or the rules) gave that value, so that the
    /// moves are compared alike rather than by searches apart, whose scores
    /// differ by chance.
    pub move_scores: HashMap<u64, Searched>,
}

/// The key a book move's score is kept under: its position's book key and
/// the move as that key stores it (a mirror image's moves mirrored), mixed
/// so that it meets a position's key no more than by chance.
pub fn move_key(key: u64, stored: Move) -> u64 {
    let mut x = key ^ (u64::from(stored.to_u16()) << 48 | 0x5EED);
    // splitmix64's finaliser.
    x = (x ^ (x >> 30)).wrapping_mul(0xBF58_476D_1CE4_E5B9);
    x = (x ^ (x >> 27)).wrapping_mul(0x94D0_49BB_1331_11EB);
    x ^ (x >> 31)
}

/// Backs the searched scores up from every position of `roots` (the start
/// position, and any book position no book line from the start reaches),
/// giving each book position reached its analysis, under its book key. A
/// move to a position that was not searched is left out.
pub fn back_up(graph: &BookGraph, roots: &[Position]) -> HashMap<u64, PositionAnalysis> {
    let mut walk = Negamax {
        graph,
        done: HashMap::new(),
        leaf_depth: HashMap::new(),
        path: Vec::new(),
    };
    for root in roots {
        walk.value(root);
    }
    walk.done
}

/// A score seen one ply earlier: negated, and a forced result one ply
/// further away.
pub fn one_ply_up(score: i16) -> i16 {
    let up = -score;
    if up > DECIDED {
        up - 1
    } else if up < -DECIDED {
        up + 1
    } else {
        up
    }
}

/// Plies of book along the line a position's value comes from: none when
/// it is the search's own.
fn book_behind(a: &PositionAnalysis) -> u8 {
    let first = a.moves[0];
    if first.score == a.value || a.value != a.search.score {
        first.depth
    } else {
        0
    }
}

/// How far apart two of our searches' scores of one position may lie by
/// chance, in centipawns: a book line's value nearer the position's own
/// search than this tells nothing the search did not.
pub const SEARCH_NOISE: i16 = 30;

/// `line`, the value a book line backs up, moved towards `own`, the
/// position's own search, by up to [`SEARCH_NOISE`]: the line counts only
/// for what it differs by beyond the noise. The maximum over several
/// moves each scored by its own search picks the luckiest of them; without
/// this a position with many book moves would be worth more to its side
/// than one with few, and the book would steer into its thinnest lines.
fn shrunk_towards(own: i16, line: i16) -> i16 {
    let diff = i32::from(line) - i32::from(own);
    let beyond = (diff.abs() - i32::from(SEARCH_NOISE)).max(0) * diff.signum();
    (i32::from(own) + beyond) as i16
}

fn decided(score: i16) -> bool {
    score.abs() > DECIDED
}

/// The depth given to values that no search can improve on: the rules'
/// (a repetition) and the endgame tables'.
const EXACT: u8 = u8::MAX;

struct Negamax<'a> {
    graph: &'a BookGraph,
    done: HashMap<u64, PositionAnalysis>,
    /// The depth of the search each done position's value comes from.
    leaf_depth: HashMap<u64, u8>,
    /// Book keys of the line being walked, the root first.
    path: Vec<u64>,
}

impl Negamax<'_> {
    /// The value of `pos` for its side to move, the plies of book behind it
    /// and the depth of the search its value comes from; `None` when it is
    /// neither in the book nor searched.
    fn value(&mut self, pos: &Position) -> Option<(i16, u8, u8)> {
        let (key, mirrored) = book_key(pos);
        if let Some(done) = self.done.get(&key) {
            return Some((done.value, book_behind(done), self.leaf_depth[&key]));
        }
        let search = self.graph.searched.get(&key).copied();
        let Some(stored_moves) = self.graph.nodes.get(&key) else {
            return search.map(|s| (s.score, 0, s.depth));
        };
        self.path.push(key);
        let legal = pos.legal_moves();
        let mut moves = Vec::with_capacity(stored_moves.len());
        for &(stored, in_book) in stored_moves {
            let mv = if mirrored { stored.mirror() } else { stored };
            if !legal.contains(&mv) {
                continue;
            }
            let mut child = pos.clone();
            child.make_move(mv);
            let scored = match self.by_rules(&child, pos) {
                Some(score) => Some((score, 1, EXACT)),
                None => {
                    let line = self
                        .value(&child)
                        .map(|(v, d, leaf)| (one_ply_up(v), d.saturating_add(1), leaf));
                    // Scored with its position's other moves, unless the
                    // line's value comes from a deeper search (or the
                    // tables').
                    let together = self.graph.move_scores.get(&move_key(key, stored));
                    match (line, together) {
                        (Some((_, _, leaf)), Some(t)) if leaf == EXACT || leaf > t.depth => line,
                        (_, Some(t)) => Some((t.score, 1, t.depth.saturating_sub(1))),
                        (line, None) => line,
                    }
                }
            };
            if let Some((score, depth, leaf)) = scored {
                let scored = ScoredMove {
                    mv: stored,
                    score,
                    depth,
                    in_book,
                };
                moves.push((scored, leaf));
            }
        }
        self.path.pop();
        moves.sort_by(|(a, _), (b, _)| {
            (b.score, b.in_book, b.depth)
                .cmp(&(a.score, a.in_book, a.depth))
                .then(a.mv.cmp(&b.mv))
        });
        let best_known = search.is_some_and(|s| stored_moves.iter().any(|m| m.0 == s.best));
        let mut value = moves.first().map(|(m, leaf)| (m.score, *leaf));
        if let Some(s) = search.filter(|_| !best_known) {
            if value.is_none_or(|(v, _)| s.score > v) {
                value = Some((s.score, s.depth));
            }
        }
        let (mut value, mut leaf) = value?;
        // A search of this position that looked deeper than the one the
        // book line's value comes from is the better judge of it.
        if let Some(s) = search.filter(|s| s.depth > leaf) {
            (value, leaf) = (s.score, s.depth);
        } else if let Some(s) =
            search.filter(|s| !decided(s.score) && !decided(value) && leaf != EXACT)
        {
            value = shrunk_towards(s.score, value);
        }
        let moves: Vec<ScoredMove> = moves.into_iter().map(|(m, _)| m).collect();
        let Some(first) = moves.first() else {
            return Some((value, 0, leaf));
        };
        let search = search.unwrap_or(Searched {
            score: value,
            best: first.mv,
            depth: 0,
        });
        let done = PositionAnalysis {
            search,
            value,
            moves,
        };
        let depth = book_behind(&done);
        self.done.insert(key, done);
        self.leaf_depth.insert(key, leaf);
        Some((value, depth, leaf))
    }

    /// The score of the move that reached `child` from `parent` when it
    /// repeats a position of the line: by the rules for a repetition, or
    /// a draw for a position met again in its mirror image.
    fn by_rules(&self, child: &Position, parent: &Position) -> Option<i16> {
        if let Some(repetition) = child.repetition() {
            let loser = match repetition.outcome() {
                Outcome::PerpetualCheck { by } | Outcome::PerpetualChase { by } => by,
                _ => return Some(0),
            };
            // The side that kept checking or chasing loses.
            return Some(if loser == parent.turn() {
                -(MATE - 1)
            } else {
                MATE - 1
            });
        }
        let key = book_key(child).0;
        self.path.contains(&key).then_some(0)
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use xqcore::SplitMix64;

    /// A random small book from the start position, every position met
    /// searched with a random score and a random best move.
    fn random_book(seed: u64) -> (BookGraph, Position) {
        let mut rng = SplitMix64::new(seed);
        let mut graph = BookGraph::default();
        let mut frontier = vec![Position::start()];
        for _ply in 0..4 {
            let mut next = Vec::new();
            for pos in frontier {
                let (key, mirrored) = book_key(&pos);
                let legal = pos.legal_moves();
                let stored = |m: Move| if mirrored { m.mirror() } else { m };
                graph.searched.entry(key).or_insert_with(|| Searched {
                    score: rng.below(400) as i16 - 200,
                    best: stored(legal[rng.below(legal.len())]),
                    depth: 10,
                });
                if graph.nodes.contains_key(&key) || rng.below(4) == 0 {
                    continue;
                }
                let mut moves: Vec<(Move, bool)> = Vec::new();
                for _ in 0..1 + rng.below(3) {
                    let m = legal[rng.below(legal.len())];
                    let mut child = pos.clone();
                    child.make_move(m);
                    // Lines that transpose, but no cycles: those have a
                    // test of their own.
                    if moves.iter().all(|x| x.0 != stored(m)) && child.repetition().is_none() {
                        moves.push((stored(m), rng.below(2) == 0));
                        next.push(child);
                    }
                }
                graph.nodes.insert(key, moves);
            }
            frontier = next;
        }
        for pos in frontier {
            let (key, _) = book_key(&pos);
            let best = pos.legal_moves()[0];
            graph.searched.entry(key).or_insert(Searched {
                score: rng.below(400) as i16 - 200,
                best,
                depth: 10,
            });
        }
        (graph, Position::start())
    }

    /// Plain negamax over the tree of lines, no merging, no memory.
    fn tree_value(graph: &BookGraph, pos: &Position) -> i16 {
        let (key, mirrored) = book_key(pos);
        let search = graph.searched[&key];
        let Some(moves) = graph.nodes.get(&key) else {
            return search.score;
        };
        let mut best = i16::MIN;
        for &(stored, _) in moves {
            let mv = if mirrored { stored.mirror() } else { stored };
            let mut child = pos.clone();
            child.make_move(mv);
            best = best.max(-tree_value(graph, &child));
        }
        if moves.iter().all(|m| m.0 != search.best) {
            best = best.max(search.score);
        }
        shrunk_towards(search.score, best)
    }

    #[test]
    fn backed_up_values_are_those_of_plain_negamax() {
        for seed in 0..200 {
            let (graph, start) = random_book(seed);
            let done = back_up(&graph, std::slice::from_ref(&start));
            let (key, _) = book_key(&start);
            let Some(root) = done.get(&key) else {
                assert!(!graph.nodes.contains_key(&key));
                continue;
            };
            assert_eq!(root.value, tree_value(&graph, &start), "seed {seed}");
            assert!(root.moves.windows(2).all(|w| w[0].score >= w[1].score));
            // Each move's score is the negated value of where it leads.
            for m in &root.moves {
                let mut child = start.clone();
                child.make_move(m.mv);
                assert_eq!(m.score, -tree_value(&graph, &child), "seed {seed}");
            }
        }
    }

    #[test]
    fn a_move_back_to_the_line_is_a_draw_and_depths_count_the_book() {
        let start = Position::start();
        let line = ["h2e2", "h9g7", "e2h2", "g7h9"];
        let mut graph = BookGraph::default();
        let mut pos = start.clone();
        for (i, m) in line.iter().enumerate() {
            let mv = pos.parse_move(m).unwrap();
            let (key, mirrored) = book_key(&pos);
            let stored = if mirrored { mv.mirror() } else { mv };
            graph.nodes.insert(key, vec![(stored, true)]);
            // Every search thinks its side is 300 up, and its best move is
            // the book's: only the cycle decides.
            graph.searched.insert(
                key,
                Searched {
                    score: 300,
                    best: stored,
                    depth: i as u8,
                },
            );
            pos.make_move(mv);
        }
        let done = back_up(&graph, std::slice::from_ref(&start));
        let root = &done[&book_key(&start).0];
        assert_eq!(root.value, 0);
        assert_eq!(root.moves[0].depth, 4);
    }

    #[test]
    fn a_searched_move_outside_the_book_bounds_the_value() {
        let start = Position::start();
        let (key, _) = book_key(&start);
        let h2e2 = start.parse_move("h2e2").unwrap();
        let b0c2 = start.parse_move("b0c2").unwrap();
        let mut graph = BookGraph::default();
        graph.nodes.insert(key, vec![(b0c2, true)]);
        graph.searched.insert(
            key,
            Searched {
                score: 40,
                best: h2e2,
                depth: 8,
            },
        );
        let mut after = start.clone();
        after.make_move(b0c2);
        graph.searched.insert(
            book_key(&after).0,
            Searched {
                score: 10,
                best: Move::NULL,
                depth: 8,
            },
        );
        let root = &back_up(&graph, &[start])[&key];
        assert_eq!(root.moves[0].score, -10);
        assert_eq!(root.value, 40);
    }

    #[test]
    fn a_deeper_search_of_a_position_outweighs_shallower_leaves_below_it() {
        // start -h2e2-> A -h9g7-> B (a leaf): A's own search is at `depth_a`,
        // B's at 12.
        let start = Position::start();
        let h2e2 = start.parse_move("h2e2").unwrap();
        let mut a = start.clone();
        a.make_move(h2e2);
        let h9g7 = a.parse_move("h9g7").unwrap();
        let mut b = a.clone();
        b.make_move(h9g7);
        let graph_with = |depth_a: u8| {
            let mut graph = BookGraph::default();
            graph.nodes.insert(book_key(&start).0, vec![(h2e2, true)]);
            graph.nodes.insert(book_key(&a).0, vec![(h9g7, true)]);
            let searched = |score, best, depth| Searched { score, best, depth };
            graph
                .searched
                .insert(book_key(&start).0, searched(30, h2e2, 20));
            graph
                .searched
                .insert(book_key(&a).0, searched(-60, h9g7, depth_a));
            graph
                .searched
                .insert(book_key(&b).0, searched(20, Move::NULL, 12));
            graph
        };
        let roots = [start.clone()];
        // A searched deeper than B: A's value is its own search, and the
        // start's move is scored by it.
        let deeper = back_up(&graph_with(20), &roots);
        let at_a = &deeper[&book_key(&a).0];
        assert_eq!((at_a.value, at_a.moves[0].score), (-60, -20));
        assert_eq!(deeper[&book_key(&start).0].moves[0].score, 60);
        assert_eq!(deeper[&book_key(&start).0].moves[0].depth, 1);
        // No deeper than B: the book line's value, for what it differs
        // from A's own search by beyond the searches' noise.
        let level = back_up(&graph_with(12), &roots);
        assert_eq!(level[&book_key(&a).0].value, -60 + (40 - SEARCH_NOISE));
        assert_eq!(
            level[&book_key(&start).0].moves[0].score,
            60 - (40 - SEARCH_NOISE)
        );
        assert_eq!(level[&book_key(&start).0].moves[0].depth, 2);
        // The engine's choice is still among A's moves, within the margin of
        // the best of them.
        assert_eq!(at_a.within(0).count(), 1);
    }

    #[test]
    fn a_book_line_counts_for_what_it_differs_beyond_the_noise() {
        assert_eq!(shrunk_towards(0, SEARCH_NOISE), 0);
        assert_eq!(shrunk_towards(0, -SEARCH_NOISE), 0);
        assert_eq!(shrunk_towards(0, SEARCH_NOISE + 20), 20);
        assert_eq!(shrunk_towards(0, -SEARCH_NOISE - 20), -20);
        assert_eq!(shrunk_towards(100, 90), 100);
        assert_eq!(shrunk_towards(-20_000, 20_000), 20_000 - SEARCH_NOISE);
    }

    #[test]
    fn many_book_moves_scored_about_the_search_leave_its_value() {
        // The start searched at 0; each of its book moves leads to a leaf
        // scored a little either side of that: the best of them is luck.
        let start = Position::start();
        let mut graph = BookGraph::default();
        let mut moves = Vec::new();
        for (i, m) in ["h2e2", "b0c2", "c3c4", "g3g4", "h0g2"].iter().enumerate() {
            let mv = start.parse_move(m).unwrap();
            moves.push((mv, true));
            let mut child = start.clone();
            child.make_move(mv);
            let score = [-25, -10, 0, 10, 25][i];
            let searched = Searched {
                score,
                best: Move::NULL,
                depth: 12,
            };
            graph.searched.insert(book_key(&child).0, searched);
        }
        let h2e2 = moves[0].0;
        graph.nodes.insert(book_key(&start).0, moves);
        let own = Searched {
            score: 0,
            best: h2e2,
            depth: 12,
        };
        graph.searched.insert(book_key(&start).0, own);
        let root = &back_up(&graph, std::slice::from_ref(&start))[&book_key(&start).0];
        assert_eq!(root.value, 0);
        // The moves keep their own scores, the best first.
        assert_eq!(root.moves[0].score, 25);
        assert_eq!(root.moves.len(), 5);
    }

    #[test]
    fn moves_scored_together_stand_in_for_shallower_lines_only() {
        // The start's two book moves lead to leaves searched apart at depth
        // 12, one lucky (+40 for the mover) and one not (-10); one search of
        // the start scored them together at `depth`: +12 and +15.
        let start = Position::start();
        let key = book_key(&start).0;
        let (h2e2, b0c2) = (
            start.parse_move("h2e2").unwrap(),
            start.parse_move("b0c2").unwrap(),
        );
        let graph_with = |depth: u8| {
            let mut graph = BookGraph::default();
            graph.nodes.insert(key, vec![(h2e2, true), (b0c2, true)]);
            for (mv, apart, together) in [(h2e2, -40, 12), (b0c2, 10, 15)] {
                let mut child = start.clone();
                child.make_move(mv);
                let leaf = Searched {
                    score: apart,
                    best: Move::NULL,
                    depth: 12,
                };
                graph.searched.insert(book_key(&child).0, leaf);
                let scored = Searched {
                    score: together,
                    best: mv,
                    depth,
                };
                graph.move_scores.insert(move_key(key, mv), scored);
            }
            graph
        };
        let scores = |depth: u8| {
            let analysis = back_up(&graph_with(depth), std::slice::from_ref(&start));
            let moves = &analysis[&key].moves;
            moves
                .iter()
                .map(|m| (m.mv, m.score, m.depth))
                .collect::<Vec<_>>()
        };
        // As deep as the leaves or deeper: compared alike, b0c2 is better.
        assert_eq!(scores(12), [(b0c2, 15, 1), (h2e2, 12, 1)]);
        assert_eq!(scores(20), [(b0c2, 15, 1), (h2e2, 12, 1)]);
        // Shallower than the leaves: the lines' values.
        assert_eq!(scores(11), [(h2e2, 40, 1), (b0c2, -10, 1)]);
        // Keys of moves are the position's and the move's alone.
        assert_ne!(move_key(key, h2e2), move_key(key, b0c2));
        assert_ne!(move_key(key, h2e2), key);
    }

    #[test]
    fn forced_results_grow_a_ply_older_on_the_way_up() {
        assert_eq!(one_ply_up(MATE - 3), -(MATE - 4));
        assert_eq!(one_ply_up(-(MATE - 3)), MATE - 4);
        assert_eq!(one_ply_up(120), -120);
    }
}
