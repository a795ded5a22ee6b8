//! `bookgen bench`: how long a probe of a book takes, over positions the
//! book itself leads to.

use xqbook::BookError;

/// Positions a book knows, walked from the start along its moves
/// (breadth first), up to `limit`: what a game in the book probes.
///
/// # Errors
///
/// A block of the book cannot be read; the error names the book.
pub fn book_positions(
    book: &xqbook::Book,
    limit: usize,
) -> Result<Vec<xqcore::Position>, BookError> {
    let mut out = vec![xqcore::Position::start()];
    let mut next = 0;
    while next < out.len() && out.len() < limit {
        let pos = out[next].clone();
        next += 1;
        for m in book.probe(&pos)? {
            let mut child = pos.clone();
            child.make_move(m.mv);
            out.push(child);
            if out.len() == limit {
                break;
            }
        }
    }
    Ok(out)
}

/// Times one probe of each position, after a first pass that warms the
/// caches: the median and the 90th percentile, in microseconds.
///
/// # Errors
///
/// A block of the book cannot be read; the error names the book.
pub fn probe_latency(
    book: &xqbook::Book,
    positions: &[xqcore::Position],
) -> Result<(f64, f64), BookError> {
    for p in positions {
        book.probe(p)?;
    }
    let mut micros: Vec<f64> = positions
        .iter()
        .map(|p| {
            let t = std::time::Instant::now();
            let found = book.probe(p);
            let elapsed = t.elapsed().as_secs_f64() * 1e6;
            std::hint::black_box(found).map(|_| elapsed)
        })
        .collect::<Result<_, _>>()?;
    micros.sort_by(f64::total_cmp);
    let at = |q: f64| micros[((micros.len() - 1) as f64 * q) as usize];
    Ok((at(0.5), at(0.9)))
}
