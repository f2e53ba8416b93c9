//! `cargo xtask dropin`: the drop-in proof. Builds the CUDA programs of
//! `tests/fixtures/src/programs/` with CUDA 13.5's `nvcc -rdc=true`, and runs
//! nvcc's device-link step (`nvcc -dlink`) twice on the same objects: once
//! with the real toolkit (nvlink), once with a toolkit overlay whose `nvlink`
//! is develf (`target/release/develf`). The device ELFs are extracted from
//! both `-dlink` outputs and compared per architecture with
//! [`develf_link::compare`]; then both host executables are linked with g++
//! (as nvcc links them), and the whole program is built once more in one
//! `nvcc -rdc=true` call through the overlay.
//!
//! Objects are compiled once and shared by both device links: nvcc's objects
//! are not reproducible (ptxas records nvcc's temporary file names), so two
//! separate compilations would give the two linkers different inputs.
//!
//! With the run done, nvlink's inputs and outputs are stored under
//! `tests/fixtures/programs/` (unless `--no-store`) for the offline test
//! `tests/tests/dropin.rs`. Nothing from the toolkit itself (`libcudadevrt.a`)
//! is stored.

use crate::toolchain;
use anyhow::{Context, Result, bail};
use develf_cli::nvlink_cmd::split_options_file;
use std::collections::BTreeMap;
use std::fmt::Write as _;
use std::fs;
use std::path::{Path, PathBuf};
use std::process::{Command, Output};

pub const USAGE: &str = "dropin [--only NAME] [--no-store] [--no-build] [--all] [--run]";

/// One program of `tests/fixtures/src/programs/<name>/`.
#[derive(Debug)]
struct Program {
    name: &'static str,
    /// Translation units linked into the executable directly.
    sources: &'static [&'static str],
    /// Translation units put into `libdev.a` (with `nvcc -lib`), linked with `-L. -ldev`.
    library: &'static [&'static str],
    /// The target options given to every nvcc call.
    targets: &'static [&'static str],
    /// Uses dynamic parallelism: links members of `libcudadevrt.a`.
    device_runtime: bool,
}

const PROGRAMS: &[Program] = &[
    Program {
        name: "multi",
        sources: &["main.cu", "scale.cu", "offset.cu"],
        library: &[],
        targets: &["-arch=sm_90"],
        device_runtime: false,
    },
    Program {
        name: "dynpar",
        sources: &["main.cu", "child.cu"],
        library: &[],
        // sm_100/sm_120: libcudadevrt's kernels are rewritten by nvlink's
        // finaliser (rule 11.3, scoreboard.rs `split_pressed`).
        targets: &[
            "-gencode",
            "arch=compute_90,code=sm_90",
            "-gencode",
            "arch=compute_100,code=sm_100",
            "-gencode",
            "arch=compute_120,code=sm_120",
        ],
        device_runtime: true,
    },
    Program {
        name: "dpcopy",
        sources: &["main.cu", "table.cu"],
        library: &[],
        targets: &["-gencode", "arch=compute_90,code=sm_90", "-gencode", "arch=compute_100,code=sm_100"],
        device_runtime: true,
    },
    Program {
        name: "debugg",
        sources: &["main.cu", "saxpy.cu"],
        library: &[],
        // A debug build: nvcc -G makes the device link nvlink -g with a .reg.c.
        targets: &["-G", "-gencode", "arch=compute_90,code=sm_90", "-gencode", "arch=compute_100,code=sm_100"],
        device_runtime: false,
    },
    Program {
        name: "staticlib",
        sources: &["main.cu"],
        library: &["square.cu", "cube.cu", "unused.cu"],
        targets: &["-arch=sm_90"],
        device_runtime: false,
    },
    Program {
        name: "weakhost",
        // Rule 13.5 with U13: a weak kernel no host code launches, whose later
        // copy wins, leaves its `.nv.shared.<k>` name where its first copy is.
        sources: &["main.cu", "a.cu", "b.cu"],
        library: &[],
        targets: &["-gencode", "arch=compute_75,code=sm_75", "-gencode", "arch=compute_90,code=sm_90"],
        device_runtime: false,
    },
    Program {
        name: "gencode",
        sources: &["main.cu", "kernels.cu"],
        library: &[],
        targets: &[
            "-gencode",
            "arch=compute_75,code=sm_75",
            "-gencode",
            "arch=compute_90,code=sm_90",
            "-gencode",
            "arch=compute_100,code=sm_100",
        ],
        device_runtime: false,
    },
];

/// What the stored minimal `.nvlink.cmd` files have for the toolkit's `lib`
/// folder (where `libcudadevrt.a` is); the test puts `$DEVELF_CUDA_LIB` there.
const CUDA_LIB_PLACEHOLDER: &str = "$DEVELF_CUDA_LIB";

#[derive(Debug, Default)]
struct Options {
    only: Option<String>,
    store: bool,
    build: bool,
    all: bool,
    /// Run both executables of each program on the GPU and compare what they print.
    run: bool,
}

fn parse_options(args: &[String]) -> Result<Options> {
    let mut options = Options { store: true, build: true, ..Options::default() };
    let mut args = args.iter();
    while let Some(arg) = args.next() {
        match arg.as_str() {
            "--only" => options.only = Some(args.next().context("--only needs a program name")?.clone()),
            "--no-store" => options.store = false,
            "--no-build" => options.build = false,
            "--all" => options.all = true,
            "--run" => options.run = true,
            other => bail!("dropin: unknown option `{other}` (usage: {USAGE})"),
        }
    }
    if let Some(only) = &options.only
        && !PROGRAMS.iter().any(|p| p.name == only)
    {
        let names: Vec<&str> = PROGRAMS.iter().map(|p| p.name).collect();
        bail!("dropin: no program `{only}` (programs: {})", names.join(", "));
    }
    Ok(options)
}

/// A toolkit to run nvcc from: the real one, or the overlay.
#[derive(Debug)]
struct Toolkit {
    /// `nvlink` or `develf`: the device linker it runs, and the output folder's name.
    linker: &'static str,
    root: PathBuf,
}

impl Toolkit {
    fn nvcc(&self) -> PathBuf {
        self.root.join("bin").join("nvcc")
    }
}

/// A command's result: its status and output, summarised for the table.
#[derive(Debug, Clone)]
enum Step {
    Ok,
    Failed(String),
}

impl Step {
    fn ok(&self) -> bool {
        matches!(self, Step::Ok)
    }

    fn cell(&self) -> &'static str {
        if self.ok() { "ok" } else { "FAILED" }
    }
}

/// What one device link (one program, one toolkit) came to.
#[derive(Debug)]
struct DeviceLink {
    step: Step,
    /// `sm_XX` → the executable device ELF in the `-dlink` output.
    elfs: BTreeMap<String, Vec<u8>>,
    /// The `--register-link-binaries` file nvlink (or develf) wrote.
    register_file: Option<Vec<u8>>,
    host_link: Step,
}

/// One row of the table.
#[derive(Debug)]
struct Row {
    program: &'static str,
    arch: String,
    nvlink_size: usize,
    /// `None`: develf gave no ELF for this arch.
    identical: Option<bool>,
    differences: Vec<String>,
    develf_note: Option<String>,
    /// The same inputs linked by nvlink and develf run directly with a
    /// minimal command line ([`minimal_command`]): what is left when the
    /// command line nvlink records in `.note.nv.tkinfo` is the same.
    minimal: Minimal,
}

/// nvlink against develf on a minimal command line.
#[derive(Debug)]
enum Minimal {
    Compared { identical: bool, differences: Vec<String> },
    DevelfFailed(String),
}

#[derive(Debug)]
struct ProgramReport {
    program: &'static str,
    rows: Vec<Row>,
    register_file: String,
    host_link_nvlink: Step,
    host_link_develf: Step,
    one_step: Step,
}

pub fn run(args: &[String]) -> Result<()> {
    let options = parse_options(args)?;
    let root = toolchain::workspace_root();
    let toolchain = toolchain::ensure()?;
    let real_root = toolchain
        .cuda13_bin
        .parent()
        .with_context(|| format!("{} has no parent directory", toolchain.cuda13_bin.display()))?
        .to_path_buf();
    let develf = if options.build {
        toolchain::build_develf(&root, "release")?
    } else {
        toolchain::develf_path(&root, "release")
    };
    if !develf.is_file() {
        bail!("{} is missing (run without --no-build)", develf.display());
    }
    let work = root.join("target").join("dropin");
    let overlay_root = work.join("toolkit-develf");
    make_overlay(&real_root, &overlay_root, &develf)?;
    let version = Command::new(overlay_root.join("bin").join("nvlink"))
        .arg("--version")
        .output()
        .with_context(|| format!("running {}/bin/nvlink --version", overlay_root.display()))?;
    println!(
        "toolkit overlay: {} (its nvlink -> {}: {})",
        overlay_root.display(),
        develf.display(),
        String::from_utf8_lossy(&version.stdout).lines().next().unwrap_or("?")
    );
    let toolkits =
        [Toolkit { linker: "nvlink", root: real_root.clone() }, Toolkit { linker: "develf", root: overlay_root }];

    let sources_root = root.join("tests").join("fixtures").join("src").join("programs");
    let store_root = root.join("tests").join("fixtures").join("programs");
    let mut reports = Vec::new();
    let mut manifest = Vec::new();
    for program in PROGRAMS.iter().filter(|p| options.only.as_deref().is_none_or(|only| only == p.name)) {
        println!("building {} ...", program.name);
        let dir = work.join(program.name);
        let (report, stored) = run_program(program, &sources_root, &dir, &toolkits)?;
        if options.store {
            manifest.extend(store(program, &dir, &store_root.join(program.name), &stored)?);
        }
        reports.push(report);
    }
    if options.store {
        write_manifest(&store_root, &manifest, options.only.is_some())?;
    }
    print_report(&reports, &options);
    if options.run {
        run_on_gpu(&work, &options)?;
    }
    Ok(())
}

/// The final proof of a link: run the program linked through nvlink and the one
/// linked through develf on a real GPU, and compare their exit status and
/// output (each program checks its own results and prints them). Without a GPU
/// this says so and changes nothing.
fn run_on_gpu(work: &Path, options: &Options) -> Result<()> {
    let gpu = Command::new("nvidia-smi").arg("-L").output();
    let gpu = match gpu {
        Ok(out) if out.status.success() && String::from_utf8_lossy(&out.stdout).contains("GPU") => {
            String::from_utf8_lossy(&out.stdout).lines().next().unwrap_or("GPU").to_string()
        }
        _ => {
            println!("GPU run skipped: no NVIDIA GPU here (`nvidia-smi -L` found none)");
            return Ok(());
        }
    };
    println!("running on {gpu}");
    let mut all_same = true;
    for program in PROGRAMS.iter().filter(|p| options.only.as_deref().is_none_or(|only| only == p.name)) {
        let dir = work.join(program.name);
        let mut results = Vec::new();
        for linker in ["nvlink", "develf"] {
            let exe = dir.join(linker).join(program.name);
            let out =
                Command::new(&exe).current_dir(&dir).output().with_context(|| format!("running {}", exe.display()))?;
            results.push((out.status.code(), out.stdout));
        }
        let same = results[0] == results[1];
        let ok = results[0].0 == Some(0) && results[1].0 == Some(0);
        all_same &= same && ok;
        println!(
            "{:<10} nvlink exit {:?}, develf exit {:?}, output {}",
            program.name,
            results[0].0,
            results[1].0,
            if same { "identical" } else { "DIFFERS" }
        );
    }
    if !all_same {
        bail!("a program linked by develf behaved differently from the one linked by nvlink");
    }
    Ok(())
}

/// A copy of the toolkit made of symlinks, with `bin/nvlink` pointing at
/// develf. nvcc finds its tools next to itself (`_HERE_` in `nvcc.profile`)
/// without resolving symlinks, so this overlay's nvcc runs develf.
fn make_overlay(real_root: &Path, overlay: &Path, develf: &Path) -> Result<()> {
    if overlay.exists() {
        fs::remove_dir_all(overlay).with_context(|| format!("removing {}", overlay.display()))?;
    }
    let bin = overlay.join("bin");
    fs::create_dir_all(&bin).with_context(|| format!("creating {}", bin.display()))?;
    for entry in fs::read_dir(real_root).with_context(|| format!("reading {}", real_root.display()))? {
        let entry = entry?;
        if entry.file_name() != "bin" {
            symlink(&entry.path(), &overlay.join(entry.file_name()))?;
        }
    }
    let real_bin = real_root.join("bin");
    for entry in fs::read_dir(&real_bin).with_context(|| format!("reading {}", real_bin.display()))? {
        let entry = entry?;
        if entry.file_name() != "nvlink" && entry.file_name() != "nvcc.profile" {
            symlink(&entry.path(), &bin.join(entry.file_name()))?;
        }
    }
    // nvcc hands nvlink `-L$(TOP)/lib/stubs -L$(TOP)/lib`, and nvlink records
    // them in its output (rule 7.5). With `TOP = $(_HERE_)/..` the overlay's
    // nvcc would name the overlay's folders: point TOP at the real toolkit,
    // spelled as the real nvcc spells it, so both links get the same line.
    // `_HERE_` stays the overlay's `bin`, where nvcc finds develf as nvlink.
    let profile_path = real_bin.join("nvcc.profile");
    let profile = fs::read_to_string(&profile_path).with_context(|| format!("reading {}", profile_path.display()))?;
    let real_top = format!("{}/..", real_bin.display());
    let profile = profile.replace("$(_HERE_)/..", &real_top);
    let overlay_profile = bin.join("nvcc.profile");
    fs::write(&overlay_profile, profile).with_context(|| format!("writing {}", overlay_profile.display()))?;
    symlink(develf, &bin.join("nvlink"))
}

fn symlink(target: &Path, link: &Path) -> Result<()> {
    std::os::unix::fs::symlink(target, link)
        .with_context(|| format!("linking {} -> {}", link.display(), target.display()))
}

/// Runs `command`; an `Err` only when it cannot be started.
fn run_command(command: &mut Command, what: &str) -> Result<(Step, Output)> {
    let output = command.output().with_context(|| format!("starting {what}"))?;
    let step = if output.status.success() {
        Step::Ok
    } else {
        Step::Failed(format!("{what}: {}: {}", output.status, summarise(&output)))
    };
    Ok((step, output))
}

/// The first line of a failed command's messages (nvlink's can run to
/// megabytes), cut to a readable length, with a count of the rest.
fn summarise(output: &Output) -> String {
    let text = if output.stderr.is_empty() { &output.stdout } else { &output.stderr };
    let text = String::from_utf8_lossy(text);
    let mut lines = text.lines().filter(|l| !l.trim().is_empty());
    let first = lines.next().unwrap_or("(no message)");
    let more = lines.count();
    let mut line: String = first.chars().take(220).collect();
    if line.len() < first.len() {
        line.push_str(" ...");
    }
    if more > 0 {
        let _ = write!(line, " (+{more} more lines)");
    }
    line
}

/// Runs a command that must succeed (the real toolkit's steps).
fn run_required(command: &mut Command, what: &str) -> Result<Output> {
    let (step, output) = run_command(command, what)?;
    match step {
        Step::Ok => Ok(output),
        Step::Failed(message) => bail!("{message}"),
    }
}

/// What the stored fixture needs from a run.
#[derive(Debug)]
struct Stored {
    /// Files in the build folder that nvlink reads (objects, `libdev.a`).
    inputs: Vec<String>,
    /// nvlink's device ELF per arch.
    elfs: BTreeMap<String, Vec<u8>>,
    /// The nvlink command per arch, as nvcc ran it (`-dryrun`).
    commands: BTreeMap<String, Vec<String>>,
    /// Per arch: the minimal command and nvlink's output for it.
    minimal: BTreeMap<String, (Vec<String>, Vec<u8>)>,
    register_file: Option<Vec<u8>>,
}

fn run_program(
    program: &Program,
    sources_root: &Path,
    dir: &Path,
    toolkits: &[Toolkit; 2],
) -> Result<(ProgramReport, Stored)> {
    if dir.exists() {
        fs::remove_dir_all(dir).with_context(|| format!("removing {}", dir.display()))?;
    }
    fs::create_dir_all(dir).with_context(|| format!("creating {}", dir.display()))?;
    let source_dir = sources_root.join(program.name);
    for entry in fs::read_dir(&source_dir).with_context(|| format!("reading {}", source_dir.display()))? {
        let entry = entry?;
        if entry.file_type()?.is_file() {
            fs::copy(entry.path(), dir.join(entry.file_name()))
                .with_context(|| format!("copying {}", entry.path().display()))?;
        }
    }
    let real = &toolkits[0];
    let object = |source: &str| source.replace(".cu", ".o");

    // Compile once, with the real toolkit (compiling runs no device linker).
    for source in program.sources.iter().chain(program.library) {
        run_required(
            nvcc(real, dir).arg("-rdc=true").args(program.targets).args(["-c", source, "-o", &object(source)]),
            &format!("nvcc -c {}/{source}", program.name),
        )?;
    }
    let mut link_args: Vec<String> = program.sources.iter().map(|s| object(s)).collect();
    let mut inputs = link_args.clone();
    if !program.library.is_empty() {
        let members: Vec<String> = program.library.iter().map(|s| object(s)).collect();
        run_required(
            nvcc(real, dir).arg("-lib").args(program.targets).args(&members).args(["-o", "libdev.a"]),
            &format!("nvcc -lib ({})", program.name),
        )?;
        link_args.extend(["-L.".to_string(), "-ldev".to_string()]);
        inputs.push("libdev.a".to_string());
    }
    if program.device_runtime {
        link_args.push("-lcudadevrt".to_string());
    }

    let dlink_name = format!("{}_dlink.o", program.name);
    // The nvlink commands nvcc runs, for the stored `.nvlink.cmd` files.
    let dryrun = run_required(
        nvcc(real, dir)
            .args(program.targets)
            .args(["-dlink", "-dryrun", "--keep", "--keep-dir", real.linker])
            .args(&link_args)
            .args(["-o", &format!("{}/{dlink_name}", real.linker)]),
        &format!("nvcc -dlink -dryrun ({})", program.name),
    )?;
    let commands = nvlink_commands(&String::from_utf8_lossy(&dryrun.stderr));
    if commands.is_empty() {
        bail!("nvcc -dlink -dryrun ({}) shows no nvlink command", program.name);
    }

    let mut links = Vec::with_capacity(2);
    for toolkit in toolkits {
        links.push(device_link(program, dir, toolkit, &link_args, &dlink_name)?);
    }
    let [nvlink, develf] = <[DeviceLink; 2]>::try_from(links).map_err(|_| anyhow::anyhow!("two device links"))?;
    if let Step::Failed(message) = &nvlink.step {
        bail!("the reference build failed: {message}");
    }

    // The whole program in one nvcc call through the overlay: compile, device-link with develf, host-link.
    let one_step_dir = dir.join("one-step");
    fs::create_dir_all(&one_step_dir).with_context(|| format!("creating {}", one_step_dir.display()))?;
    let mut one_step_args: Vec<String> = program.sources.iter().map(|s| s.to_string()).collect();
    one_step_args.extend(link_args.iter().filter(|a| a.starts_with("-l") || a.starts_with("-L")).cloned());
    let (one_step, _) = run_command(
        nvcc(&toolkits[1], dir).arg("-rdc=true").args(program.targets).args(&one_step_args).args([
            "--keep",
            "--keep-dir",
            "one-step",
            "-o",
            &format!("one-step/{}", program.name),
        ]),
        "nvcc -rdc=true (one step, develf)",
    )?;

    // Both linkers on a minimal command line (`nvlink --arch=sm_XX FILES -o OUT`).
    let develf_binary = toolkits[1].root.join("bin").join("nvlink");
    let minimal_dir = dir.join("minimal");
    fs::create_dir_all(&minimal_dir).with_context(|| format!("creating {}", minimal_dir.display()))?;
    let mut minimal_outputs = BTreeMap::new();
    let mut minimal_results = BTreeMap::new();
    for (arch, words) in &commands {
        let run_words = minimal_command(words, dir, program.device_runtime, false)?;
        let mut outputs = Vec::with_capacity(2);
        for (linker, binary) in [("nvlink", real.root.join("bin").join("nvlink")), ("develf", develf_binary.clone())] {
            let output = format!("minimal/{}_min.{arch}.{linker}.cubin", program.name);
            let (step, _) = run_command(
                Command::new(&binary).current_dir(dir).args(&run_words).args(["-o", &output]),
                &format!("{linker} {} -o {output}", run_words.join(" ")),
            )?;
            outputs.push(match step {
                Step::Ok => Ok(fs::read(dir.join(&output)).with_context(|| format!("reading {output}"))?),
                Step::Failed(message) => Err(message),
            });
        }
        let theirs = match &outputs[0] {
            Ok(bytes) => bytes.clone(),
            Err(message) => bail!("nvlink failed on the minimal command for {}: {message}", program.name),
        };
        let result = match &outputs[1] {
            Ok(ours) => {
                let comparison = develf_link::compare(ours, &theirs);
                Minimal::Compared { identical: comparison.byte_identical, differences: comparison.semantic_differences }
            }
            Err(message) => Minimal::DevelfFailed(message.clone()),
        };
        minimal_results.insert(arch.clone(), result);
        minimal_outputs.insert(arch.clone(), (minimal_command(words, dir, program.device_runtime, true)?, theirs));
    }

    let mut rows = Vec::new();
    for (arch, theirs) in &nvlink.elfs {
        let mut row = Row {
            program: program.name,
            arch: arch.clone(),
            nvlink_size: theirs.len(),
            identical: None,
            differences: Vec::new(),
            develf_note: None,
            minimal: minimal_results
                .remove(arch)
                .unwrap_or_else(|| Minimal::DevelfFailed(format!("nvcc ran no nvlink for {arch}"))),
        };
        match (&develf.step, develf.elfs.get(arch)) {
            (_, Some(ours)) => {
                let comparison = develf_link::compare(ours, theirs);
                row.identical = Some(comparison.byte_identical);
                row.differences = comparison.semantic_differences;
                let (ours_line, theirs_line) = (tkinfo_command_line(ours), tkinfo_command_line(theirs));
                if ours_line != theirs_line {
                    row.differences.insert(
                        0,
                        format!(
                            "the command line in nvlink's .note.nv.tkinfo note: ours {:?}, nvlink {:?}",
                            ours_line.unwrap_or_default(),
                            theirs_line.unwrap_or_default()
                        ),
                    );
                }
            }
            (Step::Failed(message), None) => row.develf_note = Some(message.clone()),
            (Step::Ok, None) => row.develf_note = Some(format!("no {arch} device ELF in develf's -dlink output")),
        }
        rows.push(row);
    }
    let register_file = match (&nvlink.register_file, &develf.register_file) {
        (Some(theirs), Some(ours)) if theirs == ours => "same".to_string(),
        (Some(theirs), Some(ours)) if theirs.trim_ascii_end() == ours.trim_ascii_end() => {
            "differs (final newline)".to_string()
        }
        (Some(_), Some(_)) => "differs".to_string(),
        (Some(_), None) => "missing".to_string(),
        (None, _) => "-".to_string(),
    };
    let report = ProgramReport {
        program: program.name,
        rows,
        register_file,
        host_link_nvlink: nvlink.host_link,
        host_link_develf: develf.host_link,
        one_step,
    };
    let stored =
        Stored { inputs, elfs: nvlink.elfs, commands, minimal: minimal_outputs, register_file: nvlink.register_file };
    Ok((report, stored))
}

/// The command line the linker recorded in its own `.note.nv.tkinfo` note
/// (the first note, whose tool is `nvlink`).
fn tkinfo_command_line(elf: &[u8]) -> Option<String> {
    let marker = b"\0nvlink\0Cuda compilation tools";
    let start = elf.windows(marker.len()).position(|w| w == marker)?;
    // "", "nvlink", version, branch, command line
    let line = elf.get(start..)?.split(|&b| b == 0).nth(4)?;
    Some(String::from_utf8_lossy(line).into_owned())
}

/// nvcc run in `dir` from `toolkit`, with a `PATH` that holds no CUDA
/// toolkit: nvcc finds its tools next to itself.
fn nvcc(toolkit: &Toolkit, dir: &Path) -> Command {
    let mut command = Command::new(toolkit.nvcc());
    command.current_dir(dir).env("PATH", "/usr/local/bin:/usr/bin:/bin");
    command
}

/// `nvcc -dlink` into `dir/<linker>/`, then the host link with g++ as nvcc
/// runs it (`nvcc -dryrun` on an executable build shows the same line).
fn device_link(
    program: &Program,
    dir: &Path,
    toolkit: &Toolkit,
    link_args: &[String],
    dlink_name: &str,
) -> Result<DeviceLink> {
    let out = dir.join(toolkit.linker);
    fs::create_dir_all(&out).with_context(|| format!("creating {}", out.display()))?;
    let dlink = format!("{}/{dlink_name}", toolkit.linker);
    let (step, _) = run_command(
        nvcc(toolkit, dir)
            .args(program.targets)
            .args(["-dlink", "--keep", "--keep-dir", toolkit.linker])
            .args(link_args)
            .args(["-o", &dlink]),
        &format!("nvcc -dlink ({})", toolkit.linker),
    )?;
    let mut result = DeviceLink {
        step,
        elfs: BTreeMap::new(),
        register_file: None,
        host_link: Step::Failed("no -dlink output".into()),
    };
    if !result.step.ok() {
        return Ok(result);
    }
    let bytes = fs::read(dir.join(&dlink)).with_context(|| format!("reading {}", dir.join(&dlink).display()))?;
    let entries =
        develf_fatbin::device_elfs(&bytes).map_err(|d| anyhow::anyhow!("{}: {d}", dir.join(&dlink).display()))?;
    for entry in entries {
        let elf = entry.data.map_err(|d| anyhow::anyhow!("{dlink}: {}: {d}", entry.label))?;
        result.elfs.insert(entry.arch.clone(), elf.into_owned());
    }
    let register = out.join(dlink_name.replace(".o", ".reg.c"));
    result.register_file = fs::read(&register).ok();

    let cuda_lib = toolkit.root.join("lib");
    let mut host = Command::new("g++");
    host.current_dir(dir)
        .args(link_args.iter().filter(|a| !a.starts_with("-l") && !a.starts_with("-L")))
        .arg(&dlink)
        .args(link_args.iter().filter(|a| a.starts_with("-L") || (a.starts_with("-l") && *a != "-lcudadevrt")))
        .arg(format!("-L{}", cuda_lib.display()))
        .args(["-lcudadevrt", "-lcudart_static", "-lrt", "-lpthread", "-ldl"])
        .args(["-o", &format!("{}/{}", toolkit.linker, program.name)]);
    result.host_link = run_command(&mut host, "g++ (host link)")?.0;
    Ok(result)
}

/// `arch` → the words of each `nvlink` line in `nvcc -dryrun` output.
fn nvlink_commands(dryrun: &str) -> BTreeMap<String, Vec<String>> {
    let mut commands = BTreeMap::new();
    for line in dryrun.lines() {
        let Some(command) = line.strip_prefix("#$ nvlink ") else { continue };
        let words = split_options_file(command);
        let arch = words.iter().find_map(|w| w.strip_prefix("--arch=").or_else(|| w.strip_prefix("-arch=")));
        if let Some(arch) = arch {
            commands.insert(arch.to_string(), words.clone());
        }
    }
    commands
}

/// The options nvcc gives nvlink that take their value as the next word.
const TAKES_VALUE: &[&str] = &["-o", "--host-ccbin", "-arch", "--arch", "-L", "-l"];

/// nvcc's nvlink command reduced to `--arch=sm_XX` and the input files, then
/// for each `-lNAME` (once) the archive it finds on the `-L` paths
/// (`libcudadevrt.a` only for programs that use the device runtime).
/// nvlink records `-m`, `-l`, `-L`, `-cpu-arch` and `-report-arch` in its
/// `.note.nv.tkinfo`; without them the note holds `-arch sm_XX ` only.
/// `for_store`: the words for the stored `.nvlink.cmd` (files by their names in
/// the fixture folder, toolkit libraries as `$DEVELF_CUDA_LIB/libNAME.a`);
/// otherwise the words to run in `dir`. No `-o`: the caller adds it.
fn minimal_command(words: &[String], dir: &Path, device_runtime: bool, for_store: bool) -> Result<Vec<String>> {
    let mut library_paths = Vec::new();
    let mut rest = Vec::new();
    let mut iter = words.iter();
    while let Some(word) = iter.next() {
        if TAKES_VALUE.contains(&word.as_str()) {
            let value = iter.next().with_context(|| format!("`{word}` without a value in {}", words.join(" ")))?;
            match word.as_str() {
                "-L" => library_paths.push(value.clone()),
                "-l" => rest.push(format!("-l{value}")),
                "-arch" | "--arch" => rest.push(format!("--arch={value}")),
                _ => {}
            }
        } else if let Some(path) = word.strip_prefix("-L") {
            library_paths.push(path.to_string());
        } else if word.starts_with('-') && !word.starts_with("-l") && !word.starts_with("--arch=") {
            // -m64, -cpu-arch=X86_64, -report-arch, --register-link-binaries=...
        } else {
            rest.push(word.clone());
        }
    }
    // Files first, then the libraries: nvlink reads an archive named as a
    // file in command-line order (one before the objects that need it
    // contributes nothing), but `-l` libraries after every file.
    let (libraries, mut out): (Vec<String>, Vec<String>) = rest.into_iter().partition(|w| w.starts_with("-l"));
    let mut seen_libraries = Vec::new();
    for word in libraries {
        let Some(name) = word.strip_prefix("-l") else { continue };
        // nvcc adds -lcudadevrt to every device link; a program without
        // dynamic parallelism takes nothing from it (checked: same output).
        if seen_libraries.iter().any(|seen| seen == name) || (name == "cudadevrt" && !device_runtime) {
            continue;
        }
        seen_libraries.push(name.to_string());
        let file = format!("lib{name}.a");
        let Some(found) = library_paths.iter().map(|p| Path::new(p).join(&file)).find(|p| dir.join(p).is_file()) else {
            continue; // nvlink skips a library it cannot find
        };
        let in_toolkit = found.is_absolute() || found.to_string_lossy().contains("/bin/../lib");
        out.push(match (for_store, in_toolkit) {
            (false, _) => found.to_string_lossy().into_owned(),
            (true, true) => format!("{CUDA_LIB_PLACEHOLDER}/{file}"),
            (true, false) => file,
        });
    }
    Ok(out)
}

/// nvcc's nvlink command as stored: word for word, but with the output and
/// the register file named in the fixture folder. The toolkit's `-L` paths
/// stay as nvcc gave them: nvlink records them in `.note.nv.tkinfo`, and with
/// `-g` also the output's basename (rule 7.5), which then stays nvcc's
/// (`debugg_dlink.compute_90.cubin`; the stored ELF is still `cubin`).
fn stored_command(words: &[String], cubin: &str, register: &str) -> String {
    let debug = words.iter().any(|w| w == "-g");
    let mut out = vec!["nvlink".to_string()];
    let mut words = words.iter();
    while let Some(word) = words.next() {
        if word.starts_with("--register-link-binaries=") {
            out.push(format!("--register-link-binaries={register}"));
        } else if word == "-o" {
            let given = words.next();
            let base = given.and_then(|g| g.rsplit('/').next()).filter(|_| debug).unwrap_or(cubin);
            out.extend(["-o".to_string(), base.to_string()]);
        } else {
            out.push(word.clone());
        }
    }
    out.join(" ")
}

/// Writes `tests/fixtures/programs/<name>/`; returns its manifest entries.
fn store(program: &Program, dir: &Path, into: &Path, stored: &Stored) -> Result<Vec<serde_json::Value>> {
    if into.exists() {
        fs::remove_dir_all(into).with_context(|| format!("removing {}", into.display()))?;
    }
    fs::create_dir_all(into).with_context(|| format!("creating {}", into.display()))?;
    for input in &stored.inputs {
        fs::copy(dir.join(input), into.join(input)).with_context(|| format!("storing {input}"))?;
    }
    let register = format!("{}_dlink.reg.c", program.name);
    if let Some(bytes) = &stored.register_file {
        fs::write(into.join(&register), bytes).with_context(|| format!("storing {register}"))?;
    }
    let mut entries = Vec::new();
    let mut add = |variant: &str, arch: &str, cubin: &str, elf: &[u8], command: String| -> Result<()> {
        fs::write(into.join(cubin), elf).with_context(|| format!("storing {cubin}"))?;
        let cmd_name = cubin.replace(".cubin", ".nvlink.cmd");
        fs::write(into.join(&cmd_name), format!("{command}\n")).with_context(|| format!("storing {cmd_name}"))?;
        entries.push(serde_json::json!({
            "program": program.name,
            "variant": variant,
            "arch": arch,
            "cubin": format!("{}/{cubin}", program.name),
            "command": format!("{}/{cmd_name}", program.name),
            "inputs": stored.inputs,
            "device_runtime": program.device_runtime,
        }));
        Ok(())
    };
    for (arch, elf) in &stored.elfs {
        let cubin = format!("{}_dlink.{arch}.cubin", program.name);
        let Some(words) = stored.commands.get(arch) else {
            bail!("{}: nvcc -dryrun showed no nvlink command for {arch}", program.name);
        };
        add("nvcc", arch, &cubin, elf, stored_command(words, &cubin, &register))?;
    }
    for (arch, (words, elf)) in &stored.minimal {
        let cubin = format!("{}_min.{arch}.cubin", program.name);
        add("minimal", arch, &cubin, elf, format!("nvlink {} -o {cubin}", words.join(" ")))?;
    }
    Ok(entries)
}

/// `tests/fixtures/programs/manifest.json`: every stored device link. With
/// `--only`, the other programs' entries are kept.
fn write_manifest(store_root: &Path, entries: &[serde_json::Value], partial: bool) -> Result<()> {
    let path = store_root.join("manifest.json");
    let mut all: Vec<serde_json::Value> = Vec::new();
    if partial && let Ok(text) = fs::read(&path) {
        let old: Vec<serde_json::Value> =
            serde_json::from_slice(&text).with_context(|| format!("parsing {}", path.display()))?;
        let replaced: Vec<&serde_json::Value> = entries.iter().map(|e| &e["program"]).collect();
        all.extend(old.into_iter().filter(|e| !replaced.contains(&&e["program"])));
    }
    all.extend(entries.iter().cloned());
    all.sort_by_key(|e| e["cubin"].as_str().unwrap_or_default().to_string());
    let text = serde_json::to_string_pretty(&all).context("serialising the manifest")?;
    fs::write(&path, format!("{text}\n")).with_context(|| format!("writing {}", path.display()))
}

/// A difference message cut to one readable line (decoded notes run long).
fn shorten(text: &str) -> String {
    const MAX: usize = 240;
    if text.chars().count() <= MAX || text.starts_with("the command line") {
        return text.to_string();
    }
    let cut: String = text.chars().take(MAX).collect();
    format!("{cut} ...")
}

/// The table cells for a comparison, counting it into `tally`.
fn cells(
    identical: Option<bool>,
    differences: &[String],
    failed: bool,
    tally: &mut (usize, usize),
) -> (&'static str, String) {
    match identical {
        Some(true) => {
            tally.0 += 1;
            tally.1 += 1;
            ("yes", "yes".to_string())
        }
        Some(false) if differences.is_empty() => {
            tally.1 += 1;
            ("no", "yes".to_string())
        }
        Some(false) => ("no", format!("no ({} differences)", differences.len())),
        None if failed => ("-", "develf failed".to_string()),
        None => ("-", "-".to_string()),
    }
}

fn push_differences(notes: &mut Vec<String>, label: &str, differences: &[String], all: bool) {
    let shown = if all { differences.len() } else { differences.len().min(3) };
    for difference in &differences[..shown] {
        notes.push(format!("{label}: {}", shorten(difference)));
    }
    if shown < differences.len() {
        notes.push(format!("{label}: ... {} more (--all shows every one)", differences.len() - shown));
    }
}

fn print_report(reports: &[ProgramReport], options: &Options) {
    println!(
        "\n{:<10} {:<7} {:>8} | {:<9} {:<20} | {:<9} {:<20} | {:<23} {:<6} {:<6} {:<8}",
        "",
        "",
        "",
        "nvcc -dlink (nvlink's command line)",
        "",
        "minimal command line",
        "",
        "",
        "host link",
        "",
        "nvcc -rdc"
    );
    println!(
        "{:<10} {:<7} {:>8} | {:<9} {:<20} | {:<9} {:<20} | {:<23} {:<6} {:<6} {:<8}",
        "program",
        "arch",
        "bytes",
        "identical",
        "semantically equal",
        "identical",
        "semantically equal",
        "register file",
        "nvlink",
        "develf",
        "develf"
    );
    let (mut links, mut nvcc_tally, mut minimal_tally) = (0, (0, 0), (0, 0));
    let mut notes = Vec::new();
    for report in reports {
        for row in &report.rows {
            links += 1;
            let label = format!("{} {}", row.program, row.arch);
            let (identical, equal) = cells(row.identical, &row.differences, row.develf_note.is_some(), &mut nvcc_tally);
            let (min_identical, min_equal) = match &row.minimal {
                Minimal::Compared { identical, differences } => {
                    cells(Some(*identical), differences, false, &mut minimal_tally)
                }
                Minimal::DevelfFailed(_) => cells(None, &[], true, &mut minimal_tally),
            };
            println!(
                "{:<10} {:<7} {:>8} | {:<9} {:<20} | {:<9} {:<20} | {:<23} {:<6} {:<6} {:<8}",
                row.program,
                row.arch,
                row.nvlink_size,
                identical,
                equal,
                min_identical,
                min_equal,
                report.register_file,
                report.host_link_nvlink.cell(),
                report.host_link_develf.cell(),
                report.one_step.cell(),
            );
            if let Some(note) = &row.develf_note {
                notes.push(format!("{label}: {note}"));
            }
            push_differences(&mut notes, &label, &row.differences, options.all);
            match &row.minimal {
                Minimal::Compared { differences, .. } => {
                    push_differences(&mut notes, &format!("{label} (minimal command)"), differences, options.all)
                }
                Minimal::DevelfFailed(message) => notes.push(format!("{label} (minimal command): {message}")),
            }
        }
        for (what, step) in [
            ("host link after nvlink", &report.host_link_nvlink),
            ("host link after develf", &report.host_link_develf),
            ("nvcc -rdc=true in one step through the overlay", &report.one_step),
        ] {
            if let Step::Failed(message) = step {
                notes.push(format!("{} {what}: {message}", report.program));
            }
        }
    }
    println!(
        "\n{links} device links. As nvcc runs them: {} byte-identical, {} semantically equal (identical included). \
         Minimal command line: {} byte-identical, {} semantically equal.",
        nvcc_tally.0, nvcc_tally.1, minimal_tally.0, minimal_tally.1
    );
    if !notes.is_empty() {
        println!("\ndifferences and failures (develf's output against nvlink's):");
        for note in notes {
            println!("  {note}");
        }
    }
}
