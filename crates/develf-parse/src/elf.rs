//! A generic, bounds-checked, zero-copy ELF reader shared by [`crate::Cubin`] and
//! the zebin reader.
//!
//! goblin supplies the on-disk record layouts (`SectionHeader`, `Sym`, `Rela`, …,
//! read with scroll in the file's byte order); this module adds what goblin's
//! `Elf::parse` does not: it never trusts a count or offset from the file without
//! checking it against the file's length, it keeps going past damaged tables so
//! a validator can report every problem, and it resolves `.symtab_shndx`
//! and vendor-typed relocation sections (`.nv.merc.rela*`).
//!
//! Everything here borrows the input; owned vectors hold one small record per
//! section or symbol, so memory stays a small multiple of the input size.

use crate::codes;
use crate::diag::Diagnostic;
use develf_format::section::{self as sec, SHT_RELA, SHT_SYMTAB, SHT_SYMTAB_SHNDX};
use develf_format::symbol::{SHN_LORESERVE, SHN_XINDEX};
use goblin::elf::{program_header, reloc, section_header, sym};
use scroll::{Endian, Pread};

/// `EI_CLASS`: 32- or 64-bit records.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum Class {
    Elf32,
    Elf64,
}

impl Class {
    pub fn name(self) -> &'static str {
        match self {
            Class::Elf32 => "ELF32",
            Class::Elf64 => "ELF64",
        }
    }

    /// The expected `e_ehsize`.
    pub fn header_size(self) -> usize {
        match self {
            Class::Elf32 => 52,
            Class::Elf64 => 64,
        }
    }

    /// The expected `e_shentsize`.
    pub fn section_header_size(self) -> usize {
        match self {
            Class::Elf32 => section_header::section_header32::SIZEOF_SHDR,
            Class::Elf64 => section_header::section_header64::SIZEOF_SHDR,
        }
    }

    /// The expected `e_phentsize`.
    pub fn program_header_size(self) -> usize {
        match self {
            Class::Elf32 => program_header::program_header32::SIZEOF_PHDR,
            Class::Elf64 => program_header::program_header64::SIZEOF_PHDR,
        }
    }

    /// The expected `sh_entsize` of a symbol table.
    pub fn symbol_size(self) -> usize {
        match self {
            Class::Elf32 => sym::sym32::SIZEOF_SYM,
            Class::Elf64 => sym::sym64::SIZEOF_SYM,
        }
    }

    /// The expected `sh_entsize` of a relocation section (`rela` or `rel`).
    pub fn relocation_size(self, rela: bool) -> usize {
        match (self, rela) {
            (Class::Elf32, true) => reloc::reloc32::SIZEOF_RELA,
            (Class::Elf32, false) => reloc::reloc32::SIZEOF_REL,
            (Class::Elf64, true) => reloc::reloc64::SIZEOF_RELA,
            (Class::Elf64, false) => reloc::reloc64::SIZEOF_REL,
        }
    }
}

/// The ELF header, widened to 64 bits, with the extended-numbering escapes
/// (`e_shnum == 0`, `e_shstrndx == SHN_XINDEX`) already resolved.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub struct Header {
    pub class: Class,
    pub endian: Endian,
    pub osabi: u8,
    pub abi_version: u8,
    pub e_type: u16,
    pub machine: u16,
    pub version: u32,
    pub entry: u64,
    pub phoff: u64,
    pub shoff: u64,
    pub flags: u32,
    pub ehsize: u16,
    pub phentsize: u16,
    /// Program header count.
    pub phnum: u64,
    pub shentsize: u16,
    /// Section count, from section 0's `sh_size` when `e_shnum` is 0.
    pub shnum: u64,
    /// Section name table index, from section 0's `sh_link` when `e_shstrndx` is `SHN_XINDEX`.
    pub shstrndx: u32,
}

/// One section header, widened to 64 bits, with its name and bytes resolved.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub struct Section<'a> {
    pub index: usize,
    /// Offset of the name in the section name table.
    pub name_offset: u32,
    /// The name; empty when it cannot be read (see validation).
    pub name: &'a str,
    pub sh_type: u32,
    pub flags: u64,
    pub addr: u64,
    pub offset: u64,
    pub size: u64,
    pub link: u32,
    pub info: u32,
    pub addralign: u64,
    pub entsize: u64,
    /// File offset of this section's header.
    pub header_offset: u64,
    /// The section's bytes, when it has any in the file and they lie inside it.
    pub data: Option<&'a [u8]>,
}

impl Section<'_> {
    /// A printable name: the name, or `#N` when it is empty.
    pub fn label(&self) -> String {
        if self.name.is_empty() { format!("#{}", self.index) } else { self.name.to_string() }
    }

    /// The bytes, or an empty slice.
    pub fn bytes(&self) -> &[u8] {
        self.data.unwrap_or(&[])
    }
}

/// One program header, widened to 64 bits.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub struct Segment {
    pub index: usize,
    pub p_type: u32,
    pub flags: u32,
    pub offset: u64,
    pub vaddr: u64,
    pub paddr: u64,
    pub filesz: u64,
    pub memsz: u64,
    pub align: u64,
}

/// One symbol, widened to 64 bits, with `SHN_XINDEX` resolved through `.symtab_shndx`.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub struct Symbol<'a> {
    pub index: usize,
    pub name_offset: u32,
    pub name: &'a str,
    pub value: u64,
    pub size: u64,
    pub st_type: u8,
    pub bind: u8,
    pub other: u8,
    /// `st_shndx` as stored.
    pub raw_shndx: u16,
    /// The section index: `raw_shndx`, or the `.symtab_shndx` entry when it is
    /// `SHN_XINDEX`. Special indices (`SHN_ABS`, …) are kept as they are,
    /// unless the table names a section for them (see `from_table`).
    pub shndx: u32,
    /// Whether `shndx` was read from `.symtab_shndx`: for `SHN_XINDEX`, and
    /// for a reserved `st_shndx` whose table entry names an existing section.
    /// nvlink 13.5 writes every symbol's index into its table and leaves
    /// section 0xfff2 (65,522) as `st_shndx` 0xfff2, which reads as
    /// `SHN_COMMON` without the table (docs/nvlink-layout.md rule 3.6).
    pub from_table: bool,
}

impl Symbol<'_> {
    /// The section this symbol is defined in, if it names a real one.
    pub fn section_index(&self) -> Option<usize> {
        let special = self.raw_shndx >= SHN_LORESERVE && !self.from_table;
        (self.shndx != 0 && !special).then_some(self.shndx as usize)
    }
}

/// A symbol table: its section and decoded entries.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct SymbolTable<'a> {
    pub section: usize,
    pub symbols: Vec<Symbol<'a>>,
}

/// One relocation entry, widened to 64 bits.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub struct Relocation {
    /// Index of the entry within its section.
    pub index: usize,
    pub offset: u64,
    pub r_type: u32,
    pub symbol: u32,
    /// The explicit addend of a RELA entry; `None` for REL.
    pub addend: Option<i64>,
}

/// A relocation section: which section it patches and with which symbols.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub struct RelocationSection<'a> {
    pub section: usize,
    /// `sh_info`: the section patched.
    pub target: u32,
    /// `sh_link`: the symbol table used.
    pub symtab: u32,
    pub rela: bool,
    pub(crate) class: Class,
    pub(crate) endian: Endian,
    pub(crate) data: &'a [u8],
}

impl<'a> RelocationSection<'a> {
    /// Size of one entry.
    pub fn entry_size(&self) -> usize {
        self.class.relocation_size(self.rela)
    }

    /// Number of whole entries in the section.
    pub fn len(&self) -> usize {
        self.data.len() / self.entry_size()
    }

    pub fn is_empty(&self) -> bool {
        self.len() == 0
    }

    /// The entries, decoded on the fly (no allocation).
    pub fn entries(&self) -> impl DoubleEndedIterator<Item = Relocation> + 'a {
        let (class, endian, rela, data) = (self.class, self.endian, self.rela, self.data);
        let size = self.entry_size();
        data.chunks_exact(size).enumerate().filter_map(move |(index, bytes)| {
            read_relocation(class, endian, rela, bytes).map(|(offset, r_type, symbol, addend)| Relocation {
                index,
                offset,
                r_type,
                symbol,
                addend,
            })
        })
    }
}

fn read_relocation(class: Class, endian: Endian, rela: bool, bytes: &[u8]) -> Option<(u64, u32, u32, Option<i64>)> {
    // Every cubin is ELF64 little-endian: its entries read as plain words
    // (a linker reads each of a big link's relocations several times).
    if class == Class::Elf64 && endian == scroll::LE {
        let word = |at: usize| bytes.get(at..at + 8).and_then(|b| b.first_chunk::<8>()).map(|b| u64::from_le_bytes(*b));
        let (offset, info) = (word(0)?, word(8)?);
        let addend = if rela { Some(word(16)? as i64) } else { None };
        return Some((offset, (info & 0xffff_ffff) as u32, (info >> 32) as u32, addend));
    }
    match class {
        Class::Elf64 => {
            let offset: u64 = bytes.pread_with(0, endian).ok()?;
            let info: u64 = bytes.pread_with(8, endian).ok()?;
            let addend = if rela { Some(bytes.pread_with::<i64>(16, endian).ok()?) } else { None };
            Some((offset, (info & 0xffff_ffff) as u32, (info >> 32) as u32, addend))
        }
        Class::Elf32 => {
            let offset: u32 = bytes.pread_with(0, endian).ok()?;
            let info: u32 = bytes.pread_with(4, endian).ok()?;
            let addend = if rela { Some(i64::from(bytes.pread_with::<i32>(8, endian).ok()?)) } else { None };
            Some((u64::from(offset), info & 0xff, info >> 8, addend))
        }
    }
}

/// One note entry.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub struct Note<'a> {
    /// File offset of the note's header.
    pub offset: u64,
    /// The owner, without its NUL.
    pub name: &'a [u8],
    pub n_type: u32,
    pub desc: &'a [u8],
}

/// A parsed ELF file: header, section and program headers, resolved names.
#[derive(Debug, Clone)]
pub struct ElfFile<'a> {
    pub data: &'a [u8],
    pub header: Header,
    pub sections: Vec<Section<'a>>,
    pub segments: Vec<Segment>,
}

/// Size of `e_ident`.
const IDENT_SIZE: usize = 16;

impl<'a> ElfFile<'a> {
    /// Reads the header and the section and program header tables. Fails only
    /// when the header cannot be read or the section table lies outside the
    /// file; every other problem is left for [`crate::validate`] to report.
    pub fn parse(data: &'a [u8]) -> Result<ElfFile<'a>, Diagnostic> {
        let header = read_header(data)?;
        check_section_table(data, &header)?;
        let sections = read_sections(data, &header);
        let segments = read_segments(data, &header);
        Ok(ElfFile { data, header, sections, segments })
    }

    /// Whether [`ElfFile::parse`] would succeed, with the same error when it
    /// would not, without building the tables: a linker asks this of every
    /// input before it parses the ones it uses.
    pub fn check(data: &[u8]) -> Result<(), Diagnostic> {
        check_section_table(data, &read_header(data)?)
    }

    pub fn section(&self, index: usize) -> Option<&Section<'a>> {
        self.sections.get(index)
    }

    /// The first section with this name.
    pub fn section_by_name(&self, name: &str) -> Option<&Section<'a>> {
        self.sections.iter().find(|s| s.name == name)
    }

    /// A NUL-terminated string at `offset` in string table `strtab` (a section index).
    pub fn string(&self, strtab: usize, offset: u32) -> Option<&'a str> {
        string_at(self.sections.get(strtab)?.data?, offset)
    }

    /// Decodes the symbol table in section `index` (a `SHT_SYMTAB` or a vendor
    /// table with the same record layout, such as `.nv.merc.symtab`).
    pub fn symbol_table(&self, index: usize) -> Option<SymbolTable<'a>> {
        let section = self.sections.get(index)?;
        let data = section.data?;
        let size = self.header.class.symbol_size();
        let strtab = section.link as usize;
        let shndx_table = self.shndx_table_for(index);
        let section_count = self.sections.len();
        let endian = self.header.endian;
        // Room for every entry up front: a big link parses tens of thousands
        // of symbols, and growing by doubling would leave up to half unused.
        let mut symbols = Vec::with_capacity(data.len() / size);
        let entries = data.chunks_exact(size).enumerate().filter_map(|(i, bytes)| {
            let (name_offset, value, size, info, other, raw_shndx) = match self.header.class {
                Class::Elf64 => {
                    let s: sym::sym64::Sym = bytes.pread_with(0, endian).ok()?;
                    (s.st_name, s.st_value, s.st_size, s.st_info, s.st_other, s.st_shndx)
                }
                Class::Elf32 => {
                    let s: sym::sym32::Sym = bytes.pread_with(0, endian).ok()?;
                    (s.st_name, u64::from(s.st_value), u64::from(s.st_size), s.st_info, s.st_other, s.st_shndx)
                }
            };
            let entry =
                || shndx_table.and_then(|t| t.get(i * 4..i * 4 + 4)).and_then(|b| b.pread_with::<u32>(0, endian).ok());
            let (shndx, from_table) = match raw_shndx {
                SHN_XINDEX => entry().map_or((u32::from(raw_shndx), false), |e| (e, true)),
                r if r >= SHN_LORESERVE => match entry() {
                    Some(e) if e != 0 && (e as usize) < section_count => (e, true),
                    _ => (u32::from(r), false),
                },
                r => (u32::from(r), false),
            };
            Some(Symbol {
                index: i,
                name_offset,
                name: self.string(strtab, name_offset).unwrap_or(""),
                value,
                size,
                st_type: info & 0xf,
                bind: info >> 4,
                other,
                raw_shndx,
                shndx,
                from_table,
            })
        });
        symbols.extend(entries);
        Some(SymbolTable { section: index, symbols })
    }

    /// The standard symbol table (the first `SHT_SYMTAB`).
    pub fn symtab(&self) -> Option<SymbolTable<'a>> {
        let index = self.sections.iter().position(|s| s.sh_type == SHT_SYMTAB)?;
        self.symbol_table(index)
    }

    /// The `SHT_SYMTAB_SHNDX` section whose `sh_link` names symbol table `symtab`.
    fn shndx_table_for(&self, symtab: usize) -> Option<&'a [u8]> {
        self.sections.iter().find(|s| s.sh_type == SHT_SYMTAB_SHNDX && s.link as usize == symtab).and_then(|s| s.data)
    }

    /// Every relocation section: `SHT_REL`, `SHT_RELA` and the Mercury RELA type.
    pub fn relocation_sections(&self) -> impl Iterator<Item = RelocationSection<'a>> + '_ {
        self.sections.iter().filter_map(|s| self.relocation_view(s))
    }

    /// Section `index` as a relocation section, if it is one.
    pub fn relocation_section(&self, index: usize) -> Option<RelocationSection<'a>> {
        self.sections.get(index).and_then(|s| self.relocation_view(s))
    }

    fn relocation_view(&self, s: &Section<'a>) -> Option<RelocationSection<'a>> {
        sec::is_relocation_type(s.sh_type).then(|| RelocationSection {
            section: s.index,
            target: s.info,
            symtab: s.link,
            rela: is_rela_type(s.sh_type),
            class: self.header.class,
            endian: self.header.endian,
            data: s.data.unwrap_or(&[]),
        })
    }

    /// The notes of a `SHT_NOTE` section, stopping at the first one that does not
    /// fit (validation reports it).
    pub fn notes(&self, section: &Section<'a>) -> Vec<Note<'a>> {
        let mut notes = Vec::new();
        let Some(data) = section.data else { return notes };
        let mut pos = 0usize;
        while let Some((note, next)) = read_note(data, pos, self.header.endian, section.offset) {
            notes.push(note);
            if next <= pos {
                break;
            }
            pos = next;
        }
        notes
    }
}

/// Reads one note at `pos`, returning it and the position of the next one.
/// Names and descriptors are padded to 4 bytes, as in every cubin and zebin seen.
pub(crate) fn read_note(data: &[u8], pos: usize, endian: Endian, base: u64) -> Option<(Note<'_>, usize)> {
    let namesz = data.pread_with::<u32>(pos, endian).ok()? as usize;
    let descsz = data.pread_with::<u32>(pos + 4, endian).ok()? as usize;
    let n_type = data.pread_with::<u32>(pos + 8, endian).ok()?;
    let name_start = pos.checked_add(12)?;
    let name = data.get(name_start..name_start.checked_add(namesz)?)?;
    let desc_start = name_start.checked_add(align4(namesz)?)?;
    let desc = data.get(desc_start..desc_start.checked_add(descsz)?)?;
    let next = desc_start.checked_add(align4(descsz)?)?;
    let name = name.strip_suffix(&[0]).unwrap_or(name);
    Some((Note { offset: base + pos as u64, name, n_type, desc }, next))
}

fn align4(n: usize) -> Option<usize> {
    n.checked_add(3).map(|v| v & !3)
}

/// A NUL-terminated string at `offset` in a string table.
pub fn string_at(table: &[u8], offset: u32) -> Option<&str> {
    let tail = table.get(offset as usize..)?;
    let end = tail.iter().position(|&b| b == 0)?;
    core::str::from_utf8(&tail[..end]).ok()
}

fn read_header(data: &[u8]) -> Result<Header, Diagnostic> {
    if data.len() < IDENT_SIZE || &data[..4] != b"\x7fELF" {
        let what =
            if data.len() < 4 { "shorter than an ELF magic number" } else { "not an ELF file (no \\x7fELF magic)" };
        return Err(Diagnostic::new(codes::NOT_ELF, format!("{} bytes: {what}", data.len())).at(0));
    }
    let class = match data[4] {
        1 => Class::Elf32,
        2 => Class::Elf64,
        other => {
            return Err(Diagnostic::new(
                codes::BAD_CLASS,
                format!("EI_CLASS is {other}; expected 1 (ELF32) or 2 (ELF64)"),
            )
            .at(4));
        }
    };
    let endian = match data[5] {
        1 => Endian::Little,
        2 => Endian::Big,
        other => {
            return Err(Diagnostic::new(
                codes::BAD_DATA_ENCODING,
                format!("EI_DATA is {other}; expected 1 (little-endian) or 2 (big-endian)"),
            )
            .at(5));
        }
    };
    let size = class.header_size();
    if data.len() < size {
        return Err(Diagnostic::new(
            codes::TRUNCATED_HEADER,
            format!("file is {} bytes, shorter than the {size}-byte {} header", data.len(), class.name()),
        )
        .at(0));
    }
    // Field offsets after e_ident differ only in the width of entry/phoff/shoff.
    let rd16 = |o: usize| data.pread_with::<u16>(o, endian).unwrap_or(0);
    let rd32 = |o: usize| data.pread_with::<u32>(o, endian).unwrap_or(0);
    let rd64 = |o: usize| data.pread_with::<u64>(o, endian).unwrap_or(0);
    let (entry, phoff, shoff, rest) = match class {
        Class::Elf64 => (rd64(24), rd64(32), rd64(40), 48),
        Class::Elf32 => (u64::from(rd32(24)), u64::from(rd32(28)), u64::from(rd32(32)), 36),
    };
    let mut header = Header {
        class,
        endian,
        osabi: data[7],
        abi_version: data[8],
        e_type: rd16(16),
        machine: rd16(18),
        version: rd32(20),
        entry,
        phoff,
        shoff,
        flags: rd32(rest),
        ehsize: rd16(rest + 4),
        phentsize: rd16(rest + 6),
        phnum: u64::from(rd16(rest + 8)),
        shentsize: rd16(rest + 10),
        shnum: u64::from(rd16(rest + 12)),
        shstrndx: u32::from(rd16(rest + 14)),
    };
    // Extended numbering: the real counts live in section 0.
    if header.shoff != 0 && (header.shnum == 0 || header.shstrndx == u32::from(SHN_XINDEX)) {
        if let Some(zero) = read_section_header(data, &header, 0) {
            if header.shnum == 0 {
                header.shnum = zero.3;
            }
            if header.shstrndx == u32::from(SHN_XINDEX) {
                header.shstrndx = zero.4;
            }
        }
    }
    Ok(header)
}

/// (type, flags, offset, size, link) of section `index` — enough for the escapes.
fn read_section_header(data: &[u8], header: &Header, index: u64) -> Option<(u32, u64, u64, u64, u32)> {
    let at = header.shoff.checked_add(index.checked_mul(u64::from(header.shentsize))?)?;
    let at = usize::try_from(at).ok()?;
    let s = read_raw_section(data, header, at)?;
    Some((s.sh_type, s.sh_flags, s.sh_offset, s.sh_size, s.sh_link))
}

fn read_raw_section(
    data: &[u8],
    header: &Header,
    at: usize,
) -> Option<section_header::section_header64::SectionHeader> {
    match header.class {
        Class::Elf64 => data.pread_with(at, header.endian).ok(),
        Class::Elf32 => {
            let s: section_header::section_header32::SectionHeader = data.pread_with(at, header.endian).ok()?;
            Some(section_header::section_header64::SectionHeader {
                sh_name: s.sh_name,
                sh_type: s.sh_type,
                sh_flags: u64::from(s.sh_flags),
                sh_addr: u64::from(s.sh_addr),
                sh_offset: u64::from(s.sh_offset),
                sh_size: u64::from(s.sh_size),
                sh_link: s.sh_link,
                sh_info: s.sh_info,
                sh_addralign: u64::from(s.sh_addralign),
                sh_entsize: u64::from(s.sh_entsize),
            })
        }
    }
}

/// The byte range `[offset, offset + size)` if it lies inside a file of `len` bytes.
pub fn range_in_file(offset: u64, size: u64, len: usize) -> Option<core::ops::Range<usize>> {
    let end = offset.checked_add(size)?;
    if end > len as u64 {
        return None;
    }
    Some(offset as usize..end as usize)
}

/// The section header table's size and place: what [`ElfFile::parse`] fails on.
fn check_section_table(data: &[u8], header: &Header) -> Result<(), Diagnostic> {
    if header.shoff == 0 || header.shnum == 0 {
        return Ok(());
    }
    let entsize = u64::from(header.shentsize);
    if (header.shentsize as usize) < header.class.section_header_size() {
        return Err(Diagnostic::new(
            codes::BAD_SECTION_HEADER_SIZE,
            format!(
                "e_shentsize is {}; a {} section header is {} bytes",
                header.shentsize,
                header.class.name(),
                header.class.section_header_size()
            ),
        )
        .at(if header.class == Class::Elf64 { 58 } else { 46 }));
    }
    let table = header.shnum.checked_mul(entsize);
    if table.and_then(|t| range_in_file(header.shoff, t, data.len())).is_none() {
        return Err(Diagnostic::new(
            codes::SECTION_TABLE_OUT_OF_BOUNDS,
            format!(
                "section header table ({} entries of {} bytes at {:#x}) runs past the end of the {}-byte file",
                header.shnum,
                entsize,
                header.shoff,
                data.len()
            ),
        )
        .at(header.shoff));
    }
    Ok(())
}

/// The section headers, with names; the table was checked
/// ([`check_section_table`]).
fn read_sections<'a>(data: &'a [u8], header: &Header) -> Vec<Section<'a>> {
    if header.shoff == 0 || header.shnum == 0 {
        return Vec::new();
    }
    let entsize = u64::from(header.shentsize);
    // The table lies inside the file, so shnum <= len / entsize: bounded.
    let mut sections = Vec::with_capacity(header.shnum as usize);
    for index in 0..header.shnum {
        let at = (header.shoff + index * entsize) as usize;
        let Some(s) = read_raw_section(data, header, at) else { break };
        let bytes = if sec::occupies_file(s.sh_type) {
            range_in_file(s.sh_offset, s.sh_size, data.len()).map(|r| &data[r])
        } else {
            None
        };
        sections.push(Section {
            index: index as usize,
            name_offset: s.sh_name,
            name: "",
            sh_type: s.sh_type,
            flags: s.sh_flags,
            addr: s.sh_addr,
            offset: s.sh_offset,
            size: s.sh_size,
            link: s.sh_link,
            info: s.sh_info,
            addralign: s.sh_addralign,
            entsize: s.sh_entsize,
            header_offset: at as u64,
            data: bytes,
        });
    }
    // Names come only from a string table: an `e_shstrndx` naming another
    // section (a code section, whose bytes a linker may not hold) names
    // nothing, so every reader of the file sees the same names.
    let names = sections.get(header.shstrndx as usize).filter(|s| s.sh_type == sec::SHT_STRTAB).and_then(|s| s.data);
    if let Some(names) = names {
        for section in &mut sections {
            section.name = string_at(names, section.name_offset).unwrap_or("");
        }
    }
    sections
}

fn read_segments(data: &[u8], header: &Header) -> Vec<Segment> {
    let size = header.class.program_header_size();
    if header.phoff == 0 || header.phnum == 0 || (header.phentsize as usize) < size {
        return Vec::new();
    }
    let entsize = u64::from(header.phentsize);
    let in_file = header.phnum.checked_mul(entsize).and_then(|t| range_in_file(header.phoff, t, data.len())).is_some();
    if !in_file {
        return Vec::new();
    }
    (0..header.phnum)
        .filter_map(|index| {
            let at = (header.phoff + index * entsize) as usize;
            let p = match header.class {
                Class::Elf64 => {
                    data.pread_with::<program_header::program_header64::ProgramHeader>(at, header.endian).ok()?
                }
                Class::Elf32 => {
                    let p: program_header::program_header32::ProgramHeader = data.pread_with(at, header.endian).ok()?;
                    program_header::program_header64::ProgramHeader {
                        p_type: p.p_type,
                        p_flags: p.p_flags,
                        p_offset: u64::from(p.p_offset),
                        p_vaddr: u64::from(p.p_vaddr),
                        p_paddr: u64::from(p.p_paddr),
                        p_filesz: u64::from(p.p_filesz),
                        p_memsz: u64::from(p.p_memsz),
                        p_align: u64::from(p.p_align),
                    }
                }
            };
            Some(Segment {
                index: index as usize,
                p_type: p.p_type,
                flags: p.p_flags,
                offset: p.p_offset,
                vaddr: p.p_vaddr,
                paddr: p.p_paddr,
                filesz: p.p_filesz,
                memsz: p.p_memsz,
                align: p.p_align,
            })
        })
        .collect()
}

/// `SHT_RELA` and the Mercury RELA type use RELA records; `SHT_REL` uses REL.
pub fn is_rela_type(sh_type: u32) -> bool {
    sh_type == SHT_RELA || sh_type == sec::SHT_CUDA_MERCURY_RELA
}
