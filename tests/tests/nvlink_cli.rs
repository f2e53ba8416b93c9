//! `develf nvlink`: nvlink's command line (options, response files, errors),
//! exit statuses, and that a failed link leaves no output behind. Called as a
//! library: the `develf` binary is not built for this crate's tests.

use develf_cli::nvlink_cmd::{
    self, FATAL_STATUS, InputArg, LINK_ERROR_STATUS, NvlinkArgs, parse_nvlink_args, split_options_file,
};
use develf_format::header::Arch;
use develf_tests::fixtures_dir;
use std::ffi::OsString;
use std::path::{Path, PathBuf};

fn strings(args: &[&str]) -> Vec<String> {
    args.iter().map(|s| s.to_string()).collect()
}

fn files(names: &[&str]) -> Vec<InputArg> {
    names.iter().map(|n| InputArg::File(n.to_string())).collect()
}

/// A scratch directory of this test's own, emptied first.
fn scratch(name: &str) -> PathBuf {
    let dir = std::env::temp_dir().join(format!("develf-nvlink-cli-{}-{name}", std::process::id()));
    let _ = std::fs::remove_dir_all(&dir);
    std::fs::create_dir_all(&dir).expect("create scratch dir");
    dir
}

/// [`parse_nvlink_args`] without the raw option list (`given`), which only
/// [`nvlink_cmd::recorded_command_line`] reads; tested on its own below.
fn parse_meaning(args: &[String]) -> Result<NvlinkArgs, String> {
    parse_nvlink_args(args).map(|parsed| NvlinkArgs { given: Vec::new(), ..parsed })
}

fn base() -> NvlinkArgs {
    NvlinkArgs { arch: Some("sm_90".into()), output: Some("out.cubin".into()), ..NvlinkArgs::default() }
}

#[test]
fn options_parse_as_nvlink_spells_them() {
    // (command line, what it must parse to)
    let cases: Vec<(&[&str], NvlinkArgs)> = vec![
        (&["-arch=sm_90", "a.cubin", "-o", "out.cubin"], NvlinkArgs { inputs: files(&["a.cubin"]), ..base() }),
        (&["-arch", "sm_90", "a.cubin", "-o", "out.cubin"], NvlinkArgs { inputs: files(&["a.cubin"]), ..base() }),
        (&["--arch", "sm_90", "-o=out.cubin", "a.cubin"], NvlinkArgs { inputs: files(&["a.cubin"]), ..base() }),
        (
            &["--arch=sm_90", "--output-file", "out.cubin", "a.cubin"],
            NvlinkArgs { inputs: files(&["a.cubin"]), ..base() },
        ),
        (&["--arch=sm_90", "--output-file=out.cubin", "a", "b"], NvlinkArgs { inputs: files(&["a", "b"]), ..base() }),
        (
            &["-arch=sm_90", "-r", "-g", "-m64", "-o", "out.cubin", "a"],
            NvlinkArgs { relocatable: true, debug: true, inputs: files(&["a"]), ..base() },
        ),
        (
            &["-arch=sm_90", "--relocatable-link", "--debug", "-m", "64", "--machine=64", "-o", "out.cubin", "a"],
            NvlinkArgs { relocatable: true, debug: true, inputs: files(&["a"]), ..base() },
        ),
        (
            &["-arch=sm_90", "-o", "out.cubin", "-L/x", "-L", "/y", "--library-path=/z,/w", "a", "-lfoo", "-l", "bar"],
            NvlinkArgs {
                library_paths: strings(&["/x", "/y", "/z", "/w"]),
                inputs: vec![
                    InputArg::File("a".into()),
                    InputArg::Library("foo".into()),
                    InputArg::Library("bar".into()),
                ],
                ..base()
            },
        ),
        (
            &["-arch=sm_90", "-o", "out.cubin", "--library=m,n", "a"],
            NvlinkArgs {
                inputs: vec![InputArg::Library("m".into()), InputArg::Library("n".into()), InputArg::File("a".into())],
                ..base()
            },
        ),
        (
            &[
                "-arch=sm_90",
                "-o",
                "out.cubin",
                "-kernels-used=k1,k2",
                "--kernels-used",
                "k3",
                "-variables-used",
                "v",
                "a",
            ],
            NvlinkArgs {
                kernels_used: Some(strings(&["k1", "k2", "k3"])),
                variables_used: Some(strings(&["v"])),
                inputs: files(&["a"]),
                ..base()
            },
        ),
        // Blanks round list items are trimmed: nvlink 13.5 keeps k1 and k2
        // for `-kernels-used=_Z2k1Pi, _Z2k2Pi` and k1 for `= _Z2k1Pi`, and
        // records the list without them (sweep35 `option-list-blanks`).
        (
            &["-arch=sm_90", "-o", "out.cubin", "-kernels-used=k1, k2", "-variables-used= v ,", "a"],
            NvlinkArgs {
                kernels_used: Some(strings(&["k1", "k2"])),
                variables_used: Some(strings(&["v"])),
                inputs: files(&["a"]),
                ..base()
            },
        ),
        (
            &["-arch=sm_90", "-o", "out.cubin", "-preserve-relocs", "-dump-callgraph", "-v", "-w", "a"],
            NvlinkArgs {
                preserve_relocs: true,
                dump_callgraph: Some(true),
                verbose: true,
                disable_warnings: true,
                inputs: files(&["a"]),
                ..base()
            },
        ),
        (
            &["-arch=sm_90", "-o", "out.cubin", "--dump-callgraph-no-demangle", "--disable-warnings", "-Werror", "a"],
            NvlinkArgs {
                dump_callgraph: Some(false),
                disable_warnings: true,
                warning_as_error: true,
                inputs: files(&["a"]),
                ..base()
            },
        ),
        // What nvcc -dlink passes.
        (
            &[
                "-m64",
                "--arch=sm_90",
                "--register-link-binaries=/tmp/x.reg.c",
                "-L/cuda/lib",
                "-cpu-arch=X86_64",
                "k.o",
                "-lcudadevrt",
                "-o",
                "out.cubin",
                "--host-ccbin",
                "gcc",
            ],
            NvlinkArgs {
                register_link_binaries: Some("/tmp/x.reg.c".into()),
                library_paths: strings(&["/cuda/lib"]),
                cpu_arch: Some("X86_64".into()),
                host_ccbin: Some("gcc".into()),
                inputs: vec![InputArg::File("k.o".into()), InputArg::Library("cudadevrt".into())],
                ..base()
            },
        ),
        (&["-host-ccbin=cc", "-arch=sm_90", "-o", "out.cubin"], NvlinkArgs { host_ccbin: Some("cc".into()), ..base() }),
        (&["--help"], NvlinkArgs { help: true, ..NvlinkArgs::default() }),
        (&["-h"], NvlinkArgs { help: true, ..NvlinkArgs::default() }),
        (&["--version"], NvlinkArgs { version: true, ..NvlinkArgs::default() }),
        (&["-V"], NvlinkArgs { version: true, ..NvlinkArgs::default() }),
        (&["-arch=sm_90", "-o", "out.cubin", "--threads", "3"], NvlinkArgs { threads: Some(3), ..base() }),
        // Accepted, no effect on the output (`-disable-infos` only drops
        // the stack-size and ISA_CLASS messages).
        (
            &["-arch=sm_90", "-o", "out.cubin", "-disable-infos", "-time", "-"],
            NvlinkArgs { time_file: Some("-".to_string()), disable_infos: true, ..base() },
        ),
        // Messages only.
        (
            &["-arch=sm_90", "-o", "out.cubin", "-suppress-arch-warning"],
            NvlinkArgs { suppress_arch_warning: true, ..base() },
        ),
        // Accepted but refused when linking.
        (&["-arch=sm_90", "-o", "out.cubin", "-dlto"], NvlinkArgs { not_supported: strings(&["-dlto"]), ..base() }),
        // A later different value wins, with nvlink's warning.
        (
            &["-arch=sm_80", "-arch=sm_90", "-o", "out.cubin"],
            NvlinkArgs {
                warnings: strings(&[
                    "incompatible redefinition for option 'arch', the last value of this option was used",
                ]),
                ..base()
            },
        ),
        (&["-arch=sm_90", "-arch=sm_90", "-o", "out.cubin"], base()),
        // A lone '-' is a file name, as for nvlink.
        (&["-arch=sm_90", "-o", "out.cubin", "-"], NvlinkArgs { inputs: files(&["-"]), ..base() }),
    ];
    for (line, expected) in cases {
        let parsed = parse_meaning(&strings(line));
        assert_eq!(parsed.as_ref(), Ok(&expected), "{line:?}");
    }
}

/// Rule 7.5: the command line nvlink 13.5 recorded in `.note.nv.tkinfo` for
/// each of these (read back from its outputs; /tmp experiments on the multi
/// program's objects).
#[test]
fn recorded_command_lines_match_nvlinks_notes() {
    let cases: &[(&[&str], &str)] = &[
        (&["-arch=sm_90", "a.o"], "-arch sm_90 "),
        (&["--arch", "sm_90", "-m", "64", "a.o"], "-arch sm_90 -m 64 "),
        (&["-m64", "--arch=sm_90", "a.o", "-r"], "-arch sm_90 -m 64 -r  "),
        // nvcc -G -dlink's line: with -g the .reg.c file is recorded, nameless,
        // by its basename, after -L (nvlink 13.5's note, session 11).
        (
            &[
                "-m64",
                "--arch=sm_90",
                "--register-link-binaries=/tmp/tmpxft_1/x.reg.c",
                "-g",
                "-L/t/lib",
                "-cpu-arch=X86_64",
                "-report-arch",
                "/tmp/a.o",
                "b.o",
                "-lcudadevrt",
                "-o",
                "/tmp/out.cubin",
                "--host-ccbin",
                "gcc",
            ],
            "a.o,b.o -o out.cubin -g  -arch sm_90 -m 64 -l cudadevrt -L /t/lib - x.reg.c -cpu-arch X86_64 -report-arch  ",
        ),
        // nvcc -dlink's line: --register-link-binaries (without -g) and --host-ccbin are not recorded.
        (
            &[
                "-m64",
                "--arch=sm_90",
                "--register-link-binaries=r.c",
                "-L.",
                "-ldev",
                "-L/t/bin/../lib/stubs",
                "-L/t/bin/../lib",
                "-cpu-arch=X86_64",
                "-report-arch",
                "main.o",
                "-lcudadevrt",
                "-o",
                "x.cubin",
                "--host-ccbin",
                "gcc",
            ],
            "-arch sm_90 -m 64 -l dev,cudadevrt -L .,/t/bin/../lib/stubs,/t/bin/../lib -cpu-arch X86_64 -report-arch  ",
        ),
        // Repeated list values are kept, a repeated flag is written once, the
        // last of two -arch values wins.
        (
            &["-arch=sm_75", "-arch=sm_90", "-v", "-v", "-lx", "-lx", "-ly", "-Lq", "-Lq", "a.o"],
            "-arch sm_90 -l x,x,y -L q,q -v  ",
        ),
        (
            &[
                "-v2",
                "-w",
                "-Werror",
                "-suppress-stack-size-warning",
                "-suppress-arch-warning",
                "-disable-infos",
                "-extrawarn",
                "-dump-callgraph",
                "-ignore-host-info",
                "-maxrregcount=32",
                "-split-compile=2",
                "-variables-used=abc",
                "-kernels-used=abc",
                "-preserve-relocs",
                "-report-arch",
                "-cpu-arch=X86_64",
                "-Lq",
                "-lz",
                "-m64",
                "-v",
                "--arch=sm_90",
                "a.o",
            ],
            "-suppress-stack-size-warning  -suppress-arch-warning  -arch sm_90 -m 64 -l z -L q -v  -v2  \
             -preserve-relocs  -w  -Werror  -disable-infos  -kernels-used abc -variables-used abc -cpu-arch X86_64 \
             -report-arch  -extrawarn  -split-compile 2 -maxrregcount 32 -dump-callgraph  -ignore-host-info  ",
        ),
        (
            &["-nvvmpath=/x", "-split-compile-extended=3", "-dump-callgraph-no-demangle", "--arch=sm_90", "a.o"],
            "-arch sm_90 -nvvmpath /x -split-compile-extended 3 -dump-callgraph-no-demangle  ",
        ),
        (&["--arch=sm_90", "-time", "t.csv", "a.o"], "-arch sm_90 "),
        // -suppress-debug-info and -device-stack-protector's places (nvlink
        // 13.5's note of this command line, session 24).
        (
            &[
                "-device-stack-protector=true",
                "-suppress-debug-info",
                "-arch=sm_90",
                "-g",
                "-report-arch",
                "-extrawarn",
                "-Xptxas",
                "-O3",
                "-maxrregcount=64",
                "-dump-callgraph",
                "-use-host-info",
                "-split-compile=2",
                "-nvvmpath=/tmp",
                "-cpu-arch=X86_64",
                "-r",
                "frp_x.cubin",
                "-o",
                "t9.cubin",
            ],
            "frp_x.cubin -o t9.cubin -g  -arch sm_90 -cpu-arch X86_64 -report-arch  -extrawarn  -nvvmpath /tmp \
             -split-compile 2 -suppress-debug-info  -Xptxas -O3 -maxrregcount 64 -dump-callgraph  -use-host-info  -r  \
             -device-stack-protector true ",
        ),
        // With -g: the input files' basenames (not -l libraries), then -o's basename.
        (
            &[
                "-g",
                "--arch=sm_90",
                "/tmp/nv/main.o",
                "./scale.o",
                "lib/libdev.a",
                "-lcudadevrt",
                "-o",
                "sub/x.cubin",
                "-r",
            ],
            "main.o,scale.o,libdev.a -o x.cubin -g  -arch sm_90 -l cudadevrt -r  ",
        ),
    ];
    for (line, expected) in cases {
        let parsed = parse_nvlink_args(&strings(line)).expect("parses");
        assert_eq!(nvlink_cmd::recorded_command_line(&parsed), *expected, "{line:?}");
    }
    // With -g, options files leave one `-optf ` after everything else, as in
    // nvlink 13.5's note of `-g -optf opts.txt -optf o2.txt` and of `-g -optf
    // opts.txt -device-stack-protector=true -r` (sweep35 `optf-debug-tkinfo`).
    let dir = scratch("optf-record");
    let (opts, more) = (dir.join("opts.txt"), dir.join("o2.txt"));
    std::fs::write(&opts, "-kernels-used=_Z2k1Pi\n").expect("write");
    std::fs::write(&more, "-L /tmp\n").expect("write");
    let (opts, more) = (opts.to_string_lossy().into_owned(), more.to_string_lossy().into_owned());
    for (line, expected) in [
        (
            vec!["-arch=sm_90", "-g", "-optf", &opts, "-optf", &more, "a.o", "b.o", "-o", "out3.cubin"],
            "a.o,b.o -o out3.cubin -g  -arch sm_90 -L /tmp -kernels-used _Z2k1Pi -optf  ",
        ),
        (
            vec![
                "-arch=sm_90",
                "-g",
                "-optf",
                &opts,
                "-device-stack-protector=true",
                "-r",
                "a.o",
                "b.o",
                "-o",
                "out2.cubin",
            ],
            "a.o,b.o -o out2.cubin -g  -arch sm_90 -kernels-used _Z2k1Pi -r  -device-stack-protector true -optf  ",
        ),
        (vec!["-arch=sm_90", "-optf", &opts, "a.o", "-o", "out.cubin"], "-arch sm_90 -kernels-used _Z2k1Pi "),
    ] {
        let parsed = parse_nvlink_args(&strings(&line)).expect("parses");
        assert_eq!(nvlink_cmd::recorded_command_line(&parsed), expected, "{line:?}");
    }
}

#[test]
fn bad_command_lines_get_nvlinks_messages() {
    let cases: &[(&[&str], &str)] = &[
        (&["--bogus"], "Unknown option '--bogus'"),
        (&["-bogus=3"], "Unknown option '-bogus'"),
        (&["-rr"], "Unknown option '-rr'"),
        (&["-ofoo"], "Unknown option '-ofoo'"),
        (&["--o", "x"], "Unknown option '--o'"),
        (&["-output-file", "x"], "Unknown option '-output-file'"),
        (&["-register-link-binaries", "x"], "Unknown option '-register-link-binaries'"),
        (&["-r=1"], "no argument expected after '-r'"),
        (&["--relocatable-link=yes"], "no argument expected after '--relocatable-link'"),
        (&["-arch"], "argument expected after '-arch'"),
        (&["a.cubin", "-o"], "argument expected after '-o'"),
        (&["-arch=sm_91"], "Value 'sm_91' is not defined for option 'arch'"),
        (&["-m32"], "Value '32' is not defined for option 'machine'"),
        (&["-cpu-arch=x86_64"], "Value 'x86_64' is not defined for option 'cpu-arch'"),
        (
            &["-dump-callgraph", "-dump-callgraph-no-demangle"],
            "Conflicting options '-dump-callgraph' and '-dump-callgraph-no-demangle'",
        ),
        (&["--threads", "many"], "Value 'many' is not defined for option 'threads' (a number)"),
        (&["-Ofc=max", "a.o"], "Conflicting options '--Ofast-compile' and 'no -dlto'"),
        (&["-suppress-debug-info", "a.o"], "Conflicting options '-suppress-debug-info' and 'no -g'"),
    ];
    for (line, message) in cases {
        assert_eq!(parse_nvlink_args(&strings(line)), Err(message.to_string()), "{line:?}");
    }
}

#[test]
fn missing_target_output_and_inputs_are_reported_in_nvlinks_order() {
    let check = |line: &[&str], message: &str| {
        let parsed = parse_nvlink_args(&strings(line)).expect("parses");
        let error = nvlink_cmd::request_from_args(&parsed).expect_err("must be refused");
        assert!(error.starts_with(message), "{line:?}: {error}");
    };
    check(&["a.cubin", "-o", "x"], "Unknown arch name '(null)'");
    check(&["-arch=sm_90", "a.cubin"], "Must specify output file with -o option");
    check(&["-arch=sm_90"], "Must specify output file with -o option");
    check(&["-arch=sm_90", "-o", "x"], "No input files specified; use option --help for more information");
    check(&["-arch=lto_90", "-o", "x", "a"], "Link target of 'lto_90' is virtual target that is not JIT-able");
    // A virtual target needs no output (nvcc gives it none): only inputs.
    check(&["-arch=compute_90"], "No input files specified");
    // Family targets are taken (rule 13.9).
    let parsed = parse_nvlink_args(&strings(&["-arch=sm_100f", "-o", "x", "a"])).expect("parses");
    let request = nvlink_cmd::request_from_args(&parsed).expect("sm_100f is a target");
    assert_eq!(request.arch.to_string(), "sm_100");
}

#[test]
fn options_files_and_response_files_insert_their_words_in_place() {
    let dir = scratch("optf");
    let first = dir.join("first.opts");
    std::fs::write(&first, "-arch=sm_90\n\"with space.cubin\" -o out.cubin\n").expect("write");
    let second = dir.join("second.opts");
    std::fs::write(&second, "-r b.cubin").expect("write");
    let first = first.to_string_lossy().into_owned();
    let second = second.to_string_lossy().into_owned();
    let expected = NvlinkArgs { inputs: files(&["a.cubin", "with space.cubin", "c.cubin"]), ..base() };
    for line in [
        vec!["a.cubin".to_string(), "-optf".into(), first.clone(), "c.cubin".into()],
        vec!["a.cubin".to_string(), format!("--options-file={first}"), "c.cubin".into()],
        vec!["a.cubin".to_string(), format!("@{first}"), "c.cubin".into()],
    ] {
        assert_eq!(parse_meaning(&line), Ok(expected.clone()), "{line:?}");
    }
    let both = parse_nvlink_args(&[format!("--options-file={first},{second}")]).expect("parses");
    assert_eq!(both.inputs, files(&["with space.cubin", "b.cubin"]));
    assert!(both.relocatable);

    // A file that includes itself stops with an error rather than looping.
    let looping = dir.join("loop.opts");
    std::fs::write(&looping, format!("a.cubin @{}", looping.display())).expect("write");
    let error = parse_nvlink_args(&[format!("@{}", looping.display())]).expect_err("loops");
    assert!(error.contains("does one include itself"), "{error}");

    let missing = dir.join("missing.opts").to_string_lossy().into_owned();
    for line in [vec!["-optf".to_string(), missing.clone()], vec![format!("@{missing}")]] {
        let error = parse_nvlink_args(&line).expect_err("missing file");
        assert!(error.starts_with(&format!("Could not open options file '{missing}'")), "{error}");
    }
    let _ = std::fs::remove_dir_all(&dir);
}

#[test]
fn options_file_words() {
    let cases: &[(&str, &[&str])] = &[
        ("", &[]),
        ("  -arch=sm_90\t a.cubin\n\n-o x  ", &["-arch=sm_90", "a.cubin", "-o", "x"]),
        ("\"a b.cubin\" c", &["a b.cubin", "c"]),
        ("\"\"", &[""]),
        ("x\"y z\"w", &["xy zw"]),
        ("\"say \\\"hi\\\"\"", &["say \"hi\""]),
        // nvlink keeps single quotes and '#' as they are.
        ("'a.cubin' # b", &["'a.cubin'", "#", "b"]),
    ];
    for (text, words) in cases {
        assert_eq!(split_options_file(text), strings(words), "{text:?}");
    }
}

#[test]
fn the_option_table_has_one_row_per_spelling() {
    let mut seen = std::collections::HashSet::new();
    for option in nvlink_cmd::OPTIONS {
        assert!(seen.insert(format!("--{}", option.long)), "--{} twice", option.long);
        if let Some(short) = option.short {
            assert!(seen.insert(format!("-{short}")) || short == option.long, "-{short} twice");
        }
    }
    // Every spelling nvlink --help lists for the options the brief names.
    for spelling in ["-arch", "--arch", "-o", "--output-file", "-r", "--relocatable-link", "-g", "-L", "-l", "-v", "-w"]
    {
        assert!(seen.contains(spelling), "{spelling} missing");
    }
}

fn os(args: &[&str]) -> Vec<OsString> {
    args.iter().map(OsString::from).collect()
}

#[test]
fn exit_statuses_follow_nvlink() {
    assert_eq!(nvlink_cmd::run_nvlink(os(&["--bogus"])), FATAL_STATUS);
    assert_eq!(nvlink_cmd::run_nvlink(os(&["-arch=sm_91", "a"])), FATAL_STATUS);
    assert_eq!(nvlink_cmd::run_nvlink(os(&["-arch=sm_90", "-o", "x"])), FATAL_STATUS);
    assert_eq!(nvlink_cmd::run_nvlink(os(&["--help"])), 0);
    assert_eq!(nvlink_cmd::run_nvlink(os(&["--version"])), 0);
    let dir = scratch("status");
    let out = dir.join("out.cubin").to_string_lossy().into_owned();
    let missing = dir.join("missing.cubin").to_string_lossy().into_owned();
    assert_eq!(nvlink_cmd::run_nvlink(os(&["-arch=sm_90", &missing, "-o", &out])), FATAL_STATUS);
    assert_eq!(nvlink_cmd::run_nvlink(os(&["-arch=sm_90", "-dlto", &missing, "-o", &out])), FATAL_STATUS);
    assert!(!Path::new(&out).exists());
    let _ = std::fs::remove_dir_all(&dir);
}

fn entries(dir: &Path) -> Vec<String> {
    let mut names: Vec<String> = std::fs::read_dir(dir)
        .expect("read dir")
        .map(|e| e.expect("entry").file_name().to_string_lossy().into_owned())
        .collect();
    names.sort();
    names
}

#[test]
fn a_failed_link_leaves_no_output_and_keeps_an_existing_one() {
    let fixtures = fixtures_dir();
    let main = fixtures.join("obj/sm_90/calls_main.cubin");
    let dir = scratch("partial");
    // A cubin cut short: the header says cubin, the rest is missing.
    let cut = dir.join("cut.cubin");
    let bytes = std::fs::read(&main).expect("fixture");
    std::fs::write(&cut, &bytes[..100]).expect("write");
    let missing = dir.join("missing.cubin");
    // Code for another target (a damaged cubin alone is skipped, as nvlink
    // skips it, and gives nvlink's empty output: rule 13.6).
    let other_arch = fixtures.join("obj/sm_100/calls_main.cubin");
    let out = dir.join("out.cubin");
    for inputs in [vec![&missing], vec![&other_arch], vec![&main, &cut]] {
        // No output before: none after.
        let _ = std::fs::remove_file(&out);
        let mut line = os(&["-arch=sm_90", "-o"]);
        line.push(out.clone().into());
        line.extend(inputs.iter().map(|p| OsString::from(p.as_os_str())));
        let status = nvlink_cmd::run_nvlink(line.clone());
        assert!(status == FATAL_STATUS || status == LINK_ERROR_STATUS, "{inputs:?}: status {status}");
        assert!(!out.exists(), "{inputs:?}: output written");
        // An existing output: untouched, and no temporary file left beside it.
        std::fs::write(&out, b"previous").expect("write");
        let status = nvlink_cmd::run_nvlink(line);
        assert_ne!(status, 0);
        assert_eq!(std::fs::read(&out).expect("read"), b"previous");
        assert_eq!(entries(&dir), ["cut.cubin", "out.cubin"]);
    }
    let _ = std::fs::remove_dir_all(&dir);
}

#[test]
fn a_link_writes_what_the_library_links() {
    // Whatever state the linker is in: the command writes exactly the library's
    // bytes when it links, and nothing when it does not.
    let fixtures = fixtures_dir();
    let a = fixtures.join("obj/sm_90/calls_main.cubin");
    let b = fixtures.join("obj/sm_90/calls_lib.cubin");
    let dir = scratch("link");
    let out = dir.join("out.cubin");
    let (da, db) = (std::fs::read(&a).expect("fixture"), std::fs::read(&b).expect("fixture"));
    let sa = a.to_string_lossy().into_owned();
    let sb = b.to_string_lossy().into_owned();
    let mut options = develf_link::LinkOptions::new(Arch::parse("sm_90").expect("arch"));
    options.output_name = out.to_string_lossy().into_owned();
    let library = develf_link::link(&options, &[develf_link::Input::new(&sa, &da), develf_link::Input::new(&sb, &db)]);
    let status = nvlink_cmd::run_nvlink(os(&["-arch=sm_90", &sa, &sb, "-o", &out.to_string_lossy()]));
    match library {
        Ok(bytes) => {
            assert_eq!(status, 0);
            assert_eq!(std::fs::read(&out).expect("output"), bytes);
            // develf link: the same bytes.
            let out2 = dir.join("out2.cubin");
            let args = nvlink_cmd::DevelfLinkArgs {
                arch: "sm_90".into(),
                output: out2.clone(),
                inputs: vec![a.clone(), b.clone()],
                ..Default::default()
            };
            assert_eq!(nvlink_cmd::run_develf_link(&args), 0);
            assert_eq!(std::fs::read(&out2).expect("output"), bytes);
        }
        Err(_) => {
            assert_ne!(status, 0);
            assert_eq!(entries(&dir), Vec::<String>::new());
        }
    }
    let _ = std::fs::remove_dir_all(&dir);
}

#[test]
fn invoked_as_nvlink_by_basename() {
    for (argv0, expected) in [
        ("nvlink", true),
        ("/opt/develf/bin/nvlink", true),
        ("nvlink.exe", true),
        ("develf", false),
        ("/usr/bin/nvlink-old", false),
    ] {
        assert_eq!(nvlink_cmd::invoked_as_nvlink(argv0.as_ref()), expected, "{argv0}");
    }
}

fn dump(names: &[&str], arch: &str) -> String {
    let fixtures = fixtures_dir();
    let data: Vec<Vec<u8>> = names.iter().map(|n| std::fs::read(fixtures.join(n)).expect("fixture")).collect();
    let inputs: Vec<develf_link::Input<'_>> =
        names.iter().zip(&data).map(|(name, bytes)| develf_link::Input::new(name, bytes)).collect();
    develf_cli::callgraph_dump::callgraph_dump(&inputs, Arch::parse(arch).expect("arch"), true)
}

const HEADER: &str = "# A: s -> B // s (number A) potentially calls B\n# s [N]     // s uses N registers\n# ^s        // s is entry point\n# &s        // s has address taken\n";

#[test]
fn call_graph_dumps_match_nvlink() {
    // nvlink 13.5 -dump-callgraph on the same inputs (stderr, verbatim).
    let cases: &[(&[&str], &str, &str)] = &[
        (
            &["obj/sm_90/calls_main.cubin", "obj/sm_90/calls_lib.cubin"],
            "sm_90",
            "1: ^calls_fib_kernel(int *, int) [24] -> 2\n2: lib_fib(int) [24] -> 2\n3: ^calls_kernel(int *, int) [24] -> 4\n4: lib_scale(int) [24] ->\n",
        ),
        (
            &["obj/sm_90/fptr_main.cubin", "obj/sm_90/fptr_ops.cubin"],
            "sm_90",
            "1: ^fptr_direct_kernel(int *) [24] -> 6 5 3 2 6 5 3 2\n2: &fptr_times3(int) [24] ->\n3: &fptr_add1(int) [24] ->\n4: ^fptr_kernel(int *, int, int) [24] -> 6 5 3 2 6 5 3 2\n5: &fptr_ident(int) [24] ->\n6: &fptr_neg(int) [24] ->\n",
        ),
        (
            &["obj/sm_90/sys_main.cubin", "obj/sm_90/sys_util.cubin"],
            "sm_90",
            "1: ^sys_kernel(int *, int) [26] -> 6 5 4 3 2\n2: malloc ->\n3: sys_checked(int) [38] -> 7\n4: free ->\n5: vprintf ->\n6: sys_report(const char *, int) [37] -> 5\n7: __assertfail ->\n8: \nregcount 38 for sys_checked(int) propagated to entry sys_kernel(int *, int)\n",
        ),
        (
            &["obj/sm_75/sync_atomics.cubin", "obj/sm_75/sync_warp.cubin"],
            "sm_75",
            "1: ^sync_spin_kernel(int *, int) [14] ->\n2: ^sync_atomic_kernel(int *, float *, int) [24] -> 3\n3: sync_warp_sum(int) [24] -> 4 5 6 7 8 9\n4: __cuda_sm70_matchsync_any_b32 [24] ->\n5: __cuda_sm70_votesync_all [24] ->\n6: __cuda_sm70_votesync_any [24] ->\n7: __cuda_sm70_votesync_ballot [24] ->\n8: __cuda_sm70_shflsync_bfly_p [24] ->\n9: __cuda_sm70_shflsync_down_p [24] ->\n",
        ),
        // Kernels launched from the device are entries with their address
        // taken: `^&` (session 42; sweep27 p284 alike).
        (
            &["obj/sm_90/kul.cubin", "obj/sm_90/launch_rt.cubin"],
            "sm_90",
            "1: ^kul_main(int *) [24] -> 3 2\n2: __cudaCDP2GetParameterBufferV2 [24] ->\n3: __cudaCDP2LaunchDeviceV2 [24] ->\n4: ^&kul_zero(int *) [8] ->\n5: ^&kul_dyn(int *) [12] ->\n6: ^&kul_last(int *) [8] ->\n",
        ),
    ];
    for (inputs, arch, body) in cases {
        assert_eq!(dump(inputs, arch), format!("callgraph for {arch}:\n{HEADER}{body}"), "{inputs:?}");
    }
    let raw = dump(&["obj/sm_90/calls_main.cubin", "obj/sm_90/calls_lib.cubin"], "sm_90");
    assert!(raw.contains("1: ^calls_fib_kernel(int *, int)"));
    let fixtures = fixtures_dir();
    let data = std::fs::read(fixtures.join("obj/sm_90/calls_main.cubin")).expect("fixture");
    let mangled = develf_cli::callgraph_dump::callgraph_dump(
        &[develf_link::Input::new("m", &data)],
        Arch::parse("sm_90").expect("arch"),
        false,
    );
    assert!(mangled.contains("1: ^_Z16calls_fib_kernelPii [24] ->"), "{mangled}");
}

#[test]
fn demangled_names_read_as_nvlinks() {
    for (mangled, expected) in [
        ("_Z10sys_reportPKci", "sys_report(const char *, int)"),
        ("_Z16calls_fib_kernelPii", "calls_fib_kernel(int *, int)"),
        ("_ZN42_INTERNAL_70ea571f_11_fptr_ops_cu_8b71b38110fptr_identEi", "fptr_ident(int)"),
        ("vprintf", "vprintf"),
        ("_Znot-a-name", "_Znot-a-name"),
        // nvlink 13.5 -dump-callgraph (f7 p1, p3).
        ("_Z4tmixIiET_S0_S0_", "T1 tmix<int>(T1, T1)"),
        ("_Z4tmixIdET_S0_S0_", "T1 tmix<double>(T1, T1)"),
        ("_Z2wkILi5EEii", "int wk<(int)5>(int)"),
        // nvlink 13.5 -dump-callgraph, sweep27 (session 42): a library's
        // file-local kernel (libcudadevrt), ptxas's local clones, a deleting
        // destructor, a file-local template after its return type.
        (
            "__nv_static_51__0afad4c0_22_cuda_device_runtime_cu_f78b5b52_735892__Z16memset_3d_deviceIjLi0ELi0ELi0EEv12MemsetParamsIT_E",
            "void memset_3d_device<unsigned int, (int)0, (int)0, (int)0>(MemsetParams<T1>)",
        ),
        ("_Z7h2_poly7__half2$10", "h2_poly(__half2)"),
        ("_Z9shape_sumPKP5Shapei$11", "shape_sum(Shape *const *, int)"),
        ("_ZN5ShapeD0Ev", "Shape::~Shape() [deleting]"),
        ("_ZN34_INTERNAL_e4a19ffb_4_b_cu_ec3df3375tex2DIfEET_yff", "T1 tex2D<float>(unsigned long long, float, float)"),
        // `const` before a builtin type of several words; base-object
        // constructors and destructors.
        ("_Z5k_ptxPjPKji", "k_ptx(unsigned int *, const unsigned int *, int)"),
        ("_Z5k_gcdPxPKxS1_i", "k_gcd(long long *, const long long *, const long long *, int)"),
        ("_ZN4RectD2Ev", "Rect::~Rect() [subobject]"),
        ("_ZN4RectC2Eiff", "Rect::Rect(int, float, float) [subobject]"),
        // nvlink 13.5 -dump-callgraph, sweep27 `-G` (session 43): a template
        // argument that is a template parameter, a bool literal, base-object
        // constructors of template classes, operator names.
        (
            "_Z14tile_incl_scanIiLi16EET_N18cooperative_groups4__v117thread_block_tileIXT0_EvEES0_",
            "T1 tile_incl_scan<int, (int)16>(cooperative_groups::__v1::thread_block_tile<T2, void>, T1)",
        ),
        (
            "_ZN18cooperative_groups4__v17details22thread_block_tile_implILj16ENS0_12thread_blockELb0EEC2ERKS3_",
            "cooperative_groups::__v1::details::thread_block_tile_impl<(unsigned int)16, cooperative_groups::__v1::thread_block, (bool)0>::thread_block_tile_impl(const cooperative_groups::__v1::thread_block &) [subobject]",
        ),
        (
            "_ZN18cooperative_groups4__v117thread_group_baseILj3EEC2Ev",
            "cooperative_groups::__v1::thread_group_base<(unsigned int)3>::thread_group_base() [subobject]",
        ),
        ("_ZnwmPv", "operator new (unsigned long, void *)"),
        ("_ZN7__half2aSEOKS_", "__half2::operator =(const __half2&&)"),
        ("_ZN14__nv_bfloat162C1EOS_", "__nv_bfloat162::__nv_bfloat162(__nv_bfloat162&&)"),
        (
            "_ZN18cooperative_groups4__v17details22thread_block_tile_implILj16EvLb0EEC2ILj16ENS0_12thread_blockELb0EEERKNS2_IXT_ET0_XT1_EEE",
            "cooperative_groups::__v1::details::thread_block_tile_impl<(unsigned int)16, void, (bool)0>::thread_block_tile_impl<(unsigned int)16, cooperative_groups::__v1::thread_block, (bool)0>(const cooperative_groups::__v1::details::thread_block_tile_impl<T1, T2, T3> &) [subobject]",
        ),
        // sweep28 (session 43): an anonymous namespace, volatile, a literal
        // of an enumeration.
        (
            "_ZN32_INTERNAL_580a8d71_4_a_cu_g_bops34_GLOBAL__N__580a8d71_4_a_cu_g_bops6helperEi",
            "<unnamed>::helper(int)",
        ),
        ("_ZN4cuda3std3__415__cuda_is_localEPVKv", "cuda::std::__4::__cuda_is_local(const volatile void *)"),
        (
            "_ZN4cuda3std3__426__cuda_fetch_local_bop_addIjEEvRVT_RKS3_",
            "void cuda::std::__4::__cuda_fetch_local_bop_add<unsigned int>(volatile T1 &, const T1 &)",
        ),
        (
            "_ZN34_INTERNAL_bfcbe4f1_4_c_cu_d1a5b2884cuda3std3__418__cuda_atomic_loadIjEEvPKT_RS4_NS2_17integral_constantINS2_22__atomic_cuda_memorderELS9_2EEENS2_25__atomic_cuda_operand_tagILNS2_21__atomic_cuda_operandE3ELm32EEENS2_24__thread_scope_block_tagENS8_IbLb0EEE",
            "void cuda::std::__4::__cuda_atomic_load<unsigned int>(const T1 *, T1 &, cuda::std::__4::integral_constant<cuda::std::__4::__atomic_cuda_memorder, (cuda::std::__4::__atomic_cuda_memorder)2>, cuda::std::__4::__atomic_cuda_operand_tag<(cuda::std::__4::__atomic_cuda_operand)3, (unsigned long)32>, cuda::std::__4::__thread_scope_block_tag, cuda::std::__4::integral_constant<bool, (bool)0>)",
        ),
        // sweep28 p292 `-G` (nvlink 13.5): a pointer to a template parameter
        // that first opened a nested name has no space; sweep26 p272 `-G`:
        // one that first stood in template arguments has.
        (
            "_ZN4cuda3std3__427__atomic_fetch_add_dispatchIKNS1_20__atomic_ref_storageIjEEjNS1_24__thread_scope_block_tagELi0EEENT_14__underlying_tEPS7_T0_NS1_12memory_orderET1_",
            "T1::__underlying_t cuda::std::__4::__atomic_fetch_add_dispatch<const cuda::std::__4::__atomic_ref_storage<unsigned int>, unsigned int, cuda::std::__4::__thread_scope_block_tag, (int)0>(T1*, T2, cuda::std::__4::memory_order, T3)",
        ),
        (
            "_ZN33_INTERNAL_178b7c21_4_a_cu_m_count10tex1DfetchIfEEN15__nv_itex_traitIT_E4typeEPS2_yi",
            "__nv_itex_trait<T1>::type tex1Dfetch<float>(T1 *, unsigned long long, int)",
        ),
        // sweep29 p300 (nvlink 13.5): a pack expansion of a template
        // parameter.
        (
            "_Z7apply_nIZ10k_lambda_aPfifEUlffiE_JffiEEfT_DpT0_",
            "float apply_n<k_lambda_a(float *, int, float)::[lambda(float, float, int) (instance 1)], float, float, int>(T1, T2...)",
        ),
        // sweep29 p301 `-G` (nvlink 13.5): `operator <` with template
        // arguments, three template argument lists closed together.
        (
            "_ZN4cuda3std3__46chronoltIxNS1_5ratioILl1ELl1000000000EEEEEbRKNS2_8durationIxS5_EERKNS6_IT_T0_EE",
            "bool cuda::std::__4::chrono::operator <<long long, cuda::std::__4::ratio<(long)1, (long)1000000000>>(const cuda::std::__4::chrono::duration<long long, cuda::std::__4::ratio<(long)1, (long)1000000000>> &, const cuda::std::__4::chrono::duration<T1, T2> &)",
        ),
        (
            "_ZN4cuda3std3__431__cccl_thread_poll_with_backoffINS1_28__barrier_poll_tester_parityINS_3__47barrierILNS1_12thread_scopeE2ENS1_18__empty_completionEEEEEEEbOT_NS1_6chrono8durationIxNS1_5ratioILl1ELl1000000000EEEEE",
            "bool cuda::std::__4::__cccl_thread_poll_with_backoff<cuda::std::__4::__barrier_poll_tester_parity<cuda::__4::barrier<(cuda::std::__4::thread_scope)2, cuda::std::__4::__empty_completion>>>(T1 &&, cuda::std::__4::chrono::duration<long long, cuda::std::__4::ratio<(long)1, (long)1000000000>>)",
        ),
        // sweep29 `repro/cg-demangle` (nvlink 13.5): an array reference, a
        // pack of a parameter, a variadic constructor template's pack.
        ("_Z6first4IfET_PKS0_RA4_S0_", "T1 first4<float>(const T1 *, T1 (&)[4])"),
        ("_Z7sum_allIJifdEEfDpT_", "float sum_all<int, float, double>(T1...)"),
        ("_ZN4ImplC1IJRfRiEEE5tag_tDpOT_", "Impl::Impl<float &, int &>(tag_t, T1 &&...)"),
        // sweep32 p330 (nvlink 13.5): an array sized by a template
        // parameter, an entity as a template argument, a decltype of calls.
        ("_Z8blk_sortILi128ELi4EjEvRAT0__T1_", "void blk_sort<(int)128, (int)4, unsigned int>(T3 (&)[T2])"),
        (
            "_ZN4cuda3std3__44spanIjLm9EEC1ILm9ELb1ELi0EEERAT__j",
            "cuda::std::__4::span<unsigned int, (unsigned long)9>::span<(unsigned long)9, (bool)1, (int)0>(unsigned int (&)[T1])",
        ),
        (
            "_ZN4cuda3std3__44fmaxIfLb1ELi0EEENS1_11conditionalIL_ZNS1_13is_integral_vEEdT_E4typeES4_S4_",
            "cuda::std::__4::conditional<cuda::std::__4::is_integral_v, double, T1>::type cuda::std::__4::fmax<float, (bool)1, (int)0>(T1, T1)",
        ),
        (
            "_ZNK4cuda3std3__44plusIvEclIRiS5_EEDTplclgssr4cuda3stdE7forwardIT_Efp_Eclgssr4cuda3stdE7forwardIT0_Efp0_EEOS6_OS7_",
            "decltype((::cuda::std::forward<T1>(param#1)+::cuda::std::forward<T2>(param#2))) cuda::std::__4::plus<void>::operator ()<int &, int &>(T1 &&, T2 &&) const",
        ),
        // sweep33 p342 (nvlink 13.5): a template template parameter applied
        // to arguments in the signature.
        ("_Z6unbox1I3BoxfET0_RKT_IS1_E", "T2 unbox1<Box, float>(const T1<T2> &)"),
        ("_Z5norm2I3VecfLi4EET0_RKT_IS1_XT1_EE", "T2 norm2<Vec, float, (int)4>(const T1<T2, T3> &)"),
        // Operators of a class template taking their own class (p342 `-G`).
        (
            "_ZN3lib4core6detail3VecIfLi4EEpLERKS3_",
            "lib::core::detail::Vec<float, (int)4>::operator +=(const lib::core::detail::Vec<float, (int)4>&)",
        ),
        (
            "_ZNK3lib4core6detail3VecIfLi4EEeqERKS3_",
            "lib::core::detail::Vec<float, (int)4>::operator ==(const lib::core::detail::Vec<float, (int)4>&) const",
        ),
        // Session 49's decltype probes (nvlink 13.5 -dump-callgraph, sm_90):
        // operators never parenthesise their operands, a member access is
        // parenthesised, literals are casts, floats print as C's %g.
        ("_Z5twiceIfEDTmlfp_Li2EERKT_", "decltype((param#1*(int)2)) twice<float>(const T1 &)"),
        ("_Z2f6IiEDtfp_ET_", "decltype(param#1) f6<int>(T1)"),
        ("_Z2f8I1PEDtdtfp_1xET_", "decltype((param#1.x)) f8<P>(T1)"),
        ("_Z2f9I1PEDtptfp_1xEPT_", "decltype((param#1->x)) f9<P>(T1 *)"),
        ("_Z2f7IiEDTqultfp_fp0_fp_fp0_ET_S1_", "decltype((param#1<param#2?param#1:param#2)) f7<int>(T1, T1)"),
        ("_Z3f10IiEDTsclfp_ET_", "decltype((static_cast<long>(param#1))) f10<int>(T1)"),
        ("_Z3f12IPiEDTixfp_Li0EET_", "decltype((param#1[(int)0])) f12<int *>(T1)"),
        ("_Z3f14IiEDTplfp_Lb1EET_", "decltype((param#1+(bool)1)) f14<int>(T1)"),
        ("_Z3f15IiEDTplstT_fp_ES0_", "decltype((sizeof(T1)+param#1)) f15<int>(T1)"),
        ("_Z2f1IiEDTmlfp_Lj2EERKT_", "decltype((param#1*(unsigned int)2)) f1<int>(const T1 &)"),
        ("_Z2g1IiEDTplmlfp_Li2Efp0_ET_S1_", "decltype((param#1*(int)2+param#2)) g1<int>(T1, T1)"),
        ("_Z2g2IiEDTmlfp_plfp0_Li1EET_S1_", "decltype((param#1*param#2+(int)1)) g2<int>(T1, T1)"),
        ("_Z2g4I1QEDTpldtfp_1xLi1EET_", "decltype(((param#1.x)+(int)1)) g4<Q>(T1)"),
        ("_Z2g5IiEDTcvdfp_ET_", "decltype(((double)param#1)) g5<int>(T1)"),
        ("_Z2g6IiEDTadixfp_Li1EEPT_", "decltype((&param#1[(int)1])) g6<int>(T1 *)"),
        ("_Z2g8IdEDTmlfp_ngLd3ff4000000000000EET_", "decltype((param#1*-(double)1.25)) g8<double>(T1)"),
        ("_Z3g10IyEDTplfp_Ly7EET_", "decltype((param#1+(unsigned long long)7)) g10<unsigned long long>(T1)"),
        ("_Z3g11IiEDTcvT_fp_ES0_", "decltype(((T1)param#1)) g11<int>(T1)"),
        ("_Z3g12IiEDTaSfp_fp0_ET_S1_", "decltype((param#1=param#2)) g12<int>(T1, T1)"),
        ("_Z3g13IiEDTpLfp_Li2EET_", "decltype((param#1+=(int)2)) g13<int>(T1)"),
        ("_Z2h1IfEDTmlfp_Lf3dcccccdEET_", "decltype((param#1*(float)0.1)) h1<float>(T1)"),
        ("_Z2h3IfEDTmlfp_Lf501502f9EET_", "decltype((param#1*(float)1e+10)) h3<float>(T1)"),
        ("_Z2h4IiEDTplszfp_fp_ET_", "decltype((sizeof(param#1)+param#1)) h4<int>(T1)"),
        ("_Z2h5IiEDTplatT_fp_ES0_", "decltype((alignof(T1)+param#1)) h5<int>(T1)"),
        ("_Z2h6IiEDTpp_fp_ET_", "decltype((++param#1)) h6<int>(T1)"),
        ("_Z2h7IiEDTppfp_ET_", "decltype((param#1++)) h7<int>(T1)"),
        ("_Z2h8IiEDTpldefp_Li1EEPT_", "decltype((*param#1+(int)1)) h8<int>(T1 *)"),
        ("_Z3h14IiEDTcvsfp_ET_", "decltype(((short)param#1)) h14<int>(T1)"),
        ("_Z3h15IPiEDTrcPKcfp_ET_", "decltype((reinterpret_cast<const char *>(param#1))) h15<int *>(T1)"),
        ("_Z3h17IfEDTdvmlfp_Lf3f800000ELi3EET_", "decltype((param#1*(float)1.0/(int)3)) h17<float>(T1)"),
        // A member call, a call of a named function, a parameter a level
        // out (a decltype in a parameter's type), a non-type template
        // parameter, floating literals in the fewest digits that read back.
        ("_Z2f2IiEDTplfp_Ll3EET_", "decltype((param#1+(long)3)) f2<int>(T1)"),
        ("_Z2f3IiEDTngfp_ET_", "decltype((-param#1)) f3<int>(T1)"),
        ("_Z2f4IiEDTntfp_ET_", "decltype((!param#1)) f4<int>(T1)"),
        ("_Z2f5IiEDTcofp_ET_", "decltype((~param#1)) f5<int>(T1)"),
        ("_Z2g9IiEDTplfp_Lc97EET_", "decltype((param#1+(char)97)) g9<int>(T1)"),
        ("_Z2h9IiEDTmlfp_ngLi3EET_", "decltype((param#1*-(int)3)) h9<int>(T1)"),
        ("_Z2m1I1REDTcldtfp_1fEET_", "decltype(((param#1.f)())) m1<R>(T1)"),
        ("_Z2m2I1REDTcldtfp_1gLi1EEET_", "decltype(((param#1.g)((int)1))) m2<R>(T1)"),
        ("_Z2m3I1REDTclptfp_1fEEPT_", "decltype(((param#1->f)())) m3<R>(T1 *)"),
        ("_Z2m4I1REDTcldtcl8declval_IT_EE1fEES1_", "decltype(((declval_<T1>().f)())) m4<R>(T1)"),
        ("_Z2m5IfiEDTmlfp_fp0_ET_T0_", "decltype((param#1*param#2)) m5<float, int>(T1, T2)"),
        ("_Z2m6IiEvT_PDTplfL0p_Li1EE", "void m6<int>(T1, decltype((param#1[up 1 level]+(int)1)) *)"),
        ("_Z2m7IiEDTmifp_Lj1EET_", "decltype((param#1-(unsigned int)1)) m7<int>(T1)"),
        ("_Z2m8IiEDTrmfp_Li3EET_", "decltype((param#1%(int)3)) m8<int>(T1)"),
        ("_Z2m9IiEDTeqfp_Li0EET_", "decltype((param#1==(int)0)) m9<int>(T1)"),
        ("_Z3h10IiEDTplfp_Lx100000000000EET_", "decltype((param#1+(long long)100000000000)) h10<int>(T1)"),
        ("_Z3h11IdEDTmlfp_Ld3eff75104d551d69EET_", "decltype((param#1*(double)3e-05)) h11<double>(T1)"),
        ("_Z3h12IiEDTaafp_Lb1EET_", "decltype((param#1&&(bool)1)) h12<int>(T1)"),
        ("_Z3h13IiEDTrsfp_Li2EET_", "decltype((param#1>>(int)2)) h13<int>(T1)"),
        ("_Z3m10IfEDTmlfp_Ld3ff8000000000000EET_", "decltype((param#1*(double)1.5)) m10<float>(T1)"),
        ("_Z3m11IdEDTmlfp_Ld40fe240b33333333EET_", "decltype((param#1*(double)123456.7)) m11<double>(T1)"),
        ("_Z3m12IdEDTmlfp_Ld4132d68700000000EET_", "decltype((param#1*(double)1234567.0)) m12<double>(T1)"),
        ("_Z3m13IdEDTmlfp_Ld3f1a36e2eb1c432dEET_", "decltype((param#1*(double)0.0001)) m13<double>(T1)"),
        ("_Z3m14IfEDTmlfp_Lf00000000EET_", "decltype((param#1*(float)0.0)) m14<float>(T1)"),
        ("_Z3m15IiEDTplfp_cvhLi1EET_", "decltype((param#1+(unsigned char)(int)1)) m15<int>(T1)"),
        ("_Z3m16ILi7EiEDTmlfp_T_ET0_", "decltype((param#1*T1)) m16<(int)7, int>(T2)"),
        // Session 49's probes c.cu, e.cu (`-G`), f.cu (nvlink 13.5): inheriting
        // constructors; a pointer or reference to the function's class or
        // a class enclosing it is unspaced, to another class not; a nested
        // name after a substituted prefix (cpp_demangle 0.5.1 misprints it).
        ("_ZN2bn5LimbsCI1NS_8LimbBaseEEj", "bn::Limbs::bn::LimbBase(unsigned int) [complete inheriting]"),
        ("_ZN2bn5LimbsCI1NS_8LimbBaseEEif", "bn::Limbs::bn::LimbBase(int, float) [complete inheriting]"),
        ("_ZN2bn2TDIiECI1NS_2TBIiEEEi", "bn::TD<int>::bn::TB<int>(int) [complete inheriting]"),
        ("_ZN2PDCI15PlainEi", "PD::Plain(int) [complete inheriting]"),
        ("_ZN2bn3MidCI2NS_2VBEEi", "bn::Mid::bn::VB(int) [base inheriting]"),
        (
            "_ZN5other3TD2IfECI1N2ns2TBIfLi3EEEERKfPKNS3_IfLi3EEE",
            "other::TD2<float>::ns::TB<float, (int)3>(const float &, const ns::TB<float, (int)3> *) [complete inheriting]",
        ),
        (
            "_ZN5other5Outer1DCI1NS0_2InEEiPS0_",
            "other::Outer::D::other::Outer::In(int, other::Outer*) [complete inheriting]",
        ),
        (
            "_ZN2ns2TBIfLi3EEC2ERKfPKS1_",
            "ns::TB<float, (int)3>::TB(const float &, const ns::TB<float, (int)3>*) [subobject]",
        ),
        ("_ZN5other5Outer2InC1EiPS0_", "other::Outer::In::In(int, other::Outer*)"),
        ("_Z1gPN2ns3FooERS0_S1_", "g(ns::Foo *, ns::Foo &, ns::Foo *)"),
        (
            "_ZN2ns1A1B1mEPS0_RS0_PS1_RKS1_PNS_3FooERS7_",
            "ns::A::B::m(ns::A*, ns::A&, ns::A::B*, const ns::A::B&, ns::Foo *, ns::Foo &)",
        ),
        ("_ZN2ns1A1nEPS0_PNS_3FooEPNS0_1BE", "ns::A::n(ns::A*, ns::Foo *, ns::A::B *)"),
        (
            "_ZN2ns2TAIfE2In1mEPS1_PS2_PNS0_IiEE",
            "ns::TA<float>::In::m(ns::TA<float>*, ns::TA<float>::In*, ns::TA<int> *)",
        ),
        (
            "_Z1kPiP3FooPN2ns3FooEPNS2_1AEPNS5_1BEPNS2_2TAIfEEPNSA_2InEPNS9_IiEE",
            "k(int *, Foo *, ns::Foo *, ns::A *, ns::A::B *, ns::TA<float> *, ns::TA<float>::In *, ns::TA<int> *)",
        ),
        // A decltype of an entity first in a nested name (libcu++'s
        // `__to_unsigned_like`, session 49's g.cu `-G`; i.cu): two
        // substitutions to nvlink (and c++filt), one to cpp_demangle; an
        // expression as a template argument.
        (
            "_ZN4cuda3std3__418__to_unsigned_likeIlEENDtL_ZNS1_13__apply_cvrefEEE6__callINS1_20__make_unsigned_implINS1_15remove_volatileINS1_12remove_constIT_E4typeEE4typeEXooL_ZNS1_13is_integral_vEEL_ZNS1_9is_enum_vEEEE4typeEEES8_",
            "decltype(cuda::std::__4::__apply_cvref)::__call<cuda::std::__4::__make_unsigned_impl<cuda::std::__4::remove_volatile<cuda::std::__4::remove_const<T1>::type>::type, cuda::std::__4::is_integral_v||cuda::std::__4::is_enum_v>::type> cuda::std::__4::__to_unsigned_like<long>(cuda::std::__4::remove_const)",
        ),
        (
            "_ZN2ns1fIiEENDtL_ZNS_2vtEEE6__callINS_1RIT_E4typeEEES4_PNS_1QES9_",
            "decltype(ns::vt)::__call<ns::R<T1>::type> ns::f<int>(ns::R, ns::Q *, ns::Q)",
        ),
        // Session 49's j.cu, i.cu: a pointer or reference to a class met
        // first as a scope (a prefix substitution) is unspaced, to one met
        // first as a type not.
        ("_Z1fN5Outer5InnerEPS_", "f(Outer::Inner, Outer*)"),
        ("_Z1g5OuterNS_5InnerEPS_", "g(Outer, Outer::Inner, Outer *)"),
        ("_Z1hN2ns2O22InERS0_PKS0_", "h(ns::O2::In, ns::O2&, const ns::O2*)"),
        ("_Z1tN2ns2TTIiE2InEPS1_", "t(ns::TT<int>::In, ns::TT<int>*)"),
        ("_Z1uN2ns2TTIiEENS1_2InEPS1_", "u(ns::TT<int>, ns::TT<int>::In, ns::TT<int> *)"),
        (
            "_ZN2ns1gIiEENDtL_ZNS_2vtEEE6__callINS_1RIT_E4typeEEES4_PS4_",
            "decltype(ns::vt)::__call<ns::R<T1>::type> ns::g<int>(ns::R, ns::R*)",
        ),
        // Session 49's cub.cu `-G` (libcu++'s tuple and optional): an
        // enumeration literal among a constructor template's arguments, an
        // inheriting constructor template.
        (
            "_ZN4cuda3std3__45tupleIJifEEC1IJRifELi0ELNS1_20__select_constructorE1ELi0EEEDpOT_",
            "cuda::std::__4::tuple<int, float>::tuple<int &, float, (int)0, (cuda::std::__4::__select_constructor)1, (int)0>(T1 &&...)",
        ),
        (
            "_ZN4cuda3std3__420__optional_copy_baseIiLNS1_18__smf_availabilityE0EECI2NS1_24__optional_destruct_baseIiLb1EEEIJRiEEENS1_10in_place_tEDpOT_",
            "cuda::std::__4::__optional_copy_base<int, (cuda::std::__4::__smf_availability)0>::cuda::std::__4::__optional_destruct_base<int, (bool)1><int &>(cuda::std::__4::in_place_t, T1 &&...) [base inheriting]",
        ),
        // Session 49's lib2.cu `-G` (libcu++'s floating-point storage): an
        // entity as a template argument of a call in a decltype.
        (
            "_ZN4cuda3std3__417__fp_from_storageIfEET_DTcl22__fp_storage_type_implIL_ZNS1_16__fp_format_of_vEEEEE",
            "T1 cuda::std::__4::__fp_from_storage<float>(decltype((__fp_storage_type_impl<cuda::std::__4::__fp_format_of_v>())))",
        ),
        // Session 49's lib3.cu `-G` (libcu++'s invoke, make_tuple, bitset): a
        // pack expansion of a type other than a parameter, of an expression;
        // `operator <<` with template arguments.
        (
            "_ZN4cuda3std3__410make_tupleIJRiRf2PtEEENS1_5tupleIJDpNS1_16unwrap_ref_decayIT_E4typeEEEEDpOS8_",
            "cuda::std::__4::tuple<cuda::std::__4::unwrap_ref_decay<T1>::type...> cuda::std::__4::make_tuple<int &, float &, Pt>(T1 &&...)",
        ),
        (
            "_ZN4cuda3std3__46invokeINS1_5minusIiEEJRiS5_EEENS1_13invoke_resultIT_JDpT0_EE4typeEOS7_DpOS8_",
            "cuda::std::__4::invoke_result<T1, T2...>::type cuda::std::__4::invoke<cuda::std::__4::minus<int>, int &, int &>(T1 &&, T2 &&...)",
        ),
        (
            "_ZN4cuda3std3__48__invokeINS1_5minusIiEEJRiS5_EEEDTclclL_ZNS1_7declvalEEEspclL_ZNS1_7declvalEEEEEOT_DpOT0_",
            "decltype((cuda::std::__4::declval()(cuda::std::__4::declval()...))) cuda::std::__4::__invoke<cuda::std::__4::minus<int>, int &, int &>(T1 &&, T2 &&...)",
        ),
        (
            "_ZN4cuda3std3__4lsIjEENS1_18__avoid_promotionsIjEES4_T_",
            "cuda::std::__4::__avoid_promotions<unsigned int> cuda::std::__4::operator <<<unsigned int>(cuda::std::__4::__avoid_promotions<unsigned int>, T1)",
        ),
        // Session 49's lib4.cu `-G`: a member template returning a reference
        // to its own class.
        ("_ZN3Acc3addIfEERS_RKT_", "Acc& Acc::add<float>(const T1 &)"),
        // sweep35 `callgraph-demangle` and session 49's ic.cu (nvlink 13.5): a
        // generic lambda, a null pointer argument, an operator returning its
        // class, inheriting constructors from a plain-named base.
        ("_Z4callIZ3usefEUlT_E_EfOS0_f", "float call<use(float)::[lambda(T1) (instance 1)]>(T1 &&, float)"),
        ("_ZZ3usefENKUlT_E_clIfEEDaS_", "auto use(float)::[lambda(T1) (instance 1)]::operator ()<float>(T1) const"),
        ("_ZN1DCI11BIRiEEiOT_", "D::B(int, T1 &&) [complete inheriting]"),
        ("_Z1fILb0ELPi0EEii", "int f<(bool)0, (int *)0>(int)"),
        ("_Z1hILb0ELc0ELPi0EEii", "int h<(bool)0, (char)0, (int *)0>(int)"),
        (
            "_ZN2ns2in1VIJifEEaSIRiivEERS2_OT_",
            "ns::in::V<int, float>& ns::in::V<int, float>::operator =<int &, int, void>(T1 &&)",
        ),
        ("_ZN1DCI11BIiEEii", "D::B(int, int) [complete inheriting]"),
        ("_ZN2E2IfECI11BIfEIiEEPT_", "E2<float>::B<int>(T1 *) [complete inheriting]"),
        // Fixture tl (nvlink 13.5): a lambda's closure type.
        (
            "_Z8tl_applyIZ6host_aPfiEUlfiE_EvS0_iT_",
            "void tl_apply<host_a(float *, int)::[lambda(float, int) (instance 1)]>(float *, int, T1)",
        ),
    ] {
        assert_eq!(develf_cli::nvlink_demangle::demangle_like_nvlink(mangled), expected);
    }
}

/// Rule 13.3: a libcudadevrt.a whose member (a host object) joined nothing
/// takes no object after it. nvlink 13.5: `devrt_def.cubin libcudadevrt.a
/// devrt_need.cubin` is fatal ("unexpected object after cudadevrt", exit 1,
/// sm_75 and sm_90, with the stand-in library as with NVIDIA's); with
/// `devrt_need` first the member joins (a function is still undefined) and
/// the link succeeds (options/devrt_pulled.*, byte-identical there).
#[test]
fn an_object_after_an_unused_system_library_is_fatal() {
    let fixtures = fixtures_dir();
    let dir = scratch("devrt");
    let out = dir.join("out.cubin").to_string_lossy().into_owned();
    for arch in ["sm_75", "sm_90"] {
        let path = |name: &str| fixtures.join(format!("obj/{arch}/{name}")).to_string_lossy().into_owned();
        let (def, lib, need) = (path("devrt_def.cubin"), path("libcudadevrt.a"), path("devrt_need.cubin"));
        let target = format!("-arch={arch}");
        let _ = std::fs::remove_file(&out);
        assert_eq!(nvlink_cmd::run_nvlink(os(&[&target, &def, &lib, &need, "-o", &out])), FATAL_STATUS, "{arch}");
        assert!(!Path::new(&out).exists(), "{arch}: output written");
        assert_eq!(nvlink_cmd::run_nvlink(os(&[&target, &need, &lib, &def, "-o", &out])), 0, "{arch}");
        assert!(Path::new(&out).exists(), "{arch}: no output");
        // An archive of that name holding a raw cubin keeps the plain rule:
        // nvlink 13.5 links `def, lib, need` (exit 0) and pulls nothing in
        // for `need, lib, def` (its output equals `need, def`'s).
        let raw = dir.join(format!("raw-{arch}")).join("libcudadevrt.a");
        std::fs::create_dir_all(raw.parent().expect("parent")).expect("mkdir");
        let member = std::fs::read(path("launch_rt.cubin")).expect("fixture");
        std::fs::write(&raw, ar_archive("launch_rt.cubin", &member)).expect("write");
        let raw = raw.to_string_lossy().into_owned();
        assert_eq!(
            nvlink_cmd::run_nvlink(os(&[&target, &def, &raw, &need, "-o", &out])),
            0,
            "{arch}: raw cubin archive"
        );
        let pulled_nothing = dir.join("plain.cubin").to_string_lossy().into_owned();
        assert_eq!(nvlink_cmd::run_nvlink(os(&[&target, &need, &def, "-o", &pulled_nothing])), 0, "{arch}");
        assert_eq!(nvlink_cmd::run_nvlink(os(&[&target, &need, &raw, &def, "-o", &out])), 0, "{arch}");
        assert_eq!(std::fs::read(&out).expect("out"), std::fs::read(&pulled_nothing).expect("plain"), "{arch}");
        // f08: a raw cubin whose path contains "cudadevrt" is searched the
        // same way. nvlink 13.5: `cudadevrt_user.cubin devrt_def.cubin` is
        // fatal; `devrt_var.cubin cudadevrt_user.cubin` fails with
        // "Undefined reference to 'devrt_fake_counter'" (exit 255: an
        // undefined variable makes nothing join, though that cubin defines it).
        let user = path("cudadevrt_user.cubin");
        let _ = std::fs::remove_file(&out);
        assert_eq!(nvlink_cmd::run_nvlink(os(&[&target, &user, &def, "-o", &out])), FATAL_STATUS, "{arch}: sysname");
        assert!(!Path::new(&out).exists(), "{arch}: output written");
        assert_eq!(
            nvlink_cmd::run_nvlink(os(&[&target, &path("devrt_var.cubin"), &user, "-o", &out])),
            LINK_ERROR_STATUS,
            "{arch}: variable pulled the system cubin in"
        );
        assert!(!Path::new(&out).exists(), "{arch}: output written");
    }
    let _ = std::fs::remove_dir_all(&dir);
}

/// A GNU `ar` archive of one member.
fn ar_archive(name: &str, data: &[u8]) -> Vec<u8> {
    let mut out = b"!<arch>\n".to_vec();
    out.extend(
        format!("{:<16}{:<12}{:<6}{:<6}{:<8}{:<10}`\n", format!("{name}/"), 0, 0, 0, 644, data.len()).as_bytes(),
    );
    out.extend_from_slice(data);
    if data.len() % 2 == 1 {
        out.push(b'\n');
    }
    out
}

/// Session 24 (sweep7): what nvlink 13.5 writes besides a link. `-ghls
/// lcs-aug` writes the fatbin sections' host linker script and links
/// nothing (inputs are an error); `-time FILE` starts a new file with its
/// CSV header and leaves an existing one as it is; an `ar` archive with no
/// members is taken and adds nothing; `-l` libraries alone are no inputs.
#[test]
fn files_nvlink_writes_besides_a_link() {
    let fixtures = fixtures_dir();
    let checks = fixtures.join("checks");
    let dir = scratch("besides");
    let lds = dir.join("s.lds");
    assert_eq!(nvlink_cmd::run_nvlink(os(&["-ghls=lcs-aug", "-o", &lds.to_string_lossy()])), 0);
    assert_eq!(
        std::fs::read(&lds).expect("script"),
        std::fs::read(checks.join("ghls_lcs_aug.nvlink.lds")).expect("nvlink's")
    );
    let main = fixtures.join("obj/sm_90/calls_main.cubin").to_string_lossy().into_owned();
    let lib = fixtures.join("obj/sm_90/calls_lib.cubin").to_string_lossy().into_owned();
    assert_eq!(nvlink_cmd::run_nvlink(os(&["-ghls=lcs-aug", "-o", &lds.to_string_lossy(), &main])), FATAL_STATUS);
    let csv = dir.join("t.csv").to_string_lossy().into_owned();
    let out = dir.join("out.cubin").to_string_lossy().into_owned();
    for _ in 0..2 {
        assert_eq!(nvlink_cmd::run_nvlink(os(&["-w", "-time", &csv, "-arch=sm_90", &main, &lib, "-o", &out])), 0);
        assert_eq!(std::fs::read(&csv).expect("csv"), std::fs::read(checks.join("time.nvlink.csv")).expect("nvlink's"));
    }
    let empty = checks.join("empty.a").to_string_lossy().into_owned();
    assert_eq!(nvlink_cmd::run_nvlink(os(&["-arch=sm_90", &main, &empty, &lib, "-o", &out])), 0);
    let theirs = std::fs::read(checks.join("empty_archive_links.nvlink.cubin")).expect("nvlink's");
    assert!(std::fs::read(&out).expect("output") == theirs, "the link with an empty archive differs from nvlink's");
    let parsed = parse_nvlink_args(&strings(&["-arch=sm_90", "-L.", "-lcudadevrt", "-o", "x.cubin"])).expect("parses");
    assert_eq!(
        nvlink_cmd::request_from_args(&parsed).err().as_deref(),
        Some("No input files specified; use option --help for more information")
    );
    let _ = std::fs::remove_dir_all(&dir);
}

/// `-dump-callgraph`'s demangler on hostile names (on a test thread's
/// 2 MiB stack): a template nested far past the demangler's depth limit and
/// a thunk of thunks come back as they are, without overflowing the stack;
/// a real thunk and a deep but legal name demangle; a megabyte-long name
/// ends.
#[test]
fn callgraph_names_survive_hostile_symbols() {
    let nested = |depth: usize| {
        let mut name = String::from("_Z1fI");
        name.push_str(&"1AI".repeat(depth));
        name.push('i');
        name.push_str(&"E".repeat(depth));
        name.push_str("Evv");
        name
    };
    let deep = nested(5000);
    assert_eq!(develf_cli::nvlink_demangle::demangle_like_nvlink(&deep), deep);
    let thunks = format!("_Z{}NK1C1gEv", "Thn8_".repeat(20000));
    assert_eq!(develf_cli::nvlink_demangle::demangle_like_nvlink(&thunks), thunks);
    assert_eq!(
        develf_cli::nvlink_demangle::demangle_like_nvlink("_ZThn16_NK1C1gEv"),
        "Thunk for (offset -16) C::g() const"
    );
    assert!(develf_cli::nvlink_demangle::demangle_like_nvlink(&nested(20)).starts_with("void f<A<A<"));
    // A megabyte of substitutions with template arguments, each of which the
    // rewrite would scan past: demangled as it is, the rewrite skipped.
    let long = format!("_Z1f1A{}", "PS_IiE".repeat(200_000));
    assert!(!develf_cli::nvlink_demangle::demangle_like_nvlink(&long).is_empty());
}

/// `-report-arch`: nvlink 13.5 ends every message with the target, warnings
/// included (sweep35 `report-arch-warning-suffix`: `nvlink warning : Stack
/// size for entry function '_Z1kPi' cannot be statically determined
/// (target: sm_90)`; errors, infos and `merge_elf failed` alike).
#[test]
fn report_arch_names_the_target_after_each_message() {
    use develf_cli::nvlink_cmd::{Reporter, Style};
    let parsed = parse_nvlink_args(&strings(&["-arch=sm_90", "-report-arch", "a.o"])).expect("parses");
    assert!(parsed.report_arch);
    let reporter = Reporter { suffix: " (target: sm_90)".into(), ..Reporter::new(Style::Nvlink) };
    assert_eq!(
        reporter.formatted("warning", "Stack size for entry function '_Z1kPi' cannot be statically determined"),
        "nvlink warning : Stack size for entry function '_Z1kPi' cannot be statically determined (target: sm_90)"
    );
    assert_eq!(reporter.formatted("fatal", "merge_elf failed"), "nvlink fatal   : merge_elf failed (target: sm_90)");
}

/// Failed links' warnings (docs/nvlink-layout.md, session 50), against
/// nvlink 13.5's standard error and exit status for each command
/// (options/failing-warnings.txt, written by options/failing-warnings.sh
/// from the fixture objects): rule 7.1's stack-size warnings and the
/// missing-ISA_CLASS one before undefined references, register limits and
/// static shared memory, as in a link that succeeds; the ISA_CLASS warning
/// around multiple definitions (before them for the inputs nvlink read
/// before the one it finds them in, after them for that one, none after
/// it); "Output is limited to run on SM Arch 'XX' only due to limitations
/// in input file F" before an sm_100+ link fails on an older input; `-w`,
/// `-disable-infos`, `-suppress-stack-size-warning` and `-Werror` as for
/// infos. The errors keep develf's own words: a run of error (or fatal)
/// lines that are not these warnings counts as one line in both.
#[test]
fn failed_links_warn_as_nvlink_does() {
    use develf_cli::nvlink_cmd::{Reporter, Style};
    let dir = fixtures_dir();
    let path = dir.join("options/failing-warnings.txt");
    let text = std::fs::read_to_string(&path).unwrap_or_else(|e| panic!("reading {}: {e}", path.display()));
    let mut blocks: Vec<(String, String)> = Vec::new();
    for line in text.lines().skip(1) {
        match line.strip_prefix("$ ") {
            Some(command) => blocks.push((command.to_string(), String::new())),
            None => {
                let block = &mut blocks.last_mut().expect("a command first").1;
                block.push_str(line);
                block.push('\n');
            }
        }
    }
    // Errors in either tool's words: one line per run.
    let collapsed = |text: &str| -> Vec<String> {
        let mut out: Vec<String> = Vec::new();
        for line in text.lines() {
            let own_words = ["error", "fatal"].into_iter().find(|kind| {
                line.strip_prefix("nvlink ")
                    .and_then(|rest| rest.strip_prefix(kind))
                    .and_then(|rest| rest.trim_start().strip_prefix(": "))
                    .is_some_and(|message| {
                        !["Stack size for entry function", "Output is limited to run", "merge_elf failed"]
                            .iter()
                            .any(|warning| message.starts_with(warning))
                    })
            });
            let line = match own_words {
                Some(kind) => format!("nvlink {kind} (in its own words)"),
                None => line.to_string(),
            };
            if out.last() != Some(&line) {
                out.push(line);
            }
        }
        out
    };
    let prefix = format!("{}/", dir.to_string_lossy());
    let mut warned = 0;
    for (command, theirs) in &blocks {
        let mut words: Vec<String> = command.split_whitespace().skip(1).map(str::to_string).collect();
        let parsed = parse_nvlink_args(&words).unwrap_or_else(|e| panic!("{command}: {e}"));
        words.extend(["-o".to_string(), "out.cubin".to_string()]);
        let mut request = nvlink_cmd::request_from_args(&parse_nvlink_args(&words).expect("parses"))
            .unwrap_or_else(|e| panic!("{command}: {e}"));
        for input in &mut request.inputs {
            if let InputArg::File(file) = input {
                *file = dir.join(&*file).to_string_lossy().into_owned();
            }
        }
        let mut reporter = Reporter {
            disable_warnings: parsed.disable_warnings,
            warning_as_error: parsed.warning_as_error,
            ..Reporter::new(Style::Nvlink)
        };
        let (lines, status) = nvlink_cmd::link_messages(&request, &mut reporter);
        let mut ours: String = lines
            .iter()
            .map(|(kind, text)| format!("{}\n", reporter.formatted(kind, text)).replace(&prefix, ""))
            .collect();
        if status != 0 {
            ours.push_str(&format!("! exit {status}\n"));
        }
        assert_eq!(collapsed(&ours), collapsed(theirs), "{command}\nours:\n{ours}\nnvlink's:\n{theirs}");
        warned += usize::from(theirs.contains(" : Stack size") || theirs.contains(" : Output is limited"));
    }
    assert!(blocks.len() >= 45 && warned >= 30, "{}: fewer links than expected ({warned} warn)", path.display());
}
