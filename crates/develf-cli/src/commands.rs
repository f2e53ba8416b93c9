//! The subcommands. Each reads its inputs, does its work and returns the exit code.

use crate::input::{self, Object};
use crate::model::{self, ModelOptions};
use develf_parse::zebin::ValidateOptions as ZebinOptions;
use develf_parse::zebin::codes as zebin_codes;
use develf_parse::{Diagnostic, Diagnostics};
use rayon::prelude::*;
use std::io::Write;
use std::path::{Path, PathBuf};
use std::process::ExitCode;

/// Exit status for files that are invalid or unreadable.
const EXIT_INVALID: u8 = 1;

/// Options of `develf validate`.
#[derive(Debug, Clone, Default)]
pub struct ValidateArgs {
    /// Print warnings too.
    pub warnings: bool,
    /// Print nothing for valid files.
    pub quiet: bool,
    /// Zebins: the device they must target.
    pub device: Option<String>,
    /// Zebins: the register size for the `local_id` rule.
    pub grf_size: Option<u32>,
}

fn display(path: &Path) -> String {
    path.display().to_string()
}

/// What one file gave the validator: lines to print and whether it was valid.
struct Verdict {
    lines: Vec<String>,
    valid: bool,
}

fn diagnostics_of(object: &Object<'_>, args: &ValidateArgs) -> Diagnostics {
    match object {
        Object::Cubin(c) => {
            let mut d = c.validate();
            // Metadata records are only decodable once the structure is sound.
            if !d.has_errors() {
                crate::metadata::diagnostics(c).into_iter().for_each(|m| d.push(m));
            }
            d
        }
        Object::Zebin(z) => z.validate(&ZebinOptions { device: args.device.as_deref(), grf_size: args.grf_size }),
    }
}

fn validate_one(path: &Path, args: &ValidateArgs) -> Verdict {
    let name = display(path);
    let bytes = match std::fs::read(path) {
        Ok(b) => b,
        Err(e) => return Verdict { lines: vec![format!("{name}: error: cannot read: {e}")], valid: false },
    };
    let blobs = input::blobs(&name, &bytes);
    let mut results: Vec<(String, Vec<Diagnostic>, usize)> = blobs
        .iter()
        .map(|b| match b.data.as_deref().map_err(Clone::clone).and_then(input::parse) {
            Ok(object) => {
                let d = diagnostics_of(&object, args);
                let dropped = d.dropped();
                (b.label.clone(), d.into_vec(), dropped)
            }
            Err(d) => (b.label.clone(), vec![d], 0),
        })
        .collect();
    // A fat archive holds one binary per device and the runtime loads the one
    // that matches: with --device, members for other devices are skipped, and
    // the archive is invalid only if none is for the device.
    let is_archive = input::is_container(&bytes);
    if is_archive && args.device.is_some() {
        let mismatched = |d: &Vec<Diagnostic>| d.iter().any(|d| d.code == zebin_codes::TARGET_MISMATCH);
        let any_match = results.iter().any(|(_, d, _)| !mismatched(d));
        if any_match {
            results.retain(|(_, d, _)| !mismatched(d));
        } else {
            let device = args.device.as_deref().unwrap_or_default();
            let d = Diagnostic::new(zebin_codes::TARGET_MISMATCH, format!("no member of the archive targets {device}"));
            results = vec![(name.clone(), vec![d], 0)];
        }
    }
    let mut lines = Vec::new();
    let mut valid = true;
    for (label, list, dropped) in &results {
        let ok = !list.iter().any(Diagnostic::is_error);
        valid &= ok;
        lines.extend(
            list.iter().filter(|d| args.warnings || d.is_error()).map(|d| d.display_with_file(label).to_string()),
        );
        if *dropped > 0 {
            lines.push(format!("{label}: note: {dropped} more problems not shown"));
        }
        if ok && !args.quiet {
            lines.push(format!("{label}: ok"));
        }
    }
    Verdict { lines, valid }
}

pub fn validate(files: &[PathBuf], args: &ValidateArgs) -> ExitCode {
    // Validate in parallel, print in input order so output is deterministic.
    let verdicts: Vec<Verdict> = files.par_iter().map(|f| validate_one(f, args)).collect();
    let mut stdout = std::io::stdout().lock();
    let mut all_valid = true;
    for v in &verdicts {
        all_valid &= v.valid;
        for line in &v.lines {
            let _ = writeln!(stdout, "{line}");
        }
    }
    if all_valid { ExitCode::SUCCESS } else { ExitCode::from(EXIT_INVALID) }
}

/// The JSON document of one object.
fn json_of(object: &Object<'_>, options: ModelOptions) -> serde_json::Value {
    match object {
        Object::Cubin(c) => serde_json::to_value(model::build(c, options)).unwrap_or(serde_json::Value::Null),
        Object::Zebin(z) => crate::zebin_dump::json(z),
    }
}

fn text_of(label: &str, object: &Object<'_>, options: ModelOptions, out: &mut String) {
    match object {
        Object::Cubin(c) => crate::text::render(label, &model::build(c, options), out),
        Object::Zebin(z) => {
            out.push_str(&format!("File: {label}\n"));
            crate::zebin_dump::text(z, out);
        }
    }
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
        if !json {
            if let Some(listing) = crate::fatbin_cmd::listing(&name, &bytes) {
                let _ = writeln!(stdout, "{listing}");
            }
        }
        for blob in input::blobs(&name, &bytes) {
            let object = match blob.data.as_deref().map_err(Clone::clone).and_then(input::parse) {
                Ok(o) => o,
                Err(d) => {
                    eprintln!("{}", d.display_with_file(&blob.label));
                    ok = false;
                    continue;
                }
            };
            // Errors go to stderr so the dump itself stays machine-readable.
            let diagnostics = diagnostics_of(&object, &ValidateArgs::default());
            for d in diagnostics.as_slice().iter().filter(|d| d.is_error()) {
                eprintln!("{}", d.display_with_file(&blob.label));
            }
            if json {
                documents.push((blob.label.clone(), json_of(&object, options)));
            } else {
                let mut text = String::new();
                text_of(&blob.label, &object, options, &mut text);
                let _ = writeln!(stdout, "{text}");
            }
        }
    }
    if json {
        let single = files.len() == 1 && documents.len() == 1;
        let value = if single {
            documents.pop().map(|(_, d)| d).unwrap_or_default()
        } else {
            documents.into_iter().map(|(file, dump)| serde_json::json!({ "file": file, "dump": dump })).collect()
        };
        if let Err(e) = serde_json::to_writer_pretty(&mut stdout, &value) {
            eprintln!("develf: error: cannot write JSON: {e}");
            ok = false;
        }
        let _ = writeln!(stdout);
    }
    if ok { ExitCode::SUCCESS } else { ExitCode::from(EXIT_INVALID) }
}
