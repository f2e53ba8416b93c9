//! Rule 13.7: host objects with PTX but no device code for the target
//! (tests/fixtures/jit: `nvcc -arch=sm_80` and `code=compute_80` objects
//! linked for sm_90) and `.ptx` files, which nvlink compiles with its
//! built-in ptxas and develf with NVIDIA's ptxas. Offline, `fake-ptxas.sh` stands in for ptxas:
//! it checks develf's command line and writes what the real ptxas wrote for
//! that PTX (`make.sh`), so the links are compared with nvlink's own.

use develf_cli::nvlink_cmd::{self, Reporter};
use develf_tests::fixtures_dir;
use std::path::PathBuf;

fn jit_dir() -> PathBuf {
    fixtures_dir().join("jit")
}

fn request(ptxas: PathBuf, relocatable: bool) -> nvlink_cmd::LinkRequest {
    request_for(ptxas, if relocatable { &["-r"] } else { &[] }, &["jit_kernel.o", "jit_lib.o"])
}

fn request_for(ptxas: PathBuf, options: &[&str], inputs: &[&str]) -> nvlink_cmd::LinkRequest {
    request_on("sm_90", ptxas, options, inputs)
}

fn request_on(arch: &str, ptxas: PathBuf, options: &[&str], inputs: &[&str]) -> nvlink_cmd::LinkRequest {
    let dir = jit_dir();
    let mut args = vec![format!("-arch={arch}"), "-o".to_string(), "out.cubin".to_string()];
    args.extend(options.iter().map(|o| o.to_string()));
    args.extend(inputs.iter().map(|f| dir.join(f).to_string_lossy().into_owned()));
    let parsed = nvlink_cmd::parse_nvlink_args(&args).expect("nvlink arguments");
    let mut request = nvlink_cmd::request_from_args(&parsed).expect("a link request");
    request.ptxas = Some(ptxas);
    request
}

/// Links `inputs` of tests/fixtures/jit with `options` for sm_90 through
/// `fake-ptxas.sh` and compares the output with nvlink's `expected` there.
fn links_like_nvlink(options: &[&str], inputs: &[&str], expected: &str) {
    let dir = jit_dir();
    let request = request_for(dir.join("fake-ptxas.sh"), options, inputs);
    let ours = nvlink_cmd::link_bytes(&request, &mut reporter()).unwrap_or_else(|f| panic!("{}", f.message));
    let theirs = std::fs::read(dir.join(expected)).expect("nvlink's output");
    let comparison = develf_link::compare(&ours, &theirs);
    assert!(comparison.byte_identical, "{expected}: {comparison:?}");
}

fn reporter() -> Reporter {
    Reporter::quiet()
}

#[test]
fn ptx_only_inputs_link_as_nvlink_compiles_them() {
    let dir = jit_dir();
    for (relocatable, theirs) in [(false, "jit.sm_90.cubin"), (true, "jit_r.sm_90.cubin")] {
        let ours = nvlink_cmd::link_bytes(&request(dir.join("fake-ptxas.sh"), relocatable), &mut reporter())
            .unwrap_or_else(|f| panic!("{theirs}: {}", f.message));
        let theirs_bytes = std::fs::read(dir.join(theirs)).expect("nvlink's output");
        let comparison = develf_link::compare(&ours, &theirs_bytes);
        assert!(comparison.byte_identical, "{theirs}: {comparison:?}");
    }
}

/// `nvlink -g` compiles the PTX with `-g`: ptxas's objects then record its
/// command line in their tkinfo notes, which develf makes nvlink's (no PTX
/// file name, object `elf.o`).
#[test]
fn a_debug_link_compiles_ptx_as_nvlink_does() {
    links_like_nvlink(&["-g"], &["jit_kernel.o", "jit_lib.o"], "jit_g.sm_90.cubin");
}

/// `-Xptxas` options go to the ptxas that compiles the PTX, after each
/// entry's own (nvlink `-Xptxas -O0`: other code than without).
#[test]
fn ptxas_options_reach_the_ptx_compiler() {
    links_like_nvlink(&["-Xptxas", "-O0"], &["jit_kernel.o", "jit_lib.o"], "jit_O0.sm_90.cubin");
}

/// `-maxrregcount` goes to the ptxas that compiles the PTX, as nvlink hands
/// it to its built-in one (the objects' MAXREG_COUNT 0x20, not 0xff, and
/// ptxas's command line in their notes; sweep6).
#[test]
fn maxrregcount_reaches_the_ptx_compiler() {
    links_like_nvlink(&["-maxrregcount=32"], &["jit_kernel.o", "jit_lib.o"], "jit_maxreg.sm_90.cubin");
}

#[test]
fn a_ptx_file_is_compiled_as_nvlink_compiles_it() {
    links_like_nvlink(&[], &["jit_kernel.ptx", "jit_lib.o"], "jit_ptx.sm_90.cubin");
}

#[test]
fn a_missing_ptxas_is_an_error_naming_the_input() {
    let missing = jit_dir().join("no-such-ptxas");
    let failure = nvlink_cmd::link_bytes(&request(missing, false), &mut reporter()).expect_err("no ptxas to run");
    assert!(failure.message.contains("jit_kernel.o"), "{}", failure.message);
    assert!(failure.message.contains("no-such-ptxas"), "{}", failure.message);
}

/// `-arch=compute_XX` (what `nvcc -rdc=true -arch=compute_XX` runs): nvlink
/// links nothing, writes no output, and writes the register file, here
/// equal to nvlink's (`jit.compute_80.reg.c`); no ptxas is run. A cubin for
/// another SM is still refused.
#[test]
fn a_virtual_target_writes_only_the_register_file() {
    let dir = jit_dir();
    let scratch = std::env::temp_dir().join(format!("develf-ptx-jit-virtual-{}", std::process::id()));
    std::fs::create_dir_all(&scratch).expect("scratch directory");
    let (out, register) = (scratch.join("out.cubin"), scratch.join("r.reg.c"));
    let arg = |p: &std::path::Path| std::ffi::OsString::from(p.as_os_str());
    let mut args = vec!["--arch=compute_80".into(), format!("--register-link-binaries={}", register.display()).into()];
    args.extend([arg(&dir.join("jit_kernel.o")), arg(&dir.join("jit_lib.o")), "-o".into(), arg(&out)]);
    let status = nvlink_cmd::run_nvlink(args);
    assert_eq!(status, 0);
    assert!(!out.exists(), "an output for a virtual target");
    let theirs = std::fs::read_to_string(dir.join("jit.compute_80.reg.c")).expect("nvlink's register file");
    assert_eq!(std::fs::read_to_string(&register).expect("our register file"), theirs);
    let cubin = develf_tests::fixtures_dir().join("obj/sm_90/calls_main.cubin");
    let status = nvlink_cmd::run_nvlink(vec!["--arch=compute_89".into(), arg(&cubin), "-o".into(), arg(&out)]);
    assert_eq!(status, 1, "nvlink: arch does not match target 'compute_89'");
    let _ = std::fs::remove_dir_all(&scratch);
}

/// Rule 13.7.1: a fatbin with sm_80 SASS and compute_86 PTX linked for sm_86
/// is its PTX compiled (nvlink takes the newer SM); sm_80 SASS with
/// compute_80 PTX is the SASS (sweep4 p59 `fatptx-exec`).
#[test]
fn newer_ptx_beats_older_sass_of_the_family() {
    let dir = jit_dir();
    for (input, theirs) in [("jit_pref.o", "jit_pref.sm_86.cubin"), ("jit_kernel.o", "jit_tie.sm_86.cubin")] {
        let request = request_on("sm_86", dir.join("fake-ptxas.sh"), &["-r"], &[input]);
        let ours =
            nvlink_cmd::link_bytes(&request, &mut reporter()).unwrap_or_else(|f| panic!("{theirs}: {}", f.message));
        let theirs_bytes = std::fs::read(dir.join(theirs)).expect("nvlink's output");
        let comparison = develf_link::compare(&ours, &theirs_bytes);
        assert!(comparison.byte_identical, "{theirs}: {comparison:?}");
    }
}
