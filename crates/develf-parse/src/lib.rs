//! Zero-copy, validating readers for GPU device ELF.
//!
//! - [`Cubin`]: NVIDIA device ELF (`e_machine` 190), ELF32 and ELF64, ABI 7 and 8.
//! - [`elf::ElfFile`]: the bounds-checked ELF reader both are built on.
//!
//! Parsing never panics and reads nothing outside the input. It fails only when
//! the header or section table cannot be read; [`Cubin::validate`] then checks
//! the rest in layers (structure, references, semantics, target, metadata) and
//! returns [`Diagnostic`]s with stable codes (see [`codes`]).

pub mod ar;
pub mod codes;
pub mod cubin;
pub mod diag;
pub mod elf;
pub mod validate;
pub mod zebin;

pub use cubin::{CuInfo, Cubin, RecordSection};
pub use diag::{Code, Diagnostic, Diagnostics, Layer, Severity};
pub use elf::ElfFile;
