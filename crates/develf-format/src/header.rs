//! ELF header values specific to CUDA cubins, and the `e_flags` codecs.
//!
//! Two header layouts exist. ptxas up to CUDA 12.x writes OSABI 0x33 with ABI
//! version 7; CUDA 13 writes OSABI 0x41 with ABI version 8 and a different
//! `e_flags` layout. nvlink 13.5 reads both and always writes ABI 8.

use crate::code_table;

/// `e_machine` of every NVIDIA cubin.
pub const EM_CUDA: u16 = 190;

code_table! {
    /// `EI_OSABI` values seen in cubins.
    pub OSABIS: u8 {
        /// ptxas 12.x and older (ABI version 7).
        ELFOSABI_CUDA = 0x33,
        /// CUDA 13 (ABI version 8). LLVM names 41 *decimal* `ELFOSABI_CUDA_V2`,
        /// but the tools write 0x41 (65): the tool is right.
        ELFOSABI_CUDA_V2 = 0x41,
    }
}

/// `EI_ABIVERSION` of the older layout.
pub const ABI_VERSION_7: u8 = 7;
/// `EI_ABIVERSION` of the CUDA 13 layout.
pub const ABI_VERSION_8: u8 = 8;

code_table! {
    /// `e_type` values of cubins, as cuobjdump names them.
    pub FILE_TYPES: u16 {
        ET_NONE = 0,
        ET_REL = 1,
        ET_EXEC = 2,
        ET_DYN = 3,
        /// Mercury (sm_100+) relocatable object awaiting finalisation (nvlink notes;
        /// not yet seen from the 13.5 tools, which write `ET_REL`).
        ET_CUDA_MERCURY_REL = 0xff00,
    }
}

/// The fields of a cubin's `e_flags`, independent of the layout they came from.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Default)]
pub struct CudaFlags {
    /// The real SM number, e.g. 90 for sm_90.
    pub sm: u8,
    /// The virtual SM (`compute_NN`) the code was built for.
    pub virtual_sm: u8,
    /// ABI 7: the 'a' (architecture-specific) suffix bit 0x800. ABI 8 keeps the
    /// 'a' in `.nv.compat` (EICOMPAT_ATTR_CUDA_ACCELERATOR_TARGET) instead.
    pub accelerator: bool,
    /// ABI 7: `EF_CUDA_TEXMODE_UNIFIED` (0x100).
    pub texmode_unified: bool,
    /// ABI 7: `EF_CUDA_TEXMODE_INDEPENDANT` (0x200), NVIDIA's spelling.
    pub texmode_independent: bool,
    /// ABI 7: `EF_CUDA_64BIT_ADDRESS` (0x400).
    pub address_64: bool,
    /// ABI 7: `EF_CUDA_SW_FLAG_V2` (0x1000).
    pub sw_flag_v2: bool,
    /// ABI 8: the low byte. 4 on sm_75..sm_90, 2 on sm_100+ in CUDA 13.5 output
    /// (both objects and executables); its meaning is not published.
    pub kind: u8,
    /// ABI 8: the top byte, the section index of `.note.nv.cuinfo` (0 if none).
    /// The notes in shared/ call this a "link state"; the tools disagree.
    pub cuinfo_section: u8,
    /// Bits the layout does not define, kept so encode gives back the input.
    pub unknown_bits: u32,
}

/// ABI 7 `e_flags` bits.
pub mod abi7 {
    pub const SM_MASK: u32 = 0xff;
    pub const TEXMODE_UNIFIED: u32 = 0x100;
    pub const TEXMODE_INDEPENDANT: u32 = 0x200;
    pub const ADDRESS_64: u32 = 0x400;
    pub const ACCELERATORS: u32 = 0x800;
    pub const SW_FLAG_V2: u32 = 0x1000;
    pub const VIRTUAL_SM_SHIFT: u32 = 16;
    pub const VIRTUAL_SM_MASK: u32 = 0xff << VIRTUAL_SM_SHIFT;
    pub const KNOWN: u32 =
        SM_MASK | TEXMODE_UNIFIED | TEXMODE_INDEPENDANT | ADDRESS_64 | ACCELERATORS | SW_FLAG_V2 | VIRTUAL_SM_MASK;
}

/// ABI 8 `e_flags` fields.
pub mod abi8 {
    pub const KIND_MASK: u32 = 0xff;
    pub const SM_SHIFT: u32 = 8;
    pub const SM_MASK: u32 = 0xff << SM_SHIFT;
    pub const VIRTUAL_SM_SHIFT: u32 = 16;
    pub const VIRTUAL_SM_MASK: u32 = 0xff << VIRTUAL_SM_SHIFT;
    pub const CUINFO_SHIFT: u32 = 24;
    pub const CUINFO_MASK: u32 = 0xff << CUINFO_SHIFT;
}

impl CudaFlags {
    /// Splits `e_flags` by the layout that `abi_version` selects. Versions other
    /// than 7 are read with the ABI 8 layout, the newest one known.
    pub fn decode(abi_version: u8, flags: u32) -> CudaFlags {
        if abi_version == ABI_VERSION_7 {
            CudaFlags {
                sm: (flags & abi7::SM_MASK) as u8,
                virtual_sm: ((flags & abi7::VIRTUAL_SM_MASK) >> abi7::VIRTUAL_SM_SHIFT) as u8,
                accelerator: flags & abi7::ACCELERATORS != 0,
                texmode_unified: flags & abi7::TEXMODE_UNIFIED != 0,
                texmode_independent: flags & abi7::TEXMODE_INDEPENDANT != 0,
                address_64: flags & abi7::ADDRESS_64 != 0,
                sw_flag_v2: flags & abi7::SW_FLAG_V2 != 0,
                kind: 0,
                cuinfo_section: 0,
                unknown_bits: flags & !abi7::KNOWN,
            }
        } else {
            CudaFlags {
                sm: ((flags & abi8::SM_MASK) >> abi8::SM_SHIFT) as u8,
                virtual_sm: ((flags & abi8::VIRTUAL_SM_MASK) >> abi8::VIRTUAL_SM_SHIFT) as u8,
                kind: (flags & abi8::KIND_MASK) as u8,
                cuinfo_section: ((flags & abi8::CUINFO_MASK) >> abi8::CUINFO_SHIFT) as u8,
                ..CudaFlags::default()
            }
        }
    }

    /// Builds `e_flags` in the layout that `abi_version` selects.
    pub fn encode(&self, abi_version: u8) -> u32 {
        if abi_version == ABI_VERSION_7 {
            let bit = |on: bool, b: u32| if on { b } else { 0 };
            u32::from(self.sm)
                | (u32::from(self.virtual_sm) << abi7::VIRTUAL_SM_SHIFT)
                | bit(self.accelerator, abi7::ACCELERATORS)
                | bit(self.texmode_unified, abi7::TEXMODE_UNIFIED)
                | bit(self.texmode_independent, abi7::TEXMODE_INDEPENDANT)
                | bit(self.address_64, abi7::ADDRESS_64)
                | bit(self.sw_flag_v2, abi7::SW_FLAG_V2)
                | self.unknown_bits
        } else {
            u32::from(self.kind)
                | (u32::from(self.sm) << abi8::SM_SHIFT)
                | (u32::from(self.virtual_sm) << abi8::VIRTUAL_SM_SHIFT)
                | (u32::from(self.cuinfo_section) << abi8::CUINFO_SHIFT)
        }
    }
}

/// A target such as `sm_90a`: the SM number and the 'a' (architecture-specific) suffix.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Hash, PartialOrd, Ord)]
pub struct Arch {
    pub sm: u32,
    pub accelerator: bool,
}

impl Arch {
    /// Parses `sm_90a`, `sm_90`, `90a` or `compute_90`.
    pub fn parse(text: &str) -> Option<Arch> {
        let digits = text.strip_prefix("sm_").or_else(|| text.strip_prefix("compute_")).unwrap_or(text);
        let (digits, accelerator) = match digits.strip_suffix('a') {
            Some(d) => (d, true),
            None => (digits, false),
        };
        if digits.is_empty() || !digits.bytes().all(|b| b.is_ascii_digit()) {
            return None;
        }
        Some(Arch { sm: digits.parse().ok()?, accelerator })
    }
}

impl core::fmt::Display for Arch {
    fn fmt(&self, f: &mut core::fmt::Formatter<'_>) -> core::fmt::Result {
        write!(f, "sm_{}{}", self.sm, if self.accelerator { "a" } else { "" })
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    // Values printed by cuobjdump 13.5 for ptxas 12.9 and 13.5 output.
    #[test]
    fn abi7_sm50_from_ptxas_12_9() {
        let f = CudaFlags::decode(7, 0x0032_0532);
        assert_eq!((f.sm, f.virtual_sm), (50, 50));
        assert!(f.texmode_unified && f.address_64 && !f.accelerator);
        assert_eq!(f.encode(7), 0x0032_0532);
    }

    #[test]
    fn abi8_from_ptxas_13_5() {
        let f = CudaFlags::decode(8, 0x0600_5a04);
        assert_eq!((f.sm, f.virtual_sm, f.kind, f.cuinfo_section), (90, 0, 4, 6));
        assert_eq!(f.encode(8), 0x0600_5a04);
        let f = CudaFlags::decode(8, 0x0600_6402);
        assert_eq!((f.sm, f.kind), (100, 2));
    }

    #[test]
    fn arch_text() {
        assert_eq!(Arch::parse("sm_90a"), Some(Arch { sm: 90, accelerator: true }));
        assert_eq!(Arch::parse("compute_75").map(|a| a.to_string()).as_deref(), Some("sm_75"));
        assert_eq!(Arch::parse("sm_"), None);
        assert_eq!(Arch::parse("sm_9x"), None);
    }
}
