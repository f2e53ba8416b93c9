//! Text rendering of the dump model, laid out like `readelf -a` with the CUDA
//! names `cuobjdump -elf` prints.

use crate::model::{CubinDump, SymbolDump};
use std::fmt::Write;

pub fn render(file: &str, d: &CubinDump, out: &mut String) {
    // Writes to a String cannot fail.
    let _ = render_inner(file, d, out);
}

fn name_or_hex(name: Option<&str>, value: u64) -> String {
    name.map(str::to_string).unwrap_or_else(|| format!("{value:#x}"))
}

fn render_inner(file: &str, d: &CubinDump, out: &mut String) -> std::fmt::Result {
    let h = &d.header;
    writeln!(out, "File: {file}")?;
    writeln!(out, "ELF Header:")?;
    writeln!(out, "  Class:                 {} ({})", h.class, h.data)?;
    writeln!(out, "  OS/ABI:                {:#x} {}", h.osabi, h.osabi_name.unwrap_or("(unknown)"))?;
    writeln!(out, "  ABI version:           {}", h.abi_version)?;
    writeln!(out, "  Type:                  {}", name_or_hex(h.type_name, u64::from(h.e_type)))?;
    writeln!(out, "  Machine:               {}{}", h.machine, if h.machine == 190 { " (EM_CUDA)" } else { "" })?;
    let f = &h.flags_decoded;
    write!(out, "  Flags:                 {:#010x} (sm {}, virtual sm {}", h.flags, f.sm, f.virtual_sm)?;
    if h.abi_version == 7 {
        write!(
            out,
            "{}{}{}",
            if f.address_64 { ", 64-bit addresses" } else { "" },
            if f.texmode_unified { ", unified textures" } else { "" },
            if f.texmode_independent { ", independent textures" } else { "" }
        )?;
    } else {
        write!(out, ", kind {}, cuinfo section {}", f.kind, f.cuinfo_section)?;
    }
    writeln!(out, ")")?;
    writeln!(out, "  Target:                {}", h.arch.as_deref().unwrap_or("(none)"))?;
    writeln!(out, "  Entry:                 {:#x}", h.entry)?;
    writeln!(out, "  Sections:              {} (names in section {})", h.section_count, h.shstrndx)?;
    writeln!(out, "  Program headers:       {}", h.segment_count)?;

    writeln!(out, "\nSection Headers:")?;
    writeln!(
        out,
        "  [Nr] {:<40} {:<26} {:>8} {:>8} {:>8} {:>4} {:>8} {:>5} {:>3}  Flags",
        "Name", "Type", "Addr", "Off", "Size", "Link", "Info", "Align", "ES"
    )?;
    for s in &d.sections {
        let ty = s.type_name.map(str::to_string).unwrap_or_else(|| format!("{:#x}", s.sh_type));
        writeln!(
            out,
            "  [{:>2}] {:<40} {:<26} {:>8x} {:>8x} {:>8x} {:>4} {:>8x} {:>5x} {:>3x}  {}",
            s.index,
            s.name,
            ty,
            s.addr,
            s.offset,
            s.size,
            s.link,
            s.info,
            s.align,
            s.entsize,
            s.flag_names.join("|")
        )?;
    }

    if !d.segments.is_empty() {
        writeln!(out, "\nProgram Headers:")?;
        writeln!(
            out,
            "  {:<6} {:>8} {:>10} {:>10} {:>8} {:>8} {:>5} {:>6}",
            "Type", "Offset", "VirtAddr", "PhysAddr", "FileSiz", "MemSiz", "Flags", "Align"
        )?;
        for p in &d.segments {
            writeln!(
                out,
                "  {:<6} {:>8x} {:>10x} {:>10x} {:>8x} {:>8x} {:>5x} {:>6x}",
                name_or_hex(p.type_name, u64::from(p.p_type)),
                p.offset,
                p.vaddr,
                p.paddr,
                p.filesz,
                p.memsz,
                p.flags,
                p.align
            )?;
        }
    }

    symbols(out, ".symtab", &d.symbols)?;
    if !d.mercury_symbols.is_empty() {
        symbols(out, ".nv.merc.symtab", &d.mercury_symbols)?;
    }

    let mut current = None;
    for r in &d.relocations {
        if current != Some(&r.section) {
            writeln!(out, "\nRelocation section '{}' patches '{}':", r.section, r.target_section)?;
            writeln!(out, "  {:>10}  {:<28} {:>12}  Symbol", "Offset", "Type", "Addend")?;
            current = Some(&r.section);
        }
        let ty = r.type_name.map(str::to_string).unwrap_or_else(|| format!("{:#x}", r.r_type));
        let name = r.demangled.as_deref().unwrap_or(&r.symbol);
        writeln!(out, "  {:>10x}  {:<28} {:>12x}  {} ({})", r.offset, ty, r.addend, name, r.symbol_index)?;
    }

    for s in &d.nvinfo {
        writeln!(out, "\n{} ({} records):", s.section, s.records.len())?;
        for r in &s.records {
            let attr = r.attr_name.map(str::to_string).unwrap_or_else(|| format!("unknown attribute {:#x}", r.attr));
            let format = r.format_name.unwrap_or("?");
            writeln!(out, "  {attr:<40} {format:<11} {}", r.text)?;
        }
        if let Some(e) = &s.error {
            writeln!(out, "  (stopped: {e})")?;
        }
    }

    for s in d.callgraph.iter().chain(&d.prototypes).chain(&d.other_metadata) {
        writeln!(out, "\n{} ({} entries):", s.section, s.entries.len())?;
        for e in &s.entries {
            writeln!(out, "  {:<14} {}", e.kind, e.text)?;
        }
        if let Some(reason) = &s.raw_reason {
            writeln!(out, "  (kept as bytes: {reason})")?;
        }
    }

    for n in &d.notes {
        writeln!(
            out,
            "\nNote in {} at {:#x}: owner {:?}, type {} ({})",
            n.section,
            n.offset,
            n.owner,
            n.n_type,
            n.description.unwrap_or("unknown")
        )?;
        writeln!(out, "  {}", n.text)?;
    }
    Ok(())
}

fn symbols(out: &mut String, table: &str, list: &[SymbolDump]) -> std::fmt::Result {
    writeln!(out, "\nSymbol table '{table}' contains {} entries:", list.len())?;
    writeln!(
        out,
        "  {:>5} {:>12} {:>8} {:<12} {:<6} {:<9} {:<22} {:>5}  Name",
        "Num", "Value", "Size", "Type", "Bind", "Vis", "Other", "Ndx"
    )?;
    for s in list {
        let other = if s.other_names.is_empty() { "-".to_string() } else { s.other_names.join("|") };
        let ty = s.type_name.map(str::to_string).unwrap_or_else(|| format!("{:#x}", s.st_type));
        let name = s.demangled.as_deref().unwrap_or(&s.name);
        writeln!(
            out,
            "  {:>5} {:>12x} {:>8x} {:<12} {:<6} {:<9} {:<22} {:>5}  {}",
            s.index, s.value, s.size, ty, s.bind, s.visibility, other, s.shndx, name
        )?;
    }
    Ok(())
}
