//! Payload shapes: how the bytes of one record map to typed values and back.
//!
//! Every decoder here is the exact inverse of its encoder: a decoder refuses
//! (returns `None`) any bytes its encoder would not write back identically, so the
//! record falls back to [`crate::RawAttribute`] and still round-trips.

use crate::display::{Field, FieldValue};
use develf_format::nvinfo::Format;
use serde::Serialize;

/// An index into the symbol table the section's `sh_link` names.
pub type SymbolIndex = u32;

/// A payload shape: one way of laying out a record's value.
pub trait Shape: Sized {
    /// The `EIFMT_*` the shape is written with.
    const FORMAT: Format;
    /// Decodes from the header's `u16` field and the SVAL payload (empty otherwise).
    fn decode(value: u16, payload: &[u8]) -> Option<Self>;
    /// Appends the payload (SVAL) and returns the header's `u16` field for
    /// BVAL/HVAL/NVAL. For SVAL the returned value is ignored: the length is used.
    fn encode(&self, payload: &mut Vec<u8>) -> u16;
    /// The named fields for display. `label` names the main value where the shape has one.
    fn fields(&self, label: &'static str, out: &mut Vec<Field>);
    /// Calls `f` on every symbol index in the value.
    fn visit_symbols(&self, _f: &mut dyn FnMut(SymbolIndex)) {}
    /// Calls `f` on every symbol index in the value, allowing it to be changed.
    fn visit_symbols_mut(&mut self, _f: &mut dyn FnMut(&mut SymbolIndex)) {}
}

pub(crate) fn u32_at(bytes: &[u8], at: usize) -> Option<u32> {
    let b = bytes.get(at..at.checked_add(4)?)?;
    Some(u32::from_le_bytes([b[0], b[1], b[2], b[3]]))
}

pub(crate) fn u16_at(bytes: &[u8], at: usize) -> Option<u16> {
    let b = bytes.get(at..at.checked_add(2)?)?;
    Some(u16::from_le_bytes([b[0], b[1]]))
}

pub(crate) fn u64_at(bytes: &[u8], at: usize) -> Option<u64> {
    let lo = u32_at(bytes, at)?;
    let hi = u32_at(bytes, at.checked_add(4)?)?;
    Some(u64::from(lo) | (u64::from(hi) << 32))
}

/// Splits a payload into little-endian words; `None` unless its length is a multiple of 4.
pub(crate) fn words(payload: &[u8]) -> Option<Vec<u32>> {
    if payload.len() % 4 != 0 {
        return None;
    }
    Some(payload.chunks_exact(4).map(|c| u32::from_le_bytes([c[0], c[1], c[2], c[3]])).collect())
}

/// `EIFMT_NVAL` with a zero `u16`: the attribute's presence is its value.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Serialize)]
pub struct Flag;

impl Shape for Flag {
    const FORMAT: Format = Format::Nval;
    fn decode(value: u16, payload: &[u8]) -> Option<Self> {
        (value == 0 && payload.is_empty()).then_some(Flag)
    }
    fn encode(&self, _: &mut Vec<u8>) -> u16 {
        0
    }
    fn fields(&self, _: &'static str, _: &mut Vec<Field>) {}
}

/// `EIFMT_BVAL`: a small value kept in the header's `u16` (all 16 bits kept).
#[derive(Debug, Clone, Copy, PartialEq, Eq, Serialize)]
pub struct ByteValue(pub u16);

impl Shape for ByteValue {
    const FORMAT: Format = Format::Bval;
    fn decode(value: u16, payload: &[u8]) -> Option<Self> {
        payload.is_empty().then_some(ByteValue(value))
    }
    fn encode(&self, _: &mut Vec<u8>) -> u16 {
        self.0
    }
    fn fields(&self, label: &'static str, out: &mut Vec<Field>) {
        out.push(Field::new(label, FieldValue::Hex(u64::from(self.0))));
    }
}

/// `EIFMT_HVAL`: a 16-bit value in the header.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Serialize)]
pub struct HalfValue(pub u16);

impl Shape for HalfValue {
    const FORMAT: Format = Format::Hval;
    fn decode(value: u16, payload: &[u8]) -> Option<Self> {
        payload.is_empty().then_some(HalfValue(value))
    }
    fn encode(&self, _: &mut Vec<u8>) -> u16 {
        self.0
    }
    fn fields(&self, label: &'static str, out: &mut Vec<Field>) {
        out.push(Field::new(label, FieldValue::Hex(u64::from(self.0))));
    }
}

/// SVAL with one `u32`.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Serialize)]
pub struct Word(pub u32);

impl Shape for Word {
    const FORMAT: Format = Format::Sval;
    fn decode(_: u16, payload: &[u8]) -> Option<Self> {
        (payload.len() == 4).then(|| u32_at(payload, 0).map(Word))?
    }
    fn encode(&self, payload: &mut Vec<u8>) -> u16 {
        payload.extend_from_slice(&self.0.to_le_bytes());
        0
    }
    fn fields(&self, label: &'static str, out: &mut Vec<Field>) {
        out.push(Field::new(label, FieldValue::Hex(u64::from(self.0))));
    }
}

/// SVAL with a list of `u32` (instruction offsets, register ids).
#[derive(Debug, Clone, PartialEq, Eq, Serialize)]
pub struct Words(pub Vec<u32>);

impl Shape for Words {
    const FORMAT: Format = Format::Sval;
    fn decode(_: u16, payload: &[u8]) -> Option<Self> {
        words(payload).map(Words)
    }
    fn encode(&self, payload: &mut Vec<u8>) -> u16 {
        self.0.iter().for_each(|w| payload.extend_from_slice(&w.to_le_bytes()));
        0
    }
    fn fields(&self, label: &'static str, out: &mut Vec<Field>) {
        out.push(Field::new(label, FieldValue::HexList(self.0.iter().map(|&w| u64::from(w)).collect())));
    }
}

/// A payload of u32 pairs (`None` for an odd number of words).
fn word_pairs(payload: &[u8]) -> Option<Vec<(u32, u32)>> {
    let all = words(payload)?;
    (all.len() % 2 == 0).then(|| all.chunks_exact(2).map(|p| (p[0], p[1])).collect())
}

fn put_word_pairs(pairs: &[(u32, u32)], payload: &mut Vec<u8>) {
    for (a, b) in pairs {
        payload.extend_from_slice(&a.to_le_bytes());
        payload.extend_from_slice(&b.to_le_bytes());
    }
}

/// SVAL with `{ u32 offset, u32 register }` pairs: an instruction and the
/// register it names (`EIATTR_ATOM16_EMUL_INSTR_REG_MAP`, the 16-bit atomics
/// ptxas emulates: cuobjdump prints `(0x70, 8) (0xd0, 8)`).
#[derive(Debug, Clone, PartialEq, Eq, Serialize)]
pub struct InstructionRegisters(pub Vec<(u32, u32)>);

impl Shape for InstructionRegisters {
    const FORMAT: Format = Format::Sval;
    fn decode(_: u16, payload: &[u8]) -> Option<Self> {
        word_pairs(payload).map(InstructionRegisters)
    }
    fn encode(&self, payload: &mut Vec<u8>) -> u16 {
        put_word_pairs(&self.0, payload);
        0
    }
    fn fields(&self, label: &'static str, out: &mut Vec<Field>) {
        let list = self.0.iter().map(|(offset, register)| format!("{offset:#x}:R{register}")).collect();
        out.push(Field::new(label, FieldValue::TextList(list)));
    }
}

/// SVAL with `{ u32 offset, u32 mask }` pairs: a load and the bytes of its
/// result the code uses (`EIATTR_UNUSED_LOAD_BYTE_OFFSET`; a `float4` load
/// of which three words are read: cuobjdump prints `0xc0 0xfff`).
#[derive(Debug, Clone, PartialEq, Eq, Serialize)]
pub struct LoadByteMasks(pub Vec<(u32, u32)>);

impl Shape for LoadByteMasks {
    const FORMAT: Format = Format::Sval;
    fn decode(_: u16, payload: &[u8]) -> Option<Self> {
        word_pairs(payload).map(LoadByteMasks)
    }
    fn encode(&self, payload: &mut Vec<u8>) -> u16 {
        put_word_pairs(&self.0, payload);
        0
    }
    fn fields(&self, label: &'static str, out: &mut Vec<Field>) {
        let list = self.0.iter().map(|(offset, mask)| format!("{offset:#x}:bytes={mask:#x}")).collect();
        out.push(Field::new(label, FieldValue::TextList(list)));
    }
}

/// SVAL `{ u32 function, u32 value }`: a per-function value (registers, frame size, ...).
#[derive(Debug, Clone, Copy, PartialEq, Eq, Serialize)]
pub struct FunctionValue {
    pub function: SymbolIndex,
    pub value: u32,
}

impl Shape for FunctionValue {
    const FORMAT: Format = Format::Sval;
    fn decode(_: u16, payload: &[u8]) -> Option<Self> {
        if payload.len() != 8 {
            return None;
        }
        Some(FunctionValue { function: u32_at(payload, 0)?, value: u32_at(payload, 4)? })
    }
    fn encode(&self, payload: &mut Vec<u8>) -> u16 {
        payload.extend_from_slice(&self.function.to_le_bytes());
        payload.extend_from_slice(&self.value.to_le_bytes());
        0
    }
    fn fields(&self, label: &'static str, out: &mut Vec<Field>) {
        out.push(Field::new("function", FieldValue::Symbol(self.function)));
        // Register counts read best in decimal (cuobjdump prints them so); sizes in hex.
        let value = if label == "registers" {
            FieldValue::Number(u64::from(self.value))
        } else {
            FieldValue::Hex(u64::from(self.value))
        };
        out.push(Field::new(label, value));
    }
    fn visit_symbols(&self, f: &mut dyn FnMut(SymbolIndex)) {
        f(self.function)
    }
    fn visit_symbols_mut(&mut self, f: &mut dyn FnMut(&mut SymbolIndex)) {
        f(&mut self.function)
    }
}

/// SVAL `{ u32 x, y, z }`: a thread-block or cluster shape.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Serialize)]
pub struct Dim3 {
    pub x: u32,
    pub y: u32,
    pub z: u32,
}

impl Shape for Dim3 {
    const FORMAT: Format = Format::Sval;
    fn decode(_: u16, payload: &[u8]) -> Option<Self> {
        if payload.len() != 12 {
            return None;
        }
        Some(Dim3 { x: u32_at(payload, 0)?, y: u32_at(payload, 4)?, z: u32_at(payload, 8)? })
    }
    fn encode(&self, payload: &mut Vec<u8>) -> u16 {
        for w in [self.x, self.y, self.z] {
            payload.extend_from_slice(&w.to_le_bytes());
        }
        0
    }
    fn fields(&self, _: &'static str, out: &mut Vec<Field>) {
        out.push(Field::new("x", FieldValue::Number(u64::from(self.x))));
        out.push(Field::new("y", FieldValue::Number(u64::from(self.y))));
        out.push(Field::new("z", FieldValue::Number(u64::from(self.z))));
    }
}

/// SVAL with a list of symbol indices (`EIATTR_EXTERNS`).
#[derive(Debug, Clone, PartialEq, Eq, Serialize)]
pub struct Symbols(pub Vec<SymbolIndex>);

impl Shape for Symbols {
    const FORMAT: Format = Format::Sval;
    fn decode(_: u16, payload: &[u8]) -> Option<Self> {
        words(payload).map(Symbols)
    }
    fn encode(&self, payload: &mut Vec<u8>) -> u16 {
        self.0.iter().for_each(|w| payload.extend_from_slice(&w.to_le_bytes()));
        0
    }
    fn fields(&self, label: &'static str, out: &mut Vec<Field>) {
        out.push(Field::new(label, FieldValue::Symbols(self.0.clone())));
    }
    fn visit_symbols(&self, f: &mut dyn FnMut(SymbolIndex)) {
        self.0.iter().for_each(|&s| f(s))
    }
    fn visit_symbols_mut(&mut self, f: &mut dyn FnMut(&mut SymbolIndex)) {
        self.0.iter_mut().for_each(f)
    }
}

/// `EIATTR_PARAM_CBANK`: `{ u32 section symbol, u16 offset, u16 size }` — where in
/// the kernel's `.nv.constant0` section the parameters lie. cuobjdump prints the
/// second word whole (`0x1a 0x80380` = symbol 0x1a, size 8, offset 0x380).
#[derive(Debug, Clone, Copy, PartialEq, Eq, Serialize)]
pub struct ParamCbank {
    /// The section symbol of the kernel's `.nv.constant0.<kernel>`.
    pub section: SymbolIndex,
    pub offset: u16,
    pub size: u16,
}

impl Shape for ParamCbank {
    const FORMAT: Format = Format::Sval;
    fn decode(_: u16, payload: &[u8]) -> Option<Self> {
        if payload.len() != 8 {
            return None;
        }
        Some(ParamCbank { section: u32_at(payload, 0)?, offset: u16_at(payload, 4)?, size: u16_at(payload, 6)? })
    }
    fn encode(&self, payload: &mut Vec<u8>) -> u16 {
        payload.extend_from_slice(&self.section.to_le_bytes());
        payload.extend_from_slice(&self.offset.to_le_bytes());
        payload.extend_from_slice(&self.size.to_le_bytes());
        0
    }
    fn fields(&self, _: &'static str, out: &mut Vec<Field>) {
        out.push(Field::new("section", FieldValue::Symbol(self.section)));
        out.push(Field::new("offset", FieldValue::Hex(u64::from(self.offset))));
        out.push(Field::new("size", FieldValue::Hex(u64::from(self.size))));
    }
    fn visit_symbols(&self, f: &mut dyn FnMut(SymbolIndex)) {
        f(self.section)
    }
    fn visit_symbols_mut(&mut self, f: &mut dyn FnMut(&mut SymbolIndex)) {
        f(&mut self.section)
    }
}

/// `EIATTR_KPARAM_INFO`: one kernel parameter. Layout of the third word proven by
/// flipping each bit under cuobjdump 13.5: bits 0..8 pointee log-alignment, 8..12
/// space, 12..17 cbank, bit 17 parameter space (0 = CBANK, 1 = SMEM), 18..32 size.
/// (The crucible-notes wiki's `[ordinal:2][offset:2][size:2][?:2]` is wrong.)
#[derive(Debug, Clone, Copy, PartialEq, Eq, Serialize)]
pub struct KparamInfo {
    /// cuobjdump's "Index"; 0 in everything ptxas 13.5 writes.
    pub index: u32,
    pub ordinal: u16,
    pub offset: u16,
    pub log_alignment: u8,
    /// 4 bits.
    pub space: u8,
    /// 5 bits.
    pub cbank: u8,
    /// Bit 17 clear: cuobjdump's "Parameter Space : CBANK"; set: "SMEM".
    pub is_cbank: bool,
    /// 14 bits.
    pub size: u16,
}

impl KparamInfo {
    fn pack(&self) -> u32 {
        u32::from(self.log_alignment)
            | (u32::from(self.space & 0xf) << 8)
            | (u32::from(self.cbank & 0x1f) << 12)
            | (u32::from(!self.is_cbank) << 17)
            | (u32::from(self.size & 0x3fff) << 18)
    }
}

impl Shape for KparamInfo {
    const FORMAT: Format = Format::Sval;
    fn decode(_: u16, payload: &[u8]) -> Option<Self> {
        if payload.len() != 12 {
            return None;
        }
        let word = u32_at(payload, 8)?;
        Some(KparamInfo {
            index: u32_at(payload, 0)?,
            ordinal: u16_at(payload, 4)?,
            offset: u16_at(payload, 6)?,
            log_alignment: (word & 0xff) as u8,
            space: ((word >> 8) & 0xf) as u8,
            cbank: ((word >> 12) & 0x1f) as u8,
            is_cbank: word & (1 << 17) == 0,
            size: (word >> 18) as u16,
        })
    }
    fn encode(&self, payload: &mut Vec<u8>) -> u16 {
        payload.extend_from_slice(&self.index.to_le_bytes());
        payload.extend_from_slice(&self.ordinal.to_le_bytes());
        payload.extend_from_slice(&self.offset.to_le_bytes());
        payload.extend_from_slice(&self.pack().to_le_bytes());
        0
    }
    fn fields(&self, _: &'static str, out: &mut Vec<Field>) {
        out.push(Field::new("index", FieldValue::Hex(u64::from(self.index))));
        out.push(Field::new("ordinal", FieldValue::Number(u64::from(self.ordinal))));
        out.push(Field::new("offset", FieldValue::Hex(u64::from(self.offset))));
        out.push(Field::new("size", FieldValue::Hex(u64::from(self.size))));
        out.push(Field::new("log_alignment", FieldValue::Number(u64::from(self.log_alignment))));
        out.push(Field::new("space", FieldValue::Hex(u64::from(self.space))));
        out.push(Field::new("cbank", FieldValue::Hex(u64::from(self.cbank))));
        let space = if self.is_cbank { "CBANK" } else { "SMEM" };
        out.push(Field::new("param_space", FieldValue::Text(space.to_string())));
    }
}

/// One entry of `EIATTR_INDIRECT_BRANCH_TARGETS`.
#[derive(Debug, Clone, PartialEq, Eq, Serialize)]
pub struct IndirectBranch {
    /// Offset of the branch instruction in the function.
    pub offset: u32,
    /// 1: a call (cuobjdump prints `(kind_call)`); 0: a branch. Others kept as found.
    pub kind: u32,
    pub targets: Vec<u32>,
}

/// `EIATTR_INDIRECT_BRANCH_TARGETS`: `{ u32 offset, u32 kind, u32 count, u32 targets[count] }*`.
#[derive(Debug, Clone, PartialEq, Eq, Serialize)]
pub struct IndirectBranches(pub Vec<IndirectBranch>);

impl Shape for IndirectBranches {
    const FORMAT: Format = Format::Sval;
    fn decode(_: u16, payload: &[u8]) -> Option<Self> {
        let all = words(payload)?;
        let mut rest = all.as_slice();
        let mut out = Vec::new();
        while !rest.is_empty() {
            let [offset, kind, count, tail @ ..] = rest else { return None };
            let count = usize::try_from(*count).ok()?;
            if count > tail.len() {
                return None;
            }
            out.push(IndirectBranch { offset: *offset, kind: *kind, targets: tail[..count].to_vec() });
            rest = &tail[count..];
        }
        Some(IndirectBranches(out))
    }
    fn encode(&self, payload: &mut Vec<u8>) -> u16 {
        for b in &self.0 {
            let count = u32::try_from(b.targets.len()).unwrap_or(u32::MAX);
            for w in [b.offset, b.kind, count].iter().chain(&b.targets) {
                payload.extend_from_slice(&w.to_le_bytes());
            }
        }
        0
    }
    fn fields(&self, label: &'static str, out: &mut Vec<Field>) {
        let list = self
            .0
            .iter()
            .map(|b| {
                let kind = match b.kind {
                    0 => "branch".to_string(),
                    1 => "call".to_string(),
                    k => format!("{k:#x}"),
                };
                let targets: Vec<String> = b.targets.iter().map(|t| format!("{t:#x}")).collect();
                format!("{:#x}:{kind}[{}]", b.offset, targets.join(","))
            })
            .collect();
        out.push(Field::new(label, FieldValue::TextList(list)));
    }
}

/// One entry of `EIATTR_MBARRIER_INSTR_OFFSETS`: an mbarrier instruction
/// and the address operand it names, `(R<register> + UR<uniform> [+
/// immediate])`.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Serialize)]
pub struct MbarrierInstruction {
    pub offset: u32,
    pub register: u32,
    /// The third word: the address's immediate offset, which cuobjdump
    /// 13.5 prints as `+ 8` after the registers when it is not 0 (the
    /// second and later barriers of a `cuda::pipeline`'s shared state:
    /// fixture `capal`, 8, 0x10, 0x18).
    pub immediate: u32,
    /// Bits 0..3: the kind; 4..7: the stride; 8..15: 1 in every object
    /// seen; 16..23: the uniform register; 24..31: 0.
    pub info: u32,
}

impl MbarrierInstruction {
    /// cuobjdump 13.5's name of the kind (`info` bits 0..3), as printed
    /// for ptxas 13.5's objects (`mbarrier.init`, `arrive`, `test_wait`,
    /// `try_wait`, `try_wait.parity`, `cp.async.mbarrier.arrive`; fixtures
    /// mbar, tma, clel).
    pub fn kind_name(&self) -> Option<&'static str> {
        Some(match self.info & 0xf {
            0 => "MBARRIER_INIT",
            1 => "MBARRIER_ARRIVE",
            5 => "MBARRIER_TEST_WAIT",
            7 => "MBARRIER_CP_ASYNC_ARRIVE",
            9 => "MBARRIER_TRY_WAIT",
            // `mbarrier.try_wait.parity` (fixture clel's `clel_wait`, sm_100
            // and sm_120: cuobjdump 13.5 prints this name for kind 0xa).
            10 => "MBARRIER_TRY_WAIT_PARITY",
            // `mbarrier.inval` (fixture capal's `cuda::pipeline` shared
            // state, destroyed at the kernel's end: cuobjdump 13.5 prints
            // this name for kind 8).
            8 => "MBARRIER_INVAL",
            _ => return None,
        })
    }

    /// cuobjdump 13.5's name of the stride (`info` bits 4..7): 0 for the
    /// 8-byte `mbarrier` objects, 6 for 32-byte strides (`cuda::barrier`
    /// arrays); 2 it names the same (fixture mbsum's `g3`, a `cuda::barrier`
    /// array initialised by index, sm_80).
    pub fn stride_name(&self) -> Option<&'static str> {
        Some(match (self.info >> 4) & 0xf {
            0 => "MBARRIER_STRIDE_X4",
            2 | 6 => "MBARRIER_STRIDE_X16",
            _ => return None,
        })
    }

    /// The uniform register of the address (`info` bits 16..23).
    pub fn uniform_register(&self) -> u32 {
        (self.info >> 16) & 0xff
    }
}

/// `EIATTR_MBARRIER_INSTR_OFFSETS`: `{ u32 offset, u32 register, u32 0, u32 info }*`.
#[derive(Debug, Clone, PartialEq, Eq, Serialize)]
pub struct MbarrierInstructions(pub Vec<MbarrierInstruction>);

impl Shape for MbarrierInstructions {
    const FORMAT: Format = Format::Sval;
    fn decode(_: u16, payload: &[u8]) -> Option<Self> {
        let all = words(payload)?;
        if all.len() % 4 != 0 {
            return None;
        }
        let list = all
            .chunks_exact(4)
            .map(|w| MbarrierInstruction { offset: w[0], register: w[1], immediate: w[2], info: w[3] })
            .collect();
        Some(MbarrierInstructions(list))
    }
    fn encode(&self, payload: &mut Vec<u8>) -> u16 {
        for m in &self.0 {
            for w in [m.offset, m.register, m.immediate, m.info] {
                payload.extend_from_slice(&w.to_le_bytes());
            }
        }
        0
    }
    fn fields(&self, label: &'static str, out: &mut Vec<Field>) {
        let list = self
            .0
            .iter()
            .map(|m| {
                let kind = m.kind_name().map_or_else(|| format!("kind {:#x}", m.info & 0xf), str::to_string);
                let stride =
                    m.stride_name().map_or_else(|| format!("stride {:#x}", (m.info >> 4) & 0xf), str::to_string);
                let immediate = if m.immediate == 0 { String::new() } else { format!("+{:#x}", m.immediate) };
                format!("{:#x}:{kind}(R{}+UR{}{immediate}),{stride}", m.offset, m.register, m.uniform_register())
            })
            .collect();
        out.push(Field::new(label, FieldValue::TextList(list)));
    }
}

/// `EIATTR_LANGUAGE`: the source language, a `u32` code.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Serialize)]
pub struct Language(pub u32);

impl Language {
    /// cuobjdump 13.5's names, probed value by value; `None` where it prints UNKNOWN.
    pub fn name(self) -> Option<&'static str> {
        const NAMES: [&str; 11] = [
            "UNKNOWN",
            "SASS",
            "NVSAL",
            "PTX",
            "NVVM",
            "CUDA_C++",
            "CUDA_C++_Tile",
            "TILEIR",
            "CUTILE",
            "FORTRAN",
            "OPTIX",
        ];
        usize::try_from(self.0).ok().and_then(|i| NAMES.get(i)).copied().filter(|_| self.0 != 0)
    }
}

impl Shape for Language {
    const FORMAT: Format = Format::Sval;
    fn decode(value: u16, payload: &[u8]) -> Option<Self> {
        Word::decode(value, payload).map(|w| Language(w.0))
    }
    fn encode(&self, payload: &mut Vec<u8>) -> u16 {
        Word(self.0).encode(payload)
    }
    fn fields(&self, label: &'static str, out: &mut Vec<Field>) {
        let text = self.name().map(str::to_string).unwrap_or_else(|| format!("UNKNOWN({:#x})", self.0));
        out.push(Field::new(label, FieldValue::Text(text)));
    }
}

/// SVAL whose structure is not known: the bytes, typed only by the code.
#[derive(Debug, Clone, PartialEq, Eq, Serialize)]
pub struct Bytes(pub Vec<u8>);

impl Shape for Bytes {
    const FORMAT: Format = Format::Sval;
    fn decode(_: u16, payload: &[u8]) -> Option<Self> {
        Some(Bytes(payload.to_vec()))
    }
    fn encode(&self, payload: &mut Vec<u8>) -> u16 {
        payload.extend_from_slice(&self.0);
        0
    }
    fn fields(&self, label: &'static str, out: &mut Vec<Field>) {
        out.push(Field::new(label, FieldValue::Bytes(self.0.clone())));
    }
}

/// `EICOMPAT_ATTR_FINALIZER_VERSION` (HVAL): bits 10..16 major, 6..10 minor,
/// 0..6 patch; `0xffff` is printed UNKNOWN. Layout proven with cuobjdump 13.5
/// (`0x440` = 1.1.0, `0x1234` = 4.8.52).
#[derive(Debug, Clone, Copy, PartialEq, Eq, Serialize)]
pub struct FinalizerVersion(pub u16);

impl FinalizerVersion {
    /// `(major, minor, patch)`, or `None` for the 0xffff sentinel.
    pub fn parts(self) -> Option<(u16, u16, u16)> {
        (self.0 != 0xffff).then_some((self.0 >> 10, (self.0 >> 6) & 0xf, self.0 & 0x3f))
    }
}

impl Shape for FinalizerVersion {
    const FORMAT: Format = Format::Hval;
    fn decode(value: u16, payload: &[u8]) -> Option<Self> {
        payload.is_empty().then_some(FinalizerVersion(value))
    }
    fn encode(&self, _: &mut Vec<u8>) -> u16 {
        self.0
    }
    fn fields(&self, label: &'static str, out: &mut Vec<Field>) {
        let text = match self.parts() {
            Some((a, b, c)) => format!("{a}.{b}.{c}"),
            None => "UNKNOWN".to_string(),
        };
        out.push(Field::new(label, FieldValue::Text(text)));
    }
}

/// `EIATTR_KPARAM_INFO_V2` (written for parameters that do not fit KPARAM_INFO's
/// 14-bit size or 16-bit offset... as seen for an 8000-byte struct parameter):
/// `{ u32 index, u16 ordinal, u16 offset, u32 word }` with the word's bits 0..16
/// size, 16..24 pointee log-alignment, 24..28 space, 28..32 not printed by
/// cuobjdump (kept). Layout proven by flipping each bit under cuobjdump 13.5.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Serialize)]
pub struct KparamInfoV2 {
    pub index: u32,
    pub ordinal: u16,
    pub offset: u16,
    pub size: u16,
    pub log_alignment: u8,
    /// 4 bits.
    pub space: u8,
    /// Bits 28..32, meaning unknown (4 bits).
    pub unknown_bits: u8,
}

impl Shape for KparamInfoV2 {
    const FORMAT: Format = Format::Sval;
    fn decode(_: u16, payload: &[u8]) -> Option<Self> {
        if payload.len() != 12 {
            return None;
        }
        let word = u32_at(payload, 8)?;
        Some(KparamInfoV2 {
            index: u32_at(payload, 0)?,
            ordinal: u16_at(payload, 4)?,
            offset: u16_at(payload, 6)?,
            size: (word & 0xffff) as u16,
            log_alignment: ((word >> 16) & 0xff) as u8,
            space: ((word >> 24) & 0xf) as u8,
            unknown_bits: (word >> 28) as u8,
        })
    }
    fn encode(&self, payload: &mut Vec<u8>) -> u16 {
        let word = u32::from(self.size)
            | (u32::from(self.log_alignment) << 16)
            | (u32::from(self.space & 0xf) << 24)
            | (u32::from(self.unknown_bits & 0xf) << 28);
        payload.extend_from_slice(&self.index.to_le_bytes());
        payload.extend_from_slice(&self.ordinal.to_le_bytes());
        payload.extend_from_slice(&self.offset.to_le_bytes());
        payload.extend_from_slice(&word.to_le_bytes());
        0
    }
    fn fields(&self, _: &'static str, out: &mut Vec<Field>) {
        out.push(Field::new("index", FieldValue::Hex(u64::from(self.index))));
        out.push(Field::new("ordinal", FieldValue::Number(u64::from(self.ordinal))));
        out.push(Field::new("offset", FieldValue::Hex(u64::from(self.offset))));
        out.push(Field::new("size", FieldValue::Hex(u64::from(self.size))));
        out.push(Field::new("log_alignment", FieldValue::Number(u64::from(self.log_alignment))));
        out.push(Field::new("space", FieldValue::Hex(u64::from(self.space))));
        if self.unknown_bits != 0 {
            out.push(Field::new("unknown_bits", FieldValue::Hex(u64::from(self.unknown_bits))));
        }
    }
}
