//! Which sections hold metadata, and one entry point to decode and encode any of them.

use crate::attr::{Compat, EncodeError, NvInfo};
use crate::callgraph::CallGraph;
use crate::notes::Notes;
use crate::prototype::Prototypes;
use crate::relaction::RelActions;
use crate::shape::SymbolIndex;
use crate::uft::UftEntries;
use develf_format::section::{
    SHT_CUDA_CALLGRAPH, SHT_CUDA_COMPAT_INFO, SHT_CUDA_INFO, SHT_CUDA_MERCURY_CALLGRAPH, SHT_CUDA_MERCURY_INFO,
    SHT_CUDA_MERCURY_PROTOTYPE, SHT_CUDA_PROTOTYPE, SHT_CUDA_RELOCINFO, SHT_CUDA_UFT, SHT_CUDA_UFT_ENTRY, SHT_NOTE,
};
use serde::Serialize;

/// The metadata section families this crate decodes.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Hash, Serialize)]
pub enum SectionKind {
    /// `.nv.info`, `.nv.info.<fn>`, `.nv.merc.nv.info*`.
    NvInfo,
    /// `.nv.compat`.
    Compat,
    /// `.note.nv.cuinfo`, `.note.nv.tkinfo`.
    Notes,
    /// `.nv.callgraph`, `.nv.merc.nv.callgraph`.
    CallGraph,
    /// `.nv.prototype`, `.nv.merc.nv.prototype`.
    Prototype,
    /// `.nv.rel.action`.
    RelAction,
    /// `.nv.uft`, `.nv.uft.rel*`: jump slots (kept as bytes).
    Uft,
    /// `.nv.uft.entry`.
    UftEntry,
}

/// Classifies a section by its type (and, for notes, its name).
pub fn section_kind(name: &str, sh_type: u32) -> Option<SectionKind> {
    Some(match sh_type {
        SHT_CUDA_INFO | SHT_CUDA_MERCURY_INFO => SectionKind::NvInfo,
        SHT_CUDA_COMPAT_INFO => SectionKind::Compat,
        SHT_CUDA_CALLGRAPH | SHT_CUDA_MERCURY_CALLGRAPH => SectionKind::CallGraph,
        SHT_CUDA_PROTOTYPE | SHT_CUDA_MERCURY_PROTOTYPE => SectionKind::Prototype,
        SHT_CUDA_RELOCINFO => SectionKind::RelAction,
        SHT_CUDA_UFT => SectionKind::Uft,
        SHT_CUDA_UFT_ENTRY => SectionKind::UftEntry,
        SHT_NOTE if name.starts_with(".note.nv.") => SectionKind::Notes,
        _ => return None,
    })
}

/// A decoded metadata section.
#[derive(Debug, Clone, PartialEq, Eq, Serialize)]
#[serde(tag = "kind", content = "value")]
pub enum Metadata {
    NvInfo(NvInfo),
    Compat(Compat),
    Notes(Notes),
    CallGraph(CallGraph),
    Prototypes(Prototypes),
    RelActions(RelActions),
    UftEntries(UftEntries),
    /// Bytes this crate keeps as they are: `.nv.uft`, or a section whose layout
    /// did not decode (`reason` says why).
    Raw {
        section: SectionKind,
        #[serde(serialize_with = "crate::hex_bytes")]
        bytes: Vec<u8>,
        reason: String,
    },
}

impl Metadata {
    /// Decodes a section of a known kind. Never fails: what does not decode is kept raw.
    pub fn decode(kind: SectionKind, bytes: &[u8]) -> Metadata {
        let raw = |reason: &str| Metadata::Raw { section: kind, bytes: bytes.to_vec(), reason: reason.to_string() };
        match kind {
            SectionKind::NvInfo => Metadata::NvInfo(NvInfo::decode(bytes)),
            SectionKind::Compat => Metadata::Compat(Compat::decode(bytes)),
            SectionKind::Notes => Metadata::Notes(Notes::decode(bytes)),
            SectionKind::CallGraph => match CallGraph::decode(bytes) {
                Ok(g) => Metadata::CallGraph(g),
                Err(e) => raw(&e.to_string()),
            },
            SectionKind::Prototype => Prototypes::decode(bytes)
                .map(Metadata::Prototypes)
                .unwrap_or_else(|| raw("size is not a multiple of 8")),
            SectionKind::RelAction => RelActions::decode(bytes)
                .map(Metadata::RelActions)
                .unwrap_or_else(|| raw("size is not 8 + a multiple of 8")),
            SectionKind::UftEntry => UftEntries::decode(bytes)
                .map(Metadata::UftEntries)
                .unwrap_or_else(|| raw("size is not a multiple of 32")),
            SectionKind::Uft => raw("jump-slot code"),
        }
    }

    /// The section's bytes.
    pub fn encode(&self) -> Result<Vec<u8>, EncodeError> {
        Ok(match self {
            Metadata::NvInfo(i) => i.encode()?,
            Metadata::Compat(c) => c.encode()?,
            Metadata::Notes(n) => n.encode(),
            Metadata::CallGraph(g) => g.encode(),
            Metadata::Prototypes(p) => p.encode(),
            Metadata::RelActions(r) => r.encode(),
            Metadata::UftEntries(u) => u.encode(),
            Metadata::Raw { bytes, .. } => bytes.clone(),
        })
    }

    /// Calls `f` on every symbol index the section names (records kept raw are not
    /// visited: their layout is unknown).
    pub fn visit_symbols_mut(&mut self, f: &mut dyn FnMut(&mut SymbolIndex)) {
        match self {
            Metadata::NvInfo(i) => i.records.iter_mut().for_each(|r| r.attribute.visit_symbols_mut(f)),
            Metadata::CallGraph(g) => g.visit_symbols_mut(f),
            Metadata::Prototypes(p) => p.visit_symbols_mut(f),
            Metadata::UftEntries(u) => u.visit_symbols_mut(f),
            Metadata::Compat(_) | Metadata::Notes(_) | Metadata::RelActions(_) | Metadata::Raw { .. } => {}
        }
    }
}
