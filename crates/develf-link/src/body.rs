//! An output section's bytes, without copying them before they are written.
//!
//! Most of a link's output is input code copied through with a few patched
//! bytes per relocation. Holding a patched copy of every section until the
//! file is written would double the memory a link needs (the inputs are held
//! anyway), so relocation records what it changed ([`Patch`]: the bytes of
//! the site after the relocation) and the writer copies the input pieces and
//! lays the patches over them, one section at a time. A section that a later
//! phase rewrites as a whole (frame tables, Mercury code) is made
//! [`Body::Owned`] first with [`Body::materialize`].

use std::collections::BTreeMap;

/// The most bytes a relocation changes: a 128-bit instruction.
pub(crate) const MAX_SITE: usize = 16;

/// The bytes at `at` after a relocation was applied there.
#[derive(Debug, Clone, Copy)]
pub(crate) struct Patch {
    at: u64,
    len: u8,
    bytes: [u8; MAX_SITE],
}

/// The input sections of an output section at their offsets, and the patches
/// to apply over them in order.
#[derive(Debug, Default)]
pub(crate) struct Merged<'a> {
    size: u64,
    pieces: Vec<(u64, &'a [u8])>,
    patches: Vec<Patch>,
    /// Patches by (offset, order), to find those overlapping a new site.
    by_offset: BTreeMap<(u64, usize), ()>,
}

impl<'a> Merged<'a> {
    /// `size` bytes, zero where no piece lies.
    pub(crate) fn new(size: u64) -> Self {
        Merged { size, ..Merged::default() }
    }

    /// The section's size.
    pub(crate) fn len(&self) -> u64 {
        self.size
    }

    pub(crate) fn is_empty(&self) -> bool {
        self.size == 0
    }

    /// Adds an input section at `offset`; pieces come in offset order.
    pub(crate) fn piece(&mut self, offset: u64, bytes: &'a [u8]) {
        debug_assert!(self.pieces.last().is_none_or(|&(o, b)| o + b.len() as u64 <= offset));
        self.pieces.push((offset, bytes));
    }

    /// The current bytes of `at..at + MAX_SITE` and how many there are
    /// (fewer at the end of the section), for a relocation to patch and hand
    /// back to [`Merged::patch`].
    pub(crate) fn site(&self, at: u64) -> ([u8; MAX_SITE], usize) {
        let end = at.saturating_add(MAX_SITE as u64).min(self.size);
        let len = usize::try_from(end.saturating_sub(at)).unwrap_or(0);
        let mut site = [0u8; MAX_SITE];
        if len == 0 {
            return (site, 0);
        }
        let window = &mut site[..len];
        // Pieces are in offset order and do not overlap.
        let first = self.pieces.partition_point(|&(offset, bytes)| offset.saturating_add(bytes.len() as u64) <= at);
        for &(offset, bytes) in self.pieces.get(first..).unwrap_or_default() {
            if offset >= end {
                break;
            }
            copy_overlap(window, at, offset, bytes);
        }
        let lower = at.saturating_sub(MAX_SITE as u64 - 1);
        let mut earlier: Vec<usize> = self.by_offset.range((lower, 0)..(end, 0)).map(|(&(_, i), ())| i).collect();
        earlier.sort_unstable();
        for i in earlier {
            if let Some(p) = self.patches.get(i) {
                copy_overlap(window, at, p.at, p.bytes.get(..usize::from(p.len)).unwrap_or_default());
            }
        }
        (site, len)
    }

    /// Records `site` (from [`Merged::site`], now patched) as the bytes at `at`.
    pub(crate) fn patch(&mut self, at: u64, site: &[u8]) {
        let len = site.len().min(MAX_SITE);
        let mut bytes = [0u8; MAX_SITE];
        bytes[..len].copy_from_slice(&site[..len]);
        let order = self.patches.len();
        self.patches.push(Patch { at, len: len as u8, bytes });
        self.by_offset.insert((at, order), ());
    }

    /// Writes the section's bytes into `out` (`size` bytes).
    fn fill(&self, out: &mut [u8]) {
        for &(offset, bytes) in &self.pieces {
            copy_overlap(out, 0, offset, bytes);
        }
        for p in &self.patches {
            copy_overlap(out, 0, p.at, p.bytes.get(..usize::from(p.len)).unwrap_or_default());
        }
    }
}

/// Copies the part of `src` (which belongs at `src_at`) that falls inside
/// `dst` (which starts at `dst_at`).
fn copy_overlap(dst: &mut [u8], dst_at: u64, src_at: u64, src: &[u8]) {
    let dst_end = dst_at.saturating_add(dst.len() as u64);
    let src_end = src_at.saturating_add(src.len() as u64);
    let start = dst_at.max(src_at);
    let end = dst_end.min(src_end);
    if start >= end {
        return;
    }
    let (Ok(d), Ok(s), Ok(n)) =
        (usize::try_from(start - dst_at), usize::try_from(start - src_at), usize::try_from(end - start))
    else {
        return;
    };
    if let (Some(d), Some(s)) = (dst.get_mut(d..d + n), src.get(s..s + n)) {
        d.copy_from_slice(s);
    }
}

/// One output section's contents. Small (16 bytes): a big link has tens of
/// thousands of sections, most of them merged.
#[derive(Debug)]
pub(crate) enum Body<'a> {
    Owned(Vec<u8>),
    Merged(Box<Merged<'a>>),
}

impl Default for Body<'_> {
    fn default() -> Self {
        Body::Owned(Vec::new())
    }
}

impl Body<'_> {
    pub(crate) fn len(&self) -> u64 {
        match self {
            Body::Owned(bytes) => bytes.len() as u64,
            Body::Merged(m) => m.size,
        }
    }

    /// The bytes as one buffer, to rewrite in place.
    pub(crate) fn materialize(&mut self) -> &mut Vec<u8> {
        if let Body::Merged(m) = self {
            let mut bytes = vec![0u8; usize::try_from(m.size).unwrap_or(0)];
            m.fill(&mut bytes);
            *self = Body::Owned(bytes);
        }
        match self {
            Body::Owned(bytes) => bytes,
            Body::Merged(_) => unreachable!("materialized above"),
        }
    }

    /// Writes the bytes to `sink`, using `scratch` to assemble a merged section.
    pub(crate) fn write_to(&self, sink: &mut dyn std::io::Write, scratch: &mut Vec<u8>) -> std::io::Result<()> {
        match self {
            Body::Owned(bytes) => sink.write_all(bytes),
            Body::Merged(m) => {
                scratch.clear();
                scratch.resize(usize::try_from(m.size).unwrap_or(0), 0);
                m.fill(scratch);
                sink.write_all(scratch)
            }
        }
    }

    /// Places the bytes into `out` at `at`.
    pub(crate) fn put(&self, out: &mut [u8], at: u64) {
        match self {
            Body::Owned(bytes) => copy_overlap(out, 0, at, bytes),
            Body::Merged(m) => {
                let start = usize::try_from(at).unwrap_or(usize::MAX);
                let end = start.saturating_add(usize::try_from(m.size).unwrap_or(usize::MAX));
                if let Some(dst) = out.get_mut(start..end) {
                    m.fill(dst);
                }
            }
        }
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn overlapping_patches_apply_in_order() {
        let input = [1u8; 32];
        let mut m = Merged::new(40);
        m.piece(4, &input);
        // A first relocation changes 8 bytes at 8, a second 8 bytes at 12
        // (seeing the first's bytes 12..16).
        let (mut site, len) = m.site(8);
        assert_eq!((site, len), ([1u8; 16], 16));
        site[..8].copy_from_slice(&[2; 8]);
        m.patch(8, &site[..8]);
        let (mut site, len) = m.site(12);
        assert_eq!(&site[..8], &[2, 2, 2, 2, 1, 1, 1, 1]);
        site[4..8].copy_from_slice(&[3; 4]);
        m.patch(12, &site[..len]);
        let mut body = Body::Merged(Box::new(m));
        let bytes = body.materialize().clone();
        let mut expect = vec![0u8; 40];
        expect[4..36].fill(1);
        expect[8..16].fill(2);
        expect[16..20].fill(3);
        assert_eq!(bytes, expect);
    }

    #[test]
    fn site_is_cut_at_the_section_end() {
        let input = [7u8; 10];
        let mut m = Merged::new(10);
        m.piece(0, &input);
        assert_eq!(m.site(4).1, 6);
        assert_eq!(m.site(12).1, 0);
    }
}
