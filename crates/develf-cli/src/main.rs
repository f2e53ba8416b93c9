//! `develf`: read, validate, dump and link GPU device ELF.

use clap::{Parser, Subcommand};
use develf_cli::commands;
use std::ffi::OsString;
use std::path::PathBuf;
use std::process::ExitCode;

#[derive(Debug, Parser)]
#[command(
    name = "develf",
    version,
    about = "Read, validate, dump and extract GPU device ELF: NVIDIA cubins (also inside fatbins, host objects and archives) and Intel zebins"
)]
struct Cli {
    #[command(subcommand)]
    command: Command,
}

#[derive(Debug, Subcommand)]
enum Command {
    /// Print everything in a device ELF file: header, sections, symbols,
    /// relocations, .nv.info/.nv.compat records, notes.
    Dump {
        /// Print JSON (one document per file; an array when several files are given).
        #[arg(long)]
        json: bool,
        /// Demangle C++ symbol names.
        #[arg(long, short = 'C')]
        demangle: bool,
        #[arg(required = true)]
        files: Vec<PathBuf>,
    },
    /// Check files layer by layer (structure, references, semantics, target,
    /// metadata). Exit status 0 when every file is valid, 1 when any is not.
    Validate {
        /// Print warnings too, not only errors.
        #[arg(long, short = 'W')]
        warnings: bool,
        /// Print nothing for valid files.
        #[arg(long, short = 'q')]
        quiet: bool,
        /// Zebins: also check that each targets this device (ocloc's names:
        /// tgllp, dg2, pvc, mtl, bmg, lnl, ptl, ...), as Intel's runtime does.
        #[arg(long, value_name = "NAME")]
        device: Option<String>,
        /// Zebins: the register size in bytes for the local_id rule (default: the
        /// target device's; `ocloc validate` assumes 32).
        #[arg(long, value_name = "BYTES")]
        grf_size: Option<u32>,
        #[arg(required = true)]
        files: Vec<PathBuf>,
    },
    /// Write the device ELFs inside fatbins, host objects and archives to files
    /// named as `cuobjdump -xelf` names them.
    Extract {
        /// Where to write (default: the current directory).
        #[arg(long, short = 'o', value_name = "DIR")]
        output_dir: Option<PathBuf>,
        /// Only entries whose file name contains this (`all`: every entry).
        #[arg(long, value_name = "PARTIAL_NAME")]
        only: Option<String>,
        /// List the names (as `cuobjdump -lelf`) instead of writing files.
        #[arg(long, short = 'l')]
        list: bool,
        #[arg(required = true)]
        files: Vec<PathBuf>,
    },
    /// Fatbin containers.
    #[command(subcommand)]
    Fatbin(FatbinCommand),
    /// Link relocatable cubins (also from fatbins, host objects and archives)
    /// into an executable cubin, or with -r a relocatable one.
    Link(develf_cli::nvlink_cmd::DevelfLinkArgs),
    /// nvlink's command line (`develf nvlink -arch=sm_90 a.cubin -o out.cubin`);
    /// what develf runs when invoked under the name `nvlink`.
    #[command(disable_help_flag = true)]
    Nvlink {
        #[arg(trailing_var_arg = true, allow_hyphen_values = true, num_args = 0..)]
        args: Vec<OsString>,
    },
}

#[derive(Debug, Subcommand)]
enum FatbinCommand {
    /// Write a fatbin, as `fatbinary --create` does.
    Create(develf_cli::fatbin_cmd::CreateArgs),
}

fn main() -> ExitCode {
    tune_allocator();
    // The command runs on this thread, made one of the worker pool's threads
    // (a link joins it, develf_link::link_image). Then the sequential phases
    // allocate from the main heap, which grows in large steps; a pool
    // thread's heap grows a page at a time, and its thousands of mprotect
    // calls stall the other thread's page faults (big link: 2,900 calls
    // against 390). Without a pool (it could not start) it runs as is.
    let threads = develf_cli::nvlink_cmd::threads_from_env().unwrap_or(0);
    match rayon::ThreadPoolBuilder::new().num_threads(threads).use_current_thread().build() {
        Ok(pool) => pool.install(run),
        Err(_) => run(),
    }
}

/// glibc's malloc raises its mmap threshold each time a large block is
/// freed (up to 32 MiB), after which large blocks come from the heap, whose
/// freed memory is kept. A link allocates and frees many blocks of tens to
/// hundreds of KiB (per-input tables, merged sections): with the threshold
/// fixed at 64 KiB they are mapped and unmapped whole, and untouched
/// capacity costs nothing. Big link (`cargo xtask bench --only big`): peak
/// RSS 41.2 -> 39.4 MB, time unchanged. Other platforms keep their
/// allocator as it is.
#[cfg(all(target_os = "linux", target_env = "gnu"))]
#[allow(unsafe_code)]
fn tune_allocator() {
    const MMAP_THRESHOLD: libc::c_int = 64 * 1024;
    // SAFETY: mallopt only sets a malloc parameter; called first thing in
    // main, before any other thread exists. Its failure leaves the default.
    unsafe {
        libc::mallopt(libc::M_MMAP_THRESHOLD, MMAP_THRESHOLD);
    }
}

#[cfg(not(all(target_os = "linux", target_env = "gnu")))]
fn tune_allocator() {}

fn run() -> ExitCode {
    let mut args = std::env::args_os();
    if args.next().is_some_and(|argv0| develf_cli::nvlink_cmd::invoked_as_nvlink(&argv0)) {
        return develf_cli::nvlink_cmd::main_nvlink(args.collect());
    }
    let cli = Cli::parse();
    match cli.command {
        Command::Extract { output_dir, only, list, files } => {
            if list {
                develf_cli::extract::list(&files)
            } else {
                develf_cli::extract::extract(&files, output_dir.as_deref(), only.as_deref())
            }
        }
        Command::Fatbin(FatbinCommand::Create(args)) => develf_cli::fatbin_cmd::create(&args),
        Command::Nvlink { args } => develf_cli::nvlink_cmd::main_nvlink(args),
        Command::Link(args) => develf_cli::nvlink_cmd::main_link(&args),
        Command::Dump { json, demangle, files } => commands::dump(&files, json, demangle),
        Command::Validate { warnings, quiet, device, grf_size, files } => {
            commands::validate(&files, &commands::ValidateArgs { warnings, quiet, device, grf_size })
        }
    }
}
