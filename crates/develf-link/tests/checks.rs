//! The link-time checks nvlink makes on executables, on hand-made inputs
//! (tests/fixtures/checks/, nvlink's own messages beside them): each fires
//! where nvlink's does, and the message names the file, the functions and the
//! numbers (rules 12.6, 12.7, 3.3).

use develf_format::header::Arch;
use develf_link::{Input, LinkError, LinkOptions, OutputKind, link};
use std::path::PathBuf;

fn fixture(path: &str) -> Vec<u8> {
    let path = PathBuf::from(env!("CARGO_MANIFEST_DIR")).join("../../tests/fixtures").join(path);
    std::fs::read(&path).unwrap_or_else(|e| panic!("reading {}: {e}", path.display()))
}

fn sm(name: &str) -> Arch {
    Arch::parse(name).unwrap_or_else(|| panic!("{name}: unknown arch"))
}

fn link_files(options: &LinkOptions, files: &[&str]) -> Result<Vec<u8>, LinkError> {
    let bytes: Vec<Vec<u8>> = files.iter().map(|f| fixture(f)).collect();
    let inputs: Vec<Input<'_>> = files.iter().zip(&bytes).map(|(name, bytes)| Input::new(name, bytes)).collect();
    link(options, &inputs)
}

#[test]
fn shared_memory_over_the_limit_names_kernel_variables_and_sizes() {
    let options = LinkOptions::new(sm("sm_90"));
    let files = ["checks/shared_kernel.cubin", "checks/shared_helper_9156.cubin"];
    let error = link_files(&options, &files).expect_err("nvlink: uses too much shared data (0xc004 bytes, 0xc000 max)");
    let LinkError::SharedMemoryOverLimit(over) = &error else { panic!("wrong error: {error}") };
    assert_eq!(over.len(), 1);
    assert_eq!((over[0].total, over[0].limit), (0xc004, 0xc000), "nvlink's numbers");
    let text = error.to_string();
    println!("{text}");
    for needle in [
        "`kbig`",
        "checks/shared_kernel.cubin",
        "0xc004",
        "0xc000",
        "`own_tile` ($__own_tile__9) (0x9c40 = 40000 bytes)",
        "`helper_buf` ($__helper_buf__8) (0x23c4 = 9156 bytes) from checks/shared_helper_9156.cubin (.nv_debug.shared) in `helper`",
    ] {
        assert!(text.contains(needle), "message lacks {needle:?}: {text}");
    }
    // `-r` links are not checked (nvlink links them).
    let mut relocatable = LinkOptions::new(sm("sm_90"));
    relocatable.output = OutputKind::Relocatable;
    link_files(&relocatable, &files).expect("-r: no shared-memory check");
}

#[test]
fn shared_memory_at_the_limit_links_like_nvlink() {
    let options = LinkOptions::new(sm("sm_90"));
    let ours = link_files(&options, &["checks/shared_kernel.cubin", "checks/shared_helper_9152.cubin"])
        .expect("0xc000 bytes: nvlink links");
    let theirs = fixture("checks/shared_at_limit.nvlink.cubin");
    let comparison = develf_link::compare(&ours, &theirs);
    assert!(comparison.semantic_differences.is_empty(), "{:?}", comparison.semantic_differences);
}

#[test]
fn register_limit_below_a_callee_names_the_call_path() {
    let options = LinkOptions::new(sm("sm_90"));
    let files = ["checks/regs_kernels.cubin", "checks/regs_heavy.cubin"];
    let error = link_files(&options, &files).expect_err("nvlink: max regcount of 32 calls ... regcount of 108");
    let LinkError::RegisterLimit(over) = &error else { panic!("wrong error: {error}") };
    let text = error.to_string();
    println!("{text}");
    // nvlink reports the same two kernels: kl (launch bounds: 32) and km (__maxnreg__(24)).
    let mut got: Vec<(String, u32, String, u32)> =
        over.iter().map(|o| (o.kernel.mangled.clone(), o.limit, o.callee.mangled.clone(), o.needed)).collect();
    got.sort();
    assert_eq!(
        got,
        [
            ("_Z2klPfPKf".to_string(), 32, "_Z5heavyPKf".to_string(), 108),
            ("_Z2kmPfPKf".to_string(), 24, "_Z5heavyPKf".to_string(), 108)
        ]
    );
    for needle in [
        "`kl(float*, float const*)` (_Z2klPfPKf) (checks/regs_kernels.cubin) is limited to 32 registers",
        "calls `heavy(float const*)` (_Z5heavyPKf) (checks/regs_heavy.cubin), compiled to use 108",
        "call path: kl(float*, float const*) -> mid(float const*)$1 -> heavy(float const*)",
        "-maxrregcount=24",
    ] {
        assert!(text.contains(needle), "message lacks {needle:?}: {text}");
    }
    assert!(!text.contains("kfree"), "kfree has no limit: {text}");
}

#[test]
fn register_limit_follows_indirect_calls() {
    // nvlink (checks/regs_indirect.nvlink.txt) fails the link: `k`, limited
    // to 24 registers, calls `he` (75) through a pointer table. develf names
    // the path, and `hs` too, which nvlink leaves out (rule 12.7).
    let options = LinkOptions::new(sm("sm_90"));
    let files = ["checks/regs_indirect_kernel.cubin", "checks/regs_indirect_table.cubin"];
    let error = link_files(&options, &files).expect_err("nvlink: max regcount of 24 calls _Z2hed with regcount of 75");
    let LinkError::RegisterLimit(over) = &error else { panic!("wrong error: {error}") };
    let text = error.to_string();
    let callee = |name: &str| over.iter().find(|o| o.callee.mangled == name).map(|o| (o.limit, o.needed));
    assert_eq!(callee("_Z2hed"), Some((24, 75)), "{text}");
    assert!(callee("_Z2hsd").is_some_and(|(_, needed)| needed > 24), "{text}");
    assert!(text.contains("call path: k(double*) -> he(double)"), "{text}");
}

#[test]
fn an_extern_met_before_its_relocatable_definition_is_a_duplicate() {
    // checks/extshared.nvlink.txt: nvlink fails `extshared_b` + the `-r`
    // output `extshared_pa` (`Multiple definition of 'dyn'`) and links the
    // other order (checks/extshared_links.nvlink.cubin), rule 12.8.
    let options = LinkOptions::new(sm("sm_90"));
    let error = link_files(&options, &["checks/extshared_b.cubin", "checks/extshared_pa.cubin"])
        .expect_err("nvlink: Multiple definition of 'dyn'");
    let text = error.to_string();
    assert!(matches!(error, LinkError::DuplicateDefinitions(_)), "{text}");
    assert!(text.contains("`dyn`") && text.contains("undefined extern"), "{text}");
    let linked = link_files(&options, &["checks/extshared_pa.cubin", "checks/extshared_b.cubin"]).expect("links");
    assert_eq!(linked, fixture("checks/extshared_links.nvlink.cubin"), "the other order links as nvlink does");
}

#[test]
fn arch_mismatch_names_the_file_and_both_targets() {
    let options = LinkOptions::new(sm("sm_75"));
    let error = link_files(&options, &["obj/sm_90/calls_main.cubin", "obj/sm_75/calls_lib.cubin"])
        .expect_err("sm_90 code does not link into sm_75");
    let text = error.to_string();
    assert!(matches!(error, LinkError::ArchMismatch { .. }), "{text}");
    for needle in ["obj/sm_90/calls_main.cubin", "sm_90", "sm_75"] {
        assert!(text.contains(needle), "message lacks {needle:?}: {text}");
    }
}

/// The section name table grown over code: the code section's name lies
/// in code bytes, so the message names it by index, the same whether the
/// code is in the input's bytes or read from elsewhere (found by the `link`
/// fuzz target: `.text._Z12calls_kernelPii` in memory, `#17` read from a
/// source).
#[test]
fn a_name_table_over_code_is_refused_alike_however_code_comes() {
    use develf_link::CodeSource;
    let mut bytes = fixture("obj/sm_90/calls_main.cubin");
    let cubin = develf_parse::Cubin::parse(&bytes).expect("the fixture parses");
    let shstrndx = cubin.header().shstrndx as usize;
    let names = &cubin.sections()[shstrndx];
    let code: Vec<(usize, usize)> = cubin
        .sections()
        .iter()
        .filter(|s| s.name.starts_with(".text."))
        .map(|s| (s.offset as usize, s.size as usize))
        .collect();
    let code_end = code.iter().map(|&(at, len)| at + len).max().expect("code");
    let names_offset = names.offset as usize;
    assert!(names_offset < code_end, "the fixture's name table comes before its code");
    let shoff = u64::from_le_bytes(bytes[0x28..0x30].try_into().expect("8 bytes")) as usize;
    let size_at = shoff + 64 * shstrndx + 32;
    bytes[size_at..size_at + 8].copy_from_slice(&((code_end - names_offset) as u64).to_le_bytes());
    let mut rest = bytes.clone();
    for &(at, len) in &code {
        rest[at..at + len].fill(0);
    }
    // The header tables stay as they are.
    let shnum = usize::from(u16::from_le_bytes([bytes[0x3c], bytes[0x3d]]));
    rest[shoff..shoff + 64 * shnum].copy_from_slice(&bytes[shoff..shoff + 64 * shnum]);
    let options = LinkOptions::new(sm("sm_90"));
    let in_memory = link(&options, &[Input::new("calls_main.cubin", &bytes)]).expect_err("overlap").to_string();
    let source: &dyn CodeSource = &bytes;
    let elsewhere = link(&options, &[Input { name: "calls_main.cubin", bytes: &rest, code: Some(source) }])
        .expect_err("overlap")
        .to_string();
    assert_eq!(in_memory, elsewhere);
    assert!(
        in_memory.contains("(the section name table)") && in_memory.contains("overlaps the code of section #"),
        "{in_memory}"
    );
}

/// A section sharing file bytes with code (a hostile or damaged input: ptxas
/// never writes one) is refused, whether the code comes with the bytes or
/// from a source (`Input::code`), which would read it differently (found by
/// the `link` fuzz target: calls_lib's `.nv.callgraph` grown over both
/// `.text` sections).
#[test]
fn a_section_overlapping_code_is_refused() {
    let mut bytes = fixture("obj/sm_90/calls_lib.cubin");
    let cubin = develf_parse::Cubin::parse(&bytes).expect("the fixture parses");
    let callgraph = cubin.sections().iter().find(|s| s.name == ".nv.callgraph").expect("a call graph").index;
    let code_end = cubin.sections().iter().filter(|s| s.name.starts_with(".text.")).map(|s| s.offset + s.size).max();
    let shoff = u64::from_le_bytes(bytes[0x28..0x30].try_into().expect("8 bytes")) as usize;
    let size_at = shoff + 64 * callgraph + 32;
    let offset = cubin.sections()[callgraph].offset;
    let grown = code_end.expect("code") - offset;
    bytes[size_at..size_at + 8].copy_from_slice(&grown.to_le_bytes());
    let other = fixture("obj/sm_90/calls_main.cubin");
    let options = LinkOptions::new(sm("sm_90"));
    let error = link(&options, &[Input::new("calls_lib.cubin", &bytes), Input::new("calls_main.cubin", &other)])
        .expect_err("overlapping sections");
    let text = error.to_string();
    assert!(
        text.contains("calls_lib.cubin")
            && text.contains(".nv.callgraph")
            && text.contains("overlaps the code of .text."),
        "{text}"
    );
}

/// A NOBITS size near 2^64 (`shared_b`'s byte 0xfe flipped by 0xf6, with
/// `shared_a`'s byte 0xa1ff mod its length by 0xee; `-preserve-relocs -g`,
/// sm_90 exec): the program header's memory size saturates instead of
/// overflowing (found by the `link` fuzz target, a debug build's panic in
/// `write`). The link ends with a file or an error, not a panic.
#[test]
fn a_huge_nobits_size_does_not_overflow_the_load_segment() {
    let mut a = fixture("obj/sm_90/shared_a.cubin");
    let mut b = fixture("obj/sm_90/shared_b.cubin");
    let at = 0xa1ff % a.len();
    a[at] ^= 0xee;
    let at_b = 0xfe % b.len();
    b[at_b] ^= 0xf6;
    let mut options = LinkOptions::new(sm("sm_90"));
    options.preserve_relocs = true;
    options.debug = true;
    options.threads = 1;
    let result = std::panic::catch_unwind(|| {
        link(&options, &[Input::new("shared_a.cubin", &a), Input::new("shared_b.cubin", &b)]).map(|_| ())
    });
    assert!(result.is_ok(), "the link panicked");
}
