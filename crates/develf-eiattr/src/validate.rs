//! Metadata checks, reported as plain data for the caller to turn into diagnostics.

use crate::attr::{Attribute, CompatAttribute};
use crate::callgraph::CallGraph;
use crate::display::SymbolLookup;
use crate::notes::{CuInfo, NoteDesc, Notes};
use crate::prototype::Prototypes;
use crate::section::{Metadata, SectionKind};
use crate::shape::SymbolIndex;
use develf_format::note::NT_CUDA_CUINFO;
use develf_format::nvinfo::{self, Format, RawRecord, RecordError};
use develf_format::symbol::STT_FUNC;
use serde::Serialize;

/// What kind of problem.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Hash, Serialize)]
pub enum ProblemKind {
    /// A record (or note) runs past the end of its section.
    RecordOverrun,
    /// A record's format byte is not an `EIFMT_*` value.
    UnknownFormat,
    /// A known code written with another format than the tools use.
    WrongFormat,
    /// A known code whose payload has the wrong size for its shape.
    WrongPayloadSize,
    /// A symbol index past the end of the symbol table.
    UnknownSymbol,
    /// A symbol that should be a function and is not.
    NotAFunction,
    /// A string-table offset that names no string.
    UnknownString,
    /// A section whose overall layout is wrong (call-graph markers, sizes).
    MalformedSection,
}

impl ProblemKind {
    /// A stable code for diagnostics.
    pub fn code(self) -> &'static str {
        match self {
            ProblemKind::RecordOverrun => "meta-record-overrun",
            ProblemKind::UnknownFormat => "meta-unknown-format",
            ProblemKind::WrongFormat => "meta-wrong-format",
            ProblemKind::WrongPayloadSize => "meta-wrong-size",
            ProblemKind::UnknownSymbol => "meta-unknown-symbol",
            ProblemKind::NotAFunction => "meta-not-a-function",
            ProblemKind::UnknownString => "meta-unknown-string",
            ProblemKind::MalformedSection => "meta-malformed-section",
        }
    }

    /// Whether the problem makes the section unusable (else it is suspicious only).
    pub fn is_error(self) -> bool {
        !matches!(self, ProblemKind::WrongFormat | ProblemKind::UnknownString)
    }
}

/// One problem found in a metadata section.
#[derive(Debug, Clone, PartialEq, Eq, Serialize)]
pub struct MetadataProblem {
    /// Byte offset within the section.
    pub offset: usize,
    pub kind: ProblemKind,
    pub message: String,
    /// The symbol index involved, if any.
    pub symbol: Option<SymbolIndex>,
}

fn problem(offset: usize, kind: ProblemKind, message: String, symbol: Option<SymbolIndex>) -> MetadataProblem {
    MetadataProblem { offset, kind, message, symbol }
}

/// Checks one section. `symbols` is the symbol table the section's `sh_link`
/// names (`.symtab`, or `.nv.merc.symtab` for `.nv.merc.*`); pass
/// [`crate::display::NoSymbols`] to skip the symbol checks.
pub fn validate_section(kind: SectionKind, bytes: &[u8], symbols: &dyn SymbolLookup) -> Vec<MetadataProblem> {
    let mut out = Vec::new();
    match kind {
        SectionKind::NvInfo => records(bytes, false, symbols, &mut out),
        SectionKind::Compat => records(bytes, true, symbols, &mut out),
        SectionKind::Notes => notes(bytes, &mut out),
        SectionKind::CallGraph => match CallGraph::decode(bytes) {
            Ok(g) => callgraph(&g, symbols, &mut out),
            Err(e) => out.push(problem(0, ProblemKind::MalformedSection, format!("call graph: {e}"), None)),
        },
        SectionKind::Prototype => match Prototypes::decode(bytes) {
            Some(p) => {
                for (i, proto) in p.0.iter().enumerate() {
                    let at = i * 8;
                    exists(at, proto.symbol, "prototype", symbols, &mut out);
                    string(at, proto.signature, symbols, &mut out);
                }
            }
            None => out.push(problem(
                0,
                ProblemKind::MalformedSection,
                format!("prototype section size {} is not a multiple of 8", bytes.len()),
                None,
            )),
        },
        SectionKind::RelAction | SectionKind::UftEntry => {
            if let Metadata::Raw { reason, .. } = Metadata::decode(kind, bytes) {
                out.push(problem(0, ProblemKind::MalformedSection, reason, None));
            }
        }
        SectionKind::Uft => {}
    }
    out
}

fn records(bytes: &[u8], compat: bool, symbols: &dyn SymbolLookup, out: &mut Vec<MetadataProblem>) {
    for item in nvinfo::records(bytes) {
        match item {
            Err(RecordError::Truncated { offset, needed, available }) => out.push(problem(
                offset,
                ProblemKind::RecordOverrun,
                format!("record needs {needed} bytes, {available} left in the section"),
                None,
            )),
            Err(RecordError::UnknownFormat { offset, format }) => out.push(problem(
                offset,
                ProblemKind::UnknownFormat,
                format!("format byte {format:#x} is not an EIFMT value; the rest of the section cannot be read"),
                None,
            )),
            Ok(raw) if compat => compat_record(&raw, out),
            Ok(raw) => nvinfo_record(&raw, symbols, out),
        }
    }
}

fn format_name(format: u8) -> String {
    Format::from_u8(format).map(|f| f.name().to_string()).unwrap_or_else(|| format!("{format:#x}"))
}

fn check_shape(
    raw: &RawRecord<'_>,
    name: &str,
    expected: Option<Format>,
    typed: bool,
    decoded_raw: bool,
    out: &mut Vec<MetadataProblem>,
) {
    match expected {
        Some(f) if f as u8 != raw.format => out.push(problem(
            raw.offset,
            ProblemKind::WrongFormat,
            format!("{name} written as {}, the tools write {}", format_name(raw.format), f.name()),
            None,
        )),
        _ if typed && decoded_raw => out.push(problem(
            raw.offset,
            ProblemKind::WrongPayloadSize,
            format!("{name} has a {}-byte payload that does not fit its layout", raw.payload.len()),
            None,
        )),
        _ => {}
    }
}

fn compat_record(raw: &RawRecord<'_>, out: &mut Vec<MetadataProblem>) {
    let info = nvinfo::compat_attribute(raw.attribute);
    let name =
        info.and_then(|a| a.display_name()).map(str::to_string).unwrap_or(format!("EICOMPAT {:#x}", raw.attribute));
    let attr = CompatAttribute::decode(raw);
    let expected = info.and_then(|a| a.format).or(CompatAttribute::typed_format(raw.attribute));
    let typed = CompatAttribute::is_typed_code(raw.attribute);
    check_shape(raw, &name, expected, typed, matches!(attr, CompatAttribute::Raw(_)), out);
}

fn nvinfo_record(raw: &RawRecord<'_>, symbols: &dyn SymbolLookup, out: &mut Vec<MetadataProblem>) {
    let info = nvinfo::attribute(raw.attribute);
    let name =
        info.and_then(|a| a.display_name()).map(str::to_string).unwrap_or(format!("EIATTR {:#x}", raw.attribute));
    let attr = Attribute::decode(raw);
    let expected = info.and_then(|a| a.format).or(Attribute::typed_format(raw.attribute));
    let typed = Attribute::is_typed_code(raw.attribute);
    check_shape(raw, &name, expected, typed, matches!(attr, Attribute::Raw(_)), out);
    if symbols.symbol_count() == 0 {
        return;
    }
    let must_be_function = matches!(
        attr,
        Attribute::Regcount(_)
            | Attribute::FrameSize(_)
            | Attribute::MinStackSize(_)
            | Attribute::MaxStackSize(_)
            | Attribute::Externs(_)
    );
    for s in attr.symbols() {
        if !exists(raw.offset, s, &name, symbols, out) {
            continue;
        }
        if must_be_function {
            if let Some(sym) = symbols.symbol(s).filter(|sym| sym.st_type != STT_FUNC) {
                out.push(problem(
                    raw.offset,
                    ProblemKind::NotAFunction,
                    format!("{name} names symbol {s} ({}), which is not a function", sym.name),
                    Some(s),
                ));
            }
        }
    }
}

fn exists(
    offset: usize,
    s: SymbolIndex,
    what: &str,
    symbols: &dyn SymbolLookup,
    out: &mut Vec<MetadataProblem>,
) -> bool {
    if symbols.symbol_count() == 0 {
        return true;
    }
    let ok = usize::try_from(s).is_ok_and(|i| i < symbols.symbol_count()) && s != 0;
    if !ok {
        out.push(problem(
            offset,
            ProblemKind::UnknownSymbol,
            format!("{what} names symbol {s}, outside the symbol table ({} symbols)", symbols.symbol_count()),
            Some(s),
        ));
    }
    ok
}

fn string(offset: usize, at: u32, symbols: &dyn SymbolLookup, out: &mut Vec<MetadataProblem>) {
    if symbols.symbol_count() > 0 && symbols.string(at).is_none() {
        out.push(problem(offset, ProblemKind::UnknownString, format!("no string at offset {at:#x}"), None));
    }
}

fn callgraph(g: &CallGraph, symbols: &dyn SymbolLookup, out: &mut Vec<MetadataProblem>) {
    // Offsets count the markers: block k's entries follow k markers.
    let mut at = 8;
    let blocks = [
        (&g.calls, true, "call"),
        (&g.address_taken, false, "address-taken"),
        (&g.indirect_calls, false, "indirect-call"),
        (&g.address_of, true, "address-of"),
    ];
    for (pairs, both_symbols, what) in blocks {
        for p in pairs {
            exists(at, p.0, &format!("{what} entry"), symbols, out);
            if both_symbols {
                exists(at, p.1, &format!("{what} entry"), symbols, out);
            } else {
                string(at, p.1, symbols, out);
            }
            at += 8;
        }
        at += 8;
    }
}

fn notes(bytes: &[u8], out: &mut Vec<MetadataProblem>) {
    let decoded = Notes::decode(bytes);
    let mut at = 0;
    for n in &decoded.notes {
        if n.n_type == NT_CUDA_CUINFO {
            if let NoteDesc::Raw(desc) = &n.desc {
                out.push(problem(
                    at,
                    ProblemKind::WrongPayloadSize,
                    format!("cuinfo note has a {}-byte descriptor, expected {}", desc.len(), CuInfo::SIZE),
                    None,
                ));
            }
        }
        at += Notes { notes: vec![n.clone()], trailing: Vec::new() }.encode().len();
    }
    if !decoded.trailing.is_empty() {
        out.push(problem(at, ProblemKind::RecordOverrun, "note runs past the end of its section".to_string(), None));
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::display::{SymbolInfo, SymbolTableView};

    fn kinds(bytes: &[u8], kind: SectionKind) -> Vec<ProblemKind> {
        let symbols = SymbolTableView::new(vec![
            SymbolInfo::default(),
            SymbolInfo::function("_Z1kPi"),
            SymbolInfo::section(".nv.constant0._Z1kPi"),
        ]);
        validate_section(kind, bytes, &symbols).into_iter().map(|p| p.kind).collect()
    }

    #[test]
    fn reports_each_record_problem() {
        use ProblemKind::*;
        // REGCOUNT naming symbol 1 (a function): fine.
        assert_eq!(kinds(&[4, 0x2f, 8, 0, 1, 0, 0, 0, 24, 0, 0, 0], SectionKind::NvInfo), vec![]);
        // REGCOUNT naming symbol 9: outside the table; naming symbol 2: a section.
        assert_eq!(kinds(&[4, 0x2f, 8, 0, 9, 0, 0, 0, 24, 0, 0, 0], SectionKind::NvInfo), vec![UnknownSymbol]);
        assert_eq!(kinds(&[4, 0x2f, 8, 0, 2, 0, 0, 0, 24, 0, 0, 0], SectionKind::NvInfo), vec![NotAFunction]);
        // REGCOUNT with a 4-byte payload; MAXREG_COUNT written as BVAL.
        assert_eq!(kinds(&[4, 0x2f, 4, 0, 1, 0, 0, 0], SectionKind::NvInfo), vec![WrongPayloadSize]);
        assert_eq!(kinds(&[2, 0x1b, 0xff, 0], SectionKind::NvInfo), vec![WrongFormat]);
        // A record running past its section; an unknown format byte.
        assert_eq!(kinds(&[4, 0x2f, 8, 0, 1, 0], SectionKind::NvInfo), vec![RecordOverrun]);
        assert_eq!(kinds(&[7, 0x2f, 8, 0], SectionKind::NvInfo), vec![UnknownFormat]);
    }

    #[test]
    fn reports_call_graph_problems() {
        let words = |w: &[u32]| w.iter().flat_map(|x| x.to_le_bytes()).collect::<Vec<u8>>();
        let m = |k: u32| [0, u32::MAX - k];
        let good = words(&[&m(0)[..], &[1, 1], &m(1), &m(2), &m(3)].concat());
        assert_eq!(kinds(&good, SectionKind::CallGraph), vec![]);
        let outside = words(&[&m(0)[..], &[1, 40], &m(1), &m(2), &m(3)].concat());
        assert_eq!(kinds(&outside, SectionKind::CallGraph), vec![ProblemKind::UnknownSymbol]);
        assert_eq!(kinds(&good[8..], SectionKind::CallGraph), vec![ProblemKind::MalformedSection]);
    }

    #[test]
    fn remap_failure_changes_nothing() {
        use crate::shape::Symbols;
        let mut a = Attribute::Externs(Symbols(vec![1, 2, 3]));
        let before = a.clone();
        let err = a.remap_symbols(&|s| (s != 2).then_some(s + 10)).expect_err("2 is unmapped");
        assert_eq!((err.symbol, &a), (2, &before));
    }
}
