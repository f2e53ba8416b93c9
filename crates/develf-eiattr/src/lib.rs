//! Codecs for the metadata sections of NVIDIA cubins: `.nv.info*` (EIATTR
//! records), `.nv.compat` (EICOMPAT records), `.note.nv.cuinfo` / `.note.nv.tkinfo`,
//! `.nv.callgraph`, `.nv.prototype`, `.nv.rel.action`, `.nv.uft.entry`, and their
//! `.nv.merc.*` twins on sm_100+.
//!
//! Decoding never fails and never panics: what does not fit a known layout is
//! kept as bytes, so `encode(decode(bytes)) == bytes` for every input. Typed values
//! name their symbols, which can be remapped for linking.
//!
//! ```
//! use develf_eiattr::{Attribute, NvInfo, shape::FunctionValue};
//! // EIATTR_REGCOUNT: EIFMT_SVAL, 8 bytes, { function 8, 24 registers }
//! let bytes = [4u8, 0x2f, 8, 0, 8, 0, 0, 0, 24, 0, 0, 0];
//! let info = NvInfo::decode(&bytes);
//! assert_eq!(info.records[0].attribute, Attribute::Regcount(FunctionValue { function: 8, value: 24 }));
//! assert_eq!(info.encode().unwrap(), bytes);
//! ```

pub mod attr;
pub mod callgraph;
pub mod display;
pub mod notes;
pub mod prototype;
pub mod relaction;
pub mod remap;
pub mod section;
pub mod shape;
pub mod uft;
pub mod validate;

pub use attr::{Attribute, Compat, CompatAttribute, EncodeError, Located, NvInfo, RawAttribute, Record, RecordList};
pub use callgraph::CallGraph;
pub use notes::{CuInfo, NoteDesc, Notes, TkInfo};
pub use prototype::Prototypes;
pub use relaction::RelActions;
pub use remap::RemapError;
pub use section::{Metadata, SectionKind, section_kind};
pub use shape::SymbolIndex;
pub use uft::UftEntries;
pub use validate::{MetadataProblem, ProblemKind, validate_section};

#[doc = include_str!("../README.md")]
#[cfg(doctest)]
pub struct ReadmeDoctests;

pub(crate) fn hex_bytes<S: serde::Serializer>(bytes: &[u8], s: S) -> Result<S::Ok, S::Error> {
    s.serialize_str(&display::value_text(&display::FieldValue::Bytes(bytes.to_vec()), &display::NoSymbols))
}

pub(crate) fn lossy_text<S: serde::Serializer>(bytes: &[u8], s: S) -> Result<S::Ok, S::Error> {
    s.serialize_str(&String::from_utf8_lossy(bytes.strip_suffix(&[0]).unwrap_or(bytes)))
}
