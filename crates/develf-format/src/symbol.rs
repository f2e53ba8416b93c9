//! Symbol types, bindings and the CUDA meaning of `st_other`.

use crate::code_table;

code_table! {
    /// Symbol types (low nibble of `st_info`), as cuobjdump names them with `STT_`.
    pub SYMBOL_TYPES: u8 {
        STT_NOTYPE = 0,
        STT_OBJECT = 1,
        STT_FUNC = 2,
        STT_SECTION = 3,
        STT_FILE = 4,
        STT_COMMON = 5,
        STT_TLS = 6,
        STT_CUDA_TEXTURE = 10,
        STT_CUDA_SURFACE = 12,
        STT_CUDA_OBJECT = 13,
    }
}

code_table! {
    /// Symbol bindings (high nibble of `st_info`).
    pub SYMBOL_BINDINGS: u8 {
        STB_LOCAL = 0,
        STB_GLOBAL = 1,
        STB_WEAK = 2,
    }
}

code_table! {
    /// Symbol visibility, `st_other & 3`.
    pub VISIBILITIES: u8 {
        STV_DEFAULT = 0,
        STV_INTERNAL = 1,
        STV_HIDDEN = 2,
        STV_PROTECTED = 3,
    }
}

/// `st_other & 3`: the visibility.
pub const STO_VISIBILITY_MASK: u8 = 0x03;
/// `st_other` bit: a `__managed__` variable.
pub const STO_CUDA_MANAGED: u8 = 0x04;
/// `st_other` bit: a kernel (`__global__` function).
pub const STO_CUDA_ENTRY: u8 = 0x10;
/// `st_other & 0xe0`: the memory space of a variable.
pub const STO_CUDA_SPACE_MASK: u8 = 0xe0;

code_table! {
    /// Values of the memory-space field `st_other & 0xe0`.
    pub SYMBOL_SPACES: u8 {
        STO_CUDA_GLOBAL = 0x20,
        STO_CUDA_SHARED = 0x40,
        STO_CUDA_LOCAL = 0x60,
        STO_CUDA_CONSTANT = 0x80,
        STO_CUDA_RESERVED_SHARED = 0xa0,
    }
}

/// `SHN_*` special section indices.
pub const SHN_UNDEF: u16 = 0;
pub const SHN_LORESERVE: u16 = 0xff00;
pub const SHN_ABS: u16 = 0xfff1;
pub const SHN_COMMON: u16 = 0xfff2;
pub const SHN_XINDEX: u16 = 0xffff;

/// The words cuobjdump prints in its "Other" column: `ENTRY`, `GLOBAL`, `SHARED`,
/// `CONSTANT`, `MANAGED`, `RESERVED_SHARED`, joined with `|` (e.g. `GLOBAL|MANAGED`).
pub fn other_names(st_other: u8) -> Vec<&'static str> {
    let mut names = Vec::new();
    if st_other & STO_CUDA_ENTRY != 0 {
        names.push("ENTRY");
    }
    match crate::table::lookup(SYMBOL_SPACES, st_other & STO_CUDA_SPACE_MASK) {
        Some(name) => names.push(name.trim_start_matches("STO_CUDA_")),
        None if st_other & STO_CUDA_SPACE_MASK != 0 => names.push("UNKNOWN_SPACE"),
        None => {}
    }
    if st_other & STO_CUDA_MANAGED != 0 {
        names.push("MANAGED");
    }
    names
}

/// Type name without the `STT_` prefix, as cuobjdump prints it.
pub fn type_name(st_type: u8) -> Option<&'static str> {
    crate::table::lookup(SYMBOL_TYPES, st_type).map(|n| n.trim_start_matches("STT_"))
}

/// Binding name without the `STB_` prefix.
pub fn binding_name(bind: u8) -> Option<&'static str> {
    crate::table::lookup(SYMBOL_BINDINGS, bind).map(|n| n.trim_start_matches("STB_"))
}

/// Visibility name without the `STV_` prefix.
pub fn visibility_name(st_other: u8) -> &'static str {
    crate::table::lookup(VISIBILITIES, st_other & STO_VISIBILITY_MASK)
        .map(|n| n.trim_start_matches("STV_"))
        .unwrap_or("DEFAULT")
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn cuobjdump_other_column() {
        assert_eq!(other_names(0x10), ["ENTRY"]);
        assert_eq!(other_names(0x24), ["GLOBAL", "MANAGED"]);
        assert_eq!(other_names(0xa0), ["RESERVED_SHARED"]);
        assert!(other_names(0x01).is_empty());
    }
}
