//! develf-link against nvlink 13.5 on every fixture link: each `linked` and
//! `relocatable-link` entry of `tests/fixtures/manifest.json` is linked with
//! develf from its committed inputs and options (read from its
//! `<name>.nvlink.cmd`) and compared with nvlink's committed output, never
//! with develf's own earlier output.
//!
//! ```sh
//! cargo test -p develf-link --test fixtures_vs_nvlink -- --nocapture
//! ```
//! prints, per arch and kind, how many links are byte-identical and how many
//! semantically equal, and the first difference of each failing link. The
//! asserted floors are the shares reached so far, so they cannot regress.

use develf_format::header::Arch;
use develf_link::{CodeSource, Input, LinkError, LinkOptions, OutputKind, compare, is_code_section, link};
use std::collections::BTreeMap;
use std::path::{Path, PathBuf};

fn fixtures() -> PathBuf {
    Path::new(env!("CARGO_MANIFEST_DIR")).join("../../tests/fixtures")
}

struct Case {
    path: String,
    kind: String,
    arch: String,
    inputs: Vec<String>,
    options: LinkOptions,
}

/// nvlink's options from its command line (`-arch=sm_90`, `-r`, `-g`, ...).
fn options_from_command(command: &str) -> Option<LinkOptions> {
    let words: Vec<&str> = command.split_whitespace().collect();
    let mut arch = None;
    let mut options = LinkOptions::new(Arch { sm: 0, accelerator: false });
    let mut i = 0;
    while i < words.len() {
        let w = words[i];
        if let Some(a) = w.strip_prefix("-arch=") {
            arch = Arch::parse(a);
        } else if w == "-arch" {
            i += 1;
            arch = words.get(i).and_then(|a| Arch::parse(a));
        } else if w == "-r" {
            options.output = OutputKind::Relocatable;
        } else if w == "-g" {
            options.debug = true;
        } else if w == "-preserve-relocs" {
            options.preserve_relocs = true;
        } else if let Some(k) = w.strip_prefix("-kernels-used=") {
            options.kernels_used = Some(k.split(',').map(str::to_string).collect());
        } else if w == "-o" {
            i += 1;
            options.output_name = words.get(i).map(|s| s.to_string()).unwrap_or_default();
        }
        i += 1;
    }
    options.arch = arch?;
    Some(options)
}

fn cases() -> Vec<Case> {
    let root = fixtures();
    let text = std::fs::read_to_string(root.join("manifest.json")).expect("manifest.json");
    let manifest: serde_json::Value = serde_json::from_str(&text).expect("manifest is JSON");
    let mut out = Vec::new();
    for e in manifest.as_array().expect("manifest is an array") {
        let kind = e["kind"].as_str().unwrap_or_default();
        if kind != "linked" && kind != "relocatable-link" {
            continue;
        }
        let path = e["path"].as_str().unwrap_or_default().to_string();
        let cmd_path = root.join(path.replace(".cubin", ".nvlink.cmd"));
        let command = std::fs::read_to_string(&cmd_path)
            .unwrap_or_else(|_| e["command"].as_str().unwrap_or_default().to_string());
        let options = options_from_command(&command).unwrap_or_else(|| panic!("no -arch in {}", cmd_path.display()));
        let inputs = e["inputs"]
            .as_array()
            .map(|a| a.iter().filter_map(|v| v.as_str()).map(str::to_string).collect())
            .unwrap_or_default();
        out.push(Case {
            path,
            kind: kind.to_string(),
            arch: e["arch"].as_str().unwrap_or_default().to_string(),
            inputs,
            options,
        });
    }
    out
}

fn run(case: &Case, threads: usize) -> Result<Vec<u8>, LinkError> {
    let root = fixtures();
    let bytes: Vec<Vec<u8>> = case.inputs.iter().map(|p| std::fs::read(root.join(p)).expect("input")).collect();
    let inputs: Vec<Input<'_>> = case.inputs.iter().zip(&bytes).map(|(name, b)| Input::new(name, b)).collect();
    let mut options = case.options.clone();
    options.threads = threads;
    link(&options, &inputs)
}

/// [`run`] with every input's code left out of its bytes (zeros there) and
/// read from a [`CodeSource`] instead, as `develf nvlink` reads files.
fn run_with_code_elsewhere(case: &Case) -> Result<Vec<u8>, LinkError> {
    let root = fixtures();
    let files: Vec<Vec<u8>> = case.inputs.iter().map(|p| std::fs::read(root.join(p)).expect("input")).collect();
    let without_code: Vec<Vec<u8>> = files
        .iter()
        .map(|bytes| {
            let mut copy = bytes.clone();
            let cubin = develf_parse::Cubin::parse(bytes).expect("fixture parses");
            for s in cubin.sections() {
                if is_code_section(s.sh_type, s.flags) {
                    let start = s.offset as usize;
                    if let Some(code) = copy.get_mut(start..start + s.bytes().len()) {
                        code.fill(0);
                    }
                }
            }
            copy
        })
        .collect();
    let inputs: Vec<Input<'_>> = case
        .inputs
        .iter()
        .zip(without_code.iter().zip(&files))
        .map(|(name, (bytes, file))| Input { name, bytes, code: Some(file as &dyn CodeSource) })
        .collect();
    link(&case.options, &inputs)
}

fn is_mercury(arch: &str) -> bool {
    arch.starts_with("sm_1")
}

#[derive(Default, Debug, Clone, Copy)]
struct Tally {
    links: usize,
    linked: usize,
    semantic: usize,
    identical: usize,
    /// Not equal because nvlink's Mercury finaliser re-generated a `.text`
    /// from its capsule (rule 11.3; still counted as not equal).
    rewritten: usize,
}

/// The first `.text.<fn>` whose instruction sequence nvlink's Mercury
/// finaliser changed (rule 11.3): present in both outputs with a different
/// list of opcodes (the low 12 bits of each 128-bit instruction), i.e. it
/// added or removed instructions, which only re-running the finaliser on
/// the capsule reproduces. Operand and control-bit differences do not count.
fn finaliser_rewritten(ours: &[u8], theirs: &[u8]) -> Option<String> {
    let (a, b) = (develf_parse::Cubin::parse(ours).ok()?, develf_parse::Cubin::parse(theirs).ok()?);
    let opcodes = |bytes: &[u8]| -> Vec<u16> {
        bytes.chunks_exact(16).map(|i| u16::from_le_bytes([i[0], i[1]]) & 0xfff).filter(|&op| op != 0x918).collect()
    };
    a.sections().iter().filter(|s| s.name.starts_with(".text.")).find_map(|s| {
        let t = b.sections().iter().find(|t| t.name == s.name)?;
        (opcodes(s.bytes()) != opcodes(t.bytes())).then(|| s.name.to_string())
    })
}

#[test]
fn fixtures_match_nvlink() {
    let mut table: BTreeMap<(String, String), Tally> = BTreeMap::new();
    let mut by_group: BTreeMap<&str, Tally> = BTreeMap::new();
    let mut failures = Vec::new();
    let all = cases();
    assert!(!all.is_empty());
    for case in &all {
        let theirs = std::fs::read(fixtures().join(&case.path)).expect("nvlink output");
        let group = if is_mercury(&case.arch) { "merc" } else { "non-merc" };
        let t = table.entry((case.arch.clone(), case.kind.clone())).or_default();
        let g = by_group.entry(group).or_default();
        t.links += 1;
        g.links += 1;
        match run(case, 0) {
            Err(e) => failures.push(format!("{}: link failed: {e}", case.path)),
            Ok(ours) => {
                if let Some(dir) = std::env::var_os("DEVELF_LINK_DUMP") {
                    let out = Path::new(&dir).join(case.path.replace('/', "__"));
                    let _ = std::fs::write(out, &ours);
                }
                t.linked += 1;
                g.linked += 1;
                let c = compare(&ours, &theirs);
                if c.byte_identical {
                    t.identical += 1;
                    g.identical += 1;
                }
                if c.semantic_differences.is_empty() {
                    t.semantic += 1;
                    g.semantic += 1;
                    if !c.byte_identical {
                        let at = ours.iter().zip(&theirs).position(|(a, b)| a != b).unwrap_or(0);
                        failures.push(format!("{}: semantically equal, bytes differ from {at:#x}", case.path));
                    }
                } else if let Some(text) = finaliser_rewritten(&ours, &theirs).filter(|_| is_mercury(&case.arch)) {
                    t.rewritten += 1;
                    g.rewritten += 1;
                    failures.push(format!("{}: finaliser-rewritten (rule 11.3): {text}", case.path));
                } else {
                    failures.push(format!("{}: {}", case.path, c.semantic_differences[0]));
                }
            }
        }
    }
    println!(
        "{:<8} {:<17} {:>5} {:>7} {:>9} {:>10} {:>10}",
        "arch", "kind", "links", "linked", "semantic", "identical", "rewritten"
    );
    for ((arch, kind), t) in &table {
        println!(
            "{arch:<8} {kind:<17} {:>5} {:>7} {:>9} {:>10} {:>10}",
            t.links, t.linked, t.semantic, t.identical, t.rewritten
        );
    }
    for (group, t) in &by_group {
        println!(
            "{group}: {} links, {} linked, {} semantically equal, {} byte-identical, {} finaliser-rewritten",
            t.links, t.linked, t.semantic, t.identical, t.rewritten
        );
    }
    for f in &failures {
        let short: String = f.chars().take(400).collect();
        println!("  {short}");
    }
    let non_merc = by_group.get("non-merc").copied().unwrap_or_default();
    let merc = by_group.get("merc").copied().unwrap_or_default();
    // Floors: the shares reached so far (see the crate README).
    assert!(non_merc.linked >= FLOOR_NON_MERC_LINKED, "non-merc links that succeed: {}", non_merc.linked);
    assert!(non_merc.semantic >= FLOOR_NON_MERC_SEMANTIC, "non-merc semantically equal: {}", non_merc.semantic);
    assert!(non_merc.identical >= FLOOR_NON_MERC_IDENTICAL, "non-merc byte-identical: {}", non_merc.identical);
    assert!(merc.linked >= FLOOR_MERC_LINKED, "merc links that succeed: {}", merc.linked);
    assert!(merc.semantic >= FLOOR_MERC_SEMANTIC, "merc semantically equal: {}", merc.semantic);
    assert!(merc.identical >= FLOOR_MERC_IDENTICAL, "merc byte-identical: {}", merc.identical);
}

/// 758 non-merc links (sm_75..sm_90a, exec and -r), all byte-identical
/// (session 31: wun sm_75/sm_90, exec and `-r`, rule 12.1's unnamed weak
/// variables in the common area's list; eorder and eorder-relink sm_90,
/// exec and `-r`, rule 7.2's appended records in their callee's order;
/// gkeep and gkeep-relink-g sm_75/sm_90, exec and `-r`, rule 12.1's empty
/// windows of a relinked `-r -g` output;
/// session 26: gxshr and gxshr-relink-g sm_75/sm_90, exec and `-r`, rule
/// 12.10's extern shared symbol in a relinked `-G` object's `.debug_info`;
/// dshvar sm_75/sm_90, exec and `-r`, rule 12.3's `.nv_debug.shared`
/// variables beside extern memory;
/// session 22: xinst and xinst-relink sm_75/sm_90, exec and `-r`, rule
/// 12.8.1's extern instances that are not powers of two; session 21: cbrel, cbrel-relink, cbgrel and cbgrel-relink sm_75/sm_86,
/// exec and `-r`, rule 6.1's relinked function banks; mbo, mbo-rev, mbo-only and mbo-zero sm_80/sm_90, exec and
/// `-r`, rule 7.2's appended NUM_MBARRIERS; rcrepl sm_90, exec and `-r`, the REGCOUNT a replaced copy's
/// calls bring; frp, frp-lost and frp-line sm_80/sm_90, exec and `-r`, rule
/// 9.13's replaced copies' debug relocations decided per name; cbrepl sm_75/sm_86, exec and `-r`, rule 6.1's replaced
/// copy's bank held in the kernels' banks; session 20: nbo and nbo-rev sm_75/sm_90, exec and `-r`, rule 7.2's order
/// of appended EXTERNS and NUM_BARRIERS by input; wsv sm_75/sm_90, exec and `-r`, rule 12.1's weak shared
/// variable laid out through a replacing copy; gln and gln-kfirst sm_86/sm_90, exec and `-r`, rule 9.13's
/// line-table relocations of replaced copies, kept or dropped by the link's
/// first line-table relocation section; wic sm_86/sm_90, exec and `-r`, rule 9.13's replaced copy's
/// indirect call site and `.rel.debug_frame` relocation; session 20: shc sm_75/sm_90, exec and `-r`, rule 12.1's common area
/// largest first and in a fixed order; wnb sm_75/sm_90, exec and `-r`, rule 9.15's dropped
/// `.nv.global` of losing weak data; xurepl sm_86/sm_90, exec and `-r`,
/// rule 7.2.1's EXTERNS of a replacing weak copy; session 15: shroom, shroom-a and their relinks sm_75/sm_90, rules 12.8
/// and 12.9's rooms; dshkeep, its relink and dshdrop, rule 12.8's
/// relinked `.nv_debug.shared`; session 14: launch sm_75/sm_90, exec and `-r`, rule 7.2's CTAIDZ_USED
/// from a callee; sumloop on every target; session 13: xcallee, exec and `-r`, rule 12.3's room for a kernel
/// reaching extern memory only through a device function)
/// (session 19: wcbank and wcbank-rev sm_75/sm_86, exec and `-r`, rule
/// 6.1's losing function banks behind the winner's;
/// indir and indir-relink, sm_75/sm_90, since indirect calls reach
/// address-taken functions, rules 7.1, 9.11, 12.1, 12.8; the three
/// `shared-relink` ones since the null symbol's value, rule
/// 12.9; cbank exec since device functions' bank 2 is merged, U25; the
/// four `ghelp-G` ones, -G helpers in both inputs, rule 1.4; shpriv, U28;
/// stackw, rule 7.1's recursion; tlib, tlib-repl, ginit and cxt, rule 9.13;
/// tlib-li and its relink, rule 1.3's debug sections; ginit-mixed-abi and
/// cxt-mixed-abi, rule 10's 0x66 record; tlib-mixed-abi and tlib-repl-mixed-abi,
/// rule 7.8's prototype order and signatures; ginit-abi7, rule 10's ABI-7-only
/// `.nv.compat`; a7bar-mixed-abi and its relink, rules 10 and 12.1; rgds,
/// sm_75/sm_90, the `-g` group whose `-r` output options/commands.txt relinks;
/// eo_a and eo_b, sm_75/sm_86/sm_90, likewise for rule 12.8; nbex-G sm_86,
/// rule 7.2's NUM_BARRIERS before an appended EXTERNS; sco and sco-dbl
/// sm_86/sm_90, rule 12.1's overlapping common variables; vsm sm_86/sm_90,
/// rule 9.14's newer PTX; a7x-mixed-abi, a7x-e16-mixed-abi and
/// a7x-e128-mixed-abi sm_75/sm_90, rule 12.3's ABI-7 externs; gnof-G
/// sm_75/sm_90, rule 1.3's debug sections of a function-less `-G` object;
/// ginit-abi7-relink sm_75/sm_90, exec and `-r`, rule 10's `.nv.compat`
/// records of an ABI-7 input next to a `-r` output; ucs-G sm_90, exec and
/// `-r`, rule 5.7's merged `.nv.ptx.const0.size`; a7nb-mixed-abi and
/// a7nb2-mixed-abi sm_75/sm_90, rule 10's barrier count of an ABI-7 kernel;
/// nbraise, nbonly-g and nbraise2-g, rule 7.2's raised and only-kernel
/// NUM_BARRIERS; gnof-only-G and gnof-calls-G sm_75/sm_90);
/// 332 merc links (session 22: gcc sm_100/sm_120, exec and `-r`, rule 11.3's
/// store read barrier on the barrier it waits on; session 21: cgsb sm_100/sm_120, exec and `-r`, rule
/// 336 merc links (session 22: jtrel and jtrel-relink sm_100/sm_120, exec
/// and `-r`, U25's jump-table relocations of a relinked `-r` output in input
/// order; session 21: cgsb sm_100/sm_120, exec and `-r`, rule
/// 11.3's scoreboards of a kernel with `WARPSYNC.COLLECTIVE` regions and
/// `NANOSLEEP`; tmst-g sm_100/sm_120, exec and `-r`, rule
/// 11.9's `EXIT` keeping its wait on an `UTMASTG`'s read barrier; tcg sm_100a, exec and `-r`, U27's reserved
/// shared variable in `tcgen05` code; clel-g sm_100/sm_120, exec and `-r`, rule
/// 11.9's capsule numbering of collective regions; fva sm_100/sm_120, exec and `-r`, rule
/// 11.3's fence workaround before a `FENCE.VIEW.ASYNC.S` in a kernel with
/// a `DEPBAR`; fva-g sm_100/sm_120, exec and `-r`, rule 11.9's `EXIT`
/// keeping its wait on an `UBLKRED`'s read barrier; session 20: wfd sm_100/sm_120 and wfd-leaf sm_100, exec
/// and `-r`, rule 11.2.1's rewritten FDEs of a replaced weak copy; rta-G and rta-rev-G sm_100/sm_120, exec and
/// `-r`, rule 3.2's merc debug copy aliased in every input; nbo and nbo-rev sm_100, exec and `-r`, rule
/// 7.2's appended records by input; wic sm_100, exec and `-r`, rule 9.13's
/// replaced copy's indirect call site; wsv sm_100, exec and `-r`, rule
/// 12.1's weak shared variable; session 20: wnb and xurepl sm_100/sm_120, shc sm_100,
/// exec and `-r`, rules 9.15, 7.2.1 and 12.1; session 18: sbstride sm_100/sm_120, exec and `-r`, rule
/// 11.3's wait for barrier reuse moved to where the store's registers are
/// overwritten; session 17: sbshare sm_100, exec and `-r`, rule 11.3's
/// groups waited for together; gxfptr sm_100, exec and `-r`, rule
/// 11.8's barriers for a kernel calling through a register; gxsurf sm_100
/// and gxsurf-g sm_100/sm_120, exec and `-r`, rules 11.8 and 11.9 for
/// surface writes; session 16: macinfo and macinfo-g sm_100/sm_120,
/// exec and `-r`, rule 3.2's `.debug_macinfo` alias; gxkeep sm_100, exec
/// and `-r`, rule 11.8's exit barriers where the model declines and the
/// stack-pointer load holds no scoreboard; session 15: shroom, shroom-a and their relinks
/// sm_100/sm_120, rule 12.9's null symbol; dshkeep, its relink and
/// dshdrop; msigrev, rule 4.3's order of one
/// function's indirect-call signatures; session 14: cluster-g sm_100/sm_120, exec and `-r`,
/// rule 11.9's cluster-sync capsule numbering; sumloop and sumloop-g on sm_107, exec and
/// `-r`, rule 7.2's record 0x67; launch sm_100, exec and `-r`; sumloop
/// sm_100/sm_100a/sm_120, exec and `-r`: rule 11.3's waits on the
/// stack-pointer load's barrier at instructions not reading `R1`, the CAS's
/// and a read-setting `LDG`'s barrier order; sumloop-g sm_100/sm_120, exec
/// and `-r`: rule 11.9's `EXIT` wait kept past a join, the moved
/// ATOM16_EMUL_INSTR_REG_MAP offsets; session 13: xcallee sm_100/sm_100a/sm_120, exec and
/// `-r`, rule 12.3's room for a kernel reaching extern memory through a
/// callee; gsync-g and dsetp-g sm_100/sm_120 and
/// nbraise2-g sm_100/sm_100a/sm_120, exec and `-r`: rule 11.9's grid-sync
/// capsule numbering and `DSETP` waits; session 12: nbraise, nbonly-g, gnof-only-G and
/// gnof-calls-G on sm_100, rule 11's empty `.rela.debug_info` and merc
/// aliases, and msl, rule 4.3's creation-rank signature order; mdbg-G, mdbg-lineinfo and mdbg-lineinfo-swap on sm_100, rule 11.8;
/// shpriv; jtab sm_100/sm_120, exec and `-r`, since U25's jump tables;
/// gxmix and gxnocall sm_100, exec and `-r`: rule 11.8's exit sequences; sbreuse and
/// sbshfl sm_100/sm_120, exec and `-r`; stackw sm_100; ginit, cxt
/// sm_100, exec and `-r`; tmacl and sbimad sm_100/sm_120, exec and `-r`:
/// rule 11.3's waits from instructions that do not read `R1`; b2r
/// sm_100/sm_120, exec and `-r`: rule 11.7's count without `B2R.RESULT`;
/// tlib sm_100, exec and `-r`; cubr sm_100/sm_120, exec and `-r`: rule
/// 11.3's read barrier taken by the `LDS` that waits for it; nbex-G sm_100; msig
/// sm_100/sm_120, exec and `-r`: rule 4.3's signatures in call-graph order;
/// gnof-mdbg-G sm_100, exec and `-r`: rule 1.3's debug sections; sbloop
/// sm_100, exec and `-r`: rule 11.3's stack-pointer load's group in ptxas's
/// numbering, judged where it is still waited on; atomref sm_100/sm_120,
/// exec and `-r`: rule 11.3's fence-workaround capsule count without a
/// predicated `CCTL.IVALL`; ucs-G sm_100, exec and `-r`: rule 5.7's merged
/// `.nv.ptx.const0.size`; gsf sm_100/sm_120 exec: rule 11.3's `BPT.TRAP`
/// and a grid sync's fence capsule; jtrel-pr sm_100/sm_120, exec and `-r`:
/// rule 11.7's capsule fields of a merged function bank under
/// `-preserve-relocs`, and the option in the derived tkinfo command line;
/// fshape sm_100/sm_120 exec: rule 11.3's workaround before `MEMBAR.SC.CTA`,
/// a dropped capsule mark and a generic `ATOM`'s barrier; gxfence sm_100,
/// exec and `-r`: exit rewrites and the fence-workaround removal together;
/// gsync2-g sm_100/sm_120, exec and `-r`: rule 11.9's grid-sync capsule
/// numbering without the `ATOM.E` after a `CGAERRBAR`; capal-g sm_100/sm_120,
/// exec and `-r`: exits numbered by aligning the code with the capsule's
/// bitmap, `capsule_align`; capwarp-g sm_100/sm_120, exec and `-r`: the
/// same for a kernel with `clock64`, calls and `__syncwarp`, sm_100;
/// mcord-relink sm_100/sm_120 `-r`: a relinked `-r` output's merc banks in
/// the order of the banks they copy; sbstraight sm_100/sm_120, exec and
/// `-r`: a load's write barrier searched from 2 when its read barrier is
/// waited on first, `scoreboard::read_waited_first`; session 26: gxshr and
/// gxshr-relink-g sm_100/sm_120, exec and `-r`; gunused-g sm_100/sm_120,
/// exec and `-r`: `EIATTR_UNUSED_LOAD_BYTE_OFFSET` moved by `-g`'s error
/// barriers, rule 11.8; gatomret sm_100/sm_120, exec and `-r`: an `ATOMG`
/// returning a value searches from 2, rule 11.3; ghalfatom sm_100/sm_120,
/// exec and `-r`: a load whose write is waited on at a loop head is not in
/// straight-line code, rule 11.3; dshvar sm_100/sm_120, exec and `-r`;
/// gpress sm_100/sm_120, exec and `-r`: producers ptxas pressed onto one
/// barrier kept together where their wait reads them all, rule 11.3;
/// session 27: shsort on all four targets, exec and `-r`: private shared
/// variables in the order of nvlink's unstable sort, rule 12.1; gsplit
/// sm_100/sm_120, exec and `-r`: a pressed group of loads split, rule 11.3;
/// fbr and fbr-relink sm_75/sm_86, exec and `-r`: device functions' banks
/// placed in input order, U25; fbend sm_75/sm_86, exec and `-r`: a
/// function's bank at the largest end of its kernels' banks, U25; wfc
/// sm_75/sm_86, exec and `-r`: banks placed by each function's first copy,
/// U25; rsu sm_80/sm_90 (and sm_100 below), exec and `-r`: a callee's
/// RESERVED_SMEM_USED appended to its kernels, rule 7.2; fbo and fbo-relink
/// sm_75/sm_86, exec and `-r`: functions' banks placed last bank first,
/// U25; gatomf and gloop sm_100/sm_120, exec and `-r`: a `float`
/// `atomicAdd` and a load waited for at a loop head search from 5, rule
/// 11.3; mcu and mcu-relink sm_120, exec and `-r`: merc banks in their
/// banks' order in an executable, rule 11.1; glea sm_100/sm_120, exec and
/// `-r`: a `LEA` reading `R0` is no use of the stack, rule 11.3; pku
/// sm_75/sm_90/sm_100 exec: windows of kept unselected kernels under
/// `-preserve-relocs -kernels-used`, rule 9.6; pun-pr, pun-ku, pun-g exec:
/// variables no kernel reaches at 0 in `.nv_debug.shared`, rule 12.10; pux
/// `-r` sm_75/sm_90: `.nv_debug.shared` grown by the extern alignment at
/// equality, rule 12.3; pux-pr, pux-ku sm_90 exec: extern relocations of
/// code no kernel reaches listed, rule 12.10; pux-g: their offset under
/// `-g`; afbo-relink exec: a relinked kernel's EXTERNS in `.nv.info` order,
/// rule 7.2; xshma-relink-g exec: `.nv_debug.shared` aligned by the extern's
/// value under `-g`, rule 12.10; eqx-relink, eqx-rev-relink exec: an empty
/// `.nv_debug.shared` dropped when kernels name instances, rule 12.8; dsh128
/// exec: the pool aligned past 16 drops the empty `.nv_debug.shared` and
/// windows, rules 12.2/12.9, session 32; dsh128-pr exec: a 128-aligned
/// extern aligns `.nv_debug.shared` under `-preserve-relocs` as under `-g`,
/// rule 12.10; kuweak-ku `-r`: an unselected weak kernel whose later copy
/// wins leaves no `.nv.shared.<k>` name, rule 9.6, session 34; kul-relink-ku
/// exec: the windows of launched kernels the lists do not reach come with
/// the removed kernels', sm_90 without the reserved area, rule 9.2;
/// czo-relink exec sm_75: a relinked kernel's appended CTAIDZ_USED and
/// EXTERNS in their first contributors' `.nv.info` order, rule 7.2; pkb exec: under
/// `-preserve-relocs -kernels-used` the unselected kernels' windows are named
/// before the selected kernel's new bank 2, rule 9.6 with U25, session 35;
/// rrm-relink exec and `-r`: a relinked `-r` output's extern room stays with
/// a weak kernel a later copy replaces, and the replaced copy's bank 2 gets
/// no `.rel` name, U13; gkeep2-relink-g exec: a `-g` relink keeps every
/// room, empty, when the `-r -g` output defined an extern past 0, rule 12.9,
/// session 36; cznb exec: an appended CTAIDZ_USED after a NUM_BARRIERS
/// whose first contributor comes first, rule 7.2; gkeep4-relink-g exec: not
/// when the extern aligns every window past 16, gkeep5-relink-g exec: nor
/// without a common area, whose absence also leaves `.nv_debug.shared`
/// 16-aligned, rules 12.9 and 12.10, session 37; pkw exec: unselected
/// kernels' windows from a list with one copy of each weak array, private
/// arrays' kernels first, an extern-only one kept empty and 16-aligned,
/// rule 9.6; wcp exec: a weak array listed where its first copy is, rule
/// 12.1, session 38; xsa exec, `-r`, `-g` and relinked: a 256-aligned
/// device-function static aligning extern memory's windows and `-r`
/// sections, rules 12.1, 12.3, 12.10; cba exec: shared function-bank
/// alignment, U25; rxi-relink exec: a relinked instance beside a real
/// extern, rule 12.8; ulw: U9 beside a static of the same name; wlb `-r`:
/// a lost copy's bank-2 local, rule 5.6; cbe exec: bank ends aligned,
/// U25; fadr exec: an address taken is not a call, rules 7.2 and 12.1,
/// session 39; kul-relink-ku2 exec: late windows of launched kernels with
/// two selected, rule 9.2; kupn-ku-rev exec: `.nv_debug.shared` keeps the
/// extern's alignment; a7fb-abi7, a7fb-mixed-abi exec: ABI-7 callees'
/// barrier counts and the 0x66 record's place, rule 10; a7rp `-r`, a7rp-g
/// `-r -g`: ABI-7 externs beside a 16-aligned pool, rule 12.3;
/// a7fb-relink-mixed(-rev) sm_90: `.nv.compat` without ISA_CLASS, rule 10;
/// gkp16-relink-g, gkp4-relink exec and `-r`: a relinked `-r -g` output's
/// externs beside a 16- or 4-aligned pool, rule 12; pun-pr-relink(-pr)
/// exec and `-r`: a `-preserve-relocs` output's resolved relocations are
/// not carried, rule 8.2; a7rp-relink `-r`: an ABI-7 `-r` output's extern
/// user relinked gets two units of room, rule 12.3, session 41; a7dx `-r`:
/// an ABI-7 extern reached only through a device function, no section,
/// rule 12.3, session 43; a7mb-mixed-abi exec: the 0x66 record against an
/// appended NUM_MBARRIERS, rule 10, session 45; session 46: c2l exec,
/// kernels' banks 2 in the reverse of the call graph's node order, rule
/// 6.1; a7bo-mixed-abi exec, the 0x66 record against an appended
/// NUM_BARRIERS, rule 10; a7es-mixed-abi exec, no empty windows beside
/// ABI-7 externs and an 8-aligned pool, rxs exec and `-r`, externs of three
/// alignments, rule 12.3).
const FLOOR_NON_MERC_LINKED: usize = 1060;
const FLOOR_NON_MERC_SEMANTIC: usize = 1060;
const FLOOR_NON_MERC_IDENTICAL: usize = 1060;
const FLOOR_MERC_LINKED: usize = 730;
/// Mercury (rule 11, crate::mercury): every link (sync exec since the
/// fence-workaround removal, rule 11.3, `errbar::plan_fence`): ptx `-r` since the
/// capsule constant immediates (11.7), ptx exec since the merc texture
/// tables (11.5), ptx-const since local `.nv.constant3` symbols (5.5),
/// the mdbg groups (exec and `-r`) since the Mercury debug-info
/// rules (11.8), jtab exec since device functions' jump tables go into
/// their kernels' bank 2 (U25, rule 6.1), gxmix (exec and `-r`) since the
/// exit sequences of links with a `-G` input (rule 11.8), sbreuse (exec: the
/// finaliser's scoreboard re-allocation, rule 11.3, `scoreboard.rs`; sbtog
/// since a load keeps the barrier of the group its reader waits for with
/// it, fence2 and fence2-o1 since later fences lose their `MEMBAR.ALL.CTA`,
/// sbbssy since a `BSSY` is no branch for `read_waited_first`, sbjoin since
/// write groups pending at a join share a barrier, gsldc (`-r`) since a grid
/// sync's capsule counts its vector workspace load, jtg-g since `-g` moves
/// a `switch`'s jump table, spg-g since it moves spill annotations, eorder and
/// eorder-relink since a callee's appended records keep its order, session
/// 31; casrz since a CAS returning nothing searches from 5, pux `-r` since
/// `.nv_debug.shared` grows at equality, sbrlate since a load group's later
/// read barrier waited after its write does not make it search from 5,
/// afbo-relink since EXTERNS follow `.nv.info` order, tmab-g since an `EXIT`
/// keeps its wait on a bulk tensor load, xshma-relink-g since an extern's
/// value aligns `.nv_debug.shared` under `-g`, eqx-relink and eqx-rev-relink
/// since instances count as defined externs, wrel (exec and `-r`) since a
/// replaced weak copy's empty merc relocation section goes, dsh128 since an
/// over-aligned pool drops empty windows, session 32; wfp sm_120 (exec and
/// `-r`) since no frame row is added past the winner's Mercury code,
/// sbldg (exec) since a global load read at its group's wait with a
/// constant load stays on one barrier with it, session 33; sbhoist (exec)
/// since the stack-pointer load's barrier waited at a CAS loop's `LDS` is
/// still held there, sbjoin5 (exec) since a global load pending at a join
/// searches from 5, sbexit (exec) since an `EXIT` and a 32-bit `IADD` read no
/// stack pointer, dsh128-pr (exec) since a 128-aligned extern aligns
/// `.nv_debug.shared` under `-preserve-relocs`, session 34; kul-relink-ku
/// (exec) since a launched kernel's window comes with the removed kernels',
/// pkb (exec) since unselected kernels' windows come before a new bank 2,
/// session 35; wtf (exec and `-r`) since a texture fetch's waterfall
/// set-ups are left out of the capsule numbering, sbmm (exec) since
/// never-awaited read barriers, `PLOP3` waits and shared counts are
/// modelled, sbdbl (exec sm_100) since the register tables know `DSETP`
/// and a pressed `DFMA` group is split, sbpr (exec) since a pressed load
/// takes its own read barrier's, session 36; sbfwd (exec) since a wait
/// reached again only round a loop's back edge frees the barrier, sbbvh
/// (exec) since a load group with plain loads after a read-barrier load
/// searches from 2 and never-waited pressed groups stay whole, sbtri
/// (exec) since a read barrier pressed onto its own group stays with it,
/// sbbru (exec) since a uniform branch's wait is no use of the stack,
/// session 37; pkw (exec) since unselected kernels' windows follow a list
/// with one copy of each weak array, wcp (exec) since a weak array is
/// listed where its first copy is, session 38; xsa since the pool's
/// alignment counts for extern memory, rxi-relink and fadr, session 39;
/// kul-relink-ku2, kupn-ku-rev, wcp-pr and lrz (exec) since a dead local
/// function first of its name keeps its register ranges, session 41;
/// sbstk (exec) since a kernel using its stack keeps ptxas's scoreboards
/// when a `-G` input adds error barriers, rxs sm_100 (exec and `-r`),
/// session 46; sbbsync (sm_100 and sm_120, exec and `-r`) since two groups
/// pending at a `BSYNC` interfere, session 48).
const FLOOR_MERC_SEMANTIC: usize = 730;
const FLOOR_MERC_IDENTICAL: usize = 730;

#[test]
fn output_does_not_depend_on_thread_count() {
    for case in cases().iter().filter(|c| c.arch == "sm_90" || c.arch == "sm_100").take(12) {
        let one = run(case, 1).map_err(|e| e.to_string());
        let four = run(case, 4).map_err(|e| e.to_string());
        assert_eq!(one, four, "{}: threads 1 and 4 differ", case.path);
    }
}

/// No phase reads code from an input's bytes but through its code source:
/// every fixture link gives the same bytes (or the same error) either way.
#[test]
fn code_read_from_its_source_gives_the_same_output() {
    for case in cases() {
        let in_memory = run(&case, 0).map_err(|e| e.to_string());
        let elsewhere = run_with_code_elsewhere(&case).map_err(|e| e.to_string());
        assert!(in_memory == elsewhere, "{}: code read from its source changes the output", case.path);
    }
}

/// `a` and `b` linked twice: held in memory, and with their code sections
/// zeroed in `bytes` and read from a [`CodeSource`] (as `develf nvlink`
/// reads files). The fuzz target asserts the two agree.
fn linked_both_ways(options: &LinkOptions, a: &[u8], b: &[u8]) -> (Result<Vec<u8>, String>, Result<Vec<u8>, String>) {
    let in_memory = link(options, &[Input::new("a.cubin", a), Input::new("b.cubin", b)]).map_err(|e| e.to_string());
    let zeroed = |bytes: &[u8]| {
        let mut copy = bytes.to_vec();
        for s in develf_parse::Cubin::parse(bytes).expect("parses").sections() {
            if is_code_section(s.sh_type, s.flags) {
                let start = s.offset as usize;
                copy[start..start + s.bytes().len()].fill(0);
            }
        }
        copy
    };
    let (a_code, b_code) = (a.to_vec(), b.to_vec());
    let (a_rest, b_rest) = (zeroed(a), zeroed(b));
    let inputs = [
        Input { name: "a.cubin", bytes: &a_rest, code: Some(&a_code as &dyn CodeSource) },
        Input { name: "b.cubin", bytes: &b_rest, code: Some(&b_code as &dyn CodeSource) },
    ];
    (in_memory, link(options, &inputs).map_err(|e| e.to_string()))
}

/// A fuzz finding (session 10): `e_shstrndx` changed to name a code
/// section. Names read from it differed between an input held in memory and
/// one whose code is read from its source (zeroed in `bytes`), so the two
/// links differed; the parser now takes names from a string table only.
#[test]
fn a_name_table_that_is_code_names_the_same_from_its_source() {
    let root = fixtures();
    let read = |name: &str| std::fs::read(root.join(format!("obj/sm_100/{name}.cubin"))).expect("fixture");
    let (mut a, mut b) = (read("mdbg_b-lineinfo"), read("jtab_b"));
    a[0x3e] ^= 0x17;
    b[0xc1] ^= 0x04;
    let cubin = develf_parse::Cubin::parse(&a).expect("parses");
    let names_at = usize::from(u16::from_le_bytes([a[0x3e], a[0x3f]]));
    let table = cubin.sections().get(names_at).expect("e_shstrndx names a section");
    assert!(is_code_section(table.sh_type, table.flags), "the flip points e_shstrndx at code");
    let mut options = LinkOptions::new(Arch::parse("sm_100").expect("arch"));
    options.output = OutputKind::Relocatable;
    options.preserve_relocs = true;
    let (in_memory, elsewhere) = linked_both_ways(&options, &a, &b);
    assert!(in_memory == elsewhere, "names read from a code section change with where the code is read from");
}

/// The fuzz target's finding (session 9): a damaged input whose
/// `.debug_line` is flagged SHF_EXECINSTR counts as code, which `develf
/// nvlink` leaves out of its buffer; Mercury's line-table rules read it
/// from the source all the same, so the output does not depend on where the
/// bytes come from.
#[test]
fn a_line_table_flagged_as_code_reads_the_same_from_its_source() {
    let root = fixtures();
    let read = |name: &str| std::fs::read(root.join(format!("obj/sm_100/{name}.cubin"))).expect("fixture");
    let (mut a, mut b) = (read("mdbg_a-lineinfo"), read("mdbg_b-lineinfo"));
    // The artifact's byte flips: `.debug_line`'s sh_flags become 0x3e
    // (SHF_EXECINSTR among them), a `.text.` name loses its `x`, and a few
    // other bytes of both inputs change.
    for (at, flip) in [(0x23e, 0x3e), (0x9df, 0x5e), (0x3e3e, 0x3e)] {
        a[at] ^= flip;
    }
    for (at, flip) in [(0x29c4, 0x25), (0x29da, 0x3e)] {
        b[at] ^= flip;
    }
    let cubin = develf_parse::Cubin::parse(&a).expect("parses");
    let line = cubin.sections().iter().find(|s| s.name == ".debug_line").expect("a .debug_line");
    assert!(is_code_section(line.sh_type, line.flags), "the flip makes `.debug_line` code");
    let mut options = LinkOptions::new(Arch::parse("sm_100").expect("arch"));
    options.output = OutputKind::Relocatable;
    options.debug = true;
    options.preserve_relocs = true;
    let (in_memory, elsewhere) = linked_both_ways(&options, &a, &b);
    assert!(in_memory.is_ok(), "{in_memory:?}");
    assert!(in_memory == elsewhere, "a line table read from its source changes the output");
}

/// The fuzz target's second finding (session 9): under `-g` on Mercury the
/// inputs are rewritten first (rule 11.9); a damaged input is not, so the
/// error names the user's file as it is (its size included), in memory and
/// with its code read from the source alike.
#[test]
fn a_damaged_input_is_reported_as_given() {
    let root = fixtures();
    let mut b = std::fs::read(root.join("obj/sm_100/mdbg_b-lineinfo.cubin")).expect("fixture");
    let a = std::fs::read(root.join("obj/sm_100/mdbg_a-lineinfo.cubin")).expect("fixture");
    let cubin = develf_parse::Cubin::parse(&b).expect("parses");
    let frame = cubin.sections().iter().find(|s| s.name == ".nv.merc.debug_frame").expect("a merc frame").index;
    let shoff = u64::from_le_bytes(b[0x28..0x30].try_into().expect("8 bytes")) as usize;
    b[shoff + frame * 64 + 24..shoff + frame * 64 + 32].copy_from_slice(&0x7600_1b48u64.to_le_bytes());
    let mut options = LinkOptions::new(Arch::parse("sm_100").expect("arch"));
    options.debug = true;
    let err = link(&options, &[Input::new("a.cubin", &a), Input::new("b.cubin", &b)]).expect_err("damaged");
    let text = err.to_string();
    assert!(text.contains(&format!("runs past the end of the {}-byte file", b.len())), "{text}");
}

#[test]
fn undefined_symbol_is_a_clear_error() {
    // calls_main alone calls lib_fibi and lib_scalei, which only calls_lib defines.
    let root = fixtures();
    let main = std::fs::read(root.join("obj/sm_90/calls_main.cubin")).expect("calls_main");
    let options = LinkOptions::new(Arch::parse("sm_90").expect("arch"));
    let err = link(&options, &[Input::new("calls_main.cubin", &main)]).expect_err("must fail");
    let text = err.to_string();
    assert!(matches!(err, LinkError::UndefinedSymbols(_)), "{text}");
    assert!(text.contains("`lib_fib(int)`"), "demangled name missing: {text}");
    assert!(text.contains("_Z7lib_fibi"), "mangled name missing: {text}");
    assert!(text.contains("calls_main.cubin (.text._Z16calls_fib_kernelPii)"), "referencing place missing: {text}");
    // -r leaves them undefined.
    let mut relocatable = options.clone();
    relocatable.output = OutputKind::Relocatable;
    assert!(link(&relocatable, &[Input::new("calls_main.cubin", &main)]).is_ok());
}

#[test]
fn arch_mismatch_and_garbage_are_errors() {
    let root = fixtures();
    let obj = std::fs::read(root.join("obj/sm_90/calls_lib.cubin")).expect("calls_lib");
    let options = LinkOptions::new(Arch::parse("sm_80").expect("arch"));
    let err = link(&options, &[Input::new("calls_lib.cubin", &obj)]).expect_err("sm_90 into sm_80");
    assert!(matches!(err, LinkError::ArchMismatch { .. }), "{err}");
    let options = LinkOptions::new(Arch::parse("sm_90").expect("arch"));
    for cut in [0, 10, 64, 200, obj.len() / 2] {
        let _ = link(&options, &[Input::new("cut.cubin", &obj[..cut])]);
    }
    // A code section said to run past the end of the file is an error, not
    // code read as zeros.
    let cubin = develf_parse::Cubin::parse(&obj).expect("parses");
    let text = cubin.sections().iter().find(|s| s.name.starts_with(".text.")).expect("a .text").index;
    let shoff = u64::from_le_bytes(obj[0x28..0x30].try_into().expect("8 bytes")) as usize;
    let mut long = obj.clone();
    let size_field = shoff + text * 64 + 32;
    long[size_field..size_field + 8].copy_from_slice(&(1u64 << 20).to_le_bytes());
    let err = link(&options, &[Input::new("long.cubin", &long)]).expect_err("section past the end");
    assert!(err.to_string().contains("runs past the end of the"), "{err}");
}
