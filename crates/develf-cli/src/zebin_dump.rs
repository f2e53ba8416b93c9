//! `develf dump` for Intel zebins, in text and JSON. The JSON uses the cubin
//! dump's keys where they fit (`header`, `sections`, `segments`, `symbols`,
//! `relocations`, `notes`) and adds `target`, `kernels` and `zeinfo` (the decoded
//! `.ze_info`, unknown keys kept inline).

use crate::model::hex;
use develf_format::table::lookup;
use develf_format::zebin::{self as fmt, names};
use develf_parse::elf::Class;
use develf_parse::zebin::{HeaderLayout, NoteValue, Zebin};
use serde_json::{Value, json};
use std::fmt::Write;

fn section_type_name(sh_type: u32) -> Option<&'static str> {
    lookup(fmt::SECTION_TYPES, sh_type).or_else(|| lookup(develf_format::section::SECTION_TYPES, sh_type))
}

fn section_name(z: &Zebin<'_>, index: usize) -> String {
    z.elf.sections.get(index).map(|s| s.label()).unwrap_or_else(|| format!("#{index}"))
}

fn note_value(value: &NoteValue<'_>) -> Value {
    match *value {
        NoteValue::ProductFamily(v) => json!({ "product_family": v, "name": fmt::product_family_name(v) }),
        NoteValue::GfxCore(v) => json!({ "gfx_core": v, "name": fmt::gfx_core_name(v) }),
        NoteValue::TargetMetadata(f) => target_flags(f),
        NoteValue::ZebinVersion(v) => json!({ "version": v }),
        NoteValue::VisaAbiVersion(v) => json!({ "visa_abi_version": v }),
        NoteValue::ProductConfig(ip) => json!({ "ip_version": ip.to_string(), "raw": ip.encode() }),
        NoteValue::IndirectAccessDetectionVersion(v) => json!({ "indirect_access_detection_version": v }),
        NoteValue::IndirectAccessBufferMajorVersion(v) => json!({ "indirect_access_buffer_major_version": v }),
        NoteValue::Raw(bytes) => json!({ "raw": hex(bytes) }),
    }
}

fn target_flags(f: fmt::TargetFlags) -> Value {
    json!({
        "packed": f.encode(),
        "generator_specific_flags": f.generator_specific_flags,
        "min_hw_revision_id": f.min_hw_revision_id,
        "max_hw_revision_id": f.max_hw_revision_id,
        "validate_revision_id": f.validate_revision_id,
        "disable_extended_validation": f.disable_extended_validation,
        "machine_entry_uses_gfx_core": f.machine_entry_uses_gfx_core,
        "generator_id": f.generator_id,
        "generator": f.generator_name(),
        "reserved": f.reserved,
    })
}

/// The JSON dump of a zebin.
pub fn json(z: &Zebin<'_>) -> Value {
    let h = &z.elf.header;
    let header = json!({
        "class": h.class.name(),
        "data": if h.endian.is_little() { "little" } else { "big" },
        "osabi": h.osabi,
        "abi_version": h.abi_version,
        "type": h.e_type,
        "type_name": lookup(fmt::ELF_TYPES, h.e_type),
        "machine": h.machine,
        "machine_name": if h.machine == fmt::EM_INTELGT { Some("EM_INTELGT") } else { None },
        "flags": h.flags,
        "layout": match z.layout { HeaderLayout::IntelGt => "intelgt", HeaderLayout::Legacy { .. } => "legacy" },
        "target_flags": match z.layout { HeaderLayout::Legacy { flags } => target_flags(flags), HeaderLayout::IntelGt => Value::Null },
        "entry": h.entry,
        "section_count": h.shnum,
        "segment_count": h.phnum,
        "shstrndx": h.shstrndx,
    });
    let sections: Vec<Value> = z
        .elf
        .sections
        .iter()
        .map(|s| {
            json!({
                "index": s.index, "name": s.name, "type": s.sh_type, "type_name": section_type_name(s.sh_type),
                "role": z.role(s.index).name(),
                "flags": s.flags, "flag_names": develf_format::section::flag_names(s.flags),
                "addr": s.addr, "offset": s.offset, "size": s.size, "link": s.link, "info": s.info,
                "align": s.addralign, "entsize": s.entsize,
            })
        })
        .collect();
    let segments: Vec<Value> = z
        .elf
        .segments
        .iter()
        .map(|p| json!({ "index": p.index, "type": p.p_type, "flags": p.flags, "offset": p.offset, "vaddr": p.vaddr, "paddr": p.paddr, "filesz": p.filesz, "memsz": p.memsz, "align": p.align }))
        .collect();
    let symbols: Vec<Value> = z
        .symbols
        .iter()
        .map(|s| {
            json!({
                "index": s.index, "name": s.name, "value": s.value, "size": s.size, "type": s.st_type,
                "type_name": symbol_type_name(s.st_type), "bind": bind_name(s.bind), "other": s.other,
                "shndx": s.shndx, "section": s.section_index().map(|i| section_name(z, i)),
            })
        })
        .collect();
    let mut relocations = Vec::new();
    for rs in z.elf.relocation_sections() {
        let target = section_name(z, rs.target as usize);
        let debug = target.starts_with(names::DEBUG_PREFIX);
        for r in rs.entries() {
            relocations.push(json!({
                "section": section_name(z, rs.section), "target_section": target, "offset": r.offset, "type": r.r_type,
                "type_name": if debug { None } else { fmt::relocation_name(r.r_type) },
                "symbol_index": r.symbol, "symbol": z.symbols.get(r.symbol as usize).map(|s| s.name).unwrap_or(""),
                "addend": r.addend.unwrap_or(0),
            }));
        }
    }
    let notes: Vec<Value> = z
        .notes
        .iter()
        .map(|n| {
            json!({
                "section": names::NOTE_COMPAT, "offset": n.note.offset, "owner": String::from_utf8_lossy(n.note.name),
                "type": n.note.n_type, "type_name": fmt::compat_note_name(n.note.n_type), "desc": hex(n.note.desc),
                "value": note_value(&n.value),
            })
        })
        .collect();
    let t = &z.target;
    let target = json!({
        "product_family": t.product_family, "product_family_name": t.product_family.and_then(fmt::product_family_name),
        "gfx_core": t.gfx_core, "gfx_core_name": t.gfx_core.and_then(fmt::gfx_core_name),
        "target_metadata": t.target_metadata.map(target_flags),
        "zebin_version": t.zebin_version, "visa_abi_version": t.visa_abi_version,
        "ip_version": t.ip_version.map(|v| v.to_string()),
        "indirect_access_detection_version": t.indirect_access_detection_version,
        "indirect_access_buffer_major_version": t.indirect_access_buffer_major_version,
        "device": t.device().map(|d| d.name),
        "build_options": z.build_options(),
    });
    let kernels: Vec<Value> = z
        .kernels
        .iter()
        .map(|k| json!({ "name": k.name, "section": k.section, "size": k.code.len(), "symbol": k.symbol, "entry": k.entry }))
        .collect();
    let zeinfo = match &z.zeinfo {
        None => Value::Null,
        Some(Ok(info)) => json!({
            "version": info.version.map(|v| v.to_string()),
            "unknown_keys": info.unknown_keys(),
            "document": serde_json::to_value(&info.doc).unwrap_or(Value::Null),
        }),
        Some(Err(e)) => json!({ "error": e }),
    };
    json!({
        "format": "zebin",
        "header": header,
        "target": target,
        "sections": sections,
        "segments": segments,
        "symbols": symbols,
        "relocations": relocations,
        "notes": notes,
        "kernels": kernels,
        "zeinfo": zeinfo,
    })
}

fn symbol_type_name(t: u8) -> &'static str {
    match t {
        0 => "STT_NOTYPE",
        1 => "STT_OBJECT",
        2 => "STT_FUNC",
        3 => "STT_SECTION",
        4 => "STT_FILE",
        _ => "?",
    }
}

fn bind_name(b: u8) -> &'static str {
    match b {
        0 => "STB_LOCAL",
        1 => "STB_GLOBAL",
        2 => "STB_WEAK",
        _ => "?",
    }
}

/// The text dump of a zebin, appended to `out`.
pub fn text(z: &Zebin<'_>, out: &mut String) {
    let h = &z.elf.header;
    let bits = if h.class == Class::Elf64 { 64 } else { 32 };
    let _ = writeln!(
        out,
        "zebin: ELF{bits}, e_type {:#x} ({}), e_machine {} ({}), e_flags {:#x}",
        h.e_type,
        lookup(fmt::ELF_TYPES, h.e_type).unwrap_or("?"),
        h.machine,
        match z.layout {
            HeaderLayout::IntelGt => "EM_INTELGT".to_string(),
            HeaderLayout::Legacy { flags } if flags.machine_entry_uses_gfx_core =>
                format!("legacy: GFX core {}", fmt::gfx_core_name(u32::from(h.machine)).unwrap_or("?")),
            HeaderLayout::Legacy { .. } =>
                format!("legacy: product family {}", fmt::product_family_name(u32::from(h.machine)).unwrap_or("?")),
        },
        h.flags
    );
    let t = &z.target;
    let _ = writeln!(out, "\nTarget:");
    if let Some(v) = t.product_family {
        let _ = writeln!(out, "  product family   {v} ({})", fmt::product_family_name(v).unwrap_or("?"));
    }
    if let Some(v) = t.gfx_core {
        let _ = writeln!(out, "  GFX core         {v:#x} ({})", fmt::gfx_core_name(v).unwrap_or("?"));
    }
    if let Some(v) = t.ip_version {
        let _ = writeln!(out, "  IP version       {v}");
    }
    if let Some(f) = t.target_metadata {
        let _ = writeln!(
            out,
            "  metadata         {:#010x} (generator {}, stepping {}..={}{})",
            f.encode(),
            f.generator_name().unwrap_or("?"),
            f.min_hw_revision_id,
            f.max_hw_revision_id,
            if f.validate_revision_id { ", checked" } else { "" }
        );
    }
    if let Some(v) = t.zebin_version {
        let _ = writeln!(out, "  zebin version    {v}");
    }
    if let Some(v) = t.visa_abi_version {
        let _ = writeln!(out, "  vISA ABI         {v}");
    }
    if let (Some(a), Some(b)) = (t.indirect_access_detection_version, t.indirect_access_buffer_major_version) {
        let _ = writeln!(out, "  indirect access  detection v{a}, buffer v{b}");
    }
    if let Some(d) = t.device() {
        let _ = writeln!(out, "  device           {}", d.name);
    }
    if let Some(o) = z.build_options() {
        let _ = writeln!(out, "  build options    {o}");
    }

    let _ = writeln!(
        out,
        "\nSections:\n  [Nr] {:<40} {:<22} {:>8} {:>8} {:>4} {:>4} {:>3}  role",
        "Name", "Type", "Offset", "Size", "Link", "Info", "ES"
    );
    for s in &z.elf.sections {
        let ty = section_type_name(s.sh_type).map(str::to_string).unwrap_or_else(|| format!("{:#x}", s.sh_type));
        let _ = writeln!(
            out,
            "  [{:>2}] {:<40} {:<22} {:>8x} {:>8x} {:>4} {:>4} {:>3}  {}",
            s.index,
            s.name,
            ty,
            s.offset,
            s.size,
            s.link,
            s.info,
            s.entsize,
            z.role(s.index).name()
        );
    }

    let _ = writeln!(
        out,
        "\nSymbols:\n  {:>4} {:>10} {:>6} {:<11} {:<10} {:<36} Name",
        "Num", "Value", "Size", "Type", "Bind", "Section"
    );
    for s in &z.symbols {
        let section = s.section_index().map(|i| section_name(z, i)).unwrap_or_else(|| "UND".into());
        let _ = writeln!(
            out,
            "  {:>4} {:>10x} {:>6} {:<11} {:<10} {:<36} {}",
            s.index,
            s.value,
            s.size,
            symbol_type_name(s.st_type),
            bind_name(s.bind),
            section,
            s.name
        );
    }

    for rs in z.elf.relocation_sections() {
        let target = section_name(z, rs.target as usize);
        let debug = target.starts_with(names::DEBUG_PREFIX);
        let _ = writeln!(out, "\nRelocations in {} (patching {}):", section_name(z, rs.section), target);
        for r in rs.entries() {
            let ty = if debug { None } else { fmt::relocation_name(r.r_type) };
            let sym = z.symbols.get(r.symbol as usize).map(|s| s.name).unwrap_or("?");
            let addend = r.addend.map(|a| format!(" {a:+}")).unwrap_or_default();
            let _ = writeln!(
                out,
                "  {:>8x}  {:<32} {}{addend}",
                r.offset,
                ty.map(str::to_string).unwrap_or_else(|| format!("type {}", r.r_type)),
                sym
            );
        }
    }

    if !z.notes.is_empty() {
        let _ = writeln!(out, "\nNotes in {}:", names::NOTE_COMPAT);
        for n in &z.notes {
            let name = fmt::compat_note_name(n.note.n_type)
                .map(str::to_string)
                .unwrap_or_else(|| format!("type {}", n.note.n_type));
            let _ =
                writeln!(out, "  {:<8} {:<48} {}", String::from_utf8_lossy(n.note.name), name, note_value(&n.value));
        }
    }

    let _ = writeln!(out, "\nKernels:");
    for k in &z.kernels {
        let _ = writeln!(
            out,
            "  {:<40} {:>6} bytes, _entry at {}",
            k.name,
            k.code.len(),
            k.entry.map(|e| format!("{e:#x}")).unwrap_or_else(|| "-".into())
        );
    }

    match &z.zeinfo {
        None => {
            let _ = writeln!(out, "\n.ze_info: none");
        }
        Some(Err(e)) => {
            let _ = writeln!(out, "\n.ze_info: does not decode: {e}");
        }
        Some(Ok(info)) => {
            let version = info.version.map(|v| v.to_string()).unwrap_or_else(|| "?".into());
            let _ = writeln!(out, "\n.ze_info {version}:");
            for k in info.kernels() {
                let e = &k.execution_env;
                let _ = writeln!(
                    out,
                    "  {}: simd {}, grf {}, slm {}, private {}, spill {}, barriers {}, {} payload args, {} per-thread args, {} binding table entries",
                    k.name,
                    e.simd_size.unwrap_or(0),
                    e.grf_count.unwrap_or(0),
                    e.slm_size.unwrap_or(0),
                    e.private_size.unwrap_or(0),
                    e.spill_size.unwrap_or(0),
                    e.barrier_count.unwrap_or(0),
                    k.payload_arguments.len(),
                    k.per_thread_payload_arguments.len(),
                    k.binding_table_indices.len()
                );
                for a in &k.payload_arguments {
                    let _ = writeln!(
                        out,
                        "      {:<24} offset {:>4} size {:>3}{}{}{}",
                        a.arg_type,
                        a.offset.unwrap_or(-1),
                        a.size.unwrap_or(0),
                        a.arg_index.map(|i| format!(" arg {i}")).unwrap_or_default(),
                        a.addrmode.as_ref().map(|m| format!(" {m}")).unwrap_or_default(),
                        a.addrspace.as_ref().map(|m| format!(" {m}")).unwrap_or_default()
                    );
                }
                for a in &k.per_thread_payload_arguments {
                    let _ = writeln!(
                        out,
                        "      {:<24} offset {:>4} size {:>3} (per thread)",
                        a.arg_type,
                        a.offset.unwrap_or(-1),
                        a.size.unwrap_or(0)
                    );
                }
            }
            for f in &info.doc.functions {
                let _ = writeln!(
                    out,
                    "  function {}: simd {}, grf {}",
                    f.name,
                    f.execution_env.simd_size.unwrap_or(0),
                    f.execution_env.grf_count.unwrap_or(0)
                );
            }
            for g in &info.doc.global_host_access_table {
                let _ = writeln!(out, "  host access: {} -> {}", g.device_name, g.host_name);
            }
            for key in info.unknown_keys() {
                let _ = writeln!(out, "  unknown key (kept): {key}");
            }
        }
    }
}
