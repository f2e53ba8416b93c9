//! `cargo xtask zebin-fixtures`: builds the Intel zebin fixtures under
//! `tests/fixtures/zebin/<ocloc-version>/<device>/` with two generations of Intel's
//! `ocloc`, plus ocloc's own textual views of each binary (the oracle the tests
//! compare develf against).
//!
//! * The "old" generation is bookworm's `ocloc` (`apt-get install intel-opencl-icd
//!   libigc-tools`, ocloc 22.43, `.ze_info` 1.20); it needs `--format zebin`.
//! * The "new" generation is Debian sid's `intel-ocloc` (26.x, `.ze_info` 1.7x). It is
//!   unpacked, not installed: `apt-get download` with a private sources list and
//!   state dir, `dpkg-deb -x`, and run through sid's own dynamic loader with
//!   `--library-path` so sid's libc/libstdc++ are used (bookworm's are too old).
//!   `--fetch-sid` does that under `target/toolchains/ocloc-sid/`.
//!
//! For every `<name>.bin` it saves `<name>.ocloc-validate.txt` (the output of
//! `ocloc validate -file <name>.bin`, last line `exit code: N`) and, from
//! `ocloc disasm -skip-asm-translation`, `<name>.ocloc-sections.txt` (section names
//! and types) and `<name>.ocloc-symtab.txt`. Fat archives (`-device a,b`) go to
//! `<ocloc-version>/fat/<name>.ar`; ocloc cannot validate those.

use anyhow::{Context, Result, anyhow, bail};
use std::path::{Path, PathBuf};
use std::process::Command;

/// One OpenCL source under `tests/fixtures/src/opencl/` and the variant built from it.
#[derive(Debug)]
struct Build {
    /// Output name (`<name>.bin`).
    name: &'static str,
    source: &'static str,
    extra_options: &'static str,
    /// Needs image support, which Xe-HPC (pvc) lacks.
    images: bool,
}

const BUILDS: &[Build] = &[
    Build { name: "basic", source: "basic.cl", extra_options: "", images: false },
    Build { name: "basic_debug", source: "basic.cl", extra_options: " -g", images: false },
    Build { name: "printf", source: "printf.cl", extra_options: "", images: false },
    Build { name: "images", source: "images.cl", extra_options: "", images: true },
    Build { name: "subgroups", source: "subgroups.cl", extra_options: "", images: false },
];

/// One ocloc generation: how to run it and what to build with it.
#[derive(Debug)]
struct Generation {
    label: &'static str,
    devices: &'static [&'static str],
    /// `-device` list for the fat archive.
    fat_devices: &'static str,
    /// bookworm's ocloc defaults to patch tokens on older devices.
    format_zebin_flag: bool,
}

const OLD: Generation = Generation {
    label: "bookworm",
    devices: &["tgllp", "dg1", "dg2", "pvc"],
    fat_devices: "tgllp,dg1",
    format_zebin_flag: true,
};

const NEW: Generation = Generation {
    label: "sid",
    devices: &["tgllp", "dg2", "pvc", "mtl", "bmg", "lnl", "ptl"],
    fat_devices: "tgllp,bmg",
    format_zebin_flag: false,
};

/// Packages unpacked for the sid ocloc: the tool, IGC, the OpenCL front end, gmm,
/// and sid's C/C++ runtime (bookworm's glibc and libstdc++ are too old for it).
const SID_PACKAGES: &[&str] =
    &["intel-ocloc", "libigc2", "libigdfcl2", "libigdgmm12", "libc6", "libstdc++6", "libgcc-s1", "zlib1g", "libzstd1"];

#[derive(Debug, Default)]
struct Options {
    ocloc_old: Option<PathBuf>,
    ocloc_new: Option<PathBuf>,
    fetch_sid: bool,
    only: Option<String>,
}

fn parse_args(args: &[String]) -> Result<Options> {
    let mut options = Options::default();
    let mut iter = args.iter();
    while let Some(arg) = iter.next() {
        let mut value = || iter.next().cloned().ok_or_else(|| anyhow!("{arg} needs a value"));
        match arg.as_str() {
            "--ocloc-old" => options.ocloc_old = Some(value()?.into()),
            "--ocloc-new" => options.ocloc_new = Some(value()?.into()),
            "--fetch-sid" => options.fetch_sid = true,
            "--only" => options.only = Some(value()?),
            "-h" | "--help" => {
                println!(
                    "usage: cargo xtask zebin-fixtures [--ocloc-old PATH] [--ocloc-new PATH] [--fetch-sid] [--only bookworm|sid]\n\
                     \n  --ocloc-old PATH  bookworm's ocloc (default: `ocloc` on PATH)\
                     \n  --ocloc-new PATH  a wrapper running sid's ocloc (default: target/toolchains/ocloc-sid/ocloc)\
                     \n  --fetch-sid       download and unpack sid's ocloc into target/toolchains/ocloc-sid first"
                );
                std::process::exit(0);
            }
            other => bail!("unknown option `{other}`"),
        }
    }
    Ok(options)
}

pub fn run(args: &[String]) -> Result<()> {
    let options = parse_args(args)?;
    let root = workspace_root()?;
    let sid_dir = root.join("target/toolchains/ocloc-sid");
    if options.fetch_sid {
        fetch_sid(&sid_dir)?;
    }
    let old = options.ocloc_old.clone().unwrap_or_else(|| PathBuf::from("ocloc"));
    let new = options.ocloc_new.clone().unwrap_or_else(|| sid_dir.join("ocloc"));
    let mut built = 0usize;
    for (generation, ocloc) in [(&OLD, old), (&NEW, new)] {
        if options.only.as_deref().is_some_and(|only| only != generation.label) {
            continue;
        }
        let version = ocloc_version(generation, &ocloc)
            .with_context(|| format!("finding the version of {} ocloc `{}`", generation.label, ocloc.display()))?;
        built += build_generation(&root, generation, &ocloc, &version)?;
    }
    println!("zebin-fixtures: {built} binaries written");
    Ok(())
}

fn workspace_root() -> Result<PathBuf> {
    let manifest = PathBuf::from(env!("CARGO_MANIFEST_DIR"));
    Ok(manifest.parent().ok_or_else(|| anyhow!("xtask has no parent directory"))?.to_path_buf())
}

/// The Debian package version without its Debian revision: sid's ocloc prints
/// `26.27.039122` for `--version`, bookworm's has no `--version` at all, so the
/// package metadata is the one name both share.
fn ocloc_version(generation: &Generation, ocloc: &Path) -> Result<String> {
    let raw = if generation.label == "bookworm" {
        let out = Command::new("dpkg-query").args(["-W", "-f", "${Version}", "intel-opencl-icd"]).output()?;
        if !out.status.success() {
            bail!("intel-opencl-icd is not installed (apt-get install -y intel-opencl-icd libigc-tools)");
        }
        String::from_utf8_lossy(&out.stdout).into_owned()
    } else {
        let stamp = ocloc.with_file_name("VERSION");
        std::fs::read_to_string(&stamp)
            .with_context(|| format!("reading {} (run with --fetch-sid)", stamp.display()))?
    };
    let raw = raw.trim();
    Ok(raw.split('-').next().unwrap_or(raw).to_string())
}

fn build_generation(root: &Path, generation: &Generation, ocloc: &Path, version: &str) -> Result<usize> {
    let sources = root.join("tests/fixtures/src/opencl");
    let out_root = root.join("tests/fixtures/zebin").join(version);
    let mut count = 0;
    for device in generation.devices {
        let dir = out_root.join(device);
        std::fs::create_dir_all(&dir)?;
        for build in BUILDS {
            if build.images && *device == "pvc" {
                continue;
            }
            // bookworm's opencl-c.h does not compile for image-less pvc under CL3.0.
            let std = if generation.label == "bookworm" && *device == "pvc" { "CL2.0" } else { "CL3.0" };
            let options = format!("-cl-std={std}{}", build.extra_options);
            compile(ocloc, generation, &sources.join(build.source), device, &options, &dir, build.name)?;
            settle_output(&dir, build.name, "bin")?;
            save_ocloc_views(ocloc, generation, &dir, build.name)?;
            count += 1;
        }
    }
    let fat = out_root.join("fat");
    std::fs::create_dir_all(&fat)?;
    compile(ocloc, generation, &sources.join("printf.cl"), generation.fat_devices, "-cl-std=CL3.0", &fat, "printf")?;
    settle_output(&fat, "printf", "ar")?;
    std::fs::write(fat.join("printf.devices.txt"), format!("{}\n", generation.fat_devices))?;
    Ok(count)
}

/// bookworm's ocloc writes `-output NAME` as `NAME`, sid's as `NAME.bin` for a
/// single device (and `NAME` for a fat archive): one name for both.
fn settle_output(dir: &Path, name: &str, ext: &str) -> Result<()> {
    let wanted = dir.join(format!("{name}.{ext}"));
    for candidate in [dir.join(name), dir.join(format!("{name}.bin"))] {
        if candidate.exists() && candidate != wanted {
            std::fs::rename(&candidate, &wanted)?;
        }
    }
    if !wanted.exists() {
        bail!("ocloc wrote no {}", wanted.display());
    }
    Ok(())
}

fn compile(
    ocloc: &Path,
    generation: &Generation,
    source: &Path,
    device: &str,
    options: &str,
    dir: &Path,
    name: &str,
) -> Result<()> {
    let mut command = Command::new(ocloc);
    command.args(["compile", "-q", "-file"]).arg(source);
    command.args(["-device", device, "-options", options, "-output_no_suffix", "-output", name, "-out_dir"]);
    command.arg(dir);
    if generation.format_zebin_flag {
        command.args(["--format", "zebin"]);
    }
    let out = command.output().with_context(|| format!("running {}", ocloc.display()))?;
    if !out.status.success() {
        bail!(
            "ocloc compile {} for {device} failed:\n{}{}",
            source.display(),
            String::from_utf8_lossy(&out.stdout),
            String::from_utf8_lossy(&out.stderr)
        );
    }
    // The SPIR-V is also inside the zebin's `.spv`; the loose copy is not a fixture.
    let _ = std::fs::remove_file(dir.join(format!("{name}.spv")));
    Ok(())
}

/// ocloc's validate verdict and its disasm's section and symbol lists, run in the
/// fixture's directory with a relative path so the saved text does not name this machine.
fn save_ocloc_views(ocloc: &Path, generation: &Generation, dir: &Path, name: &str) -> Result<()> {
    let bin = format!("{name}.bin");
    let out = Command::new(ocloc).current_dir(dir).args(["validate", "-file", &bin]).output()?;
    let mut text = String::from_utf8_lossy(&out.stdout).into_owned();
    text.push_str(&String::from_utf8_lossy(&out.stderr));
    // "Command was: <absolute path of ocloc> ..." names this machine's install.
    let mut text: String = text.lines().filter(|l| !l.starts_with("Command was:")).map(|l| format!("{l}\n")).collect();
    text.push_str(&format!("exit code: {}\n", out.status.code().unwrap_or(-1)));
    std::fs::write(dir.join(format!("{name}.ocloc-validate.txt")), text)?;

    let dump = dir.join(format!("{name}.disasm.tmp"));
    let _ = std::fs::remove_dir_all(&dump);
    // bookworm's ocloc writes nothing unless the dump directory exists already.
    std::fs::create_dir_all(&dump)?;
    let mut disasm = Command::new(ocloc);
    disasm.current_dir(dir).args(["disasm", "-file", &bin, "-dump"]).arg(&dump);
    if generation.label != "bookworm" {
        disasm.arg("-skip-asm-translation");
    }
    let out = disasm.output()?;
    if !out.status.success() {
        bail!("ocloc disasm {bin} failed: {}", String::from_utf8_lossy(&out.stdout));
    }
    std::fs::copy(dump.join("sections.txt"), dir.join(format!("{name}.ocloc-sections.txt")))?;
    if dump.join(".symtab").exists() {
        std::fs::copy(dump.join(".symtab"), dir.join(format!("{name}.ocloc-symtab.txt")))?;
    }
    std::fs::remove_dir_all(&dump)?;
    Ok(())
}

/// Downloads sid's ocloc and its libraries with a private apt configuration (the
/// system's sources and package state are left alone) and unpacks them.
fn fetch_sid(dir: &Path) -> Result<()> {
    let apt = dir.join("apt");
    for sub in ["lists/partial", "cache/archives/partial", "debs"] {
        std::fs::create_dir_all(apt.join(sub))?;
    }
    let sources = apt.join("sources.list");
    std::fs::write(
        &sources,
        "deb [signed-by=/usr/share/keyrings/debian-archive-keyring.gpg] http://deb.debian.org/debian sid main\n",
    )?;
    let private = |cmd: &mut Command| {
        cmd.arg(format!("-oDir::Etc::SourceList={}", sources.display()))
            .arg("-oDir::Etc::SourceParts=/dev/null")
            .arg(format!("-oDir::State::Lists={}", apt.join("lists").display()))
            .arg(format!("-oDir::Cache={}", apt.join("cache").display()))
            .arg("-oDir::State::status=/dev/null")
            .arg("-oAPT::Architecture=amd64");
    };
    let mut update = Command::new("apt-get");
    private(&mut update);
    check(update.arg("update"), "apt-get update (sid)")?;
    let mut download = Command::new("apt-get");
    private(&mut download);
    download.current_dir(apt.join("debs")).arg("download").args(SID_PACKAGES);
    check(&mut download, "apt-get download")?;
    let root = dir.join("root");
    let mut ocloc_version = None;
    for entry in std::fs::read_dir(apt.join("debs"))? {
        let path = entry?.path();
        if path.extension().is_some_and(|e| e == "deb") {
            check(Command::new("dpkg-deb").arg("-x").arg(&path).arg(&root), "dpkg-deb -x")?;
            let file = path.file_name().map(|f| f.to_string_lossy().into_owned()).unwrap_or_default();
            if let Some(rest) = file.strip_prefix("intel-ocloc_") {
                ocloc_version = rest.split('_').next().map(str::to_string);
            }
        }
    }
    let version = ocloc_version.ok_or_else(|| anyhow!("intel-ocloc was not downloaded"))?;
    let bin = std::fs::read_dir(root.join("usr/bin"))?
        .filter_map(|e| e.ok())
        .map(|e| e.path())
        .find(|p| p.file_name().is_some_and(|f| f.to_string_lossy().starts_with("ocloc")))
        .ok_or_else(|| anyhow!("no ocloc binary in intel-ocloc"))?;
    let lib = root.join("usr/lib/x86_64-linux-gnu");
    let wrapper = format!(
        "#!/bin/sh\n# sid's ocloc through sid's own loader and libraries (written by cargo xtask zebin-fixtures)\nexec {lib}/ld-linux-x86-64.so.2 --library-path {lib} {bin} \"$@\"\n",
        lib = lib.display(),
        bin = bin.display()
    );
    let ocloc = dir.join("ocloc");
    std::fs::write(&ocloc, wrapper)?;
    check(Command::new("chmod").arg("+x").arg(&ocloc), "chmod")?;
    std::fs::write(dir.join("VERSION"), format!("{version}\n"))?;
    println!("zebin-fixtures: sid ocloc {version} in {}", dir.display());
    Ok(())
}

fn check(command: &mut Command, what: &str) -> Result<()> {
    let out = command.output().with_context(|| format!("running {what}"))?;
    if !out.status.success() {
        bail!("{what} failed:\n{}{}", String::from_utf8_lossy(&out.stdout), String::from_utf8_lossy(&out.stderr));
    }
    Ok(())
}
