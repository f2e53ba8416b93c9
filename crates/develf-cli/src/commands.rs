//! The subcommands. Each reads its inputs, does its work and returns the exit code.

use crate::model::{self, ModelOptions};
use develf_parse::{Cubin, Diagnostic};
use rayon::prelude::*;
use std::io::Write;
use std::path::{Path, PathBuf};
use std::process::ExitCode;

/// Exit status for files that are invalid or unreadable.
const EXIT_INVALID: u8 = 1;

fn display(path: &Path) -> String {
    path.display().to_string()
}

/// What one file gave the validator: lines to print and whether it was valid.
struct Verdict {
    lines: Vec<String>,
    valid: bool,
}

fn validate_one(path: &Path, warnings: bool) -> Verdict {
    let name = display(path);
    let bytes = match std::fs::read(path) {
        Ok(b) => b,
        Err(e) => return Verdict { lines: vec![format!("{name}: error: cannot read: {e}")], valid: false },
    };
    let diagnostics: Vec<Diagnostic> = match Cubin::parse(&bytes) {
        Ok(cubin) => {
            let found = cubin.validate();
            let dropped = found.dropped();
            let mut list = found.into_vec();
            if dropped > 0 {
                list.push(Diagnostic::new(
                    develf_parse::codes::RECORD_PAST_SECTION,
                    format!("{dropped} more problems not shown"),
                ));
            }
            list
        }
        Err(d) => vec![d],
    };
    let valid = !diagnostics.iter().any(Diagnostic::is_error);
    let lines = diagnostics
        .iter()
        .filter(|d| warnings || d.is_error())
        .map(|d| d.display_with_file(&name).to_string())
        .collect();
    Verdict { lines, valid }
}

pub fn validate(files: &[PathBuf], warnings: bool, quiet: bool) -> ExitCode {
    // Validate in parallel, print in input order so output is deterministic.
    let verdicts: Vec<Verdict> = files.par_iter().map(|f| validate_one(f, warnings)).collect();
    let mut stdout = std::io::stdout().lock();
    let mut all_valid = true;
    for (file, v) in files.iter().zip(&verdicts) {
        all_valid &= v.valid;
        for line in &v.lines {
            let _ = writeln!(stdout, "{line}");
        }
        if v.valid && !quiet {
            let _ = writeln!(stdout, "{}: ok", display(file));
        }
    }
    if all_valid { ExitCode::SUCCESS } else { ExitCode::from(EXIT_INVALID) }
}

pub fn dump(files: &[PathBuf], json: bool, demangle: bool) -> ExitCode {
    let options = ModelOptions { demangle };
    let mut ok = true;
    let mut documents = Vec::new();
    let mut stdout = std::io::stdout().lock();
    for path in files {
        let name = display(path);
        let bytes = match std::fs::read(path) {
            Ok(b) => b,
            Err(e) => {
                eprintln!("{name}: error: cannot read: {e}");
                ok = false;
                continue;
            }
        };
        let cubin = match Cubin::parse(&bytes) {
            Ok(c) => c,
            Err(d) => {
                eprintln!("{}", d.display_with_file(&name));
                ok = false;
                continue;
            }
        };
        // Diagnostics go to stderr so the dump itself stays machine-readable.
        let found = cubin.validate();
        for d in found.as_slice().iter().filter(|d| d.is_error()) {
            eprintln!("{}", d.display_with_file(&name));
        }
        let dump = model::build(&cubin, options);
        if json {
            documents.push((name, dump));
        } else {
            let mut text = String::new();
            crate::text::render(&name, &dump, &mut text);
            let _ = writeln!(stdout, "{text}");
        }
    }
    if json {
        let result = if files.len() == 1 && documents.len() == 1 {
            serde_json::to_writer_pretty(&mut stdout, &documents[0].1)
        } else {
            let array: Vec<serde_json::Value> =
                documents.into_iter().map(|(file, d)| serde_json::json!({ "file": file, "dump": d })).collect();
            serde_json::to_writer_pretty(&mut stdout, &array)
        };
        if let Err(e) = result {
            eprintln!("develf: error: cannot write JSON: {e}");
            ok = false;
        }
        let _ = writeln!(stdout);
    }
    if ok { ExitCode::SUCCESS } else { ExitCode::from(EXIT_INVALID) }
}
