//! `cargo xtask diff`: links every fixture link of `tests/fixtures/manifest.json`
//! (kinds `linked` and `relocatable-link`) with develf, in-process, using the
//! options recorded in `<name>.nvlink.cmd`, and compares the result with
//! nvlink's committed output (or, with `--rerun-nvlink`, with what nvlink writes
//! now). Reports per arch and kind how many are byte-identical, semantically
//! equal, different, or not linked by develf, and the first difference of each.

use crate::toolchain;
use anyhow::{Context, Result, bail};
use develf_cli::nvlink_cmd::{self, InputArg, Reporter};
use serde::Deserialize;
use std::collections::BTreeMap;
use std::fs;
use std::path::Path;
use std::process::Command;

#[derive(Debug, Deserialize)]
struct ManifestEntry {
    path: String,
    kind: String,
    arch: String,
}

#[derive(Debug, Default)]
struct Options {
    rerun_nvlink: bool,
    only: Option<String>,
    all: bool,
}

fn parse_options(args: &[String]) -> Result<Options> {
    let mut options = Options::default();
    let mut args = args.iter();
    while let Some(arg) = args.next() {
        match arg.as_str() {
            "--rerun-nvlink" => options.rerun_nvlink = true,
            "--all" => options.all = true,
            "--only" => {
                options.only = Some(args.next().context("--only needs a substring of the fixture path")?.clone())
            }
            other => bail!("diff: unknown option `{other}` (usage: {})", USAGE),
        }
    }
    Ok(options)
}

pub const USAGE: &str = "diff [--rerun-nvlink] [--only SUBSTRING] [--all]";

/// What one link came to.
#[derive(Debug)]
enum Outcome {
    Identical,
    SemanticallyEqual,
    Different(Vec<String>),
    DevelfFailed(String),
    NvlinkFailed(String),
}

#[derive(Debug, Default, Clone, Copy)]
struct Tally {
    links: usize,
    identical: usize,
    equal: usize,
    different: usize,
    develf_failed: usize,
    nvlink_failed: usize,
}

impl Tally {
    fn add(&mut self, outcome: &Outcome) {
        self.links += 1;
        match outcome {
            Outcome::Identical => self.identical += 1,
            Outcome::SemanticallyEqual => self.equal += 1,
            Outcome::Different(_) => self.different += 1,
            Outcome::DevelfFailed(_) => self.develf_failed += 1,
            Outcome::NvlinkFailed(_) => self.nvlink_failed += 1,
        }
    }

    fn sum(&mut self, other: &Tally) {
        self.links += other.links;
        self.identical += other.identical;
        self.equal += other.equal;
        self.different += other.different;
        self.develf_failed += other.develf_failed;
        self.nvlink_failed += other.nvlink_failed;
    }
}

pub fn run(args: &[String]) -> Result<()> {
    let options = parse_options(args)?;
    let root = toolchain::workspace_root();
    let fixtures = root.join("tests").join("fixtures");
    let manifest_path = fixtures.join("manifest.json");
    let manifest: Vec<ManifestEntry> = serde_json::from_slice(
        &fs::read(&manifest_path).with_context(|| format!("reading {}", manifest_path.display()))?,
    )
    .with_context(|| format!("parsing {}", manifest_path.display()))?;
    let links: Vec<&ManifestEntry> = manifest
        .iter()
        .filter(|e| e.kind == "linked" || e.kind == "relocatable-link")
        .filter(|e| options.only.as_ref().is_none_or(|s| e.path.contains(s.as_str())))
        .collect();
    if links.is_empty() {
        bail!("no fixture links to compare (manifest: {})", manifest_path.display());
    }
    let nvlink = if options.rerun_nvlink { Some(toolchain::ensure()?.tool("nvlink")) } else { None };
    let rerun_dir = root.join("target").join("diff");

    let mut tallies: BTreeMap<(String, String), Tally> = BTreeMap::new();
    let mut outcomes: Vec<(&ManifestEntry, Outcome)> = Vec::with_capacity(links.len());
    for entry in links {
        let outcome = diff_one(&fixtures, entry, nvlink.as_deref(), &rerun_dir)?;
        tallies.entry((entry.arch.clone(), entry.kind.clone())).or_default().add(&outcome);
        outcomes.push((entry, outcome));
    }
    print_report(&tallies, &outcomes, &options);
    Ok(())
}

fn diff_one(fixtures: &Path, entry: &ManifestEntry, nvlink: Option<&Path>, rerun_dir: &Path) -> Result<Outcome> {
    let cubin = fixtures.join(&entry.path);
    let command_path = cubin.with_extension("nvlink.cmd");
    let command = fs::read_to_string(&command_path).with_context(|| format!("reading {}", command_path.display()))?;
    let mut words: Vec<String> = command.split_whitespace().map(str::to_string).collect();
    if words.first().is_some_and(|w| w == "nvlink") {
        words.remove(0);
    }
    let theirs = match nvlink {
        None => fs::read(&cubin).with_context(|| format!("reading {}", cubin.display()))?,
        Some(nvlink) => match rerun(nvlink, fixtures, &words, &rerun_dir.join(&entry.path))? {
            Ok(bytes) => bytes,
            Err(message) => return Ok(Outcome::NvlinkFailed(message)),
        },
    };
    let parsed = match nvlink_cmd::parse_nvlink_args(&words) {
        Ok(p) => p,
        Err(message) => return Ok(Outcome::DevelfFailed(format!("command line: {message}"))),
    };
    let mut request = match nvlink_cmd::request_from_args(&parsed) {
        Ok(r) => r,
        Err(message) => return Ok(Outcome::DevelfFailed(format!("command line: {message}"))),
    };
    // Inputs are relative to tests/fixtures; the output name stays as nvlink saw it.
    for input in &mut request.inputs {
        if let InputArg::File(file) = input {
            *file = fixtures.join(&*file).to_string_lossy().into_owned();
        }
    }
    request.library_paths = request.library_paths.iter().map(|p| fixtures.join(p)).collect();
    let mut reporter = Reporter::quiet();
    let ours = match nvlink_cmd::link_bytes(&request, &mut reporter) {
        Ok(bytes) => bytes,
        Err(failure) => return Ok(Outcome::DevelfFailed(failure.message)),
    };
    let comparison = develf_link::compare(&ours, &theirs);
    Ok(if comparison.byte_identical {
        Outcome::Identical
    } else if comparison.semantic_differences.is_empty() {
        Outcome::SemanticallyEqual
    } else {
        Outcome::Different(comparison.semantic_differences)
    })
}

/// Runs nvlink on the recorded command line with the output redirected to
/// `output`; `Ok(Err(message))` when nvlink fails.
fn rerun(nvlink: &Path, fixtures: &Path, words: &[String], output: &Path) -> Result<Result<Vec<u8>, String>> {
    if let Some(dir) = output.parent() {
        fs::create_dir_all(dir).with_context(|| format!("creating {}", dir.display()))?;
    }
    let mut args = words.to_vec();
    match args.iter().position(|w| w == "-o") {
        Some(i) if i + 1 < args.len() => args[i + 1] = output.to_string_lossy().into_owned(),
        _ => bail!("nvlink command without `-o FILE`: {}", words.join(" ")),
    }
    let _ = fs::remove_file(output);
    let result = Command::new(nvlink)
        .args(&args)
        .current_dir(fixtures)
        .output()
        .with_context(|| format!("running {}", nvlink.display()))?;
    if !result.status.success() {
        let stderr = String::from_utf8_lossy(&result.stderr);
        return Ok(Err(format!("nvlink {}: {}", result.status, stderr.lines().last().unwrap_or(""))));
    }
    Ok(Ok(fs::read(output).with_context(|| format!("reading {}", output.display()))?))
}

fn print_report(
    tallies: &BTreeMap<(String, String), Tally>,
    outcomes: &[(&ManifestEntry, Outcome)],
    options: &Options,
) {
    let reference = if options.rerun_nvlink { "nvlink run now" } else { "nvlink's committed output" };
    println!("develf diff: {} fixture links, compared with {reference}\n", outcomes.len());
    let nvlink_column = options.rerun_nvlink;
    print!(
        "{:<9} {:<17} {:>6} {:>10} {:>8} {:>10} {:>14}",
        "arch", "kind", "links", "identical", "equal", "different", "develf-failed"
    );
    println!("{}", if nvlink_column { format!(" {:>14}", "nvlink-failed") } else { String::new() });
    let mut total = Tally::default();
    let row = |label_arch: &str, label_kind: &str, t: &Tally| {
        print!(
            "{label_arch:<9} {label_kind:<17} {:>6} {:>10} {:>8} {:>10} {:>14}",
            t.links, t.identical, t.equal, t.different, t.develf_failed
        );
        println!("{}", if nvlink_column { format!(" {:>14}", t.nvlink_failed) } else { String::new() });
    };
    for ((arch, kind), tally) in tallies {
        row(arch, kind, tally);
        total.sum(tally);
    }
    row("total", "", &total);
    let share = |n: usize| if total.links == 0 { 0.0 } else { 100.0 * n as f64 / total.links as f64 };
    println!(
        "\nbyte-identical: {:.1}%   semantically equal or better: {:.1}%",
        share(total.identical),
        share(total.identical + total.equal)
    );

    // Failures grouped by message: one line per distinct cause.
    let mut failures: BTreeMap<&str, Vec<&str>> = BTreeMap::new();
    for (entry, outcome) in outcomes {
        if let Outcome::DevelfFailed(message) | Outcome::NvlinkFailed(message) = outcome {
            failures.entry(message.as_str()).or_default().push(entry.path.as_str());
        }
    }
    if !failures.is_empty() {
        println!("\nfailed links, by message:");
        for (message, paths) in &failures {
            println!("  {:>4} x {message}\n         first: {}", paths.len(), paths[0]);
        }
    }
    let different: Vec<_> =
        outcomes.iter().filter_map(|(e, o)| if let Outcome::Different(d) = o { Some((e, d)) } else { None }).collect();
    if !different.is_empty() {
        println!("\ndifferent (first difference of each):");
        let shown = if options.all { different.len() } else { different.len().min(40) };
        for (entry, differences) in &different[..shown] {
            println!("  {}: {}", entry.path, differences.first().map_or("", String::as_str));
            if options.all {
                for more in differences.iter().skip(1) {
                    println!("      {more}");
                }
            }
        }
        if shown < different.len() {
            println!("  ... {} more (--all shows every one)", different.len() - shown);
        }
    }
}
