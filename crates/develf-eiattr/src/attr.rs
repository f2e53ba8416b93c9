//! `.nv.info*` (EIATTR) and `.nv.compat` (EICOMPAT) records: typed decode and
//! bit-exact encode, driven by one table per family that maps a code to its
//! payload shape.

use crate::display::{Field, FieldValue};
use crate::shape::*;
use develf_format::nvinfo::{self, Format, RECORD_HEADER_SIZE, RawRecord, RecordError};
use serde::Serialize;

/// A record kept as stored: an unknown code, or a known code whose format or
/// payload does not fit the shape the table gives it.
#[derive(Debug, Clone, PartialEq, Eq, Serialize)]
pub struct RawAttribute {
    pub format: u8,
    pub code: u8,
    /// The header's `u16` (for SVAL, the payload length as stored).
    pub value: u16,
    pub payload: Vec<u8>,
}

impl RawAttribute {
    pub fn from_record(raw: &RawRecord<'_>) -> RawAttribute {
        RawAttribute { format: raw.format, code: raw.attribute, value: raw.value, payload: raw.payload.to_vec() }
    }
}

/// Why a record could not be encoded.
#[derive(Debug, Clone, PartialEq, Eq, thiserror::Error)]
pub enum EncodeError {
    #[error("payload of {len} bytes does not fit the 16-bit SVAL length")]
    PayloadTooLarge { len: usize },
    #[error("raw record with format {format} carries a payload but is not SVAL")]
    PayloadWithoutSval { format: u8 },
    #[error("raw SVAL record says {stored} payload bytes but holds {actual}")]
    LengthMismatch { stored: u16, actual: usize },
}

/// Appends a record whose payload `encode` appends (returning the header's
/// `u16` for BVAL/HVAL/NVAL). The payload goes straight into `out` and an
/// SVAL length is filled in after: no buffer per record (a link encodes tens
/// of thousands).
fn write_record(
    out: &mut Vec<u8>,
    format: Format,
    code: u8,
    encode: impl FnOnce(&mut Vec<u8>) -> u16,
) -> Result<(), EncodeError> {
    let start = out.len();
    out.extend_from_slice(&[format as u8, code, 0, 0]);
    let value = encode(out);
    let payload = out.len() - start - 4;
    let value = if format == Format::Sval {
        match u16::try_from(payload) {
            Ok(len) => len,
            Err(_) => {
                out.truncate(start);
                return Err(EncodeError::PayloadTooLarge { len: payload });
            }
        }
    } else {
        value
    };
    if let Some(field) = out.get_mut(start + 2..start + 4) {
        field.copy_from_slice(&value.to_le_bytes());
    }
    Ok(())
}

fn write_raw(out: &mut Vec<u8>, raw: &RawAttribute) -> Result<(), EncodeError> {
    let is_sval = raw.format == Format::Sval as u8;
    if !is_sval && !raw.payload.is_empty() {
        return Err(EncodeError::PayloadWithoutSval { format: raw.format });
    }
    if is_sval && usize::from(raw.value) != raw.payload.len() {
        return Err(EncodeError::LengthMismatch { stored: raw.value, actual: raw.payload.len() });
    }
    out.extend_from_slice(&[raw.format, raw.code]);
    out.extend_from_slice(&raw.value.to_le_bytes());
    out.extend_from_slice(&raw.payload);
    Ok(())
}

/// Defines a typed attribute enum from a table `Variant(Shape) = CODE, "label"`.
/// Everything per code (decode, encode, names, symbols, display) comes from the table.
macro_rules! attribute_table {
    (
        $(#[$meta:meta])*
        pub enum $name:ident, lookup $lookup:path, unnamed $prefix:literal {
            $( $(#[$vdoc:meta])* $variant:ident($shape:ty) = $code:expr, $label:literal; )*
        }
    ) => {
        $(#[$meta])*
        #[derive(Debug, Clone, PartialEq, Eq, Serialize)]
        #[serde(tag = "kind", content = "value")]
        pub enum $name {
            $( $(#[$vdoc])* $variant($shape), )*
            /// Unknown code, or a payload the table's shape does not fit: kept as stored.
            Raw(RawAttribute),
        }

        impl $name {
            /// Decodes one record. Never fails: what does not fit is kept raw.
            pub fn decode(raw: &RawRecord<'_>) -> $name {
                $(
                    if raw.attribute == $code && raw.format == <$shape as Shape>::FORMAT as u8 {
                        if let Some(v) = <$shape as Shape>::decode(raw.value, raw.payload) {
                            return $name::$variant(v);
                        }
                    }
                )*
                $name::Raw(RawAttribute::from_record(raw))
            }

            /// The attribute code.
            pub fn code(&self) -> u8 {
                match self {
                    $( $name::$variant(_) => $code, )*
                    $name::Raw(r) => r.code,
                }
            }

            /// The format byte this record is written with.
            pub fn format(&self) -> u8 {
                match self {
                    $( $name::$variant(_) => <$shape as Shape>::FORMAT as u8, )*
                    $name::Raw(r) => r.format,
                }
            }

            /// NVIDIA's name for the code, or the public one, or `None`.
            pub fn name(&self) -> Option<&'static str> {
                $lookup(self.code()).and_then(|a| a.display_name())
            }

            /// Whether the table types this code (with any format).
            pub fn is_typed_code(code: u8) -> bool {
                false $( || code == $code )*
            }

            /// The shape's format for a typed code.
            pub fn typed_format(code: u8) -> Option<Format> {
                $( if code == $code { return Some(<$shape as Shape>::FORMAT); } )*
                None
            }

            /// Appends the record's bytes.
            pub fn encode(&self, out: &mut Vec<u8>) -> Result<(), EncodeError> {
                match self {
                    $( $name::$variant(v) => {
                        write_record(out, <$shape as Shape>::FORMAT, $code, |payload| v.encode(payload))
                    } )*
                    $name::Raw(r) => write_raw(out, r),
                }
            }

            /// The decoded value as named fields, for dumpers.
            pub fn fields(&self) -> Vec<Field> {
                let mut out = Vec::new();
                match self {
                    $( $name::$variant(v) => v.fields($label, &mut out), )*
                    $name::Raw(r) => {
                        if r.format == Format::Sval as u8 {
                            out.push(Field::new("bytes", FieldValue::Bytes(r.payload.clone())));
                        } else if r.format != Format::Nval as u8 || r.value != 0 {
                            out.push(Field::new("value", FieldValue::Hex(u64::from(r.value))));
                        }
                    }
                }
                out
            }

            /// Every symbol index the value names.
            pub fn symbols(&self) -> Vec<SymbolIndex> {
                let mut out = Vec::new();
                match self {
                    $( $name::$variant(v) => v.visit_symbols(&mut |s| out.push(s)), )*
                    $name::Raw(_) => {}
                }
                out
            }

            /// Whether `f` holds for every symbol index the value names
            /// ([`Self::symbols`] without collecting them).
            pub fn all_symbols(&self, f: &mut dyn FnMut(SymbolIndex) -> bool) -> bool {
                let mut all = true;
                match self {
                    $( $name::$variant(v) => v.visit_symbols(&mut |s| all = all && f(s)), )*
                    $name::Raw(_) => {}
                }
                all
            }

            /// Calls `f` on every symbol index, allowing it to be changed.
            pub fn visit_symbols_mut(&mut self, f: &mut dyn FnMut(&mut SymbolIndex)) {
                match self {
                    $( $name::$variant(v) => v.visit_symbols_mut(f), )*
                    $name::Raw(_) => {}
                }
            }
        }

        impl Record for $name {
            const UNNAMED_PREFIX: &'static str = $prefix;
            fn decode(raw: &RawRecord<'_>) -> $name {
                $name::decode(raw)
            }
            fn code(&self) -> u8 {
                $name::code(self)
            }
            fn format(&self) -> u8 {
                $name::format(self)
            }
            fn name(&self) -> Option<&'static str> {
                $name::name(self)
            }
            fn encode(&self, out: &mut Vec<u8>) -> Result<(), EncodeError> {
                $name::encode(self, out)
            }
            fn fields(&self) -> Vec<Field> {
                $name::fields(self)
            }
            fn is_raw(&self) -> bool {
                matches!(self, $name::Raw(_))
            }
        }
    };
}

/// What `.nv.info` and `.nv.compat` records share, so the section codecs and
/// the dumpers are written once for both kinds.
pub trait Record: Sized {
    /// How a dump names a code NVIDIA leaves unnamed (`EIATTR_0x5f`).
    const UNNAMED_PREFIX: &'static str;
    fn decode(raw: &RawRecord<'_>) -> Self;
    fn code(&self) -> u8;
    fn format(&self) -> u8;
    fn name(&self) -> Option<&'static str>;
    fn encode(&self, out: &mut Vec<u8>) -> Result<(), EncodeError>;
    fn fields(&self) -> Vec<Field>;
    /// Kept as stored: an unknown code or a payload the table's shape does not fit.
    fn is_raw(&self) -> bool;
}

attribute_table! {
    /// One `.nv.info*` record, typed by its EIATTR code.
    ///
    /// Codes and formats are those NVIDIA's tools write (checked against cuobjdump
    /// 13.5 on the fixtures); shapes of SVAL payloads as cuobjdump decodes them.
    pub enum Attribute, lookup nvinfo::attribute, unnamed "EIATTR" {
        CtaidzUsed(Flag) = nvinfo::EIATTR_CTAIDZ_USED, "";
        MaxThreads(Dim3) = nvinfo::EIATTR_MAX_THREADS, "";
        ParamCbank(ParamCbank) = nvinfo::EIATTR_PARAM_CBANK, "";
        Externs(Symbols) = nvinfo::EIATTR_EXTERNS, "externs";
        Reqntid(Dim3) = nvinfo::EIATTR_REQNTID, "";
        FrameSize(FunctionValue) = nvinfo::EIATTR_FRAME_SIZE, "frame_size";
        MinStackSize(FunctionValue) = nvinfo::EIATTR_MIN_STACK_SIZE, "min_stack_size";
        BindlessTextureBank(ByteValue) = nvinfo::EIATTR_BINDLESS_TEXTURE_BANK, "bank";
        BindlessSurfaceBank(ByteValue) = nvinfo::EIATTR_BINDLESS_SURFACE_BANK, "bank";
        KparamInfo(KparamInfo) = nvinfo::EIATTR_KPARAM_INFO, "";
        CbankParamSize(HalfValue) = nvinfo::EIATTR_CBANK_PARAM_SIZE, "size";
        MaxregCount(HalfValue) = nvinfo::EIATTR_MAXREG_COUNT, "registers";
        ExitInstrOffsets(Words) = nvinfo::EIATTR_EXIT_INSTR_OFFSETS, "offsets";
        S2rctaidInstrOffsets(Words) = nvinfo::EIATTR_S2RCTAID_INSTR_OFFSETS, "offsets";
        CrsStackSize(Word) = nvinfo::EIATTR_CRS_STACK_SIZE, "size";
        NeedCnpWrapper(Flag) = nvinfo::EIATTR_NEED_CNP_WRAPPER, "";
        NeedCnpPatch(Flag) = nvinfo::EIATTR_NEED_CNP_PATCH, "";
        ExplicitCaching(Flag) = nvinfo::EIATTR_EXPLICIT_CACHING, "";
        /// `{ function, size }`; cuobjdump prints both as bare numbers.
        MaxStackSize(FunctionValue) = nvinfo::EIATTR_MAX_STACK_SIZE, "max_stack_size";
        LdCachemodInstrOffsets(Words) = nvinfo::EIATTR_LD_CACHEMOD_INSTR_OFFSETS, "offsets";
        AtomSysInstrOffsets(Words) = nvinfo::EIATTR_ATOM_SYS_INSTR_OFFSETS, "offsets";
        CoopGroupInstrOffsets(Words) = nvinfo::EIATTR_COOP_GROUP_INSTR_OFFSETS, "offsets";
        CoopGroupMaskRegids(Words) = nvinfo::EIATTR_COOP_GROUP_MASK_REGIDS, "regids";
        /// Code 0x2a, unnamed in nvlink 13.5 (CuAssembler: `EIATTR_SW1850030_WAR`).
        Sw1850030War(Flag) = 0x2a, "";
        WmmaUsed(Flag) = nvinfo::EIATTR_WMMA_USED, "";
        Atom16EmulInstrRegMap(InstructionRegisters) = nvinfo::EIATTR_ATOM16_EMUL_INSTR_REG_MAP, "instructions";
        UnusedLoadByteOffset(LoadByteMasks) = nvinfo::EIATTR_UNUSED_LOAD_BYTE_OFFSET, "loads";
        Regcount(FunctionValue) = nvinfo::EIATTR_REGCOUNT, "registers";
        /// Code 0x30, unnamed in nvlink 13.5 (CuAssembler: `EIATTR_SW2393858_WAR`).
        Sw2393858War(Flag) = 0x30, "";
        IntWarpWideInstrOffsets(Words) = nvinfo::EIATTR_INT_WARP_WIDE_INSTR_OFFSETS, "offsets";
        IndirectBranchTargets(IndirectBranches) = nvinfo::EIATTR_INDIRECT_BRANCH_TARGETS, "branches";
        MbarrierInstrOffsets(MbarrierInstructions) = nvinfo::EIATTR_MBARRIER_INSTR_OFFSETS, "instructions";
        /// SVAL words in threes (an instruction offset, a packed register
        /// description, -1), printed by cuobjdump 13.5 as hex words (fixture
        /// mbsum's `cuda::barrier` waits, sm_80).
        InstrRegMap(Words) = nvinfo::EIATTR_INSTR_REG_MAP, "words";
        /// Code 0x35, unnamed in nvlink 13.5 (CuAssembler: `EIATTR_SW2861232_WAR`).
        Sw2861232War(Flag) = 0x35, "";
        SwWar(Word) = nvinfo::EIATTR_SW_WAR, "flags";
        CudaApiVersion(Word) = nvinfo::EIATTR_CUDA_API_VERSION, "version";
        CtaPerCluster(Dim3) = nvinfo::EIATTR_CTA_PER_CLUSTER, "";
        ExplicitCluster(Flag) = nvinfo::EIATTR_EXPLICIT_CLUSTER, "";
        MaxClusterRank(Word) = nvinfo::EIATTR_MAX_CLUSTER_RANK, "rank";
        ReservedSmemUsed(Flag) = nvinfo::EIATTR_RESERVED_SMEM_USED, "";
        KparamInfoV2(KparamInfoV2) = nvinfo::EIATTR_KPARAM_INFO_V2, "";
        VrcCtaInitCount(ByteValue) = nvinfo::EIATTR_VRC_CTA_INIT_COUNT, "count";
        NumBarriers(ByteValue) = nvinfo::EIATTR_NUM_BARRIERS, "barriers";
        SparseMmaMask(HalfValue) = nvinfo::EIATTR_SPARSE_MMA_MASK, "mask";
        GenErrbarAtExit(Flag) = nvinfo::EIATTR_GEN_ERRBAR_AT_EXIT, "";
        /// Payload structure unknown; kept as bytes.
        Annotations(Bytes) = nvinfo::EIATTR_ANNOTATIONS, "bytes";
        /// Code 0x5f (HVAL), unnamed in nvlink 13.5 and printed "unknown Attribute" by
        /// cuobjdump; ptxas 13.5 writes 0x101 (crucible-notes: Mercury ISA version).
        MercuryIsaVersion(HalfValue) = 0x5f, "version";
        Language(Language) = nvinfo::EIATTR_LANGUAGE, "language";
        NvsalSwWar(HalfValue) = nvinfo::EIATTR_NVSAL_SW_WAR, "flags";
        PreexitUsed(ByteValue) = nvinfo::EIATTR_PREEXIT_USED, "used";
    }
}

attribute_table! {
    /// One `.nv.compat` record, typed by its EICOMPAT code.
    pub enum CompatAttribute, lookup nvinfo::compat_attribute, unnamed "EICOMPAT_ATTR" {
        IsaClass(ByteValue) = nvinfo::EICOMPAT_ATTR_ISA_CLASS, "class";
        InstTensormapV1(ByteValue) = nvinfo::EICOMPAT_ATTR_INST_TENSORMAP_V1, "used";
        InstTcgen05Mma(ByteValue) = nvinfo::EICOMPAT_ATTR_INST_TCGEN05_MMA, "flags";
        /// Code 7 (HVAL), printed "unknown Attribute" by cuobjdump 13.5; ptxas writes 0x101.
        Unnamed7(HalfValue) = 0x07, "value";
        /// Whether the code is for an 'a' (architecture-specific) target.
        CudaAcceleratorTarget(ByteValue) = nvinfo::EICOMPAT_ATTR_CUDA_ACCELERATOR_TARGET, "accelerator";
        /// Two words; cuobjdump prints them as bare numbers.
        CanFastpathFinalize(Words) = nvinfo::EICOMPAT_ATTR_CAN_FASTPATH_FINALIZE, "words";
        CudaInternalTarget(ByteValue) = nvinfo::EICOMPAT_ATTR_CUDA_INTERNAL_TARGET, "internal";
        /// Code 13 (HVAL), printed "unknown Attribute" by cuobjdump 13.5; ptxas writes 0x101.
        Unnamed13(HalfValue) = 0x0d, "value";
        FinalizerVersion(FinalizerVersion) = nvinfo::EICOMPAT_ATTR_FINALIZER_VERSION, "version";
    }
}

/// A decoded record section: the records in order, and anything after the first
/// record that could not be read, kept as bytes so the section still round-trips.
#[derive(Debug, Clone, PartialEq, Eq, Serialize)]
pub struct RecordList<A> {
    pub records: Vec<Located<A>>,
    /// Bytes from the first unreadable record to the end of the section.
    pub trailing: Vec<u8>,
    /// Why reading stopped early, if it did.
    #[serde(skip)]
    pub error: Option<RecordError>,
}

/// A record with the offset of its header in the section.
#[derive(Debug, Clone, PartialEq, Eq, Serialize)]
pub struct Located<A> {
    pub offset: usize,
    #[serde(flatten)]
    pub attribute: A,
}

/// A decoded `.nv.info*` section (also `.nv.merc.nv.info*`).
pub type NvInfo = RecordList<Attribute>;
/// A decoded `.nv.compat` section.
pub type Compat = RecordList<CompatAttribute>;

impl<A: Record> RecordList<A> {
    /// Decodes a `.nv.info*` or `.nv.compat` section. Never fails; see [`RecordList::error`].
    pub fn decode(bytes: &[u8]) -> RecordList<A> {
        let mut records = Vec::new();
        for item in nvinfo::records(bytes) {
            match item {
                Ok(raw) => records.push(Located { offset: raw.offset, attribute: A::decode(&raw) }),
                Err(e) => {
                    let at = match e {
                        RecordError::Truncated { offset, .. } | RecordError::UnknownFormat { offset, .. } => offset,
                    };
                    let trailing = bytes.get(at..).unwrap_or_default().to_vec();
                    return RecordList { records, trailing, error: Some(e) };
                }
            }
        }
        RecordList { records, trailing: Vec::new(), error: None }
    }

    /// The section's bytes.
    pub fn encode(&self) -> Result<Vec<u8>, EncodeError> {
        let mut out = Vec::with_capacity(self.records.len() * (RECORD_HEADER_SIZE + 8) + self.trailing.len());
        for r in &self.records {
            r.attribute.encode(&mut out)?;
        }
        out.extend_from_slice(&self.trailing);
        Ok(out)
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn decodes_and_encodes_documented_sample() {
        // CuAssembler's sample bytes (SW_WAR, CUDA_API_VERSION, PARAM_CBANK, CBANK_PARAM_SIZE, KPARAM_INFO).
        let bytes: Vec<u8> = [
            &[4u8, 0x36, 4, 0, 1, 0, 0, 0][..],
            &[4, 0x37, 4, 0, 0x6f, 0, 0, 0],
            &[4, 0x0a, 8, 0, 0x15, 0, 0, 0, 0x60, 0x01, 0x18, 0],
            &[3, 0x19, 0x18, 0],
            &[4, 0x17, 0x0c, 0, 0, 0, 0, 0, 2, 0, 0x10, 0, 0x00, 0xf0, 0x21, 0],
        ]
        .concat();
        let info = NvInfo::decode(&bytes);
        assert!(info.error.is_none());
        let attrs: Vec<_> = info.records.iter().map(|r| &r.attribute).collect();
        assert_eq!(attrs[0], &Attribute::SwWar(Word(1)));
        assert_eq!(attrs[1], &Attribute::CudaApiVersion(Word(0x6f)));
        assert_eq!(attrs[2], &Attribute::ParamCbank(ParamCbank { section: 0x15, offset: 0x160, size: 0x18 }));
        assert_eq!(attrs[3], &Attribute::CbankParamSize(HalfValue(0x18)));
        let Attribute::KparamInfo(k) = attrs[4] else { panic!("not KPARAM_INFO: {:?}", attrs[4]) };
        assert_eq!((k.ordinal, k.offset, k.size, k.cbank, k.is_cbank), (2, 0x10, 8, 0x1f, true));
        assert_eq!(info.encode().expect("encodes"), bytes);
    }

    #[test]
    fn wrong_shapes_stay_raw_and_damage_is_kept() {
        // REGCOUNT with a 4-byte payload, then an unknown format byte.
        let bytes = [4u8, 0x2f, 4, 0, 9, 0, 0, 0, 9, 9, 9];
        let info = NvInfo::decode(&bytes);
        assert!(matches!(info.records[0].attribute, Attribute::Raw(_)));
        assert_eq!(info.trailing, vec![9, 9, 9]);
        assert_eq!(info.encode().expect("encodes"), bytes);
    }
}
