//! Relocation types: `R_CUDA_*` in `.rel*`/`.rela*` sections and `R_MERCURY_*`
//! in `.nv.merc.rela*` (sm_100+).
//!
//! Names are nvlink 13.5's own (its name array, shared/reference/nvidia-names.tsv)
//! and match what cuobjdump 13.5 prints. Mercury relocation records store
//! `0x10000 + n` in the type field of `r_info` (seen in ptxas 13.5 output: e.g.
//! 0x10006 for `R_MERCURY_ABS32_HI`), so the two families share one number space.

use crate::code_table;

/// Added to an `R_MERCURY_*` number in the `r_info` type field.
pub const MERCURY_BASE: u32 = 0x1_0000;

code_table! {
    /// `R_CUDA_*`, 0..=116.
    pub CUDA_RELOCATIONS: u32 {
        R_CUDA_NONE = 0,
        R_CUDA_32 = 1,
        R_CUDA_64 = 2,
        R_CUDA_G32 = 3,
        R_CUDA_G64 = 4,
        R_CUDA_ABS32_26 = 5,
        R_CUDA_TEX_HEADER_INDEX = 6,
        R_CUDA_SAMP_HEADER_INDEX = 7,
        R_CUDA_SURF_HW_DESC = 8,
        R_CUDA_SURF_HW_SW_DESC = 9,
        R_CUDA_ABS32_LO_26 = 10,
        R_CUDA_ABS32_HI_26 = 11,
        R_CUDA_ABS32_23 = 12,
        R_CUDA_ABS32_LO_23 = 13,
        R_CUDA_ABS32_HI_23 = 14,
        R_CUDA_ABS24_26 = 15,
        R_CUDA_ABS24_23 = 16,
        R_CUDA_ABS16_26 = 17,
        R_CUDA_ABS16_23 = 18,
        R_CUDA_TEX_SLOT = 19,
        R_CUDA_SAMP_SLOT = 20,
        R_CUDA_SURF_SLOT = 21,
        R_CUDA_TEX_BINDLESSOFF13_32 = 22,
        R_CUDA_TEX_BINDLESSOFF13_47 = 23,
        R_CUDA_CONST_FIELD19_28 = 24,
        R_CUDA_CONST_FIELD19_23 = 25,
        R_CUDA_TEX_SLOT9_49 = 26,
        R_CUDA_6_31 = 27,
        R_CUDA_2_47 = 28,
        R_CUDA_TEX_BINDLESSOFF13_41 = 29,
        R_CUDA_TEX_BINDLESSOFF13_45 = 30,
        R_CUDA_FUNC_DESC32_23 = 31,
        R_CUDA_FUNC_DESC32_LO_23 = 32,
        R_CUDA_FUNC_DESC32_HI_23 = 33,
        R_CUDA_FUNC_DESC_32 = 34,
        R_CUDA_FUNC_DESC_64 = 35,
        R_CUDA_CONST_FIELD21_26 = 36,
        R_CUDA_QUERY_DESC21_37 = 37,
        R_CUDA_CONST_FIELD19_26 = 38,
        R_CUDA_CONST_FIELD21_23 = 39,
        R_CUDA_PCREL_IMM24_26 = 40,
        R_CUDA_PCREL_IMM24_23 = 41,
        R_CUDA_ABS32_20 = 42,
        R_CUDA_ABS32_LO_20 = 43,
        R_CUDA_ABS32_HI_20 = 44,
        R_CUDA_ABS24_20 = 45,
        R_CUDA_ABS16_20 = 46,
        R_CUDA_FUNC_DESC32_20 = 47,
        R_CUDA_FUNC_DESC32_LO_20 = 48,
        R_CUDA_FUNC_DESC32_HI_20 = 49,
        R_CUDA_CONST_FIELD19_20 = 50,
        R_CUDA_BINDLESSOFF13_36 = 51,
        R_CUDA_SURF_HEADER_INDEX = 52,
        R_CUDA_INSTRUCTION64 = 53,
        R_CUDA_CONST_FIELD21_20 = 54,
        R_CUDA_ABS32_32 = 55,
        R_CUDA_ABS32_LO_32 = 56,
        R_CUDA_ABS32_HI_32 = 57,
        R_CUDA_ABS47_34 = 58,
        R_CUDA_ABS16_32 = 59,
        R_CUDA_ABS24_32 = 60,
        R_CUDA_FUNC_DESC32_32 = 61,
        R_CUDA_FUNC_DESC32_LO_32 = 62,
        R_CUDA_FUNC_DESC32_HI_32 = 63,
        R_CUDA_CONST_FIELD19_40 = 64,
        R_CUDA_BINDLESSOFF14_40 = 65,
        R_CUDA_CONST_FIELD21_38 = 66,
        R_CUDA_INSTRUCTION128 = 67,
        R_CUDA_YIELD_OPCODE9_0 = 68,
        R_CUDA_YIELD_CLEAR_PRED4_87 = 69,
        R_CUDA_32_LO = 70,
        R_CUDA_32_HI = 71,
        R_CUDA_UNUSED_CLEAR32 = 72,
        R_CUDA_UNUSED_CLEAR64 = 73,
        R_CUDA_ABS24_40 = 74,
        R_CUDA_ABS55_16_34 = 75,
        R_CUDA_8_0 = 76,
        R_CUDA_8_8 = 77,
        R_CUDA_8_16 = 78,
        R_CUDA_8_24 = 79,
        R_CUDA_8_32 = 80,
        R_CUDA_8_40 = 81,
        R_CUDA_8_48 = 82,
        R_CUDA_8_56 = 83,
        R_CUDA_G8_0 = 84,
        R_CUDA_G8_8 = 85,
        R_CUDA_G8_16 = 86,
        R_CUDA_G8_24 = 87,
        R_CUDA_G8_32 = 88,
        R_CUDA_G8_40 = 89,
        R_CUDA_G8_48 = 90,
        R_CUDA_G8_56 = 91,
        R_CUDA_FUNC_DESC_8_0 = 92,
        R_CUDA_FUNC_DESC_8_8 = 93,
        R_CUDA_FUNC_DESC_8_16 = 94,
        R_CUDA_FUNC_DESC_8_24 = 95,
        R_CUDA_FUNC_DESC_8_32 = 96,
        R_CUDA_FUNC_DESC_8_40 = 97,
        R_CUDA_FUNC_DESC_8_48 = 98,
        R_CUDA_FUNC_DESC_8_56 = 99,
        R_CUDA_ABS20_44 = 100,
        R_CUDA_SAMP_HEADER_INDEX_0 = 101,
        R_CUDA_UNIFIED = 102,
        R_CUDA_UNIFIED_32 = 103,
        R_CUDA_UNIFIED_8_0 = 104,
        R_CUDA_UNIFIED_8_8 = 105,
        R_CUDA_UNIFIED_8_16 = 106,
        R_CUDA_UNIFIED_8_24 = 107,
        R_CUDA_UNIFIED_8_32 = 108,
        R_CUDA_UNIFIED_8_40 = 109,
        R_CUDA_UNIFIED_8_48 = 110,
        R_CUDA_UNIFIED_8_56 = 111,
        R_CUDA_UNIFIED32_LO_32 = 112,
        R_CUDA_UNIFIED32_HI_32 = 113,
        R_CUDA_ABS56_16_34 = 114,
        R_CUDA_CONST_FIELD22_37 = 115,
        R_CUDA_NONE_LAST = 116,
    }
}

code_table! {
    /// `R_MERCURY_*`, as they appear in `r_info` (with [`MERCURY_BASE`] added).
    /// Names from a public disassembler's table (shared/reference/denvdis-tables),
    /// whose entry for `R_MERCURY_UNIFIED32_HI` is mislabelled 0x3e; it is 0x3f.
    pub MERCURY_RELOCATIONS: u32 {
        R_MERCURY_NONE = MERCURY_BASE,
        R_MERCURY_G64 = MERCURY_BASE + 1,
        R_MERCURY_ABS64 = MERCURY_BASE + 2,
        R_MERCURY_ABS32 = MERCURY_BASE + 3,
        R_MERCURY_ABS16 = MERCURY_BASE + 4,
        R_MERCURY_ABS32_LO = MERCURY_BASE + 5,
        R_MERCURY_ABS32_HI = MERCURY_BASE + 6,
        R_MERCURY_PROG_REL64 = MERCURY_BASE + 7,
        R_MERCURY_PROG_REL32 = MERCURY_BASE + 8,
        R_MERCURY_PROG_REL32_LO = MERCURY_BASE + 9,
        R_MERCURY_PROG_REL32_HI = MERCURY_BASE + 10,
        R_MERCURY_TEX_HEADER_INDEX = MERCURY_BASE + 11,
        R_MERCURY_SAMP_HEADER_INDEX = MERCURY_BASE + 12,
        R_MERCURY_SURF_HEADER_INDEX = MERCURY_BASE + 13,
        R_MERCURY_UNUSED_CLEAR64 = MERCURY_BASE + 14,
        R_MERCURY_FUNC_DESC_64 = MERCURY_BASE + 15,
        R_MERCURY_8_0 = MERCURY_BASE + 16,
        R_MERCURY_8_8 = MERCURY_BASE + 17,
        R_MERCURY_8_16 = MERCURY_BASE + 18,
        R_MERCURY_8_24 = MERCURY_BASE + 19,
        R_MERCURY_8_32 = MERCURY_BASE + 20,
        R_MERCURY_8_40 = MERCURY_BASE + 21,
        R_MERCURY_8_48 = MERCURY_BASE + 22,
        R_MERCURY_8_56 = MERCURY_BASE + 23,
        R_MERCURY_G8_0 = MERCURY_BASE + 24,
        R_MERCURY_G8_8 = MERCURY_BASE + 25,
        R_MERCURY_G8_16 = MERCURY_BASE + 26,
        R_MERCURY_G8_24 = MERCURY_BASE + 27,
        R_MERCURY_G8_32 = MERCURY_BASE + 28,
        R_MERCURY_G8_40 = MERCURY_BASE + 29,
        R_MERCURY_G8_48 = MERCURY_BASE + 30,
        R_MERCURY_G8_56 = MERCURY_BASE + 31,
        R_MERCURY_FUNC_DESC_8_0 = MERCURY_BASE + 32,
        R_MERCURY_FUNC_DESC_8_8 = MERCURY_BASE + 33,
        R_MERCURY_FUNC_DESC_8_16 = MERCURY_BASE + 34,
        R_MERCURY_FUNC_DESC_8_24 = MERCURY_BASE + 35,
        R_MERCURY_FUNC_DESC_8_32 = MERCURY_BASE + 36,
        R_MERCURY_FUNC_DESC_8_40 = MERCURY_BASE + 37,
        R_MERCURY_FUNC_DESC_8_48 = MERCURY_BASE + 38,
        R_MERCURY_FUNC_DESC_8_56 = MERCURY_BASE + 39,
        R_MERCURY_ABS_PROG_REL32_LO = MERCURY_BASE + 40,
        R_MERCURY_ABS_PROG_REL32_HI = MERCURY_BASE + 41,
        R_MERCURY_PROG_REL8_0 = MERCURY_BASE + 42,
        R_MERCURY_PROG_REL8_8 = MERCURY_BASE + 43,
        R_MERCURY_PROG_REL8_16 = MERCURY_BASE + 44,
        R_MERCURY_PROG_REL8_24 = MERCURY_BASE + 45,
        R_MERCURY_PROG_REL8_32 = MERCURY_BASE + 46,
        R_MERCURY_PROG_REL8_40 = MERCURY_BASE + 47,
        R_MERCURY_PROG_REL8_48 = MERCURY_BASE + 48,
        R_MERCURY_PROG_REL8_56 = MERCURY_BASE + 49,
        R_MERCURY_UNIFIED = MERCURY_BASE + 50,
        R_MERCURY_UNIFIED_32 = MERCURY_BASE + 51,
        R_MERCURY_UNIFIED_8_0 = MERCURY_BASE + 52,
        R_MERCURY_UNIFIED_8_8 = MERCURY_BASE + 53,
        R_MERCURY_UNIFIED_8_16 = MERCURY_BASE + 54,
        R_MERCURY_UNIFIED_8_24 = MERCURY_BASE + 55,
        R_MERCURY_UNIFIED_8_32 = MERCURY_BASE + 56,
        R_MERCURY_UNIFIED_8_40 = MERCURY_BASE + 57,
        R_MERCURY_UNIFIED_8_48 = MERCURY_BASE + 58,
        R_MERCURY_UNIFIED_8_56 = MERCURY_BASE + 59,
        R_MERCURY_ABS_PROG_REL32 = MERCURY_BASE + 60,
        R_MERCURY_ABS_PROG_REL64 = MERCURY_BASE + 61,
        R_MERCURY_UNIFIED32_LO = MERCURY_BASE + 62,
        R_MERCURY_UNIFIED32_HI = MERCURY_BASE + 63,
        R_MERCURY_NONE_LAST = MERCURY_BASE + 64,
    }
}

/// The name of a relocation type from either family.
pub fn type_name(r_type: u32) -> Option<&'static str> {
    let table = if r_type >= MERCURY_BASE { MERCURY_RELOCATIONS } else { CUDA_RELOCATIONS };
    crate::table::lookup(table, r_type)
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn tables_are_dense() {
        assert_eq!(CUDA_RELOCATIONS.len(), 117);
        for (i, (v, _)) in CUDA_RELOCATIONS.iter().enumerate() {
            assert_eq!(*v as usize, i);
        }
        for (i, (v, _)) in MERCURY_RELOCATIONS.iter().enumerate() {
            assert_eq!(*v as usize, MERCURY_BASE as usize + i);
        }
        assert_eq!(type_name(0x10006), Some("R_MERCURY_ABS32_HI"));
        assert_eq!(type_name(75), Some("R_CUDA_ABS55_16_34"));
    }
}
