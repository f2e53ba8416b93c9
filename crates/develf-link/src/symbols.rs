//! Phase 5: the output `.symtab`, `.strtab` and `.shstrtab` (rules 4 and 5).
//!
//! Symbols: the null symbol, then for every section in creation order its
//! STT_SECTION symbol followed by the local data symbols defined in it, then
//! the globals in name-creation order (rule 5.1). Strings: `.shstrtab` is the
//! creation log (4.1); `.strtab` is the prototype signatures, the same log with
//! relocation sections of constant banks moved before their bank, local names
//! after their section, and the global names (4.2).

use crate::input::InputObject;
use crate::layout::{Keep, Layout, LogEntry, OutId, SectionClass, Step};
use crate::resolve::{GlobalId, Resolution, SymbolRef, TABLE_SYMBOLS};
use develf_eiattr::CallGraph;
use develf_format::section::{SHT_CUDA_CALLGRAPH, SHT_CUDA_PROTOTYPE, SHT_CUDA_RESOLVED_RELA};
use develf_format::symbol::{
    STB_GLOBAL, STB_LOCAL, STB_WEAK, STO_CUDA_MANAGED, STO_CUDA_SHARED, STO_CUDA_SPACE_MASK, STO_VISIBILITY_MASK,
    STT_FUNC, STT_OBJECT, STT_SECTION, STV_INTERNAL,
};
use develf_parse::elf::string_at;
use hashbrown::{DefaultHashBuilder, HashMap, HashTable};
use rayon::prelude::*;
use std::hash::BuildHasher as _;

/// `STT_CUDA_OBJECT`: executables turn it into `STT_OBJECT` (rule 5.3).
const STT_CUDA_OBJECT: u8 = 13;
/// The symbol `-r` rewrites `extern __shared__` relocations to (rule 12.3).
pub(crate) const EXTERN_INSTANCE: &str = "externsharedinstance";

/// Where a symbol is defined.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub(crate) enum SymbolSection {
    /// `st_shndx` kept as the input had it (`SHN_UNDEF`, `SHN_ABS`, …).
    Raw(u16),
    Section(OutId),
}

#[derive(Debug, Clone)]
pub(crate) struct OutSymbol {
    pub name: u32,
    pub bind: u8,
    pub st_type: u8,
    pub other: u8,
    pub section: SymbolSection,
    pub value: u64,
    pub size: u64,
}

/// A string table under construction: each string once.
#[derive(Debug, Default)]
pub(crate) struct StringTable {
    pub bytes: Vec<u8>,
    /// Offsets into `bytes` of the strings, hashed by their text: a big link
    /// has some hundred thousand names, and keys that are offsets need no
    /// allocation of their own.
    offsets: HashTable<u32>,
    hasher: DefaultHashBuilder,
}

/// The NUL-terminated string at `offset` of `bytes`.
fn string_in(bytes: &[u8], offset: u32) -> &[u8] {
    let rest = bytes.get(offset as usize..).unwrap_or_default();
    rest.split(|&b| b == 0).next().unwrap_or_default()
}

impl StringTable {
    pub(crate) fn new() -> StringTable {
        StringTable { bytes: vec![0], ..StringTable::default() }
    }

    /// Room for `strings` names: growing the table rehashes every name (a
    /// big link has tens of thousands).
    pub(crate) fn with_capacity(strings: usize) -> StringTable {
        StringTable {
            bytes: vec![0],
            offsets: HashTable::with_capacity(strings),
            hasher: DefaultHashBuilder::default(),
        }
    }

    pub(crate) fn add(&mut self, s: &str) -> u32 {
        if s.is_empty() {
            return 0;
        }
        self.intern(s, true).0
    }

    /// A `.nv.prototype`/`.nv.callgraph` signature string. Unlike a symbol
    /// name, the empty signature (`""`, what ptxas writes for an
    /// address-taken kernel in `.nv.callgraph`) gets an entry of its own
    /// (rule 4.2: dynpar's `.strtab` starts `\0\0#i\0`).
    pub(crate) fn add_signature(&mut self, s: &str) -> u32 {
        self.intern(s, true).0
    }

    /// Appends without sharing (the creation log may never repeat a name,
    /// rule 4.1); lookups keep finding the first copy, whose offset this
    /// returns (what [`StringTable::offset`] will say).
    fn push(&mut self, s: &str) -> u32 {
        self.intern(s, false).1
    }

    /// Returns where `s` now is (its first copy when `share` and there is
    /// one, else a new copy appended) and where lookups find it (its first
    /// copy). The name is hashed once: a big link adds some hundred thousand.
    fn intern(&mut self, s: &str, share: bool) -> (u32, u32) {
        let hash = self.hasher.hash_one(s.as_bytes());
        let bytes = &self.bytes;
        let first = self.offsets.find(hash, |&k| string_in(bytes, k) == s.as_bytes()).copied();
        if let (true, Some(o)) = (share, first) {
            return (o, o);
        }
        let o = u32::try_from(self.bytes.len()).unwrap_or(u32::MAX);
        self.bytes.extend_from_slice(s.as_bytes());
        self.bytes.push(0);
        if first.is_none() {
            let (bytes, hasher) = (&self.bytes, &self.hasher);
            self.offsets.insert_unique(hash, o, |&k| hasher.hash_one(string_in(bytes, k)));
        }
        (o, first.unwrap_or(o))
    }

    pub fn offset(&self, s: &str) -> Option<u32> {
        let bytes = &self.bytes;
        self.offsets.find(self.hasher.hash_one(s.as_bytes()), |&k| string_in(bytes, k) == s.as_bytes()).copied()
    }
}

#[derive(Debug)]
pub(crate) struct SymbolTable {
    pub symbols: Vec<OutSymbol>,
    /// Index of the first non-local symbol (`.symtab` sh_info).
    pub first_global: u32,
    pub strtab: StringTable,
    pub shstrtab: Vec<u8>,
    /// Per output section: its name's offset in `.shstrtab`.
    pub section_name: Vec<u32>,
    /// Per output section: its STT_SECTION symbol.
    pub section_symbol: Vec<Option<u32>>,
    pub global_index: Vec<Option<u32>>,
    pub local_index: HashMap<SymbolRef, u32>,
    /// Mercury targets: `.nv.merc.symtab` (rule 11).
    pub merc: Option<crate::mercury::MercTable>,
    /// `-r`: the `externsharedinstance` symbols (rule 12.3).
    pub extern_instances: Vec<u32>,
}

impl SymbolTable {
    /// The output index of an input symbol: a global's, a local's own, or for a
    /// section symbol the symbol of the output section it was merged into.
    pub fn output_index(
        &self,
        inputs: &[InputObject<'_>],
        resolution: &Resolution<'_>,
        layout: &Layout,
        r: SymbolRef,
    ) -> Option<u32> {
        if r.symbol == 0 {
            return Some(0);
        }
        if let Some(g) = resolution.global(r) {
            return self.global_index.get(g).copied().flatten();
        }
        let sym = inputs.get(r.input)?.symbol(r.symbol)?;
        if sym.st_type == STT_SECTION {
            let (id, _) = layout.placed(r.input, sym.section_index()?)?;
            return self.section_symbol.get(id).copied().flatten();
        }
        self.local_index.get(&r).copied()
    }
}

/// Whether a section gets a header; relocation sections are decided later
/// but have no symbols, so "may be kept" is enough here.
fn may_keep(layout: &Layout, id: OutId) -> bool {
    layout.section(id).is_some_and(|s| match s.keep {
        Keep::Never | Keep::IfExtended => false,
        Keep::Always | Keep::IfNotEmpty => shared_kept(s),
    })
}

/// `.nv.shared.<k>` is created for every kernel and kept only when the kernel
/// has shared memory (rule 1.2); crate::shared decides which (rule 12).
pub(crate) fn shared_kept(s: &crate::layout::OutSection) -> bool {
    s.class != SectionClass::Shared || s.keep == Keep::Always
}

/// The signature strings of `.nv.callgraph` and `.nv.prototype`, first use
/// first (rule 4.2), in input order (sm_75..sm_90a), without the signature
/// of an address-taken function whose copy in that input loses to another
/// input's: nvlink adds no string for it (`c.cubin a.cubin
/// -lcudadevrt`, c defining the weak kernel `tk<float>` that a launches: no
/// `""` of a's; the one in `.strtab` is libcudadevrt's, after a's and every
/// later input's signatures), and its `.nv.callgraph` entry points at offset
/// 0 (rule 7.6).
pub(crate) fn prototype_strings_kept<'a>(inputs: &[InputObject<'a>], resolution: &Resolution<'_>) -> Vec<&'a str> {
    let mut out: Vec<&'a str> = Vec::new();
    let keep = |_: PrototypeEntry| true;
    for input in inputs {
        let lost = |f: u32| lost_copy(input, resolution, f);
        signature_strings_split(input, true, true, &keep, &lost, &mut out);
    }
    out
}

/// Whether input symbol `f` is defined in `input` and resolves to an
/// *earlier* input's definition (a weak copy that lost when met). A copy a
/// later input replaces (fewer registers) was the definition when nvlink met
/// it and keeps its string (fresh4 arL.rev sm_90: fx_main-dp's launched
/// `fx_scale<float>`, replaced by libfx's fx_coop copy: `""` at fx_main-dp's
/// place, and its entry points there).
pub(crate) fn lost_copy(input: &InputObject<'_>, resolution: &Resolution<'_>, f: u32) -> bool {
    let r = SymbolRef { input: input.index, symbol: f as usize };
    input.symbol(r.symbol).is_some_and(|s| s.section_index().is_some())
        && resolution.definition_of(r).is_some_and(|d| d.input < input.index)
}

/// Rule 4.3 (Mercury): the signatures of the inputs' `.nv.callgraph` blocks
/// in the order the output's call graph lists them: the address-taken block
/// before the indirect-call block, each by the creation rank of its
/// function, as `metadata.rs` sorts the output's call graph (where the
/// symbol is first mentioned, inputs and their `.symtab`s in order: a
/// global's first mention, a local's own place), input order breaking ties.
/// For globals that is their output index order (msig: `Ci::scale`,
/// `Ci::area`, `Sq::area`, `Shape::scale` defined in msig_a but taken in
/// msig_c, before msig_b's `op_mul`); a local sorts among its input's
/// globals, not before every global (session 12: b.cubin's global
/// `g_glob`, `#iii`, before a.cubin's static `f_loc`, `#ii`; sm_100).
/// One function's entries of one input come last first (session 15: a
/// kernel's indirect calls `#ii #ll #iii #ii` give `#ii #iii #ll`, `#ll
/// #ii` give `#ii #ll`; helper p07's virtual calls `#il #ll #vl ...` give
/// `#vl #ll #il`; sm_100, sm_120, exec and `-r`).
/// Then the `.nv.prototype` signatures, input by input, first use first.
pub(crate) fn merc_signature_strings<'a>(
    inputs: &[InputObject<'a>],
    keep: &dyn Fn(PrototypeEntry) -> bool,
    first_mention: &dyn Fn(SymbolRef) -> SymbolRef,
) -> Vec<&'a str> {
    // (block, creation rank, input, the entry's place there reversed, text).
    let mut graph: Vec<(u8, SymbolRef, usize, std::cmp::Reverse<usize>, &'a str)> = Vec::new();
    for input in inputs {
        let Some(strtab) = input.cubin.symtab().and_then(|t| input.section(t.section)).map(|s| s.link as usize) else {
            continue;
        };
        let Some(strings) = input.section(strtab).and_then(|s| s.data) else { continue };
        for s in input.sections().iter().filter(|s| s.sh_type == SHT_CUDA_CALLGRAPH) {
            let Ok(decoded) = CallGraph::decode(s.bytes()) else { continue };
            for (block, pairs) in [(2u8, &decoded.address_taken), (3u8, &decoded.indirect_calls)] {
                for p in pairs {
                    let Some(text) = string_at(strings, p.1) else { continue };
                    let at = first_mention(SymbolRef { input: input.index, symbol: p.0 as usize });
                    let seq = graph.len();
                    graph.push((block, at, input.index, std::cmp::Reverse(seq), text));
                }
            }
        }
    }
    graph.sort_unstable();
    let mut out: Vec<&'a str> = Vec::new();
    for (_, _, _, _, text) in graph {
        if !out.contains(&text) {
            out.push(text);
        }
    }
    for input in inputs {
        signature_strings(input, false, true, keep, &mut out);
    }
    out
}

/// One `.nv.prototype` entry: its input, section and index there.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Hash)]
pub(crate) struct PrototypeEntry {
    pub input: usize,
    pub section: usize,
    pub index: usize,
}

/// Adds one input's signature strings to `out` (first use first): those of
/// its `.nv.callgraph` blocks, then those of its `.nv.prototype` entries
/// that `keep` keeps.
fn signature_strings<'a>(
    input: &InputObject<'a>,
    graphs: bool,
    prototypes: bool,
    keep: &dyn Fn(PrototypeEntry) -> bool,
    out: &mut Vec<&'a str>,
) {
    signature_strings_split(input, graphs, prototypes, keep, &|_| false, out);
}

/// [`signature_strings`] without the signatures of the address-taken
/// functions that `lost` names (by input symbol index).
fn signature_strings_split<'a>(
    input: &InputObject<'a>,
    graphs: bool,
    prototypes: bool,
    keep: &dyn Fn(PrototypeEntry) -> bool,
    lost: &dyn Fn(u32) -> bool,
    out: &mut Vec<&'a str>,
) {
    let Some(strtab) = input.cubin.symtab().and_then(|t| input.section(t.section)).map(|s| s.link as usize) else {
        return;
    };
    let Some(strings) = input.section(strtab).and_then(|s| s.data) else { return };
    // The signatures of the `.nv.callgraph` blocks of address-taken
    // functions and indirect call sites (fptr: `#ii`, rule 7.6) come
    // before the input's `.nv.prototype` ones: dynpar's main.o gives
    // `""` (its address-taken kernel `child`) before `#i` (rule 4.2).
    let mut offsets: Vec<u32> = Vec::new();
    if graphs {
        for s in input.sections().iter().filter(|s| s.sh_type == SHT_CUDA_CALLGRAPH) {
            if let Ok(graph) = CallGraph::decode(s.bytes()) {
                offsets.extend(graph.address_taken.iter().filter(|p| !lost(p.0)).map(|p| p.1));
                offsets.extend(graph.indirect_calls.iter().map(|p| p.1));
            }
        }
    }
    if prototypes {
        for s in input.sections().iter().filter(|s| s.sh_type == SHT_CUDA_PROTOTYPE) {
            offsets.extend(
                s.bytes()
                    .chunks_exact(8)
                    .enumerate()
                    .filter(|&(index, _)| keep(PrototypeEntry { input: input.index, section: s.index, index }))
                    .map(|(_, p)| u32::from_le_bytes([p[4], p[5], p[6], p[7]])),
            );
        }
    }
    for offset in offsets {
        if let Some(text) = string_at(strings, offset) {
            if !out.contains(&text) {
                out.push(text);
            }
        }
    }
}

/// Per global: `None` when no relocation names it, else whether a relocation
/// in a surviving (placed) section does. The inputs are read in parallel,
/// one run of inputs per thread, each run filling a table of its own (one
/// per input would make hundreds of tables of tens of thousands of
/// entries); the tables are merged with "or", which gives the same table
/// whatever the split.
pub(crate) fn live_references(
    inputs: &[InputObject<'_>],
    resolution: &Resolution<'_>,
    layout: &Layout,
) -> Vec<Option<bool>> {
    let globals = resolution.globals.len();
    let merge = |seen: Option<bool>, live: bool| Some(seen.unwrap_or(false) || live);
    let run = inputs.len().div_ceil(rayon::current_num_threads().max(1)).max(1);
    inputs
        .par_chunks(run)
        .map(|chunk| {
            let mut refs: Vec<Option<bool>> = vec![None; globals];
            for input in chunk {
                for rs in input.cubin.relocation_sections() {
                    let live = layout.placed(input.index, rs.target as usize).is_some();
                    for r in rs.entries() {
                        let Some(g) = resolution.global(SymbolRef { input: input.index, symbol: r.symbol as usize })
                        else {
                            continue;
                        };
                        if let Some(slot) = refs.get_mut(g) {
                            *slot = merge(*slot, live);
                        }
                    }
                }
            }
            refs
        })
        .reduce(
            || vec![None; globals],
            |mut all, part| {
                for (slot, seen) in all.iter_mut().zip(part) {
                    if let Some(live) = seen {
                        *slot = merge(*slot, live);
                    }
                }
                all
            },
        )
}

/// `signatures`: [`prototype_strings_kept`].
pub(crate) fn build(
    inputs: &[InputObject<'_>],
    resolution: &Resolution<'_>,
    layout: &Layout,
    signatures: Vec<&str>,
) -> SymbolTable {
    let executable = layout.executable;
    // Locals in the order nvlink met them (layout's log, rules 4.2 and 5.1);
    // a local the log does not name follows its section's symbol.
    let mut logged: Vec<Vec<bool>> = inputs.iter().map(|i| vec![false; i.symbols().len()]).collect();
    for e in &layout.log {
        if let Step::Local(r) = e.step() {
            if let Some(flag) = logged.get_mut(r.input).and_then(|l| l.get_mut(r.symbol)) {
                *flag = true;
            }
        }
    }
    // Executables carry no locals of a per-function constant bank (ptxas's
    // `_param` in `.nv.constant0.<k>`, sm_75..sm_89; `<fn>.const_opt.*` in
    // `.nv.constant2.<fn>`, ptx: 11/11 exec links) nor of `.nv.shared.<k>`
    // (the per-kernel shared window is laid out anew, rule 1.2); `-r` keeps
    // them (rule 5.3), and so does `-preserve-relocs` the constant-bank ones,
    // whose relocations it lists (rule 8.2: calls sm_75 `_param`, ptx
    // sm_90/sm_100 `.const_opt.0.16`). Locals of the shared user bank
    // `.nv.constant3` (a non-`.visible` `.const`, `static __constant__`)
    // stay, used or not (rule 5.5). `-g` and `-preserve-relocs` keep a
    // kernel's own shared variables (rule 12.4; sm_75..sm_90).
    let keep_local = |r: &SymbolRef| {
        let symbol = inputs.get(r.input).and_then(|i| i.symbol(r.symbol));
        // Rule 5.7: an undefined local is logged by `-r` links only.
        if symbol.is_some_and(|s| s.section_index().is_none()) {
            return !executable;
        }
        // U25: a device function's bank merged into its kernels' leaves no
        // local behind, `-preserve-relocs` included (cd sm_75/sm_86: 29
        // `.const_opt` locals of `kc2`/`kd2`'s own banks, none of `fa`'s).
        if symbol.and_then(|s| s.section_index()).is_some_and(|x| layout.merged_banks.contains(&(r.input, x))) {
            return false;
        }
        let placed = symbol
            .and_then(|s| s.section_index())
            .and_then(|x| layout.local_home(r.input, x))
            .and_then(|(id, _)| layout.section(id));
        placed.is_some_and(|o| {
            !executable
                || !((per_function_bank(&o.name) && !layout.preserve_relocs)
                    || (o.class == SectionClass::Shared && !keeps_shared_locals(layout))
                    || (o.class == SectionClass::DebugShared
                        && !(keeps_shared_locals(layout) && layout.shared.homes.contains_key(r))))
        })
    };
    // Per input, found in parallel: which locals are kept, and the kept
    // locals the log does not name with the section they follow. Beside it,
    // `.shstrtab`, which needs neither.
    let locals = || -> Vec<InputLocals> {
        inputs
            .par_iter()
            .zip(&logged)
            .map(|(input, logged)| {
                let mut found = InputLocals { keep: vec![false; input.symbols().len()], unlogged: Vec::new() };
                for s in input.symbols() {
                    if s.index == 0 || s.bind != STB_LOCAL || s.st_type == STT_SECTION {
                        continue;
                    }
                    let r = SymbolRef { input: input.index, symbol: s.index };
                    if !keep_local(&r) {
                        continue;
                    }
                    if let Some(k) = found.keep.get_mut(s.index) {
                        *k = true;
                    }
                    let Some((id, _)) = s.section_index().and_then(|x| layout.local_home(input.index, x)) else {
                        continue;
                    };
                    if !logged.get(s.index).copied().unwrap_or(false) {
                        found.unlogged.push((id, r));
                    }
                }
                found
            })
            .collect()
    };
    let (locals, (shstrtab, section_name, first_named)) = rayon::join(locals, || section_names(layout));
    // The log names only STB_LOCAL symbols other than section symbols
    // (crate::layout), all of which `keep` covers.
    let kept = |r: &SymbolRef| locals.get(r.input).and_then(|l| l.keep.get(r.symbol)).copied().unwrap_or(false);
    let mut locals_of: Vec<Vec<SymbolRef>> = vec![Vec::new(); layout.sections.len()];
    for (id, r) in locals.iter().flat_map(|l| &l.unlogged) {
        if let Some(list) = locals_of.get_mut(*id) {
            list.push(*r);
        }
    }
    let mut sequence: Vec<LogEntry> = Vec::with_capacity(layout.log.len());
    for &e in &layout.log {
        match e.step() {
            Step::Section(id) => {
                sequence.push(e);
                let extra = locals_of.get(id).map(Vec::as_slice).unwrap_or_default();
                sequence.extend(extra.iter().map(|&r| LogEntry::local(r)));
            }
            Step::Local(r) if kept(&r) => sequence.push(e),
            Step::Local(_) => {}
        }
    }
    // Per first section of a name: its name is in `.strtab`, at this offset.
    let mut strtab_name: Vec<Option<u32>> = vec![None; layout.sections.len()];

    // .strtab: prototypes, the log (relocations of constant banks first), locals, globals.
    let names = layout.log.len() + inputs.iter().map(|i| i.symbols().len()).sum::<usize>();
    let mut strtab = StringTable::with_capacity(names);
    for p in signatures {
        strtab.add_signature(p);
    }
    let local_name = |r: &SymbolRef| inputs.get(r.input).and_then(|i| i.symbol(r.symbol)).map_or("", |s| s.name);
    for e in &sequence {
        let (id, s) = match e.step() {
            Step::Section(id) => match layout.section(id) {
                Some(s) => (id, s),
                None => continue,
            },
            Step::Local(r) => {
                strtab.add(local_name(&r));
                continue;
            }
        };
        // Rule 4.2: only the linker-made relocations of a bank (texture and
        // surface header slots, no input pieces) come before it; an input's
        // `.rela.nv.constant3` (a `__constant__` initialised with a device
        // address) keeps its creation place (misc, sm_75..sm_90, 8/8).
        // `-preserve-relocs`' `.nv.resolvedrela.nv.constant3` keeps its place
        // too (xconst sm_90: after `.rela.nv.constant3`; U23).
        let linker_made = |r: &crate::layout::OutSection| r.pieces.is_empty() && r.sh_type != SHT_CUDA_RESOLVED_RELA;
        if s.class == SectionClass::Relocation
            && linker_made(s)
            && s.target().and_then(|t| layout.section(t)).is_some_and(|t| t.name.starts_with(".nv.constant"))
        {
            continue;
        }
        let Some(slot) = first_named.get(id).and_then(|&first| strtab_name.get_mut(first)) else { continue };
        if slot.is_some() {
            continue;
        }
        if s.name.starts_with(".nv.constant") {
            for prefix in [".rel", ".rela"] {
                let rel = format!("{prefix}{}", s.name);
                if layout.find(&rel).and_then(|id| layout.section(id)).is_some_and(linker_made) {
                    strtab.push(&rel);
                }
            }
        }
        *slot = Some(strtab.push(&s.name));
    }

    let mut symbols = vec![OutSymbol {
        name: 0,
        bind: STB_LOCAL,
        st_type: 0,
        other: 0,
        section: SymbolSection::Raw(0),
        // Rule 12.9: not always 0 after relinking a `-r` output; nor with a
        // losing copy's function bank (crate::layout::merge_function_banks).
        value: layout.null_value.unwrap_or(layout.shared.null_value),
        size: 0,
    }];
    let mut section_symbol = vec![None; layout.sections.len()];
    let mut local_index = HashMap::new();
    let mut undefined_objects: HashMap<&str, u32> = HashMap::new();
    let index_of = |symbols: &Vec<OutSymbol>| u32::try_from(symbols.len()).unwrap_or(u32::MAX);
    for e in &sequence {
        let id = match e.step() {
            Step::Section(id) => id,
            Step::Local(r) => {
                let Some(sym) = inputs.get(r.input).and_then(|i| i.symbol(r.symbol)) else { continue };
                if sym.section_index().is_none() {
                    // Rule 5.7: libcudadevrt's `.nv.ptx.const0.size` (LOCAL,
                    // STV_INTERNAL, SHN_UNDEF, size 4) stays in `-r` outputs
                    // with the value -1 of undefined variables (U16), among
                    // its input's locals (dp + `-lcudadevrt`, sm_75/sm_90
                    // `-r`; executables drop it).
                    // An STT_OBJECT in the input, a CUDA object in nvlink's output.
                    let (st_type, other) = rewrite_type(executable, sym.st_type, sym.other);
                    let object = matches!(sym.st_type, STT_OBJECT | develf_format::symbol::STT_CUDA_OBJECT);
                    // Rule 5.7: one such object per name, at its first
                    // input's place, with the merged value (relocate.rs
                    // `undefined_local_value`).
                    if object {
                        if let Some(&at) = undefined_objects.get(sym.name) {
                            local_index.insert(r, at);
                            continue;
                        }
                        undefined_objects.insert(sym.name, index_of(&symbols));
                    }
                    local_index.insert(r, index_of(&symbols));
                    let (st_type, value) = if object {
                        (
                            develf_format::symbol::STT_CUDA_OBJECT,
                            crate::relocate::undefined_local_value(inputs, layout, sym.name),
                        )
                    } else {
                        (st_type, sym.value)
                    };
                    symbols.push(OutSymbol {
                        name: strtab.add(sym.name),
                        bind: STB_LOCAL,
                        st_type,
                        other,
                        section: SymbolSection::Raw(sym.raw_shndx),
                        value,
                        size: sym.size,
                    });
                    continue;
                }
                let Some((mut id, base)) = sym.section_index().and_then(|x| layout.local_home(r.input, x)) else {
                    continue;
                };
                // Rule 12.10: a device function's shared variable kept by
                // `-g`/`-preserve-relocs` lives in its one kernel's window.
                if let Some(&home) = layout.shared.homes.get(&r).filter(|_| executable) {
                    id = home;
                }
                local_index.insert(r, index_of(&symbols));
                let (st_type, mut other) = rewrite_type(executable, sym.st_type, sym.other);
                let base = if keeps_shared_value(layout, id) { 0 } else { base };
                let mut value = sym.value.saturating_add(base);
                let shared_home = layout.section(id).is_some_and(|o| o.class == SectionClass::Shared);
                if executable && (shared_home || layout.shared.homes.contains_key(&r)) {
                    // Rule 12.4: a kernel's shared variable kept in an
                    // executable has its window offset, reserved area
                    // included (0x400 on sm_90, 0 on sm_75), not ptxas's
                    // alignment; `-preserve-relocs` alone marks it
                    // STV_INTERNAL, `-g` (with it or not) leaves 0.
                    value = layout.shared.offsets.get(&r).copied().unwrap_or(0).saturating_add(layout.shared.reserved);
                    other = if layout.debug { 0 } else { STV_INTERNAL };
                }
                symbols.push(OutSymbol {
                    name: strtab.add(sym.name),
                    bind: STB_LOCAL,
                    st_type,
                    other,
                    section: SymbolSection::Section(id),
                    value,
                    size: sym.size,
                });
                continue;
            }
        };
        let Some(s) = layout.section(id) else { continue };
        // Rule 12.2: a `.nv.shared.<k>` without variables has no section symbol.
        // Rule 5.2: `-r` gives `.nv_debug.shared` a section symbol when inputs
        // bring one (device functions' static `__shared__` variables, iv on
        // sm_75..sm_120); made for `extern __shared__` alone it has none.
        // Rule 12.4: an executable under `-g`/`-preserve-relocs` gives it one
        // when it holds the reserved area (sm_90 0x400; sm_75's 0 bytes: none).
        // Rule 12.8: in `-r`, an input `.nv_debug.shared` holding only the
        // extern a `-r` link defined there (relinked shared: `dyn`) brings none.
        let debug_shared_symbol = s.class == SectionClass::DebugShared
            && if executable {
                // Rule 11.9: on Mercury only with a common area (cub `-g`:
                // device functions' variables; shared `-g`, `dyn` alone: none).
                keeps_shared_locals(layout) && s.size != 0 && (!layout.mercury || layout.shared.common_area.is_some())
            } else {
                s.pieces.iter().any(|p| {
                    inputs.get(p.input).is_some_and(|i| {
                        i.symbols().iter().any(|y| {
                            y.section_index() == Some(p.section)
                                && y.st_type != STT_SECTION
                                && !crate::shared::is_extern(i, y)
                        })
                    })
                })
            };
        if !(s.class.rule().section_symbol || debug_shared_symbol)
            || !may_keep(layout, id)
            || layout.shared.no_symbol.contains(&id)
        {
            continue;
        }
        // Rule 5.1: an empty debug section (the 0-byte `.debug_frame` of an
        // object with no functions) has no section symbol, in its input nor
        // in the output (data-only object, sm_90/sm_100, exec and `-r`).
        if s.class == SectionClass::Debug && s.size == 0 {
            continue;
        }
        if let Some(slot) = section_symbol.get_mut(id) {
            *slot = Some(index_of(&symbols));
        }
        symbols.push(OutSymbol {
            name: first_named
                .get(id)
                .and_then(|&first| strtab_name.get(first).copied().flatten())
                .or_else(|| strtab.offset(&s.name))
                .unwrap_or(0),
            bind: STB_LOCAL,
            st_type: STT_SECTION,
            other: 0,
            section: SymbolSection::Section(id),
            value: 0,
            size: 0,
        });
    }
    let first_global = index_of(&symbols);

    let mut global_index: Vec<Option<u32>> = vec![None; resolution.globals.len()];
    let live_refs = if executable { live_references(inputs, resolution, layout) } else { Vec::new() };
    for (g, global) in resolution.globals.iter().enumerate() {
        let common = layout.common.get(&g).copied();
        let source = global.definition.unwrap_or(global.first);
        let Some(sym) = inputs.get(source.input).and_then(|i| i.symbol(source.symbol)) else { continue };
        if executable
            && global.definition.is_none()
            && common.is_none()
            && sym.st_type == STT_FUNC
            && live_refs.get(g) == Some(&Some(false))
        {
            // Rule 13.4: an undefined function only dead code refers to is
            // never created (dynpar: libcudadevrt's unused wrappers name ~40
            // `cnp*` and `__cuda_syscall_*` that nvlink's `.symtab`/`.strtab`
            // lack). Rule 9.3: other undefined names stay (`__UFT_OFFSET`,
            // the texture `ptx_tex`, when `-kernels-used` removes their users).
            continue;
        }
        let placed = sym.section_index().map(|x| layout.placed(source.input, x));
        if let Some(None) = placed {
            // Defined in a section that did not survive (dead code, rule 9):
            // the name is never created.
            continue;
        }
        let extern_shared = placed.is_none() && sym.other & STO_CUDA_SPACE_MASK == STO_CUDA_SHARED;
        // Rule 12.4: `-g` keeps the extern symbols a `-r` output defined in
        // `.nv_debug.shared` as it keeps undefined ones, and drops the
        // `externsharedinstance`s (fresh `-g` relinks of `-r` and `-g -r`
        // outputs: `dsm_d`, `dsm_i`, `dsm_f` kept, sm_75..sm_90a).
        let input_extern = sym.other & STO_CUDA_SPACE_MASK == STO_CUDA_SHARED
            && inputs.get(source.input).is_some_and(|i| crate::shared::is_extern(i, sym));
        if executable && layout.debug && input_extern && global.name == EXTERN_INSTANCE {
            continue;
        }
        if executable && extern_shared && layout.shared.debug_shared.is_none() {
            // Rule 12.2: an executable resolves `extern __shared__` per kernel
            // and keeps neither the symbol nor its name (shared: 18/18 links);
            // `-g` keeps it (rule 12.4).
            continue;
        }
        // U27: a weak template static (`bitonic<T>`'s `static __shared__ T
        // s[]`, ptxas's WEAK variable in `.nv_debug.shared`) kept by `-g` /
        // `-preserve-relocs` as a device function's variable is (rule 12.10).
        let weak_home =
            if executable && keeps_shared_locals(layout) && sym.other & STO_CUDA_SPACE_MASK == STO_CUDA_SHARED {
                shared_home(layout, resolution, source)
            } else {
                None
            };
        let in_debug_shared = placed
            .flatten()
            .and_then(|(id, _)| layout.section(id))
            .is_some_and(|s| s.class == SectionClass::DebugShared);
        // Rule 12.10: `-preserve-relocs` alone keeps the named extern symbols
        // a `-r` output defined in `.nv_debug.shared` where it keeps undefined
        // ones (a common area and a reserved area, not Mercury: the plan's
        // `debug_shared`): at the reserved area minus one, internal (13
        // fixture relinks of `-r` outputs, sm_90: `eqx_buf`, `kur_buf`,
        // `pkw_dyn_ll`, ...; none without a common area: `dyn` of `shared`,
        // `kul_buf`, `roomeq_dyn`; none on sm_75 or sm_100). So is a defined
        // `externsharedinstance` (relinking `eqx-relink-pr`'s `-r` output).
        let kept_relinked_extern = executable
            && layout.preserve_relocs
            && !layout.debug
            && layout.shared.debug_shared.is_some()
            && input_extern
            && in_debug_shared;
        if executable
            && weak_home.is_none()
            && !(layout.debug && input_extern)
            && !kept_relinked_extern
            && sym.other & STO_CUDA_SPACE_MASK == STO_CUDA_SHARED
            && in_debug_shared
        {
            // Rule 12.8: the extern symbols a `-r` output defined in
            // `.nv_debug.shared` (`dyn`, `dynb`) go, name included, like the
            // undefined ones of rule 12.2 (rr-shm, mix: `.strtab` lacks them).
            continue;
        }
        let name = strtab.add(global.name);
        if executable && TABLE_SYMBOLS.contains(&global.name) {
            continue;
        }
        let section = match (placed.flatten(), layout.shared.debug_shared) {
            (Some((id, _)), _) => SymbolSection::Section(id),
            // Rule 12.3: `-r` defines `extern __shared__` in `.nv_debug.shared`.
            // Rule 12.4: so does an executable under `-g`.
            (None, Some(id)) if extern_shared => SymbolSection::Section(id),
            (None, _) => SymbolSection::Raw(sym.raw_shndx),
        };
        let base = placed.flatten().filter(|&(id, _)| !keeps_shared_value(layout, id)).map_or(0, |(_, o)| o);
        // Rule 5.3: undefined weak objects (`__UFT_OFFSET`, ...) become
        // global; defined weak data (vtables) stays weak (poly, exec and `-r`).
        // Rule 12.8: a weak extern shared symbol (a relinked `-r` output's
        // `externsharedinstance`) stays weak where `-r` defines it.
        let bind = if sym.bind == STB_WEAK
            && sym.st_type != STT_FUNC
            && sym.section_index().is_none()
            && sym.other & STO_CUDA_SPACE_MASK != STO_CUDA_SHARED
        {
            STB_GLOBAL
        } else {
            sym.bind
        };
        // Rule 12.10: an extern `-preserve-relocs` alone keeps, undefined or
        // (above) a relinked `-r` output's: internal, at the reserved area
        // minus one.
        let kept_extern = (executable && extern_shared && !layout.debug) || kept_relinked_extern;
        let (st_type, mut other) = rewrite_type(executable, sym.st_type, sym.other);
        if kept_extern {
            // Rule 12.10: as a kept variable under `-preserve-relocs` alone (12.4).
            other = STV_INTERNAL;
        }
        // U17: a `.common` global is defined where the linker put it.
        let (section, value, size) = match common {
            Some((id, offset)) => {
                let size = resolution.common.iter().find(|c| c.0 == g).map_or(sym.size, |c| c.1);
                (SymbolSection::Section(id), offset, size)
            }
            // U16: `-r` gives an undefined variable (a CUDA object of global
            // or constant space) the value -1 (pb alone: `pa_arr`; tpl_a
            // alone: `ctab_b`; sm_90). Only a variable with a space: the
            // table symbols a merc `-r` output turned into CUDA objects with
            // st_other 0 (`__UFT`, `.nv.reservedSmem.cap`) keep their value
            // when it is relinked with `-r` (sm_100, 6/6).
            None if !executable
                && global.definition.is_none()
                && sym.st_type == develf_format::symbol::STT_CUDA_OBJECT
                && sym.other & STO_CUDA_SPACE_MASK != 0
                && sym.other & STO_CUDA_SPACE_MASK != STO_CUDA_SHARED
                && matches!(section, SymbolSection::Raw(0)) =>
            {
                (section, u64::MAX, sym.size)
            }
            // Rule 12.4: `-g`'s executable `extern __shared__` has value 0
            // (ptxas's alignment 0x10 is not kept as `-r` keeps it; shared,
            // sm_75/sm_90, where every kernel's extern memory starts at 0).
            // Rule 12.10: unless a window's extern offset says otherwise.
            // `-preserve-relocs` alone lays none out: -1 (U16's undefined
            // value) plus the reserved area, 0x3ff on sm_90.
            None if kept_extern => (section, layout.shared.reserved.wrapping_sub(1), sym.size),
            // Rule 12.10: `-r -g` defines the extern symbols at an offset.
            // So does relinking a `-r` output's (fresh `-r` output, `-r -g`:
            // `dsm_d`, `dsm_f`, `dsm_i` 0x10 -> 0).
            None if !executable && (extern_shared || input_extern) && layout.debug => {
                (section, layout.shared.extern_values.get(global.name).copied().unwrap_or(0), sym.size)
            }
            // Rule 11.9: on Mercury always after the reserved area, 0x400
            // (shared `-g`, sm_100/sm_120, without a common area).
            None if executable && (extern_shared || (layout.debug && input_extern)) => {
                // An extern no code names (a relinked `-r` output's, whose
                // kernels name their `externsharedinstance`) is at 0 plus the
                // same bias (shroom_b relinked `-g`, sm_90: `shr_dyn` 0x400
                // beside the common area).
                let bias = if layout.mercury { layout.shared.reserved } else { layout.shared.extern_bias };
                let value = layout.shared.extern_values.get(global.name).copied().unwrap_or(0) + bias;
                (section, value, sym.size)
            }
            None => (section, sym.value.saturating_add(base), sym.size),
        };
        let (bind, other, section, value) = match weak_home {
            // U27: in its kernel's window a LOCAL object, in the common area
            // (`.nv_debug.shared`) it stays WEAK; value = offset + reserved
            // area, st_other as rule 12.4's (t1/t2 `bitonic<T>`, t3/t4
            // `red<T>`, sm_75/sm_90 `-g`).
            Some((home, offset)) => {
                let local = layout.section(home).is_some_and(|o| o.class == SectionClass::Shared);
                let bind = if local { STB_LOCAL } else { bind };
                let other = if layout.debug { 0 } else { STV_INTERNAL };
                (bind, other, SymbolSection::Section(home), offset.saturating_add(layout.shared.reserved))
            }
            None => (bind, other, section, value),
        };
        let value = crate::layout::reserved_shared_value(layout, section, value);
        set(&mut global_index, g, index_of(&symbols));
        symbols.push(OutSymbol { name, bind, st_type, other, section, value, size });
    }

    // Rule 12.3: `-r` ends the globals with one weak `externsharedinstance`
    // per distinct extern offset (STT_CUDA_OBJECT, shared | 0x01, undefined).
    let mut extern_instances = Vec::new();
    for &value in &layout.shared.instances {
        extern_instances.push(index_of(&symbols));
        symbols.push(OutSymbol {
            name: strtab.add(EXTERN_INSTANCE),
            bind: STB_WEAK,
            st_type: STT_CUDA_OBJECT,
            other: STO_CUDA_SHARED | 0x01,
            section: SymbolSection::Raw(0),
            value,
            size: 0,
        });
    }
    let mut table = SymbolTable {
        symbols,
        first_global,
        strtab,
        shstrtab,
        section_name,
        section_symbol,
        global_index,
        local_index,
        merc: None,
        extern_instances,
    };
    if layout.mercury {
        // Rules 4.3, 5.4 and 11: the finaliser's rewrite.
        crate::mercury::finish_symbols(inputs, resolution, layout, &mut table);
    }
    table
}

/// One input's locals for [`build`].
struct InputLocals {
    /// Per symbol: a local that goes into `.symtab`.
    keep: Vec<bool>,
    /// Kept locals the log does not name, with the section they follow.
    unlogged: Vec<(OutId, SymbolRef)>,
}

/// `.shstrtab` (the creation log, rule 4.1) and each section's name offset.
/// Rule 1.4: two sections of one name (static functions of one name in two
/// inputs) share the string, in `.shstrtab` and `.strtab` (math:
/// `__internal_trig_reduction_slowpathd`'s three sections, 0x86 bytes).
/// Also, per section, the first section of its name: names compared once.
fn section_names(layout: &Layout) -> (Vec<u8>, Vec<u32>, Vec<OutId>) {
    let mut shstrtab = vec![0u8];
    let mut section_name = Vec::with_capacity(layout.sections.len());
    let mut first_named = Vec::with_capacity(layout.sections.len());
    let mut named: HashMap<&str, (u32, OutId)> = HashMap::with_capacity(layout.sections.len());
    for (id, s) in layout.sections.iter().enumerate() {
        if let Some(&(o, first)) = named.get(s.name.as_str()) {
            section_name.push(o);
            first_named.push(first);
            continue;
        }
        let o = u32::try_from(shstrtab.len()).unwrap_or(u32::MAX);
        named.insert(&s.name, (o, id));
        section_name.push(o);
        first_named.push(id);
        shstrtab.extend_from_slice(s.name.as_bytes());
        shstrtab.push(0);
    }
    (shstrtab, section_name, first_named)
}

/// Whether a section is a constant bank of one function, `.nv.constant<N>.<fn>`
/// (bank 0's parameters, bank 2's `const_opt` values), rather than a bank the
/// whole program shares (`.nv.constant3`). Rule 5.5.
fn per_function_bank(name: &str) -> bool {
    name.strip_prefix(".nv.constant").and_then(|rest| rest.split_once('.')).is_some_and(|(bank, function)| {
        !bank.is_empty() && bank.bytes().all(|b| b.is_ascii_digit()) && !function.is_empty()
    })
}

/// U27: where rule 12.10 put a weak shared variable (its section and window
/// offset), found by its definition or by any copy resolving to it.
fn shared_home(layout: &Layout, resolution: &Resolution<'_>, definition: SymbolRef) -> Option<(OutId, u64)> {
    let found =
        |r: &SymbolRef| Some((*layout.shared.homes.get(r)?, layout.shared.offsets.get(r).copied().unwrap_or(0)));
    found(&definition).or_else(|| {
        let mut copies: Vec<&SymbolRef> =
            layout.shared.homes.keys().filter(|r| resolution.definition_of(**r) == Some(definition)).collect();
        copies.sort_unstable();
        copies.first().and_then(|r| found(r))
    })
}

/// Rule 12.4: executables keep the kernels' shared variables (and their
/// `.nv_debug.shared` section symbol) under `-g` or `-preserve-relocs`, on
/// Mercury targets too (rule 11.9: merc2 `-g` on sm_100..sm_121).
fn keeps_shared_locals(layout: &Layout) -> bool {
    layout.debug || layout.preserve_relocs
}

/// Rule 12.3: in `-r`, a shared variable of `.nv_debug.shared` keeps its
/// input value (ptxas's alignment, rule 12.0), wherever its input's piece
/// went: the layout is the executable link's (iv: three device functions'
/// `s[32]`, all 0x4 in a 0x180-byte section; shm: 0x4 and 0x1).
pub(crate) fn keeps_shared_value(layout: &Layout, id: crate::layout::OutId) -> bool {
    !layout.executable && layout.section(id).is_some_and(|o| o.class == SectionClass::DebugShared)
}

fn set(list: &mut [Option<u32>], g: GlobalId, value: u32) {
    if let Some(slot) = list.get_mut(g) {
        *slot = Some(value);
    }
}

/// Rule 5.3: executables turn CUDA objects into plain objects with no space
/// bits; the `__managed__` bit (0x04) stays (managed: 12/12 symbols), and so
/// does the visibility (`-preserve-relocs` keeps ptxas's STV_INTERNAL
/// constant-bank locals: `_param`, `.const_opt.*` 0x81 → 0x01, rule 8.2).
fn rewrite_type(executable: bool, st_type: u8, other: u8) -> (u8, u8) {
    if executable && st_type == STT_CUDA_OBJECT {
        (STT_OBJECT, other & (STO_CUDA_MANAGED | STO_VISIBILITY_MASK))
    } else {
        (st_type, other)
    }
}
