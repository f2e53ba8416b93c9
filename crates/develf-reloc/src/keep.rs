//! Which relocations nvlink resolves and which it leaves in its output for the
//! driver (executables) or for the next link (`-r`), as data.
//!
//! Everything here was read off nvlink 13.5's outputs by the differential test
//! `tests/tests/reloc_nvlink.rs`, which checks [`disposition`] against every
//! relocation of every fixture link and fails on any disagreement.
//!
//! The rule, in words: the driver places code and allocates global memory at
//! load time, so nvlink cannot know those addresses. A relocation whose symbol
//! lives in `.text.*` (call targets, return addresses, function pointers in
//! `.nv.global.init`, FDE start addresses in `.debug_frame`) or in
//! `.nv.global` / `.nv.global.init` stays in the output's `.rela.<section>`,
//! unpatched. In an executable the unified-address types are rewritten to
//! their plain counterparts on the way ([`EXECUTABLE_CONVERSIONS`];
//! `R_CUDA_UNIFIED` becomes `R_CUDA_64`), while `nvlink -r` keeps them as they
//! are. Everything nvlink can compute itself is resolved: constant-bank
//! addresses (`bank << 16 | offset`), offsets inside debug sections,
//! texture/surface header slots and unified-function-table offsets it
//! assigns. `R_CUDA_UNUSED_CLEAR*` are always consumed (a no-op for a live
//! symbol, a clear for a dead one), and relocations whose symbol's code was
//! removed (dead function) or discarded (a duplicate weak definition) are
//! dropped.

use develf_format::reloc::*;
use develf_format::reloc_desc::{Action, SymbolValue, descriptor};

/// What nvlink writes.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Hash, PartialOrd, Ord)]
pub enum OutputKind {
    /// An executable (`ET_EXEC`): what the driver loads.
    Executable,
    /// A relocatable link (`nvlink -r`, `ET_REL`).
    Relocatable,
}

/// Where the symbol a relocation refers to lives, by its output section.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Hash, PartialOrd, Ord)]
pub enum SymbolHome {
    /// `.text.*`: code, placed by the driver.
    Code,
    /// `.nv.global`, `.nv.global.init`: global memory, allocated by the driver.
    GlobalMemory,
    /// `.nv.constant<N>*`: a constant bank.
    ConstantBank,
    /// `.nv.shared.*`: shared memory.
    SharedMemory,
    /// `.nv.local.*`: local memory.
    LocalMemory,
    /// `.debug_line`: the DWARF line table (the sm_100+ finalizer rebuilds it).
    DebugLine,
    /// `.debug_*`, `.nv_debug_*`: the other debug sections.
    Debug,
    /// Any other section.
    Other,
    /// A texture, sampler or surface reference: nvlink gives it a header slot
    /// in the kernel's constant bank 0 (and leaves a `*_HEADER_INDEX`
    /// relocation there for the driver); the value is that slot's offset.
    TextureSlot,
    /// `__UFT_OFFSET`, `__UDT_OFFSET` and friends: offsets in the unified
    /// function/data tables nvlink builds.
    TableOffset,
    /// Not defined anywhere in the link (`SHN_UNDEF` in the output).
    Undefined,
}

impl SymbolHome {
    /// Classifies an output section by name. Mercury sections
    /// (`.nv.merc.<name>`, `.nv.capmerc.<name>`) are classified by `<name>`.
    pub fn of_section(name: &str) -> SymbolHome {
        let name = name.strip_prefix(".nv.capmerc").or_else(|| name.strip_prefix(".nv.merc")).unwrap_or(name);
        if name.starts_with(".text.") || name == ".text" {
            SymbolHome::Code
        } else if name == ".nv.global" || name == ".nv.global.init" {
            SymbolHome::GlobalMemory
        } else if name.starts_with(".nv.constant") {
            SymbolHome::ConstantBank
        } else if name.starts_with(".nv.shared") || name == ".nv_debug.shared" {
            SymbolHome::SharedMemory
        } else if name.starts_with(".nv.local") {
            SymbolHome::LocalMemory
        } else if name == ".debug_line" {
            SymbolHome::DebugLine
        } else if name.starts_with(".debug_") || name.starts_with(".nv_debug_") {
            SymbolHome::Debug
        } else {
            SymbolHome::Other
        }
    }
}

/// Whether the definition the relocation refers to survived the link.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Hash, PartialOrd, Ord)]
pub enum SymbolState {
    /// In the output.
    Live,
    /// The relocation describes a definition that lost to another input's
    /// (weak duplicates): an FDE of the losing copy in `.debug_frame`. It is
    /// dropped, the field left as it was. (References to a losing copy from
    /// live code are [`SymbolState::Live`]: they go to the winner.)
    DiscardedDuplicate,
    /// Removed by dead-function elimination: the relocation is dropped and
    /// `R_CUDA_UNUSED_CLEAR*` clear their field ([`crate::apply_dead`]).
    Dead,
}

/// What nvlink does with one relocation.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Hash, PartialOrd, Ord)]
pub enum Disposition {
    /// Applied to the bytes ([`crate::apply`]); no relocation in the output.
    Apply,
    /// The symbol's code was removed: [`crate::apply_dead`] (clears the
    /// `R_CUDA_UNUSED_CLEAR*` fields, leaves the rest); no relocation.
    ApplyDead,
    /// Dropped: the bytes are left as they are, no relocation in the output
    /// (relocations of a duplicate definition that lost).
    Drop,
    /// Left in the output's relocation section with this type, the bytes
    /// unpatched.
    Keep(u32),
    /// Applied and also left in the output with this type (sm_100+ `-G`
    /// executables: `R_MERCURY_PROG_REL32` offsets into `.nv.merc.debug_line`).
    ApplyAndKeep(u32),
}

/// The facts nvlink's decision depends on.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Hash)]
pub struct Query {
    pub r_type: u32,
    pub output: OutputKind,
    /// Where the symbol lives in the output.
    pub symbol: SymbolHome,
    pub state: SymbolState,
    /// The link is for a Mercury target (sm_100+: inputs carry
    /// `.nv.capmerc.*` / `.nv.merc.*`).
    pub mercury: bool,
}

/// The homes whose addresses only the driver knows: code, global memory, and
/// symbols no input defines (`vprintf`, `malloc`, `free`, `__assertfail`:
/// the driver's system calls).
pub const DRIVER_PLACED: &[SymbolHome] = &[SymbolHome::Code, SymbolHome::GlobalMemory, SymbolHome::Undefined];

/// Types an executable keeps under another name: (input type, output type).
/// `R_CUDA_UNIFIED` -> `R_CUDA_64` and the `UNIFIED32` halves were seen in
/// nvlink's outputs; the `_32` and byte forms follow the same pattern.
pub static EXECUTABLE_CONVERSIONS: &[(u32, u32)] = &[
    (R_MERCURY_UNIFIED, R_MERCURY_ABS64),
    (R_MERCURY_UNIFIED_32, R_MERCURY_ABS32),
    (R_MERCURY_UNIFIED32_LO, R_MERCURY_ABS32_LO),
    (R_MERCURY_UNIFIED32_HI, R_MERCURY_ABS32_HI),
    (R_MERCURY_UNIFIED_8_0, R_MERCURY_8_0),
    (R_MERCURY_UNIFIED_8_8, R_MERCURY_8_8),
    (R_MERCURY_UNIFIED_8_16, R_MERCURY_8_16),
    (R_MERCURY_UNIFIED_8_24, R_MERCURY_8_24),
    (R_MERCURY_UNIFIED_8_32, R_MERCURY_8_32),
    (R_MERCURY_UNIFIED_8_40, R_MERCURY_8_40),
    (R_MERCURY_UNIFIED_8_48, R_MERCURY_8_48),
    (R_MERCURY_UNIFIED_8_56, R_MERCURY_8_56),
    (R_CUDA_UNIFIED, R_CUDA_64),
    (R_CUDA_UNIFIED_32, R_CUDA_32),
    (R_CUDA_UNIFIED32_LO_32, R_CUDA_ABS32_LO_32),
    (R_CUDA_UNIFIED32_HI_32, R_CUDA_ABS32_HI_32),
    (R_CUDA_UNIFIED_8_0, R_CUDA_8_0),
    (R_CUDA_UNIFIED_8_8, R_CUDA_8_8),
    (R_CUDA_UNIFIED_8_16, R_CUDA_8_16),
    (R_CUDA_UNIFIED_8_24, R_CUDA_8_24),
    (R_CUDA_UNIFIED_8_32, R_CUDA_8_32),
    (R_CUDA_UNIFIED_8_40, R_CUDA_8_40),
    (R_CUDA_UNIFIED_8_48, R_CUDA_8_48),
    (R_CUDA_UNIFIED_8_56, R_CUDA_8_56),
];

/// The type a kept relocation has in the output.
pub fn kept_type(r_type: u32, output: OutputKind) -> u32 {
    if output == OutputKind::Executable {
        if let Some(&(_, to)) = EXECUTABLE_CONVERSIONS.iter().find(|(from, _)| *from == r_type) {
            return to;
        }
    }
    r_type
}

/// Relocations a relocatable link keeps although it could resolve them:
/// (type, symbol home). Seen: sm_100+ texture/surface operands
/// (`R_CUDA_CONST_FIELD22_37`, and `R_MERCURY_ABS32` in the capsule) stay in
/// `nvlink -r` output, while the sm_7x-9x forms (`R_CUDA_CONST_FIELD21_38`,
/// `R_CUDA_BINDLESSOFF14_40`) are resolved.
pub static RELOCATABLE_KEEPS: &[(u32, SymbolHome)] =
    &[(R_CUDA_CONST_FIELD22_37, SymbolHome::TextureSlot), (R_MERCURY_ABS32, SymbolHome::TextureSlot)];

/// Homes a relocatable link keeps relocations against: shared memory is laid
/// out per kernel by the final link (`R_CUDA_ABS24_40`, `R_CUDA_ABS32_32`
/// against `__shared__` and `extern __shared__` variables stay in `nvlink -r`
/// output and are resolved in executables).
pub const RELOCATABLE_PLACED: &[SymbolHome] = &[SymbolHome::SharedMemory];

/// Types nvlink 13.5 drops without touching the bytes: the YIELD rewrites.
/// In every fixture link (and with `-g`, `-preserve-relocs`,
/// `--link-as-tools-patch`, `--device-stack-protector=true` on sm_75) the
/// YIELD stays a YIELD and neither relocation survives; when nvlink would
/// turn it into a NOP was not established.
pub static DROPPED_TYPES: &[u32] = &[R_CUDA_YIELD_OPCODE9_0, R_CUDA_YIELD_CLEAR_PRED4_87];

/// What nvlink does with the relocation described by `query`.
pub fn disposition(query: &Query) -> Disposition {
    if DROPPED_TYPES.contains(&query.r_type) {
        return Disposition::Drop;
    }
    match query.state {
        SymbolState::Live => {}
        SymbolState::DiscardedDuplicate => return Disposition::Drop,
        SymbolState::Dead => return Disposition::ApplyDead,
    }
    let desc = descriptor(query.r_type);
    let writes = desc.is_some_and(|d| matches!(d.action, Action::Write | Action::ReplaceInstruction));
    // `R_CUDA_G*` write a generic (global-segment) address, which only the
    // driver knows whatever the symbol's home: a pointer to a `__constant__`
    // variable in `.nv.constant3` or `.nv.global.init` stays a relocation,
    // exec and `-r`, defined or not (develf-link rule 8.3; u16 d + e, sm_80,
    // sm_90, sm_120).
    let generic = desc.is_some_and(|d| d.symbol_value == SymbolValue::GlobalAddress);
    let relocatable = query.output == OutputKind::Relocatable;
    if query.mercury && query.symbol == SymbolHome::DebugLine {
        // sm_100+ debug info: the finalizer rebuilds the line table, so
        // offsets into it stay relocations (seen for `.debug_info`'s
        // DW_AT_stmt_list: R_CUDA_32 kept by -r, R_MERCURY_PROG_REL32 kept by
        // -r and applied-and-kept in executables).
        if query.r_type == R_MERCURY_PROG_REL32 {
            return if relocatable { Disposition::Keep(query.r_type) } else { Disposition::ApplyAndKeep(query.r_type) };
        }
        if relocatable && query.r_type == R_CUDA_32 {
            return Disposition::Keep(query.r_type);
        }
    }
    let keep = generic
        || DRIVER_PLACED.contains(&query.symbol)
        || (relocatable && RELOCATABLE_PLACED.contains(&query.symbol))
        || (relocatable && RELOCATABLE_KEEPS.contains(&(query.r_type, query.symbol)));
    if writes && keep { Disposition::Keep(kept_type(query.r_type, query.output)) } else { Disposition::Apply }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn calls_stay_constant_bank_addresses_resolve() {
        let q = |r_type, symbol, output| Query { r_type, output, symbol, state: SymbolState::Live, mercury: false };
        let exe = OutputKind::Executable;
        assert_eq!(disposition(&q(R_CUDA_ABS55_16_34, SymbolHome::Code, exe)), Disposition::Keep(R_CUDA_ABS55_16_34));
        assert_eq!(disposition(&q(R_CUDA_UNIFIED, SymbolHome::Code, exe)), Disposition::Keep(R_CUDA_64));
        assert_eq!(
            disposition(&q(R_CUDA_UNIFIED, SymbolHome::Code, OutputKind::Relocatable)),
            Disposition::Keep(R_CUDA_UNIFIED)
        );
        assert_eq!(disposition(&q(R_CUDA_CONST_FIELD21_38, SymbolHome::ConstantBank, exe)), Disposition::Apply);
        assert_eq!(disposition(&q(R_CUDA_UNUSED_CLEAR64, SymbolHome::Code, exe)), Disposition::Apply);
    }
}
