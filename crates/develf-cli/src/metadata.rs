//! Decoded metadata sections (`.nv.info*`, `.nv.compat`, notes, `.nv.callgraph`,
//! `.nv.prototype`, `.nv.rel.action`, `.nv.uft.entry`) for the dump and the
//! validator, through `develf-eiattr`.

use develf_eiattr::display::{SymbolInfo, SymbolTableView};
use develf_eiattr::{Metadata, ProblemKind, SectionKind, section_kind, validate_section};
use develf_parse::elf::Section;
use develf_parse::{Cubin, Diagnostic, codes};

/// The symbols (and their string table) a metadata section's `sh_link` names.
pub fn symbols_for<'a>(cubin: &Cubin<'a>, section: &Section<'a>) -> SymbolTableView<'a> {
    let Some(table) = cubin.symbols_for_link(section.link) else { return SymbolTableView::default() };
    let strtab = cubin
        .sections()
        .get(table.section)
        .and_then(|t| cubin.sections().get(t.link as usize))
        .and_then(|s| s.data)
        .unwrap_or(&[]);
    let symbols = table.symbols.iter().map(|s| SymbolInfo { name: s.name, st_type: s.st_type }).collect();
    SymbolTableView::new(symbols).with_strtab(strtab)
}

/// [`symbols_for`] built once per symbol table: a linked cubin can have tens
/// of thousands of `.nv.info.<fn>` sections naming the same `.symtab`.
#[derive(Debug)]
pub struct SymbolViews<'c, 'a> {
    cubin: &'c Cubin<'a>,
    views: std::collections::HashMap<u32, SymbolTableView<'a>>,
}

impl<'c, 'a> SymbolViews<'c, 'a> {
    pub fn new(cubin: &'c Cubin<'a>) -> Self {
        SymbolViews { cubin, views: std::collections::HashMap::new() }
    }

    /// The symbols `section`'s `sh_link` names.
    pub fn for_section(&mut self, section: &Section<'a>) -> &SymbolTableView<'a> {
        let cubin = self.cubin;
        self.views.entry(section.link).or_insert_with(|| symbols_for(cubin, section))
    }
}

/// Every metadata section of a cubin with its kind.
pub fn metadata_sections<'c, 'a>(cubin: &'c Cubin<'a>) -> impl Iterator<Item = (&'c Section<'a>, SectionKind)> + 'c {
    cubin.sections().iter().filter_map(|s| section_kind(s.name, s.sh_type).map(|k| (s, k)))
}

/// Decodes one metadata section.
pub fn decode(section: &Section<'_>, kind: SectionKind) -> Metadata {
    Metadata::decode(kind, section.bytes())
}

fn code_of(kind: ProblemKind) -> develf_parse::Code {
    match kind {
        ProblemKind::RecordOverrun => codes::RECORD_PAST_SECTION,
        ProblemKind::UnknownFormat => codes::UNKNOWN_RECORD_FORMAT,
        ProblemKind::WrongFormat => codes::RECORD_WRONG_FORMAT,
        ProblemKind::WrongPayloadSize => codes::RECORD_WRONG_SIZE,
        ProblemKind::UnknownSymbol => codes::RECORD_UNKNOWN_SYMBOL,
        ProblemKind::NotAFunction => codes::RECORD_NOT_A_FUNCTION,
        ProblemKind::UnknownString => codes::RECORD_UNKNOWN_STRING,
        ProblemKind::MalformedSection => codes::MALFORMED_METADATA,
    }
}

/// The metadata problems of a cubin as diagnostics. Record overruns and unknown
/// formats of `.nv.info*` / `.nv.compat` are left out: `Cubin::validate` reports them.
pub fn diagnostics(cubin: &Cubin<'_>) -> Vec<Diagnostic> {
    let mut out = Vec::new();
    let mut views = SymbolViews::new(cubin);
    for (section, kind) in metadata_sections(cubin) {
        let symbols = views.for_section(section);
        for p in validate_section(kind, section.bytes(), symbols) {
            let reported_by_parse = matches!(kind, SectionKind::NvInfo | SectionKind::Compat)
                && matches!(p.kind, ProblemKind::RecordOverrun | ProblemKind::UnknownFormat);
            if reported_by_parse {
                continue;
            }
            let mut d = Diagnostic::new(code_of(p.kind), p.message)
                .at(section.offset + p.offset as u64)
                .in_section(section.label());
            if let Some(symbol) = p
                .symbol
                .and_then(|i| cubin.symbols_for_link(section.link)?.symbols.get(i as usize).map(|s| s.name.to_string()))
            {
                if !symbol.is_empty() {
                    d = d.for_symbol(symbol);
                }
            }
            out.push(d);
        }
    }
    out
}
