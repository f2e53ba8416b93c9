//! The general registers a Mercury (sm_100+) SASS instruction writes, and
//! those a store reads: what rule 11.3 needs to tell where a store's source
//! registers are overwritten (crate::scoreboard, `moved_reuse_waits`).
//!
//! Only instructions in the tables below are known; any other answers
//! `None`, and the caller leaves the code as ptxas wrote it. Each table was
//! checked against nvdisasm 13.5 on the 166,840 instructions of 472 sm_100+
//! objects (fixtures, the helpers' programs, /tmp/s14/typ textbook kernels;
//! session 18): the destination is the `Rd` field (bits 16..24 of the low
//! word) in every one of them, `RZ` (0xff) where the instruction writes a
//! predicate only (`LOP3.LUT P0, RZ, ...`), and the widths below match the
//! `.64`, `.128`, `.WIDE` and double-precision forms nvdisasm prints.

/// A run of general registers: the first and how many.
pub(crate) type Registers = (u64, u64);

/// `RZ`, the zero register: reading or writing it touches nothing.
const RZ: u64 = 0xff;

/// Low 12 bits of instructions writing one register, `Rd`: `MOV`, `IADD3`,
/// `IMAD` (not `.WIDE`), `SHF`, `FFMA`, `LOP3`, `FADD`, `FMUL`, `S2R`,
/// `I2FP`, `VIADD`, `FSEL`, `SEL`, `LEA`, `PRMT`, `HFMA2`, `MUFU`, `IADD`,
/// `VIMNMX` (sweep12 p131 `level_sweep`, sm_120), in the operand forms seen
/// (0x2.. register, 0x4.. and 0x8.. immediate, 0xa.. constant, 0xc.. and
/// 0xe.. uniform register); `FSEL` and `SEL` with a uniform operand (0xc08,
/// 0xc07: sweep20 p216 `ds_norms_k`, sm_100).
const WRITES_ONE: [u64; 55] = [
    0x202, 0x802, 0xc02, 0x210, 0x810, 0xc10, 0xa10, 0xe10, 0x224, 0x824, 0xc24, 0xa24, 0xe24, 0x424, 0x827, 0x235,
    0x835, 0x219, 0x819, 0xc19, 0x223, 0x823, 0x423, 0xa23, 0xc23, 0xe23, 0x212, 0x812, 0xc12, 0x221, 0x821, 0xc21,
    0xa21, 0x220, 0x820, 0xc20, 0xa20, 0x919, 0x245, 0xc45, 0x836, 0x208, 0x808, 0x207, 0x807, 0x211, 0x811, 0xc11,
    0x816, 0x216, 0x431, 0x308, 0x248, 0xc08, 0xc07,
];

/// Low 12 bits of instructions writing a register pair at `Rd`:
/// `IMAD.WIDE` (and `.U32`), `DADD` (also with an immediate, 0x429: p216
/// `ds_norms_k`'s `DADD R26, |R14|, 1`), `DMUL`, `DFMA`.
const WRITES_PAIR: [u64; 18] = [
    0x225, 0x825, 0xa25, 0xc25, 0xe25, 0x229, 0x829, 0xc29, 0xe29, 0x228, 0x828, 0xc28, 0x22b, 0x82b, 0xe2b, 0x42b,
    0xc2b, 0x429,
];

/// Low 12 bits of loads whose width is the size field (bits 9..12 of the
/// high word): `LD`, `LDG`, `LDL`, `LDS`.
const LOADS: [u64; 4] = [0x980, 0x981, 0x983, 0x984];

/// `LDC` (a constant into registers, `.64` in the size field as for the
/// loads; sweep12 p131 `level_sweep`'s `@!P3 LDC.64 R4, c[0x0][0x3a0]`,
/// sm_120), which reads its index register `Ra`.
pub(crate) const OP_LDC: u64 = 0xb82;

/// The tensor-core instructions known, by opcode and shape (bits 8..24 of
/// the high word: accumulator type, k, TF32): the registers of `A` (`Ra`),
/// `B` (`Rb`) and `C`/`D` (`Rc`, `Rd`), as the PTX ISA's `mma.sync`
/// fragments have them (per thread: m16n8k8 f16 2/1/4, m16n8k16 4/2/4 or
/// 4/2/2 with an f16 accumulator, m16n8k4 tf32 2/1/4, m16n8k8 tf32 4/2/4,
/// m16n8k16 s8 2/1/4, m16n8k32 s8 4/2/4, m8n8k4 f64 2/2/4). The shapes were
/// read off ptxas 13.5's code for each, sm_100 and sm_120 alike (session
/// 30, `mma.sync` by inline PTX); any other shape is not known.
const MATRIX: [(u64, u64, (u64, u64, u64)); 8] = [
    (0x23c, 0x00_1000, (2, 1, 4)), // HMMA.1688.F32
    (0x23c, 0x00_1800, (4, 2, 4)), // HMMA.16816.F32
    (0x23c, 0x00_0800, (4, 2, 2)), // HMMA.16816.F16
    (0x23c, 0x08_5000, (2, 1, 4)), // HMMA.1684.F32.TF32
    (0x23c, 0x08_1000, (4, 2, 4)), // HMMA.1688.F32.TF32
    (0x237, 0x40_5400, (2, 1, 4)), // IMMA.16816.S8.S8
    (0x237, 0x40_5c00, (4, 2, 4)), // IMMA.16832.S8.S8
    (0x23f, 0x00_0000, (2, 2, 4)), // DMMA.8x8x4
];

/// [`MATRIX`]' register counts of a tensor-core instruction.
fn matrix_shape((lo, hi): (u64, u64)) -> Option<(u64, u64, u64)> {
    let (opcode, shape) = (lo & 0xfff, hi & 0x00ff_ff00);
    MATRIX.iter().find(|&&(o, s, _)| o == opcode && s == shape).map(|&(_, _, counts)| counts)
}

/// Low 12 bits of stores (the address in `Ra`, the data in `Rb`, its width
/// in the size field): `STL`, `STS`, `ST`, `STG`.
const STORES: [u64; 4] = [0x387, 0x388, 0x985, 0x986];

/// Low 12 bits of instructions that write no general register: compares
/// into predicates (`ISETP`, `FSETP`, `DSETP`, `PLOP3`), the stores, control flow
/// (`BRA`, `BRA.U`, `EXIT`, `BSSY`, `BSYNC`, `BREAK`, `NOP`, `BAR`,
/// `YIELD`, `WARPSYNC.ALL`), `MEMBAR` and the uniform datapath (`UMOV`,
/// `UIADD3`, `UIMAD`, `S2UR`, `LDCU`, `R2UR`; session 30, sweep13 p145's
/// tensor-core loops: `UIMAD.WIDE.U32`, `ULEA.HI`, `ULOP3`, `UISETP` and
/// `UIADD3.64` in the immediate and register forms, `UMOV UR, UR`).
const WRITES_NONE: [u64; 43] = [
    0x20c, 0x80c, 0xc0c, 0xa0c, 0x20b, 0x80b, 0xc0b, 0x22a, 0xe2a, 0x42a, 0x81c, 0x387, 0x388, 0x985, 0x986, 0x947,
    0x547, 0x94d, 0x945, 0x941, 0x942, 0x918, 0xb1d, 0x946, 0x948, 0x992, 0x882, 0x482, 0x290, 0x890, 0x8a4, 0x2a4,
    0x9c3, 0x7ac, 0x2ca, 0x8a5, 0x891, 0x892, 0x88c, 0x28c, 0x897, 0x297, 0xc82,
];

/// The registers a memory access of this size field moves: 1 up to 32
/// bits, 2 for 64, 4 for 128.
fn sized(hi: u64) -> u64 {
    match (hi >> 9) & 7 {
        5 => 2,
        6 => 4,
        _ => 1,
    }
}

fn field(word: u64, at: u32) -> u64 {
    (word >> at) & 0xff
}

fn run(first: u64, count: u64) -> Option<Registers> {
    (first != RZ).then_some((first, count))
}

/// The general registers the instruction `(lo, hi)` writes: `Some(None)`
/// for none, `None` for an instruction not in the tables.
pub(crate) fn written((lo, hi): (u64, u64)) -> Option<Option<Registers>> {
    let opcode = lo & 0xfff;
    let rd = field(lo, 16);
    let count = match opcode {
        // `MOV.64` (high bit 16) and `IADD.64` (high bit 9) move pairs.
        0x202 | 0xc02 => 1 + (hi >> 16 & 1),
        0x235 | 0x835 => 1 + (hi >> 9 & 1),
        _ if WRITES_ONE.contains(&opcode) => 1,
        _ if WRITES_PAIR.contains(&opcode) => 2,
        _ if LOADS.contains(&opcode) || opcode == OP_LDC => sized(hi),
        _ if WRITES_NONE.contains(&opcode) => return Some(None),
        _ => matrix_shape((lo, hi))?.2,
    };
    Some(run(rd, count))
}

/// `ATOMS.POPC.INC.32 RZ, [Ra+URb]`: a shared-memory count, which writes
/// no register and reads its 32-bit address `Ra` only (sweep19 p207
/// `img_hist_partial_k`, a histogram loop; its read barrier is the one a
/// store's would be).
const ATOMS_POPC_INC: u64 = 0xf8c;

/// The general registers a store reads (its address, taken as a pair, and
/// its data), or `None` for an instruction that is not a store.
pub(crate) fn store_sources((lo, hi): (u64, u64)) -> Option<Vec<Registers>> {
    if lo & 0xfff == ATOMS_POPC_INC {
        return Some(run(field(lo, 24), 1).into_iter().collect());
    }
    if !STORES.contains(&(lo & 0xfff)) {
        return None;
    }
    Some([run(field(lo, 24), 2), run(field(lo, 32), sized(hi))].into_iter().flatten().collect())
}

/// The general registers an instruction may read, or `None` for one not
/// in the tables. Never fewer than it reads: a field that may hold a
/// source register counts (an immediate that looks like a register only
/// makes a reader earlier). Stores read their address and data; `LD` and
/// `LDG` a 64-bit address (`Ra`), `LDL` and `LDS` a 32-bit one, `LDC` its
/// index `Ra`; the ALU instructions of the tables `Ra`, `Rc` (bits 0..8 of
/// the high word) and, in the register form (0x2..), `Rb` (`FADD`, `FMUL`,
/// `VIMNMX`, the compares and `IADD` have no `Rc`; `MOV` reads only its
/// `Rb`), each one register but where the operation is 64-bit (`DADD`,
/// `DMUL`, `DFMA`: all three; `IMAD.WIDE`: `Rc`; `IADD.64`, `MOV.64` and the
/// integer compares, which may be `.U64`: pairs); `R2UR` its `Ra`; the
/// tensor-core instructions of [`MATRIX`] their fragments; the rest of
/// [`WRITES_NONE`] (control flow, the uniform datapath) none.
pub(crate) fn may_read((lo, hi): (u64, u64)) -> Option<Vec<Registers>> {
    let opcode = lo & 0xfff;
    let (form, low) = (opcode >> 8, opcode & 0xff);
    let (ra, rb, rc) = (field(lo, 24), field(lo, 32), field(hi, 0));
    if let Some(sources) = store_sources((lo, hi)) {
        return Some(sources);
    }
    let alu = WRITES_ONE.contains(&opcode) || WRITES_PAIR.contains(&opcode) || COMPARES.contains(&opcode);
    // (Ra, Rb, Rc) widths of an ALU instruction.
    let widths = match low {
        0x28 | 0x29 | 0x2b | 0x2a | 0x35 | 0x0c => (2, 2, 2),
        0x25 => (1, 1, 2),
        0x02 => (1, 1 + (hi >> 16 & 1), 1),
        _ => (1, 1, 1),
    };
    Some(match opcode {
        // `MOV` reads its `Rb` field only, a register in the register form
        // (its `Ra` field is left 0); the immediate and uniform forms read
        // no general register (sweep13 p145 `wmma_tf32`, sm_120: `MOV R26,
        // 0x1000` does not read an `LD.E`'s `R0`).
        0x202 => run(rb, widths.1).into_iter().collect(),
        0x802 | 0xc02 => Vec::new(),
        0x980 | 0x981 => run(ra, 2).into_iter().collect(),
        0x983 | 0x984 | OP_LDC => run(ra, 1).into_iter().collect(),
        // `S2R` reads a special register only.
        0x919 => Vec::new(),
        _ if alu => {
            let rb = (form == 0x2).then_some((rb, widths.1));
            // `FADD`, `FMUL` and `VIMNMX` have no `Rc`: the high word's low
            // byte is not a register (sweep12 p132 `accumulate_normals`,
            // sm_120: `FADD R19, -R4, R19` does not read an `LDG`'s `R0`).
            // Nor do the compares into predicates (`FSETP.GEU.AND P0, PT,
            // |R22|, +INF, PT`'s high byte 0 is no `R0`) and sm_120's
            // two-operand `IADD` (`IADD R27, R17, 0x40`; sweep13 p145
            // `wmma_tf32`, sm_120).
            let rc = (!matches!(low, 0x20 | 0x21 | 0x48 | 0x0b | 0x0c | 0x2a | 0x35)).then_some((rc, widths.2));
            [Some((ra, widths.0)), rb, rc].into_iter().flatten().filter_map(|(r, n)| run(r, n)).collect()
        }
        // `R2UR` reads `Ra`.
        0x2ca => run(ra, 1).into_iter().collect(),
        _ if WRITES_NONE.contains(&opcode) => Vec::new(),
        _ => {
            let (a, b, c) = matrix_shape((lo, hi))?;
            [(ra, a), (rb, b), (rc, c)].into_iter().filter_map(|(r, n)| run(r, n)).collect()
        }
    })
}

/// Low 12 bits of the compares into predicates among [`WRITES_NONE`]
/// (`ISETP`, `FSETP`, and `DSETP` on register pairs: register, uniform and
/// immediate forms, sweep20 p216 `ds_norms_k`'s `DSETP.MAX.AND P0, P1,
/// |R8|, |R10|, PT`), which read `Ra` and `Rb` as ALU instructions do.
const COMPARES: [u64; 10] = [0x20c, 0x80c, 0xc0c, 0xa0c, 0x20b, 0x80b, 0xc0b, 0x22a, 0xe2a, 0x42a];

/// Whether two runs of registers share one.
pub(crate) fn overlap((a, n): Registers, (b, m): Registers) -> bool {
    a < b + m && b < a + n
}

#[cfg(test)]
mod tests {
    use super::*;

    /// Words and nvdisasm 13.5's text from /tmp/s14/typ `vadd` (sm_100).
    #[test]
    fn vadd_loop_registers() {
        // IMAD.WIDE R8, R0, 0x8, R14
        assert_eq!(written((0x0000_0008_0008_7825, 0x002f_e200_078e_020e)), Some(Some((8, 2))));
        // LDG.E.64 R2, desc[UR6][R2.64]
        assert_eq!(written((0x0000_0006_0202_7981, 0x00ce_a800_0c1e_1b00)), Some(Some((2, 2))));
        // ISETP.GE.AND P0, PT, R0, UR5, PT
        assert_eq!(written((0x0000_0005_0000_7c0c, 0x004f_da00_0bf0_6270)), Some(None));
        // STG.E.64 desc[UR6][R8.64], R6
        assert_eq!(store_sources((0x0000_0006_0800_7986, 0x0015_ea00_0c10_1b06)), Some(vec![(8, 2), (6, 2)]));
        // STG.E desc[UR4][R2.64], R5
        assert_eq!(store_sources((0x0000_0005_0200_7986, 0x002f_e200_0c10_1908)), Some(vec![(2, 2), (5, 1)]));
        // CALL.ABS.NOINC: not known.
        assert_eq!(written((0x0000_0000_0000_7943, 0)), None);
        // HMMA.16816.F32 R16, R8, R12, R16 and IMMA.16816.S8.S8 R12, R10.ROW,
        // R4.COL, R12 (ptxas 13.5, sm_100; nvdisasm's operands).
        let hmma = (0x0000_000c_0810_723c, 0x004f_e200_0000_1810);
        assert_eq!(written(hmma), Some(Some((16, 4))));
        assert_eq!(may_read(hmma), Some(vec![(8, 4), (12, 2), (16, 4)]));
        let imma = (0x0000_0004_0a0c_7237, 0x004e_3600_0040_540c);
        assert_eq!(may_read(imma), Some(vec![(10, 2), (4, 1), (12, 4)]));
        // An HMMA of a shape not in the table is not known.
        assert_eq!(written((0x0000_000c_0810_723c, 0x004f_e200_0000_3810)), None);
        assert!(overlap((8, 2), (9, 1)) && !overlap((8, 2), (10, 4)));
    }
}
