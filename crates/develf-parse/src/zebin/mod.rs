//! Intel ZE binaries (zebins): a zero-copy view over [`ElfFile`] plus the decoded
//! target notes and `.ze_info`, and validation with the rules of Intel's runtime
//! decoder (NEO, compute-runtime `shared/source/device_binary_format/zebin`).
//!
//! ```no_run
//! # let bytes: Vec<u8> = Vec::new();
//! use develf_parse::zebin::{ValidateOptions, Zebin};
//! let zebin = Zebin::parse(&bytes)?;
//! for kernel in &zebin.kernels {
//!     println!("{} at .text+{:#x}", kernel.name, kernel.entry.unwrap_or(0));
//! }
//! let diagnostics = zebin.validate(&ValidateOptions { device: Some("bmg"), ..Default::default() });
//! # Ok::<(), develf_parse::Diagnostic>(())
//! ```
//!
//! Two header layouts exist. The one every ocloc we ran writes (22.43 and 26.27) is
//! `ET_REL`, `e_machine` = `EM_INTELGT` (205), `e_flags` = 0, target in
//! `.note.intelgt.compat`. The older one (`ET_ZEBIN_EXE`, `e_machine` a product
//! family or GFX core as `e_flags` bit 15 says, TargetFlags in `e_flags`) is what
//! the seed notes and the first spec describe; NEO still loads it, so develf reads
//! it too ([`HeaderLayout::Legacy`]).
//!
//! Quirk: IGC writes one string table, `.strtab`, for both section and symbol
//! names: `e_shstrndx` and `.symtab`'s `sh_link` name the same section.

pub mod codes;
mod validate;
pub mod zeinfo;

use crate::diag::Diagnostic;
use crate::elf::{ElfFile, Note, Symbol};
use develf_format::zebin::{self as fmt, IpVersion, TargetFlags, names};

pub use validate::ValidateOptions;
pub use zeinfo::{Version, ZeInfo};

/// Which header layout the file uses.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum HeaderLayout {
    /// `e_machine` = `EM_INTELGT`; the target is in the notes.
    IntelGt,
    /// `e_machine` is a PRODUCT_FAMILY, or a GFXCORE_FAMILY when
    /// `flags.machine_entry_uses_gfx_core`; `e_flags` holds the TargetFlags.
    Legacy { flags: TargetFlags },
}

/// One `.note.intelgt.compat` entry, decoded where its type is known.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub struct IntelGtNote<'a> {
    pub note: Note<'a>,
    pub value: NoteValue<'a>,
}

/// The decoded descriptor of an IntelGT note.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum NoteValue<'a> {
    ProductFamily(u32),
    GfxCore(u32),
    TargetMetadata(TargetFlags),
    /// The `.ze_info` version string without its NUL (`None`: not NUL-terminated).
    ZebinVersion(Option<&'a str>),
    VisaAbiVersion(u32),
    ProductConfig(IpVersion),
    IndirectAccessDetectionVersion(u32),
    IndirectAccessBufferMajorVersion(u32),
    /// A word-sized type whose descriptor is not 4 bytes, an unknown type, or a
    /// note with another owner: the raw bytes.
    Raw(&'a [u8]),
}

/// What the file says about its target, from the notes or the legacy header.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Default)]
pub struct Target<'a> {
    pub product_family: Option<u32>,
    pub gfx_core: Option<u32>,
    pub target_metadata: Option<TargetFlags>,
    pub zebin_version: Option<&'a str>,
    pub visa_abi_version: Option<u32>,
    pub ip_version: Option<IpVersion>,
    pub indirect_access_detection_version: Option<u32>,
    pub indirect_access_buffer_major_version: Option<u32>,
}

impl Target<'_> {
    /// The develf device whose notes match, most specific first: IP version, then
    /// product family.
    pub fn device(&self) -> Option<&'static fmt::Device> {
        if let Some(ip) = self.ip_version {
            if let Some(d) = fmt::DEVICES.iter().find(|d| d.ip_version == ip) {
                return Some(d);
            }
            if let Some(d) =
                fmt::DEVICES.iter().find(|d| d.ip_version.arch == ip.arch && d.ip_version.release == ip.release)
            {
                return Some(d);
            }
        }
        let family = self.product_family?;
        fmt::DEVICES.iter().find(|d| d.product_family == family)
    }
}

/// A `.text.<kernel>` section (or the bare `.text` NEO aliases to the external
/// functions section) with its symbols.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub struct KernelText<'a> {
    pub name: &'a str,
    pub section: usize,
    pub code: &'a [u8],
    /// Index in `.symtab` of the symbol named after the kernel, if any.
    pub symbol: Option<usize>,
    /// Offset of the `_entry` symbol in this section: the real start after any prolog.
    pub entry: Option<u64>,
}

/// How a section is used, per the names and types NEO's decoder knows.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum SectionRole {
    Null,
    KernelText,
    DataConst,
    DataGlobal,
    DataConstString,
    BssConst,
    BssGlobal,
    Symtab,
    Strtab,
    Relocations,
    Spirv,
    Debug,
    ZeInfo,
    GtpinInfo,
    VisaAsm,
    BuildOptions,
    Misc,
    CompatNote,
    MetricsNote,
    OtherNote,
    Other,
}

impl SectionRole {
    pub fn name(self) -> &'static str {
        match self {
            SectionRole::Null => "null",
            SectionRole::KernelText => "kernel text",
            SectionRole::DataConst => "constant data",
            SectionRole::DataGlobal => "global data",
            SectionRole::DataConstString => "constant strings",
            SectionRole::BssConst => "zero-initialized constants",
            SectionRole::BssGlobal => "zero-initialized globals",
            SectionRole::Symtab => "symbols",
            SectionRole::Strtab => "names",
            SectionRole::Relocations => "relocations",
            SectionRole::Spirv => "SPIR-V",
            SectionRole::Debug => "debug info",
            SectionRole::ZeInfo => "ze_info",
            SectionRole::GtpinInfo => "gtpin info",
            SectionRole::VisaAsm => "vISA assembly",
            SectionRole::BuildOptions => "build options",
            SectionRole::Misc => "misc",
            SectionRole::CompatNote => "compatibility notes",
            SectionRole::MetricsNote => "metrics note",
            SectionRole::OtherNote => "note",
            SectionRole::Other => "other",
        }
    }
}

/// Classifies a section by type and name as NEO's `extractZebinSections` does.
pub fn section_role(sh_type: u32, name: &str) -> SectionRole {
    use develf_format::section::{
        SHT_NOBITS, SHT_NOTE, SHT_NULL, SHT_PROGBITS, SHT_REL, SHT_RELA, SHT_STRTAB, SHT_SYMTAB,
    };
    match sh_type {
        SHT_NULL => SectionRole::Null,
        SHT_PROGBITS if name == names::TEXT || name.starts_with(names::TEXT_PREFIX) => SectionRole::KernelText,
        SHT_PROGBITS if name == names::DATA_CONST || name == names::DATA_GLOBAL_CONST => SectionRole::DataConst,
        SHT_PROGBITS if name == names::DATA_GLOBAL => SectionRole::DataGlobal,
        SHT_PROGBITS if name == names::DATA_CONST_STRING => SectionRole::DataConstString,
        SHT_PROGBITS if name.starts_with(names::DEBUG_PREFIX) => SectionRole::Debug,
        SHT_NOBITS if name == names::BSS_CONST => SectionRole::BssConst,
        SHT_NOBITS if name == names::BSS_GLOBAL => SectionRole::BssGlobal,
        SHT_SYMTAB => SectionRole::Symtab,
        SHT_STRTAB => SectionRole::Strtab,
        SHT_REL | SHT_RELA => SectionRole::Relocations,
        SHT_NOTE if name == names::NOTE_COMPAT => SectionRole::CompatNote,
        SHT_NOTE if name == names::NOTE_METRICS => SectionRole::MetricsNote,
        SHT_NOTE => SectionRole::OtherNote,
        fmt::SHT_ZEBIN_SPIRV => SectionRole::Spirv,
        fmt::SHT_ZEBIN_ZEINFO => SectionRole::ZeInfo,
        fmt::SHT_ZEBIN_GTPIN_INFO => SectionRole::GtpinInfo,
        fmt::SHT_ZEBIN_VISAASM => SectionRole::VisaAsm,
        fmt::SHT_ZEBIN_MISC if name == names::BUILD_OPTIONS => SectionRole::BuildOptions,
        fmt::SHT_ZEBIN_MISC => SectionRole::Misc,
        _ => SectionRole::Other,
    }
}

/// A parsed zebin. Everything borrows the input bytes except small per-section
/// records and the decoded `.ze_info`.
#[derive(Debug, Clone)]
pub struct Zebin<'a> {
    pub elf: ElfFile<'a>,
    pub layout: HeaderLayout,
    /// Index of `.note.intelgt.compat` (the first one, as NEO reads it).
    pub compat_note_section: Option<usize>,
    /// Its notes, in file order; stops at the first that does not fit.
    pub notes: Vec<IntelGtNote<'a>>,
    pub target: Target<'a>,
    /// `.symtab`'s symbols, index 0 included.
    pub symbols: Vec<Symbol<'a>>,
    /// Index of `.symtab`.
    pub symtab_section: Option<usize>,
    /// `.text.<kernel>` sections in file order.
    pub kernels: Vec<KernelText<'a>>,
    /// Index of the first `.ze_info` section (the type, as NEO finds it).
    pub zeinfo_section: Option<usize>,
    /// Its text (lossily decoded when it is not UTF-8; validation says so).
    pub zeinfo_text: Option<&'a str>,
    /// The decoded `.ze_info`, or why it could not be decoded.
    pub zeinfo: Option<Result<ZeInfo, String>>,
}

impl<'a> Zebin<'a> {
    /// Whether the bytes look like a zebin: an ELF file with `e_type` `ET_REL` and
    /// `e_machine` `EM_INTELGT`, or with one of the `ET_ZEBIN_*` types.
    pub fn sniff(data: &[u8]) -> bool {
        let Ok(elf) = ElfFile::parse(data) else { return false };
        let t = elf.header.e_type;
        (t == fmt::ET_REL && elf.header.machine == fmt::EM_INTELGT)
            || matches!(t, fmt::ET_ZEBIN_REL | fmt::ET_ZEBIN_EXE | fmt::ET_ZEBIN_DYN)
    }

    /// Reads the ELF structure, the notes, the symbols, the kernel sections and
    /// `.ze_info`. Fails only where [`ElfFile::parse`] does; every other problem is
    /// left for [`Zebin::validate`].
    pub fn parse(data: &'a [u8]) -> Result<Zebin<'a>, Diagnostic> {
        let elf = ElfFile::parse(data)?;
        let layout = if elf.header.machine == fmt::EM_INTELGT {
            HeaderLayout::IntelGt
        } else {
            HeaderLayout::Legacy { flags: TargetFlags::decode(elf.header.flags) }
        };

        let compat_note_section = elf
            .sections
            .iter()
            .position(|s| s.sh_type == develf_format::section::SHT_NOTE && s.name == names::NOTE_COMPAT);
        let notes: Vec<IntelGtNote<'a>> = compat_note_section
            .and_then(|i| elf.sections.get(i))
            .map(|s| elf.notes(s).into_iter().map(decode_note).collect())
            .unwrap_or_default();

        let mut target = Target::default();
        for n in &notes {
            match n.value {
                NoteValue::ProductFamily(v) => target.product_family = Some(v),
                NoteValue::GfxCore(v) => target.gfx_core = Some(v),
                NoteValue::TargetMetadata(v) => target.target_metadata = Some(v),
                NoteValue::ZebinVersion(v) => target.zebin_version = v,
                NoteValue::VisaAbiVersion(v) => target.visa_abi_version = Some(v),
                NoteValue::ProductConfig(v) => target.ip_version = Some(v),
                NoteValue::IndirectAccessDetectionVersion(v) => target.indirect_access_detection_version = Some(v),
                NoteValue::IndirectAccessBufferMajorVersion(v) => target.indirect_access_buffer_major_version = Some(v),
                NoteValue::Raw(_) => {}
            }
        }
        if let HeaderLayout::Legacy { flags } = layout {
            let machine = u32::from(elf.header.machine);
            if flags.machine_entry_uses_gfx_core {
                target.gfx_core.get_or_insert(machine);
            } else {
                target.product_family.get_or_insert(machine);
            }
            target.target_metadata.get_or_insert(flags);
        }

        let symtab = elf.symtab();
        let symtab_section = symtab.as_ref().map(|t| t.section);
        let symbols = symtab.map(|t| t.symbols).unwrap_or_default();

        let kernels = elf
            .sections
            .iter()
            .filter(|s| section_role(s.sh_type, s.name) == SectionRole::KernelText)
            .map(|s| {
                let name = s.name.strip_prefix(names::TEXT_PREFIX).unwrap_or(names::EXTERNAL_FUNCTIONS);
                let in_section = |sym: &&Symbol<'a>| sym.section_index() == Some(s.index);
                let symbol = symbols.iter().filter(in_section).find(|sym| sym.name == name).map(|sym| sym.index);
                let entry =
                    symbols.iter().filter(in_section).find(|sym| sym.name == names::ENTRY_SYMBOL).map(|sym| sym.value);
                KernelText { name, section: s.index, code: s.data.unwrap_or(&[]), symbol, entry }
            })
            .collect();

        let zeinfo_section = elf.sections.iter().position(|s| s.sh_type == fmt::SHT_ZEBIN_ZEINFO);
        let zeinfo_bytes = zeinfo_section.and_then(|i| elf.sections.get(i)).and_then(|s| s.data);
        let zeinfo_text = zeinfo_bytes.map(|b| core::str::from_utf8(b).unwrap_or(""));
        let zeinfo = zeinfo_bytes.map(|bytes| match core::str::from_utf8(bytes) {
            Ok(_) if bytes.len() > zeinfo::MAX_ZEINFO_SIZE => {
                Err(format!("{} bytes, over the {}-byte bound", bytes.len(), zeinfo::MAX_ZEINFO_SIZE))
            }
            // NEO stops at the first NUL (it treats the section as a C string).
            Ok(text) => ZeInfo::parse(text.split('\0').next().unwrap_or("")),
            Err(e) => Err(format!("not UTF-8: {e}")),
        });

        Ok(Zebin {
            elf,
            layout,
            compat_note_section,
            notes,
            target,
            symbols,
            symtab_section,
            kernels,
            zeinfo_section,
            zeinfo_text,
            zeinfo,
        })
    }

    /// The decoded `.ze_info`, if it decoded.
    pub fn zeinfo(&self) -> Option<&ZeInfo> {
        self.zeinfo.as_ref().and_then(|r| r.as_ref().ok())
    }

    /// A kernel's text section by kernel name.
    pub fn kernel(&self, name: &str) -> Option<&KernelText<'a>> {
        self.kernels.iter().find(|k| k.name == name)
    }

    /// The build options ocloc recorded in `.misc.buildOptions`.
    pub fn build_options(&self) -> Option<&'a str> {
        let s =
            self.elf.sections.iter().find(|s| s.sh_type == fmt::SHT_ZEBIN_MISC && s.name == names::BUILD_OPTIONS)?;
        core::str::from_utf8(s.data?).ok()
    }

    /// The role of section `index`.
    pub fn role(&self, index: usize) -> SectionRole {
        self.elf.sections.get(index).map(|s| section_role(s.sh_type, s.name)).unwrap_or(SectionRole::Other)
    }

    /// Checks the file with NEO's rules (and a few of develf's own, which never
    /// contradict NEO on what ocloc writes). See [`codes`] for what is checked.
    pub fn validate(&self, options: &ValidateOptions<'_>) -> crate::diag::Diagnostics {
        validate::validate(self, options)
    }
}

fn word(desc: &[u8]) -> Option<u32> {
    let bytes: [u8; 4] = desc.try_into().ok()?;
    Some(u32::from_le_bytes(bytes))
}

fn decode_note(note: Note<'_>) -> IntelGtNote<'_> {
    let raw = IntelGtNote { note, value: NoteValue::Raw(note.desc) };
    if note.name != fmt::NOTE_OWNER.as_bytes() {
        return raw;
    }
    let w = word(note.desc);
    let value = match (note.n_type, w) {
        (fmt::NT_INTELGT_PRODUCT_FAMILY, Some(v)) => NoteValue::ProductFamily(v),
        (fmt::NT_INTELGT_GFXCORE_FAMILY, Some(v)) => NoteValue::GfxCore(v),
        (fmt::NT_INTELGT_TARGET_METADATA, Some(v)) => NoteValue::TargetMetadata(TargetFlags::decode(v)),
        (fmt::NT_INTELGT_ZEBIN_VERSION, _) => NoteValue::ZebinVersion(
            note.desc
                .strip_suffix(&[0])
                .and_then(|s| core::str::from_utf8(s).ok())
                .map(|s| s.split('\0').next().unwrap_or(s)),
        ),
        (fmt::NT_INTELGT_VISA_ABI_VERSION, Some(v)) => NoteValue::VisaAbiVersion(v),
        (fmt::NT_INTELGT_PRODUCT_CONFIG, Some(v)) => NoteValue::ProductConfig(IpVersion::decode(v)),
        (fmt::NT_INTELGT_INDIRECT_ACCESS_DETECTION_VERSION, Some(v)) => NoteValue::IndirectAccessDetectionVersion(v),
        (fmt::NT_INTELGT_INDIRECT_ACCESS_BUFFER_MAJOR_VERSION, Some(v)) => {
            NoteValue::IndirectAccessBufferMajorVersion(v)
        }
        _ => NoteValue::Raw(note.desc),
    };
    IntelGtNote { note, value }
}
