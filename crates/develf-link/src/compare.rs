//! Semantic comparison of two cubins (develf's output against nvlink's): the
//! same sections by name with equal headers and contents, the same symbols,
//! relocations and program headers, and equal decoded metadata with symbol
//! indices compared by the names they resolve to. Used by the fixture test and
//! by `cargo xtask diff`.

use develf_eiattr::{Metadata, section_kind};
use develf_parse::Cubin;
use develf_parse::elf::{Section, string_at};
use std::collections::{BTreeMap, HashMap};

/// The result of [`compare`].
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct Comparison {
    pub byte_identical: bool,
    /// Every difference found, most basic first; empty when semantically equal.
    pub semantic_differences: Vec<String>,
}

impl Comparison {
    pub fn semantically_equal(&self) -> bool {
        self.semantic_differences.is_empty()
    }
}

const SHT_SYMTAB: u32 = 2;
const SHT_STRTAB: u32 = 3;
const SHF_INFO_LINK: u64 = 0x40;

/// Names shared by both files, so indices compare by what they mean.
#[derive(Default)]
struct Interner(HashMap<String, u32>);

impl Interner {
    fn id(&mut self, name: &str) -> u32 {
        let next = u32::try_from(self.0.len() + 1).unwrap_or(u32::MAX);
        *self.0.entry(name.to_string()).or_insert(next)
    }
}

struct View<'a> {
    cubin: Cubin<'a>,
}

impl<'a> View<'a> {
    fn section_name(&self, index: usize) -> String {
        self.cubin.sections().get(index).map_or_else(|| format!("#{index}"), |s| s.name.to_string())
    }

    /// The name a symbol index stands for: its name, or its section's for STT_SECTION.
    fn symbol_name(&self, index: usize) -> String {
        match self.cubin.symbols().get(index) {
            Some(s) if s.st_type == 3 => {
                format!("[section {}]", s.section_index().map(|i| self.section_name(i)).unwrap_or_default())
            }
            Some(s) => s.name.to_string(),
            None => format!("<symbol #{index}>"),
        }
    }

    fn string(&self, offset: u32) -> String {
        let strtab = self.cubin.symtab().and_then(|t| self.cubin.sections().get(t.section)).map(|s| s.link as usize);
        strtab
            .and_then(|i| self.cubin.sections().get(i))
            .and_then(|s| s.data)
            .and_then(|d| string_at(d, offset))
            .map_or_else(|| format!("<string {offset:#x}>"), str::to_string)
    }

    /// Metadata with symbol indices and string offsets replaced by interned names.
    fn metadata(&self, s: &Section<'_>, names: &mut Interner) -> Option<Metadata> {
        let kind = section_kind(s.name, s.sh_type)?;
        let mut m = Metadata::decode(kind, s.bytes());
        let mut symbol_ids: HashMap<u32, u32> = HashMap::new();
        let mut collect = Vec::new();
        m.visit_symbols_mut(&mut |i| collect.push(*i));
        for i in collect {
            let id = names.id(&self.symbol_name(i as usize));
            symbol_ids.insert(i, id);
        }
        m.visit_symbols_mut(&mut |i| *i = symbol_ids.get(i).copied().unwrap_or(u32::MAX));
        match &mut m {
            Metadata::Prototypes(p) => {
                for e in &mut p.0 {
                    e.signature = names.id(&self.string(e.signature));
                }
            }
            Metadata::CallGraph(g) => {
                for p in g.address_taken.iter_mut().chain(g.indirect_calls.iter_mut()) {
                    p.1 = names.id(&self.string(p.1));
                }
            }
            _ => {}
        }
        Some(m)
    }

    fn relocations(&self, index: usize) -> Vec<(u64, u32, String, Option<i64>)> {
        let Some(rs) = self.cubin.relocation_section(index) else { return Vec::new() };
        let table = self.cubin.symbols_for_link(rs.symtab);
        let mut list: Vec<_> = rs
            .entries()
            .map(|r| {
                let name = match table.as_ref().and_then(|t| t.symbols.get(r.symbol as usize)) {
                    Some(s) if s.st_type == 3 => {
                        format!("[section {}]", s.section_index().map(|i| self.section_name(i)).unwrap_or_default())
                    }
                    Some(s) => s.name.to_string(),
                    None => format!("<symbol #{}>", r.symbol),
                };
                (r.offset, r.r_type, name, r.addend)
            })
            .collect();
        list.sort();
        list
    }

    fn symbols(&self) -> Vec<String> {
        let mut list: Vec<String> = self
            .cubin
            .symbols()
            .iter()
            .skip(1)
            .map(|s| {
                let section =
                    s.section_index().map(|i| self.section_name(i)).unwrap_or_else(|| format!("shndx {}", s.raw_shndx));
                let name = if s.st_type == 3 { format!("[section {section}]") } else { s.name.to_string() };
                format!(
                    "{name} type={} bind={} other={:#x} section={section} value={:#x} size={:#x}",
                    s.st_type, s.bind, s.other, s.value, s.size
                )
            })
            .collect();
        list.sort();
        list
    }
}

fn first_difference<T: PartialEq + std::fmt::Debug>(a: &[T], b: &[T]) -> String {
    let at = a.iter().zip(b).position(|(x, y)| x != y).unwrap_or(a.len().min(b.len()));
    format!("ours[{at}] = {:?}, nvlink[{at}] = {:?} ({} vs {} entries)", a.get(at), b.get(at), a.len(), b.len())
}

/// Compares develf's output `ours` with nvlink's `theirs`.
pub fn compare(ours: &[u8], theirs: &[u8]) -> Comparison {
    let byte_identical = ours == theirs;
    let mut diffs = Vec::new();
    if byte_identical {
        return Comparison { byte_identical, semantic_differences: diffs };
    }
    let (a, b) = match (Cubin::parse(ours), Cubin::parse(theirs)) {
        (Ok(a), Ok(b)) => (View { cubin: a }, View { cubin: b }),
        (Err(e), _) => {
            diffs.push(format!("ours does not parse: {e}"));
            return Comparison { byte_identical, semantic_differences: diffs };
        }
        (_, Err(e)) => {
            diffs.push(format!("nvlink's does not parse: {e}"));
            return Comparison { byte_identical, semantic_differences: diffs };
        }
    };
    let (ha, hb) = (a.cubin.header(), b.cubin.header());
    let header = |h: &develf_parse::elf::Header| (h.e_type, h.machine, h.osabi, h.abi_version, h.flags & 0x00ff_ffff);
    if header(ha) != header(hb) {
        diffs.push(format!(
            "ELF header (type, machine, osabi, abi, e_flags low 24 bits): ours {:?}, nvlink {:?}",
            header(ha),
            header(hb)
        ));
    }

    // Sections by name.
    let by_name = |v: &View<'_>| -> BTreeMap<String, usize> {
        v.cubin.sections().iter().skip(1).map(|s| (s.name.to_string(), s.index)).collect()
    };
    let (na, nb) = (by_name(&a), by_name(&b));
    for name in nb.keys().filter(|n| !na.contains_key(*n)) {
        diffs.push(format!("section {name}: missing in ours"));
    }
    for name in na.keys().filter(|n| !nb.contains_key(*n)) {
        diffs.push(format!("section {name}: extra in ours"));
    }
    let mut names = Interner::default();
    for (name, &ia) in &na {
        let Some(&ib) = nb.get(name) else { continue };
        let (Some(sa), Some(sb)) = (a.cubin.sections().get(ia), b.cubin.sections().get(ib)) else { continue };
        let fields = |v: &View<'_>, s: &Section<'_>| {
            let info = if s.flags & SHF_INFO_LINK != 0 || develf_format::section::is_relocation_type(s.sh_type) {
                v.section_name(s.info as usize)
            } else if s.sh_type == SHT_SYMTAB || name.starts_with(".text.") {
                // symtab: number of locals; text: register byte (the symbol is compared with symbols).
                format!("{:#x}", if s.sh_type == SHT_SYMTAB { s.info } else { s.info & 0xff00_0000 })
            } else if name == ".note.nv.cuinfo" {
                if s.info == 0 { "0".to_string() } else { v.section_name(s.info as usize) }
            } else {
                format!("{:#x}", s.info)
            };
            let link = if s.link == 0 { String::new() } else { v.section_name(s.link as usize) };
            (s.sh_type, s.flags, s.addralign, s.entsize, s.size, link, info)
        };
        let (fa, fb) = (fields(&a, sa), fields(&b, sb));
        if fa != fb {
            diffs.push(format!(
                "section {name}: header (type, flags, align, entsize, size, link, info) ours {fa:?}, nvlink {fb:?}"
            ));
        }
        if matches!(sa.sh_type, SHT_SYMTAB | SHT_STRTAB) {
            continue;
        }
        if develf_format::section::is_relocation_type(sa.sh_type) {
            let (ra, rb) = (a.relocations(ia), b.relocations(ib));
            if ra != rb {
                diffs.push(format!("section {name}: relocations differ: {}", first_difference(&ra, &rb)));
            }
            continue;
        }
        match (a.metadata(sa, &mut names), b.metadata(sb, &mut names)) {
            (Some(ma), Some(mb)) => {
                if ma != mb {
                    diffs.push(format!("section {name}: decoded metadata differs: ours {ma:?}, nvlink {mb:?}"));
                }
            }
            _ => {
                if sa.bytes() != sb.bytes() {
                    let at = sa.bytes().iter().zip(sb.bytes()).position(|(x, y)| x != y).unwrap_or(0);
                    diffs.push(format!("section {name}: contents differ (first at byte {at:#x})"));
                }
            }
        }
    }

    let (sa, sb) = (a.symbols(), b.symbols());
    if sa != sb {
        let only_a: Vec<&String> = sa.iter().filter(|s| !sb.contains(s)).take(3).collect();
        let only_b: Vec<&String> = sb.iter().filter(|s| !sa.contains(s)).take(3).collect();
        diffs.push(format!("symbols differ: only ours {only_a:?}, only nvlink {only_b:?}"));
    }
    let phdrs = |v: &View<'_>| -> Vec<(u32, u32, u64, u64, u64)> {
        v.cubin.segments().iter().map(|p| (p.p_type, p.flags, p.filesz, p.memsz, p.align)).collect()
    };
    let (pa, pb) = (phdrs(&a), phdrs(&b));
    if pa != pb {
        diffs.push(format!("program headers (type, flags, filesz, memsz, align) differ: ours {pa:?}, nvlink {pb:?}"));
    }
    if diffs.is_empty() {
        // Same meaning, different bytes: say where, for the byte-identity work.
        let at = ours.iter().zip(theirs).position(|(x, y)| x != y).unwrap_or(ours.len().min(theirs.len()));
        let _ = at;
    }
    Comparison { byte_identical, semantic_differences: diffs }
}
