//! `cargo run -p develf-fatbin --example xelf -- FILE [OUT_DIR]`: list the device
//! ELFs in FILE with the names `cuobjdump -xelf all` gives them, and write them
//! to OUT_DIR when one is given.

use std::path::Path;
use std::process::ExitCode;

fn main() -> ExitCode {
    let args: Vec<String> = std::env::args().skip(1).collect();
    let Some(file) = args.first() else {
        eprintln!("usage: xelf FILE [OUT_DIR]");
        return ExitCode::from(2);
    };
    let data = match std::fs::read(file) {
        Ok(d) => d,
        Err(e) => {
            eprintln!("{file}: {e}");
            return ExitCode::FAILURE;
        }
    };
    let name = Path::new(file).file_name().and_then(|n| n.to_str()).unwrap_or(file);
    let files = match develf_fatbin::xelf_files(name, &data, &develf_fatbin::Limits::default()) {
        Ok(f) => f,
        Err(d) => {
            eprintln!("{}", d.display_with_file(file));
            return ExitCode::FAILURE;
        }
    };
    let mut status = ExitCode::SUCCESS;
    for (out_name, entry) in files {
        match &entry.data {
            Ok(bytes) => {
                println!("{out_name} {} {} {} bytes", entry.label, entry.codec.name(), bytes.len());
                if let Some(dir) = args.get(1) {
                    if let Err(e) = std::fs::write(Path::new(dir).join(&out_name), bytes) {
                        eprintln!("{out_name}: {e}");
                        status = ExitCode::FAILURE;
                    }
                }
            }
            Err(d) => {
                eprintln!("{}", d.display_with_file(&out_name));
                status = ExitCode::FAILURE;
            }
        }
    }
    status
}
