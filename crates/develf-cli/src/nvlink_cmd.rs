//! `develf nvlink` (also what `develf` does when it runs under the name `nvlink`)
//! and `develf link`: nvlink's command line on top of [`develf_link::link`].
//!
//! nvlink 13.5's syntax, as read off its behaviour:
//! - long options are `--name`, `--name=value` or `--name value`; short ones
//!   `-name`, `-name=value` or `-name value`. A long name with one dash (`-arch`
//!   is both) only works where it is also the short name;
//! - `-l`/`-L` also take their value glued on (`-lcudadevrt`, `-L/usr/lib`);
//! - list options (`-L`, `-l`, `-kernels-used`, `-optf`, ...) split their value
//!   at commas and may be repeated;
//! - a second, different value for a single-valued option wins, with a warning;
//! - `-optf FILE` reads more options from FILE (words split at white space,
//!   double quotes group and are removed). `@FILE` does the same; nvlink
//!   itself does not take `@FILE`, develf does for build systems that use
//!   response files.
//!
//! Messages go to stderr as `nvlink <kind> : <text>`. Exit status: 0 on success,
//! 1 for a fatal error (bad command line, unreadable input), 255 for link
//! errors (as nvlink's `Undefined reference`) and for warnings under `-Werror`.

use crate::callgraph_dump::{DumpScope, callgraph_dump_kept};
use crate::output_file::{write_atomically, write_atomically_to_file};
use crate::resource_report::resource_report;
use develf_format::header::Arch;
use develf_link::{Input, LinkError, LinkOptions, OutputKind};
use develf_parse::ar::Archive;
use std::borrow::Cow;
use std::collections::VecDeque;
use std::ffi::OsString;
use std::fmt::Write as _;
use std::path::{Path, PathBuf};
use std::process::ExitCode;
use std::time::Instant;

/// What an option does once recognised.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum OptionId {
    Arch,
    OutputFile,
    RelocatableLink,
    Machine,
    Debug,
    LibraryPath,
    Library,
    KernelsUsed,
    VariablesUsed,
    PreserveRelocs,
    IgnoreHostInfo,
    KeepSystemLibraries,
    UseHostInfo,
    DumpCallgraph,
    DumpCallgraphNoDemangle,
    Verbose,
    /// `-v2`: accepted; nvlink 13.5 prints nothing for it alone.
    Verbose2,
    DisableWarnings,
    WarningAsError,
    OptionsFile,
    CpuArch,
    HostCcbin,
    RegisterLinkBinaries,
    Help,
    Version,
    /// `-Xptxas`: options for the ptxas that compiles PTX at link time (rule 13.7).
    PtxasOptions,
    SuppressArchWarning,
    ReportArch,
    SuppressStackSizeWarning,
    /// `-disable-infos`: see [`LinkRequest::disable_infos`].
    DisableInfos,
    /// `-suppress-debug-info`: with `-g`, a link as without it that keeps
    /// unused code (`LinkOptions::debug_suppressed`); without `-g`, an error.
    SuppressDebugInfo,
    /// `-Ofast-compile`: an error without `-dlto`, as in nvlink.
    FastCompile,
    /// `-time FILE`: nvlink's timing table ([`start_time_file`]).
    TimeFile,
    /// `-ghls`: a host linker script instead of a link ([`host_linker_script`]).
    HostLinkerScript,
    /// `-maxrregcount`, `-split-compile`: handed to the ptxas that compiles
    /// PTX inputs, as nvlink hands them to its built-in one.
    PtxasPassThrough,
    /// develf's own: worker threads (also `DEVELF_THREADS`).
    Threads,
    /// Accepted and without effect on develf's output (messages, timing, LTO-only tuning).
    NoEffect,
    /// nvlink options that would change the output in ways develf does not
    /// implement: refused, never silently ignored.
    NotSupported,
}

/// Whether an option takes a value, and how.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum Takes {
    Nothing,
    /// One value; a later different one wins with a warning.
    Value,
    /// Comma-separated values; repeating the option adds more.
    List,
}

/// One row of nvlink's option table.
#[derive(Debug, Clone, Copy)]
pub struct NvlinkOption {
    /// `--long` spelling, without dashes.
    pub long: &'static str,
    /// `-short` spelling, without the dash (`None`: only `--long`).
    pub short: Option<&'static str>,
    pub takes: Takes,
    /// The values nvlink allows, when it restricts them (empty: any).
    pub allowed: &'static [&'static str],
    pub id: OptionId,
    /// The short form also takes its value glued on (`-lcudadevrt`, `-m64`).
    pub glued: bool,
    pub value_name: &'static str,
    pub help: &'static str,
}

const fn opt(
    long: &'static str,
    short: Option<&'static str>,
    takes: Takes,
    id: OptionId,
    value_name: &'static str,
    help: &'static str,
) -> NvlinkOption {
    NvlinkOption { long, short, takes, allowed: &[], id, glued: false, value_name, help }
}

/// `-arch` values nvlink 13.5 accepts (from `nvlink --help`).
pub const ARCH_VALUES: &[&str] = &[
    "compute_100",
    "compute_100a",
    "compute_100f",
    "compute_103",
    "compute_103a",
    "compute_103f",
    "compute_107",
    "compute_107a",
    "compute_107f",
    "compute_110",
    "compute_110a",
    "compute_110f",
    "compute_120",
    "compute_120a",
    "compute_120f",
    "compute_121",
    "compute_121a",
    "compute_121f",
    "compute_75",
    "compute_80",
    "compute_86",
    "compute_87",
    "compute_88",
    "compute_89",
    "compute_90",
    "compute_90a",
    "lto_100",
    "lto_100a",
    "lto_100f",
    "lto_103",
    "lto_103a",
    "lto_103f",
    "lto_107",
    "lto_107a",
    "lto_107f",
    "lto_110",
    "lto_110a",
    "lto_110f",
    "lto_120",
    "lto_120a",
    "lto_120f",
    "lto_121",
    "lto_121a",
    "lto_121f",
    "lto_75",
    "lto_80",
    "lto_86",
    "lto_87",
    "lto_88",
    "lto_89",
    "lto_90",
    "lto_90a",
    "sm_100",
    "sm_100a",
    "sm_100f",
    "sm_103",
    "sm_103a",
    "sm_103f",
    "sm_107",
    "sm_107a",
    "sm_107f",
    "sm_110",
    "sm_110a",
    "sm_110f",
    "sm_120",
    "sm_120a",
    "sm_120f",
    "sm_121",
    "sm_121a",
    "sm_121f",
    "sm_75",
    "sm_80",
    "sm_86",
    "sm_87",
    "sm_88",
    "sm_89",
    "sm_90",
    "sm_90a",
];

const CPU_ARCH_VALUES: &[&str] = &["AARCH64", "ARMv7", "PPC64LE", "RISCV64", "X86", "X86_64", "unknown"];

use OptionId as O;
use Takes::{List, Nothing, Value};

/// nvlink 13.5's options, in `nvlink --help` order, plus develf's `--threads`.
pub const OPTIONS: &[NvlinkOption] = &[
    opt(
        "Ofast-compile",
        Some("Ofc"),
        Value,
        O::FastCompile,
        "<0|min|mid|max>",
        "Fast-compile level (LTO only: an error without -dlto, as in nvlink).",
    ),
    opt("Xnvvm", Some("Xnvvm"), List, O::NotSupported, "<options>,...", "Nvvm options (LTO; not supported by develf)."),
    opt(
        "Xptxas",
        Some("Xptxas"),
        List,
        O::PtxasOptions,
        "<options>,...",
        "Ptxas options, for PTX compiled at link time (as nvlink's built-in ptxas takes them).",
    ),
    NvlinkOption {
        long: "arch",
        short: Some("arch"),
        takes: Value,
        allowed: ARCH_VALUES,
        id: O::Arch,
        glued: false,
        value_name: "<gpu architecture name>",
        help: "The 'sm_' name of the target architecture.",
    },
    NvlinkOption {
        long: "cpu-arch",
        short: Some("cpu-arch"),
        takes: Value,
        allowed: CPU_ARCH_VALUES,
        id: O::CpuArch,
        glued: false,
        value_name: "<cpu architecture name>",
        help: "The host CPU architecture (no effect on the device code).",
    },
    opt("debug", Some("g"), Nothing, O::Debug, "", "This was a debug compile: keep and link debug sections."),
    NvlinkOption {
        long: "device-stack-protector",
        short: Some("device-stack-protector"),
        takes: Value,
        allowed: &["true", "false"],
        id: O::NoEffect,
        glued: false,
        value_name: "<true|false>",
        help: "Stack protectors for code compiled at link time (LTO only; no effect on linked code).",
    },
    opt("disable-infos", Some("disable-infos"), Nothing, O::DisableInfos, "", "Disable all info messages."),
    opt("disable-warnings", Some("w"), Nothing, O::DisableWarnings, "", "Inhibit all warning messages."),
    opt("dlto", Some("dlto"), Nothing, O::NotSupported, "", "Link-time optimization (not supported by develf)."),
    opt("dump-callgraph", Some("dump-callgraph"), Nothing, O::DumpCallgraph, "", "Dump callgraph information."),
    opt(
        "dump-callgraph-no-demangle",
        Some("dump-callgraph-no-demangle"),
        Nothing,
        O::DumpCallgraphNoDemangle,
        "",
        "Dump callgraph information without demangling.",
    ),
    opt("emit-ptx", Some("emit-ptx"), Nothing, O::NotSupported, "", "Emit PTX with LTO (not supported by develf)."),
    opt("extra-warnings", Some("extrawarn"), Nothing, O::NoEffect, "", "Emit extra warnings (no effect)."),
    NvlinkOption {
        long: "gen-host-linker-script",
        short: Some("ghls"),
        takes: Value,
        allowed: &["lcs-abs", "lcs-aug"],
        id: O::HostLinkerScript,
        glued: false,
        value_name: "<host linker script type>",
        help: "Write a host linker script instead of linking (lcs-aug: the fatbin sections; lcs-abs: the host ld's whole script with them).",
    },
    opt("help", Some("h"), Nothing, O::Help, "", "Print this help information."),
    opt(
        "ignore-host-info",
        Some("ignore-host-info"),
        Nothing,
        O::IgnoreHostInfo,
        "",
        "Ignore host reference information: keep kernels no host object names.",
    ),
    opt(
        "keep-system-libraries",
        Some("keep-system-libraries"),
        Nothing,
        O::KeepSystemLibraries,
        "",
        "Link the system library (libcudadevrt) whole, as any other archive, instead of only what the link needs.",
    ),
    opt(
        "kernels-used",
        Some("kernels-used"),
        List,
        O::KernelsUsed,
        "<kernel>,...",
        "Kernels that are used (substrings); the others are removed.",
    ),
    NvlinkOption {
        glued: true,
        ..opt(
            "library",
            Some("l"),
            List,
            O::Library,
            "<library>,...",
            "Libraries to link: lib<library>.a on the -L paths.",
        )
    },
    NvlinkOption {
        glued: true,
        ..opt("library-path", Some("L"), List, O::LibraryPath, "<library-path>,...", "Library search paths.")
    },
    opt(
        "link-as-tools-patch",
        Some("astoolspatch"),
        Nothing,
        O::NotSupported,
        "",
        "Tools-patch link (not supported by develf).",
    ),
    opt(
        "link-time-opt",
        Some("lto"),
        Nothing,
        O::NotSupported,
        "",
        "Link-time optimization (not supported by develf).",
    ),
    NvlinkOption {
        long: "machine",
        short: Some("m"),
        takes: Value,
        allowed: &["64"],
        id: O::Machine,
        glued: true,
        value_name: "<bits>",
        help: "64 bit architecture (the only one).",
    },
    opt(
        "maxrregcount",
        Some("maxrregcount"),
        Value,
        O::PtxasPassThrough,
        "<amount>",
        "Max regcount, for PTX compiled at link time (handed to ptxas).",
    ),
    opt("nvvm-latest", Some("nvvm-latest"), Nothing, O::NoEffect, "", "Newest nvvm (LTO only; no effect)."),
    opt("nvvmpath", Some("nvvmpath"), Value, O::NoEffect, "<path>", "Path to libnvvm (LTO only; no effect)."),
    opt(
        "options-file",
        Some("optf"),
        List,
        O::OptionsFile,
        "<file>,...",
        "Include command line options from these files.",
    ),
    opt("output-file", Some("o"), Value, O::OutputFile, "<file name>", "Name and location of the output file."),
    opt(
        "preserve-relocs",
        Some("preserve-relocs"),
        Nothing,
        O::PreserveRelocs,
        "",
        "Preserve resolved relocations in the linked executable.",
    ),
    opt(
        "register-link-binaries",
        None,
        Value,
        O::RegisterLinkBinaries,
        "<file name>",
        "Write the names of the cudaRegister routines of the linked files to this file.",
    ),
    opt("relocatable-link", Some("r"), Nothing, O::RelocatableLink, "", "Relocatable / incremental link."),
    opt("report-arch", Some("report-arch"), Nothing, O::ReportArch, "", "Report the SM target in error messages."),
    opt(
        "split-compile",
        Some("split-compile"),
        Value,
        O::PtxasPassThrough,
        "<amount>",
        "Compile threads, for PTX compiled at link time (handed to ptxas).",
    ),
    opt(
        "split-compile-extended",
        Some("split-compile-extended"),
        Value,
        O::NoEffect,
        "<amount>",
        "LTO threads (no effect).",
    ),
    opt(
        "suppress-arch-warning",
        Some("suppress-arch-warning"),
        Nothing,
        O::SuppressArchWarning,
        "",
        "No warning when an object lacks code for the target.",
    ),
    opt(
        "suppress-debug-info",
        Some("suppress-debug-info"),
        Nothing,
        O::SuppressDebugInfo,
        "",
        "With -g: no debug information (a plain link that keeps unused code).",
    ),
    opt(
        "suppress-stack-size-warning",
        Some("suppress-stack-size-warning"),
        Nothing,
        O::SuppressStackSizeWarning,
        "",
        "No stack size warning.",
    ),
    opt("time", Some("time"), Value, O::TimeFile, "<file name>", "Timing table: a new file gets its CSV header."),
    opt("uidx-file", Some("uidx"), Value, O::NotSupported, "<file>", "uidx file (not supported by develf)."),
    opt(
        "use-host-info",
        Some("use-host-info"),
        Nothing,
        O::UseHostInfo,
        "",
        "Use host references to remove device code (the default).",
    ),
    opt(
        "variables-used",
        Some("variables-used"),
        List,
        O::VariablesUsed,
        "<variable>,...",
        "Variables that are used (substrings); the others may be removed.",
    ),
    opt("verbose", Some("v"), Nothing, O::Verbose, "", "Verbose mode."),
    opt("verbose2", Some("v2"), Nothing, O::Verbose2, "", "Extended verbose mode."),
    opt("version", Some("V"), Nothing, O::Version, "", "Print version information."),
    opt("warning-as-error", Some("Werror"), Nothing, O::WarningAsError, "", "Make all warnings into errors."),
    // Hidden in nvlink's help, passed by nvcc -dlink; both dash forms work.
    opt("host-ccbin", Some("host-ccbin"), Value, O::HostCcbin, "<path>", "Host compiler (nvcc passes it; no effect)."),
    // develf's own.
    opt(
        "threads",
        Some("threads"),
        Value,
        O::Threads,
        "<count>",
        "develf: worker threads (0: all cores; also DEVELF_THREADS).",
    ),
];

/// How many `-optf`/`@` files one command line may read: a file that includes
/// itself ends here instead of looping.
const MAX_OPTION_FILES: usize = 64;

/// One input on the command line, in order.
#[derive(Debug, Clone, PartialEq, Eq)]
pub enum InputArg {
    File(String),
    /// `-l NAME`: `lib<NAME>.a` on the `-L` paths.
    Library(String),
}

/// The command line, parsed.
#[derive(Debug, Clone, Default, PartialEq, Eq)]
pub struct NvlinkArgs {
    pub arch: Option<String>,
    pub output: Option<String>,
    pub relocatable: bool,
    pub debug: bool,
    pub library_paths: Vec<String>,
    pub inputs: Vec<InputArg>,
    pub kernels_used: Option<Vec<String>>,
    pub variables_used: Option<Vec<String>>,
    pub preserve_relocs: bool,
    /// `-ignore-host-info` (rule 13.5).
    pub ignore_host_info: bool,
    /// `-keep-system-libraries` (rule 13.3).
    pub keep_system_libraries: bool,
    /// `-use-host-info`: nvlink's default, refused together with `-ignore-host-info`.
    pub use_host_info: bool,
    /// `Some(true)`: `-dump-callgraph`; `Some(false)`: `-dump-callgraph-no-demangle`.
    pub dump_callgraph: Option<bool>,
    pub verbose: bool,
    pub disable_warnings: bool,
    pub warning_as_error: bool,
    pub cpu_arch: Option<String>,
    pub host_ccbin: Option<String>,
    pub register_link_binaries: Option<String>,
    pub help: bool,
    pub version: bool,
    pub threads: Option<usize>,
    /// `-Xptxas` values, in order.
    pub ptxas_options: Vec<String>,
    pub suppress_arch_warning: bool,
    /// `-report-arch`: messages end with the target.
    pub report_arch: bool,
    pub suppress_stack_size_warning: bool,
    pub disable_infos: bool,
    pub suppress_debug_info: bool,
    /// `-time FILE`.
    pub time_file: Option<String>,
    /// `-ghls lcs-aug|lcs-abs`.
    pub host_linker_script: Option<String>,
    /// `-maxrregcount`, `-split-compile` (long name, last value), for ptxas.
    pub ptxas_pass_through: Vec<(&'static str, String)>,
    /// Options given that develf refuses, as spelled.
    pub not_supported: Vec<String>,
    /// Warnings about the command line (redefinitions).
    pub warnings: Vec<String>,
    /// Every recognised option in command-line order, options files expanded:
    /// its long name and its values (a list option's split at commas). What
    /// [`recorded_command_line`] renders.
    pub given: Vec<(&'static str, Vec<String>)>,
}

/// Splits an options file into words: white space separates, double quotes
/// group (and are removed), a backslash inside double quotes escapes `"` and `\`.
pub fn split_options_file(text: &str) -> Vec<String> {
    let mut words = Vec::new();
    let mut word = String::new();
    let mut in_word = false;
    let mut quoted = false;
    let mut chars = text.chars().peekable();
    while let Some(c) = chars.next() {
        match c {
            '"' => {
                quoted = !quoted;
                in_word = true;
            }
            '\\' if quoted && matches!(chars.peek(), Some('"' | '\\')) => {
                if let Some(next) = chars.next() {
                    word.push(next);
                }
            }
            c if c.is_whitespace() && !quoted => {
                if in_word {
                    words.push(std::mem::take(&mut word));
                    in_word = false;
                }
            }
            c => {
                word.push(c);
                in_word = true;
            }
        }
    }
    if in_word {
        words.push(word);
    }
    words
}

fn find_option(arg: &str) -> Option<(&'static NvlinkOption, &str, Option<&str>)> {
    let (name, value) = match arg.split_once('=') {
        Some((n, v)) => (n, Some(v)),
        None => (arg, None),
    };
    if let Some(long) = name.strip_prefix("--") {
        return OPTIONS.iter().find(|o| o.long == long).map(|o| (o, name, value));
    }
    let short = name.strip_prefix('-')?;
    if let Some(o) = OPTIONS.iter().find(|o| o.short == Some(short)) {
        return Some((o, name, value));
    }
    // `-lNAME`, `-LPATH`, `-m64`: the value glued on (also when it contains '=').
    OPTIONS.iter().filter(|o| o.glued).find_map(|o| {
        let short = o.short?;
        let rest = arg.strip_prefix('-')?.strip_prefix(short).filter(|r| !r.is_empty())?;
        Some((o, &arg[..short.len() + 1], Some(rest)))
    })
}

fn set_single(slot: &mut Option<String>, value: &str, long: &str, warnings: &mut Vec<String>) {
    if slot.as_deref().is_some_and(|old| old != value) {
        warnings.push(format!("incompatible redefinition for option '{long}', the last value of this option was used"));
    }
    *slot = Some(value.to_string());
}

fn read_options_file(path: &str, read: &mut usize) -> Result<Vec<String>, String> {
    *read += 1;
    if *read > MAX_OPTION_FILES {
        return Err(format!(
            "Options file '{path}': more than {MAX_OPTION_FILES} options files read; does one include itself?"
        ));
    }
    let text = std::fs::read(path).map_err(|e| format!("Could not open options file '{path}': {e}"))?;
    Ok(split_options_file(&String::from_utf8_lossy(&text)))
}

/// Parses nvlink's command line (without the program name). `-optf` and `@`
/// files are read here. `Err` is the text of a fatal error.
pub fn parse_nvlink_args(args: &[String]) -> Result<NvlinkArgs, String> {
    let mut pending: VecDeque<String> = args.iter().cloned().collect();
    let mut parsed = NvlinkArgs::default();
    let mut files_read = 0usize;
    let mut machine: Option<String> = None;
    let mut threads: Option<String> = None;
    let mut fast_compile = false;
    while let Some(arg) = pending.pop_front() {
        if let Some(path) = arg.strip_prefix('@').filter(|p| !p.is_empty()) {
            let words = read_options_file(path, &mut files_read)?;
            for word in words.into_iter().rev() {
                pending.push_front(word);
            }
            continue;
        }
        if !arg.starts_with('-') || arg == "-" {
            parsed.inputs.push(InputArg::File(arg));
            continue;
        }
        let Some((option, spelling, inline_value)) = find_option(&arg) else {
            let name = arg.split_once('=').map_or(arg.as_str(), |(n, _)| n);
            return Err(format!("Unknown option '{name}'"));
        };
        let value = match (option.takes, inline_value) {
            (Nothing, Some(_)) => return Err(format!("no argument expected after '{spelling}'")),
            (Nothing, None) => None,
            (_, Some(v)) => Some(v.to_string()),
            (_, None) => match pending.pop_front() {
                Some(v) => Some(v),
                None => return Err(format!("argument expected after '{spelling}'")),
            },
        };
        let values: Vec<String> = match (&value, option.takes) {
            // nvlink trims blanks round each item (`-kernels-used=_Z2k1Pi,
            // _Z2k2Pi` keeps both kernels and is recorded without the
            // blank; sweep35 `option-list-blanks`).
            (Some(v), List) => v
                .split(',')
                .map(|s| s.trim_matches([' ', '\t']))
                .filter(|s| !s.is_empty())
                .map(str::to_string)
                .collect(),
            (Some(v), _) => vec![v.clone()],
            (None, _) => Vec::new(),
        };
        if !option.allowed.is_empty() {
            if let Some(bad) = values.iter().find(|v| !option.allowed.contains(&v.as_str())) {
                return Err(format!("Value '{bad}' is not defined for option '{}'", option.long));
            }
        }
        parsed.given.push((option.long, values.clone()));
        let single = values.first().map_or("", String::as_str);
        let warnings = &mut parsed.warnings;
        match option.id {
            O::Arch => set_single(&mut parsed.arch, single, option.long, warnings),
            O::OutputFile => set_single(&mut parsed.output, single, option.long, warnings),
            O::RelocatableLink => parsed.relocatable = true,
            O::Machine => set_single(&mut machine, single, option.long, warnings),
            O::Debug => parsed.debug = true,
            O::LibraryPath => parsed.library_paths.extend(values),
            O::Library => parsed.inputs.extend(values.into_iter().map(InputArg::Library)),
            // Rule 9.5: an empty list (`-kernels-used=`) is as if the option
            // were not given (nvlink keeps every kernel, sync and calls sm_90).
            O::KernelsUsed if !values.is_empty() => parsed.kernels_used.get_or_insert_with(Vec::new).extend(values),
            O::VariablesUsed if !values.is_empty() => parsed.variables_used.get_or_insert_with(Vec::new).extend(values),
            O::KernelsUsed | O::VariablesUsed => {}
            O::PreserveRelocs => parsed.preserve_relocs = true,
            O::IgnoreHostInfo => parsed.ignore_host_info = true,
            O::KeepSystemLibraries => parsed.keep_system_libraries = true,
            O::UseHostInfo => parsed.use_host_info = true,
            O::DumpCallgraph | O::DumpCallgraphNoDemangle => {
                let demangle = option.id == O::DumpCallgraph;
                if parsed.dump_callgraph.is_some_and(|d| d != demangle) {
                    return Err("Conflicting options '-dump-callgraph' and '-dump-callgraph-no-demangle'".to_string());
                }
                parsed.dump_callgraph = Some(demangle);
            }
            O::Verbose => parsed.verbose = true,
            O::Verbose2 => {}
            O::DisableWarnings => parsed.disable_warnings = true,
            O::WarningAsError => parsed.warning_as_error = true,
            O::OptionsFile => {
                let mut words = Vec::new();
                for path in &values {
                    words.extend(read_options_file(path, &mut files_read)?);
                }
                for word in words.into_iter().rev() {
                    pending.push_front(word);
                }
            }
            O::CpuArch => set_single(&mut parsed.cpu_arch, single, option.long, warnings),
            O::HostCcbin => set_single(&mut parsed.host_ccbin, single, option.long, warnings),
            O::RegisterLinkBinaries => set_single(&mut parsed.register_link_binaries, single, option.long, warnings),
            O::Help => parsed.help = true,
            O::Version => parsed.version = true,
            O::Threads => set_single(&mut threads, single, option.long, warnings),
            O::PtxasOptions => parsed.ptxas_options.extend(values),
            O::SuppressArchWarning => parsed.suppress_arch_warning = true,
            O::ReportArch => parsed.report_arch = true,
            O::SuppressStackSizeWarning => parsed.suppress_stack_size_warning = true,
            O::DisableInfos => parsed.disable_infos = true,
            O::SuppressDebugInfo => parsed.suppress_debug_info = true,
            O::TimeFile => set_single(&mut parsed.time_file, single, option.long, warnings),
            O::HostLinkerScript => set_single(&mut parsed.host_linker_script, single, option.long, warnings),
            O::FastCompile => fast_compile = true,
            // ptxas takes them as nvlink's `-maxrregcount=N` (its tkinfo
            // note records them in its own order: `-maxrregcount 32 -arch
            // sm_90 -m 64 -c`, `... -c  -split-compile 2`; sweep6).
            O::PtxasPassThrough => {
                parsed.ptxas_pass_through.retain(|(name, _)| *name != option.long);
                parsed.ptxas_pass_through.push((option.long, single.to_string()));
            }
            O::NoEffect => {}
            O::NotSupported => parsed.not_supported.push(spelling.to_string()),
        }
    }
    if parsed.ignore_host_info && parsed.use_host_info {
        return Err("Conflicting options '-use-host-info' and '-ignore-host-info'".to_string());
    }
    // nvlink's words for both (`-dlto` itself is refused as not supported).
    if fast_compile {
        return Err("Conflicting options '--Ofast-compile' and 'no -dlto'".to_string());
    }
    if parsed.suppress_debug_info && !parsed.debug {
        return Err("Conflicting options '-suppress-debug-info' and 'no -g'".to_string());
    }
    if let Some(t) = threads {
        parsed.threads =
            Some(t.parse().map_err(|_| format!("Value '{t}' is not defined for option 'threads' (a number)"))?);
    }
    Ok(parsed)
}

/// The options nvlink records in its `.note.nv.tkinfo` note, in the order it
/// writes them (rule 7.5): a fixed order of its own, neither the command
/// line's nor `--help`'s. `output-file` and `register-link-binaries` only
/// with `-g`, as basenames; the latter with no name at all (`-L /tmp -
/// x.reg.c -v`: nvcc's `-G -dlink` links record their `.reg.c`; session 11).
/// Options not listed here are never recorded (`-optf`, `-time`,
/// `--host-ccbin`, develf's `--threads`).
const RECORDED_OPTIONS: &[&str] = &[
    "suppress-stack-size-warning",
    "suppress-arch-warning",
    "output-file",
    "debug",
    "arch",
    "machine",
    "library",
    "library-path",
    "register-link-binaries",
    "verbose",
    "verbose2",
    "preserve-relocs",
    "disable-warnings",
    "warning-as-error",
    "disable-infos",
    "keep-system-libraries",
    "kernels-used",
    "variables-used",
    "cpu-arch",
    "report-arch",
    "extra-warnings",
    "nvvmpath",
    "split-compile",
    "split-compile-extended",
    "suppress-debug-info",
    "Xptxas",
    "maxrregcount",
    "dump-callgraph",
    "dump-callgraph-no-demangle",
    "ignore-host-info",
    "use-host-info",
    "relocatable-link",
    "device-stack-protector",
];

/// The command line as nvlink records it in `.note.nv.tkinfo` (rule 7.5):
/// each given option of [`RECORDED_OPTIONS`], in that order, once, as
/// `-<short> <value> ` (`-arch sm_90 -m 64 `); a flag has an empty value
/// (`-report-arch  `); a single-valued option its last value; a list option
/// all its values from every occurrence, in order, repeats kept, joined by
/// commas (`-l dev,cudadevrt -L .,/usr/lib `). With `-g` the input files'
/// basenames come first, comma-joined (`a.o,libdev.a `; not `-l` libraries),
/// and `-o` and `--register-link-binaries` are recorded with basenames.
pub fn recorded_command_line(parsed: &NvlinkArgs) -> String {
    let base = |n: &str| n.rsplit(['/', '\\']).next().unwrap_or(n).to_string();
    let mut out = String::new();
    if parsed.debug {
        let files: Vec<String> = parsed
            .inputs
            .iter()
            .filter_map(|i| match i {
                InputArg::File(f) => Some(base(f)),
                InputArg::Library(_) => None,
            })
            .collect();
        let _ = write!(out, "{} ", files.join(","));
    }
    for &long in RECORDED_OPTIONS {
        let Some(option) = OPTIONS.iter().find(|o| o.long == long) else { continue };
        let mut occurrences = parsed.given.iter().filter(|(name, _)| *name == long).map(|(_, v)| v).peekable();
        let file = matches!(option.id, O::OutputFile | O::RegisterLinkBinaries);
        if occurrences.peek().is_none() || (file && !parsed.debug) {
            continue;
        }
        let value = match option.takes {
            Nothing => String::new(),
            Value => occurrences
                .last()
                .and_then(|v| v.first())
                .map_or(String::new(), |v| if file { base(v) } else { v.clone() }),
            List => occurrences.flatten().cloned().collect::<Vec<_>>().join(","),
        };
        let name = if option.id == O::RegisterLinkBinaries { "" } else { option.short.unwrap_or(option.long) };
        let _ = write!(out, "-{name} {value} ");
    }
    // With `-g`, an options file leaves `-optf ` (no value) after all the
    // others, once however many were read (sweep35 `optf-debug-tkinfo`:
    // `.. -r  -device-stack-protector true -optf `).
    if parsed.debug && parsed.given.iter().any(|(name, _)| *name == "options-file") {
        out.push_str("-optf  ");
    }
    out
}

/// nvlink's `--help`, generated from [`OPTIONS`].
pub fn help_text() -> String {
    let mut out = String::from(
        "\nUsage  : nvlink [options] <objects>\n\ndevelf's nvlink takes nvlink 13.5's options: those marked 'no effect' are accepted\nand ignored, 'not supported' ones are refused. develf also reads @FILE response files.\nPTX inputs (a .ptx file, a fatbin without code for the target) are compiled with\nNVIDIA's ptxas: DEVELF_PTXAS, else the one beside develf, else the first on PATH.\n\nOptions\n=======\n\n",
    );
    for o in OPTIONS {
        let left =
            if o.value_name.is_empty() { format!("--{}", o.long) } else { format!("--{} {}", o.long, o.value_name) };
        let short = o.short.map_or(String::new(), |s| format!("(-{s})"));
        let _ = writeln!(out, "{left:<52}{short}\n        {}\n", o.help);
    }
    out
}

/// The version banner (nvlink's first line, then develf's).
pub fn version_text() -> String {
    format!(
        "nvlink: develf's device linker, command-line compatible with NVIDIA (R) Cuda linker 13.5\ndevelf {}\n",
        env!("CARGO_PKG_VERSION")
    )
}

/// Message style: nvlink's `nvlink fatal   : ...` or develf's `develf link: error: ...`.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum Style {
    Nvlink,
    Develf,
}

/// Prints messages and remembers what the exit status must be.
#[derive(Debug)]
pub struct Reporter {
    pub style: Style,
    pub disable_warnings: bool,
    pub warning_as_error: bool,
    /// A warning was turned into an error.
    pub failed: bool,
    /// After every message once the target is known, with `-report-arch`:
    /// ` (target: sm_90)` (nvlink 13.5 on errors, warnings, infos and
    /// fatal errors alike; sweep35 `report-arch-warning-suffix`).
    pub suffix: String,
}

impl Reporter {
    /// Messages in `style`, every one printed, none with a suffix yet.
    pub fn new(style: Style) -> Reporter {
        Reporter { style, disable_warnings: false, warning_as_error: false, failed: false, suffix: String::new() }
    }

    /// nvlink's style without warnings (what tests and `xtask diff` link with).
    pub fn quiet() -> Reporter {
        Reporter { disable_warnings: true, ..Reporter::new(Style::Nvlink) }
    }

    fn line(&self, kind: &str, text: &str) {
        eprintln!("{}", self.formatted(kind, text));
    }

    /// A message line as printed: `nvlink warning : <text>` (and the
    /// `-report-arch` suffix) or `develf link: warning: <text>`.
    pub fn formatted(&self, kind: &str, text: &str) -> String {
        match self.style {
            Style::Nvlink => format!("nvlink {kind:<8}: {text}{}", self.suffix),
            Style::Develf => format!("develf link: {kind}: {text}"),
        }
    }

    /// Prints a fatal error; returns the exit status for it.
    pub fn fatal(&self, text: &str) -> u8 {
        self.line("fatal", text);
        FATAL_STATUS
    }

    pub fn error(&self, text: &str) {
        self.line("error", text);
    }

    pub fn warning(&mut self, text: &str) {
        if self.warning_as_error {
            self.line("error", text);
            self.failed = true;
        } else if !self.disable_warnings {
            self.line("warning", text);
        }
    }

    pub fn info(&self, text: &str) {
        self.line("info", text);
    }
}

/// A link to do: what both `develf nvlink` and `develf link` build.
#[derive(Debug, Clone)]
pub struct LinkRequest {
    pub arch: Arch,
    /// The target as nvlink names it in messages ([`target_name`]): a
    /// family target keeps its `f`, which [`LinkRequest::arch`] drops.
    pub target_name: String,
    pub output: PathBuf,
    pub relocatable: bool,
    pub debug: bool,
    /// `-g` with `-suppress-debug-info` (`LinkOptions::debug_suppressed`).
    pub debug_suppressed: bool,
    pub preserve_relocs: bool,
    pub kernels_used: Option<Vec<String>>,
    pub variables_used: Option<Vec<String>>,
    /// `-ignore-host-info`: host objects' kernel lists prune nothing (rule 13.5).
    pub ignore_host_info: bool,
    /// `-keep-system-libraries`: the system library is an ordinary input (rule 13.3).
    pub keep_system_libraries: bool,
    pub library_paths: Vec<PathBuf>,
    pub inputs: Vec<InputArg>,
    /// See [`NvlinkArgs::dump_callgraph`].
    pub dump_callgraph: Option<bool>,
    pub verbose: bool,
    pub register_link_binaries: Option<PathBuf>,
    /// 0: rayon's default.
    pub threads: usize,
    /// The text for nvlink's tkinfo note ([`recorded_command_line`]); `None`:
    /// derived by the linker from `-arch`, `-r` and `-g` alone.
    pub command_line: Option<String>,
    /// The ptxas that compiles inputs' PTX (rule 13.7); `None`: found by
    /// [`crate::ptx_jit::find_ptxas`] when one is needed.
    pub ptxas: Option<PathBuf>,
    /// `-Xptxas`: more options for that ptxas, after each entry's own.
    pub ptxas_options: Vec<String>,
    /// `-suppress-arch-warning`: no "SM Arch not found" warning.
    pub suppress_arch_warning: bool,
    /// `-suppress-stack-size-warning`: no "Stack size ... cannot be
    /// statically determined" warning (nor error under `-Werror`).
    pub suppress_stack_size_warning: bool,
    /// `-disable-infos`: neither the stack-size warning nor the ISA_CLASS
    /// one. nvlink prints both as warnings but treats them as infos: this
    /// option drops them (`-Werror` then has nothing to fail on) and `-w`
    /// does not; `-v`'s report stays (nvlink 13.5; sweep30 p311, p313;
    /// options/stack-warnings.txt).
    pub disable_infos: bool,
    /// `-arch=compute_XX`: nvlink reads and checks the inputs and writes the
    /// register file, but links nothing and writes no output (what `nvcc
    /// -rdc=true -arch=compute_XX` asks of it: the PTX is compiled when the
    /// program runs).
    pub virtual_target: bool,
}

/// The worker count from `DEVELF_THREADS`, if set to a number.
pub fn threads_from_env() -> Option<usize> {
    std::env::var("DEVELF_THREADS").ok().and_then(|v| v.trim().parse().ok())
}

/// Maps an `-arch` value to the target. `Err` is a fatal message.
pub fn target_arch(value: &str) -> Result<Arch, String> {
    if value.starts_with("lto_") {
        return Err(format!(
            "Link target of '{value}' is virtual target that is not JIT-able; use 'sm_' target instead"
        ));
    }
    let sm_name = target_name(value);
    // A family target (`sm_100f`, `sm_103f`, `sm_120f`): nvlink 13.5 links it
    // as the plain SM (same objects accepted, same output but for the
    // command line its tkinfo note records; sm_100f objects for sm_100f,
    // sm_103f, sm_103 and sm_100).
    let base = sm_name.strip_suffix('f').filter(|b| b.len() > 3 && !b.ends_with('a')).unwrap_or(&sm_name);
    Arch::parse(base).ok_or_else(|| format!("Unknown arch name '{value}'"))
}

/// Whether fatbin `data` holds any PTX: a direct input with code (device
/// ELFs or PTX), none of it for the target, gets nvlink's "SM Arch not
/// found" warning, PTX-only objects too (compute_86 PTX in an sm_80 link,
/// compute_100a PTX in an sm_100 one).
fn has_ptx(data: &[u8]) -> bool {
    develf_fatbin::Container::parse(data).is_ok_and(|c| {
        c.entries(&develf_fatbin::Limits::default()).iter().any(|e| e.kind == develf_fatbin::EntryKind::Ptx)
    })
}

/// The `-arch` value as nvlink's messages name the target: `sm_100f` for
/// `-arch=sm_100f` ("SM Arch ('sm_100f') not found in ..."), `sm_90` for
/// `compute_90`.
pub fn target_name(value: &str) -> String {
    value.strip_prefix("compute_").map_or_else(|| value.to_string(), |d| format!("sm_{d}"))
}

/// Entry point of `develf nvlink ARGS` and of `develf` invoked as `nvlink`
/// (`args` without the program name).
pub fn main_nvlink(args: Vec<OsString>) -> ExitCode {
    ExitCode::from(run_nvlink(args))
}

/// [`main_nvlink`] returning the exit status: 0, [`FATAL_STATUS`] or [`LINK_ERROR_STATUS`].
pub fn run_nvlink(args: Vec<OsString>) -> u8 {
    let mut reporter = Reporter::new(Style::Nvlink);
    let mut strings = Vec::with_capacity(args.len());
    for arg in args {
        match arg.into_string() {
            Ok(s) => strings.push(s),
            Err(raw) => {
                return reporter.fatal(&format!("Argument '{}' is not valid UTF-8", raw.to_string_lossy()));
            }
        }
    }
    let parsed = match parse_nvlink_args(&strings) {
        Ok(p) => p,
        Err(message) => return reporter.fatal(&message),
    };
    reporter.disable_warnings = parsed.disable_warnings;
    reporter.warning_as_error = parsed.warning_as_error;
    if parsed.help {
        print!("{}", help_text());
        return 0;
    }
    if parsed.version {
        print!("{}", version_text());
        return 0;
    }
    for warning in &parsed.warnings {
        reporter.warning(warning);
    }
    if let Some(option) = parsed.not_supported.first() {
        return reporter.fatal(&format!("Option '{option}' is not supported by develf's nvlink"));
    }
    if let Some(kind) = &parsed.host_linker_script {
        if !parsed.inputs.is_empty() {
            return reporter.fatal("Input files are not allowed with -ghls option; use --help for more information");
        }
        return match host_linker_script(kind, parsed.host_ccbin.as_deref().unwrap_or("gcc"), parsed.output.as_deref()) {
            Ok(()) => 0,
            Err(message) => reporter.fatal(&message),
        };
    }
    let request = match request_from_args(&parsed) {
        Ok(r) => r,
        Err(message) => return reporter.fatal(&message),
    };
    if parsed.report_arch {
        reporter.suffix = format!(" (target: {})", request.target_name);
    }
    // nvlink 13.5 warns that `-preserve-relocs` is partial from sm_90 on
    // (its wording, typo included), even under `-w`; under `-Werror` it
    // stops there with status 1 and writes nothing.
    if request.preserve_relocs && request.arch.sm >= 90 {
        let text = format!(
            "Option '--preserve-relocs' is not fully implemented for gpu archtecture '{}' and may not work as expected",
            request.arch
        );
        if reporter.warning_as_error {
            reporter.error(&text);
            return reporter.fatal("warning treated as an error (--warning-as-error); nothing was linked");
        }
        reporter.line("warning", &text);
    }
    if let Some(path) = &parsed.time_file {
        if start_time_file(Path::new(path)).is_err() {
            return reporter.fatal(&format!("Cannot open file '{path}'"));
        }
    }
    run_link(&request, &mut reporter)
}

/// The sections nvcc's fatbins go in, which `-ghls=lcs-aug` writes and
/// `lcs-abs` appends to the host linker's own script (nvlink 13.5's bytes).
const FATBIN_SECTIONS_SCRIPT: &str = "SECTIONS\n{\n\t.nvFatBinSegment : { *(.nvFatBinSegment) }\n\t__nv_relfatbin : { *(__nv_relfatbin) } \n\t.nv_fatbin : { *(.nv_fatbin) }\n}\n";

/// nvlink's `-ghls` (what `nvcc --host-linker-script` runs): no link, but a
/// host linker script to `output` (standard output without `-o`). For
/// `lcs-abs`, the host `ld`'s default script for the options the host
/// compiler passes it, found with the shell command nvlink runs (traced,
/// session 24: `ld --verbose` with `gcc -###`'s `-pie`, `-z`, `-m` options,
/// its banner and first two and last lines cut), then the fatbin sections.
fn host_linker_script(kind: &str, ccbin: &str, output: Option<&str>) -> Result<(), String> {
    let mut text = String::new();
    if kind == "lcs-abs" {
        let command = format!(
            "ld --verbose $({ccbin} -### /dev/null  -m64  2>&1 | grep collect2  | grep -wo -e -pie -e \"-z [^[:space:]]*\" \
             -e \"-m [^[:space:]]*\" -e -r -e -shared  | tr \"\\n\" \" \" ) | grep -Fvx -e \"$(ld -V)\" | sed '1,2d;$d'"
        );
        let run = std::process::Command::new("sh")
            .args(["-c", &command])
            .stdin(std::process::Stdio::null())
            .output()
            .map_err(|e| format!("Could not run the host linker for its script: {e}"))?;
        if !run.status.success() || run.stdout.is_empty() {
            return Err("Could not get the host linker's default script (ld --verbose)".to_string());
        }
        text.push_str(&String::from_utf8_lossy(&run.stdout));
    }
    text.push_str(FATBIN_SECTIONS_SCRIPT);
    match output {
        Some(path) => write_atomically(Path::new(path), text.as_bytes())
            .map_err(|e| format!("Could not open output file '{path}': {e}")),
        None => {
            print!("{text}");
            Ok(())
        }
    }
}

/// nvlink's `-time FILE`, once the command line is checked and before any
/// input is read: a file that does not exist yet is created with the CSV
/// header; an existing one (empty or not) is opened to append to and left as
/// it is. The rows are nvlink's compile phases (LTO, PTX): a link of device
/// code adds none (session 24, sweep7: 99 bytes after one link or two).
fn start_time_file(path: &Path) -> std::io::Result<()> {
    const HEADER: &str =
        "source file name , phase name , phase input files , phase output file , arch , tool, metric , unit\n";
    match std::fs::OpenOptions::new().append(true).create_new(true).open(path) {
        Ok(mut file) => std::io::Write::write_all(&mut file, HEADER.as_bytes()),
        Err(e) if e.kind() == std::io::ErrorKind::AlreadyExists => {
            std::fs::OpenOptions::new().append(true).open(path).map(drop)
        }
        Err(e) => Err(e),
    }
}

/// Checks the parsed command line as nvlink does (target, then output, then
/// inputs) and turns it into a [`LinkRequest`].
pub fn request_from_args(parsed: &NvlinkArgs) -> Result<LinkRequest, String> {
    let arch = match &parsed.arch {
        Some(value) => target_arch(value)?,
        None => return Err("Unknown arch name '(null)': no target given; use -arch=sm_XX".to_string()),
    };
    let virtual_target = parsed.arch.as_deref().is_some_and(|a| a.starts_with("compute_"));
    // A virtual target writes no output, and nvcc gives it no `-o`.
    let output = match &parsed.output {
        Some(output) => output.as_str(),
        None if virtual_target => "",
        None => return Err("Must specify output file with -o option".to_string()),
    };
    // Only files named on the command line count: `-l` libraries alone are
    // no inputs to nvlink (session 24, sweep7: `-L. -lx`, `-lcudadevrt`).
    if !parsed.inputs.iter().any(|i| matches!(i, InputArg::File(_))) {
        return Err("No input files specified; use option --help for more information".to_string());
    }
    Ok(LinkRequest {
        arch,
        target_name: parsed.arch.as_deref().map(target_name).unwrap_or_default(),
        output: PathBuf::from(output),
        relocatable: parsed.relocatable,
        debug: parsed.debug && !parsed.suppress_debug_info,
        debug_suppressed: parsed.debug && parsed.suppress_debug_info,
        preserve_relocs: parsed.preserve_relocs,
        kernels_used: parsed.kernels_used.clone(),
        variables_used: parsed.variables_used.clone(),
        ignore_host_info: parsed.ignore_host_info,
        keep_system_libraries: parsed.keep_system_libraries,
        library_paths: parsed.library_paths.iter().map(PathBuf::from).collect(),
        inputs: parsed.inputs.clone(),
        dump_callgraph: parsed.dump_callgraph,
        verbose: parsed.verbose,
        register_link_binaries: parsed.register_link_binaries.as_ref().map(PathBuf::from),
        threads: parsed.threads.or_else(threads_from_env).unwrap_or(0),
        command_line: Some(recorded_command_line(parsed)),
        ptxas: None,
        ptxas_options: parsed
            .ptxas_pass_through
            .iter()
            .map(|(name, value)| format!("-{name}={value}"))
            .chain(parsed.ptxas_options.iter().cloned())
            .collect(),
        suppress_arch_warning: parsed.suppress_arch_warning,
        suppress_stack_size_warning: parsed.suppress_stack_size_warning,
        disable_infos: parsed.disable_infos,
        virtual_target,
    })
}

/// One file read from the command line (an input or a found library).
#[derive(Debug)]
struct LoadedFile {
    name: String,
    data: crate::input_file::FileBytes,
    /// A relocatable cubin read without its code (crate::input_file): its
    /// index in [`Loaded::code`], where the linker reads the code from.
    code: Option<usize>,
    /// Rule 13.3: a file whose path names nvlink's system library, whose
    /// objects join the link only while it still needs something.
    system: bool,
}

/// Rule 13.3: nvlink links on demand any input whose path, as given (or as
/// `-L`/`-l` make it), contains this, case-sensitive: not only
/// `libcudadevrt.a` (`libdev.a` copied to `libcudadevrt.a` is searched,
/// `libcudadevrt.a` copied to `libfoo.a` linked whole) but a cubin, fatbin or
/// host object under a directory `my_cudadevrt_build/` (f08; also
/// `dir_cudadevrt/../m.cubin`, not `CUDADEVRT/m.cubin`).
const SYSTEM_LIBRARY: &str = "cudadevrt";

/// The first `lib<name>.a` on the `-L` paths that is not an archive with no
/// members; each such one met first is passed over with nvlink's warning
/// (session 24, sweep7: `Skipping incompatible '…/libempty.a' when searching
/// for -lempty`, then the link goes on as without it).
fn find_library(name: &str, paths: &[PathBuf], reporter: &mut Reporter) -> Option<PathBuf> {
    let file = format!("lib{name}.a");
    for candidate in paths.iter().map(|dir| dir.join(&file)).filter(|p| p.is_file()) {
        if is_empty_archive_file(&candidate) {
            reporter.warning(&format!("Skipping incompatible '{}' when searching for -l{name}", candidate.display()));
            continue;
        }
        return Some(candidate);
    }
    None
}

/// Whether the file at `path` is an `ar` archive with no members: its magic
/// alone (read only when the size says so; the library is read whole later).
fn is_empty_archive_file(path: &Path) -> bool {
    let magic = develf_parse::ar::MAGIC;
    std::fs::metadata(path).is_ok_and(|m| m.len() == magic.len() as u64)
        && std::fs::read(path).is_ok_and(|bytes| bytes == magic)
}

/// Reads the inputs in nvlink's link order (rule 13.1): the files as given,
/// then the `-l` libraries in the order given, wherever they stood. An archive
/// met a second time (the same file by canonical path, also through `-l`)
/// adds nothing (rule 13.2); a copy under another name is a second archive.
/// The files of a link (their bytes in `read`), and the open files of those
/// read without their code.
struct Loaded {
    files: Vec<LoadedFile>,
    read: crate::input_file::ReadFiles,
    code: crate::input_file::CodeFiles,
}

fn load_files(request: &LinkRequest, reporter: &mut Reporter) -> Result<Loaded, String> {
    let mut open = Vec::new();
    let mut files = Vec::with_capacity(request.inputs.len());
    let mut archives_seen: std::collections::HashSet<PathBuf> = std::collections::HashSet::new();
    // Read in parallel (a big link reads tens of MB), used in command-line
    // order: the first unreadable file is the one reported. Up to
    // MAX_OPEN_CODE_FILES cubins are read without their code, which stays
    // in the (open) file until the output is written.
    let names: Vec<&String> =
        request.inputs.iter().filter_map(|i| if let InputArg::File(name) = i { Some(name) } else { None }).collect();
    let leave_code = names.len() <= crate::input_file::MAX_OPEN_CODE_FILES;
    let paths: Vec<&Path> = names.iter().map(Path::new).collect();
    let mut read = crate::input_file::read_all(&paths, leave_code);
    let results = std::mem::take(&mut read.files);
    let mut add = |files: &mut Vec<LoadedFile>, name: String, path: &Path, data: crate::input_file::FileBytes, code| {
        let archive = Archive::sniff(read.bytes(&data));
        if archive && !archives_seen.insert(std::fs::canonicalize(path).unwrap_or_else(|_| path.to_path_buf())) {
            return;
        }
        // `-keep-system-libraries` makes it an input like any other: linked
        // whole, as a copy under another name is (u.cubin -lcudadevrt, sm_90:
        // 34 functions kept, not 2; the user's own unused function still goes).
        let system = name.contains(SYSTEM_LIBRARY) && !request.keep_system_libraries;
        files.push(LoadedFile { name, data, code, system });
    };
    for (name, data) in names.into_iter().zip(results) {
        let data = data.map_err(|e| format!("Could not open input file '{name}': {e}"))?;
        match named_input_kind(name, read.bytes(&data.bytes), request) {
            NamedInput::Use => {}
            NamedInput::Skip(why) => {
                // Silent in nvlink; an info, so that -Werror fails no link nvlink makes.
                reporter.info(&format!("Input file '{name}' skipped: {why}, as nvlink skips it"));
                continue;
            }
            NamedInput::SkipWarning(message) => {
                reporter.warning(&message);
                continue;
            }
            NamedInput::Fatal(message) => return Err(message),
        }
        let map = match &data.bytes {
            crate::input_file::FileBytes::Mapped(map) => Some(std::sync::Arc::clone(map)),
            _ => None,
        };
        let code = data.code.map(|file| {
            open.push((file, map));
            open.len() - 1
        });
        add(&mut files, name.clone(), Path::new(name), data.bytes, code);
    }
    for input in &request.inputs {
        if let InputArg::Library(lib) = input {
            match find_library(lib, &request.library_paths, reporter) {
                Some(path) => {
                    let name = path.display().to_string();
                    let data = std::fs::read(&path).map_err(|e| format!("Could not open library '{name}': {e}"))?;
                    add(&mut files, name, &path, crate::input_file::FileBytes::Owned(data), None);
                }
                // nvlink skips a library it cannot find without a word; say it,
                // as an info so that -Werror does not fail a link nvlink makes.
                None => reporter.info(&format!("Library 'lib{lib}.a' (-l{lib}) not found on the -L paths; skipped")),
            }
        }
    }
    Ok(Loaded { files, read, code: crate::input_file::CodeFiles::new(open) })
}

const EM_CUDA: u16 = 190;

/// What nvlink makes of a file named on the command line before it looks for
/// device code: [`named_input_kind`].
enum NamedInput {
    Use,
    Skip(&'static str),
    /// Skipped with nvlink's warning.
    SkipWarning(String),
    Fatal(String),
}

/// Rule 13.11: nvlink sorts a file named on the command line by its size and
/// the suffix of its file name (after the last `.`, case-sensitive) before it
/// looks inside: an empty file is skipped, one of 1..55 bytes cannot be
/// opened, a `.cubin` must be a device ELF, a `.fatbin` a fatbin, `.ltoir` and
/// `.nvvm` need `-lto`, a `.ptx` must hold a device ELF or PTX text (the
/// text, or a fatbin, is linked only for sm_90 and newer targets); a file
/// without a suffix or named `.so` is skipped whatever it holds; under any
/// other suffix but `.o` a device ELF is skipped (a damaged one is fatal), and
/// a bare fatbin is skipped unless it is named `.fatbin`.
fn named_input_kind(name: &str, data: &[u8], request: &LinkRequest) -> NamedInput {
    let arch = request.arch;
    const NVLINK_HEADER: usize = 56;
    if data.is_empty() {
        return NamedInput::Skip("the file is empty");
    }
    // An `ar` archive with no members is only its 8-byte magic, which nvlink
    // takes (and links nothing from) where other files that short are fatal
    // (session 24, sweep7: `ar rcs libempty.a` given directly).
    if data == develf_parse::ar::MAGIC {
        return NamedInput::Skip("the archive has no members");
    }
    if data.len() < NVLINK_HEADER {
        return NamedInput::Fatal(format!(
            "Could not open input file '{name}': {} bytes, shorter than the {NVLINK_HEADER} nvlink reads first",
            data.len()
        ));
    }
    let file_name = Path::new(name).file_name().map_or(std::borrow::Cow::Borrowed(name), |n| n.to_string_lossy());
    let suffix = file_name.rsplit_once('.').map_or("", |(_, s)| s);
    let elf = data.starts_with(b"\x7fELF");
    let device = is_cubin(data);
    let damaged = device && develf_parse::ElfFile::check(data).is_err();
    let fatbin = develf_fatbin::sniff(data) == Some(develf_fatbin::ContainerKind::Fatbin);
    // A cubin named .ptx is read as a fatbin's entry is: one for another SM
    // is passed over with nvlink's warning (sm_90 objects in an sm_86 link),
    // damaged or not.
    if suffix == "ptx" && device {
        let target = match develf_parse::Cubin::parse(data).ok().and_then(|c| c.target()) {
            Some(target) => develf_link::arch_compatible(target, arch),
            None => header_sm(data) == arch.sm,
        };
        if !target {
            return NamedInput::SkipWarning(format!("SM Arch ('{}') not found in '{name}'", request.target_name));
        }
    }
    // Below sm_90 nvlink takes nothing from a `.ptx` that passes its content
    // check: PTX text, a fatbin, even a cubin for the target (silently).
    let ptx_ignored = arch.sm < 90 && (device || fatbin || looks_like_ptx(data));
    match suffix {
        "ptx" if ptx_ignored => NamedInput::Skip("nvlink takes a .ptx file only for sm_90 and newer targets"),
        "o" if fatbin => NamedInput::Skip("a fatbin is linked only when named .fatbin"),
        "cubin" if !elf => NamedInput::Fatal(format!("cubin not an elf? ('{name}' is named .cubin)")),
        "cubin" if !device => {
            NamedInput::Fatal(format!("cubin not a device elf? ('{name}' is a host ELF named .cubin)"))
        }
        "fatbin" if !fatbin => NamedInput::Fatal(format!("fatbin wrong format? ('{name}' is named .fatbin)")),
        "ltoir" | "nvvm" => NamedInput::Fatal(format!("should only see nvvm files when -lto ('{name}')")),
        "ptx" if damaged => NamedInput::Fatal(format!(
            "Input file '{name}' must be recompiled with toolkit >= Cuda 12.0 (a damaged cubin)"
        )),
        "ptx" if !device && !fatbin && !looks_like_ptx(data) => NamedInput::Fatal(format!(
            "Can't load this binary kind, as it's not recognized: '{name}' is named .ptx but holds no PTX"
        )),
        "" | "so" => NamedInput::Skip("nvlink links no file without a suffix or named .so"),
        "cubin" | "fatbin" | "ptx" | "o" => NamedInput::Use,
        _ if damaged => NamedInput::Fatal(format!("Could not find fatbin in '{name}' (a damaged cubin)")),
        _ if device => NamedInput::Skip("a cubin is linked only when named .cubin, .o or .ptx"),
        _ if fatbin => NamedInput::Skip("a fatbin is linked only when named .fatbin"),
        _ => NamedInput::Use,
    }
}

/// The SM a device ELF's e_flags name (ABI 8: bits 8..15), 0 when unreadable.
fn header_sm(data: &[u8]) -> u32 {
    data.get(48..52).map_or(0, |f| (u32::from_le_bytes([f[0], f[1], f[2], f[3]]) >> 8) & 0xff)
}

/// PTX text: nvlink's `.ptx` loader takes it, refusing other text.
fn looks_like_ptx(data: &[u8]) -> bool {
    std::str::from_utf8(data).is_ok_and(|text| text.contains(".version") && text.contains(".target"))
}

/// A device object to link: its name for messages, its bytes and, for a
/// cubin read without its code, the file the code is read from.
type NamedObject<'a> = (String, Cow<'a, [u8]>, Option<usize>);

fn is_cubin(data: &[u8]) -> bool {
    data.len() > 20 && data.starts_with(b"\x7fELF") && u16::from_le_bytes([data[18], data[19]]) == EM_CUDA
}

/// One object the link considers: a file given directly, or a host-object
/// member of an archive.
struct Unit<'a> {
    /// For messages: the file, or `archive:member`.
    name: String,
    data: &'a [u8],
    /// Given on the command line, not taken from an archive.
    direct: bool,
    /// See [`LoadedFile::code`].
    code: Option<usize>,
}

/// The objects a file brings: itself, or for an archive its host-object
/// members in order. nvlink ignores an archive's cubin and fatbin members
/// without a word (rule 13.3: an archive of `unused.cubin`, or of a `-fatbin`
/// output, adds nothing and registers nothing).
fn units_of<'a>(file: &'a LoadedFile, read: &'a crate::input_file::ReadFiles) -> Result<Vec<Unit<'a>>, String> {
    let name = &file.name;
    let data = read.bytes(&file.data);
    if !Archive::sniff(data) {
        return Ok(vec![Unit { name: name.clone(), data, direct: true, code: file.code }]);
    }
    let archive = Archive::parse(data).map_err(|d| format!("{name}: {d}"))?;
    let mut units = Vec::new();
    for member in archive.files() {
        let member = member.map_err(|d| format!("{name}: {d}"))?;
        if develf_fatbin::sniff(member.data) == Some(develf_fatbin::ContainerKind::HostElf) {
            units.push(Unit { name: format!("{name}:{}", member.name), data: member.data, direct: false, code: None });
        }
    }
    Ok(units)
}

/// The device ELFs an object contributes for `arch`, named for messages.
fn device_objects<'a>(
    unit: &Unit<'a>,
    request: &LinkRequest,
    reporter: &mut Reporter,
) -> Result<Vec<NamedObject<'a>>, String> {
    let arch = request.arch;
    let name = &unit.name;
    let data = unit.data;
    if request.virtual_target && develf_fatbin::sniff(data).is_some() {
        // Nothing is linked for a virtual target: no SASS taken, no PTX compiled.
        return Ok(Vec::new());
    }
    if develf_fatbin::sniff(data).is_some() {
        let entries = develf_fatbin::relocatable_elfs_compatible(data, arch.sm, arch.accelerator)
            .map_err(|d| format!("{name}: {d}"))?;
        // Rule 13.7.1: SASS of an older SM of the family loses to PTX of a
        // newer SM (sm_80 SASS + compute_86 PTX linked for sm_86 or sm_89 is
        // the PTX compiled; with compute_80 PTX the SASS; sweep4 p59
        // fatptx-exec, /work/sweep4/red/fatpref).
        let elf_sm = entries.iter().map(|e| e.sm).max();
        if elf_sm.is_some_and(|sm| sm < arch.sm) {
            let ptx = develf_fatbin::ptx_entries_compatible(data, arch.sm, arch.accelerator)
                .map_err(|d| format!("{name}: {d}"))?;
            if ptx.iter().map(|e| e.sm).max() > elf_sm {
                return compile_ptx(name, data, request, reporter);
            }
        }
        let mut out = Vec::with_capacity(entries.len());
        for entry in entries {
            let label = if entry.label.is_empty() { name.clone() } else { format!("{name}:{}", entry.label) };
            match entry.data {
                Ok(bytes) => out.push((label, bytes, None)),
                Err(d) => return Err(format!("{label}: {d}")),
            }
        }
        // No device ELF to use but PTX that runs on the target: nvlink
        // compiles it (rule 13.7, crate::ptx_jit).
        if out.is_empty() {
            out = compile_ptx(name, data, request, reporter)?;
            if !out.is_empty() {
                return Ok(out);
            }
        }
        // nvlink warns about a file given directly, not about an archive member
        // (rule 13.3: an sm_75-only member of an sm_90 link goes by silently).
        // Only a file that contributed nothing is looked at again.
        if unit.direct && !request.suppress_arch_warning && out.is_empty() {
            let elfs = develf_fatbin::device_elfs(data).unwrap_or_default();
            let any_for_target =
                elfs.iter().any(|e| e.sm == arch.sm && develf_fatbin::serves_accelerated(e, arch.sm, arch.accelerator));
            if !any_for_target && (!elfs.is_empty() || has_ptx(data)) {
                reporter.warning(&format!("SM Arch ('{}') not found in '{name}'", request.target_name));
            }
        }
        return Ok(out);
    }
    if is_cubin(data) {
        // nvlink skips a cubin whose ELF structure it cannot read (a real one
        // cut at 64, 300 or 3000 bytes: no message, exit 0, the other inputs
        // linked as without it; merc2 sweep); say it, and do the same.
        if let Err(d) = develf_parse::ElfFile::check(data) {
            // Rule 13.11: one whose header names a Mercury SM (sm_100 and up)
            // stops nvlink with `elfLink internal error`, whatever the target
            // (an sm_100 cubin cut at 64..3000 bytes, in sm_100, sm_120 and
            // sm_90 links; a cut sm_90 cubin in an sm_100 link is skipped).
            if header_sm(data) >= 100 {
                return Err(format!("elfLink internal error: '{name}' is a damaged cubin ({d})"));
            }
            // An info line, not a warning: `-Werror` must not fail a link
            // nvlink makes.
            reporter.info(&format!("Input file '{name}' is a damaged cubin ({d}); skipped, as nvlink skips it"));
            return Ok(Vec::new());
        }
        if request.virtual_target {
            // nvlink's check, and its words (compute_89 with an sm_90 cubin).
            let target = develf_parse::Cubin::parse(data).ok().and_then(|c| c.target());
            if !target.is_some_and(|t| develf_link::arch_compatible(t, arch)) {
                let virtual_name = arch.to_string().replacen("sm_", "compute_", 1);
                return Err(format!("Input file '{name}' arch does not match target '{virtual_name}'"));
            }
            return Ok(Vec::new());
        }
        return Ok(vec![(name.clone(), Cow::Borrowed(data), unit.code)]);
    }
    // A PTX file named on the command line (by its `.ptx` suffix: nvlink
    // skips the same text named `.txt`) is compiled as a fatbin's PTX is
    // (rule 13.7).
    if unit.direct && name.ends_with(".ptx") {
        let ptxas = ptxas_for(name, request)?;
        let cubin = compile_with(&ptxas, data, "", request, reporter, name)?;
        return Ok(vec![(name.clone(), Cow::Owned(cubin), None)]);
    }
    // nvlink skips files it does not recognise without a word; say it (an
    // info line: under `-Werror` the link goes on, as nvlink's does).
    reporter.info(&format!("Input file '{name}' is not a cubin, fatbin, host object or archive; skipped"));
    Ok(Vec::new())
}

/// Rule 13.7: the PTX entries of `data` for `arch`, compiled with ptxas
/// (crate::ptx_jit); none when the file has no such PTX.
fn compile_ptx<'a>(
    name: &str,
    data: &'a [u8],
    request: &LinkRequest,
    reporter: &Reporter,
) -> Result<Vec<NamedObject<'a>>, String> {
    let arch = request.arch;
    let entries =
        develf_fatbin::ptx_entries_compatible(data, arch.sm, arch.accelerator).map_err(|d| format!("{name}: {d}"))?;
    if entries.is_empty() {
        return Ok(Vec::new());
    }
    let ptxas = ptxas_for(name, request)?;
    let mut out = Vec::with_capacity(entries.len());
    for entry in entries {
        let label = if entry.label.is_empty() { name.to_string() } else { format!("{name}:{}", entry.label) };
        let ptx = entry.data.map_err(|d| format!("{label}: {d}"))?;
        let options =
            entry.options.map(|o| String::from_utf8_lossy(o).trim_end_matches('\0').to_string()).unwrap_or_default();
        let cubin = compile_with(&ptxas, &ptx, &options, request, reporter, &label)?;
        out.push((label, Cow::Owned(cubin), None));
    }
    Ok(out)
}

/// Rule 13.7: PTX (`options`: the ptxas options recorded with it) compiled
/// for the link's target; ptxas's warnings are passed on as nvlink passes
/// its own ptxas's.
fn compile_with(
    ptxas: &Path,
    ptx: &[u8],
    options: &str,
    request: &LinkRequest,
    reporter: &Reporter,
    what: &str,
) -> Result<Vec<u8>, String> {
    // nvlink hands `-Xptxas` to its built-in ptxas (`-Xptxas -O0` changes the code).
    let options = [options].into_iter().chain(request.ptxas_options.iter().map(String::as_str)).collect::<Vec<_>>();
    let (cubin, said) =
        crate::ptx_jit::compile(ptxas, ptx, &options.join(" "), &request.arch.to_string(), request.debug, what)?;
    if !said.is_empty() && !reporter.disable_warnings {
        eprint!("{said}");
    }
    Ok(cubin)
}

/// The ptxas that compiles `name`'s PTX, or what a link that finds none says.
fn ptxas_for(name: &str, request: &LinkRequest) -> Result<PathBuf, String> {
    request.ptxas.clone().or_else(crate::ptx_jit::find_ptxas).ok_or_else(|| {
        format!(
            "{name} has PTX but no device code for {}; nvlink compiles such PTX with its built-in ptxas, \
             develf runs NVIDIA's ptxas for that and found none (set {} or put ptxas on PATH)",
            request.arch,
            crate::ptx_jit::PTXAS_VARIABLE
        )
    })
}

/// One line of the register file.
#[derive(Debug)]
struct Registered {
    /// The `DEFINE_REGISTER_FUNC` argument.
    function: String,
    /// The file, when it is device code without host code (nvlink says so).
    no_host_code: Option<String>,
}

/// The `DEFINE_REGISTER_FUNC` name nvlink gives an object: a host object's
/// `__nv_module_id`, or for a cubin or fatbin given directly its absolute path
/// (not normalised: `/tmp/a/../b.cubin`) with every character other than
/// letters and digits made `_`.
fn register_name(unit: &Unit<'_>) -> Option<Registered> {
    let device_only =
        is_cubin(unit.data) || develf_fatbin::sniff(unit.data) == Some(develf_fatbin::ContainerKind::Fatbin);
    if unit.direct && device_only {
        let path = std::path::absolute(&unit.name).unwrap_or_else(|_| PathBuf::from(&unit.name));
        let text = path.to_string_lossy();
        let function = text.chars().map(|c| if c.is_ascii_alphanumeric() { c } else { '_' }).collect();
        return Some(Registered { function, no_host_code: Some(unit.name.clone()) });
    }
    let elf = develf_parse::ElfFile::parse(unit.data).ok()?;
    let section = elf.section_by_name("__nv_module_id")?;
    let bytes = section.bytes();
    let end = bytes.iter().position(|&b| b == 0).unwrap_or(bytes.len());
    let function = std::str::from_utf8(&bytes[..end]).ok().filter(|s| !s.is_empty())?.to_string();
    Some(Registered { function, no_host_code: None })
}

/// The register file: every module linked, in link order, archive members
/// included (rule 13.3), each line ending in a newline as nvlink's.
fn register_file_text(registered: &[Registered], reporter: &Reporter) -> String {
    let mut out = format!("#define NUM_PRELINKED_OBJECTS {}\n", registered.len());
    for entry in registered {
        if let Some(file) = &entry.no_host_code {
            reporter.info(&format!(
                "Input '{file}' has no host code, which could cause later host link error if there is a reference to it"
            ));
        }
        let _ = writeln!(out, "DEFINE_REGISTER_FUNC({})", entry.function);
    }
    out
}

/// Exit status for link errors, as nvlink's (`exit(-1)`).
pub const LINK_ERROR_STATUS: u8 = 255;
/// Exit status for fatal errors (command line, unreadable inputs), as nvlink's.
pub const FATAL_STATUS: u8 = 1;

/// Why a link produced nothing: the message, whether nvlink calls it `fatal`
/// or `error`, and the exit status it stands for.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct LinkFailure {
    pub status: u8,
    pub fatal: bool,
    pub message: String,
}

impl LinkFailure {
    fn fatal(message: String) -> LinkFailure {
        LinkFailure { status: FATAL_STATUS, fatal: true, message }
    }
}

/// The global symbols objects define, and the functions they need that the
/// driver does not supply: only a needed function makes the system library
/// join (rule 13.3).
type DefinedAndNeeded = (Vec<String>, Vec<String>);

/// The global symbols a device object defines and the functions it needs.
fn defined_and_undefined(bytes: &[u8]) -> DefinedAndNeeded {
    use develf_format::symbol::{STB_GLOBAL, STB_LOCAL, STT_FILE, STT_FUNC, STT_SECTION};
    let (mut defined, mut undefined) = (Vec::new(), Vec::new());
    let Ok(cubin) = develf_parse::Cubin::parse(bytes) else { return (defined, undefined) };
    for symbol in cubin.symbols() {
        if symbol.name.is_empty() || symbol.bind == STB_LOCAL || matches!(symbol.st_type, STT_SECTION | STT_FILE) {
            continue;
        }
        if symbol.shndx != 0 {
            defined.push(symbol.name.to_string());
        } else if symbol.bind == STB_GLOBAL
            && symbol.st_type == STT_FUNC
            // The driver's functions (`vprintf`, `malloc`) pull nothing in.
            && !develf_link::is_driver_function(symbol.name)
        {
            undefined.push(symbol.name.to_string());
        }
    }
    (defined, undefined)
}

/// What the files bring to the link.
#[derive(Debug, Default)]
struct Gathered<'a> {
    /// The device objects to link, in link order.
    objects: Vec<NamedObject<'a>>,
    /// The register file's modules, in link order (gathered only when one
    /// is asked for: naming a module reads its path or its host object).
    registered: Vec<Registered>,
    /// Rule 13.5: the kernel patterns of every host object linked.
    host_kernels: Vec<String>,
    /// Rule 13.5: whether a host object other than the system library's
    /// names a kernel; only then do the patterns prune.
    user_named_kernels: bool,
    /// A cubin or fatbin was given directly: host information does not apply.
    device_only_input: bool,
}

/// Rule 13.5: the kernel-name patterns a host object's host code refers to,
/// NUL-separated in `.nvHRKE` (external linkage) and `.nvHRKI` (internal).
/// Empty for cubins, fatbins and objects without the sections.
fn host_kernel_patterns(data: &[u8]) -> Vec<String> {
    if develf_fatbin::sniff(data) != Some(develf_fatbin::ContainerKind::HostElf) {
        return Vec::new();
    }
    let Ok(elf) = develf_parse::ElfFile::parse(data) else { return Vec::new() };
    let mut patterns = Vec::new();
    for name in [".nvHRKE", ".nvHRKI"] {
        let Some(section) = elf.section_by_name(name) else { continue };
        for word in section.bytes().split(|&b| b == 0) {
            if let Ok(text) = std::str::from_utf8(word) {
                if !text.is_empty() {
                    patterns.push(text.to_string());
                }
            }
        }
    }
    patterns
}

/// A cubin or fatbin given on the command line (not a host object).
fn is_device_only(unit: &Unit<'_>) -> bool {
    unit.direct
        && (is_cubin(unit.data) || develf_fatbin::sniff(unit.data) == Some(develf_fatbin::ContainerKind::Fatbin))
}

/// Every device object the request's files contribute, in link order
/// (rule 12): a file given directly is linked, and so is *every* host-object
/// member of an archive, whether anything refers to it or not (functions
/// nobody calls then fall to dead-code elimination, variables stay: staticlib's
/// `unused.o` brings `dev_unused_table`). Only the system library (rule 13.3)
/// is searched as a host linker searches an archive: a member joins when it
/// defines a symbol the objects before it need and nothing defines yet,
/// repeated until none does.
fn gather_objects<'a>(
    loaded: &'a Loaded,
    request: &LinkRequest,
    reporter: &mut Reporter,
) -> Result<Gathered<'a>, LinkFailure> {
    let files = &loaded.files;
    let mut gathered = Gathered::default();
    // What the objects so far define and need; only a system library asks.
    let track = files.iter().any(|f| f.system);
    let mut defined: std::collections::HashSet<String> = std::collections::HashSet::new();
    let mut needed_functions: std::collections::HashSet<String> = std::collections::HashSet::new();
    // Rule 13.3: a system library that joined nothing must come last.
    let mut unused_system: Option<&str> = None;
    let symbols_of = |objects: &[NamedObject<'_>]| {
        let (mut d, mut u) = (Vec::new(), Vec::new());
        for (_, bytes, _) in objects {
            let (more_d, more_u) = defined_and_undefined(bytes);
            d.extend(more_d);
            u.extend(more_u);
        }
        (d, u)
    };
    for file in files {
        let units = units_of(file, &loaded.read).map_err(LinkFailure::fatal)?;
        let mut per_unit = Vec::with_capacity(units.len());
        for unit in &units {
            per_unit.push(device_objects(unit, request, reporter).map_err(LinkFailure::fatal)?);
        }
        // A virtual target links nothing, so nothing is needed: nvlink then
        // registers every member of the system library (compute_90 with
        // `-lcudadevrt`: its `cuda_device_runtime.cu`).
        if !file.system || request.virtual_target {
            if let Some(system) = unused_system.filter(|_| per_unit.iter().any(|o| !o.is_empty())) {
                return Err(LinkFailure::fatal(match reporter.style {
                    Style::Nvlink => "unexpected object after cudadevrt".to_string(),
                    Style::Develf => format!(
                        "'{}' comes after '{system}', which nothing needed: nvlink takes any input whose \
                         path contains \"{SYSTEM_LIBRARY}\" for its device runtime library, and accepts no \
                         object after it then (put it last)",
                        file.name
                    ),
                }));
            }
            for (unit, objects) in units.iter().zip(per_unit) {
                if track {
                    let (d, u) = symbols_of(&objects);
                    defined.extend(d);
                    needed_functions.extend(u);
                }
                if request.register_link_binaries.is_some() {
                    gathered.registered.extend(register_name(unit));
                }
                gathered.device_only_input |= is_device_only(unit);
                let patterns = host_kernel_patterns(unit.data);
                gathered.user_named_kernels |= patterns.iter().any(|p| !p.is_empty());
                gathered.host_kernels.extend(patterns);
                gathered.objects.extend(objects);
            }
            continue;
        }
        let symbols: Vec<DefinedAndNeeded> = per_unit.iter().map(|o| symbols_of(o)).collect();
        let mut per_unit: Vec<Option<Vec<NamedObject<'a>>>> = per_unit.into_iter().map(Some).collect();
        let mut joined = false;
        loop {
            // A member joins while any function is still undefined, whether
            // or not it defines it: f07's `m.cubin -lcudadevrt -ll` pulls
            // `cuda_device_runtime.o` in for `lf`, which only libl.a defines
            // (sm_80). An undefined variable pulls nothing, not even the
            // member that defines it (f08: `k.cubin l.cubin sys/u.cubin`
            // leaves u.cubin's `unrelated_var` undefined, and `k.cubin
            // sys/u.cubin l.cubin`, `lf` pending, links u.cubin whole). A
            // cubin or fatbin given directly under such a path joins by the
            // same rule. Raw cubins in an archive are no units (rule 13.3),
            // in the system library too.
            let function_pending = needed_functions.iter().any(|n| !defined.contains(n));
            let wanted = |i: &usize| function_pending && per_unit[*i].as_ref().is_some_and(|o| !o.is_empty());
            let Some(i) = (0..units.len()).find(wanted) else { break };
            joined = true;
            defined.extend(symbols[i].0.iter().cloned());
            needed_functions.extend(symbols[i].1.iter().cloned());
            if request.register_link_binaries.is_some() {
                gathered.registered.extend(register_name(&units[i]));
            }
            // Only once it joined does a system cubin turn host information
            // off (f08: `k3.o sys/u.cubin`, nothing pending, keeps only the
            // kernel k3.o's host code names).
            gathered.device_only_input |= is_device_only(&units[i]);
            gathered.host_kernels.extend(host_kernel_patterns(units[i].data));
            gathered.objects.extend(per_unit[i].take().unwrap_or_default());
        }
        // Rule 13.3: nvlink then takes no further object ("unexpected object
        // after cudadevrt", fatal: `u1.cubin libcudadevrt.a u2.cubin`, or
        // `-lcudadevrt -lu2`, or f08's `sys/m.cubin l.cubin`; once it joined,
        // later objects are fine). Not after an archive of raw cubins of
        // that name: it has no units.
        let has_objects = per_unit.iter().any(|o| o.as_ref().is_some_and(|o| !o.is_empty()));
        if !joined && has_objects && unused_system.is_none() {
            unused_system = Some(file.name.as_str());
        }
    }
    Ok(gathered)
}

/// The linker's inputs: each object's bytes and, for a cubin read without
/// its code, the source to read it from.
fn object_inputs<'a>(gathered: &'a Gathered<'_>, sources: &'a [crate::input_file::FileCode<'_>]) -> Vec<Input<'a>> {
    let source = |k: usize| sources.get(k).map(|s| s as &dyn develf_link::CodeSource);
    gathered.objects.iter().map(|(name, bytes, code)| Input { name, bytes, code: code.and_then(source) }).collect()
}

fn link_options(request: &LinkRequest, gathered: &Gathered<'_>) -> LinkOptions {
    let mut options = LinkOptions::new(request.arch);
    // Rule 13.5: a cubin or fatbin given directly (nvlink: `a.o b.cubin` keeps
    // `a.o`'s unnamed kernels), or `-ignore-host-info`, turns host information off.
    // The system library's own patterns (libcudadevrt names its `memset_3d`/
    // `memcpy_3d` kernels in `.nvHRKI`) do not turn it on: host objects naming
    // no kernel plus `-lcudadevrt` keep every kernel (dp: `parent`, `child`,
    // `grand`; sm_75 and sm_90, as `nvcc -dlink` links them).
    if !request.ignore_host_info && !gathered.device_only_input && gathered.user_named_kernels {
        options.host_kernels = Some(gathered.host_kernels.clone());
    }
    options.output = if request.relocatable { OutputKind::Relocatable } else { OutputKind::Executable };
    options.debug = request.debug;
    options.debug_suppressed = request.debug_suppressed;
    options.preserve_relocs = request.preserve_relocs;
    options.kernels_used.clone_from(&request.kernels_used);
    options.variables_used.clone_from(&request.variables_used);
    options.output_name = request.output.to_string_lossy().into_owned();
    options.threads = request.threads;
    options.command_line.clone_from(&request.command_line);
    options
}

/// nvlink's classes: unreadable or wrong-target inputs are fatal (status 1);
/// duplicate definitions are errors followed by a fatal `merge_elf failed`
/// (status 1); undefined references and the rest are errors (status 255).
fn link_failure(error: &LinkError) -> LinkFailure {
    let message = error.to_string();
    match error {
        LinkError::BadInput { .. } | LinkError::ArchMismatch { .. } | LinkError::ReplacedBank { .. } => {
            LinkFailure::fatal(message)
        }
        // A kernel and a device function or variable of one name is a
        // multiple definition to nvlink (`Function 'f' not declared __global__
        // in all source files`, then `merge_elf failed`): status 1, exec and
        // -r, sm_75/sm_90/sm_120 (f7 p5).
        LinkError::DuplicateDefinitions(_) | LinkError::KernelClash { .. } => {
            LinkFailure { status: FATAL_STATUS, fatal: false, message }
        }
        _ => LinkFailure { status: LINK_ERROR_STATUS, fatal: false, message },
    }
}

/// What a link's warnings print: (kind, text) lines in order, whether
/// `-Werror` made one an error, and whether that ends the link with
/// "merge_elf failed".
#[derive(Debug, Default, PartialEq, Eq)]
pub struct WarningLines {
    pub lines: Vec<(&'static str, String)>,
    pub failed: bool,
    pub merge_failed: bool,
}

/// The lines `warnings` print under `reporter`'s options. nvlink prints
/// every kind even under `-w` (they are infos to it, which `-disable-infos`
/// drops: [`shown`]); `-Werror` makes them errors that fail the link
/// (status 255, no output), the ISA_CLASS one with "merge_elf failed" and
/// exit status 1 at once: nvlink stops reading inputs after the first such
/// input, so no later warning follows (nvlink 13.5;
/// options/stack-warnings.txt, options/failing-warnings.txt).
pub fn warning_lines(
    request: &LinkRequest,
    reporter: &Reporter,
    warnings: &[develf_link::LinkWarning],
) -> WarningLines {
    let mut out = WarningLines::default();
    for warning in warnings.iter().filter(|w| shown(request, w)) {
        let text = match reporter.style {
            Style::Nvlink => warning.to_string(),
            Style::Develf => format!("{warning} ({})", warning.explanation()),
        };
        if reporter.warning_as_error {
            out.lines.push(("error", text));
            out.failed = true;
            if matches!(warning, develf_link::LinkWarning::MissingIsaClass { .. }) {
                out.merge_failed = true;
                break;
            }
        } else {
            out.lines.push(("warning", text));
        }
    }
    out
}

/// What a failed link prints, (kind, text) lines in order, and its exit
/// status: nvlink's warnings that go with the error
/// ([`LinkError::warnings`]: stack sizes and missing ISA_CLASS before the
/// executable's checks' errors, ISA_CLASS around multiple definitions, the
/// "limited to run" warning before an arch mismatch on sm_100+), the error
/// in develf's words, and `merge_elf failed` where nvlink closes with it.
/// Under `-Werror` an ISA_CLASS warning ends the link before the error
/// (status 1), as in nvlink (docs/nvlink-layout.md, session 50).
pub fn failure_lines(
    request: &LinkRequest,
    reporter: &Reporter,
    options: &LinkOptions,
    inputs: &[Input<'_>],
    error: &LinkError,
) -> FailureLines {
    let failure = link_failure(error);
    let (before, after) = error.warnings(options, inputs);
    let before = warning_lines(request, reporter, &before);
    let mut lines = before.lines;
    if before.merge_failed {
        lines.push(("fatal", "merge_elf failed".to_string()));
        return FailureLines { lines, status: FATAL_STATUS, merge_failed: true };
    }
    let kind = if failure.fatal { "fatal" } else { "error" };
    lines.extend(failure.message.lines().map(|line| (kind, line.to_string())));
    let after = warning_lines(request, reporter, &after);
    lines.extend(after.lines);
    // Errors that end in status 1 (duplicate definitions) close with
    // nvlink's `merge_elf failed` (sweep35 `diag-multiple-definition`).
    let merge_failed =
        (failure.status == FATAL_STATUS && !failure.fatal && reporter.style == Style::Nvlink) || after.merge_failed;
    if merge_failed {
        lines.push(("fatal", "merge_elf failed".to_string()));
    }
    FailureLines { lines, status: failure.status, merge_failed }
}

/// What [`failure_lines`] returns.
#[derive(Debug)]
pub struct FailureLines {
    /// (kind, text) lines in order.
    pub lines: Vec<(&'static str, String)>,
    pub status: u8,
    /// Whether the lines end with nvlink's `merge_elf failed`.
    pub merge_failed: bool,
}

/// What `develf nvlink` prints for the request's link, as (kind, text)
/// lines ([`Reporter::formatted`] prints one), and its exit status; writes
/// nothing. For tests: the link's warnings, or its failure's lines
/// ([`failure_lines`]).
pub fn link_messages(request: &LinkRequest, reporter: &mut Reporter) -> (Vec<(&'static str, String)>, u8) {
    let loaded = match load_files(request, reporter) {
        Ok(loaded) => loaded,
        Err(message) => return (vec![("fatal", message)], FATAL_STATUS),
    };
    let gathered = match gather_objects(&loaded, request, reporter) {
        Ok(gathered) => gathered,
        Err(failure) => {
            let kind = if failure.fatal { "fatal" } else { "error" };
            return (failure.message.lines().map(|line| (kind, line.to_string())).collect(), failure.status);
        }
    };
    let sources = loaded.code.sources();
    let inputs = object_inputs(&gathered, &sources);
    let options = link_options(request, &gathered);
    match develf_link::link_image(&options, &inputs) {
        Ok(image) => {
            let printed = warning_lines(request, reporter, image.warnings());
            let mut lines = printed.lines;
            let status = if printed.merge_failed {
                lines.push(("fatal", "merge_elf failed".to_string()));
                FATAL_STATUS
            } else if printed.failed {
                LINK_ERROR_STATUS
            } else {
                0
            };
            (lines, status)
        }
        Err(error) => {
            let failed = failure_lines(request, reporter, &options, &inputs, &error);
            (failed.lines, failed.status)
        }
    }
}

/// Whether the request leaves `warning` to be printed
/// (`-suppress-stack-size-warning`, `-disable-infos`).
fn shown(request: &LinkRequest, warning: &develf_link::LinkWarning) -> bool {
    match warning {
        develf_link::LinkWarning::UnknownStackSize { .. } => {
            !request.suppress_stack_size_warning && !request.disable_infos
        }
        develf_link::LinkWarning::MissingIsaClass { .. } | develf_link::LinkWarning::LimitedByInput { .. } => {
            !request.disable_infos
        }
    }
}

/// Reads the request's files and links them in memory; writes nothing. For
/// tools (`cargo xtask diff`) that compare the bytes.
pub fn link_bytes(request: &LinkRequest, reporter: &mut Reporter) -> Result<Vec<u8>, LinkFailure> {
    link_bytes_and_warnings(request, reporter).map(|(bytes, _)| bytes)
}

/// [`link_bytes`] with the link's warnings (which `run_link` prints).
pub fn link_bytes_and_warnings(
    request: &LinkRequest,
    reporter: &mut Reporter,
) -> Result<(Vec<u8>, Vec<develf_link::LinkWarning>), LinkFailure> {
    linked_in_memory(request, reporter, |_, _, image| {
        let warnings = image.warnings().iter().filter(|w| shown(request, w)).cloned().collect();
        let bytes = image.into_bytes().map_err(|e| {
            link_failure(&LinkError::ReadCode { what: "the inputs".to_string(), message: e.to_string() })
        })?;
        Ok((bytes, warnings))
    })
}

/// Reads the request's files, links them in memory and hands the link's
/// options, inputs and image to `then`; writes nothing.
fn linked_in_memory<T>(
    request: &LinkRequest,
    reporter: &mut Reporter,
    then: impl FnOnce(&LinkOptions, &[Input<'_>], develf_link::Image<'_>) -> Result<T, LinkFailure>,
) -> Result<T, LinkFailure> {
    let loaded = load_files(request, reporter).map_err(LinkFailure::fatal)?;
    let gathered = gather_objects(&loaded, request, reporter)?;
    let sources = loaded.code.sources();
    let inputs = object_inputs(&gathered, &sources);
    let options = link_options(request, &gathered);
    let image = develf_link::link_image(&options, &inputs).map_err(|e| link_failure(&e))?;
    then(&options, &inputs, image)
}

/// What `-dump-callgraph` prints after a link: `linked` is its output, or
/// its error. Nothing for a relocatable link, nor for a failed one, as
/// nvlink; except that nvlink prints the call graph after the errors for
/// undefined references, as the output would have been laid out.
fn callgraph_text(
    request: &LinkRequest,
    options: &develf_link::LinkOptions,
    inputs: &[Input<'_>],
    linked: Result<&develf_link::Image<'_>, &LinkError>,
) -> String {
    if request.relocatable {
        return String::new();
    }
    if inputs.is_empty() {
        // Rule 13.6: nvlink's words when no input had code for the target.
        return "No relocatable objects found. Did not generate callgraph.\n".to_string();
    }
    let order = match linked {
        Ok(_) => Vec::new(),
        Err(LinkError::UndefinedSymbols(_)) => match develf_link::placement_order(options, inputs) {
            Ok(order) => order,
            Err(_) => return String::new(),
        },
        Err(_) => return String::new(),
    };
    let placed = |input: usize, section: usize| match linked {
        Ok(image) => image.section_header_index(input, section),
        Err(_) => order.get(input).and_then(|s| s.get(section)).copied().filter(|&i| i != 0),
    };
    let scope = DumpScope {
        kept: &|name: &str| develf_link::is_root_kernel(options, name),
        placed: &placed,
        debug: options.debug_given(),
        preserve_relocs: options.preserve_relocs,
        address_taken_kernels: options.kernels_used.as_ref().is_some_and(|names| {
            let distinct: std::collections::HashSet<&String> = names.iter().collect();
            distinct.len() >= 2
        }),
    };
    callgraph_dump_kept(inputs, request.arch, true, &scope)
}

/// [`link_bytes`]'s link: what `-dump-callgraph` prints for it, and its
/// failure if it failed.
pub fn link_callgraph_text(request: &LinkRequest, reporter: &mut Reporter) -> (String, Option<LinkFailure>) {
    let loaded = match load_files(request, reporter) {
        Ok(loaded) => loaded,
        Err(message) => return (String::new(), Some(LinkFailure::fatal(message))),
    };
    let gathered = match gather_objects(&loaded, request, reporter) {
        Ok(gathered) => gathered,
        Err(failure) => return (String::new(), Some(failure)),
    };
    let sources = loaded.code.sources();
    let inputs = object_inputs(&gathered, &sources);
    let options = link_options(request, &gathered);
    match develf_link::link_image(&options, &inputs) {
        Ok(image) => (callgraph_text(request, &options, &inputs, Ok(&image)), None),
        Err(error) => (callgraph_text(request, &options, &inputs, Err(&error)), Some(link_failure(&error))),
    }
}

/// Reads the inputs, links, writes the output. The output appears only when
/// everything succeeded. Returns the exit status.
/// For a command about to exit: a successful link's working state is not
/// freed (see `develf_link::Image`).
pub fn run_link(request: &LinkRequest, reporter: &mut Reporter) -> u8 {
    let start = Instant::now();
    let report = |failure: LinkFailure, reporter: &Reporter| {
        // One message line per problem, each with its prefix.
        for line in failure.message.lines() {
            if failure.fatal {
                reporter.fatal(line);
            } else {
                reporter.error(line);
            }
        }
        // Errors that end in status 1 (duplicate definitions) close with
        // nvlink's `merge_elf failed` (sweep35 `diag-multiple-definition`).
        if failure.status == FATAL_STATUS && !failure.fatal && reporter.style == Style::Nvlink {
            reporter.fatal("merge_elf failed");
        }
        failure.status
    };
    let loaded = match load_files(request, reporter) {
        Ok(f) => f,
        Err(message) => return reporter.fatal(&message),
    };
    // With DEVELF_TIME_PHASES set, as develf-link times its phases: what
    // the command spends around the link (reading, writing the output).
    let timed = std::env::var_os("DEVELF_TIME_PHASES").is_some();
    let stamp = |step: &str| {
        if timed {
            let statm = std::fs::read_to_string("/proc/self/statm").unwrap_or_default();
            let pages: f64 = statm.split_whitespace().nth(1).and_then(|p| p.parse().ok()).unwrap_or(0.0);
            eprintln!(
                "develf: {step:<16} {:8.2} ms since start  resident {:6.1} MiB  page faults {:6}",
                start.elapsed().as_secs_f64() * 1e3,
                pages * 4096.0 / (1024.0 * 1024.0),
                develf_link::minor_faults()
            );
        }
    };
    stamp("files read");
    let gathered = match gather_objects(&loaded, request, reporter) {
        Ok(g) => g,
        Err(failure) => return report(failure, reporter),
    };
    stamp("objects gathered");
    if request.virtual_target {
        // nvlink 13.5 for `-arch=compute_XX`: no device link, no output file;
        // only the register file nvcc asked for.
        return match &request.register_link_binaries {
            Some(path) => {
                let text = register_file_text(&gathered.registered, reporter);
                match write_atomically(path, text.as_bytes()) {
                    Ok(()) => 0,
                    Err(e) => reporter.fatal(&format!("Could not write file '{}': {e}", path.display())),
                }
            }
            None => 0,
        };
    }
    let sources = loaded.code.sources();
    let inputs = object_inputs(&gathered, &sources);
    let options = link_options(request, &gathered);
    let image = match develf_link::link_image(&options, &inputs) {
        Ok(b) => b,
        Err(error) => {
            // nvlink has written the register file when it finds undefined
            // references (exit 255, no output; `nvcc -dlink` command lines,
            // f7 NV_dlink_none), not for the other failures (rule 13.12).
            if let (LinkError::UndefinedSymbols(_), Some(path)) = (&error, &request.register_link_binaries) {
                let text = register_file_text(&gathered.registered, reporter);
                if let Err(e) = write_atomically(path, text.as_bytes()) {
                    reporter.fatal(&format!("Could not write file '{}': {e}", path.display()));
                }
            }
            // With nvlink's warnings around the error (session 50).
            let failed = failure_lines(request, reporter, &options, &inputs, &error);
            for (kind, text) in &failed.lines {
                reporter.line(kind, text);
            }
            // Not where an ISA_CLASS warning under -Werror ended the link
            // before the error (`merge_elf failed`; undefined references,
            // the one failure with a call graph, never end so).
            if request.dump_callgraph.is_some() && !failed.merge_failed {
                eprint!("{}", callgraph_text(request, &options, &inputs, Err(&error)));
            }
            return failed.status;
        }
    };
    let lines = warning_lines(request, reporter, image.warnings());
    for (kind, text) in &lines.lines {
        reporter.line(kind, text);
    }
    reporter.failed |= lines.failed;
    if lines.merge_failed {
        return reporter.fatal("merge_elf failed");
    }
    if reporter.failed {
        return LINK_ERROR_STATUS;
    }
    let register_text =
        request.register_link_binaries.as_ref().map(|_| register_file_text(&gathered.registered, reporter));
    let output_bytes = image.len();
    stamp("linked");
    // `-v` reads the report from the output's bytes: assembled once, they
    // are also what is written.
    let mut assembled = None;
    let written = if request.verbose {
        let mut bytes = Vec::with_capacity(usize::try_from(output_bytes).unwrap_or(0));
        let written = image.write_to(&mut bytes).and_then(|()| write_atomically(&request.output, &bytes));
        assembled = Some(bytes);
        written
    } else {
        write_atomically_to_file(&request.output, |f| image.write_to_file(f))
    };
    if let Err(e) = written {
        return reporter.fatal(&format!("Could not write output file '{}': {e}", request.output.display()));
    }
    if let (Some(path), Some(text)) = (&request.register_link_binaries, register_text) {
        if let Err(e) = write_atomically(path, text.as_bytes()) {
            return reporter.fatal(&format!("Could not write file '{}': {e}", path.display()));
        }
    }
    stamp("output written");
    // nvlink 13.5 demangles with -dump-callgraph-no-demangle too (its output
    // is byte-identical to -dump-callgraph's), so only whether it is asked
    // for matters here.
    if request.dump_callgraph.is_some() {
        eprint!("{}", callgraph_text(request, &options, &inputs, Ok(&image)));
    }
    // `-v`: nvlink's resource report, read back from the output (after
    // the warnings, as nvlink prints it); develf's own style adds a summary.
    if let Some(bytes) = &assembled {
        for line in resource_report(bytes, request.relocatable).unwrap_or_default() {
            reporter.info(&line);
        }
        if matches!(reporter.style, Style::Develf) {
            let input_bytes: usize = inputs.iter().map(|i| i.bytes.len()).sum();
            reporter.info(&format!(
                "linked {} device objects ({input_bytes} bytes) into '{}' ({} bytes) in {:.3} s",
                inputs.len(),
                request.output.display(),
                output_bytes,
                start.elapsed().as_secs_f64()
            ));
        }
    }
    // The process ends after this: freeing the link's state would only cost
    // time (Image's `state`).
    std::mem::forget(image);
    // Nor the inputs: a big link's 20 MB of buffers and hundreds of open
    // files are the system's to release at exit.
    std::mem::forget(inputs);
    std::mem::forget(sources);
    std::mem::forget(gathered);
    std::mem::forget(loaded);
    0
}

/// Options of `develf link` (develf's own spelling of the same link).
#[derive(Debug, Clone, Default, clap::Args)]
pub struct DevelfLinkArgs {
    /// The target: sm_90, sm_90a, sm_100, ...
    #[arg(long, short = 'a', value_name = "SM")]
    pub arch: String,
    /// The output file (written only when the link succeeds).
    #[arg(long, short = 'o', value_name = "FILE")]
    pub output: PathBuf,
    /// Relocatable (partial) link.
    #[arg(long, short = 'r')]
    pub relocatable: bool,
    /// Keep and link debug sections.
    #[arg(long, short = 'g')]
    pub debug: bool,
    /// Keep resolved relocations in `.nv.resolvedrela.*`.
    #[arg(long)]
    pub preserve_relocs: bool,
    /// Only these kernels (substrings) and what they reach are kept.
    #[arg(long, value_name = "K,...", value_delimiter = ',')]
    pub kernels_used: Option<Vec<String>>,
    /// Only these variables (substrings) are kept.
    #[arg(long, value_name = "V,...", value_delimiter = ',')]
    pub variables_used: Option<Vec<String>>,
    /// Keep kernels no host object names (nvlink's `-ignore-host-info`).
    #[arg(long)]
    pub ignore_host_info: bool,
    /// Link libcudadevrt whole, as any other archive (nvlink's `-keep-system-libraries`).
    #[arg(long)]
    pub keep_system_libraries: bool,
    /// Library search path for -l.
    #[arg(short = 'L', value_name = "DIR")]
    pub library_paths: Vec<PathBuf>,
    /// Link lib<NAME>.a from the -L paths.
    #[arg(short = 'l', value_name = "NAME")]
    pub libraries: Vec<String>,
    /// Print the call graph as `nvlink -dump-callgraph` does.
    #[arg(long)]
    pub dump_callgraph: bool,
    /// Print the output's resources per kernel (nvlink's `-v` report) and what was linked.
    #[arg(long, short = 'v')]
    pub verbose: bool,
    /// Worker threads (0: all cores; default: DEVELF_THREADS or 0). The
    /// output is the same whatever the count.
    #[arg(long, value_name = "N")]
    pub threads: Option<usize>,
    #[arg(required = true)]
    pub inputs: Vec<PathBuf>,
}

/// Entry point of `develf link`.
pub fn main_link(args: &DevelfLinkArgs) -> ExitCode {
    ExitCode::from(run_develf_link(args))
}

/// [`main_link`] returning the exit status.
pub fn run_develf_link(args: &DevelfLinkArgs) -> u8 {
    let mut reporter = Reporter::new(Style::Develf);
    let arch = match target_arch(&args.arch) {
        Ok(a) => a,
        Err(message) => return reporter.fatal(&message),
    };
    let mut inputs: Vec<InputArg> =
        args.inputs.iter().map(|p| InputArg::File(p.to_string_lossy().into_owned())).collect();
    inputs.extend(args.libraries.iter().cloned().map(InputArg::Library));
    let request = LinkRequest {
        arch,
        target_name: target_name(&args.arch),
        output: args.output.clone(),
        relocatable: args.relocatable,
        debug: args.debug,
        debug_suppressed: false,
        preserve_relocs: args.preserve_relocs,
        kernels_used: args.kernels_used.clone(),
        variables_used: args.variables_used.clone(),
        ignore_host_info: args.ignore_host_info,
        keep_system_libraries: args.keep_system_libraries,
        library_paths: args.library_paths.clone(),
        inputs,
        dump_callgraph: args.dump_callgraph.then_some(true),
        verbose: args.verbose,
        register_link_binaries: None,
        threads: args.threads.or_else(threads_from_env).unwrap_or(0),
        command_line: None,
        ptxas: None,
        ptxas_options: Vec::new(),
        suppress_arch_warning: false,
        suppress_stack_size_warning: false,
        disable_infos: false,
        virtual_target: args.arch.starts_with("compute_"),
    };
    run_link(&request, &mut reporter)
}

/// Whether `argv[0]` names nvlink (`nvlink`, `/usr/local/bin/nvlink`, `nvlink.exe`).
pub fn invoked_as_nvlink(argv0: &std::ffi::OsStr) -> bool {
    let name = Path::new(argv0).file_name().map(|n| n.to_string_lossy().into_owned()).unwrap_or_default();
    name == "nvlink" || name == "nvlink.exe"
}
