//! Project automation for develf, run as `cargo xtask <command>`.
//!
//! The dispatcher is a plain table: to add a command, write a module with a
//! `fn run(args: &[String]) -> anyhow::Result<()>` and add a row to `COMMANDS`.

mod bench;
mod container_fixtures;
mod diff;
mod dropin;
mod fixtures;
mod toolchain;
mod zebin_fixtures;

use std::process::ExitCode;

/// One `cargo xtask` subcommand.
#[derive(Debug)]
struct Command {
    name: &'static str,
    usage: &'static str,
    summary: &'static str,
    run: fn(&[String]) -> anyhow::Result<()>,
}

const COMMANDS: &[Command] = &[
    Command {
        name: "fixtures",
        usage: "fixtures [--only NAME] [--jobs N]",
        summary: "build tests/fixtures/ (cubins, nvlink outputs, dumps) with NVIDIA's tools",
        run: fixtures::run,
    },
    Command {
        name: "toolchain",
        usage: "toolchain",
        summary: "install (or check) the pinned CUDA toolchains under target/toolchains/",
        run: toolchain::run,
    },
    Command {
        name: "zebin-fixtures",
        usage: "zebin-fixtures [--fetch-sid] [--only bookworm|sid]",
        summary: "build tests/fixtures/zebin/ with Intel's ocloc (bookworm's and sid's)",
        run: zebin_fixtures::run,
    },
    Command {
        name: "container-fixtures",
        usage: "container-fixtures",
        summary: "build tests/fixtures/containers/ (fatbins, host objects, archives) and cuobjdump's oracles",
        run: container_fixtures::run,
    },
    Command {
        name: "diff",
        usage: diff::USAGE,
        summary: "link every fixture link with develf and compare with nvlink's output",
        run: diff::run,
    },
    Command {
        name: "bench",
        usage: bench::USAGE,
        summary: "time develf against nvlink on generated big links and deep call graphs",
        run: bench::run,
    },
    Command {
        name: "dropin",
        usage: dropin::USAGE,
        summary: "build the CUDA programs with nvcc -rdc twice (nvlink, then develf as nvlink) and compare",
        run: dropin::run,
    },
    Command { name: "help", usage: "help", summary: "print this message", run: help },
];

fn help(_args: &[String]) -> anyhow::Result<()> {
    println!("usage: cargo xtask <command> [options]\n\ncommands:");
    for command in COMMANDS {
        println!("  {:<36} {}", command.usage, command.summary);
    }
    println!("\nenvironment:\n  DEVELF_TOOLCHAINS  where toolchains are installed (default: target/toolchains)");
    Ok(())
}

fn main() -> ExitCode {
    let args: Vec<String> = std::env::args().skip(1).collect();
    let Some(name) = args.first() else {
        // No command is not an error worth a failure status when asking for help.
        return match help(&[]) {
            Ok(()) => ExitCode::SUCCESS,
            Err(_) => ExitCode::FAILURE,
        };
    };
    let name = match name.as_str() {
        "-h" | "--help" => "help",
        other => other,
    };
    let Some(command) = COMMANDS.iter().find(|command| command.name == name) else {
        eprintln!("error: unknown command `{name}`; see `cargo xtask help`");
        return ExitCode::from(2);
    };
    match (command.run)(&args[1..]) {
        Ok(()) => ExitCode::SUCCESS,
        Err(error) => {
            eprintln!("error: {error:#}");
            ExitCode::FAILURE
        }
    }
}
