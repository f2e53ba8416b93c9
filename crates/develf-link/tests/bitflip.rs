//! Hostile input never panics the linker (DESIGN.md, "Conventions"): links
//! fixture object pairs with a few bits flipped, bytes overwritten or the
//! file truncated, deterministically (xorshift64), as executables and as `-r`
//! links, with and without `-g`, on sm_75, sm_90 and sm_100 (Mercury). A panic fails the test; an
//! `Err` is the expected outcome for most cases, `Ok` for some.

use develf_format::header::Arch;
use develf_link::{Input, LinkOptions, OutputKind, link};
use std::path::PathBuf;

/// Cases in all; each links one pair. `DEVELF_BITFLIP_CASES=N` runs more
/// (the same first 3000, then further ones).
const CASES: usize = 3000;

fn cases() -> usize {
    std::env::var("DEVELF_BITFLIP_CASES").ok().and_then(|v| v.parse().ok()).unwrap_or(CASES)
}

/// Fixture pairs nvlink links (tests/fixtures/manifest.json), per arch.
const PAIRS: &[(&str, &str)] = &[
    ("calls_main", "calls_lib"),
    ("shared_a", "shared_b"),
    ("weak_a", "weak_b"),
    ("sys_main", "sys_util"),
    ("tex_a", "tex_b"),
    ("fptr_main", "fptr_ops"),
];
const ARCHES: &[&str] = &["sm_75", "sm_90", "sm_100"];

struct XorShift(u64);

impl XorShift {
    fn next(&mut self) -> u64 {
        let mut x = self.0;
        x ^= x << 13;
        x ^= x >> 7;
        x ^= x << 17;
        self.0 = x;
        x
    }

    fn below(&mut self, n: usize) -> usize {
        if n == 0 { 0 } else { (self.next() % n as u64) as usize }
    }
}

fn fixture(arch: &str, name: &str) -> Vec<u8> {
    let path = PathBuf::from(env!("CARGO_MANIFEST_DIR"))
        .join("../../tests/fixtures/obj")
        .join(arch)
        .join(format!("{name}.cubin"));
    std::fs::read(&path).unwrap_or_else(|e| panic!("reading {}: {e}", path.display()))
}

/// One of: flip 1..=4 bits; overwrite a little-endian u32 with an extreme
/// value (sizes, offsets, indices); truncate.
fn mutate(bytes: &mut Vec<u8>, rng: &mut XorShift) {
    if bytes.is_empty() {
        return;
    }
    match rng.below(8) {
        0..=4 => {
            for _ in 0..=rng.below(4) {
                let at = rng.below(bytes.len());
                bytes[at] ^= 1 << rng.below(8);
            }
        }
        5 | 6 => {
            // Header and section-header fields are where small edits reach
            // far: bias towards the ELF header and the end (section headers).
            let at = match rng.below(3) {
                0 => rng.below(64.min(bytes.len())),
                1 => bytes.len().saturating_sub(1 + rng.below(512.min(bytes.len()))),
                _ => rng.below(bytes.len()),
            };
            let value: u32 = match rng.below(5) {
                0 => 0,
                1 => u32::MAX,
                2 => 0x8000_0000,
                3 => 1,
                _ => rng.next() as u32,
            };
            for (i, b) in value.to_le_bytes().iter().enumerate() {
                if let Some(slot) = bytes.get_mut(at + i) {
                    *slot = *b;
                }
            }
        }
        _ => {
            let keep = rng.below(bytes.len());
            bytes.truncate(keep);
        }
    }
}

#[test]
fn mutated_fixture_objects_never_panic_the_linker() {
    let mut rng = XorShift(0x9e37_79b9_7f4a_7c15);
    let mut corpus = Vec::new();
    for arch in ARCHES {
        for (a, b) in PAIRS {
            corpus.push((*arch, *a, *b, fixture(arch, a), fixture(arch, b)));
        }
    }
    let (mut ok, mut err) = (0usize, 0usize);
    let cases = cases();
    for case in 0..cases {
        let (arch, a_name, b_name, a, b) = &corpus[rng.below(corpus.len())];
        let (mut a, mut b) = (a.clone(), b.clone());
        match rng.below(3) {
            0 => mutate(&mut a, &mut rng),
            1 => mutate(&mut b, &mut rng),
            _ => {
                mutate(&mut a, &mut rng);
                mutate(&mut b, &mut rng);
            }
        }
        let Some(target) = Arch::parse(arch) else { panic!("{arch}: unknown arch") };
        let mut options = LinkOptions::new(target);
        options.threads = 1;
        options.output = if case % 4 == 3 { OutputKind::Relocatable } else { OutputKind::Executable };
        options.preserve_relocs = case % 7 == 5;
        // `-g`: on sm_100 the inputs are rewritten first (rule 11.9).
        options.debug = case % 5 == 2;
        let inputs = [Input::new(a_name, &a), Input::new(b_name, &b)];
        match link(&options, &inputs) {
            Ok(_) => ok += 1,
            Err(_) => err += 1,
        }
    }
    println!("{cases} mutated links: {ok} linked, {err} refused");
    assert_eq!(ok + err, cases);
}
