//! NVIDIA's CPU-side CUDA toolchains, installed from PyPI wheels into a cache the
//! project owns (`target/toolchains/`, or `$DEVELF_TOOLCHAINS`).
//!
//! Two trees are kept:
//! - `cuda13/`: CUDA 13.5 (nvcc, cicc, ptxas, nvlink, fatbinary, cuobjdump,
//!   nvdisasm, headers, CCCL) — ABI 8 objects for sm_75 and newer.
//! - `cuda12/`: the ptxas of CUDA 12.9 only — ABI 7 objects and sm_50.
//!
//! A tree counts as installed when its stamp file exists and its binaries are
//! present; a tree unpacked by hand gets its stamp written on first use.

use std::fs;
use std::path::{Path, PathBuf};
use std::process::Command;

use anyhow::{Context, Result, bail};

/// The CUDA 13.5 wheels; CCCL floats within 13.x and its version is recorded
/// in the stamp and in `tests/fixtures/TOOLS.txt`.
const CUDA13_PACKAGES: &[&str] = &[
    "nvidia-cuda-nvcc==13.5.37",
    "nvidia-nvvm==13.5.37",
    "nvidia-cuda-crt==13.5.37",
    "nvidia-cuda-runtime==13.5.37",
    "nvidia-cuda-cuobjdump==13.5.37",
    "nvidia-cuda-nvdisasm==13.5.37",
    "nvidia-cuda-cccl>=13,<14",
];

const CUDA12_PACKAGES: &[&str] = &["nvidia-cuda-nvcc-cu12==12.9.86"];

/// Paths inside the unpacked wheels.
const CUDA13_BIN: &str = "cuda13/nvidia/cu13/bin";
const CUDA13_CICC: &str = "cuda13/nvidia/cu13/nvvm/bin/cicc";
const CUDA13_BINARIES: &[&str] = &["nvcc", "ptxas", "nvlink", "cuobjdump", "nvdisasm", "fatbinary"];
const CUDA12_PTXAS: &str = "cuda12/nvidia/cuda_nvcc/bin/ptxas";

const STAMP: &str = ".develf-installed";

/// Where the installed tools live.
#[derive(Debug, Clone)]
pub struct Toolchain {
    /// `.../cuda13/nvidia/cu13/bin`: nvcc, ptxas, nvlink, cuobjdump, ...
    pub cuda13_bin: PathBuf,
    /// The CUDA 12.9 ptxas (ABI 7, sm_50).
    pub ptxas12: PathBuf,
    /// `name==version` for every installed wheel, sorted.
    pub packages: Vec<String>,
}

impl Toolchain {
    pub fn tool(&self, name: &str) -> PathBuf {
        self.cuda13_bin.join(name)
    }

    /// `PATH` with the CUDA 13 bin directory first (nvcc looks up its helpers
    /// through `nvcc.profile`, but host-side steps still search `PATH`).
    pub fn path_env(&self) -> std::ffi::OsString {
        let mut paths = vec![self.cuda13_bin.clone()];
        if let Some(existing) = std::env::var_os("PATH") {
            paths.extend(std::env::split_paths(&existing));
        }
        std::env::join_paths(paths).unwrap_or_else(|_| self.cuda13_bin.clone().into_os_string())
    }
}

/// `cargo xtask toolchain`: install if needed and print what is there.
pub fn run(args: &[String]) -> Result<()> {
    if let Some(extra) = args.first() {
        bail!("`toolchain` takes no arguments (got `{extra}`)");
    }
    let toolchain = ensure()?;
    println!("CUDA 13 tools: {}", toolchain.cuda13_bin.display());
    println!("CUDA 12 ptxas: {}", toolchain.ptxas12.display());
    for package in &toolchain.packages {
        println!("  {package}");
    }
    Ok(())
}

pub fn workspace_root() -> PathBuf {
    let manifest_dir = Path::new(env!("CARGO_MANIFEST_DIR"));
    manifest_dir.parent().unwrap_or(manifest_dir).to_path_buf()
}

/// Builds the develf binary with cargo profile `profile` ("release", or
/// "dist" for the optimised build `bench` times) and returns its path.
pub fn build_develf(root: &Path, profile: &str) -> Result<PathBuf> {
    let cargo = std::env::var_os("CARGO").unwrap_or_else(|| "cargo".into());
    println!("building target/{profile}/develf ...");
    let status = Command::new(cargo)
        .args(["build", "--profile", profile, "-p", "develf-cli", "--bin", "develf"])
        .current_dir(root)
        .status()
        .context("running cargo build")?;
    if !status.success() {
        bail!("cargo build --profile {profile} -p develf-cli failed");
    }
    Ok(develf_path(root, profile))
}

/// Where cargo puts the develf binary of `profile` (`dev` builds go to `debug/`).
pub fn develf_path(root: &Path, profile: &str) -> PathBuf {
    let dir = if profile == "dev" { "debug" } else { profile };
    root.join("target").join(dir).join("develf")
}

pub fn toolchains_dir() -> PathBuf {
    match std::env::var_os("DEVELF_TOOLCHAINS") {
        Some(dir) if !dir.is_empty() => PathBuf::from(dir),
        _ => workspace_root().join("target").join("toolchains"),
    }
}

/// Installs both trees if they are missing and returns their paths.
pub fn ensure() -> Result<Toolchain> {
    let root = toolchains_dir();
    fs::create_dir_all(&root).with_context(|| format!("creating {}", root.display()))?;

    let cuda13_required: Vec<PathBuf> =
        CUDA13_BINARIES.iter().map(|name| root.join(CUDA13_BIN).join(name)).chain([root.join(CUDA13_CICC)]).collect();
    let mut packages = install_tree(&root, "cuda13", CUDA13_PACKAGES, &cuda13_required)?;
    packages.extend(install_tree(&root, "cuda12", CUDA12_PACKAGES, &[root.join(CUDA12_PTXAS)])?);
    packages.sort();

    Ok(Toolchain { cuda13_bin: root.join(CUDA13_BIN), ptxas12: root.join(CUDA12_PTXAS), packages })
}

/// Makes sure `root/tree` holds the unpacked `packages`; returns `name==version`
/// of what is installed there (read back from the `.dist-info` directories).
fn install_tree(root: &Path, tree: &str, packages: &[&str], binaries: &[PathBuf]) -> Result<Vec<String>> {
    let dir = root.join(tree);
    let stamp = dir.join(STAMP);
    let all_present = binaries.iter().all(|binary| binary.is_file());
    if !(stamp.is_file() && all_present) {
        if !all_present {
            download_and_unpack(root, &dir, packages)?;
        }
        make_executable(binaries)?;
        if let Some(missing) = binaries.iter().find(|binary| !binary.is_file()) {
            bail!("{} is missing after installing {packages:?}", missing.display());
        }
        let installed = installed_packages(&dir)?;
        fs::write(&stamp, installed.join("\n") + "\n").with_context(|| format!("writing {}", stamp.display()))?;
    }
    installed_packages(&dir)
}

fn download_and_unpack(root: &Path, dir: &Path, packages: &[&str]) -> Result<()> {
    let wheels = root.join("wheels");
    fs::create_dir_all(&wheels)?;
    eprintln!("toolchain: downloading {packages:?} into {}", wheels.display());
    let status = Command::new("python3")
        .args(["-m", "pip", "download", "--no-deps", "--only-binary=:all:", "-d"])
        .arg(&wheels)
        .args(packages)
        .status()
        .context("running python3 -m pip download")?;
    if !status.success() {
        bail!("pip download {packages:?} failed ({status})");
    }
    fs::create_dir_all(dir)?;
    for package in packages {
        let wheel = find_wheel(&wheels, package)?;
        eprintln!("toolchain: unpacking {}", wheel.display());
        let status = Command::new("unzip")
            .args(["-q", "-o"])
            .arg(&wheel)
            .arg("-d")
            .arg(dir)
            .status()
            .context("running unzip")?;
        if !status.success() {
            bail!("unzip {} failed ({status})", wheel.display());
        }
    }
    Ok(())
}

/// The newest downloaded wheel for a requirement such as `nvidia-nvvm==13.5.37`
/// (wheel names use `_` for `-`).
fn find_wheel(wheels: &Path, requirement: &str) -> Result<PathBuf> {
    let name_end = requirement.find(['=', '<', '>']).unwrap_or(requirement.len());
    let name = requirement[..name_end].replace('-', "_");
    let pinned = requirement.split_once("==").map(|(_, version)| version);
    let prefix = match pinned {
        Some(version) => format!("{name}-{version}-"),
        None => format!("{name}-"),
    };
    let mut candidates: Vec<PathBuf> = fs::read_dir(wheels)?
        .filter_map(|entry| entry.ok().map(|entry| entry.path()))
        .filter(|path| {
            path.file_name()
                .and_then(|file| file.to_str())
                .is_some_and(|file| file.starts_with(&prefix) && file.ends_with(".whl"))
        })
        .collect();
    candidates.sort();
    candidates.pop().with_context(|| format!("no wheel for {requirement} in {}", wheels.display()))
}

fn make_executable(binaries: &[PathBuf]) -> Result<()> {
    use std::os::unix::fs::PermissionsExt;
    for binary in binaries.iter().filter(|binary| binary.is_file()) {
        let mut permissions = fs::metadata(binary)?.permissions();
        permissions.set_mode(permissions.mode() | 0o755);
        fs::set_permissions(binary, permissions)?;
    }
    // Helpers nvcc runs (cudafe++, bin2c, ...) sit next to the listed binaries.
    if let Some(bin_dir) = binaries.first().and_then(|binary| binary.parent()) {
        for entry in fs::read_dir(bin_dir)?.filter_map(|entry| entry.ok()) {
            let path = entry.path();
            let is_profile = path.extension().is_some_and(|ext| ext == "profile");
            if path.is_file() && !is_profile {
                let mut permissions = fs::metadata(&path)?.permissions();
                permissions.set_mode(permissions.mode() | 0o755);
                fs::set_permissions(&path, permissions)?;
            }
        }
    }
    Ok(())
}

/// `name==version` from `<name>-<version>.dist-info` directories, sorted.
fn installed_packages(dir: &Path) -> Result<Vec<String>> {
    let mut packages: Vec<String> = fs::read_dir(dir)
        .with_context(|| format!("reading {}", dir.display()))?
        .filter_map(|entry| entry.ok())
        .filter_map(|entry| {
            let file = entry.file_name().into_string().ok()?;
            let stem = file.strip_suffix(".dist-info")?;
            let (name, version) = stem.rsplit_once('-')?;
            Some(format!("{}=={version}", name.replace('_', "-")))
        })
        .collect();
    packages.sort();
    Ok(packages)
}
