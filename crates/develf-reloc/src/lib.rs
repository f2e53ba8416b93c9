//! The relocation engine for NVIDIA cubins.
//!
//! CUDA relocations scatter a value into bit fields of 64- or 128-bit
//! instruction words. Which fields, which part of the value and which rewrites
//! is data: one [`RelocDesc`] row per type in
//! [`develf_format::reloc_desc`]. This crate interprets those rows; it has no
//! per-type code. Every row that the fixtures exercise is proved bit-exact
//! against nvlink 13.5 by `tests/tests/reloc_nvlink.rs`.
//!
//! ```
//! use develf_format::reloc::R_CUDA_ABS32_LO_32;
//! // A 128-bit sm_90 `MOV R2, 0x0` whose immediate (bits 32..64) takes the low
//! // half of a symbol's address.
//! let mut insn = [0x02, 0x7a, 0x04, 0x00, 0, 0, 0, 0, 0, 0x0f, 0, 0, 0, 0xe2, 0x0f, 0];
//! develf_reloc::apply(R_CUDA_ABS32_LO_32, &mut insn, 0x1234_5678_9abc_def0, 0x10, 0).unwrap();
//! assert_eq!(&insn[4..8], &0x9abc_df00_u32.to_le_bytes());
//! ```
//!
//! The hot path ([`apply`], [`apply_rel`]) allocates nothing and never panics:
//! unknown types and short sites are [`RelocError`]s.
//!
//! Which relocations nvlink resolves and which it leaves in the output for
//! the driver is in [`keep`].

pub mod keep;

use develf_format::reloc;
pub use develf_format::reloc_desc::{Action, Piece, Range, RelocDesc, SymbolValue, ValuePart, descriptor};

/// Where a relocation is, for error messages: the index of the section it
/// patches and its `r_offset`.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub struct Location {
    pub section: u32,
    pub offset: u64,
}

impl core::fmt::Display for Location {
    fn fmt(&self, f: &mut core::fmt::Formatter<'_>) -> core::fmt::Result {
        write!(f, "section {} offset {:#x}", self.section, self.offset)
    }
}

/// The relocation type by name (or number when it has none), for messages.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub struct TypeName(pub u32);

impl core::fmt::Display for TypeName {
    fn fmt(&self, f: &mut core::fmt::Formatter<'_>) -> core::fmt::Result {
        match reloc::type_name(self.0) {
            Some(name) => f.write_str(name),
            None => write!(f, "relocation type {:#x}", self.0),
        }
    }
}

/// Shows an optional location as ` at section N offset 0x..`.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub struct At(pub Option<Location>);

impl core::fmt::Display for At {
    fn fmt(&self, f: &mut core::fmt::Formatter<'_>) -> core::fmt::Result {
        match self.0 {
            Some(location) => write!(f, " at {location}"),
            None => Ok(()),
        }
    }
}

/// A signed value in hex (`-0x8000`), for messages.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub struct SignedHex(pub i128);

impl core::fmt::Display for SignedHex {
    fn fmt(&self, f: &mut core::fmt::Formatter<'_>) -> core::fmt::Result {
        if self.0 < 0 { write!(f, "-{:#x}", self.0.unsigned_abs()) } else { write!(f, "{:#x}", self.0) }
    }
}

/// Why a relocation could not be applied.
#[derive(Debug, Clone, Copy, PartialEq, Eq, thiserror::Error)]
pub enum RelocError {
    /// Not a type of either family, or a `*_NONE_LAST` sentinel.
    #[error("{}{}: unknown relocation type", TypeName(*r_type), At(*location))]
    UnknownType { r_type: u32, location: Option<Location> },
    /// The site does not hold the bytes the type patches.
    #[error(
        "{}{}: needs {need} bytes at the site, only {have} in the section",
        TypeName(*r_type),
        At(*location)
    )]
    SiteTooShort { r_type: u32, need: usize, have: usize, location: Option<Location> },
    /// The value (after part selection and shift) does not fit the field.
    #[error(
        "{}{}: value {} (S + A{} = {}) does not fit the field: allowed {} ..= {}",
        TypeName(*r_type),
        At(*location),
        SignedHex(*value),
        if *pc_relative { " - P" } else { "" },
        SignedHex(*computed),
        SignedHex(*min),
        SignedHex(*max)
    )]
    OutOfRange {
        r_type: u32,
        /// `S + A (- P)`.
        computed: i128,
        /// What goes into the field: `computed` after part selection and shift.
        value: i128,
        min: i128,
        max: i128,
        pc_relative: bool,
        location: Option<Location>,
    },
    /// The type rewrites or clears its field: there is no value to read back.
    #[error("{}{}: the field holds no value to read back", TypeName(*r_type), At(*location))]
    NotReadable { r_type: u32, location: Option<Location> },
}

impl RelocError {
    /// The same error, placed at `location`.
    pub fn at(mut self, location: Location) -> RelocError {
        match &mut self {
            RelocError::UnknownType { location: l, .. }
            | RelocError::SiteTooShort { location: l, .. }
            | RelocError::OutOfRange { location: l, .. }
            | RelocError::NotReadable { location: l, .. } => *l = Some(location),
        }
        self
    }

    /// The relocation type the error is about.
    pub fn r_type(&self) -> u32 {
        match *self {
            RelocError::UnknownType { r_type, .. }
            | RelocError::SiteTooShort { r_type, .. }
            | RelocError::OutOfRange { r_type, .. }
            | RelocError::NotReadable { r_type, .. } => r_type,
        }
    }
}

fn lookup(r_type: u32) -> Result<&'static RelocDesc, RelocError> {
    descriptor(r_type).ok_or(RelocError::UnknownType { r_type, location: None })
}

fn check_site(desc: &RelocDesc, site: &[u8]) -> Result<usize, RelocError> {
    let need = desc.site_len();
    if site.len() < need {
        return Err(RelocError::SiteTooShort { r_type: desc.r_type, need, have: site.len(), location: None });
    }
    Ok(need)
}

fn load(site: &[u8], len: usize) -> u128 {
    // The two common widths (an instruction, a 64-bit word) as fixed-size
    // loads: a copy of variable length is a call to memcpy, which costs more
    // than the relocation itself (a big link applies some 100,000).
    match len {
        16 => site.first_chunk::<16>().map_or(0, |b| u128::from_le_bytes(*b)),
        8 => site.first_chunk::<8>().map_or(0, |b| u128::from(u64::from_le_bytes(*b))),
        _ => {
            let mut bytes = [0u8; 16];
            bytes[..len].copy_from_slice(&site[..len]);
            u128::from_le_bytes(bytes)
        }
    }
}

fn store(site: &mut [u8], len: usize, word: u128) {
    match len {
        16 => {
            if let Some(b) = site.first_chunk_mut::<16>() {
                *b = word.to_le_bytes();
            }
        }
        8 => {
            if let Some(b) = site.first_chunk_mut::<8>() {
                *b = (word as u64).to_le_bytes();
            }
        }
        _ => site[..len].copy_from_slice(&word.to_le_bytes()[..len]),
    }
}

const fn mask(width: u8) -> u128 {
    if width >= 128 { u128::MAX } else { (1u128 << width) - 1 }
}

/// Writes `value` into the pieces of `word`, low bits into the first piece.
fn scatter(pieces: &[Piece], mut word: u128, value: u128) -> u128 {
    let mut consumed = 0u32;
    for piece in pieces {
        let m = mask(piece.width);
        let bits = value.checked_shr(consumed).unwrap_or(0) & m;
        word = (word & !(m << piece.offset)) | (bits << piece.offset);
        consumed += u32::from(piece.width);
    }
    word
}

/// Reads the pieces of `word` back into one value.
fn gather(pieces: &[Piece], word: u128) -> u128 {
    let mut value = 0u128;
    let mut consumed = 0u32;
    for piece in pieces {
        let bits = (word >> piece.offset) & mask(piece.width);
        value |= bits.checked_shl(consumed).unwrap_or(0);
        consumed += u32::from(piece.width);
    }
    value
}

/// What `desc` writes into its field for symbol value `s`, addend `a`, place
/// `p`: `S + A (- P)`, part selected, shifted, range checked.
pub fn field_value(desc: &RelocDesc, s: u64, a: i64, p: u64) -> Result<u64, RelocError> {
    let mut computed = match (desc.value_part, desc.range) {
        (ValuePart::BankAddress(_), _) => i128::from(desc.value_part.add(s, a)),
        // An `Either` field takes the 64-bit two's complement sum: the bits
        // dropped may be all ones, so `S` = -1 (nvlink's value for an
        // undefined `__constant__` in `-r`, develf-link rule 8.3) with
        // addend 0 writes all ones (`R_CUDA_ABS16_32`: 0xffff).
        (_, Range::Either(_)) => i128::from(s.wrapping_add(a as u64) as i64),
        _ => i128::from(s) + i128::from(a),
    };
    if desc.pc_relative {
        computed -= i128::from(p);
    }
    if let Range::Any = desc.range {
        // Part selection on the 64-bit two's complement value.
        return Ok(desc.value_part.select(computed as u64) >> desc.shift);
    }
    let value = match desc.value_part {
        ValuePart::Whole | ValuePart::BankAddress(_) => computed >> desc.shift,
        part => i128::from(part.select(computed as u64) >> desc.shift),
    };
    let (min, max) = desc.range.bounds();
    if value < min || value > max {
        return Err(RelocError::OutOfRange {
            r_type: desc.r_type,
            computed,
            value,
            min,
            max,
            pc_relative: desc.pc_relative,
            location: None,
        });
    }
    Ok(value as u64)
}

/// Applies a RELA relocation: `site` starts at `r_offset` (the instruction
/// word or data field) and may run on; `value` is the resolved symbol value
/// `S` (what it stands for is [`RelocDesc::symbol_value`]), `addend` is `A`,
/// `place` is `P` (used by PC-relative types only).
pub fn apply(r_type: u32, site: &mut [u8], value: u64, addend: i64, place: u64) -> Result<(), RelocError> {
    let desc = lookup(r_type)?;
    apply_desc(desc, site, value, addend, place)
}

/// [`apply`] with the descriptor already looked up.
pub fn apply_desc(desc: &RelocDesc, site: &mut [u8], value: u64, addend: i64, place: u64) -> Result<(), RelocError> {
    let len = check_site(desc, site)?;
    let written = match desc.action {
        // A live symbol: nvlink leaves the field (and drops the relocation).
        Action::None | Action::ClearIfDead => return Ok(()),
        Action::Write | Action::ReplaceInstruction => u128::from(field_value(desc, value, addend, place)?),
        Action::WriteConstant(constant) => u128::from(constant),
    };
    let word = scatter(desc.pieces, load(site, len), written);
    store(site, len, word);
    Ok(())
}

/// A relocation worked out before its bytes are at hand: `field` goes into
/// the bit pieces of `desc` (a linker checks every relocation first and
/// patches the bytes while it writes the file).
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub struct FieldWrite {
    pub desc: &'static RelocDesc,
    pub field: u64,
}

impl FieldWrite {
    /// Scatters the field into `site`, leaving the other bits as they are.
    pub fn write(&self, site: &mut [u8]) -> Result<(), RelocError> {
        let len = check_site(self.desc, site)?;
        let word = scatter(self.desc.pieces, load(site, len), u128::from(self.field));
        store(site, len, word);
        Ok(())
    }
}

fn check_site_len(desc: &RelocDesc, have: usize) -> Result<(), RelocError> {
    let need = desc.site_len();
    if have < need {
        return Err(RelocError::SiteTooShort { r_type: desc.r_type, need, have, location: None });
    }
    Ok(())
}

/// [`apply`] without the site: what a RELA relocation writes into a site of
/// `site_len` bytes (`None`: it leaves the field as it is). The same errors
/// as [`apply`]: the result depends only on the type, `S`, `A` and `P`.
pub fn plan(
    r_type: u32,
    site_len: usize,
    value: u64,
    addend: i64,
    place: u64,
) -> Result<Option<FieldWrite>, RelocError> {
    let desc = lookup(r_type)?;
    check_site_len(desc, site_len)?;
    let field = match desc.action {
        // A live symbol: nvlink leaves the field (and drops the relocation).
        Action::None | Action::ClearIfDead => return Ok(None),
        Action::Write | Action::ReplaceInstruction => field_value(desc, value, addend, place)?,
        Action::WriteConstant(constant) => constant,
    };
    Ok(Some(FieldWrite { desc, field }))
}

/// [`apply_dead`] without the site: `R_CUDA_UNUSED_CLEAR*` write 0, every
/// other type nothing.
pub fn plan_dead(r_type: u32, site_len: usize) -> Result<Option<FieldWrite>, RelocError> {
    let desc = lookup(r_type)?;
    check_site_len(desc, site_len)?;
    Ok((desc.action == Action::ClearIfDead).then_some(FieldWrite { desc, field: 0 }))
}

/// What nvlink does to a site whose symbol's code it removed (dead function
/// elimination, a discarded duplicate): `R_CUDA_UNUSED_CLEAR*` zero their
/// field; every other type leaves the bytes as they are (the relocation is
/// dropped).
pub fn apply_dead(r_type: u32, site: &mut [u8]) -> Result<(), RelocError> {
    match plan_dead(r_type, site.len())? {
        Some(write) => write.write(site),
        None => Ok(()),
    }
}

/// Applies a REL relocation: the addend is the one stored in the field
/// ([`read_addend`]).
pub fn apply_rel(r_type: u32, site: &mut [u8], value: u64, place: u64) -> Result<(), RelocError> {
    let desc = lookup(r_type)?;
    let addend = match desc.action {
        Action::Write | Action::ReplaceInstruction => read_addend_desc(desc, site)?,
        _ => 0,
    };
    apply_desc(desc, site, value, addend, place)
}

/// Reads back what the field holds, in field units: the inverse of the
/// scatter, before the shift is undone (for `R_CUDA_ABS47_34`, the address
/// divided by 4).
pub fn extract(r_type: u32, site: &[u8]) -> Result<u64, RelocError> {
    let desc = lookup(r_type)?;
    if !desc.is_readable() {
        return Err(RelocError::NotReadable { r_type, location: None });
    }
    let len = check_site(desc, site)?;
    Ok(gather(desc.pieces, load(site, len)) as u64)
}

/// The implicit addend of a REL relocation: the field read back, the shift
/// undone, sign-extended where the field is signed or holds a whole value
/// narrower than 64 bits, and put back in place for part types (`*_HI_*`:
/// shifted left 32, byte `n`: shifted left `8n`). For constant-bank types it
/// is the offset part only (the bank comes from the symbol).
pub fn read_addend(r_type: u32, site: &[u8]) -> Result<i64, RelocError> {
    read_addend_desc(lookup(r_type)?, site)
}

fn read_addend_desc(desc: &RelocDesc, site: &[u8]) -> Result<i64, RelocError> {
    if !desc.is_readable() {
        return Err(RelocError::NotReadable { r_type: desc.r_type, location: None });
    }
    let len = check_site(desc, site)?;
    let raw = gather(desc.pieces, load(site, len)) as u64;
    let bits = desc.field_bits().min(64);
    let sign_extend =
        |v: u64, bits: u32| -> i64 { if bits >= 64 { v as i64 } else { ((v << (64 - bits)) as i64) >> (64 - bits) } };
    Ok(match desc.value_part {
        // Only the offset part is an addend; the bank bits belong to the symbol.
        ValuePart::BankAddress(n) => ((raw << desc.shift) & ((1u64 << (n & 63)) - 1)) as i64,
        ValuePart::Whole => match desc.range {
            Range::Unsigned(_) => (raw << desc.shift) as i64,
            _ => sign_extend(raw, bits) << desc.shift,
        },
        ValuePart::Lo32 => sign_extend(raw << desc.shift, 32),
        ValuePart::Hi32 => ((raw << desc.shift) << 32) as i64,
        ValuePart::Byte(n) => ((raw << desc.shift) << (u32::from(n & 7) * 8)) as i64,
    })
}

/// Applies a relocation inside a whole section's bytes: `offset` is
/// `r_offset`, `addend` is `Some` for RELA and `None` for REL. Errors carry
/// the section index and offset.
pub fn apply_in_section(
    r_type: u32,
    section_data: &mut [u8],
    section_index: u32,
    offset: u64,
    value: u64,
    addend: Option<i64>,
    place: u64,
) -> Result<(), RelocError> {
    let location = Location { section: section_index, offset };
    let start = usize::try_from(offset).unwrap_or(usize::MAX);
    let site = match section_data.get_mut(start..) {
        Some(site) => site,
        None => {
            let need = descriptor(r_type).map_or(1, |d| d.site_len());
            return Err(RelocError::SiteTooShort { r_type, need, have: 0, location: Some(location) });
        }
    };
    let result = match addend {
        Some(addend) => apply(r_type, site, value, addend, place),
        None => apply_rel(r_type, site, value, place),
    };
    result.map_err(|e| e.at(location))
}

#[cfg(test)]
#[allow(clippy::unwrap_used)] // a failing unwrap is a failing test
mod tests {
    use super::*;
    use develf_format::reloc::*;

    #[test]
    fn abs55_splits_the_shifted_address() {
        let mut word = [0u8; 16];
        apply(R_CUDA_ABS55_16_34, &mut word, 0x1234_5670, 0, 0).unwrap();
        let w = u128::from_le_bytes(word);
        let v = 0x1234_5670u128 >> 2;
        assert_eq!((w >> 16) & 0xff, v & 0xff);
        assert_eq!((w >> 34) & ((1 << 47) - 1), v >> 8);
        assert_eq!(extract(R_CUDA_ABS55_16_34, &word).unwrap() as u128, v);
    }

    #[test]
    fn errors_instead_of_panics() {
        let mut short = [0u8; 7];
        assert!(matches!(
            apply(R_CUDA_64, &mut short, 0, 0, 0),
            Err(RelocError::SiteTooShort { need: 8, have: 7, .. })
        ));
        assert!(matches!(apply(999, &mut short, 0, 0, 0), Err(RelocError::UnknownType { .. })));
        assert!(matches!(apply(R_CUDA_NONE_LAST, &mut short, 0, 0, 0), Err(RelocError::UnknownType { .. })));
        let mut word = [0u8; 16];
        let err = apply_in_section(R_CUDA_ABS16_32, &mut word, 7, 0, 0x1_0000, Some(0), 0).unwrap_err();
        let text = err.to_string();
        assert!(text.contains("R_CUDA_ABS16_32") && text.contains("section 7"), "{text}");
        assert!(text.contains("0x10000") && text.contains("0xffff"), "{text}");
        assert!(apply_in_section(R_CUDA_64, &mut word, 7, 12, 0, Some(0), 0).is_err());
        assert!(apply_in_section(R_CUDA_64, &mut word, 7, u64::MAX, 0, Some(0), 0).is_err());
    }

    #[test]
    fn pc_relative_is_signed() {
        let mut word = [0u8; 8];
        apply(R_CUDA_PCREL_IMM24_26, &mut word, 0x100, 0, 0x200).unwrap();
        assert_eq!(read_addend(R_CUDA_PCREL_IMM24_26, &word).unwrap(), -0x100);
        assert!(apply(R_CUDA_PCREL_IMM24_26, &mut word, 0x1000_0000, 0, 0).is_err());
    }

    #[test]
    fn rel_reads_its_addend_back() {
        let mut word = [0u8; 8];
        apply(R_CUDA_ABS32_20, &mut word, 0x40, 0, 0).unwrap();
        apply_rel(R_CUDA_ABS32_20, &mut word, 0x100, 0).unwrap();
        assert_eq!(extract(R_CUDA_ABS32_20, &word).unwrap(), 0x140);
    }
}

#[doc = include_str!("../README.md")]
#[cfg(doctest)]
pub struct ReadmeDoctests;
