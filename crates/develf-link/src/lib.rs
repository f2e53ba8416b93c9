//! develf-link: links relocatable cubins into an executable cubin or, with
//! [`OutputKind::Relocatable`], a relocatable one, reproducing nvlink 13.5's
//! output (see docs/nvlink-layout.md for the rules it follows).
//!
//! ```no_run
//! use develf_link::{Input, LinkOptions, link};
//! use develf_format::header::Arch;
//! let a = std::fs::read("a.cubin")?;
//! let b = std::fs::read("b.cubin")?;
//! let options = LinkOptions::new(Arch::parse("sm_90").unwrap());
//! let bytes = link(&options, &[Input::new("a.cubin", &a), Input::new("b.cubin", &b)])?;
//! # Ok::<(), Box<dyn std::error::Error>>(())
//! ```
//!
//! The phases, each borrowing the results of the ones before it:
//! [`input`] → [`resolve`] → [`gc`] → [`layout`] → [`symbols`] → [`relocate`]
//! → [`metadata`] → [`write`].

mod bits;
mod body;
mod capsule_align;
mod checks;
pub mod compare;
pub mod demangle;
mod errbar;
mod error;
mod gc;
mod host_info;
mod input;
mod layout;
mod mercury;
mod metadata;
mod options;
mod registers;
mod relocate;
mod resolve;
mod scoreboard;
mod shared;
mod symbols;
mod write;

pub use compare::{Comparison, compare};
pub use demangle::demangle;
pub use error::{
    Duplicate, LinkError, LinkWarning, Location, RegisterOverLimit, SharedContribution, SharedOverLimit, SymbolName,
    Undefined,
};
pub use host_info::is_root_kernel;
pub use input::arch_compatible;
pub use options::{CodeSource, Input, LinkOptions, OutputKind, is_code_section};
pub use resolve::is_driver_function;
pub use write::Image;

/// Links `inputs` (in command-line order) into one cubin. No inputs give
/// the empty output nvlink writes when nothing has code for the target
/// (docs/nvlink-layout.md rule 13.6).
pub fn link(options: &LinkOptions, inputs: &[Input<'_>]) -> Result<Vec<u8>, LinkError> {
    link_image(options, inputs)?
        .into_bytes()
        .map_err(|e| LinkError::ReadCode { what: "the inputs".to_string(), message: e.to_string() })
}

/// [`link`], returning the output as an [`Image`] to stream to a file
/// ([`Image::write_to`]) without first assembling it in memory.
///
/// Called from a rayon pool's thread, with `options.threads` 0 or that
/// pool's size, the link runs in that pool; otherwise in a pool of its own.
pub fn link_image<'a>(options: &LinkOptions, inputs: &[Input<'a>]) -> Result<Image<'a>, LinkError> {
    let in_pool = rayon::current_thread_index().is_some();
    if in_pool && (options.threads == 0 || options.threads == rayon::current_num_threads()) {
        return link_in_pool(options, inputs);
    }
    let pool = rayon::ThreadPoolBuilder::new()
        .num_threads(options.threads)
        .build()
        .map_err(|e| LinkError::Threads { threads: options.threads, message: e.to_string() })?;
    pool.install(|| link_in_pool(options, inputs))
}

/// For a link that failed (as nvlink's `-dump-callgraph` still reports
/// one with undefined references): per input, per section, its place in
/// the output's header order had the link gone on (1 first; 0 where it is
/// dropped), from the phases up to the layout, without the link's checks.
/// An error where those phases fail.
pub fn placement_order(options: &LinkOptions, inputs: &[Input<'_>]) -> Result<Vec<Vec<u32>>, LinkError> {
    let objects = input::read_inputs(options, inputs)?;
    let resolution = resolve::resolve(&objects)?;
    let liveness = gc::collect(options, &objects, &resolution);
    let layout = layout::build(options, &objects, &resolution, &liveness);
    Ok(write::placement_order(&objects, &layout))
}

/// [`LinkError::warnings`] (session 50: what nvlink 13.5 prints with a
/// failed link's error, before its lines and after them). The phases run
/// again, up to the merged `.nv.info`, for a failed check's stack sizes.
fn failure_warnings(
    error: &LinkError,
    options: &LinkOptions,
    inputs: &[Input<'_>],
) -> (Vec<LinkWarning>, Vec<LinkWarning>) {
    match error {
        // Before an input's architecture fails, nvlink says an sm_100+
        // output is limited to the target for an input of an architecture
        // before sm_100 (any of sm_75..sm_90a, ABI 7 or 8, `-r` outputs
        // too; exec and `-r`; targets sm_100, 100a, 100f, 103, 110, 120,
        // 120a, 121, with the suffix dropped), not for an sm_100+ input of
        // another family, nor on targets before sm_100. No ISA_CLASS
        // warning: nvlink checks every input's architecture before it
        // merges any.
        LinkError::ArchMismatch { file, object, target } => {
            match (develf_format::header::Arch::parse(object), develf_format::header::Arch::parse(target)) {
                (Some(o), Some(t)) if o.sm < 100 && t.sm >= 100 => {
                    (vec![LinkWarning::LimitedByInput { input: file.clone(), sm: t.sm }], Vec::new())
                }
                _ => (Vec::new(), Vec::new()),
            }
        }
        // nvlink reads the inputs in order, each one's symbols and then its
        // `.nv.compat` (the ISA_CLASS warning), and stops after the first
        // input with a multiple definition: the inputs before it warn before
        // the errors, it after them, later ones not at all (`i7r dupi`:
        // warning, error; `dupi i7r`: error, warning; `dupi dupj i7r`: no
        // warning).
        LinkError::DuplicateDefinitions(list) => {
            let at = list.iter().map(|d| d.reported_in).min().unwrap_or(0);
            duplicate_warnings(options, inputs, at)
        }
        LinkError::KernelClash { reported_in, .. } => duplicate_warnings(options, inputs, *reported_in),
        // The executable's checks come after the merge and the stack sizes:
        // a link failing there warns as one that succeeds, ISA_CLASS first,
        // then the stack sizes (undefined references, register limits,
        // shared memory, constant bank 3; sm_75..sm_120).
        LinkError::UndefinedSymbols(_)
        | LinkError::RegisterLimit(_)
        | LinkError::SharedMemoryOverLimit(_)
        | LinkError::ConstantBankOverLimit { .. } => {
            let Ok(objects) = input::read_inputs(options, inputs) else { return (Vec::new(), Vec::new()) };
            let mut warnings = metadata::missing_isa_class(options, &objects);
            let Ok(resolution) = resolve::resolve(&objects) else { return (warnings, Vec::new()) };
            let liveness = gc::collect(options, &objects, &resolution);
            let layout = layout::build(options, &objects, &resolution, &liveness);
            let signatures = symbols::prototype_strings_kept(&objects, &resolution);
            let symbols = symbols::build(&objects, &resolution, &layout, signatures);
            warnings.extend(metadata::stack_warnings(options, &objects, &resolution, &layout, &symbols, &liveness));
            (warnings, Vec::new())
        }
        _ => (Vec::new(), Vec::new()),
    }
}

/// [`failure_warnings`] for a multiple definition reported in input `at`.
fn duplicate_warnings(options: &LinkOptions, inputs: &[Input<'_>], at: usize) -> (Vec<LinkWarning>, Vec<LinkWarning>) {
    let Ok(objects) = input::read_inputs(options, inputs) else { return (Vec::new(), Vec::new()) };
    let (before, from) = objects.split_at(at.min(objects.len()));
    (
        metadata::missing_isa_class(options, before),
        metadata::missing_isa_class(options, from.get(..1).unwrap_or_default()),
    )
}

/// Prints how long each phase took to stderr when `DEVELF_TIME_PHASES` is
/// set: where a link spends its time, without a profiler.
struct PhaseClock {
    last: Option<(std::time::Instant, f64)>,
}

impl PhaseClock {
    fn start() -> Self {
        PhaseClock { last: std::env::var_os("DEVELF_TIME_PHASES").map(|_| (std::time::Instant::now(), cpu_ms())) }
    }

    fn done(&mut self, phase: &str) {
        if let Some((wall, cpu)) = self.last.as_mut() {
            let now = cpu_ms();
            eprintln!(
                "develf-link: {phase:<10} {:8.2} ms  cpu {:7.2} ms  resident {:6.1} MiB (anonymous {:6.1})  peak {:6.1} MiB  page faults {:6}",
                wall.elapsed().as_secs_f64() * 1e3,
                now - *cpu,
                resident_mib(),
                status_mib("RssAnon:"),
                peak_resident_mib(),
                minor_faults()
            );
            *wall = std::time::Instant::now();
            *cpu = now;
        }
    }
}

/// The CPU time all of the process's threads have used so far, in ms
/// (Linux, from each thread's `schedstat`; 0 elsewhere): set against a
/// phase's wall time, how much of it ran on more than one core.
fn cpu_ms() -> f64 {
    let Ok(tasks) = std::fs::read_dir("/proc/self/task") else { return 0.0 };
    let ns: u64 = tasks
        .filter_map(|t| std::fs::read_to_string(t.ok()?.path().join("schedstat")).ok())
        .filter_map(|s| s.split_whitespace().next()?.parse::<u64>().ok())
        .sum();
    ns as f64 / 1e6
}

/// The process's resident memory (Linux; 0 elsewhere).
fn resident_mib() -> f64 {
    let statm = std::fs::read_to_string("/proc/self/statm").unwrap_or_default();
    let pages: f64 = statm.split_whitespace().nth(1).and_then(|p| p.parse().ok()).unwrap_or(0.0);
    pages * 4096.0 / (1024.0 * 1024.0)
}

/// The most memory the process has had resident so far (Linux's `VmHWM`;
/// 0 elsewhere): a phase whose peak exceeds its end's resident memory made
/// and freed that much on the way.
fn peak_resident_mib() -> f64 {
    status_mib("VmHWM:")
}

/// A size in `/proc/self/status` (Linux; 0 elsewhere), in MiB: `RssAnon:`
/// is the resident memory the link allocated, the rest of `resident_mib`
/// the program and the pages of mapped inputs.
fn status_mib(field: &str) -> f64 {
    let status = std::fs::read_to_string("/proc/self/status").unwrap_or_default();
    let kib: f64 = status
        .lines()
        .find_map(|l| l.strip_prefix(field))
        .and_then(|v| v.split_whitespace().next()?.parse().ok())
        .unwrap_or(0.0);
    kib / 1024.0
}

/// The process's minor page faults so far (Linux; 0 elsewhere). Each page
/// touched for the first time costs one (about 1.5 us here, and two
/// threads faulting at once slow each other down): a large share of a big
/// link's time, and what its memory use costs in time.
pub fn minor_faults() -> u64 {
    let stat = std::fs::read_to_string("/proc/self/stat").unwrap_or_default();
    // Field 10; counted after the command name's closing parenthesis (the
    // name may hold spaces), where field 3 starts.
    let after_name = stat.rsplit_once(')').map_or("", |(_, rest)| rest);
    after_name.split_whitespace().nth(7).and_then(|f| f.parse().ok()).unwrap_or(0)
}

fn link_in_pool<'a>(options: &LinkOptions, inputs: &[Input<'a>]) -> Result<Image<'a>, LinkError> {
    // Rules 11.3, 11.8, 11.9: on Mercury the inputs are linked as the
    // finaliser leaves them: error barriers before `EXIT`s under `-g` or
    // with a `-G` input, the fence workaround gone from an executable's
    // kernels. The rewritten copies live only through this call, so the
    // image is assembled here.
    if let Some(rewrite) = errbar::rule(options, inputs) {
        if let Some(rewritten) = errbar::rewrite_inputs(inputs, rewrite) {
            let moved: Vec<Input<'_>> = inputs
                .iter()
                .zip(&rewritten)
                .map(|(i, r)| match r {
                    Some(bytes) => Input::new(i.name, bytes),
                    None => *i,
                })
                .collect();
            return link_objects(options, &moved)?
                .assembled()
                .map_err(|e| LinkError::ReadCode { what: "the inputs".to_string(), message: e.to_string() });
        }
    }
    link_objects(options, inputs)
}

fn link_objects<'a>(options: &LinkOptions, inputs: &[Input<'a>]) -> Result<Image<'a>, LinkError> {
    let mut clock = PhaseClock::start();
    let objects = input::read_inputs(options, inputs)?;
    clock.done("input");
    let resolution = resolve::resolve(&objects)?;
    if options.output == OutputKind::Relocatable {
        checks::replaced_bank(&objects, &resolution)?;
    }
    clock.done("resolve");
    let liveness = gc::collect(options, &objects, &resolution);
    clock.done("gc");
    // The executable's checks need no layout: they run beside it, and their
    // errors still come first, in this order.
    let checks = || -> Result<(), LinkError> {
        if options.output == OutputKind::Executable {
            // Rule 13.4: after dead-code elimination, which decides what an
            // undefined function reference may be left behind by.
            resolve::check_undefined(&objects, &resolution, &liveness)?;
            checks::register_limits(&objects, &resolution, &liveness)?;
        }
        Ok(())
    };
    // So are the signature strings `.strtab` starts with, which need only the inputs.
    let beside = || (checks(), symbols::prototype_strings_kept(&objects, &resolution));
    let ((checked, signatures), layout) =
        rayon::join(beside, || layout::build(options, &objects, &resolution, &liveness));
    checked?;
    checks::output_size(&objects, &layout)?;
    checks::constant_bank(&layout)?;
    if options.output == OutputKind::Executable {
        checks::shared_memory(&objects, &layout)?;
    }
    clock.done("layout");
    let mut symbols = symbols::build(&objects, &resolution, &layout, signatures);
    clock.done("symbols");
    // The relocation and the merged `.nv.info` (the metadata's mostly
    // sequential start) only read what the phases before made: built side by
    // side. The per-function metadata comes after, not beside, so that the
    // two phases' allocations do not interleave (peak memory). Errors keep
    // the sequential order: relocation's first.
    let relocated = || -> Result<_, LinkError> {
        let mut contents = relocate::build(&objects, &resolution, &layout, &symbols)?;
        if layout.mercury {
            mercury::relocate(&objects, &resolution, &layout, &symbols, &mut contents)?;
        }
        Ok(contents)
    };
    let (contents, merged) = rayon::join(relocated, || {
        metadata::merge_nv_info(options, &objects, &resolution, &layout, &symbols, &liveness)
    });
    let contents = contents?;
    let (generated, warnings, barrier_bits_kept) =
        metadata::build(options, &objects, &resolution, &layout, &symbols, merged?)?;
    clock.done("reloc+meta");
    let mut image =
        write::write(&objects, &resolution, &layout, &mut symbols, contents, generated, &barrier_bits_kept)?;
    image.warn(warnings);
    clock.done("write");
    image.keep((objects, resolution, liveness, layout, symbols));
    Ok(image)
}
