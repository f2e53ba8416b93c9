//! Links whose code develf reproduces but not every section, so they are
//! not fixture links (those are held byte-identical): the sections named
//! here are compared with nvlink 13.5's output, committed under
//! `tests/fixtures/partial` by `partial/text-only.sh`; the rest of the file
//! is what the closing note lists as left undone.

use develf_format::header::Arch;
use develf_link::{Input, LinkOptions, link};
use develf_parse::Cubin;
use std::path::{Path, PathBuf};

fn fixtures() -> PathBuf {
    Path::new(env!("CARGO_MANIFEST_DIR")).join("../../tests/fixtures")
}

fn read(path: &Path) -> Vec<u8> {
    std::fs::read(path).unwrap_or_else(|e| panic!("reading {}: {e}", path.display()))
}

fn section<'a>(cubin: &'a Cubin<'a>, name: &str) -> &'a [u8] {
    cubin.sections().iter().find(|s| s.name == name).unwrap_or_else(|| panic!("no {name}")).bytes()
}

/// Rule 11.3 inside a cluster sync's diverged-warp fallback (fixture source
/// wsc.cu, ptxas -O0; sweep28 p293 `k_cluster_rt`): the fence workaround
/// goes and `WARPSYNC.COLLECTIVE.ALL`'s target moves up with the code
/// (sm_100: 0x290 -> 0x240). The capsule's marks (`d1 05` -> `51 03`) are
/// not rewritten: that section differs.
#[test]
fn cluster_fallback_code_matches_nvlink() {
    for arch in ["sm_100", "sm_120"] {
        let object = read(&fixtures().join(format!("obj/{arch}/wsc.cubin")));
        let theirs = read(&fixtures().join(format!("partial/{arch}/wsc.cubin")));
        let mut options = LinkOptions::new(Arch::parse(arch).expect("arch"));
        options.output_name = format!("partial/{arch}/wsc.cubin");
        let ours = link(&options, &[Input::new(&format!("obj/{arch}/wsc.cubin"), &object)]).expect("links");
        let (ours, theirs) = (Cubin::parse(&ours).expect("ours"), Cubin::parse(&theirs).expect("nvlink's"));
        let text = ".text._Z5wsc_kPfi";
        assert_eq!(section(&ours, text), section(&theirs, text), "{arch} {text}");
    }
}
