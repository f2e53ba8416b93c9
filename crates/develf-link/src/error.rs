//! Why a link fails. Every variant names the inputs, sections and symbols
//! involved, so the message alone tells a user what to fix.

use crate::demangle::demangle;
use std::fmt;
use thiserror::Error;

/// Where a symbol is referenced or defined: the input, the section and, for a
/// reference, the symbol that refers to it (the function whose code holds it).
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct Location {
    pub file: String,
    pub section: String,
    /// The function (or data symbol) the location belongs to, demangled, if known.
    pub within: Option<String>,
}

impl fmt::Display for Location {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        // An extern declaration has no section: its file alone (rule 12.8's
        // multiple definition of an `extern __shared__` met undefined first).
        if self.section.is_empty() {
            write!(f, "{} (undefined extern)", self.file)?;
        } else {
            write!(f, "{} ({})", self.file, self.section)?;
        }
        if let Some(w) = &self.within {
            write!(f, " in {w}")?;
        }
        Ok(())
    }
}

/// A symbol name as the user wrote it (demangled) and as it is stored.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct SymbolName {
    pub mangled: String,
    pub demangled: Option<String>,
}

impl SymbolName {
    pub fn new(mangled: &str) -> SymbolName {
        SymbolName { mangled: mangled.to_string(), demangled: demangle(mangled) }
    }
}

impl fmt::Display for SymbolName {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        match &self.demangled {
            Some(d) if d != &self.mangled => write!(f, "`{d}` ({})", self.mangled),
            _ => write!(f, "`{}`", self.mangled),
        }
    }
}

/// One undefined symbol and every place that refers to it.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct Undefined {
    pub symbol: SymbolName,
    pub referenced_from: Vec<Location>,
}

/// One symbol defined twice (or more) with global binding.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct Duplicate {
    pub symbol: SymbolName,
    pub definitions: Vec<Location>,
    /// The input (its place on the command line, 0 first) holding the
    /// second definition: nvlink reports the duplicate while reading that
    /// input and reads none after it (session 50).
    pub reported_in: usize,
}

/// One shared variable in a kernel's window: where it is declared (the
/// input, its section, and the function whose code declares it) and its size.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct SharedContribution {
    pub variable: SymbolName,
    pub location: Location,
    pub bytes: u64,
}

/// One kernel over the static shared-memory limit (rule 12.6).
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct SharedOverLimit {
    pub kernel: SymbolName,
    /// The input defining the kernel.
    pub file: String,
    /// Where its static variables end (extern memory and the reserved area
    /// are not counted, as nvlink counts).
    pub total: u64,
    pub limit: u64,
    /// Every variable in its window, largest first.
    pub contributors: Vec<SharedContribution>,
}

/// One kernel whose register limit is below what a function it reaches needs
/// (rule 12.7).
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct RegisterOverLimit {
    pub kernel: SymbolName,
    /// The input defining the kernel.
    pub file: String,
    /// The kernel's `EIATTR_MAXREG_COUNT` (`__launch_bounds__`, `__maxnreg__`, `-maxrregcount`).
    pub limit: u32,
    pub callee: SymbolName,
    /// The input defining the callee.
    pub callee_file: String,
    /// The callee's `EIATTR_REGCOUNT`.
    pub needed: u32,
    /// Kernel, the functions between, callee (demangled where possible).
    pub path: Vec<String>,
}

impl fmt::Display for SharedContribution {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        write!(f, "{} ({:#x} = {} bytes) from {}", self.variable, self.bytes, self.bytes, self.location)
    }
}

impl fmt::Display for SharedOverLimit {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        write!(
            f,
            "kernel {} ({}) uses {:#x} ({}) bytes of static shared memory, more than the {:#x} ({}) bytes \
             a kernel may declare statically (use `extern __shared__` and cudaFuncSetAttribute for more); \
             its variables: {}",
            self.kernel,
            self.file,
            self.total,
            self.total,
            self.limit,
            self.limit,
            list(&self.contributors, "; ")
        )
    }
}

impl fmt::Display for RegisterOverLimit {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        write!(
            f,
            "kernel {} ({}) is limited to {} registers (__launch_bounds__, __maxnreg__ or -maxrregcount) \
             but calls {} ({}), compiled to use {}; call path: {}; recompile the callee with \
             -maxrregcount={} or lower, or relax the kernel's limit",
            self.kernel,
            self.file,
            self.limit,
            self.callee,
            self.callee_file,
            self.needed,
            self.path.join(" -> "),
            self.limit
        )
    }
}

fn list<T: fmt::Display>(items: &[T], sep: &str) -> String {
    items.iter().map(ToString::to_string).collect::<Vec<_>>().join(sep)
}

fn undefined_text(items: &[Undefined]) -> String {
    items
        .iter()
        .map(|u| format!("undefined reference to {}, referenced from {}", u.symbol, list(&u.referenced_from, "; ")))
        .collect::<Vec<_>>()
        .join("\n")
}

fn duplicate_text(items: &[Duplicate]) -> String {
    items
        .iter()
        .map(|d| format!("multiple definitions of {}: {}", d.symbol, list(&d.definitions, " and ")))
        .collect::<Vec<_>>()
        .join("\n")
}

/// A failed link.
#[derive(Debug, Error)]
pub enum LinkError {
    /// An input is not a readable cubin.
    #[error("{file}: {message}")]
    BadInput { file: String, message: String },
    /// An input was compiled for an architecture the target cannot run.
    /// nvlink's rule: the same SM; or code for an earlier SM of the same major
    /// version without the 'a' suffix (sm_80 code links into sm_86, sm_90 into
    /// sm_90a); 'a' code only into exactly its own target. ABI-7 objects follow
    /// the same rule.
    #[error(
        "{file} is compiled for {object}, which cannot be linked into {target} code \
         (code for sm_XY links into sm_XZ with Z >= Y, and sm_XYa only into sm_XYa)"
    )]
    ArchMismatch { file: String, object: String, target: String },
    /// Symbols referenced but defined by no input.
    #[error("{}", undefined_text(.0))]
    UndefinedSymbols(Vec<Undefined>),
    /// Global symbols defined more than once.
    #[error("{}", duplicate_text(.0))]
    DuplicateDefinitions(Vec<Duplicate>),
    /// A kernel in one input has the name of a device function or variable in another.
    #[error("{symbol} is a kernel in {kernel} but not a kernel in {other}")]
    KernelClash {
        symbol: SymbolName,
        kernel: Location,
        other: Location,
        /// The input (its place on the command line) holding the later of
        /// the two definitions, where nvlink reports the clash (session 50).
        reported_in: usize,
    },
    /// Kernels whose static shared memory (their own and their callees')
    /// exceeds 0xc000 bytes (rule 12.6; nvlink: `Entry function 'k' uses too
    /// much shared data (0xc004 bytes, 0xc000 max)`).
    #[error("{}", list(.0, "\n"))]
    SharedMemoryOverLimit(Vec<SharedOverLimit>),
    /// Kernels whose register limit is below what a function they reach was
    /// compiled for (rule 12.7; nvlink: `entry function 'k' with max regcount
    /// of 32 calls function 'f' with regcount of 108`).
    #[error("{}", list(.0, "\n"))]
    RegisterLimit(Vec<RegisterOverLimit>),
    /// The `__constant__` variables need more than bank 3's 64 KiB (nvlink:
    /// `File uses too much global constant data (0x10004 bytes, 0x10000 max)`).
    #[error(
        "the __constant__ variables take {bytes:#x} bytes of constant bank 3, more than its {limit:#x}; \
         move large read-only tables to __device__ memory"
    )]
    ConstantBankOverLimit { bytes: u64, limit: u64 },
    /// A relocation could not be applied (value out of range, site outside its section).
    #[error("{file}: relocation in {section} at offset {offset:#x}: {message}")]
    Relocation { file: String, section: String, offset: u64, message: String },
    /// An input's code could not be read from its [`crate::CodeSource`].
    #[error("reading the code of {what}: {message}")]
    ReadCode { what: String, message: String },
    /// The output would exceed what an ELF64 cubin can describe.
    #[error("output too large: {0}")]
    TooLarge(String),
    /// The worker thread pool could not be started.
    #[error("could not start {threads} worker threads: {message}")]
    Threads { threads: usize, message: String },
    /// A `-r` link nvlink 13.5 dies on (`nvlink fatal : Internal error:
    /// reference to deleted section`): a weak function's copy with a constant
    /// bank 2 of its own (`-use_fast_math`) replaced by a later copy with
    /// fewer registers and no such bank (rule 9, fresh4 loser-bank2).
    #[error(
        "{function}: the copy in {replaced} has a constant bank 2 ({bank}) that the copy replacing it in \
         {winner} lacks; nvlink -r stops here with \"Internal error: reference to deleted section\" (link \
         the objects with the same math flags, or link an executable)"
    )]
    ReplacedBank { function: SymbolName, replaced: String, winner: String, bank: String },
    /// Something the linker does not support yet; never a silent wrong output.
    #[error("unsupported: {0}")]
    Unsupported(String),
}

/// Something a successful link reports (nvlink's warnings that are not
/// about the command line).
#[derive(Debug, Clone, PartialEq, Eq)]
pub enum LinkWarning {
    /// An executable's kernel calls `callee`, whose stack size is unknown: it
    /// is recursive or reaches recursion (an indirect call's possible targets
    /// count as callees). nvlink says this once per such callee, in nvlink's
    /// words, and `-Werror` fails the link (docs/nvlink-layout.md rule 7.1).
    UnknownStackSize { kernel: String, callee: String },
    /// An input's `.nv.compat` lacks ISA_CLASS (the `-r` output of CUDA
    /// 12.9 objects): nvlink 13.5 warns that the output runs on the target
    /// architecture only, exec and `-r` alike (sweep27 `abi7-r-exec`, sm_90);
    /// an info to nvlink: printed under `-w`, gone under `-disable-infos`
    /// (session 45).
    MissingIsaClass { input: String, sm: u32 },
    /// An input of an architecture before sm_100 in a link for sm_100 or
    /// later, which then fails on it ([`LinkError::ArchMismatch`]): nvlink
    /// first says the output is limited to the target (session 50; `sm`
    /// without the target's suffix, `input` unquoted as nvlink prints it).
    LimitedByInput { input: String, sm: u32 },
}

impl std::fmt::Display for LinkWarning {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        match self {
            LinkWarning::UnknownStackSize { kernel, .. } => {
                write!(f, "Stack size for entry function '{kernel}' cannot be statically determined")
            }
            LinkWarning::MissingIsaClass { input, sm } => write!(
                f,
                "Output is limited to run on SM Arch '{sm}' only, due to missing attribute 'ISA_CLASS' in input file '{input}'"
            ),
            LinkWarning::LimitedByInput { input, sm } => {
                write!(f, "Output is limited to run on SM Arch '{sm}' only due to limitations in input file {input}")
            }
        }
    }
}

impl LinkWarning {
    /// Why, for a reader of develf's own messages.
    pub fn explanation(&self) -> String {
        match self {
            LinkWarning::UnknownStackSize { kernel, callee } => format!(
                "`{}`: its callee `{}` is recursive or reaches recursion",
                demangle(kernel).unwrap_or_else(|| kernel.clone()),
                demangle(callee).unwrap_or_else(|| callee.clone())
            ),
            LinkWarning::MissingIsaClass { input, .. } => format!(
                "`{input}`'s .nv.compat has no ISA_CLASS record (a -r output of CUDA 12.x objects), so the \
                 output's compatibility is that of the target alone"
            ),
            LinkWarning::LimitedByInput { input, sm } => {
                format!("`{input}` holds code for an architecture before sm_100, which an sm_{sm} output cannot take")
            }
        }
    }
}

impl LinkError {
    /// The warnings nvlink prints with this error (docs/nvlink-layout.md,
    /// session 50): those it prints before the error's lines, and those
    /// after them. A link failing at the executable's checks (undefined
    /// references, register, shared-memory and constant-bank limits) has
    /// the warnings of a link that succeeds (rule 7.1's stack sizes, the
    /// missing ISA_CLASS); multiple definitions, the ISA_CLASS warnings of
    /// the inputs nvlink read before giving up (the reporting input's after
    /// the errors); an arch mismatch on an sm_100+ target, nvlink's
    /// "limited to run" warning for an older input. The phases up to the
    /// metadata run again, without the checks, for the stack sizes.
    pub fn warnings(
        &self,
        options: &crate::LinkOptions,
        inputs: &[crate::Input<'_>],
    ) -> (Vec<LinkWarning>, Vec<LinkWarning>) {
        crate::failure_warnings(self, options, inputs)
    }
}
