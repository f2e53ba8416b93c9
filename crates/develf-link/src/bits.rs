//! A set of small integers (instruction or output symbol indices), a bit
//! each: the scoreboard's per-instruction sets and the metadata's walks of
//! the call graph, where a hash set per walk would cost more.

#[derive(Debug, Clone)]
pub(crate) struct Bits(Vec<u64>);

impl Bits {
    /// An empty set with room for `0..n` (it grows past that on insert).
    pub(crate) fn new(n: usize) -> Self {
        Bits(vec![0; n.div_ceil(64)])
    }

    pub(crate) fn get(&self, i: usize) -> bool {
        self.0.get(i / 64).is_some_and(|w| w >> (i % 64) & 1 != 0)
    }

    pub(crate) fn set(&mut self, i: usize) {
        self.insert(i);
    }

    /// Adds `i`; whether it was not in the set before.
    pub(crate) fn insert(&mut self, i: usize) -> bool {
        let word = i / 64;
        if self.0.len() <= word {
            self.0.resize(word + 1, 0);
        }
        let bit = 1u64 << (i % 64);
        let fresh = self.0[word] & bit == 0;
        self.0[word] |= bit;
        fresh
    }

    /// Whether every element of the set is in `other`.
    pub(crate) fn within(&self, other: &Bits) -> bool {
        self.0.iter().enumerate().all(|(k, a)| a & !other.0.get(k).copied().unwrap_or(0) == 0)
    }

    /// Whether the two sets share an element.
    pub(crate) fn meets(&self, other: &Bits) -> bool {
        self.0.iter().zip(&other.0).any(|(a, b)| a & b != 0)
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn insert_grows_and_reports_new_elements() {
        let mut b = Bits::new(10);
        assert!(b.insert(3));
        assert!(!b.insert(3));
        assert!(b.insert(200));
        assert!(b.get(3) && b.get(200) && !b.get(4) && !b.get(1000));
        let mut c = Bits::new(300);
        c.set(200);
        assert!(b.meets(&c));
        assert!(!Bits::new(300).meets(&b));
        assert!(c.within(&b) && !b.within(&c) && Bits::new(0).within(&c));
    }
}
