//! `.nv.callgraph` (and `.nv.merc.nv.callgraph`): pairs of `u32`, in four blocks
//! each opened by a marker pair `<0,-1>` .. `<0,-4>` (symbol 0 is the null symbol,
//! so no real entry looks like a marker). cuobjdump 13.5 prints the pairs as
//! `<a,b>`; what each block holds was read off the fixtures:
//!
//! 1. `<caller, callee>`: direct calls (recursion shows as `<f,f>`);
//! 2. `<function, prototype>`: functions whose address is taken, with the string
//!    table offset of their prototype (the same offsets `.nv.prototype` uses);
//! 3. `<caller, prototype>`: functions making indirect calls, per call site;
//! 4. `<referrer, function>`: which function takes the address of which.

use crate::display::{Field, FieldValue};
use crate::shape::SymbolIndex;
use serde::Serialize;

/// One `<a,b>` pair.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Serialize)]
pub struct Pair(pub u32, pub u32);

/// The four blocks.
#[derive(Debug, Clone, PartialEq, Eq, Default, Serialize)]
pub struct CallGraph {
    /// `<caller, callee>` symbol indices.
    pub calls: Vec<Pair>,
    /// `<function symbol, prototype string offset>`.
    pub address_taken: Vec<Pair>,
    /// `<caller symbol, prototype string offset>`.
    pub indirect_calls: Vec<Pair>,
    /// `<referrer symbol, function symbol>`.
    pub address_of: Vec<Pair>,
}

/// Why a section is not a well-formed call graph (it is then kept raw).
#[derive(Debug, Clone, PartialEq, Eq, thiserror::Error)]
pub enum CallGraphError {
    #[error("size {0} is not a multiple of 8")]
    Size(usize),
    #[error("pair {index} should be the marker <0,-{expected}>")]
    MissingMarker { index: usize, expected: u32 },
    #[error("marker <0,{marker}> at pair {index} is out of order")]
    UnexpectedMarker { index: usize, marker: i32 },
}

const MARKERS: u32 = 4;

fn is_marker(p: Pair) -> Option<u32> {
    (p.0 == 0 && p.1 >= u32::MAX - (MARKERS - 1)).then(|| u32::MAX - p.1 + 1)
}

pub(crate) fn pairs(bytes: &[u8]) -> Option<Vec<Pair>> {
    if bytes.len() % 8 != 0 {
        return None;
    }
    Some(
        bytes
            .chunks_exact(8)
            .map(|c| Pair(u32::from_le_bytes([c[0], c[1], c[2], c[3]]), u32::from_le_bytes([c[4], c[5], c[6], c[7]])))
            .collect(),
    )
}

pub(crate) fn write_pairs(pairs: &[Pair], out: &mut Vec<u8>) {
    for p in pairs {
        out.extend_from_slice(&p.0.to_le_bytes());
        out.extend_from_slice(&p.1.to_le_bytes());
    }
}

impl CallGraph {
    pub fn decode(bytes: &[u8]) -> Result<CallGraph, CallGraphError> {
        let all = pairs(bytes).ok_or(CallGraphError::Size(bytes.len()))?;
        let mut graph = CallGraph::default();
        let mut block = 0u32;
        for (index, &p) in all.iter().enumerate() {
            match is_marker(p) {
                Some(m) if m == block + 1 => block = m,
                Some(m) => {
                    return Err(CallGraphError::UnexpectedMarker { index, marker: -i32::try_from(m).unwrap_or(0) });
                }
                None => match block {
                    1 => graph.calls.push(p),
                    2 => graph.address_taken.push(p),
                    3 => graph.indirect_calls.push(p),
                    4 => graph.address_of.push(p),
                    _ => return Err(CallGraphError::MissingMarker { index, expected: block + 1 }),
                },
            }
        }
        if block != MARKERS {
            return Err(CallGraphError::MissingMarker { index: all.len(), expected: block + 1 });
        }
        Ok(graph)
    }

    pub fn encode(&self) -> Vec<u8> {
        let mut out = Vec::new();
        let blocks = [&self.calls, &self.address_taken, &self.indirect_calls, &self.address_of];
        for (i, block) in (1u32..).zip(blocks) {
            write_pairs(&[Pair(0, u32::MAX - i + 1)], &mut out);
            write_pairs(block, &mut out);
        }
        out
    }

    /// Calls `f` on every symbol index (not on prototype string offsets).
    pub fn visit_symbols_mut(&mut self, f: &mut dyn FnMut(&mut SymbolIndex)) {
        for p in self.calls.iter_mut().chain(self.address_of.iter_mut()) {
            f(&mut p.0);
            f(&mut p.1);
        }
        for p in self.address_taken.iter_mut().chain(self.indirect_calls.iter_mut()) {
            f(&mut p.0);
        }
    }

    /// Every symbol index named, in section order.
    pub fn symbols(&self) -> Vec<SymbolIndex> {
        let mut copy = self.clone();
        let mut out = Vec::new();
        copy.visit_symbols_mut(&mut |s| out.push(*s));
        out
    }

    /// One line per entry: `call caller=_Z3fooi callee=_Z3bari`.
    pub fn entries(&self) -> Vec<(&'static str, Vec<Field>)> {
        let mut out = Vec::new();
        let sym = FieldValue::Symbol;
        for p in &self.calls {
            out.push(("call", vec![Field::new("caller", sym(p.0)), Field::new("callee", sym(p.1))]));
        }
        for p in &self.address_taken {
            out.push((
                "address_taken",
                vec![Field::new("function", sym(p.0)), Field::new("prototype", FieldValue::StringOffset(p.1))],
            ));
        }
        for p in &self.indirect_calls {
            out.push((
                "indirect_call",
                vec![Field::new("caller", sym(p.0)), Field::new("prototype", FieldValue::StringOffset(p.1))],
            ));
        }
        for p in &self.address_of {
            out.push(("address_of", vec![Field::new("referrer", sym(p.0)), Field::new("function", sym(p.1))]));
        }
        out
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn fixture_shape_round_trips() {
        // calls_lib.cubin (sm_100): <0,-1> <23,23> <0,-2> <0,-3> <0,-4>
        let words: [u32; 10] = [0, u32::MAX, 23, 23, 0, u32::MAX - 1, 0, u32::MAX - 2, 0, u32::MAX - 3];
        let bytes: Vec<u8> = words.iter().flat_map(|w| w.to_le_bytes()).collect();
        let g = CallGraph::decode(&bytes).expect("decodes");
        assert_eq!(g.calls, vec![Pair(23, 23)]);
        assert_eq!(g.encode(), bytes);
        assert!(CallGraph::decode(&bytes[8..]).is_err());
    }
}
