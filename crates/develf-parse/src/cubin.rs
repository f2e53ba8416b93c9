//! `Cubin<'a>`: a view of an NVIDIA device ELF file.

use crate::diag::{Diagnostic, Diagnostics};
use crate::elf::{ElfFile, Header, Note, RelocationSection, Section, Segment, Symbol, SymbolTable};
use develf_format::header::{ABI_VERSION_7, Arch, CudaFlags};
pub use develf_format::note::CuInfo;
use develf_format::note::{NT_CUDA_CUINFO, NVIDIA_NOTE_OWNER};
use develf_format::nvinfo::{self, EICOMPAT_ATTR_CUDA_ACCELERATOR_TARGET, Format, RawRecord, RecordError};
use develf_format::section::{
    SHT_CUDA_COMPAT_INFO, SHT_CUDA_INFO, SHT_CUDA_MERCURY_INFO, SHT_CUDA_MERCURY_SYMTAB, SHT_NOTE,
};

/// A parsed cubin. Parsing is lenient: it succeeds whenever the ELF header and
/// section table can be read, and [`Cubin::validate`] reports everything else.
///
/// ```no_run
/// let bytes = std::fs::read("kernel.cubin").unwrap();
/// let cubin = develf_parse::Cubin::parse(&bytes).unwrap();
/// println!("{}", cubin.target().unwrap());
/// for d in cubin.validate().as_slice() {
///     eprintln!("{d}");
/// }
/// ```
#[derive(Debug, Clone)]
pub struct Cubin<'a> {
    elf: ElfFile<'a>,
    symtab: Option<SymbolTable<'a>>,
}

/// A metadata section made of EIATTR/EICOMPAT records.
#[derive(Debug, Clone, Copy)]
pub struct RecordSection<'a> {
    pub section: &'a Section<'a>,
    /// `.nv.compat` (EICOMPAT codes) rather than `.nv.info*` (EIATTR codes).
    pub compat: bool,
}

impl<'a> RecordSection<'a> {
    pub fn records(self) -> impl Iterator<Item = Result<RawRecord<'a>, RecordError>> + 'a {
        nvinfo::records(self.section.data.unwrap_or(&[]))
    }
}

impl<'a> Cubin<'a> {
    /// Shortens section `index` to `size` bytes, its data with it (a linker
    /// that reads less of an input section than its header says). Never
    /// lengthens one.
    pub fn truncate_section(&mut self, index: usize, size: u64) {
        if let Some(s) = self.elf.sections.get_mut(index) {
            if size < s.size {
                s.size = size;
                let keep = usize::try_from(size).unwrap_or(usize::MAX);
                s.data = s.data.map(|d| &d[..keep.min(d.len())]);
            }
        }
    }

    pub fn parse(data: &'a [u8]) -> Result<Cubin<'a>, Diagnostic> {
        let elf = ElfFile::parse(data)?;
        let symtab = elf.symtab();
        Ok(Cubin { elf, symtab })
    }

    /// The underlying ELF view.
    pub fn elf(&self) -> &ElfFile<'a> {
        &self.elf
    }

    pub fn data(&self) -> &'a [u8] {
        self.elf.data
    }

    pub fn header(&self) -> &Header {
        &self.elf.header
    }

    pub fn sections(&self) -> &[Section<'a>] {
        &self.elf.sections
    }

    pub fn segments(&self) -> &[Segment] {
        &self.elf.segments
    }

    /// The symbols of `.symtab` (empty when there is none).
    pub fn symbols(&self) -> &[Symbol<'a>] {
        self.symtab.as_ref().map(|t| t.symbols.as_slice()).unwrap_or(&[])
    }

    pub fn symtab(&self) -> Option<&SymbolTable<'a>> {
        self.symtab.as_ref()
    }

    /// `.nv.merc.symtab` (sm_100+), which the `.nv.merc.*` sections refer to.
    pub fn mercury_symtab(&self) -> Option<SymbolTable<'a>> {
        let index = self.sections().iter().position(|s| s.sh_type == SHT_CUDA_MERCURY_SYMTAB)?;
        self.elf.symbol_table(index)
    }

    /// The symbol table a section's `sh_link` names, decoded (the standard one is cached).
    pub fn symbols_for_link(&self, link: u32) -> Option<SymbolTable<'a>> {
        match &self.symtab {
            Some(t) if t.section == link as usize => Some(t.clone()),
            _ => self.elf.symbol_table(link as usize),
        }
    }

    pub fn relocation_sections(&self) -> impl Iterator<Item = RelocationSection<'a>> + '_ {
        self.elf.relocation_sections()
    }

    /// Section `index` as a relocation section, if it is one.
    pub fn relocation_section(&self, index: usize) -> Option<RelocationSection<'a>> {
        self.elf.relocation_section(index)
    }

    /// `e_flags` decoded by the header's ABI version.
    pub fn flags(&self) -> CudaFlags {
        CudaFlags::decode(self.header().abi_version, self.header().flags)
    }

    /// The `.note.nv.cuinfo` contents, if present and well-formed.
    pub fn cuinfo(&self) -> Option<CuInfo> {
        self.notes()
            .find(|(_, n)| n.n_type == NT_CUDA_CUINFO && n.name == NVIDIA_NOTE_OWNER.as_bytes())
            .and_then(|(_, n)| CuInfo::decode(n.desc))
    }

    /// Every note of every `SHT_NOTE` section, with the section it is in.
    pub fn notes(&self) -> impl Iterator<Item = (&Section<'a>, Note<'a>)> + '_ {
        self.sections()
            .iter()
            .filter(|s| s.sh_type == SHT_NOTE)
            .flat_map(move |s| self.elf.notes(s).into_iter().map(move |n| (s, n)))
    }

    /// `.nv.info`, `.nv.info.<fn>`, their `.nv.merc.*` twins and `.nv.compat`.
    pub fn record_sections(&self) -> impl Iterator<Item = RecordSection<'_>> + '_ {
        self.sections().iter().filter_map(|s| match s.sh_type {
            SHT_CUDA_INFO | SHT_CUDA_MERCURY_INFO => Some(RecordSection { section: s, compat: false }),
            SHT_CUDA_COMPAT_INFO => Some(RecordSection { section: s, compat: true }),
            _ => None,
        })
    }

    /// Whether the code is architecture-specific ('a'): from `e_flags` in ABI 7,
    /// from `.nv.compat`'s `EICOMPAT_ATTR_CUDA_ACCELERATOR_TARGET` in ABI 8.
    pub fn is_accelerator_target(&self) -> bool {
        if self.header().abi_version == ABI_VERSION_7 {
            return self.flags().accelerator;
        }
        self.compat_value(EICOMPAT_ATTR_CUDA_ACCELERATOR_TARGET).is_some_and(|v| v != 0)
    }

    /// The value of a BVAL/HVAL `.nv.compat` attribute.
    pub fn compat_value(&self, attribute: u8) -> Option<u16> {
        self.record_sections()
            .filter(|r| r.compat)
            .flat_map(|r| r.records())
            .filter_map(Result::ok)
            .find(|r| {
                r.attribute == attribute && matches!(Format::from_u8(r.format), Some(Format::Bval | Format::Hval))
            })
            .map(|r| r.value)
    }

    /// The target, e.g. `sm_90a`. `None` when `e_flags` holds no SM.
    pub fn target(&self) -> Option<Arch> {
        let sm = self.flags().sm;
        (sm != 0).then(|| Arch { sm: u32::from(sm), accelerator: self.is_accelerator_target() })
    }

    /// Runs every validation layer and returns what it found.
    pub fn validate(&self) -> Diagnostics {
        crate::validate::validate_cubin(self)
    }

    /// A section's label for diagnostics (`.text.foo` or `#7`).
    pub fn section_label(&self, index: usize) -> String {
        self.sections().get(index).map(Section::label).unwrap_or_else(|| format!("#{index}"))
    }
}
