//! Mercury (sm_100+) finaliser rules that leave some bytes to a map develf
//! does not have, checked against nvlink's outputs of hand-made inputs
//! (tests/fixtures/checks/, nvlink's outputs beside them): everything but
//! the named fields or sections is nvlink's.
//!
//! Rule 11.3's fence workaround: nvlink's finaliser takes the four
//! `@!PT LDS RZ, [RZ]` and the `MEMBAR.ALL.CTA` before a `MEMBAR.SC.*` out of
//! every kernel that makes no call, and out of no kernel that makes one
//! (sweep22 p231: 22 kernels without calls lose it, 33 with calls keep it,
//! in sweeps 19 to 22). Where the scoreboard model does not reproduce
//! ptxas's numbering (`fnc_progress`), develf still takes it out; only the
//! scoreboard fields of some instructions may differ (checks/fnc.cu).
//!
//! Rule 11.2 for line tables: a weak copy replaced by a shorter one keeps
//! its `.debug_line` sequence, but nvlink drops the rows at or past the
//! winner's size and ends the sequence there (sweep22 p233). Its
//! `.nv_debug_line_sass` sequence gets rows at other addresses, from the
//! Mercury→SASS map develf does not have: that section pair is the only one
//! allowed to differ (checks/lcl_*.cu).
//!
//! Rule 9.14: a `-G` weak copy replaced by an `-O3` one keeps its
//! `.debug_info` records, pointing at the winner, but no further than the
//! winner's end (sweep31 p321). Its `.nv_debug_info_reg_sass` ranges come
//! from the same map: that section is the only one allowed to differ
//! (checks/mwc_*.cu).

use develf_format::header::Arch;
use develf_link::{Input, LinkOptions, link};
use develf_parse::Cubin;
use std::path::PathBuf;

fn fixture(path: &str) -> Vec<u8> {
    let path = PathBuf::from(env!("CARGO_MANIFEST_DIR")).join("../../tests/fixtures/checks").join(path);
    std::fs::read(&path).unwrap_or_else(|e| panic!("reading {}: {e}", path.display()))
}

/// develf's link of the `objects` (under checks/) for `arch`, and nvlink's
/// output `expected`, both whole files.
fn ours_and_nvlinks(arch: &str, objects: &[String], expected: &str) -> (Vec<u8>, Vec<u8>) {
    let bytes: Vec<Vec<u8>> = objects.iter().map(|o| fixture(o)).collect();
    let inputs: Vec<Input<'_>> = objects.iter().zip(&bytes).map(|(name, b)| Input::new(name, b)).collect();
    let options = LinkOptions::new(Arch::parse(arch).expect("a known arch"));
    (link(&options, &inputs).expect("links"), fixture(expected))
}

/// Our output has nvlink's sections, in its order, each with nvlink's
/// bytes, but for those `unmodelled` names.
fn assert_same_sections_but(arch: &str, ours: &[u8], nvlink: &Cubin<'_>, unmodelled: impl Fn(&str) -> bool) {
    let ours = Cubin::parse(ours).expect("ours parses");
    let names = |c: &Cubin<'_>| c.sections().iter().map(|s| s.name.to_string()).collect::<Vec<_>>();
    assert_eq!(names(&ours), names(nvlink), "{arch}: sections");
    for (x, y) in ours.sections().iter().zip(nvlink.sections()) {
        if !unmodelled(x.name) {
            assert_eq!(x.bytes(), y.bytes(), "{arch}: {}", x.name);
        }
    }
}

/// The scoreboard fields of an instruction's high word (write and read
/// barrier, wait mask: bits 46..58), which the finaliser allocates again.
const SCOREBOARD_FIELDS: u64 = 0xfff << 46;

/// A code section's instructions with their scoreboard fields cleared.
fn without_scoreboards(code: &[u8]) -> Vec<(u64, u64)> {
    code.chunks_exact(16)
        .map(|c| {
            let word = |b: &[u8]| u64::from_le_bytes(b.try_into().expect("8 bytes"));
            (word(&c[..8]), word(&c[8..]) & !SCOREBOARD_FIELDS)
        })
        .collect()
}

const FENCE_LDS: u64 = 0xffff_f984;

fn workaround_loads(code: &[u8]) -> usize {
    code.chunks_exact(16)
        .filter(|c| u64::from_le_bytes(c[..8].try_into().expect("8 bytes")) & 0xffff_ffff == FENCE_LDS)
        .count()
}

#[test]
fn kernels_without_calls_lose_the_fence_workaround_as_in_nvlink() {
    for arch in ["sm_100", "sm_120"] {
        let tag = arch.trim_start_matches("sm_");
        let (ours, expected) =
            ours_and_nvlinks(arch, &[format!("fnc_sm{tag}.cubin")], &format!("fnc_sm{tag}.nvlink.cubin"));
        let (ours, nvlink) =
            (Cubin::parse(&ours).expect("ours parses"), Cubin::parse(&expected).expect("nvlink's parses"));
        let names = |c: &Cubin<'_>| c.sections().iter().map(|s| (s.name.to_string(), s.size)).collect::<Vec<_>>();
        assert_eq!(names(&ours), names(&nvlink), "{arch}: sections and sizes");
        for (a, b) in ours.sections().iter().zip(nvlink.sections()) {
            if a.name.starts_with(".text.") {
                assert_eq!(without_scoreboards(a.bytes()), without_scoreboards(b.bytes()), "{arch}: {}", a.name);
            } else {
                assert_eq!(a.bytes(), b.bytes(), "{arch}: {}", a.name);
            }
        }
        let text = |c: &Cubin<'_>, name: &str| {
            c.sections().iter().find(|s| s.name == name).map(|s| s.bytes().to_vec()).unwrap_or_default()
        };
        // The oracle itself: nvlink keeps the caller's four loads and drops
        // the other kernel's.
        assert_eq!(workaround_loads(&text(&nvlink, ".text._Z10fnc_callerPi")), 4, "{arch}");
        assert_eq!(workaround_loads(&text(&nvlink, ".text._Z12fnc_progressi")), 0, "{arch}");
    }
}

#[test]
fn a_replaced_copys_line_rows_end_with_the_winners_code() {
    for arch in ["sm_100", "sm_120"] {
        let tag = arch.trim_start_matches("sm_");
        let objects = [format!("lcl_a_sm{tag}.cubin"), format!("lcl_b_sm{tag}.cubin")];
        let (ours, expected) = ours_and_nvlinks(arch, &objects, &format!("lcl_sm{tag}.nvlink.cubin"));
        let nvlink = Cubin::parse(&expected).expect("nvlink's parses");
        assert_same_sections_but(arch, &ours, &nvlink, |name| name.ends_with(".nv_debug_line_sass"));
        // The oracle itself: the winner is the shorter copy.
        let a = fixture(&objects[0]);
        let size = |c: &Cubin<'_>| c.sections().iter().find(|s| s.name == ".debug_line").map(|s| s.size);
        assert!(size(&nvlink) < Cubin::parse(&a).ok().as_ref().and_then(size), "{arch}: nvlink's rows are cut");
    }
}

#[test]
fn a_replaced_debug_copys_records_end_at_the_winners_end() {
    for arch in ["sm_100", "sm_120"] {
        let tag = arch.trim_start_matches("sm_");
        let objects = [format!("mwc_a_sm{tag}.cubin"), format!("mwc_b_sm{tag}.cubin")];
        let (ours, expected) = ours_and_nvlinks(arch, &objects, &format!("mwc_sm{tag}.nvlink.cubin"));
        let nvlink = Cubin::parse(&expected).expect("nvlink's parses");
        assert_same_sections_but(arch, &ours, &nvlink, |name| name == ".nv_debug_info_reg_sass");
        // The oracle itself: the -G copy's end lies past the winner's, and
        // nvlink's record of it is the winner's size.
        let size = |c: &Cubin<'_>| {
            c.sections().iter().find(|s| s.name == ".text._Z9mwc_scalei").map(|s| s.size).expect("mwc_scale's code")
        };
        let loser = Cubin::parse(&fixture(&objects[1])).map(|c| size(&c)).expect("mwc_b parses");
        assert!(loser > size(&nvlink), "{arch}: the -G copy is the longer");
        let addends = |c: &Cubin<'_>| -> Vec<i64> {
            let rela = c.sections().iter().find(|s| s.name == ".rela.debug_info").expect(".rela.debug_info");
            rela.bytes().chunks_exact(24).map(|e| i64::from_le_bytes(e[16..24].try_into().expect("8 bytes"))).collect()
        };
        assert!(addends(&nvlink).contains(&(size(&nvlink) as i64)), "{arch}: a record at the winner's end");
    }
}
