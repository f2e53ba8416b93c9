//! `develf`: read, validate, dump and link GPU device ELF.

use clap::{Parser, Subcommand};
use develf_cli::commands;
use std::path::PathBuf;
use std::process::ExitCode;

#[derive(Debug, Parser)]
#[command(name = "develf", version, about = "Read, validate and dump GPU device ELF: NVIDIA cubins and Intel zebins")]
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
}

fn main() -> ExitCode {
    let cli = Cli::parse();
    match cli.command {
        Command::Dump { json, demangle, files } => commands::dump(&files, json, demangle),
        Command::Validate { warnings, quiet, device, grf_size, files } => {
            commands::validate(&files, &commands::ValidateArgs { warnings, quiet, device, grf_size })
        }
    }
}
