//! Rule 11.2 for line tables on Mercury (sm_100+): a weak copy replaced by
//! a shorter one keeps its `.debug_line` sequence, but nvlink drops the
//! rows at or past the winner's size and ends the sequence there (sweep22
//! p233). Its `.nv_debug_line_sass` sequence gets rows at other addresses,
//! from the Mercury→SASS map develf does not have: that section pair is
//! the only one allowed to differ. Inputs: tests/fixtures/checks/lcl_*.cu
//! and nvlink's outputs beside them.

use develf_format::header::Arch;
use develf_link::{Input, LinkOptions, link};
use develf_parse::Cubin;
use std::path::PathBuf;

fn fixture(path: &str) -> Vec<u8> {
    let path = PathBuf::from(env!("CARGO_MANIFEST_DIR")).join("../../tests/fixtures/checks").join(path);
    std::fs::read(&path).unwrap_or_else(|e| panic!("reading {}: {e}", path.display()))
}

#[test]
fn a_replaced_copys_line_rows_end_with_the_winners_code() {
    for arch in ["sm_100", "sm_120"] {
        let tag = arch.trim_start_matches("sm_");
        let (a, b) = (fixture(&format!("lcl_a_sm{tag}.cubin")), fixture(&format!("lcl_b_sm{tag}.cubin")));
        let expected = fixture(&format!("lcl_sm{tag}.nvlink.cubin"));
        let options = LinkOptions::new(Arch::parse(arch).expect("a known arch"));
        let ours = link(&options, &[Input::new("lcl_a.cubin", &a), Input::new("lcl_b.cubin", &b)]).expect("links");
        let (ours, nvlink) =
            (Cubin::parse(&ours).expect("ours parses"), Cubin::parse(&expected).expect("nvlink's parses"));
        let names = |c: &Cubin<'_>| c.sections().iter().map(|s| s.name.to_string()).collect::<Vec<_>>();
        assert_eq!(names(&ours), names(&nvlink), "{arch}: sections");
        for (x, y) in ours.sections().iter().zip(nvlink.sections()) {
            if x.name.ends_with(".nv_debug_line_sass") {
                continue;
            }
            assert_eq!(x.bytes(), y.bytes(), "{arch}: {}", x.name);
        }
        // The oracle itself: the winner is the shorter copy.
        let size = |c: &Cubin<'_>| c.sections().iter().find(|s| s.name == ".debug_line").map(|s| s.size);
        assert!(size(&nvlink) < Cubin::parse(&a).ok().as_ref().and_then(size), "{arch}: nvlink's rows are cut");
    }
}
