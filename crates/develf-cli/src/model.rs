//! The dump model: everything `develf dump` shows about a cubin, as plain data.
//!
//! Text and JSON are two renderings of this one model, so they never disagree.
//! The JSON keys are a stable interface (see the README).

use develf_eiattr::display::{self, ResolvedFields, SymbolLookup};
use develf_eiattr::{Metadata, NoteDesc, SectionKind};
use develf_format::header::{FILE_TYPES, OSABIS};
use develf_format::nvinfo::{self, Format};
use develf_format::{note, reloc, section, symbol, table};
use develf_parse::Cubin;
use develf_parse::elf::{Section, Symbol, SymbolTable};
use serde::Serialize;

#[derive(Debug, Serialize)]
pub struct CubinDump {
    pub header: HeaderDump,
    pub sections: Vec<SectionDump>,
    pub segments: Vec<SegmentDump>,
    pub symbols: Vec<SymbolDump>,
    #[serde(skip_serializing_if = "Vec::is_empty")]
    pub mercury_symbols: Vec<SymbolDump>,
    pub relocations: Vec<RelocationDump>,
    /// `.nv.info*` and `.nv.compat` (and their `.nv.merc.*` twins), record by record.
    pub nvinfo: Vec<RecordSectionDump>,
    /// `.nv.compat` alone, the same records as in `nvinfo`.
    pub compat: Vec<RecordSectionDump>,
    pub notes: Vec<NoteDump>,
    /// `.nv.callgraph` (and `.nv.merc.nv.callgraph`).
    pub callgraph: Vec<EntriesDump>,
    /// `.nv.prototype` (and `.nv.merc.nv.prototype`).
    pub prototypes: Vec<EntriesDump>,
    /// `.nv.rel.action`, `.nv.uft.entry` and sections kept raw.
    pub other_metadata: Vec<EntriesDump>,
}

/// A metadata section as a list of entries, each a kind and named fields.
#[derive(Debug, Serialize)]
pub struct EntriesDump {
    pub section: String,
    pub entries: Vec<EntryDump>,
    /// Why the section was kept as bytes, if it was.
    #[serde(skip_serializing_if = "Option::is_none")]
    pub raw_reason: Option<String>,
}

#[derive(Debug, Serialize)]
pub struct EntryDump {
    pub kind: &'static str,
    pub fields: ResolvedFields,
    /// The same fields as `key=value` text.
    pub text: String,
}

#[derive(Debug, Serialize)]
pub struct HeaderDump {
    pub class: &'static str,
    pub data: &'static str,
    pub osabi: u8,
    pub osabi_name: Option<&'static str>,
    pub abi_version: u8,
    #[serde(rename = "type")]
    pub e_type: u16,
    pub type_name: Option<&'static str>,
    pub machine: u16,
    pub flags: u32,
    pub flags_decoded: FlagsDump,
    /// The target, e.g. `sm_90a`.
    pub arch: Option<String>,
    pub entry: u64,
    pub section_count: u64,
    pub segment_count: u64,
    pub shstrndx: u32,
}

#[derive(Debug, Serialize)]
pub struct FlagsDump {
    pub sm: u8,
    pub virtual_sm: u8,
    pub accelerator: bool,
    pub kind: u8,
    pub cuinfo_section: u8,
    pub address_64: bool,
    pub texmode_unified: bool,
    pub texmode_independent: bool,
    pub unknown_bits: u32,
}

#[derive(Debug, Serialize)]
pub struct SectionDump {
    pub index: usize,
    pub name: String,
    #[serde(rename = "type")]
    pub sh_type: u32,
    /// The type's name as cuobjdump prints it, where it names it (`CUDA_INFO`),
    /// else develf's name for it.
    pub type_name: Option<&'static str>,
    pub flags: u64,
    pub flag_names: Vec<String>,
    pub addr: u64,
    pub offset: u64,
    pub size: u64,
    pub link: u32,
    pub info: u32,
    pub align: u64,
    pub entsize: u64,
}

#[derive(Debug, Serialize)]
pub struct SegmentDump {
    pub index: usize,
    #[serde(rename = "type")]
    pub p_type: u32,
    pub type_name: Option<&'static str>,
    pub flags: u32,
    pub offset: u64,
    pub vaddr: u64,
    pub paddr: u64,
    pub filesz: u64,
    pub memsz: u64,
    pub align: u64,
}

#[derive(Debug, Serialize)]
pub struct SymbolDump {
    pub index: usize,
    pub name: String,
    #[serde(skip_serializing_if = "Option::is_none")]
    pub demangled: Option<String>,
    pub value: u64,
    pub size: u64,
    #[serde(rename = "type")]
    pub st_type: u8,
    pub type_name: Option<&'static str>,
    pub bind: &'static str,
    pub visibility: &'static str,
    pub other: u8,
    pub other_names: Vec<&'static str>,
    pub shndx: u32,
    /// The defining section's name, where there is one.
    pub section: Option<String>,
}

#[derive(Debug, Serialize)]
pub struct RelocationDump {
    /// The relocation section's name.
    pub section: String,
    /// The section it patches.
    pub target_section: String,
    pub offset: u64,
    #[serde(rename = "type")]
    pub r_type: u32,
    pub type_name: Option<&'static str>,
    pub symbol_index: u32,
    pub symbol: String,
    #[serde(skip_serializing_if = "Option::is_none")]
    pub demangled: Option<String>,
    pub addend: i64,
}

#[derive(Debug, Serialize)]
pub struct RecordSectionDump {
    pub section: String,
    pub kind: &'static str,
    pub records: Vec<RecordDump>,
    /// Why the walk stopped early, if it did.
    #[serde(skip_serializing_if = "Option::is_none")]
    pub error: Option<String>,
}

#[derive(Debug, Serialize)]
pub struct RecordDump {
    pub offset: usize,
    pub format: u8,
    pub format_name: Option<&'static str>,
    pub attr: u8,
    pub attr_name: Option<&'static str>,
    /// The decoded value, fields named (`{"function": {"index": 8, "name": "_Z1kPi"}, "registers": 24}`).
    pub value: ResolvedFields,
    /// Whether develf knows this attribute's layout (else `value` holds its bytes).
    pub typed: bool,
    /// The value as `key=value` text.
    pub text: String,
    /// SVAL payload as lowercase hex.
    #[serde(skip_serializing_if = "Option::is_none")]
    pub payload: Option<String>,
    /// The whole record (header included) as lowercase hex.
    pub raw: String,
}

#[derive(Debug, Serialize)]
pub struct NoteDump {
    /// The descriptor decoded (cuinfo: version, virtual SM, toolkit; tkinfo: tool,
    /// version, branch, command line).
    pub decoded: ResolvedFields,
    /// The decoded fields as `key=value` text.
    pub text: String,
    pub section: String,
    pub offset: u64,
    pub owner: String,
    #[serde(rename = "type")]
    pub n_type: u32,
    pub type_name: Option<&'static str>,
    pub description: Option<&'static str>,
    pub desc: String,
}

/// Options that change what the model holds.
#[derive(Debug, Clone, Copy, Default)]
pub struct ModelOptions {
    pub demangle: bool,
}

fn demangle(name: &str, options: ModelOptions) -> Option<String> {
    if !options.demangle {
        return None;
    }
    develf_link::demangle(name)
}

pub fn hex(bytes: &[u8]) -> String {
    use std::fmt::Write;
    bytes.iter().fold(String::with_capacity(bytes.len() * 2), |mut s, b| {
        let _ = write!(s, "{b:02x}");
        s
    })
}

/// The dumper's name of a section type: cuobjdump's where it has one.
pub fn section_type_name(sh_type: u32) -> Option<&'static str> {
    section::type_name(sh_type).map(|n| n.trim_start_matches("SHT_"))
}

fn segment_type_name(p_type: u32) -> Option<&'static str> {
    Some(match p_type {
        0 => "NULL",
        1 => "LOAD",
        2 => "DYNAMIC",
        3 => "INTERP",
        4 => "NOTE",
        6 => "PHDR",
        7 => "TLS",
        _ => return None,
    })
}

pub fn build(cubin: &Cubin<'_>, options: ModelOptions) -> CubinDump {
    let h = cubin.header();
    let flags = cubin.flags();
    let header = HeaderDump {
        class: h.class.name(),
        data: if h.endian == scroll::Endian::Little { "little-endian" } else { "big-endian" },
        osabi: h.osabi,
        osabi_name: table::lookup(OSABIS, h.osabi),
        abi_version: h.abi_version,
        e_type: h.e_type,
        type_name: table::lookup(FILE_TYPES, h.e_type),
        machine: h.machine,
        flags: h.flags,
        flags_decoded: FlagsDump {
            sm: flags.sm,
            virtual_sm: flags.virtual_sm,
            accelerator: cubin.is_accelerator_target(),
            kind: flags.kind,
            cuinfo_section: flags.cuinfo_section,
            address_64: flags.address_64,
            texmode_unified: flags.texmode_unified,
            texmode_independent: flags.texmode_independent,
            unknown_bits: flags.unknown_bits,
        },
        arch: cubin.target().map(|a| a.to_string()),
        entry: h.entry,
        section_count: h.shnum,
        segment_count: h.phnum,
        shstrndx: h.shstrndx,
    };
    let sections = cubin.sections().iter().map(section_dump).collect();
    let segments = cubin
        .segments()
        .iter()
        .map(|p| SegmentDump {
            index: p.index,
            p_type: p.p_type,
            type_name: segment_type_name(p.p_type),
            flags: p.flags,
            offset: p.offset,
            vaddr: p.vaddr,
            paddr: p.paddr,
            filesz: p.filesz,
            memsz: p.memsz,
            align: p.align,
        })
        .collect();
    let symbols = cubin.symtab().map(|t| symbol_dumps(cubin, t, options)).unwrap_or_default();
    let mercury_symbols = cubin.mercury_symtab().map(|t| symbol_dumps(cubin, &t, options)).unwrap_or_default();
    CubinDump {
        header,
        sections,
        segments,
        symbols,
        mercury_symbols,
        relocations: relocation_dumps(cubin, options),
        nvinfo: record_dumps(cubin, false),
        compat: record_dumps(cubin, true),
        notes: note_dumps(cubin),
        callgraph: entry_dumps(cubin, |k| k == SectionKind::CallGraph),
        prototypes: entry_dumps(cubin, |k| k == SectionKind::Prototype),
        other_metadata: entry_dumps(cubin, |k| {
            matches!(k, SectionKind::RelAction | SectionKind::Uft | SectionKind::UftEntry)
        }),
    }
}

fn section_dump(s: &Section<'_>) -> SectionDump {
    SectionDump {
        index: s.index,
        name: s.name.to_string(),
        sh_type: s.sh_type,
        type_name: section_type_name(s.sh_type),
        flags: s.flags,
        flag_names: section::flag_names(s.flags),
        addr: s.addr,
        offset: s.offset,
        size: s.size,
        link: s.link,
        info: s.info,
        align: s.addralign,
        entsize: s.entsize,
    }
}

fn symbol_dumps(cubin: &Cubin<'_>, table: &SymbolTable<'_>, options: ModelOptions) -> Vec<SymbolDump> {
    table.symbols.iter().map(|s| symbol_dump(cubin, s, options)).collect()
}

fn symbol_dump(cubin: &Cubin<'_>, s: &Symbol<'_>, options: ModelOptions) -> SymbolDump {
    SymbolDump {
        index: s.index,
        name: s.name.to_string(),
        demangled: demangle(s.name, options),
        value: s.value,
        size: s.size,
        st_type: s.st_type,
        type_name: symbol::type_name(s.st_type),
        bind: symbol::binding_name(s.bind).unwrap_or("UNKNOWN"),
        visibility: symbol::visibility_name(s.other),
        other: s.other,
        other_names: symbol::other_names(s.other),
        shndx: s.shndx,
        section: s.section_index().and_then(|i| cubin.sections().get(i)).map(|sec| sec.name.to_string()),
    }
}

fn relocation_dumps(cubin: &Cubin<'_>, options: ModelOptions) -> Vec<RelocationDump> {
    let mut out = Vec::new();
    for rs in cubin.relocation_sections() {
        let table = cubin.symbols_for_link(rs.symtab);
        let section = cubin.section_label(rs.section);
        let target = cubin.section_label(rs.target as usize);
        for r in rs.entries() {
            let name = table
                .as_ref()
                .and_then(|t| t.symbols.get(r.symbol as usize))
                .map(|s| s.name.to_string())
                .unwrap_or_default();
            out.push(RelocationDump {
                section: section.clone(),
                target_section: target.clone(),
                offset: r.offset,
                r_type: r.r_type,
                type_name: reloc::type_name(r.r_type),
                symbol_index: r.symbol,
                demangled: demangle(&name, options),
                symbol: name,
                addend: r.addend.unwrap_or(0),
            });
        }
    }
    out
}

/// `.nv.info*` and `.nv.compat` records (`compat_only`: just `.nv.compat`).
fn record_dumps(cubin: &Cubin<'_>, compat_only: bool) -> Vec<RecordSectionDump> {
    let mut views = crate::metadata::SymbolViews::new(cubin);
    cubin
        .record_sections()
        .filter(|rs| rs.compat || !compat_only)
        .map(|rs| {
            let symbols: &develf_eiattr::display::SymbolTableView<'_> = views.for_section(rs.section);
            let decoded =
                Metadata::decode(if rs.compat { SectionKind::Compat } else { SectionKind::NvInfo }, rs.section.bytes());
            let mut records = Vec::new();
            let mut error = None;
            for r in rs.records() {
                match r {
                    Ok(r) => records.push(record_dump(&r, &decoded, symbols, rs.compat)),
                    Err(e) => error = Some(format!("{e:?}")),
                }
            }
            RecordSectionDump {
                section: rs.section.label(),
                kind: if rs.compat { "compat" } else { "nvinfo" },
                records,
                error,
            }
        })
        .collect()
}

/// The decoded record at `offset`: records are decoded in offset order, so
/// a binary search (a linked `.nv.info` has tens of thousands of records).
fn at_offset<A>(
    records: &[develf_eiattr::attr::Located<A>],
    offset: usize,
) -> Option<&develf_eiattr::attr::Located<A>> {
    let i = records.partition_point(|l| l.offset < offset);
    records.get(i).filter(|l| l.offset == offset)
}

fn record_dump(r: &nvinfo::RawRecord<'_>, decoded: &Metadata, symbols: &dyn SymbolLookup, compat: bool) -> RecordDump {
    let info = if compat { nvinfo::compat_attribute(r.attribute) } else { nvinfo::attribute(r.attribute) };
    let format = Format::from_u8(r.format);
    // The typed value of the record at the same offset.
    let (value, typed, text) = match decoded {
        Metadata::NvInfo(list) => match at_offset(&list.records, r.offset) {
            Some(l) => {
                let j = display::record_json(l.offset, &l.attribute, symbols);
                (j.value, j.typed, display::fields_text(&l.attribute.fields(), symbols))
            }
            None => (ResolvedFields(Vec::new()), false, String::new()),
        },
        Metadata::Compat(list) => match at_offset(&list.records, r.offset) {
            Some(l) => {
                let j = display::record_json(l.offset, &l.attribute, symbols);
                (j.value, j.typed, display::fields_text(&l.attribute.fields(), symbols))
            }
            None => (ResolvedFields(Vec::new()), false, String::new()),
        },
        _ => (ResolvedFields(Vec::new()), false, String::new()),
    };
    let mut raw = Vec::with_capacity(r.size());
    raw.extend_from_slice(&[r.format, r.attribute]);
    raw.extend_from_slice(&r.value.to_le_bytes());
    raw.extend_from_slice(r.payload);
    RecordDump {
        offset: r.offset,
        format: r.format,
        format_name: format.map(Format::name),
        attr: r.attribute,
        attr_name: info.and_then(|i| i.display_name()),
        value,
        typed,
        text,
        payload: (format == Some(Format::Sval)).then(|| hex(r.payload)),
        raw: hex(&raw),
    }
}

/// Call graphs, prototypes and the other list-shaped metadata sections.
fn entry_dumps(cubin: &Cubin<'_>, wanted: impl Fn(SectionKind) -> bool) -> Vec<EntriesDump> {
    let mut views = crate::metadata::SymbolViews::new(cubin);
    crate::metadata::metadata_sections(cubin)
        .filter(|(_, kind)| wanted(*kind))
        .map(|(section, kind)| {
            let symbols: &develf_eiattr::display::SymbolTableView<'_> = views.for_section(section);
            let entry = |kind: &'static str, fields: Vec<display::Field>| EntryDump {
                kind,
                text: display::fields_text(&fields, symbols),
                fields: display::resolve(&fields, symbols),
            };
            let (entries, raw_reason) = match crate::metadata::decode(section, kind) {
                Metadata::CallGraph(g) => (g.entries().into_iter().map(|(k, f)| entry(k, f)).collect(), None),
                Metadata::Prototypes(p) => (p.entries().into_iter().map(|f| entry("prototype", f)).collect(), None),
                Metadata::RelActions(a) => (vec![entry("rel_action", a.fields())], None),
                Metadata::UftEntries(u) => (u.entries().into_iter().map(|f| entry("uft_entry", f)).collect(), None),
                Metadata::Raw { bytes, reason, .. } => (
                    vec![entry("bytes", vec![display::Field::new("bytes", display::FieldValue::Bytes(bytes))])],
                    Some(reason),
                ),
                _ => (Vec::new(), None),
            };
            EntriesDump { section: section.label(), entries, raw_reason }
        })
        .collect()
}

fn note_dumps(cubin: &Cubin<'_>) -> Vec<NoteDump> {
    cubin
        .notes()
        .map(|(s, n)| {
            let fields = NoteDesc::decode(n.n_type, n.desc).fields();
            NoteDump {
                decoded: display::resolve(&fields, &display::NoSymbols),
                text: display::fields_text(&fields, &display::NoSymbols),
                section: s.label(),
                offset: n.offset,
                owner: String::from_utf8_lossy(n.name).into_owned(),
                n_type: n.n_type,
                type_name: table::lookup(note::NOTE_TYPES, n.n_type),
                description: note::description(n.n_type),
                desc: hex(n.desc),
            }
        })
        .collect()
}
