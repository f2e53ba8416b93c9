//! PTX in a link's inputs, compiled with NVIDIA's `ptxas`.
//!
//! A host object whose fatbin has no device ELF for the target but has PTX
//! for it or an older architecture (`nvcc -arch=sm_80 -rdc=true` objects
//! linked for sm_90, or `code=compute_XX` only) is compiled by nvlink's
//! built-in ptxas. develf has no PTX compiler of its own, so it runs the
//! `ptxas` of the toolkit, as nvlink would: `ptxas -arch=sm_XX -m64 -c` plus
//! the ptxas options nvcc recorded in the entry (`-g --dont-merge-basicblocks
//! --return-at-end` for `-G`). With CUDA 13.5's ptxas the link is byte for
//! byte nvlink's (fixture `jit`), `-G` entries and `nvlink -g` included: the
//! object is ptxas's default `elf.o`, and the PTX file's name is taken off
//! the command line a debug object records in its tkinfo note.
//!
//! Which `ptxas`: `$DEVELF_PTXAS`, else the one next to the running program
//! (develf installed as `nvlink` in a toolkit's `bin/`), else the first on
//! `PATH`. Without one the link stops and says so, rather than leave the
//! PTX's kernels out.

use std::path::{Path, PathBuf};
use std::process::Command;

/// What `nvlink -g` adds to its ptxas command line.
const DEBUG_FLAGS: [&str; 3] = ["-g", "--dont-merge-basicblocks", "--return-at-end"];

/// The environment variable that names the `ptxas` to run.
pub const PTXAS_VARIABLE: &str = "DEVELF_PTXAS";

/// The `ptxas` to run, if any.
pub fn find_ptxas() -> Option<PathBuf> {
    if let Some(path) = std::env::var_os(PTXAS_VARIABLE).filter(|p| !p.is_empty()) {
        // ptxas runs in a scratch directory: a relative path is made absolute.
        let path = PathBuf::from(path);
        let relative = path.is_relative() && path.components().count() > 1;
        return Some(match std::env::current_dir() {
            Ok(here) if relative => here.join(path),
            _ => path,
        });
    }
    let beside = std::env::current_exe().ok().and_then(|exe| exe.parent().map(|dir| dir.join("ptxas")));
    if let Some(path) = beside.filter(|p| p.is_file()) {
        return Some(path);
    }
    let paths = std::env::var_os("PATH")?;
    std::env::split_paths(&paths).map(|dir| dir.join("ptxas")).find(|p| p.is_file())
}

/// The ptxas command line for one entry: the target, 64-bit code, a
/// relocatable object (`-c`), and the entry's own options less the
/// architecture nvcc compiled it for.
pub fn ptxas_arguments(arch: &str, entry_options: &str, debug: bool) -> Vec<String> {
    let mut args = vec![format!("-arch={arch}"), "-m64".to_string()];
    let mut relocatable = false;
    let mut words = entry_options.split_whitespace();
    while let Some(word) = words.next() {
        match word {
            "-arch" | "--gpu-name" => {
                words.next();
            }
            w if w.starts_with("-arch=") || w.starts_with("--gpu-name=") => {}
            "-c" | "--compile-only" => {
                relocatable = true;
                args.push(word.to_string());
            }
            w => args.push(w.to_string()),
        }
    }
    if !relocatable {
        args.push("-c".to_string());
    }
    // `nvlink -g` compiles as nvcc `-G` does (its objects' tkinfo:
    // `-no-bb-merge -ret-end -g`).
    for flag in DEBUG_FLAGS {
        if debug && !args.iter().any(|a| a == flag) {
            args.push(flag.to_string());
        }
    }
    args
}

/// Compiles `ptx` (an entry's text, `options` its recorded ptxas options)
/// for `arch` with `ptxas`, in a fresh directory of the system's temporary
/// directory that is removed afterwards; `what` names the input in messages.
/// Returns the object and what ptxas said on its standard error (warnings,
/// which nvlink passes on).
pub fn compile(
    ptxas: &Path,
    ptx: &[u8],
    options: &str,
    arch: &str,
    debug: bool,
    what: &str,
) -> Result<(Vec<u8>, String), String> {
    let scratch = ScratchDir::new()?;
    let dir = scratch.0.as_path();
    // Relative names, run in `dir`: a `-g` object records them in its
    // `.note.nv.tkinfo`, which must not name a temporary directory. No `-o`:
    // ptxas's own default, `elf.o`, is the object name nvlink's built-in
    // ptxas records.
    let (source_name, object_name) = ("input.ptx", "elf.o");
    let (source, object) = (dir.join(source_name), dir.join(object_name));
    // The text as ptxas reads it: without the NULs that pad fatbin entries.
    let end = ptx.iter().rposition(|&b| b != 0).map_or(0, |i| i + 1);
    std::fs::write(&source, &ptx[..end]).map_err(|e| format!("{what}: writing {}: {e}", source.display()))?;
    let args = ptxas_arguments(arch, options, debug);
    let output = Command::new(ptxas)
        .args(&args)
        .arg(source_name)
        .current_dir(dir)
        .stdin(std::process::Stdio::null())
        .output()
        .map_err(|e| format!("{what}: running {}: {e}", ptxas.display()))?;
    if !output.status.success() {
        let said = String::from_utf8_lossy(&output.stderr);
        return Err(format!(
            "{what}: {} {} failed ({}): {}",
            ptxas.display(),
            args.join(" "),
            output.status,
            said.trim()
        ));
    }
    let mut bytes =
        std::fs::read(&object).map_err(|e| format!("{what}: reading what ptxas wrote ({}): {e}", object.display()))?;
    drop_source_name(&mut bytes, source_name);
    Ok((bytes, String::from_utf8_lossy(&output.stderr).into_owned()))
}

/// A `-g` object's tkinfo note records ptxas's command line, which starts
/// with the PTX file's name; nvlink's built-in ptxas reads no file, so its
/// line starts with the first option (`-no-bb-merge  -ret-end  -g  -arch
/// sm_90 -m 64 -c  `). Takes `source_name` and its space off the line,
/// shrinking the note in place (`sh_size` follows; the link copies only
/// that much). Anything unexpected leaves the object as it is.
fn drop_source_name(object: &mut [u8], source_name: &str) {
    let Some((offset, size_at, note)) = tkinfo_note(object) else { return };
    let Some(shorter) = without_source_name(&note, source_name) else { return };
    let Some(slot) = offset.checked_add(shorter.len()).and_then(|end| object.get_mut(offset..end)) else { return };
    slot.copy_from_slice(&shorter);
    if let Some(size) = object.get_mut(size_at..size_at + 8) {
        size.copy_from_slice(&(shorter.len() as u64).to_le_bytes());
    }
}

/// The tkinfo note of `object`: its file offset, where its `sh_size` is, and
/// a copy of its bytes.
fn tkinfo_note(object: &[u8]) -> Option<(usize, usize, Vec<u8>)> {
    let elf = develf_parse::elf::ElfFile::parse(object).ok()?;
    let section = elf.sections.iter().find(|s| s.name == ".note.nv.tkinfo")?;
    let offset = usize::try_from(section.offset).ok()?;
    let size_at = usize::try_from(section.header_offset).ok()?.checked_add(32)?;
    Some((offset, size_at, section.data?.to_vec()))
}

/// `note` (one NVIDIA tkinfo note: namesz 12, descsz, type, name, then 24
/// bytes of version and string offsets and the strings, the command line
/// last) with `source_name ` taken off the command line; `None` when it is
/// not there.
fn without_source_name(note: &[u8], source_name: &str) -> Option<Vec<u8>> {
    const HEAD: usize = 24;
    let word = |at: usize| Some(u32::from_le_bytes(note.get(at..at + 4)?.try_into().ok()?) as usize);
    let (namesz, descsz) = (word(0)?, word(4)?);
    let desc = 12 + namesz.div_ceil(4) * 4;
    let strings = note.get(desc + HEAD..desc.checked_add(descsz)?)?;
    let command_line = word(desc + 20)?;
    let prefix = format!("{source_name} ");
    if !strings.get(command_line..)?.starts_with(prefix.as_bytes()) {
        return None;
    }
    let end = command_line + strings.get(command_line..)?.iter().position(|&b| b == 0)?;
    let mut new_strings = strings.get(..command_line)?.to_vec();
    new_strings.extend_from_slice(strings.get(command_line + prefix.len()..end)?);
    new_strings.push(0);
    let new_descsz = (HEAD + new_strings.len()).div_ceil(4) * 4;
    let mut out = note.get(..desc + HEAD)?.to_vec();
    out.get_mut(4..8)?.copy_from_slice(&u32::try_from(new_descsz).ok()?.to_le_bytes());
    out.extend_from_slice(&new_strings);
    out.resize(desc + new_descsz, 0);
    Some(out)
}

/// A new directory for one compilation, removed with what is in it when
/// dropped.
struct ScratchDir(PathBuf);

impl ScratchDir {
    fn new() -> Result<ScratchDir, String> {
        use std::sync::atomic::{AtomicU32, Ordering};
        static NEXT: AtomicU32 = AtomicU32::new(0);
        let base = std::env::temp_dir();
        for _ in 0..100 {
            let n = NEXT.fetch_add(1, Ordering::Relaxed);
            let dir = base.join(format!("develf-ptx-{}-{n}", std::process::id()));
            match std::fs::create_dir(&dir) {
                Ok(()) => return Ok(ScratchDir(dir)),
                Err(e) if e.kind() == std::io::ErrorKind::AlreadyExists => continue,
                Err(e) => return Err(format!("creating {}: {e}", dir.display())),
            }
        }
        Err(format!("no free scratch directory in {}", base.display()))
    }
}

impl Drop for ScratchDir {
    fn drop(&mut self) {
        let _ = std::fs::remove_dir_all(&self.0);
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn arguments_keep_the_entry_options_and_take_the_target() {
        assert_eq!(ptxas_arguments("sm_90", "", false), ["-arch=sm_90", "-m64", "-c"]);
        // cuobjdump -ptx of an `nvcc -G` object: ptxasOptions.
        assert_eq!(
            ptxas_arguments("sm_90", "--compile-only  -g --dont-merge-basicblocks --return-at-end ", true),
            ["-arch=sm_90", "-m64", "--compile-only", "-g", "--dont-merge-basicblocks", "--return-at-end"]
        );
        assert_eq!(ptxas_arguments("sm_100", "-arch=sm_80 -O3", false), ["-arch=sm_100", "-m64", "-O3", "-c"]);
        assert_eq!(ptxas_arguments("sm_100", "-arch sm_80", false), ["-arch=sm_100", "-m64", "-c"]);
        assert_eq!(
            ptxas_arguments("sm_90", "", true),
            ["-arch=sm_90", "-m64", "-c", "-g", "--dont-merge-basicblocks", "--return-at-end"]
        );
    }
}
