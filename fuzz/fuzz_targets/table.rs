//! Endgame table files (our xqtb container), their checksums resealed after
//! mutation so the fuzzer gets past them: a file is refused with an error,
//! or its values read back as values or errors, never a panic.
#![no_main]

use libfuzzer_sys::fuzz_target;
use xqegtb::TableFile;

fuzz_target!(|bytes: &[u8]| {
    let path = xq_fuzz::resealed_file("table.xqtb", bytes);
    let Ok(table) = TableFile::open(&path) else {
        return;
    };
    let size = table.info().size;
    // Spread probes over the table, both sides to move.
    for i in 0..64u64 {
        let index = i.wrapping_mul(0x9e37_79b9_7f4a_7c15) % size.max(1);
        for side in 0..2 {
            let _ = table.value(side, index);
        }
    }
    if size <= 1 << 20 {
        if let Ok(values) = table.all_values() {
            assert_eq!(values[0].len() as u64, size);
            assert_eq!(values[1].len() as u64, size);
        }
    }
});
