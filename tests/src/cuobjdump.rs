//! A reader for `cuobjdump -elf` text, the oracle the dumper is checked against.
//!
//! It reads the header line, the section table, `.symtab`, the relocation
//! sections and the attribute names of `.nv.info*` / `.nv.compat`. The format
//! is NVIDIA's and undocumented; this follows what cuobjdump 13.5 prints.

use std::collections::BTreeMap;

/// One row of cuobjdump's section table.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct DumpSection {
    pub index: usize,
    pub offset: u64,
    pub size: u64,
    pub entsize: u64,
    pub align: u64,
    /// cuobjdump's type name (`CUDA_INFO`), or `None` for `UNKNOWN: N`.
    pub type_name: Option<String>,
    /// The `N` of `UNKNOWN: N` (the type minus 0x70000000).
    pub unknown_type: Option<u32>,
    pub flags: u64,
    pub link: u32,
    pub info: u32,
    pub name: String,
}

/// One row of cuobjdump's `.symtab` listing.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct DumpSymbol {
    pub index: usize,
    pub value: u64,
    pub size: u64,
    pub type_name: String,
    pub bind: String,
    pub visibility: String,
    /// `-` becomes empty.
    pub other: Vec<String>,
    pub shndx: u32,
    /// `(null)` becomes empty.
    pub name: String,
}

/// One relocation row.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct DumpRelocation {
    pub offset: u64,
    pub symbol: String,
    pub type_name: String,
    pub addend: Option<i64>,
}

/// One `.nv.info*` / `.nv.compat` record: its attribute and format names.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct DumpAttribute {
    /// `None` where cuobjdump prints "unknown Attribute".
    pub name: Option<String>,
    pub format: String,
    /// The text after `Value:` up to the next record (joined lines).
    pub value: String,
}

#[derive(Debug, Clone, Default, PartialEq, Eq)]
pub struct Dump {
    pub abi: u32,
    pub sm: String,
    pub flags: u64,
    pub sections: Vec<DumpSection>,
    pub symbols: Vec<DumpSymbol>,
    /// Relocation section name → rows in printed order.
    pub relocations: BTreeMap<String, Vec<DumpRelocation>>,
    /// `.nv.info*` / `.nv.compat` section name → records in printed order.
    pub attributes: BTreeMap<String, Vec<DumpAttribute>>,
}

fn hex(token: &str) -> Option<u64> {
    let t = token.trim();
    let t = t.strip_prefix("0x").unwrap_or(t);
    u64::from_str_radix(t, 16).ok()
}

fn signed_hex(token: &str) -> Option<i64> {
    match token.strip_prefix('-') {
        Some(rest) => hex(rest).map(|v| -(v as i64)),
        None => hex(token).map(|v| v as i64),
    }
}

/// Parses the header line: `64-bit ELF: type=ET_REL, ABI=8, sm=90, toolkit=13.5, flags=0x6005a04`
/// or the ABI 7 form `64bit elf: type=1, abi=7, sm=50, toolkit=129, flags = 0x320532`.
fn header(line: &str, dump: &mut Dump) -> bool {
    let lower = line.to_ascii_lowercase();
    if !(lower.starts_with("64-bit elf:")
        || lower.starts_with("64bit elf:")
        || lower.starts_with("32bit elf:")
        || lower.starts_with("32-bit elf:"))
    {
        return false;
    }
    let rest = lower.split_once(':').map(|x| x.1).unwrap_or("");
    for field in rest.split(',') {
        let Some((key, value)) = field.split_once('=') else { continue };
        let (key, value) = (key.trim(), value.trim());
        match key {
            "abi" => dump.abi = value.parse().unwrap_or(0),
            "sm" => dump.sm = value.to_string(),
            "flags" => dump.flags = hex(value).unwrap_or(0),
            _ => {}
        }
    }
    true
}

fn section_row(line: &str) -> Option<DumpSection> {
    let mut tokens: Vec<&str> = line.split_whitespace().collect();
    // "UNKNOWN:  22" is two tokens; join them.
    let mut unknown_type = None;
    if let Some(pos) = tokens.iter().position(|t| *t == "UNKNOWN:") {
        unknown_type = tokens.get(pos + 1)?.parse().ok();
        tokens.remove(pos + 1);
    }
    if tokens.len() != 10 {
        return None;
    }
    Some(DumpSection {
        index: hex(tokens[0])? as usize,
        offset: hex(tokens[1])?,
        size: hex(tokens[2])?,
        entsize: hex(tokens[3])?,
        align: hex(tokens[4])?,
        type_name: (tokens[5] != "UNKNOWN:").then(|| tokens[5].to_string()),
        unknown_type,
        flags: hex(tokens[6])?,
        link: hex(tokens[7])? as u32,
        info: hex(tokens[8])? as u32,
        name: tokens[9].to_string(),
    })
}

fn symbol_row(line: &str) -> Option<DumpSymbol> {
    let t: Vec<&str> = line.split_whitespace().collect();
    if t.len() != 9 {
        return None;
    }
    Some(DumpSymbol {
        index: hex(t[0])? as usize,
        value: hex(t[1])?,
        size: hex(t[2])?,
        type_name: t[3].to_string(),
        bind: t[4].to_string(),
        visibility: t[5].to_string(),
        other: if t[6] == "-" { Vec::new() } else { t[6].split('|').map(str::to_string).collect() },
        shndx: hex(t[7])? as u32,
        name: if t[8] == "(null)" { String::new() } else { t[8].to_string() },
    })
}

fn relocation_row(line: &str) -> Option<DumpRelocation> {
    let t: Vec<&str> = line.split_whitespace().collect();
    if !(2..=4).contains(&t.len()) || !t[0].starts_with("0x") {
        return None;
    }
    // A relocation without a symbol (index 0) prints as "offset type [addend]".
    if t[1].starts_with("R_") {
        return Some(DumpRelocation {
            offset: hex(t[0])?,
            symbol: String::new(),
            type_name: t[1].to_string(),
            addend: t.get(2).and_then(|a| signed_hex(a)),
        });
    }
    Some(DumpRelocation {
        offset: hex(t[0])?,
        symbol: t[1].to_string(),
        type_name: t[2].to_string(),
        addend: t.get(3).and_then(|a| signed_hex(a)),
    })
}

#[derive(Debug, Clone, Copy, PartialEq, Eq)]
enum State {
    Top,
    Sections,
    Symbols,
    Relocations,
    Attributes,
}

/// Parses a whole `cuobjdump -elf` output for one cubin.
pub fn parse(text: &str) -> Dump {
    let mut dump = Dump::default();
    let mut state = State::Top;
    let mut current = String::new();
    let mut record_sections: Vec<String> = Vec::new();
    for line in text.lines() {
        if header(line.trim(), &mut dump) {
            continue;
        }
        if line.starts_with("Index Offset") {
            state = State::Sections;
            continue;
        }
        if let Some(rest) = line.strip_prefix(".section ") {
            let mut parts = rest.split_whitespace();
            let name = parts.next().unwrap_or("").to_string();
            let kind = parts.next().unwrap_or("");
            state = match (name.as_str(), kind) {
                (".symtab", _) => State::Symbols,
                (_, "RELA" | "REL") => {
                    dump.relocations.entry(name.clone()).or_default();
                    State::Relocations
                }
                _ => State::Top,
            };
            current = name;
            continue;
        }
        // `.nv.info*` and `.nv.compat` listings start with the bare section name.
        if !line.starts_with([' ', '\t']) && record_sections.iter().any(|s| s == line.trim_end()) {
            state = State::Attributes;
            current = line.trim_end().to_string();
            dump.attributes.entry(current.clone()).or_default();
            continue;
        }
        match state {
            State::Sections => match section_row(line) {
                Some(row) => {
                    if matches!(row.type_name.as_deref(), Some("CUDA_INFO" | "CUDA_COMPAT_INFO")) {
                        record_sections.push(row.name.clone());
                    }
                    dump.sections.push(row);
                }
                None if line.trim().is_empty() => state = State::Top,
                None => {}
            },
            State::Symbols => {
                if let Some(row) = symbol_row(line) {
                    dump.symbols.push(row);
                }
            }
            State::Relocations => {
                if let Some(row) = relocation_row(line) {
                    dump.relocations.entry(current.clone()).or_default().push(row);
                } else if !line.trim().is_empty() {
                    state = State::Top;
                }
            }
            State::Attributes => attribute_line(line, &current, &mut dump),
            State::Top => {}
        }
    }
    dump
}

fn attribute_line(line: &str, section: &str, dump: &mut Dump) {
    let records = dump.attributes.entry(section.to_string()).or_default();
    let trimmed = line.trim();
    if let Some(name) = trimmed.strip_prefix("Attribute:") {
        let name = name.trim();
        records.push(DumpAttribute {
            name: (name != "unknown Attribute").then(|| name.to_string()),
            format: String::new(),
            value: String::new(),
        });
    } else if let Some(format) = trimmed.strip_prefix("Format:") {
        if let Some(last) = records.last_mut() {
            last.format = format.trim().to_string();
        }
    } else if let Some(value) = trimmed.strip_prefix("Value:") {
        if let Some(last) = records.last_mut() {
            last.value = value.trim().to_string();
        }
    } else if !trimmed.is_empty() && !trimmed.starts_with('<') {
        if let Some(last) = records.last_mut() {
            if !last.value.is_empty() {
                last.value.push(' ');
            }
            last.value.push_str(trimmed);
        }
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    const SAMPLE: &str = "
64-bit ELF: type=ET_REL, ABI=8, sm=100a, toolkit=13.5, flags=0x6006402
Sections:
Index Offset   Size ES Align                      Type    Flags Link     Info Name
    7    634     24  0  4                    CUDA_INFO        0    3        0 .nv.info
   19   1150     86  0 10                 UNKNOWN:  22 10000000   11        8 .nv.capmerc.text._Z1kPi

.section .symtab
   Num            Value             Size  Type          Bind    Vis        Other                                Ndx  Name
     0                0                0  NOTYPE        LOCAL   DEFAULT    -                                      0  (null)
   0x8                0            0x200  FUNC          GLOBAL  DEFAULT    ENTRY                                0xe  _Z1kPi

.nv.info
\t<0x1>
\tAttribute:\tEIATTR_REGCOUNT
\tFormat:\tEIFMT_SVAL
\tValue:\tfunction: _Z1kPi(0x8)\tregister count: 24
\t<0x2>
\tAttribute:\tunknown Attribute
\tFormat:\tEIFMT_HVAL
\tValue:\t0x101

.section .rela.text._Z1kPi\tRELA
0x80    g    R_CUDA_ABS32_HI_32    0x0
0x50    _Z1kPi    R_CUDA_ABS32_HI_32    0x70
0x730    R_CUDA_YIELD_OPCODE9_0    0x118
";

    #[test]
    fn reads_every_part() {
        let d = parse(SAMPLE);
        assert_eq!((d.abi, d.sm.as_str(), d.flags), (8, "100a", 0x600_6402));
        assert_eq!(d.sections.len(), 2);
        assert_eq!(d.sections[1].unknown_type, Some(22));
        assert_eq!(d.sections[1].flags, 0x1000_0000);
        assert_eq!(d.symbols[1].other, ["ENTRY"]);
        assert_eq!(d.symbols[1].shndx, 0xe);
        let a = &d.attributes[".nv.info"];
        assert_eq!(a[0].name.as_deref(), Some("EIATTR_REGCOUNT"));
        assert_eq!(a[1].name, None);
        let r = &d.relocations[".rela.text._Z1kPi"];
        assert_eq!(
            r[1],
            DumpRelocation {
                offset: 0x50,
                symbol: "_Z1kPi".into(),
                type_name: "R_CUDA_ABS32_HI_32".into(),
                addend: Some(0x70)
            }
        );
    }
}
