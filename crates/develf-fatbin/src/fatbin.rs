//! The fatbin container: a 16-byte header and a run of entries, each a header
//! and a payload. Several fatbins often lie back to back in one section.
//!
//! Layout, as checked against CUDA 13.5's `fatbinary` and `cuobjdump` (where the
//! notes in `shared/reference/fatbin.md` disagree, the tools win; see the
//! comments marked "the tools say"):
//!
//! ```text
//! fatbin header   u32 magic 0xBA55ED50 | u16 version 1 | u16 header size 16 | u64 size of the entries
//! entry header    +0  u16 kind            +2  u16 format (0x0101)   +4  u32 header size
//!                 +8  u64 payload size (padded to 8)                +16 u32 compressed size (0: stored)
//!                 +20 u32 options descriptor offset (0: none)       +24 u16 minor +26 u16 major
//!                 +28 u32 sm                                        +32 u32 identifier offset +36 u32 length
//!                 +40 u64 flags                                     +48 u64 reserved (LTO IR: a key)
//!                 +56 u64 uncompressed size (0: stored)
//!                 +64 ... the header's tail: the identifier (NUL-padded to 8), then the options
//!                         descriptor (u32 offset, u32 length) and its bytes (NUL-padded to 8;
//!                         for an ELF's .nv.compat copy, one NUL byte comes first)
//! ```
//!
//! The tools say the header size is not one of a fixed set (64/80/112): it is 64
//! plus the tail, so 72, 80, 96, 112, 120 and 200 all occur. The "options" bytes
//! are ptxas options for PTX, nvvm options for LTO IR, and — for sm_100 and later
//! ELF — a copy of the cubin's `.nv.compat` section (flag 0x1000000 marks it).
//! Kind 0x100 (`fatbinary --concat`) is a concatenated entry: one compressed
//! payload whose tail holds `u32 count, u32 table length` and `count` 64-byte
//! member headers whose `+4` field is the member's offset in the decompressed
//! payload.

use crate::codes;
use crate::compress::{self, Codec, Limits};
use develf_parse::Diagnostic;
use std::borrow::Cow;

pub const FATBIN_MAGIC: u32 = 0xBA55_ED50;
pub const FATBIN_HEADER_SIZE: usize = 16;
pub const ENTRY_HEADER_SIZE: usize = 64;

/// What an entry holds.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Hash)]
pub enum EntryKind {
    /// PTX text (kind 1).
    Ptx,
    /// A device ELF: a cubin (kind 2).
    Elf,
    /// NVVM IR for link-time optimization, `code=lto_XX` (kind 8).
    LtoIr,
    /// Mercury / capsule-Mercury ELF for sm_100+ (kind 16). Not produced by any
    /// tool we can run (ptxas 13.5 has no `--binary-kind`); from the notes only.
    Mercury,
    /// `fatbinary --concat`: several entries in one compressed payload (kind 0x100).
    Concatenated,
    Other(u16),
}

impl EntryKind {
    pub fn from_raw(raw: u16) -> EntryKind {
        match raw {
            1 => EntryKind::Ptx,
            2 => EntryKind::Elf,
            8 => EntryKind::LtoIr,
            16 => EntryKind::Mercury,
            0x100 => EntryKind::Concatenated,
            other => EntryKind::Other(other),
        }
    }

    pub fn raw(self) -> u16 {
        match self {
            EntryKind::Ptx => 1,
            EntryKind::Elf => 2,
            EntryKind::LtoIr => 8,
            EntryKind::Mercury => 16,
            EntryKind::Concatenated => 0x100,
            EntryKind::Other(raw) => raw,
        }
    }

    /// The word `cuobjdump` uses ("elf", "ptx", "nvvm"), or ours.
    pub fn name(self) -> &'static str {
        match self {
            EntryKind::Ptx => "ptx",
            EntryKind::Elf => "elf",
            EntryKind::LtoIr => "nvvm",
            EntryKind::Mercury => "mercury",
            EntryKind::Concatenated => "concat",
            EntryKind::Other(_) => "unknown",
        }
    }

    /// Whether the payload is a device ELF.
    pub fn is_elf(self) -> bool {
        matches!(self, EntryKind::Elf | EntryKind::Mercury)
    }
}

/// The entry flags word.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Hash, Default)]
pub struct Flags(pub u64);

impl Flags {
    pub const SIZE_64: u64 = 0x1;
    pub const DEBUG: u64 = 0x2;
    pub const HOST_LINUX: u64 = 0x10;
    pub const HOST_MAC: u64 = 0x20;
    pub const HOST_WINDOWS: u64 = 0x40;
    pub const ZLIB: u64 = 0x1000;
    pub const LZ4: u64 = 0x2000;
    pub const LZ4_FRAME: u64 = 0x4000;
    pub const ZSTD: u64 = 0x8000;
    /// Seen on LTO IR entries together with a non-zero `+48` word; the payload is
    /// then not a plain ZSTD frame.
    pub const OBFUSCATED: u64 = 0x1_0000;
    /// The tools say: `sm_XXa` (cuobjdump prints and names it `sm_100a`).
    pub const ARCH_SPECIFIC: u64 = 0x10_0000;
    /// The tools say: `sm_XXf` (cuobjdump prints `sm_100f` but names files `sm_100`).
    pub const FAMILY_SPECIFIC: u64 = 0x20_0000;
    /// The header tail carries the cubin's `.nv.compat` bytes.
    pub const HAS_COMPAT: u64 = 0x100_0000;

    pub fn has(self, bit: u64) -> bool {
        self.0 & bit != 0
    }

    /// The codec, or `Err(bits)` for an unknown combination.
    pub fn codec(self) -> Result<Codec, u64> {
        let bits = self.0 & (Self::ZLIB | Self::LZ4 | Self::LZ4_FRAME | Self::ZSTD);
        match bits {
            0 => Ok(Codec::None),
            Self::ZLIB => Ok(Codec::Zlib),
            Self::LZ4 => Ok(Codec::Lz4Block),
            Self::LZ4_FRAME => Ok(Codec::Lz4Frame),
            Self::ZSTD => Ok(Codec::Zstd),
            other => Err(other),
        }
    }

    pub fn codec_bits(codec: Codec) -> u64 {
        match codec {
            Codec::None => 0,
            Codec::Zlib => Self::ZLIB,
            Codec::Lz4Block => Self::LZ4,
            Codec::Lz4Frame => Self::LZ4_FRAME,
            Codec::Zstd => Self::ZSTD,
        }
    }

    pub fn host(self) -> &'static str {
        if self.has(Self::HOST_LINUX) {
            "linux"
        } else if self.has(Self::HOST_WINDOWS) {
            "windows"
        } else if self.has(Self::HOST_MAC) {
            "mac"
        } else {
            "unknown"
        }
    }
}

/// The 16-byte header in front of each fatbin.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub struct FatbinHeader {
    pub version: u16,
    pub header_size: u16,
    /// Bytes of entries after the header.
    pub size: u64,
}

/// The fixed 64 bytes of an entry header, field by field.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Default)]
pub struct EntryHeader {
    pub kind: u16,
    pub format: u16,
    pub header_size: u32,
    pub payload_size: u64,
    pub compressed_size: u32,
    pub options_offset: u32,
    pub minor: u16,
    pub major: u16,
    pub sm: u32,
    pub identifier_offset: u32,
    pub identifier_len: u32,
    pub flags: Flags,
    pub reserved: u64,
    pub uncompressed_size: u64,
}

impl EntryHeader {
    /// Reads the fixed part; `bytes` must hold at least 64.
    pub fn read(bytes: &[u8]) -> Option<EntryHeader> {
        let b = bytes.get(..ENTRY_HEADER_SIZE)?;
        Some(EntryHeader {
            kind: u16_at(b, 0),
            format: u16_at(b, 2),
            header_size: u32_at(b, 4),
            payload_size: u64_at(b, 8),
            compressed_size: u32_at(b, 16),
            options_offset: u32_at(b, 20),
            minor: u16_at(b, 24),
            major: u16_at(b, 26),
            sm: u32_at(b, 28),
            identifier_offset: u32_at(b, 32),
            identifier_len: u32_at(b, 36),
            flags: Flags(u64_at(b, 40)),
            reserved: u64_at(b, 48),
            uncompressed_size: u64_at(b, 56),
        })
    }

    pub fn write(&self, out: &mut Vec<u8>) {
        out.extend_from_slice(&self.kind.to_le_bytes());
        out.extend_from_slice(&self.format.to_le_bytes());
        out.extend_from_slice(&self.header_size.to_le_bytes());
        out.extend_from_slice(&self.payload_size.to_le_bytes());
        out.extend_from_slice(&self.compressed_size.to_le_bytes());
        out.extend_from_slice(&self.options_offset.to_le_bytes());
        out.extend_from_slice(&self.minor.to_le_bytes());
        out.extend_from_slice(&self.major.to_le_bytes());
        out.extend_from_slice(&self.sm.to_le_bytes());
        out.extend_from_slice(&self.identifier_offset.to_le_bytes());
        out.extend_from_slice(&self.identifier_len.to_le_bytes());
        out.extend_from_slice(&self.flags.0.to_le_bytes());
        out.extend_from_slice(&self.reserved.to_le_bytes());
        out.extend_from_slice(&self.uncompressed_size.to_le_bytes());
    }

    pub fn kind(&self) -> EntryKind {
        EntryKind::from_raw(self.kind)
    }

    /// `sm_90`, `sm_100a`, `sm_100f`, as `cuobjdump` prints it.
    pub fn arch_name(&self) -> String {
        let suffix = if self.flags.has(Flags::ARCH_SPECIFIC) {
            "a"
        } else if self.flags.has(Flags::FAMILY_SPECIFIC) {
            "f"
        } else {
            ""
        };
        format!("sm_{}{suffix}", self.sm)
    }
}

/// One entry as stored: its header and the bytes it spans.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub struct RawEntry<'a> {
    pub header: EntryHeader,
    /// Offset of the entry header in the input (the file, not the section).
    pub offset: u64,
    /// The whole header, tail included.
    pub header_bytes: &'a [u8],
    /// The payload as stored (compressed or not), `payload_size` bytes.
    pub payload: &'a [u8],
}

impl<'a> RawEntry<'a> {
    pub fn kind(&self) -> EntryKind {
        self.header.kind()
    }

    /// The identifier (`fatbinary --ident`).
    pub fn identifier(&self) -> Option<&'a [u8]> {
        tail_bytes(self.header_bytes, self.header.identifier_offset, self.header.identifier_len)
    }

    /// The options bytes: ptxas options (PTX), nvvm options (LTO IR), the
    /// `.nv.compat` bytes (ELF for sm_100+). Concatenated entries have none.
    pub fn options(&self) -> Option<&'a [u8]> {
        if self.kind() == EntryKind::Concatenated || self.header.options_offset == 0 {
            return None;
        }
        let at = self.header.options_offset as usize;
        let descriptor = self.header_bytes.get(at..at.checked_add(8)?)?;
        let mut offset = u32_at(descriptor, 0);
        if self.kind().is_elf() && self.header.flags.has(Flags::HAS_COMPAT) {
            // The tools say: the .nv.compat copy starts one NUL byte after the
            // offset the descriptor gives, and the length counts only the copy.
            offset = offset.checked_add(1)?;
        }
        tail_bytes(self.header_bytes, offset, u32_at(descriptor, 4))
    }

    pub fn codec(&self) -> Result<Codec, Diagnostic> {
        self.header.flags.codec().map_err(|bits| {
            Diagnostic::new(codes::UNSUPPORTED_CODEC, format!("compression flags {bits:#x} name no single codec"))
                .at(self.offset)
        })
    }

    /// The stored bytes that decode to the content: the compressed stream, or the
    /// (padded) payload.
    pub fn stored(&self) -> Result<&'a [u8], Diagnostic> {
        if self.codec()? == Codec::None {
            return Ok(self.payload);
        }
        self.payload.get(..self.header.compressed_size as usize).ok_or_else(|| {
            Diagnostic::new(
                codes::BAD_ENTRY_FIELD,
                format!(
                    "compressed size {} exceeds the {}-byte payload",
                    self.header.compressed_size,
                    self.payload.len()
                ),
            )
            .at(self.offset + 16)
        })
    }

    /// The content: decompressed when compressed, borrowed when stored. Stored
    /// payloads keep their padding; see [`trim_elf`] for an ELF's true length.
    pub fn content(&self, limits: &Limits) -> Result<Cow<'a, [u8]>, Diagnostic> {
        if self.header.flags.has(Flags::OBFUSCATED) {
            return Err(Diagnostic::new(
                codes::OBFUSCATED_PAYLOAD,
                format!("{} entry is obfuscated (flag 0x10000); only NVIDIA's tools read it", self.kind().name()),
            )
            .at(self.offset));
        }
        let codec = self.codec()?;
        let stored = self.stored()?;
        if codec == Codec::None {
            return Ok(Cow::Borrowed(stored));
        }
        compress::decompress(codec, stored, self.header.uncompressed_size, limits)
            .map(Cow::Owned)
            .map_err(|d| d.at(self.offset))
    }

    /// The member headers of a concatenated entry: `(header, offset, size)` in the
    /// decompressed payload.
    pub fn concatenated_members(&self) -> Result<Vec<EntryHeader>, Diagnostic> {
        let bad = |m: String| Diagnostic::new(codes::BAD_CONCATENATED_ENTRY, m).at(self.offset);
        let at = self.header.options_offset as usize;
        let table = self.header_bytes.get(at..at.saturating_add(8)).ok_or_else(|| bad("no member table".into()))?;
        let count = u32_at(table, 0) as usize;
        let start = at + 8;
        let needed = count.checked_mul(ENTRY_HEADER_SIZE).and_then(|n| n.checked_add(start));
        let bytes = needed.and_then(|end| self.header_bytes.get(start..end)).ok_or_else(|| {
            bad(format!("{count} member headers do not fit in the {}-byte header", self.header_bytes.len()))
        })?;
        Ok(bytes.chunks_exact(ENTRY_HEADER_SIZE).filter_map(EntryHeader::read).collect())
    }
}

/// `[offset, offset + len)` of the header (the lengths are exact; the NUL
/// padding after them is not counted).
fn tail_bytes(header: &[u8], offset: u32, len: u32) -> Option<&[u8]> {
    if offset == 0 && len == 0 {
        return None;
    }
    let start = offset as usize;
    header.get(start..start.checked_add(len as usize)?)
}

/// One fatbin: where it is and its entries.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct Fatbin<'a> {
    /// Offset of the fatbin header in the input.
    pub offset: u64,
    pub header: FatbinHeader,
    pub entries: Vec<RawEntry<'a>>,
}

/// Every fatbin in `data` (a section, or a whole `.fatbin` file), back to back,
/// NUL padding between them skipped. `base` is the offset of `data` in the
/// input, for diagnostics. Entries read before an error are kept.
pub fn parse_fatbins(data: &[u8], base: u64) -> (Vec<Fatbin<'_>>, Vec<Diagnostic>) {
    let mut fatbins = Vec::new();
    let mut diagnostics = Vec::new();
    let mut pos = 0usize;
    loop {
        // Padding: fatbins in a section are aligned (8 or 16); skip zeros.
        while pos < data.len() && data[pos] == 0 {
            pos += 1;
        }
        if pos >= data.len() {
            break;
        }
        if data.get(pos..pos + 4).map(|m| u32_at(m, 0)) != Some(FATBIN_MAGIC) {
            let code = if fatbins.is_empty() { codes::NOT_FATBIN } else { codes::TRAILING_BYTES };
            diagnostics.push(
                Diagnostic::new(code, format!("{} bytes that are not a fatbin", data.len() - pos))
                    .at(base + pos as u64),
            );
            break;
        }
        match parse_one(data, pos, base, &mut diagnostics) {
            Some((fatbin, next)) => {
                fatbins.push(fatbin);
                pos = next;
            }
            None => break,
        }
    }
    (fatbins, diagnostics)
}

fn parse_one<'a>(
    data: &'a [u8],
    pos: usize,
    base: u64,
    diagnostics: &mut Vec<Diagnostic>,
) -> Option<(Fatbin<'a>, usize)> {
    let at = base + pos as u64;
    let Some(h) = data.get(pos..pos + FATBIN_HEADER_SIZE) else {
        diagnostics.push(
            Diagnostic::new(codes::TRUNCATED_FATBIN_HEADER, format!("{} bytes left, a header is 16", data.len() - pos))
                .at(at),
        );
        return None;
    };
    let header = FatbinHeader { version: u16_at(h, 4), header_size: u16_at(h, 6), size: u64_at(h, 8) };
    if header.version != 1 {
        diagnostics.push(
            Diagnostic::new(codes::UNSUPPORTED_FATBIN_VERSION, format!("fatbin version {}", header.version)).at(at + 4),
        );
    }
    if (header.header_size as usize) < FATBIN_HEADER_SIZE {
        diagnostics.push(
            Diagnostic::new(codes::BAD_FATBIN_HEADER_SIZE, format!("header size {}", header.header_size)).at(at + 6),
        );
        return None;
    }
    let start = pos + header.header_size as usize;
    let end = usize::try_from(header.size).ok().and_then(|s| start.checked_add(s)).filter(|&e| e <= data.len());
    let Some(end) = end else {
        diagnostics.push(
            Diagnostic::new(
                codes::FATBIN_OUT_OF_BOUNDS,
                format!("fatbin of {} bytes at {at:#x} runs past the {}-byte input", header.size, data.len()),
            )
            .at(at + 8),
        );
        return None;
    };
    let mut entries = Vec::new();
    let mut p = start;
    while p < end {
        let entry_at = base + p as u64;
        let Some(fixed) = data.get(p..end).and_then(EntryHeader::read) else {
            diagnostics.push(
                Diagnostic::new(codes::TRUNCATED_ENTRY, format!("{} bytes left, an entry header is 64", end - p))
                    .at(entry_at),
            );
            break;
        };
        let hs = fixed.header_size as usize;
        if hs < ENTRY_HEADER_SIZE || hs % 8 != 0 {
            diagnostics.push(
                Diagnostic::new(codes::BAD_ENTRY_HEADER_SIZE, format!("entry header size {hs}")).at(entry_at + 4),
            );
            break;
        }
        let payload_start = p.checked_add(hs).filter(|&s| s <= end);
        let payload_end = payload_start
            .zip(usize::try_from(fixed.payload_size).ok())
            .and_then(|(s, n)| s.checked_add(n))
            .filter(|&e| e <= end);
        let (Some(payload_start), Some(payload_end)) = (payload_start, payload_end) else {
            diagnostics.push(
                Diagnostic::new(
                    codes::TRUNCATED_ENTRY,
                    format!(
                        "entry with a {hs}-byte header and {} payload bytes runs past its fatbin",
                        fixed.payload_size
                    ),
                )
                .at(entry_at),
            );
            break;
        };
        if let EntryKind::Other(raw) = fixed.kind() {
            diagnostics.push(Diagnostic::new(codes::UNKNOWN_ENTRY_KIND, format!("entry kind {raw:#x}")).at(entry_at));
        }
        entries.push(RawEntry {
            header: fixed,
            offset: entry_at,
            header_bytes: &data[p..payload_start],
            payload: &data[payload_start..payload_end],
        });
        p = payload_end;
    }
    Some((Fatbin { offset: at, header, entries }, end))
}

/// The bytes an ELF occupies: the end of its furthest header table or section.
/// `cuobjdump -xelf` writes this length for stored (uncompressed) ELF entries,
/// whose payload is padded to 8. Returns `data` whole when it is not ELF.
pub fn trim_elf(data: &[u8]) -> &[u8] {
    let Ok(elf) = develf_parse::ElfFile::parse(data) else { return data };
    let h = &elf.header;
    let mut end = h.ehsize as u64;
    let table = |off: u64, num: u64, size: u16| off.saturating_add(num.saturating_mul(size as u64));
    if h.shnum > 0 {
        end = end.max(table(h.shoff, h.shnum, h.shentsize));
    }
    if h.phnum > 0 {
        end = end.max(table(h.phoff, h.phnum, h.phentsize));
    }
    for s in &elf.sections {
        if develf_format::section::occupies_file(s.sh_type) {
            end = end.max(s.offset.saturating_add(s.size));
        }
    }
    usize::try_from(end).ok().and_then(|e| data.get(..e)).unwrap_or(data)
}

pub(crate) fn u16_at(b: &[u8], at: usize) -> u16 {
    u16::from_le_bytes([b[at], b[at + 1]])
}

pub(crate) fn u32_at(b: &[u8], at: usize) -> u32 {
    u32::from_le_bytes([b[at], b[at + 1], b[at + 2], b[at + 3]])
}

pub(crate) fn u64_at(b: &[u8], at: usize) -> u64 {
    let mut w = [0u8; 8];
    w.copy_from_slice(&b[at..at + 8]);
    u64::from_le_bytes(w)
}
