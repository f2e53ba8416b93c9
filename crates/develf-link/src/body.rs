//! An output section's bytes, without copying them before they are written.
//!
//! Most of a link's output is input code copied through with a few changed
//! bytes per relocation. Holding a patched copy of every section until the
//! file is written would double the memory a link needs, so relocation
//! records what it changes ([`Fixup`]) and the writer copies the input
//! pieces and applies the fixups over them, one section at a time: this is
//! where relocations reach the bytes. A section that a later phase rewrites
//! as a whole (frame tables, Mercury code) is made [`Body::Owned`] first with
//! [`Body::materialize`].

use crate::options::CodeSource;
use develf_reloc::FieldWrite;
use smallvec::SmallVec;
use std::collections::BTreeSet;
use std::io;

/// The most bytes a relocation changes: a 128-bit instruction.
pub(crate) const MAX_SITE: usize = 16;

/// The bytes at `at` after a relocation was applied there, for relocations
/// that had to read their site (a REL addend).
#[derive(Debug, Clone, Copy)]
pub(crate) struct Patch {
    at: u64,
    len: u8,
    bytes: [u8; MAX_SITE],
}

/// An input section's bytes in an output section.
#[derive(Debug, Clone, Copy)]
pub(crate) enum PieceBytes<'a> {
    Here(&'a [u8]),
    /// `len` bytes at `offset` of an input whose code is read when it is
    /// needed ([`crate::Input::code`]).
    Elsewhere {
        source: &'a dyn CodeSource,
        offset: u64,
        len: u64,
    },
}

impl PieceBytes<'_> {
    /// The piece without its first `n` bytes.
    pub(crate) fn skip(self, n: u64) -> Self {
        match self {
            PieceBytes::Here(bytes) => {
                PieceBytes::Here(bytes.get(usize::try_from(n).unwrap_or(usize::MAX)..).unwrap_or_default())
            }
            PieceBytes::Elsewhere { source, offset, len } => {
                let n = n.min(len);
                PieceBytes::Elsewhere { source, offset: offset.saturating_add(n), len: len - n }
            }
        }
    }

    pub(crate) fn len(&self) -> u64 {
        match self {
            PieceBytes::Here(bytes) => bytes.len() as u64,
            PieceBytes::Elsewhere { len, .. } => *len,
        }
    }

    /// Copies the part of the piece (which lies at `piece_at`) that falls
    /// inside `dst` (which starts at `dst_at`).
    fn copy_into(&self, dst: &mut [u8], dst_at: u64, piece_at: u64) -> io::Result<()> {
        match *self {
            PieceBytes::Here(bytes) => {
                copy_overlap(dst, dst_at, piece_at, bytes);
                Ok(())
            }
            PieceBytes::Elsewhere { source, offset, len } => {
                let start = dst_at.max(piece_at);
                let end = dst_at.saturating_add(dst.len() as u64).min(piece_at.saturating_add(len));
                if start >= end {
                    return Ok(());
                }
                let (Ok(d), Ok(n)) = (usize::try_from(start - dst_at), usize::try_from(end - start)) else {
                    return Ok(());
                };
                match dst.get_mut(d..d.saturating_add(n)) {
                    Some(window) => source.read_exact_at(window, offset.saturating_add(start - piece_at)),
                    None => Ok(()),
                }
            }
        }
    }
}

/// How many bytes a relocation at `at` of a `size`-byte section may use.
fn site_len(size: u64, at: u64) -> usize {
    usize::try_from(size.saturating_sub(at)).unwrap_or(MAX_SITE).min(MAX_SITE)
}

/// One relocation's change to a section, applied in order.
#[derive(Debug, Clone)]
enum Fixup {
    /// A field worked out without the bytes (`develf_reloc::plan`): most
    /// relocations.
    Field { at: u64, write: FieldWrite },
    /// Bytes worked out from the site ([`Merged::site`]). Rare: boxed.
    Bytes(Box<Patch>),
}

impl Fixup {
    fn at(&self) -> u64 {
        match self {
            Fixup::Field { at, .. } => *at,
            Fixup::Bytes(p) => p.at,
        }
    }

    /// Applies the change to `window`, which holds the section's bytes from
    /// `window_at` on (`size`: the section's). A field whose site lies
    /// partly outside is worked on a copy of its site: scattering changes
    /// only the field's bits, so the bytes inside the window come out right.
    fn apply(&self, window: &mut [u8], window_at: u64, size: u64) {
        match self {
            Fixup::Bytes(p) => {
                copy_overlap(window, window_at, p.at, p.bytes.get(..usize::from(p.len)).unwrap_or_default())
            }
            Fixup::Field { at, write } => {
                let len = site_len(size, *at);
                let mut site = [0u8; MAX_SITE];
                let site = &mut site[..len];
                copy_overlap(site, *at, window_at, window);
                // Checked when the relocation was planned (same length).
                if write.write(site).is_ok() {
                    copy_overlap(window, window_at, *at, site);
                }
            }
        }
    }
}

/// The input sections of an output section at their offsets, and the
/// relocations to apply over them in order.
#[derive(Debug, Default)]
pub(crate) struct Merged<'a> {
    size: u64,
    /// Held inline when there is one (most output sections; a list on the
    /// heap would cost each of a big link's 27,000 sections a block).
    pieces: SmallVec<[(u64, PieceBytes<'a>); 1]>,
    fixups: Vec<Fixup>,
    /// Fixups by (offset, order), to find those overlapping a site that is
    /// read; built on the first [`Merged::site`] (most sections never read
    /// one, so it is boxed: a big link has tens of thousands of sections,
    /// and an empty set inline would cost each of them 24 bytes).
    #[allow(clippy::box_collection)]
    by_offset: Option<Box<BTreeSet<(u64, usize)>>>,
}

impl<'a> Merged<'a> {
    /// `size` bytes, zero where no piece lies.
    pub(crate) fn new(size: u64) -> Self {
        Merged { size, ..Merged::default() }
    }

    /// [`Merged::new`] with room for exactly `pieces` pieces (a growing
    /// list would hold four).
    pub(crate) fn with_pieces(size: u64, pieces: usize) -> Self {
        Merged { size, pieces: SmallVec::with_capacity(pieces), ..Merged::default() }
    }

    /// Done with relocation: frees the offset index and the fixups' spare
    /// room, since the section is held as it is until it is written.
    pub(crate) fn shrink(&mut self) {
        self.by_offset = None;
        self.fixups.shrink_to_fit();
    }

    /// The section's size.
    pub(crate) fn len(&self) -> u64 {
        self.size
    }

    pub(crate) fn is_empty(&self) -> bool {
        self.size == 0
    }

    /// Adds an input section at `offset`; pieces come in offset order.
    pub(crate) fn piece(&mut self, offset: u64, bytes: PieceBytes<'a>) {
        debug_assert!(self.pieces.last().is_none_or(|&(o, b)| o + b.len() <= offset));
        self.pieces.push((offset, bytes));
    }

    /// How many bytes a relocation at `at` may use: up to [`MAX_SITE`], fewer
    /// at the end of the section.
    pub(crate) fn site_len(&self, at: u64) -> usize {
        site_len(self.size, at)
    }

    fn push(&mut self, fixup: Fixup) {
        if let Some(index) = &mut self.by_offset {
            index.insert((fixup.at(), self.fixups.len()));
        }
        self.fixups.push(fixup);
    }

    /// Records a relocation planned without its site, to apply at `at`.
    pub(crate) fn field(&mut self, at: u64, write: FieldWrite) {
        self.push(Fixup::Field { at, write });
    }

    /// The current bytes of `at..at + MAX_SITE` and how many there are
    /// (fewer at the end of the section), for a relocation to patch and hand
    /// back to [`Merged::patch`].
    pub(crate) fn site(&mut self, at: u64) -> io::Result<([u8; MAX_SITE], usize)> {
        let len = self.site_len(at);
        let mut site = [0u8; MAX_SITE];
        if len == 0 {
            return Ok((site, 0));
        }
        let end = at.saturating_add(len as u64);
        let window = &mut site[..len];
        // Pieces are in offset order and do not overlap.
        let first = self.pieces.partition_point(|&(offset, bytes)| offset.saturating_add(bytes.len()) <= at);
        for &(offset, bytes) in self.pieces.get(first..).unwrap_or_default() {
            if offset >= end {
                break;
            }
            bytes.copy_into(window, at, offset)?;
        }
        let fixups = &self.fixups;
        let index = self
            .by_offset
            .get_or_insert_with(|| Box::new(fixups.iter().enumerate().map(|(order, f)| (f.at(), order)).collect()));
        let lower = at.saturating_sub(MAX_SITE as u64 - 1);
        let mut earlier: Vec<usize> = index.range((lower, 0)..(end, 0)).map(|&(_, order)| order).collect();
        earlier.sort_unstable();
        for order in earlier {
            if let Some(f) = self.fixups.get(order) {
                f.apply(window, at, self.size);
            }
        }
        Ok((site, len))
    }

    /// Records `site` (from [`Merged::site`], now patched) as the bytes at `at`.
    pub(crate) fn patch(&mut self, at: u64, site: &[u8]) {
        let len = site.len().min(MAX_SITE);
        let mut bytes = [0u8; MAX_SITE];
        bytes[..len].copy_from_slice(&site[..len]);
        self.push(Fixup::Bytes(Box::new(Patch { at, len: len as u8, bytes })));
    }

    /// Writes the section's bytes into `out` (`size` bytes).
    fn fill(&self, out: &mut [u8]) -> io::Result<()> {
        self.fill_window(out, 0)
    }

    /// Writes the section's bytes from `from` on into `out` (zeros, at most
    /// the rest of the section).
    fn fill_window(&self, out: &mut [u8], from: u64) -> io::Result<()> {
        for &(offset, bytes) in &self.pieces {
            bytes.copy_into(out, from, offset)?;
        }
        for f in &self.fixups {
            f.apply(out, from, self.size);
        }
        Ok(())
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
    pub(crate) fn materialize(&mut self) -> io::Result<&mut Vec<u8>> {
        if let Body::Merged(m) = self {
            let mut bytes = vec![0u8; usize::try_from(m.size).unwrap_or(0)];
            m.fill(&mut bytes)?;
            *self = Body::Owned(bytes);
        }
        match self {
            Body::Owned(bytes) => Ok(bytes),
            Body::Merged(_) => unreachable!("materialized above"),
        }
    }

    /// [`Body::materialize`] for the linker's phases: a failure to read an
    /// input's code names the output section.
    pub(crate) fn bytes_mut(&mut self, section: &str) -> Result<&mut Vec<u8>, crate::LinkError> {
        self.materialize().map_err(|e| crate::LinkError::ReadCode {
            what: format!("output section {section}"),
            message: e.to_string(),
        })
    }

    /// Appends the bytes to `out`.
    pub(crate) fn append_to(&self, out: &mut Vec<u8>) -> io::Result<()> {
        match self {
            Body::Owned(bytes) => out.extend_from_slice(bytes),
            Body::Merged(m) => {
                let start = out.len();
                out.resize(start.saturating_add(usize::try_from(m.size).unwrap_or(usize::MAX)), 0);
                m.fill(&mut out[start..])?;
            }
        }
        Ok(())
    }

    /// Writes the bytes from `from` on into `out` (zeros, at most the rest
    /// of the section): a big section in parts.
    pub(crate) fn put_window(&self, out: &mut [u8], from: u64) -> io::Result<()> {
        match self {
            Body::Owned(bytes) => copy_overlap(out, from, 0, bytes),
            Body::Merged(m) => m.fill_window(out, from)?,
        }
        Ok(())
    }

    /// Places the bytes into `out` at `at`.
    pub(crate) fn put(&self, out: &mut [u8], at: u64) -> io::Result<()> {
        match self {
            Body::Owned(bytes) => copy_overlap(out, 0, at, bytes),
            Body::Merged(m) => {
                let start = usize::try_from(at).unwrap_or(usize::MAX);
                let end = start.saturating_add(usize::try_from(m.size).unwrap_or(usize::MAX));
                if let Some(dst) = out.get_mut(start..end) {
                    m.fill(dst)?;
                }
            }
        }
        Ok(())
    }
}

#[cfg(test)]
#[allow(clippy::unwrap_used)] // a failing unwrap is a failing test
mod tests {
    use super::*;

    #[test]
    fn a_piece_loses_the_bytes_another_covers() {
        let bytes = [1u8, 2, 3, 4];
        let PieceBytes::Here(rest) = PieceBytes::Here(&bytes).skip(1) else { panic!("bytes stay here") };
        assert_eq!(rest, &[2, 3, 4]);
        assert_eq!(PieceBytes::Here(&bytes).skip(9).len(), 0);
    }

    #[test]
    fn overlapping_patches_apply_in_order() {
        let input = [1u8; 32];
        let mut m = Merged::new(40);
        m.piece(4, PieceBytes::Here(&input));
        // A first relocation changes 8 bytes at 8, a second 8 bytes at 12
        // (seeing the first's bytes 12..16).
        let (mut site, len) = m.site(8).unwrap();
        assert_eq!((site, len), ([1u8; 16], 16));
        site[..8].copy_from_slice(&[2; 8]);
        m.patch(8, &site[..8]);
        let (mut site, len) = m.site(12).unwrap();
        assert_eq!(&site[..8], &[2, 2, 2, 2, 1, 1, 1, 1]);
        site[4..8].copy_from_slice(&[3; 4]);
        m.patch(12, &site[..len]);
        let mut body = Body::Merged(Box::new(m));
        let bytes = body.materialize().unwrap().clone();
        let mut expect = vec![0u8; 40];
        expect[4..36].fill(1);
        expect[8..16].fill(2);
        expect[16..20].fill(3);
        assert_eq!(bytes, expect);
    }

    #[test]
    fn planned_fields_are_seen_by_later_sites_and_written_in_order() {
        // R_CUDA_64 (type 2): a whole 8-byte field.
        let input = [0xaau8; 24];
        let mut m = Merged::new(24);
        m.piece(0, PieceBytes::Here(&input));
        let write = develf_reloc::plan(2, m.site_len(4), 0x1122_3344_5566_7788, 0, 4).unwrap().unwrap();
        m.field(4, write);
        // A later relocation reading the site sees the planned field.
        let (mut site, len) = m.site(8).unwrap();
        assert_eq!(&site[..4], &[0x44, 0x33, 0x22, 0x11]);
        assert_eq!(&site[4..len], &[0xaa; 12][..len - 4]);
        site[0] = 0x99;
        m.patch(8, &site[..len]);
        let mut body = Body::Merged(Box::new(m));
        let bytes = body.materialize().unwrap().clone();
        let mut expect = vec![0xaau8; 24];
        expect[4..12].copy_from_slice(&0x1122_3344_5566_7788u64.to_le_bytes());
        expect[8] = 0x99;
        assert_eq!(bytes, expect);
    }

    #[test]
    fn code_elsewhere_is_read_from_its_source() {
        let file: Vec<u8> = (0..64u8).collect();
        let source: &dyn CodeSource = &file;
        let mut m = Merged::new(24);
        m.piece(0, PieceBytes::Here(&[0xee; 4]));
        m.piece(8, PieceBytes::Elsewhere { source, offset: 32, len: 16 });
        assert_eq!(&m.site(6).unwrap().0[..6], &[0, 0, 32, 33, 34, 35]);
        let mut body = Body::Merged(Box::new(m));
        let bytes = body.materialize().unwrap().clone();
        let mut expect = vec![0u8; 24];
        expect[..4].fill(0xee);
        expect[8..24].copy_from_slice(&file[32..48]);
        assert_eq!(bytes, expect);
        // A source that cannot deliver is an error, not zeros.
        let mut short = Merged::new(8);
        short.piece(0, PieceBytes::Elsewhere { source, offset: 60, len: 8 });
        assert!(Body::Merged(Box::new(short)).materialize().is_err());
    }

    #[test]
    fn site_is_cut_at_the_section_end() {
        let input = [7u8; 10];
        let mut m = Merged::new(10);
        m.piece(0, PieceBytes::Here(&input));
        assert_eq!(m.site(4).unwrap().1, 6);
        assert_eq!(m.site(12).unwrap().1, 0);
    }
}
