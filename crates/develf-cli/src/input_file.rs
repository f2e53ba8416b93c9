//! Reading a file for a link. A relocatable cubin is mapped (Linux) or
//! read without its code (`SHT_PROGBITS` sections with `SHF_EXECINSTR`),
//! and the file stays open so that the linker reads the code while it
//! writes the output (`develf_link::Input::code`): code is most of a big
//! link's input, and it is never held in memory. Mapped, only the pages the
//! linker reads are resident, and they come from the page cache as they
//! are, where a read copies them into freshly zeroed memory (a big link:
//! 2,400 fewer faults of new pages, each several times the cost of mapping
//! a cached one). Read, the buffer has the file's size and zeros where the
//! code is. Every other file, and a cubin whose headers do not describe a
//! plain layout, is read whole, so that the linker's checks see it as it is.

use develf_format::header::EM_CUDA;
use develf_link::is_code_section;
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
const ET_REL: u16 = 1;

/// One file of a link as read: where its bytes are and, when its code was
/// left out, the open file the code is read from.
#[derive(Debug)]
pub struct ReadFile {
    pub bytes: FileBytes,
    pub code: Option<File>,
}

/// Where a file's bytes are.
#[derive(Debug)]
pub enum FileBytes {
    /// In [`ReadFiles::arena`].
    Arena(std::ops::Range<usize>),
    Owned(Vec<u8>),
    /// The file itself, mapped (shared with the code source, which drops
    /// the pages the linker has parsed: [`develf_link::CodeSource::parsed`]).
    Mapped(std::sync::Arc<mapping::Mapping>),
}

/// The files of a link. Relocatable cubins share one zeroed allocation, big
/// enough to come fresh from the system: the pages of code never read are
/// never touched. (A buffer per file would come from the heap, whose
/// recycled memory calloc has to clear, touching every page.)
#[derive(Debug, Default)]
pub struct ReadFiles {
    pub arena: Vec<u8>,
    /// In the order of the paths; the first error is the one to report.
    pub files: Vec<io::Result<ReadFile>>,
}

impl ReadFiles {
    pub fn bytes<'a>(&'a self, file: &'a FileBytes) -> &'a [u8] {
        match file {
            FileBytes::Arena(range) => self.arena.get(range.clone()).unwrap_or_default(),
            FileBytes::Owned(bytes) => bytes,
            FileBytes::Mapped(map) => map.bytes(),
        }
    }
}

/// A file opened and measured, with its ELF header if it is a relocatable
/// cubin to read without its code, and its mapping when it could be mapped.
struct Probe {
    file: File,
    len: u64,
    header: Option<[u8; ELF_HEADER]>,
    mapped: Option<mapping::Mapping>,
}

fn probe(path: &Path, leave_code: bool, map: bool) -> io::Result<Probe> {
    let file = File::open(path)?;
    let metadata = file.metadata()?;
    let len = metadata.len();
    let mut header = [0u8; ELF_HEADER];
    let cubin = leave_code && len >= ELF_HEADER as u64 && {
        file.read_exact_at(&mut header, 0)?;
        let elf64_le = header.starts_with(b"\x7fELF") && header[4] == 2 && header[5] == 1;
        elf64_le && u16_at(&header, 16) == ET_REL && u16_at(&header, 18) == EM_CUDA
    };
    // Only a regular file is mapped (a pipe or device is read).
    let mapped = (cubin && map && metadata.is_file()).then(|| map_without_code(&file, len)).flatten();
    Ok(Probe { file, len, header: cubin.then_some(header), mapped })
}

/// Maps a relocatable cubin, its code pages replaced by zeros: the kernel
/// maps the pages around each one read (fault-around), and code pages
/// mapped that way would count as resident though the linker reads the code
/// from the file. `None` when it cannot be mapped (then it is read).
fn map_without_code(file: &File, len: u64) -> Option<mapping::Mapping> {
    let map = mapping::Mapping::new(file, usize::try_from(len).ok()?)?;
    for (start, end) in code_runs(map.bytes()) {
        map.zero_pages(start, end);
    }
    Some(map)
}

/// The stretches of `bytes` (a cubin) that only code sections cover, from
/// the first code byte of a run to its last: gaps between code sections
/// belong to the run unless another section's bytes or a header table lie
/// there. Empty when the headers do not describe a plain layout.
fn code_runs(bytes: &[u8]) -> Vec<(usize, usize)> {
    let len = bytes.len() as u64;
    let (phoff, shoff) = (u64_at(bytes, 0x20), u64_at(bytes, 0x28));
    let (shentsize, mut shnum) = (u16_at(bytes, 0x3a), u64::from(u16_at(bytes, 0x3c)));
    let phnum = u64::from(u16_at(bytes, 0x38));
    if u64::from(shentsize) != SECTION_HEADER {
        return Vec::new();
    }
    if shnum == 0 && shoff != 0 {
        shnum = u64_at(bytes, usize::try_from(shoff).unwrap_or(usize::MAX).saturating_add(32));
    }
    let table_end = shnum.checked_mul(SECTION_HEADER).and_then(|t| t.checked_add(shoff));
    if table_end.is_none_or(|end| end > len) {
        return Vec::new();
    }
    let mut code = Vec::new();
    // What must stay: the headers and every other section's bytes.
    let mut kept = vec![(0, ELF_HEADER as u64), (shoff, shoff + shnum * SECTION_HEADER)];
    if phnum > 0 {
        kept.push((phoff, phoff.saturating_add(phnum * PROGRAM_HEADER)));
    }
    let shoff = usize::try_from(shoff).unwrap_or(usize::MAX);
    for k in 0..usize::try_from(shnum).unwrap_or(0) {
        let at = shoff + k * SECTION_HEADER as usize;
        let (sh_type, flags) = (u32_at(bytes, at + 4), u64_at(bytes, at + 8));
        let (offset, size) = (u64_at(bytes, at + 24), u64_at(bytes, at + 32));
        let range = (offset, offset.saturating_add(size).min(len));
        if is_code_section(sh_type, flags) {
            code.push(range);
        } else if sh_type != develf_format::section::SHT_NOBITS && size > 0 {
            kept.push(range);
        }
    }
    code.sort_unstable();
    kept.sort_unstable();
    // The furthest end of the kept ranges starting before each one's start
    // and it: a kept range lies in a gap `last_end..start` when one starting
    // before `start` ends after `last_end`.
    let reach: Vec<u64> = kept
        .iter()
        .scan(0u64, |far, &(_, end)| {
            *far = (*far).max(end);
            Some(*far)
        })
        .collect();
    let mut runs: Vec<(u64, u64)> = Vec::new();
    for (start, end) in code.into_iter().filter(|&(s, e)| s < e) {
        let joins = runs.last().is_some_and(|&(_, last_end)| {
            let before = kept.partition_point(|&(ks, _)| ks < start);
            start <= last_end || before.checked_sub(1).is_none_or(|k| reach[k] <= last_end)
        });
        match runs.last_mut() {
            Some(run) if joins => run.1 = run.1.max(end),
            _ => runs.push((start, end)),
        }
    }
    runs.into_iter().filter_map(|(s, e)| Some((usize::try_from(s).ok()?, usize::try_from(e).ok()?))).collect()
}

/// A cubin's place in the arena and its part of the arena to fill.
type Slot<'b> = (std::ops::Range<usize>, &'b mut [u8]);

/// Reads `paths` in parallel: relocatable cubins mapped or without their
/// code when `leave_code`, everything else whole.
pub fn read_all(paths: &[&Path], leave_code: bool) -> ReadFiles {
    read_all_with(paths, leave_code, true)
}

/// [`read_all`], cubins mapped only when `map` (else read without their code).
fn read_all_with(paths: &[&Path], leave_code: bool, map: bool) -> ReadFiles {
    use rayon::prelude::*;
    let probes: Vec<io::Result<Probe>> = paths.par_iter().map(|p| probe(p, leave_code, map)).collect();
    let in_arena = |p: &io::Result<Probe>| match p {
        Ok(p) if p.header.is_some() && p.mapped.is_none() => usize::try_from(p.len).ok(),
        _ => None,
    };
    let total: usize = probes.iter().filter_map(in_arena).sum();
    let mut arena = vec![0u8; total];
    let mut rest: &mut [u8] = &mut arena;
    let mut at = 0usize;
    let mut work: Vec<(io::Result<Probe>, Option<Slot<'_>>)> = Vec::with_capacity(probes.len());
    for p in probes {
        let slot = in_arena(&p).map(|len| {
            let (head, tail) = std::mem::take(&mut rest).split_at_mut(len);
            rest = tail;
            at += len;
            (at - len..at, head)
        });
        work.push((p, slot));
    }
    let files = work.into_par_iter().map(|(probe, slot)| read_one(probe?, slot)).collect();
    ReadFiles { arena, files }
}

fn read_one(mut probe: Probe, slot: Option<Slot<'_>>) -> io::Result<ReadFile> {
    if let Some(map) = probe.mapped.take() {
        return Ok(ReadFile { bytes: FileBytes::Mapped(std::sync::Arc::new(map)), code: Some(probe.file) });
    }
    if let (Some((range, buf)), Some(header)) = (slot, probe.header) {
        if read_without_code(&probe.file, &header, buf)? {
            return Ok(ReadFile { bytes: FileBytes::Arena(range), code: Some(probe.file) });
        }
        probe.file.read_exact_at(buf, 0)?;
        return Ok(ReadFile { bytes: FileBytes::Arena(range), code: None });
    }
    let mut bytes = Vec::with_capacity(usize::try_from(probe.len).unwrap_or(0));
    probe.file.read_to_end(&mut bytes)?;
    Ok(ReadFile { bytes: FileBytes::Owned(bytes), code: None })
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

/// Reads the cubin whose ELF header is `header` into `bytes` (zeros, the
/// file's size) but for its code; `false` when its headers do not lie
/// inside the file (then nothing is left out).
fn read_without_code(file: &File, header: &[u8; ELF_HEADER], bytes: &mut [u8]) -> io::Result<bool> {
    let len = bytes.len() as u64;
    let (phoff, shoff) = (u64_at(header, 0x20), u64_at(header, 0x28));
    let (phentsize, phnum) = (u16_at(header, 0x36), u64::from(u16_at(header, 0x38)));
    let (shentsize, mut shnum) = (u16_at(header, 0x3a), u64::from(u16_at(header, 0x3c)));
    if u64::from(shentsize) != SECTION_HEADER || (phnum > 0 && u64::from(phentsize) != PROGRAM_HEADER) {
        return Ok(false);
    }
    let Some(head) = bytes.get_mut(..ELF_HEADER) else { return Ok(false) };
    head.copy_from_slice(header);
    if shnum == 0 && shoff != 0 {
        // Extended numbering: the count is the first header's sh_size.
        if !read_range(file, bytes, shoff, SECTION_HEADER)? {
            return Ok(false);
        }
        shnum = u64_at(bytes, usize::try_from(shoff).unwrap_or(usize::MAX).saturating_add(32));
    }
    let table = shnum.checked_mul(SECTION_HEADER);
    if !table.is_some_and(|t| read_range(file, bytes, shoff, t).unwrap_or(false)) {
        return Ok(false);
    }
    if phnum > 0 && !read_range(file, bytes, phoff, phnum * PROGRAM_HEADER)? {
        return Ok(false);
    }
    // Everything but the code, in as few reads as there are gaps between
    // code sections (a read per section would be tens of thousands).
    let shoff = usize::try_from(shoff).unwrap_or(usize::MAX);
    let mut code: Vec<(u64, u64)> = (0..usize::try_from(shnum).unwrap_or(0))
        .map(|k| shoff + k * SECTION_HEADER as usize)
        .filter(|&at| is_code_section(u32_at(bytes, at + 4), u64_at(bytes, at + 8)))
        .map(|at| (u64_at(bytes, at + 24), u64_at(bytes, at + 24).saturating_add(u64_at(bytes, at + 32))))
        .collect();
    code.sort_unstable();
    let mut from = ELF_HEADER as u64;
    for (start, end) in code.into_iter().chain([(len, len)]) {
        let start = start.min(len);
        if from < start {
            read_range(file, bytes, from, start - from)?;
        }
        from = from.max(end);
    }
    Ok(true)
}

/// Read-only maps of whole files (Linux with glibc, where develf already
/// calls the C library; elsewhere nothing is mapped and files are read).
#[cfg(all(target_os = "linux", target_env = "gnu"))]
#[allow(unsafe_code)]
pub mod mapping {
    use std::fs::File;
    use std::os::fd::AsRawFd as _;

    /// `len` bytes of a file, mapped private and read-only.
    #[derive(Debug)]
    pub struct Mapping {
        at: std::ptr::NonNull<u8>,
        len: usize,
    }

    // SAFETY: the mapping is read-only and owned by this value alone; reading
    // it from several threads is reading shared immutable memory.
    unsafe impl Send for Mapping {}
    // SAFETY: as above: `&Mapping` only gives out `&[u8]`.
    unsafe impl Sync for Mapping {}

    impl Mapping {
        /// Maps `len` bytes of `file` (a regular file, its size), or `None`
        /// when it cannot be mapped (empty, no address space): the caller
        /// reads it instead.
        pub fn new(file: &File, len: usize) -> Option<Mapping> {
            if len == 0 {
                return None;
            }
            // SAFETY: a new private read-only mapping of an open file: it
            // aliases no Rust memory, and `Drop` unmaps exactly it. Like every
            // tool that maps its inputs (mold, lld), this assumes the inputs
            // are not rewritten while the link runs.
            let at = unsafe {
                libc::mmap(std::ptr::null_mut(), len, libc::PROT_READ, libc::MAP_PRIVATE, file.as_raw_fd(), 0)
            };
            if at == libc::MAP_FAILED {
                return None;
            }
            Some(Mapping { at: std::ptr::NonNull::new(at.cast::<u8>())?, len })
        }

        pub fn bytes(&self) -> &[u8] {
            // SAFETY: `at..at + len` is mapped readable until `self` drops.
            unsafe { std::slice::from_raw_parts(self.at.as_ptr(), self.len) }
        }

        /// The whole pages inside `start..end` (clamped to the mapping), as
        /// an address and a length, if there are any.
        fn whole_pages(&self, start: usize, end: usize) -> Option<(*mut libc::c_void, usize)> {
            // SAFETY: sysconf only reads a system parameter.
            let page = usize::try_from(unsafe { libc::sysconf(libc::_SC_PAGESIZE) }).ok().filter(|&p| p > 0)?;
            let (first, last) = (start.div_ceil(page).checked_mul(page)?, end.min(self.len) / page * page);
            // SAFETY: `first < last <= len`: the address lies in the mapping.
            (first < last).then(|| (unsafe { self.at.as_ptr().add(first) }.cast(), last - first))
        }

        /// Lets the system drop the whole pages inside `start..end` from
        /// memory: read again, they come back from the file.
        pub fn drop_pages(&self, start: usize, end: usize) {
            let Some((at, len)) = self.whole_pages(start, end) else { return };
            // SAFETY: advice on whole pages inside this read-only private file
            // mapping. Such pages are never written, so dropping them loses
            // nothing: a later read maps the file's bytes again (or the zero
            // page where `zero_pages` put it). No slice of them is changed.
            unsafe {
                libc::madvise(at, len, libc::MADV_DONTNEED);
            }
        }

        /// Makes the whole pages inside `start..end` read as zeros, taking
        /// no memory (the kernel's zero page). Left as they are when that
        /// fails.
        pub fn zero_pages(&self, start: usize, end: usize) {
            let Some((at, len)) = self.whole_pages(start, end) else { return };
            // SAFETY: replaces whole pages inside this mapping with a private
            // anonymous read-only mapping at the same address; no `&mut` to
            // them exists, and `bytes` readers see zeros there from now on, as
            // they would after reading the file without its code.
            unsafe {
                libc::mmap(at, len, libc::PROT_READ, libc::MAP_PRIVATE | libc::MAP_ANONYMOUS | libc::MAP_FIXED, -1, 0);
            }
        }
    }

    impl Drop for Mapping {
        fn drop(&mut self) {
            // SAFETY: unmaps the mapping made in `new`; no slice of it
            // outlives `self` (`bytes` borrows it).
            unsafe {
                libc::munmap(self.at.as_ptr().cast(), self.len);
            }
        }
    }
}

/// Without the C library: nothing is mapped.
#[cfg(not(all(target_os = "linux", target_env = "gnu")))]
pub mod mapping {
    /// Never made: files are read.
    #[derive(Debug)]
    pub enum Mapping {}

    impl Mapping {
        pub fn new(_file: &std::fs::File, _len: usize) -> Option<Mapping> {
            None
        }

        pub fn bytes(&self) -> &[u8] {
            match *self {}
        }

        pub fn zero_pages(&self, _start: usize, _end: usize) {
            match *self {}
        }

        pub fn drop_pages(&self, _start: usize, _end: usize) {
            match *self {}
        }
    }
}

/// The code of the files read without it, served to the linker through a
/// read-ahead window: the writer asks for one function at a time, in file
/// order, and a read per function would be tens of thousands of reads.
/// Each of the pool's threads has a window of its own (the output is
/// written in spans, in parallel; one shared window would be reread at
/// every switch between two threads' files).
#[derive(Debug)]
pub struct CodeFiles {
    files: Vec<File>,
    /// Per file, its map when it was mapped (see [`FileBytes::Mapped`]).
    maps: Vec<Option<std::sync::Arc<mapping::Mapping>>>,
    windows: Vec<std::sync::Mutex<Window>>,
}

#[derive(Debug)]
struct Window {
    file: usize,
    start: u64,
    bytes: Vec<u8>,
}

/// How much the window reads at once.
const WINDOW: u64 = 128 * 1024;

impl CodeFiles {
    /// Called from the rayon pool that will write the output: a window per
    /// thread of that pool, plus one for any other thread.
    /// `files` with, for each, its map if it was mapped.
    pub fn new(files: Vec<(File, Option<std::sync::Arc<mapping::Mapping>>)>) -> CodeFiles {
        let windows = (0..=rayon::current_num_threads())
            .map(|_| std::sync::Mutex::new(Window { file: usize::MAX, start: 0, bytes: Vec::new() }))
            .collect();
        let (files, maps) = files.into_iter().unzip();
        CodeFiles { files, maps, windows }
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
        let mine = rayon::current_thread_index().map_or(self.windows.len() - 1, |t| t % self.windows.len());
        let mut window = self.windows[mine].lock().map_err(|_| io::Error::other("code window poisoned"))?;
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

    fn parsed(&self, offset: u64, len: u64) {
        if let Some(map) = self.files.maps.get(self.index).and_then(Option::as_ref) {
            let start = usize::try_from(offset).unwrap_or(usize::MAX);
            map.drop_pages(start, start.saturating_add(usize::try_from(len).unwrap_or(usize::MAX)));
        }
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
            let all = read_all_with(&[path.as_path()], true, false);
            let read = all.files[0].as_ref().unwrap();
            assert!(read.code.is_some(), "{} read whole", path.display());
            assert!(matches!(read.bytes, FileBytes::Arena(_)), "{} mapped", path.display());
            let cubin = develf_parse::Cubin::parse(&whole).unwrap();
            let mut expect = whole.clone();
            for s in cubin.sections() {
                if is_code_section(s.sh_type, s.flags) {
                    let start = s.offset as usize;
                    expect[start..start + s.bytes().len()].fill(0);
                }
            }
            // Gaps between sections are zero in ptxas's files.
            assert_eq!(all.bytes(&read.bytes), expect.as_slice(), "{}", path.display());
            checked += 1;
        }
        assert!(checked > 10, "only {checked} fixtures");
    }

    /// Mapped (where the platform maps files), a cubin's bytes are the
    /// file's, and its code is still read from the open file.
    #[test]
    fn a_mapped_cubin_is_the_whole_file() {
        let root = Path::new(env!("CARGO_MANIFEST_DIR")).join("../../tests/fixtures/obj/sm_90");
        let path = root.join("calls_main.cubin");
        let all = read_all(&[path.as_path()], true);
        let read = all.files[0].as_ref().unwrap();
        assert!(read.code.is_some());
        let whole = std::fs::read(&path).unwrap();
        if cfg!(all(target_os = "linux", target_env = "gnu")) {
            assert!(matches!(read.bytes, FileBytes::Mapped(_)));
            assert_eq!(all.bytes(&read.bytes), whole.as_slice());
        }
    }

    /// Pages the linker says it has parsed may be dropped from memory: read
    /// again, they are the file's bytes (and the code still reads as the
    /// file's through the source).
    #[test]
    fn parsed_pages_read_back_the_same() {
        use develf_link::CodeSource as _;
        let path = Path::new(env!("CARGO_MANIFEST_DIR")).join("../../tests/fixtures/obj/sm_90/calls_main.cubin");
        let whole = std::fs::read(&path).unwrap();
        let mut all = read_all(&[path.as_path()], true);
        let read = all.files.remove(0).unwrap();
        let map = match &read.bytes {
            FileBytes::Mapped(map) => Some(std::sync::Arc::clone(map)),
            _ => None,
        };
        let code = CodeFiles::new(vec![(read.code.unwrap(), map)]);
        let source = code.sources()[0];
        source.parsed(0, whole.len() as u64);
        let cubin = develf_parse::Cubin::parse(&whole).unwrap();
        for s in cubin.sections().iter().filter(|s| !is_code_section(s.sh_type, s.flags)) {
            let at = s.offset as usize;
            assert_eq!(&all.bytes(&read.bytes)[at..at + s.bytes().len()], s.bytes(), "{}", s.name);
        }
        for s in cubin.sections().iter().filter(|s| is_code_section(s.sh_type, s.flags)) {
            let mut buf = vec![0u8; s.bytes().len()];
            source.read_exact_at(&mut buf, s.offset).unwrap();
            assert_eq!(buf.as_slice(), s.bytes(), "{}", s.name);
        }
    }

    #[test]
    fn other_files_are_read_whole() {
        let path = std::env::temp_dir().join(format!("develf-input-file-{}", std::process::id()));
        std::fs::write(&path, b"not an ELF file at all, but long enough to have a header of sixty-four bytes").unwrap();
        let all = read_all(&[path.as_path()], true);
        let read = all.files[0].as_ref().unwrap();
        assert!(read.code.is_none());
        assert_eq!(all.bytes(&read.bytes), std::fs::read(&path).unwrap().as_slice());
        let _ = std::fs::remove_file(&path);
    }
}
