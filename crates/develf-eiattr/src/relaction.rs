//! `.nv.rel.action` (`SHT_CUDA_RELOCINFO`, written by nvlink into executables):
//! how the driver applies a relocation type that packs a value into two bit fields.
//!
//! Known (from cuobjdump 13.5 on nvlink 13.5 output, byte by byte): an 8-byte header
//! `{ u32 base relocation type, u32 }` — cuobjdump prints the first word as
//! "Base Relocation" and ignores the second (0 in every output seen) — then 8-byte
//! entries `{ symbol kind, addend shift, source position 1, length 1, destination
//! position 1, source position 2, length 2, destination position 2 }`, one byte
//! each. cuobjdump labels every entry with the base type; only one entry per
//! section has been seen, so whether entry `i` means type `base + i` is unknown.
//! Sections of any other size are kept raw.

use crate::display::{Field, FieldValue};
use crate::shape::u32_at;
use serde::Serialize;

/// One action: which symbol value to take and where its bits go.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Serialize)]
pub struct RelAction {
    /// `EIVALUE_SYM_KIND_*`; see [`sym_kind_name`].
    pub symbol_kind: u8,
    pub addend_shift: u8,
    pub source_position1: u8,
    pub length1: u8,
    pub destination_position1: u8,
    pub source_position2: u8,
    pub length2: u8,
    pub destination_position2: u8,
}

/// Names cuobjdump 13.5 prints for the symbol kind byte (probed 0..=5; others print empty).
pub fn sym_kind_name(kind: u8) -> Option<&'static str> {
    Some(match kind {
        0 => "EIVALUE_SYM_KIND_ADDR",
        1 => "EIVALUE_SYM_KIND_GADDR",
        2 => "EIVALUE_SYM_KIND_FDESC",
        3 => "EIVALUE_SYM_KIND_HEADER_INDEX",
        4 => "EIVALUE_SYM_KIND_BINDLESSOFF",
        5 => "EIVALUE_SYM_KIND_PCREL",
        _ => return None,
    })
}

#[derive(Debug, Clone, PartialEq, Eq, Serialize)]
pub struct RelActions {
    pub base_type: u32,
    pub reserved: u32,
    pub actions: Vec<RelAction>,
}

impl RelActions {
    pub fn decode(bytes: &[u8]) -> Option<RelActions> {
        if bytes.len() < 8 || bytes.len() % 8 != 0 {
            return None;
        }
        let actions = bytes[8..]
            .chunks_exact(8)
            .map(|c| RelAction {
                symbol_kind: c[0],
                addend_shift: c[1],
                source_position1: c[2],
                length1: c[3],
                destination_position1: c[4],
                source_position2: c[5],
                length2: c[6],
                destination_position2: c[7],
            })
            .collect();
        Some(RelActions { base_type: u32_at(bytes, 0)?, reserved: u32_at(bytes, 4)?, actions })
    }

    pub fn encode(&self) -> Vec<u8> {
        let mut out = Vec::with_capacity(8 + self.actions.len() * 8);
        out.extend_from_slice(&self.base_type.to_le_bytes());
        out.extend_from_slice(&self.reserved.to_le_bytes());
        for a in &self.actions {
            out.extend_from_slice(&[
                a.symbol_kind,
                a.addend_shift,
                a.source_position1,
                a.length1,
                a.destination_position1,
                a.source_position2,
                a.length2,
                a.destination_position2,
            ]);
        }
        out
    }

    pub fn fields(&self) -> Vec<Field> {
        let base = develf_format::reloc::type_name(self.base_type)
            .map(str::to_string)
            .unwrap_or_else(|| format!("{:#x}", self.base_type));
        let actions = self
            .actions
            .iter()
            .map(|a| {
                let kind =
                    sym_kind_name(a.symbol_kind).map(str::to_string).unwrap_or_else(|| a.symbol_kind.to_string());
                format!(
                    "{kind},{},{},{},{},{},{},{}",
                    a.addend_shift,
                    a.source_position1,
                    a.length1,
                    a.destination_position1,
                    a.source_position2,
                    a.length2,
                    a.destination_position2
                )
            })
            .collect();
        vec![Field::new("base", FieldValue::Text(base)), Field::new("actions", FieldValue::TextList(actions))]
    }
}
