//! Symbol-index remapping, for linkers that renumber symbols: every index a
//! decoded value names goes through a caller-supplied map.

use crate::attr::Attribute;
use crate::section::Metadata;
use crate::shape::SymbolIndex;

/// A symbol index the map has no entry for. Nothing is changed when this is returned.
#[derive(Debug, Clone, Copy, PartialEq, Eq, thiserror::Error)]
#[error("symbol index {symbol} has no entry in the remapping")]
pub struct RemapError {
    pub symbol: SymbolIndex,
}

/// Visits every symbol index of a value mutably.
type Visitor<T> = fn(&mut T, &mut dyn FnMut(&mut SymbolIndex));

fn remap_value<T: Clone>(
    value: &mut T,
    visit: Visitor<T>,
    map: &dyn Fn(SymbolIndex) -> Option<SymbolIndex>,
) -> Result<(), RemapError> {
    let mut copy = value.clone();
    let mut failed = None;
    visit(&mut copy, &mut |s| match map(*s) {
        Some(new) => *s = new,
        None => {
            failed.get_or_insert(*s);
        }
    });
    match failed {
        Some(symbol) => Err(RemapError { symbol }),
        None => {
            *value = copy;
            Ok(())
        }
    }
}

impl Attribute {
    /// Rewrites every symbol index through `map`; all or nothing.
    ///
    /// ```
    /// use develf_eiattr::{Attribute, shape::FunctionValue};
    /// let mut a = Attribute::Regcount(FunctionValue { function: 8, value: 24 });
    /// a.remap_symbols(&|s| Some(s + 100)).unwrap();
    /// assert_eq!(a.symbols(), vec![108]);
    /// ```
    pub fn remap_symbols(&mut self, map: &dyn Fn(SymbolIndex) -> Option<SymbolIndex>) -> Result<(), RemapError> {
        remap_value(self, |a, f| a.visit_symbols_mut(f), map)
    }
}

impl Metadata {
    /// Rewrites every symbol index of the section through `map`; all or nothing.
    pub fn remap_symbols(&mut self, map: &dyn Fn(SymbolIndex) -> Option<SymbolIndex>) -> Result<(), RemapError> {
        remap_value(self, |m, f| m.visit_symbols_mut(f), map)
    }
}
