//! A reader for the metadata parts of `cuobjdump -elf` text: the records of
//! `.nv.info*` / `.nv.compat` with their printed values, and the pair lines of
//! `.nv.callgraph` / `.nv.prototype`. (The section, symbol and relocation tables
//! are read by [`crate::cuobjdump`].) Follows what cuobjdump 13.5 prints.

/// One record as cuobjdump prints it.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct DumpRecord {
    /// `EIATTR_REGCOUNT`, or `unknown Attribute`.
    pub attribute: String,
    /// `EIFMT_SVAL`.
    pub format: String,
    /// The text after `Value:` and any continuation lines, joined by `\n`; `None`
    /// when cuobjdump prints no value (NVAL records).
    pub value: Option<String>,
}

/// One metadata section of the dump.
#[derive(Debug, Clone, PartialEq, Eq, Default)]
pub struct DumpBlock {
    /// The section name as printed (`.nv.info._Z1kPi`).
    pub name: String,
    /// Records, for `.nv.info*` / `.nv.compat`.
    pub records: Vec<DumpRecord>,
    /// The `<a,b>` lines without their brackets, for `.nv.callgraph` / `.nv.prototype`.
    pub pairs: Vec<String>,
}

fn is_metadata_name(line: &str) -> bool {
    line.starts_with(".nv.info") || line == ".nv.compat" || line == ".nv.callgraph" || line == ".nv.prototype"
}

/// Every metadata block of a dump, in dump order.
pub fn parse(text: &str) -> Vec<DumpBlock> {
    let mut blocks: Vec<DumpBlock> = Vec::new();
    let mut current: Option<DumpBlock> = None;
    // Whether lines now continue the last record's value.
    let mut in_value = false;
    for line in text.lines() {
        let starts_column_0 = !line.is_empty() && !line.starts_with([' ', '\t']);
        if starts_column_0 {
            blocks.extend(current.take());
            in_value = false;
            if is_metadata_name(line.trim_end()) {
                current = Some(DumpBlock { name: line.trim_end().to_string(), ..DumpBlock::default() });
            }
            continue;
        }
        let Some(block) = current.as_mut() else { continue };
        if let Some(pair) = line.trim().strip_prefix('<').and_then(|l| l.strip_suffix('>')) {
            if block.name == ".nv.callgraph" || block.name == ".nv.prototype" {
                block.pairs.push(pair.to_string());
                continue;
            }
            // `<0x1>`: a new record.
            block.records.push(DumpRecord { attribute: String::new(), format: String::new(), value: None });
            in_value = false;
            continue;
        }
        let Some(record) = block.records.last_mut() else { continue };
        if let Some(rest) = line.strip_prefix("\tAttribute:\t") {
            record.attribute = rest.trim().to_string();
        } else if let Some(rest) = line.strip_prefix("\tFormat:\t") {
            record.format = rest.trim().to_string();
        } else if let Some(rest) = line.strip_prefix("\tValue:") {
            record.value = Some(rest.to_string());
            in_value = true;
        } else if in_value {
            if let Some(v) = record.value.as_mut() {
                v.push('\n');
                v.push_str(line);
            }
        }
    }
    blocks.extend(current);
    blocks
}

/// Collapses every run of whitespace to one space and trims, so that values can be
/// compared without cuobjdump's tabs and trailing blanks.
pub fn normalize(text: &str) -> String {
    text.split_whitespace().collect::<Vec<_>>().join(" ")
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn reads_records_and_pairs() {
        let text = "\n.nv.info._Z1kPi\n\t<0x1>\n\tAttribute:\tEIATTR_KPARAM_INFO\n\tFormat:\tEIFMT_SVAL\n\
                    \tValue:\tIndex : 0x0\tOrdinal : 0x0\n\t\tPointee's logAlignment : 0x0\t\n\t<0x2>\n\
                    \tAttribute:\tEIATTR_WMMA_USED\n\tFormat:\tEIFMT_NVAL\n\n\n.nv.callgraph\n <0,-1>\n <8,19>\n\n\n.text.x\n";
        let blocks = parse(text);
        assert_eq!(blocks.len(), 2);
        assert_eq!(blocks[0].records.len(), 2);
        let value = blocks[0].records[0].value.as_deref().map(normalize);
        assert_eq!(value.as_deref(), Some("Index : 0x0 Ordinal : 0x0 Pointee's logAlignment : 0x0"));
        assert_eq!(blocks[0].records[1].value, None);
        assert_eq!(blocks[1].pairs, vec!["0,-1", "8,19"]);
    }
}
