//! `develf`: read, validate, dump and link GPU device ELF.

use clap::{Parser, Subcommand};
use develf_cli::commands;
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
}

#[derive(Debug, Subcommand)]
enum FatbinCommand {
    /// Write a fatbin, as `fatbinary --create` does.
    Create {
        /// The fatbin to write.
        #[arg(long, value_name = "FILE")]
        create: PathBuf,
        /// `kind=elf|ptx,sm=90[a|f],file=PATH`; repeat for each entry.
        #[arg(long = "image3", value_name = "SPEC", required = true)]
        images: Vec<String>,
        /// Compress entries (ZSTD by default).
        #[arg(long, default_value_t = true, action = clap::ArgAction::Set, value_name = "BOOL")]
        compress: bool,
        /// Compress every entry, small ones too.
        #[arg(long)]
        compress_all: bool,
        /// `default`, `size`, `speed`, `balance` or `none`, as fatbinary takes them.
        #[arg(long, value_name = "MODE")]
        compress_mode: Option<String>,
        /// An identifier stored with each entry.
        #[arg(long, value_name = "NAME")]
        ident: Option<String>,
        /// The options recorded with each entry.
        #[arg(long, value_name = "OPTIONS")]
        cmdline: Option<String>,
        /// Mark entries as debug builds.
        #[arg(short = 'g', long)]
        debug: bool,
    },
}

fn main() -> ExitCode {
    let cli = Cli::parse();
    match cli.command {
        Command::Extract { output_dir, only, list, files } => {
            if list {
                develf_cli::extract::list(&files)
            } else {
                develf_cli::extract::extract(&files, output_dir.as_deref(), only.as_deref())
            }
        }
        Command::Fatbin(FatbinCommand::Create {
            create,
            images,
            compress,
            compress_all,
            compress_mode,
            ident,
            cmdline,
            debug,
        }) => develf_cli::fatbin_cmd::create(&develf_cli::fatbin_cmd::CreateArgs {
            output: create,
            images,
            compress,
            compress_all,
            compress_mode,
            ident,
            cmdline,
            debug,
        }),
        Command::Dump { json, demangle, files } => commands::dump(&files, json, demangle),
        Command::Validate { warnings, quiet, device, grf_size, files } => {
            commands::validate(&files, &commands::ValidateArgs { warnings, quiet, device, grf_size })
        }
    }
}
