//! Section types and flags, standard and CUDA-specific.
//!
//! Names are the ones cuobjdump prints with the `SHT_` prefix added. cuobjdump 13.5
//! prints the Mercury ones (`.nv.merc.*`, sm_100+) as `UNKNOWN: <type - 0x70000000>`;
//! for those the names below are develf's, chosen from the section names they carry.

use crate::code_table;

code_table! {
    /// Every section type a cubin may carry.
    pub SECTION_TYPES: u32 {
        SHT_NULL = 0,
        SHT_PROGBITS = 1,
        SHT_SYMTAB = 2,
        SHT_STRTAB = 3,
        SHT_RELA = 4,
        SHT_HASH = 5,
        SHT_DYNAMIC = 6,
        SHT_NOTE = 7,
        SHT_NOBITS = 8,
        SHT_REL = 9,
        SHT_DYNSYM = 11,
        SHT_INIT_ARRAY = 14,
        SHT_FINI_ARRAY = 15,
        SHT_GROUP = 17,
        SHT_SYMTAB_SHNDX = 18,
        SHT_CUDA_INFO = 0x7000_0000,
        SHT_CUDA_CALLGRAPH = 0x7000_0001,
        SHT_CUDA_PROTOTYPE = 0x7000_0002,
        SHT_CUDA_RESOLVED_RELA = 0x7000_0003,
        SHT_CUDA_METADATA = 0x7000_0004,
        SHT_CUDA_CONSTANT = 0x7000_0006,
        SHT_CUDA_GLOBAL = 0x7000_0007,
        SHT_CUDA_GLOBAL_INIT = 0x7000_0008,
        SHT_CUDA_LOCAL = 0x7000_0009,
        SHT_CUDA_SHARED = 0x7000_000a,
        SHT_CUDA_RELOCINFO = 0x7000_000b,
        SHT_CUDA_MERCURY = 0x7000_000c,
        SHT_CUDA_MERCURY_SASS_MAP = 0x7000_000d,
        SHT_CUDA_UFT = 0x7000_000e,
        SHT_CUDA_UFT_INDEX = 0x7000_0010,
        SHT_CUDA_UFT_ENTRY = 0x7000_0011,
        SHT_CUDA_UDT = 0x7000_0012,
        SHT_CUDA_UDT_ENTRY = 0x7000_0014,
        SHT_CUDA_RESERVED_SHARED = 0x7000_0015,
        SHT_CUDA_CAPMERC = 0x7000_0016,
        SHT_CUDA_CONSTANT_B0 = 0x7000_0064,
        SHT_CUDA_CONSTANT_B1 = 0x7000_0065,
        SHT_CUDA_CONSTANT_B2 = 0x7000_0066,
        SHT_CUDA_CONSTANT_B3 = 0x7000_0067,
        SHT_CUDA_CONSTANT_B4 = 0x7000_0068,
        SHT_CUDA_CONSTANT_B5 = 0x7000_0069,
        SHT_CUDA_CONSTANT_B6 = 0x7000_006a,
        SHT_CUDA_CONSTANT_B7 = 0x7000_006b,
        SHT_CUDA_CONSTANT_B8 = 0x7000_006c,
        SHT_CUDA_CONSTANT_B9 = 0x7000_006d,
        SHT_CUDA_CONSTANT_B10 = 0x7000_006e,
        SHT_CUDA_CONSTANT_B11 = 0x7000_006f,
        SHT_CUDA_CONSTANT_B12 = 0x7000_0070,
        SHT_CUDA_CONSTANT_B13 = 0x7000_0071,
        SHT_CUDA_CONSTANT_B14 = 0x7000_0072,
        SHT_CUDA_CONSTANT_B15 = 0x7000_0073,
        SHT_CUDA_CONSTANT_B16 = 0x7000_0074,
        SHT_CUDA_CONSTANT_B17 = 0x7000_0075,
        SHT_CUDA_MERCURY_CONSTANT_PARAMS = 0x7000_0078,
        SHT_CUDA_MERCURY_CONSTANT_IMGHDR = 0x7000_0079,
        SHT_CUDA_MERCURY_CONSTANT_DRIVER = 0x7000_007a,
        SHT_CUDA_MERCURY_CONSTANT_OPT = 0x7000_007b,
        SHT_CUDA_MERCURY_CONSTANT_USER = 0x7000_007c,
        SHT_CUDA_MERCURY_CONSTANT_PIC = 0x7000_007d,
        SHT_CUDA_MERCURY_CONSTANT_TOOLS = 0x7000_007e,
        /// `.nv.merc.rela*`: RELA records against `.nv.merc.symtab`, types `0x10000 + R_MERCURY_*`.
        SHT_CUDA_MERCURY_RELA = 0x7000_0082,
        /// `.nv.merc.nv.info*`.
        SHT_CUDA_MERCURY_INFO = 0x7000_0083,
        /// `.nv.merc.nv.constant.optimizer.<fn>` (ptxas 13.5, sm_100+, from PTX with
        /// indirect branches); name ours.
        SHT_CUDA_MERCURY_CONSTANT_OPTIMIZER = 0x7000_0084,
        /// `.nv.merc.symtab`: an ELF64 symbol table for the Mercury sections.
        SHT_CUDA_MERCURY_SYMTAB = 0x7000_0085,
        SHT_CUDA_COMPAT_INFO = 0x7000_0086,
        SHT_CUDA_EMBEDDED_HOST = 0x7000_0087,
        SHT_CUDA_MERCURY_RESOLVED_RELA = 0x7000_0088,
        SHT_CUDA_METADATA_TRACE_MARK = 0x7000_0089,
        /// `.nv.merc.nv.callgraph`.
        SHT_CUDA_MERCURY_CALLGRAPH = 0x7000_008a,
        /// `.nv.merc.nv.prototype`.
        SHT_CUDA_MERCURY_PROTOTYPE = 0x7000_008b,
    }
}

/// First processor-specific section type; cuobjdump prints unknown ones relative to it.
pub const SHT_LOPROC: u32 = 0x7000_0000;

/// The full constant name of a section type (`SHT_CUDA_INFO`).
pub fn type_name(sh_type: u32) -> Option<&'static str> {
    crate::table::lookup(SECTION_TYPES, sh_type)
}

/// The name as cuobjdump prints it (`CUDA_INFO`), or `None` where cuobjdump 13.5
/// prints `UNKNOWN: N` (the Mercury types).
pub fn cuobjdump_type_name(sh_type: u32) -> Option<&'static str> {
    if is_mercury_type(sh_type) {
        return None;
    }
    type_name(sh_type).map(|n| n.trim_start_matches("SHT_"))
}

/// Types cuobjdump 13.5 does not name (it prints `UNKNOWN: N` for them).
fn is_mercury_type(sh_type: u32) -> bool {
    matches!(
        sh_type,
        SHT_CUDA_CAPMERC
            | SHT_CUDA_MERCURY_CONSTANT_PARAMS..=SHT_CUDA_MERCURY_CONSTANT_TOOLS
            | SHT_CUDA_MERCURY_RELA..=SHT_CUDA_MERCURY_SYMTAB
            | SHT_CUDA_MERCURY_RESOLVED_RELA..=SHT_CUDA_MERCURY_PROTOTYPE
    )
}

/// Whether a section of this type has bytes in the file. NOBITS and the CUDA
/// memory-space types only reserve device memory: their `sh_offset`/`sh_size` need
/// not lie inside the file.
pub fn occupies_file(sh_type: u32) -> bool {
    !matches!(
        sh_type,
        SHT_NULL | SHT_NOBITS | SHT_CUDA_SHARED | SHT_CUDA_LOCAL | SHT_CUDA_RESERVED_SHARED | SHT_CUDA_GLOBAL
    )
}

/// The constant bank number of a `SHT_CUDA_CONSTANT_Bn` type.
pub fn constant_bank(sh_type: u32) -> Option<u32> {
    (SHT_CUDA_CONSTANT_B0..=SHT_CUDA_CONSTANT_B17).contains(&sh_type).then(|| sh_type - SHT_CUDA_CONSTANT_B0)
}

/// Relocation section types: standard and Mercury.
pub fn is_relocation_type(sh_type: u32) -> bool {
    matches!(sh_type, SHT_REL | SHT_RELA | SHT_CUDA_MERCURY_RELA)
}

code_table! {
    /// Section flags (`sh_flags`) with a name.
    pub SECTION_FLAGS: u64 {
        SHF_WRITE = 0x1,
        SHF_ALLOC = 0x2,
        SHF_EXECINSTR = 0x4,
        SHF_MERGE = 0x10,
        SHF_STRINGS = 0x20,
        SHF_INFO_LINK = 0x40,
        SHF_LINK_ORDER = 0x80,
        SHF_GROUP = 0x200,
        /// On `.note.nv.cuinfo` in CUDA 13.5 output; name ours.
        SHF_CUDA_NOTE_CUINFO = 0x0100_0000,
        /// On `.note.nv.tkinfo` in CUDA 13.5 output; name ours.
        SHF_CUDA_NOTE_TKINFO = 0x0200_0000,
        /// Mercury sections (`.nv.merc.*`, `.nv.capmerc.*`): the finaliser's, not the linker's.
        SHF_CUDA_MERCURY = 0x1000_0000,
    }
}

/// `.text.*` of ABI 7 objects: barrier count in `sh_flags` bits 20..26.
pub const SHF_BARRIERS_SHIFT: u32 = 20;
pub const SHF_BARRIERS_MASK: u64 = 0x7f << SHF_BARRIERS_SHIFT;
/// `.text.*` of ABI 7 objects: register count in `sh_info` bits 24..31.
pub const SHI_REGISTERS_SHIFT: u32 = 24;

/// The names of the flag bits set in `flags`, in bit order; unnamed bits as hex.
pub fn flag_names(flags: u64) -> Vec<String> {
    let mut names = Vec::new();
    let mut rest = flags;
    for &(bit, name) in SECTION_FLAGS {
        if flags & bit != 0 {
            names.push(name.to_string());
            rest &= !bit;
        }
    }
    if rest != 0 {
        names.push(format!("{rest:#x}"));
    }
    names
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn cuobjdump_names() {
        assert_eq!(cuobjdump_type_name(SHT_CUDA_COMPAT_INFO), Some("CUDA_COMPAT_INFO"));
        assert_eq!(cuobjdump_type_name(SHT_CUDA_MERCURY_SYMTAB), None);
        assert_eq!(constant_bank(SHT_CUDA_CONSTANT_B3), Some(3));
        assert!(!occupies_file(SHT_NOBITS));
    }
}
