//! Parse, validate and dump arbitrary bytes as a zebin, and as an ocloc fat `ar`
//! archive of zebins: must never panic, hang or allocate without bound.
//! Seed corpus: `tests/fixtures/zebin/**/*.bin` and `**/fat/*.ar`.
#![no_main]

use develf_parse::ar::Archive;
use develf_parse::zebin::{ValidateOptions, Zebin};
use libfuzzer_sys::fuzz_target;

fn exercise(data: &[u8]) {
    if let Ok(zebin) = Zebin::parse(data) {
        let _ = zebin.validate(&ValidateOptions::default());
        let _ = zebin.validate(&ValidateOptions { device: Some("bmg"), grf_size: Some(32) });
        let mut text = String::new();
        develf_cli::zebin_dump::text(&zebin, &mut text);
        let _ = develf_cli::zebin_dump::json(&zebin);
    }
}

fuzz_target!(|data: &[u8]| {
    exercise(data);
    if let Ok(archive) = Archive::parse(data) {
        for member in archive.members().flatten() {
            exercise(member.data);
        }
    }
});
