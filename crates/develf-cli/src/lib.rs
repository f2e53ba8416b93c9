//! The `develf` command as a library: the subcommands and the dump models, so
//! tests and other tools can produce exactly what the command prints.

pub mod callgraph_dump;
pub mod commands;
pub mod extract;
pub mod fatbin_cmd;
pub mod input;
pub mod input_file;
pub mod metadata;
pub mod model;
pub mod nvlink_cmd;
pub mod nvlink_demangle;
pub mod output_file;
pub mod ptx_jit;
pub mod resource_report;
pub mod text;
pub mod zebin_dump;
