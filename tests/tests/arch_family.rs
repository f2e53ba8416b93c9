//! Rule 13.7.2: the fatbin entries nvlink takes for family (`sm_XXf`,
//! `compute_XXf`) and accelerated (`sm_XXa`) code (tests/fixtures/jit-family,
//! host objects of `family.cu`, whose code differs with the kind of target
//! it was compiled for). Compared with nvlink 13.5's links of the same
//! objects and with whether it warned (its stderr beside each link).

use develf_cli::nvlink_cmd::{self, Reporter, Style};
use develf_tests::fixtures_dir;
use std::path::PathBuf;

fn dir() -> PathBuf {
    fixtures_dir().join("jit-family")
}

/// Links `input` for `arch` as `nvlink -arch=ARCH INPUT` does, with
/// `fake-ptxas.sh` as ptxas; returns the output and whether develf warned.
fn link(arch: &str, input: &str) -> (Vec<u8>, bool) {
    let args = vec![
        format!("-arch={arch}"),
        "-o".to_string(),
        "out.cubin".to_string(),
        dir().join(input).display().to_string(),
    ];
    let parsed = nvlink_cmd::parse_nvlink_args(&args).expect("nvlink arguments");
    let mut request = nvlink_cmd::request_from_args(&parsed).expect("a link request");
    request.ptxas = Some(dir().join("fake-ptxas.sh"));
    // A warning made an error marks the reporter: that is how a test sees one.
    let mut reporter = Reporter { warning_as_error: true, ..Reporter::new(Style::Nvlink) };
    let bytes = nvlink_cmd::link_bytes(&request, &mut reporter).unwrap_or_else(|f| panic!("{input}: {}", f.message));
    (bytes, reporter.failed)
}

/// `input` linked for `arch` is nvlink's `expected.cubin`, and develf warns
/// where nvlink did (`expected.stderr`: "SM Arch ('sm_100f') not found").
fn links_like_nvlink(arch: &str, input: &str, expected: &str) {
    let (ours, warned) = link(arch, input);
    let theirs = std::fs::read(dir().join(format!("{expected}.cubin"))).expect("nvlink's output");
    let comparison = develf_link::compare(&ours, &theirs);
    assert!(comparison.byte_identical, "{expected}: {comparison:?}");
    let stderr = std::fs::read_to_string(dir().join(format!("{expected}.stderr"))).expect("nvlink's stderr");
    let nvlink_warned = stderr.contains(&format!("nvlink warning : SM Arch ('{arch}') not found in '{input}'"));
    assert_eq!(warned, nvlink_warned, "{expected}: nvlink's stderr was {stderr:?}");
}

/// compute_100 and compute_100f PTX for sm_103: the family's PTX is compiled
/// (the plain one compiles to other code, `ptxas.sm_100.sm_103.cubin`).
#[test]
fn family_ptx_is_compiled_for_a_later_sm_of_the_family() {
    links_like_nvlink("sm_103", "ptx_plain_family.o", "ptx_plain_family.sm_103");
}

/// compute_110f PTX is not for sm_100f (another family): nothing is linked,
/// and the warning names the target as given.
#[test]
fn family_ptx_of_another_family_is_not_there() {
    links_like_nvlink("sm_100f", "ptx_110f.o", "ptx_110f.sm_100f");
}

/// sm_100 and sm_100a SASS: each target takes its own, not both.
#[test]
fn accelerated_sass_serves_only_its_own_target() {
    links_like_nvlink("sm_100a", "sass_plain_accel.o", "sass_plain_accel.sm_100a");
    links_like_nvlink("sm_100", "sass_plain_accel.o", "sass_plain_accel.sm_100");
}

/// sm_100a SASS alone, for sm_100 or sm_103: not there (nvlink warns and
/// links nothing; a bare sm_100a cubin would be an error).
#[test]
fn accelerated_sass_alone_is_not_there_for_other_targets() {
    links_like_nvlink("sm_100", "sass_accel.o", "sass_accel.sm_100");
    links_like_nvlink("sm_103", "sass_accel.o", "sass_accel.sm_103");
}
