//! Intel ZE binary (zebin) constants: header values, section types and names, the
//! `.note.intelgt.compat` note types, `R_ZE_*` relocations, the PRODUCT_FAMILY and
//! GFXCORE_FAMILY enums, the TargetFlags / TargetMetadata bit field, the IP version
//! (GMD ID) codec and a table of device names.
//!
//! Sources, in the order they win: what Intel's `ocloc` (22.43 from Debian bookworm,
//! 26.27 from sid) writes and accepts; IGC's spec (`IGC/ZEBinWriter/zebin/spec/elf.md`)
//! and its writer; NEO's decoder (compute-runtime
//! `shared/source/device_binary_format/zebin/`). The project's seed notes describe the
//! *older* header layout (`ET_ZEBIN_EXE`, `e_machine` = product family, TargetFlags in
//! `e_flags`) as if it were current; every ocloc we ran writes `ET_REL`,
//! `EM_INTELGT` (205), `e_flags` 0, and the target in `.note.intelgt.compat`. Both
//! layouts are described here because NEO still accepts the old one.

use crate::code_table;

/// `e_machine` of current zebins (IGC spec `elf.md`; ocloc 22.43 and 26.27 write it).
pub const EM_INTELGT: u16 = 205;

/// `e_ident[EI_ABIVERSION]` IGC writes (its `ELFWriter::writeHeader`); NEO ignores it.
pub const IGC_ABI_VERSION: u8 = 1;

code_table! {
    /// `e_type` values a zebin may carry. NEO's `isZebin` accepts only `ET_REL` and
    /// `ET_ZEBIN_EXE`; `ET_ZEBIN_REL` and `ET_ZEBIN_DYN` are defined but rejected
    /// ("Unhandled elf type").
    pub ELF_TYPES: u16 {
        ET_NONE = 0,
        /// What IGC writes today ("Currently IGC always emits a relocatable file").
        ET_REL = 1,
        ET_ZEBIN_REL = 0xff11,
        /// The older layout: `e_machine` holds a product family or GFX core.
        ET_ZEBIN_EXE = 0xff12,
        ET_ZEBIN_DYN = 0xff13,
    }
}

code_table! {
    /// Zebin-specific section types (`SHT_ZEBIN`, in `SHT_LOUSER..` space: readelf
    /// prints them as `LOUSER+0x7f0000xx`).
    pub SECTION_TYPES: u32 {
        /// `.spv`; the same value as the legacy `SHT_OPENCL_SPIRV`.
        SHT_ZEBIN_SPIRV = 0xff00_0009,
        SHT_ZEBIN_ZEINFO = 0xff00_0011,
        SHT_ZEBIN_GTPIN_INFO = 0xff00_0012,
        SHT_ZEBIN_VISAASM = 0xff00_0013,
        SHT_ZEBIN_MISC = 0xff00_0014,
    }
}

/// The standard ELF section types NEO's zebin decoder knows (`extractZebinSections`);
/// any other type makes it fail with "Unhandled ELF section header type".
pub const ALLOWED_STANDARD_SECTION_TYPES: &[u32] = &[
    0, // SHT_NULL
    1, // SHT_PROGBITS (names checked separately)
    2, // SHT_SYMTAB
    3, // SHT_STRTAB
    4, // SHT_RELA
    7, // SHT_NOTE
    8, // SHT_NOBITS
    9, // SHT_REL
];

code_table! {
    /// Relocation types in `.rel.*` / `.rela.*` of a zebin (`ELF64_R_TYPE`).
    /// The spec spells type 4 `R_PER_THREAD_PAYLOAD_OFFSET_32`; NEO's enum says
    /// `R_PER_THREAD_PAYLOAD_OFFSET` for the same value. develf prints the spec's name.
    pub RELOCATIONS: u32 {
        R_ZE_NONE = 0,
        /// 64-bit address.
        R_ZE_SYM_ADDR = 1,
        /// 32-bit address, or the low 32 bits of a 64-bit one.
        R_ZE_SYM_ADDR_32 = 2,
        /// The high 32 bits of a 64-bit address.
        R_ZE_SYM_ADDR_32_HI = 3,
        /// A 32-bit field holding the payload offset of per-thread data.
        R_PER_THREAD_PAYLOAD_OFFSET_32 = 4,
    }
}

/// Name of an `R_ZE_*` relocation type.
pub fn relocation_name(r_type: u32) -> Option<&'static str> {
    crate::table::lookup(RELOCATIONS, r_type)
}

code_table! {
    /// Note types in `.note.intelgt.compat` (owner `IntelGT`). 7 and 8 are newer
    /// than NEO 22.43's decoder, which warns "Unrecognized IntelGTNote type" on them.
    pub COMPAT_NOTE_TYPES: u32 {
        /// A 4-byte PRODUCT_FAMILY.
        NT_INTELGT_PRODUCT_FAMILY = 1,
        /// A 4-byte GFXCORE_FAMILY.
        NT_INTELGT_GFXCORE_FAMILY = 2,
        /// A 4-byte [`TargetFlags`] (the spec's TargetMetadata; bit 15 is reserved there).
        NT_INTELGT_TARGET_METADATA = 3,
        /// A NUL-terminated "MAJOR.MINOR": the `.ze_info` version.
        NT_INTELGT_ZEBIN_VERSION = 4,
        /// vISA ABI version; only present when stack calls are used.
        NT_INTELGT_VISA_ABI_VERSION = 5,
        /// A 4-byte GMD ID ([`IpVersion`]); when present NEO matches the device on it
        /// alone and ignores the product family, GFX core and metadata notes.
        NT_INTELGT_PRODUCT_CONFIG = 6,
        /// Version of IGC's indirect-access detection.
        NT_INTELGT_INDIRECT_ACCESS_DETECTION_VERSION = 7,
        /// Major version of the indirect access buffer layout.
        NT_INTELGT_INDIRECT_ACCESS_BUFFER_MAJOR_VERSION = 8,
    }
}

/// Name of a `.note.intelgt.compat` note type.
pub fn compat_note_name(n_type: u32) -> Option<&'static str> {
    crate::table::lookup(COMPAT_NOTE_TYPES, n_type)
}

/// `.note.intelgt.metrics` has no note types: IGC reserves 64 bytes of padding in it
/// for metrics data (`ELFWriter::writeMetricsNote`) and ocloc 22.43 / 26.27 leave it
/// as zero-filled headers or a few stray bytes, which readelf reports as corrupt
/// notes. NEO only warns "Unhandled SHT_NOTE section" and skips it; develf shows its
/// size and does not decode it.
pub const METRICS_NOTE_TYPES: &[(u32, &str)] = &[];

/// Owner name of IntelGT notes, as stored (NEO requires `namesz` = 8 with the NUL).
pub const NOTE_OWNER: &str = "IntelGT";

/// Section names and prefixes (NEO `SectionNames`, IGC spec table).
pub mod names {
    pub const TEXT_PREFIX: &str = ".text.";
    /// NEO accepts a bare `.text` and aliases it to [`FUNCTIONS`].
    pub const TEXT: &str = ".text";
    /// Holds functions callable from other kernels; it has a `.ze_info` kernel entry
    /// in ocloc's output even though it is not a kernel a user wrote.
    pub const FUNCTIONS: &str = ".text.Intel_Symbol_Table_Void_Program";
    pub const EXTERNAL_FUNCTIONS: &str = "Intel_Symbol_Table_Void_Program";
    pub const DATA_CONST: &str = ".data.const";
    pub const BSS_CONST: &str = ".bss.const";
    /// A misspelling NEO still accepts for `.data.const`, with a warning.
    pub const DATA_GLOBAL_CONST: &str = ".data.global_const";
    pub const DATA_GLOBAL: &str = ".data.global";
    pub const BSS_GLOBAL: &str = ".bss.global";
    pub const DATA_CONST_STRING: &str = ".data.const.string";
    pub const SYMTAB: &str = ".symtab";
    pub const STRTAB: &str = ".strtab";
    pub const REL_PREFIX: &str = ".rel.";
    pub const RELA_PREFIX: &str = ".rela.";
    pub const SPV: &str = ".spv";
    pub const DEBUG_PREFIX: &str = ".debug_";
    pub const ZE_INFO: &str = ".ze_info";
    /// NEO wants `.gtpin_info.<kernel>`; the spec's table writes it without the dot.
    pub const GTPIN_INFO_PREFIX: &str = ".gtpin_info.";
    pub const NOTE_COMPAT: &str = ".note.intelgt.compat";
    pub const NOTE_METRICS: &str = ".note.intelgt.metrics";
    pub const MISC_PREFIX: &str = ".misc.";
    pub const BUILD_OPTIONS: &str = ".misc.buildOptions";
    pub const VISAASM_PREFIX: &str = ".visaasm.";
    /// The symbol IGC emits at each kernel's real start (after any prolog), local,
    /// `STT_NOTYPE`, size 0, one per `.text.<kernel>`.
    pub const ENTRY_SYMBOL: &str = "_entry";
}

code_table! {
    /// PRODUCT_FAMILY values (IGC's and gmmlib's `igfxfmid.h`). Checked against ocloc:
    /// its tgllp note says 29 and its bmg note 1274. (Another copy of the header in
    /// aub_stream numbers tgllp 33; that one is not what the compilers write.)
    pub PRODUCT_FAMILIES: u32 {
        IGFX_UNKNOWN = 0,
        IGFX_BROADWELL = 16,
        IGFX_CHERRYVIEW = 17,
        IGFX_SKYLAKE = 18,
        IGFX_KABYLAKE = 19,
        IGFX_COFFEELAKE = 20,
        IGFX_WILLOWVIEW = 21,
        IGFX_BROXTON = 22,
        IGFX_GEMINILAKE = 23,
        IGFX_CANNONLAKE = 24,
        IGFX_ICELAKE = 25,
        IGFX_ICELAKE_LP = 26,
        IGFX_LAKEFIELD = 27,
        /// Also IGFX_ELKHARTLAKE.
        IGFX_JASPERLAKE = 28,
        IGFX_TIGERLAKE_LP = 29,
        IGFX_ROCKETLAKE = 30,
        IGFX_ALDERLAKE_S = 31,
        IGFX_ALDERLAKE_P = 32,
        IGFX_ALDERLAKE_N = 33,
        IGFX_DG1 = 1210,
        IGFX_XE_HP_SDV = 1250,
        IGFX_DG2 = 1270,
        IGFX_PVC = 1271,
        IGFX_METEORLAKE = 1272,
        IGFX_ARROWLAKE = 1273,
        IGFX_BMG = 1274,
        IGFX_LUNARLAKE = 1275,
        IGFX_PTL = 1300,
        IGFX_NVL_XE3G = 1340,
        IGFX_NVL = 1360,
        IGFX_CRI = 1380,
    }
}

code_table! {
    /// GFXCORE_FAMILY values (`igfxfmid.h`).
    pub GFXCORE_FAMILIES: u32 {
        IGFX_UNKNOWN_CORE = 0,
        IGFX_GEN8_CORE = 11,
        IGFX_GEN9_CORE = 12,
        IGFX_GEN10_CORE = 13,
        IGFX_GEN10LP_CORE = 14,
        IGFX_GEN11_CORE = 15,
        IGFX_GEN11LP_CORE = 16,
        IGFX_GEN12_CORE = 17,
        IGFX_GEN12LP_CORE = 18,
        IGFX_XE_HP_CORE = 0x0c05,
        IGFX_XE_HPG_CORE = 0x0c07,
        IGFX_XE_HPC_CORE = 0x0c08,
        IGFX_XE2_HPG_CORE = 0x0c09,
        IGFX_XE3_CORE = 0x1e00,
        IGFX_XE3P_CORE = 0x2300,
    }
}

pub fn product_family_name(value: u32) -> Option<&'static str> {
    crate::table::lookup(PRODUCT_FAMILIES, value)
}

pub fn gfx_core_name(value: u32) -> Option<&'static str> {
    crate::table::lookup(GFXCORE_FAMILIES, value)
}

/// The TargetFlags of the old header layout (`e_flags`) and, with bit 15 reserved,
/// the TargetMetadata of note type 3. Layout from NEO's `ZebinTargetFlags`.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Default)]
pub struct TargetFlags {
    /// bits 7:0, meaning depends on the generator.
    pub generator_specific_flags: u8,
    /// bits 12:8, lowest compatible stepping.
    pub min_hw_revision_id: u8,
    /// bit 13. NEO checks the stepping range only when this is set, whatever the
    /// spec's comment ("1 - no validation") says; develf follows NEO.
    pub validate_revision_id: bool,
    /// bit 14.
    pub disable_extended_validation: bool,
    /// bit 15: `e_machine` is a GFXCORE_FAMILY rather than a PRODUCT_FAMILY (old
    /// layout only; reserved in the note's TargetMetadata).
    pub machine_entry_uses_gfx_core: bool,
    /// bits 20:16, highest compatible stepping.
    pub max_hw_revision_id: u8,
    /// bits 23:21: 0 unregistered, 1 IGC, 2 nGEN.
    pub generator_id: u8,
    /// bits 31:24, must be zero.
    pub reserved: u8,
}

code_table! {
    /// TargetFlags generator ids (bits 23:21).
    pub GENERATORS: u8 {
        GENERATOR_UNREGISTERED = 0,
        GENERATOR_IGC = 1,
        GENERATOR_NGEN = 2,
    }
}

impl TargetFlags {
    pub fn decode(packed: u32) -> TargetFlags {
        TargetFlags {
            generator_specific_flags: (packed & 0xff) as u8,
            min_hw_revision_id: ((packed >> 8) & 0x1f) as u8,
            validate_revision_id: packed & (1 << 13) != 0,
            disable_extended_validation: packed & (1 << 14) != 0,
            machine_entry_uses_gfx_core: packed & (1 << 15) != 0,
            max_hw_revision_id: ((packed >> 16) & 0x1f) as u8,
            generator_id: ((packed >> 21) & 0x7) as u8,
            reserved: (packed >> 24) as u8,
        }
    }

    /// Packs the fields back; fields wider than their bit range are truncated.
    pub fn encode(&self) -> u32 {
        u32::from(self.generator_specific_flags)
            | (u32::from(self.min_hw_revision_id) & 0x1f) << 8
            | u32::from(self.validate_revision_id) << 13
            | u32::from(self.disable_extended_validation) << 14
            | u32::from(self.machine_entry_uses_gfx_core) << 15
            | (u32::from(self.max_hw_revision_id) & 0x1f) << 16
            | (u32::from(self.generator_id) & 0x7) << 21
            | u32::from(self.reserved) << 24
    }

    pub fn generator_name(&self) -> Option<&'static str> {
        crate::table::lookup(GENERATORS, self.generator_id)
    }
}

/// An IP version (GMD ID, `GFX_GMD_ID`): what `NT_INTELGT_PRODUCT_CONFIG` holds and
/// what `ocloc -device 20.1.0` / `ocloc ids` print as `arch.release.revision`.
#[derive(Debug, Clone, Copy, PartialEq, Eq, PartialOrd, Ord, Hash)]
pub struct IpVersion {
    /// bits 31:22.
    pub arch: u16,
    /// bits 21:14.
    pub release: u8,
    /// bits 5:0.
    pub revision: u8,
}

impl IpVersion {
    pub fn decode(value: u32) -> IpVersion {
        IpVersion { arch: (value >> 22) as u16, release: ((value >> 14) & 0xff) as u8, revision: (value & 0x3f) as u8 }
    }

    pub fn encode(&self) -> u32 {
        (u32::from(self.arch) & 0x3ff) << 22 | u32::from(self.release) << 14 | (u32::from(self.revision) & 0x3f)
    }

    /// Parses `arch.release.revision`.
    pub fn parse(text: &str) -> Option<IpVersion> {
        let mut parts = text.split('.');
        let arch = parts.next()?.parse().ok()?;
        let release = parts.next()?.parse().ok()?;
        let revision = parts.next()?.parse().ok()?;
        if parts.next().is_some() || arch > 0x3ff || revision > 0x3f {
            return None;
        }
        Some(IpVersion { arch, release, revision })
    }
}

impl core::fmt::Display for IpVersion {
    fn fmt(&self, f: &mut core::fmt::Formatter<'_>) -> core::fmt::Result {
        write!(f, "{}.{}.{}", self.arch, self.release, self.revision)
    }
}

/// A device ocloc accepts by name, with what its zebins say about it.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub struct Device {
    /// ocloc's `-device` acronym.
    pub name: &'static str,
    pub product_family: u32,
    pub gfx_core: u32,
    /// The IP version ocloc 26.27 writes in `NT_INTELGT_PRODUCT_CONFIG` for this name.
    pub ip_version: IpVersion,
    /// General register size in bytes: 64 from Xe-HPC on, 32 before. NEO's
    /// per-thread `local_id` size rule depends on it.
    pub grf_size: u32,
}

const fn ip(arch: u16, release: u8, revision: u8) -> IpVersion {
    IpVersion { arch, release, revision }
}

/// Devices develf can name. Product family, GFX core and IP version are the ones in
/// ocloc 26.27's and 22.43's notes for the same `-device` name (fixtures under
/// `tests/fixtures/zebin/`); entries without a fixture say so.
pub static DEVICES: &[Device] = &[
    Device {
        name: "tgllp",
        product_family: IGFX_TIGERLAKE_LP,
        gfx_core: IGFX_GEN12LP_CORE,
        ip_version: ip(12, 0, 0),
        grf_size: 32,
    },
    Device {
        name: "dg1",
        product_family: IGFX_DG1,
        gfx_core: IGFX_GEN12LP_CORE,
        ip_version: ip(12, 10, 0),
        grf_size: 32,
    },
    Device {
        name: "dg2",
        product_family: IGFX_DG2,
        gfx_core: IGFX_XE_HPG_CORE,
        ip_version: ip(12, 55, 8),
        grf_size: 32,
    },
    Device {
        name: "pvc",
        product_family: IGFX_PVC,
        gfx_core: IGFX_XE_HPC_CORE,
        ip_version: ip(12, 60, 7),
        grf_size: 64,
    },
    Device {
        name: "mtl",
        product_family: IGFX_METEORLAKE,
        gfx_core: IGFX_XE_HPG_CORE,
        ip_version: ip(12, 70, 4),
        grf_size: 32,
    },
    Device {
        name: "bmg",
        product_family: IGFX_BMG,
        gfx_core: IGFX_XE2_HPG_CORE,
        ip_version: ip(20, 1, 0),
        grf_size: 64,
    },
    Device {
        name: "lnl",
        product_family: IGFX_LUNARLAKE,
        gfx_core: IGFX_XE2_HPG_CORE,
        ip_version: ip(20, 4, 4),
        grf_size: 64,
    },
    Device { name: "ptl", product_family: IGFX_PTL, gfx_core: IGFX_XE3_CORE, ip_version: ip(30, 0, 4), grf_size: 64 },
];

/// Looks a device up by ocloc name.
pub fn device(name: &str) -> Option<&'static Device> {
    DEVICES.iter().find(|d| d.name.eq_ignore_ascii_case(name))
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn target_flags_round_trip() {
        for packed in [0u32, 0x0020_0000, 0x00ff_ffff, 0xff00_0000, 0x1234_5678, u32::MAX] {
            assert_eq!(TargetFlags::decode(packed).encode(), packed);
        }
        // IGC's TargetMetadata note as ocloc writes it: generator IGC, nothing else.
        let flags = TargetFlags::decode(0x0020_0000);
        assert_eq!(flags.generator_name(), Some("GENERATOR_IGC"));
        assert!(!flags.validate_revision_id);
    }

    #[test]
    fn ip_version_round_trip() {
        // bmg's NT_INTELGT_PRODUCT_CONFIG from ocloc 26.27: 0x05004000.
        let v = IpVersion::decode(0x0500_4000);
        assert_eq!(v.to_string(), "20.1.0");
        assert_eq!(v.encode(), 0x0500_4000);
        assert_eq!(IpVersion::parse("20.1.0"), Some(v));
        assert_eq!(IpVersion::parse("20.1"), None);
    }

    #[test]
    fn names() {
        assert_eq!(relocation_name(R_ZE_SYM_ADDR_32_HI), Some("R_ZE_SYM_ADDR_32_HI"));
        assert_eq!(compat_note_name(6), Some("NT_INTELGT_PRODUCT_CONFIG"));
        assert_eq!(product_family_name(29), Some("IGFX_TIGERLAKE_LP"));
        assert_eq!(gfx_core_name(0x0c09), Some("IGFX_XE2_HPG_CORE"));
        assert_eq!(device("BMG").map(|d| d.product_family), Some(IGFX_BMG));
    }
}
