//! `.nv.prototype` (and `.nv.merc.nv.prototype`): `{ u32 symbol, u32 signature }`
//! pairs, where the signature is an offset into the string table of the linked
//! symbol table (cuobjdump 13.5 prints ` <19,251(#ii)>`).

use crate::callgraph::{Pair, pairs, write_pairs};
use crate::display::{Field, FieldValue};
use crate::shape::SymbolIndex;
use serde::Serialize;

#[derive(Debug, Clone, Copy, PartialEq, Eq, Serialize)]
pub struct Prototype {
    pub symbol: SymbolIndex,
    /// Offset of the signature string (`#ii`) in the symbol table's string table.
    pub signature: u32,
}

#[derive(Debug, Clone, PartialEq, Eq, Default, Serialize)]
pub struct Prototypes(pub Vec<Prototype>);

impl Prototypes {
    /// `None` unless the size is a multiple of 8.
    pub fn decode(bytes: &[u8]) -> Option<Prototypes> {
        Some(Prototypes(
            pairs(bytes)?.into_iter().map(|Pair(symbol, signature)| Prototype { symbol, signature }).collect(),
        ))
    }

    pub fn encode(&self) -> Vec<u8> {
        let list: Vec<Pair> = self.0.iter().map(|p| Pair(p.symbol, p.signature)).collect();
        let mut out = Vec::with_capacity(list.len() * 8);
        write_pairs(&list, &mut out);
        out
    }

    pub fn visit_symbols_mut(&mut self, f: &mut dyn FnMut(&mut SymbolIndex)) {
        self.0.iter_mut().for_each(|p| f(&mut p.symbol));
    }

    pub fn entries(&self) -> Vec<Vec<Field>> {
        self.0
            .iter()
            .map(|p| {
                vec![
                    Field::new("symbol", FieldValue::Symbol(p.symbol)),
                    Field::new("signature", FieldValue::StringOffset(p.signature)),
                ]
            })
            .collect()
    }
}
