//! Memory shared by every open container: one budget of decompressed
//! blocks and one pool of zstd contexts. An engine may open hundreds of
//! tables over a session; with a cache and a context in each it held about
//! 350 KB more for every table it had ever probed.

use std::collections::BTreeMap;
use std::sync::{Arc, Mutex, MutexGuard};

/// Bytes of decompressed blocks kept over all open containers: 256 table
/// blocks of 16 KB.
pub const CACHE_BUDGET: usize = 4 << 20;

/// Zstd contexts kept for reuse (making one costs more than decompressing a
/// small block); more are made when more threads decompress at once.
const SPARE_DECOMPRESSORS: usize = 16;

/// A cached block: its bytes and when it was last used.
struct Entry {
    data: Arc<[u8]>,
    used: u64,
}

/// Decompressed blocks by (reader id, block number), least recently used
/// dropped first once over [`CACHE_BUDGET`].
struct BlockCache {
    entries: BTreeMap<(u64, usize), Entry>,
    bytes: usize,
    clock: u64,
}

static CACHE: Mutex<BlockCache> = Mutex::new(BlockCache {
    entries: BTreeMap::new(),
    bytes: 0,
    clock: 0,
});

static DECOMPRESSORS: Mutex<Vec<zstd::bulk::Decompressor<'static>>> = Mutex::new(Vec::new());

/// A lock that a panicking holder did not spoil: the data behind these
/// locks is whole between statements.
fn lock<T>(m: &Mutex<T>) -> MutexGuard<'_, T> {
    m.lock().unwrap_or_else(|e| e.into_inner())
}

/// Block `block` of reader `reader`, if it is cached.
pub(crate) fn cached(reader: u64, block: usize) -> Option<Arc<[u8]>> {
    let mut cache = lock(&CACHE);
    cache.clock += 1;
    let now = cache.clock;
    let entry = cache.entries.get_mut(&(reader, block))?;
    entry.used = now;
    Some(entry.data.clone())
}

/// Keeps a decompressed block, dropping the least recently used ones to
/// stay within the budget (a block bigger than the budget is not kept).
pub(crate) fn keep(reader: u64, block: usize, data: &Arc<[u8]>) {
    if data.len() > CACHE_BUDGET {
        return;
    }
    let mut cache = lock(&CACHE);
    while cache.bytes + data.len() > CACHE_BUDGET {
        let oldest = cache
            .entries
            .iter()
            .min_by_key(|(_, e)| e.used)
            .map(|(k, _)| *k)
            .expect("bytes are held, so entries are");
        let gone = cache.entries.remove(&oldest).expect("just found");
        cache.bytes -= gone.data.len();
    }
    cache.clock += 1;
    let used = cache.clock;
    let entry = Entry {
        data: data.clone(),
        used,
    };
    if let Some(old) = cache.entries.insert((reader, block), entry) {
        cache.bytes -= old.data.len();
    }
    cache.bytes += data.len();
}

/// Drops the blocks of a reader that is closing.
pub(crate) fn forget(reader: u64) {
    let mut cache = lock(&CACHE);
    let mut freed = 0;
    cache.entries.retain(|&(r, _), e| {
        let keep = r != reader;
        if !keep {
            freed += e.data.len();
        }
        keep
    });
    cache.bytes -= freed;
}

/// Bytes of decompressed blocks held now.
pub fn cached_bytes() -> usize {
    lock(&CACHE).bytes
}

/// Runs `f` with a zstd context from the pool (a new one if none is free).
pub(crate) fn with_decompressor<T>(
    f: impl FnOnce(&mut zstd::bulk::Decompressor<'static>) -> T,
) -> std::io::Result<T> {
    let spare = lock(&DECOMPRESSORS).pop();
    let mut d = match spare {
        Some(d) => d,
        None => zstd::bulk::Decompressor::new()?,
    };
    let result = f(&mut d);
    let mut pool = lock(&DECOMPRESSORS);
    if pool.len() < SPARE_DECOMPRESSORS {
        pool.push(d);
    }
    Ok(result)
}
