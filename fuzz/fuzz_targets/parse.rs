//! Parse, validate and dump arbitrary bytes as a cubin: must never panic,
//! hang or allocate without bound.
#![no_main]

use libfuzzer_sys::fuzz_target;

fuzz_target!(|data: &[u8]| {
    if let Ok(cubin) = develf_parse::Cubin::parse(data) {
        let _ = cubin.validate();
        let _ = develf_cli::model::build(&cubin, develf_cli::model::ModelOptions { demangle: true });
    }
});
