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
    Link {
        /// The target: sm_90, sm_90a, sm_100, ...
        #[arg(long, short = 'a', value_name = "SM")]
        arch: String,
        /// The output file (written only when the link succeeds).
        #[arg(long, short = 'o', value_name = "FILE")]
        output: PathBuf,
        /// Relocatable (partial) link.
        #[arg(long, short = 'r')]
        relocatable: bool,
        /// Keep and link debug sections.
        #[arg(long, short = 'g')]
        debug: bool,
        /// Keep resolved relocations in `.nv.resolvedrela.*`.
        #[arg(long)]
        preserve_relocs: bool,
        /// Only these kernels (substrings) and what they reach are kept.
        #[arg(long, value_name = "K,...", value_delimiter = ',')]
        kernels_used: Option<Vec<String>>,
        /// Only these variables (substrings) are kept.
        #[arg(long, value_name = "V,...", value_delimiter = ',')]
        variables_used: Option<Vec<String>>,
        /// Library search path for -l.
        #[arg(short = 'L', value_name = "DIR")]
        library_paths: Vec<PathBuf>,
        /// Link lib<NAME>.a from the -L paths.
        #[arg(short = 'l', value_name = "NAME")]
        libraries: Vec<String>,
        /// Print the call graph as `nvlink -dump-callgraph` does.
        #[arg(long)]
        dump_callgraph: bool,
        /// Print what was linked.
        #[arg(long, short = 'v')]
        verbose: bool,
        /// Worker threads (0: all cores; default: DEVELF_THREADS or 0). The
        /// output is the same whatever the count.
        #[arg(long, value_name = "N")]
        threads: Option<usize>,
        #[arg(required = true)]
        inputs: Vec<PathBuf>,
    },
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
        Command::Nvlink { args } => develf_cli::nvlink_cmd::main_nvlink(args),
        Command::Link {
            arch,
            output,
            relocatable,
            debug,
            preserve_relocs,
            kernels_used,
            variables_used,
            library_paths,
            libraries,
            dump_callgraph,
            verbose,
            threads,
            inputs,
        } => develf_cli::nvlink_cmd::main_link(&develf_cli::nvlink_cmd::DevelfLinkArgs {
            arch,
            output,
            relocatable,
            debug,
            preserve_relocs,
            kernels_used,
            variables_used,
            library_paths,
            libraries,
            dump_callgraph,
            verbose,
            threads,
            inputs,
        }),
        Command::Dump { json, demangle, files } => commands::dump(&files, json, demangle),
        Command::Validate { warnings, quiet, device, grf_size, files } => {
            commands::validate(&files, &commands::ValidateArgs { warnings, quiet, device, grf_size })
        }
    }
}
