//! What a link is asked to do: the library's view of nvlink's command line.
//! `develf nvlink` parses nvlink's syntax into this; library users fill it in.

use develf_format::header::Arch;

/// Executable (`nvlink`) or relocatable (`nvlink -r`) output.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Default)]
pub enum OutputKind {
    #[default]
    Executable,
    Relocatable,
}

/// The options that change the output bytes or the checks.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct LinkOptions {
    /// `-arch sm_XX`: the target every input must be compatible with.
    pub arch: Arch,
    /// `-r`.
    pub output: OutputKind,
    /// `-g`: keep and link debug sections.
    pub debug: bool,
    /// `-g` with `-suppress-debug-info` (`debug` is then false): the link is
    /// as without `-g` but for two things `-g` still does, which keep
    /// nvlink's outputs apart from plain ones (session 24): dead code is
    /// kept (rule 9.7: sm_100 mdbg keeps its unused `-G` functions, while
    /// the kernels' shared variables and the exit barriers of `-g` are
    /// gone), and the note names the output as under `-g`.
    pub debug_suppressed: bool,
    /// `-preserve-relocs`: keep resolved relocations in `.nv.resolvedrela.*`.
    pub preserve_relocs: bool,
    /// `-kernels-used=K,...`: only these kernels (and what they reach) are kept.
    pub kernels_used: Option<Vec<String>>,
    /// `-variables-used=V,...`: only these variables are kept.
    pub variables_used: Option<Vec<String>>,
    /// Rule 13.5: the kernel-name patterns the host objects refer to (their
    /// `.nvHRKE`/`.nvHRKI` sections; `*` matches any run of characters).
    /// When `Some` and not empty, an executable keeps only the kernels some
    /// pattern matches, and what they reach. `None` where host information
    /// does not apply: `-ignore-host-info`, or a cubin or fatbin given
    /// directly. `-kernels-used` takes precedence.
    pub host_kernels: Option<Vec<String>>,
    /// The output file's name as given with `-o` (nvlink records its basename with `-g`).
    pub output_name: String,
    /// The command line nvlink records in its `.note.nv.tkinfo` note (rule 7.5),
    /// exactly as written there. `None`: derived from the fields above (the
    /// text nvlink writes for `-arch`, `-r`, `-g` alone). `develf nvlink`
    /// renders it from the options it was given.
    pub command_line: Option<String>,
    /// Worker threads for the parallel phases (0: rayon's default). The output
    /// is the same bytes whatever the count.
    pub threads: usize,
}

impl LinkOptions {
    /// `-g` on the command line, with or without `-suppress-debug-info`:
    /// what keeps unused code (rule 9.7) and names the output in the note.
    pub fn debug_given(&self) -> bool {
        self.debug || self.debug_suppressed
    }

    pub fn new(arch: Arch) -> LinkOptions {
        LinkOptions {
            arch,
            output: OutputKind::Executable,
            debug: false,
            debug_suppressed: false,
            preserve_relocs: false,
            kernels_used: None,
            variables_used: None,
            host_kernels: None,
            output_name: String::new(),
            command_line: None,
            threads: 0,
        }
    }
}

/// One input: a name for messages (the file, or `archive(member)`) and its bytes.
#[derive(Debug, Clone, Copy)]
pub struct Input<'a> {
    pub name: &'a str,
    pub bytes: &'a [u8],
    /// Where the contents of the input's code sections (`SHT_PROGBITS` with
    /// `SHF_EXECINSTR`) are read from when `bytes` does not hold them
    /// (`bytes` has to have the file's size; what it holds there is
    /// ignored). The linker reads code only when it needs it, mostly while
    /// the output is written, so a program that reads its inputs this way
    /// (`develf nvlink` does) keeps most of a big link's bytes out of memory.
    pub code: Option<&'a dyn CodeSource>,
}

impl<'a> Input<'a> {
    /// An input whose bytes are all in memory.
    pub fn new(name: &'a str, bytes: &'a [u8]) -> Input<'a> {
        Input { name, bytes, code: None }
    }
}

/// Whether a section of this type and flags is code, whose bytes an
/// [`Input::code`] source supplies: `SHT_PROGBITS` with `SHF_EXECINSTR`.
/// Readers that leave code out of [`Input::bytes`] ask this, so the two
/// sides agree on what is left out.
pub fn is_code_section(sh_type: u32, flags: u64) -> bool {
    use develf_format::section::{SHF_EXECINSTR, SHT_PROGBITS};
    sh_type == SHT_PROGBITS && flags & SHF_EXECINSTR != 0
}

/// Random access to an input's bytes, for [`Input::code`].
pub trait CodeSource: Sync + std::fmt::Debug {
    /// Fills `buf` with the bytes at file offset `offset`.
    fn read_exact_at(&self, buf: &mut [u8], offset: u64) -> std::io::Result<()>;

    /// Advice: the linker has read what it needs of the `len` bytes at file
    /// offset `offset` of [`Input::bytes`] into tables of its own (the
    /// section header table, the symbol table). A source whose bytes are a
    /// map of the file may let the system drop those pages; reading them
    /// again must still give the same bytes.
    fn parsed(&self, _offset: u64, _len: u64) {}
}

#[cfg(unix)]
impl CodeSource for std::fs::File {
    fn read_exact_at(&self, buf: &mut [u8], offset: u64) -> std::io::Result<()> {
        std::os::unix::fs::FileExt::read_exact_at(self, buf, offset)
    }
}

/// Bytes held in memory serve as their own source (tests, and programs that
/// already have the file).
impl CodeSource for Vec<u8> {
    fn read_exact_at(&self, buf: &mut [u8], offset: u64) -> std::io::Result<()> {
        let start = usize::try_from(offset).unwrap_or(usize::MAX);
        let bytes = start.checked_add(buf.len()).and_then(|end| self.get(start..end));
        let bytes = bytes.ok_or_else(|| std::io::Error::from(std::io::ErrorKind::UnexpectedEof))?;
        buf.copy_from_slice(bytes);
        Ok(())
    }
}
