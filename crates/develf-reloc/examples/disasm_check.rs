//! A second oracle for the instruction-field descriptors: NVIDIA's own
//! disassembler. For every instruction relocation in the given cubins, apply
//! a distinctive value with develf-reloc, disassemble the patched 128-bit word
//! with `nvdisasm -b SM<nn>` and check that the operand nvdisasm prints is the
//! value (the call target, the immediate, `c[0x3][0x1234]`). This covers the
//! types nvlink leaves to the driver, whose bytes nvlink's outputs never show.
//!
//! ```sh
//! cargo run -p develf-reloc --example disasm_check -- \
//!     target/toolchains/cuda13/nvidia/cu13/bin/nvdisasm tests/fixtures/obj/*/*.cubin
//! ```
//!
//! sm_75 and newer only (128-bit words); sm_5x/6x bundle three 64-bit
//! instructions with a control word and are not handled here.

use develf_parse::Cubin;
use develf_reloc::{Action, Range, ValuePart, apply, descriptor, field_value};
use std::collections::BTreeMap;
use std::process::Command;

/// The symbol value used for each type: every part distinctive, in range.
fn value_for(desc: &develf_reloc::RelocDesc) -> u64 {
    match desc.value_part {
        ValuePart::BankAddress(bits) => (3u64 << bits) | 0x1234,
        _ => match desc.range {
            Range::Either(b) | Range::Unsigned(b) if b < 48 => {
                ((1u64 << (u32::from(b) + u32::from(desc.shift) - 1)) - 1) & 0x0000_7654_3210_fed0
            }
            _ => 0x0000_7654_3210_fed0,
        },
    }
}

fn main() {
    let args: Vec<String> = std::env::args().skip(1).collect();
    let Some((nvdisasm, files)) = args.split_first() else {
        eprintln!("usage: disasm_check NVDISASM CUBIN...");
        std::process::exit(2);
    };
    let dir = std::env::temp_dir().join(format!("develf-disasm-check-{}", std::process::id()));
    std::fs::create_dir_all(&dir).expect("temp dir");
    let mut table: BTreeMap<&'static str, (usize, usize)> = BTreeMap::new();
    let mut failures = Vec::new();
    for path in files {
        let Ok(bytes) = std::fs::read(path) else { continue };
        let Ok(cubin) = Cubin::parse(&bytes) else { continue };
        let Some(arch) = cubin.target() else { continue };
        let sm = arch.to_string();
        let number: String = sm.trim_start_matches("sm_").chars().take_while(char::is_ascii_digit).collect();
        if number.parse::<u32>().unwrap_or(0) < 70 {
            continue;
        }
        for rs in cubin.relocation_sections() {
            let Some(text) = cubin.sections().get(rs.target as usize) else { continue };
            if !text.name.starts_with(".text.") {
                continue;
            }
            let data = text.data.unwrap_or(&[]);
            for r in rs.entries() {
                let Some(desc) = descriptor(r.r_type) else { continue };
                if desc.action != Action::Write {
                    continue;
                }
                let start = (r.offset & !15) as usize;
                let Some(original) = data.get(start..start + 16) else { continue };
                let mut word = [0u8; 16];
                word.copy_from_slice(original);
                let s = value_for(desc);
                let sub = r.offset as usize - start;
                if apply(r.r_type, &mut word[sub..], s, 0, 0).is_err() {
                    continue;
                }
                let Ok(v) = field_value(desc, s, 0, 0) else { continue };
                let raw = dir.join("word.bin");
                std::fs::write(&raw, word).expect("write");
                let output = Command::new(nvdisasm).arg("-b").arg(format!("SM{number}")).arg(&raw).output();
                let Ok(output) = output else {
                    eprintln!("cannot run {nvdisasm}");
                    std::process::exit(2);
                };
                let text_out = String::from_utf8_lossy(&output.stdout);
                let line = text_out.lines().find(|l| l.contains("/*0000*/")).unwrap_or("").trim().to_string();
                let expected = match desc.value_part {
                    ValuePart::BankAddress(_) => "c[0x3][".to_string(),
                    _ if desc.shift == 2 && desc.field_bits() >= 47 => format!("{s:#x}"),
                    _ => format!("{v:#x}"),
                };
                let ok = line.contains(&expected) && (expected != "c[0x3][" || line.contains("0x1234]"));
                let e = table.entry(desc.name).or_default();
                e.0 += 1;
                if !ok {
                    e.1 += 1;
                    failures.push(format!(
                        "{path} {sm} {}+{:#x} {}: want {expected}: {line}",
                        text.name, r.offset, desc.name
                    ));
                }
            }
        }
    }
    let _ = std::fs::remove_dir_all(&dir);
    println!("{:<28} {:>6} {:>9}", "type", "sites", "disagree");
    for (name, (sites, bad)) in &table {
        println!("{name:<28} {sites:>6} {bad:>9}");
    }
    for f in &failures {
        println!("{f}");
    }
    if !failures.is_empty() {
        std::process::exit(1);
    }
}
