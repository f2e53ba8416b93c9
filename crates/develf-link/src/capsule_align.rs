//! Numbering a kernel's instructions by aligning them with its capsule's
//! bitmap, for the capsules whose instruction count pairs up with none of
//! `errbar`'s numberings.
//!
//! A Mercury capsule (`.nv.capmerc.text.<fn>`) holds one bit per
//! instruction it counts: set where the finaliser rebuilds the instruction
//! from the SASS one, clear where the capsule carries it as an item. Most
//! opcodes are always one or the other: over the 3,633 capsules of the
//! sweeps' and fixtures' sm_100..sm_121 objects whose count pairs up with
//! `errbar::CAPSULE_NUMBERINGS`' second, 61 opcodes were only ever carried
//! (loads, `S2R`, `LDC`, `BAR`, ...) and 105 only rebuilt ([`CARRIED`],
//! [`REBUILT`]); 31 were seen both ways and tell nothing.
//!
//! Which SASS instructions a capsule counts is not a fixed list. Beside
//! the finaliser's own instructions it leaves out (`NOP`s, `B2R`, ...),
//! large kernels have ptxas `NOP`s it counts and instructions it does not
//! (CUB's radix-sort onesweep kernels count 2,212 and 2,109 where the
//! numbering gives 2,179 and 2,074; `DeviceScanKernel` 7,676 for 7,819).
//! So the instructions are aligned with the bits as two strings are, by the
//! cheapest edit script: an instruction counted for the next bit (free
//! where its opcode's kind agrees with the bit, [`UNKNOWN_KIND`] where its
//! kind is not known, [`WRONG_KIND`] where it disagrees), an instruction
//! left out (free for the ones that numbering leaves out, cheap for the
//! barriers and fences the finaliser adds, [`SKIPPED`] for others, never an
//! `EXIT`), a bit with no instruction ([`EXTRA_BIT`]).
//!
//! Checked against nvlink's `-g` outputs of the sweeps (every program's
//! sm_100 and sm_120 `-g` link, session 24; docs/nvlink-layout.md rule 11.9):
//! of the 1,078 distinct kernels with a bare `EXIT`, the alignment numbers
//! every exit where nvlink carries it, in all 1,078, grid and cluster syncs,
//! `cuda::pipeline` and CUB's radix-sort and scan kernels included (where no
//! fixed numbering pairs up: sweep5 p80's onesweep kernels count 2,212 and
//! 2,109 where the numbering gives 2,179 and 2,074, `DeviceScanKernel` 7,676
//! for 7,819). `errbar::capsule` tries it first where no numbering pairs up.

use crate::errbar::{CAPSULE_NUMBERINGS, MEMBAR_ALL_GPU, OP_BRA, OP_EXIT, instruction_words, matches};

/// Opcodes (low 12 bits) a capsule only ever carried (clear bit).
const CARRIED: [u16; 61] = [
    0x217, 0x235, 0x237, 0x23c, 0x285, 0x297, 0x29b, 0x2cc, 0x355, 0x356, 0x387, 0x389, 0x38b, 0x3a9, 0x402, 0x407,
    0x429, 0x42a, 0x42b, 0x482, 0x58d, 0x5a7, 0x607, 0x7ac, 0x805, 0x81c, 0x828, 0x82b, 0x82d, 0x82e, 0x831, 0x835,
    0x83e, 0x84a, 0x855, 0x897, 0x8cb, 0x919, 0x91a, 0x943, 0x948, 0x950, 0x980, 0x983, 0x985, 0x986, 0x98a, 0x98f,
    0x9a2, 0x9a3, 0x9a7, 0x9a8, 0x9c3, 0xb1d, 0xb82, 0xc35, 0xf60, 0xf66, 0xf8c, 0xf99, 0xf9d,
];

/// Opcodes a capsule only ever rebuilt (set bit).
const REBUILT: [u16; 105] = [
    0x207, 0x208, 0x209, 0x20b, 0x20f, 0x213, 0x216, 0x219, 0x220, 0x221, 0x223, 0x224, 0x227, 0x228, 0x229, 0x22a,
    0x22b, 0x232, 0x245, 0x248, 0x287, 0x2a4, 0x2a5, 0x2bd, 0x300, 0x301, 0x302, 0x305, 0x306, 0x307, 0x308, 0x309,
    0x310, 0x312, 0x313, 0x343, 0x388, 0x3a1, 0x3aa, 0x421, 0x423, 0x424, 0x430, 0x431, 0x433, 0x446, 0x547, 0x589,
    0x802, 0x803, 0x804, 0x807, 0x808, 0x80b, 0x810, 0x811, 0x816, 0x820, 0x823, 0x824, 0x825, 0x827, 0x836, 0x846,
    0x848, 0x882, 0x887, 0x890, 0x896, 0x899, 0x8a4, 0x8a5, 0x942, 0x944, 0x945, 0x946, 0x949, 0x94d, 0x958, 0x95c,
    0x981, 0x984, 0x988, 0x989, 0xc11, 0xc19, 0xc20, 0xc23, 0xc24, 0xc25, 0xc28, 0xc2b, 0xc36, 0xc45, 0xd00, 0xd09,
    0xd10, 0xd12, 0xe21, 0xe23, 0xe24, 0xe29, 0xe2a, 0xe2b, 0xf89,
];

/// The edit costs (see the module's comment). An extra bit costs less than
/// leaving out an instruction, and both less than a kind that disagrees.
/// Leaving out what `errbar::CAPSULE_NUMBERINGS`' second leaves out
/// (`NOP`, `B2R.RESULT`, `ENDCOLLECTIVE`, `WARPSYNC`) is free, and the
/// barriers and fences the finaliser puts in syncs and exits (the fullest
/// numbering's others, `MEMBAR.ALL.GPU`) cost [`FINALISER_SKIPPED`]. An
/// `EXIT` is always counted.
const UNKNOWN_KIND: u32 = 1;
const FINALISER_SKIPPED: u32 = 1;
const EXTRA_BIT: u32 = 3;
const SKIPPED: u32 = 4;
const WRONG_KIND: u32 = 6;
const NEVER: u32 = 1000;

/// How far the alignment may stray from the diagonal beyond the difference
/// of the two lengths, and the most (instruction, offset) states it may
/// hold (one byte each): a bound on memory for hostile inputs.
const MARGIN: usize = 64;
const MAX_STATES: usize = 16 << 20;

/// What moved the alignment into a state, for the walk back.
#[derive(Clone, Copy, PartialEq, Eq)]
enum Step {
    Unreached,
    Counted,
    Skipped,
    ExtraBit,
}

/// Per instruction of `code` up to its last `BRA` (as
/// `errbar::numbering_without`): its bit in `capsule` by the cheapest
/// alignment, `None` where it is left out. `None` when the capsule's
/// bitmap is not all there or the alignment would be too large.
pub(crate) fn aligned_numbering(code: &[u8], capsule: &[u8]) -> Option<Vec<Option<usize>>> {
    let count = usize::try_from(u32::from_le_bytes(capsule.get(8..12)?.try_into().ok()?)).ok()?;
    let bitmap = capsule.get(12..12 + 4 * count.div_ceil(32))?;
    let bit = |k: usize| bitmap[k / 8] >> (k % 8) & 1 != 0;
    let words = instruction_words(code);
    let n = words.iter().rposition(|&(lo, _)| lo & 0xfff == OP_BRA).map_or(words.len(), |i| i + 1);
    // States by (instruction i, diagonal d = i - k + low): k = i + low - d.
    let low = count.saturating_sub(n) + MARGIN;
    let width = n.abs_diff(count) + 2 * MARGIN + 1;
    if (n + 1).checked_mul(width)? > MAX_STATES {
        return None;
    }
    let kind_cost = |i: usize, k: usize| {
        let op = (words[i].0 & 0xfff) as u16;
        let expect = if CARRIED.binary_search(&op).is_ok() {
            Some(false)
        } else if REBUILT.binary_search(&op).is_ok() {
            Some(true)
        } else {
            None
        };
        match expect {
            None => UNKNOWN_KIND,
            Some(b) if b == bit(k) => 0,
            Some(_) => WRONG_KIND,
        }
    };
    let skip_cost = |i: usize| {
        let w = &words[i];
        if CAPSULE_NUMBERINGS[1].iter().any(|&p| matches(w, p)) {
            0
        } else if w.0 & 0xfff == OP_EXIT {
            NEVER
        } else if CAPSULE_NUMBERINGS[3].iter().any(|&p| matches(w, p)) || matches(w, MEMBAR_ALL_GPU) {
            FINALISER_SKIPPED
        } else {
            SKIPPED
        }
    };
    const INF: u32 = u32::MAX / 2;
    let mut steps = vec![Step::Unreached; (n + 1) * width];
    let mut prev = vec![INF; width];
    let mut cur = vec![INF; width];
    for i in 0..=n {
        cur.fill(INF);
        // Descending d is ascending k: an extra bit comes from (i, k - 1), d + 1.
        for d in (0..width).rev() {
            let Some(k) = (i + low).checked_sub(d).filter(|&k| k <= count) else { continue };
            let mut best = (INF, Step::Unreached);
            if i == 0 && k == 0 {
                best = (0, Step::Unreached);
            }
            if i > 0 && k > 0 && prev[d] < INF {
                let c = prev[d] + kind_cost(i - 1, k - 1);
                if c < best.0 {
                    best = (c, Step::Counted);
                }
            }
            if i > 0 && d > 0 && prev[d - 1] < INF {
                let c = prev[d - 1] + skip_cost(i - 1);
                if c < best.0 {
                    best = (c, Step::Skipped);
                }
            }
            if k > 0 && d + 1 < width && cur[d + 1] < INF {
                let c = cur[d + 1] + EXTRA_BIT;
                if c < best.0 {
                    best = (c, Step::ExtraBit);
                }
            }
            cur[d] = best.0;
            steps[i * width + d] = best.1;
        }
        std::mem::swap(&mut prev, &mut cur);
    }
    // Walk back from (n, count).
    let mut numbers = vec![None; n];
    let (mut i, mut k) = (n, count);
    while i > 0 || k > 0 {
        let d = (i + low).checked_sub(k).filter(|&d| d < width)?;
        match steps[i * width + d] {
            Step::Counted => {
                numbers[i - 1] = Some(k - 1);
                (i, k) = (i - 1, k - 1);
            }
            Step::Skipped => i -= 1,
            Step::ExtraBit => k -= 1,
            Step::Unreached => return None,
        }
    }
    Some(numbers)
}

#[cfg(test)]
mod tests {
    use super::*;

    fn instruction(op: u64) -> [u8; 16] {
        let mut w = [0u8; 16];
        w[..8].copy_from_slice(&op.to_le_bytes());
        w
    }

    fn capsule(bits: &[bool]) -> Vec<u8> {
        let mut c = vec![0u8; 12 + 4 * bits.len().div_ceil(32)];
        c[8..12].copy_from_slice(&(bits.len() as u32).to_le_bytes());
        for (k, &b) in bits.iter().enumerate() {
            c[12 + k / 8] |= u8::from(b) << (k % 8);
        }
        c
    }

    /// A counted `NOP` between a carried load and rebuilt arithmetic is
    /// found where the kinds say, and the finaliser's `NOP`s are left out.
    #[test]
    fn aligns_by_kinds() {
        // LDG (carried), NOP (counted), FFMA (rebuilt), NOP (left out),
        // EXIT (rebuilt), BRA (carried, as the closing self-branch is).
        let ops = [0x980, 0x918, 0x223, 0x918, 0x94d, 0x947];
        let code: Vec<u8> = ops.iter().flat_map(|&op| instruction(op)).collect();
        let numbers = aligned_numbering(&code, &capsule(&[false, false, true, true, false]));
        assert_eq!(numbers, Some(vec![Some(0), Some(1), Some(2), None, Some(3), Some(4)]));
    }

    /// Random code against random bitmaps: no panic, and a numbering in
    /// order below the count that counts each `EXIT` where there are bits
    /// enough (leaving one out costs [`NEVER`], not infinity).
    #[test]
    fn random_alignments_are_well_formed() {
        let mut state = 0x2545_f491_4f6c_dd1d_u64;
        let mut next = |m: u64| {
            state ^= state << 13;
            state ^= state >> 7;
            state ^= state << 17;
            state % m
        };
        const OPS: [u64; 8] = [0x980, 0x918, 0x223, 0x94d, 0x947, 0x202, 0x7ac, 0x31c];
        for _ in 0..400 {
            let n = 1 + next(120) as usize;
            let ops: Vec<u64> = (0..n).map(|_| OPS[next(OPS.len() as u64) as usize]).collect();
            let code: Vec<u8> = ops.iter().flat_map(|&op| instruction(op)).collect();
            let count = next(150) as usize;
            let bits: Vec<bool> = (0..count).map(|_| next(2) == 1).collect();
            let Some(numbers) = aligned_numbering(&code, &capsule(&bits)) else { continue };
            let end = ops.iter().rposition(|&op| op == 0x947).map_or(n, |i| i + 1);
            assert_eq!(numbers.len(), end);
            let counted: Vec<usize> = numbers.iter().flatten().copied().collect();
            assert!(counted.windows(2).all(|w| w[0] < w[1]) && counted.iter().all(|&k| k < count));
            if count >= end {
                assert!(ops[..end].iter().zip(&numbers).all(|(&op, k)| op != 0x94d || k.is_some()));
            }
        }
    }

    /// A bitmap shorter than its count promises is refused.
    #[test]
    fn short_bitmap_is_refused() {
        let code: Vec<u8> = [0x94d, 0x947].iter().flat_map(|&op| instruction(op)).collect();
        let mut c = capsule(&[true, false]);
        c[8..12].copy_from_slice(&1000u32.to_le_bytes());
        assert_eq!(aligned_numbering(&code, &c), None);
    }
}
