//! The integer kernels of inference, with the crate's only `unsafe`.
//!
//! Each kernel has a portable body, written so the compiler vectorises it,
//! and on x86-64 an AVX2 version chosen at run time: the same body compiled
//! with AVX2 enabled for the element-wise kernels, and intrinsics for the
//! output layer's multiply-add. Results are identical on both paths
//! (integer arithmetic, the same order of lane sums up to wrapping-free
//! bounds; see [`screlu_dot`]).

#![allow(unsafe_code)]

use crate::{ACC_SHIFT, QI};

/// Whether the running CPU has AVX2 (checked once, then cached by std).
#[inline]
fn has_avx2() -> bool {
    #[cfg(target_arch = "x86_64")]
    {
        std::arch::is_x86_feature_detected!("avx2")
    }
    #[cfg(not(target_arch = "x86_64"))]
    {
        false
    }
}

/// Calls the AVX2 compilation of a kernel when the CPU has it, else the
/// portable one.
macro_rules! dispatch {
    ($portable:ident, $avx2:ident, $($arg:expr),*) => {{
        #[cfg(target_arch = "x86_64")]
        {
            if has_avx2() {
                // SAFETY: the CPU supports AVX2 (checked just above), the
                // only requirement of a `target_feature(enable = "avx2")`
                // function; the arguments are plain slices.
                return unsafe { $avx2($($arg),*) };
            }
        }
        $portable($($arg),*)
    }};
}

#[inline(always)]
fn add_sub_portable(out: &mut [i16], input: &[i16], add: &[i16], sub: &[i16]) {
    let n = out.len();
    let (input, add, sub) = (&input[..n], &add[..n], &sub[..n]);
    for i in 0..n {
        out[i] = input[i].wrapping_add(add[i]).wrapping_sub(sub[i]);
    }
}

#[cfg(target_arch = "x86_64")]
#[target_feature(enable = "avx2")]
unsafe fn add_sub_avx2(out: &mut [i16], input: &[i16], add: &[i16], sub: &[i16]) {
    add_sub_portable(out, input, add, sub)
}

/// `out = input + add - sub`, element-wise (a quiet move).
pub fn add_sub(out: &mut [i16], input: &[i16], add: &[i16], sub: &[i16]) {
    dispatch!(add_sub_portable, add_sub_avx2, out, input, add, sub)
}

#[inline(always)]
fn add_sub_sub_portable(out: &mut [i16], input: &[i16], add: &[i16], sub1: &[i16], sub2: &[i16]) {
    let n = out.len();
    let (input, add, sub1, sub2) = (&input[..n], &add[..n], &sub1[..n], &sub2[..n]);
    for i in 0..n {
        out[i] = input[i]
            .wrapping_add(add[i])
            .wrapping_sub(sub1[i])
            .wrapping_sub(sub2[i]);
    }
}

#[cfg(target_arch = "x86_64")]
#[target_feature(enable = "avx2")]
unsafe fn add_sub_sub_avx2(
    out: &mut [i16],
    input: &[i16],
    add: &[i16],
    sub1: &[i16],
    sub2: &[i16],
) {
    add_sub_sub_portable(out, input, add, sub1, sub2)
}

/// `out = input + add - sub1 - sub2`, element-wise (a capture).
pub fn add_sub_sub(out: &mut [i16], input: &[i16], add: &[i16], sub1: &[i16], sub2: &[i16]) {
    dispatch!(
        add_sub_sub_portable,
        add_sub_sub_avx2,
        out,
        input,
        add,
        sub1,
        sub2
    )
}

#[inline(always)]
fn add_assign_portable(acc: &mut [i16], row: &[i16]) {
    let row = &row[..acc.len()];
    for i in 0..acc.len() {
        acc[i] = acc[i].wrapping_add(row[i]);
    }
}

#[cfg(target_arch = "x86_64")]
#[target_feature(enable = "avx2")]
unsafe fn add_assign_avx2(acc: &mut [i16], row: &[i16]) {
    add_assign_portable(acc, row)
}

/// `acc += row`, element-wise (building an accumulator from scratch).
pub fn add_assign(acc: &mut [i16], row: &[i16]) {
    dispatch!(add_assign_portable, add_assign_avx2, acc, row)
}

/// Partial sums kept apart before the final sum, so none overflows an
/// i32: with a half of at most [`crate::MAX_HIDDEN`] (1,024) values, each
/// of the 16 lanes adds 64 products of at most 255² x 128 (8.3e6) before
/// the half's lanes are added in i64, 5.3e8. (The AVX2 path's eight lanes
/// add 128 products a half, 1.1e9.)
const LANES: usize = 16;

/// An accumulator value as an activation input: clamped to SCReLU's range
/// and rounded to steps of 1/255 (0..=255).
#[inline(always)]
fn activation(acc: i16) -> i32 {
    (i32::from(acc).clamp(0, QI) + (1 << (ACC_SHIFT - 1))) >> ACC_SHIFT
}

#[inline(always)]
fn screlu_dot_portable(us: &[i16], them: &[i16], weights: &[i16]) -> i64 {
    let n = us.len();
    let weights = &weights[..2 * n];
    let mut sum = 0i64;
    for (half, values) in [us, them].into_iter().enumerate() {
        let (w, values) = (&weights[half * n..(half + 1) * n], &values[..n]);
        let mut lanes = [0i32; LANES];
        for i in 0..n {
            let v = activation(values[i]);
            // (v * w) fits an i16 as long as |w| <= 128: the AVX2 path
            // multiplies in 16 bits, so both paths agree.
            let vw = (v * i32::from(w[i])) as i16;
            lanes[i % LANES] += i32::from(vw) * v;
        }
        sum += lanes.iter().map(|&l| i64::from(l)).sum::<i64>();
    }
    sum
}

#[cfg(target_arch = "x86_64")]
#[target_feature(enable = "avx2")]
unsafe fn screlu_dot_avx2(us: &[i16], them: &[i16], weights: &[i16]) -> i64 {
    use std::arch::x86_64::*;
    let n = us.len();
    assert!(n.is_multiple_of(16) && them.len() == n && weights.len() >= 2 * n);
    let zero = _mm256_setzero_si256();
    let top = _mm256_set1_epi16(QI as i16);
    let round = _mm256_set1_epi16(1 << (ACC_SHIFT - 1));
    let mut total = 0i64;
    for (half, values) in [us, them].into_iter().enumerate() {
        let w = &weights[half * n..(half + 1) * n];
        let mut sum = _mm256_setzero_si256();
        for i in (0..n).step_by(16) {
            // SAFETY: `i + 16 <= n` (n is a multiple of 16, asserted
            // above) and both slices hold n values; unaligned loads have
            // no alignment requirement.
            let v = _mm256_loadu_si256(values.as_ptr().add(i).cast());
            let wv = _mm256_loadu_si256(w.as_ptr().add(i).cast());
            let v = _mm256_min_epi16(_mm256_max_epi16(v, zero), top);
            let v = _mm256_srli_epi16::<{ ACC_SHIFT as i32 }>(_mm256_add_epi16(v, round));
            // v * w in 16 bits, then (v * w) * v summed pairwise in 32.
            let vw = _mm256_mullo_epi16(v, wv);
            sum = _mm256_add_epi32(sum, _mm256_madd_epi16(vw, v));
        }
        let mut lanes = [0i32; 8];
        // SAFETY: `lanes` is 32 bytes, the size of the store.
        _mm256_storeu_si256(lanes.as_mut_ptr().cast(), sum);
        total += lanes.iter().map(|&l| i64::from(l)).sum::<i64>();
    }
    total
}

/// Σ a² · w over both halves of the hidden layer, a the [`activation`] of
/// each accumulator value (the side to move's first; each half a multiple
/// of 16 values), `weights` holding twice as many output weights, each
/// within ±128.
pub fn screlu_dot(us: &[i16], them: &[i16], weights: &[i16]) -> i64 {
    dispatch!(screlu_dot_portable, screlu_dot_avx2, us, them, weights)
}

#[cfg(test)]
mod tests {
    use super::*;

    fn pseudo(seed: u64, n: usize, range: i32) -> Vec<i16> {
        let mut x = seed;
        (0..n)
            .map(|_| {
                x = x
                    .wrapping_mul(6364136223846793005)
                    .wrapping_add(1442695040888963407);
                ((x >> 33) as i32 % (2 * range + 1) - range) as i16
            })
            .collect()
    }

    #[test]
    fn both_paths_agree() {
        for seed in 0..20 {
            let n = [32, 256, 512, crate::MAX_HIDDEN][seed as usize % 4];
            let us = pseudo(seed, n, 1500);
            let them = pseudo(seed + 100, n, 1500);
            let w = pseudo(seed + 200, 2 * n, 127);
            let portable = screlu_dot_portable(&us, &them, &w);
            assert_eq!(screlu_dot(&us, &them, &w), portable);
            let mut exact = 0i64;
            for i in 0..n {
                let a = i64::from(activation(us[i]));
                let b = i64::from(activation(them[i]));
                exact += a * a * i64::from(w[i]) + b * b * i64::from(w[n + i]);
            }
            assert_eq!(portable, exact);
            let row = pseudo(seed + 300, n, 300);
            let row2 = pseudo(seed + 400, n, 300);
            let mut a = vec![0i16; n];
            let mut b = vec![0i16; n];
            add_sub(&mut a, &us, &row, &row2);
            add_sub_portable(&mut b, &us, &row, &row2);
            assert_eq!(a, b);
            add_sub_sub(&mut a, &us, &row, &row2, &w[..n]);
            add_sub_sub_portable(&mut b, &us, &row, &row2, &w[..n]);
            assert_eq!(a, b);
        }
    }
}
