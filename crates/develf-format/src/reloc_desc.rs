//! What each relocation type does to the bytes it patches: one [`RelocDesc`]
//! row per `R_CUDA_*` type (and per `R_MERCURY_*` type where its layout could be
//! established), interpreted by `develf-reloc`; no per-type code anywhere.
//!
//! A CUDA relocation does not patch a byte range: it takes part of a 64-bit
//! value (whole, low or high 32 bits, one byte), optionally shifts it right,
//! and scatters it, low bits first, into bit fields of a 64- or 128-bit
//! little-endian instruction word (or of a plain data word). A few types
//! rewrite the instruction instead (YIELD → NOP, clear a predicate field,
//! zero an unused field).
//!
//! Where the rows come from: the bit-field table in NVIDIA's machine
//! description as quoted in `shared/reference/r-cuda-bitfields.md` and the
//! descriptor dump in `shared/reference/nvlink-r-cuda-catalog.md` (both leads
//! with known errors). The differential test `tests/tests/reloc_nvlink.rs`
//! applies every relocation of every fixture with these rows and compares the
//! result with nvlink 13.5's bytes; rows it exercises are marked
//! "proved against nvlink" below, the others are the leads' word only.
//!
//! Where the two leads disagree:
//! - `R_CUDA_CONST_FIELD19_28`: the machine description says pieces
//!   (28,18)+(26,1) (19 bits), nvlink's descriptor says (28,14)+(42,4)+(26,1)
//!   (also 19 bits). We follow nvlink, whose engine is the oracle; no fixture
//!   exercises it (Kepler-era encoding, not emitted for sm_50+).
//! - `*_LO_*` / `*_HI_*` widths: the catalogue's "16" column was derived from
//!   the names and is wrong; the fields are 32 bits wide (nvlink's own
//!   descriptors say width 32 with a 32-bit right shift for HI).

use crate::reloc::*;

/// Which part of the computed 64-bit value a relocation writes.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Hash)]
pub enum ValuePart {
    /// All 64 bits.
    Whole,
    /// Bits 0..32.
    Lo32,
    /// Bits 32..64.
    Hi32,
    /// Byte `n` (bits `8n..8n+8`), `n` in 0..8.
    Byte(u8),
    /// A constant-bank address `bank << n | offset`: the addend is added to
    /// the offset modulo `2^n` and the bank is kept. nvlink writes
    /// `c[2][0x0] + -0x8000` as bank 2, offset 0x8000 (an LDC with a register
    /// index and a negative base), not as bank 1. `n` is 16 for every type
    /// but `R_CUDA_CONST_FIELD22_37` (sm_100+), where the bank lands at bit
    /// 54 as in `R_CUDA_CONST_FIELD21_38`, so the offset part is 17 bits.
    BankAddress(u8),
}

impl ValuePart {
    /// The part of `value` this selects, in the low bits.
    pub const fn select(self, value: u64) -> u64 {
        match self {
            ValuePart::Whole => value,
            ValuePart::Lo32 => value & 0xffff_ffff,
            ValuePart::Hi32 => value >> 32,
            ValuePart::Byte(n) => (value >> ((n as u32 & 7) * 8)) & 0xff,
            ValuePart::BankAddress(_) => value,
        }
    }

    /// `S + A` for this part: wrapping 64-bit addition, except for
    /// [`ValuePart::BankAddress`], where the carry stays in the offset.
    pub const fn add(self, s: u64, a: i64) -> u64 {
        match self {
            ValuePart::BankAddress(n) => {
                let mask = (1u64 << (n as u32 & 63)) - 1;
                (s & !mask) | (s.wrapping_add(a as u64) & mask)
            }
            _ => s.wrapping_add(a as u64),
        }
    }
}

/// What the symbol value `S` of a relocation stands for. The engine writes
/// `S + A` (− `P`) the same way for all of them; the linker uses this to know
/// which value to compute for `S`.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Hash)]
pub enum SymbolValue {
    /// The symbol's address (or offset in its constant bank / section).
    Address,
    /// Address in the global segment (`R_CUDA_G*`).
    GlobalAddress,
    /// A function descriptor (`R_CUDA_FUNC_DESC*`).
    FunctionDescriptor,
    /// A unified (generic) address (`R_CUDA_UNIFIED*`).
    UnifiedAddress,
    /// Index of a texture header (`R_CUDA_TEX_HEADER_INDEX`).
    TextureHeaderIndex,
    /// Index of a sampler header (`R_CUDA_SAMP_HEADER_INDEX*`).
    SamplerHeaderIndex,
    /// Index of a surface header (`R_CUDA_SURF_HEADER_INDEX`).
    SurfaceHeaderIndex,
    /// A texture, sampler or surface binding slot (`*_SLOT*`).
    Slot,
    /// A surface descriptor (`R_CUDA_SURF_HW_DESC`, `R_CUDA_SURF_HW_SW_DESC`).
    SurfaceDescriptor,
    /// A bindless texture/surface offset in the bindless constant bank.
    BindlessOffset,
    /// A constant-bank address (`R_CUDA_CONST_FIELD*`, `R_CUDA_QUERY_DESC21_37`).
    ConstantBankAddress,
    /// The symbol is not used (rewrites and clears).
    Unused,
}

/// How the relocation changes its site.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Hash)]
pub enum Action {
    /// `R_CUDA_NONE`: nothing.
    None,
    /// Scatter the computed value into the pieces.
    Write,
    /// Replace the whole instruction word (`R_CUDA_INSTRUCTION64/128`) with
    /// the computed value (zero-extended to the word).
    ReplaceInstruction,
    /// Write a constant into the pieces regardless of the value: YIELD → NOP
    /// (the opcode field) and clearing YIELD's predicate field.
    WriteConstant(u64),
    /// Zero the pieces when the symbol's code was removed (dead function
    /// elimination: the address range of its `.debug_frame` FDE); leave them
    /// when the symbol is live (`R_CUDA_UNUSED_CLEAR*`). Proved against
    /// nvlink both ways.
    ClearIfDead,
}

/// What the value must fit after part selection and shift.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Hash)]
pub enum Range {
    /// Nothing to check: the part selection (low/high half, one byte) or a
    /// field as wide as the value defines what is kept.
    Any,
    /// `0 ..= 2^n - 1`.
    Unsigned(u8),
    /// `-2^(n-1) ..= 2^(n-1) - 1` (PC-relative branches).
    Signed(u8),
    /// Fits as either: the bits dropped are all zeros or all ones (absolute
    /// address fields, where a negative addend may wrap).
    Either(u8),
}

impl Range {
    /// Smallest and largest allowed value, as `i128`.
    pub const fn bounds(self) -> (i128, i128) {
        match self {
            Range::Any => (i64::MIN as i128, u64::MAX as i128),
            Range::Unsigned(n) => (0, (1i128 << n) - 1),
            Range::Signed(n) => (-(1i128 << (n - 1)), (1i128 << (n - 1)) - 1),
            Range::Either(n) => (-(1i128 << (n - 1)), (1i128 << n) - 1),
        }
    }
}

/// One bit field of the instruction (or data) word: `offset` from bit 0 of the
/// little-endian word at the relocation's `r_offset`, `width` bits.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Hash)]
pub struct Piece {
    pub offset: u8,
    pub width: u8,
}

/// The descriptor of one relocation type.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Hash)]
pub struct RelocDesc {
    /// The `r_info` type (`R_MERCURY_*` with [`MERCURY_BASE`] added).
    pub r_type: u32,
    pub name: &'static str,
    pub value_part: ValuePart,
    /// The place `P` is subtracted.
    pub pc_relative: bool,
    /// Right shift applied after part selection (2 for word-addressed fields).
    pub shift: u8,
    /// Fields filled, low bits of the value first.
    pub pieces: &'static [Piece],
    pub action: Action,
    pub symbol_value: SymbolValue,
    pub range: Range,
}

impl RelocDesc {
    /// Bytes from `r_offset` the relocation reads and writes.
    pub const fn site_len(&self) -> usize {
        let mut end = 0usize;
        let mut i = 0;
        while i < self.pieces.len() {
            let e = self.pieces[i].offset as usize + self.pieces[i].width as usize;
            if e > end {
                end = e;
            }
            i += 1;
        }
        end.div_ceil(8)
    }

    /// Total width of the pieces in bits.
    pub const fn field_bits(&self) -> u32 {
        let mut bits = 0u32;
        let mut i = 0;
        while i < self.pieces.len() {
            bits += self.pieces[i].width as u32;
            i += 1;
        }
        bits
    }

    /// Whether the written field can be read back as the value (addend of a
    /// REL relocation, property tests): everything but rewrites and clears.
    pub const fn is_readable(&self) -> bool {
        matches!(self.action, Action::Write | Action::ReplaceInstruction) && !self.pieces.is_empty()
    }
}

const fn p(offset: u8, width: u8) -> Piece {
    Piece { offset, width }
}

macro_rules! pieces {
    ($( ($o:expr, $w:expr) ),* $(,)?) => { &[ $( p($o, $w) ),* ] };
}

/// A row: `row!(TYPE, part, pcrel, shift, [pieces], action, symbol value, range)`.
macro_rules! row {
    ($t:ident, $part:expr, $pc:expr, $shift:expr, [$($pc_:tt)*], $action:expr, $sym:expr, $range:expr) => {
        RelocDesc {
            r_type: $t,
            name: stringify!($t),
            value_part: $part,
            pc_relative: $pc,
            shift: $shift,
            pieces: pieces!($($pc_)*),
            action: $action,
            symbol_value: $sym,
            range: $range,
        }
    };
}

use Action::{ClearIfDead, ReplaceInstruction, Write, WriteConstant};
use Range::{Any, Either, Signed, Unsigned};
use SymbolValue::*;
use ValuePart::{BankAddress, Byte, Hi32, Lo32, Whole};

/// Low 9 bits of the sm_70+ `NOP` opcode (0x918): what
/// `R_CUDA_YIELD_OPCODE9_0` writes over `YIELD` (0x946). Proved against
/// nvlink on sm_75..sm_89.
pub const YIELD_TO_NOP_OPCODE9: u64 = 0x118;

/// `R_CUDA_*` descriptors, indexed by type (0..=116).
#[rustfmt::skip]
pub static CUDA_DESCRIPTORS: [RelocDesc; 117] = [
    row!(R_CUDA_NONE, Whole, false, 0, [], Action::None, Unused, Any),
    row!(R_CUDA_32, Whole, false, 0, [(0, 32)], Write, Address, Either(32)),
    row!(R_CUDA_64, Whole, false, 0, [(0, 64)], Write, Address, Any),
    row!(R_CUDA_G32, Whole, false, 0, [(0, 32)], Write, GlobalAddress, Either(32)),
    row!(R_CUDA_G64, Whole, false, 0, [(0, 64)], Write, GlobalAddress, Any),
    row!(R_CUDA_ABS32_26, Whole, false, 0, [(26, 32)], Write, Address, Either(32)),
    row!(R_CUDA_TEX_HEADER_INDEX, Whole, false, 0, [(0, 20)], Write, TextureHeaderIndex, Unsigned(20)),
    row!(R_CUDA_SAMP_HEADER_INDEX, Whole, false, 0, [(20, 12)], Write, SamplerHeaderIndex, Unsigned(12)),
    row!(R_CUDA_SURF_HW_DESC, Whole, false, 0, [(0, 32)], Write, SurfaceDescriptor, Either(32)),
    row!(R_CUDA_SURF_HW_SW_DESC, Whole, false, 0, [(0, 32)], Write, SurfaceDescriptor, Either(32)),
    row!(R_CUDA_ABS32_LO_26, Lo32, false, 0, [(26, 32)], Write, Address, Any),
    row!(R_CUDA_ABS32_HI_26, Hi32, false, 0, [(26, 32)], Write, Address, Any),
    row!(R_CUDA_ABS32_23, Whole, false, 0, [(23, 32)], Write, Address, Either(32)),
    row!(R_CUDA_ABS32_LO_23, Lo32, false, 0, [(23, 32)], Write, Address, Any),
    row!(R_CUDA_ABS32_HI_23, Hi32, false, 0, [(23, 32)], Write, Address, Any),
    row!(R_CUDA_ABS24_26, Whole, false, 0, [(26, 24)], Write, Address, Either(24)),
    row!(R_CUDA_ABS24_23, Whole, false, 0, [(23, 24)], Write, Address, Either(24)),
    row!(R_CUDA_ABS16_26, Whole, false, 0, [(26, 16)], Write, Address, Either(16)),
    row!(R_CUDA_ABS16_23, Whole, false, 0, [(23, 16)], Write, Address, Either(16)),
    row!(R_CUDA_TEX_SLOT, Whole, false, 0, [(32, 8)], Write, Slot, Unsigned(8)),
    row!(R_CUDA_SAMP_SLOT, Whole, false, 0, [(40, 5)], Write, Slot, Unsigned(5)),
    row!(R_CUDA_SURF_SLOT, Whole, false, 0, [(26, 6)], Write, Slot, Unsigned(6)),
    row!(R_CUDA_TEX_BINDLESSOFF13_32, Whole, false, 2, [(32, 13)], Write, BindlessOffset, Unsigned(13)),
    row!(R_CUDA_TEX_BINDLESSOFF13_47, Whole, false, 2, [(47, 13)], Write, BindlessOffset, Unsigned(13)),
    // Lead disagreement, see the module docs: nvlink's descriptor wins.
    row!(R_CUDA_CONST_FIELD19_28, BankAddress(16), false, 2, [(28, 14), (42, 4), (26, 1)], Write, ConstantBankAddress, Unsigned(19)),
    row!(R_CUDA_CONST_FIELD19_23, BankAddress(16), false, 2, [(23, 19)], Write, ConstantBankAddress, Unsigned(19)),
    row!(R_CUDA_TEX_SLOT9_49, Whole, false, 0, [(49, 9)], Write, Slot, Unsigned(9)),
    row!(R_CUDA_6_31, Whole, false, 0, [(31, 6)], Write, Address, Unsigned(6)),
    row!(R_CUDA_2_47, Whole, false, 0, [(47, 2)], Write, Address, Unsigned(2)),
    row!(R_CUDA_TEX_BINDLESSOFF13_41, Whole, false, 2, [(41, 13)], Write, BindlessOffset, Unsigned(13)),
    row!(R_CUDA_TEX_BINDLESSOFF13_45, Whole, false, 2, [(45, 13)], Write, BindlessOffset, Unsigned(13)),
    row!(R_CUDA_FUNC_DESC32_23, Whole, false, 0, [(23, 32)], Write, FunctionDescriptor, Either(32)),
    row!(R_CUDA_FUNC_DESC32_LO_23, Lo32, false, 0, [(23, 32)], Write, FunctionDescriptor, Any),
    row!(R_CUDA_FUNC_DESC32_HI_23, Hi32, false, 0, [(23, 32)], Write, FunctionDescriptor, Any),
    row!(R_CUDA_FUNC_DESC_32, Whole, false, 0, [(0, 32)], Write, FunctionDescriptor, Either(32)),
    row!(R_CUDA_FUNC_DESC_64, Whole, false, 0, [(0, 64)], Write, FunctionDescriptor, Any),
    row!(R_CUDA_CONST_FIELD21_26, BankAddress(16), false, 0, [(26, 21)], Write, ConstantBankAddress, Unsigned(21)),
    row!(R_CUDA_QUERY_DESC21_37, BankAddress(16), false, 0, [(37, 21)], Write, ConstantBankAddress, Unsigned(21)),
    row!(R_CUDA_CONST_FIELD19_26, BankAddress(16), false, 2, [(26, 19)], Write, ConstantBankAddress, Unsigned(19)),
    row!(R_CUDA_CONST_FIELD21_23, BankAddress(16), false, 0, [(23, 21)], Write, ConstantBankAddress, Unsigned(21)),
    row!(R_CUDA_PCREL_IMM24_26, Whole, true, 0, [(26, 24)], Write, Address, Signed(24)),
    row!(R_CUDA_PCREL_IMM24_23, Whole, true, 0, [(23, 24)], Write, Address, Signed(24)),
    row!(R_CUDA_ABS32_20, Whole, false, 0, [(20, 32)], Write, Address, Either(32)),
    row!(R_CUDA_ABS32_LO_20, Lo32, false, 0, [(20, 32)], Write, Address, Any),
    row!(R_CUDA_ABS32_HI_20, Hi32, false, 0, [(20, 32)], Write, Address, Any),
    row!(R_CUDA_ABS24_20, Whole, false, 0, [(20, 24)], Write, Address, Either(24)),
    row!(R_CUDA_ABS16_20, Whole, false, 0, [(20, 16)], Write, Address, Either(16)),
    row!(R_CUDA_FUNC_DESC32_20, Whole, false, 0, [(20, 32)], Write, FunctionDescriptor, Either(32)),
    row!(R_CUDA_FUNC_DESC32_LO_20, Lo32, false, 0, [(20, 32)], Write, FunctionDescriptor, Any),
    row!(R_CUDA_FUNC_DESC32_HI_20, Hi32, false, 0, [(20, 32)], Write, FunctionDescriptor, Any),
    row!(R_CUDA_CONST_FIELD19_20, BankAddress(16), false, 2, [(20, 19)], Write, ConstantBankAddress, Unsigned(19)),
    row!(R_CUDA_BINDLESSOFF13_36, Whole, false, 2, [(36, 13)], Write, BindlessOffset, Unsigned(13)),
    row!(R_CUDA_SURF_HEADER_INDEX, Whole, false, 0, [(0, 20)], Write, SurfaceHeaderIndex, Unsigned(20)),
    row!(R_CUDA_INSTRUCTION64, Whole, false, 0, [(0, 64)], ReplaceInstruction, Unused, Any),
    row!(R_CUDA_CONST_FIELD21_20, BankAddress(16), false, 0, [(20, 21)], Write, ConstantBankAddress, Unsigned(21)),
    row!(R_CUDA_ABS32_32, Whole, false, 0, [(32, 32)], Write, Address, Either(32)),
    row!(R_CUDA_ABS32_LO_32, Lo32, false, 0, [(32, 32)], Write, Address, Any),
    row!(R_CUDA_ABS32_HI_32, Hi32, false, 0, [(32, 32)], Write, Address, Any),
    row!(R_CUDA_ABS47_34, Whole, false, 2, [(34, 47)], Write, Address, Either(47)),
    row!(R_CUDA_ABS16_32, Whole, false, 0, [(32, 16)], Write, Address, Either(16)),
    row!(R_CUDA_ABS24_32, Whole, false, 0, [(32, 24)], Write, Address, Either(24)),
    row!(R_CUDA_FUNC_DESC32_32, Whole, false, 0, [(32, 32)], Write, FunctionDescriptor, Either(32)),
    row!(R_CUDA_FUNC_DESC32_LO_32, Lo32, false, 0, [(32, 32)], Write, FunctionDescriptor, Any),
    row!(R_CUDA_FUNC_DESC32_HI_32, Hi32, false, 0, [(32, 32)], Write, FunctionDescriptor, Any),
    row!(R_CUDA_CONST_FIELD19_40, BankAddress(16), false, 2, [(40, 19)], Write, ConstantBankAddress, Unsigned(19)),
    row!(R_CUDA_BINDLESSOFF14_40, Whole, false, 2, [(40, 14)], Write, BindlessOffset, Unsigned(14)),
    row!(R_CUDA_CONST_FIELD21_38, BankAddress(16), false, 0, [(38, 21)], Write, ConstantBankAddress, Unsigned(21)),
    row!(R_CUDA_INSTRUCTION128, Whole, false, 0, [(0, 64), (64, 64)], ReplaceInstruction, Unused, Any),
    row!(R_CUDA_YIELD_OPCODE9_0, Whole, false, 0, [(0, 9)], WriteConstant(YIELD_TO_NOP_OPCODE9), Unused, Any),
    row!(R_CUDA_YIELD_CLEAR_PRED4_87, Whole, false, 0, [(87, 4)], WriteConstant(0), Unused, Any),
    row!(R_CUDA_32_LO, Lo32, false, 0, [(0, 32)], Write, Address, Any),
    row!(R_CUDA_32_HI, Hi32, false, 0, [(0, 32)], Write, Address, Any),
    row!(R_CUDA_UNUSED_CLEAR32, Whole, false, 0, [(0, 32)], ClearIfDead, Unused, Any),
    row!(R_CUDA_UNUSED_CLEAR64, Whole, false, 0, [(0, 64)], ClearIfDead, Unused, Any),
    row!(R_CUDA_ABS24_40, Whole, false, 0, [(40, 24)], Write, Address, Either(24)),
    row!(R_CUDA_ABS55_16_34, Whole, false, 2, [(16, 8), (34, 47)], Write, Address, Either(55)),
    row!(R_CUDA_8_0, Byte(0), false, 0, [(0, 8)], Write, Address, Any),
    row!(R_CUDA_8_8, Byte(1), false, 0, [(0, 8)], Write, Address, Any),
    row!(R_CUDA_8_16, Byte(2), false, 0, [(0, 8)], Write, Address, Any),
    row!(R_CUDA_8_24, Byte(3), false, 0, [(0, 8)], Write, Address, Any),
    row!(R_CUDA_8_32, Byte(4), false, 0, [(0, 8)], Write, Address, Any),
    row!(R_CUDA_8_40, Byte(5), false, 0, [(0, 8)], Write, Address, Any),
    row!(R_CUDA_8_48, Byte(6), false, 0, [(0, 8)], Write, Address, Any),
    row!(R_CUDA_8_56, Byte(7), false, 0, [(0, 8)], Write, Address, Any),
    row!(R_CUDA_G8_0, Byte(0), false, 0, [(0, 8)], Write, GlobalAddress, Any),
    row!(R_CUDA_G8_8, Byte(1), false, 0, [(0, 8)], Write, GlobalAddress, Any),
    row!(R_CUDA_G8_16, Byte(2), false, 0, [(0, 8)], Write, GlobalAddress, Any),
    row!(R_CUDA_G8_24, Byte(3), false, 0, [(0, 8)], Write, GlobalAddress, Any),
    row!(R_CUDA_G8_32, Byte(4), false, 0, [(0, 8)], Write, GlobalAddress, Any),
    row!(R_CUDA_G8_40, Byte(5), false, 0, [(0, 8)], Write, GlobalAddress, Any),
    row!(R_CUDA_G8_48, Byte(6), false, 0, [(0, 8)], Write, GlobalAddress, Any),
    row!(R_CUDA_G8_56, Byte(7), false, 0, [(0, 8)], Write, GlobalAddress, Any),
    row!(R_CUDA_FUNC_DESC_8_0, Byte(0), false, 0, [(0, 8)], Write, FunctionDescriptor, Any),
    row!(R_CUDA_FUNC_DESC_8_8, Byte(1), false, 0, [(0, 8)], Write, FunctionDescriptor, Any),
    row!(R_CUDA_FUNC_DESC_8_16, Byte(2), false, 0, [(0, 8)], Write, FunctionDescriptor, Any),
    row!(R_CUDA_FUNC_DESC_8_24, Byte(3), false, 0, [(0, 8)], Write, FunctionDescriptor, Any),
    row!(R_CUDA_FUNC_DESC_8_32, Byte(4), false, 0, [(0, 8)], Write, FunctionDescriptor, Any),
    row!(R_CUDA_FUNC_DESC_8_40, Byte(5), false, 0, [(0, 8)], Write, FunctionDescriptor, Any),
    row!(R_CUDA_FUNC_DESC_8_48, Byte(6), false, 0, [(0, 8)], Write, FunctionDescriptor, Any),
    row!(R_CUDA_FUNC_DESC_8_56, Byte(7), false, 0, [(0, 8)], Write, FunctionDescriptor, Any),
    row!(R_CUDA_ABS20_44, Whole, false, 0, [(44, 20)], Write, Address, Either(20)),
    row!(R_CUDA_SAMP_HEADER_INDEX_0, Whole, false, 0, [(0, 12)], Write, SamplerHeaderIndex, Unsigned(12)),
    row!(R_CUDA_UNIFIED, Whole, false, 0, [(0, 64)], Write, UnifiedAddress, Any),
    row!(R_CUDA_UNIFIED_32, Whole, false, 0, [(0, 32)], Write, UnifiedAddress, Either(32)),
    row!(R_CUDA_UNIFIED_8_0, Byte(0), false, 0, [(0, 8)], Write, UnifiedAddress, Any),
    row!(R_CUDA_UNIFIED_8_8, Byte(1), false, 0, [(0, 8)], Write, UnifiedAddress, Any),
    row!(R_CUDA_UNIFIED_8_16, Byte(2), false, 0, [(0, 8)], Write, UnifiedAddress, Any),
    row!(R_CUDA_UNIFIED_8_24, Byte(3), false, 0, [(0, 8)], Write, UnifiedAddress, Any),
    row!(R_CUDA_UNIFIED_8_32, Byte(4), false, 0, [(0, 8)], Write, UnifiedAddress, Any),
    row!(R_CUDA_UNIFIED_8_40, Byte(5), false, 0, [(0, 8)], Write, UnifiedAddress, Any),
    row!(R_CUDA_UNIFIED_8_48, Byte(6), false, 0, [(0, 8)], Write, UnifiedAddress, Any),
    row!(R_CUDA_UNIFIED_8_56, Byte(7), false, 0, [(0, 8)], Write, UnifiedAddress, Any),
    row!(R_CUDA_UNIFIED32_LO_32, Lo32, false, 0, [(32, 32)], Write, UnifiedAddress, Any),
    row!(R_CUDA_UNIFIED32_HI_32, Hi32, false, 0, [(32, 32)], Write, UnifiedAddress, Any),
    row!(R_CUDA_ABS56_16_34, Whole, false, 2, [(16, 8), (34, 48)], Write, Address, Either(56)),
    row!(R_CUDA_CONST_FIELD22_37, BankAddress(17), false, 0, [(37, 22)], Write, ConstantBankAddress, Unsigned(22)),
    // A sentinel in nvlink's table ("poison"): never valid in a file.
    row!(R_CUDA_NONE_LAST, Whole, false, 0, [], Action::None, Unused, Any),
];

/// `R_MERCURY_*` descriptors, indexed by `r_type - MERCURY_BASE` (0..=64).
///
/// Mercury relocations (`.nv.merc.rela*`, sm_100+) patch the *expanded*
/// Mercury stream or the `.nv.merc.debug_*` data, not the `.nv.capmerc.*`
/// bytes. Their layouts here are the names' own claims (a plain little-endian
/// data field of the named width at `r_offset`); only the data-section uses
/// could be checked (see the crate README). `PROG_REL` is not PC-relative:
/// for an offset into `.nv.merc.debug_line` nvlink wrote `S + A` (0x8a at
/// `.debug_info+0x47` of the second input), so it is read as relative to the
/// program (code) base, which is 0 in every file nvlink writes.
#[rustfmt::skip]
pub static MERCURY_DESCRIPTORS: [RelocDesc; 65] = [
    row!(R_MERCURY_NONE, Whole, false, 0, [], Action::None, Unused, Any),
    row!(R_MERCURY_G64, Whole, false, 0, [(0, 64)], Write, GlobalAddress, Any),
    row!(R_MERCURY_ABS64, Whole, false, 0, [(0, 64)], Write, Address, Any),
    row!(R_MERCURY_ABS32, Whole, false, 0, [(0, 32)], Write, Address, Either(32)),
    row!(R_MERCURY_ABS16, Whole, false, 0, [(0, 16)], Write, Address, Either(16)),
    row!(R_MERCURY_ABS32_LO, Lo32, false, 0, [(0, 32)], Write, Address, Any),
    row!(R_MERCURY_ABS32_HI, Hi32, false, 0, [(0, 32)], Write, Address, Any),
    row!(R_MERCURY_PROG_REL64, Whole, false, 0, [(0, 64)], Write, Address, Any),
    row!(R_MERCURY_PROG_REL32, Whole, false, 0, [(0, 32)], Write, Address, Signed(32)),
    row!(R_MERCURY_PROG_REL32_LO, Lo32, false, 0, [(0, 32)], Write, Address, Any),
    row!(R_MERCURY_PROG_REL32_HI, Hi32, false, 0, [(0, 32)], Write, Address, Any),
    row!(R_MERCURY_TEX_HEADER_INDEX, Whole, false, 0, [(0, 20)], Write, TextureHeaderIndex, Unsigned(20)),
    row!(R_MERCURY_SAMP_HEADER_INDEX, Whole, false, 0, [(0, 12)], Write, SamplerHeaderIndex, Unsigned(12)),
    row!(R_MERCURY_SURF_HEADER_INDEX, Whole, false, 0, [(0, 20)], Write, SurfaceHeaderIndex, Unsigned(20)),
    row!(R_MERCURY_UNUSED_CLEAR64, Whole, false, 0, [(0, 64)], ClearIfDead, Unused, Any),
    row!(R_MERCURY_FUNC_DESC_64, Whole, false, 0, [(0, 64)], Write, FunctionDescriptor, Any),
    row!(R_MERCURY_8_0, Byte(0), false, 0, [(0, 8)], Write, Address, Any),
    row!(R_MERCURY_8_8, Byte(1), false, 0, [(0, 8)], Write, Address, Any),
    row!(R_MERCURY_8_16, Byte(2), false, 0, [(0, 8)], Write, Address, Any),
    row!(R_MERCURY_8_24, Byte(3), false, 0, [(0, 8)], Write, Address, Any),
    row!(R_MERCURY_8_32, Byte(4), false, 0, [(0, 8)], Write, Address, Any),
    row!(R_MERCURY_8_40, Byte(5), false, 0, [(0, 8)], Write, Address, Any),
    row!(R_MERCURY_8_48, Byte(6), false, 0, [(0, 8)], Write, Address, Any),
    row!(R_MERCURY_8_56, Byte(7), false, 0, [(0, 8)], Write, Address, Any),
    row!(R_MERCURY_G8_0, Byte(0), false, 0, [(0, 8)], Write, GlobalAddress, Any),
    row!(R_MERCURY_G8_8, Byte(1), false, 0, [(0, 8)], Write, GlobalAddress, Any),
    row!(R_MERCURY_G8_16, Byte(2), false, 0, [(0, 8)], Write, GlobalAddress, Any),
    row!(R_MERCURY_G8_24, Byte(3), false, 0, [(0, 8)], Write, GlobalAddress, Any),
    row!(R_MERCURY_G8_32, Byte(4), false, 0, [(0, 8)], Write, GlobalAddress, Any),
    row!(R_MERCURY_G8_40, Byte(5), false, 0, [(0, 8)], Write, GlobalAddress, Any),
    row!(R_MERCURY_G8_48, Byte(6), false, 0, [(0, 8)], Write, GlobalAddress, Any),
    row!(R_MERCURY_G8_56, Byte(7), false, 0, [(0, 8)], Write, GlobalAddress, Any),
    row!(R_MERCURY_FUNC_DESC_8_0, Byte(0), false, 0, [(0, 8)], Write, FunctionDescriptor, Any),
    row!(R_MERCURY_FUNC_DESC_8_8, Byte(1), false, 0, [(0, 8)], Write, FunctionDescriptor, Any),
    row!(R_MERCURY_FUNC_DESC_8_16, Byte(2), false, 0, [(0, 8)], Write, FunctionDescriptor, Any),
    row!(R_MERCURY_FUNC_DESC_8_24, Byte(3), false, 0, [(0, 8)], Write, FunctionDescriptor, Any),
    row!(R_MERCURY_FUNC_DESC_8_32, Byte(4), false, 0, [(0, 8)], Write, FunctionDescriptor, Any),
    row!(R_MERCURY_FUNC_DESC_8_40, Byte(5), false, 0, [(0, 8)], Write, FunctionDescriptor, Any),
    row!(R_MERCURY_FUNC_DESC_8_48, Byte(6), false, 0, [(0, 8)], Write, FunctionDescriptor, Any),
    row!(R_MERCURY_FUNC_DESC_8_56, Byte(7), false, 0, [(0, 8)], Write, FunctionDescriptor, Any),
    row!(R_MERCURY_ABS_PROG_REL32_LO, Lo32, false, 0, [(0, 32)], Write, Address, Any),
    row!(R_MERCURY_ABS_PROG_REL32_HI, Hi32, false, 0, [(0, 32)], Write, Address, Any),
    row!(R_MERCURY_PROG_REL8_0, Byte(0), false, 0, [(0, 8)], Write, Address, Any),
    row!(R_MERCURY_PROG_REL8_8, Byte(1), false, 0, [(0, 8)], Write, Address, Any),
    row!(R_MERCURY_PROG_REL8_16, Byte(2), false, 0, [(0, 8)], Write, Address, Any),
    row!(R_MERCURY_PROG_REL8_24, Byte(3), false, 0, [(0, 8)], Write, Address, Any),
    row!(R_MERCURY_PROG_REL8_32, Byte(4), false, 0, [(0, 8)], Write, Address, Any),
    row!(R_MERCURY_PROG_REL8_40, Byte(5), false, 0, [(0, 8)], Write, Address, Any),
    row!(R_MERCURY_PROG_REL8_48, Byte(6), false, 0, [(0, 8)], Write, Address, Any),
    row!(R_MERCURY_PROG_REL8_56, Byte(7), false, 0, [(0, 8)], Write, Address, Any),
    row!(R_MERCURY_UNIFIED, Whole, false, 0, [(0, 64)], Write, UnifiedAddress, Any),
    row!(R_MERCURY_UNIFIED_32, Whole, false, 0, [(0, 32)], Write, UnifiedAddress, Either(32)),
    row!(R_MERCURY_UNIFIED_8_0, Byte(0), false, 0, [(0, 8)], Write, UnifiedAddress, Any),
    row!(R_MERCURY_UNIFIED_8_8, Byte(1), false, 0, [(0, 8)], Write, UnifiedAddress, Any),
    row!(R_MERCURY_UNIFIED_8_16, Byte(2), false, 0, [(0, 8)], Write, UnifiedAddress, Any),
    row!(R_MERCURY_UNIFIED_8_24, Byte(3), false, 0, [(0, 8)], Write, UnifiedAddress, Any),
    row!(R_MERCURY_UNIFIED_8_32, Byte(4), false, 0, [(0, 8)], Write, UnifiedAddress, Any),
    row!(R_MERCURY_UNIFIED_8_40, Byte(5), false, 0, [(0, 8)], Write, UnifiedAddress, Any),
    row!(R_MERCURY_UNIFIED_8_48, Byte(6), false, 0, [(0, 8)], Write, UnifiedAddress, Any),
    row!(R_MERCURY_UNIFIED_8_56, Byte(7), false, 0, [(0, 8)], Write, UnifiedAddress, Any),
    row!(R_MERCURY_ABS_PROG_REL32, Whole, false, 0, [(0, 32)], Write, Address, Signed(32)),
    row!(R_MERCURY_ABS_PROG_REL64, Whole, false, 0, [(0, 64)], Write, Address, Any),
    row!(R_MERCURY_UNIFIED32_LO, Lo32, false, 0, [(0, 32)], Write, UnifiedAddress, Any),
    row!(R_MERCURY_UNIFIED32_HI, Hi32, false, 0, [(0, 32)], Write, UnifiedAddress, Any),
    row!(R_MERCURY_NONE_LAST, Whole, false, 0, [], Action::None, Unused, Any),
];

/// The descriptor of `r_type` (either family); `None` for unknown types and
/// for the two `*_NONE_LAST` sentinels, which are never valid in a file.
pub fn descriptor(r_type: u32) -> Option<&'static RelocDesc> {
    let desc = if r_type >= MERCURY_BASE {
        MERCURY_DESCRIPTORS.get((r_type - MERCURY_BASE) as usize)?
    } else {
        CUDA_DESCRIPTORS.get(r_type as usize)?
    };
    if desc.r_type == R_CUDA_NONE_LAST || desc.r_type == R_MERCURY_NONE_LAST {
        return None;
    }
    Some(desc)
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn rows_are_in_order_and_named_like_the_name_tables() {
        for (i, d) in CUDA_DESCRIPTORS.iter().enumerate() {
            assert_eq!(d.r_type as usize, i);
            assert_eq!(type_name(d.r_type), Some(d.name));
        }
        for (i, d) in MERCURY_DESCRIPTORS.iter().enumerate() {
            assert_eq!(d.r_type, MERCURY_BASE + i as u32);
            assert_eq!(type_name(d.r_type), Some(d.name));
        }
    }

    #[test]
    fn pieces_fit_their_word_and_do_not_overlap() {
        for d in CUDA_DESCRIPTORS.iter().chain(MERCURY_DESCRIPTORS.iter()) {
            assert!(d.site_len() <= 16, "{}", d.name);
            let mut used = 0u128;
            for piece in d.pieces {
                let mask = if piece.width >= 128 { u128::MAX } else { ((1u128 << piece.width) - 1) << piece.offset };
                assert_eq!(used & mask, 0, "{} overlaps", d.name);
                used |= mask;
            }
        }
        assert_eq!(descriptor(R_CUDA_ABS55_16_34).map(|d| d.field_bits()), Some(55));
        assert_eq!(descriptor(R_CUDA_ABS56_16_34).map(|d| d.field_bits()), Some(56));
        assert_eq!(descriptor(R_CUDA_CONST_FIELD19_28).map(|d| d.field_bits()), Some(19));
        assert!(descriptor(R_CUDA_NONE_LAST).is_none());
        assert!(descriptor(117).is_none());
        assert!(descriptor(MERCURY_BASE + 65).is_none());
    }
}
