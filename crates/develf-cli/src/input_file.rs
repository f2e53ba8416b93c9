//! Reading a file for a link. A relocatable cubin is read without its code
//! (`SHT_PROGBITS` sections with `SHF_EXECINSTR`): the buffer has the file's
//! size and zeros where the code is, and the file stays open so that the
//! linker reads the code while it writes the output
//! (`develf_link::Input::code`). Code is most of a big link's input, and the
//! pages of a fresh zeroed allocation that are never written take no memory.
//! Every other file, and a cubin whose headers do not describe a plain
//! layout, is read whole, so that the linker's checks see it as it is.

use std::fs::File;
use std::io::{self, Read as _};
use std::os::unix::fs::FileExt as _;
use std::path::Path;

/// The most files read without their code in one link: each stays open
/// until the output is written (a common limit is 1024 descriptors).
pub const MAX_OPEN_CODE_FILES: usize = 256;

const ELF_HEADER: usize = 64;
const SECTION_HEADER: u64 = 64;
const PROGRAM_HEADER: u64 = 56;
const EM_CUDA: u16 = 190;
const ET_REL: u16 = 1;
const SHT_PROGBITS: u32 = 1;
const SHF_EXECINSTR: u64 = 0x4;

/// A file's bytes and, when its code was left out, the open file.
#[derive(Debug)]
pub struct FileBytes {
    pub bytes: Vec<u8>,
    pub code: Option<File>,
}

/// Reads `path`; a relocatable cubin without its code when `leave_code`.
pub fn read(path: &Path, leave_code: bool) -> io::Result<FileBytes> {
    let mut file = File::open(path)?;
    let len = file.metadata()?.len();
    if leave_code {
        if let Some(bytes) = read_without_code(&file, len)? {
            return Ok(FileBytes { bytes, code: Some(file) });
        }
    }
    let mut bytes = Vec::with_capacity(usize::try_from(len).unwrap_or(0));
    file.read_to_end(&mut bytes)?;
    Ok(FileBytes { bytes, code: None })
}

fn u16_at(b: &[u8], at: usize) -> u16 {
    b.get(at..at + 2).map_or(0, |x| u16::from_le_bytes([x[0], x[1]]))
}

fn u32_at(b: &[u8], at: usize) -> u32 {
    b.get(at..at + 4).map_or(0, |x| u32::from_le_bytes([x[0], x[1], x[2], x[3]]))
}

fn u64_at(b: &[u8], at: usize) -> u64 {
    b.get(at..at + 8).and_then(|x| x.try_into().ok()).map_or(0, u64::from_le_bytes)
}

/// Reads `len` bytes at `offset` of `file` into the same place of `buf`;
/// `false` (nothing read) when the range is not inside both.
fn read_range(file: &File, buf: &mut [u8], offset: u64, len: u64) -> io::Result<bool> {
    let (Ok(start), Ok(n)) = (usize::try_from(offset), usize::try_from(len)) else { return Ok(false) };
    let Some(window) = start.checked_add(n).and_then(|end| buf.get_mut(start..end)) else { return Ok(false) };
    file.read_exact_at(window, offset)?;
    Ok(true)
}

/// The file with its code left as zeros, or `None` when it is not an ELF64
/// little-endian relocatable cubin with its headers inside the file.
fn read_without_code(file: &File, len: u64) -> io::Result<Option<Vec<u8>>> {
    let mut header = [0u8; ELF_HEADER];
    if len < ELF_HEADER as u64 {
        return Ok(None);
    }
    file.read_exact_at(&mut header, 0)?;
    let elf64_le = header.starts_with(b"\x7fELF") && header[4] == 2 && header[5] == 1;
    if !elf64_le || u16_at(&header, 16) != ET_REL || u16_at(&header, 18) != EM_CUDA {
        return Ok(None);
    }
    let (phoff, shoff) = (u64_at(&header, 0x20), u64_at(&header, 0x28));
    let (phentsize, phnum) = (u16_at(&header, 0x36), u64::from(u16_at(&header, 0x38)));
    let (shentsize, mut shnum) = (u16_at(&header, 0x3a), u64::from(u16_at(&header, 0x3c)));
    if u64::from(shentsize) != SECTION_HEADER || (phnum > 0 && u64::from(phentsize) != PROGRAM_HEADER) {
        return Ok(None);
    }
    let Ok(size) = usize::try_from(len) else { return Ok(None) };
    // Untouched pages of a fresh zeroed allocation are not resident.
    let mut bytes = vec![0u8; size];
    bytes[..ELF_HEADER].copy_from_slice(&header);
    if shnum == 0 && shoff != 0 {
        // Extended numbering: the count is the first header's sh_size.
        if !read_range(file, &mut bytes, shoff, SECTION_HEADER)? {
            return Ok(None);
        }
        shnum = u64_at(&bytes, usize::try_from(shoff).unwrap_or(usize::MAX).saturating_add(32));
    }
    let table = shnum.checked_mul(SECTION_HEADER);
    if !table.is_some_and(|t| read_range(file, &mut bytes, shoff, t).unwrap_or(false)) {
        return Ok(None);
    }
    if phnum > 0 && !read_range(file, &mut bytes, phoff, phnum * PROGRAM_HEADER)? {
        return Ok(None);
    }
    // Everything but the code, in as few reads as there are gaps between
    // code sections (a read per section would be tens of thousands).
    let shoff = usize::try_from(shoff).unwrap_or(usize::MAX);
    let mut code: Vec<(u64, u64)> = (0..usize::try_from(shnum).unwrap_or(0))
        .map(|k| shoff + k * SECTION_HEADER as usize)
        .filter(|&at| u32_at(&bytes, at + 4) == SHT_PROGBITS && u64_at(&bytes, at + 8) & SHF_EXECINSTR != 0)
        .map(|at| (u64_at(&bytes, at + 24), u64_at(&bytes, at + 24).saturating_add(u64_at(&bytes, at + 32))))
        .collect();
    code.sort_unstable();
    let mut from = ELF_HEADER as u64;
    for (start, end) in code.into_iter().chain([(len, len)]) {
        let start = start.min(len);
        if from < start {
            read_range(file, &mut bytes, from, start - from)?;
        }
        from = from.max(end);
    }
    Ok(Some(bytes))
}

/// The code of the files read without it, served to the linker through a
/// read-ahead window: the writer asks for one function at a time, in file
/// order, and a read per function would be tens of thousands of reads.
#[derive(Debug)]
pub struct CodeFiles {
    files: Vec<File>,
    window: std::sync::Mutex<Window>,
}

#[derive(Debug, Default)]
struct Window {
    file: usize,
    start: u64,
    bytes: Vec<u8>,
}

/// How much the window reads at once.
const WINDOW: u64 = 256 * 1024;

impl CodeFiles {
    pub fn new(files: Vec<File>) -> CodeFiles {
        CodeFiles { files, window: std::sync::Mutex::new(Window { file: usize::MAX, ..Window::default() }) }
    }

    /// A source per file, in the order given to [`CodeFiles::new`].
    pub fn sources(&self) -> Vec<FileCode<'_>> {
        (0..self.files.len()).map(|index| FileCode { files: self, index }).collect()
    }

    fn read(&self, index: usize, buf: &mut [u8], offset: u64) -> io::Result<()> {
        let file = self.files.get(index).ok_or_else(|| io::Error::from(io::ErrorKind::NotFound))?;
        let want = buf.len() as u64;
        if want > WINDOW {
            return file.read_exact_at(buf, offset);
        }
        let mut window = self.window.lock().map_err(|_| io::Error::other("code window poisoned"))?;
        let inside = |w: &Window| {
            w.file == index && offset >= w.start && offset.saturating_add(want) <= w.start + w.bytes.len() as u64
        };
        if !inside(&window) {
            let len = file.metadata()?.len();
            let n = WINDOW.min(len.saturating_sub(offset)).max(want);
            window.bytes.resize(usize::try_from(n).unwrap_or(0), 0);
            file.read_exact_at(&mut window.bytes, offset)?;
            window.file = index;
            window.start = offset;
        }
        let at = usize::try_from(offset - window.start).unwrap_or(0);
        buf.copy_from_slice(&window.bytes[at..at + buf.len()]);
        Ok(())
    }
}

/// One file of [`CodeFiles`], as the linker's code source.
#[derive(Debug, Clone, Copy)]
pub struct FileCode<'a> {
    files: &'a CodeFiles,
    index: usize,
}

impl develf_link::CodeSource for FileCode<'_> {
    fn read_exact_at(&self, buf: &mut [u8], offset: u64) -> io::Result<()> {
        self.files.read(self.index, buf, offset)
    }
}

#[cfg(test)]
#[allow(clippy::unwrap_used)] // a failing unwrap is a failing test
mod tests {
    use super::*;

    /// Every byte of a fixture cubin outside its code sections reads the
    /// same as the whole file; the code reads as zeros.
    #[test]
    fn a_cubin_without_its_code_differs_only_in_the_code() {
        let root = Path::new(env!("CARGO_MANIFEST_DIR")).join("../../tests/fixtures/obj/sm_90");
        let mut checked = 0;
        for entry in std::fs::read_dir(root).unwrap() {
            let path = entry.unwrap().path();
            if path.extension().is_none_or(|e| e != "cubin") {
                continue;
            }
            let whole = std::fs::read(&path).unwrap();
            let read = read(&path, true).unwrap();
            assert!(read.code.is_some(), "{} read whole", path.display());
            let cubin = develf_parse::Cubin::parse(&whole).unwrap();
            let mut expect = whole.clone();
            for s in cubin.sections() {
                if s.sh_type == SHT_PROGBITS && s.flags & SHF_EXECINSTR != 0 {
                    let start = s.offset as usize;
                    expect[start..start + s.bytes().len()].fill(0);
                }
            }
            // Gaps between sections are zero in ptxas's files.
            assert_eq!(read.bytes, expect, "{}", path.display());
            checked += 1;
        }
        assert!(checked > 10, "only {checked} fixtures");
    }

    #[test]
    fn other_files_are_read_whole() {
        let path = std::env::temp_dir().join(format!("develf-input-file-{}", std::process::id()));
        std::fs::write(&path, b"not an ELF file at all, but long enough to have a header of sixty-four bytes").unwrap();
        let read = read(&path, true).unwrap();
        assert!(read.code.is_none());
        assert_eq!(read.bytes, std::fs::read(&path).unwrap());
        let _ = std::fs::remove_file(&path);
    }
}
