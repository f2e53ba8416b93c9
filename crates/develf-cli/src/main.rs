//! `develf`: read, validate, dump and link GPU device ELF.

mod commands;
mod model;
mod text;

use clap::{Parser, Subcommand};
use std::path::PathBuf;
use std::process::ExitCode;

#[derive(Debug, Parser)]
#[command(name = "develf", version, about = "Read, validate and dump GPU device ELF (NVIDIA cubins)")]
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
        #[arg(required = true)]
        files: Vec<PathBuf>,
    },
}

fn main() -> ExitCode {
    let cli = Cli::parse();
    match cli.command {
        Command::Dump { json, demangle, files } => commands::dump(&files, json, demangle),
        Command::Validate { warnings, quiet, files } => commands::validate(&files, warnings, quiet),
    }
}
