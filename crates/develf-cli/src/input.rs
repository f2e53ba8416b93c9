//! What a file on the command line holds: a cubin, a zebin, or an `ar` archive
//! of them (ocloc's "fat" archives). Each device ELF found is one [`Object`].

use develf_parse::ar::Archive;
use develf_parse::zebin::Zebin;
use develf_parse::{Cubin, Diagnostic};

/// One device ELF, parsed.
#[derive(Debug)]
pub enum Object<'a> {
    Cubin(Cubin<'a>),
    Zebin(Box<Zebin<'a>>),
}

/// A device ELF found in a file: where it came from and what it parsed to.
#[derive(Debug)]
pub struct Found<'a> {
    /// `file` or `file(member)`.
    pub label: String,
    pub object: Result<Object<'a>, Diagnostic>,
}

fn parse_one(data: &[u8]) -> Result<Object<'_>, Diagnostic> {
    if Zebin::sniff(data) {
        Zebin::parse(data).map(|z| Object::Zebin(Box::new(z)))
    } else {
        Cubin::parse(data).map(Object::Cubin)
    }
}

/// Every device ELF in `data`, the contents of the file `name`.
pub fn objects<'a>(name: &str, data: &'a [u8]) -> Vec<Found<'a>> {
    if !Archive::sniff(data) {
        return vec![Found { label: name.to_string(), object: parse_one(data) }];
    }
    let archive = match Archive::parse(data) {
        Ok(a) => a,
        Err(d) => return vec![Found { label: name.to_string(), object: Err(d) }],
    };
    archive
        .files()
        .map(|member| match member {
            Ok(m) => Found { label: format!("{name}({})", m.name), object: parse_one(m.data) },
            Err(d) => Found { label: name.to_string(), object: Err(d) },
        })
        .collect()
}
