//! What a file on the command line holds: a cubin, a zebin, an `ar` archive of
//! them (ocloc's "fat" archives), or a CUDA container (fatbin, host object, archive
//! of host objects) whose entries may be compressed. Each device ELF found is a
//! [`Blob`], parsed into an [`Object`] by [`parse`].

use develf_parse::ar::Archive;
use develf_parse::zebin::Zebin;
use develf_parse::{Cubin, Diagnostic};
use std::borrow::Cow;

/// One device ELF, parsed.
#[derive(Debug)]
pub enum Object<'a> {
    Cubin(Cubin<'a>),
    Zebin(Box<Zebin<'a>>),
}

/// The bytes of one device ELF found in a file, borrowed from the file or
/// decompressed out of a fatbin.
#[derive(Debug)]
pub struct Blob<'a> {
    /// `file`, `file(member)` or `file:entry`.
    pub label: String,
    pub data: Result<Cow<'a, [u8]>, Diagnostic>,
}

/// Parses one device ELF: a zebin when it looks like one, else a cubin.
pub fn parse(data: &[u8]) -> Result<Object<'_>, Diagnostic> {
    if Zebin::sniff(data) {
        Zebin::parse(data).map(|z| Object::Zebin(Box::new(z)))
    } else {
        Cubin::parse(data).map(Object::Cubin)
    }
}

/// Every device ELF in `data`, the contents of the file `name`.
pub fn blobs<'a>(name: &str, data: &'a [u8]) -> Vec<Blob<'a>> {
    if develf_fatbin::sniff(data).is_some() {
        return match develf_fatbin::device_elfs(data) {
            Ok(entries) => {
                entries.into_iter().map(|e| Blob { label: format!("{name}:{}", e.label), data: e.data }).collect()
            }
            Err(d) => vec![Blob { label: name.to_string(), data: Err(d) }],
        };
    }
    if !Archive::sniff(data) {
        return vec![Blob { label: name.to_string(), data: Ok(Cow::Borrowed(data)) }];
    }
    let archive = match Archive::parse(data) {
        Ok(a) => a,
        Err(d) => return vec![Blob { label: name.to_string(), data: Err(d) }],
    };
    archive
        .files()
        .map(|member| match member {
            Ok(m) => Blob { label: format!("{name}({})", m.name), data: Ok(Cow::Borrowed(m.data)) },
            Err(d) => Blob { label: name.to_string(), data: Err(d) },
        })
        .collect()
}

/// Whether the file is a container or archive rather than one device ELF.
pub fn is_container(data: &[u8]) -> bool {
    develf_fatbin::sniff(data).is_some() || Archive::sniff(data)
}
