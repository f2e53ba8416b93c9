//! Rule 11.9: `-g` on Mercury (sm_100+) with objects compiled without `-G`,
//! rule 11.8's exit sequences in links with a `-G` input ([`ExitRule`]), and
//! rule 11.3's fence-workaround removal in Mercury executables
//! (`plan_fence`, `capsule_fence`), the same machinery run backwards.
//!
//! nvlink's finaliser, asked for debuggable code, puts an error barrier
//! before every `EXIT` that lacks one: `MEMBAR.SC.VC; ERRBAR; CGAERRBAR`
//! under the `EXIT`'s own predicate (what ptxas `-G` emits itself, with
//! `EIATTR_GEN_ERRBAR_AT_EXIT`). Everything that names a place in the code
//! follows the move: branch offsets, `.rela.text` offsets and code-address
//! addends, the `.nv.info.<fn>` instruction-offset lists, the function's
//! size (`.symtab`, the FDE's range, the section: its NOP tail is kept to
//! the 128-byte rule ptxas uses), the FDE's location advances, and the
//! capsule, which now carries each such `EXIT`. The `.nv.merc.*` copies
//! (relocations, `.nv.merc.nv.info.<fn>`, `.nv.merc.debug_frame`,
//! `.nv.merc.symtab`) describe the expanded code and do not change. Nothing
//! else of the finaliser's runs under `-g` (rule 11.3's scoreboard rewrite
//! does not: cub `red_int2`, merc2 `block_reduce`).
//!
//! A link with a `-G` input (rule 11.8) gets the same barriers under `-r`;
//! an executable's kernels end `[MEMBAR.SC.VC;] ERRBAR; CGAERRBAR; EXIT`,
//! with `MEMBAR.SC.VC` only in kernels with a `CALL`, so `-G` kernels without
//! calls lose ptxas's. Both are plans of [`Edit`]s (instructions inserted
//! before an old one, or an old one removed) that [`apply`] turns into the
//! [`Moves`] everything else follows.
//!
//! The rewrite is done on the inputs, before the link: each input is
//! rewritten as if ptxas had emitted the barriers, and the link proceeds as
//! without `-g`'s finaliser. Evidence: nvlink `-g` and `-g -r` outputs
//! against `-r` ones of the same inputs (merc2 sm_100..sm_121, sweep cub,
//! li, opt, fptr, stk, math, stat, inl, sw, and small PTX runs): 224/228
//! kernels' code with `EXIT`s as predicted (the rest: 2 stall adjustments
//! of the finaliser's scheduler, below), 117/117 capsules whose instruction
//! count pairs up (`capsule`).

use crate::capsule_align::aligned_numbering;
use crate::options::{Input, LinkOptions, is_code_section};
use crate::resolve::is_kernel;
use crate::scoreboard::{OP_S2R, OP_S2UR};
use develf_eiattr::shape::{IndirectBranches, Shape as _};
use develf_format::section::{SHT_CUDA_CAPMERC, SHT_CUDA_INFO, SHT_RELA, SHT_SYMTAB};
use develf_parse::Cubin;
use develf_parse::elf::Section;
use hashbrown::HashMap;

/// Low 12 bits of the instructions involved (sm_100..sm_121 encodings;
/// `crate::scoreboard` follows the control flow with the same ones).
pub(crate) const OP_EXIT: u64 = 0x94d;
pub(crate) const OP_BRA: u64 = 0x947;
/// `BRA.U` on a uniform predicate: the same offset field (libcudadevrt
/// `memcpy_3d_device` under `-g`: 12 kernels' `BRA.U !UP0` kept a stale
/// offset before it was followed).
pub(crate) const OP_BRA_UNIFORM: u64 = 0x547;
/// `BRA.DIV`: the `BRA` taken when the warp has diverged (fresh3
/// `ps_warp_stats`' `BRA.DIV UR4, 0x410` = `0x0000_0002_0490_7947`).
pub(crate) const BRA_DIVERGENT: u64 = 1 << 33;
pub(crate) const OP_NOP: u64 = 0x918;
/// `WARPSYNC.ALL` (`numbered_from_end`).
pub(crate) const OP_WARPSYNC_ALL: u64 = 0x948;
/// `WARPSYNC Rn` (`WARPSYNC.COLLECTIVE Rn, target` with the collective bit).
const OP_WARPSYNC: u64 = 0x348;
const OP_CGAERRBAR: u64 = 0x5ab;
/// An instruction pattern: (mask, value) of the low 64 bits, (mask, value)
/// of the high 64 bits.
pub(crate) type Pattern = (u64, u64, u64, u64);
const NOP: Pattern = (0xfff, OP_NOP, 0, 0);
const ENDCOLLECTIVE: Pattern = (0xfff, 0x91b, 0, 0);
const WARPSYNC: Pattern = (0xfff, OP_WARPSYNC, 0, 0);
/// `B2R.RESULT` after a `BAR.RED`: never counted in a capsule (fresh
/// `bits_kernel`: 46 for 48 instructions, `__syncthreads_count` and
/// `__syncthreads_or` each leave one; all 58 capsules of the sm_100+
/// objects seen that have one pair up only without it, and its
/// `c_disp` load's field is then found, rule 11.7).
const B2R_RESULT: Pattern = (0xfff, 0x31c, 0, 0);
/// The barriers rule 11.9 inserts (`MEMBAR.SC.VC`: scope bits 0x5000).
const MEMBAR_SC_VC: Pattern = (0xfff, 0x992, 0xf000, 0x5000);
const ERRBAR: Pattern = (0xfff, 0x9ab, 0, 0);
const CGAERRBAR: Pattern = (0xfff, OP_CGAERRBAR, 0, 0);
/// The memory-fence workaround around a `MEMBAR.SC.GPU` (rule 11.3): four
/// `@!PT LDS RZ, [RZ]`, `MEMBAR.ALL.CTA` (scope bits 0x8000), and the
/// `CCTL.IVALL`s around an atomic, predicated or not (the predicate field,
/// bits 12..15, ignored): libcu++'s `cuda::atomic_ref<int,
/// thread_scope_device>::fetch_add` ends in `@P0 ATOM.E.ADD.S32.STRONG.GPU;
/// @P0 CCTL.IVALL`, and the capsule leaves that one out too (/tmp/g1 `cubx`
/// `radix_sort` 233 of 256 instructions, `hist` 385 of 408, with it counted
/// 234 and 386; sm_100/sm_120 exec, with and without -lineinfo).
const FENCE_LDS: Pattern = (0xffff_ffff, 0xffff_f984, 0, 0);
const MEMBAR_ALL_CTA: Pattern = (0xfff, 0x992, 0xf000, 0x8000);
/// `MEMBAR.SC.CTA` (scope bits 0): the third shape's fence, which the four
/// `LDS` precede directly (sweep p35_coopatom `ktile`, a
/// `tiled_partition<8>` reduction's `atomicMax` after `__threadfence_block`,
/// sm_100/sm_120 exec): nvlink drops the `LDS` and keeps the `MEMBAR`.
const MEMBAR_SC_CTA: Pattern = (0xfff, 0x992, 0xf000, 0);
const CCTL_IVALL: Pattern = (0xffff_0fff, 0xff00_098f, 0, 0);
/// The fences the workaround precedes: `MEMBAR` (0x992) with scope bits
/// 0x2000 (fixture sync_spin, cub `red_int`, atom `kb`), 0x3000 (cub
/// `red_int2`), 0xa000 (gcall `kcl`) or 0xb000 (`MEMBAR.ALL.SYS`,
/// `fence.acq_rel.sys`: helpers' p23 `katomref`, sm_100/sm_120 exec).
const FENCES_AFTER_WORKAROUND: [Pattern; 4] = [
    (0xfff, 0x992, 0xf000, 0x2000),
    (0xfff, 0x992, 0xf000, 0x3000),
    (0xfff, 0x992, 0xf000, 0xa000),
    (0xfff, 0x992, 0xf000, 0xb000),
];

fn is_fence(w: &(u64, u64)) -> bool {
    FENCES_AFTER_WORKAROUND.iter().any(|&p| matches(w, p))
}
/// A last numbering for fence capsules: [`CAPSULE_NUMBERINGS`]' fullest
/// also without the `0xdc7` of a `0x9c7`/`0xdc7` pair (gcall `kcl`: count
/// 11 for 12 instructions otherwise, like cluster_kernel's capsules, rule
/// 11.9). Which of the pair is not counted is not known: both come after
/// the fence in `kcl`, so the mark found is the same either way.
const FENCE_CAPSULE_NUMBERING: &[Pattern] = &[
    NOP,
    B2R_RESULT,
    ENDCOLLECTIVE,
    WARPSYNC,
    MEMBAR_SC_VC,
    ERRBAR,
    CGAERRBAR,
    FENCE_LDS,
    MEMBAR_ALL_CTA,
    CCTL_IVALL,
    (0xfff, 0xdc7, 0, 0),
];
/// `MEMBAR.ALL.GPU` and `MEMBAR.ALL.SYS` (scope bits 0xa000, 0xb000): the
/// fence of a release operation (`st.release`, `atom.acq_rel`), which the
/// capsule counts as one instruction with the memory operation after it.
const RELEASE_FENCES: [Pattern; 2] = [(0xfff, 0x992, 0xf000, 0xa000), (0xfff, 0x992, 0xf000, 0xb000)];

/// A fence capsule's numbering ([`CAPSULE_NUMBERINGS`]' fullest) that also
/// leaves out the memory operation after each release fence (past its
/// error barriers): sweep13 p148 `atomic_ref_kernel` (`cuda::atomic_ref`
/// `fetch_or`, `store` with `memory_order_release` at system and device
/// scope): count 100 for 103, and the fences' marks where nvlink rewrites
/// them (sm_100/sm_120 exec; fixture `relfence`). gcall `kcl`'s pair after
/// its 0xa000 fence (`FENCE_CAPSULE_NUMBERING`) may be the same thing; not
/// checked. With the window-pointer moves left out too where that alone
/// does not pair up (sweep28 p292 `k_scoped`: a shared-memory
/// `cuda::atomic_ref` makes the generic window pointer, and count 107 for
/// 140 instructions pairs up only with both; its fence record's mark, 10
/// instructions, spans the workaround, the fence, its error barriers, the
/// `fetch_or` and its `CCTL.IVALL`; sm_100/sm_120 exec, fixture `scoped`).
fn release_numbering(code: &[u8], count: usize) -> Option<Vec<Option<usize>>> {
    let words = instruction_words(code);
    let mut released = vec![false; words.len()];
    for (i, w) in words.iter().enumerate() {
        if RELEASE_FENCES.iter().any(|&p| matches(w, p)) {
            let after = (i + 1..words.len()).find(|&j| !matches(&words[j], ERRBAR) && !matches(&words[j], CGAERRBAR));
            if let Some(slot) = after.and_then(|j| released.get_mut(j)) {
                *slot = true;
            }
        }
    }
    numbering_left_out(&words, count, &[CAPSULE_NUMBERINGS[3]], &released)
}

/// `FENCE.VIEW.ASYNC.S` (`fence.proxy.async.shared::cta`), the fence of the
/// workaround's second shape (`LDS` ×4, `MEMBAR.ALL.CTA`, this).
const FENCE_VIEW_ASYNC_S: Pattern = (0xfff, 0x3c6, 0, 0);
/// The workaround's length: four `@!PT LDS RZ, [RZ]` and `MEMBAR.ALL.CTA`.
const FENCE_RUN: usize = 5;

pub(crate) fn matches(&(lo, hi): &(u64, u64), (ml, vl, mh, vh): Pattern) -> bool {
    lo & ml == vl && hi & mh == vh
}

/// The instructions a capsule's instruction count leaves out, as tried in
/// turn until the count pairs up with the capsule's: NOPs and `B2R.RESULT`
/// alone (rule 11.7; every link identical before rule 11.9 numbers so, with
/// NOPs only before `B2R.RESULT` was known); with `ENDCOLLECTIVE`
/// and `WARPSYNC` (merc2 `hist_kernel`: one of each, count 49 for 51; 117
/// capsules of `-g` runs pair up and are then rewritten exactly, none
/// wrongly, where NOPs alone mis-number 8 of jacobi's); with the error
/// barriers before an `EXIT` (`-G` code: 53/63 merc2 capsules pair up only
/// without them, none only with them; and rule 11.9's own); and with the
/// fence workaround (cub `red_int`: 45 of 54, the `MEMBAR.SC.GPU` and the
/// atomic counted, `d1 04 | 01 49 | 51 01 | 02 4e`).
pub(crate) const CAPSULE_NUMBERINGS: [&[Pattern]; 4] = [
    &[NOP, B2R_RESULT],
    &[NOP, B2R_RESULT, ENDCOLLECTIVE, WARPSYNC],
    &[NOP, B2R_RESULT, ENDCOLLECTIVE, WARPSYNC, MEMBAR_SC_VC, ERRBAR, CGAERRBAR],
    &[NOP, B2R_RESULT, ENDCOLLECTIVE, WARPSYNC, MEMBAR_SC_VC, ERRBAR, CGAERRBAR, FENCE_LDS, MEMBAR_ALL_CTA, CCTL_IVALL],
];

/// Per instruction of `code` up to its last `BRA`: its number among the
/// instructions a capsule of `count` counts, by the first of `numberings`
/// that pairs up, then by the first that pairs up with the window-pointer
/// moves ([`window_pointer_pairs`]) or the waterfall loops' predicate
/// set-ups ([`waterfall_predicate_setups`]) left out too, then with both;
/// `None` when none does.
pub(crate) fn capsule_numbering(code: &[u8], count: usize, numberings: &[&[Pattern]]) -> Option<Vec<Option<usize>>> {
    numbering_left_out(&instruction_words(code), count, numberings, &[])
}

/// [`capsule_numbering`] of `words` with the instructions `left_out` marks
/// left out as well.
fn numbering_left_out(
    words: &[(u64, u64)],
    count: usize,
    numberings: &[&[Pattern]],
    left_out: &[bool],
) -> Option<Vec<Option<usize>>> {
    let number = |fused: &[bool]| {
        numberings
            .iter()
            .map(|patterns| {
                numbering_by(words, |i, w| {
                    fused.get(i).copied().unwrap_or(false)
                        || left_out.get(i).copied().unwrap_or(false)
                        || patterns.iter().any(|&p| matches(w, p))
                })
            })
            .find(|(_, n)| *n == count)
            .map(|(v, _)| v)
    };
    number(&[]).or_else(|| {
        let pairs = window_pointer_pairs(words);
        let setups = waterfall_predicate_setups(words);
        let both: Vec<bool> = pairs.iter().zip(&setups).map(|(&a, &b)| a || b).collect();
        [pairs, setups, both].iter().filter(|f| f.contains(&true)).find_map(|f| number(f))
    })
}

/// `PLOP3.LUT`, a logic operation on predicates.
pub(crate) const OP_PLOP3: u64 = 0x81c;

/// Rule 11.9: the `PLOP3.LUT P1, PT, P1, P0, PT, 0xf2, 0x2f` right before
/// an `R2UR` that also writes a predicate (`@P0 R2UR P1, UR4, R4`, `@P0
/// R2UR.OR P1, UR5, R5`; the predicate destination, bits 17..19 of the high
/// word, is not `PT`): ptxas's waterfall loop around a texture fetch whose
/// handle is not uniform (a texture object passed to a device function).
/// The capsule counts the `R2UR` and leaves the `PLOP3` out, putting a
/// 2-byte mark (`51 01`) in its place: sweep19 p203 `filter_tap` (49
/// unrolled `tex2D` fetches, count 478 for 576 instructions, two set-ups
/// each; nvlink patches the `c_filter` loads' records that this numbering
/// finds, sm_100/sm_120 `-r`). Tried only where the other numberings fail.
fn waterfall_predicate_setups(words: &[(u64, u64)]) -> Vec<bool> {
    let writes_predicate = |&(lo, hi): &(u64, u64)| lo & 0xfff == OP_R2UR && (hi >> 17) & 7 != 7;
    let mut out = vec![false; words.len()];
    for (i, pair) in words.windows(2).enumerate() {
        if pair[0].0 & 0xfff == OP_PLOP3 && writes_predicate(&pair[1]) {
            out[i] = true;
        }
    }
    out
}

/// The system register of the shared window's high address half
/// (`SR_SWINHI`), in the high word of an `S2R` or `S2UR`.
const SR_SWINHI: u64 = 0x2f;
/// `MOV Rd, Ra` and `UMOV URd, URa`.
const OP_MOV_REG: u64 = 0x202;
const OP_UMOV_REG: u64 = 0xc82;

/// Rule 11.9: the second of two adjacent moves that build a generic pointer
/// to shared memory in a 64-bit register pair, `MOV R2k, Ra` then `MOV
/// R2k+1, Rs` (or the `UMOV` pair) with `Rs` read from `SR_SWINHI`: the
/// capsule counts the pair as one instruction. Sweep10: `editDistanceShared`
/// (`MOV R10, R0; MOV R11, R7` after `S2R R7, SR_SWINHI`: count 34 for 35),
/// `layerNormBf16` (`UMOV UR38, UR4; UMOV UR39, UR7`, 137 for 138), p109's
/// AES kernels (three pairs, three fewer); no capsule whose count the other
/// numberings give has such a pair left over unpaired. Tried only where
/// those numberings fail: other kernels hold such pairs that do count (p41's
/// `tsum<32>`).
fn window_pointer_pairs(words: &[(u64, u64)]) -> Vec<bool> {
    let mut out = vec![false; words.len()];
    let (mut window_regs, mut window_uregs) = (Vec::new(), Vec::new());
    let mut i = 0;
    while let Some(&(lo, hi)) = words.get(i) {
        let (op, dest) = (lo & 0xfff, (lo >> 16) & 0xff);
        if (hi >> 8) & 0xff == SR_SWINHI {
            match op {
                OP_S2R => window_regs.push(dest),
                OP_S2UR => window_uregs.push(dest),
                _ => {}
            }
        }
        if let Some(&(next, _)) = words.get(i + 1) {
            let held = if op == OP_MOV_REG { &window_regs } else { &window_uregs };
            let (next_dest, next_source) = ((next >> 16) & 0xff, (next >> 32) & 0xff);
            if (op == OP_MOV_REG || op == OP_UMOV_REG)
                && next & 0xfff == op
                && dest % 2 == 0
                && next_dest == dest + 1
                && held.contains(&next_source)
            {
                if let Some(f) = out.get_mut(i + 1) {
                    *f = true;
                }
                i += 2;
                continue;
            }
        }
        i += 1;
    }
    out
}

/// `CS2R.32 Rn, SR_CgaSize` (system register 0x8a): the first of the three
/// instructions (`CS2R`, `IMAD Rn, Rn, -0xa0`, `R2UR`) by which the
/// finaliser turns a cooperative-groups grid sync's load of its workspace
/// pointer (`LDCU URn, c[0x0][URn+0x258]`) into a CGA-relative one.
const CS2R_CGA_SIZE: Pattern = (0xfff, 0x805, 0xff00, 0x8a00);
/// `RPCMOV.32 Rpc.LO, Rn` and `RPCMOV.32 Rn, Rpc.LO`: the finaliser's save
/// and restore of a register those three instructions borrow (sm_100..sm_110).
const OP_RPCMOV_SAVE: u64 = 0x352;
const OP_RPCMOV_RESTORE: u64 = 0x353;
/// `WARPSYNC.COLLECTIVE.ALL` (`WARPSYNC.ALL` with this bit of the high word).
const WARPSYNC_COLLECTIVE: u64 = 0x40_0000;
/// `BAR.SYNC` (`0xb1d` with an immediate barrier, `0x31d` with registers).
const BAR_SYNC: Pattern = (0x7ff, 0x31d, 0, 0);
/// `ATOM.E`, a generic-address atomic (a grid sync's arrival).
const OP_ATOM_GENERIC: u64 = 0x98a;
/// `R2UR`: a vector register into a uniform one.
const OP_R2UR: u64 = 0x2ca;

/// The capsule numbering of code the finaliser expanded for a
/// cooperative-groups grid sync, when no [`CAPSULE_NUMBERINGS`] pairs up:
/// [`CAPSULE_NUMBERINGS`]' fullest, and also the `ATOM.E` right after a
/// `CGAERRBAR` (below), each [`CS2R_CGA_SIZE`]
/// with the two instructions after it, every `RPCMOV`, and from a
/// `WARPSYNC.COLLECTIVE.ALL` to its `ENDCOLLECTIVE` (a diverged warp's
/// `BAR.SYNC` fallback) all but the `BAR.SYNC`. A plain `WARPSYNC.ALL` is
/// counted. Found on nvlink `-g` outputs (session 13): the exits carried in
/// coop_grid_kernel (105 and 109 of 123, where the fullest numbering gives
/// 120) and in nine kernels of grid syncs, with 0 to 2 save/restore pairs
/// and 1 to 4 exits before and after the syncs, each built for sm_100,
/// sm_100a, sm_103, sm_110, sm_120 and sm_121: 55 capsules, every exit
/// where nvlink carries it and every count paired up.
///
/// Session 23: it is the `ATOM.E` right after a `CGAERRBAR` (a sync's
/// arrival) that the capsule does not count, and the sync's spin-loop
/// `YIELD` that it does. The two come together in a sync (the counts above
/// are the same either way), but sweep p35_coopatom `kgrid` (sm_100/sm_120
/// `-g`) also has a release `fetch_add` (`MEMBAR.ALL.GPU; ERRBAR;
/// CGAERRBAR; ATOM.E`) with no loop after it: its capsule's items (the
/// `BSYNC` and `UISETP` records after it) pair up only so, and its two
/// exits come out as nvlink's (304, 306). Fixture `gsync2-g`.
pub(crate) fn grid_sync_numbering(code: &[u8]) -> (Vec<Option<usize>>, usize) {
    let words = instruction_words(code);
    let mut collective = false;
    numbering_by(&words, |i, w @ &(lo, _)| {
        let op = lo & 0xfff;
        let starts_collective = opens_collective(w);
        // The `IMAD` after it, and the `R2UR` after that for a uniform load;
        // a vector `LDC R2, c[0x0][R2+0x258]` there is the load itself, and
        // counts (sweep16 p186 `sssp_persistent`: count 272, not 268).
        let cga_size_back = |back: usize| i.checked_sub(back).is_some_and(|j| matches(&words[j], CS2R_CGA_SIZE));
        let after_cga_size = cga_size_back(1) || (cga_size_back(2) && op == OP_R2UR);
        let arrival = op == OP_ATOM_GENERIC && i.checked_sub(1).is_some_and(|j| matches(&words[j], CGAERRBAR));
        let out = CAPSULE_NUMBERINGS[3].iter().any(|&p| matches(w, p))
            || matches!(op, OP_RPCMOV_SAVE | OP_RPCMOV_RESTORE)
            || arrival
            || matches(w, CS2R_CGA_SIZE)
            || after_cga_size
            || starts_collective
            || (collective && !matches(w, BAR_SYNC));
        if starts_collective {
            collective = true;
        } else if matches(w, ENDCOLLECTIVE) {
            collective = false;
        }
        out
    })
}

/// `MEMBAR.ALL.GPU`, which the finaliser puts in a cluster sync's expansion.
pub(crate) const MEMBAR_ALL_GPU: Pattern = (0xfff, 0x992, 0xf000, 0xa000);
/// `UCGABAR_ARV`: a cluster barrier's arrive.
const OP_UCGABAR_ARV: u64 = 0x9c7;

fn has_cluster_arrive(code: &[u8]) -> bool {
    instruction_words(code).iter().any(|&(lo, _)| lo & 0xfff == OP_UCGABAR_ARV)
}

/// The capsule numbering of code the finaliser expanded for a
/// cooperative-groups cluster sync (`barrier.cluster.arrive`/`wait`: the
/// capsule keeps `UCGABAR_ARV` and `UCGABAR_WAIT`, the finaliser adds the
/// fence `@!PT LDS` x4, `MEMBAR.ALL.CTA`, `MEMBAR.ALL.GPU`, `ERRBAR`,
/// `CGAERRBAR` before the arrive and `CCTL.IVALL` after the wait), when no
/// other numbering pairs up: [`CAPSULE_NUMBERINGS`]'s last, `MEMBAR.ALL.GPU`
/// and the `WARPSYNC.COLLECTIVE` opening the diverged-warp fallback, whose
/// `UCGABAR_WAIT` counts (fixture group `cluster` under `-g`: nvlink
/// carries both exits, the capsule's positions 26 and 28 of 33; sm_100,
/// sm_120, exec and `-r`).
pub(crate) fn cluster_sync_numbering(code: &[u8]) -> (Vec<Option<usize>>, usize) {
    numbering_by(&instruction_words(code), |_, w| {
        CAPSULE_NUMBERINGS[3].iter().any(|&p| matches(w, p)) || matches(w, MEMBAR_ALL_GPU) || opens_collective(w)
    })
}

/// The capsule numbering of a cluster sync's code where
/// [`cluster_sync_numbering`] does not pair up, counted back from the final
/// `BRA`: [`CAPSULE_NUMBERINGS`]' fullest, `MEMBAR.ALL.GPU`, and of each
/// collective region (a `WARPSYNC.COLLECTIVE`, `.ALL` or on a register, to its
/// `ENDCOLLECTIVE`) only the first instruction no other rule leaves out: the
/// operation the finaliser's diverged-warp fallback emulates (a cluster
/// barrier's `UCGABAR_WAIT`/`UCGABAR_ARV`; `ELECT P6, UR79` but not the `MOV
/// R14, UR79` after it). Sweep2 p54_hopper `k_clu` (an `elect.sync` fallback
/// holding the cluster arrive) under `-g`, sm_100, sm_100a, sm_120: this counts
/// one more instruction than the capsule (113, 109), all of it before the first
/// exit (by the capsule's items, one of the instructions setting up the first
/// `CALL`, as in nw2 `tma_kernel`, [`numbered_from_end`]); counted back from
/// the end, the exits nvlink carries are 89 and 91 (sm_120: 85 and 87). The
/// same rule counts fixture `cluster`'s 33 from the start. `None` where it
/// counts fewer than the capsule.
fn collective_numbering_from_end(code: &[u8], count: usize) -> Option<Vec<Option<usize>>> {
    let words = instruction_words(code);
    let mut collective = false;
    let mut emulated = false;
    let (numbers, n) = numbering_by(&words, |_, w| {
        if opens_collective_either(w) {
            collective = true;
            emulated = false;
            return true;
        }
        if matches(w, ENDCOLLECTIVE) {
            collective = false;
            return true;
        }
        if CAPSULE_NUMBERINGS[3].iter().any(|&p| matches(w, p)) || matches(w, MEMBAR_ALL_GPU) {
            return true;
        }
        if collective {
            let out = emulated;
            emulated = true;
            return out;
        }
        false
    });
    let extra = n.checked_sub(count)?;
    Some(numbers.into_iter().map(|k| k.and_then(|k| k.checked_sub(extra))).collect())
}

/// Per instruction of `code` up to its last `BRA` (all of it when there is
/// none): its number among those matching none of `left_out`; and how many
/// there are.
pub(crate) fn numbering_without(code: &[u8], left_out: &[Pattern]) -> (Vec<Option<usize>>, usize) {
    numbering_by(&instruction_words(code), |_, w| left_out.iter().any(|&p| matches(w, p)))
}

/// Per instruction of `words` up to the last `BRA` (all of them when there
/// is none): its number among those `left_out` (called in order, with the
/// instruction's index) does not leave out; and how many there are.
fn numbering_by(
    words: &[(u64, u64)],
    mut left_out: impl FnMut(usize, &(u64, u64)) -> bool,
) -> (Vec<Option<usize>>, usize) {
    let end = words.iter().rposition(|&(lo, _)| lo & 0xfff == OP_BRA).map_or(words.len(), |i| i + 1);
    let mut n = 0;
    let numbers = words[..end]
        .iter()
        .enumerate()
        .map(|(i, w)| {
            (!left_out(i, w)).then(|| {
                n += 1;
                n - 1
            })
        })
        .collect();
    (numbers, n)
}

/// The inserted sequence: (low 64 bits without the predicate, high 64 bits)
/// of `MEMBAR.SC.VC`, `ERRBAR`, `CGAERRBAR`, as nvlink writes them on every
/// Mercury target seen (sm_100, sm_100a, sm_103, sm_110, sm_120, sm_121).
const BARRIERS: [(u64, u64); 3] =
    [(0x0992, 0x000f_c000_0000_5000), (0x09ab, 0x000f_c000_0000_0000), (0x05ab, 0x000f_ec00_0000_0000)];
const PREDICATE_SHIFT: u32 = 12;
const CONTROL_SHIFT: u32 = 41;

/// An instruction's stall count (bits 41..44 of its high word `hi`).
fn stall_of(hi: u64) -> u64 {
    (hi >> CONTROL_SHIFT) & 0xf
}

/// `hi` with its stall count `stall`, the other control bits as they are.
fn with_stall(hi: u64, stall: u64) -> u64 {
    (hi & !(0xf << CONTROL_SHIFT)) | (stall << CONTROL_SHIFT)
}
// `CGAERRBAR` gets stall 6 and the yield bit (control 0x7f6, 227/228
// kernels), neither when the `EXIT` itself has no stall (ptxas `-O0`
// code: opt `ko`, control 0x7e0, 1/1).
/// The `EXIT`'s stall count becomes at most 5 (stencil_smem's `@P0 EXIT`,
/// 6 → 5 on 7 links; 220 others had 5 and keep it).
const EXIT_STALL_LIMIT: u64 = 5;
/// The stall before an `EXIT` from which the `CGAERRBAR` takes it over
/// (its own is 6; two barriers come between).
const LONG_STALL: u64 = 9;
/// The most of that stall the `CGAERRBAR` takes (13 and 14 both give 11).
const CGAERRBAR_MAX_STALL: u64 = 11;

/// `.nv.info.<fn>` attributes whose payload lists code offsets: the
/// attribute and the size of one entry, whose first u32 is the offset.
/// `EIATTR_MBARRIER_INSTR_OFFSETS` entries are 16 bytes (offset, register,
/// 0, kind and stride: `0x180, 0xff, 0, 0x60100`, as `cuobjdump -elf`
/// decodes them); moving their last word turned `MBARRIER_STRIDE_X4` into
/// `X1` (a `cuda::barrier` kernel linked with `-g`, sm_100).
const OFFSET_LISTS: [(u8, usize); 11] = [
    (develf_format::nvinfo::EIATTR_EXIT_INSTR_OFFSETS, 4),
    (develf_format::nvinfo::EIATTR_S2RCTAID_INSTR_OFFSETS, 4),
    (develf_format::nvinfo::EIATTR_LD_CACHEMOD_INSTR_OFFSETS, 4),
    (develf_format::nvinfo::EIATTR_ATOM_SYS_INSTR_OFFSETS, 4),
    (develf_format::nvinfo::EIATTR_COOP_GROUP_INSTR_OFFSETS, 4),
    (develf_format::nvinfo::EIATTR_ATOMF16_EMUL_INSTR_OFFSETS, 4),
    (develf_format::nvinfo::EIATTR_INT_WARP_WIDE_INSTR_OFFSETS, 4),
    (develf_format::nvinfo::EIATTR_MBARRIER_INSTR_OFFSETS, 16),
    (develf_format::nvinfo::EIATTR_IGNOREOOB_CP_ASYNC_BULK_INSTR_OFFSETS, 4),
    // (offset, register) pairs of the emulated 16-bit atomics: `if (..)
    // return;` before `atomicAdd(__half *)` under `-g` moves them by the
    // inserted `MEMBAR.SC.VC; ERRBAR; CGAERRBAR` (sm_100, sm_120).
    (develf_format::nvinfo::EIATTR_ATOM16_EMUL_INSTR_REG_MAP, 8),
    // (offset, mask of the bytes used) of a load whose result is partly
    // unused: `float4` loads of which a kernel reads three words, after an
    // `if (..) return;` (sweep8 p93 `energy`: 0xc0 becomes 0xf0 under
    // `-g`, sm_100 and sm_120).
    (develf_format::nvinfo::EIATTR_UNUSED_LOAD_BYTE_OFFSET, 8),
];
const EIFMT_SVAL: u8 = 4;

/// The capsule item nvlink adds for a carried `EXIT` (18 bytes: a `51 02`
/// mark and a 16-byte record, opcode 0x11); byte 6 is the predicate.
const EXIT_ITEM: [u8; 18] = [0x51, 0x02, 0x01, 0x11, 0x00, 0x0a, 0, 0, 0, 0, 0, 0, 0, 0xf8, 0, 0, 0, 0];
const EXIT_ITEM_PREDICATE: usize = 6;
/// Where [`EXIT_ITEM`] holds the `EXIT`'s predicate operand: its register
/// (`PT` 31) shifted by 3 here, and its negation in [`EXIT_ITEM_NEGATED`]
/// (sweep29 p304 `k_spawn_tree`'s `@P2 EXIT !P0`: `00` and `01` where a
/// bare `EXIT` has `f8` and `00`; sm_100 `-g`).
const EXIT_ITEM_OPERAND: usize = 13;
const EXIT_ITEM_NEGATED: usize = 8;
/// Bits 87..90 of an `EXIT`: its predicate operand, with the negation.
const EXIT_OPERAND_SHIFT: u32 = 23;

/// The wait bits (in place in the high word `hi`) of an `EXIT` (low word
/// `lo`) after `before` that the finaliser moves to the `ERRBAR` it
/// inserts: waits on a read barrier (an instruction's sources not yet
/// read) still pending there. Going back, the first instruction naming the
/// barrier sets it as its read barrier, with no wait on it in between, and
/// it can run where the `EXIT` does: not under the opposite predicate. A
/// wait on the write barrier of a `DSETP` (the variable-latency compare
/// that sets the `EXIT`'s predicate) moves too: six kernels ending in `if
/// (x > t) return;` on doubles, `@P0` and `@!P0`, after a load, a loop, a
/// grid sync (session 13, sm_100 `-g`: nvlink's `ERRBAR` waits, the `EXIT`
/// no longer).
/// fresh3 `ps_histogram`: `@P0 EXIT` waits on the read barrier of the
/// `ATOM` before it, and nvlink's `@P0 ERRBAR` waits instead, not the
/// `MEMBAR.SC.VC` nor the `EXIT` (sm_100, sm_120 `-g`, `-g -r`). Kept on
/// the `EXIT`: libcudadevrt `memset_3d_device`'s `@P0 EXIT` waiting on an
/// `@!P0 STG`'s read barrier, and `memcpy_3d_device`'s waiting on write
/// barriers or on barriers already waited on (sm_100 `-g`). Kept too: a
/// wait on a surface write's read barrier (`SUST`, `SUST.P`, `SURED`:
/// [`OP_SURFACE_WRITES`]), whether it is right before the `EXIT` or not,
/// predicated or not (merc2 `stencil_surf`; kernels built for the purpose,
/// `surf2Dwrite` then `return`, or a store after it, sm_100 `-g`; fixture
/// `gxsurf_b`), where an `ATOM`'s moves. Kept also where a branch from
/// outside joins between the producer and the `EXIT`, so that the barrier
/// is not pending on every path: a compare-and-swap loop's `@P0 EXIT` (its
/// `return`) waiting on the read barrier of the `LDG` before the loop
/// (sm_100, sm_120 `-g`; fixture `sumloop`).
/// `UBLKRED` (0x3bb, `cp.reduce.async.bulk`), `UTMASTG` (0x3b5, a bulk
/// tensor store) and `UTMALDG` (0x5b4, a bulk tensor load): the `EXIT` keeps
/// its wait on their read barrier, as on a surface write's (sweep2
/// p54_hopper `k_red` and `k_tma`, sm_100/sm_120 `-g`, and with a `-G`
/// input: nvlink's final `EXIT` waits on it, its `ERRBAR` not; fixture
/// `tma_b`'s `@!UP1 UTMALDG.2D` with `r0`, sm_100 `-g`, fixture
/// `tmab-g`).
const OP_BULK_COPIES: [u64; 3] = [0x3bb, 0x3b5, 0x5b4];
/// `DSETP`, whatever its operands (`0x22a` registers, `0x42a` an immediate):
/// the opcode proper is the low 9 bits.
const OP_DSETP: u64 = 0x02a;
const OPCODE_MASK: u64 = 0x1ff;
/// `QSPC` (0x3aa, 0x9aa with a uniform address: the low 9 bits), a generic
/// address's space test writing a predicate: the
/// `EXIT` predicated on it waits on its write barrier, and that wait moves
/// to the `ERRBAR` as a `DSETP`'s does (sweep29 p304 `k_spawn_tree`'s `@P2
/// EXIT !P0`, device-side `cudaMalloc`'s pointer check; sm_100 `-g`).
const OP_QSPC: u64 = 0x1aa;
/// `ISETP`, whatever its operands (the low 9 bits).
const OP_ISETP: u64 = 0x00c;
/// Bits 81..83 of an `ISETP`: the predicate it writes.
const ISETP_DESTINATION_SHIFT: u32 = 17;

fn moved_waits(words: &[(u64, u64)], exit: usize) -> u64 {
    use crate::scoreboard::control;
    let Some(&(lo, hi)) = words.get(exit) else { return 0 };
    let before = &words[..exit];
    let predicate = |l: u64| (l >> PREDICATE_SHIFT) & 0xf;
    let p = predicate(lo);
    let opposite = |q: u64| p & 7 != 7 && q & 7 == p & 7 && q != p;
    // A branch from outside `from..=exit` into it: a path on which the
    // barrier was already waited on (a loop's back edge).
    let joined = |from: usize| {
        words.iter().enumerate().any(|(k, &(l, _))| {
            matches!(l & 0xfff, OP_BRA | OP_BRA_UNIFORM)
                && !(from..=exit).contains(&k)
                && branch_target(k, l).is_some_and(|t| from < t && t <= exit)
        })
    };
    let mut moved = 0;
    for b in (0..6u8).filter(|&b| control(hi).waits(b)) {
        for (j, &(l, h)) in before.iter().enumerate().rev() {
            let c = control(h);
            let read = c.read == b
                && c.write != b
                && !opposite(predicate(l))
                && !OP_SURFACE_WRITES.contains(&(l & 0xfff))
                && !OP_BULK_COPIES.contains(&(l & 0xfff))
                && !joined(j);
            let compared = c.write == b && matches!(l & OPCODE_MASK, OP_DSETP | OP_QSPC);
            if read || compared {
                moved |= 1u64 << (u64::from(CONTROL_SHIFT) + 11 + u64::from(b));
            }
            if c.write == b || c.read == b || c.waits(b) {
                break;
            }
        }
    }
    moved
}

/// What the finaliser does to a link's exit sequences (rules 11.8, 11.9).
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub(crate) enum ExitRule {
    /// Every bare `EXIT` gets `MEMBAR.SC.VC; ERRBAR; CGAERRBAR`; exits that
    /// have them (`-G` code) stay: `-g` (rule 11.9), and `-r` with a `-G`
    /// input (rule 11.8: t1 `n.cu` linked `-r` with `g.cu`, sweep dbgmix and
    /// stkG `-r`, as under `-g`).
    Barriers,
    /// An executable with a `-G` input and no `-g` (rule 11.8): every
    /// kernel's exit sequence becomes `[MEMBAR.SC.VC;] ERRBAR; CGAERRBAR;
    /// EXIT`, with `MEMBAR.SC.VC` exactly when the kernel has a `CALL` or
    /// writes a surface ([`keeps_vc_fence`]).
    /// Bare exits of kernels with calls get [`ExitRule::Barriers`]'
    /// insertion (dbgmix `kf`, stkG `ks`, `ks2`); `-G` kernels without
    /// calls lose ptxas's `MEMBAR.SC.VC` (merc2 `setup`, `stencil_smem`, t1
    /// `gk_nocall`, `gk_branch`). Bare exits of kernels without calls get
    /// `ERRBAR; CGAERRBAR` *and* the scoreboards allocated again (t1
    /// `nk_nocall`: 8 of 13 instructions' control bits, `nk_branch`: 9 of
    /// 21; `crate::scoreboard::rescheduled`); ptxas's own where the
    /// stack-pointer load holds no scoreboard. A kernel the model declines
    /// otherwise keeps ptxas's code ([`plan`]).
    ByCalls,
}

/// Which of the finaliser's code moves a link makes (only on Mercury,
/// sm_100+).
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub(crate) struct Rewrite {
    /// Rules 11.8, 11.9: exit sequences.
    exits: Option<ExitRule>,
    /// Rule 11.3: an executable without `-g` loses the memory-fence
    /// workaround before each kernel's `MEMBAR.SC.GPU` (`-g` and `-r` keep
    /// it). A kernel whose exits change keeps it too: the two moves are not
    /// combined (no link seen needs both).
    fences: bool,
}

/// The rewrites a link needs, if any.
pub(crate) fn rule(options: &LinkOptions, inputs: &[Input<'_>]) -> Option<Rewrite> {
    if options.arch.sm < 100 {
        return None;
    }
    let fences = !options.debug && options.output == crate::options::OutputKind::Executable;
    let exits = exit_rule(options, inputs);
    (exits.is_some() || fences).then_some(Rewrite { exits, fences })
}

/// The exit rule of a Mercury link: rule 11.9 under `-g`, rule 11.8 when an
/// input was compiled `-G` (its `.nv.info` has `EIATTR_GEN_ERRBAR_AT_EXIT`).
fn exit_rule(options: &LinkOptions, inputs: &[Input<'_>]) -> Option<ExitRule> {
    use crate::options::OutputKind;
    if options.debug {
        return Some(ExitRule::Barriers);
    }
    use rayon::prelude::*;
    if !inputs.par_iter().any(|i| has_errbar_attribute(i.bytes)) {
        return None;
    }
    Some(match options.output {
        OutputKind::Relocatable => ExitRule::Barriers,
        OutputKind::Executable => ExitRule::ByCalls,
    })
}

/// Whether an input's global `.nv.info` asks for error barriers at exit
/// (`EIATTR_GEN_ERRBAR_AT_EXIT`, what ptxas `-G` writes per kernel; a `-r`
/// output keeps it).
fn has_errbar_attribute(bytes: &[u8]) -> bool {
    let Ok(cubin) = Cubin::parse(bytes) else { return false };
    cubin.sections().iter().filter(|s| s.sh_type == SHT_CUDA_INFO && s.name == ".nv.info").any(|s| {
        let data = s.data.unwrap_or_default();
        let mut at = 0;
        while at + 4 <= data.len() {
            let (format, attribute) = (data[at], data[at + 1]);
            if attribute == develf_format::nvinfo::EIATTR_GEN_ERRBAR_AT_EXIT {
                return true;
            }
            let size =
                if format == EIFMT_SVAL { usize::from(u16::from_le_bytes([data[at + 2], data[at + 3]])) } else { 0 };
            at += 4 + size;
        }
        false
    })
}

/// The inputs rewritten (rules 11.3, 11.8, 11.9), or `None` when none changes.
pub(crate) fn rewrite_inputs(inputs: &[Input<'_>], rewrite: Rewrite) -> Option<Vec<Option<Vec<u8>>>> {
    use rayon::prelude::*;
    let out: Vec<Option<Vec<u8>>> = inputs.par_iter().map(|i| rewrite_input(i, rewrite)).collect();
    out.iter().any(Option::is_some).then_some(out)
}

/// One change to a `.text`, at old instruction `at`: `insert` goes in
/// before it, and it becomes `word` (`None`: it is removed). The plans of
/// the finaliser's rewrites are lists of these; [`apply`] makes the
/// [`Moves`] everything else follows.
#[derive(Debug, Clone, PartialEq, Eq)]
struct Edit {
    at: usize,
    insert: Vec<(u64, u64)>,
    word: Option<(u64, u64)>,
}

/// An `EXIT` whose exit sequence changed: its old index, predicate, and
/// the sequence's length (barriers + the `EXIT`) before and after. The
/// capsule carries each exit sequence as one record behind a mark holding
/// that length.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
struct ExitChange {
    index: usize,
    /// The guard (`@P2`), 4 bits: register and negation.
    predicate: u64,
    /// The `EXIT`'s predicate operand (`EXIT !P0`; `PT` when it has none),
    /// 4 bits as the guard's, from bits 87..90 of the instruction.
    operand: u64,
    before: usize,
    after: usize,
}

/// Rule 11.3's fence-workaround removal in a kernel's code: each run of
/// four `@!PT LDS RZ, [RZ]` and `MEMBAR.ALL.CTA` right before a
/// `MEMBAR.SC.GPU` goes, the code after it moves up (the NOP tail keeps the
/// section to the 128-byte rule), branches keep their targets, and the
/// scoreboards are allocated again (`scoreboard::without`). Evidence: fixture
/// `sync_spin_kernel` (sm_100, sm_100a, sm_120), sweep cub `red_int`,
/// `red_int2`, atom `kb`, gcall `kcl` (sm_100, sm_120).
///
/// Only kernels that make no call lose it, and all of them do: in sweeps 19
/// to 22 (sm_100 exec) 22 kernels without a `CALL` lose it and 33 with one
/// keep it (sweep22 p231 `at_progress_k` against `at_wait_host_k`; test
/// `mercury_vs_nvlink`). Where the model does not reproduce ptxas's numbering,
/// the workaround goes all the same and the other instructions keep ptxas's
/// scoreboards: every instruction, offset and section but those fields is
/// nvlink's (63 sweep22 links now the size of nvlink's). Before, the
/// workaround stayed wherever the model failed, which matched nvlink only in
/// kernels with calls.
fn plan_fence(code: &[u8]) -> Option<Moves> {
    let words = instruction_words(code);
    if words.iter().any(|&(lo, _)| is_call(lo)) {
        return None;
    }
    let removed = fence_removals(&words)?;
    let his = crate::scoreboard::without(&words, &removed).unwrap_or_else(|| words.iter().map(|&(_, hi)| hi).collect());
    // The workaround goes and the scoreboards change: edits, laid out by
    // [`apply`] as the exit rewrites are.
    let edits: Vec<Edit> = words
        .iter()
        .zip(&his)
        .enumerate()
        .filter(|&(i, (&(_, hi), &new_hi))| removed[i] || hi != new_hi)
        .map(|(i, (&(lo, _), &new_hi))| Edit { at: i, insert: Vec::new(), word: (!removed[i]).then_some((lo, new_hi)) })
        .collect();
    apply(code, &words, &edits, Vec::new())
}

/// The instructions of the fence workaround's runs in `words` (its three
/// shapes, [`plan_fence`]), or `None` where there is none.
fn fence_removals(words: &[(u64, u64)]) -> Option<Vec<bool>> {
    let mut removed = vec![false; words.len()];
    for i in 0..words.len().saturating_sub(FENCE_RUN) {
        if !(words[i..i + 4].iter().all(|w| matches(w, FENCE_LDS)) && !(i > 0 && matches(&words[i - 1], FENCE_LDS))) {
            continue;
        }
        if matches(&words[i + 4], MEMBAR_SC_CTA) {
            removed[i..i + 4].iter_mut().for_each(|r| *r = true);
            continue;
        }
        if !matches(&words[i + 4], MEMBAR_ALL_CTA) {
            continue;
        }
        if is_fence(&words[i + FENCE_RUN]) {
            removed[i..i + FENCE_RUN].iter_mut().for_each(|r| *r = true);
        } else if matches(&words[i + FENCE_RUN], FENCE_VIEW_ASYNC_S) {
            // The second shape: before a `FENCE.VIEW.ASYNC.S` only the four
            // `LDS` go, the `MEMBAR.ALL.CTA` stays (sweep2 p54_hopper
            // `k_red`, `fence.proxy.async.shared::cta` after a shared store,
            // sm_100/sm_120 exec; CUB's `DeviceScanKernel`, session 10).
            removed[i..i + 4].iter_mut().for_each(|r| *r = true);
        }
    }
    if !removed.contains(&true) {
        return None;
    }
    // Only the first fence of a function gets the four `LDS`; ptxas puts
    // just the `MEMBAR.ALL.CTA` before each later one, and nvlink drops
    // those too (sweep15 p172 `inline_only_kernel`: `membar.gl` then
    // `fence.acq_rel.gpu`; `fence.acq_rel.gpu` twice, `fence.sc.gpu` then
    // `fence.acq_rel.sys`, `__threadfence_block()` then `__threadfence()`:
    // sm_120 exec).
    for i in 1..words.len() {
        if matches(&words[i - 1], MEMBAR_ALL_CTA) && !removed[i - 1] && is_fence(&words[i]) {
            removed[i - 1] = true;
        }
    }
    Some(removed)
}

/// The first numbering of `code` that pairs up with a capsule of `count`
/// instructions: by `numberings`, then the fence capsules' fullest, then
/// with release fences' operations left out, then as a grid sync's
/// capsule is numbered.
pub(crate) fn fallback_numbering(code: &[u8], count: usize, numberings: &[&[Pattern]]) -> Option<Vec<Option<usize>>> {
    capsule_numbering(code, count, numberings)
        .or_else(|| capsule_numbering(code, count, &[FENCE_CAPSULE_NUMBERING]))
        .or_else(|| release_numbering(code, count))
        .or_else(|| Some(grid_sync_numbering(code)).filter(|(_, n)| *n == count).map(|(v, _)| v))
}

/// Rule 11.3's capsule after a fence-workaround removal: the instruction
/// count and bitmap stay (the numbering leaves the workaround out); the
/// 2-byte mark before the record of the `MEMBAR.SC.GPU` after each removed
/// run holds an instruction distance (bit 7 of its first byte + 2 × its
/// second byte), which drops by the run's length, and the closing item is
/// written for the new tail (fixture sync_spin: `d1 04` → `51 02`, `d0 04`
/// → `50 07`). `None` (capsule unchanged) where that does not fit.
fn capsule_fence(bytes: &[u8], code: &[u8], moves: &Moves) -> Option<Vec<u8>> {
    let count = usize::try_from(word32(bytes, 8)).ok()?;
    let words = instruction_words(code);
    // A cooperative-groups grid sync's kernel numbers as its `-g` capsules
    // do (p64_cgclus `grid2_k`, sm_100/sm_120 exec: its arrival `ATOM.E`
    // is not counted).
    let number = fallback_numbering(code, count, &CAPSULE_NUMBERINGS[1..])?;
    let bit = |i: usize| word32(bytes, 12 + 4 * (i / 32)) >> (i % 32) & 1 != 0;
    let (items, _) = capsule_item_starts(bytes, count.div_ceil(32))?;
    let mut out = bytes.to_vec();
    let mut unmarked: Vec<usize> = Vec::new();
    let removed = |i: usize| moves.own[i] == moves.own[i + 1];
    for (i, w) in words.iter().enumerate().skip(1) {
        if removed(i) || !removed(i - 1) {
            continue;
        }
        // The record the mark precedes: the fence's; in the second shape
        // the kept `MEMBAR.ALL.CTA` is not counted and the mark comes before
        // the `FENCE.VIEW.ASYNC.S` (p54_hopper `k_red`: `51 03` → `51 01`).
        let fence = if is_fence(w) || matches(w, MEMBAR_SC_CTA) {
            i
        } else if matches(w, MEMBAR_ALL_CTA) && words.get(i + 1).is_some_and(|w| matches(w, FENCE_VIEW_ASYNC_S)) {
            i + 1
        } else {
            continue;
        };
        let run = (0..i).rev().take_while(|&j| removed(j)).count() as u32;
        let k = number.get(fence).copied().flatten()?;
        if bit(k) {
            return None;
        }
        let place = *items.get((0..k).filter(|&j| !bit(j)).count())?;
        let (first, second) = (*out.get(place)?, *out.get(place + 1)?);
        if !matches!(first, 0x51 | 0xd1) {
            return None;
        }
        let value = (u32::from(second) << 1 | u32::from(first >> 7)).checked_sub(run)?;
        // A distance of one needs no mark: nvlink drops it (p35_coopatom
        // `ktile`: `d1 02` before the `MEMBAR.SC.CTA` record, 5 less the
        // four `LDS`, goes).
        if value == 1 {
            unmarked.push(place);
            continue;
        }
        out[place] = (first & 0x7f) | (((value & 1) as u8) << 7);
        out[place + 1] = u8::try_from(value >> 1).ok()?;
    }
    let close_at = *items.last()?;
    let ops: Vec<u64> = words.iter().map(|&(lo, _)| lo & 0xfff).collect();
    let bra = moves.own.get(ops.iter().rposition(|&o| o == OP_BRA)?)? / 16;
    let tail = moves.new_size / 16 - bra;
    let first = out[close_at];
    out[close_at] = (first & 0x7f) | (((tail & 1) as u8) << 7);
    out[close_at + 1] = u8::try_from(tail >> 1).ok()?;
    for &place in unmarked.iter().rev() {
        out.drain(place..place + 2);
    }
    Some(out)
}

/// How one `.text` section changes.
struct Moves {
    old_size: u64,
    new_size: u64,
    /// Per old instruction (and one past the last): its new offset (a
    /// removed one's: where the next one now is).
    own: Vec<u64>,
    /// Per old instruction: the new offset of the first instruction emitted
    /// for it (the barriers, for a rewritten `EXIT`): where code that
    /// reached it now arrives.
    start: Vec<u64>,
    /// Bytes inserted less bytes removed.
    delta: i64,
    exits: Vec<ExitChange>,
    code: Vec<u8>,
    /// Whether the fence workaround went too (with exit rewrites: [`plan`]).
    fence_removed: bool,
}

impl Moves {
    fn map(&self, table: &[u64], old: u64) -> u64 {
        if old == self.old_size {
            return self.new_size;
        }
        match usize::try_from(old / 16).ok().and_then(|i| table.get(i)) {
            Some(&at) if (old / 16) < (table.len() as u64 - 1) => at + old % 16,
            _ => old.saturating_add_signed(self.delta),
        }
    }

    /// A code address (branch target, return address, frame or line location).
    fn address(&self, old: u64) -> u64 {
        self.map(&self.start, old)
    }

    /// The offset of an instruction (relocation, `.nv.info` offset list).
    fn instruction(&self, old: u64) -> u64 {
        self.map(&self.own, old)
    }
}

fn word(bytes: &[u8], at: usize) -> u64 {
    bytes.get(at..at + 8).map_or(0, |b| u64::from_le_bytes(b.try_into().unwrap_or([0; 8])))
}

fn put(bytes: &mut [u8], at: usize, value: u64) {
    if let Some(b) = bytes.get_mut(at..at.saturating_add(8)) {
        b.copy_from_slice(&value.to_le_bytes());
    }
}

fn put32(bytes: &mut [u8], at: usize, value: u32) {
    if let Some(b) = bytes.get_mut(at..at.saturating_add(4)) {
        b.copy_from_slice(&value.to_le_bytes());
    }
}

/// The code's instructions as (low, high) 64-bit words.
pub(crate) fn instruction_words(code: &[u8]) -> Vec<(u64, u64)> {
    code.chunks_exact(16).map(|c| (word(c, 0), word(c, 8))).collect()
}

fn word32(bytes: &[u8], at: usize) -> u32 {
    bytes.get(at..at.saturating_add(4)).map_or(0, |b| u32::from_le_bytes(b.try_into().unwrap_or([0; 4])))
}

/// The signed byte offset of a `BRA` (relative to the next instruction):
/// bits 16..23 hold offset/4's low 8 bits, bits 34..63 the rest (merc2
/// `hist_kernel`, `jacobi`: 0x18 more for 0x60 bytes inserted between).
pub(crate) fn branch_offset(lo: u64) -> i64 {
    let field = ((lo >> 34) << 8) | ((lo >> 16) & 0xff);
    let signed = ((field << 26) as i64) >> 26;
    signed * 4
}

/// The instruction a `BRA` at instruction `index` (low word `lo`) jumps
/// to, or `None` before the start.
pub(crate) fn branch_target(index: usize, lo: u64) -> Option<usize> {
    let t = i64::try_from(index + 1).ok()?.checked_add(branch_offset(lo) / 16)?;
    usize::try_from(t).ok()
}

/// `WARPSYNC.COLLECTIVE.ALL`: opens a diverged-warp fallback that the
/// finaliser added (grid and cluster syncs).
fn opens_collective(&(lo, hi): &(u64, u64)) -> bool {
    lo & 0xfff == OP_WARPSYNC_ALL && hi & WARPSYNC_COLLECTIVE != 0
}

/// `WARPSYNC.COLLECTIVE`, `.ALL` or on a register (`WARPSYNC.COLLECTIVE
/// R15, 0x610`): either opens a collective region, whose end it names as a
/// `BRA` names its target.
fn opens_collective_either(&(lo, hi): &(u64, u64)) -> bool {
    matches!(lo & 0xfff, OP_WARPSYNC_ALL | OP_WARPSYNC) && hi & WARPSYNC_COLLECTIVE != 0
}

/// `BSSY`'s reconvergence point: a signed byte offset from the next
/// instruction in bits 32..63 (fixture sync_spin: `BSSY B0, 0x1a0` at 0x30
/// holds 0x160; 0x110 once the fence workaround before it is gone).
pub(crate) const OP_BSSY: u64 = 0x945;
/// `BRX`: an indirect branch (a `switch`'s jump table).
const OP_BRX: u64 = 0x949;

fn bssy_offset(lo: u64) -> i64 {
    i64::from((lo >> 32) as u32 as i32)
}

fn with_bssy_offset(lo: u64, offset: i64) -> u64 {
    (lo & 0xffff_ffff) | (u64::from(offset as i32 as u32) << 32)
}

fn with_branch_offset(lo: u64, offset: i64) -> u64 {
    let field = (offset / 4) as u64 & ((1 << 38) - 1);
    (lo & !(0xff << 16) & ((1 << 34) - 1)) | ((field & 0xff) << 16) | ((field >> 8) << 34)
}

/// `CALL.ABS.NOINC` (t1 `nk_call`) and `CALL.REL.NOINC`, to an address
/// (0x943, 0x944) or through a register (0x343, 0x344: a function pointer,
/// helpers' p06_fptr `kc`, `kf`; nvdisasm -b SM100 names all four).
const OP_CALLS: [u64; 4] = [0x943, 0x944, 0x343, 0x344];

/// Whether the instruction whose low word is `lo` is a call ([`OP_CALLS`]).
pub(crate) fn is_call(lo: u64) -> bool {
    OP_CALLS.contains(&(lo & 0xfff))
}

/// Surface writes: `SUST.P` (0xf9b), `SUST.D` (0xf9d) and `SURED` (0xf9f).
/// Under [`ExitRule::ByCalls`] a kernel with one keeps `MEMBAR.SC.VC` before
/// its exits as a kernel with a call does; surface reads (`SULD`, 0xf99),
/// global and generic stores, atomics, local and shared stores and fences
/// do not (sm_100, a `-G` object linked with kernels built for the purpose;
/// helpers' p15_tex `ksy`).
const OP_SURFACE_WRITES: [u64; 3] = [0xf9b, 0xf9d, 0xf9f];

/// Whether a kernel's exits keep `MEMBAR.SC.VC` under [`ExitRule::ByCalls`]:
/// it makes a call or writes a surface.
fn keeps_vc_fence(words: &[(u64, u64)]) -> bool {
    words.iter().any(|&(lo, _)| is_call(lo) || OP_SURFACE_WRITES.contains(&(lo & 0xfff)))
}

/// The finaliser's exit rewrite of one `.text` under `rule`: the edits and
/// the exits they change; `None` when nothing changes or the rewrite is not
/// one reproduced (see [`ExitRule::ByCalls`]).
fn plan_exits(words: &[(u64, u64)], rule: ExitRule) -> Option<(Vec<Edit>, Vec<ExitChange>)> {
    let is = |i: usize, p: Pattern| words.get(i).is_some_and(|&(lo, hi)| lo & p.0 == p.1 && hi & p.2 == p.3);
    let fenced = keeps_vc_fence(words);
    let mut edits = Vec::new();
    let mut exits = Vec::new();
    for (i, &(lo, hi)) in words.iter().enumerate() {
        if lo & 0xfff != OP_EXIT {
            continue;
        }
        let predicate = (lo >> PREDICATE_SHIFT) & 0xf;
        let operand = (hi >> EXIT_OPERAND_SHIFT) & 0xf;
        let carried = i > 0 && is(i - 1, CGAERRBAR);
        if !carried {
            // A kernel without calls in an executable with a `-G` input
            // gets `ERRBAR; CGAERRBAR` without `MEMBAR.SC.VC`, and is
            // scheduled again ([`plan`]).
            let barriers = if rule == ExitRule::ByCalls && !fenced { &BARRIERS[1..] } else { &BARRIERS[..] };
            let stall = stall_of(hi);
            // The `EXIT`'s wait on a pending read barrier, or on a `DSETP`, moves to the
            // `ERRBAR` (`moved_waits`).
            let waits = moved_waits(words, i);
            let mut insert = Vec::with_capacity(barriers.len());
            for (k, &(b_lo, b_hi)) in barriers.iter().enumerate() {
                let mut b_hi = b_hi;
                if k == barriers.len() - 1 && stall == 0 {
                    // Stall and yield bits off, as the `EXIT`'s.
                    b_hi &= !(0x1f << CONTROL_SHIFT);
                }
                if b_lo == ERRBAR.1 {
                    b_hi |= waits;
                }
                insert.push((b_lo | (lo & (0xf << PREDICATE_SHIFT)), b_hi));
            }
            // An `ISETP` right before the `EXIT` that waits out its latency
            // (stall 13) for the `EXIT`'s predicate operand, not for its
            // guard, which the inserted barriers read too: the `CGAERRBAR`
            // takes up to 11 of the stall less the two barriers' cycles, and
            // the `ISETP` keeps the rest and yields (sweep29 p304
            // `k_spawn_tree`'s `ISETP P0` before `@P2 EXIT !P0`, sm_100 `-g`:
            // 13 -> 1 and 11; fixture `qx-g` on sm_120: 14 -> 2 and 11; its
            // `ISETP P0` before `@P0 EXIT`s keep theirs).
            let mut long_stall = None;
            if let Some(&(p_lo, p_hi)) = i.checked_sub(1).and_then(|k| words.get(k)) {
                let p_stall = stall_of(p_hi);
                let sets_operand =
                    p_lo & OPCODE_MASK == OP_ISETP && (p_hi >> ISETP_DESTINATION_SHIFT) & 7 != predicate & 7;
                if sets_operand && p_stall >= LONG_STALL && barriers.len() == BARRIERS.len() {
                    let taken = (p_stall - 2).min(CGAERRBAR_MAX_STALL);
                    let kept = p_stall - taken - 1;
                    let p_hi = (p_hi & !(0x1f << CONTROL_SHIFT)) | ((0x10 | kept) << CONTROL_SHIFT);
                    long_stall = Some((p_lo, p_hi));
                    if let Some(last) = insert.last_mut() {
                        last.1 = with_stall(last.1, taken);
                    }
                }
            }
            let hi = hi & !waits;
            let hi = if stall > EXIT_STALL_LIMIT { with_stall(hi, EXIT_STALL_LIMIT) } else { hi };
            // A surface write right before the `EXIT` stalls 1, not 2, before
            // the `MEMBAR.SC.VC` (merc2 `stencil_surf`, sm_100..sm_121 `-g`,
            // and four kernels built for the purpose, predicated or not; an
            // `STG`'s stall 2 stays: fresh3 `ps_driver`).
            if let Some(word) = long_stall {
                edits.push(Edit { at: i - 1, insert: Vec::new(), word: Some(word) });
            } else if let Some(&(s_lo, s_hi)) = i.checked_sub(1).and_then(|k| words.get(k)) {
                if OP_SURFACE_WRITES.contains(&(s_lo & 0xfff)) && stall_of(s_hi) == 2 {
                    let s_hi = with_stall(s_hi, 1);
                    edits.push(Edit { at: i - 1, insert: Vec::new(), word: Some((s_lo, s_hi)) });
                }
            }
            edits.push(Edit { at: i, insert, word: Some((lo, hi)) });
            exits.push(ExitChange { index: i, predicate, operand, before: 1, after: 1 + barriers.len() });
        } else if rule == ExitRule::ByCalls && !fenced && i >= 3 && is(i - 2, ERRBAR) && is(i - 3, MEMBAR_SC_VC) {
            // Rule 11.8: `-G` code without calls or surface writes loses
            // the `MEMBAR.SC.VC`.
            edits.push(Edit { at: i - 3, insert: Vec::new(), word: None });
            exits.push(ExitChange { index: i, predicate, operand, before: 4, after: 3 });
        }
    }
    (!edits.is_empty()).then_some((edits, exits))
}

/// `code` with `edits` (ascending by instruction) made: branches keep their
/// targets (an instruction's new start), the NOP tail keeps the 128-byte
/// rule ptxas pads by (`align128(end of code) + 128`, 394/394 sections),
/// so the section grows or shrinks with the code (t1 sm_120 `gk_nocall`:
/// 0x480 → 0x400 for two removed instructions).
fn apply(code: &[u8], words: &[(u64, u64)], edits: &[Edit], exits: Vec<ExitChange>) -> Option<Moves> {
    let end = words.iter().rposition(|&(lo, _)| lo & 0xfff != OP_NOP).map_or(0, |i| i + 1);
    if edits.iter().any(|e| e.at >= end) || edits.windows(2).any(|w| w[0].at >= w[1].at) {
        return None;
    }
    let mut own = Vec::with_capacity(words.len() + 1);
    let mut start = Vec::with_capacity(words.len() + 1);
    let mut out: Vec<(u64, u64)> = Vec::with_capacity(words.len() + 3 * edits.len());
    let mut next = edits.iter().peekable();
    for (i, &w) in words.iter().enumerate() {
        start.push(16 * out.len() as u64);
        let edit = next.next_if(|e| e.at == i);
        if let Some(e) = edit {
            out.extend_from_slice(&e.insert);
        }
        own.push(16 * out.len() as u64);
        match edit {
            Some(e) => out.extend(e.word),
            None => out.push(w),
        }
    }
    own.push(16 * out.len() as u64);
    start.push(16 * out.len() as u64);
    // Branches and `BSSY` reconvergence points keep their targets: an
    // instruction's new start (fence removal: sync_spin's `BSSY`).
    for (i, w @ &(lo, _)) in words.iter().enumerate() {
        let bssy = lo & 0xfff == OP_BSSY;
        // `BRX Rn, -next`: an indirect branch to a function offset in `Rn`,
        // its offset field the negated address of the next instruction (a
        // branch to the function's start), which moves with it (sweep16
        // p185 `saturation_boost`'s `switch`, `-g` on sm_100: -0x1530 →
        // -0x1560).
        // A `WARPSYNC.COLLECTIVE` names where its collective ends, encoded
        // as a `BRA`'s target (sweep28 p293 `-Xptxas -O0` `k_cluster_rt`, a
        // cluster sync's fallback: `WARPSYNC.COLLECTIVE.ALL 0x2c0` becomes
        // 0x270 once the fence workaround inside goes; sm_100/sm_120 exec).
        let jumps = bssy || opens_collective_either(w) || matches!(lo & 0xfff, OP_BRA | OP_BRA_UNIFORM | OP_BRX);
        if !jumps || edits.iter().any(|e| e.at == i && e.word.is_none()) {
            continue;
        }
        let target = 16 * (i as i64 + 1) + if bssy { bssy_offset(lo) } else { branch_offset(lo) };
        if target < 0 || target % 16 != 0 || target as usize / 16 > words.len() {
            continue;
        }
        let moved = start[target as usize / 16] as i64 - (own[i] as i64 + 16);
        let at = own[i] as usize / 16;
        out[at].0 = if bssy { with_bssy_offset(out[at].0, moved) } else { with_branch_offset(out[at].0, moved) };
    }
    let new_end = own[end];
    let delta = new_end as i64 - 16 * end as i64;
    let old_size = code.len() as u64;
    let round = |x: u64| x.div_ceil(128) * 128;
    let old_end = 16 * end as u64;
    let new_size = (old_size + round(new_end)).checked_sub(round(old_end))?;
    let mut bytes = Vec::with_capacity(new_size as usize);
    for (lo, hi) in out.iter().take(new_end as usize / 16) {
        bytes.extend_from_slice(&lo.to_le_bytes());
        bytes.extend_from_slice(&hi.to_le_bytes());
    }
    // The NOP tail, as ptxas pads.
    let nop = words.last().copied().unwrap_or((0x7918, 0x000f_c000_0000_0000));
    while (bytes.len() as u64) < new_size {
        bytes.extend_from_slice(&nop.0.to_le_bytes());
        bytes.extend_from_slice(&nop.1.to_le_bytes());
    }
    bytes.truncate(new_size as usize);
    Some(Moves { old_size, new_size, own, start, delta, exits, code: bytes, fence_removed: false })
}

fn plan(code: &[u8], rule: ExitRule, fences: bool) -> Option<Moves> {
    let words = instruction_words(code);
    let (mut edits, exits) = plan_exits(&words, rule)?;
    // An executable's kernel also loses the fence workaround (rule 11.3)
    // where its exits change (sweep2 p48_asmpred `kc`, p54_hopper `k_red`,
    // sweep4 p64_cgclus `grid2_k`: links with a `-G` input, sm_100/sm_120),
    // and the finaliser allocates its scoreboards again.
    // Where the scoreboard model does not take the workaround out on its
    // own (`plan_fence`), the workaround stays, as nvlink keeps it in
    // kernels such as sweep2 p54_hopper `k_clu` (sm_100a) and sweep4
    // p64_cgclus `grid_k`/`clus_k`.
    let fenced = fences
        .then(|| fence_removals(&words))
        .flatten()
        .filter(|removed| crate::scoreboard::without(&words, removed).is_some());
    if let Some(removed) = &fenced {
        for (i, _) in removed.iter().enumerate().filter(|&(_, &r)| r) {
            if edits.iter().any(|e| e.at == i) {
                return None;
            }
            edits.push(Edit { at: i, insert: Vec::new(), word: None });
        }
        edits.sort_by_key(|e| e.at);
    }
    let mut moves = apply(code, &words, &edits, exits)?;
    if fenced.is_some() {
        let new = instruction_words(&moves.code);
        // Where the model cannot allocate the new code, the exits are
        // still rewritten and the workaround stays.
        let Some(his) = crate::scoreboard::rescheduled(&new) else { return plan(code, rule, false) };
        for (chunk, hi) in moves.code.chunks_exact_mut(16).zip(his) {
            chunk[8..].copy_from_slice(&hi.to_le_bytes());
        }
        moves.fence_removed = true;
        return Some(moves);
    }
    // Rule 11.8: a kernel without calls that gains error barriers in an
    // executable with a `-G` input gets the finaliser's scoreboards
    // (`scoreboard::rescheduled`; t1 `nk_nocall`: the `LDG` 1 -> 2); left
    // as ptxas wrote it where the model does not apply.
    let has_call = words.iter().any(|&(lo, _)| is_call(lo));
    if rule == ExitRule::ByCalls && !has_call && moves.exits.iter().any(|e| e.before == 1) {
        let new = instruction_words(&moves.code);
        match crate::scoreboard::rescheduled(&new) {
            Some(his) => {
                for (chunk, hi) in moves.code.chunks_exact_mut(16).zip(his) {
                    chunk[8..].copy_from_slice(&hi.to_le_bytes());
                }
            }
            // The finaliser runs ptxas's allocator again: with no
            // scoreboard to free on the stack-pointer load, it gives back
            // ptxas's numbering, where the model cannot reproduce it too
            // (helpers' p09 `kb`: an `LDG` with a read barrier grouped
            // with two plain ones keeps barrier 2; sm_100/sm_120).
            None if !crate::scoreboard::stack_load_scoreboarded(&new) => {}
            None => return None,
        }
    }
    Some(moves)
}

/// A capsule's items after its header and its `words`-word bitmap, one per
/// clear bit, by where they start: a 2-byte mark (`51 01`, `51 02`, `d1 01`,
/// `d1 04`: low nibble 1) belongs to the record after it, and an `EXIT`
/// item goes in before the mark (merc2 hist_kernel: `51 02 01 11 .. d1 01 02
/// 4a`); a 2-byte item with low nibble 0 (stencil_texy's `d0 00`, the
/// closing `50 xx`/`d0 xx`) stands for an instruction. Items = clear bits:
/// hist 14, red_int 17, warp_sum 7, count_kernel 24, jacobi 108. Also the
/// exit records (a mark, then a 16-byte record of opcode 0x11), by where
/// their mark starts. `None` when the stream does not end with the capsule.
fn capsule_item_starts(bytes: &[u8], words: usize) -> Option<(Vec<usize>, Vec<usize>)> {
    let mut items: Vec<usize> = Vec::new();
    let mut exit_records: Vec<usize> = Vec::new();
    let mut at = 12 + 4 * words;
    let mut mark = None;
    while let Some(&first) = bytes.get(at) {
        if let Some(m) = mark.filter(|_| bytes.get(at..at + 2) == Some(&EXIT_ITEM[2..4])) {
            exit_records.push(m);
        }
        let size = match first {
            1..=0x3f => 16 * usize::from(first),
            0x40..=0x4f => 4,
            0x50..=0x5f | 0xd0..=0xdf => 2,
            _ => return None,
        };
        if size != 2 || first & 0xf == 0 || at + 2 == bytes.len() {
            items.push(mark.take().unwrap_or(at));
        } else {
            mark.get_or_insert(at);
        }
        at += size;
    }
    (at == bytes.len() && !items.is_empty()).then_some((items, exit_records))
}

/// Rule 11.9's capsule: each rewritten `EXIT` (an instruction the capsule
/// did not carry) becomes carried: its bit is cleared and [`EXIT_ITEM`]
/// goes in at its place among the items; the closing 2-byte item, which
/// holds the number of instructions from the final `BRA` to the end of the
/// section (NOP tail + 1: bit 7 of its first byte is that number's low bit,
/// its second byte the rest; s0..s8 runs, 9 sizes), is written for the new
/// size. Instructions are numbered as [`CAPSULE_NUMBERINGS`]' second; a capsule
/// whose count does not pair up with the code is left alone.
fn capsule(bytes: &[u8], code: &[u8], moves: &Moves) -> Option<Vec<u8>> {
    let count = usize::try_from(word32(bytes, 8)).ok()?;
    let ops: Vec<u64> = code.chunks_exact(16).map(|c| word(c, 0) & 0xfff).collect();
    // Never NOPs alone: they mis-number jacobi (above). Only a carried
    // `EXIT` needs it: removals find their exit records by themselves.
    let number = capsule_numbering(code, count, &[CAPSULE_NUMBERINGS[1], CAPSULE_NUMBERINGS[3]]).or_else(|| {
        // A cluster sync's expansion has its own numbering; the grid
        // sync's can pair up with it too, wrongly (fixture `cluster`).
        let sync = if has_cluster_arrive(code) { cluster_sync_numbering } else { grid_sync_numbering };
        Some(sync(code)).filter(|(_, n)| *n == count).map(|(v, _)| v)
    });
    // Where none pairs up: guesses, tried in turn for each exit (below).
    let collective = std::cell::OnceCell::new();
    let aligned = std::cell::OnceCell::new();
    let words = count.div_ceil(32);
    let bit = |i: usize| word32(bytes, 12 + 4 * (i / 32)) >> (i % 32) & 1 != 0;
    let (items, exit_records) = capsule_item_starts(bytes, words)?;
    let mut header = bytes.get(..12 + 4 * words.min(bytes.len()))?.to_vec();
    // (place, bytes it replaces, new bytes), ascending.
    let mut inserts: Vec<(usize, usize, Vec<u8>)> = Vec::new();
    // The exits the capsule carries (after a `CGAERRBAR`), in code order:
    // one exit record each.
    let carried: Vec<usize> = (1..ops.len()).filter(|&i| ops[i] == OP_EXIT && ops[i - 1] == OP_CGAERRBAR).collect();
    for change in &moves.exits {
        if change.before == 1 {
            let at = |numbers: &Option<Vec<Option<usize>>>| numbers.as_ref()?.get(change.index).copied().flatten();
            let k = match &number {
                Some(number) => number.get(change.index).copied().flatten()?,
                // The first guess that finds the `EXIT` bare (a set bit):
                // the alignment with the bitmap (`crate::capsule_align`),
                // then the older rules it agrees with where they were
                // found: a cluster sync's count from the end, the count
                // back from the final `BRA`, the numbering before a
                // warp-divergent fallback.
                None => {
                    let guesses: [&dyn Fn() -> Option<usize>; 4] = [
                        &|| at(aligned.get_or_init(|| aligned_numbering(code, bytes))),
                        &|| {
                            at(collective.get_or_init(|| {
                                has_cluster_arrive(code).then(|| collective_numbering_from_end(code, count)).flatten()
                            }))
                        },
                        &|| numbered_from_end(code, count, change.index),
                        &|| numbered_before_divergence(code, change.index),
                    ];
                    guesses.iter().find_map(|guess| guess().filter(|&k| k < count && bit(k)))?
                }
            };
            let carried_before = (0..k).filter(|&j| !bit(j)).count();
            // A bare `EXIT` becomes carried.
            if !bit(k) {
                return None;
            }
            let place = items.get(carried_before).copied().unwrap_or(bytes.len());
            let predicate = change.predicate;
            let mut item = EXIT_ITEM.to_vec();
            item[EXIT_ITEM_PREDICATE] = ((capsule_register(predicate) << 3) | (predicate >> 3)) as u8;
            item[EXIT_ITEM_OPERAND] = (capsule_register(change.operand) << 3) as u8;
            item[EXIT_ITEM_NEGATED] = (change.operand >> 3) as u8;
            item[..2].copy_from_slice(&count_item(EXIT_ITEM[0], change.after));
            inserts.push((place, 0, item));
            let w = 12 + 4 * (k / 32);
            let cleared = word32(&header, w) & !(1 << (k % 32));
            put32(&mut header, w, cleared);
        } else {
            // A carried exit sequence changes length: its mark (rule
            // 11.8: `51 02` → `d1 01` for 4 → 3 instructions). Found
            // among the exit records, which pair up with the carried
            // exits one to one (merc2 `stencil_smem`, whose instruction
            // count does not pair up with its code, rule 11.9).
            if exit_records.len() != carried.len() {
                return None;
            }
            let place = *exit_records.get(carried.iter().position(|&i| i == change.index)?)?;
            let old = bytes.get(place..place + 4)?;
            if old[..2] != count_item(old[0], change.before) || old[2..] != EXIT_ITEM[2..4] {
                return None;
            }
            inserts.push((place, 2, count_item(old[0], change.after).to_vec()));
        }
    }
    inserts.sort_by_key(|&(place, _, _)| place);
    let close_at = *items.last()?;
    let mut out = header;
    let mut from = 12 + 4 * words;
    for (place, replaced, item) in &inserts {
        if *place < from {
            return None;
        }
        out.extend_from_slice(bytes.get(from..*place)?);
        out.extend_from_slice(item);
        from = *place + replaced;
    }
    out.extend_from_slice(bytes.get(from..close_at)?);
    let bra = moves.own.get(ops.iter().rposition(|&o| o == OP_BRA)?)? / 16;
    // A damaged capsule may put its final `BRA` past the code's new end.
    let tail = (moves.new_size / 16).checked_sub(bra)?;
    let first = *bytes.get(close_at)?;
    out.push((first & 0x7f) | (((tail & 1) as u8) << 7));
    out.push((tail >> 1) as u8);
    Some(out)
}

/// A predicate's register as a capsule record names it: `P0`..`P6`, `PT` 31.
fn capsule_register(predicate: u64) -> u64 {
    if predicate & 7 == 7 { 31 } else { predicate & 7 }
}

/// The capsule number of instruction `index` counted back from the final
/// `BRA`, for a capsule whose count pairs up with no numbering: only where
/// every instruction from `index` to that `BRA` is one every numbering
/// counts. nw2 `tma_kernel` counts 58 of the 61 instructions up to its
/// `BRA`: by its items, three of those before its `__cuda_syscall`
/// fallback's `CALL` are left out, which no numbering models (the two
/// return-address `MOV`s are counted in libcudadevrt's kernels, and so is
/// `WARPSYNC.ALL` there and in `tma_kernel` itself); the exit before the
/// final `BRA` is numbered all the same (`tma_kernel` under `-g`: nvlink
/// carries instruction 56 of 58; sm_100, sm_100a, sm_103, sm_110, sm_120,
/// sm_121). Instructions counted in some capsules and not in others
/// (`WARPSYNC.ALL`: 24 `-G` capsules pair up only without it) make the
/// count back unsure, as do the numberings' own.
fn numbered_from_end(code: &[u8], count: usize, index: usize) -> Option<usize> {
    let words = instruction_words(code);
    let end = words.iter().rposition(|&(lo, _)| lo & 0xfff == OP_BRA)? + 1;
    let uncertain = |w: &(u64, u64)| {
        w.0 & 0xfff == OP_WARPSYNC_ALL
            || CAPSULE_NUMBERINGS[3].iter().chain(FENCE_CAPSULE_NUMBERING).any(|&p| matches(w, p))
    };
    if index >= end || words.get(index..end)?.iter().any(uncertain) {
        return None;
    }
    count.checked_sub(end - index)
}

/// The capsule number of instruction `index`, counted from the start as
/// [`CAPSULE_NUMBERINGS`]' second does but for a `NOP` right after a
/// `BRA.DIV`, which is counted, for a capsule whose count pairs up with no
/// numbering: only where `index` comes before the code a `BRA.DIV` branches
/// to (its warp-divergent fallback, reached only by branches), where the
/// instructions that numbering miscounts are. fresh3 `ps_warp_stats`: count
/// 72 where the numbering gives 73, its `__match_any_sync` /
/// `__reduce_add_sync` fallback after its last `EXIT`; nvlink carries its
/// exits as instructions 53 and 63. merc2 `jacobi` (grid syncs): count 292
/// where the numbering gives 282; the five `NOP`s after its `BRA.DIV`s are
/// counted (five more in its fallbacks make up the rest).
fn numbered_before_divergence(code: &[u8], index: usize) -> Option<usize> {
    let words = instruction_words(code);
    let divergent = |w: &(u64, u64)| w.0 & 0xfff == OP_BRA && w.0 & BRA_DIVERGENT != 0;
    let fallback = words
        .iter()
        .enumerate()
        .filter(|(_, w)| divergent(w))
        .filter_map(|(i, &(lo, _))| usize::try_from((i as i64 + 1) * 16 + branch_offset(lo)).ok())
        .map(|at| at / 16)
        .min()?;
    if index >= fallback {
        return None;
    }
    let left_out = |i: usize| {
        let w = &words[i];
        let after_divergence = w.0 & 0xfff == OP_NOP && i > 0 && divergent(&words[i - 1]);
        CAPSULE_NUMBERINGS[1].iter().any(|&p| matches(w, p)) && !after_divergence
    };
    if left_out(index) {
        return None;
    }
    Some((0..index).filter(|&i| !left_out(i)).count())
}

/// A capsule's 2-byte item of `kind` (the low 7 bits of `first`) holding
/// `count`: bit 7 of the first byte is its low bit, the second byte the
/// rest (an exit record's mark: `51 02` for 4 instructions, `d1 01` for 3).
fn count_item(first: u8, count: usize) -> [u8; 2] {
    [(first & 0x7f) | (((count & 1) as u8) << 7), (count >> 1) as u8]
}

/// Uleb/sleb length at `at`.
pub(crate) fn leb(bytes: &[u8], at: usize) -> Option<usize> {
    let mut n = 0;
    while *bytes.get(at + n)? & 0x80 != 0 {
        n += 1;
    }
    Some(n + 1)
}

pub(crate) fn uleb(bytes: &[u8], at: usize) -> Option<u64> {
    let mut v = 0u64;
    let n = leb(bytes, at)?;
    if n > 9 {
        return None;
    }
    for k in 0..n {
        v |= u64::from(bytes[at + k] & 0x7f) << (7 * k);
    }
    Some(v)
}

/// One call-frame operation at `at`: its length and, for a
/// `DW_CFA_advance_loc*`, its advance in code units. `None` for an
/// operation not known here (or `DW_CFA_set_loc`).
pub(crate) fn cfa_op(program: &[u8], at: usize) -> Option<(usize, Option<u64>)> {
    let op = *program.get(at)?;
    let (width, len) = match op >> 6 {
        1 => (0, 1),
        2 => (9, 1 + leb(program, at + 1)?),
        3 => (9, 1),
        _ => match op {
            0x02 => (1, 2),
            0x03 => (2, 3),
            0x04 => (4, 5),
            0x00 | 0x0a | 0x0b => (9, 1),
            0x06..=0x08 | 0x0d | 0x0e | 0x13 | 0x2e => (9, 1 + leb(program, at + 1)?),
            0x05 | 0x09 | 0x0c | 0x11 | 0x12 | 0x14 | 0x15 => {
                let a = leb(program, at + 1)?;
                (9, 1 + a + leb(program, at + 1 + a)?)
            }
            0x0f => {
                let a = leb(program, at + 1)?;
                (9, 1 + a + uleb(program, at + 1)? as usize)
            }
            0x10 | 0x16 => {
                let a = leb(program, at + 1)?;
                let b = leb(program, at + 1 + a)?;
                (9, 1 + a + b + uleb(program, at + 1 + a)? as usize)
            }
            _ => return None,
        },
    };
    if at + len > program.len() {
        return None;
    }
    let advance = match width {
        0 => Some(u64::from(op & 0x3f)),
        1 => Some(u64::from(program[at + 1])),
        2 => Some(u64::from(u16::from_le_bytes([program[at + 1], program[at + 2]]))),
        4 => Some(u64::from(word32(program, at + 1))),
        _ => None,
    };
    Some((len, advance))
}

/// Rewrites the locations of one FDE's call-frame program in place
/// (`DW_CFA_advance_loc*` keep their widths). `None` when an operation is
/// not one this reader knows or an advance does not fit.
fn move_frame_program(program: &mut [u8], align: u64, base: u64, moves: &Moves) -> Option<()> {
    let mut at = 0;
    let (mut old_loc, mut new_loc) = (base, moves.address(base));
    while at < program.len() {
        let (len, advance) = cfa_op(program, at)?;
        if let Some(delta) = advance {
            old_loc = old_loc.checked_add(delta.checked_mul(align)?)?;
            let target = moves.address(old_loc);
            let new_delta = target.checked_sub(new_loc)? / align;
            new_loc = new_loc.checked_add(new_delta.checked_mul(align)?)?;
            // The advance keeps its width: the bytes after the opcode, or
            // none (`DW_CFA_advance_loc`, in the opcode's low six bits).
            match len - 1 {
                0 if new_delta < 0x40 => program[at] = 0x40 | new_delta as u8,
                1 if new_delta < 0x100 => program[at + 1] = new_delta as u8,
                2 if new_delta < 0x1_0000 => program[at + 1..at + 3].copy_from_slice(&(new_delta as u16).to_le_bytes()),
                4 if new_delta < 0x1_0000_0000 => put32(program, at + 1, new_delta as u32),
                _ => return None,
            }
        }
        at += len;
    }
    Some(())
}

/// `.debug_frame` (64-bit DWARF, as ptxas writes it): the FDEs of rewritten
/// functions get their range and location advances moved. `fdes`: FDE
/// start → the rewritten text it describes (from the initial-location
/// relocation at FDE + 0x14).
fn move_frames(data: &[u8], fdes: &HashMap<u64, &Moves>) -> Vec<u8> {
    let mut out = data.to_vec();
    let mut at = 0usize;
    let mut align = 4;
    while at + 12 <= out.len() {
        let (len, head) = if word32(&out, at) == u32::MAX {
            (word(&out, at + 4) as usize, 12)
        } else {
            (word32(&out, at) as usize, 4)
        };
        let end = at + head + len;
        if len == 0 || end > out.len() || head != 12 {
            break;
        }
        let is_cie = word(&out, at + 12) == u64::MAX;
        if is_cie {
            // version, "" augmentation, code alignment factor.
            if out.get(at + 21) == Some(&0) {
                align = uleb(&out, at + 22).unwrap_or(4).max(1);
            }
        } else if let Some(moves) = fdes.get(&(at as u64)).filter(|_| end >= at + 0x24) {
            let base = word(&out, at + 0x14);
            let range = word(&out, at + 0x1c);
            let saved = out[at + 0x24..end].to_vec();
            let ok = move_frame_program(&mut out[at + 0x24..end], align, base, moves).is_some();
            if !ok {
                out[at + 0x24..end].copy_from_slice(&saved);
            }
            put(&mut out, at + 0x1c, moves.address(base.saturating_add(range)).saturating_sub(moves.address(base)));
        }
        at = end;
    }
    out
}

/// `DW_LNS_advance_pc`/`advance_line` operands as nvlink writes them: in
/// SLEB128 form (0x40 is `c0 00`, 0x50 `d0 00`: debug-lineinfo, merc2).
pub(crate) fn sleb(mut v: i64, out: &mut Vec<u8>) {
    loop {
        let byte = (v & 0x7f) as u8;
        v >>= 7;
        let done = (v == 0 && byte & 0x40 == 0) || (v == -1 && byte & 0x40 != 0);
        out.push(if done { byte } else { byte | 0x80 });
        if done {
            return;
        }
    }
}

/// What a line program's header says about its opcodes (DWARF 2/3, 32-bit
/// lengths, as ptxas writes them).
pub(crate) struct LineHeader {
    pub(crate) min_inst: u64,
    pub(crate) line_base: i8,
    pub(crate) line_range: u8,
    pub(crate) opcode_base: u8,
    /// Operand counts of the standard opcodes 1..opcode_base.
    pub(crate) operands: Vec<u8>,
}

impl LineHeader {
    /// The header of the unit at `unit` (its fixed fields from offset 10).
    pub(crate) fn read(bytes: &[u8], unit: usize) -> Option<LineHeader> {
        let (min_inst, line_base, line_range, opcode_base) = (
            u64::from(*bytes.get(unit + 10)?),
            *bytes.get(unit + 12)? as i8,
            *bytes.get(unit + 13)?,
            *bytes.get(unit + 14)?,
        );
        if min_inst == 0 || line_range == 0 || opcode_base == 0 {
            return None;
        }
        let operands = bytes.get(unit + 15..unit + 15 + usize::from(opcode_base) - 1)?.to_vec();
        Some(LineHeader { min_inst, line_base, line_range, opcode_base, operands })
    }
}

/// A line table (`.debug_line`, `.nv_debug_line_sass`: DWARF 2/3 with
/// 32-bit lengths, as ptxas writes them) with the rows of rewritten
/// functions moved: each address advance becomes the moved difference; a
/// special opcode that no longer fits becomes `advance_line` (when the
/// line moves) + `advance_pc` + `copy` (debug-lineinfo: `f4` → `03 02 02 c0
/// 00 01`). `sequences`: the offset of a `DW_LNE_set_address` operand → the
/// function it names (from its relocation) and the relocation's addend.
/// Returns the new table and, per old operand offset, its new one; `None`
/// when an operation is not one this reader follows.
/// A moved line table and, per old `DW_LNE_set_address` operand offset, its new one.
type MovedLines = (Vec<u8>, Vec<(u64, u64)>);

fn move_lines(data: &[u8], sequences: &HashMap<u64, (&Moves, u64)>) -> Option<MovedLines> {
    let mut out = Vec::with_capacity(data.len() + 64);
    let mut moved = Vec::new();
    let mut unit = 0usize;
    while unit + 10 <= data.len() {
        let length = word32(data, unit) as usize;
        let end = unit.checked_add(4 + length).filter(|&e| e <= data.len() && length < 0xffff_fff0)?;
        let header = word32(data, unit + 6) as usize;
        let program = unit + 10 + header;
        let LineHeader { min_inst, line_base, line_range, opcode_base, operands: lengths } =
            LineHeader::read(data, unit)?;
        if program > end {
            return None;
        }
        let start = out.len();
        out.extend_from_slice(&data[unit..program]);
        let mut at = program;
        // (moves, old address, new address) of the current sequence.
        let mut seq: Option<(&Moves, u64, u64)> = None;
        while at < end {
            let op = data[at];
            let step = |seq: &mut Option<(&Moves, u64, u64)>, advance: u64| -> Option<u64> {
                let (m, old, new) = seq.as_mut()?;
                *old = old.checked_add(advance)?;
                let target = m.address(*old);
                let delta = target.checked_sub(*new)?;
                *new = target;
                Some(delta)
            };
            if op >= opcode_base {
                let adjusted = op - opcode_base;
                let advance = u64::from(adjusted / line_range) * min_inst;
                let line = i64::from(line_base) + i64::from(adjusted % line_range);
                let delta = if seq.is_some() { step(&mut seq, advance)? } else { advance };
                let fits = (delta / min_inst)
                    .saturating_mul(u64::from(line_range))
                    .saturating_add(u64::from(adjusted % line_range) + u64::from(opcode_base));
                if delta % min_inst == 0 && fits <= 0xff {
                    out.push(fits as u8);
                } else {
                    if line != 0 {
                        out.push(0x03);
                        sleb(line, &mut out);
                    }
                    out.push(0x02);
                    sleb((delta / min_inst) as i64, &mut out);
                    out.push(0x01);
                }
                at += 1;
                continue;
            }
            match op {
                0 => {
                    let n = uleb(data, at + 1)? as usize;
                    let body = at + 1 + leb(data, at + 1)?;
                    let next = body.checked_add(n).filter(|&x| x <= end)?;
                    match data.get(body) {
                        Some(2) if n == 9 => {
                            seq = sequences.get(&((body + 1) as u64)).map(|&(m, base)| (m, base, m.address(base)));
                            moved.push(((body + 1) as u64, (out.len() + body + 1 - at) as u64));
                        }
                        Some(1) => seq = None,
                        _ => {}
                    }
                    out.extend_from_slice(&data[at..next]);
                    at = next;
                }
                0x02 => {
                    let n = leb(data, at + 1)?;
                    let advance = uleb(data, at + 1)?.checked_mul(min_inst)?;
                    let delta = if seq.is_some() { step(&mut seq, advance)? } else { advance };
                    if delta == advance {
                        out.extend_from_slice(&data[at..at + 1 + n]);
                    } else {
                        out.push(0x02);
                        sleb((delta / min_inst) as i64, &mut out);
                    }
                    at += 1 + n;
                }
                0x08 | 0x09 if seq.is_some() => return None,
                0x09 => {
                    out.extend_from_slice(data.get(at..at + 3)?);
                    at += 3;
                }
                _ => {
                    let args = usize::from(*lengths.get(usize::from(op) - 1)?);
                    let mut next = at + 1;
                    for _ in 0..args {
                        next += leb(data, next)?;
                    }
                    out.extend_from_slice(data.get(at..next)?);
                    at = next;
                }
            }
        }
        let new_length = u32::try_from(out.len() - start - 4).ok()?;
        put32(&mut out, start, new_length);
        unit = end;
    }
    out.extend_from_slice(data.get(unit..)?);
    Some((out, moved))
}

/// `.nv_debug_info_reg_sass` (`-G`; per function: its name, a u32 count,
/// then per register a u32, its name, a u32 location and the u32 start and
/// end of its range in the function's code): the ranges of rewritten
/// functions move (rule 11.8: merc2 `setup`'s ends at the first exit,
/// 0x570 → 0x560). `None` when nothing moves or the table does not parse.
/// The merc copy describes the expanded code and stays.
fn move_register_ranges<'m>(data: &[u8], moves: impl Fn(&[u8]) -> Option<&'m Moves>) -> Option<Vec<u8>> {
    let mut out = data.to_vec();
    let mut changed = false;
    let string_end = |from: usize| data.get(from..).and_then(|b| b.iter().position(|&c| c == 0)).map(|n| from + n);
    let mut at = 0usize;
    while at < data.len() {
        let name_end = string_end(at)?;
        let count = word32(data, name_end + 1);
        let m = moves(&data[at..name_end]);
        let mut entry = name_end + 5;
        for _ in 0..count {
            let range = string_end(entry + 4)? + 5;
            if data.len() < range + 8 {
                return None;
            }
            if let Some(m) = m {
                for k in [range, range + 4] {
                    let old = u64::from(word32(data, k));
                    let new = u32::try_from(m.address(old)).ok()?;
                    changed |= u64::from(new) != old;
                    put32(&mut out, k, new);
                }
            }
            entry = range + 8;
        }
        at = entry;
    }
    changed.then_some(out)
}

/// `.nv.info.<fn>`: the offset lists of [`OFFSET_LISTS`].
fn move_info(data: &[u8], moves: &Moves) -> Vec<u8> {
    let mut out = data.to_vec();
    let mut at = 0;
    while at + 4 <= out.len() {
        let (format, attribute) = (out[at], out[at + 1]);
        let size = if format == EIFMT_SVAL { usize::from(u16::from_le_bytes([out[at + 2], out[at + 3]])) } else { 0 };
        if at + 4 + size > out.len() {
            break;
        }
        if format == EIFMT_SVAL && attribute == develf_format::nvinfo::EIATTR_INDIRECT_BRANCH_TARGETS {
            move_branch_targets(&mut out[at + 4..at + 4 + size], moves);
        } else if format == EIFMT_SVAL && attribute == develf_format::nvinfo::EIATTR_ANNOTATIONS {
            move_annotations(&mut out[at + 4..at + 4 + size], moves);
        } else if let Some(&(_, entry)) = OFFSET_LISTS.iter().find(|l| format == EIFMT_SVAL && l.0 == attribute) {
            for k in (at + 4..at + 4 + size).step_by(entry).filter(|k| k + 4 <= at + 4 + size) {
                let v = u64::from(word32(&out, k));
                put32(&mut out, k, moves.instruction(v) as u32);
            }
        }
        at += 4 + size;
    }
    out
}

/// `EIATTR_INDIRECT_BRANCH_TARGETS`' entries (develf-eiattr's
/// [`IndirectBranches`]): each branch moves as an instruction, its targets
/// as branch targets (sweep16 p185 `saturation_boost` under `-g`, sm_100:
/// `0x1520: 0x1570 0x1530 0x15a0` becomes `0x1550: 0x15a0 0x1560 0x15d0`).
/// A payload that does not decode is left as it is.
fn move_branch_targets(payload: &mut [u8], moves: &Moves) {
    let Some(IndirectBranches(mut branches)) = IndirectBranches::decode(0, payload) else { return };
    for branch in &mut branches {
        branch.offset = moves.instruction(u64::from(branch.offset)) as u32;
        for target in &mut branch.targets {
            *target = moves.address(u64::from(*target)) as u32;
        }
    }
    let mut moved = Vec::with_capacity(payload.len());
    IndirectBranches(branches).encode(&mut moved);
    if moved.len() == payload.len() {
        payload.copy_from_slice(&moved);
    }
}

/// `EIATTR_ANNOTATIONS`' (kind, instruction offset) pairs, where every kind
/// is 1 (`SpillRefill` to cuobjdump): the offsets move as instructions
/// (sweep16 p188 `mc_path_dependent` under `-g`, sm_120: those after the
/// inserted barriers 0x60 on, 0x2f0 → 0x350). Other kinds, whose layout is
/// not known, leave the list as it is.
fn move_annotations(payload: &mut [u8], moves: &Moves) {
    if payload.len() % 8 != 0 || (0..payload.len()).step_by(8).any(|at| word32(payload, at) != 1) {
        return;
    }
    for at in (0..payload.len()).step_by(8) {
        put32(payload, at + 4, moves.instruction(u64::from(word32(payload, at + 4))) as u32);
    }
}

/// The targets `EIATTR_INDIRECT_BRANCH_TARGETS` lists in a `.nv.info.<fn>`.
fn branch_targets(info: &[u8]) -> Vec<u32> {
    develf_format::nvinfo::records(info)
        .flatten()
        .filter(|r| r.format == EIFMT_SVAL && r.attribute == develf_format::nvinfo::EIATTR_INDIRECT_BRANCH_TARGETS)
        .filter_map(|r| IndirectBranches::decode(r.value, r.payload))
        .flat_map(|IndirectBranches(branches)| branches.into_iter().flat_map(|b| b.targets))
        .collect()
}

/// A function's `.nv.constant2.<fn>` (its jump tables, unrelocated function
/// offsets) with each word that names a listed branch target moved as a
/// branch target is (sweep16 p185 `saturation_boost` under `-g`: the
/// table `0x1570 0x1530 0x15a0` becomes `0x15a0 0x1560 0x15d0`, where
/// develf's `switch` jumped 0x30 short).
fn move_jump_tables(bank: &[u8], targets: &[u32], moves: &Moves) -> Vec<u8> {
    let mut out = bank.to_vec();
    for at in (0..out.len().saturating_sub(3)).step_by(4) {
        let v = word32(&out, at);
        if targets.contains(&v) {
            put32(&mut out, at, moves.address(u64::from(v)) as u32);
        }
    }
    out
}

/// Whether code holds the fence workaround (a quick test before an input
/// is copied; code read lazily is looked at after it is read in).
fn has_fence(code: &[u8]) -> bool {
    code.chunks_exact(16).any(|c| word(c, 0) & 0xffff_ffff == FENCE_LDS.1)
}

/// The input's bytes with its code read in.
fn materialise(input: &Input<'_>, cubin: &Cubin<'_>) -> Option<Vec<u8>> {
    let mut bytes = input.bytes.to_vec();
    if let Some(source) = input.code {
        for s in cubin.sections().iter().filter(|s| is_code_section(s.sh_type, s.flags)) {
            let at = usize::try_from(s.offset).ok()?;
            let len = usize::try_from(s.size).ok()?;
            source.read_exact_at(bytes.get_mut(at..at.checked_add(len)?)?, s.offset).ok()?;
        }
    }
    Some(bytes)
}

/// The largest section alignment a grown section is placed with (code is
/// 128-aligned); a larger one is a damaged input, which is left as it is.
const MAX_ALIGN: u64 = 4096;

/// New contents for sections: appended at the end when they grow. `None`
/// (nothing written) where the section header does not fit the file.
fn replace(bytes: &mut Vec<u8>, s: &Section<'_>, new: &[u8]) -> Option<()> {
    let header = usize::try_from(s.header_offset).ok()?;
    let (offset_at, size_at) = (header.checked_add(24)?, header.checked_add(32)?);
    if new.len() as u64 <= s.size {
        let at = usize::try_from(s.offset).ok()?;
        bytes.get_mut(at..at.checked_add(new.len())?)?.copy_from_slice(new);
    } else {
        let align = usize::try_from(s.addralign.max(16)).ok().filter(|&a| a as u64 <= MAX_ALIGN)?;
        let at = bytes.len().div_ceil(align).checked_mul(align)?;
        bytes.resize(at, 0);
        bytes.extend_from_slice(new);
        put(bytes, offset_at, at as u64);
    }
    put(bytes, size_at, new.len() as u64);
    Some(())
}

fn rewrite_input(input: &Input<'_>, rewrite: Rewrite) -> Option<Vec<u8>> {
    let first = Cubin::parse(input.bytes).ok()?;
    // A damaged input is left as it is, for the link to report on the
    // user's bytes rather than on a rewritten copy's (whose size the
    // message would give: the fuzz target, session 9).
    if crate::input::section_outside_file(&first).is_some() {
        return None;
    }
    if rewrite.exits.is_none()
        && input.code.is_none()
        && !first.sections().iter().any(|s| is_code_section(s.sh_type, s.flags) && s.data.is_some_and(has_fence))
    {
        return None;
    }
    let bytes = materialise(input, &first)?;
    let cubin = Cubin::parse(&bytes).ok()?;
    let sections = cubin.sections();
    let mut moves: HashMap<usize, Moves> = HashMap::new();
    // Only kernels lose the workaround (device functions keep theirs: asm
    // `lane_perm`, atom `fmin_all`).
    let is_kernel_text = |k: usize| cubin.symbols().iter().any(|y| y.section_index() == Some(k) && is_kernel(y));
    for s in sections.iter().filter(|s| is_code_section(s.sh_type, s.flags) && s.name.starts_with(".text.")) {
        let data = s.data?;
        let fences = rewrite.fences && is_kernel_text(s.index);
        let mut planned = rewrite.exits.and_then(|rule| plan(data, rule, fences));
        if planned.is_none() && fences {
            planned = plan_fence(data);
        }
        if let Some(m) = planned {
            moves.insert(s.index, m);
        }
    }
    if moves.is_empty() {
        return None;
    }
    let symbols = cubin.symbols();
    let symbol_section = |k: u32| symbols.get(k as usize).and_then(|y| y.section_index());
    let mut new: Vec<(usize, Vec<u8>)> = Vec::new();
    let mut out = bytes.clone();
    // Symbols: values and sizes in rewritten functions.
    if let Some(table) = cubin.symtab() {
        let base = sections.get(table.section)?.offset as usize;
        for y in &table.symbols {
            let Some(m) = y.section_index().and_then(|k| moves.get(&k)) else { continue };
            let at = base + 24 * y.index;
            let value = m.address(y.value);
            put(&mut out, at + 8, value);
            put(&mut out, at + 16, m.address(y.value.saturating_add(y.size)).saturating_sub(value));
        }
    }
    // Relocations: offsets in rewritten code, code-address addends.
    let mut fdes: HashMap<u64, &Moves> = HashMap::new();
    let frame = sections.iter().find(|s| s.name == ".debug_frame");
    let is_line_table =
        |k: usize| sections.get(k).is_some_and(|s| s.name == ".debug_line" || s.name == ".nv_debug_line_sass");
    let mut sequences: HashMap<usize, HashMap<u64, (&Moves, u64)>> = HashMap::new();
    for r in cubin.relocation_sections() {
        let s = sections.get(r.section)?;
        if s.sh_type != SHT_RELA || sections.get(r.symtab as usize).is_none_or(|t| t.sh_type != SHT_SYMTAB) {
            continue;
        }
        let target = moves.get(&(r.target as usize));
        let is_frame = frame.is_some_and(|f| f.index == r.target as usize);
        for e in r.entries() {
            let at = s.offset as usize + 24 * e.index;
            if let Some(m) = target {
                put(&mut out, at, m.instruction(e.offset));
            }
            if let Some(m) = symbol_section(e.symbol).and_then(|k| moves.get(&k)) {
                let addend = e.addend.unwrap_or(0);
                if addend >= 0 {
                    put(&mut out, at + 16, m.address(addend as u64));
                }
                if is_frame && e.offset >= 0x14 {
                    fdes.insert(e.offset - 0x14, m);
                }
                if is_line_table(r.target as usize) && addend >= 0 {
                    sequences.entry(r.target as usize).or_default().insert(e.offset, (m, addend as u64));
                }
            }
        }
    }
    for s in sections {
        if let Some(m) = moves.get(&s.index) {
            new.push((s.index, m.code.clone()));
        } else if s.sh_type == SHT_CUDA_INFO && s.name.starts_with(".nv.info.") {
            if let Some(m) = moves.get(&(s.info as usize)) {
                new.push((s.index, move_info(s.data?, m)));
            }
        } else if let Some(function) = s.name.strip_prefix(".nv.constant2.") {
            // A moved function's jump tables, the targets its `.nv.info`
            // lists.
            let Some(t) = sections.iter().find(|t| t.name.strip_prefix(".text.") == Some(function)) else { continue };
            let Some(m) = moves.get(&t.index) else { continue };
            let info = sections
                .iter()
                .find(|i| i.sh_type == SHT_CUDA_INFO && i.info as usize == t.index && i.name.starts_with(".nv.info."));
            let targets = info.map(|i| branch_targets(i.data.unwrap_or_default())).unwrap_or_default();
            if !targets.is_empty() {
                new.push((s.index, move_jump_tables(s.data?, &targets, m)));
            }
        } else if s.sh_type == SHT_CUDA_CAPMERC {
            let text = sections.iter().find(|t| s.name.strip_prefix(".nv.capmerc").is_some_and(|n| t.name == n))?;
            if let Some(m) = moves.get(&text.index) {
                // A fence removal changes no exit sequence.
                let moved = if m.exits.is_empty() {
                    capsule_fence(s.data?, text.data?, m)
                } else if m.fence_removed {
                    capsule(s.data?, text.data?, m).and_then(|c| capsule_fence(&c, text.data?, m))
                } else {
                    capsule(s.data?, text.data?, m)
                };
                if let Some(c) = moved {
                    new.push((s.index, c));
                }
            }
        } else if Some(s.index) == frame.map(|f| f.index) && !fdes.is_empty() {
            new.push((s.index, move_frames(s.data?, &fdes)));
        } else if s.name == ".nv_debug_info_reg_sass" {
            let by_name = |name: &[u8]| {
                let name = std::str::from_utf8(name).ok()?;
                let text = sections.iter().find(|t| t.name.strip_prefix(".text.") == Some(name))?;
                moves.get(&text.index)
            };
            if let Some(table) = move_register_ranges(s.data?, by_name) {
                new.push((s.index, table));
            }
        } else if let Some(list) = sequences.get(&s.index) {
            // The table's own relocations (at `DW_LNE_set_address` operands) move with it.
            if let Some((table, moved)) = move_lines(s.data?, list) {
                new.push((s.index, table));
                let moved: HashMap<u64, u64> = moved.into_iter().collect();
                for r in cubin.relocation_sections().filter(|r| r.target as usize == s.index) {
                    let rs = sections.get(r.section)?;
                    if rs.sh_type != SHT_RELA {
                        continue;
                    }
                    for e in r.entries() {
                        if let Some(&to) = moved.get(&e.offset) {
                            put(&mut out, rs.offset as usize + 24 * e.index, to);
                        }
                    }
                }
            }
        }
    }
    for (k, data) in &new {
        replace(&mut out, sections.get(*k)?, data)?;
    }
    Some(out)
}

#[cfg(test)]
mod tests {
    use super::*;

    /// A grown section is appended at its alignment; a hostile alignment
    /// or a header outside the file writes nothing (the fuzz target once
    /// made this allocate 0xf0_0000_0080 bytes).
    #[test]
    fn replace_grows_sections_within_bounds() {
        let section = |addralign: u64, header_offset: u64| Section {
            index: 1,
            name_offset: 0,
            name: ".text.f",
            sh_type: 1,
            flags: 6,
            addr: 0,
            offset: 0x40,
            size: 0x10,
            link: 0,
            info: 0,
            addralign,
            entsize: 0,
            header_offset,
            data: None,
        };
        let grown = [7u8; 0x20];
        let mut bytes = vec![0u8; 0x100];
        assert_eq!(replace(&mut bytes, &section(128, 0x80), &grown), Some(()));
        assert_eq!((bytes.len(), &bytes[0x100..0x120]), (0x120, &grown[..]));
        assert_eq!(u64::from_le_bytes(bytes[0x98..0xa0].try_into().unwrap_or_default()), 0x100, "sh_offset");
        assert_eq!(u64::from_le_bytes(bytes[0xa0..0xa8].try_into().unwrap_or_default()), 0x20, "sh_size");
        let mut bytes = vec![0u8; 0x100];
        assert_eq!(replace(&mut bytes, &section(0xf0_0000_0000, 0x80), &grown), None);
        assert_eq!(bytes.len(), 0x100);
        assert_eq!(replace(&mut bytes, &section(16, u64::MAX), &grown[..8]), None);
    }

    #[test]
    fn branch_offsets_round_trip() {
        // `BRA` to itself and a forward `@P0 BRA` (merc2 hist_kernel).
        for lo in [0xffff_fffc_00fc_7947u64, 0x0000_0002_046c_7947] {
            assert_eq!(with_branch_offset(lo, branch_offset(lo)), lo);
        }
        assert_eq!(branch_offset(0xffff_fffc_00fc_7947), -16);
        assert_eq!(branch_offset(0x0000_0002_0484_7947) - branch_offset(0x0000_0002_046c_7947), 0x60);
    }

    /// `.text` bytes: `instructions` (low, high words), then NOPs up to
    /// `total` instructions.
    fn code_of(instructions: &[(u64, u64)], total: usize) -> Vec<u8> {
        let nop = (0x7918, 0x000f_c000_0000_0000);
        let padding = std::iter::repeat_n(&nop, total.saturating_sub(instructions.len()));
        instructions.iter().chain(padding).flat_map(|(lo, hi)| [lo.to_le_bytes(), hi.to_le_bytes()]).flatten().collect()
    }

    #[test]
    fn exits_get_barriers() {
        // LDC R1; @P0 EXIT; EXIT; BRA self; NOP padding to 0x100.
        let code = code_of(
            &[
                (0x0000_df00_ff01_7b82, 0x000f_e200_0000_0800),
                (0x0000_0000_0000_094d, 0x000f_ea00_0380_0000),
                (0x0000_0000_0000_794d, 0x000f_ea00_0380_0000),
                (0xffff_fffc_00fc_7947, 0x000f_c000_0383_ffff),
            ],
            16,
        );
        let m = plan(&code, ExitRule::Barriers, false).expect("two EXITs to rewrite");
        assert_eq!((m.old_size, m.new_size), (0x100, 0x180));
        assert_eq!(word(&m.code, 0x10), 0x0992);
        assert_eq!(word(&m.code, 0x40), 0x094d);
        assert_eq!(word(&m.code, 0x50), 0x7992);
        assert_eq!(word(&m.code, 0x80), 0x794d);
        assert_eq!(word(&m.code, 0x90), 0xffff_fffc_00fc_7947);
        assert_eq!(m.instruction(0x10), 0x40);
        assert_eq!(m.address(0x10), 0x10);
        assert_eq!(m.address(0x100), 0x180);
        // An executable with a `-G` input: a kernel without calls gets
        // `ERRBAR; CGAERRBAR` (no `MEMBAR.SC.VC`) and the finaliser's
        // scoreboards, the stack load's gone (t1 `nk_nocall`); one with
        // calls gets the barriers as under `-g`.
        let m = plan(&code, ExitRule::ByCalls, false).expect("a kernel without calls, rescheduled");
        assert_eq!(m.new_size, 0x100);
        assert_eq!([word(&m.code, 0x10), word(&m.code, 0x20), word(&m.code, 0x30)], [0x09ab, 0x05ab, 0x094d]);
        assert_eq!([word(&m.code, 0x40), word(&m.code, 0x50), word(&m.code, 0x60)], [0x79ab, 0x75ab, 0x794d]);
        assert_eq!(word(&m.code, 8) >> (CONTROL_SHIFT + 5) & 7, 7, "the stack load's write barrier");
        let mut with_call = code.clone();
        with_call[..16]
            .copy_from_slice(&[&0x7943u64.to_le_bytes()[..], &0x000f_ea00_0380_0000u64.to_le_bytes()].concat());
        assert_eq!(plan(&with_call, ExitRule::ByCalls, false).map(|m| m.new_size), Some(0x180));
    }

    /// `-G` code: `[MEMBAR.SC.VC; ERRBAR; CGAERRBAR;] EXIT`, twice.
    fn debug_code(call: bool) -> Vec<u8> {
        let mut instructions = vec![(if call { 0x7943 } else { 0x0000_df00_ff01_7b82 }, 0x000f_e200_0000_0800)];
        // A forward `@P0 BRA` over the first exit sequence, to the second.
        instructions.push((0x0000_0000_0010_0947, 0x000f_c000_0380_0000));
        for predicate in [0x0000, 0x7000] {
            instructions.extend(BARRIERS.iter().map(|&(lo, hi)| (lo | predicate, hi)));
            instructions.push((0x094d | predicate, 0x000f_ea00_0380_0000));
        }
        instructions.push((0xffff_fffc_00fc_7947, 0x000f_c000_0383_ffff));
        code_of(&instructions, 24)
    }

    #[test]
    fn debug_kernels_without_calls_lose_their_membar() {
        let code = debug_code(false);
        assert!(plan(&code, ExitRule::Barriers, false).is_none(), "-g and -r keep -G code");
        let m = plan(&code, ExitRule::ByCalls, false).expect("two MEMBAR.SC.VC to remove");
        // 11 instructions end at 0xb0, 9 at 0x90: the section keeps its size.
        assert_eq!((m.old_size, m.new_size, m.delta), (0x180, 0x180, -0x20));
        let ops: Vec<u64> = m.code.chunks_exact(16).take(10).map(|c| word(c, 0) & 0xfff).collect();
        assert_eq!(ops, [0xb82, 0x947, 0x9ab, 0x5ab, 0x94d, 0x9ab, 0x5ab, 0x94d, 0x947, 0x918]);
        // The branch to the second sequence's `MEMBAR.SC.VC` now reaches its `ERRBAR`.
        assert_eq!(branch_offset(word(&m.code, 0x10)), 0x30);
        // Exit offsets name the sequences' first instructions.
        assert_eq!((m.instruction(0x20), m.instruction(0x60)), (0x20, 0x50));
        assert_eq!(m.address(0xa0), 0x80);
        assert_eq!(m.exits.iter().map(|e| (e.index, e.before, e.after)).collect::<Vec<_>>(), [(5, 4, 3), (9, 4, 3)]);
        assert!(plan(&debug_code(true), ExitRule::ByCalls, false).is_none(), "kernels with calls keep it");
    }

    #[test]
    fn count_items() {
        assert_eq!(count_item(0x51, 4), [0x51, 0x02]);
        assert_eq!(count_item(0x51, 3), [0xd1, 0x01]);
        assert_eq!(count_item(0xd0, 16), [0x50, 0x08]);
    }

    #[test]
    fn mbarrier_entries_move_only_their_offset() {
        // LDC R1; @P0 EXIT; NOP; EXIT; BRA self; NOP padding to 0x100.
        let code = code_of(
            &[
                (0x0000_df00_ff01_7b82, 0x000f_e200_0000_0800),
                (0x0000_0000_0000_094d, 0x000f_ea00_0380_0000),
                (0x7918, 0x000f_c000_0000_0000),
                (0x0000_0000_0000_794d, 0x000f_ea00_0380_0000),
                (0xffff_fffc_00fc_7947, 0x000f_c000_0383_ffff),
            ],
            16,
        );
        let m = plan(&code, ExitRule::Barriers, false).expect("two EXITs to rewrite");
        // EIATTR_MBARRIER_INSTR_OFFSETS as ptxas writes it (mbar_b.cu,
        // sm_100): offset, register 0xff, 0, kind and stride; then an
        // EXIT_INSTR_OFFSETS list. nvlink `-g` moves the offsets and keeps
        // `MBARRIER_STRIDE_X4` (cuobjdump -elf of its output).
        let mut info = vec![4, develf_format::nvinfo::EIATTR_MBARRIER_INSTR_OFFSETS, 16, 0];
        for w in [0x20u32, 0xff, 0, 0x60100] {
            info.extend_from_slice(&w.to_le_bytes());
        }
        info.extend_from_slice(&[4, develf_format::nvinfo::EIATTR_EXIT_INSTR_OFFSETS, 8, 0]);
        for w in [0x10u32, 0x30] {
            info.extend_from_slice(&w.to_le_bytes());
        }
        let moved = move_info(&info, &m);
        let words: Vec<u32> = moved[4..20].chunks(4).map(|c| u32::from_le_bytes([c[0], c[1], c[2], c[3]])).collect();
        assert_eq!(words, [0x50, 0xff, 0, 0x60100]);
        assert_eq!(word32(&moved, 24), 0x40);
        assert_eq!(word32(&moved, 28), 0x90);
    }
}
