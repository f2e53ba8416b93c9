//! Rendering decoded metadata for dumpers: `name=value` text and a serde-friendly
//! form with symbol names resolved.
//!
//! ```
//! use develf_eiattr::{NvInfo, display::{self, SymbolTableView, SymbolInfo}};
//! let bytes = [4u8, 0x2f, 8, 0, 1, 0, 0, 0, 24, 0, 0, 0]; // EIATTR_REGCOUNT
//! let symbols = SymbolTableView::new(vec![SymbolInfo::default(), SymbolInfo::function("_Z3fooi")]);
//! let info = NvInfo::decode(&bytes);
//! let line = display::record_text(&info.records[0].attribute, &symbols);
//! assert_eq!(line, "EIATTR_REGCOUNT  function=_Z3fooi registers=24");
//! ```

use crate::attr::Record;
use crate::shape::SymbolIndex;
use develf_format::nvinfo::Format;
use develf_format::symbol::{STT_FUNC, STT_SECTION};
use serde::Serialize;
use serde::ser::{SerializeMap, Serializer};
use std::fmt::Write as _;

/// One named part of a decoded value.
#[derive(Debug, Clone, PartialEq, Eq, Serialize)]
pub struct Field {
    pub key: &'static str,
    pub value: FieldValue,
}

impl Field {
    pub fn new(key: &'static str, value: FieldValue) -> Field {
        Field { key, value }
    }
}

/// A value as a dumper should show it.
#[derive(Debug, Clone, PartialEq, Eq, Serialize)]
pub enum FieldValue {
    /// Printed in decimal.
    Number(u64),
    /// Printed in hex.
    Hex(u64),
    HexList(Vec<u64>),
    Symbol(SymbolIndex),
    Symbols(Vec<SymbolIndex>),
    /// An offset into the string table of the symbol table (prototype signatures).
    StringOffset(u32),
    Text(String),
    TextList(Vec<String>),
    Bytes(Vec<u8>),
}

/// What display and validation need to know of one symbol.
#[derive(Debug, Clone, Copy, Default, PartialEq, Eq)]
pub struct SymbolInfo<'a> {
    pub name: &'a str,
    /// `STT_*` (low nibble of `st_info`).
    pub st_type: u8,
}

impl<'a> SymbolInfo<'a> {
    pub fn function(name: &'a str) -> SymbolInfo<'a> {
        SymbolInfo { name, st_type: STT_FUNC }
    }

    pub fn section(name: &'a str) -> SymbolInfo<'a> {
        SymbolInfo { name, st_type: STT_SECTION }
    }
}

/// Resolves the indices metadata names: symbols of the section's linked symbol
/// table, and offsets into that table's string table.
pub trait SymbolLookup {
    fn symbol(&self, index: SymbolIndex) -> Option<SymbolInfo<'_>>;
    /// Number of symbols (indices at or past it are out of range).
    fn symbol_count(&self) -> usize;
    /// The NUL-terminated string at `offset` of the symbol table's string table.
    fn string(&self, _offset: u32) -> Option<&str> {
        None
    }
}

/// A [`SymbolLookup`] over a list the caller builds (e.g. from `develf_parse::Cubin::symbols()`).
#[derive(Debug, Clone, Default)]
pub struct SymbolTableView<'a> {
    pub symbols: Vec<SymbolInfo<'a>>,
    /// The symbol table's string table (`sh_link` of `.symtab`), for prototype signatures.
    pub strtab: &'a [u8],
}

impl<'a> SymbolTableView<'a> {
    pub fn new(symbols: Vec<SymbolInfo<'a>>) -> SymbolTableView<'a> {
        SymbolTableView { symbols, strtab: &[] }
    }

    pub fn with_strtab(mut self, strtab: &'a [u8]) -> SymbolTableView<'a> {
        self.strtab = strtab;
        self
    }
}

impl SymbolLookup for SymbolTableView<'_> {
    fn symbol(&self, index: SymbolIndex) -> Option<SymbolInfo<'_>> {
        self.symbols.get(usize::try_from(index).ok()?).copied()
    }
    fn symbol_count(&self) -> usize {
        self.symbols.len()
    }
    fn string(&self, offset: u32) -> Option<&str> {
        let rest = self.strtab.get(usize::try_from(offset).ok()?..)?;
        let end = rest.iter().position(|&b| b == 0)?;
        std::str::from_utf8(&rest[..end]).ok()
    }
}

/// A lookup that knows no symbols: indices are shown as numbers.
#[derive(Debug, Clone, Copy, Default)]
pub struct NoSymbols;

impl SymbolLookup for NoSymbols {
    fn symbol(&self, _: SymbolIndex) -> Option<SymbolInfo<'_>> {
        None
    }
    fn symbol_count(&self) -> usize {
        0
    }
}

fn symbol_text(index: SymbolIndex, names: &dyn SymbolLookup) -> String {
    match names.symbol(index) {
        Some(s) if !s.name.is_empty() => s.name.to_string(),
        _ => format!("#{index}"),
    }
}

/// Renders one field value as text.
pub fn value_text(value: &FieldValue, names: &dyn SymbolLookup) -> String {
    match value {
        FieldValue::Number(n) => n.to_string(),
        FieldValue::Hex(n) => format!("{n:#x}"),
        FieldValue::HexList(list) => {
            let parts: Vec<String> = list.iter().map(|n| format!("{n:#x}")).collect();
            format!("[{}]", parts.join(","))
        }
        FieldValue::Symbol(s) => symbol_text(*s, names),
        FieldValue::Symbols(list) => {
            let parts: Vec<String> = list.iter().map(|&s| symbol_text(s, names)).collect();
            format!("[{}]", parts.join(","))
        }
        FieldValue::StringOffset(o) => match names.string(*o) {
            Some(s) => format!("{s:?}"),
            None => format!("@{o:#x}"),
        },
        FieldValue::Text(t) => t.clone(),
        FieldValue::TextList(list) => format!("[{}]", list.join(",")),
        FieldValue::Bytes(b) => {
            let mut s = String::with_capacity(b.len() * 2);
            for byte in b {
                let _ = write!(s, "{byte:02x}");
            }
            s
        }
    }
}

/// `key=value key=value`.
pub fn fields_text(fields: &[Field], names: &dyn SymbolLookup) -> String {
    let parts: Vec<String> = fields.iter().map(|f| format!("{}={}", f.key, value_text(&f.value, names))).collect();
    parts.join(" ")
}

fn name_or_code(name: Option<&'static str>, prefix: &str, code: u8) -> String {
    name.map(str::to_string).unwrap_or_else(|| format!("{prefix}_{code:#04x}"))
}

/// One `.nv.info` or `.nv.compat` record as a dump line:
/// `EIATTR_REGCOUNT  function=_Z3fooi registers=24`. Unnamed codes print as
/// `EIATTR_0x5f` (`EICOMPAT_ATTR_0x07` for compat records).
pub fn record_text<A: Record>(attr: &A, names: &dyn SymbolLookup) -> String {
    line(name_or_code(attr.name(), A::UNNAMED_PREFIX, attr.code()), &attr.fields(), names)
}

fn line(name: String, fields: &[Field], names: &dyn SymbolLookup) -> String {
    let text = fields_text(fields, names);
    if text.is_empty() { name } else { format!("{name}  {text}") }
}

/// A field value with names resolved, for JSON: numbers stay numbers, a symbol
/// becomes `{"index": 8, "name": "_Z1kPi"}`.
#[derive(Debug, Clone, PartialEq, Eq, Serialize)]
#[serde(untagged)]
pub enum ResolvedValue {
    Number(u64),
    List(Vec<u64>),
    Symbol { index: SymbolIndex, name: Option<String> },
    Symbols(Vec<ResolvedValue>),
    String { offset: u32, text: Option<String> },
    Text(String),
    TextList(Vec<String>),
}

/// Named fields serialized as a JSON object (`{"function": {...}, "registers": 24}`).
#[derive(Debug, Clone, PartialEq, Eq, Default)]
pub struct ResolvedFields(pub Vec<(&'static str, ResolvedValue)>);

impl Serialize for ResolvedFields {
    fn serialize<S: Serializer>(&self, serializer: S) -> Result<S::Ok, S::Error> {
        let mut map = serializer.serialize_map(Some(self.0.len()))?;
        for (k, v) in &self.0 {
            map.serialize_entry(k, v)?;
        }
        map.end()
    }
}

fn resolve_symbol(index: SymbolIndex, names: &dyn SymbolLookup) -> ResolvedValue {
    let name = names.symbol(index).map(|s| s.name.to_string()).filter(|n| !n.is_empty());
    ResolvedValue::Symbol { index, name }
}

/// Resolves every field for JSON.
pub fn resolve(fields: &[Field], names: &dyn SymbolLookup) -> ResolvedFields {
    let resolved = fields
        .iter()
        .map(|f| {
            let v = match &f.value {
                FieldValue::Number(n) | FieldValue::Hex(n) => ResolvedValue::Number(*n),
                FieldValue::HexList(l) => ResolvedValue::List(l.clone()),
                FieldValue::Symbol(s) => resolve_symbol(*s, names),
                FieldValue::Symbols(l) => ResolvedValue::Symbols(l.iter().map(|&s| resolve_symbol(s, names)).collect()),
                FieldValue::StringOffset(o) => {
                    ResolvedValue::String { offset: *o, text: names.string(*o).map(str::to_string) }
                }
                FieldValue::Text(t) => ResolvedValue::Text(t.clone()),
                FieldValue::TextList(l) => ResolvedValue::TextList(l.clone()),
                FieldValue::Bytes(_) => ResolvedValue::Text(value_text(&f.value, names)),
            };
            (f.key, v)
        })
        .collect();
    ResolvedFields(resolved)
}

/// One record for JSON: `{"offset", "format", "code", "name", "value": {...}, "raw"}`.
/// `raw` is the record's bytes (header included) in hex.
#[derive(Debug, Clone, PartialEq, Eq, Serialize)]
pub struct RecordJson {
    pub offset: usize,
    pub format: &'static str,
    pub code: u8,
    pub name: Option<&'static str>,
    /// `true` when the table types this record (false: kept raw).
    pub typed: bool,
    pub value: ResolvedFields,
    pub raw: String,
}

fn format_name(format: u8) -> &'static str {
    Format::from_u8(format).map(Format::name).unwrap_or("EIFMT_UNKNOWN")
}

fn hex(bytes: &[u8]) -> String {
    value_text(&FieldValue::Bytes(bytes.to_vec()), &NoSymbols)
}

/// A `.nv.info` or `.nv.compat` record for JSON.
pub fn record_json<A: Record>(offset: usize, attr: &A, names: &dyn SymbolLookup) -> RecordJson {
    let mut raw = Vec::new();
    let _ = attr.encode(&mut raw);
    RecordJson {
        offset,
        format: format_name(attr.format()),
        code: attr.code(),
        name: attr.name(),
        typed: !attr.is_raw(),
        value: resolve(&attr.fields(), names),
        raw: hex(&raw),
    }
}
