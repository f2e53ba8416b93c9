//! Inputs the `link` fuzz target (fuzz/fuzz_targets/link.rs) found to
//! panic the linker, replayed the way the target builds its links: each
//! must now link or fail with an error, never panic.

use develf_format::header::Arch;
use develf_link::{Input, LinkOptions, OutputKind, link};
use std::path::PathBuf;

fn fixture(arch: &str, name: &str) -> Vec<u8> {
    let path = PathBuf::from(env!("CARGO_MANIFEST_DIR")).join("../../tests/fixtures/obj").join(arch).join(name);
    std::fs::read(&path).unwrap_or_else(|e| panic!("{}: {e}", path.display()))
}

/// The fuzz target's pair mode: the first byte picks the options, the
/// second the pair of fixture objects, the rest patches them as
/// `(offset: u16 LE, xor byte)` triples, alternately.
fn replay(data: &[u8]) {
    let (&selector, rest) = data.split_first().expect("a selector");
    assert_eq!(selector & 1, 0, "pair mode only");
    let arch = if selector & 0x04 != 0 { "sm_100" } else { "sm_90" };
    let mut options = LinkOptions::new(Arch::parse(arch).expect("an arch"));
    options.output = if selector & 0x02 != 0 { OutputKind::Relocatable } else { OutputKind::Executable };
    options.preserve_relocs = selector & 0x08 != 0;
    options.debug = selector & 0x10 != 0;
    options.threads = 1;
    let corpus: &[&str] = if selector & 0x04 != 0 {
        &[
            "calls_main.cubin",
            "calls_lib.cubin",
            "jtab_a.cubin",
            "jtab_b.cubin",
            "mdbg_a-G.cubin",
            "mdbg_b-G.cubin",
            "mdbg_a-lineinfo.cubin",
            "mdbg_b-lineinfo.cubin",
        ]
    } else {
        &[
            "calls_main.cubin",
            "calls_lib.cubin",
            "shared_a.cubin",
            "shared_b.cubin",
            "weak_a.cubin",
            "weak_b.cubin",
            "tex_b.cubin",
            "managed_b.cubin",
        ]
    };
    let (&pair, patches) = rest.split_first().expect("a pair");
    let (first, second) = (usize::from(pair) % corpus.len(), usize::from(pair / 8) % corpus.len());
    let (mut a, mut b) = (fixture(arch, corpus[first]), fixture(arch, corpus[second]));
    for (n, triple) in patches.chunks_exact(3).enumerate() {
        let target = if n % 2 == 0 { &mut a } else { &mut b };
        let at = usize::from(u16::from_le_bytes([triple[0], triple[1]])) % target.len().max(1);
        if let Some(byte) = target.get_mut(at) {
            *byte ^= triple[2];
        }
    }
    let _ = link(&options, &[Input::new(corpus[first], &a), Input::new(corpus[second], &b)]);
}

/// Session 34: an sm_100 executable of `mdbg_a-lineinfo` and `mdbg_a-G`
/// whose capsule's final `BRA` lay past the code's new end once the
/// error-barrier rewrite (rule 11.8) moved it: `errbar::capsule`
/// subtracted with overflow.
#[test]
fn a_capsule_branch_past_the_new_code_end_is_no_panic() {
    replay(&[
        0x44, 0x26, 0xc2, 0xda, 0x6f, 0x6e, 0xd9, 0xb4, 0xc2, 0xda, 0x26, 0xdd, 0xdd, 0xdd, 0xdd, 0xdd, 0xdd, 0xdd,
        0xdd, 0xdd, 0xdd, 0xdd, 0xdd, 0xdd, 0xdd, 0xdd, 0xdd, 0xdd, 0xdd, 0xdd, 0xdd, 0xdd, 0xdd, 0x90, 0x00, 0x00,
        0x00, 0x00, 0x00, 0x00, 0x00, 0x25, 0x29, 0xd6, 0xd6, 0x29, 0xd6, 0xd6, 0xd6, 0xd6, 0xc2, 0x03, 0x00,
    ]);
}
