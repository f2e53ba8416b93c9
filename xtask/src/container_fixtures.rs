//! `cargo xtask container-fixtures`: builds `tests/fixtures/containers/` — fatbins,
//! host objects and archives made with CUDA 13.5's nvcc and fatbinary from
//! `tests/fixtures/src/containers/` — and next to each the oracles the tests
//! compare against: `<name>.cuobjdump-lelf.txt` (`cuobjdump -lelf`) and
//! `<name>.xelf.sha256` (name and SHA-256 of every file `cuobjdump -xelf all`
//! wrote, in the order it wrote them).
//!
//! The writer inputs (`k90.cubin`, `k90.ptx`, ...) are kept too, with the
//! `fatbinary` command lines in `writer.txt`, so the writer test can rebuild the
//! same fatbins with develf and compare bytes.

use crate::toolchain::{self, Toolchain};
use anyhow::{Context, Result, bail};
use std::fs;
use std::path::Path;
use std::process::Command;

/// `(fixture, fatbinary arguments)`; `{dir}` is the build directory.
const FATBINS: &[(&str, &str)] = &[
    (
        "stored.fatbin",
        "--compress=false --image3=kind=elf,sm=90,file=k90.cubin --image3=kind=ptx,sm=90,file=k90.ptx --image3=kind=elf,sm=75,file=k75.cubin",
    ),
    (
        "ident.fatbin",
        "--compress=false -g --ident=kern_ident --cmdline=-O3 --image3=kind=elf,sm=90,file=k90.cubin --image3=kind=ptx,sm=90,file=k90.ptx",
    ),
    (
        "sm100.fatbin",
        "--compress=false --image3=kind=elf,sm=100a,file=k100a.cubin --image3=kind=elf,sm=120,file=k120.cubin",
    ),
    (
        "zstd.fatbin",
        "--compress-mode=size --image3=kind=elf,sm=90,file=k90.cubin --image3=kind=ptx,sm=90,file=k90.ptx --image3=kind=elf,sm=75,file=k75.cubin",
    ),
    (
        "lz4.fatbin",
        "--compress-mode=speed --compress-all --image3=kind=elf,sm=90,file=k90.cubin --image3=kind=ptx,sm=90,file=k90.ptx",
    ),
    ("lz4hc.fatbin", "-compress-algo=4 --compress-all --image3=kind=elf,sm=90,file=k90.cubin"),
    ("lz4frame.fatbin", "-compress-algo=3 --compress-all --image3=kind=elf,sm=90,file=k90.cubin"),
    ("zlib.fatbin", "-compress-algo=1 --compress-all --image3=kind=elf,sm=90,file=k90.cubin"),
    (
        "concat.fatbin",
        "--concat --compress-all --image3=kind=elf,sm=90,file=k90.cubin --image3=kind=ptx,sm=90,file=k90.ptx --image3=kind=elf,sm=75,file=k75.cubin",
    ),
];

/// Writer inputs kept in the fixture directory.
const WRITER_INPUTS: &[&str] = &["k90.cubin", "k75.cubin", "k90.ptx", "k100a.cubin", "k120.cubin"];

pub fn run(args: &[String]) -> Result<()> {
    if let Some(extra) = args.first() {
        bail!("`container-fixtures` takes no arguments (got `{extra}`)");
    }
    let tools = toolchain::ensure()?;
    let root = toolchain::workspace_root();
    let src = root.join("tests/fixtures/src/containers");
    let out = root.join("tests/fixtures/containers");
    let build = root.join("target/container-fixtures");
    if build.exists() {
        fs::remove_dir_all(&build)?;
    }
    fs::create_dir_all(&build)?;
    fs::create_dir_all(&out)?;
    for name in ["kern.cu", "whole_b.cu", "whole_c.cu"] {
        fs::copy(src.join(name), build.join(name)).with_context(|| format!("copying {name}"))?;
    }
    let sh = |line: &str| shell(&tools, &build, line);

    // Writer inputs: relocatable cubins and PTX.
    sh("nvcc -rdc=true -cubin -arch=sm_90 kern.cu -o k90.cubin")?;
    sh("nvcc -rdc=true -cubin -arch=sm_75 kern.cu -o k75.cubin")?;
    sh("nvcc -rdc=true -cubin -arch=sm_100a kern.cu -o k100a.cubin")?;
    sh("nvcc -rdc=true -cubin -arch=sm_120 kern.cu -o k120.cubin")?;
    sh("nvcc -rdc=true -ptx -arch=compute_90 kern.cu -o k90.ptx")?;
    let mut writer = String::from("# fixture: fatbinary arguments (CUDA 13.5), run in this directory\n");
    for (name, fatbinary_args) in FATBINS {
        sh(&format!("fatbinary --create={name} {fatbinary_args}"))?;
        writer.push_str(&format!("{name}: {fatbinary_args}\n"));
    }
    sh("cat stored.fatbin zstd.fatbin > two.fatbin")?;

    // Host objects: -rdc (__nv_relfatbin), whole-program (.nv_fatbin), LTO IR with a family arch.
    sh("nvcc -rdc=true -c kern.cu -o rdc_multi.o -gencode arch=compute_75,code=sm_75 \
        -gencode arch=compute_100a,code=sm_100a -gencode arch=compute_120,code=[sm_120,compute_120]")?;
    sh("nvcc -rdc=true -c kern.cu -o lto_family.o -gencode arch=compute_90,code=lto_90 \
        -gencode arch=compute_100f,code=sm_100f")?;
    sh("nvcc -c whole_b.cu -o whole_b.o -gencode arch=compute_80,code=sm_80 -gencode arch=compute_90,code=sm_90")?;
    sh("nvcc -c whole_c.cu -o whole_c.o -arch=sm_86")?;
    sh("nvcc -rdc=true -c kern.cu -o kern_all.o -arch=sm_90 -Xfatbin -compress-all")?;
    // An executable: three fatbins back to back in .nv_fatbin. Shared cudart keeps it small.
    let cudart = tools.cuda13_bin.parent().map(|p| p.join("lib")).context("CUDA lib directory")?;
    fs::create_dir_all(build.join("cudart"))?;
    let link = build.join("cudart/libcudart.so");
    if !link.exists() {
        fs::copy(cudart.join("libcudart.so.13"), &link).context("copying libcudart.so.13")?;
    }
    sh("nvcc -cudart shared -Lcudart whole_b.o whole_c.o -o whole_exe -arch=sm_86")?;
    // An aarch64 host object: the x86-64 -rdc object's fatbin in a minimal aarch64 ELF.
    sh("objcopy -O binary --only-section=__nv_relfatbin kern_all.o kern_all.relfatbin")?;
    let fatbin = fs::read(build.join("kern_all.relfatbin"))?;
    fs::write(build.join("aarch64_rdc.o"), aarch64_object("__nv_relfatbin", &fatbin))?;

    // Archives: GNU with a symbol table and a long name, BSD with __.SYMDEF.
    sh("cp rdc_multi.o a_member_name_longer_than_sixteen.o")?;
    sh("llvm-ar rcs --format=gnu libmixed.a whole_b.o a_member_name_longer_than_sixteen.o whole_c.o")?;
    sh("llvm-ar rcs --format=bsd libbsd.a whole_b.o a_member_name_longer_than_sixteen.o whole_c.o")?;

    let fixtures: Vec<&str> = FATBINS
        .iter()
        .map(|(name, _)| *name)
        .chain([
            "two.fatbin",
            "rdc_multi.o",
            "lto_family.o",
            "whole_b.o",
            "kern_all.o",
            "whole_exe",
            "aarch64_rdc.o",
            "libmixed.a",
            "libbsd.a",
        ])
        .collect();
    for name in &fixtures {
        fs::copy(build.join(name), out.join(name)).with_context(|| format!("copying {name}"))?;
        oracles(&tools, &build, &out, name)?;
    }
    for name in WRITER_INPUTS {
        fs::copy(build.join(name), out.join(name))?;
    }
    fs::write(out.join("writer.txt"), writer)?;
    println!("wrote {} containers and their cuobjdump oracles to {}", fixtures.len(), out.display());
    Ok(())
}

/// `<name>.cuobjdump-lelf.txt` and `<name>.xelf.sha256`.
fn oracles(tools: &Toolchain, build: &Path, out: &Path, name: &str) -> Result<()> {
    let input = build.join(name);
    let listing = Command::new(tools.tool("cuobjdump"))
        .arg("-lelf")
        .arg(&input)
        .output()
        .with_context(|| format!("cuobjdump -lelf {name}"))?;
    // cuobjdump prints archive members as `member /abs/path/lib.a:m.o:`; keep only the file name.
    let prefix = format!("{}/", build.display());
    let text = String::from_utf8_lossy(&listing.stdout).replace(&prefix, "");
    fs::write(out.join(format!("{name}.cuobjdump-lelf.txt")), text)?;

    let xdir = build.join(format!("xelf-{name}"));
    fs::create_dir_all(&xdir)?;
    let extract =
        Command::new(tools.tool("cuobjdump")).args(["-xelf", "all"]).arg(&input).current_dir(&xdir).output()?;
    let mut sums = String::new();
    for line in String::from_utf8_lossy(&extract.stdout).lines() {
        let Some((_, file)) = line.split_once(": ") else { continue };
        if !line.starts_with("Extracting ELF file") {
            continue;
        }
        let bytes = fs::read(xdir.join(file)).with_context(|| format!("reading extracted {file}"))?;
        sums.push_str(&format!("{}  {file}\n", sha256(&bytes)?));
    }
    fs::write(out.join(format!("{name}.xelf.sha256")), sums)?;
    Ok(())
}

fn sha256(bytes: &[u8]) -> Result<String> {
    let tmp = std::env::temp_dir().join(format!("develf-sha-{}", std::process::id()));
    fs::write(&tmp, bytes)?;
    let output = Command::new("sha256sum").arg(&tmp).output().context("running sha256sum")?;
    let _ = fs::remove_file(&tmp);
    let text = String::from_utf8_lossy(&output.stdout);
    text.split_whitespace().next().map(str::to_string).context("sha256sum printed nothing")
}

fn shell(tools: &Toolchain, dir: &Path, line: &str) -> Result<()> {
    let status = Command::new("bash")
        .arg("-c")
        .arg(line)
        .current_dir(dir)
        .env("PATH", tools.path_env())
        .status()
        .with_context(|| format!("running `{line}`"))?;
    if !status.success() {
        bail!("`{line}` failed with {status}");
    }
    Ok(())
}

/// A relocatable ELF64 little-endian aarch64 object with one PROGBITS section
/// `name` holding `data`, and a section name table.
fn aarch64_object(name: &str, data: &[u8]) -> Vec<u8> {
    const EM_AARCH64: u16 = 183;
    let mut shstrtab = vec![0u8];
    let name_offset = shstrtab.len() as u32;
    shstrtab.extend_from_slice(name.as_bytes());
    shstrtab.push(0);
    let shstrtab_name = shstrtab.len() as u32;
    shstrtab.extend_from_slice(b".shstrtab\0");

    let data_offset = 64u64;
    let strtab_offset = data_offset + data.len() as u64;
    let shoff = (strtab_offset + shstrtab.len() as u64).next_multiple_of(8);
    let mut out = Vec::new();
    out.extend_from_slice(b"\x7fELF\x02\x01\x01\x00");
    out.extend_from_slice(&[0u8; 8]);
    out.extend_from_slice(&1u16.to_le_bytes()); // ET_REL
    out.extend_from_slice(&EM_AARCH64.to_le_bytes());
    out.extend_from_slice(&1u32.to_le_bytes());
    out.extend_from_slice(&0u64.to_le_bytes()); // entry
    out.extend_from_slice(&0u64.to_le_bytes()); // phoff
    out.extend_from_slice(&shoff.to_le_bytes());
    out.extend_from_slice(&0u32.to_le_bytes()); // flags
    for half in [64u16, 0, 0, 64, 3, 2] {
        out.extend_from_slice(&half.to_le_bytes());
    }
    out.extend_from_slice(data);
    out.extend_from_slice(&shstrtab);
    out.resize(shoff as usize, 0);
    let mut section = |name: u32, sh_type: u32, offset: u64, size: u64, align: u64| {
        out.extend_from_slice(&name.to_le_bytes());
        out.extend_from_slice(&sh_type.to_le_bytes());
        out.extend_from_slice(&0u64.to_le_bytes()); // flags
        out.extend_from_slice(&0u64.to_le_bytes()); // addr
        out.extend_from_slice(&offset.to_le_bytes());
        out.extend_from_slice(&size.to_le_bytes());
        out.extend_from_slice(&0u32.to_le_bytes()); // link
        out.extend_from_slice(&0u32.to_le_bytes()); // info
        out.extend_from_slice(&align.to_le_bytes());
        out.extend_from_slice(&0u64.to_le_bytes()); // entsize
    };
    section(0, 0, 0, 0, 0);
    section(name_offset, 1, data_offset, data.len() as u64, 8);
    section(shstrtab_name, 3, strtab_offset, shstrtab.len() as u64, 1);
    out
}
