//! `develf extract`: write the device ELFs inside fatbins, host objects and
//! archives to files, named and numbered as `cuobjdump -xelf` names them
//! (`libcudadevrt.1.sm_75.cubin`, `kern.sm_90.cubin` for a bare cubin,
//! `<ident>.sm_90.cubin` for an entry with an identifier). Also `list`, which
//! prints the names as `cuobjdump -lelf` does.

use develf_fatbin::{Entry, Limits};
use std::io::Write;
use std::path::{Path, PathBuf};
use std::process::ExitCode;

/// The entries of one file that pass `filter` (a substring of the output name,
/// as cuobjdump's `-xelf <partial name>`; `None` or `all` for every one).
fn selected<'a>(
    file: &Path,
    data: &'a [u8],
    filter: Option<&str>,
) -> Result<Vec<(String, Entry<'a>)>, develf_parse::Diagnostic> {
    let name = file.file_name().and_then(|n| n.to_str()).unwrap_or_default();
    let files = develf_fatbin::xelf_files(name, data, &Limits::default())?;
    Ok(files.into_iter().filter(|(n, _)| filter.is_none_or(|f| f == "all" || n.contains(f))).collect())
}

/// Calls `each` with the entries of every file that can be read and decoded
/// (those passing `filter`), and prints why for the others. Returns whether
/// every file could be read; `each` says whether all its entries went well.
fn for_each_file(
    files: &[PathBuf],
    filter: Option<&str>,
    mut each: impl FnMut(&str, Vec<(String, Entry<'_>)>) -> bool,
) -> bool {
    let mut ok = true;
    for file in files {
        let label = file.display().to_string();
        let data = match std::fs::read(file) {
            Ok(d) => d,
            Err(e) => {
                eprintln!("{label}: {e}");
                ok = false;
                continue;
            }
        };
        match selected(file, &data, filter) {
            Ok(entries) => ok &= each(&label, entries),
            Err(d) => {
                eprintln!("{}", d.display_with_file(&label));
                ok = false;
            }
        }
    }
    ok
}

fn exit_status(ok: bool) -> ExitCode {
    if ok { ExitCode::SUCCESS } else { ExitCode::from(1) }
}

/// Writes every device ELF in `files` into `out_dir` (default: the current
/// directory). Exit status 1 when a file cannot be read or an entry decoded;
/// the other entries are still written.
pub fn extract(files: &[PathBuf], out_dir: Option<&Path>, filter: Option<&str>) -> ExitCode {
    let out_dir = out_dir.unwrap_or(Path::new("."));
    let mut stdout = std::io::stdout().lock();
    exit_status(for_each_file(files, filter, |label, entries| {
        let mut ok = true;
        for (index, (name, entry)) in entries.iter().enumerate() {
            match &entry.data {
                Ok(bytes) => {
                    let path = out_dir.join(name);
                    if let Err(e) = std::fs::write(&path, bytes) {
                        eprintln!("{}: {e}", path.display());
                        ok = false;
                        continue;
                    }
                    let _ = writeln!(stdout, "Extracting ELF file {:>4}: {name}", index + 1);
                }
                Err(d) => {
                    eprintln!("{}", d.display_with_file(&format!("{label}: {}", entry.label)));
                    ok = false;
                }
            }
        }
        ok
    }))
}

/// Prints `ELF file    N: NAME` for every device ELF, as `cuobjdump -lelf` does
/// (without its `member ...:` headings).
pub fn list(files: &[PathBuf]) -> ExitCode {
    let mut stdout = std::io::stdout().lock();
    exit_status(for_each_file(files, None, |_, entries| {
        for (index, (name, _)) in entries.iter().enumerate() {
            let _ = writeln!(stdout, "ELF file {:>4}: {name}", index + 1);
        }
        true
    }))
}
