//! Read arbitrary bytes as a fatbin, a host ELF object and an `ar` archive of
//! them, decode every entry and name it as `cuobjdump -xelf` would; then write a
//! fatbin from the decoded entries and read it back. Must never panic, hang or
//! allocate without bound (decompression is capped well below libFuzzer's
//! memory limit). Seed corpus: `tests/fixtures/containers/*` (not the oracles).
#![no_main]

use develf_fatbin::{Codec, Container, Limits, NewEntry};
use libfuzzer_sys::fuzz_target;

fn exercise(data: &[u8]) {
    let limits = Limits { max_uncompressed: 64 << 20, ..Limits::default() };
    let _ = develf_fatbin::sniff(data);
    let _ = develf_fatbin::xelf_files("fuzz.fatbin", data, &limits);
    let _ = develf_fatbin::relocatable_elfs_for(data, 90);
    let Ok(container) = Container::parse(data) else { return };
    for (_, _, raw) in container.raw_entries() {
        let _ = raw.identifier();
        let _ = raw.options();
        let _ = raw.concatenated_members();
    }
    let entries = container.entries(&limits);
    // Round trip: what we decoded, written and read again, decodes the same.
    let new: Vec<NewEntry> = entries
        .iter()
        .filter(|e| e.kind.is_elf())
        .filter_map(|e| e.data.as_ref().ok())
        .take(4)
        .map(|bytes| NewEntry {
            codec: Codec::Lz4Block,
            ..NewEntry::new(develf_fatbin::EntryKind::Elf, 90, bytes.to_vec())
        })
        .collect();
    if let Ok(written) = develf_fatbin::write_fatbin(&new) {
        let back = Container::parse(&written).expect("develf reads its own fatbins");
        let decoded = back.entries(&limits);
        assert_eq!(decoded.len(), new.len());
        for (d, n) in decoded.iter().zip(&new) {
            let bytes = d.data.as_ref().expect("own entries decode");
            assert_eq!(develf_fatbin::trim_elf(&n.data), &bytes[..]);
        }
    }
}

fuzz_target!(|data: &[u8]| exercise(data));
