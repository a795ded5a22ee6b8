//! The search pool: the jobs of a round made on as many threads as asked,
//! each thread with a [`Worker`] of its own, their results handed back in
//! the order they come, and a stop that ends the round between searches.

use std::sync::atomic::{AtomicBool, AtomicUsize, Ordering};
use std::sync::mpsc::channel;

use xqbook::Searched;

use super::searches::{Job, Searches};
use super::worker::Worker;
use crate::budget::Budget;
use crate::error::AnalyseError;
use crate::journal::JournalError;

/// Makes each job of `todo` on `how.threads` threads, handing each result
/// (under the position's book key, as stored, or a move's key) to
/// `record` as it comes. Returns the jobs done and the nodes.
pub(crate) fn search_all(
    todo: &[Job],
    how: &Searches,
    stop: &AtomicBool,
    record: &mut dyn FnMut(u64, Searched, Budget) -> Result<(), JournalError>,
) -> Result<(usize, u64), AnalyseError> {
    if todo.is_empty() {
        return Ok((0, 0));
    }
    let next = AtomicUsize::new(0);
    let failed = AtomicBool::new(false);
    type Done = (Vec<(u64, Searched)>, Budget, u64);
    let (tx, rx) = channel::<Result<Done, AnalyseError>>();
    let mut outcome = Ok((0usize, 0u64));
    std::thread::scope(|scope| {
        for _ in 0..how.threads.max(1) {
            let tx = tx.clone();
            let (next, failed) = (&next, &failed);
            std::thread::Builder::new()
                .stack_size(16 << 20)
                .spawn_scoped(scope, move || {
                    let mut worker = match Worker::new(how) {
                        Ok(worker) => worker,
                        Err(e) => {
                            let _ = tx.send(Err(e));
                            return;
                        }
                    };
                    loop {
                        let i = next.fetch_add(1, Ordering::Relaxed);
                        if i >= todo.len()
                            || failed.load(Ordering::Relaxed)
                            || stop.load(Ordering::Relaxed)
                        {
                            break;
                        }
                        let job = &todo[i];
                        let message = worker
                            .make(job, how.tables.as_deref())
                            .map(|(results, nodes)| (results, job.budget, nodes));
                        let failing = message.is_err();
                        if tx.send(message).is_err() || failing {
                            break;
                        }
                    }
                })
                .expect("spawn an analysis thread");
        }
        drop(tx);
        let (mut count, mut nodes) = (0, 0);
        for message in rx {
            let recorded = message.and_then(|(results, budget, n)| {
                for (key, searched) in results {
                    record(key, searched, budget)?;
                }
                Ok(n)
            });
            match recorded {
                Ok(n) => {
                    count += 1;
                    nodes += n;
                }
                Err(e) => {
                    failed.store(true, Ordering::Relaxed);
                    outcome = Err(e);
                    return;
                }
            }
        }
        outcome = Ok((count, nodes));
    });
    outcome
}

#[cfg(test)]
mod tests {
    use std::collections::HashMap;

    use xqbook::{book_key, move_key};
    use xqcore::{Move, Position};

    use super::*;

    #[test]
    fn moves_scored_in_one_search_are_kept_by_position_and_move_whichever_image() {
        // Red's rook takes Black's, or leaves its own to be taken.
        let pos = Position::from_fen("3k5/9/9/9/r8/9/9/9/9/R3K4 w").unwrap();
        let (take, wait) = (
            pos.parse_move("a0a5").unwrap(),
            pos.parse_move("e0e1").unwrap(),
        );
        let how = Searches {
            threads: 1,
            net: None,
            tables: None,
            hash_mb: 1,
            external: None,
        };
        let scored = |met: &Position, moves: Vec<Move>| {
            let job = Job {
                key: book_key(met).0,
                pos: met.clone(),
                budget: Budget::EachMove(5),
                moves,
            };
            let mut found = HashMap::new();
            let never = AtomicBool::new(false);
            search_all(&[job], &how, &never, &mut |key, searched, budget| {
                assert_eq!(budget, Budget::EachMove(5));
                found.insert(key, searched);
                Ok(())
            })
            .unwrap();
            found
        };
        let found = scored(&pos, vec![take, wait]);
        let (key, mirrored) = book_key(&pos);
        let stored = |m: Move| if mirrored { m.mirror() } else { m };
        let (took, waited) = (
            found[&move_key(key, stored(take))],
            found[&move_key(key, stored(wait))],
        );
        assert_eq!(found.len(), 2);
        assert_eq!((took.best, waited.best), (stored(take), stored(wait)));
        assert_eq!((took.depth, waited.depth), (5, 5));
        assert!(took.score > waited.score + 800, "{took:?} {waited:?}");
        // The mirror image, its moves mirrored: the same results.
        let mirror = scored(&pos.mirror(), vec![take.mirror(), wait.mirror()]);
        assert_eq!(mirror, found);
        assert_ne!(move_key(key, take), key);
    }
}
