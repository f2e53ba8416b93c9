//! `.nv.info*` and `.nv.compat` records: EIATTR and EICOMPAT codes and formats.
//!
//! Every record starts with a 4-byte header `{ u8 format, u8 attribute, u16 value }`.
//! For `EIFMT_SVAL` the `u16` is the length of a payload that follows; for the
//! other formats it is the value itself (`NVAL` ignores it).

use scroll::{Pread, Pwrite, SizeWith};

/// The record format (`EIFMT_*`), byte 0 of a record.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Hash)]
pub enum Format {
    /// `EIFMT_NVAL`: no value.
    Nval = 1,
    /// `EIFMT_BVAL`: a byte value in the `u16` field.
    Bval = 2,
    /// `EIFMT_HVAL`: a half-word value in the `u16` field.
    Hval = 3,
    /// `EIFMT_SVAL`: a payload whose length is the `u16` field.
    Sval = 4,
}

impl Format {
    pub fn from_u8(byte: u8) -> Option<Format> {
        match byte {
            1 => Some(Format::Nval),
            2 => Some(Format::Bval),
            3 => Some(Format::Hval),
            4 => Some(Format::Sval),
            _ => None,
        }
    }

    /// The name cuobjdump prints.
    pub fn name(self) -> &'static str {
        match self {
            Format::Nval => "EIFMT_NVAL",
            Format::Bval => "EIFMT_BVAL",
            Format::Hval => "EIFMT_HVAL",
            Format::Sval => "EIFMT_SVAL",
        }
    }
}

/// The 4-byte header of every `.nv.info` / `.nv.compat` record.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Pread, Pwrite, SizeWith)]
pub struct RecordHeader {
    pub format: u8,
    pub attribute: u8,
    /// The value (NVAL/BVAL/HVAL) or payload length (SVAL).
    pub value_or_size: u16,
}

/// Size of [`RecordHeader`] in bytes.
pub const RECORD_HEADER_SIZE: usize = 4;

/// What is known of one attribute code.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub struct AttrInfo {
    pub code: u8,
    /// NVIDIA's name, from nvlink 13.5's own table. `None` where that table says
    /// `EIATTR_UNKNOWN` (and cuobjdump prints "unknown Attribute").
    pub name: Option<&'static str>,
    /// The format the tools write this code with, where seen or documented.
    pub format: Option<Format>,
    /// A name used in public tools (CuAssembler) for a code NVIDIA leaves unnamed.
    pub public_name: Option<&'static str>,
}

impl AttrInfo {
    /// NVIDIA's name, or the public one, or `None`.
    pub fn display_name(&self) -> Option<&'static str> {
        self.name.or(self.public_name)
    }
}

/// Every EIATTR code 0..=111 in code order (index = code). Names from nvlink 13.5's
/// name array (shared/reference/nvidia-names.tsv), checked against cuobjdump 13.5;
/// formats as seen in CUDA 13.5 output, else as CuAssembler documents them.
pub static ATTRIBUTES: &[AttrInfo] = &[
    AttrInfo { code: 0x00, name: Some("EIATTR_ERROR"), format: None, public_name: None },
    AttrInfo { code: 0x01, name: Some("EIATTR_PAD"), format: None, public_name: None },
    AttrInfo { code: 0x02, name: Some("EIATTR_IMAGE_SLOT"), format: None, public_name: None },
    AttrInfo { code: 0x03, name: Some("EIATTR_JUMPTABLE_RELOCS"), format: None, public_name: None },
    AttrInfo { code: 0x04, name: Some("EIATTR_CTAIDZ_USED"), format: Some(Format::Nval), public_name: None },
    AttrInfo { code: 0x05, name: Some("EIATTR_MAX_THREADS"), format: Some(Format::Sval), public_name: None },
    AttrInfo { code: 0x06, name: Some("EIATTR_IMAGE_OFFSET"), format: None, public_name: None },
    AttrInfo { code: 0x07, name: Some("EIATTR_IMAGE_SIZE"), format: None, public_name: None },
    AttrInfo { code: 0x08, name: Some("EIATTR_TEXTURE_NORMALIZED"), format: None, public_name: None },
    AttrInfo { code: 0x09, name: Some("EIATTR_SAMPLER_INIT"), format: None, public_name: None },
    AttrInfo { code: 0x0a, name: Some("EIATTR_PARAM_CBANK"), format: Some(Format::Sval), public_name: None },
    AttrInfo { code: 0x0b, name: Some("EIATTR_SMEM_PARAM_OFFSETS"), format: None, public_name: None },
    AttrInfo { code: 0x0c, name: Some("EIATTR_CBANK_PARAM_OFFSETS"), format: None, public_name: None },
    AttrInfo { code: 0x0d, name: Some("EIATTR_SYNC_STACK"), format: None, public_name: None },
    AttrInfo { code: 0x0e, name: Some("EIATTR_TEXID_SAMPID_MAP"), format: None, public_name: None },
    AttrInfo { code: 0x0f, name: Some("EIATTR_EXTERNS"), format: Some(Format::Sval), public_name: None },
    AttrInfo { code: 0x10, name: Some("EIATTR_REQNTID"), format: Some(Format::Sval), public_name: None },
    AttrInfo { code: 0x11, name: Some("EIATTR_FRAME_SIZE"), format: Some(Format::Sval), public_name: None },
    AttrInfo { code: 0x12, name: Some("EIATTR_MIN_STACK_SIZE"), format: Some(Format::Sval), public_name: None },
    AttrInfo { code: 0x13, name: Some("EIATTR_SAMPLER_FORCE_UNNORMALIZED"), format: None, public_name: None },
    AttrInfo { code: 0x14, name: Some("EIATTR_BINDLESS_IMAGE_OFFSETS"), format: None, public_name: None },
    AttrInfo { code: 0x15, name: Some("EIATTR_BINDLESS_TEXTURE_BANK"), format: Some(Format::Bval), public_name: None },
    AttrInfo { code: 0x16, name: Some("EIATTR_BINDLESS_SURFACE_BANK"), format: Some(Format::Bval), public_name: None },
    AttrInfo { code: 0x17, name: Some("EIATTR_KPARAM_INFO"), format: Some(Format::Sval), public_name: None },
    AttrInfo { code: 0x18, name: Some("EIATTR_SMEM_PARAM_SIZE"), format: None, public_name: None },
    AttrInfo { code: 0x19, name: Some("EIATTR_CBANK_PARAM_SIZE"), format: Some(Format::Hval), public_name: None },
    AttrInfo { code: 0x1a, name: Some("EIATTR_QUERY_NUMATTRIB"), format: None, public_name: None },
    AttrInfo { code: 0x1b, name: Some("EIATTR_MAXREG_COUNT"), format: Some(Format::Hval), public_name: None },
    AttrInfo { code: 0x1c, name: Some("EIATTR_EXIT_INSTR_OFFSETS"), format: Some(Format::Sval), public_name: None },
    AttrInfo { code: 0x1d, name: Some("EIATTR_S2RCTAID_INSTR_OFFSETS"), format: Some(Format::Sval), public_name: None },
    AttrInfo { code: 0x1e, name: Some("EIATTR_CRS_STACK_SIZE"), format: Some(Format::Sval), public_name: None },
    AttrInfo { code: 0x1f, name: Some("EIATTR_NEED_CNP_WRAPPER"), format: Some(Format::Nval), public_name: None },
    AttrInfo { code: 0x20, name: Some("EIATTR_NEED_CNP_PATCH"), format: Some(Format::Nval), public_name: None },
    AttrInfo { code: 0x21, name: Some("EIATTR_EXPLICIT_CACHING"), format: Some(Format::Nval), public_name: None },
    AttrInfo { code: 0x22, name: Some("EIATTR_ISTYPEP_USED"), format: None, public_name: None },
    AttrInfo { code: 0x23, name: Some("EIATTR_MAX_STACK_SIZE"), format: Some(Format::Sval), public_name: None },
    AttrInfo { code: 0x24, name: Some("EIATTR_SUQ_USED"), format: None, public_name: None },
    AttrInfo {
        code: 0x25,
        name: Some("EIATTR_LD_CACHEMOD_INSTR_OFFSETS"),
        format: Some(Format::Sval),
        public_name: None,
    },
    AttrInfo { code: 0x26, name: Some("EIATTR_LOAD_CACHE_REQUEST"), format: None, public_name: None },
    AttrInfo { code: 0x27, name: Some("EIATTR_ATOM_SYS_INSTR_OFFSETS"), format: Some(Format::Sval), public_name: None },
    AttrInfo {
        code: 0x28,
        name: Some("EIATTR_COOP_GROUP_INSTR_OFFSETS"),
        format: Some(Format::Sval),
        public_name: None,
    },
    AttrInfo { code: 0x29, name: Some("EIATTR_COOP_GROUP_MASK_REGIDS"), format: Some(Format::Sval), public_name: None },
    AttrInfo { code: 0x2a, name: None, format: Some(Format::Nval), public_name: Some("EIATTR_SW1850030_WAR") },
    AttrInfo { code: 0x2b, name: Some("EIATTR_WMMA_USED"), format: Some(Format::Nval), public_name: None },
    AttrInfo { code: 0x2c, name: Some("EIATTR_HAS_PRE_V10_OBJECT"), format: None, public_name: None },
    AttrInfo { code: 0x2d, name: Some("EIATTR_ATOMF16_EMUL_INSTR_OFFSETS"), format: None, public_name: None },
    AttrInfo {
        code: 0x2e,
        name: Some("EIATTR_ATOM16_EMUL_INSTR_REG_MAP"),
        format: Some(Format::Sval),
        public_name: None,
    },
    AttrInfo { code: 0x2f, name: Some("EIATTR_REGCOUNT"), format: Some(Format::Sval), public_name: None },
    AttrInfo { code: 0x30, name: None, format: Some(Format::Nval), public_name: Some("EIATTR_SW2393858_WAR") },
    AttrInfo {
        code: 0x31,
        name: Some("EIATTR_INT_WARP_WIDE_INSTR_OFFSETS"),
        format: Some(Format::Sval),
        public_name: None,
    },
    AttrInfo { code: 0x32, name: Some("EIATTR_SHARED_SCRATCH"), format: None, public_name: None },
    AttrInfo { code: 0x33, name: Some("EIATTR_STATISTICS"), format: None, public_name: None },
    AttrInfo {
        code: 0x34,
        name: Some("EIATTR_INDIRECT_BRANCH_TARGETS"),
        format: Some(Format::Sval),
        public_name: None,
    },
    AttrInfo { code: 0x35, name: None, format: Some(Format::Nval), public_name: Some("EIATTR_SW2861232_WAR") },
    AttrInfo { code: 0x36, name: Some("EIATTR_SW_WAR"), format: Some(Format::Sval), public_name: None },
    AttrInfo { code: 0x37, name: Some("EIATTR_CUDA_API_VERSION"), format: Some(Format::Sval), public_name: None },
    AttrInfo { code: 0x38, name: Some("EIATTR_NUM_MBARRIERS"), format: None, public_name: None },
    AttrInfo { code: 0x39, name: Some("EIATTR_MBARRIER_INSTR_OFFSETS"), format: None, public_name: None },
    AttrInfo { code: 0x3a, name: Some("EIATTR_COROUTINE_RESUME_OFFSETS"), format: None, public_name: None },
    AttrInfo { code: 0x3b, name: Some("EIATTR_SAM_REGION_STACK_SIZE"), format: None, public_name: None },
    AttrInfo { code: 0x3c, name: Some("EIATTR_PER_REG_TARGET_PERF_STATS"), format: None, public_name: None },
    AttrInfo { code: 0x3d, name: Some("EIATTR_CTA_PER_CLUSTER"), format: Some(Format::Sval), public_name: None },
    AttrInfo { code: 0x3e, name: Some("EIATTR_EXPLICIT_CLUSTER"), format: Some(Format::Nval), public_name: None },
    AttrInfo { code: 0x3f, name: Some("EIATTR_MAX_CLUSTER_RANK"), format: Some(Format::Sval), public_name: None },
    AttrInfo { code: 0x40, name: Some("EIATTR_INSTR_REG_MAP"), format: Some(Format::Sval), public_name: None },
    AttrInfo { code: 0x41, name: Some("EIATTR_RESERVED_SMEM_USED"), format: Some(Format::Nval), public_name: None },
    AttrInfo { code: 0x42, name: Some("EIATTR_RESERVED_SMEM_0_SIZE"), format: None, public_name: None },
    AttrInfo { code: 0x43, name: Some("EIATTR_UCODE_SECTION_DATA"), format: None, public_name: None },
    AttrInfo {
        code: 0x44,
        name: Some("EIATTR_UNUSED_LOAD_BYTE_OFFSET"),
        format: Some(Format::Sval),
        public_name: None,
    },
    AttrInfo { code: 0x45, name: Some("EIATTR_KPARAM_INFO_V2"), format: None, public_name: None },
    AttrInfo { code: 0x46, name: Some("EIATTR_SYSCALL_OFFSETS"), format: None, public_name: None },
    AttrInfo { code: 0x47, name: None, format: None, public_name: None },
    AttrInfo { code: 0x48, name: Some("EIATTR_GRAPHICS_GLOBAL_CBANK"), format: None, public_name: None },
    AttrInfo { code: 0x49, name: Some("EIATTR_SHADER_TYPE"), format: None, public_name: None },
    AttrInfo { code: 0x4a, name: Some("EIATTR_VRC_CTA_INIT_COUNT"), format: Some(Format::Bval), public_name: None },
    AttrInfo { code: 0x4b, name: Some("EIATTR_TOOLS_PATCH_FUNC"), format: None, public_name: None },
    AttrInfo { code: 0x4c, name: Some("EIATTR_NUM_BARRIERS"), format: Some(Format::Bval), public_name: None },
    AttrInfo { code: 0x4d, name: Some("EIATTR_TEXMODE_INDEPENDENT"), format: None, public_name: None },
    AttrInfo { code: 0x4e, name: Some("EIATTR_PERF_STATISTICS"), format: None, public_name: None },
    AttrInfo { code: 0x4f, name: Some("EIATTR_AT_ENTRY_FRAGEMENTS"), format: None, public_name: None },
    AttrInfo { code: 0x50, name: Some("EIATTR_SPARSE_MMA_MASK"), format: Some(Format::Hval), public_name: None },
    AttrInfo { code: 0x51, name: Some("EIATTR_TCGEN05_1CTA_USED"), format: None, public_name: None },
    AttrInfo { code: 0x52, name: Some("EIATTR_TCGEN05_2CTA_USED"), format: None, public_name: None },
    AttrInfo { code: 0x53, name: Some("EIATTR_GEN_ERRBAR_AT_EXIT"), format: Some(Format::Nval), public_name: None },
    AttrInfo { code: 0x54, name: Some("EIATTR_REG_RECONFIG"), format: None, public_name: None },
    AttrInfo { code: 0x55, name: Some("EIATTR_ANNOTATIONS"), format: Some(Format::Sval), public_name: None },
    AttrInfo { code: 0x56, name: None, format: None, public_name: None },
    AttrInfo { code: 0x57, name: Some("EIATTR_STACK_CANARY_TRAP_OFFSETS"), format: None, public_name: None },
    AttrInfo { code: 0x58, name: Some("EIATTR_STUB_FUNCTION_KIND"), format: None, public_name: None },
    AttrInfo { code: 0x59, name: Some("EIATTR_LOCAL_CTA_ASYNC_STORE_OFFSETS"), format: None, public_name: None },
    AttrInfo { code: 0x5a, name: None, format: None, public_name: None },
    AttrInfo { code: 0x5b, name: Some("EIATTR_BLOCKS_ARE_CLUSTERS"), format: None, public_name: None },
    AttrInfo { code: 0x5c, name: Some("EIATTR_SANITIZE"), format: None, public_name: None },
    AttrInfo { code: 0x5d, name: Some("EIATTR_SYSCALLS_FALLBACK"), format: None, public_name: None },
    AttrInfo { code: 0x5e, name: Some("EIATTR_CUDA_REQ"), format: None, public_name: None },
    AttrInfo { code: 0x5f, name: None, format: Some(Format::Hval), public_name: None },
    AttrInfo { code: 0x60, name: None, format: None, public_name: None },
    AttrInfo { code: 0x61, name: Some("EIATTR_RTCORE_ENTRY"), format: None, public_name: None },
    AttrInfo { code: 0x62, name: Some("EIATTR_CLUSTER_LAUNCH_CONTROL_USED"), format: None, public_name: None },
    AttrInfo { code: 0x63, name: Some("EIATTR_LAUNCH_PRE_REG_ALLOC"), format: None, public_name: None },
    AttrInfo { code: 0x64, name: Some("EIATTR_MIN_PER_CTA_MEMORY_SIZE"), format: None, public_name: None },
    AttrInfo {
        code: 0x65,
        name: Some("EIATTR_IGNOREOOB_CP_ASYNC_BULK_INSTR_OFFSETS"),
        format: None,
        public_name: None,
    },
    AttrInfo { code: 0x66, name: Some("EIATTR_LANGUAGE"), format: Some(Format::Sval), public_name: None },
    AttrInfo { code: 0x67, name: None, format: None, public_name: None },
    AttrInfo { code: 0x68, name: Some("EIATTR_GRID_ATTRIBUTES"), format: None, public_name: None },
    AttrInfo { code: 0x69, name: Some("EIATTR_STACK_OFFSET"), format: None, public_name: None },
    AttrInfo { code: 0x6a, name: Some("EIATTR_RT_LIVESTATE_SASS_MAP"), format: None, public_name: None },
    AttrInfo { code: 0x6b, name: Some("EIATTR_NVSAL_SW_WAR"), format: Some(Format::Hval), public_name: None },
    AttrInfo { code: 0x6c, name: Some("EIATTR_INSTR_OFFSETS"), format: None, public_name: None },
    AttrInfo { code: 0x6d, name: Some("EIATTR_PREEXIT_USED"), format: Some(Format::Bval), public_name: None },
    AttrInfo { code: 0x6e, name: None, format: None, public_name: None },
    AttrInfo { code: 0x6f, name: Some("EIATTR_ERROR_LAST"), format: None, public_name: None },
];

/// Looks up an EIATTR code.
pub fn attribute(code: u8) -> Option<&'static AttrInfo> {
    ATTRIBUTES.get(usize::from(code))
}

pub const EIATTR_PAD: u8 = 0x01;
pub const EIATTR_IMAGE_SLOT: u8 = 0x02;
pub const EIATTR_JUMPTABLE_RELOCS: u8 = 0x03;
pub const EIATTR_CTAIDZ_USED: u8 = 0x04;
pub const EIATTR_MAX_THREADS: u8 = 0x05;
pub const EIATTR_IMAGE_OFFSET: u8 = 0x06;
pub const EIATTR_IMAGE_SIZE: u8 = 0x07;
pub const EIATTR_TEXTURE_NORMALIZED: u8 = 0x08;
pub const EIATTR_SAMPLER_INIT: u8 = 0x09;
pub const EIATTR_PARAM_CBANK: u8 = 0x0a;
pub const EIATTR_SMEM_PARAM_OFFSETS: u8 = 0x0b;
pub const EIATTR_CBANK_PARAM_OFFSETS: u8 = 0x0c;
pub const EIATTR_SYNC_STACK: u8 = 0x0d;
pub const EIATTR_TEXID_SAMPID_MAP: u8 = 0x0e;
pub const EIATTR_EXTERNS: u8 = 0x0f;
pub const EIATTR_REQNTID: u8 = 0x10;
pub const EIATTR_FRAME_SIZE: u8 = 0x11;
pub const EIATTR_MIN_STACK_SIZE: u8 = 0x12;
pub const EIATTR_SAMPLER_FORCE_UNNORMALIZED: u8 = 0x13;
pub const EIATTR_BINDLESS_IMAGE_OFFSETS: u8 = 0x14;
pub const EIATTR_BINDLESS_TEXTURE_BANK: u8 = 0x15;
pub const EIATTR_BINDLESS_SURFACE_BANK: u8 = 0x16;
pub const EIATTR_KPARAM_INFO: u8 = 0x17;
pub const EIATTR_SMEM_PARAM_SIZE: u8 = 0x18;
pub const EIATTR_CBANK_PARAM_SIZE: u8 = 0x19;
pub const EIATTR_QUERY_NUMATTRIB: u8 = 0x1a;
pub const EIATTR_MAXREG_COUNT: u8 = 0x1b;
pub const EIATTR_EXIT_INSTR_OFFSETS: u8 = 0x1c;
pub const EIATTR_S2RCTAID_INSTR_OFFSETS: u8 = 0x1d;
pub const EIATTR_CRS_STACK_SIZE: u8 = 0x1e;
pub const EIATTR_NEED_CNP_WRAPPER: u8 = 0x1f;
pub const EIATTR_NEED_CNP_PATCH: u8 = 0x20;
pub const EIATTR_EXPLICIT_CACHING: u8 = 0x21;
pub const EIATTR_ISTYPEP_USED: u8 = 0x22;
pub const EIATTR_MAX_STACK_SIZE: u8 = 0x23;
pub const EIATTR_SUQ_USED: u8 = 0x24;
pub const EIATTR_LD_CACHEMOD_INSTR_OFFSETS: u8 = 0x25;
pub const EIATTR_LOAD_CACHE_REQUEST: u8 = 0x26;
pub const EIATTR_ATOM_SYS_INSTR_OFFSETS: u8 = 0x27;
pub const EIATTR_COOP_GROUP_INSTR_OFFSETS: u8 = 0x28;
pub const EIATTR_COOP_GROUP_MASK_REGIDS: u8 = 0x29;
pub const EIATTR_WMMA_USED: u8 = 0x2b;
pub const EIATTR_HAS_PRE_V10_OBJECT: u8 = 0x2c;
pub const EIATTR_ATOMF16_EMUL_INSTR_OFFSETS: u8 = 0x2d;
pub const EIATTR_ATOM16_EMUL_INSTR_REG_MAP: u8 = 0x2e;
pub const EIATTR_REGCOUNT: u8 = 0x2f;
pub const EIATTR_INT_WARP_WIDE_INSTR_OFFSETS: u8 = 0x31;
pub const EIATTR_SHARED_SCRATCH: u8 = 0x32;
pub const EIATTR_STATISTICS: u8 = 0x33;
pub const EIATTR_INDIRECT_BRANCH_TARGETS: u8 = 0x34;
pub const EIATTR_SW_WAR: u8 = 0x36;
pub const EIATTR_CUDA_API_VERSION: u8 = 0x37;
pub const EIATTR_NUM_MBARRIERS: u8 = 0x38;
pub const EIATTR_MBARRIER_INSTR_OFFSETS: u8 = 0x39;
pub const EIATTR_COROUTINE_RESUME_OFFSETS: u8 = 0x3a;
pub const EIATTR_SAM_REGION_STACK_SIZE: u8 = 0x3b;
pub const EIATTR_PER_REG_TARGET_PERF_STATS: u8 = 0x3c;
pub const EIATTR_CTA_PER_CLUSTER: u8 = 0x3d;
pub const EIATTR_EXPLICIT_CLUSTER: u8 = 0x3e;
pub const EIATTR_MAX_CLUSTER_RANK: u8 = 0x3f;
pub const EIATTR_INSTR_REG_MAP: u8 = 0x40;
pub const EIATTR_RESERVED_SMEM_USED: u8 = 0x41;
pub const EIATTR_RESERVED_SMEM_0_SIZE: u8 = 0x42;
pub const EIATTR_UCODE_SECTION_DATA: u8 = 0x43;
pub const EIATTR_UNUSED_LOAD_BYTE_OFFSET: u8 = 0x44;
pub const EIATTR_KPARAM_INFO_V2: u8 = 0x45;
pub const EIATTR_SYSCALL_OFFSETS: u8 = 0x46;
pub const EIATTR_GRAPHICS_GLOBAL_CBANK: u8 = 0x48;
pub const EIATTR_SHADER_TYPE: u8 = 0x49;
pub const EIATTR_VRC_CTA_INIT_COUNT: u8 = 0x4a;
pub const EIATTR_TOOLS_PATCH_FUNC: u8 = 0x4b;
pub const EIATTR_NUM_BARRIERS: u8 = 0x4c;
pub const EIATTR_TEXMODE_INDEPENDENT: u8 = 0x4d;
pub const EIATTR_PERF_STATISTICS: u8 = 0x4e;
pub const EIATTR_AT_ENTRY_FRAGEMENTS: u8 = 0x4f;
pub const EIATTR_SPARSE_MMA_MASK: u8 = 0x50;
pub const EIATTR_TCGEN05_1CTA_USED: u8 = 0x51;
pub const EIATTR_TCGEN05_2CTA_USED: u8 = 0x52;
pub const EIATTR_GEN_ERRBAR_AT_EXIT: u8 = 0x53;
pub const EIATTR_REG_RECONFIG: u8 = 0x54;
pub const EIATTR_ANNOTATIONS: u8 = 0x55;
pub const EIATTR_STACK_CANARY_TRAP_OFFSETS: u8 = 0x57;
pub const EIATTR_STUB_FUNCTION_KIND: u8 = 0x58;
pub const EIATTR_LOCAL_CTA_ASYNC_STORE_OFFSETS: u8 = 0x59;
pub const EIATTR_BLOCKS_ARE_CLUSTERS: u8 = 0x5b;
pub const EIATTR_SANITIZE: u8 = 0x5c;
pub const EIATTR_SYSCALLS_FALLBACK: u8 = 0x5d;
pub const EIATTR_CUDA_REQ: u8 = 0x5e;
pub const EIATTR_RTCORE_ENTRY: u8 = 0x61;
pub const EIATTR_CLUSTER_LAUNCH_CONTROL_USED: u8 = 0x62;
pub const EIATTR_LAUNCH_PRE_REG_ALLOC: u8 = 0x63;
pub const EIATTR_MIN_PER_CTA_MEMORY_SIZE: u8 = 0x64;
pub const EIATTR_IGNOREOOB_CP_ASYNC_BULK_INSTR_OFFSETS: u8 = 0x65;
pub const EIATTR_LANGUAGE: u8 = 0x66;
pub const EIATTR_GRID_ATTRIBUTES: u8 = 0x68;
pub const EIATTR_STACK_OFFSET: u8 = 0x69;
pub const EIATTR_RT_LIVESTATE_SASS_MAP: u8 = 0x6a;
pub const EIATTR_NVSAL_SW_WAR: u8 = 0x6b;
pub const EIATTR_INSTR_OFFSETS: u8 = 0x6c;
pub const EIATTR_PREEXIT_USED: u8 = 0x6d;

/// Known `.nv.compat` (EICOMPAT) attributes, as cuobjdump 13.5 names them.
/// Codes 7 and 13 are written by ptxas 13.5 (HVAL 0x101) but cuobjdump calls them
/// "unknown Attribute"; the Mercury notes suggest ISA version fields.
pub static COMPAT_ATTRIBUTES: &[AttrInfo] = &[
    AttrInfo { code: 0x02, name: Some("EICOMPAT_ATTR_ISA_CLASS"), format: Some(Format::Bval), public_name: None },
    AttrInfo {
        code: 0x03,
        name: Some("EICOMPAT_ATTR_INST_TENSORMAP_V1"),
        format: Some(Format::Bval),
        public_name: None,
    },
    AttrInfo {
        code: 0x05,
        name: Some("EICOMPAT_ATTR_INST_TCGEN05_MMA"),
        format: Some(Format::Bval),
        public_name: None,
    },
    AttrInfo { code: 0x07, name: None, format: Some(Format::Hval), public_name: None },
    AttrInfo {
        code: 0x09,
        name: Some("EICOMPAT_ATTR_CUDA_ACCELERATOR_TARGET"),
        format: Some(Format::Bval),
        public_name: None,
    },
    AttrInfo {
        code: 0x0b,
        name: Some("EICOMPAT_ATTR_CAN_FASTPATH_FINALIZE"),
        format: Some(Format::Sval),
        public_name: None,
    },
    AttrInfo {
        code: 0x0c,
        name: Some("EICOMPAT_ATTR_CUDA_INTERNAL_TARGET"),
        format: Some(Format::Bval),
        public_name: None,
    },
    AttrInfo { code: 0x0d, name: None, format: Some(Format::Hval), public_name: None },
    AttrInfo {
        code: 0x0e,
        name: Some("EICOMPAT_ATTR_FINALIZER_VERSION"),
        format: Some(Format::Hval),
        public_name: None,
    },
];

pub const EICOMPAT_ATTR_ISA_CLASS: u8 = 0x02;
pub const EICOMPAT_ATTR_INST_TENSORMAP_V1: u8 = 0x03;
pub const EICOMPAT_ATTR_INST_TCGEN05_MMA: u8 = 0x05;
pub const EICOMPAT_ATTR_CUDA_ACCELERATOR_TARGET: u8 = 0x09;
pub const EICOMPAT_ATTR_CAN_FASTPATH_FINALIZE: u8 = 0x0b;
pub const EICOMPAT_ATTR_CUDA_INTERNAL_TARGET: u8 = 0x0c;
pub const EICOMPAT_ATTR_FINALIZER_VERSION: u8 = 0x0e;

/// Looks up an EICOMPAT code.
pub fn compat_attribute(code: u8) -> Option<&'static AttrInfo> {
    COMPAT_ATTRIBUTES.iter().find(|a| a.code == code)
}

/// One record as stored: header fields plus the SVAL payload (empty otherwise).
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub struct RawRecord<'a> {
    /// Offset of the record's header within its section.
    pub offset: usize,
    pub format: u8,
    pub attribute: u8,
    /// The `u16` field: the value, or the payload length for SVAL.
    pub value: u16,
    pub payload: &'a [u8],
}

impl RawRecord<'_> {
    /// Size of the whole record (header and payload).
    pub fn size(&self) -> usize {
        RECORD_HEADER_SIZE + self.payload.len()
    }
}

/// Why a record could not be read.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum RecordError {
    /// The header or payload at `offset` runs past the end of the section.
    Truncated { offset: usize, needed: usize, available: usize },
    /// Byte 0 at `offset` is not an EIFMT value, so the record length is unknown.
    UnknownFormat { offset: usize, format: u8 },
}

/// Walks the records of an `.nv.info*` or `.nv.compat` section. Stops after the
/// first error, since the length of everything after it is unknown.
pub fn records(section: &[u8]) -> Records<'_> {
    Records { data: section, pos: 0, failed: false }
}

/// Iterator returned by [`records`].
#[derive(Debug, Clone)]
pub struct Records<'a> {
    data: &'a [u8],
    pos: usize,
    failed: bool,
}

impl<'a> Iterator for Records<'a> {
    type Item = Result<RawRecord<'a>, RecordError>;

    fn next(&mut self) -> Option<Self::Item> {
        if self.failed || self.pos >= self.data.len() {
            return None;
        }
        let offset = self.pos;
        let rest = &self.data[offset..];
        let fail = |this: &mut Self, e| {
            this.failed = true;
            Some(Err(e))
        };
        if rest.len() < RECORD_HEADER_SIZE {
            let e = RecordError::Truncated { offset, needed: RECORD_HEADER_SIZE, available: rest.len() };
            return fail(self, e);
        }
        let (format, attribute) = (rest[0], rest[1]);
        let value = u16::from_le_bytes([rest[2], rest[3]]);
        let payload_len = match Format::from_u8(format) {
            Some(Format::Sval) => usize::from(value),
            Some(_) => 0,
            None => return fail(self, RecordError::UnknownFormat { offset, format }),
        };
        let Some(payload) = rest.get(RECORD_HEADER_SIZE..RECORD_HEADER_SIZE + payload_len) else {
            let e = RecordError::Truncated { offset, needed: RECORD_HEADER_SIZE + payload_len, available: rest.len() };
            return fail(self, e);
        };
        self.pos += RECORD_HEADER_SIZE + payload_len;
        Some(Ok(RawRecord { offset, format, attribute, value, payload }))
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn table_is_indexed_by_code() {
        assert_eq!(ATTRIBUTES.len(), 112);
        for (i, a) in ATTRIBUTES.iter().enumerate() {
            assert_eq!(usize::from(a.code), i);
        }
        assert_eq!(attribute(EIATTR_REGCOUNT).and_then(|a| a.name), Some("EIATTR_REGCOUNT"));
    }

    // Bytes from CuAssembler's documented sample: SW_WAR (SVAL 4), MAXREG_COUNT (HVAL).
    #[test]
    fn walks_records_and_stops_on_damage() {
        let bytes = [4, 0x36, 4, 0, 1, 0, 0, 0, 3, 0x1b, 0xff, 0];
        let got: Vec<_> = records(&bytes).collect();
        assert_eq!(got.len(), 2);
        let first = got[0].expect("first record");
        assert_eq!((first.format, first.attribute, first.payload), (4, 0x36, &[1, 0, 0, 0][..]));
        assert_eq!(got[1].expect("second").value, 0xff);
        let cut: Vec<_> = records(&bytes[..6]).collect();
        assert!(matches!(cut[..], [Err(RecordError::Truncated { offset: 0, .. })]));
        assert!(matches!(records(&[9, 0, 0, 0]).next(), Some(Err(RecordError::UnknownFormat { format: 9, .. }))));
    }
}
