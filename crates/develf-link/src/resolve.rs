//! Phase 2: symbol resolution. Every non-local name gets one [`Global`], in
//! the order nvlink creates names (rule 5.1); a definition is chosen for it
//! (global over weak, the first of several weak ones: rule 9 and the doc's
//! header note); the sections of losing definitions are marked discarded.
//! Undefined references and duplicate definitions are collected with every
//! place involved, so one failed link reports all of them.

use crate::error::{Duplicate, LinkError, Location, SymbolName, Undefined};
use crate::gc::{Liveness, is_debug_section};
use crate::input::InputObject;
use develf_format::section::{SHT_CUDA_CALLGRAPH, SHT_CUDA_GLOBAL, SHT_CUDA_RESERVED_SHARED};
use develf_format::symbol::{
    SHN_COMMON, STB_GLOBAL, STB_LOCAL, STB_WEAK, STO_CUDA_ENTRY, STO_CUDA_SHARED, STO_CUDA_SPACE_MASK,
    STT_CUDA_SURFACE, STT_CUDA_TEXTURE, STT_FUNC, STT_SECTION,
};
use develf_parse::elf::Symbol;
use hashbrown::{HashMap, HashSet};

/// `STT_CUDA_SAMPLER`, not in develf-format's table.
pub(crate) const STT_CUDA_SAMPLER: u8 = 11;
/// `SHF_INFO_LINK`: `sh_info` names the section this one belongs to.
pub(crate) const SHF_INFO_LINK: u64 = 0x40;

/// Index into [`Resolution::globals`].
pub(crate) type GlobalId = usize;

/// A symbol of one input.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Hash, PartialOrd, Ord)]
pub(crate) struct SymbolRef {
    pub input: usize,
    pub symbol: usize,
}

/// One non-local name of the link.
#[derive(Debug)]
pub(crate) struct Global<'a> {
    pub name: &'a str,
    /// The chosen definition, if any input defines it.
    pub definition: Option<SymbolRef>,
    /// The first occurrence, which gives an undefined symbol its attributes.
    pub first: SymbolRef,
    /// The first definition in input order; a later copy that loses lost
    /// when it was met (its debug records go, rule 9.11).
    pub first_definition: Option<SymbolRef>,
}

/// The unified function/data table symbols: weak-undefined in every input;
/// executables drop them and `-r` makes them global (rule 5.3).
pub(crate) const TABLE_SYMBOLS: [&str; 8] =
    ["__UFT_OFFSET", "__UDT_OFFSET", "__UFT_CANONICAL", "__UDT_CANONICAL", "__UFT", "__UDT", "__UFT_END", "__UDT_END"];

/// Rule 13.4: the functions nvlink 13.5 lets stay undefined in an executable
/// because the driver supplies them, as listed in nvlink's own string table
/// (each one checked by linking a kernel that calls it: links; a name one
/// letter off, `cudaGetDevice`, `cudaLaunchDeviceV2`, `memcpy`: `Undefined
/// reference`). `malloc` is in the list through a string shared with libc's.
const DRIVER_FUNCTIONS: &[&str] = &[
    "vprintf",
    "malloc",
    "free",
    "vfprintf",
    "__assertfail",
    "__profile",
    "cnpGetParameterBuffer",
    "cnpLaunchDevice",
    "cnpCtxSynchronize",
    "cnpFuncGetAttribute",
    "cnpStreamCreate",
    "cnpStreamDestroy",
    "cnpStreamWaitEvent",
    "cnpEventCreate",
    "cnpEventRecord",
    "cnpEventDestroy",
    "cnpDeviceGetName",
    "cnpDeviceGetAttribute",
    "cnpGetDeviceCount",
    "cnpGetDevice",
    "cnpGetLastError",
    "cnpSetLastError",
    "cnpGetCacheConfig",
    "cnpGetSharedMemConfig",
    "cnpGetLimit",
    "cnpDeviceGetTotalMem",
    "cnpGetParameterBufferV2",
    "cnpLaunchDeviceV2",
    "cudaGraphLaunch",
    "cudaGraphSetConditional",
    "cudaGraphKernelNodeSetParam",
    "cudaGraphKernelNodeSetGridDim",
    "cudaGraphKernelNodeSetEnabled",
    "cudaFabricOpErrorStatusCount",
    "cudaFabricOpErrorStatusGet",
    "cudaResizeSharedMemory",
    "cudaDeviceMemcpyAsync",
    "cudaDeviceMemcpyBatchAsync",
    "cudaGraphKernelNodeUpdatesApply",
    "cudaSubgridSynchronousWorkspaceInitialize",
    "cudaSubgridSynchronousWorkspaceCompleteAndFetchWorkItem",
    "cudaSubgridSynchronousWorkspaceAdvanceWorkset",
    "cudaSubgridSynchronousWorkspaceGetWorksetUserData",
    "cudaSubgridWarpSpecializedWorkspaceInitialize",
    "cudaSubgridWarpSpecializedWorkspaceAdvanceWorkset",
    "cudaSubgridWarpSpecializedWorkspaceGetWorksetUserData",
    "cudaSubgridWarpSpecializedWorkspaceFetchWorkItem",
    "cudaSubgridWarpSpecializedWorkspaceWaitOnWorkItemDependencies",
    "cudaSubgridWarpSpecializedWorkspaceCompleteWorkItem",
    "cudaSubgridScheduleManageWarpSpecializedWorkspaceAndDependencies",
];

/// Rule 13.4: any name starting with this is a driver system call and may stay
/// undefined (`__cuda_syscall`, `__cuda_syscallx`, `__cuda_syscall_cnpv2*`
/// all link; `__cuda_foo` does not).
const SYSCALL_PREFIX: &str = "__cuda_syscall";

#[derive(Debug)]
pub(crate) struct Resolution<'a> {
    /// In name-creation order (rule 5.1).
    pub globals: Vec<Global<'a>>,
    /// Per input, per symbol: its global, for non-local symbols.
    pub global_of: Vec<Vec<Option<GlobalId>>>,
    /// Per input, per section: the section holds a definition that lost to
    /// another input's (weak duplicates), or belongs to one (its `.nv.info.<fn>`,
    /// constant bank, relocations). Such sections contribute nothing.
    pub discarded: Vec<Vec<bool>>,
    /// U17: globals only PTX `.common` symbols (SHN_COMMON, st_value the
    /// alignment) define, in global order: (global, size, alignment), the
    /// largest of their copies. The linker allocates them (layout).
    pub common: Vec<(GlobalId, u64, u64)>,
    /// The weak copies that replaced the one chosen before them (U9/U13).
    /// With the first copies, these were chosen when met; every other copy
    /// lost when met (rule 9.11). Few: a set per link, not per symbol.
    pub replacers: HashSet<SymbolRef>,
}

impl<'a> Resolution<'a> {
    /// Rule 9.11: a definition never chosen, neither the first copy nor one
    /// that replaced the chosen copy when it was met.
    pub fn lost_when_met(&self, r: SymbolRef) -> bool {
        let first = self.global(r).and_then(|g| self.globals.get(g)).and_then(|g| g.first_definition);
        first.is_some_and(|f| f != r) && !self.replacers.contains(&r)
    }

    pub fn global(&self, r: SymbolRef) -> Option<GlobalId> {
        self.global_of.get(r.input).and_then(|g| g.get(r.symbol)).copied().flatten()
    }

    /// The definition an input symbol resolves to: itself for locals and for a
    /// definition, the chosen definition for a global.
    pub fn definition_of(&self, r: SymbolRef) -> Option<SymbolRef> {
        match self.global(r) {
            Some(g) => self.globals.get(g).and_then(|g| g.definition),
            None => Some(r),
        }
    }

    pub fn is_discarded(&self, input: usize, section: usize) -> bool {
        self.discarded.get(input).and_then(|d| d.get(section)).copied().unwrap_or(false)
    }
}

/// Every call pair of the inputs' own `.nv.callgraph` sections (not the merc
/// copies, which repeat them with other indices, nor a discarded
/// duplicate's), as the (input, section) of the caller's and the callee's
/// definitions, in input and listed order. Calls ptxas resolved without a
/// relocation are only here (rules 6.1 and 9.9).
pub(crate) fn callgraph_calls(
    inputs: &[InputObject<'_>],
    resolution: &Resolution<'_>,
    mut call: impl FnMut((usize, usize), (usize, usize)),
) {
    for input in inputs {
        input_callgraph(inputs, resolution, input, &mut call, |_| {});
    }
}

/// [`callgraph_calls`] of one input's `.nv.callgraph`; and `taken`, the
/// definition of each function it lists as address-taken (its second
/// block), from the same decoding.
pub(crate) fn input_callgraph(
    inputs: &[InputObject<'_>],
    resolution: &Resolution<'_>,
    input: &InputObject<'_>,
    mut call: impl FnMut((usize, usize), (usize, usize)),
    mut taken: impl FnMut((usize, usize)),
) {
    for s in input.sections() {
        if s.sh_type != SHT_CUDA_CALLGRAPH || s.name != ".nv.callgraph" || resolution.is_discarded(input.index, s.index)
        {
            continue;
        }
        let Ok(graph) = develf_eiattr::CallGraph::decode(s.bytes()) else { continue };
        let home = |symbol: u32| {
            let def = resolution.definition_of(SymbolRef { input: input.index, symbol: symbol as usize })?;
            Some((def.input, inputs.get(def.input)?.symbol(def.symbol)?.section_index()?))
        };
        // Rule 9.13: the calls of a weak copy that lost when met (rule 9.11)
        // are not its winner's: fresh2 `tlib` (sm_90), whose `tl_poly<double>`
        // in tl_b loses to tl_a's, drops tl_b's local
        // `__cuda_sm20_dsqrt_rn_f64_mediumpath_v1`, which only that copy
        // called. A copy taken first and replaced (U9) keeps its calls: with
        // tl_a built `-maxrregcount=24` last (`tl_c tl_b tl_a`), tl_b's
        // `tl_poly<double>` is replaced and its dsqrt stays.
        let lost = |symbol: u32| {
            let here = SymbolRef { input: input.index, symbol: symbol as usize };
            input
                .symbol(here.symbol)
                .and_then(|s| s.section_index())
                .is_some_and(|x| resolution.is_discarded(input.index, x) && resolution.lost_when_met(here))
        };
        for pair in &graph.calls {
            if lost(pair.0) {
                continue;
            }
            if let (Some(from), Some(to)) = (home(pair.0), home(pair.1)) {
                call(from, to);
            }
        }
        for pair in &graph.address_taken {
            if let Some(at) = home(pair.0) {
                taken(at);
            }
        }
    }
}

pub(crate) fn is_defined(s: &Symbol<'_>) -> bool {
    s.section_index().is_some()
}

pub(crate) fn is_kernel(s: &Symbol<'_>) -> bool {
    s.st_type == STT_FUNC && s.other & STO_CUDA_ENTRY != 0
}

fn location(inputs: &[InputObject<'_>], r: SymbolRef) -> Location {
    let Some(input) = inputs.get(r.input) else {
        return Location { file: String::new(), section: String::new(), within: None };
    };
    let sym = input.symbol(r.symbol);
    let section = sym.and_then(|s| s.section_index()).map(|i| input.section_name(i)).unwrap_or_default();
    Location { file: input.name.to_string(), section, within: None }
}

/// Rule 13.4: a function the driver supplies (`vprintf`, `malloc`, the
/// `__cuda_syscall_*` entry points, ...), which may stay undefined.
pub fn is_driver_function(name: &str) -> bool {
    DRIVER_FUNCTIONS.contains(&name) || name.starts_with(SYSCALL_PREFIX)
}

/// May this name stay undefined in an executable whatever references it? Weak
/// references, textures and surfaces (bound by the driver), shared-memory
/// externs (placed per kernel), `.nv.reservedSmem.*`, the table symbols and
/// the driver's functions (rule 13.4).
fn may_stay_undefined(s: &Symbol<'_>) -> bool {
    s.bind == STB_WEAK
        || matches!(s.st_type, STT_CUDA_TEXTURE | STT_CUDA_SURFACE | STT_CUDA_SAMPLER)
        || s.other & STO_CUDA_SPACE_MASK == STO_CUDA_SHARED
        || s.name.starts_with(".nv.reservedSmem")
        || TABLE_SYMBOLS.contains(&s.name)
        || is_driver_function(s.name)
}

pub(crate) fn resolve<'a>(inputs: &[InputObject<'a>]) -> Result<Resolution<'a>, LinkError> {
    // Room for every non-local symbol: growing rehashes every name, and
    // locals (half of a big link's symbols) never get a global.
    let symbols: usize =
        inputs.iter().map(|i| i.symbols().iter().filter(|s| s.bind != STB_LOCAL && s.index != 0).count()).sum();
    let mut globals: Vec<Global<'a>> = Vec::with_capacity(symbols);
    let mut by_name: HashMap<&'a str, GlobalId> = HashMap::with_capacity(symbols);
    let mut global_of: Vec<Vec<Option<GlobalId>>> = Vec::with_capacity(inputs.len());
    // Rule 5.1: per input, its FUNC symbols first, then its other globals.
    for input in inputs {
        let symbols = input.symbols();
        let mut map = vec![None; symbols.len()];
        for functions_pass in [true, false] {
            for s in symbols {
                if s.bind == STB_LOCAL || s.index == 0 || (s.st_type == STT_FUNC) != functions_pass {
                    continue;
                }
                let id = *by_name.entry(s.name).or_insert_with(|| {
                    globals.push(Global {
                        name: s.name,
                        definition: None,
                        first: SymbolRef { input: input.index, symbol: s.index },
                        first_definition: None,
                    });
                    globals.len() - 1
                });
                if let Some(slot) = map.get_mut(s.index) {
                    *slot = Some(id);
                }
            }
        }
        global_of.push(map);
    }

    // Choose definitions in input order: global over weak; among weak
    // functions the one using fewer registers, else the first (U9: a template
    // function whose second copy was compiled with `-maxrregcount=32` wins
    // with 32 registers over the first copy's 61, in either input order;
    // wreg on sm_75..sm_120, exec and `-r`).
    let mut regcounts: HashMap<usize, HashMap<usize, u32>> = HashMap::new();
    let mut regs = |r: SymbolRef| -> Option<u32> {
        let table = regcounts.entry(r.input).or_insert_with(|| function_regcounts(inputs.get(r.input)));
        table.get(&r.symbol).copied()
    };
    let mut losers: Vec<SymbolRef> = Vec::new();
    let mut replacers: HashSet<SymbolRef> = HashSet::new();
    let mut duplicates: HashMap<GlobalId, Vec<SymbolRef>> = HashMap::new();
    let mut clash = None;
    // Rule 12.8 (relinking a `-r` output with extern shared memory): an
    // object's undefined global `extern __shared__` symbol met before any
    // definition counts as one, so a `-r` output defining the same name (in
    // `.nv_debug.shared`) later is a multiple definition ("first defined in"
    // the object); the other order links (fresh5 `pamix`: plain `b.cubin`
    // before `-r` output `pa.cubin`, exec, `-r`, `-g` and `-r -g`).
    let mut extern_first: HashMap<GlobalId, SymbolRef> = HashMap::new();
    for input in inputs {
        for s in input.symbols() {
            if s.bind == STB_GLOBAL && !is_defined(s) && s.other & STO_CUDA_SPACE_MASK == STO_CUDA_SHARED {
                if let Some(id) = global_of.get(input.index).and_then(|m| m.get(s.index)).copied().flatten() {
                    if globals.get(id).is_some_and(|g| g.definition.is_none()) {
                        extern_first.entry(id).or_insert(SymbolRef { input: input.index, symbol: s.index });
                    }
                }
                continue;
            }
            if s.bind == STB_LOCAL || !is_defined(s) {
                continue;
            }
            let Some(id) = global_of.get(input.index).and_then(|m| m.get(s.index)).copied().flatten() else {
                continue;
            };
            let here = SymbolRef { input: input.index, symbol: s.index };
            let Some(global) = globals.get_mut(id) else { continue };
            if global.definition.is_none() && s.bind == STB_GLOBAL {
                if let Some(&first) = extern_first.get(&id) {
                    duplicates.entry(id).or_insert_with(|| vec![first]).push(here);
                }
            }
            let Some(current) = global.definition else {
                global.definition = Some(here);
                global.first_definition = Some(here);
                continue;
            };
            let Some(cur) = inputs.get(current.input).and_then(|i| i.symbol(current.symbol)) else { continue };
            if (cur.st_type == STT_FUNC || s.st_type == STT_FUNC) && is_kernel(cur) != is_kernel(s) && clash.is_none() {
                let (k, o) = if is_kernel(cur) { (current, here) } else { (here, current) };
                clash = Some((id, k, o));
            }
            match (cur.bind, s.bind) {
                (STB_GLOBAL, STB_GLOBAL) => duplicates.entry(id).or_insert_with(|| vec![current]).push(here),
                (STB_WEAK, STB_GLOBAL) => {
                    losers.push(current);
                    global.definition = Some(here);
                }
                (STB_WEAK, STB_WEAK) if cur.st_type == STT_FUNC && s.st_type == STT_FUNC => {
                    // Fewer registers than the copy chosen so far win (U9);
                    // with equal counts, a copy assembled from newer PTX than
                    // the *first* copy's (U13: sm_80 + sm_86 objects for sm_86
                    // keep sm_86's `shared_helper`, 24 = 24 registers, but
                    // sm_80's `tsum<int>`, 36 < 44). The first copy, not the
                    // chosen one: fresh3 sm_80 ps_a, sm_86 ps_b, sm_86 ps_e
                    // linked for sm_86: ps_b's `ps_fill<float>` replaces
                    // ps_a's, and ps_e's, equal to ps_b's, replaces it too
                    // (its `.nv.info` records, and all three FDE relocations,
                    // rule 9.11); without ps_a, ps_e's loses (sm_86/sm_89,
                    // exec and `-r`). "Newer" is the cuinfo note's virtual
                    // SM, not the object's SM (rule 9.14: compute_75 code for
                    // sm_86 does not replace compute_80 code for sm_80; two
                    // compute_75 copies keep the first, whatever their SMs).
                    let sm = |r: SymbolRef| inputs.get(r.input).map_or(0, |i| i.ptx_sm());
                    let first = global.first_definition.unwrap_or(current);
                    let wins = match (regs(here), regs(current)) {
                        (Some(new), Some(old)) => new < old || (new == old && sm(here) > sm(first)),
                        _ => false,
                    };
                    if wins {
                        losers.push(current);
                        global.definition = Some(here);
                        replacers.insert(here);
                    } else {
                        losers.push(here);
                    }
                }
                _ => losers.push(here),
            }
        }
    }
    if let Some((id, k, o)) = clash {
        let name = globals.get(id).map(|g| g.name).unwrap_or_default();
        return Err(LinkError::KernelClash {
            symbol: SymbolName::new(name),
            kernel: location(inputs, k),
            other: location(inputs, o),
            reported_in: k.input.max(o.input),
        });
    }
    if !duplicates.is_empty() {
        let mut list: Vec<(GlobalId, Vec<SymbolRef>)> = duplicates.into_iter().collect();
        list.sort();
        return Err(LinkError::DuplicateDefinitions(
            list.into_iter()
                .map(|(id, defs)| Duplicate {
                    symbol: SymbolName::new(globals.get(id).map(|g| g.name).unwrap_or_default()),
                    reported_in: defs.get(1).map_or(0, |d| d.input),
                    definitions: defs.into_iter().map(|d| location(inputs, d)).collect(),
                })
                .collect(),
        ));
    }

    let winner_of = |r: SymbolRef| {
        global_of.get(r.input).and_then(|m| m.get(r.symbol)).copied().flatten().and_then(|g| globals.get(g)?.definition)
    };
    let discarded = discarded_sections(inputs, &losers, &winner_of);
    // U17: a global no input defines but some input declares `.common`
    // (SHN_COMMON) is allocated by the linker; a real definition wins.
    let mut common: Vec<(GlobalId, u64, u64)> = Vec::new();
    for input in inputs {
        for s in input.symbols().iter().filter(|s| s.raw_shndx == SHN_COMMON && s.bind != STB_LOCAL) {
            let Some(id) = global_of.get(input.index).and_then(|m| m.get(s.index)).copied().flatten() else { continue };
            if globals.get(id).is_some_and(|g| g.definition.is_some()) {
                continue;
            }
            match common.iter_mut().find(|(g, _, _)| *g == id) {
                Some((_, size, align)) => {
                    *size = (*size).max(s.size);
                    *align = (*align).max(s.value.max(1));
                }
                None => common.push((id, s.size, s.value.max(1))),
            }
        }
    }
    common.sort_unstable();
    Ok(Resolution { globals, global_of, discarded, common, replacers })
}

/// Per symbol of `input`: the REGCOUNT its `.nv.info` gives the function.
fn function_regcounts(input: Option<&InputObject<'_>>) -> HashMap<usize, u32> {
    let mut out = HashMap::new();
    let Some(input) = input else { return out };
    for s in input.sections().iter().filter(|s| s.name == ".nv.info") {
        for record in develf_eiattr::NvInfo::decode(s.bytes()).records {
            if let develf_eiattr::Attribute::Regcount(develf_eiattr::shape::FunctionValue { function, value }) =
                record.attribute
            {
                out.insert(function as usize, value);
            }
        }
    }
    out
}

/// Data sections an input loses whole when every definition in them lost
/// (rule 9.15): zero-filled ones, whose bytes nvlink need not keep. Sections
/// with bytes (`.nv.global.init`, `.nv.constant3`) keep a losing copy's.
const ZERO_FILLED_DATA: &[u32] = &[SHT_CUDA_GLOBAL, SHT_CUDA_RESERVED_SHARED];

/// The sections of losing definitions: the function's `.text`, every section
/// attached to it through `sh_info` (`.nv.info.<fn>`, `.nv.constant0.<fn>`,
/// `.nv.shared.<fn>`), and relocation sections patching any of them.
///
/// Except (rule 9) a later losing copy's `.nv.constant2.<fn>` when the
/// winner has none: nvlink keeps it as a section of its own, bytes and
/// section symbol, `sh_info` the winner's `.text` (fresh4 loser-bank2: a
/// `-use_fast_math` copy of `fx_horner<float, 5>`, 38 registers, losing to
/// an earlier plain one, 36; exec and `-r`, sm_75..sm_89).
fn discarded_sections(
    inputs: &[InputObject<'_>],
    losers: &[SymbolRef],
    winner_of: &dyn Fn(SymbolRef) -> Option<SymbolRef>,
) -> Vec<Vec<bool>> {
    let mut discarded: Vec<Vec<bool>> = inputs.iter().map(|i| vec![false; i.sections().len()]).collect();
    let lost: HashSet<(usize, usize)> = losers.iter().map(|l| (l.input, l.symbol)).collect();
    for loser in losers {
        let Some(input) = inputs.get(loser.input) else { continue };
        let Some(sym) = input.symbol(loser.symbol) else { continue };
        if sym.st_type != STT_FUNC {
            // A losing data definition shares its section with other data: only
            // the symbol loses (its bytes stay, as nvlink does not deduplicate).
            // Except (rule 9.15) a zero-filled section of an input in which every
            // definition lost: nvlink drops it whole. sm_110's
            // `.nv.shared.reserved.0` holds nothing but the weak
            // `__nv_reservedSMEM_gb10b_war_var` (0x80 bytes) in every object:
            // nvlink keeps the first copy, section and merc copy alike (merc2
            // sm_110, 3 and 6 inputs, exec and `-r`: 0x80, not 0x180). An
            // input's `.nv.global` holding only losing variable-template
            // instances or function-local statics of inline functions goes too
            // (sweep p31, every target, exec and `-r`), while
            // `.nv.global.init` and `.nv.constant3` keep a losing copy's bytes.
            let Some(home) = sym.section_index() else { continue };
            let Some(section) = input.section(home) else { continue };
            let all_lost = input.symbols().iter().all(|o| {
                o.section_index() != Some(home) || o.st_type == STT_SECTION || lost.contains(&(loser.input, o.index))
            });
            if ZERO_FILLED_DATA.contains(&section.sh_type) && all_lost {
                let merc = format!(".nv.merc{}", section.name);
                let Some(marks) = discarded.get_mut(loser.input) else { continue };
                for s in input.sections() {
                    if s.index == home || (s.sh_type == section.sh_type && s.name == merc) {
                        if let Some(m) = marks.get_mut(s.index) {
                            *m = true;
                        }
                    }
                }
            }
            continue;
        }
        let Some(text) = sym.section_index() else { continue };
        let Some(marks) = discarded.get_mut(loser.input) else { continue };
        if let Some(m) = marks.get_mut(text) {
            *m = true;
        }
        // A copy met after the winner keeps its `.nv.constant2.<fn>` (rule 9,
        // losing banks): a section of its own where the winner's input has
        // none, else merged with the winner's (crate::layout, U25).
        let met_after_winner = winner_of(*loser).is_some_and(|w| w.input < loser.input);
        for s in input.sections() {
            if s.flags & SHF_INFO_LINK != 0 && s.info as usize == text {
                if s.name.starts_with(".nv.constant2.") && met_after_winner {
                    continue;
                }
                if let Some(m) = marks.get_mut(s.index) {
                    *m = true;
                }
            }
        }
        for rs in input.cubin.relocation_sections() {
            if marks.get(rs.target as usize).copied().unwrap_or(false) {
                if let Some(m) = marks.get_mut(rs.section) {
                    *m = true;
                }
            }
        }
    }
    discarded
}

/// Rule 13.4: which names an executable may leave undefined. Run after
/// dead-code elimination: an undefined *function* is an error only when code
/// that survives refers to it (a dead function's call to an undefined `foo`
/// links; libcudadevrt's unused wrappers call `cnp*`/`__cudaCDP2*` helpers
/// nothing defines), while an undefined *variable* is an error even when only
/// dead code, or nothing, refers to it (nvlink: `Undefined reference to 'gv'`
/// in all three cases).
pub(crate) fn check_undefined(
    inputs: &[InputObject<'_>],
    resolution: &Resolution<'_>,
    liveness: &Liveness,
) -> Result<(), LinkError> {
    let mut candidate = vec![false; resolution.globals.len()];
    for (id, g) in resolution.globals.iter().enumerate() {
        if g.definition.is_some() || resolution.common.iter().any(|&(c, _, _)| c == id) {
            continue;
        }
        let Some(first) = inputs.get(g.first.input).and_then(|i| i.symbol(g.first.symbol)) else { continue };
        if !may_stay_undefined(first) {
            candidate[id] = true;
        }
    }
    if !candidate.contains(&true) {
        return Ok(());
    }
    // One pass over the relocations: every place that names a candidate (the
    // function whose code holds it), and whether any of them survives.
    let mut references: HashMap<GlobalId, (Vec<Location>, bool)> = HashMap::new();
    for input in inputs {
        for rs in input.cubin.relocation_sections() {
            let target = rs.target as usize;
            let mut place: Option<(Location, bool)> = None;
            for r in rs.entries() {
                let Some(id) = resolution.global(SymbolRef { input: input.index, symbol: r.symbol as usize }) else {
                    continue;
                };
                if !candidate.get(id).copied().unwrap_or(false) {
                    continue;
                }
                let (location, live) = place.get_or_insert_with(|| {
                    let section = input.section_name(target);
                    let live = !liveness.is_dead(input.index, target)
                        && !resolution.is_discarded(input.index, target)
                        && !is_debug_section(&section);
                    let within = input
                        .symbols()
                        .iter()
                        .find(|s| s.st_type == STT_FUNC && s.section_index() == Some(target))
                        .map(|s| SymbolName::new(s.name).to_string());
                    (Location { file: input.name.to_string(), section, within }, live)
                });
                let entry = references.entry(id).or_default();
                entry.1 |= *live;
                if !entry.0.contains(location) {
                    entry.0.push(location.clone());
                }
            }
        }
    }
    let mut report: Vec<Undefined> = Vec::new();
    for (id, g) in resolution.globals.iter().enumerate() {
        if !candidate[id] {
            continue;
        }
        let Some(first) = inputs.get(g.first.input).and_then(|i| i.symbol(g.first.symbol)) else { continue };
        let (mut referenced_from, live) = references.remove(&id).unwrap_or_default();
        if first.st_type == STT_FUNC && !live {
            continue;
        }
        if referenced_from.is_empty() {
            referenced_from.push(location(inputs, g.first));
        }
        report.push(Undefined { symbol: SymbolName::new(g.name), referenced_from });
    }
    if report.is_empty() {
        return Ok(());
    }
    Err(LinkError::UndefinedSymbols(report))
}
