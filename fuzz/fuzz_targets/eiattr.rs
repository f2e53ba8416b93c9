//! Fuzzes develf-eiattr: every section codec must decode any bytes without
//! panicking, re-encode them byte-identically, and validate them without panicking.
//! The first input byte picks the symbol table size for validation.

#![no_main]

use develf_eiattr::display::{SymbolInfo, SymbolTableView};
use develf_eiattr::{Metadata, SectionKind, validate_section};
use libfuzzer_sys::fuzz_target;

const KINDS: [SectionKind; 8] = [
    SectionKind::NvInfo,
    SectionKind::Compat,
    SectionKind::Notes,
    SectionKind::CallGraph,
    SectionKind::Prototype,
    SectionKind::RelAction,
    SectionKind::Uft,
    SectionKind::UftEntry,
];

fuzz_target!(|data: &[u8]| {
    let Some((&count, bytes)) = data.split_first() else { return };
    let symbols: Vec<SymbolInfo<'_>> =
        (0..count).map(|i| if i % 3 == 0 { SymbolInfo::section(".s") } else { SymbolInfo::function("f") }).collect();
    let symbols = SymbolTableView::new(symbols).with_strtab(b"\0#ii\0");
    for kind in KINDS {
        let decoded = Metadata::decode(kind, bytes);
        let encoded = decoded.encode().expect("a decoded section always encodes");
        assert_eq!(encoded, bytes, "{kind:?} does not round-trip");
        let mut remapped = decoded.clone();
        let _ = remapped.remap_symbols(&|s| s.checked_add(1));
        let _ = validate_section(kind, bytes, &symbols);
    }
});
