//! `develf fatbin create`: write a fatbin from cubins and PTX with
//! `fatbinary --create`'s options, and [`listing`], the container table that
//! `develf dump` and `develf validate` print before the device ELFs inside.

use develf_fatbin::{Codec, Container, EntryKind, Limits, NewEntry};
use std::fmt::Write as _;
use std::path::PathBuf;
use std::process::ExitCode;

/// Options of `develf fatbin create`, named after `fatbinary`'s.
#[derive(Debug, Clone, Default, clap::Args)]
pub struct CreateArgs {
    /// The fatbin to write (`--create FILE`).
    #[arg(long = "create", value_name = "FILE")]
    pub output: PathBuf,
    /// `kind=elf|ptx,sm=90[a|f],file=PATH`; repeat for each entry, in order.
    #[arg(long = "image3", value_name = "SPEC", required = true)]
    pub images: Vec<String>,
    /// Compress PTX entries (`--compress true|false`, default true).
    #[arg(long, default_value_t = true, action = clap::ArgAction::Set, value_name = "BOOL")]
    pub compress: bool,
    /// Compress every entry, small ones and ELF too.
    #[arg(long)]
    pub compress_all: bool,
    /// `default`, `size`, `balance`, `speed` (LZ4) or `none`, as fatbinary takes them.
    #[arg(long, value_name = "MODE")]
    pub compress_mode: Option<String>,
    /// An identifier stored with each entry.
    #[arg(long, value_name = "NAME")]
    pub ident: Option<String>,
    /// The ptxas options recorded with PTX entries.
    #[arg(long, value_name = "OPTIONS")]
    pub cmdline: Option<String>,
    /// Mark entries as debug builds.
    #[arg(short = 'g', long)]
    pub debug: bool,
}

/// One `kind=..,sm=..,file=..` image spec, read into an entry.
fn parse_image(spec: &str, args: &CreateArgs, codec: Codec) -> Result<NewEntry, String> {
    let field = |key: &str| spec.split(',').find_map(|f| f.strip_prefix(key).and_then(|r| r.strip_prefix('=')));
    let kind = match field("kind") {
        Some("elf") => EntryKind::Elf,
        Some("ptx") => EntryKind::Ptx,
        Some(other) => return Err(format!("image `{spec}`: kind `{other}` (develf writes elf and ptx)")),
        None => return Err(format!("image `{spec}`: no kind=")),
    };
    let sm = field("sm").ok_or_else(|| format!("image `{spec}`: no sm="))?;
    let sm = sm.strip_prefix("sm_").unwrap_or(sm);
    let (digits, suffix) = match sm.strip_suffix(['a', 'f']) {
        Some(d) => (d, sm.chars().last()),
        None => (sm, None),
    };
    let sm: u32 = digits.parse().map_err(|_| format!("image `{spec}`: sm `{sm}` is not a number"))?;
    let file = field("file").ok_or_else(|| format!("image `{spec}`: no file="))?;
    let data = std::fs::read(file).map_err(|e| format!("{file}: {e}"))?;
    let mut entry = NewEntry::new(kind, sm, data);
    entry.suffix = suffix;
    entry.debug = args.debug;
    entry.identifier.clone_from(&args.ident);
    if kind == EntryKind::Ptx {
        entry.options = args.cmdline.as_ref().map(|c| c.as_bytes().to_vec());
    }
    // fatbinary's policy: with compression on, PTX is compressed; ELF only with --compress-all.
    let compressed = args.compress_all || (args.compress && kind == EntryKind::Ptx);
    entry.codec = if compressed { codec } else { Codec::None };
    Ok(entry)
}

/// `develf fatbin create`.
pub fn create(args: &CreateArgs) -> ExitCode {
    let codec = match args.compress_mode.as_deref() {
        None | Some("default" | "size" | "balance") => Codec::Zstd,
        Some("speed") => Codec::Lz4Block,
        Some("none") => Codec::None,
        Some(other) => {
            eprintln!("error: --compress-mode `{other}`: expected default, size, balance, speed or none");
            return ExitCode::from(2);
        }
    };
    let mut entries = Vec::new();
    for spec in &args.images {
        match parse_image(spec, args, codec) {
            Ok(e) => entries.push(e),
            Err(message) => {
                eprintln!("error: {message}");
                return ExitCode::from(2);
            }
        }
    }
    let bytes = match develf_fatbin::write_fatbin(&entries) {
        Ok(b) => b,
        Err(d) => {
            eprintln!("{}", d.display_with_file(&args.output.display().to_string()));
            return ExitCode::FAILURE;
        }
    };
    // A failure leaves no partial file.
    if let Err(e) = crate::output_file::write_atomically(&args.output, &bytes) {
        eprintln!("{}: {e}", args.output.display());
        return ExitCode::FAILURE;
    }
    ExitCode::SUCCESS
}

/// The container table of a fatbin, host object or archive: its objects,
/// fatbins and entries (kind, arch, code version, codec, sizes, identifier,
/// options), then the problems found. `None` when `data` is not a container.
pub fn listing(label: &str, data: &[u8]) -> Option<String> {
    develf_fatbin::sniff(data)?;
    let mut out = String::new();
    let container = match Container::parse(data) {
        Ok(c) => c,
        Err(d) => return Some(format!("{}\n", d.display_with_file(label))),
    };
    let _ = writeln!(out, "File: {label} ({})", container.kind.name());
    for object in &container.objects {
        if let Some(member) = object.member {
            let _ = writeln!(out, "  member {member}");
        }
        if let Some(machine) = object.machine {
            let _ = writeln!(out, "    host e_machine {machine}, {} wrapper(s)", object.wrappers.len());
        }
        for (i, site) in object.fatbins.iter().enumerate() {
            let f = &site.fatbin;
            let _ = writeln!(
                out,
                "    fatbin {i} at {:#x}{}: version {}, {} bytes, {} entries",
                f.offset,
                site.section.map(|s| format!(" in {s}")).unwrap_or_default(),
                f.header.version,
                f.header.size,
                f.entries.len()
            );
            for raw in &f.entries {
                let h = &raw.header;
                let codec = h.flags.codec().map_or("?", Codec::name);
                let _ = write!(
                    out,
                    "      {:<7} {:<8} [{},{}] {:<9} flags {:#x} header {} stored {}",
                    raw.kind().name(),
                    h.arch_name(),
                    h.major,
                    h.minor,
                    codec,
                    h.flags.0,
                    h.header_size,
                    h.payload_size
                );
                if h.uncompressed_size != 0 {
                    let _ = write!(out, " -> {}", h.uncompressed_size);
                }
                if let Some(ident) = raw.identifier() {
                    let _ = write!(out, " ident {:?}", String::from_utf8_lossy(ident));
                }
                if let Some(options) = raw.options().filter(|o| !o.is_empty()) {
                    if raw.kind() == EntryKind::Ptx || raw.kind() == EntryKind::LtoIr {
                        let _ = write!(out, " options {:?}", String::from_utf8_lossy(options));
                    } else {
                        let _ = write!(out, " compat {} bytes", options.len());
                    }
                }
                out.push('\n');
            }
        }
    }
    for d in &container.diagnostics {
        let _ = writeln!(out, "{}", d.display_with_file(label));
    }
    for entry in container.entries(&Limits::default()) {
        if let Err(d) = &entry.data {
            let _ = writeln!(out, "{}", d.display_with_file(&format!("{label}: {}", entry.label)));
        }
    }
    Some(out)
}
