//! Phase 8: the ELF writer. Orders the surviving sections by class rank
//! (rule 1.1), lays out file offsets (3.1), fills the header (3.3, 3.4), the
//! section headers (2) and the program headers (3.5), into an [`Image`] that
//! is streamed to the file (assembled a span of sections at a time).

use crate::body::Body;
use crate::error::LinkError;
use crate::input::InputObject;
use crate::layout::{InfoField, Keep, Layout, MERC_SYMTAB_SHNDX, OutId, SectionClass, occupies_file};
use crate::relocate::{Contents, OutRelocation};
use crate::resolve::Resolution;
use crate::symbols::{OutSymbol, SymbolSection, SymbolTable, shared_kept};
use develf_format::header::{ABI_VERSION_8, EM_CUDA};
use develf_format::section::SHT_NOBITS;

const ELF_HEADER_SIZE: u64 = 64;
const SECTION_HEADER_SIZE: u64 = 64;
const PROGRAM_HEADER_SIZE: u64 = 56;
/// `ELFOSABI` of CUDA (rule 3.3).
const OSABI_CUDA: u8 = 0x41;
const ET_EXEC: u16 = 2;
const ET_REL: u16 = 1;
const PT_LOAD: u32 = 1;
const PT_PHDR: u32 = 6;
const PF_X: u32 = 1;
const PF_W: u32 = 2;
const PF_R: u32 = 4;
const SHF_WRITE: u64 = 1;
const SHF_ALLOC: u64 = 2;
const SHF_EXECINSTR: u64 = 4;

fn align_up(value: u64, align: u64) -> u64 {
    let align = align.max(1);
    value.div_ceil(align).saturating_mul(align)
}

/// One PT_LOAD being gathered (rule 3.5): flags, start, file end, and its
/// NOBITS sections as (align, size).
type LoadRun = (u32, u64, u64, Vec<(u64, u64)>);

/// One section header, as [`HeaderTable`] stores it.
struct Header {
    name: u32,
    sh_type: u32,
    flags: u64,
    offset: u64,
    size: u64,
    link: u32,
    info: u32,
    align: u64,
    entsize: u64,
}

/// The section header table in its file form (64 bytes a header, the null
/// entry first), filled as the sections are gathered and read back to lay
/// out the file: a big link has tens of thousands of headers, and a struct
/// per header beside the table would hold them twice.
struct HeaderTable {
    bytes: Vec<u8>,
}

impl HeaderTable {
    /// Room for `headers` headers after the null entry.
    fn with_capacity(headers: usize) -> HeaderTable {
        let mut bytes = Vec::with_capacity((headers + 1) * SECTION_HEADER_SIZE as usize);
        bytes.resize(SECTION_HEADER_SIZE as usize, 0);
        HeaderTable { bytes }
    }

    /// How many headers follow the null entry.
    fn len(&self) -> usize {
        self.bytes.len() / SECTION_HEADER_SIZE as usize - 1
    }

    fn push(&mut self, h: &Header) {
        let b = &mut self.bytes;
        b.extend_from_slice(&h.name.to_le_bytes());
        b.extend_from_slice(&h.sh_type.to_le_bytes());
        b.extend_from_slice(&h.flags.to_le_bytes());
        b.extend_from_slice(&0u64.to_le_bytes());
        b.extend_from_slice(&h.offset.to_le_bytes());
        b.extend_from_slice(&h.size.to_le_bytes());
        b.extend_from_slice(&h.link.to_le_bytes());
        b.extend_from_slice(&h.info.to_le_bytes());
        b.extend_from_slice(&h.align.to_le_bytes());
        b.extend_from_slice(&h.entsize.to_le_bytes());
    }

    /// The bytes of header `k` (0: the first after the null entry).
    fn entry(&self, k: usize) -> &[u8] {
        let at = (k + 1) * SECTION_HEADER_SIZE as usize;
        self.bytes.get(at..at + SECTION_HEADER_SIZE as usize).unwrap_or(&[0; SECTION_HEADER_SIZE as usize])
    }

    fn get(&self, k: usize) -> Header {
        let e = self.entry(k);
        let u32_at = |at: usize| u32::from_le_bytes([e[at], e[at + 1], e[at + 2], e[at + 3]]);
        let u64_at = |at: usize| u64::from(u32_at(at)) | (u64::from(u32_at(at + 4)) << 32);
        Header {
            name: u32_at(0),
            sh_type: u32_at(4),
            flags: u64_at(8),
            offset: u64_at(24),
            size: u64_at(32),
            link: u32_at(40),
            info: u32_at(44),
            align: u64_at(48),
            entsize: u64_at(56),
        }
    }

    fn set_offset(&mut self, k: usize, offset: u64) {
        let at = (k + 1) * SECTION_HEADER_SIZE as usize + 24;
        if let Some(field) = self.bytes.get_mut(at..at + 8) {
            field.copy_from_slice(&offset.to_le_bytes());
        }
    }

    /// The null entry is zero but for the counts of extended numbering
    /// (rule 3.6).
    fn set_null(&mut self, size: u64, link: u32) {
        if let Some(entry) = self.bytes.get_mut(32..44) {
            entry[..8].copy_from_slice(&size.to_le_bytes());
            entry[8..].copy_from_slice(&link.to_le_bytes());
        }
    }
}

fn relocation_bytes(list: &[OutRelocation], rela: bool) -> Vec<u8> {
    let mut out = Vec::with_capacity(list.len() * if rela { 24 } else { 16 });
    for r in list {
        out.extend_from_slice(&r.offset.to_le_bytes());
        out.extend_from_slice(&((u64::from(r.symbol) << 32) | u64::from(r.r_type)).to_le_bytes());
        if rela {
            out.extend_from_slice(&r.addend.to_le_bytes());
        }
    }
    out
}

/// The generated contents of section `id` (crate::metadata::build's list
/// is in section order).
fn generated_of(generated: &[(OutId, Vec<u8>)], id: OutId) -> Option<&Vec<u8>> {
    let k = generated.binary_search_by_key(&id, |&(x, _)| x).ok()?;
    generated.get(k).map(|(_, bytes)| bytes)
}

fn generated_of_mut(generated: &mut [(OutId, Vec<u8>)], id: OutId) -> Option<&mut Vec<u8>> {
    let k = generated.binary_search_by_key(&id, |&(x, _)| x).ok()?;
    generated.get_mut(k).map(|(_, bytes)| bytes)
}

/// How a symbol table names sections from 0xff00 (`SHN_LORESERVE`) on (rule 3.6).
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
enum Extended {
    /// No `.symtab_shndx`: every section a symbol names lies below 0xff00.
    Off,
    /// nvlink's `.symtab` with `.symtab_shndx` (sm_75..sm_90a): every
    /// symbol's section index is also in the table (not only the
    /// `SHN_XINDEX` ones; undefined symbols get 0), and `st_shndx` is
    /// `SHN_XINDEX` from 0xff00 on, except for section 0xfff2, written as is
    /// (it reads as `SHN_COMMON`; measured on section 65,522 of 65,778).
    Full,
    /// The Mercury finaliser's tables: `SHN_XINDEX` for every index from
    /// 0xff00 on (0xfff2 included), its index in the table, 0 for the rest.
    Sparse,
}

/// `SHN_LORESERVE`: the first section index a `st_shndx` or `e_shnum` cannot hold.
const SHN_LORESERVE: u32 = 0xff00;
/// `SHN_XINDEX`: the index is in `.symtab_shndx` (symbols) or section 0 (`e_shstrndx`).
const SHN_XINDEX: u16 = 0xffff;
/// The section index nvlink writes into `st_shndx` unchanged (`SHN_COMMON`).
const SHN_COMMON: u32 = 0xfff2;
/// Rule 3.6 (Mercury): the sections written, section 0 included, from
/// which the finaliser adds its index tables.
const MERC_EXTENDED_FROM: usize = 0xff00;

/// `.symtab` (or `.nv.merc.symtab`) and, when `extended` is on, its
/// `.symtab_shndx` (rule 3.6).
fn symtab_bytes(
    symbols: &[OutSymbol],
    index_of: &[Option<u32>],
    extended: Extended,
) -> Result<(Vec<u8>, Vec<u8>), LinkError> {
    let mut out = Vec::with_capacity(symbols.len() * 24);
    let mut table = Vec::with_capacity(if extended == Extended::Off { 0 } else { symbols.len() * 4 });
    for s in symbols {
        let index: u32 = match s.section {
            SymbolSection::Raw(raw) => u32::from(raw),
            SymbolSection::Section(id) => index_of.get(id).copied().flatten().unwrap_or(0),
        };
        let shndx = match (s.section, u16::try_from(index)) {
            (SymbolSection::Raw(raw), _) => raw,
            (_, Ok(small)) if index < SHN_LORESERVE || (index == SHN_COMMON && extended == Extended::Full) => small,
            _ if extended == Extended::Off => {
                return Err(LinkError::TooLarge(format!("section index {index} without .symtab_shndx")));
            }
            _ => SHN_XINDEX,
        };
        out.extend_from_slice(&s.name.to_le_bytes());
        out.push((s.bind << 4) | (s.st_type & 0xf));
        out.push(s.other);
        out.extend_from_slice(&shndx.to_le_bytes());
        out.extend_from_slice(&s.value.to_le_bytes());
        out.extend_from_slice(&s.size.to_le_bytes());
        match extended {
            Extended::Off => {}
            // A reserved index (`SHN_ABS`, ...; unmeasured) gets 0, as the
            // ELF spec has it, so that the entry cannot be read as a section.
            Extended::Full => {
                let entry = if matches!(s.section, SymbolSection::Raw(_)) { 0 } else { index };
                table.extend_from_slice(&entry.to_le_bytes());
            }
            Extended::Sparse => {
                let entry = if shndx == SHN_XINDEX { index } else { 0 };
                table.extend_from_slice(&entry.to_le_bytes());
            }
        }
    }
    Ok((out, table))
}

/// Rule 3.6: `e_shnum` and `e_shstrndx` with section 0's `sh_size` and
/// `sh_link` (`shnum` counts section 0). nvlink writes `e_shnum` as is up to
/// 0xff00 sections included (65,280 read back as 65,280) and 0 with the
/// count in section 0 from 0xff01 on.
fn section_counts(shnum: u64, shstrndx: u32) -> Result<(u16, u16, u64, u32), LinkError> {
    if u32::try_from(shnum).is_err() {
        return Err(LinkError::TooLarge(format!("{shnum} sections")));
    }
    let (e_shnum, null_size) = match u16::try_from(shnum) {
        Ok(n) if shnum <= u64::from(SHN_LORESERVE) => (n, 0),
        _ => (0, shnum),
    };
    let (e_shstrndx, null_link) = match u16::try_from(shstrndx) {
        Ok(n) if shstrndx < SHN_LORESERVE => (n, 0),
        _ => (SHN_XINDEX, shstrndx),
    };
    Ok((e_shnum, e_shstrndx, null_size, null_link))
}

/// The linked file as the pieces written at their offsets: the ELF header,
/// the section contents (moved out of the earlier phases, not copied), the
/// section and program header tables. [`Image::write_to`] streams it;
/// [`Image::into_bytes`] makes the one buffer.
pub struct Image<'a> {
    /// (file offset, bytes), in the order the writer placed them: a later
    /// piece overwrites an earlier one where they overlap. Merged sections
    /// still borrow the input bytes (crate::body).
    pieces: Vec<(u64, Body<'a>)>,
    total: u64,
    /// The link's working state (parsed inputs, layout, symbols), freed with
    /// the image rather than before it is written: a program that exits
    /// right after writing may `std::mem::forget` the image and skip freeing
    /// some hundred thousand allocations (as lld and mold do).
    state: Option<Box<dyn State + Send + Sync + 'a>>,
    /// What the link reports without failing, in nvlink's order.
    warnings: Vec<crate::LinkWarning>,
    /// Per input, per section: the index of the output section header its
    /// bytes went to, 0 when dropped ([`Image::section_header_index`]).
    placed_headers: Vec<Vec<u32>>,
}

/// Anything kept alive by an [`Image`].
trait State {}
impl<T> State for T {}

impl std::fmt::Debug for Image<'_> {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        f.debug_struct("Image").field("pieces", &self.pieces).field("total", &self.total).finish_non_exhaustive()
    }
}

impl<'a> Image<'a> {
    /// Keeps `state` alive as long as the image (see the `state` field).
    pub(crate) fn keep(&mut self, state: impl Send + Sync + 'a) {
        self.state = Some(Box::new(state));
    }

    /// The same file assembled in one buffer, with the image's warnings and
    /// placements; the image's pieces and state are freed.
    pub(crate) fn assembled<'b>(self) -> std::io::Result<Image<'b>> {
        let bytes = self.to_bytes()?;
        let total = bytes.len() as u64;
        Ok(Image {
            pieces: vec![(0, Body::Owned(bytes))],
            total,
            state: None,
            warnings: self.warnings,
            placed_headers: self.placed_headers,
        })
    }

    pub(crate) fn warn(&mut self, warnings: Vec<crate::LinkWarning>) {
        self.warnings.extend(warnings);
    }

    /// The link's warnings (nvlink prints them; under `-Werror` they fail
    /// the link).
    pub fn warnings(&self) -> &[crate::LinkWarning] {
        &self.warnings
    }

    /// The index of the output section header that input `input`'s section
    /// `section` was placed in; `None` when it was dropped (unreached,
    /// a losing weak copy) or not placed as it is (generated sections).
    pub fn section_header_index(&self, input: usize, section: usize) -> Option<u32> {
        self.placed_headers.get(input).and_then(|s| s.get(section)).copied().filter(|&i| i != 0)
    }

    /// The size of the file in bytes.
    pub fn len(&self) -> u64 {
        self.total
    }

    /// Whether the file is empty (it never is: there is an ELF header).
    pub fn is_empty(&self) -> bool {
        self.total == 0
    }

    /// Whether the pieces follow each other without overlapping and fit: then
    /// writing them in order, with zeros between, gives the same bytes as
    /// placing them one by one (only merc aliases share bytes, rule 3.2).
    fn sequential(&self) -> bool {
        let mut end = 0u64;
        for (at, body) in &self.pieces {
            let Some(stop) = at.checked_add(body.len()) else { return false };
            if *at < end || stop > self.total {
                return false;
            }
            end = stop;
        }
        true
    }

    /// The whole file in one buffer. Fails only when an input's code cannot
    /// be read ([`crate::Input::code`]).
    pub fn into_bytes(self) -> std::io::Result<Vec<u8>> {
        self.to_bytes()
    }

    fn to_bytes(&self) -> std::io::Result<Vec<u8>> {
        let mut out = vec![0u8; usize::try_from(self.total).unwrap_or(0)];
        for (at, body) in &self.pieces {
            body.put(&mut out, *at)?;
        }
        Ok(out)
    }

    /// Writes the file to `sink` front to back, a span of about [`SPAN`]
    /// bytes at a time, without first assembling it in memory (unless
    /// pieces overlap, as merc aliases do).
    pub fn write_to(&self, sink: &mut dyn std::io::Write) -> std::io::Result<()> {
        if !self.sequential() {
            return sink.write_all(&self.to_bytes()?);
        }
        let mut buf = Vec::new();
        for span in self.spans(SPAN) {
            write_span(&self.pieces, &span, SPAN, &mut buf, &mut |bytes, _| sink.write_all(bytes))?;
        }
        Ok(())
    }

    /// Writes the file into `file` (empty, opened for writing) with
    /// positional writes: the file is cut into spans of about [`SPAN`]
    /// bytes, each assembled and written by one of the rayon pool's threads
    /// (a big link's 19 MB of sections are otherwise assembled one after the
    /// other). Same bytes as [`Image::write_to`].
    #[cfg(unix)]
    pub fn write_to_file(&self, file: &std::fs::File) -> std::io::Result<()> {
        self.write_in_spans(file, SPAN)
    }

    #[cfg(unix)]
    fn write_in_spans(&self, file: &std::fs::File, span: u64) -> std::io::Result<()> {
        use rayon::prelude::*;
        use std::os::unix::fs::FileExt;
        if !self.sequential() {
            return file.write_all_at(&self.to_bytes()?, 0);
        }
        let pieces = &self.pieces;
        // A span's buffer holds the span and at most one more piece of up to
        // `span` bytes (`write_span`): sized once, it never grows by copying.
        let room = usize::try_from(span.saturating_mul(2)).unwrap_or(usize::MAX);
        self.spans(span).par_iter().try_for_each_init(
            || Vec::with_capacity(room),
            |buf: &mut Vec<u8>, s| write_span(pieces, s, span, buf, &mut |bytes, at| file.write_all_at(bytes, at)),
        )
    }

    /// The file cut before a piece every `span` bytes or so: together the
    /// spans cover `0..total` (padding included). Only for sequential pieces.
    fn spans(&self, span: u64) -> Vec<Span> {
        let mut spans: Vec<Span> = Vec::new();
        let mut first = 0usize;
        let mut start = 0u64;
        for (k, (at, _)) in self.pieces.iter().enumerate() {
            if *at >= start.saturating_add(span) {
                spans.push(Span { start, end: *at, pieces: first..k });
                (first, start) = (k, *at);
            }
        }
        spans.push(Span { start, end: self.total, pieces: first..self.pieces.len() });
        spans
    }
}

/// Hands the bytes of `span` to `put` (bytes, file offset) in file order:
/// its pieces appended in `buf`, so only the padding (and merged sections'
/// gaps) are zeroed, not the whole span first. A piece longer than `limit`
/// is not copied whole into `buf`: bytes in memory are handed over as they
/// are, a merged section is made `limit` bytes at a time. (A big link's
/// header table, `.strtab` or `.debug_frame` copied whole would add
/// megabytes while everything else is still held.)
fn write_span(
    pieces: &[(u64, Body<'_>)],
    span: &Span,
    limit: u64,
    buf: &mut Vec<u8>,
    put: &mut dyn FnMut(&[u8], u64) -> std::io::Result<()>,
) -> std::io::Result<()> {
    let limit = limit.max(1);
    let pad_to = |buf: &mut Vec<u8>, buf_at: u64, to: u64| {
        buf.resize(usize::try_from(to.saturating_sub(buf_at)).unwrap_or(usize::MAX), 0);
    };
    buf.clear();
    let mut buf_at = span.start;
    for (at, body) in pieces.get(span.pieces.clone()).unwrap_or_default() {
        pad_to(buf, buf_at, *at);
        if body.len() <= limit {
            body.append_to(buf)?;
            continue;
        }
        put(buf, buf_at)?;
        match body {
            Body::Owned(bytes) => put(bytes, *at)?,
            Body::Merged(_) => {
                let mut done = 0u64;
                while done < body.len() {
                    let n = limit.min(body.len() - done);
                    buf.clear();
                    buf.resize(usize::try_from(n).unwrap_or(usize::MAX), 0);
                    body.put_window(buf, done)?;
                    put(buf, at.saturating_add(done))?;
                    done += n;
                }
            }
        }
        buf.clear();
        buf_at = at.saturating_add(body.len());
    }
    pad_to(buf, buf_at, span.end);
    put(buf, buf_at)
}

/// How much of the file one thread assembles before writing it.
const SPAN: u64 = 128 * 1024;

/// A stretch of the output file and the pieces that lie in it.
struct Span {
    start: u64,
    end: u64,
    pieces: std::ops::Range<usize>,
}

/// Where section `id` goes in the header table: its class's rank (rule
/// 1.1), then its place inside the class; creation order breaks ties.
/// Class 20 (Mercury) has an order of its own inside
/// (crate::mercury::subrank). Rule 3.6: the Mercury finaliser's index
/// tables come after every section.
fn header_order_key(inputs: &[InputObject<'_>], layout: &Layout, id: OutId) -> (u8, (u8, usize)) {
    layout.section(id).map_or((u8::MAX, (0, 0)), |s| {
        let rank = if layout.mercury && s.class == SectionClass::SymTabShndx { u8::MAX } else { s.class.rule().rank };
        (rank, crate::mercury::order_key(inputs, layout, s))
    })
}

/// Per input, per section: its place among the placed input sections in
/// the output's header order (1 first, 0 when dropped), as
/// [`Image::section_header_index`] orders them, for a link that stopped
/// before writing (the call graph dump of a link with undefined
/// references, rule 13.10).
pub(crate) fn placement_order(inputs: &[InputObject<'_>], layout: &Layout) -> Vec<Vec<u32>> {
    let placed: Vec<OutId> = (0..layout.sections.len()).collect();
    let mut rank_of: Vec<u32> = vec![0; layout.sections.len()];
    for (k, id) in sort_stably_by_key(placed, |id| header_order_key(inputs, layout, id)).into_iter().enumerate() {
        rank_of[id] = u32::try_from(k + 1).unwrap_or(u32::MAX);
    }
    layout
        .placement
        .iter()
        .map(|sections| {
            sections.iter().map(|p| p.and_then(|(id, _)| rank_of.get(id as usize).copied()).unwrap_or(0)).collect()
        })
        .collect()
}

/// `ids` in a stable order by `key`: a bucket per rank, each sorted by the
/// rest of the key only when it has one (most sections keep creation order
/// inside their class; a big link has tens of thousands).
fn sort_stably_by_key(ids: Vec<OutId>, key: impl Fn(OutId) -> (u8, (u8, usize))) -> Vec<OutId> {
    let mut buckets: Vec<Vec<(OutId, (u8, usize))>> = (0..=u8::MAX).map(|_| Vec::new()).collect();
    for id in ids {
        let (rank, rest) = key(id);
        buckets[usize::from(rank)].push((id, rest));
    }
    let mut sorted = Vec::with_capacity(buckets.iter().map(Vec::len).sum());
    for mut bucket in buckets {
        if bucket.iter().any(|&(_, rest)| rest != (0, 0)) {
            bucket.sort_by_key(|&(_, rest)| rest);
        }
        sorted.extend(bucket.into_iter().map(|(id, _)| id));
    }
    sorted
}

/// Rule 11: on Mercury a relocation section every entry of which was
/// applied stays, empty, while its merc copy keeps entries: a
/// function-less `-G` object (gnof-G, an `nvcc -rdc -G` host-only file)
/// has `R_CUDA_32`s against debug sections only, all applied, in
/// `.rela.debug_info`, whose `.nv.merc.rela.debug_info` keeps its
/// `R_MERCURY_PROG_REL32`; nvlink writes the empty `.rela.debug_info`
/// (sm_100, alone or with other objects, exec and `-g`; not before sm_100,
/// where there is no merc copy).
fn merc_twin_has_entries(layout: &Layout, contents: &Contents<'_>, name: &str) -> bool {
    layout.mercury
        && layout.find(&format!(".nv.merc{name}")).is_some_and(|twin| !contents.relocations.get(twin).is_empty())
}

pub(crate) fn write<'a>(
    inputs: &[InputObject<'a>],
    resolution: &Resolution<'a>,
    layout: &Layout,
    symbols: &mut SymbolTable,
    mut contents: Contents<'a>,
    mut generated: Vec<(OutId, Vec<u8>)>,
    barrier_bits_kept: &[OutId],
) -> Result<Image<'a>, LinkError> {
    // Which sections get a header, in rank order (rule 1.1; stable: creation order).
    let mut kept: Vec<OutId> = (0..layout.sections.len())
        .filter(|&id| {
            layout.section(id).is_some_and(|s| match s.keep {
                Keep::Never => false,
                Keep::IfNotEmpty
                    if s.class == SectionClass::Relocation
                        || crate::mercury::is_relocation(s)
                        || crate::mercury::is_resolved_relocation(s) =>
                {
                    !contents.relocations.get(id).is_empty()
                        || (s.class == SectionClass::Relocation && merc_twin_has_entries(layout, &contents, &s.name))
                }
                Keep::IfNotEmpty => generated_of(&generated, id).is_some_and(|g| !g.is_empty()),
                Keep::Always => shared_kept(s),
                Keep::IfExtended => false,
            })
        })
        .collect();
    // Rule 3.6 (Mercury): the finaliser adds `.symtab_shndx` and
    // `.nv.merc.symtab_shndx` when the sections it writes reach the threshold.
    if layout.mercury && kept.len() + 1 >= MERC_EXTENDED_FROM {
        kept.extend((0..layout.sections.len()).filter(|&id| {
            layout.section(id).is_some_and(|s| s.keep == Keep::IfExtended && s.class == SectionClass::SymTabShndx)
        }));
    }
    let mut kept = sort_stably_by_key(kept, |id| header_order_key(inputs, layout, id));
    let mut index_of: Vec<Option<u32>> = vec![None; layout.sections.len()];
    for (i, &id) in kept.iter().enumerate() {
        if let Some(slot) = index_of.get_mut(id) {
            *slot = u32::try_from(i + 1).ok();
        }
    }
    let idx = |name: &str| layout.find(name).and_then(|id| index_of.get(id).copied().flatten()).unwrap_or(0);
    let symtab_index = idx(".symtab");
    let strtab_index = idx(".strtab");
    // Rules 4.3 and 11: the merc `.shstrtab` (header order) and `.nv.merc.symtab`.
    let mut merc_shstrtab = layout.mercury.then(|| crate::mercury::shstrtab(layout, &kept));
    let merc_symtab_index = layout
        .sections
        .iter()
        .position(crate::mercury::is_merc_symtab)
        .and_then(|id| index_of.get(id).copied().flatten())
        .unwrap_or(0);
    // Section contents. Rule 3.6: `.symtab_shndx` is kept when the link needs
    // extended numbering.
    let extended = match kept.iter().any(|&id| layout.section(id).is_some_and(|s| s.class == SectionClass::SymTabShndx))
    {
        false => Extended::Off,
        true if layout.mercury => Extended::Sparse,
        true => Extended::Full,
    };
    let (mut merc_symtab, mut merc_symtab_shndx) = match &symbols.merc {
        Some(m) => symtab_bytes(&m.symbols, &index_of, extended)?,
        None => Default::default(),
    };
    let (mut symtab, mut symtab_shndx) = symtab_bytes(&symbols.symbols, &index_of, extended)?;
    // The symbol tables are encoded and the string tables are moved into
    // the image (exact, not copied): what no later step reads is freed
    // before the image holds the output's sections.
    symbols.symbols = Vec::new();
    if let Some(m) = symbols.merc.as_mut() {
        m.symbols = Vec::new();
    }
    let mut strtab = std::mem::take(&mut symbols.strtab).bytes;
    strtab.shrink_to_fit();
    let mut shstrtab = std::mem::take(&mut symbols.shstrtab);
    shstrtab.shrink_to_fit();
    // Header k of the table is section kept[k]'s (every kept id has one).
    kept.retain(|&id| layout.section(id).is_some());
    let mut headers = HeaderTable::with_capacity(kept.len());
    // The ELF header's place, then a piece per header (its offset set once
    // the file is laid out), then the header tables.
    let mut pieces: Vec<(u64, Body<'a>)> = Vec::with_capacity(kept.len() + 3);
    pieces.push((0, Body::default()));
    for &id in &kept {
        let Some(s) = layout.section(id) else { continue };
        let bytes: Option<Vec<u8>> = match s.class {
            SectionClass::ShStrTab => Some(match &mut merc_shstrtab {
                Some((bytes, _)) => std::mem::take(bytes),
                None => std::mem::take(&mut shstrtab),
            }),
            SectionClass::Mercury if crate::mercury::is_merc_symtab(s) => Some(std::mem::take(&mut merc_symtab)),
            SectionClass::Mercury if crate::mercury::is_relocation(s) || crate::mercury::is_resolved_relocation(s) => {
                Some(relocation_bytes(&contents.relocations.take(id), true))
            }
            SectionClass::StrTab => Some(std::mem::take(&mut strtab)),
            // One section each: moved, not copied.
            SectionClass::SymTab => Some(std::mem::take(&mut symtab)),
            SectionClass::SymTabShndx if s.name == MERC_SYMTAB_SHNDX => Some(std::mem::take(&mut merc_symtab_shndx)),
            SectionClass::SymTabShndx => Some(std::mem::take(&mut symtab_shndx)),
            SectionClass::Relocation => {
                Some(relocation_bytes(&contents.relocations.take(id), s.sh_type != develf_format::section::SHT_REL))
            }
            // Moved out: each output section is written once.
            _ => generated_of_mut(&mut generated, id).map(std::mem::take),
        };
        let mut body = match bytes {
            Some(bytes) => Body::Owned(bytes),
            None => contents.data.get_mut(id).map(std::mem::take).unwrap_or_default(),
        };
        if let Some(text) = crate::mercury::capsule_text(s) {
            // Rule 1.4: a same-named static function's capsule codes its own
            // input's `.text`, found through the input, not the name: the
            // function symbol the capsule's sh_info names, else by name.
            let own = s.pieces.first().and_then(|p| {
                let input = inputs.get(p.input)?;
                let by_symbol = input
                    .section(p.section)
                    .and_then(|cap| input.symbol((cap.info & 0x00ff_ffff) as usize))
                    .and_then(|f| f.section_index())
                    .filter(|&x| input.section(x).is_some_and(|t| t.name == text));
                let x = match by_symbol {
                    Some(x) => x,
                    None => input.sections().iter().find(|x| x.name == text)?.index,
                };
                layout.placed(p.input, x).map(|(o, _)| o)
            });
            let index = own.and_then(|o| index_of.get(o).copied().flatten()).unwrap_or_else(|| idx(&text));
            crate::mercury::patch_capsule(s, body.bytes_mut(&s.name)?, Some(index));
        }
        let size = if occupies_file(s.sh_type) { body.len() } else { s.size };
        let merc_link_info = crate::mercury::link_info(s, strtab_index, merc_symtab_index, symbols);
        let link = match s.class {
            SectionClass::SymTab => strtab_index,
            SectionClass::SymTabShndx if s.name == MERC_SYMTAB_SHNDX => merc_symtab_index,
            SectionClass::CuInfo => idx(".note.nv.tkinfo"),
            SectionClass::NvInfo
            | SectionClass::FunctionInfo
            | SectionClass::CallGraph
            | SectionClass::Prototype
            | SectionClass::Relocation
            | SectionClass::Text
            | SectionClass::SymTabShndx => symtab_index,
            _ => 0,
        };
        let link = merc_link_info.map_or(link, |(l, _)| l);
        let info = match (s.class, s.info) {
            (SectionClass::SymTab, _) => symbols.first_global,
            (SectionClass::CuInfo, _) => idx(".nv.compat"),
            (SectionClass::Relocation, _) => s.target().and_then(|t| index_of.get(t).copied().flatten()).unwrap_or(0),
            (_, InfoField::Section(t)) => index_of.get(t).copied().flatten().unwrap_or(0),
            (_, InfoField::Function { high_bits, .. }) => {
                let symbol = s.info.function_symbol();
                let sym = symbol.and_then(|r| symbols.output_index(inputs, resolution, layout, r)).unwrap_or(0);
                high_bits | sym
            }
            _ => 0,
        };
        let info = match merc_link_info {
            Some((_, i)) if i != u32::MAX => i,
            _ => info,
        };
        let name = match &merc_shstrtab {
            Some((_, offsets)) => offsets.get(&id).copied().unwrap_or(0),
            None => symbols.section_name.get(id).copied().unwrap_or(0),
        };
        // Rule 10: an ABI-7 `.text` carries its barrier count in sh_flags
        // bits 20..26 (0x100006 for one `bar.sync`), and so does a `-r`
        // output's copy of it; executables move it to the function's
        // NUM_BARRIERS record (metadata.rs) and clear it, unless the
        // kernel's callees give it one (`keeps_abi7_barriers`).
        let flags = if layout.executable && s.class == SectionClass::Text && !barrier_bits_kept.contains(&id) {
            s.flags & !crate::metadata::ABI7_BARRIER_MASK
        } else {
            s.flags
        };
        headers.push(&Header {
            name,
            sh_type: s.sh_type,
            flags,
            offset: 0,
            size,
            link,
            info,
            align: s.align,
            entsize: s.entsize,
        });
        pieces.push((0, body));
    }

    // Rule 3.1: offsets. Rule 3.6: with `.symtab_shndx`, the table's size is
    // also left as zeros right after `.symtab` (where it is created), though
    // its bytes follow the debug sections (its header position).
    let shndx_gap = kept
        .iter()
        .filter(|_| !layout.mercury)
        .position(|&id| layout.section(id).is_some_and(|s| s.class == SectionClass::SymTabShndx))
        .map_or(0, |k| headers.get(k).size);
    let mut offset = ELF_HEADER_SIZE;
    let mut aliased = vec![false; headers.len()];
    for (k, &id) in kept.iter().enumerate() {
        // Rule 3.2: a merc alias shares the bytes of its normal section.
        let alias = layout
            .section(id)
            .and_then(|s| {
                crate::mercury::alias_target(s).or_else(|| crate::mercury::aliased_in_inputs(inputs, layout, s))
            })
            .and_then(|name| {
                kept.iter()
                    .position(|&x| layout.section(x).is_some_and(|s| s.name == name))
                    .map(|j| headers.get(j).offset)
            });
        if let Some(at) = alias {
            headers.set_offset(k, at);
            if let Some(a) = aliased.get_mut(k) {
                *a = true;
            }
            continue;
        }
        let h = headers.get(k);
        offset = align_up(offset, h.align.max(1));
        headers.set_offset(k, offset);
        if occupies_file(h.sh_type) {
            offset = offset.saturating_add(h.size);
        }
        if layout.section(id).is_some_and(|s| s.class == SectionClass::SymTab) {
            offset = offset.saturating_add(shndx_gap);
        }
    }
    let shoff = if layout.mercury { offset } else { align_up(offset, 8) };
    let shnum = headers.len() as u64 + 1;
    let phoff = shoff + SECTION_HEADER_SIZE * shnum;

    // Rule 3.5: program headers from runs of alloc sections with equal permissions.
    let mut loads: Vec<(u32, u64, u64, u64)> = Vec::new(); // flags, offset, filesz, memsz
    if layout.executable {
        let mut run: Option<LoadRun> = None;
        // p_memsz lays the NOBITS sections out after the file image, each
        // aligned: `.nv.global` (0xc) then a kernel's 128-aligned shared
        // window after `.nv.global.init` ends at 0x4f80 give 0x988, not the
        // 0x908 of laying them out from the segment's start (session 5, a
        // TMA kernel linked after a file with initialised globals).
        // Saturating: a damaged input's NOBITS size may be near 2^64 (the
        // `link` fuzz target); the link still ends with an error or a file.
        let close = |(f, start, fend, nobits): LoadRun| {
            let mend = nobits.iter().fold(fend, |m, &(align, size)| align_up(m, align).saturating_add(size));
            (f, start, fend.saturating_sub(start), mend.saturating_sub(start))
        };
        for (k, &id) in kept.iter().enumerate() {
            let h = headers.get(k);
            let merc_copy = layout.section(id).is_some_and(|s| s.class == SectionClass::Mercury);
            if h.flags & SHF_ALLOC == 0 || merc_copy {
                continue;
            }
            let perm = if h.flags & SHF_WRITE != 0 {
                PF_R | PF_W
            } else if h.flags & SHF_EXECINSTR != 0 || !layout.mercury {
                PF_R | PF_X
            } else {
                PF_R
            };
            let nobits = !occupies_file(h.sh_type) || h.sh_type == SHT_NOBITS;
            let file_end = if nobits { h.offset } else { h.offset + h.size };
            if run.as_ref().is_some_and(|r| r.0 != perm) {
                loads.extend(run.take().map(close));
            }
            let r = run.get_or_insert_with(|| (perm, h.offset, file_end, Vec::new()));
            r.2 = r.2.max(file_end);
            if nobits {
                r.3.push((h.align, h.size));
            }
        }
        loads.extend(run.take().map(close));
    }
    let phnum = if layout.executable { loads.len() as u64 + 2 } else { 0 };
    let table_size = PROGRAM_HEADER_SIZE * phnum;
    let mut phdrs: Vec<(u32, u32, u64, u64, u64)> = Vec::new();
    if layout.executable {
        if layout.mercury {
            phdrs.push((PT_PHDR, PF_R, phoff, table_size, table_size));
            phdrs.push((PT_LOAD, PF_R, phoff, table_size, table_size));
            phdrs.extend(loads.iter().map(|&(f, o, fs, ms)| (PT_LOAD, f, o, fs, ms)));
        } else {
            phdrs.push((PT_PHDR, PF_R | PF_X, phoff, table_size, table_size));
            phdrs.extend(loads.iter().map(|&(f, o, fs, ms)| (PT_LOAD, f, o, fs, ms)));
            phdrs.push((PT_LOAD, PF_R | PF_X, phoff, table_size, table_size));
        }
    }

    // Rule 3.4: e_flags, with bits 8..15 the target's SM even when the
    // inputs were compiled for an older one of its family (sm_80 into sm_86).
    let cuinfo_index = idx(".note.nv.cuinfo");
    let low = inputs
        .iter()
        .find(|i| !i.abi7)
        .map(|i| i.cubin.header().flags & 0x00ff_00ff)
        // Rule 13.6: with no input at all, what nvlink writes for the target
        // (0x4 up to sm_90, 0x2 from sm_100 on, as ptxas's objects have).
        .unwrap_or(if inputs.is_empty() && layout.mercury { 2 } else { 4 });
    let e_flags = (cuinfo_index << 24) | ((layout.target_sm & 0xff) << 8) | low;

    let total = if layout.executable { phoff + table_size } else { phoff };
    usize::try_from(total).map_err(|_| LinkError::TooLarge(format!("{total} bytes")))?;
    let (e_shnum, e_shstrndx, null_size, null_link) = section_counts(shnum, idx(".shstrtab"))?;
    let phnum16 = u16::try_from(phnum).map_err(|_| LinkError::TooLarge(format!("{phnum} program headers")))?;
    let mut head = Vec::with_capacity(64);
    head.extend_from_slice(&[0x7f, b'E', b'L', b'F', 2, 1, 1, OSABI_CUDA, ABI_VERSION_8, 0, 0, 0, 0, 0, 0, 0]);
    head.extend_from_slice(&(if layout.executable { ET_EXEC } else { ET_REL }).to_le_bytes());
    head.extend_from_slice(&EM_CUDA.to_le_bytes());
    head.extend_from_slice(&1u32.to_le_bytes());
    head.extend_from_slice(&0u64.to_le_bytes());
    head.extend_from_slice(&(if layout.executable { phoff } else { 0 }).to_le_bytes());
    head.extend_from_slice(&shoff.to_le_bytes());
    head.extend_from_slice(&e_flags.to_le_bytes());
    head.extend_from_slice(&64u16.to_le_bytes());
    // Rule 3.3: e_phentsize; the merc finaliser writes 0 when there is no table (-r).
    let phentsize: u16 = if layout.mercury && !layout.executable { 0 } else { 56 };
    head.extend_from_slice(&phentsize.to_le_bytes());
    head.extend_from_slice(&phnum16.to_le_bytes());
    head.extend_from_slice(&64u16.to_le_bytes());
    head.extend_from_slice(&e_shnum.to_le_bytes());
    head.extend_from_slice(&e_shstrndx.to_le_bytes());
    if let Some(first) = pieces.first_mut() {
        *first = (0, Body::Owned(head));
    }
    // A merc alias's own bytes are not written: the file holds the normal
    // section's (rule 3.2; they differ where merc relocations were applied
    // to the copy, `-G` `.nv.merc.debug_info`'s DW_AT_stmt_list).
    let mut written = Vec::with_capacity(pieces.len());
    written.push(true);
    for k in 0..headers.len() {
        let h = headers.get(k);
        if let Some(piece) = pieces.get_mut(k + 1) {
            piece.0 = h.offset;
        }
        written.push(occupies_file(h.sh_type) && !aliased.get(k).copied().unwrap_or(false));
    }
    let mut written = written.into_iter();
    pieces.retain(|_| written.next().unwrap_or(false));
    // The section header table, then the program headers.
    headers.set_null(null_size, null_link);
    pieces.push((shoff, Body::Owned(headers.bytes)));
    if !phdrs.is_empty() {
        let mut table = Vec::with_capacity(table_size as usize);
        for (p_type, flags, offset, filesz, memsz) in phdrs {
            let b = &mut table;
            b.extend_from_slice(&p_type.to_le_bytes());
            b.extend_from_slice(&flags.to_le_bytes());
            b.extend_from_slice(&offset.to_le_bytes());
            b.extend_from_slice(&0u64.to_le_bytes());
            b.extend_from_slice(&0u64.to_le_bytes());
            b.extend_from_slice(&filesz.to_le_bytes());
            b.extend_from_slice(&memsz.to_le_bytes());
            b.extend_from_slice(&8u64.to_le_bytes());
        }
        pieces.push((phoff, Body::Owned(table)));
    }
    // Where each input section went, for reports that follow the output's
    // order (`-dump-callgraph`'s propagation lines).
    let placed_headers = layout
        .placement
        .iter()
        .map(|sections| {
            sections
                .iter()
                .map(|p| p.and_then(|(id, _)| index_of.get(id as usize).copied().flatten()).unwrap_or(0))
                .collect()
        })
        .collect();
    Ok(Image { pieces, total, state: None, warnings: Vec::new(), placed_headers })
}

#[cfg(test)]
#[allow(clippy::unwrap_used)] // a failing unwrap is a failing test
mod tests {
    //! Rule 3.6 against nvlink 13.5's outputs measured with
    //! docs/nvlink-layout-scripts/xindex.py (sm_90: 40 objects of 800
    //! functions plus one of 551 / 552 functions; 41 objects; sm_100: 20 plus 279).
    use super::*;

    fn symbol(section: SymbolSection) -> OutSymbol {
        OutSymbol { name: 0, bind: 0, st_type: 3, other: 0, section, value: 0, size: 0 }
    }

    fn st_shndx(symtab: &[u8], k: usize) -> u16 {
        u16::from_le_bytes([symtab[24 * k + 6], symtab[24 * k + 7]])
    }

    fn entry(table: &[u8], k: usize) -> u32 {
        u32::from_le_bytes([table[4 * k], table[4 * k + 1], table[4 * k + 2], table[4 * k + 3]])
    }

    #[test]
    fn section_count_fields() {
        // 65,280 sections (40 x 800 + 551, exec): e_shnum 65280 as is.
        assert_eq!(section_counts(65_280, 1).ok(), Some((65_280, 1, 0, 0)));
        // 65,282 (+ 552): e_shnum 0, section 0's sh_size 65282, e_shstrndx 1.
        assert_eq!(section_counts(65_282, 1).ok(), Some((0, 1, 65_282, 0)));
        // 65,778 (41 x 800).
        assert_eq!(section_counts(65_778, 1).ok(), Some((0, 1, 65_778, 0)));
        // Not measured (nvlink's `.shstrtab` is section 1): the ELF rule.
        assert_eq!(section_counts(70_000, 0xff00).ok(), Some((0, SHN_XINDEX, 70_000, 0xff00)));
        assert!(section_counts(1 << 32, 1).is_err());
    }

    #[test]
    fn symbol_encoding() {
        // index_of: out id i -> header index i.
        let index_of: Vec<Option<u32>> = (0..70_000u32).map(Some).collect();
        let symbols: Vec<OutSymbol> = [0usize, 4, 0xfeff, 0xff00, 0xfff1, 0xfff2, 0xffff, 0x1_0000]
            .into_iter()
            .map(|i| symbol(if i == 0 { SymbolSection::Raw(0) } else { SymbolSection::Section(i) }))
            .collect();

        let (plain, none) = symtab_bytes(&symbols[..3], &index_of, Extended::Off).unwrap_or_default();
        assert_eq!((plain.len(), st_shndx(&plain, 2), none.len()), (72, 0xfeff, 0));
        assert!(symtab_bytes(&symbols, &index_of, Extended::Off).is_err());

        // sm_90 `.symtab`: SHN_XINDEX from 0xff00, but section 0xfff2 (65,522)
        // stays 0xfff2; the table has every symbol's index (UNDEF: 0).
        let (symtab, table) = symtab_bytes(&symbols, &index_of, Extended::Full).unwrap_or_default();
        assert_eq!((symtab.len(), table.len()), (24 * 8, 4 * 8));
        let raw: Vec<u16> = (0..symbols.len()).map(|k| st_shndx(&symtab, k)).collect();
        assert_eq!(raw, [0, 4, 0xfeff, 0xffff, 0xffff, 0xfff2, 0xffff, 0xffff]);
        let entries: Vec<u32> = (0..symbols.len()).map(|k| entry(&table, k)).collect();
        assert_eq!(entries, [0, 4, 0xfeff, 0xff00, 0xfff1, 0xfff2, 0xffff, 0x1_0000]);

        // sm_100 finaliser: SHN_XINDEX from 0xff00 (0xfff2 too); only those
        // have an entry.
        let (symtab, table) = symtab_bytes(&symbols, &index_of, Extended::Sparse).unwrap_or_default();
        assert_eq!((symtab.len(), table.len()), (24 * 8, 4 * 8));
        let raw: Vec<u16> = (0..symbols.len()).map(|k| st_shndx(&symtab, k)).collect();
        assert_eq!(raw, [0, 4, 0xfeff, 0xffff, 0xffff, 0xffff, 0xffff, 0xffff]);
        let entries: Vec<u32> = (0..symbols.len()).map(|k| entry(&table, k)).collect();
        assert_eq!(entries, [0, 0, 0, 0xff00, 0xfff1, 0xfff2, 0xffff, 0x1_0000]);
    }

    /// Written in spans by several threads, the file has the bytes
    /// `to_bytes` places one piece after the other: padding between pieces
    /// and at the end, merged sections assembled with their patches, spans
    /// cut anywhere (here every few bytes) or not at all.
    #[cfg(unix)]
    #[test]
    fn spans_write_the_same_bytes() {
        use crate::body::{Merged, PieceBytes};
        let code: Vec<u8> = (0u8..=255).collect();
        let image = |span_pieces: u64| {
            let mut pieces: Vec<(u64, Body<'_>)> = Vec::new();
            let mut at = 64u64;
            for k in 0..span_pieces {
                at = align_up(at, 16);
                let body = if k % 3 == 0 {
                    let mut m = Merged::new(40);
                    m.piece(3, PieceBytes::Here(&code[k as usize..k as usize + 30]));
                    m.patch(8, &[0xee; 4]);
                    Body::Merged(Box::new(m))
                } else {
                    Body::Owned(vec![k as u8 + 1; 5 + k as usize % 7])
                };
                let len = body.len();
                pieces.push((at, body));
                at += len + k % 5;
            }
            pieces.insert(0, (0, Body::Owned(vec![0x7f; 64])));
            Image { pieces, total: at + 9, state: None, warnings: Vec::new(), placed_headers: Vec::new() }
        };
        let pool = rayon::ThreadPoolBuilder::new().num_threads(3).build().unwrap();
        for count in [0u64, 1, 2, 17, 60] {
            let image = image(count);
            assert!(image.sequential());
            let expect = image.to_bytes().unwrap();
            for span in [1u64, 7, 64, 100, 1 << 20] {
                let path = std::env::temp_dir().join(format!("develf-spans-{}-{count}-{span}", std::process::id()));
                let file = std::fs::File::create(&path).unwrap();
                pool.install(|| image.write_in_spans(&file, span)).unwrap();
                let got = std::fs::read(&path).unwrap();
                let _ = std::fs::remove_file(&path);
                assert_eq!(got, expect, "{count} pieces, spans of {span}");
            }
            let mut streamed = Vec::new();
            image.write_to(&mut streamed).unwrap();
            assert_eq!(streamed, expect, "{count} pieces, streamed");
        }
    }

    /// The bucket sort gives the order of a stable sort by the whole key.
    #[test]
    fn bucket_sort_is_a_stable_sort() {
        let mut seed = 0x1234_5678_u64;
        let mut next = |n: u64| {
            seed = seed.wrapping_mul(6_364_136_223_846_793_005).wrapping_add(1_442_695_040_888_963_407);
            (seed >> 33) % n
        };
        for round in 0..200 {
            let n = next(300) as usize;
            let keys: Vec<(u8, (u8, usize))> = (0..n)
                .map(|_| {
                    let rest = if round % 2 == 0 && next(4) != 0 { (0, 0) } else { (next(3) as u8, next(5) as usize) };
                    (next(6) as u8 * 50, rest)
                })
                .collect();
            let mut expect: Vec<OutId> = (0..n).collect();
            expect.sort_by_key(|&id| keys[id]);
            assert_eq!(sort_stably_by_key((0..n).collect(), |id| keys[id]), expect, "round {round}");
        }
    }
}
