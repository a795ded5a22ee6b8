//! The integer kernels of inference, with the crate's only `unsafe`.
//!
//! Each kernel has a portable body, written so the compiler vectorises it,
//! and on x86-64 an AVX2 version in intrinsics chosen at run time, in two
//! compilations: aligned loads and stores when every argument starts on a
//! 32-byte boundary (the net's tensors, kept in [`AlignedVec`], and the
//! accumulators), unaligned ones otherwise. Results are identical on all
//! paths (integer arithmetic, the same order of lane sums up to
//! wrapping-free bounds; see [`screlu_dot`]).
//!
//! The bodies work on fixed-size blocks (arrays of [`BLOCK`] values, or
//! [`SMALL_BLOCK`] for widths that are not a multiple of it), so that they
//! compile fully unrolled whatever the width of the net; the public kernels
//! take the net's slices and walk them block by block.

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
/// portable one. The AVX2 kernels take `ALIGNED`: whether every argument
/// starts on a 32-byte boundary (the net's tensors and the accumulators
/// always do), so that they load and store whole registers at once instead
/// of in halves, as unaligned 256-bit accesses are compiled.
macro_rules! dispatch {
    ($portable:expr, $avx2:ident::<$n:ident>, $($arg:expr),*) => {{
        #[cfg(target_arch = "x86_64")]
        {
            if has_avx2() {
                let aligned = true $(&& $arg.as_ptr().addr().is_multiple_of(32))*;
                // SAFETY: the CPU supports AVX2 (checked just above), the
                // only requirement of a `target_feature(enable = "avx2")`
                // function; the arguments are whole blocks of `N` values,
                // and the aligned compilation is called only when each
                // starts on a 32-byte boundary (checked just above).
                return unsafe {
                    if aligned {
                        $avx2::<$n, true>($($arg),*)
                    } else {
                        $avx2::<$n, false>($($arg),*)
                    }
                };
            }
        }
        $portable($($arg),*)
    }};
}

/// Loads 16 values from `$p` (a pointer to `i16`): with an aligned load
/// when `$aligned`.
#[cfg(target_arch = "x86_64")]
macro_rules! load {
    ($aligned:expr, $p:expr) => {
        if $aligned {
            _mm256_load_si256($p.cast())
        } else {
            _mm256_loadu_si256($p.cast())
        }
    };
}

/// Stores 16 values at `$p` (a pointer to `i16`): with an aligned store
/// when `$aligned`.
#[cfg(target_arch = "x86_64")]
macro_rules! store {
    ($aligned:expr, $p:expr, $v:expr) => {
        if $aligned {
            _mm256_store_si256($p.cast(), $v)
        } else {
            _mm256_storeu_si256($p.cast(), $v)
        }
    };
}

/// `i16` values stored from a 32-byte boundary: the net's tensors, so that
/// each column and block the kernels read starts on one (every width is a
/// multiple of [`SMALL_BLOCK`] values, 64 bytes).
#[derive(Clone, PartialEq, Eq)]
pub(crate) struct AlignedVec {
    /// The values, the last chunk padded with zeros.
    chunks: Vec<Chunk>,
    len: usize,
}

/// 16 values, one AVX2 register.
#[derive(Clone, Copy, PartialEq, Eq)]
#[repr(C, align(32))]
struct Chunk([i16; 16]);

impl From<Vec<i16>> for AlignedVec {
    fn from(values: Vec<i16>) -> AlignedVec {
        let chunks = values
            .chunks(16)
            .map(|c| {
                let mut chunk = [0; 16];
                chunk[..c.len()].copy_from_slice(c);
                Chunk(chunk)
            })
            .collect();
        AlignedVec {
            chunks,
            len: values.len(),
        }
    }
}

impl std::ops::Deref for AlignedVec {
    type Target = [i16];

    #[inline]
    fn deref(&self) -> &[i16] {
        // SAFETY: `Chunk` is `repr(C)` around `[i16; 16]`, 32 bytes with no
        // padding, so the chunks hold `16 x chunks.len()` initialised `i16`
        // in a row, of which `len` are read; the slice borrows `self`.
        unsafe { std::slice::from_raw_parts(self.chunks.as_ptr().cast::<i16>(), self.len) }
    }
}

/// The block the element-wise kernels work on: a whole half of a 256-wide
/// net (or a quarter of a 1,024-wide one) at once, so that the loops
/// compile fully unrolled over fixed-size arrays.
pub const BLOCK: usize = 256;

/// The smallest block: any width the nets may have is a multiple of it.
pub const SMALL_BLOCK: usize = 32;

#[inline(always)]
fn add_sub_portable<const N: usize>(
    out: &mut [i16; N],
    input: &[i16; N],
    add: &[i16; N],
    sub: &[i16; N],
) {
    for i in 0..N {
        out[i] = input[i].wrapping_add(add[i]).wrapping_sub(sub[i]);
    }
}

/// `out = input + Σ adds - Σ subs` on a block of `N` values, a register
/// (16 values) at a time: the body of the element-wise AVX2 kernels.
///
/// # Safety
/// AVX2; `out` and `input` (which may be the same) each valid for `N`
/// values; when `ALIGNED`, every argument starts on a 32-byte boundary.
#[cfg(target_arch = "x86_64")]
#[target_feature(enable = "avx2")]
unsafe fn add_sub_many_avx2<const N: usize, const ALIGNED: bool, const A: usize, const S: usize>(
    out: *mut i16,
    input: *const i16,
    adds: [&[i16; N]; A],
    subs: [&[i16; N]; S],
) {
    use std::arch::x86_64::*;
    const { assert!(N.is_multiple_of(16)) };
    for i in (0..N).step_by(16) {
        // SAFETY: `i + 16 <= N` and every argument holds N values; aligned
        // accesses only when each starts on a 32-byte boundary (the
        // function's contract).
        let mut v = load!(ALIGNED, input.add(i));
        for add in adds {
            v = _mm256_add_epi16(v, load!(ALIGNED, add.as_ptr().add(i)));
        }
        for sub in subs {
            v = _mm256_sub_epi16(v, load!(ALIGNED, sub.as_ptr().add(i)));
        }
        store!(ALIGNED, out.add(i), v);
    }
}

#[cfg(target_arch = "x86_64")]
#[target_feature(enable = "avx2")]
unsafe fn add_sub_avx2<const N: usize, const ALIGNED: bool>(
    out: &mut [i16; N],
    input: &[i16; N],
    add: &[i16; N],
    sub: &[i16; N],
) {
    // SAFETY: the caller's contract is `add_sub_many_avx2`'s.
    add_sub_many_avx2::<N, ALIGNED, 1, 1>(out.as_mut_ptr(), input.as_ptr(), [add], [sub])
}

/// `out = input + add - sub` on a block of `N` values.
fn add_sub_block<const N: usize>(
    out: &mut [i16; N],
    input: &[i16; N],
    add: &[i16; N],
    sub: &[i16; N],
) {
    dispatch!(
        add_sub_portable::<N>,
        add_sub_avx2::<N>,
        out,
        input,
        add,
        sub
    )
}

#[inline(always)]
fn add_sub_sub_portable<const N: usize>(
    out: &mut [i16; N],
    input: &[i16; N],
    add: &[i16; N],
    sub1: &[i16; N],
    sub2: &[i16; N],
) {
    for i in 0..N {
        out[i] = input[i]
            .wrapping_add(add[i])
            .wrapping_sub(sub1[i])
            .wrapping_sub(sub2[i]);
    }
}

#[cfg(target_arch = "x86_64")]
#[target_feature(enable = "avx2")]
unsafe fn add_sub_sub_avx2<const N: usize, const ALIGNED: bool>(
    out: &mut [i16; N],
    input: &[i16; N],
    add: &[i16; N],
    sub1: &[i16; N],
    sub2: &[i16; N],
) {
    // SAFETY: the caller's contract is `add_sub_many_avx2`'s.
    add_sub_many_avx2::<N, ALIGNED, 1, 2>(out.as_mut_ptr(), input.as_ptr(), [add], [sub1, sub2])
}

/// `out = input + add - sub1 - sub2` on a block of `N` values.
fn add_sub_sub_block<const N: usize>(
    out: &mut [i16; N],
    input: &[i16; N],
    add: &[i16; N],
    sub1: &[i16; N],
    sub2: &[i16; N],
) {
    dispatch!(
        add_sub_sub_portable::<N>,
        add_sub_sub_avx2::<N>,
        out,
        input,
        add,
        sub1,
        sub2
    )
}

#[inline(always)]
fn add_assign_portable<const N: usize>(acc: &mut [i16; N], row: &[i16; N]) {
    for i in 0..N {
        acc[i] = acc[i].wrapping_add(row[i]);
    }
}

#[cfg(target_arch = "x86_64")]
#[target_feature(enable = "avx2")]
unsafe fn add_assign_avx2<const N: usize, const ALIGNED: bool>(acc: &mut [i16; N], row: &[i16; N]) {
    let acc = acc.as_mut_ptr();
    // SAFETY: the caller's contract is `add_sub_many_avx2`'s, `acc` both
    // input and output.
    add_sub_many_avx2::<N, ALIGNED, 1, 0>(acc, acc, [row], [])
}

/// `acc += row` on a block of `N` values.
fn add_assign_block<const N: usize>(acc: &mut [i16; N], row: &[i16; N]) {
    dispatch!(add_assign_portable::<N>, add_assign_avx2::<N>, acc, row)
}

/// The `k`th block of `N` values of a slice.
#[inline(always)]
fn block<const N: usize>(values: &[i16], k: usize) -> &[i16; N] {
    values[k * N..].first_chunk().expect("a whole block")
}

/// Runs `$kernel` on each block of `$out` and the same block of each of
/// `$inputs`: blocks of [`BLOCK`] values when the width is a multiple of
/// it, of [`SMALL_BLOCK`] otherwise.
macro_rules! blockwise {
    ($kernel:ident, $out:ident, $($input:ident),*) => {{
        fn blocks<const N: usize>(out: &mut [i16], $($input: &[i16]),*) {
            for (k, o) in out.as_chunks_mut::<N>().0.iter_mut().enumerate() {
                $kernel::<N>(o, $(block::<N>($input, k)),*);
            }
        }
        if $out.len() == BLOCK {
            // The shipped width: one block, no loop.
            let o = $out.first_chunk_mut::<BLOCK>().expect("a whole block");
            $kernel::<BLOCK>(o, $(block::<BLOCK>($input, 0)),*)
        } else if $out.len().is_multiple_of(BLOCK) {
            blocks::<BLOCK>($out, $($input),*)
        } else {
            blocks::<SMALL_BLOCK>($out, $($input),*)
        }
    }};
}

/// `out = input + add - sub`, element-wise (a quiet move), over `out`'s
/// length (the width: a multiple of [`SMALL_BLOCK`]).
#[inline]
pub fn add_sub(out: &mut [i16], input: &[i16], add: &[i16], sub: &[i16]) {
    blockwise!(add_sub_block, out, input, add, sub)
}

/// `out = input + add - sub1 - sub2`, element-wise (a capture), over
/// `out`'s length (the width: a multiple of [`SMALL_BLOCK`]).
#[inline]
pub fn add_sub_sub(out: &mut [i16], input: &[i16], add: &[i16], sub1: &[i16], sub2: &[i16]) {
    blockwise!(add_sub_sub_block, out, input, add, sub1, sub2)
}

/// `acc += row`, element-wise (building an accumulator from scratch), over
/// `acc`'s length (the width: a multiple of [`SMALL_BLOCK`]).
#[inline]
pub fn add_assign(acc: &mut [i16], row: &[i16]) {
    blockwise!(add_assign_block, acc, row)
}

/// Partial sums kept apart before the final sum, so none overflows an
/// i32: a block of a half has at most [`BLOCK`] (256) values, so each of
/// the 16 lanes adds 16 products of at most 255² x 128 (8.3e6), 1.3e8,
/// before the lanes are added in i64. (The AVX2 path's eight lanes add 64
/// products a block, both halves, 5.3e8.)
const LANES: usize = 16;

/// An accumulator value as an activation input: clamped to SCReLU's range
/// and rounded to steps of 1/255 (0..=255).
#[inline(always)]
fn activation(acc: i16) -> i32 {
    (i32::from(acc).clamp(0, QI) + (1 << (ACC_SHIFT - 1))) >> ACC_SHIFT
}

#[inline(always)]
fn screlu_dot_portable<const N: usize>(
    us: &[i16; N],
    them: &[i16; N],
    w_us: &[i16; N],
    w_them: &[i16; N],
) -> i64 {
    let mut sum = 0i64;
    for (values, w) in [(us, w_us), (them, w_them)] {
        let mut lanes = [0i32; LANES];
        for i in 0..N {
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
unsafe fn screlu_dot_avx2<const N: usize, const ALIGNED: bool>(
    us: &[i16; N],
    them: &[i16; N],
    w_us: &[i16; N],
    w_them: &[i16; N],
) -> i64 {
    use std::arch::x86_64::*;
    const { assert!(N.is_multiple_of(16)) };
    let zero = _mm256_setzero_si256();
    let top = _mm256_set1_epi16(QI as i16);
    let round = _mm256_set1_epi16(1 << (ACC_SHIFT - 1));
    let mut sum = _mm256_setzero_si256();
    for (values, w) in [(us, w_us), (them, w_them)] {
        for i in (0..N).step_by(16) {
            // SAFETY: `i + 16 <= N` (N is a multiple of 16, checked at
            // compile time) and both arrays hold N values; aligned loads
            // only when each array starts on a 32-byte boundary.
            let v = load!(ALIGNED, values.as_ptr().add(i));
            let wv = load!(ALIGNED, w.as_ptr().add(i));
            let v = _mm256_min_epi16(_mm256_max_epi16(v, zero), top);
            let v = _mm256_srli_epi16::<{ ACC_SHIFT as i32 }>(_mm256_add_epi16(v, round));
            // v * w in 16 bits, then (v * w) * v summed pairwise in 32.
            let vw = _mm256_mullo_epi16(v, wv);
            sum = _mm256_add_epi32(sum, _mm256_madd_epi16(vw, v));
        }
    }
    let mut lanes = [0i32; 8];
    // SAFETY: `lanes` is 32 bytes, the size of the store.
    _mm256_storeu_si256(lanes.as_mut_ptr().cast(), sum);
    lanes.iter().map(|&l| i64::from(l)).sum()
}

/// [`screlu_dot`] on a block of `N` values of each half.
fn screlu_dot_block<const N: usize>(
    us: &[i16; N],
    them: &[i16; N],
    w_us: &[i16; N],
    w_them: &[i16; N],
) -> i64 {
    dispatch!(
        screlu_dot_portable::<N>,
        screlu_dot_avx2::<N>,
        us,
        them,
        w_us,
        w_them
    )
}

/// Σ a² · w over both halves of the hidden layer, a the [`activation`] of
/// each accumulator value (the side to move's half `us` first; each half
/// a multiple of [`SMALL_BLOCK`] values), `weights` holding twice as many
/// output weights, each within ±128. Block by block, as the element-wise
/// kernels; the sum is exact, so its order does not matter.
#[inline]
pub fn screlu_dot(us: &[i16], them: &[i16], weights: &[i16]) -> i64 {
    fn blocks<const N: usize>(us: &[i16], them: &[i16], weights: &[i16]) -> i64 {
        let (w_us, w_them) = weights.split_at(us.len());
        (0..us.len() / N)
            .map(|k| {
                let (u, t) = (block::<N>(us, k), block::<N>(them, k));
                screlu_dot_block::<N>(u, t, block::<N>(w_us, k), block::<N>(w_them, k))
            })
            .sum()
    }
    if us.len().is_multiple_of(BLOCK) {
        blocks::<BLOCK>(us, them, weights)
    } else {
        blocks::<SMALL_BLOCK>(us, them, weights)
    }
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
            let portable = screlu_dot_portable::<32>(
                us.first_chunk().unwrap(),
                them.first_chunk().unwrap(),
                w.first_chunk().unwrap(),
                w[n..].first_chunk().unwrap(),
            );
            assert_eq!(
                screlu_dot_block::<32>(
                    us.first_chunk().unwrap(),
                    them.first_chunk().unwrap(),
                    w.first_chunk().unwrap(),
                    w[n..].first_chunk().unwrap(),
                ),
                portable
            );
            let whole = screlu_dot(&us, &them, &w);
            let mut exact = 0i64;
            for i in 0..n {
                let a = i64::from(activation(us[i]));
                let b = i64::from(activation(them[i]));
                exact += a * a * i64::from(w[i]) + b * b * i64::from(w[n + i]);
            }
            assert_eq!(whole, exact);
            let mut first = 0i64;
            for i in 0..32 {
                let a = i64::from(activation(us[i]));
                let b = i64::from(activation(them[i]));
                first += a * a * i64::from(w[i]) + b * b * i64::from(w[n + i]);
            }
            assert_eq!(portable, first);
            let block = |v: &[i16]| -> [i16; SMALL_BLOCK] { *v.first_chunk().unwrap() };
            let input = block(&us);
            let row = block(&pseudo(seed + 300, SMALL_BLOCK, 300));
            let row2 = block(&pseudo(seed + 400, SMALL_BLOCK, 300));
            let row3 = block(&w);
            let (mut a, mut b) = ([0i16; SMALL_BLOCK], [0i16; SMALL_BLOCK]);
            add_sub_block(&mut a, &input, &row, &row2);
            add_sub_portable(&mut b, &input, &row, &row2);
            assert_eq!(a, b);
            assert_eq!(a[3], input[3].wrapping_add(row[3]).wrapping_sub(row2[3]));
            add_sub_sub_block(&mut a, &input, &row, &row2, &row3);
            add_sub_sub_portable(&mut b, &input, &row, &row2, &row3);
            assert_eq!(a, b);
            add_assign_block(&mut a, &row);
            add_assign_portable(&mut b, &row);
            assert_eq!(a, b);
            // The slice kernels, over blocks of either size.
            let (mut c, mut d) = (vec![0i16; n], vec![0i16; n]);
            let (row, row2) = (pseudo(seed + 500, n, 300), pseudo(seed + 600, n, 300));
            add_sub(&mut c, &us, &row, &row2);
            add_sub_sub(&mut d, &us, &row, &row2, &them);
            for i in 0..n {
                let quiet = us[i].wrapping_add(row[i]).wrapping_sub(row2[i]);
                assert_eq!((c[i], d[i]), (quiet, quiet.wrapping_sub(them[i])));
            }
            add_assign(&mut c, &row);
            assert_eq!(
                c[n - 1],
                us[n - 1]
                    .wrapping_sub(row2[n - 1])
                    .wrapping_add(row[n - 1] * 2)
            );
        }
    }

    /// The kernels give the same results whether their arguments start on
    /// a 32-byte boundary (aligned loads and stores) or 2 bytes past one,
    /// and the same as the portable code.
    #[test]
    fn aligned_and_unaligned_arguments_agree() {
        #[repr(C, align(32))]
        struct Buffer([i16; BLOCK + 16]);
        let n = BLOCK;
        // A value more than needed, so that the slice from the second
        // value has the same length but starts off the boundary.
        let tensor = |seed, len, range| AlignedVec::from(pseudo(seed, len + 1, range));
        let (input, add, sub, sub2) = (
            tensor(1, n, 1500),
            tensor(2, n, 300),
            tensor(3, n, 300),
            tensor(4, n, 300),
        );
        let w = tensor(5, 2 * n, 127);
        assert!(input.as_ptr().addr().is_multiple_of(32));
        assert_eq!(input.len(), n + 1);
        for offset in [0, 1] {
            let part = |v: &AlignedVec| -> [i16; BLOCK] { *v[offset..].first_chunk().unwrap() };
            let (i, a, s, s2) = (part(&input), part(&add), part(&sub), part(&sub2));
            let range = offset..offset + n;
            let mut out = Buffer([0; BLOCK + 16]);
            let out = &mut out.0[range.clone()];
            let mut want = [0i16; BLOCK];
            add_sub_portable(&mut want, &i, &a, &s);
            add_sub(
                out,
                &input[range.clone()],
                &add[range.clone()],
                &sub[range.clone()],
            );
            assert_eq!(*out, want, "add_sub, offset {offset}");
            add_sub_sub_portable(&mut want, &i, &a, &s, &s2);
            let args = [&add, &sub, &sub2].map(|t| &t[range.clone()]);
            add_sub_sub(out, &input[range.clone()], args[0], args[1], args[2]);
            assert_eq!(*out, want, "add_sub_sub, offset {offset}");
            add_assign_portable(&mut want, &a);
            add_assign(out, &add[range.clone()]);
            assert_eq!(*out, want, "add_assign, offset {offset}");
            let portable = screlu_dot_portable::<BLOCK>(
                &i,
                &a,
                w[offset..].first_chunk().unwrap(),
                w[offset + n..].first_chunk().unwrap(),
            );
            let weights = &w[offset..offset + 2 * n];
            assert_eq!(
                screlu_dot(&input[range.clone()], &add[range], weights),
                portable
            );
        }
    }
}
