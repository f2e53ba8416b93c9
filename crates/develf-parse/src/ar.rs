//! A small reader for `ar` archives: the "fat" binaries `ocloc -device a,b` writes
//! (one zebin per device, members named after the target, e.g. `64.12.0.0`, after a
//! `pad_N` member that aligns the data), and static libraries.
//!
//! GNU and BSD variants are read: GNU's `//` long-name table with `/N` references
//! and `name/` terminators, its `/` (and `/SYM64/`) symbol tables, BSD's `#1/N`
//! names stored at the start of the member data and `__.SYMDEF*` tables. Thin
//! archives (`!<thin>\n`) are refused: their members live in other files.
//! Everything borrows the input; a damaged header stops iteration with a diagnostic.

use crate::diag::Diagnostic;
use crate::diagnostic_codes;

diagnostic_codes!(AR_CODES {
    NOT_AR = ("A0001", Structure, Error, "the file does not start with the !<arch> magic"),
    THIN_ARCHIVE = ("A0002", Structure, Error, "a thin archive, whose members are in other files"),
    BAD_MEMBER_HEADER = ("A0003", Structure, Error, "a member header is truncated or has a bad size or terminator"),
    MEMBER_OUT_OF_BOUNDS = ("A0004", Structure, Error, "a member's data runs past the end of the archive"),
    BAD_LONG_NAME = ("A0005", References, Error, "a long-name reference points outside the name table"),
});

pub const MAGIC: &[u8; 8] = b"!<arch>\n";
pub const THIN_MAGIC: &[u8; 8] = b"!<thin>\n";
const HEADER_SIZE: usize = 60;

/// An `ar` archive over borrowed bytes.
#[derive(Debug, Clone, Copy)]
pub struct Archive<'a> {
    data: &'a [u8],
}

/// One member: its name and bytes.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub struct Member<'a> {
    /// The name with GNU's `/` terminator and BSD's padding removed.
    pub name: &'a str,
    /// The member's bytes (after a BSD long name).
    pub data: &'a [u8],
    /// File offset of the member's header.
    pub offset: u64,
    /// A symbol table (`/`, `/SYM64/`, `__.SYMDEF*`) rather than a file.
    pub is_symbol_table: bool,
}

impl<'a> Archive<'a> {
    /// Whether the bytes start with an archive magic (thin or not).
    pub fn sniff(data: &[u8]) -> bool {
        data.starts_with(MAGIC) || data.starts_with(THIN_MAGIC)
    }

    pub fn parse(data: &'a [u8]) -> Result<Archive<'a>, Diagnostic> {
        if data.starts_with(THIN_MAGIC) {
            return Err(Diagnostic::new(
                THIN_ARCHIVE,
                "thin archive: its members are stored in other files; develf reads only regular archives",
            )
            .at(0));
        }
        if !data.starts_with(MAGIC) {
            return Err(Diagnostic::new(NOT_AR, "no !<arch> magic").at(0));
        }
        Ok(Archive { data })
    }

    /// Every member in order, symbol tables and GNU's name table included (the name
    /// table is consumed, not yielded). Stops after the first error.
    pub fn members(&self) -> impl Iterator<Item = Result<Member<'a>, Diagnostic>> + 'a {
        Members { data: self.data, pos: MAGIC.len(), long_names: None, done: false }
    }

    /// The members that are files, not symbol tables nor `pad_N` alignment fillers.
    pub fn files(&self) -> impl Iterator<Item = Result<Member<'a>, Diagnostic>> + 'a {
        self.members().filter(|m| m.as_ref().map_or(true, |m| !m.is_symbol_table && !m.name.starts_with("pad_")))
    }
}

struct Members<'a> {
    data: &'a [u8],
    pos: usize,
    long_names: Option<&'a [u8]>,
    done: bool,
}

impl<'a> Iterator for Members<'a> {
    type Item = Result<Member<'a>, Diagnostic>;

    fn next(&mut self) -> Option<Self::Item> {
        loop {
            if self.done || self.pos >= self.data.len() {
                return None;
            }
            let result = self.read_one();
            match result {
                Ok(Some(member)) => return Some(Ok(member)),
                Ok(None) => continue, // the GNU name table
                Err(e) => {
                    self.done = true;
                    return Some(Err(e));
                }
            }
        }
    }
}

impl<'a> Members<'a> {
    fn read_one(&mut self) -> Result<Option<Member<'a>>, Diagnostic> {
        let at = self.pos;
        let bad = |msg: String| Diagnostic::new(BAD_MEMBER_HEADER, msg).at(at as u64);
        let header = self
            .data
            .get(at..at + HEADER_SIZE)
            .ok_or_else(|| bad(format!("{} bytes left, a member header is 60", self.data.len() - at)))?;
        if &header[58..60] != b"`\n" {
            return Err(bad("member header does not end with `\\n".into()));
        }
        let size = parse_decimal(&header[48..58]).ok_or_else(|| bad("member size is not a decimal number".into()))?;
        let start = at + HEADER_SIZE;
        let end = start.checked_add(size).filter(|&e| e <= self.data.len()).ok_or_else(|| {
            Diagnostic::new(
                MEMBER_OUT_OF_BOUNDS,
                format!("member of {size} bytes at {start:#x} runs past the {}-byte archive", self.data.len()),
            )
            .at(at as u64)
        })?;
        // Members are 2-byte aligned; the padding byte may be missing at the end.
        self.pos = end + (end & 1);
        let mut data = &self.data[start..end];
        let raw_name = trim_spaces(&header[..16]);
        let name: &'a [u8] = if raw_name == b"//" {
            self.long_names = Some(data);
            return Ok(None);
        } else if raw_name == b"/" || raw_name == b"/SYM64/" {
            return Ok(Some(Member {
                name: if raw_name == b"/" { "/" } else { "/SYM64/" },
                data,
                offset: at as u64,
                is_symbol_table: true,
            }));
        } else if let Some(rest) = raw_name.strip_prefix(b"#1/") {
            // BSD: the name is the first N bytes of the data, NUL-padded.
            let n = parse_decimal(rest)
                .filter(|&n| n <= data.len())
                .ok_or_else(|| Diagnostic::new(BAD_LONG_NAME, "BSD #1/N name longer than its member").at(at as u64))?;
            let (name, rest) = data.split_at(n);
            data = rest;
            let len = name.iter().position(|&b| b == 0).unwrap_or(name.len());
            &name[..len]
        } else if let Some(rest) = raw_name.strip_prefix(b"/") {
            let offset = parse_decimal(rest).ok_or_else(|| bad("GNU name reference is not /N".into()))?;
            let table = self
                .long_names
                .ok_or_else(|| Diagnostic::new(BAD_LONG_NAME, "a /N name before any // name table").at(at as u64))?;
            let tail = table.get(offset..).ok_or_else(|| {
                Diagnostic::new(BAD_LONG_NAME, format!("name offset {offset} past the {}-byte name table", table.len()))
                    .at(at as u64)
            })?;
            let len = tail.iter().position(|&b| b == b'\n' || b == 0).unwrap_or(tail.len());
            let name = &tail[..len];
            name.strip_suffix(b"/").unwrap_or(name)
        } else {
            raw_name.strip_suffix(b"/").unwrap_or(raw_name)
        };
        let name = core::str::from_utf8(name)
            .map_err(|_| Diagnostic::new(BAD_LONG_NAME, "member name is not UTF-8").at(at as u64))?;
        let is_symbol_table = name.starts_with("__.SYMDEF");
        Ok(Some(Member { name, data, offset: at as u64, is_symbol_table }))
    }
}

fn trim_spaces(field: &[u8]) -> &[u8] {
    let end = field.iter().rposition(|&b| b != b' ').map_or(0, |p| p + 1);
    &field[..end]
}

fn parse_decimal(field: &[u8]) -> Option<usize> {
    let digits = trim_spaces(field);
    if digits.is_empty() || digits.len() > 12 || !digits.iter().all(u8::is_ascii_digit) {
        return None;
    }
    core::str::from_utf8(digits).ok()?.parse().ok()
}

#[cfg(test)]
mod tests {
    use super::*;

    fn header(name: &str, size: usize) -> Vec<u8> {
        let mut h = format!("{name:<16}{:<12}{:<6}{:<6}{:<8}{size:<10}`\n", 0, 0, 0, 644).into_bytes();
        assert_eq!(h.len(), 60);
        h.truncate(60);
        h
    }

    #[test]
    fn gnu_long_names_and_bsd_names() {
        let mut a = MAGIC.to_vec();
        let table = b"a_rather_long_member_name.bin/\n";
        a.extend(header("//", table.len()));
        a.extend(table);
        a.push(b'\n');
        a.extend(header("/0", 3));
        a.extend(b"abc\n");
        a.extend(header("short/", 2));
        a.extend(b"xy");
        a.extend(header("#1/8", 10));
        a.extend(b"bsd.o\0\0\0zz");
        let ar = Archive::parse(&a).expect("archive");
        let m: Vec<_> = ar.members().collect::<Result<_, _>>().expect("members");
        let names: Vec<_> = m.iter().map(|m| m.name).collect();
        assert_eq!(names, ["a_rather_long_member_name.bin", "short", "bsd.o"]);
        assert_eq!(m[0].data, b"abc");
        assert_eq!(m[2].data, b"zz");
    }

    #[test]
    fn refuses_thin_and_damage() {
        assert!(Archive::parse(b"!<thin>\n").is_err());
        let mut a = MAGIC.to_vec();
        a.extend(header("x/", 100));
        let ar = Archive::parse(&a).expect("magic");
        assert!(ar.members().next().is_some_and(|m| m.is_err()));
        assert_eq!(ar.members().count(), 1);
    }
}
