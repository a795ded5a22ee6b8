//! The perpetual-check rule in the solver: among the draws, the positions
//! whose side to move (the checker) can only avoid losing by checking for
//! ever, while the other side's moves over every cycle are not all checks.
//!
//! A Büchi game over open positions, one checker at a time:
//!
//! - **Trapped** `p`, the checker to move (in check or not): every move
//!   that does not lose (in the table, or by a capture into a smaller one)
//!   is a quiet check into a holding position. A capture that does not
//!   lose leaves the cycle and saves, as does a quiet move without check.
//! - **Holding** `q`, the other side to move (in check, as every move into
//!   it checks): `q` has a quiet move into a trapped position.
//!
//! The other side must also give no check, again and again: the greatest
//! fixed point of trapped positions from which the other side forces a
//! move without check into that fixed point, the checker checking all the
//! way (a least fixed point inside). Every cycle the checker is then held
//! to has every move of the checker a check and some move of the other
//! side without one, which the rules rule against the checker
//! (docs/rules.md). The other side may check back, as long as not on every
//! move: a cycle where both sides check on every move is a draw. Plainly,
//! checks answered by moves without check; beyond, answers that alternate
//! with checks of their own.
//!
//! Candidates for trapped come from one pass over the table the first time
//! (positions whose every non-losing move is a check are rare), then from
//! what has changed since (see [`State::rescan`]); holding candidates are
//! their predecessors.

use bytemuck::{Pod, Zeroable};
use rayon::prelude::*;

use super::candidates::{Candidates, RuleScan, NOWHERE};
use super::scratch::List;
use super::{Cursor, State};
use xqegtb::{Placement, CHASE_DTM};

/// A move between candidates: the index it reaches, where that stands
/// among the other kind of candidates (or [`NOWHERE`]), and whether it
/// gives check (for a holding position's move; a trapped one's all do).
/// Plain bytes without padding, so that scratch files can hold it.
#[derive(Clone, Copy, Pod, Zeroable)]
#[repr(C)]
struct Link {
    to: u64,
    at: u32,
    /// 1 for a check, 0 for none.
    check: u32,
}

impl Link {
    fn new(to: u64, at: u32, check: bool) -> Link {
        Link {
            to,
            at,
            check: check.into(),
        }
    }

    fn checks(&self) -> bool {
        self.check != 0
    }
}

/// What a check pass found, for the next pass of the same checker: valid
/// only while the passes stay on the same side of [`CHASE_DTM`], as
/// captures into results of the chase rule escape below it and lose from
/// it up.
pub(super) struct CheckScan {
    from_chase: bool,
    scan: RuleScan,
}

impl State<'_> {
    /// The open positions with `checker` to move that lose by the
    /// perpetual-check rule at `base` (their indexes).
    pub(super) fn trapped_checkers(&self, checker: usize, base: u16) -> Vec<u64> {
        let from_chase = base >= CHASE_DTM;
        let earlier = self.check_scans.lock().expect("no panic")[checker]
            .take()
            .filter(|e| e.from_chase == from_chase);
        let room = self.lists_room();
        let mut trapped = Candidates::new(room);
        self.find_candidates(
            checker,
            earlier.map(|e| e.scan),
            |indexes| {
                let part = self.check_candidates(checker, base, indexes);
                (part.len() > 0).then_some(part)
            },
            |part| trapped.append(&part),
        );
        // Grown by doubling: the room left over goes.
        trapped.shrink_to_fit();
        let scan = List::from_slice(&trapped.indexes, room);
        let scan_bytes = scan.held_bytes();
        self.check_scans.lock().expect("no panic")[checker] = Some(CheckScan {
            from_chase,
            scan: RuleScan {
                base,
                candidates: scan,
            },
        });
        let holding = self.check_holding(checker, &trapped);
        for e in trapped.edges.iter_mut() {
            e.at = holding.find(e.to);
        }
        // The lists, the scan kept for the next pass, and the game's flags
        // (a byte a candidate, three for the trapped).
        let (t, h) = (trapped.len() as u64, holding.len() as u64);
        self.note_lists(trapped.bytes() + holding.bytes() + scan_bytes + 3 * t + h);
        let kept = greatest_trap(&trapped, &holding);
        trapped
            .indexes
            .iter()
            .zip(kept)
            .filter(|&(_, kept)| kept)
            .map(|(&index, _)| index)
            .collect()
    }

    /// The trapped candidates among `indexes` (ascending): open positions
    /// with `checker` to move whose every non-losing move is a quiet check
    /// into an open position, with the indexes those checks reach.
    fn check_candidates(
        &self,
        checker: usize,
        base: u16,
        indexes: impl Iterator<Item = u64>,
    ) -> Candidates<Link> {
        // A chunk's own list, in memory: the pass gathers them.
        let mut found = Candidates::new(None);
        let mut cursor = Cursor::default();
        let mut checks = Vec::new();
        for index in indexes {
            if !self.is_open(checker, index) {
                continue;
            }
            let Some(node) = self.walker.node_at(index, &mut cursor) else {
                continue;
            };
            if !self.walker.valid(&node, checker) || !self.only_checks(&node, checker, base) {
                continue;
            }
            checks.clear();
            self.walker.moves(&node, checker, |step| {
                if step.captured.is_none() {
                    let to = self.walker.child_index(&node, step);
                    if self.is_open(1 - checker, to) {
                        checks.push(to);
                    }
                }
            });
            checks.sort_unstable();
            checks.dedup();
            let links: Vec<Link> = checks
                .iter()
                .map(|&to| Link::new(to, NOWHERE, true))
                .collect();
            found.push(index, &links);
        }
        found
    }

    /// The holding candidates: open positions in check with the other side
    /// to move and a quiet move into a trapped candidate, with those moves.
    fn check_holding(&self, checker: usize, trapped: &Candidates<Link>) -> Candidates<Link> {
        let defender = 1 - checker;
        self.gather_holding(&trapped.indexes, defender, |index| {
            let mut links = Vec::new();
            let mut placement = Placement::new();
            let Some(node) = self.walker.node(index, &mut placement) else {
                return links;
            };
            if !self.walker.valid(&node, defender) || !self.walker.in_check(&node, defender) {
                return links;
            }
            self.walker.moves(&node, defender, |step| {
                if step.captured.is_some() {
                    return;
                }
                let to = self.walker.child_index(&node, step);
                let at = trapped.find(to);
                if at != NOWHERE {
                    let check = self.walker.gives_check(&node, step);
                    links.push(Link::new(to, at, check));
                }
            });
            // Near its mirror image a position may reach one index by two
            // moves: one with check and one without is worth the one
            // without.
            links.sort_unstable_by_key(|l| (l.at, l.check));
            links.dedup_by_key(|l| l.at);
            links
        })
    }
}

/// The trapped candidates that stay trapped (in order): the greatest fixed
/// point of those from which the other side forces a move without check
/// into it.
fn greatest_trap(trapped: &Candidates<Link>, holding: &Candidates<Link>) -> Vec<bool> {
    let mut kept = vec![true; trapped.len()];
    loop {
        let next = forced_non_check(trapped, holding, &kept);
        if next == kept {
            return kept;
        }
        kept = next;
    }
}

/// The trapped candidates of `kept` from which the other side forces a
/// move without check into `kept`, the checker checking into holding
/// positions all the way: a least fixed point, grown from nothing (the
/// other side's checks go into what it already forces).
fn forced_non_check(
    trapped: &Candidates<Link>,
    holding: &Candidates<Link>,
    kept: &[bool],
) -> Vec<bool> {
    let mut forced = vec![false; trapped.len()];
    loop {
        let held: Vec<bool> = (0..holding.len())
            .into_par_iter()
            .map(|h| {
                holding.edges(h).iter().any(|e| {
                    let t = e.at as usize;
                    if e.checks() {
                        forced[t]
                    } else {
                        kept[t]
                    }
                })
            })
            .collect();
        let next: Vec<bool> = (0..trapped.len())
            .into_par_iter()
            .map(|t| {
                kept[t]
                    && trapped
                        .edges(t)
                        .iter()
                        .all(|e| e.at != NOWHERE && held[e.at as usize])
            })
            .collect();
        if next == forced {
            return forced;
        }
        forced = next;
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    /// Lists from `(index, moves)`, each move the index it reaches and
    /// whether it gives check, resolved against `other`'s indexes.
    fn list(runs: &[(u64, &[(u64, bool)])], other: &[u64]) -> Candidates<Link> {
        let mut list = Candidates::new(None);
        for &(index, moves) in runs {
            let links: Vec<Link> = moves
                .iter()
                .map(|&(to, check)| {
                    let at = other.binary_search(&to).map_or(NOWHERE, |i| i as u32);
                    Link::new(to, at, check)
                })
                .collect();
            list.push(index, &links);
        }
        list
    }

    /// Which trapped positions (indexes 0, 1, ...) stay trapped, with the
    /// checker's checks `trapped` and the other side's moves `holding`
    /// (holding positions are indexes 10, 11, ...).
    fn kept(trapped: &[&[u64]], holding: &[&[(u64, bool)]]) -> Vec<bool> {
        let t: Vec<u64> = (0..trapped.len() as u64).collect();
        let h: Vec<u64> = (10..10 + holding.len() as u64).collect();
        let checks: Vec<Vec<(u64, bool)>> = trapped
            .iter()
            .map(|to| to.iter().map(|&to| (to, true)).collect())
            .collect();
        let t_runs: Vec<(u64, &[(u64, bool)])> = t
            .iter()
            .zip(&checks)
            .map(|(&i, c)| (i, c.as_slice()))
            .collect();
        let h_runs: Vec<(u64, &[(u64, bool)])> =
            h.iter().copied().zip(holding.iter().copied()).collect();
        greatest_trap(&list(&t_runs, &h), &list(&h_runs, &t))
    }

    #[test]
    fn checks_answered_without_check_lose() {
        assert_eq!(kept(&[&[10]], &[&[(0, false)]]), [true]);
    }

    #[test]
    fn checks_answered_only_by_checks_draw() {
        assert_eq!(kept(&[&[10]], &[&[(0, true)]]), [false]);
    }

    #[test]
    fn checks_answered_by_checks_some_of_the_time_lose() {
        // 0 checks into 10, answered by a check into 1; 1 checks into 11,
        // answered without check back into 0.
        assert_eq!(
            kept(&[&[10], &[11]], &[&[(1, true)], &[(0, false)]]),
            [true, true]
        );
    }

    #[test]
    fn a_checker_that_can_force_checks_back_for_ever_is_not_trapped() {
        // From 0 the checker may check into 11, where the only answer is a
        // check back: both sides then check on every move.
        assert_eq!(kept(&[&[10, 11]], &[&[(0, false)], &[(0, true)]]), [false]);
        // A check into a position that is no holding candidate escapes.
        assert_eq!(kept(&[&[10, 12]], &[&[(0, false)]]), [false]);
    }
}
