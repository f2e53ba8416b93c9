//! Containers around CUDA device code: fatbins, the host ELF objects that carry
//! them, and `ar` archives of those objects.
//!
//! - [`sniff`] says whether a file is one of these containers;
//! - [`Container::parse`] locates every fatbin and entry without decompressing;
//! - [`Container::entries`] decodes them (LZ4 block, LZ4 frame and ZSTD
//!   payloads, within [`Limits`] that refuse decompression bombs);
//! - [`device_elfs`] and [`relocatable_elfs_for`] give a dumper, validator or
//!   linker the device ELFs inside any input;
//! - [`xelf_files`] names the ELFs as `cuobjdump -xelf all` does;
//! - [`write_fatbin`] writes a fatbin like `fatbinary --create`.
//!
//! Nothing here panics, loops or allocates without bound on hostile input: every
//! offset and size is checked against the bytes that hold it, and decompression
//! writes into a buffer no larger than the entry's declared size, itself capped.
//!
//! ```no_run
//! let bytes = std::fs::read("libcudadevrt.a")?;
//! for entry in develf_fatbin::device_elfs(&bytes).map_err(|d| d.to_string())? {
//!     let size = entry.data.as_ref().map_or(0, |d| d.len());
//!     println!("{} {} {} bytes", entry.label, entry.arch, size);
//! }
//! # Ok::<(), Box<dyn std::error::Error>>(())
//! ```

pub mod codes;
pub mod compress;
pub mod container;
pub mod fatbin;
pub mod write;

pub use compress::{Codec, Limits};
pub use container::{
    Container, ContainerKind, Entry, FatbinSite, Object, Wrapper, cuobjdump_name, device_elfs, device_elfs_with,
    ptx_entries_compatible, relocatable_elfs_compatible, relocatable_elfs_for, serves_accelerated, sniff,
};
pub use fatbin::{EntryHeader, EntryKind, Fatbin, FatbinHeader, Flags, RawEntry, parse_fatbins, trim_elf};
pub use write::{NewEntry, normalize_ptx, write_fatbin};

use develf_parse::Diagnostic;

/// The files `cuobjdump -xelf all FILE` writes for `data`, the contents of a file
/// named `file_name`: `(name, entry)` in order. A bare device ELF gives one
/// `<stem>.<arch>.cubin` (no index); containers give `<stem>.<n>.<arch>.cubin`.
pub fn xelf_files<'a>(
    file_name: &str,
    data: &'a [u8],
    limits: &Limits,
) -> Result<Vec<(String, Entry<'a>)>, Diagnostic> {
    if sniff(data).is_none() && data.starts_with(b"\x7fELF") {
        let entries = device_elfs_with(data, limits)?;
        return Ok(entries.into_iter().map(|e| (cuobjdump_name(file_name, None, &e.arch, e.kind), e)).collect());
    }
    let entries = device_elfs_with(data, limits)?;
    Ok(entries.into_iter().enumerate().map(|(i, e)| (e.cuobjdump_name(file_name, i + 1), e)).collect())
}
