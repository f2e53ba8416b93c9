//! Links mutated cubins with `develf_link::link`: must never panic, hang or
//! allocate without bound, whatever the inputs (DESIGN.md, "Conventions").
//!
//! The first byte picks the mode:
//! * even: a pair of fixture objects from the embedded corpus (the second
//!   byte picks the pair), patched by the rest of the input as
//!   `(offset: u16 LE, xor byte)` triples, so the mutations land inside real
//!   cubins and reach the later phases (resolution, layout, relocation);
//! * odd: the rest of the input split into 2 or 3 cubins at the offsets in
//!   the next bytes, for libFuzzer's own structure-free mutations.
//!
//! The output kind, `-preserve-relocs`, `-g` and the target follow bits of
//! the first byte, so executables, `-r` links and Mercury (sm_100) targets
//! are all exercised; sm_100 links take sm_100 objects (the Mercury rules:
//! capsules, `-G`/`-lineinfo` debug info, jump-table banks, `-g`'s error
//! barriers), sm_90 links sm_90 ones.
#![no_main]

use develf_format::header::Arch;
use develf_link::{CodeSource, Input, LinkOptions, OutputKind, is_code_section, link};
use libfuzzer_sys::fuzz_target;

/// Small fixture objects whose pairs link (or fail cleanly) unmutated.
const CORPUS: &[(&str, &[u8])] = &[
    ("calls_main.cubin", include_bytes!("../../tests/fixtures/obj/sm_90/calls_main.cubin")),
    ("calls_lib.cubin", include_bytes!("../../tests/fixtures/obj/sm_90/calls_lib.cubin")),
    ("shared_a.cubin", include_bytes!("../../tests/fixtures/obj/sm_90/shared_a.cubin")),
    ("shared_b.cubin", include_bytes!("../../tests/fixtures/obj/sm_90/shared_b.cubin")),
    ("weak_a.cubin", include_bytes!("../../tests/fixtures/obj/sm_90/weak_a.cubin")),
    ("weak_b.cubin", include_bytes!("../../tests/fixtures/obj/sm_90/weak_b.cubin")),
    ("tex_b.cubin", include_bytes!("../../tests/fixtures/obj/sm_90/tex_b.cubin")),
    ("managed_b.cubin", include_bytes!("../../tests/fixtures/obj/sm_90/managed_b.cubin")),
];

/// The same for sm_100 (Mercury).
const CORPUS_MERCURY: &[(&str, &[u8])] = &[
    ("calls_main.cubin", include_bytes!("../../tests/fixtures/obj/sm_100/calls_main.cubin")),
    ("calls_lib.cubin", include_bytes!("../../tests/fixtures/obj/sm_100/calls_lib.cubin")),
    ("jtab_a.cubin", include_bytes!("../../tests/fixtures/obj/sm_100/jtab_a.cubin")),
    ("jtab_b.cubin", include_bytes!("../../tests/fixtures/obj/sm_100/jtab_b.cubin")),
    ("mdbg_a-G.cubin", include_bytes!("../../tests/fixtures/obj/sm_100/mdbg_a-G.cubin")),
    ("mdbg_b-G.cubin", include_bytes!("../../tests/fixtures/obj/sm_100/mdbg_b-G.cubin")),
    ("mdbg_a-lineinfo.cubin", include_bytes!("../../tests/fixtures/obj/sm_100/mdbg_a-lineinfo.cubin")),
    ("mdbg_b-lineinfo.cubin", include_bytes!("../../tests/fixtures/obj/sm_100/mdbg_b-lineinfo.cubin")),
];

fn options(selector: u8) -> Option<LinkOptions> {
    let arch = if selector & 0x04 != 0 { "sm_100" } else { "sm_90" };
    let mut options = LinkOptions::new(Arch::parse(arch)?);
    options.output = if selector & 0x02 != 0 { OutputKind::Relocatable } else { OutputKind::Executable };
    options.preserve_relocs = selector & 0x08 != 0;
    options.debug = selector & 0x10 != 0;
    options.threads = 1;
    Some(options)
}

/// `bytes` with the code sections' contents zeroed (when it parses), as
/// `develf nvlink` reads a cubin without its code: the ELF header and the
/// section and program header tables are read whole even where a (damaged)
/// code section's range covers them.
fn without_code(bytes: &[u8]) -> Vec<u8> {
    let mut copy = bytes.to_vec();
    if let Ok(cubin) = develf_parse::Cubin::parse(bytes) {
        for s in cubin.sections() {
            if is_code_section(s.sh_type, s.flags) {
                let start = usize::try_from(s.offset).unwrap_or(usize::MAX);
                if let Some(code) = start.checked_add(s.bytes().len()).and_then(|end| copy.get_mut(start..end)) {
                    code.fill(0);
                }
            }
        }
        for (at, len) in header_tables(bytes) {
            let Some(end) = at.checked_add(len) else { continue };
            if let (Some(from), Some(to)) = (bytes.get(at..end), copy.get_mut(at..end)) {
                to.copy_from_slice(from);
            }
        }
    }
    copy
}

/// (offset, length) of the ELF header and of the section and program header
/// tables of an ELF64 little-endian file.
fn header_tables(bytes: &[u8]) -> [(usize, usize); 3] {
    let u16_at = |at: usize| bytes.get(at..at + 2).map_or(0, |b| usize::from(u16::from_le_bytes([b[0], b[1]])));
    let u64_at =
        |at: usize| bytes.get(at..at + 8).and_then(|b| b.try_into().ok()).map_or(0, |b| u64::from_le_bytes(b) as usize);
    let mut shnum = u16_at(0x3c);
    if shnum == 0 {
        // Extended numbering: the count is the first header's sh_size.
        shnum = u64_at(u64_at(0x28).saturating_add(32)).min(1 << 20);
    }
    [(0, 64), (u64_at(0x28), shnum * 64), (u64_at(0x20), u16_at(0x38) * 56)]
}

fuzz_target!(|data: &[u8]| {
    let Some((&selector, rest)) = data.split_first() else { return };
    let Some(options) = options(selector) else { return };
    if selector & 1 == 0 {
        let Some((&pair, patches)) = rest.split_first() else { return };
        let corpus = if selector & 0x04 != 0 { CORPUS_MERCURY } else { CORPUS };
        let first = usize::from(pair) % corpus.len();
        let second = usize::from(pair / 8) % corpus.len();
        let mut a = corpus[first].1.to_vec();
        let mut b = corpus[second].1.to_vec();
        for (n, triple) in patches.chunks_exact(3).enumerate() {
            let target = if n % 2 == 0 { &mut a } else { &mut b };
            let offset = usize::from(u16::from_le_bytes([triple[0], triple[1]]));
            let at = offset % target.len().max(1);
            if let Some(byte) = target.get_mut(at) {
                *byte ^= triple[2];
            }
        }
        let inputs = [Input::new(corpus[first].0, &a), Input::new(corpus[second].0, &b)];
        let in_memory = link(&options, &inputs);
        // The same link with the code read from a source (`Input::code`),
        // as `develf nvlink` reads files: the same bytes or the same error.
        if selector & 2 != 0 {
            let (a_source, b_source): (&dyn CodeSource, &dyn CodeSource) = (&a, &b);
            let (a_bytes, b_bytes) = (without_code(&a), without_code(&b));
            let inputs = [
                Input { name: corpus[first].0, bytes: &a_bytes, code: Some(a_source) },
                Input { name: corpus[second].0, bytes: &b_bytes, code: Some(b_source) },
            ];
            let from_source = link(&options, &inputs);
            assert_eq!(in_memory.map_err(|e| e.to_string()), from_source.map_err(|e| e.to_string()));
        }
    } else {
        let Some((&cuts, rest)) = rest.split_first() else { return };
        let three = cuts & 0x80 != 0;
        let len = rest.len();
        let first_cut = len * usize::from(cuts & 0x3f) / 64;
        let second_cut = if three { first_cut + (len - first_cut) / 2 } else { len };
        let pieces = [&rest[..first_cut], &rest[first_cut..second_cut], &rest[second_cut..]];
        let names = ["a.cubin", "b.cubin", "c.cubin"];
        let count = if three { 3 } else { 2 };
        let inputs: Vec<Input<'_>> =
            pieces.iter().zip(names).take(count).map(|(bytes, name)| Input::new(name, bytes)).collect();
        let _ = link(&options, &inputs);
    }
});
