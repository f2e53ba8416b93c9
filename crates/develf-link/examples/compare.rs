//! `cargo run --release -p develf-link --example compare -- OURS THEIRS`:
//! compares two cubins with [`develf_link::compare`] and prints `identical`,
//! `equal` (semantically) or `different` followed by the differences, plus the
//! first differing byte offset. For checking develf against nvlink on links
//! outside the fixtures.

use std::process::ExitCode;

fn main() -> ExitCode {
    let args: Vec<String> = std::env::args().skip(1).collect();
    let [ours, theirs] = args.as_slice() else {
        eprintln!("usage: compare OURS THEIRS");
        return ExitCode::from(2);
    };
    let (ours, theirs) = match (std::fs::read(ours), std::fs::read(theirs)) {
        (Ok(a), Ok(b)) => (a, b),
        (Err(e), _) | (_, Err(e)) => {
            eprintln!("compare: {e}");
            return ExitCode::from(2);
        }
    };
    let comparison = develf_link::compare(&ours, &theirs);
    if comparison.byte_identical {
        println!("identical");
        return ExitCode::SUCCESS;
    }
    let first_byte = ours.iter().zip(&theirs).position(|(a, b)| a != b).unwrap_or(ours.len().min(theirs.len()));
    let sizes = format!("size {:#x} vs {:#x}, first byte {first_byte:#x}", ours.len(), theirs.len());
    if comparison.semantically_equal() {
        println!("equal ({sizes})");
    } else {
        println!("different ({sizes})");
        for difference in comparison.semantic_differences.iter().take(6) {
            println!("  {difference}");
        }
    }
    ExitCode::from(1)
}
