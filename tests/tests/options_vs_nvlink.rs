//! Options that change which code survives, byte for byte against nvlink
//! 13.5 (tests/fixtures/options/commands.txt, run from tests/fixtures/):
//! `-kernels-used` matches substrings (rule 9: `-kernels-used=kernel` keeps
//! both `calls_kernel` and `calls_fib_kernel`), `-variables-used` alone
//! removes every kernel (rule 9.1); removed kernels' `.nv.shared.<k>` names,
//! undefined non-functions, empty `.nv.info`, losing weak FDEs (rules
//! 9.2-9.4) on sync, shared, fptr, ptx, managed, sys, ptx-const; spellings
//! (`--variables-used a,b`, repeated options, an empty `-kernels-used=`,
//! rule 9.5); `-g` turning dead-code elimination off (rule 9.7: debug-G,
//! calls, sys); merc line tables and signatures of removed code (rules 9.8,
//! 9.3: debug-lineinfo, sys on sm_100); `-g` on Mercury (rule 11.9: error
//! barriers before every `EXIT`; calls, sys, ptx, weak, managed, tex, shared,
//! debug-lineinfo (line tables), sync (fence sequences in capsules) on
//! sm_100/sm_120, exec and `-r`); a replaced weak copy's bank 2 whose
//! winner has none, placed empty in the reaching kernels' banks (U25 with U9:
//! cbg, sm_75/sm_86; exec only, nvlink's `-r` of it dies). `-preserve-relocs` (rule 8.2:
//! `.nv.resolvedrela.<target>`, no dead-code elimination) is checked on the
//! `options/*preserve-relocs*.nvlink.cmd` links, exec and `-r`. Mercury `.strtab`
//! signatures: every input's call-graph signatures before all prototype ones
//! (rule 4.3: `-r` of jtab_a or big_helper with fptr_ops on sm_100); `-g -r`
//! extern shared memory in the merc symtab (rule 11.9: xshm_dyn, sm_100/sm_120);
//! a removed `-G` kernel's shared variable in `.debug_info`, -1 + addend (rule
//! 12.10: mbar `-kernels-used`, sm_90); a kernel's own shared arrays smallest
//! first (U28: shorder, sm_90/sm_100); a host object with no code for the
//! target, the empty output nvlink still writes (rule 13.6: gencode's
//! `kernels.o` for sm_80/86/89/110/120/121a, exec, `-r`, `-g`); family
//! targets linked as their plain SM (`-arch=sm_100f`, `sm_103f -r`,
//! `sm_120f`); indirect calls and pointers in data in dead-code elimination
//! (rule 9.12: indir `-kernels-used`, sm_75/sm_90); `-g` executables of `-r`
//! and `-r -g` outputs (rule 12.4: rooms ignored, the outputs' externs kept;
//! indir, shared) and `-r -g` of a `-r` output (rule 12.9: rooms ignored,
//! externs at 0; indir); a replaced weak copy whose winner is dead names no
//! relocation section (rule 9.10: tlib-repl `-kernels-used`,
//! `-variables-used`, sm_75/sm_90; rule 9.13: the replaced copy's FDE range on
//! sm_75; rule 8.2: a replaced copy's `.nv.resolvedrela` at its place, tlib-repl
//! `-preserve-relocs` sm_75/sm_90); the only kernel's EXTERNS with what
//! earlier inputs' functions bring first (rule 7.2: sys reversed, sm_75,
//! sm_90, sm_100; tlib and tlib-repl `-kernels-used=tl_kernel_b`), and with
//! every function's list, after an appended CRS_STACK_SIZE (rule 7.2.1:
//! virt `-kernels-used=virt_rec_kernel` gains the vtables' destructors'
//! `free`, sm_90; onlyk `-kernels-used=onlyk_make`: a destructor ahead of the
//! kernel in its own input brings `free` before the kernel's `malloc`,
//! sm_75/sm_90); the only kernel's gathered EXTERNS after an appended
//! NUM_BARRIERS (rule 7.2: shc `-kernels-used=shc_ka`, sm_75/sm_90/sm_100);
//! the only kernel, an ABI-7 leaf, gets 0x66 from ABI-8
//! functions it does not call (rule 10: a7bar_k + onlyk
//! `-kernels-used=a7bar_leaf`, sm_75/sm_90); `-r -g` ignoring
//! `-kernels-used` when it creates kernels (rules 9.6/9.7: calls, sm_75, every
//! kernel's `.nv.shared.<k>` name); weak copies of equal register counts
//! from sm_80 and sm_86 objects (U13, rule 9.11: the newer SM measured against
//! the first copy; wsm, sm_86 exec and `-r`); a TMA kernel's capsule under
//! `-g` and `-g -r`, whose count pairs up with no numbering (rule 11.9:
//! tmacl, sm_100/sm_120); an address-taken function kept though the code
//! taking its address is dead, with its Mercury signature (rule 9.12: atk
//! `-kernels-used`, `-variables-used`, sm_75/sm_90/sm_100); an `EXIT`'s
//! wait on a pending read barrier moved to the `ERRBAR` inserted before it
//! (rule 11.9: ebwait `-g`, `-g -r`, sm_100/sm_120); kernels kept
//! without being live, and CTAIDZ_USED from a callee (rules 7.1, 7.2, 9.12:
//! launch `-kernels-used` with one, two and no kernels, the only kernel,
//! `-g`, `-preserve-relocs`; sm_75/sm_90/sm_100); a stand-in libcudadevrt.a
//! joining while a function is still undefined (rule 13.3: devrt, sm_75/sm_90),
//! and a raw cubin whose name contains "cudadevrt" searched the same way
//! (devrt_sysname: dropped with nothing pending, joined with `lf` pending),
//! and under `-keep-system-libraries` both linked whole, exec and `-r`;
//! a removed kernel's indirect-call signatures gone from the Mercury
//! `.strtab` (rule 9.3: msigrev `-variables-used`, `-kernels-used`, sm_100/sm_120);
//! a kernel launched from an earlier input created as a selected kernel
//! (rule 9.6: xlaunch `-kernels-used`, exec and `-r`, sm_75/sm_90/sm_100);
//! removed kernels' `.nv.shared` names after the input's relocation sections
//! when no variable names them (rule 9.2: `-r` outputs of shared, indir, sco,
//! sco-dbl, xcallee, a7x-mixed-abi relinked with `-kernels-used`); texture
//! and surface slots in the first kernel's bank when no live kernel names
//! them (rule 11.6: ptx `-kernels-used=ptx_branch_kernel`, sm_75..sm_100),
//! but not when relinking ptx's `-r` output; CTAIDZ_USED in a relinked `-r`
//! output's record order (rule 7.2: launch, sm_75); the ABI-7 `.nv.compat`
//! records for a relinked `-r` output of ABI-7 objects (rule 10: ginit-abi7,
//! sm_90, exec and `-r`). Linked
//! through the same command-line parser and `link_bytes` as `develf nvlink`.

use develf_cli::nvlink_cmd::{self, InputArg, Reporter, Style};
use develf_tests::fixtures_dir;
use std::path::Path;

/// Links one nvlink command line (run from `dir`) with develf and compares
/// the result with nvlink's output named by its `-o`.
fn link_like_nvlink(dir: &Path, line: &str) -> develf_link::Comparison {
    let mut words: Vec<String> = line.split_whitespace().map(str::to_string).collect();
    if words.first().is_some_and(|w| w == "nvlink") {
        words.remove(0);
    }
    let parsed = nvlink_cmd::parse_nvlink_args(&words).unwrap_or_else(|e| panic!("{line}: {e}"));
    let mut request = nvlink_cmd::request_from_args(&parsed).unwrap_or_else(|e| panic!("{line}: {e}"));
    for input in &mut request.inputs {
        if let InputArg::File(file) = input {
            *file = dir.join(&*file).to_string_lossy().into_owned();
        }
    }
    let mut reporter = Reporter::quiet();
    let ours = nvlink_cmd::link_bytes(&request, &mut reporter).unwrap_or_else(|f| panic!("{line}: {}", f.message));
    let theirs_path = dir.join(parsed.output.as_deref().unwrap_or_default());
    let theirs = std::fs::read(&theirs_path).unwrap_or_else(|e| panic!("reading {}: {e}", theirs_path.display()));
    develf_link::compare(&ours, &theirs)
}

#[test]
fn code_selection_options_link_like_nvlink() {
    let dir = fixtures_dir();
    let list = dir.join("options/commands.txt");
    let text = std::fs::read_to_string(&list).unwrap_or_else(|e| panic!("reading {}: {e}", list.display()));
    let mut checked = 0;
    for line in text.lines().filter(|l| !l.trim().is_empty()) {
        let comparison = link_like_nvlink(&dir, line);
        assert!(comparison.byte_identical, "{line}: {:?}", comparison.semantic_differences);
        checked += 1;
    }
    println!("{checked} option links byte-identical to nvlink's");
    assert!(checked >= 299, "{}: fewer links than expected", list.display());
}

/// Links not yet byte-identical: none since the Mercury ptx texture
/// kernel's `entry_image_header_indices` tables (rule 11.5) and the capsule
/// immediates (rule 11.7).
const PRESERVE_RELOCS_GAPS: &[&str] = &[];

/// Rule 8.2: `-preserve-relocs` on calls, fptr, ptx, reloc and weak, exec and
/// `-r`, sm_75 / sm_90 / sm_100 (nvlink 13.5 outputs with their command
/// lines in `options/*preserve-relocs*.nvlink.cmd`).
#[test]
fn preserve_relocs_links_like_nvlink() {
    let dir = fixtures_dir();
    let options = dir.join("options");
    let mut commands: Vec<_> = std::fs::read_dir(&options)
        .unwrap_or_else(|e| panic!("reading {}: {e}", options.display()))
        .filter_map(|e| e.ok().map(|e| e.path()))
        .filter(|p| {
            p.file_name()
                .and_then(|n| n.to_str())
                .is_some_and(|n| n.contains("preserve-relocs") && n.ends_with(".nvlink.cmd"))
        })
        .collect();
    commands.sort();
    let (mut identical, mut gaps) = (0, 0);
    for path in &commands {
        let line = std::fs::read_to_string(path).unwrap_or_else(|e| panic!("reading {}: {e}", path.display()));
        let line = line.trim();
        let comparison = link_like_nvlink(&dir, line);
        if comparison.byte_identical {
            identical += 1;
        } else if PRESERVE_RELOCS_GAPS.iter().any(|g| line.contains(g)) {
            gaps += 1;
            println!("known gap: {line}");
        } else {
            panic!("{line}: {:?}", comparison.semantic_differences);
        }
    }
    println!("-preserve-relocs: {identical}/{} links byte-identical to nvlink's ({gaps} known gaps)", commands.len());
    assert!(identical >= 30, "{}: fewer byte-identical links than expected", options.display());
}

/// Rule 13.5: `-use-host-info` is nvlink's default; given with
/// `-ignore-host-info` it is nvlink's fatal `Conflicting options`.
#[test]
fn host_info_options_parse_like_nvlink() {
    let args = |list: &[&str]| list.iter().map(|s| s.to_string()).collect::<Vec<_>>();
    let parsed = nvlink_cmd::parse_nvlink_args(&args(&["-arch=sm_90", "-ignore-host-info", "a.o", "-o", "x"]))
        .expect("-ignore-host-info parses");
    assert!(parsed.ignore_host_info);
    let request = nvlink_cmd::request_from_args(&parsed).expect("a request");
    assert!(request.ignore_host_info);
    let parsed = nvlink_cmd::parse_nvlink_args(&args(&["-arch=sm_90", "-use-host-info", "a.o", "-o", "x"]))
        .expect("-use-host-info parses");
    assert!(parsed.use_host_info && !parsed.ignore_host_info);
    let error = nvlink_cmd::parse_nvlink_args(&args(&["-use-host-info", "-ignore-host-info", "a.o"]))
        .expect_err("nvlink refuses both");
    assert_eq!(error, "Conflicting options '-use-host-info' and '-ignore-host-info'");
}

/// The request and a quiet reporter for `command` (`nvlink ARGS`, inputs
/// relative to the fixtures), linked in memory.
fn fixture_link(dir: &Path, command: &str) -> (nvlink_cmd::LinkRequest, Reporter) {
    let mut words: Vec<String> = command.split_whitespace().skip(1).map(str::to_string).collect();
    words.extend(["-o".to_string(), "out.cubin".to_string()]);
    let parsed = nvlink_cmd::parse_nvlink_args(&words).unwrap_or_else(|e| panic!("{command}: {e}"));
    let mut request = nvlink_cmd::request_from_args(&parsed).unwrap_or_else(|e| panic!("{command}: {e}"));
    for input in &mut request.inputs {
        if let InputArg::File(file) = input {
            *file = dir.join(&*file).to_string_lossy().into_owned();
        }
    }
    let reporter = Reporter::quiet();
    (request, reporter)
}

/// Rule 7.1: nvlink's "Stack size for entry function ... cannot be
/// statically determined", once per callee of a kernel whose stack is
/// unknown and once more per indirect call site it may be the target of;
/// it and the ISA_CLASS warning are infos to nvlink: printed under `-w`,
/// errors under `-Werror`, gone under `-disable-infos`; against nvlink's
/// standard error and exit status for each command
/// (options/stack-warnings.txt, written by options/stack-warnings.sh).
#[test]
fn stack_size_warnings_are_nvlinks() {
    let dir = fixtures_dir();
    let path = dir.join("options/stack-warnings.txt");
    // The `-preserve-relocs` notice is the command line's, printed before
    // the link (not a link warning).
    let blocks = command_blocks(&path, |line| !line.contains("is not fully implemented"));
    let mut warned = 0;
    for (command, theirs) in &blocks {
        let (request, mut reporter) = fixture_link(&dir, command);
        let (_, warnings) = nvlink_cmd::link_bytes_and_warnings(&request, &mut reporter)
            .unwrap_or_else(|f| panic!("{command}: {}", f.message));
        // What the command line's `-w` and `-Werror` make of them.
        let words: Vec<String> = command.split_whitespace().skip(1).map(str::to_string).collect();
        let parsed = nvlink_cmd::parse_nvlink_args(&words).unwrap_or_else(|e| panic!("{command}: {e}"));
        let printing = Reporter {
            disable_warnings: parsed.disable_warnings,
            warning_as_error: parsed.warning_as_error,
            ..Reporter::new(Style::Nvlink)
        };
        let printed = nvlink_cmd::warning_lines(&request, &printing, &warnings);
        // Input names as nvlink was given them (relative to the fixtures).
        let prefix = format!("{}/", dir.to_string_lossy());
        let mut ours: String = printed
            .lines
            .iter()
            .map(|(kind, text)| format!("nvlink {kind:<8}: {text}\n").replace(&prefix, ""))
            .collect();
        if printed.merge_failed {
            ours.push_str("nvlink fatal   : merge_elf failed\n! exit 1\n");
        } else if printed.failed {
            ours.push_str("! exit 255\n");
        }
        assert_eq!(&ours, theirs, "{command}");
        warned += usize::from(!theirs.is_empty());
    }
    assert!(blocks.len() >= 25 && warned >= 14, "{}: fewer links than expected", path.display());
}

/// A `$ command` file of nvlink's standard error (`options/*.sh`): each
/// command with the lines after it that `keep` keeps. Its first line says
/// what the file is (a dump's own lines start with `#` too).
fn command_blocks(path: &Path, keep: impl Fn(&str) -> bool) -> Vec<(String, String)> {
    let text = std::fs::read_to_string(path).unwrap_or_else(|e| panic!("reading {}: {e}", path.display()));
    let mut blocks: Vec<(String, String)> = Vec::new();
    for line in text.lines().skip(1) {
        match line.strip_prefix("$ ") {
            Some(command) => blocks.push((command.to_string(), String::new())),
            None if keep(line) => {
                let kept = &mut blocks.last_mut().expect("a command first").1;
                kept.push_str(line);
                kept.push('\n');
            }
            None => {}
        }
    }
    blocks
}

/// `-dump-callgraph` against nvlink's standard error for each command
/// (options/callgraph-dumps.txt, written by options/callgraph-dumps.sh):
/// the propagation lines in the output's code order, uncalled functions a
/// `-g` link keeps printed in full, weak copies' calls; and the dump
/// nvlink prints after the errors of a link with undefined references
/// (whose wording is develf's own: only the exit status is compared).
#[test]
fn callgraph_dumps_are_nvlinks() {
    let dir = fixtures_dir();
    let path = dir.join("options/callgraph-dumps.txt");
    // Warnings are checked in `stack_size_warnings_are_nvlinks`.
    let blocks = command_blocks(&path, |line| !line.starts_with("nvlink warning"));
    let (mut raised, mut failed) = (0, 0);
    for (command, theirs) in &blocks {
        let (request, mut reporter) = fixture_link(&dir, command);
        let (ours, failure) = nvlink_cmd::link_callgraph_text(&request, &mut reporter);
        let their_exit = theirs.lines().find_map(|l| l.strip_prefix("! exit ")).map(str::to_string);
        let their_dump: String = theirs
            .lines()
            .filter(|l| !l.starts_with("nvlink error") && !l.starts_with("! exit"))
            .map(|l| format!("{l}\n"))
            .collect();
        let our_exit = failure.as_ref().map(|f| f.status.to_string());
        assert_eq!(our_exit, their_exit, "{command}: {:?}", failure.map(|f| f.message));
        assert_eq!(ours, their_dump, "{command}");
        raised += usize::from(theirs.contains("propagated to entry"));
        failed += usize::from(their_exit.is_some() && !ours.is_empty());
    }
    assert!(blocks.len() >= 48 && raised >= 17 && failed >= 3, "{}: fewer links than expected", path.display());
}

/// `-v`: nvlink's report of the output's resources
/// (`options/resource-reports.sh`), line for line, for executables and `-r`
/// outputs on both sides of sm_100.
#[test]
fn resource_reports_are_nvlinks() {
    let dir = fixtures_dir();
    let path = dir.join("options/resource-reports.txt");
    let blocks = command_blocks(&path, |line| line.starts_with("nvlink info"));
    for (command, theirs) in &blocks {
        let (request, mut reporter) = fixture_link(&dir, command);
        let (bytes, _) = nvlink_cmd::link_bytes_and_warnings(&request, &mut reporter)
            .unwrap_or_else(|f| panic!("{command}: {}", f.message));
        let lines = develf_cli::resource_report::resource_report(&bytes, request.relocatable)
            .unwrap_or_else(|| panic!("{command}: no report"));
        let ours: String = lines.iter().map(|l| format!("nvlink info    : {l}\n")).collect();
        assert_eq!(&ours, theirs, "{command}");
    }
    let has = |what: &str| blocks.iter().filter(|(_, r)| r.contains(what)).count();
    assert!(blocks.len() >= 18, "{}: fewer links than expected", path.display());
    assert!(has("cmem[3]") >= 2 && has("cmem[2]") >= 2 && has("textures") >= 3, "{}: coverage", path.display());
}

/// `-Xptxas` (a list, repeatable) and the two warning suppressions parse
/// as nvlink takes them; their effects are checked against nvlink's output
/// in ptx_jit.rs and `stack_size_warnings_are_nvlinks`.
#[test]
fn ptxas_and_suppression_options_parse() {
    let words: Vec<String> =
        ["-arch=sm_90", "-Xptxas", "-O0,-v", "--Xptxas=-g", "-suppress-arch-warning", "a.o", "-o", "x"]
            .iter()
            .map(|s| s.to_string())
            .collect();
    let parsed = nvlink_cmd::parse_nvlink_args(&words).expect("nvlink's options");
    assert_eq!(parsed.ptxas_options, ["-O0", "-v", "-g"]);
    assert!(parsed.suppress_arch_warning && !parsed.suppress_stack_size_warning);
    let request = nvlink_cmd::request_from_args(&parsed).expect("a request");
    assert_eq!(request.ptxas_options, ["-O0", "-v", "-g"]);
    assert!(request.suppress_arch_warning);
    assert!(parsed.not_supported.is_empty(), "{:?}", parsed.not_supported);
}
