//! Damaged cubins get a result or a diagnostic, never a panic: every truncation
//! of a few fixtures and thousands of deterministic bit flips across all of them,
//! each parsed, validated and dumped.

use develf_cli::model::{self, ModelOptions};
use develf_parse::Cubin;
use develf_tests::{Rng, cubin_fixtures};

/// Runs everything a user can run on a file; the result does not matter, only
/// that it returns.
fn exercise(bytes: &[u8]) {
    if let Ok(cubin) = Cubin::parse(bytes) {
        let _ = cubin.validate();
        let _ = model::build(&cubin, ModelOptions { demangle: true });
    }
}

#[test]
fn truncations_and_bit_flips_never_panic() {
    let fixtures = cubin_fixtures();
    let files: Vec<Vec<u8>> = fixtures.iter().map(|f| std::fs::read(f.full_path()).expect("fixture")).collect();
    let mut inputs = 0usize;

    // Every truncation of the three smallest objects of different ABIs and one link.
    let mut by_size: Vec<usize> = (0..files.len()).collect();
    by_size.sort_by_key(|&i| files[i].len());
    let mut chosen: Vec<usize> = Vec::new();
    for want in [(7, "object"), (8, "object"), (8, "linked")] {
        if let Some(&i) = by_size.iter().find(|&&i| fixtures[i].abi == want.0 && fixtures[i].kind == want.1) {
            chosen.push(i);
        }
    }
    for &i in &chosen {
        for len in 0..files[i].len() {
            exercise(&files[i][..len]);
            inputs += 1;
        }
    }

    // Bit flips and byte overwrites spread over every fixture.
    let mut rng = Rng::new(0x5eed_d0e1f);
    let per_file = (6000 / files.len().max(1)).max(20);
    for file in &files {
        let mut buf = file.clone();
        for _ in 0..per_file {
            let flips = 1 + rng.below(4);
            let mut undo = Vec::with_capacity(flips);
            for _ in 0..flips {
                // Favour the headers and tables, where damage reaches the most code.
                let at = if rng.below(2) == 0 { rng.below(buf.len().min(256)) } else { rng.below(buf.len()) };
                undo.push((at, buf[at]));
                if rng.below(4) == 0 {
                    buf[at] = rng.next_u64() as u8;
                } else {
                    buf[at] ^= 1 << rng.below(8);
                }
            }
            exercise(&buf);
            inputs += 1;
            for (at, byte) in undo.into_iter().rev() {
                buf[at] = byte;
            }
        }
    }
    println!("mutation test: {inputs} inputs, 0 panics");
    assert!(inputs > 5000);
}
