//! ELF32 cubins (`nvcc -m32`, CUDA ≤ 11) are not made by any toolkit we can
//! install, so this builds one by hand: the layout is the System V gABI's ELF32
//! (52-byte header, 40-byte section headers, 16-byte symbols, 8-byte REL).

use develf_parse::Cubin;
use develf_parse::elf::Class;

fn put16(b: &mut Vec<u8>, v: u16) {
    b.extend_from_slice(&v.to_le_bytes());
}
fn put32(b: &mut Vec<u8>, v: u32) {
    b.extend_from_slice(&v.to_le_bytes());
}

/// A section header: name, type, flags, offset, size, link, info, align, entsize.
type Shdr = (u32, u32, u32, u32, u32, u32, u32, u32, u32);

/// null, .shstrtab, .strtab, .symtab (2 symbols), .text.k, .rel.text.k (1 entry).
fn elf32_cubin() -> Vec<u8> {
    let shstrtab = b"\0.shstrtab\0.strtab\0.symtab\0.text.k\0.rel.text.k\0";
    let strtab = b"\0k\0";
    let mut symtab = vec![0u8; 16];
    // k: name 1, value 0, size 16, FUNC GLOBAL, st_other ENTRY, section 4
    put32(&mut symtab, 1);
    put32(&mut symtab, 0);
    put32(&mut symtab, 16);
    symtab.extend_from_slice(&[0x12, 0x10]);
    put16(&mut symtab, 4);
    let text = [0u8; 16];
    let mut rel = Vec::new();
    put32(&mut rel, 8); // r_offset
    put32(&mut rel, (1 << 8) | 1); // symbol 1, R_CUDA_32
    let mut body = Vec::new();
    let mut place = |data: &[u8]| {
        let off = 52 + body.len() as u32;
        body.extend_from_slice(data);
        (off, data.len() as u32)
    };
    let (o1, s1) = place(shstrtab);
    let (o2, s2) = place(strtab);
    let (o3, s3) = place(&symtab);
    let (o4, s4) = place(&text);
    let (o5, s5) = place(&rel);
    let shoff = 52 + body.len() as u32;
    let sections: [Shdr; 6] = [
        (0, 0, 0, 0, 0, 0, 0, 0, 0),
        (1, 3, 0, o1, s1, 0, 0, 1, 0),
        (11, 3, 0, o2, s2, 0, 0, 1, 0),
        (19, 2, 0, o3, s3, 2, 1, 4, 16),
        (27, 1, 6, o4, s4, 3, 0, 4, 0),
        (35, 9, 0x40, o5, s5, 3, 4, 4, 8),
    ];
    let mut out = b"\x7fELF\x01\x01\x01\x33\x07".to_vec();
    out.resize(16, 0);
    put16(&mut out, 1); // ET_REL
    put16(&mut out, 190); // EM_CUDA
    put32(&mut out, 1);
    put32(&mut out, 0); // entry
    put32(&mut out, 0); // phoff
    put32(&mut out, shoff);
    put32(&mut out, 0x0014_0114); // ABI 7: sm_20, virtual sm_20, unified textures
    put16(&mut out, 52);
    put16(&mut out, 32);
    put16(&mut out, 0);
    put16(&mut out, 40);
    put16(&mut out, sections.len() as u16);
    put16(&mut out, 1);
    out.extend_from_slice(&body);
    for (name, ty, flags, off, size, link, info, align, entsize) in sections {
        for v in [name, ty, flags, 0, off, size, link, info, align, entsize] {
            put32(&mut out, v);
        }
    }
    out
}

#[test]
fn reads_and_validates_an_elf32_cubin() {
    let bytes = elf32_cubin();
    let cubin = Cubin::parse(&bytes).expect("parses");
    assert_eq!(cubin.header().class, Class::Elf32);
    assert_eq!(cubin.target().map(|t| t.to_string()).as_deref(), Some("sm_20"));
    let names: Vec<&str> = cubin.sections().iter().map(|s| s.name).collect();
    assert_eq!(names, ["", ".shstrtab", ".strtab", ".symtab", ".text.k", ".rel.text.k"]);
    let k = &cubin.symbols()[1];
    assert_eq!((k.name, k.size, k.st_type, k.bind, k.other, k.shndx), ("k", 16, 2, 1, 0x10, 4));
    let rel = cubin.relocation_sections().next().expect("one relocation section");
    let r: Vec<_> = rel.entries().collect();
    assert_eq!((r[0].offset, r[0].r_type, r[0].symbol, r[0].addend), (8, 1, 1, None));
    let errors: Vec<String> =
        cubin.validate().as_slice().iter().filter(|d| d.is_error()).map(|d| d.to_string()).collect();
    assert!(errors.is_empty(), "{errors:?}");
}

#[test]
fn every_truncation_of_the_elf32_cubin_is_handled() {
    let bytes = elf32_cubin();
    for len in 0..bytes.len() {
        if let Ok(c) = Cubin::parse(&bytes[..len]) {
            let _ = c.validate();
        }
    }
}
