//! Layered validation of cubins: structure → references → semantics → target →
//! metadata. A layer runs only if the layers before it found no error, because
//! its checks read through the fields those layers vouch for.

use crate::codes::*;
use crate::cubin::{CuInfo, Cubin};
use crate::diag::{Diagnostic, Diagnostics};
use crate::elf::{Class, ElfFile, Section, is_rela_type, range_in_file};
use develf_format::header::{ABI_VERSION_7, ABI_VERSION_8, ELFOSABI_CUDA, ELFOSABI_CUDA_V2, EM_CUDA, FILE_TYPES};
use develf_format::note::NT_CUDA_CUINFO;
use develf_format::nvinfo::RecordError;
use develf_format::section::{self as sec, SHT_NOTE, SHT_STRTAB, SHT_SYMTAB, SHT_SYMTAB_SHNDX};
use develf_format::symbol::{STO_CUDA_ENTRY, STT_FUNC, STT_SECTION};
use develf_format::{reloc, table};

/// Runs every layer on a cubin.
pub fn validate_cubin(cubin: &Cubin<'_>) -> Diagnostics {
    let mut out = Diagnostics::default();
    let elf = cubin.elf();
    structure(elf, &mut out);
    if out.has_errors() {
        return out;
    }
    references(elf, &mut out);
    if out.has_errors() {
        return out;
    }
    semantics(cubin, &mut out);
    target(cubin, &mut out);
    metadata(cubin, &mut out);
    out
}

/// Layer (a): sizes and ranges. Shared with the zebin reader.
pub fn structure(elf: &ElfFile<'_>, out: &mut Diagnostics) {
    let h = &elf.header;
    let len = elf.data.len();
    if usize::from(h.ehsize) != h.class.header_size() {
        out.push(
            Diagnostic::new(
                BAD_HEADER_SIZE,
                format!("e_ehsize is {}; an {} header is {} bytes", h.ehsize, h.class.name(), h.class.header_size()),
            )
            .at(if h.class == Class::Elf64 { 52 } else { 40 }),
        );
    }
    if h.phnum != 0 {
        if usize::from(h.phentsize) != h.class.program_header_size() {
            out.push(Diagnostic::new(
                BAD_PROGRAM_HEADER_SIZE,
                format!(
                    "e_phentsize is {}; an {} program header is {} bytes",
                    h.phentsize,
                    h.class.name(),
                    h.class.program_header_size()
                ),
            ));
        } else if h.phnum.checked_mul(u64::from(h.phentsize)).and_then(|t| range_in_file(h.phoff, t, len)).is_none() {
            out.push(
                Diagnostic::new(
                    PROGRAM_TABLE_OUT_OF_BOUNDS,
                    format!(
                        "program header table ({} entries at {:#x}) runs past the end of the {len}-byte file",
                        h.phnum, h.phoff
                    ),
                )
                .at(h.phoff),
            );
        }
    }
    if h.shnum != 0 && usize::from(h.shentsize) != h.class.section_header_size() {
        out.push(Diagnostic::new(
            BAD_SECTION_HEADER_SIZE,
            format!(
                "e_shentsize is {}; an {} section header is {} bytes",
                h.shentsize,
                h.class.name(),
                h.class.section_header_size()
            ),
        ));
    }
    for s in &elf.sections {
        if s.index == 0 {
            continue;
        }
        let label = || s.label();
        if sec::occupies_file(s.sh_type) && s.data.is_none() {
            out.push(
                Diagnostic::new(
                    SECTION_OUT_OF_BOUNDS,
                    format!(
                        "section bytes [{:#x}, {:#x}+{:#x}) run past the end of the {len}-byte file",
                        s.offset, s.offset, s.size
                    ),
                )
                .at(s.header_offset)
                .in_section(label()),
            );
        }
        // nvlink 13.5 itself writes a kernel's shared window aligned to a
        // relinked `-r` output's extern instance, which need not be a power
        // of two (docs/nvlink-layout.md rule 12.8.1: 0x90; fixture
        // xinst-relink), in executables and, with `.nv_debug.shared`, in
        // `-r -g` outputs (0x30; fixture xkeep-relink-g); such a window is
        // not flagged.
        let shared_type = s.sh_type == sec::SHT_NOBITS || s.sh_type == sec::SHT_CUDA_SHARED;
        let shared_window = shared_type && (s.name.starts_with(".nv.shared.") || s.name == ".nv_debug.shared");
        if s.addralign > 1 && !s.addralign.is_power_of_two() && !shared_window {
            out.push(
                Diagnostic::new(BAD_ALIGNMENT, format!("sh_addralign is {:#x}, not a power of two", s.addralign))
                    .at(s.header_offset)
                    .in_section(label()),
            );
        }
        table_entries(elf, s, out);
        if s.sh_type == SHT_NOTE {
            notes_fit(elf, s, out);
        }
    }
    for p in &elf.segments {
        if p.filesz != 0 && range_in_file(p.offset, p.filesz, len).is_none() {
            out.push(
                Diagnostic::new(
                    SEGMENT_OUT_OF_BOUNDS,
                    format!(
                        "segment {} ({:#x} bytes at {:#x}) runs past the end of the {len}-byte file",
                        p.index, p.filesz, p.offset
                    ),
                )
                .at(p.offset),
            );
        }
    }
}

/// The record size a table section must have, if it is a table.
fn record_size(class: Class, sh_type: u32) -> Option<usize> {
    match sh_type {
        SHT_SYMTAB | sec::SHT_CUDA_MERCURY_SYMTAB => Some(class.symbol_size()),
        sec::SHT_REL | sec::SHT_RELA | sec::SHT_CUDA_MERCURY_RELA => Some(class.relocation_size(is_rela_type(sh_type))),
        SHT_SYMTAB_SHNDX => Some(4),
        _ => None,
    }
}

fn table_entries(elf: &ElfFile<'_>, s: &Section<'_>, out: &mut Diagnostics) {
    let Some(size) = record_size(elf.header.class, s.sh_type) else { return };
    // SYMTAB_SHNDX may leave sh_entsize 0 (ptxas and nvlink write 0 or 4).
    let entsize_ok = s.entsize == size as u64 || (s.sh_type == SHT_SYMTAB_SHNDX && s.entsize == 0);
    if !entsize_ok {
        out.push(
            Diagnostic::new(
                BAD_ENTRY_SIZE,
                format!("sh_entsize is {}; records of this type are {size} bytes", s.entsize),
            )
            .at(s.header_offset)
            .in_section(s.label()),
        );
    }
    if s.size % size as u64 != 0 {
        out.push(
            Diagnostic::new(PARTIAL_ENTRY, format!("size {:#x} is not a multiple of the {size}-byte record", s.size))
                .at(s.header_offset)
                .in_section(s.label()),
        );
    }
}

fn notes_fit(elf: &ElfFile<'_>, s: &Section<'_>, out: &mut Diagnostics) {
    let Some(data) = s.data else { return };
    let mut pos = 0;
    while pos < data.len() {
        match crate::elf::read_note(data, pos, elf.header.endian, s.offset) {
            Some((_, next)) if next > pos => pos = next,
            _ => {
                out.push(
                    Diagnostic::new(
                        BAD_NOTE,
                        format!(
                            "the note at offset {pos:#x} of the section runs past its end ({:#x} bytes)",
                            data.len()
                        ),
                    )
                    .at(s.offset + pos as u64)
                    .in_section(s.label()),
                );
                return;
            }
        }
    }
}

/// Layer (b): every index and string offset points somewhere real.
pub fn references(elf: &ElfFile<'_>, out: &mut Diagnostics) {
    let n = elf.sections.len();
    let h = &elf.header;
    if n != 0 {
        match elf.sections.get(h.shstrndx as usize) {
            Some(s) if s.sh_type == SHT_STRTAB => {}
            _ => out.push(Diagnostic::new(
                BAD_SHSTRNDX,
                format!("e_shstrndx is {}, which is not a string table among the {n} sections", h.shstrndx),
            )),
        }
    }
    for s in &elf.sections {
        if s.sh_type == SHT_STRTAB && s.data.is_some_and(|d| d.last().is_some_and(|&b| b != 0)) {
            out.push(
                Diagnostic::new(UNTERMINATED_STRTAB, "string table does not end with NUL")
                    .at(s.offset)
                    .in_section(s.label()),
            );
        }
    }
    let names = elf.sections.get(h.shstrndx as usize).and_then(|s| s.data);
    for s in elf.sections.iter().skip(1) {
        if names.is_some() && s.name.is_empty() && s.name_offset != 0 {
            out.push(
                Diagnostic::new(
                    BAD_SECTION_NAME,
                    format!("sh_name {:#x} does not point at a NUL-terminated UTF-8 name", s.name_offset),
                )
                .at(s.header_offset)
                .in_section(s.label()),
            );
        }
        let link_target = elf.sections.get(s.link as usize);
        let link_bad = |wanted: &[u32]| link_target.is_none_or(|t| !wanted.contains(&t.sh_type));
        let symtab_types = [SHT_SYMTAB, sec::SHT_CUDA_MERCURY_SYMTAB];
        let bad_link = match s.sh_type {
            SHT_SYMTAB | sec::SHT_CUDA_MERCURY_SYMTAB => link_bad(&[SHT_STRTAB]).then_some("a string table"),
            sec::SHT_REL | sec::SHT_RELA | sec::SHT_CUDA_MERCURY_RELA | SHT_SYMTAB_SHNDX => {
                link_bad(&symtab_types).then_some("a symbol table")
            }
            sec::SHT_CUDA_INFO | sec::SHT_CUDA_CALLGRAPH | sec::SHT_CUDA_PROTOTYPE => {
                // ptxas writes sh_link 0 for an .nv.info without symbols.
                (s.link != 0 && link_bad(&symtab_types)).then_some("a symbol table")
            }
            _ => None,
        };
        if let Some(wanted) = bad_link {
            out.push(
                Diagnostic::new(BAD_LINK, format!("sh_link is {}; it must name {wanted}", s.link))
                    .at(s.header_offset)
                    .in_section(s.label()),
            );
        }
        if sec::is_relocation_type(s.sh_type) && (s.info as usize >= n || s.info == 0) {
            out.push(
                Diagnostic::new(BAD_INFO, format!("sh_info is {}; it must name the section patched (1..{n})", s.info))
                    .at(s.header_offset)
                    .in_section(s.label()),
            );
        }
    }
    symbol_references(elf, out);
    relocation_references(elf, out);
}

fn symbol_references(elf: &ElfFile<'_>, out: &mut Diagnostics) {
    let n = elf.sections.len();
    let symtabs = elf.sections.iter().filter(|s| matches!(s.sh_type, SHT_SYMTAB | sec::SHT_CUDA_MERCURY_SYMTAB));
    for table_section in symtabs {
        let Some(table) = elf.symbol_table(table_section.index) else { continue };
        let strtab = elf.sections.get(table_section.link as usize).and_then(|s| s.data).unwrap_or(&[]);
        let size = elf.header.class.symbol_size() as u64;
        for sym in &table.symbols {
            let at = table_section.offset + sym.index as u64 * size;
            if sym.name.is_empty() && sym.name_offset != 0 {
                let why = if sym.name_offset as usize >= strtab.len() {
                    "is outside the string table"
                } else {
                    "is not a NUL-terminated UTF-8 name"
                };
                out.push(
                    Diagnostic::new(
                        BAD_SYMBOL_NAME,
                        format!("symbol {} st_name {:#x} {why}", sym.index, sym.name_offset),
                    )
                    .at(at)
                    .in_section(table_section.label()),
                );
            }
            if let Some(index) = sym.section_index() {
                if index >= n {
                    out.push(
                        Diagnostic::new(
                            BAD_SYMBOL_SECTION,
                            format!("st_shndx {index} names no section (there are {n})"),
                        )
                        .at(at)
                        .in_section(table_section.label())
                        .for_symbol(symbol_label(sym)),
                    );
                }
            }
        }
    }
}

fn symbol_label(sym: &crate::elf::Symbol<'_>) -> String {
    if sym.name.is_empty() { format!("#{}", sym.index) } else { sym.name.to_string() }
}

fn relocation_references(elf: &ElfFile<'_>, out: &mut Diagnostics) {
    for rs in elf.relocation_sections() {
        let section = &elf.sections[rs.section];
        let symbols =
            elf.sections.get(rs.symtab as usize).map(|s| s.size / elf.header.class.symbol_size() as u64).unwrap_or(0);
        // Mercury relocations patch the expanded capsule (`.nv.capmerc.*` holds it
        // compressed), so their offsets may exceed the stored section: ptxas 13.5
        // writes offset 0x9c against an 0x86-byte `.nv.capmerc.text.*`.
        let target = elf.sections.get(rs.target as usize).filter(|t| t.sh_type != sec::SHT_CUDA_CAPMERC);
        for r in rs.entries() {
            let at = section.offset + (r.index * rs.entry_size()) as u64;
            if u64::from(r.symbol) >= symbols {
                out.push(
                    Diagnostic::new(
                        BAD_RELOCATION_SYMBOL,
                        format!("relocation {} uses symbol {} of a table with {symbols}", r.index, r.symbol),
                    )
                    .at(at)
                    .in_section(section.label()),
                );
            }
            if let Some(t) = target {
                if r.offset >= t.size {
                    out.push(
                        Diagnostic::new(
                            RELOCATION_OUT_OF_SECTION,
                            format!(
                                "relocation {} patches offset {:#x}, past the {:#x}-byte section {}",
                                r.index,
                                r.offset,
                                t.size,
                                t.label()
                            ),
                        )
                        .at(at)
                        .in_section(section.label()),
                    );
                }
            }
        }
    }
}

/// Layer (c): the fields mean something a CUDA tool would write.
fn semantics(cubin: &Cubin<'_>, out: &mut Diagnostics) {
    let h = cubin.header();
    if h.machine != EM_CUDA {
        out.push(Diagnostic::new(BAD_MACHINE, format!("e_machine is {}; a cubin has EM_CUDA (190)", h.machine)).at(18));
    }
    let layout_of_osabi = match h.osabi {
        ELFOSABI_CUDA => Some(ABI_VERSION_7),
        ELFOSABI_CUDA_V2 => Some(ABI_VERSION_8),
        _ => None,
    };
    if layout_of_osabi.is_none() {
        out.push(
            Diagnostic::new(
                UNKNOWN_OSABI,
                format!("EI_OSABI is {:#x}; the CUDA tools write 0x33 (ABI 7) or 0x41 (ABI 8)", h.osabi),
            )
            .at(7),
        );
    }
    if h.abi_version != ABI_VERSION_7 && h.abi_version != ABI_VERSION_8 {
        out.push(
            Diagnostic::new(
                UNKNOWN_ABI_VERSION,
                format!("EI_ABIVERSION is {}; known layouts are 7 and 8", h.abi_version),
            )
            .at(8),
        );
    } else if layout_of_osabi.is_some_and(|v| v != h.abi_version) {
        out.push(
            Diagnostic::new(
                OSABI_ABI_MISMATCH,
                format!(
                    "EI_OSABI {:#x} goes with ABI version {}, but EI_ABIVERSION is {}",
                    h.osabi,
                    layout_of_osabi.unwrap_or(0),
                    h.abi_version
                ),
            )
            .at(7),
        );
    }
    if table::lookup(FILE_TYPES, h.e_type).is_none() {
        out.push(
            Diagnostic::new(
                UNKNOWN_FILE_TYPE,
                format!("e_type is {:#x}; cubins are ET_REL, ET_EXEC or 0xff00", h.e_type),
            )
            .at(16),
        );
    }
    for s in cubin.sections().iter().skip(1) {
        if sec::type_name(s.sh_type).is_none() {
            out.push(
                Diagnostic::new(
                    UNKNOWN_SECTION_TYPE,
                    format!("section type {:#x} is not one the CUDA tools write", s.sh_type),
                )
                .at(s.header_offset)
                .in_section(s.label()),
            );
        }
    }
    if cubin.sections().len() > 1 && cubin.symtab().is_none() {
        out.push(Diagnostic::new(NO_SYMTAB, "the file has sections but no .symtab"));
    }
    symbol_semantics(cubin, out);
    for rs in cubin.relocation_sections() {
        let section = &cubin.sections()[rs.section];
        for r in rs.entries() {
            if reloc::type_name(r.r_type).is_none() {
                out.push(
                    Diagnostic::new(
                        UNKNOWN_RELOCATION_TYPE,
                        format!("relocation {} has type {:#x}, not an R_CUDA or R_MERCURY type", r.index, r.r_type),
                    )
                    .at(section.offset + (r.index * rs.entry_size()) as u64)
                    .in_section(section.label()),
                );
            }
        }
    }
}

fn symbol_semantics(cubin: &Cubin<'_>, out: &mut Diagnostics) {
    let Some(table) = cubin.symtab() else { return };
    let table_section = &cubin.sections()[table.section];
    // No local-after-global check: ptxas 12.9 and 13.5 put the section symbols of
    // `.nv.constant0.*` after the globals, so `.symtab`'s sh_info is not the gABI's
    // "first non-local" in real cubins (code E0309 stays reserved).
    let size = cubin.header().class.symbol_size() as u64;
    for sym in &table.symbols {
        let at = table_section.offset + sym.index as u64 * size;
        let diag = |code, message: String| {
            Diagnostic::new(code, message).at(at).in_section(table_section.label()).for_symbol(symbol_label(sym))
        };
        if sym.other & STO_CUDA_ENTRY != 0 && sym.st_type != STT_FUNC {
            out.push(diag(
                BAD_SYMBOL_KIND,
                "st_other marks an entry (kernel) but the symbol is not STT_FUNC".to_string(),
            ));
        }
        let Some(section) = sym.section_index().and_then(|i| cubin.sections().get(i)) else { continue };
        if sym.st_type == STT_SECTION {
            continue;
        }
        if sym.st_type == STT_FUNC && section.flags & sec::SHF_EXECINSTR == 0 {
            out.push(diag(
                BAD_SYMBOL_KIND,
                format!("function defined in {}, which is not executable", section.label()),
            ));
        }
        // Only sections with file bytes: ptxas places shared-memory variables past
        // the size of their `.nv.shared.*` section (e.g. [0x4, +0x200) in 0x200
        // bytes) and leaves the layout of those memory spaces to the linker.
        let end = sym.value.checked_add(sym.size);
        if sec::occupies_file(section.sh_type) && end.is_none_or(|e| e > section.size) {
            out.push(diag(
                SYMBOL_OUTSIDE_SECTION,
                format!(
                    "symbol [{:#x}, +{:#x}) runs past the {:#x}-byte section {}",
                    sym.value,
                    sym.size,
                    section.size,
                    section.label()
                ),
            ));
        }
    }
}

/// SM numbers NVIDIA has shipped hardware or targets for.
const KNOWN_SMS: &[u8] = &[
    10, 11, 12, 13, 20, 21, 30, 32, 35, 37, 50, 52, 53, 60, 61, 62, 70, 72, 75, 80, 86, 87, 88, 89, 90, 100, 101, 103,
    107, 110, 120, 121,
];

/// Layer (d): the architecture is stated consistently.
fn target(cubin: &Cubin<'_>, out: &mut Diagnostics) {
    let h = cubin.header();
    let flags = cubin.flags();
    if flags.sm != 0 && !KNOWN_SMS.contains(&flags.sm) {
        out.push(
            Diagnostic::new(UNKNOWN_SM, format!("e_flags names sm_{}, which is not a known architecture", flags.sm))
                .at(h_flags_offset(h.class)),
        );
    }
    if flags.virtual_sm > flags.sm && flags.sm != 0 {
        out.push(
            Diagnostic::new(
                VIRTUAL_ABOVE_REAL,
                format!("e_flags: virtual sm_{} is newer than real sm_{}", flags.virtual_sm, flags.sm),
            )
            .at(h_flags_offset(h.class)),
        );
    }
    let cuinfo = cubin
        .notes()
        .find(|(_, n)| n.n_type == NT_CUDA_CUINFO)
        .map(|(s, n)| (s.index, n.offset, CuInfo::decode(n.desc)));
    if let Some((index, offset, info)) = cuinfo {
        match info {
            None => out.push(
                Diagnostic::new(BAD_CUINFO, format!("the cuinfo note is not {} bytes", CuInfo::SIZE))
                    .at(offset)
                    .in_section(cubin.section_label(index)),
            ),
            Some(info) => {
                if flags.sm != 0 && u32::from(info.virtual_sm) > u32::from(flags.sm) {
                    out.push(
                        Diagnostic::new(
                            ARCH_MISMATCH,
                            format!(".note.nv.cuinfo says virtual sm_{} but e_flags says sm_{}: code cannot target an older SM than it was built for", info.virtual_sm, flags.sm),
                        )
                        .at(offset)
                        .in_section(cubin.section_label(index)),
                    );
                }
                if h.abi_version == ABI_VERSION_7
                    && flags.virtual_sm != 0
                    && u16::from(flags.virtual_sm) != info.virtual_sm
                {
                    out.push(
                        Diagnostic::new(
                            ARCH_MISMATCH,
                            format!(
                                "e_flags says virtual sm_{} but .note.nv.cuinfo says sm_{}",
                                flags.virtual_sm, info.virtual_sm
                            ),
                        )
                        .at(offset)
                        .in_section(cubin.section_label(index)),
                    );
                }
            }
        }
        if h.abi_version == ABI_VERSION_8 && usize::from(flags.cuinfo_section) != index {
            out.push(
                Diagnostic::new(
                    CUINFO_INDEX_MISMATCH,
                    format!("e_flags' top byte is {} but .note.nv.cuinfo is section {index}", flags.cuinfo_section),
                )
                .at(h_flags_offset(h.class)),
            );
        }
    }
    if h.abi_version == ABI_VERSION_7 && flags.accelerator {
        let compat = cubin.compat_value(develf_format::nvinfo::EICOMPAT_ATTR_CUDA_ACCELERATOR_TARGET);
        if compat == Some(0) {
            out.push(
                Diagnostic::new(ARCH_MISMATCH, "e_flags marks an 'a' target but .nv.compat says it is not one")
                    .at(h_flags_offset(h.class)),
            );
        }
    }
}

fn h_flags_offset(class: Class) -> u64 {
    if class == Class::Elf64 { 48 } else { 36 }
}

/// Layer (e): metadata records can be walked to the end of their sections.
fn metadata(cubin: &Cubin<'_>, out: &mut Diagnostics) {
    for rs in cubin.record_sections() {
        let s = rs.section;
        for record in rs.records() {
            if let Err(e) = record {
                let d = match e {
                    RecordError::Truncated { offset, needed, available } => Diagnostic::new(
                        RECORD_PAST_SECTION,
                        format!("the record at section offset {offset:#x} needs {needed} bytes but {available} remain"),
                    )
                    .at(s.offset + offset as u64),
                    RecordError::UnknownFormat { offset, format } => Diagnostic::new(
                        UNKNOWN_RECORD_FORMAT,
                        format!("the record at section offset {offset:#x} has format {format}; EIFMT values are 1..4"),
                    )
                    .at(s.offset + offset as u64),
                };
                out.push(d.in_section(s.label()));
            }
        }
    }
}
