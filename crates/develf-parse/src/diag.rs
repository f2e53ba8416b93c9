//! Diagnostics: every problem a reader or validator finds, with a stable code.
//!
//! A diagnostic names what a user needs to act: the code (stable across releases,
//! so scripts and suppressions can rely on it), the severity, the byte offset in
//! the file, the section and symbol involved, and a sentence. The file name is
//! the caller's to add (see [`Diagnostic::display_with_file`]).

use core::fmt;

/// How bad a problem is.
#[derive(Debug, Clone, Copy, PartialEq, Eq, PartialOrd, Ord, Hash)]
pub enum Severity {
    /// The file is malformed; tools will misread or reject it.
    Error,
    /// Legal but suspicious, or outside what the tools are known to produce.
    Warning,
}

impl Severity {
    pub fn as_str(self) -> &'static str {
        match self {
            Severity::Error => "error",
            Severity::Warning => "warning",
        }
    }
}

/// The validation layer a check belongs to. Layers run in this order and a layer
/// only runs once the ones before it found no error that would make it misread.
#[derive(Debug, Clone, Copy, PartialEq, Eq, PartialOrd, Ord, Hash)]
pub enum Layer {
    /// Sizes and ranges: header, tables, sections inside the file.
    Structure,
    /// Indices: `sh_link`, `sh_info`, `st_shndx`, `r_sym`, string offsets.
    References,
    /// Meaning: machine, ABI, symbol and section kinds.
    Semantics,
    /// The target architecture agrees everywhere it is stated.
    Target,
    /// Metadata sections (`.nv.info`, `.ze_info`, notes).
    Metadata,
}

/// A stable diagnostic code: its identifier, layer and default severity.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Hash)]
pub struct Code {
    /// Stable identifier printed in brackets, e.g. `E0102`.
    pub id: &'static str,
    pub layer: Layer,
    pub severity: Severity,
    /// One line saying what the code means, for `--explain`-style listings.
    pub summary: &'static str,
}

/// One problem found in one file.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct Diagnostic {
    pub code: Code,
    pub severity: Severity,
    /// Byte offset in the file where the problem is, where one applies.
    pub offset: Option<u64>,
    /// The section involved: its name, or `#N` when the name cannot be read.
    pub section: Option<String>,
    /// The symbol involved.
    pub symbol: Option<String>,
    pub message: String,
}

impl Diagnostic {
    pub fn new(code: Code, message: impl Into<String>) -> Diagnostic {
        Diagnostic { code, severity: code.severity, offset: None, section: None, symbol: None, message: message.into() }
    }

    pub fn at(mut self, offset: u64) -> Diagnostic {
        self.offset = Some(offset);
        self
    }

    pub fn in_section(mut self, section: impl Into<String>) -> Diagnostic {
        self.section = Some(section.into());
        self
    }

    pub fn for_symbol(mut self, symbol: impl Into<String>) -> Diagnostic {
        self.symbol = Some(symbol.into());
        self
    }

    pub fn is_error(&self) -> bool {
        self.severity == Severity::Error
    }

    /// `FILE: error[E0102] at 0x40 (section .symtab): message`
    pub fn display_with_file<'d>(&'d self, file: &'d str) -> impl fmt::Display + 'd {
        DisplayWithFile { diagnostic: self, file }
    }
}

impl fmt::Display for Diagnostic {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        write!(f, "{}[{}]", self.severity.as_str(), self.code.id)?;
        if let Some(offset) = self.offset {
            write!(f, " at {offset:#x}")?;
        }
        match (&self.section, &self.symbol) {
            (Some(section), Some(symbol)) => write!(f, " (section {section}, symbol {symbol})")?,
            (Some(section), None) => write!(f, " (section {section})")?,
            (None, Some(symbol)) => write!(f, " (symbol {symbol})")?,
            (None, None) => {}
        }
        write!(f, ": {}", self.message)
    }
}

struct DisplayWithFile<'d> {
    diagnostic: &'d Diagnostic,
    file: &'d str,
}

impl fmt::Display for DisplayWithFile<'_> {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        write!(f, "{}: {}", self.file, self.diagnostic)
    }
}

/// Collects diagnostics up to a bound, so a hostile file with millions of bad
/// entries costs bounded memory; the overflow is counted, not stored.
#[derive(Debug, Default)]
pub struct Diagnostics {
    list: Vec<Diagnostic>,
    dropped: usize,
}

impl Diagnostics {
    /// The most diagnostics kept for one file.
    pub const LIMIT: usize = 1000;

    pub fn push(&mut self, diagnostic: Diagnostic) {
        if self.list.len() < Self::LIMIT {
            self.list.push(diagnostic);
        } else {
            self.dropped += 1;
        }
    }

    pub fn has_errors(&self) -> bool {
        self.list.iter().any(Diagnostic::is_error)
    }

    /// Diagnostics not kept because the limit was reached.
    pub fn dropped(&self) -> usize {
        self.dropped
    }

    pub fn as_slice(&self) -> &[Diagnostic] {
        &self.list
    }

    pub fn into_vec(self) -> Vec<Diagnostic> {
        self.list
    }
}

/// The ids that appear more than once across code families; a test in each
/// crate that defines codes calls this over every family it can see, so two
/// readers can never hand out the same id.
pub fn duplicate_ids(families: &[&[Code]]) -> Vec<&'static str> {
    let mut ids: Vec<&'static str> = families.iter().flat_map(|f| f.iter().map(|c| c.id)).collect();
    ids.sort_unstable();
    let mut duplicates: Vec<&'static str> = ids.windows(2).filter(|w| w[0] == w[1]).map(|w| w[0]).collect();
    duplicates.dedup();
    duplicates
}

/// Declares the stable codes of one reader: `NAME = ("ID", Layer, Severity, "summary")`.
#[macro_export]
macro_rules! diagnostic_codes {
    ($table:ident { $( $name:ident = ($id:literal, $layer:ident, $sev:ident, $summary:literal) ),* $(,)? }) => {
        $(
            pub const $name: $crate::diag::Code = $crate::diag::Code {
                id: $id,
                layer: $crate::diag::Layer::$layer,
                severity: $crate::diag::Severity::$sev,
                summary: $summary,
            };
        )*
        /// Every code of this family, for listings and uniqueness tests.
        pub static $table: &[$crate::diag::Code] = &[$($name),*];
    };
}
