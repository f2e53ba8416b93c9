//! develf-fatbin against NVIDIA's tools: extraction against `cuobjdump -xelf all`
//! (names and SHA-256 of every file it wrote), listings against `cuobjdump -lelf`,
//! and the writer against `fatbinary --create` (bytes). The oracles are in
//! `tests/fixtures/containers/`, made by `cargo xtask container-fixtures`.
//!
//! `DEVELF_CUDA_LIB=<dir with libcudadevrt.a>` adds NVIDIA's own library (not
//! committed); cuobjdump is then looked up as `<dir>/../bin/cuobjdump`.

use develf_fatbin::{Codec, Container, ContainerKind, EntryKind, Limits, NewEntry};
use sha2::{Digest, Sha256};
use std::collections::BTreeMap;
use std::fs;
use std::path::{Path, PathBuf};

fn dir() -> PathBuf {
    develf_tests::fixtures_dir().join("containers")
}

fn sha256(bytes: &[u8]) -> String {
    Sha256::digest(bytes).iter().map(|b| format!("{b:02x}")).collect()
}

/// Every container fixture: the files that have a `.xelf.sha256` oracle.
fn fixtures() -> Vec<String> {
    let mut names: Vec<String> = fs::read_dir(dir())
        .expect("tests/fixtures/containers")
        .filter_map(|e| e.ok()?.file_name().into_string().ok())
        .filter_map(|n| n.strip_suffix(".xelf.sha256").map(str::to_string))
        .collect();
    names.sort();
    assert!(names.len() >= 15, "container fixtures missing: run `cargo xtask container-fixtures`");
    names
}

/// `(name, sha256)` lines of an oracle, in cuobjdump's order.
fn oracle(name: &str) -> Vec<(String, String)> {
    let text = fs::read_to_string(dir().join(format!("{name}.xelf.sha256"))).expect("oracle");
    text.lines().filter_map(|l| l.split_once("  ")).map(|(sum, file)| (file.to_string(), sum.to_string())).collect()
}

fn develf_xelf(name: &str, data: &[u8]) -> Vec<(String, String)> {
    develf_fatbin::xelf_files(name, data, &Limits::default())
        .unwrap_or_else(|d| panic!("{name}: {d}"))
        .into_iter()
        .map(|(file, entry)| {
            let bytes = entry.data.unwrap_or_else(|d| panic!("{name}: {file}: {d}"));
            (file, sha256(&bytes))
        })
        .collect()
}

#[test]
fn extraction_matches_cuobjdump_xelf() {
    let mut kinds: BTreeMap<&str, usize> = BTreeMap::new();
    let mut codecs: BTreeMap<&str, usize> = BTreeMap::new();
    let (mut entries, mut elfs) = (0usize, 0usize);
    for name in fixtures() {
        let data = fs::read(dir().join(&name)).expect("fixture");
        let got = develf_xelf(&name, &data);
        let want = oracle(&name);
        if name == "libbsd.a" {
            // cuobjdump 13.5 reads no BSD archive ("does not contain device code");
            // develf does. Same members as libmixed.a, so the same files.
            assert!(want.is_empty(), "cuobjdump learned BSD archives: compare directly");
            let mixed: Vec<_> = oracle("libmixed.a")
                .into_iter()
                .map(|(file, sum)| (file.replacen("libmixed", "libbsd", 1), sum))
                .collect();
            assert_eq!(got, mixed, "libbsd.a against libmixed.a's cuobjdump extraction");
        } else {
            assert_eq!(got, want, "{name}: develf's extraction differs from cuobjdump -xelf all");
        }
        let container = Container::parse(&data).expect("container");
        *kinds.entry(container.kind.name()).or_default() += 1;
        for (_, _, raw) in container.raw_entries() {
            entries += 1;
            *codecs.entry(raw.header.flags.codec().map_or("?", Codec::name)).or_default() += 1;
        }
        elfs += got.len();
    }
    println!("containers by kind: {kinds:?}; stored entries: {entries}; ELF files extracted: {elfs}");
    println!("entries by codec: {codecs:?}");
}

#[test]
fn listing_matches_cuobjdump_lelf() {
    for name in fixtures() {
        let text = fs::read_to_string(dir().join(format!("{name}.cuobjdump-lelf.txt"))).expect("listing");
        let listed: Vec<&str> = text
            .lines()
            .filter_map(|l| l.strip_prefix("ELF file"))
            .filter_map(|r| r.split_once(": "))
            .map(|(_, f)| f.trim())
            .collect();
        let data = fs::read(dir().join(&name)).expect("fixture");
        let ours: Vec<String> = develf_fatbin::xelf_files(&name, &data, &Limits::default())
            .expect("xelf")
            .into_iter()
            .map(|(f, _)| f)
            .collect();
        if name != "libbsd.a" {
            assert_eq!(ours, listed, "{name}");
        }
        // Archive member order and names as cuobjdump prints them.
        let members: Vec<&str> = text
            .lines()
            .filter_map(|l| l.strip_prefix("member "))
            .filter_map(|m| m.trim_end_matches(':').split_once(':'))
            .map(|(_, m)| m)
            .collect();
        if !members.is_empty() {
            let container = Container::parse(&data).expect("container");
            let ours: Vec<&str> =
                container.objects.iter().filter(|o| !o.fatbins.is_empty()).filter_map(|o| o.member).collect();
            assert_eq!(ours, members, "{name}");
        }
    }
}

#[test]
fn containers_have_the_expected_shape() {
    let read = |n: &str| fs::read(dir().join(n)).expect("fixture");
    let exe = read("whole_exe");
    let c = Container::parse(&exe).expect("exe");
    assert_eq!(c.kind, ContainerKind::HostElf);
    assert_eq!(c.objects[0].fatbins.len(), 3, "three fatbins back to back in .nv_fatbin");
    assert!(!c.objects[0].wrappers.is_empty(), ".nvFatBinSegment wrappers");
    let aarch64 = read("aarch64_rdc.o");
    let c = Container::parse(&aarch64).expect("aarch64");
    assert_eq!(c.objects[0].machine, Some(183));
    let concat = read("concat.fatbin");
    let c = Container::parse(&concat).expect("concat");
    assert!(c.raw_entries().any(|(_, _, e)| e.kind() == EntryKind::Concatenated));
    let lto = read("lto_family.o");
    let c = Container::parse(&lto).expect("lto");
    let entries = c.entries(&Limits::default());
    assert!(entries.iter().any(|e| e.kind == EntryKind::LtoIr && e.data.is_err()), "LTO IR is obfuscated");
    assert!(entries.iter().any(|e| e.arch == "sm_100f"));
    let ident = read("ident.fatbin");
    let c = Container::parse(&ident).expect("ident");
    for e in c.entries(&Limits::default()) {
        assert_eq!(e.identifier, Some(&b"kern_ident"[..]));
        assert!(e.flags.has(develf_fatbin::Flags::DEBUG));
        if e.kind == EntryKind::Ptx {
            assert_eq!(e.options, Some(&b"-O3"[..]));
        }
    }
    // The linker's question: relocatable sm_90 ELFs in an -rdc object.
    let rdc = read("kern_all.o");
    let found = develf_fatbin::relocatable_elfs_for(&rdc, 90).expect("rdc");
    assert_eq!(found.len(), 1);
    assert!(found[0].is_relocatable_elf());
}

/// The entries `writer.txt` gives fatbinary, rebuilt with develf.
fn writer_entries(args: &str) -> Vec<NewEntry> {
    let mut entries = Vec::new();
    let mut ident = None;
    let mut cmdline = None;
    let mut debug = false;
    for arg in args.split_whitespace() {
        if let Some(i) = arg.strip_prefix("--ident=") {
            ident = Some(i.to_string());
        } else if let Some(c) = arg.strip_prefix("--cmdline=") {
            cmdline = Some(c.as_bytes().to_vec());
        } else if arg == "-g" {
            debug = true;
        } else if let Some(spec) = arg.strip_prefix("--image3=") {
            let field = |k: &str| spec.split(',').find_map(|f| f.strip_prefix(k)).expect("field").to_string();
            let kind = if field("kind=") == "ptx" { EntryKind::Ptx } else { EntryKind::Elf };
            let sm = field("sm=");
            let (digits, suffix) = match sm.strip_suffix(['a', 'f']) {
                Some(d) => (d.to_string(), sm.chars().last()),
                None => (sm.clone(), None),
            };
            let mut entry =
                NewEntry::new(kind, digits.parse().expect("sm"), fs::read(dir().join(field("file="))).expect("input"));
            entry.suffix = suffix;
            entry.debug = debug;
            entry.identifier.clone_from(&ident);
            if kind == EntryKind::Ptx {
                entry.options.clone_from(&cmdline);
            }
            entries.push(entry);
        }
    }
    entries
}

#[test]
fn writer_matches_fatbinary() {
    let text = fs::read_to_string(dir().join("writer.txt")).expect("writer.txt");
    let mut identical = Vec::new();
    let mut same_content = Vec::new();
    for line in text.lines().filter(|l| !l.starts_with('#')) {
        let Some((name, args)) = line.split_once(": ") else { continue };
        let want = fs::read(dir().join(name)).expect("fatbinary output");
        if args.contains("--concat") {
            continue; // develf does not write concatenated entries
        }
        let compressed = !args.contains("--compress=false");
        let mut entries = writer_entries(args);
        let theirs = Container::parse(&want).expect("theirs");
        let their_entries = theirs.entries(&Limits::default());
        // Use fatbinary's choice of codec per entry (its policy: PTX only by default).
        for (ours, theirs) in entries.iter_mut().zip(&their_entries) {
            ours.codec = theirs.codec;
        }
        let got = develf_fatbin::write_fatbin(&entries).expect("write");
        if !compressed {
            let first = got.iter().zip(&want).position(|(a, b)| a != b);
            assert!(
                got == want,
                "{name}: develf's fatbin ({} bytes) differs from fatbinary's ({} bytes) first at {first:?}",
                got.len(),
                want.len()
            );
            identical.push(name);
            continue;
        }
        // Compressed: same entries and content; the compressed bytes may differ.
        let ours = Container::parse(&got).expect("ours");
        let ours = ours.entries(&Limits::default());
        assert_eq!(ours.len(), their_entries.len(), "{name}");
        for (a, b) in ours.iter().zip(&their_entries) {
            assert_eq!(
                (a.kind, a.sm, &a.arch, a.flags, a.version, a.codec),
                (b.kind, b.sm, &b.arch, b.flags, b.version, b.codec),
                "{name}"
            );
            let (Ok(x), Ok(y)) = (&a.data, &b.data) else {
                // Codecs develf cannot write (LZ4 frame) come back as errors on our side only.
                assert!(a.codec == Codec::Lz4Frame, "{name}: {:?} {:?}", a.data.as_ref().err(), b.data.as_ref().err());
                continue;
            };
            assert_eq!(x, y, "{name}: content");
        }
        same_content.push(name);
    }
    println!("byte-identical to fatbinary: {identical:?}");
    println!("same entries and content, different compressed bytes: {same_content:?}");
    assert!(identical.len() >= 3);
}

/// Cut and flipped fixtures never panic and stay within limits.
#[test]
fn hostile_inputs_do_not_panic() {
    let limits = Limits { max_uncompressed: 1 << 24, ..Limits::default() };
    for name in fixtures() {
        let data = fs::read(dir().join(&name)).expect("fixture");
        let step = (data.len() / 64).max(1);
        for cut in (0..data.len()).step_by(step) {
            let _ = develf_fatbin::device_elfs_with(&data[..cut], &limits);
        }
        let mut flipped = data.clone();
        for i in (0..flipped.len()).step_by(step.max(7)) {
            flipped[i] ^= 0xA5;
            if let Ok(c) = Container::parse(&flipped) {
                let _ = c.entries(&limits);
            }
            flipped[i] ^= 0xA5;
        }
    }
    // A declared size far over the limit is refused before allocating.
    let mut bomb = develf_fatbin::write_fatbin(&[NewEntry {
        codec: Codec::Zstd,
        ..NewEntry::new(EntryKind::Elf, 90, vec![0; 4096])
    }])
    .expect("write");
    bomb[16 + 56..16 + 64].copy_from_slice(&(1u64 << 40).to_le_bytes());
    let c = Container::parse(&bomb).expect("parse");
    let e = c.entries(&Limits::default());
    assert_eq!(e[0].data.as_ref().expect_err("bomb").code, develf_fatbin::codes::DECOMPRESSION_LIMIT);
}

#[test]
fn thin_archives_are_refused() {
    let error = Container::parse(b"!<thin>\n").expect_err("thin");
    assert!(error.message.contains("thin archive"), "{error}");
    assert_eq!(develf_fatbin::sniff(b"!<thin>\n"), Some(ContainerKind::Archive));
}

/// NVIDIA's libcudadevrt.a, when `DEVELF_CUDA_LIB` names its directory.
#[test]
fn libcudadevrt_when_available() {
    let Some(lib) = std::env::var_os("DEVELF_CUDA_LIB") else {
        eprintln!("DEVELF_CUDA_LIB not set: skipping libcudadevrt.a");
        return;
    };
    let lib = PathBuf::from(lib);
    let path = lib.join("libcudadevrt.a");
    let data = fs::read(&path).expect("libcudadevrt.a");
    let got = develf_xelf("libcudadevrt.a", &data);
    assert!(got.len() >= 10, "{got:?}");
    let cuobjdump = lib.join("../bin/cuobjdump");
    if !cuobjdump.exists() {
        eprintln!("no {}: checked decoding only", cuobjdump.display());
        return;
    }
    let out = std::env::temp_dir().join(format!("develf-xelf-{}", std::process::id()));
    fs::create_dir_all(&out).expect("temp dir");
    let status = std::process::Command::new(&cuobjdump)
        .args(["-xelf", "all"])
        .arg(&path)
        .current_dir(&out)
        .output()
        .expect("cuobjdump");
    let want: Vec<(String, String)> = String::from_utf8_lossy(&status.stdout)
        .lines()
        .filter(|l| l.starts_with("Extracting ELF file"))
        .filter_map(|l| l.split_once(": "))
        .map(|(_, f)| (f.to_string(), sha256(&fs::read(Path::new(&out).join(f)).expect("extracted"))))
        .collect();
    let _ = fs::remove_dir_all(&out);
    assert_eq!(got, want);
    println!("libcudadevrt.a: {} ELF entries identical to cuobjdump -xelf all", got.len());
}

/// A linker's choice of device ELFs (`relocatable_elfs_compatible`), which
/// decompresses only the entries of the SM it settles on, is the choice
/// made from every entry decoded (`device_elfs`, checked against cuobjdump
/// above): the same entries, bytes and errors, for every fixture and target.
/// And `Container::entries_where` is `entries` filtered.
#[test]
fn a_linkers_choice_decodes_only_what_it_takes() {
    let targets =
        [(75, false), (80, false), (86, false), (89, false), (90, false), (90, true), (100, false), (100, true)];
    let mut chosen = 0;
    for name in fixtures() {
        let data = fs::read(dir().join(&name)).expect("fixture");
        let Ok(all) = develf_fatbin::device_elfs(&data) else { continue };
        for (sm, accelerator) in targets {
            // The rule, on every entry decoded: the target's SM when it has
            // a usable relocatable ELF, else the newest older one of its
            // family; of that SM the most specific kind.
            let usable = |e: &develf_fatbin::Entry<'_>| {
                (e.data.is_err() || e.is_relocatable_elf()) && develf_fatbin::serves_accelerated(e, sm, accelerator)
            };
            let pick = if all.iter().any(|e| e.sm == sm && usable(e)) {
                Some(sm)
            } else {
                all.iter().filter(|e| usable(e) && e.sm / 10 == sm / 10 && e.sm < sm).map(|e| e.sm).max()
            };
            let picked: Vec<_> = all.iter().filter(|e| Some(e.sm) == pick && usable(e)).collect();
            let rank = |e: &develf_fatbin::Entry<'_>| match e.arch.as_bytes().last() {
                Some(b'a') => 2,
                Some(b'f') => 1,
                _ => 0,
            };
            let best = picked.iter().map(|e| rank(e)).max();
            let expected: Vec<_> = picked.into_iter().filter(|e| Some(rank(e)) == best).collect();
            let ours = develf_fatbin::relocatable_elfs_compatible(&data, sm, accelerator).expect("parses");
            let key =
                |e: &develf_fatbin::Entry<'_>| (e.label.clone(), e.arch.clone(), e.data.as_deref().ok().map(sha256));
            assert_eq!(
                ours.iter().map(key).collect::<Vec<_>>(),
                expected.iter().map(|e| key(e)).collect::<Vec<_>>(),
                "{name} for sm_{sm}{}",
                if accelerator { "a" } else { "" }
            );
            chosen += ours.len();
        }
        if let Ok(container) = Container::parse(&data) {
            let limits = Limits::default();
            let ptx = |kind: EntryKind, sm: u32| kind == EntryKind::Ptx && sm <= 90;
            let filtered: Vec<String> =
                container.entries(&limits).into_iter().filter(|e| ptx(e.kind, e.sm)).map(|e| e.label).collect();
            let direct: Vec<String> = container.entries_where(&limits, &ptx).into_iter().map(|e| e.label).collect();
            assert_eq!(direct, filtered, "{name}: PTX entries up to sm_90");
        }
    }
    assert!(chosen >= 20, "few entries chosen: {chosen}");
}
