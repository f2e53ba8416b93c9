//! `cargo xtask bench`: develf against nvlink on generated links.
//!
//! Cases, generated from a seeded PRNG as PTX and assembled with CUDA 13.5's
//! ptxas into `target/bench/` (kept between runs; only changed PTX is
//! assembled again):
//! - `big`: 200 relocatable objects of 50 device functions each (about 20 MB),
//!   with calls across objects, globals, and a kernel per object;
//! - `deep38`, `deep200`: a call chain where `f_i` calls `f_{i+1}` and
//!   `f_{i+2}`: Fib(depth) call paths from the kernel. nvlink enumerates them
//!   (+60% per level, about 1 s near depth 40; depth 200 does not finish); a
//!   linker that walks the graph once does not care.
//! - `xindex`, `xindex-r`, `xindex-edge`, `xindex-merc`, `xindex-merc-r`:
//!   extended section numbering (docs/nvlink-layout.md rule 3.6). Objects of
//!   800 tiny device functions called by one kernel (about 1,600 sections
//!   each): 41 of them (sm_90, exec and `-r`: 65,778 sections, past 0xff00,
//!   0xfff2 and 0xffff); 40 plus one of 510 functions (exec: the smallest
//!   link of this shape that keeps `.symtab_shndx`, 65,198 sections); sm_100:
//!   20 plus one of 279 functions (65,283 sections with the two tables).
//!   These mostly check bytes against nvlink.
//! - `devrt`: one small object (a call chain 4 deep) with `-lcudadevrt`
//!   from the toolkit, as every `nvcc -dlink` passes it: reading a
//!   library's fatbins for one target.
//!
//! Each case runs nvlink and `target/dist/develf nvlink` (the `dist`
//! profile: the release build with whole-program optimisation) alternately
//! (`--runs N`, default 5) with a time limit per run (`--timeout S`, default
//! 120), measuring wall time and peak RSS (GNU time's `%M` when /usr/bin/time
//! exists, else VmHWM polled from /proc). Prints medians and develf/nvlink
//! ratios, and checks that develf writes the same bytes with 1 thread and many
//! (`DEVELF_THREADS`). Nothing here asserts on time.

use crate::toolchain;
use anyhow::{Context, Result, bail};
use std::fmt::Write as _;
use std::fs;
use std::os::unix::process::CommandExt as _;
use std::path::{Path, PathBuf};
use std::process::{Child, Command, Stdio};
use std::time::{Duration, Instant};

pub const USAGE: &str = "bench [--runs N] [--timeout S] [--only CASE] [--jobs N] [--no-build]";

/// The cargo profile of the develf binary timed: what a user installs.
const BENCH_PROFILE: &str = "dist";
const ARCH: &str = "sm_90";
/// The Mercury target of `xindex-merc` (rule 3.6 differs there).
const MERC_ARCH: &str = "sm_100";
/// Device functions per `xindex` object (2 sections each, 4 on Mercury).
const XINDEX_FUNCTIONS: usize = 800;
const BIG_OBJECTS: usize = 200;
const BIG_FUNCTIONS: usize = 50;
/// The call chain of the `devrt` case's object: small, so that reading the
/// library is what the case measures.
const DEVRT_DEPTH: usize = 4;

/// Instructions per generated function: sized so `big` is about 20 MB of cubins.
const BIG_FUNCTION_OPS: usize = 125;
const SEED: u64 = 0x00de_7e1f_b3c4;

#[derive(Debug)]
struct Options {
    runs: usize,
    timeout: Duration,
    only: Option<String>,
    jobs: usize,
    build: bool,
}

fn parse_options(args: &[String]) -> Result<Options> {
    let mut options = Options {
        runs: 5,
        timeout: Duration::from_secs(120),
        only: None,
        jobs: std::thread::available_parallelism().map_or(2, |n| n.get()),
        build: true,
    };
    let mut args = args.iter();
    while let Some(arg) = args.next() {
        let mut value = |name: &str| args.next().with_context(|| format!("{name} needs a value"));
        match arg.as_str() {
            "--runs" => options.runs = value("--runs")?.parse().context("--runs: a number")?,
            "--timeout" => {
                options.timeout = Duration::from_secs(value("--timeout")?.parse().context("--timeout: seconds")?)
            }
            "--only" => options.only = Some(value("--only")?.clone()),
            "--jobs" => options.jobs = value("--jobs")?.parse().context("--jobs: a number")?,
            "--no-build" => options.build = false,
            other => bail!("bench: unknown option `{other}` (usage: {USAGE})"),
        }
    }
    if options.runs == 0 {
        bail!("--runs must be at least 1");
    }
    Ok(options)
}

/// splitmix64: small, seeded, the same sequence everywhere.
#[derive(Debug)]
struct Rng(u64);

impl Rng {
    fn next(&mut self) -> u64 {
        self.0 = self.0.wrapping_add(0x9e37_79b9_7f4a_7c15);
        let mut z = self.0;
        z = (z ^ (z >> 30)).wrapping_mul(0xbf58_476d_1ce4_e5b9);
        z = (z ^ (z >> 27)).wrapping_mul(0x94d0_49bb_1331_11eb);
        z ^ (z >> 31)
    }

    fn below(&mut self, n: usize) -> usize {
        (self.next() % n.max(1) as u64) as usize
    }
}

const PTX_HEADER: &str = ".version 9.0\n.target sm_90\n.address_size 64\n\n";
const FUNC_SIGNATURE: &str = "(.param .b32 ret) {name}(.param .b64 p, .param .b32 x)";

fn signature(name: &str) -> String {
    FUNC_SIGNATURE.replace("{name}", name)
}

/// Calls `callee(%rd1, %r<arg>)` into `%r<result>`.
fn call(out: &mut String, callee: &str, arg: usize, result: usize) {
    let _ = writeln!(
        out,
        "  {{\n  .param .b64 cp;\n  .param .b32 cx;\n  .param .b32 cr;\n  st.param.b64 [cp], %rd1;\n  st.param.b32 [cx], %r{arg};\n  call.uni (cr), {callee}, (cp, cx);\n  ld.param.b32 %r{result}, [cr];\n  }}"
    );
}

/// Object `index` of the big link: 50 functions of loads, arithmetic and
/// stores that ptxas cannot fold, some calling a function of a later object
/// or a later one of the same object (at most one callee per function, so the
/// call paths stay few), a global array, and a kernel calling all 50.
fn big_object_ptx(index: usize) -> String {
    let mut rng = Rng(SEED ^ (index as u64).wrapping_mul(0x1000_0001));
    let mut out = String::from(PTX_HEADER);
    let _ = writeln!(out, ".visible .global .align 4 .b32 g_{index}[256];\n");
    let mut externs = Vec::new();
    let mut bodies = String::new();
    for function in 0..BIG_FUNCTIONS {
        let name = format!("f_{index}_{function}");
        let _ = writeln!(bodies, ".visible .func {}\n{{", signature(&name));
        let _ = writeln!(bodies, "  .reg .b32 %r<{}>;\n  .reg .b64 %rd<4>;", BIG_FUNCTION_OPS + 4);
        bodies.push_str("  ld.param.b64 %rd1, [p];\n  ld.param.b32 %r0, [x];\n");
        for op in 1..=BIG_FUNCTION_OPS {
            let (a, b) = (rng.below(op), rng.below(op));
            let constant = rng.next() as u32 & 0xffff;
            match rng.below(8) {
                0 | 1 => {
                    let _ = writeln!(bodies, "  ld.global.u32 %r{op}, [%rd1+{}];", 4 * rng.below(1024));
                }
                2 => {
                    let _ = writeln!(bodies, "  mad.lo.s32 %r{op}, %r{a}, %r{b}, {constant};");
                }
                3 => {
                    let _ = writeln!(bodies, "  xor.b32 %r{op}, %r{a}, {constant};");
                }
                4 => {
                    let _ = writeln!(bodies, "  shf.l.wrap.b32 %r{op}, %r{a}, %r{b}, {};", constant % 31 + 1);
                }
                5 => {
                    let _ = writeln!(bodies, "  add.s32 %r{op}, %r{a}, %r{b};");
                }
                6 => {
                    let _ = writeln!(bodies, "  st.global.u32 [%rd1+{}], %r{a};", 4 * rng.below(1024));
                    let _ = writeln!(bodies, "  sub.s32 %r{op}, %r{a}, %r{b};");
                }
                _ => {
                    let _ = writeln!(bodies, "  min.s32 %r{op}, %r{a}, %r{b};");
                }
            }
        }
        let last = BIG_FUNCTION_OPS;
        let result = BIG_FUNCTION_OPS + 1;
        // One call in three: to a function of a later object, or later in this one.
        let callee = if rng.below(3) == 0 && index + 1 < BIG_OBJECTS {
            let other = index + 1 + rng.below((BIG_OBJECTS - index - 1).min(8));
            let target = format!("f_{other}_{}", rng.below(BIG_FUNCTIONS));
            externs.push(target.clone());
            Some(target)
        } else if function + 1 < BIG_FUNCTIONS && rng.below(2) == 0 {
            Some(format!("f_{index}_{}", function + 1 + rng.below(BIG_FUNCTIONS - function - 1)))
        } else {
            None
        };
        match callee {
            Some(callee) => call(&mut bodies, &callee, last, result),
            None => {
                let _ = writeln!(bodies, "  mov.b32 %r{result}, %r{last};");
            }
        }
        let _ = writeln!(bodies, "  st.param.b32 [ret], %r{result};\n  ret;\n}}\n");
    }
    externs.sort();
    externs.dedup();
    for name in &externs {
        let _ = writeln!(out, ".extern .func {};", signature(name));
    }
    // Forward declarations, so any order of definition works.
    for function in 0..BIG_FUNCTIONS {
        let _ = writeln!(out, ".visible .func {};", signature(&format!("f_{index}_{function}")));
    }
    out.push('\n');
    out.push_str(&bodies);
    // The kernel calls every function of its object, so none is dead code.
    let _ = writeln!(
        out,
        ".visible .entry k_{index}(.param .b32 x)\n{{\n  .reg .b32 %r<{}>;\n  .reg .b64 %rd<4>;\n  ld.param.b32 %r0, [x];\n  mov.u64 %rd2, g_{index};\n  cvta.global.u64 %rd1, %rd2;",
        BIG_FUNCTIONS + 2
    );
    for function in 0..BIG_FUNCTIONS {
        call(&mut out, &format!("f_{index}_{function}"), function, function + 1);
    }
    let _ = writeln!(out, "  st.global.u32 [%rd2], %r{BIG_FUNCTIONS};\n  ret;\n}}");
    out
}

/// The call chain of `depth` functions: `f_i` calls `f_{i+1}` and `f_{i+2}`,
/// the kernel calls `f_0`. The call paths from the kernel number Fib(depth):
/// nvlink 13.5 walks them all (0.1 s at depth 36, 0.7 s at 40, 5 s at 44 on
/// the development machine: x1.6 per level). A full ladder (`a_i`, `b_i` both
/// calling `a_{i+1}` and `b_{i+1}`) doubles per level and already takes
/// nvlink 1.5 s at depth 28, so depth 38 would not finish; the chain keeps
/// `deep38` measurable.
fn chain_ptx(depth: usize) -> String {
    let mut out = String::from(PTX_HEADER);
    for level in 0..depth {
        let _ = writeln!(out, ".visible .func {};", signature(&format!("f_{level}")));
    }
    out.push('\n');
    for level in 0..depth {
        let _ = writeln!(
            out,
            ".visible .func {}\n{{\n  .reg .b32 %r<8>;\n  .reg .b64 %rd<4>;\n  ld.param.b64 %rd1, [p];\n  ld.param.b32 %r0, [x];\n  mad.lo.s32 %r1, %r0, {}, {level};",
            signature(&format!("f_{level}")),
            level + 3
        );
        if level + 2 < depth {
            call(&mut out, &format!("f_{}", level + 1), 1, 2);
            call(&mut out, &format!("f_{}", level + 2), 2, 3);
        } else {
            out.push_str("  ld.global.u32 %r2, [%rd1];\n  add.s32 %r3, %r1, %r2;\n");
        }
        out.push_str("  st.param.b32 [ret], %r3;\n  ret;\n}\n\n");
    }
    let _ = writeln!(
        out,
        ".visible .entry chain_kernel(.param .b64 out, .param .b32 x)\n{{\n  .reg .b32 %r<8>;\n  .reg .b64 %rd<4>;\n  ld.param.b64 %rd2, [out];\n  cvta.to.global.u64 %rd1, %rd2;\n  ld.param.b32 %r0, [x];"
    );
    call(&mut out, "f_0", 0, 1);
    out.push_str("  st.global.u32 [%rd1], %r1;\n  ret;\n}\n");
    out
}

/// Object `index` of the `xindex` links: `functions` device functions of
/// one store each, all called by the kernel `k_<index>` (so none is dead):
/// each gives `.text.<f>` and `.nv.info.<f>` (Mercury: also their merc copies).
fn xindex_object_ptx(index: usize, functions: usize, arch: &str) -> String {
    let mut out = PTX_HEADER.replace(ARCH, arch);
    for f in 0..functions {
        let _ = writeln!(
            out,
            ".visible .func f_{index}_{f}(.param .b64 p)\n{{\n  .reg .b64 %rd<2>;\n  ld.param.b64 %rd1, [p];\n  st.global.u32 [%rd1+{}], {f};\n  ret;\n}}",
            4 * f
        );
    }
    let _ =
        writeln!(out, ".visible .entry k_{index}(.param .b64 q)\n{{\n  .reg .b64 %rd<2>;\n  ld.param.b64 %rd1, [q];");
    for f in 0..functions {
        let _ = writeln!(out, "  {{ .param .b64 a; st.param.b64 [a], %rd1; call.uni f_{index}_{f}, (a); }}");
    }
    out.push_str("  ret;\n}\n");
    out
}

/// One benchmark: the cubins to link, for which target, `-r` or not.
#[derive(Debug)]
struct Case {
    name: String,
    inputs: Vec<PathBuf>,
    arch: &'static str,
    relocatable: bool,
    /// Linked with `-lcudadevrt` from the toolkit's `lib`.
    devrt: bool,
}

/// One PTX file to assemble: (PTX, cubin, target).
type Work = (PathBuf, PathBuf, &'static str);

/// Writes `text` to `path` when it differs; returns whether it changed.
fn write_if_changed(path: &Path, text: &str) -> Result<bool> {
    if fs::read(path).is_ok_and(|old| old == text.as_bytes()) {
        return Ok(false);
    }
    fs::write(path, text).with_context(|| format!("writing {}", path.display()))?;
    Ok(true)
}

/// Assembles the PTX files whose cubin is missing or stale, `jobs` at a time.
fn assemble(ptxas: &Path, work: &[Work], jobs: usize) -> Result<()> {
    let mut running: Vec<(Child, PathBuf)> = Vec::new();
    let mut queue = work.iter();
    let start = Instant::now();
    if !work.is_empty() {
        println!("assembling {} PTX files with ptxas ({jobs} at a time)...", work.len());
    }
    loop {
        while running.len() < jobs.max(1) {
            let Some((ptx, cubin, arch)) = queue.next() else { break };
            let child = Command::new(ptxas)
                .args([&format!("-arch={arch}"), "-m64", "--compile-only"])
                .arg(ptx)
                .arg("-o")
                .arg(cubin)
                .stdout(Stdio::null())
                .stderr(Stdio::piped())
                .spawn()
                .with_context(|| format!("running {}", ptxas.display()))?;
            running.push((child, ptx.clone()));
        }
        if running.is_empty() {
            break;
        }
        let (child, ptx) = running.remove(0);
        let output = child.wait_with_output().context("waiting for ptxas")?;
        if !output.status.success() {
            bail!("ptxas failed on {}: {}", ptx.display(), String::from_utf8_lossy(&output.stderr));
        }
    }
    if !work.is_empty() {
        println!("  done in {:.1} s", start.elapsed().as_secs_f64());
    }
    Ok(())
}

fn generate(dir: &Path, ptxas: &Path, options: &Options) -> Result<Vec<Case>> {
    let mut cases = Vec::new();
    let mut work = Vec::new();
    let wanted = |name: &str| options.only.as_ref().is_none_or(|o| o == name);
    if wanted("big") {
        let big = dir.join("big");
        fs::create_dir_all(&big).with_context(|| format!("creating {}", big.display()))?;
        let mut inputs = Vec::with_capacity(BIG_OBJECTS);
        for index in 0..BIG_OBJECTS {
            let ptx = big.join(format!("obj_{index:03}.ptx"));
            let cubin = ptx.with_extension("cubin");
            if write_if_changed(&ptx, &big_object_ptx(index))? || !cubin.exists() {
                work.push((ptx, cubin.clone(), ARCH));
            }
            inputs.push(cubin);
        }
        cases.push(Case { name: "big".into(), inputs, arch: ARCH, relocatable: false, devrt: false });
    }
    for depth in [38usize, 200] {
        let name = format!("deep{depth}");
        if !wanted(&name) {
            continue;
        }
        let ptx = dir.join(format!("{name}.ptx"));
        let cubin = ptx.with_extension("cubin");
        if write_if_changed(&ptx, &chain_ptx(depth))? || !cubin.exists() {
            work.push((ptx, cubin.clone(), ARCH));
        }
        cases.push(Case { name, inputs: vec![cubin], arch: ARCH, relocatable: false, devrt: false });
    }
    if wanted("devrt") {
        let ptx = dir.join("devrt.ptx");
        let cubin = ptx.with_extension("cubin");
        if write_if_changed(&ptx, &chain_ptx(DEVRT_DEPTH))? || !cubin.exists() {
            work.push((ptx, cubin.clone(), ARCH));
        }
        cases.push(Case { name: "devrt".into(), inputs: vec![cubin], arch: ARCH, relocatable: false, devrt: true });
    }
    // Rule 3.6: (case, target, -r, full objects, functions of the last one).
    let xindex: [(&str, &'static str, bool, usize, usize); 5] = [
        ("xindex", ARCH, false, 41, XINDEX_FUNCTIONS),
        ("xindex-r", ARCH, true, 41, XINDEX_FUNCTIONS),
        ("xindex-edge", ARCH, false, 40, 510),
        ("xindex-merc", MERC_ARCH, false, 20, 279),
        ("xindex-merc-r", MERC_ARCH, true, 20, 279),
    ];
    for (name, arch, relocatable, objects, last) in xindex {
        if !wanted(name) {
            continue;
        }
        let sub = dir.join(format!("xindex-{arch}"));
        fs::create_dir_all(&sub).with_context(|| format!("creating {}", sub.display()))?;
        let mut inputs = Vec::with_capacity(objects + 1);
        for (index, functions) in (0..objects).map(|i| (i, XINDEX_FUNCTIONS)).chain([(objects, last)]) {
            let ptx = sub.join(format!("obj_{index:02}_{functions}.ptx"));
            let cubin = ptx.with_extension("cubin");
            // Cases share objects: each is assembled once.
            let stale = write_if_changed(&ptx, &xindex_object_ptx(index, functions, arch))? || !cubin.exists();
            if stale && !work.iter().any(|(p, _, _)| *p == ptx) {
                work.push((ptx, cubin.clone(), arch));
            }
            inputs.push(cubin);
        }
        cases.push(Case { name: name.into(), inputs, arch, relocatable, devrt: false });
    }
    if cases.is_empty() {
        bail!(
            "--only: no case named that (big, deep38, deep200, xindex, xindex-r, xindex-edge, xindex-merc, xindex-merc-r, devrt)"
        );
    }
    assemble(ptxas, &work, options.jobs)?;
    Ok(cases)
}

/// How one run ended.
#[derive(Debug, Clone)]
enum Ending {
    Finished,
    Failed(String),
    TimedOut,
}

#[derive(Debug, Clone)]
struct Run {
    wall: f64,
    /// Peak resident set, KiB.
    rss_kib: Option<u64>,
    ending: Ending,
}

/// Runs `program args` with `env`, stderr to `log`, killed after `timeout`.
fn measure(program: &Path, args: &[String], env: &[(&str, String)], log: &Path, timeout: Duration) -> Result<Run> {
    let gnu_time = Path::new("/usr/bin/time");
    let time_file = log.with_extension("time");
    let _ = fs::remove_file(&time_file);
    let mut command = if gnu_time.exists() {
        let mut c = Command::new(gnu_time);
        c.arg("-f").arg("%M").arg("-o").arg(&time_file).arg(program);
        c
    } else {
        Command::new(program)
    };
    command.args(args).envs(env.iter().map(|(k, v)| (k, v))).stdout(Stdio::null());
    command.stderr(Stdio::from(fs::File::create(log).with_context(|| format!("creating {}", log.display()))?));
    // Its own process group, so a timeout kills the tool and not only `time`.
    command.process_group(0);
    let start = Instant::now();
    let child = command.spawn().with_context(|| format!("running {}", program.display()))?;
    let pid = child.id();
    // A thread waits for the child, so the wall time ends when it exits
    // (polling would add up to a poll interval to a 50 ms run); this one
    // enforces the time limit and, without GNU time, polls the peak RSS.
    let (done, finished) = std::sync::mpsc::channel();
    let waiter = std::thread::spawn(move || {
        let mut child = child;
        let status = child.wait();
        let _ = done.send(Instant::now());
        status
    });
    let mut polled_peak: Option<u64> = None;
    let poll = if gnu_time.exists() { timeout } else { Duration::from_millis(5) };
    let end = loop {
        match finished.recv_timeout(poll.min(timeout.saturating_sub(start.elapsed()))) {
            Ok(at) => break Some(at),
            Err(std::sync::mpsc::RecvTimeoutError::Disconnected) => break Some(Instant::now()),
            Err(std::sync::mpsc::RecvTimeoutError::Timeout) => {}
        }
        if start.elapsed() >= timeout {
            let _ = Command::new("kill").args(["-KILL", "--", &format!("-{pid}")]).status();
            break None;
        }
        if !gnu_time.exists() {
            polled_peak = polled_peak.max(vm_hwm(pid));
        }
    };
    let waited = waiter.join().map_err(|_| anyhow::anyhow!("waiting for {}", program.display()))?;
    let status = match end {
        Some(_) => Some(waited.context("waiting")?),
        None => None,
    };
    let wall = end.unwrap_or_else(Instant::now).duration_since(start).as_secs_f64();
    let rss_kib = if gnu_time.exists() {
        fs::read_to_string(&time_file).ok().and_then(|t| t.lines().last().and_then(|l| l.trim().parse().ok()))
    } else {
        polled_peak
    };
    let ending = match status {
        None => Ending::TimedOut,
        Some(s) if s.success() => Ending::Finished,
        Some(s) => {
            let text = fs::read_to_string(log).unwrap_or_default();
            let last = text.lines().rev().find(|l| !l.starts_with("Command exited")).unwrap_or("").to_string();
            Ending::Failed(format!("{s}: {last}"))
        }
    };
    Ok(Run { wall, rss_kib, ending })
}

fn vm_hwm(pid: u32) -> Option<u64> {
    let status = fs::read_to_string(format!("/proc/{pid}/status")).ok()?;
    let line = status.lines().find(|l| l.starts_with("VmHWM:"))?;
    line.split_whitespace().nth(1)?.parse().ok()
}

fn median(mut values: Vec<f64>) -> Option<f64> {
    if values.is_empty() {
        return None;
    }
    values.sort_by(f64::total_cmp);
    let mid = values.len() / 2;
    let odd = values.len() % 2 == 1;
    Some(if odd { values[mid] } else { (values[mid - 1] + values[mid]) / 2.0 })
}

/// Medians over the finished runs, or why there are none.
#[derive(Debug)]
struct Summary {
    wall: Option<f64>,
    rss_mib: Option<f64>,
    note: Option<String>,
}

fn summarize(runs: &[Run], timeout: Duration) -> Summary {
    let finished: Vec<&Run> = runs.iter().filter(|r| matches!(r.ending, Ending::Finished)).collect();
    let note = if finished.is_empty() {
        runs.iter().find_map(|r| match &r.ending {
            Ending::TimedOut => Some(format!("did not finish in {} s", timeout.as_secs())),
            Ending::Failed(message) => Some(format!("failed: {message}")),
            Ending::Finished => None,
        })
    } else {
        None
    };
    Summary {
        wall: median(finished.iter().map(|r| r.wall).collect()),
        rss_mib: median(finished.iter().filter_map(|r| r.rss_kib).map(|k| k as f64 / 1024.0).collect()),
        note,
    }
}

pub fn run(args: &[String]) -> Result<()> {
    let options = parse_options(args)?;
    let root = toolchain::workspace_root();
    let toolchain = match toolchain::ensure() {
        Ok(t) => t,
        Err(e) => {
            println!("bench: skipped, CUDA toolchain unavailable ({e:#})");
            return Ok(());
        }
    };
    let dir = root.join("target").join("bench");
    fs::create_dir_all(&dir).with_context(|| format!("creating {}", dir.display()))?;
    let cases = generate(&dir, &toolchain.tool("ptxas"), &options)?;
    let develf = if options.build {
        toolchain::build_develf(&root, BENCH_PROFILE)?
    } else {
        toolchain::develf_path(&root, BENCH_PROFILE)
    };
    if !develf.exists() {
        bail!("{} is missing (run without --no-build)", develf.display());
    }
    let nvlink = toolchain.tool("nvlink");
    // The toolkit's libraries (libcudadevrt.a), beside its `bin`.
    let toolkit_lib = nvlink.parent().and_then(Path::parent).map_or_else(PathBuf::new, |t| t.join("lib"));
    let out_dir = dir.join("out");
    fs::create_dir_all(&out_dir).with_context(|| format!("creating {}", out_dir.display()))?;

    let mut report = String::new();
    let _ = writeln!(
        report,
        "{:<9} {:>8} {:>9} | {:>11} {:>9} | {:>11} {:>9} | {:>10} {:>9}",
        "case", "inputs", "MB in", "nvlink s", "RSS MiB", "develf s", "RSS MiB", "time ratio", "RSS ratio"
    );
    let mut checks = Vec::new();
    for case in &cases {
        let input_bytes: u64 = case.inputs.iter().filter_map(|p| fs::metadata(p).ok()).map(|m| m.len()).sum();
        let files: Vec<String> = case.inputs.iter().map(|p| p.to_string_lossy().into_owned()).collect();
        let line = |output: &Path| {
            let mut a = vec![format!("-arch={}", case.arch), "-o".to_string(), output.to_string_lossy().into_owned()];
            if case.relocatable {
                a.push("-r".to_string());
            }
            a.extend(files.iter().cloned());
            if case.devrt {
                a.push(format!("-L{}", toolkit_lib.display()));
                a.push("-lcudadevrt".to_string());
            }
            a
        };
        let nvlink_out = out_dir.join(format!("{}.nvlink.cubin", case.name));
        let develf_out = out_dir.join(format!("{}.develf.cubin", case.name));
        let mut develf_args = vec!["nvlink".to_string()];
        develf_args.extend(line(&develf_out));
        println!(
            "{}: {} inputs, {:.1} MB; {} runs each",
            case.name,
            files.len(),
            input_bytes as f64 / 1e6,
            options.runs
        );
        let (mut nvlink_runs, mut develf_runs) = (Vec::new(), Vec::new());
        for run in 0..options.runs {
            // nvlink once past its limit: it will not finish the next time either.
            if !nvlink_runs.iter().any(|r: &Run| matches!(r.ending, Ending::TimedOut)) {
                let log = out_dir.join(format!("{}.nvlink.{run}.log", case.name));
                let r = measure(&nvlink, &line(&nvlink_out), &[], &log, options.timeout)?;
                println!("  nvlink run {run}: {:.3} s, {:?}", r.wall, r.ending);
                nvlink_runs.push(r);
            }
            let log = out_dir.join(format!("{}.develf.{run}.log", case.name));
            let r = measure(&develf, &develf_args, &[], &log, options.timeout)?;
            println!("  develf run {run}: {:.3} s, {:?}", r.wall, r.ending);
            develf_runs.push(r);
        }
        let (n, d) = (summarize(&nvlink_runs, options.timeout), summarize(&develf_runs, options.timeout));
        let cell = |v: Option<f64>| v.map_or("-".to_string(), |v| format!("{v:.3}"));
        let ratio = |a: Option<f64>, b: Option<f64>| match (a, b) {
            (Some(a), Some(b)) if b > 0.0 => format!("{:.3}", a / b),
            _ => "-".to_string(),
        };
        let _ = writeln!(
            report,
            "{:<9} {:>8} {:>9.1} | {:>11} {:>9} | {:>11} {:>9} | {:>10} {:>9}",
            case.name,
            files.len(),
            input_bytes as f64 / 1e6,
            cell(n.wall),
            cell(n.rss_mib),
            cell(d.wall),
            cell(d.rss_mib),
            ratio(d.wall, n.wall),
            ratio(d.rss_mib, n.rss_mib)
        );
        for (tool, summary) in [("nvlink", &n), ("develf", &d)] {
            if let Some(note) = &summary.note {
                let _ = writeln!(report, "          {tool}: {note}");
            }
        }
        checks.push(output_checks(case, &develf, &develf_args, &develf_out, &nvlink_out, &out_dir, &options, &d));
    }
    println!("\n{report}");
    println!(
        "time ratio, RSS ratio: develf / nvlink (below 1: develf is faster / smaller); medians over finished runs"
    );
    for check in checks {
        println!("{}", check?);
    }
    Ok(())
}

/// Same bytes with 1 thread and many; and develf's bytes against nvlink's.
#[allow(clippy::too_many_arguments)]
fn output_checks(
    case: &Case,
    develf: &Path,
    develf_args: &[String],
    develf_out: &Path,
    nvlink_out: &Path,
    out_dir: &Path,
    options: &Options,
    summary: &Summary,
) -> Result<String> {
    if summary.wall.is_none() {
        return Ok(format!("{}: develf produced no output; thread check skipped", case.name));
    }
    let many = std::thread::available_parallelism().map_or(8, |n| n.get()).max(8);
    let mut outputs = Vec::new();
    for threads in [1, many] {
        let output = out_dir.join(format!("{}.develf.t{threads}.cubin", case.name));
        let mut args = develf_args.to_vec();
        if let Some(i) = args.iter().position(|a| a == "-o") {
            args[i + 1] = output.to_string_lossy().into_owned();
        }
        let log = out_dir.join(format!("{}.develf.t{threads}.log", case.name));
        let run = measure(develf, &args, &[("DEVELF_THREADS", threads.to_string())], &log, options.timeout)?;
        if !matches!(run.ending, Ending::Finished) {
            return Ok(format!("{}: develf with DEVELF_THREADS={threads}: {:?}", case.name, run.ending));
        }
        outputs.push(fs::read(&output).with_context(|| format!("reading {}", output.display()))?);
    }
    let same_threads = outputs[0] == outputs[1];
    let ours = fs::read(develf_out).ok();
    let theirs = fs::read(nvlink_out).ok();
    let versus = match (ours, theirs) {
        (Some(a), Some(b)) if a == b => "byte-identical to nvlink's".to_string(),
        (Some(a), Some(b)) => format!("differs from nvlink's ({} vs {} bytes)", a.len(), b.len()),
        _ => "no nvlink output to compare".to_string(),
    };
    Ok(format!(
        "{}: DEVELF_THREADS=1 and ={many}: {}; output {versus}",
        case.name,
        if same_threads { "same bytes" } else { "DIFFERENT BYTES" }
    ))
}
