//! Options that change which code survives, byte for byte against nvlink
//! 13.5 (tests/fixtures/options/commands.txt, run from tests/fixtures/):
//! `-kernels-used` matches substrings (rule 9: `-kernels-used=kernel` keeps
//! both `calls_kernel` and `calls_fib_kernel`), `-variables-used` alone
//! removes every kernel (rule 9.1). Linked through the same command-line
//! parser and `link_bytes` as `develf nvlink`.

use develf_cli::nvlink_cmd::{self, InputArg, Reporter, Style};
use develf_tests::fixtures_dir;

#[test]
fn code_selection_options_link_like_nvlink() {
    let dir = fixtures_dir();
    let list = dir.join("options/commands.txt");
    let text = std::fs::read_to_string(&list).unwrap_or_else(|e| panic!("reading {}: {e}", list.display()));
    let mut checked = 0;
    for line in text.lines().filter(|l| !l.trim().is_empty()) {
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
        let mut reporter =
            Reporter { style: Style::Nvlink, disable_warnings: true, warning_as_error: false, failed: false };
        let ours = nvlink_cmd::link_bytes(&request, &mut reporter).unwrap_or_else(|f| panic!("{line}: {}", f.message));
        let theirs_path = dir.join(parsed.output.as_deref().unwrap_or_default());
        let theirs = std::fs::read(&theirs_path).unwrap_or_else(|e| panic!("reading {}: {e}", theirs_path.display()));
        let comparison = develf_link::compare(&ours, &theirs);
        assert!(comparison.byte_identical, "{line}: {:?}", comparison.semantic_differences);
        checked += 1;
    }
    println!("{checked} option links byte-identical to nvlink's");
    assert!(checked >= 6, "{}: fewer links than expected", list.display());
}

/// Rule 12.5: `-use-host-info` is nvlink's default; given with
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
