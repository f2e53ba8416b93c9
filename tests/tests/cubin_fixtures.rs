//! Every committed cubin fixture parses, validates, and dumps the same sections,
//! symbols, relocations and EIATTR names as `cuobjdump -elf` printed for it.
//!
//! The reference dumps were written by NVIDIA's cuobjdump 13.5 when the fixtures
//! were made (`cargo xtask fixtures`); nothing here compares develf with itself.

use develf_cli::model::{self, ModelOptions};
use develf_parse::Cubin;
use develf_tests::cuobjdump::{self, Dump};
use develf_tests::{Fixture, cubin_fixtures};
use serde_json::Value;
use std::collections::BTreeMap;

fn read(f: &Fixture) -> Vec<u8> {
    let path = std::path::Path::new(&f.path);
    let path = if path.is_absolute() { path.to_path_buf() } else { f.full_path() };
    std::fs::read(path).unwrap_or_else(|e| panic!("{}: {e}", f.path))
}

#[test]
fn manifest_lists_every_kind_and_arch() {
    let fixtures = cubin_fixtures();
    let mut counts: BTreeMap<(String, String), usize> = BTreeMap::new();
    for f in &fixtures {
        *counts.entry((f.arch.clone(), f.kind.clone())).or_default() += 1;
        assert!(f.full_path().is_file(), "{} is in the manifest but not on disk", f.path);
    }
    for ((arch, kind), n) in &counts {
        println!("{arch:<8} {kind:<17} {n}");
    }
    for kind in ["object", "linked", "relocatable-link"] {
        assert!(fixtures.iter().any(|f| f.kind == kind), "no {kind} fixtures");
    }
    for arch in ["sm_50", "sm_75", "sm_80", "sm_86", "sm_89", "sm_90", "sm_90a", "sm_100", "sm_100a", "sm_120"] {
        assert!(fixtures.iter().any(|f| f.arch == arch), "no {arch} fixtures");
    }
    assert!(fixtures.iter().any(|f| f.abi == 7) && fixtures.iter().any(|f| f.abi == 8));
}

#[test]
fn every_fixture_parses_and_validates() {
    let mut failures = Vec::new();
    for f in cubin_fixtures() {
        let bytes = read(&f);
        match Cubin::parse(&bytes) {
            Err(d) => failures.push(format!("{}", d.display_with_file(&f.path))),
            Ok(c) => {
                for d in c.validate().as_slice().iter().chain(&develf_cli::metadata::diagnostics(&c)) {
                    failures.push(format!("{}", d.display_with_file(&f.path)));
                }
                let target = c.target().map(|t| t.to_string());
                assert_eq!(target.as_deref(), Some(f.arch.as_str()), "{}: target", f.path);
                assert_eq!(u64::from(c.header().abi_version), f.abi, "{}: ABI version", f.path);
            }
        }
    }
    assert!(failures.is_empty(), "{} problems in tool-made fixtures:\n{}", failures.len(), failures.join("\n"));
}

/// Compares develf's JSON dump of one cubin with cuobjdump's text. Returns the
/// differences found, each as a sentence.
fn compare(f: &Fixture, json: &Value, reference: &Dump) -> Vec<String> {
    let mut diffs = Vec::new();
    let mut diff = |what: String| diffs.push(format!("{}: {what}", f.path));

    let header = &json["header"];
    if header["abi_version"].as_u64() != Some(u64::from(reference.abi)) {
        diff(format!("ABI {} vs cuobjdump {}", header["abi_version"], reference.abi));
    }
    if header["flags"].as_u64() != Some(reference.flags) {
        diff(format!("flags {} vs cuobjdump {:#x}", header["flags"], reference.flags));
    }
    if reference.abi == 8 && header["arch"].as_str() != Some(&format!("sm_{}", reference.sm)) {
        diff(format!("arch {} vs cuobjdump sm={}", header["arch"], reference.sm));
    }

    let sections = json["sections"].as_array().cloned().unwrap_or_default();
    // cuobjdump omits the null section 0.
    if sections.len() != reference.sections.len() + 1 {
        diff(format!("{} sections vs cuobjdump {}", sections.len().saturating_sub(1), reference.sections.len()));
    }
    for r in &reference.sections {
        let Some(s) = sections.get(r.index) else {
            diff(format!("no section {}", r.index));
            continue;
        };
        let ours_type = s["type"].as_u64().unwrap_or(0);
        let type_ok = match (&r.type_name, r.unknown_type) {
            (Some(name), _) => s["type_name"].as_str() == Some(name.as_str()),
            (None, Some(n)) => ours_type == 0x7000_0000 + u64::from(n),
            (None, None) => false,
        };
        let fields = [
            ("name", s["name"].as_str() == Some(r.name.as_str())),
            ("type", type_ok),
            ("size", s["size"].as_u64() == Some(r.size)),
            ("offset", s["offset"].as_u64() == Some(r.offset)),
            ("flags", s["flags"].as_u64() == Some(r.flags)),
            ("link", s["link"].as_u64() == Some(u64::from(r.link))),
            ("info", s["info"].as_u64() == Some(u64::from(r.info))),
            ("align", s["align"].as_u64() == Some(r.align)),
            ("entsize", s["entsize"].as_u64() == Some(r.entsize)),
        ];
        for (field, ok) in fields {
            if !ok {
                diff(format!("section {} {field}: ours {s} vs cuobjdump {r:?}", r.index));
            }
        }
    }

    let symbols = json["symbols"].as_array().cloned().unwrap_or_default();
    if symbols.len() != reference.symbols.len() {
        diff(format!("{} symbols vs cuobjdump {}", symbols.len(), reference.symbols.len()));
    }
    for r in &reference.symbols {
        let Some(s) = symbols.get(r.index) else {
            diff(format!("no symbol {}", r.index));
            continue;
        };
        let other: Vec<&str> =
            s["other_names"].as_array().map(|a| a.iter().filter_map(Value::as_str).collect()).unwrap_or_default();
        let fields = [
            ("name", s["name"].as_str() == Some(r.name.as_str())),
            ("type", s["type_name"].as_str() == Some(r.type_name.as_str())),
            ("bind", s["bind"].as_str() == Some(r.bind.as_str())),
            ("visibility", s["visibility"].as_str() == Some(r.visibility.as_str())),
            ("other", other == r.other),
            ("shndx", s["shndx"].as_u64() == Some(u64::from(r.shndx))),
            ("value", s["value"].as_u64() == Some(r.value)),
            ("size", s["size"].as_u64() == Some(r.size)),
        ];
        for (field, ok) in fields {
            if !ok {
                diff(format!("symbol {} {field}: ours {s} vs cuobjdump {r:?}", r.index));
            }
        }
    }

    let relocations = json["relocations"].as_array().cloned().unwrap_or_default();
    for (section, rows) in &reference.relocations {
        let ours: Vec<&Value> =
            relocations.iter().filter(|r| r["section"].as_str() == Some(section.as_str())).collect();
        if ours.len() != rows.len() {
            diff(format!("{section}: {} relocations vs cuobjdump {}", ours.len(), rows.len()));
            continue;
        }
        // Two relocation sections of one name (a `-r` output with two local
        // copies of `__internal_trig_reduction_slowpathd`: cbrel, cbgrel and
        // their relinks, sm_75/sm_86): cuobjdump looks the section up by name
        // and prints one of them under both headers, so only the counts
        // compare.
        if sections.iter().filter(|s| s["name"].as_str() == Some(section.as_str())).count() > 1 {
            continue;
        }
        for (o, r) in ours.iter().zip(rows) {
            let ok = o["offset"].as_u64() == Some(r.offset)
                && o["type_name"].as_str() == Some(r.type_name.as_str())
                && o["symbol"].as_str() == Some(r.symbol.as_str())
                && r.addend.is_none_or(|a| o["addend"].as_i64() == Some(a));
            if !ok {
                diff(format!("{section}: ours {o} vs cuobjdump {r:?}"));
            }
        }
    }

    let nvinfo = json["nvinfo"].as_array().cloned().unwrap_or_default();
    for (section, rows) in &reference.attributes {
        // cuobjdump's records are keyed by section name, so two sections of one
        // name (rule 1.4: `.nv.info.__popc` of two `-G` inputs, ghelp-G) come
        // as one list; ours are taken the same way, in section order.
        let same_name: Vec<&Value> =
            nvinfo.iter().filter(|s| s["section"].as_str() == Some(section.as_str())).collect();
        let Some(&ours) = same_name.first() else {
            diff(format!("{section}: no records in our dump"));
            continue;
        };
        let records: Vec<Value> =
            same_name.iter().flat_map(|s| s["records"].as_array().cloned().unwrap_or_default()).collect();
        if records.len() != rows.len() {
            diff(format!("{section}: {} records vs cuobjdump {}", records.len(), rows.len()));
            continue;
        }
        for (o, r) in records.iter().zip(rows) {
            // Where cuobjdump says "unknown Attribute", NVIDIA's table has no name;
            // ours may carry a public alias, so compare only named ones by name.
            // cuobjdump 13.5 spells code 0x4f `EIATTR_AT_ENTRY_FRAGMENTS` where
            // nvlink's name array has `EIATTR_AT_ENTRY_FRAGEMENTS` (fixture
            // `tcg`, sm_100a `tcgen05` code: the first record of the code seen).
            fn cuobjdump_spelling(n: &str) -> &str {
                if n == "EIATTR_AT_ENTRY_FRAGEMENTS" { "EIATTR_AT_ENTRY_FRAGMENTS" } else { n }
            }
            let name_ok = match &r.name {
                Some(name) => o["attr_name"].as_str().map(cuobjdump_spelling) == Some(name.as_str()),
                None => {
                    let code = o["attr"].as_u64().unwrap_or(0) as u8;
                    let table = if ours["kind"] == "compat" {
                        develf_format::nvinfo::compat_attribute(code)
                    } else {
                        develf_format::nvinfo::attribute(code)
                    };
                    table.is_none_or(|a| a.name.is_none())
                }
            };
            if !name_ok || o["format_name"].as_str() != Some(r.format.as_str()) {
                diff(format!("{section}: ours {o} vs cuobjdump {r:?}"));
            }
        }
    }
    diffs
}

/// Compares every (cubin, cuobjdump text) pair; prints the agreement share and
/// returns the differences.
fn agreement(pairs: &[(Fixture, std::path::PathBuf)]) -> Vec<String> {
    let mut agreeing = 0;
    let mut problems = Vec::new();
    let mut checked = (0usize, 0usize, 0usize, 0usize);
    for (f, dump_path) in pairs {
        let bytes = read(f);
        let cubin = Cubin::parse(&bytes).unwrap_or_else(|d| panic!("{}: {d}", f.path));
        let json = serde_json::to_value(model::build(&cubin, ModelOptions::default())).expect("dump serialises");
        let text = std::fs::read_to_string(dump_path).unwrap_or_else(|e| panic!("{}: {e}", dump_path.display()));
        let reference = cuobjdump::parse(&text);
        assert!(!reference.sections.is_empty(), "{}: the cuobjdump reader found no sections", f.path);
        checked.0 += reference.sections.len();
        checked.1 += reference.symbols.len();
        checked.2 += reference.relocations.values().map(Vec::len).sum::<usize>();
        checked.3 += reference.attributes.values().map(Vec::len).sum::<usize>();
        let diffs = compare(f, &json, &reference);
        if diffs.is_empty() {
            agreeing += 1;
        }
        problems.extend(diffs);
    }
    println!(
        "dump vs cuobjdump: {agreeing}/{} cubins agree ({:.1}%); checked {} sections, {} symbols, {} relocations, {} EIATTR/EICOMPAT records",
        pairs.len(),
        100.0 * agreeing as f64 / pairs.len().max(1) as f64,
        checked.0,
        checked.1,
        checked.2,
        checked.3
    );
    problems.truncate(40);
    problems
}

#[test]
fn dump_agrees_with_cuobjdump() {
    let pairs: Vec<_> = cubin_fixtures()
        .into_iter()
        .map(|f| {
            let dump = f.cuobjdump_path();
            (f, dump)
        })
        .collect();
    let problems = agreement(&pairs);
    assert!(problems.is_empty(), "differences from cuobjdump:\n{}", problems.join("\n"));
}

/// Cubins no one here wrote: set `DEVELF_EXTRA_CUBINS` to a directory of
/// `X.cubin` files each with `X.cuobjdump.txt` (the output of `cuobjdump -elf X.cubin`),
/// e.g. the cubins `cuobjdump -xelf all` extracts from NVIDIA's libraries.
#[test]
fn extra_cubins_agree_with_cuobjdump() {
    let Ok(dir) = std::env::var("DEVELF_EXTRA_CUBINS") else {
        println!("DEVELF_EXTRA_CUBINS not set; nothing to check");
        return;
    };
    // Relative paths are taken from the workspace root, where a user runs cargo.
    let root = std::path::Path::new(env!("CARGO_MANIFEST_DIR")).join("..");
    let dir = root.join(&dir).display().to_string();
    let entries = std::fs::read_dir(&dir).unwrap_or_else(|e| panic!("{dir}: {e}"));
    let mut paths: Vec<_> = entries.filter_map(Result::ok).map(|e| e.path()).collect();
    paths.sort();
    let mut pairs = Vec::new();
    for path in paths {
        let dump = path.with_extension("cuobjdump.txt");
        if path.extension().is_some_and(|e| e == "cubin") && dump.is_file() {
            let path = path.display().to_string();
            pairs.push((Fixture { path, kind: String::new(), arch: String::new(), abi: 0, inputs: Vec::new() }, dump));
        }
    }
    assert!(!pairs.is_empty(), "{dir}: no X.cubin with X.cuobjdump.txt");
    for (f, _) in &pairs {
        let bytes = read(f);
        let cubin = Cubin::parse(&bytes).unwrap_or_else(|d| panic!("{}: {d}", f.path));
        let errors: Vec<String> =
            cubin.validate().as_slice().iter().filter(|d| d.is_error()).map(|d| d.to_string()).collect();
        assert!(errors.is_empty(), "{}: {errors:?}", f.path);
    }
    let problems = agreement(&pairs);
    assert!(problems.is_empty(), "differences from cuobjdump:\n{}", problems.join("\n"));
}
