//! Why a link fails. Every variant names the inputs, sections and symbols
//! involved, so the message alone tells a user what to fix.

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
        write!(f, "{} ({})", self.file, self.section)?;
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

/// `_Z3fooi` → `foo(int)`; `None` for names that are not Itanium-mangled.
pub fn demangle(name: &str) -> Option<String> {
    if !name.starts_with("_Z") {
        return None;
    }
    cpp_demangle::Symbol::new(name).ok().and_then(|s| s.demangle().ok())
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
}

/// One input contributing shared memory to a kernel.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct SharedContribution {
    pub location: Location,
    pub bytes: u64,
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
    /// No inputs.
    #[error("no input files")]
    NoInputs,
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
    KernelClash { symbol: SymbolName, kernel: Location, other: Location },
    /// A kernel's static shared memory (its own and its callees') exceeds the target's limit.
    #[error(
        "kernel {kernel} uses {total:#x} bytes of shared memory, more than the {limit:#x} bytes {arch} allows; \
         contributors: {}",
        .contributors.iter().map(|c| format!("{} ({:#x} bytes)", c.location, c.bytes)).collect::<Vec<_>>().join(", ")
    )]
    SharedMemoryOverLimit {
        kernel: SymbolName,
        arch: String,
        total: u64,
        limit: u64,
        contributors: Vec<SharedContribution>,
    },
    /// A kernel's register limit (`maxrregcount`) is below what a function it calls needs.
    #[error(
        "kernel {kernel} is limited to {limit} registers but calls {callee}, which needs {needed}; call path: {}",
        .path.join(" -> ")
    )]
    RegisterLimit { kernel: SymbolName, limit: u32, callee: SymbolName, needed: u32, path: Vec<String> },
    /// A relocation could not be applied (value out of range, site outside its section).
    #[error("{file}: relocation in {section} at offset {offset:#x}: {message}")]
    Relocation { file: String, section: String, offset: u64, message: String },
    /// The output would exceed what an ELF64 cubin can describe.
    #[error("output too large: {0}")]
    TooLarge(String),
    /// The worker thread pool could not be started.
    #[error("could not start {threads} worker threads: {message}")]
    Threads { threads: usize, message: String },
    /// Something the linker does not support yet; never a silent wrong output.
    #[error("unsupported: {0}")]
    Unsupported(String),
}
