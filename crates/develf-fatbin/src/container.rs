//! Where fatbins live: bare `.fatbin` files, host ELF objects (x86-64, aarch64,
//! any host machine) that carry them in `.nv_fatbin` (whole-program code) or
//! `__nv_relfatbin` (`-rdc` relocatable code), and `ar` archives of such objects.
//!
//! [`Container::parse`] finds every fatbin without decompressing anything;
//! [`Container::entries`] then decodes the entries one by one, in the order
//! `cuobjdump` lists them: archive members in order, sections in section-table
//! order, fatbins in a section in order, entries in a fatbin in order, and the
//! members of a concatenated entry in order.

use crate::codes;
use crate::compress::{Codec, Limits};
use crate::fatbin::{self, EntryHeader, EntryKind, FATBIN_MAGIC, Fatbin, Flags, RawEntry};
use develf_format::header::EM_CUDA;
use develf_format::zebin::EM_INTELGT;
use develf_parse::ar::Archive;
use develf_parse::{Diagnostic, ElfFile};
use std::borrow::Cow;

/// The magic of `__fatBinC_Wrapper_t` (CUDA's `fatbinary_section.h`), the record
/// in `.nvFatBinSegment` that points the CUDA runtime at a fatbin. The notes call
/// 0x466243B1 a "relocatable fatbin magic"; the header names it FATBINC_MAGIC.
pub const WRAPPER_MAGIC: u32 = 0x4662_43B1;
/// Sections that hold fatbins.
pub const FATBIN_SECTIONS: [&str; 2] = [".nv_fatbin", "__nv_relfatbin"];
pub const WRAPPER_SECTION: &str = ".nvFatBinSegment";

/// What kind of file holds the fatbins.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Hash)]
pub enum ContainerKind {
    /// A bare fatbin (`fatbinary --create`, `nvcc -fatbin`), or several back to back.
    Fatbin,
    /// A host ELF object, shared library or executable.
    HostElf,
    /// An `ar` archive with at least one host object or fatbin member.
    Archive,
}

impl ContainerKind {
    pub fn name(self) -> &'static str {
        match self {
            ContainerKind::Fatbin => "fatbin",
            ContainerKind::HostElf => "host ELF",
            ContainerKind::Archive => "archive",
        }
    }
}

/// Whether `data` is a container this crate reads. Device ELFs (cubins, zebins)
/// and archives of device ELFs only (ocloc's) are `None`: they are not containers.
/// Archives cost one pass over their member headers.
pub fn sniff(data: &[u8]) -> Option<ContainerKind> {
    if is_fatbin(data) {
        return Some(ContainerKind::Fatbin);
    }
    if is_host_elf(data) {
        return Some(ContainerKind::HostElf);
    }
    if data.starts_with(develf_parse::ar::THIN_MAGIC) {
        // Refused by parse with a clear error; report it as ours so it gets there.
        return Some(ContainerKind::Archive);
    }
    if Archive::sniff(data) {
        let archive = Archive::parse(data).ok()?;
        let any = archive.files().any(|m| m.is_ok_and(|m| is_fatbin(m.data) || is_host_elf(m.data)));
        return any.then_some(ContainerKind::Archive);
    }
    None
}

fn is_fatbin(data: &[u8]) -> bool {
    data.len() >= 4 && fatbin::u32_at(data, 0) == FATBIN_MAGIC
}

/// ELF whose machine is neither EM_CUDA nor EM_INTELGT.
fn is_host_elf(data: &[u8]) -> bool {
    if data.len() < 20 || !data.starts_with(b"\x7fELF") {
        return false;
    }
    let machine = match data[5] {
        1 => u16::from_le_bytes([data[18], data[19]]),
        2 => u16::from_be_bytes([data[18], data[19]]),
        _ => return false,
    };
    machine != EM_CUDA && machine != EM_INTELGT
}

/// One `__fatBinC_Wrapper_t` record: `{u32 magic, u32 version, u64 data, u64 filename_or_fatbins}`.
/// In relocatable objects `data` is 0 and filled by a relocation.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub struct Wrapper {
    pub offset: u64,
    pub version: u32,
    pub data: u64,
    pub filename_or_fatbins: u64,
}

/// A fatbin and the section it was found in (none for a bare fatbin).
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct FatbinSite<'a> {
    pub section: Option<&'a str>,
    pub fatbin: Fatbin<'a>,
}

/// One host object (or the bare fatbin file itself).
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct Object<'a> {
    /// The archive member name, for objects inside an archive.
    pub member: Option<&'a str>,
    /// The host `e_machine` (62 x86-64, 183 aarch64), none for a bare fatbin.
    pub machine: Option<u16>,
    pub wrappers: Vec<Wrapper>,
    pub fatbins: Vec<FatbinSite<'a>>,
    /// Offsets in the file are relative to this object's first byte plus this.
    pub base: u64,
}

/// Every fatbin in a file, found but not decoded.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct Container<'a> {
    pub kind: ContainerKind,
    pub objects: Vec<Object<'a>>,
    /// Problems found while locating fatbins; entries read before them are kept.
    pub diagnostics: Vec<Diagnostic>,
}

/// One decoded entry: where it came from, what it is, and its bytes.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct Entry<'a> {
    /// `member:section[fatbin#i]/entry#j`-style provenance for messages.
    pub label: String,
    pub member: Option<&'a str>,
    pub section: Option<&'a str>,
    /// Offset of the entry header in the file (for members of a concatenated
    /// entry: of the concatenated entry's header).
    pub offset: u64,
    pub kind: EntryKind,
    pub sm: u32,
    /// `sm_90`, `sm_100a`, `sm_100f`, as `cuobjdump` prints it.
    pub arch: String,
    pub flags: Flags,
    /// The code version `[major, minor]` cuobjdump prints.
    pub version: (u16, u16),
    pub codec: Codec,
    /// Bytes as stored in the file (compressed size, or payload size).
    pub stored_size: u64,
    pub identifier: Option<&'a [u8]>,
    pub options: Option<&'a [u8]>,
    /// The content: decompressed, and for ELF trimmed to the ELF's length as
    /// `cuobjdump -xelf` writes it. An error when it cannot be decoded.
    pub data: Result<Cow<'a, [u8]>, Diagnostic>,
}

impl Entry<'_> {
    /// A device ELF entry whose `e_type` is `ET_REL`: what a device linker takes.
    pub fn is_relocatable_elf(&self) -> bool {
        self.kind.is_elf() && self.data.as_ref().is_ok_and(|d| d.len() > 18 && d.starts_with(b"\x7fELF") && d[16] == 1)
    }

    /// The file name `cuobjdump -xelf all` gives this entry, the `index`-th ELF
    /// (1-based) of the file whose name is `file_name`.
    pub fn cuobjdump_name(&self, file_name: &str, index: usize) -> String {
        match self.identifier.and_then(|i| core::str::from_utf8(i).ok()) {
            // The tools say: an entry with an identifier (`fatbinary --ident`) is
            // named after it, with no index: `<ident>.<arch>.cubin`.
            Some(ident) if !ident.is_empty() => {
                let arch = self.arch.strip_suffix('f').unwrap_or(&self.arch);
                let extension = if self.kind == EntryKind::Ptx { "ptx" } else { "cubin" };
                format!("{ident}.{arch}.{extension}")
            }
            _ => cuobjdump_name(file_name, Some(index), &self.arch, self.kind),
        }
    }
}

/// `cuobjdump -xelf`/`-xptx` naming: `<stem>.<n>.<arch>.cubin` where stem is the
/// file name without its last extension (`libcudadevrt.a` → `libcudadevrt`, also
/// for every member of an archive), n counts ELF (or PTX) entries from 1 across
/// the whole file, and the tools drop the family `f` suffix (`sm_100f` entries
/// are named `sm_100`) but keep the `a`. A bare cubin has no index:
/// `<stem>.<arch>.cubin`.
pub fn cuobjdump_name(file_name: &str, index: Option<usize>, arch: &str, kind: EntryKind) -> String {
    let base = file_name.rsplit(['/', '\\']).next().unwrap_or(file_name);
    let stem = match base.rfind('.') {
        Some(dot) if dot > 0 => &base[..dot],
        _ => base,
    };
    let arch = arch.strip_suffix('f').unwrap_or(arch);
    let extension = if kind == EntryKind::Ptx { "ptx" } else { "cubin" };
    match index {
        Some(n) => format!("{stem}.{n}.{arch}.{extension}"),
        None => format!("{stem}.{arch}.{extension}"),
    }
}

impl<'a> Container<'a> {
    /// Locates every fatbin. Fails only when `data` is none of the containers
    /// (see [`sniff`]) or an archive cannot be opened (thin archives, say).
    pub fn parse(data: &'a [u8]) -> Result<Container<'a>, Diagnostic> {
        let mut diagnostics = Vec::new();
        let kind = if is_fatbin(data) {
            ContainerKind::Fatbin
        } else if is_host_elf(data) {
            ContainerKind::HostElf
        } else if Archive::sniff(data) {
            ContainerKind::Archive
        } else {
            return Err(Diagnostic::new(codes::NOT_FATBIN, "not a fatbin, host ELF object or archive").at(0));
        };
        let objects = match kind {
            ContainerKind::Fatbin => vec![read_fatbin_file(data, None, 0, &mut diagnostics)],
            ContainerKind::HostElf => vec![read_host_object(data, None, 0, &mut diagnostics)],
            ContainerKind::Archive => {
                let archive = Archive::parse(data)?;
                let mut objects = Vec::new();
                for member in archive.files() {
                    let member = match member {
                        Ok(m) => m,
                        Err(d) => {
                            diagnostics.push(d);
                            break;
                        }
                    };
                    // The member's data offset: header (60) plus a BSD name, if any.
                    let base = member_data_offset(data, member.data);
                    if is_fatbin(member.data) {
                        objects.push(read_fatbin_file(member.data, Some(member.name), base, &mut diagnostics));
                    } else if is_host_elf(member.data) {
                        objects.push(read_host_object(member.data, Some(member.name), base, &mut diagnostics));
                    } else if Archive::sniff(member.data) {
                        diagnostics.push(
                            Diagnostic::new(codes::NESTED_ARCHIVE, format!("member {} is an archive", member.name))
                                .at(member.offset),
                        );
                    }
                }
                if objects.iter().all(|o| o.fatbins.is_empty()) {
                    diagnostics.push(
                        Diagnostic::new(codes::NO_DEVICE_CODE, "no member of the archive carries a fatbin").at(0),
                    );
                }
                objects
            }
        };
        Ok(Container { kind, objects, diagnostics })
    }

    /// Every stored entry, with its object and fatbin site, in file order.
    pub fn raw_entries(&self) -> impl Iterator<Item = (&Object<'a>, &FatbinSite<'a>, &RawEntry<'a>)> + '_ {
        self.objects
            .iter()
            .flat_map(|o| o.fatbins.iter().flat_map(move |f| f.fatbin.entries.iter().map(move |e| (o, f, e))))
    }

    /// Every entry decoded, concatenated entries expanded into their members.
    pub fn entries(&self, limits: &Limits) -> Vec<Entry<'a>> {
        self.entries_where(limits, &|_, _| true)
    }

    /// The entries whose kind and SM `wanted` takes, decoded; the others
    /// are not decompressed (a library's fatbins hold code for a dozen
    /// targets, a link wants one). A concatenated entry is decompressed when
    /// one of its members is wanted, and only those members are returned.
    pub fn entries_where(&self, limits: &Limits, wanted: &dyn Fn(EntryKind, u32) -> bool) -> Vec<Entry<'a>> {
        let mut out = Vec::new();
        for object in &self.objects {
            for (fatbin_index, site) in object.fatbins.iter().enumerate() {
                for (entry_index, raw) in site.fatbin.entries.iter().enumerate() {
                    let concatenated = raw.kind() == EntryKind::Concatenated;
                    let takes = if concatenated {
                        // A member table that cannot be read is reported by
                        // decoding the entry.
                        raw.concatenated_members().map_or(true, |m| m.iter().any(|h| wanted(h.kind(), h.sm)))
                    } else {
                        wanted(raw.kind(), raw.header.sm)
                    };
                    if !takes {
                        continue;
                    }
                    let label = label(object.member, site.section, fatbin_index, entry_index);
                    let start = out.len();
                    decode_into(&mut out, label, object.member, site.section, raw, limits);
                    if concatenated {
                        let members = out.split_off(start);
                        out.extend(members.into_iter().filter(|e| wanted(e.kind, e.sm)));
                    }
                }
            }
        }
        out
    }

    /// The SMs of the device ELF entries, read from their headers alone.
    fn elf_sms(&self) -> Vec<u32> {
        let mut sms: Vec<u32> = Vec::new();
        for (_, _, raw) in self.raw_entries() {
            let headers = match raw.kind() {
                EntryKind::Concatenated => raw.concatenated_members().unwrap_or_default(),
                _ => vec![raw.header],
            };
            sms.extend(headers.iter().filter(|h| h.kind().is_elf()).map(|h| h.sm));
        }
        sms.sort_unstable();
        sms.dedup();
        sms
    }
}

fn label(member: Option<&str>, section: Option<&str>, fatbin: usize, entry: usize) -> String {
    let mut s = String::new();
    if let Some(m) = member {
        s.push_str(m);
        s.push(':');
    }
    if let Some(sec) = section {
        s.push_str(sec);
    }
    s.push_str(&format!("[fatbin {fatbin}, entry {entry}]"));
    s
}

fn decode_into<'a>(
    out: &mut Vec<Entry<'a>>,
    label: String,
    member: Option<&'a str>,
    section: Option<&'a str>,
    raw: &RawEntry<'a>,
    limits: &Limits,
) {
    let codec = raw.header.flags.codec().unwrap_or(Codec::None);
    let stored_size = raw.stored().map_or(raw.payload.len(), <[u8]>::len) as u64;
    let make = |header: &EntryHeader, label: String, data: Result<Cow<'a, [u8]>, Diagnostic>| Entry {
        label,
        member,
        section,
        offset: raw.offset,
        kind: header.kind(),
        sm: header.sm,
        arch: header.arch_name(),
        flags: header.flags,
        version: (header.major, header.minor),
        codec,
        stored_size,
        identifier: raw.identifier(),
        options: raw.options(),
        data,
    };
    if raw.kind() != EntryKind::Concatenated {
        let data = raw.content(limits).map(|c| if raw.kind().is_elf() { trim_cow(c) } else { c });
        out.push(make(&raw.header, label, data));
        return;
    }
    let members = match raw.concatenated_members() {
        Ok(m) => m,
        Err(d) => {
            out.push(make(&raw.header, label, Err(d)));
            return;
        }
    };
    let content = raw.content(limits);
    for (i, member_header) in members.iter().enumerate() {
        let label = format!("{label}[member {i}]");
        let data = match &content {
            Err(d) => Err(d.clone()),
            Ok(all) => {
                // The tools say: a member header's `header_size` field holds its
                // offset in the decompressed payload; `payload_size` its padded size.
                let start = member_header.header_size as usize;
                let end = usize::try_from(member_header.payload_size).ok().and_then(|n| start.checked_add(n));
                match end.and_then(|end| all.get(start..end)) {
                    Some(bytes) => {
                        let bytes = if member_header.kind().is_elf() { fatbin::trim_elf(bytes) } else { bytes };
                        Ok(Cow::Owned(bytes.to_vec()))
                    }
                    None => Err(Diagnostic::new(
                        codes::BAD_CONCATENATED_ENTRY,
                        format!(
                            "member {i} at {start:#x}+{:#x} lies outside the {}-byte payload",
                            member_header.payload_size,
                            all.len()
                        ),
                    )
                    .at(raw.offset)),
                }
            }
        };
        out.push(make(member_header, label, data));
    }
}

fn trim_cow(c: Cow<'_, [u8]>) -> Cow<'_, [u8]> {
    match c {
        Cow::Borrowed(b) => Cow::Borrowed(fatbin::trim_elf(b)),
        Cow::Owned(v) => {
            let n = fatbin::trim_elf(&v).len();
            let mut v = v;
            v.truncate(n);
            Cow::Owned(v)
        }
    }
}

fn member_data_offset(archive: &[u8], member: &[u8]) -> u64 {
    // Both slices borrow the same buffer; the difference of their addresses is
    // the member's offset (no unsafe: plain integer arithmetic on addresses).
    (member.as_ptr() as usize).saturating_sub(archive.as_ptr() as usize) as u64
}

fn read_fatbin_file<'a>(
    data: &'a [u8],
    member: Option<&'a str>,
    base: u64,
    diagnostics: &mut Vec<Diagnostic>,
) -> Object<'a> {
    let (fatbins, mut found) = fatbin::parse_fatbins(data, base);
    diagnostics.append(&mut found);
    Object {
        member,
        machine: None,
        wrappers: Vec::new(),
        fatbins: fatbins.into_iter().map(|fatbin| FatbinSite { section: None, fatbin }).collect(),
        base,
    }
}

fn read_host_object<'a>(
    data: &'a [u8],
    member: Option<&'a str>,
    base: u64,
    diagnostics: &mut Vec<Diagnostic>,
) -> Object<'a> {
    let mut object = Object { member, machine: None, wrappers: Vec::new(), fatbins: Vec::new(), base };
    let elf = match ElfFile::parse(data) {
        Ok(elf) => elf,
        Err(d) => {
            let message = format!("{}host object: {}", member.map(|m| format!("{m}: ")).unwrap_or_default(), d.message);
            diagnostics.push(Diagnostic::new(codes::BAD_HOST_OBJECT, message).at(base + d.offset.unwrap_or(0)));
            return object;
        }
    };
    object.machine = Some(elf.header.machine);
    // EI_DATA: 1 little-endian, 2 big-endian (is_host_elf checked it).
    let little = data.get(5) == Some(&1);
    for section in &elf.sections {
        let Some(bytes) = section.data else { continue };
        let at = base + section.offset;
        if FATBIN_SECTIONS.contains(&section.name) {
            let (fatbins, found) = fatbin::parse_fatbins(bytes, at);
            diagnostics.extend(found.into_iter().map(|d| d.in_section(section.name)));
            object.fatbins.extend(fatbins.into_iter().map(|fatbin| FatbinSite { section: Some(section.name), fatbin }));
        } else if section.name == WRAPPER_SECTION {
            read_wrappers(bytes, at, little, &mut object.wrappers, diagnostics);
        }
    }
    if object.fatbins.is_empty() && member.is_none() {
        diagnostics.push(Diagnostic::new(codes::NO_DEVICE_CODE, "no .nv_fatbin or __nv_relfatbin section").at(0));
    }
    object
}

fn read_wrappers(bytes: &[u8], at: u64, little: bool, out: &mut Vec<Wrapper>, diagnostics: &mut Vec<Diagnostic>) {
    let u32_of = |b: &[u8]| {
        let w = [b[0], b[1], b[2], b[3]];
        if little { u32::from_le_bytes(w) } else { u32::from_be_bytes(w) }
    };
    let u64_of = |b: &[u8]| {
        let mut w = [0u8; 8];
        w.copy_from_slice(&b[..8]);
        if little { u64::from_le_bytes(w) } else { u64::from_be_bytes(w) }
    };
    // 64-bit hosts only: the record is 24 bytes, 8-aligned.
    for (i, record) in bytes.chunks(24).enumerate() {
        let offset = at + (i * 24) as u64;
        if record.len() < 24 || u32_of(record) != WRAPPER_MAGIC {
            diagnostics.push(
                Diagnostic::new(codes::BAD_WRAPPER, "not a 24-byte __fatBinC_Wrapper_t with magic 0x466243B1")
                    .at(offset)
                    .in_section(WRAPPER_SECTION),
            );
            return;
        }
        out.push(Wrapper {
            offset,
            version: u32_of(&record[4..]),
            data: u64_of(&record[8..]),
            filename_or_fatbins: u64_of(&record[16..]),
        });
    }
}

/// The device ELF entries of any input: a fatbin, a host object, an archive of
/// host objects, or a bare device ELF (returned whole, borrowed). PTX, LTO IR and
/// concatenated-entry shells are left out; members of concatenated entries are
/// in. Fails only when the file is none of these.
pub fn device_elfs(data: &[u8]) -> Result<Vec<Entry<'_>>, Diagnostic> {
    device_elfs_with(data, &Limits::default())
}

/// [`device_elfs`] with explicit decompression limits.
pub fn device_elfs_with<'a>(data: &'a [u8], limits: &Limits) -> Result<Vec<Entry<'a>>, Diagnostic> {
    if sniff(data).is_none() && data.starts_with(b"\x7fELF") {
        return Ok(vec![bare_elf(data)]);
    }
    let container = Container::parse(data)?;
    Ok(container.entries(limits).into_iter().filter(|e| e.kind.is_elf()).collect())
}

/// For a linker: the relocatable device ELF entries for `sm` (exact SM number;
/// the `a`/`f` suffix is in [`Entry::arch`] for callers that match on it) from
/// a fatbin, host object, archive or bare device ELF. Entries that fail to
/// decode are returned too, with their error, so the caller can report them.
pub fn relocatable_elfs_for(data: &[u8], sm: u32) -> Result<Vec<Entry<'_>>, Diagnostic> {
    let relocatable = |e: &Entry<'_>| e.sm == sm && (e.data.is_err() || e.is_relocatable_elf());
    if sniff(data).is_none() && data.starts_with(b"\x7fELF") {
        return Ok(Some(bare_elf(data)).into_iter().filter(relocatable).collect());
    }
    // Only the entries of `sm` are decompressed ([`Container::entries_where`]).
    let container = Container::parse(data)?;
    let entries = container.entries_where(&Limits::default(), &|kind, s| kind.is_elf() && s == sm);
    Ok(entries.into_iter().filter(relocatable).collect())
}

/// For a linker targeting `sm` (`accelerator`: `sm_XXa`):
/// [`relocatable_elfs_for`] the SM itself when the file has code for it,
/// else for the newest SM of the same major version below it, whose SASS the
/// target runs (nvlink 13.5 with host objects made by `nvcc -c -rdc=true
/// -gencode ...`: sm_80 + sm_90 linked for sm_86 and sm_89 takes sm_80's;
/// sm_75 + sm_80 + sm_86 for sm_87 and sm_89 takes sm_86's; sm_75 alone for
/// sm_80 has nothing, with nvlink's warning). An `sm_XXa` entry serves only
/// an `sm_XXa` target: for any other it is not there (nvlink 13.5 links
/// nothing from an sm_100a-only host object for sm_100 or sm_103, with its
/// "not found" warning, where a bare sm_100a cubin is an error).
pub fn relocatable_elfs_compatible(data: &[u8], sm: u32, accelerator: bool) -> Result<Vec<Entry<'_>>, Diagnostic> {
    let usable = |e: &Entry<'_>| (e.data.is_err() || e.is_relocatable_elf()) && serves_accelerated(e, sm, accelerator);
    if sniff(data).is_none() && data.starts_with(b"\x7fELF") {
        let bare = bare_elf(data);
        let fits = bare.sm == sm || (bare.sm / 10 == sm / 10 && bare.sm < sm);
        return Ok(if fits && usable(&bare) { vec![bare] } else { Vec::new() });
    }
    // The SMs to try, best first, from the entries' headers: only the one
    // chosen is decompressed (libcudadevrt.a: 30 members of a dozen SMs).
    let container = Container::parse(data)?;
    let sms = container.elf_sms();
    let family = sms.iter().rev().filter(|&&s| s / 10 == sm / 10 && s < sm);
    let limits = Limits::default();
    for candidate in std::iter::once(&sm).filter(|s| sms.contains(s)).chain(family) {
        let entries = container.entries_where(&limits, &|kind, s| kind.is_elf() && s == *candidate);
        let chosen: Vec<Entry<'_>> = entries.into_iter().filter(|e| usable(e)).collect();
        if !chosen.is_empty() {
            return Ok(most_specific(chosen));
        }
    }
    Ok(Vec::new())
}

/// How specific an entry's code is: `sm_XXa` (2) over `sm_XXf` (1) over the
/// plain SM (0).
fn specificity(e: &Entry<'_>) -> u8 {
    match e.arch.as_bytes().last() {
        Some(b'a') => 2,
        Some(b'f') => 1,
        _ => 0,
    }
}

/// Of entries for one SM, those of the most specific kind: nvlink 13.5
/// takes the one that fits the target best (sm_100 + sm_100a SASS linked
/// for sm_100a takes sm_100a's alone; compute_100 + compute_100f PTX for
/// sm_100 or sm_103 compiles compute_100f's), not both.
fn most_specific(entries: Vec<Entry<'_>>) -> Vec<Entry<'_>> {
    let best = entries.iter().map(specificity).max();
    entries.into_iter().filter(|e| Some(specificity(e)) == best).collect()
}

/// Whether entry `e` may serve a target `sm` (`accelerator`: `sm_XXa`) as
/// far as its `a` suffix goes: an `sm_XXa`/`compute_XXa` entry only the
/// `sm_XXa` target itself.
pub fn serves_accelerated(e: &Entry<'_>, sm: u32, accelerator: bool) -> bool {
    !e.arch.ends_with('a') || (accelerator && e.sm == sm)
}

/// For a linker targeting `sm` (`accelerator`: `sm_XXa`) when a file has no
/// device ELF it can use ([`relocatable_elfs_compatible`] is empty): the PTX
/// entries to compile for it, those of the newest PTX target not above `sm`.
/// PTX runs on later architectures; a `compute_XXa` one only on `sm_XXa`; a
/// family one (`compute_XXf`) on the later SMs of its major version only
/// (nvlink 13.5: compute_100f PTX is compiled for sm_100, sm_100a, sm_100f,
/// sm_103, sm_103a and sm_103f, not for sm_110 or sm_120; compute_120f for
/// sm_120 and sm_121). nvlink compiles these with its built-in ptxas (nvcc
/// `-arch=sm_80` host objects linked for sm_90: the output is what `ptxas
/// -arch=sm_90 -m64 -c` gives for the sm_80 PTX, byte for byte).
pub fn ptx_entries_compatible(data: &[u8], sm: u32, accelerator: bool) -> Result<Vec<Entry<'_>>, Diagnostic> {
    if sniff(data).is_none() {
        return Ok(Vec::new());
    }
    let container = Container::parse(data)?;
    let usable = |e: &Entry<'_>| {
        let family = !e.arch.ends_with('f') || e.sm / 10 == sm / 10;
        e.kind == EntryKind::Ptx && e.sm <= sm && family && serves_accelerated(e, sm, accelerator)
    };
    let ptx = |kind: EntryKind, s: u32| kind == EntryKind::Ptx && s <= sm;
    let all: Vec<Entry<'_>> = container.entries_where(&Limits::default(), &ptx).into_iter().filter(usable).collect();
    let newest = all.iter().map(|e| e.sm).max();
    Ok(most_specific(all.into_iter().filter(|e| Some(e.sm) == newest).collect()))
}

fn bare_elf(data: &[u8]) -> Entry<'_> {
    let target = develf_parse::Cubin::parse(data).ok().and_then(|c| c.target());
    Entry {
        label: String::new(),
        member: None,
        section: None,
        offset: 0,
        kind: EntryKind::Elf,
        sm: target.map_or(0, |t| t.sm),
        arch: target.map_or_else(|| "sm_unknown".to_string(), |t| t.to_string()),
        flags: Flags::default(),
        version: (0, 0),
        codec: Codec::None,
        stored_size: data.len() as u64,
        identifier: None,
        options: None,
        data: Ok(Cow::Borrowed(data)),
    }
}
