//! `.nv.uft.entry` (`SHT_CUDA_UFT_ENTRY`): one 32-byte record per unified-function
//! jump slot. Layout from the crucible-notes nvlink UFT page, NOT yet checked
//! against NVIDIA output (no fixture contains the section):
//! `{ u32 symbol, u32 flags, u64 slot offset in .nv.uft, u64 uuid_lo, u64 uuid_hi }`.
//! `.nv.uft` itself holds jump-slot code and is kept as bytes.

use crate::display::{Field, FieldValue};
use crate::shape::{SymbolIndex, u32_at, u64_at};
use serde::Serialize;

#[derive(Debug, Clone, Copy, PartialEq, Eq, Serialize)]
pub struct UftEntry {
    pub symbol: SymbolIndex,
    pub flags: u32,
    pub offset: u64,
    pub uuid_lo: u64,
    pub uuid_hi: u64,
}

#[derive(Debug, Clone, PartialEq, Eq, Default, Serialize)]
pub struct UftEntries(pub Vec<UftEntry>);

impl UftEntries {
    pub const ENTRY_SIZE: usize = 32;

    pub fn decode(bytes: &[u8]) -> Option<UftEntries> {
        if bytes.len() % Self::ENTRY_SIZE != 0 {
            return None;
        }
        bytes
            .chunks_exact(Self::ENTRY_SIZE)
            .map(|c| {
                Some(UftEntry {
                    symbol: u32_at(c, 0)?,
                    flags: u32_at(c, 4)?,
                    offset: u64_at(c, 8)?,
                    uuid_lo: u64_at(c, 16)?,
                    uuid_hi: u64_at(c, 24)?,
                })
            })
            .collect::<Option<Vec<_>>>()
            .map(UftEntries)
    }

    pub fn encode(&self) -> Vec<u8> {
        let mut out = Vec::with_capacity(self.0.len() * Self::ENTRY_SIZE);
        for e in &self.0 {
            out.extend_from_slice(&e.symbol.to_le_bytes());
            out.extend_from_slice(&e.flags.to_le_bytes());
            out.extend_from_slice(&e.offset.to_le_bytes());
            out.extend_from_slice(&e.uuid_lo.to_le_bytes());
            out.extend_from_slice(&e.uuid_hi.to_le_bytes());
        }
        out
    }

    pub fn visit_symbols_mut(&mut self, f: &mut dyn FnMut(&mut SymbolIndex)) {
        self.0.iter_mut().for_each(|e| f(&mut e.symbol));
    }

    pub fn entries(&self) -> Vec<Vec<Field>> {
        self.0
            .iter()
            .map(|e| {
                vec![
                    Field::new("symbol", FieldValue::Symbol(e.symbol)),
                    Field::new("flags", FieldValue::Hex(u64::from(e.flags))),
                    Field::new("offset", FieldValue::Hex(e.offset)),
                    Field::new("uuid", FieldValue::Text(format!("{:016x}{:016x}", e.uuid_hi, e.uuid_lo))),
                ]
            })
            .collect()
    }
}
