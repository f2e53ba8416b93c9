//! Phase 1: read every input (in parallel), check that it is a relocatable
//! cubin for a compatible architecture.

use crate::body::PieceBytes;
use crate::error::LinkError;
use crate::options::{CodeSource, Input, LinkOptions};
use develf_format::header::{ABI_VERSION_7, Arch, EM_CUDA};
use develf_format::section::{SHT_CUDA_INFO, SHT_CUDA_MERCURY_INFO, occupies_file};
use develf_format::symbol::{STB_WEAK, STT_CUDA_OBJECT, STT_FUNC, STT_OBJECT};
use develf_parse::Cubin;
use develf_parse::elf::{Class, Section, Symbol};
use rayon::prelude::*;

/// `ET_REL`: the only kind of object nvlink links.
const ET_REL: u16 = 1;

/// One parsed input, in command-line position `index`.
#[derive(Debug)]
pub(crate) struct InputObject<'a> {
    pub index: usize,
    pub name: &'a str,
    pub cubin: Cubin<'a>,
    /// An ABI-7 object (ptxas 12.x layout): no tkinfo note, `.rel` relocations,
    /// its e_flags do not contribute to the output's (rules 3.4, 10).
    pub abi7: bool,
    /// Where code sections' bytes are read from when the input's bytes do
    /// not hold them ([`Input::code`]).
    code: Option<&'a dyn CodeSource>,
    /// Per section: the first STT_FUNC symbol defined in it (the function a
    /// `.text.<fn>` holds). Built once so later phases do not scan the symtab.
    function_in: FirstOf<u32>,
    /// Per (section described, merc copy): the first `.nv.info.<fn>` /
    /// `.nv.merc.nv.info.<fn>` about it (sh_info = the `.text.<fn>`).
    info_about: FirstOf<(u32, bool)>,
    /// Weak symbols defined in a section that are not functions (vtables,
    /// template statics): the only ones a losing copy's bytes can hold (rule 9).
    weak_data: Vec<usize>,
}

impl<'a> InputObject<'a> {
    pub fn sections(&self) -> &[Section<'a>] {
        self.cubin.sections()
    }

    pub fn section(&self, index: usize) -> Option<&Section<'a>> {
        self.cubin.sections().get(index)
    }

    pub fn symbols(&self) -> &[Symbol<'a>] {
        self.cubin.symbols()
    }

    pub fn symbol(&self, index: usize) -> Option<&Symbol<'a>> {
        self.cubin.symbols().get(index)
    }

    /// The first function symbol defined in section `section`.
    pub fn function_in(&self, section: usize) -> Option<usize> {
        self.function_in.get(u32::try_from(section).ok()?)
    }

    /// The first `.nv.info.<fn>` (or, `merc`, `.nv.merc.nv.info.<fn>`)
    /// section whose sh_info is `text`.
    pub fn info_about(&self, text: usize, merc: bool) -> Option<usize> {
        self.info_about.get((u32::try_from(text).ok()?, merc))
    }

    /// The virtual SM of the PTX the object was assembled from: the
    /// `.note.nv.cuinfo` descriptor's (ABI 8; ptxas writes the lowest virtual
    /// architecture the code needs, so an sm_86 object may say 75), else the
    /// e_flags field (ABI 7). Rule 9's "newer PTX" among equal weak copies.
    pub fn ptx_sm(&self) -> u32 {
        let note = self.sections().iter().find(|s| s.name == ".note.nv.cuinfo").map(|s| s.bytes());
        // The descriptor ends the note (namesz, descsz, type, name, then it).
        let descriptor = note.and_then(|b| b.get(b.len().checked_sub(develf_format::note::CuInfo::SIZE)?..));
        match descriptor.and_then(develf_format::note::CuInfo::decode) {
            Some(info) => u32::from(info.virtual_sm),
            None => u32::from(self.cubin.flags().virtual_sm),
        }
    }

    /// The weak data symbols (see the field).
    pub fn weak_data(&self) -> impl Iterator<Item = &Symbol<'a>> + '_ {
        self.weak_data.iter().filter_map(|&k| self.symbol(k))
    }

    /// The bytes of section `index` as a piece of an output section: in
    /// memory, or, for code the input's bytes do not hold, where they are in
    /// its source.
    pub fn piece_bytes(&self, index: usize) -> PieceBytes<'a> {
        let Some(s) = self.section(index) else { return PieceBytes::Here(&[]) };
        match self.code {
            Some(source) if crate::options::is_code_section(s.sh_type, s.flags) => {
                PieceBytes::Elsewhere { source, offset: s.offset, len: s.data.map_or(0, |d| d.len() as u64) }
            }
            _ => PieceBytes::Here(s.data.unwrap_or_default()),
        }
    }

    /// The bytes of section `index`, read from the input's source where its
    /// bytes do not hold them ([`InputObject::piece_bytes`]); empty when
    /// they cannot be read. For the phases that parse a section's contents:
    /// a damaged input may flag any section as code (the fuzz target's
    /// `.debug_line` with SHF_EXECINSTR, which `develf nvlink` leaves out
    /// of its buffer like code).
    pub fn contents(&self, index: usize) -> std::borrow::Cow<'a, [u8]> {
        match self.piece_bytes(index) {
            PieceBytes::Here(bytes) => std::borrow::Cow::Borrowed(bytes),
            PieceBytes::Elsewhere { source, offset, len } => {
                let mut buf = vec![0; usize::try_from(len).unwrap_or(0)];
                match source.read_exact_at(&mut buf, offset) {
                    Ok(()) => std::borrow::Cow::Owned(buf),
                    Err(_) => std::borrow::Cow::Borrowed(&[]),
                }
            }
        }
    }

    /// The name of section `index` for messages.
    pub fn section_name(&self, index: usize) -> String {
        self.cubin.section_label(index)
    }
}

/// The first index met per key, as a sorted list: a big link has tens of
/// thousands of functions, and a hash map per input would take several times
/// the room for the same lookups.
#[derive(Debug)]
struct FirstOf<K> {
    entries: Vec<(K, u32)>,
}

impl<K: Ord + Copy> FirstOf<K> {
    /// `pairs` in the order met; the first of each key stays.
    fn new(pairs: impl Iterator<Item = (K, usize)>) -> FirstOf<K> {
        let mut entries: Vec<(K, u32)> = pairs.filter_map(|(k, v)| Some((k, u32::try_from(v).ok()?))).collect();
        // Stable: equal keys keep the order met, and dedup keeps the first.
        entries.sort_by_key(|&(k, _)| k);
        entries.dedup_by_key(|&mut (k, _)| k);
        entries.shrink_to_fit();
        FirstOf { entries }
    }

    fn get(&self, key: K) -> Option<usize> {
        let at = self.entries.binary_search_by_key(&key, |&(k, _)| k).ok()?;
        self.entries.get(at).map(|&(_, v)| v as usize)
    }
}

/// Whether code compiled for `object` may be linked into a `target` link.
/// The same SM always; an earlier SM of the same major version when the object
/// is not architecture-specific (sm_80 into sm_86, sm_90 into sm_90a);
/// architecture-specific ('a') code only into exactly its own target.
pub fn arch_compatible(object: Arch, target: Arch) -> bool {
    if object == target {
        return true;
    }
    if object.accelerator {
        return false;
    }
    object.sm / 10 == target.sm / 10 && object.sm <= target.sm
}

/// The first section (not code itself) whose file bytes overlap a code
/// section's ([`crate::options::is_code_section`]), with that code section.
fn overlapping_code<'c, 'a>(cubin: &'c Cubin<'a>) -> Option<(&'c Section<'a>, &'c Section<'a>)> {
    let in_file = |s: &&Section<'a>| s.size > 0 && occupies_file(s.sh_type);
    let mut code: Vec<&Section<'a>> = cubin
        .sections()
        .iter()
        .filter(in_file)
        .filter(|s| crate::options::is_code_section(s.sh_type, s.flags))
        .collect();
    if code.is_empty() {
        return None;
    }
    code.sort_by_key(|s| s.offset);
    let end = |s: &Section<'_>| s.offset.saturating_add(s.size);
    // The longest code section reaching past each point, for sections that
    // start before a later one and end after it.
    let mut reach: Vec<usize> = Vec::with_capacity(code.len());
    for (k, s) in code.iter().enumerate() {
        let best = match reach.last() {
            Some(&b) if end(code[b]) >= end(s) => b,
            _ => k,
        };
        reach.push(best);
    }
    cubin.sections().iter().filter(in_file).filter(|s| !crate::options::is_code_section(s.sh_type, s.flags)).find_map(
        |s| {
            // The code sections starting before `s` ends; the one of them
            // reaching furthest overlaps `s` when it ends after `s` starts.
            let before = code.partition_point(|c| c.offset < end(s));
            let c = code[*reach.get(before.checked_sub(1)?)?];
            (end(c) > s.offset).then_some((s, c))
        },
    )
}

/// A section whose bytes are not all in the file (it would link as zeros):
/// an input error.
pub(crate) fn section_outside_file<'c>(cubin: &'c Cubin<'_>) -> Option<&'c Section<'c>> {
    cubin.sections().iter().find(|s| s.size > 0 && s.data.is_none() && occupies_file(s.sh_type))
}

fn read_one<'a>(index: usize, input: &Input<'a>, target: Arch) -> Result<InputObject<'a>, LinkError> {
    let bad = |message: String| LinkError::BadInput { file: input.name.to_string(), message };
    let mut cubin = Cubin::parse(input.bytes).map_err(|d| bad(d.to_string()))?;
    // Rule 6.1: nvlink reads a `.nv.constant2.<fn>` holding `.const_opt`
    // objects only as far as they reach. A `-r` output's bank with a losing
    // copy's bank appended (its locals dropped) relinks as the first copy's
    // bytes (/work/sweep2/red/cb2relink `-r y64 x`: 0xf0 bytes, 0x78 in the
    // relinked `-r` output and in each kernel's bank of the executable; sweep2
    // p44 `r-relink*`, sm_75..sm_89: 0x10 with two `.const_opt.0.8` at 0, 8).
    // ptxas's banks are covered to their end; one with no object keeps its
    // bytes.
    let short: Vec<(usize, u64)> = cubin
        .sections()
        .iter()
        .filter(|s| s.name.starts_with(".nv.constant2."))
        .filter_map(|s| {
            let reach = cubin
                .symbols()
                .iter()
                .filter(|y| matches!(y.st_type, STT_OBJECT | STT_CUDA_OBJECT) && y.section_index() == Some(s.index))
                .map(|y| y.value.saturating_add(y.size))
                .max()?;
            (reach < s.size).then_some((s.index, reach))
        })
        .collect();
    for (index, size) in short {
        cubin.truncate_section(index, size);
    }
    let header = cubin.header();
    if header.machine != EM_CUDA {
        return Err(bad(format!("e_machine is {}, not {EM_CUDA} (NVIDIA CUDA)", header.machine)));
    }
    if header.class != Class::Elf64 {
        return Err(bad("a 32-bit cubin; nvlink 13.5 links only ELF64 objects".to_string()));
    }
    if header.e_type != ET_REL {
        return Err(bad(format!("e_type is {}, not a relocatable object (ET_REL)", header.e_type)));
    }
    if cubin.symtab().is_none() {
        return Err(bad("no .symtab".to_string()));
    }
    if let Some(s) = section_outside_file(&cubin) {
        return Err(bad(format!(
            "section {} ({} bytes at {:#x}) runs past the end of the {}-byte file",
            cubin.section_label(s.index),
            s.size,
            s.offset,
            input.bytes.len()
        )));
    }
    // Code may be read from elsewhere than `bytes` (`Input::code`): a section
    // sharing file bytes with code would read differently that way, so it
    // is refused however the input comes (ptxas never writes one).
    if let Some((s, code)) = overlapping_code(&cubin) {
        // Where the section name table is what overlaps, the code section's
        // name lies in code bytes, which read as zeros when the code comes
        // from elsewhere: it is named by its index, so that the message is
        // the same however the input comes (the `link` fuzz target).
        let names_in_code = s.index == cubin.header().shstrndx as usize;
        let (label, code_label) = if names_in_code {
            (format!("#{} (the section name table)", s.index), format!("section #{}", code.index))
        } else {
            (cubin.section_label(s.index), cubin.section_label(code.index))
        };
        return Err(bad(format!(
            "section {} ({:#x}..{:#x}) overlaps the code of {} ({:#x}..{:#x})",
            label,
            s.offset,
            s.offset.saturating_add(s.size),
            code_label,
            code.offset,
            code.offset.saturating_add(code.size)
        )));
    }
    let object = cubin.target().ok_or_else(|| bad("e_flags name no SM architecture".to_string()))?;
    if !arch_compatible(object, target) {
        return Err(LinkError::ArchMismatch {
            file: input.name.to_string(),
            object: object.to_string(),
            target: target.to_string(),
        });
    }
    let function_in = FirstOf::new(cubin.symbols().iter().filter(|y| y.st_type == STT_FUNC).filter_map(|y| {
        let section = u32::try_from(y.section_index()?).ok()?;
        Some((section, y.index))
    }));
    let weak_data = cubin
        .symbols()
        .iter()
        .filter(|y| y.bind == STB_WEAK && y.st_type != STT_FUNC && y.section_index().is_some())
        .map(|y| y.index)
        .collect();
    // The raw header and symbol tables are parsed: a source that maps the
    // file may drop them (a big link's are some 2 MB of its peak memory).
    if let Some(code) = input.code {
        code.parsed(header.shoff, header.shnum.saturating_mul(u64::from(header.shentsize)));
        if let Some(symtab) = cubin.symtab().and_then(|t| cubin.sections().get(t.section)) {
            code.parsed(symtab.offset, symtab.size);
        }
    }
    let info_about = FirstOf::new(cubin.sections().iter().filter_map(|s| {
        let merc = s.sh_type == SHT_CUDA_MERCURY_INFO;
        let about = (s.sh_type == SHT_CUDA_INFO || merc)
            && s.name.starts_with(if merc { ".nv.merc.nv.info." } else { ".nv.info." });
        about.then_some(((s.info, merc), s.index))
    }));
    Ok(InputObject {
        index,
        name: input.name,
        abi7: header.abi_version == ABI_VERSION_7,
        code: input.code,
        cubin,
        function_in,
        info_about,
        weak_data,
    })
}

/// Parses all inputs in parallel; the first failure in command-line order wins,
/// so the message does not depend on the thread count.
pub(crate) fn read_inputs<'a>(options: &LinkOptions, inputs: &[Input<'a>]) -> Result<Vec<InputObject<'a>>, LinkError> {
    let results: Vec<Result<InputObject<'a>, LinkError>> =
        inputs.par_iter().enumerate().map(|(i, input)| read_one(i, input, options.arch)).collect();
    results.into_iter().collect()
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn first_of_keeps_the_first_index_per_key() {
        let first = FirstOf::new([(7u32, 3usize), (2, 9), (7, 1), (5, 4), (2, 0)].into_iter());
        assert_eq!((first.get(7), first.get(2), first.get(5), first.get(6)), (Some(3), Some(9), Some(4), None));
    }

    #[test]
    fn compatibility_rules() {
        let a = |s: &str| Arch::parse(s).unwrap_or(Arch { sm: 0, accelerator: false });
        assert!(arch_compatible(a("sm_80"), a("sm_86")));
        assert!(arch_compatible(a("sm_90"), a("sm_90a")));
        assert!(!arch_compatible(a("sm_86"), a("sm_80")));
        assert!(!arch_compatible(a("sm_90a"), a("sm_90")));
        assert!(!arch_compatible(a("sm_75"), a("sm_80")));
    }
}
