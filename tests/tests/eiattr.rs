//! develf-eiattr against the committed fixtures:
//! 1. every metadata section decodes and encodes back to the same bytes;
//! 2. every EIATTR/EICOMPAT value cuobjdump prints agrees with the decoded value
//!    (rendered here the way cuobjdump 13.5 prints it), as do the callgraph and
//!    prototype pairs;
//! 3. the catalogue's EIATTR codes no fixture contains are listed.
//!
//! Run with `cargo test -p develf-tests --test eiattr -- --nocapture` to see the figures.

use develf_eiattr::display::{SymbolInfo, SymbolLookup, SymbolTableView};
use develf_eiattr::{
    Attribute, CallGraph, Compat, CompatAttribute, Metadata, NvInfo, Prototypes, SectionKind, section_kind,
};
use develf_format::nvinfo::{self, ATTRIBUTES, Format};
use develf_parse::Cubin;
use develf_tests::cuobjdump_nvinfo::{DumpBlock, DumpRecord, normalize};
use develf_tests::{Fixture, cubin_fixtures};
use std::collections::{BTreeMap, BTreeSet};

/// The manifest's cubins that exist on disk (all of them once `cargo xtask fixtures` has run).
fn fixtures() -> Vec<Fixture> {
    let all: Vec<Fixture> = cubin_fixtures().into_iter().filter(|f| f.full_path().is_file()).collect();
    assert!(!all.is_empty(), "no fixtures in tests/fixtures/manifest.json");
    all
}

fn read(f: &Fixture) -> Vec<u8> {
    std::fs::read(f.full_path()).unwrap_or_else(|e| panic!("{}: {e}", f.path))
}

fn percent(ok: usize, all: usize) -> f64 {
    if all == 0 { 100.0 } else { 100.0 * ok as f64 / all as f64 }
}

#[test]
fn every_metadata_section_round_trips_byte_identically() {
    // kind -> (identical, total)
    let mut tally: BTreeMap<String, (usize, usize)> = BTreeMap::new();
    let mut failures = Vec::new();
    for f in fixtures() {
        let bytes = read(&f);
        let cubin = Cubin::parse(&bytes).unwrap_or_else(|e| panic!("{}: {e:?}", f.path));
        for s in cubin.sections() {
            let Some(kind) = section_kind(s.name, s.sh_type) else { continue };
            let data = s.bytes();
            let decoded = Metadata::decode(kind, data);
            let same = decoded.encode().is_ok_and(|out| out == data);
            let entry = tally.entry(format!("{kind:?}")).or_default();
            entry.1 += 1;
            if same {
                entry.0 += 1;
            } else {
                failures.push(format!("{} {}", f.path, s.name));
            }
            if let Metadata::Raw { reason, .. } = &decoded {
                if kind != SectionKind::Uft {
                    println!("note: {} {} kept raw: {reason}", f.path, s.name);
                }
            }
        }
    }
    let (ok, all) = tally.values().fold((0, 0), |a, v| (a.0 + v.0, a.1 + v.1));
    for (kind, (ok, all)) in &tally {
        println!("round-trip {kind:<10} {ok}/{all} byte-identical ({:.1}%)", percent(*ok, *all));
    }
    println!("round-trip all metadata sections: {ok}/{all} byte-identical ({:.1}%)", percent(ok, all));
    assert!(failures.is_empty(), "sections that do not round-trip:\n{}", failures.join("\n"));
    for kind in ["NvInfo", "Compat", "CallGraph", "Prototype"] {
        assert!(tally.get(kind).is_some_and(|t| t.1 > 0), "no {kind} section in the fixtures");
    }
}

fn symbols_for<'a>(cubin: &'a Cubin<'a>, link: u32) -> SymbolTableView<'a> {
    let Some(table) = cubin.symbols_for_link(link) else { return SymbolTableView::default() };
    let strtab = cubin
        .sections()
        .get(table.section)
        .and_then(|s| cubin.sections().get(s.link as usize))
        .map(|s| s.bytes())
        .unwrap_or_default();
    let list = table.symbols.iter().map(|s| SymbolInfo { name: s.name, st_type: s.st_type }).collect();
    SymbolTableView::new(list).with_strtab(strtab)
}

fn hexes(words: &[u32]) -> String {
    words.iter().map(|w| format!("{w:#x} ")).collect()
}

fn function(symbols: &dyn SymbolLookup, index: u32) -> String {
    let name = symbols.symbol(index).map(|s| s.name).unwrap_or_default();
    format!("function: {name}({index:#x})")
}

/// How cuobjdump 13.5 prints a decoded EIATTR value, from the typed value alone.
/// `None`: a value whose printing this test does not model.
fn cuobjdump_value(attr: &Attribute, symbols: &dyn SymbolLookup) -> Option<String> {
    use Attribute as A;
    Some(match attr {
        A::Regcount(v) => format!("{}\tregister count: {}", function(symbols, v.function), v.value),
        A::FrameSize(v) => format!("{}\tframe size: {:#x}", function(symbols, v.function), v.value),
        A::MinStackSize(v) => format!("{}\tmin stack size: {:#x}", function(symbols, v.function), v.value),
        A::MaxStackSize(v) => hexes(&[v.function, v.value]),
        A::KparamInfo(k) => format!(
            "Index : {:#x}\tOrdinal : {:#x}\tOffset  : {:#x}\tSize    : {:#x}\n\t\tPointee's logAlignment : {:#x}\tSpace : {:#x}\tcbank : {:#x}\tParameter Space : {}",
            k.index,
            k.ordinal,
            k.offset,
            k.size,
            k.log_alignment,
            k.space,
            k.cbank,
            if k.is_cbank { "CBANK" } else { "SMEM" }
        ),
        A::KparamInfoV2(k) => format!(
            "Index : {:#x}\tOrdinal : {:#x}\tOffset  : {:#x}\tSize    : {:#x}\n\t\tPointee's logAlignment : {:#x}\tSpace : {:#x}",
            k.index, k.ordinal, k.offset, k.size, k.log_alignment, k.space
        ),
        A::Externs(list) => {
            let names: Vec<String> = list
                .0
                .iter()
                .map(|&s| format!("{}({s:#x})", symbols.symbol(s).map(|i| i.name).unwrap_or_default()))
                .collect();
            format!("externs:\t{}", names.join("\t"))
        }
        A::ParamCbank(p) => hexes(&[p.section, u32::from(p.size) << 16 | u32::from(p.offset)]),
        A::MaxThreads(d) | A::Reqntid(d) | A::CtaPerCluster(d) => hexes(&[d.x, d.y, d.z]),
        A::Language(l) => format!("Language:\t {}", l.name().unwrap_or("UNKNOWN")),
        A::IndirectBranchTargets(b) => b
            .0
            .iter()
            .map(|e| {
                let kind = if e.kind == 1 { " (kind_call)" } else { "" };
                let targets =
                    if e.targets.is_empty() { String::new() } else { format!("\t\tTargets: {}", hexes(&e.targets)) };
                format!(
                    "\t\tOffset of Indirect Branch: {:#x}{kind}\t Number of targets: {}\n{targets}\n",
                    e.offset,
                    e.targets.len()
                )
            })
            .collect(),
        // Code 0x4f, an SVAL word: 6 is printed as below (fixture `tcg`,
        // sm_100a `tcgen05.alloc`); no other value seen.
        A::Raw(r) if r.code == nvinfo::EIATTR_AT_ENTRY_FRAGEMENTS && r.payload == [6, 0, 0, 0] => {
            "At Entry Fragments :\t AT_ENTRY_FRAGMENT_TMEM_CTA1_V2".to_string()
        }
        A::MbarrierInstrOffsets(m) => {
            m.0.iter()
                .map(|e| {
                    let immediate = if e.immediate == 0 { String::new() } else { format!(" + {}", e.immediate) };
                    format!(
                        "{:#x} : Instruction Kind : {} (R{} + UR{}{immediate}) Stride : {} ",
                        e.offset,
                        e.kind_name().unwrap_or("?"),
                        e.register,
                        e.uniform_register(),
                        e.stride_name().unwrap_or("?")
                    )
                })
                .collect()
        }
        A::ExitInstrOffsets(w)
        | A::S2rctaidInstrOffsets(w)
        | A::LdCachemodInstrOffsets(w)
        | A::AtomSysInstrOffsets(w)
        | A::CoopGroupInstrOffsets(w)
        | A::CoopGroupMaskRegids(w)
        | A::InstrRegMap(w)
        | A::IntWarpWideInstrOffsets(w) => hexes(&w.0),
        A::UnusedLoadByteOffset(m) => {
            m.0.iter().map(|(offset, mask)| format!("{offset:#x} {mask:#x}")).collect::<Vec<_>>().join(" ")
        }
        A::Atom16EmulInstrRegMap(m) => {
            m.0.iter().map(|(offset, register)| format!("({offset:#x}, {register})")).collect::<Vec<_>>().join(" ")
        }
        A::CrsStackSize(w) | A::SwWar(w) | A::CudaApiVersion(w) | A::MaxClusterRank(w) => hexes(&[w.0]),
        A::BindlessTextureBank(v)
        | A::BindlessSurfaceBank(v)
        | A::VrcCtaInitCount(v)
        | A::NumBarriers(v)
        | A::PreexitUsed(v) => format!("{:#x}", v.0),
        A::CbankParamSize(v) | A::MaxregCount(v) | A::SparseMmaMask(v) | A::MercuryIsaVersion(v) | A::NvsalSwWar(v) => {
            format!("{:#x}", v.0)
        }
        A::Raw(r) if r.format == Format::Bval as u8 || r.format == Format::Hval as u8 => format!("{:#x}", r.value),
        // (kind, offset) u32 pairs; kind 1 is a spill/refill instruction
        // (ptxas -maxrregcount=24 spilling fresh2's `tl_poly<double>`).
        A::Annotations(b) => {
            let words: Vec<u32> = b.0.chunks_exact(4).map(|c| u32::from_le_bytes([c[0], c[1], c[2], c[3]])).collect();
            if b.0.len() % 8 != 0 || words.chunks(2).any(|p| p[0] != 1) {
                return None;
            }
            words.chunks(2).map(|p| format!("SpillRefill : Offset : {:#x}", p[1])).collect::<Vec<_>>().join(" ")
        }
        _ => return None,
    })
}

fn cuobjdump_compat_value(attr: &CompatAttribute) -> Option<String> {
    use CompatAttribute as C;
    Some(match attr {
        C::IsaClass(v) | C::InstTensormapV1(v) | C::InstTcgen05Mma(v) | C::CudaAcceleratorTarget(v) => {
            format!("{:#x}", v.0)
        }
        C::CudaInternalTarget(v) => format!("{:#x}", v.0),
        C::Unnamed7(v) | C::Unnamed13(v) => format!("{:#x}", v.0),
        C::CanFastpathFinalize(w) => hexes(&w.0),
        C::FinalizerVersion(v) => match v.parts() {
            Some((a, b, c)) => format!("{a}.{b}.{c}"),
            None => "UNKNOWN".to_string(),
        },
        C::Raw(r) if r.format == Format::Bval as u8 || r.format == Format::Hval as u8 => format!("{:#x}", r.value),
        C::Raw(_) => return None,
    })
}

#[derive(Default)]
struct Agreement {
    compared: usize,
    agreed: usize,
    unmodelled: usize,
    mismatches: Vec<String>,
}

impl Agreement {
    fn check(&mut self, label: &str, dump: &DumpRecord, name: &str, format: u8, value: Option<String>) {
        let format_name = Format::from_u8(format).map(Format::name).unwrap_or("?");
        // cuobjdump 13.5 spells code 0x4f `EIATTR_AT_ENTRY_FRAGMENTS` where
        // nvlink's name array has `EIATTR_AT_ENTRY_FRAGEMENTS` (fixture `tcg`).
        let cuobjdump_name = if name == "EIATTR_AT_ENTRY_FRAGEMENTS" { "EIATTR_AT_ENTRY_FRAGMENTS" } else { name };
        if dump.attribute != cuobjdump_name || dump.format != format_name {
            self.mismatches
                .push(format!("{label}: cuobjdump {} {}, decoded {name} {format_name}", dump.attribute, dump.format));
        }
        let Some(printed) = &dump.value else { return };
        let Some(mine) = value else {
            self.unmodelled += 1;
            self.mismatches.push(format!("{label}: {name}: no model for cuobjdump's `{}`", normalize(printed)));
            return;
        };
        self.compared += 1;
        if normalize(printed) == normalize(&mine) {
            self.agreed += 1;
        } else {
            self.mismatches.push(format!(
                "{label}: {name}: cuobjdump `{}`, decoded `{}`",
                normalize(printed),
                normalize(&mine)
            ));
        }
    }
}

#[test]
fn decoded_values_agree_with_cuobjdump() {
    let mut records = Agreement::default();
    let mut pairs = Agreement::default();
    let mut dumps_read = 0;
    for f in fixtures() {
        let Ok(text) = std::fs::read_to_string(f.cuobjdump_path()) else { continue };
        dumps_read += 1;
        // Same-named sections (each input's local helper's
        // `.nv.info.__cuda_sm20_dsqrt_rn_f64_mediumpath_v1` in a `-r` output)
        // pair up in section order.
        let mut blocks: BTreeMap<String, Vec<DumpBlock>> = BTreeMap::new();
        for b in develf_tests::cuobjdump_nvinfo::parse(&text) {
            blocks.entry(b.name.clone()).or_default().push(b);
        }
        let mut met: BTreeMap<&str, usize> = BTreeMap::new();
        let bytes = read(&f);
        let cubin = Cubin::parse(&bytes).unwrap_or_else(|e| panic!("{}: {e:?}", f.path));
        for s in cubin.sections() {
            let Some(kind) = section_kind(s.name, s.sh_type) else { continue };
            let nth = met.entry(s.name).or_default();
            let Some(block) = blocks.get(s.name).and_then(|list| list.get(*nth)) else { continue };
            *nth += 1;
            let symbols = symbols_for(&cubin, s.link);
            let label = format!("{} {}", f.path, s.name);
            match kind {
                SectionKind::NvInfo => {
                    let info = NvInfo::decode(s.bytes());
                    if info.records.len() != block.records.len() {
                        records.mismatches.push(format!(
                            "{label}: cuobjdump prints {} records, decoded {}",
                            block.records.len(),
                            info.records.len()
                        ));
                    }
                    for (r, d) in info.records.iter().zip(&block.records) {
                        // cuobjdump names exactly the codes nvlink's table names.
                        let name = develf_format::nvinfo::attribute(r.attribute.code())
                            .and_then(|a| a.name)
                            .unwrap_or("unknown Attribute");
                        let value = cuobjdump_value(&r.attribute, &symbols);
                        records.check(&label, d, name, r.attribute.format(), value);
                    }
                }
                SectionKind::Compat => {
                    let compat = Compat::decode(s.bytes());
                    for (r, d) in compat.records.iter().zip(&block.records) {
                        let name = r.attribute.name().unwrap_or("unknown Attribute");
                        records.check(&label, d, name, r.attribute.format(), cuobjdump_compat_value(&r.attribute));
                    }
                }
                SectionKind::CallGraph => {
                    let Ok(graph) = CallGraph::decode(s.bytes()) else {
                        pairs.mismatches.push(format!("{label}: call graph did not decode"));
                        continue;
                    };
                    let mut mine = Vec::new();
                    let blocks = [&graph.calls, &graph.address_taken, &graph.indirect_calls, &graph.address_of];
                    for (i, list) in (1..).zip(blocks) {
                        mine.push(format!("0,-{i}"));
                        mine.extend(list.iter().map(|p| format!("{},{}", p.0, p.1)));
                    }
                    compare_pairs(&mut pairs, &label, &block.pairs, &mine);
                }
                SectionKind::Prototype => {
                    let Some(protos) = Prototypes::decode(s.bytes()) else {
                        pairs.mismatches.push(format!("{label}: prototypes did not decode"));
                        continue;
                    };
                    let mine: Vec<String> = protos
                        .0
                        .iter()
                        .map(|p| {
                            format!("{},{}({})", p.symbol, p.signature, symbols.string(p.signature).unwrap_or("?"))
                        })
                        .collect();
                    compare_pairs(&mut pairs, &label, &block.pairs, &mine);
                }
                _ => {}
            }
        }
    }
    println!(
        "EIATTR/EICOMPAT values agreeing with cuobjdump -elf: {}/{} ({:.1}%) over {dumps_read} dumps; {} printed values not modelled",
        records.agreed,
        records.compared,
        percent(records.agreed, records.compared),
        records.unmodelled
    );
    println!(
        "callgraph/prototype entries agreeing with cuobjdump -elf: {}/{} ({:.1}%)",
        pairs.agreed,
        pairs.compared,
        percent(pairs.agreed, pairs.compared)
    );
    assert!(dumps_read > 0, "no cuobjdump dumps next to the fixtures");
    assert!(records.compared > 0);
    let all: Vec<_> = records.mismatches.iter().chain(&pairs.mismatches).take(40).cloned().collect();
    assert!(all.is_empty(), "disagreements with cuobjdump:\n{}", all.join("\n"));
}

fn compare_pairs(tally: &mut Agreement, label: &str, printed: &[String], mine: &[String]) {
    if printed.len() != mine.len() {
        tally.mismatches.push(format!("{label}: cuobjdump prints {} entries, decoded {}", printed.len(), mine.len()));
    }
    for (p, m) in printed.iter().zip(mine) {
        tally.compared += 1;
        if p == m {
            tally.agreed += 1;
        } else {
            tally.mismatches.push(format!("{label}: cuobjdump <{p}>, decoded <{m}>"));
        }
    }
}

#[test]
fn catalogue_codes_missing_from_fixtures() {
    let mut seen = BTreeSet::new();
    let mut raw_known = BTreeMap::<String, usize>::new();
    for f in fixtures() {
        let bytes = read(&f);
        let Ok(cubin) = Cubin::parse(&bytes) else { continue };
        for s in cubin.sections() {
            if section_kind(s.name, s.sh_type) != Some(SectionKind::NvInfo) {
                continue;
            }
            for r in NvInfo::decode(s.bytes()).records {
                seen.insert(r.attribute.code());
                if let Attribute::Raw(raw) = &r.attribute {
                    *raw_known
                        .entry(format!("{:#04x}/fmt{}/{}B", raw.code, raw.format, raw.payload.len()))
                        .or_default() += 1;
                }
            }
        }
    }
    let missing: Vec<String> = ATTRIBUTES
        .iter()
        .filter(|a| a.display_name().is_some() && !seen.contains(&a.code))
        .map(|a| format!("{:#04x} {}", a.code, a.display_name().unwrap_or_default()))
        .collect();
    let seen_list: Vec<String> = seen.iter().map(|c| format!("{c:#04x}")).collect();
    println!("EIATTR codes seen in the fixtures ({}): {}", seen.len(), seen_list.join(" "));
    println!("records kept raw (code/format/size: count): {raw_known:?}");
    println!("catalogue EIATTR codes no fixture contains ({}):", missing.len());
    for m in &missing {
        println!("  {m}");
    }
    assert!(!seen.is_empty());
}
