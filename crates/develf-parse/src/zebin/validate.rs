//! Zebin validation, rule by rule after NEO's decoder: `elf_decoder.cpp` (bounds,
//! entry sizes), `device_binary_format_zebin.cpp` (e_type, target),
//! `zebin_decoder.cpp` (section classification and counts, notes, kernel text) and
//! `zeinfo_decoder.cpp` (versions, required keys, per-thread payload sizes).

use super::codes::*;
use super::zeinfo::{self, Version, enums};
use super::{HeaderLayout, NoteValue, SectionRole, Zebin, section_role};
use crate::diag::{Diagnostic, Diagnostics};
use crate::elf::range_in_file;
use develf_format::section::{SHT_NOBITS, SHT_NOTE, SHT_PROGBITS, SHT_REL, SHT_RELA, SHT_SYMTAB};
use develf_format::zebin::{self as fmt, names};

/// What to check beyond the file itself.
#[derive(Debug, Clone, Copy, Default)]
pub struct ValidateOptions<'o> {
    /// An ocloc device name (`tgllp`, `dg2`, `pvc`, `mtl`, `bmg`, `lnl`, `ptl`, …):
    /// also check that the binary targets it, as NEO does before loading.
    pub device: Option<&'o str>,
    /// The register size NEO's `local_id` rule assumes. By default the target
    /// device's (64 bytes from Xe-HPC on), else 32. `ocloc validate` always uses 32,
    /// which makes it reject correct SIMD16 kernels for 64-byte-GRF devices; pass
    /// `Some(32)` to reproduce that verdict.
    pub grf_size: Option<u32>,
}

pub(super) fn validate(z: &Zebin<'_>, options: &ValidateOptions<'_>) -> Diagnostics {
    let mut out = Diagnostics::default();
    structure(z, &mut out);
    sections(z, &mut out);
    references(z, &mut out);
    notes(z, &mut out);
    let device = target(z, options, &mut out);
    let grf_size =
        options.grf_size.or(device.map(|d| d.grf_size)).or(z.target.device().map(|d| d.grf_size)).unwrap_or(32);
    zeinfo_checks(z, grf_size, &mut out);
    out
}

fn structure(z: &Zebin<'_>, out: &mut Diagnostics) {
    let h = &z.elf.header;
    if h.e_type != fmt::ET_REL && h.e_type != fmt::ET_ZEBIN_EXE {
        let name = develf_format::table::lookup(fmt::ELF_TYPES, h.e_type).unwrap_or("unknown");
        out.push(
            Diagnostic::new(
                NOT_ZEBIN_TYPE,
                format!("e_type is {:#x} ({name}); NEO loads only ET_REL and ET_ZEBIN_EXE", h.e_type),
            )
            .at(16),
        );
    }
    for seg in &z.elf.segments {
        if range_in_file(seg.offset, seg.filesz, z.elf.data.len()).is_none() {
            out.push(
                Diagnostic::new(
                    SEGMENT_OUT_OF_BOUNDS,
                    format!(
                        "program header {} ({:#x}+{:#x}) runs past the end of the file",
                        seg.index, seg.offset, seg.filesz
                    ),
                )
                .at(h.phoff),
            );
        }
    }
    let class = h.class;
    for s in &z.elf.sections {
        if s.sh_type != SHT_NOBITS && s.sh_type != 0 && s.data.is_none() {
            out.push(
                Diagnostic::new(
                    SECTION_OUT_OF_BOUNDS,
                    format!(
                        "bytes {:#x}+{:#x} run past the end of the {}-byte file",
                        s.offset,
                        s.size,
                        z.elf.data.len()
                    ),
                )
                .at(s.header_offset)
                .in_section(s.label()),
            );
        }
        let (code, want) = match s.sh_type {
            SHT_SYMTAB => (BAD_SYMTAB_ENTRY_SIZE, class.symbol_size()),
            SHT_REL => (BAD_REL_ENTRY_SIZE, class.relocation_size(false)),
            SHT_RELA => (BAD_RELA_ENTRY_SIZE, class.relocation_size(true)),
            _ => continue,
        };
        if s.entsize != want as u64 {
            out.push(
                Diagnostic::new(code, format!("sh_entsize is {}; expected {want}", s.entsize))
                    .at(s.header_offset)
                    .in_section(s.label()),
            );
        }
    }
}

fn sections(z: &Zebin<'_>, out: &mut Diagnostics) {
    let h = &z.elf.header;
    let shnum = z.elf.sections.len();
    if !z.elf.sections.is_empty() && (h.shstrndx == 0 || h.shstrndx as usize >= shnum) {
        out.push(
            Diagnostic::new(BAD_SHSTRNDX, format!("e_shstrndx is {} with {shnum} sections", h.shstrndx))
                .at(if h.class == crate::elf::Class::Elf64 { 62 } else { 50 }),
        );
        return;
    }
    let mut counts: Vec<(&'static str, usize)> = Vec::new();
    let mut bump = |name: &'static str| match counts.iter_mut().find(|(n, _)| *n == name) {
        Some((_, c)) => *c += 1,
        None => counts.push((name, 1)),
    };
    let names_table = z.elf.sections.get(h.shstrndx as usize).and_then(|s| s.data).unwrap_or(&[]);
    for s in &z.elf.sections {
        if s.index != 0 && (s.name_offset as usize >= names_table.len() || (s.name.is_empty() && s.name_offset != 0)) {
            out.push(
                Diagnostic::new(
                    BAD_SECTION_NAME,
                    format!("sh_name {:#x} does not name a string in the section name table", s.name_offset),
                )
                .at(s.header_offset)
                .in_section(s.label()),
            );
        }
        let role = section_role(s.sh_type, s.name);
        let allowed_type = fmt::ALLOWED_STANDARD_SECTION_TYPES.contains(&s.sh_type)
            || develf_format::table::lookup(fmt::SECTION_TYPES, s.sh_type).is_some();
        if !allowed_type {
            out.push(
                Diagnostic::new(
                    UNHANDLED_SECTION_TYPE,
                    format!("section type {:#x} is not one NEO's zebin decoder handles", s.sh_type),
                )
                .at(s.header_offset)
                .in_section(s.label()),
            );
            continue;
        }
        match (s.sh_type, role) {
            // NEO counts a bare `.text` only when it is not empty.
            (SHT_PROGBITS, SectionRole::KernelText) if s.name == names::TEXT && s.size != 0 => bump(names::TEXT),
            (SHT_PROGBITS, SectionRole::DataConst) => {
                if s.name == names::DATA_GLOBAL_CONST {
                    out.push(Diagnostic::new(MISSPELLED_SECTION, format!("{} is read as {}", s.name, names::DATA_CONST)).at(s.header_offset).in_section(s.label()));
                }
                bump(names::DATA_CONST)
            }
            (SHT_PROGBITS, SectionRole::DataGlobal) => bump(names::DATA_GLOBAL),
            (SHT_PROGBITS, SectionRole::DataConstString) => bump(names::DATA_CONST_STRING),
            (SHT_PROGBITS, SectionRole::KernelText | SectionRole::Debug) => {}
            (SHT_PROGBITS, _) => out.push(
                Diagnostic::new(UNHANDLED_PROGBITS, format!("SHT_PROGBITS section `{}`: NEO accepts only .text.KERNEL, .text, .data.const, .data.global, .data.const.string and .debug_*", s.name))
                    .at(s.header_offset)
                    .in_section(s.label()),
            ),
            (SHT_NOBITS, SectionRole::BssConst) => bump(names::BSS_CONST),
            (SHT_NOBITS, SectionRole::BssGlobal) => bump(names::BSS_GLOBAL),
            (SHT_NOBITS, _) => out.push(Diagnostic::new(UNHANDLED_NOBITS, format!("SHT_NOBITS section `{}` is ignored by NEO", s.name)).at(s.header_offset).in_section(s.label())),
            (SHT_SYMTAB, _) => bump(names::SYMTAB),
            (SHT_NOTE, SectionRole::CompatNote) => bump(names::NOTE_COMPAT),
            (SHT_NOTE, _) => out.push(Diagnostic::new(UNHANDLED_NOTE_SECTION, format!("note section `{}` is skipped by NEO, which reads only {}", s.name, names::NOTE_COMPAT)).at(s.header_offset).in_section(s.label())),
            (fmt::SHT_ZEBIN_ZEINFO, _) => bump(names::ZE_INFO),
            (fmt::SHT_ZEBIN_SPIRV, _) => bump(names::SPV),
            (fmt::SHT_ZEBIN_MISC, SectionRole::Misc) => out.push(Diagnostic::new(UNHANDLED_MISC_SECTION, format!("misc section `{}` is ignored by NEO", s.name)).at(s.header_offset).in_section(s.label())),
            (fmt::SHT_ZEBIN_GTPIN_INFO, _) if !s.name.starts_with(names::GTPIN_INFO_PREFIX) => out.push(
                Diagnostic::new(UNHANDLED_GTPIN_SECTION, format!("`{}` should be named {}KERNEL", s.name, names::GTPIN_INFO_PREFIX)).at(s.header_offset).in_section(s.label()),
            ),
            _ => {}
        }
    }
    for (name, count) in counts {
        if count > 1 {
            out.push(
                Diagnostic::new(DUPLICATE_SECTION, format!("expected at most 1 {name} section, got {count}"))
                    .in_section(name),
            );
        }
    }
    if let HeaderLayout::Legacy { .. } = z.layout {
        let m = u32::from(h.machine);
        if fmt::product_family_name(m).is_none() && fmt::gfx_core_name(m).is_none() {
            out.push(
                Diagnostic::new(
                    BAD_MACHINE,
                    format!("e_machine {m} is neither EM_INTELGT (205) nor a known PRODUCT_FAMILY / GFXCORE_FAMILY"),
                )
                .at(18),
            );
        }
    }
    for k in &z.kernels {
        if k.symbol.is_none() && z.symtab_section.is_some() {
            out.push(
                Diagnostic::new(MISSING_KERNEL_SYMBOL, format!("no symbol `{}` in its text section", k.name))
                    .in_section(format!("{}{}", names::TEXT_PREFIX, k.name)),
            );
        }
    }
}

fn references(z: &Zebin<'_>, out: &mut Diagnostics) {
    let nsym = z.symbols.len();
    for sym in &z.symbols {
        if let Some(i) = sym.section_index() {
            if i >= z.elf.sections.len() {
                out.push(
                    Diagnostic::new(BAD_SYMBOL_SECTION, format!("st_shndx {i} with {} sections", z.elf.sections.len()))
                        .for_symbol(sym.name)
                        .in_section(names::SYMTAB),
                );
            }
        }
    }
    for rs in z.elf.relocation_sections() {
        let label = z.elf.sections.get(rs.section).map(|s| s.label()).unwrap_or_default();
        let entry_ok = z.elf.sections.get(rs.section).is_some_and(|s| s.entsize == rs.entry_size() as u64);
        if !entry_ok {
            continue; // already reported; entries would be misread
        }
        let target = z.elf.sections.get(rs.target as usize);
        if target.is_none() || rs.target == 0 {
            out.push(
                Diagnostic::new(BAD_RELOCATION_TARGET, format!("sh_info {} names no section", rs.target))
                    .in_section(label.clone()),
            );
        }
        for r in rs.entries() {
            if r.symbol as usize >= nsym {
                out.push(
                    Diagnostic::new(
                        BAD_RELOCATION_SYMBOL,
                        format!("entry {} uses symbol {} of {nsym}", r.index, r.symbol),
                    )
                    .in_section(label.clone()),
                );
            }
            let width = match r.r_type {
                fmt::R_ZE_SYM_ADDR => 8,
                fmt::R_ZE_SYM_ADDR_32 | fmt::R_ZE_SYM_ADDR_32_HI | fmt::R_PER_THREAD_PAYLOAD_OFFSET_32 => 4,
                fmt::R_ZE_NONE => 0,
                // DWARF relocations in `.rela.debug_*` use the host's numbering.
                _ if target.is_some_and(|t| t.name.starts_with(names::DEBUG_PREFIX)) => 0,
                other => {
                    out.push(
                        Diagnostic::new(
                            UNKNOWN_RELOCATION_TYPE,
                            format!("entry {} has type {other}, not an R_ZE type", r.index),
                        )
                        .in_section(label.clone()),
                    );
                    0
                }
            };
            if let Some(t) = target {
                if t.sh_type != SHT_NOBITS && r.offset.checked_add(width).is_none_or(|end| end > t.size) {
                    out.push(
                        Diagnostic::new(
                            RELOCATION_OUT_OF_SECTION,
                            format!(
                                "entry {} patches {:#x}+{width}, past the {:#x}-byte {}",
                                r.index,
                                r.offset,
                                t.size,
                                t.label()
                            ),
                        )
                        .in_section(label.clone()),
                    );
                }
            }
        }
    }
}

fn notes(z: &Zebin<'_>, out: &mut Diagnostics) {
    let Some(section) = z.compat_note_section.and_then(|i| z.elf.sections.get(i)) else { return };
    let label = section.label();
    // `ElfFile::notes` stops at the first note that does not fit: compare its end
    // with the section's, as NEO's "Offsetting will cause out-of-bound memory read".
    let consumed = z.notes.last().map(|n| {
        let start = n.note.offset - section.offset;
        let name_len = (n.note.name.len() + 1 + 3) & !3;
        start + 12 + name_len as u64 + ((n.note.desc.len() as u64 + 3) & !3)
    });
    let len = section.bytes().len() as u64;
    if consumed.unwrap_or(0) < len {
        out.push(
            Diagnostic::new(
                NOTE_OUT_OF_SECTION,
                format!("a note at section offset {:#x} runs past the {len}-byte section", consumed.unwrap_or(0)),
            )
            .at(section.offset + consumed.unwrap_or(0))
            .in_section(label.clone()),
        );
    }
    for n in &z.notes {
        if n.note.name != fmt::NOTE_OWNER.as_bytes() {
            out.push(
                Diagnostic::new(
                    BAD_NOTE_OWNER,
                    format!(
                        "owner `{}` is not {}; NEO ignores the note",
                        String::from_utf8_lossy(n.note.name),
                        fmt::NOTE_OWNER
                    ),
                )
                .at(n.note.offset)
                .in_section(label.clone()),
            );
            continue;
        }
        let word_type = matches!(n.note.n_type, 1..=3 | 5..=8);
        match n.value {
            NoteValue::Raw(desc) if word_type => out.push(
                Diagnostic::new(
                    BAD_NOTE_SIZE,
                    format!(
                        "{} has a {}-byte descriptor; expected 4",
                        fmt::compat_note_name(n.note.n_type).unwrap_or("note"),
                        desc.len()
                    ),
                )
                .at(n.note.offset)
                .in_section(label.clone()),
            ),
            NoteValue::Raw(_) => out.push(
                Diagnostic::new(UNKNOWN_NOTE_TYPE, format!("IntelGT note type {}", n.note.n_type))
                    .at(n.note.offset)
                    .in_section(label.clone()),
            ),
            NoteValue::ZebinVersion(None) => out.push(
                Diagnostic::new(
                    UNTERMINATED_VERSION_NOTE,
                    "NT_INTELGT_ZEBIN_VERSION is not NUL-terminated; NEO ignores it",
                )
                .at(n.note.offset)
                .in_section(label.clone()),
            ),
            NoteValue::ZebinVersion(Some(text)) => {
                check_version(text, "NT_INTELGT_ZEBIN_VERSION", out, Some(n.note.offset))
            }
            _ => {}
        }
    }
}

fn check_version(text: &str, what: &str, out: &mut Diagnostics, at: Option<u64>) {
    let diag = |d: Diagnostic| match at {
        Some(o) => d.at(o),
        None => d,
    };
    match Version::parse(text) {
        None => out.push(diag(Diagnostic::new(BAD_VERSION, format!("{what} `{text}` is not MAJOR.MINOR")))),
        Some(v) if v.major != 1 => out.push(diag(Diagnostic::new(
            UNSUPPORTED_MAJOR_VERSION,
            format!("{what} is {v}; only major version 1 exists"),
        ))),
        Some(v) if v.minor > zeinfo::KNOWN_MINOR => out.push(diag(Diagnostic::new(
            NEWER_MINOR_VERSION,
            format!("{what} is {v}; develf knows up to 1.{}", zeinfo::KNOWN_MINOR),
        ))),
        Some(_) => {}
    }
}

/// NEO's `validateTargetDevice`: when the binary has an IP version it must equal the
/// device's; otherwise product family and GFX core (whichever are known) must match,
/// and the stepping range applies only when `validate_revision_id` is set.
fn target(z: &Zebin<'_>, options: &ValidateOptions<'_>, out: &mut Diagnostics) -> Option<&'static fmt::Device> {
    let name = options.device?;
    let Some(device) = fmt::device(name) else {
        let known: Vec<_> = fmt::DEVICES.iter().map(|d| d.name).collect();
        out.push(Diagnostic::new(
            UNKNOWN_DEVICE,
            format!("unknown device `{name}`; develf knows {}", known.join(", ")),
        ));
        return None;
    };
    let t = &z.target;
    let mismatch = |what: String| Diagnostic::new(TARGET_MISMATCH, format!("not for {}: {what}", device.name));
    if let Some(ip) = t.ip_version {
        if ip != device.ip_version {
            if ip.arch == device.ip_version.arch && ip.release == device.ip_version.release {
                out.push(Diagnostic::new(
                    STEPPING_MISMATCH,
                    format!(
                        "IP version {ip}, {} is {} (NEO requires equality unless its compatibility mode is on)",
                        device.name, device.ip_version
                    ),
                ));
            } else {
                out.push(mismatch(format!("IP version {ip}, the device's is {}", device.ip_version)));
            }
        }
        return Some(device);
    }
    if t.product_family.is_none() && t.gfx_core.is_none_or(|c| c == 0) {
        out.push(mismatch("the binary names no product family, GFX core or IP version".into()));
        return Some(device);
    }
    if let Some(core) = t.gfx_core.filter(|&c| c != 0) {
        if core != device.gfx_core {
            out.push(mismatch(format!(
                "GFX core {} ({}), the device's is {}",
                core,
                fmt::gfx_core_name(core).unwrap_or("?"),
                fmt::gfx_core_name(device.gfx_core).unwrap_or("?")
            )));
        }
    }
    if let Some(family) = t.product_family.filter(|&f| f != 0) {
        if family != device.product_family {
            out.push(mismatch(format!(
                "product family {} ({}), the device's is {}",
                family,
                fmt::product_family_name(family).unwrap_or("?"),
                fmt::product_family_name(device.product_family).unwrap_or("?")
            )));
        }
    }
    Some(device)
}

fn zeinfo_checks(z: &Zebin<'_>, grf_size: u32, out: &mut Diagnostics) {
    let Some(result) = &z.zeinfo else {
        out.push(Diagnostic::new(NO_ZEINFO, "no .ze_info section: NEO decodes the binary but finds no kernels"));
        return;
    };
    let section = names::ZE_INFO;
    let info = match result {
        Ok(info) => info,
        Err(e) => {
            out.push(Diagnostic::new(ZEINFO_SYNTAX, e.clone()).in_section(section));
            return;
        }
    };
    let version = match (&info.doc.version, info.version) {
        (None, _) => None,
        (Some(_), Some(v)) => {
            check_version(&v.to_string(), ".ze_info version", out, None);
            Some(v)
        }
        (Some(raw), None) => {
            out.push(
                Diagnostic::new(BAD_VERSION, format!(".ze_info version {raw:?} is not MAJOR.MINOR"))
                    .in_section(section),
            );
            None
        }
    };
    if let (Some(v), Some(note)) = (version, z.target.zebin_version.and_then(Version::parse)) {
        if v != note {
            out.push(
                Diagnostic::new(VERSION_MISMATCH, format!("the note says {note}, .ze_info says {v}"))
                    .in_section(section),
            );
        }
    }
    let version_text = version.map(|v| v.to_string()).unwrap_or_else(|| "unversioned".into());
    for key in info.unknown_keys() {
        out.push(
            Diagnostic::new(UNKNOWN_ZEINFO_KEY, format!("`{key}` is not in the .ze_info {version_text} spec; kept"))
                .in_section(section),
        );
    }
    let Some(kernels) = &info.doc.kernels else {
        out.push(Diagnostic::new(MISSING_ZEINFO_KEY, "no `kernels` list").in_section(section));
        return;
    };
    for k in kernels {
        let env = &k.execution_env;
        let bad = |msg: String| Diagnostic::new(BAD_ZEINFO_VALUE, msg).in_section(section).for_symbol(k.name.clone());
        for (key, present) in [("grf_count", env.grf_count.is_some()), ("simd_size", env.simd_size.is_some())] {
            if !present {
                out.push(
                    Diagnostic::new(MISSING_ZEINFO_KEY, format!("execution_env of `{}` has no {key}", k.name))
                        .in_section(section)
                        .for_symbol(k.name.clone()),
                );
            }
        }
        let simd = env.simd_size.unwrap_or(0);
        if env.simd_size.is_some() && ![1, 8, 16, 32].contains(&simd) {
            out.push(bad(format!("simd_size {simd} is not 1, 8, 16 or 32")));
        }
        if let Some(mode) = &env.thread_scheduling_mode {
            if !enums::THREAD_SCHEDULING_MODES.contains(&mode.as_str()) {
                out.push(bad(format!("thread_scheduling_mode `{mode}`")));
            }
        }
        for (key, v) in [
            ("required_work_group_size", &env.required_work_group_size),
            ("work_group_walk_order_dimensions", &env.work_group_walk_order_dimensions),
        ] {
            if let Some(v) = v {
                if v.len() != 3 {
                    out.push(bad(format!("{key} has {} values; expected 3", v.len())));
                }
            }
        }
        for a in &k.payload_arguments {
            if !enums::ARG_TYPES.contains(&a.arg_type.as_str()) {
                out.push(bad(format!("payload argument type `{}`", a.arg_type)));
            }
            for (key, value, allowed) in [
                ("addrmode", &a.addrmode, enums::ADDRMODES),
                ("addrspace", &a.addrspace, enums::ADDRSPACES),
                ("access_type", &a.access_type, enums::ACCESS_TYPES),
            ] {
                if let Some(v) = value {
                    if !allowed.contains(&v.as_str()) {
                        out.push(bad(format!("{key} `{v}`")));
                    }
                }
            }
        }
        for a in &k.per_thread_payload_arguments {
            let size = a.size.unwrap_or(-1);
            match a.arg_type.as_str() {
                "local_id" => {
                    if a.offset.unwrap_or(-1) != 0 {
                        out.push(bad(format!("local_id offset {}; expected 0", a.offset.unwrap_or(-1))));
                        continue;
                    }
                    // zeinfo_decoder.cpp: one channel is SIMD (16 or 32) u16 ids, padded to a GRF.
                    let channel: i64 = if simd == 32 { 64 } else { 32 };
                    let grf = i64::from(grf_size.max(1));
                    let channel = (channel + grf - 1) / grf * grf;
                    let tuple = if channel > 0 { size / channel } else { 0 };
                    if !(1..=3).contains(&tuple) {
                        out.push(bad(format!(
                            "Invalid size for argument of type local_id in context of : {}. For simd={simd} expected : {} or {} or {}. Got : {size} (register size {grf_size})",
                            k.name,
                            channel,
                            channel * 2,
                            channel * 3
                        )));
                    }
                }
                "packed_local_ids" => {
                    if a.offset.unwrap_or(-1) != 0 {
                        out.push(bad(format!("packed_local_ids offset {}; expected 0", a.offset.unwrap_or(-1))));
                    } else if simd != 1 {
                        out.push(bad(format!("packed_local_ids needs simd_size 1, the kernel has {simd}")));
                    } else if ![2, 4, 6].contains(&size) {
                        out.push(bad(format!("packed_local_ids size {size}; expected 2, 4 or 6")));
                    }
                }
                other => out.push(bad(format!(
                    "per-thread payload argument type `{other}`; expected local_id or packed_local_ids"
                ))),
            }
        }
        if z.kernel(&k.name).is_none() {
            out.push(
                Diagnostic::new(
                    MISSING_KERNEL_TEXT,
                    format!("kernel `{}` has no {}{} section", k.name, names::TEXT_PREFIX, k.name),
                )
                .for_symbol(k.name.clone()),
            );
        }
    }
}
