//! Writing fatbins the way CUDA 13.5's `fatbinary --create` does.
//!
//! For stored (uncompressed) entries the output is byte-identical to
//! `fatbinary`'s for the same inputs (see `tests/tests/fatbin.rs`). Compressed
//! entries decode to the same content, but the compressed bytes differ: develf's
//! LZ4 and ZSTD encoders are not NVIDIA's.
//!
//! What `fatbinary` does to its inputs, as observed:
//! - PTX is normalized: `//` comments removed, runs of blanks collapsed to one
//!   space, lines trimmed (line breaks kept), then NUL-terminated;
//! - an sm_100-or-later ELF with a `.nv.compat` section carries a copy of it
//!   in the entry header's options, with flag 0x1000000;
//! - every payload is padded with NULs to a multiple of 8, and so is the header tail.

use crate::codes;
use crate::compress::{self, Codec};
use crate::fatbin::{ENTRY_HEADER_SIZE, EntryHeader, EntryKind, FATBIN_HEADER_SIZE, FATBIN_MAGIC, Flags};
use develf_parse::Diagnostic;

/// One entry to write.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct NewEntry {
    pub kind: EntryKind,
    pub sm: u32,
    /// `Some('a')` for sm_XXa, `Some('f')` for sm_XXf.
    pub suffix: Option<char>,
    /// The code version; `None` takes PTX's `.version` or 1.8 for ELF, as fatbinary 13.5 does.
    pub version: Option<(u16, u16)>,
    pub debug: bool,
    /// `fatbinary --ident`.
    pub identifier: Option<String>,
    /// PTX: the ptxas options (`fatbinary --cmdline`); ELF: `None` copies `.nv.compat`.
    pub options: Option<Vec<u8>>,
    /// The file's bytes (PTX source as written by the compiler; it is normalized here).
    pub data: Vec<u8>,
    pub codec: Codec,
}

impl NewEntry {
    pub fn new(kind: EntryKind, sm: u32, data: Vec<u8>) -> NewEntry {
        NewEntry {
            kind,
            sm,
            suffix: None,
            version: None,
            debug: false,
            identifier: None,
            options: None,
            data,
            codec: Codec::None,
        }
    }
}

/// A fatbin holding `entries` in order.
pub fn write_fatbin(entries: &[NewEntry]) -> Result<Vec<u8>, Diagnostic> {
    let mut body = Vec::new();
    for entry in entries {
        write_entry(entry, &mut body)?;
    }
    let mut out = Vec::with_capacity(FATBIN_HEADER_SIZE + body.len());
    out.extend_from_slice(&FATBIN_MAGIC.to_le_bytes());
    out.extend_from_slice(&1u16.to_le_bytes());
    out.extend_from_slice(&(FATBIN_HEADER_SIZE as u16).to_le_bytes());
    out.extend_from_slice(&(body.len() as u64).to_le_bytes());
    out.extend_from_slice(&body);
    Ok(out)
}

fn write_entry(entry: &NewEntry, out: &mut Vec<u8>) -> Result<(), Diagnostic> {
    let error = |m: String| Diagnostic::new(codes::WRITE_ERROR, m);
    let content = match entry.kind {
        EntryKind::Ptx => {
            let mut text = normalize_ptx(&entry.data);
            text.push(0);
            text
        }
        _ => entry.data.clone(),
    };
    let mut flags = Flags::SIZE_64 | Flags::HOST_LINUX | Flags::codec_bits(entry.codec);
    if entry.debug {
        flags |= Flags::DEBUG;
    }
    match entry.suffix {
        Some('a') => flags |= Flags::ARCH_SPECIFIC,
        Some('f') => flags |= Flags::FAMILY_SPECIFIC,
        None => {}
        Some(other) => return Err(error(format!("unknown architecture suffix `{other}`"))),
    }
    let options = match (&entry.options, entry.kind) {
        (Some(o), _) => Some(o.clone()),
        (None, EntryKind::Ptx) => Some(Vec::new()),
        // The tools say: sm_90 cubins have a .nv.compat too, but fatbinary 13.5
        // copies it only from sm_100 on.
        (None, kind) if kind.is_elf() && entry.sm >= 100 => nv_compat(&entry.data).map(|c| {
            flags |= Flags::HAS_COMPAT;
            c.to_vec()
        }),
        (None, _) => None,
    };
    let version = entry.version.unwrap_or_else(|| match entry.kind {
        EntryKind::Ptx => ptx_version(&entry.data).unwrap_or((0, 0)),
        _ => (1, 8),
    });

    // The header tail: identifier, then the options descriptor and its bytes.
    let mut tail = Vec::new();
    let mut header = EntryHeader {
        kind: entry.kind.raw(),
        format: 0x0101,
        sm: entry.sm,
        major: version.0,
        minor: version.1,
        flags: Flags(flags),
        ..EntryHeader::default()
    };
    if let Some(ident) = &entry.identifier {
        header.identifier_offset = ENTRY_HEADER_SIZE as u32;
        header.identifier_len = ident.len() as u32;
        tail.extend_from_slice(ident.as_bytes());
        pad_nul_terminated(&mut tail);
    }
    if let Some(options) = &options {
        let at = (ENTRY_HEADER_SIZE + tail.len()) as u32;
        header.options_offset = at;
        tail.extend_from_slice(&(at + 8).to_le_bytes());
        tail.extend_from_slice(&(options.len() as u32).to_le_bytes());
        if flags & Flags::HAS_COMPAT != 0 {
            // The tools say: the .nv.compat copy follows one NUL byte that the
            // declared length does not count.
            tail.push(0);
        }
        tail.extend_from_slice(options);
        pad_nul_terminated(&mut tail);
    }
    header.header_size = (ENTRY_HEADER_SIZE + tail.len()) as u32;

    let payload = if entry.codec == Codec::None {
        content
    } else {
        let packed = compress::compress(entry.codec, &content)
            .ok_or_else(|| error(format!("develf cannot write {} compression", entry.codec.name())))?;
        header.compressed_size =
            u32::try_from(packed.len()).map_err(|_| error("compressed payload over 4 GiB".into()))?;
        header.uncompressed_size = content.len() as u64;
        packed
    };
    header.payload_size = payload.len().next_multiple_of(8) as u64;
    header.write(out);
    out.extend_from_slice(&tail);
    out.extend_from_slice(&payload);
    out.resize(out.len() + (header.payload_size as usize - payload.len()), 0);
    Ok(())
}

/// A terminating NUL, then NULs up to a multiple of 8.
fn pad_nul_terminated(tail: &mut Vec<u8>) {
    let len = (tail.len() + 1).next_multiple_of(8);
    tail.resize(len, 0);
}

/// The bytes of a device ELF's `.nv.compat` section, if it has one.
fn nv_compat(elf: &[u8]) -> Option<&[u8]> {
    let file = develf_parse::ElfFile::parse(elf).ok()?;
    file.sections.iter().find(|s| s.name == ".nv.compat").and_then(|s| s.data)
}

/// `.version 9.5` → (9, 5).
fn ptx_version(ptx: &[u8]) -> Option<(u16, u16)> {
    let text = core::str::from_utf8(ptx).ok()?;
    let line = text.lines().map(str::trim).find(|l| l.starts_with(".version"))?;
    let (major, minor) = line.strip_prefix(".version")?.trim().split_once('.')?;
    Some((major.trim().parse().ok()?, minor.trim().parse().ok()?))
}

/// PTX as `fatbinary` stores it: `//` comments (outside string literals)
/// removed, runs of spaces and tabs collapsed into one space, lines trimmed.
pub fn normalize_ptx(ptx: &[u8]) -> Vec<u8> {
    let mut out = Vec::with_capacity(ptx.len());
    for (i, line) in ptx.split(|&b| b == b'\n').enumerate() {
        if i > 0 {
            out.push(b'\n');
        }
        let mut in_string = false;
        let mut pending_space = false;
        let mut wrote = false;
        let mut j = 0;
        while j < line.len() {
            let b = line[j];
            if b == b'"' {
                in_string = !in_string;
            }
            if !in_string && b == b'/' && line.get(j + 1) == Some(&b'/') {
                break;
            }
            if !in_string && (b == b' ' || b == b'\t') {
                pending_space = wrote;
            } else {
                if pending_space {
                    out.push(b' ');
                    pending_space = false;
                }
                out.push(b);
                wrote = true;
            }
            j += 1;
        }
    }
    out
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn ptx_normalization() {
        let src = b"//\n// comment\n.version 9.5\n\t// .globl\tk\n\tld.param.u64 \t%rd1, [k_param_0];  \n.file 1 \"a//b.cu\"\n";
        let want = b"\n\n.version 9.5\n\nld.param.u64 %rd1, [k_param_0];\n.file 1 \"a//b.cu\"\n";
        assert_eq!(normalize_ptx(src), want.to_vec());
        assert_eq!(ptx_version(src), Some((9, 5)));
    }
}
