//! `.note.nv.cuinfo` (type 1000) and `.note.nv.tkinfo` (type 2000).
//!
//! A note section is a sequence of `{ u32 namesz, u32 descsz, u32 type, name, desc }`
//! with name and desc each padded to 4 bytes. Padding bytes are kept as found.

use crate::display::{Field, FieldValue};
use crate::shape::u32_at;
use develf_format::note::{NT_CUDA_CUINFO, NT_CUDA_TKINFO};
use serde::Serialize;

pub use develf_format::note::CuInfo;

/// The fields of a cuinfo descriptor, for display.
pub fn cuinfo_fields(c: &CuInfo) -> Vec<Field> {
    vec![
        Field::new("note_version", FieldValue::Number(u64::from(c.note_version))),
        Field::new("virtual_sm", FieldValue::Text(format!("sm_{}", c.virtual_sm))),
        Field::new(
            "toolkit_version",
            FieldValue::Text(format!("{}.{}", c.toolkit_version / 10, c.toolkit_version % 10)),
        ),
    ]
}

/// Serialises a [`CuInfo`] (which lives in develf-format, without serde).
fn serialize_cuinfo<S: serde::Serializer>(c: &CuInfo, s: S) -> Result<S::Ok, S::Error> {
    use serde::ser::SerializeStruct;
    let mut st = s.serialize_struct("CuInfo", 3)?;
    st.serialize_field("note_version", &c.note_version)?;
    st.serialize_field("virtual_sm", &c.virtual_sm)?;
    st.serialize_field("toolkit_version", &c.toolkit_version)?;
    st.end()
}

/// `.note.nv.tkinfo`'s descriptor: six words, then a string blob the four offsets
/// point into (blob offset 0 is a NUL). The second word is 0 in all CUDA 13.5
/// output and cuobjdump does not print it.
#[derive(Debug, Clone, PartialEq, Eq, Serialize)]
pub struct TkInfo {
    pub note_version: u32,
    pub reserved: u32,
    pub tool_name_offset: u32,
    pub tool_version_offset: u32,
    pub tool_branch_offset: u32,
    pub command_line_offset: u32,
    /// The string blob as stored.
    pub strings: Vec<u8>,
}

impl TkInfo {
    const HEADER: usize = 24;

    pub fn decode(desc: &[u8]) -> Option<TkInfo> {
        Some(TkInfo {
            note_version: u32_at(desc, 0)?,
            reserved: u32_at(desc, 4)?,
            tool_name_offset: u32_at(desc, 8)?,
            tool_version_offset: u32_at(desc, 12)?,
            tool_branch_offset: u32_at(desc, 16)?,
            command_line_offset: u32_at(desc, 20)?,
            strings: desc.get(Self::HEADER..)?.to_vec(),
        })
    }

    /// A descriptor laid out as ptxas lays it out: a NUL, then the four strings.
    pub fn new(tool_name: &str, tool_version: &str, tool_branch: &str, command_line: &str) -> TkInfo {
        let mut strings = vec![0u8];
        let mut offsets = [0u32; 4];
        for (slot, s) in offsets.iter_mut().zip([tool_name, tool_version, tool_branch, command_line]) {
            *slot = u32::try_from(strings.len()).unwrap_or(u32::MAX);
            strings.extend_from_slice(s.as_bytes());
            strings.push(0);
        }
        TkInfo {
            note_version: 2,
            reserved: 0,
            tool_name_offset: offsets[0],
            tool_version_offset: offsets[1],
            tool_branch_offset: offsets[2],
            command_line_offset: offsets[3],
            strings,
        }
    }

    pub fn encode(&self, out: &mut Vec<u8>) {
        for w in [
            self.note_version,
            self.reserved,
            self.tool_name_offset,
            self.tool_version_offset,
            self.tool_branch_offset,
            self.command_line_offset,
        ] {
            out.extend_from_slice(&w.to_le_bytes());
        }
        out.extend_from_slice(&self.strings);
    }

    fn string(&self, offset: u32) -> Option<&str> {
        let rest = self.strings.get(usize::try_from(offset).ok()?..)?;
        let end = rest.iter().position(|&b| b == 0).unwrap_or(rest.len());
        std::str::from_utf8(&rest[..end]).ok()
    }

    pub fn tool_name(&self) -> Option<&str> {
        self.string(self.tool_name_offset)
    }
    pub fn tool_version(&self) -> Option<&str> {
        self.string(self.tool_version_offset)
    }
    pub fn tool_branch(&self) -> Option<&str> {
        self.string(self.tool_branch_offset)
    }
    pub fn command_line(&self) -> Option<&str> {
        self.string(self.command_line_offset)
    }

    pub fn fields(&self) -> Vec<Field> {
        let text = |s: Option<&str>| FieldValue::Text(s.unwrap_or("?").to_string());
        vec![
            Field::new("note_version", FieldValue::Number(u64::from(self.note_version))),
            Field::new("tool_name", text(self.tool_name())),
            Field::new("tool_version", text(self.tool_version())),
            Field::new("tool_branch", text(self.tool_branch())),
            Field::new("command_line", text(self.command_line())),
        ]
    }
}

/// A note's descriptor, typed where the (owner-independent) type is known.
#[derive(Debug, Clone, PartialEq, Eq, Serialize)]
#[serde(tag = "kind", content = "value")]
pub enum NoteDesc {
    CuInfo(#[serde(serialize_with = "serialize_cuinfo")] CuInfo),
    TkInfo(TkInfo),
    Raw(#[serde(serialize_with = "crate::hex_bytes")] Vec<u8>),
}

impl NoteDesc {
    pub fn decode(n_type: u32, desc: &[u8]) -> NoteDesc {
        let typed = match n_type {
            NT_CUDA_CUINFO => CuInfo::decode(desc).map(NoteDesc::CuInfo),
            NT_CUDA_TKINFO => TkInfo::decode(desc).map(NoteDesc::TkInfo),
            _ => None,
        };
        typed.unwrap_or_else(|| NoteDesc::Raw(desc.to_vec()))
    }

    pub fn encode(&self, out: &mut Vec<u8>) {
        match self {
            NoteDesc::CuInfo(c) => c.encode(out),
            NoteDesc::TkInfo(t) => t.encode(out),
            NoteDesc::Raw(b) => out.extend_from_slice(b),
        }
    }

    pub fn fields(&self) -> Vec<Field> {
        match self {
            NoteDesc::CuInfo(c) => cuinfo_fields(c),
            NoteDesc::TkInfo(t) => t.fields(),
            NoteDesc::Raw(b) => vec![Field::new("bytes", FieldValue::Bytes(b.clone()))],
        }
    }
}

/// One note.
#[derive(Debug, Clone, PartialEq, Eq, Serialize)]
pub struct Note {
    /// The owner as stored (`namesz` bytes, normally with its NUL).
    #[serde(serialize_with = "crate::lossy_text")]
    pub name: Vec<u8>,
    pub n_type: u32,
    pub desc: NoteDesc,
    /// Padding after the name and after the descriptor, as stored.
    #[serde(skip)]
    pub name_padding: Vec<u8>,
    #[serde(skip)]
    pub desc_padding: Vec<u8>,
}

impl Note {
    /// The owner without its NUL.
    pub fn owner(&self) -> &[u8] {
        self.name.strip_suffix(&[0]).unwrap_or(&self.name)
    }
}

/// A decoded note section.
#[derive(Debug, Clone, PartialEq, Eq, Serialize)]
pub struct Notes {
    pub notes: Vec<Note>,
    /// Bytes after the last whole note, kept as found.
    #[serde(skip)]
    pub trailing: Vec<u8>,
}

fn pad4(n: usize) -> usize {
    n.checked_add(3).map(|v| v & !3).unwrap_or(usize::MAX)
}

impl Notes {
    /// Decodes a note section; a note that does not fit ends the walk and its
    /// bytes are kept in `trailing`.
    pub fn decode(bytes: &[u8]) -> Notes {
        let mut notes = Vec::new();
        let mut pos = 0;
        while pos < bytes.len() {
            match Self::decode_one(bytes, pos) {
                Some((note, next)) => {
                    notes.push(note);
                    pos = next;
                }
                None => break,
            }
        }
        Notes { notes, trailing: bytes.get(pos..).unwrap_or_default().to_vec() }
    }

    fn decode_one(bytes: &[u8], pos: usize) -> Option<(Note, usize)> {
        let namesz = usize::try_from(u32_at(bytes, pos)?).ok()?;
        let descsz = usize::try_from(u32_at(bytes, pos + 4)?).ok()?;
        let n_type = u32_at(bytes, pos + 8)?;
        let name_at = pos + 12;
        let name_end = name_at.checked_add(namesz)?;
        let desc_at = name_at.checked_add(pad4(namesz))?;
        let desc_end = desc_at.checked_add(descsz)?;
        let next = desc_at.checked_add(pad4(descsz))?;
        // Padding of the last note may be missing; keep whatever is there.
        let next = next.min(bytes.len());
        if desc_end > bytes.len() {
            return None;
        }
        Some((
            Note {
                name: bytes.get(name_at..name_end)?.to_vec(),
                n_type,
                desc: NoteDesc::decode(n_type, bytes.get(desc_at..desc_end)?),
                name_padding: bytes.get(name_end..desc_at)?.to_vec(),
                desc_padding: bytes.get(desc_end..next)?.to_vec(),
            },
            next,
        ))
    }

    /// The section's bytes.
    pub fn encode(&self) -> Vec<u8> {
        let mut out = Vec::new();
        for n in &self.notes {
            let mut desc = Vec::new();
            n.desc.encode(&mut desc);
            out.extend_from_slice(&u32::try_from(n.name.len()).unwrap_or(u32::MAX).to_le_bytes());
            out.extend_from_slice(&u32::try_from(desc.len()).unwrap_or(u32::MAX).to_le_bytes());
            out.extend_from_slice(&n.n_type.to_le_bytes());
            out.extend_from_slice(&n.name);
            out.extend_from_slice(&n.name_padding);
            out.extend_from_slice(&desc);
            out.extend_from_slice(&n.desc_padding);
        }
        out.extend_from_slice(&self.trailing);
        out
    }
}
