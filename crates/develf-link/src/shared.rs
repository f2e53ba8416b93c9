//! Shared memory per kernel (rule 12 of docs/nvlink-layout.md; rules 1.2,
//! 5.3 and 8.2 for the sections, symbols and relocations involved).
//!
//! ptxas writes a shared variable like a COMMON symbol: `st_value` is its
//! alignment and `st_size` its size. A kernel's own variables sit in its
//! `.nv.shared.<k>`, a device function's in `.nv_debug.shared`, and an
//! `extern __shared__` array is an undefined symbol. An executable lays out
//! every kernel's window anew (rule 12.1); `nvlink -r` keeps the inputs'
//! sections and only makes room for `extern __shared__` (rule 12.3).

use crate::gc::is_code_section;
use crate::input::InputObject;
use crate::layout::{InfoField, Keep, Layout, OutId, SectionClass};
use crate::resolve::{Resolution, SymbolRef};
use develf_eiattr::CallGraph;
use develf_format::section::SHT_CUDA_CALLGRAPH;
use develf_format::symbol::{STB_LOCAL, STB_WEAK, STO_CUDA_SHARED, STO_CUDA_SPACE_MASK, STT_SECTION};
use develf_parse::elf::string_at;
use hashbrown::{HashMap, HashSet};
use rayon::prelude::*;
use std::collections::{BTreeMap, VecDeque};

/// Alignment of `extern __shared__` memory and of the `-r` instance (rule 12).
const EXTERN_ALIGN: u64 = 16;
/// The symbol whose value is the reserved shared area (sm_90+ objects: 0x400).
const RESERVED_CAP: &str = ".nv.reservedSmem.cap";
/// The reserved shared area of every window on sm_90 and later (rule 12.1).
const RESERVED_FROM_SM90: u64 = 0x400;

/// What the shared-memory pass decided.
#[derive(Debug, Default)]
pub(crate) struct SharedPlan {
    /// Executables: each shared variable's offset in the window of the
    /// kernel(s) using it (the value its relocations get).
    pub offsets: HashMap<SymbolRef, u64>,
    /// Executables: where `extern __shared__` memory starts, per kernel `.text`.
    pub extern_offset: HashMap<OutId, u64>,
    /// `-r`: the values of the `externsharedinstance` symbols, one per distinct
    /// extern offset, in kernel creation order (rule 12.3).
    pub instances: Vec<u64>,
    /// `-r`: which instance each function's `.text` refers to.
    pub instance_of: HashMap<OutId, usize>,
    /// `-r`, and executables under `-g` (rule 12.4): the section extern
    /// shared symbols are defined in.
    pub debug_shared: Option<OutId>,
    /// Executables: kept `.nv.shared.<k>` without variables, which get no
    /// section symbol: size 0 before the reserved area, which on sm_100+ the
    /// finaliser adds later (rule 12.2).
    pub no_symbol: HashSet<OutId>,
    /// The reserved area at the start of every window (`.nv.reservedSmem.cap`,
    /// 0x400 in sm_90+ objects, 0 before; rule 12.1).
    pub reserved: u64,
    /// Executables: every kernel's static window, for the over-limit check
    /// (crate::checks, rule 12.6).
    pub windows: Vec<Window>,
    /// Executables under `-g`/`-preserve-relocs` (rule 12.10): the section
    /// each device function's shared variable is kept in (its kernel's
    /// `.nv.shared.<k>` when one kernel reaches it, else `.nv_debug.shared`).
    pub homes: HashMap<SymbolRef, OutId>,
    /// Executables (rule 12.10): each `extern __shared__` symbol's offset,
    /// the largest extern offset of the kernels naming it.
    pub extern_values: HashMap<String, u64>,
    /// What `-g` adds to those offsets in `.symtab`: the reserved area when a
    /// common area exists (rule 12.10).
    pub extern_bias: u64,
    /// Executables: where the common area (rule 12.1) ends, if there is one.
    pub common_area: Option<u64>,
    /// Executables: the code sections (input, section) some kernel reaches
    /// (a kernel kept without being walked reaches only its own).
    pub kernel_code: HashSet<Node>,
    /// The value nvlink leaves in the null symbol (rule 12.9): not 0 only
    /// when an input `.nv.shared.<k>` has no variables (a `-r` output's
    /// extern room).
    pub null_value: u64,
}

/// One kernel's static shared memory in an executable: where its variables
/// end (extern memory and the reserved area excluded, as nvlink counts) and
/// each variable with the function whose code declares it.
#[derive(Debug, Clone)]
pub(crate) struct Window {
    /// The kernel's `.text` (input, section).
    pub kernel: Node,
    pub end: u64,
    /// (variable, its function's `.text` (input, section), size).
    pub variables: Vec<(SymbolRef, Node, u64)>,
}

/// A shared variable of an input.
struct Variable {
    symbol: SymbolRef,
    align: u64,
    size: u64,
}

fn align_up(value: u64, align: u64) -> u64 {
    let align = align.max(1);
    value.div_ceil(align).saturating_mul(align)
}

/// Whether a shared symbol is `extern __shared__` memory: undefined, or
/// (rule 12.8) defined by a `-r` link in `.nv_debug.shared` with size 0
/// (`dyn` in a relinked `-r` output); a real variable has a size.
pub(crate) fn is_extern(input: &InputObject<'_>, sym: &develf_parse::elf::Symbol<'_>) -> bool {
    match sym.section_index() {
        None => true,
        Some(x) => sym.size == 0 && input.section(x).is_some_and(|s| is_debug_shared(s)),
    }
}

/// Whether symbol `here` refers to `extern __shared__` memory ([`is_extern`])
/// once resolved: an undefined name, or the definition a relinked `-r`
/// output gives it.
pub(crate) fn refers_to_extern(inputs: &[InputObject<'_>], resolution: &Resolution<'_>, here: SymbolRef) -> bool {
    let key = resolution.definition_of(here).unwrap_or(here);
    inputs.get(key.input).is_some_and(|i| i.symbol(key.symbol).is_some_and(|s| is_extern(i, s)))
}

/// Whether an input section is a `.nv_debug.shared` (device functions'
/// variables, weak template statics, `-r`'s externs).
fn is_debug_shared(section: &develf_parse::elf::Section<'_>) -> bool {
    SectionClass::of_input(section.name, section.sh_type) == Some(SectionClass::DebugShared)
}

fn is_shared(s: &develf_parse::elf::Symbol<'_>) -> bool {
    s.index != 0 && s.st_type != STT_SECTION && s.other & STO_CUDA_SPACE_MASK == STO_CUDA_SHARED
}

/// Input `.text` sections are nodes: (input, section).
pub(crate) type Node = (usize, usize);

pub(crate) struct Facts {
    /// Functions called (or referenced) by each function.
    edges: HashMap<Node, Vec<Node>>,
    /// Shared variables each function's code refers to.
    uses: HashMap<Node, Vec<SymbolRef>>,
    /// Functions whose code refers to `extern __shared__` memory.
    extern_users: HashSet<Node>,
    /// Some input refers to `extern __shared__` memory.
    any_extern: bool,
    /// Some code refers to an extern a `-r` output defined in
    /// `.nv_debug.shared` (a device function's `dyn`, rule 12.8).
    defined_extern: bool,
    /// Some input names, through an undefined symbol, an extern another
    /// input (a `-r` output) defines (rule 12.8).
    extern_defined_elsewhere: bool,
    /// Some code refers to an extern a `-r` output defines (any
    /// `.nv_debug.shared`, rule 12.9).
    relinked_extern: bool,
    /// Every extern referred to has alignment (`st_value`) 0: CUDA 12.9's
    /// ptxas (ABI 7) writes 0 (rule 12.3, fresh4 r-abi7-extern).
    zero_extern_align: bool,
    /// The alignment of extern memory: the largest `st_value` (12.0: the
    /// alignment) of the extern symbols referred to; 16 for nvcc's arrays,
    /// 0x100 for an `externsharedinstance` a `-r` link gave offset 0x100
    /// (rule 12.8).
    extern_align: u64,
    /// The largest `st_value` of the extern symbols, 0 when every one is an
    /// extern a `-r -g` output defined at offset 0 (rule 12.9).
    extern_value: u64,
    /// Whether code names an extern a `-r` output defined past offset 0 in a
    /// `.nv_debug.shared` that holds variables too (the common area's, then
    /// an extern user's own): a `-g` executable then keeps every kernel's
    /// room, empty (rule 12.9). Not where the section holds externs only
    /// (sweep19 p200 `G-r-relink-g`: `probe_dyn` at 0x40, and the rooms of
    /// kernels not using extern memory go).
    extern_past_zero: bool,
    /// The largest extern alignment each function's code refers to.
    node_extern_align: HashMap<Node, u64>,
    /// Per code section: the alignment of the extern its first input
    /// relocation against extern memory names (rule 12.3's instance offset).
    node_first_extern_align: HashMap<Node, u64>,
    /// The extern symbols each function's code names.
    node_externs: HashMap<Node, Vec<String>>,
    /// Kernels an executable keeps without walking them (`-preserve-relocs`
    /// with `-kernels-used`, [`crate::gc::Liveness`]'s `unwalked_kernels`):
    /// to nvlink they reach no callee's variables (sweep16 p182
    /// `rmsnorm<T>` calling `block_sum<T>`, whose static `red` gives it no
    /// window; `softmax_rows<T>` 0x80 for its own `sm`, not 0x100).
    unwalked: HashSet<Node>,
}

/// What the inputs' code says about shared memory; needs no layout.
pub(crate) fn facts(
    inputs: &[InputObject<'_>],
    resolution: &Resolution<'_>,
    executable: bool,
    debug: bool,
    indirect: &HashMap<Node, Vec<Node>>,
) -> Facts {
    let mut f = Facts {
        edges: HashMap::new(),
        uses: HashMap::new(),
        extern_users: HashSet::new(),
        any_extern: false,
        defined_extern: false,
        extern_defined_elsewhere: false,
        relinked_extern: false,
        zero_extern_align: false,
        extern_align: 0,
        extern_value: 0,
        extern_past_zero: false,
        node_extern_align: HashMap::new(),
        node_first_extern_align: HashMap::new(),
        node_externs: HashMap::new(),
        unwalked: HashSet::new(),
    };
    // Same-named externs are one symbol, and the first copy (input order,
    // symbol order) gives its alignment: the weak `externsharedinstance`s
    // of a `-r` output (0x100, 0x10, 0x10) all align to 0x100 (rule 12.8),
    // but (0x10, 0x20, 0x10) to 0x10 (rule 12.9's e2: windows 16-aligned).
    let mut name_align: HashMap<&str, u64> = HashMap::new();
    // An extern a `-r -g` output defines at offset 0 of its
    // `.nv_debug.shared` is not an ABI-7 extern of alignment 0: relinked
    // with plain `-r` its users' rooms grow as for a 16-aligned extern
    // (session 41: gkeep, gkp4, gkp16 `-r -g` outputs relinked `-r`,
    // `gkeep_dyn` 0x20; sm_75, sm_90). Executables and `-r -g` take the
    // offset as it is (rules 12.8, 12.10).
    for input in inputs {
        for sym in input.symbols().iter().filter(|y| is_shared(y) && is_extern(input, y)) {
            let defined_at_zero = !executable && !debug && sym.section_index().is_some() && sym.value == 0;
            name_align.entry(sym.name).or_insert(if defined_at_zero { EXTERN_ALIGN } else { sym.value });
        }
    }
    let mut node_names: HashMap<Node, Vec<&str>> = HashMap::new();
    // Without a shared variable anywhere the call edges reach nothing that
    // counts (no uses, no externs): a big link of plain code skips walking
    // every relocation (`cargo xtask bench --only big`: 2% of its time).
    let any_shared = inputs.iter().any(|i| i.symbols().iter().any(is_shared));
    for input in inputs.iter().filter(|_| any_shared) {
        // Whether each of this input's sections holds strong variables,
        // found once per section, not per relocation (rule 12.8, below).
        let mut strong: HashMap<usize, bool> = HashMap::new();
        let mut holds_strong =
            |x: usize| *strong.entry(x).or_insert_with(|| holds_strong_variables(inputs, input.index, x));
        let debug_shared = input.sections().iter().find(|x| x.name == ".nv_debug.shared").map(|x| x.index);
        for rs in input.cubin.relocation_sections() {
            let from = (input.index, rs.target as usize);
            if resolution.is_discarded(input.index, rs.section)
                || !input.section(rs.target as usize).is_some_and(|s| is_code_section(s.name))
            {
                continue;
            }
            for r in rs.entries() {
                let here = SymbolRef { input: input.index, symbol: r.symbol as usize };
                let Some(sym) = input.symbol(here.symbol) else { continue };
                if is_shared(sym) {
                    if is_extern(input, sym) {
                        f.extern_users.insert(from);
                        f.any_extern = true;
                        // Rule 12.8: only where that section holds device
                        // functions' variables too (relinked shm, xshm); an
                        // extern-only one is kept (fresh relinked: `shared_mix`
                        // names `dsm_f`/`dsm_i`, the section holds no variable).
                        // Not a section holding only weak template statics
                        // (f6 cubl's `-r` output: `block_scan<T,N>::s` WEAK
                        // beside the defined `raw`; relinked, the empty
                        // `.nv_debug.shared` stays, sm_75..sm_90a).
                        // A relinked `-r` output's kernel naming its
                        // `externsharedinstance` counts too, where that output
                        // defines the externs beside variables (fixture `eqx`'s `-r`
                        // output relinked: `eqx_kb`, `eqx_kc` share
                        // `eqx_pair`'s `best`/`pos`, and `.nv_debug.shared`
                        // goes; sm_75..sm_100; fixture `eqx-relink`).
                        let defined_in = match sym.section_index() {
                            None if sym.name == crate::symbols::EXTERN_INSTANCE => debug_shared,
                            x => x,
                        };
                        f.defined_extern |= defined_in.is_some_and(&mut holds_strong);
                        f.extern_defined_elsewhere |= sym.section_index().is_none()
                            && resolution.definition_of(here).is_some_and(|d| d.input != input.index);
                        f.relinked_extern |= sym.section_index().is_some();
                        f.extern_past_zero |= sym.value > 0
                            && sym.section_index().is_some_and(|x| holds_variables(inputs, input.index, x));
                        node_names.entry(from).or_default().push(sym.name);
                    } else if !f.uses.get(&from).is_some_and(|l| l.contains(&here)) {
                        f.uses.entry(from).or_default().push(here);
                    }
                    continue;
                }
                // An address taken is no call: the function's shared memory
                // counts only through an indirect call site (`indirect`, below).
                if crate::gc::takes_address_half(r.r_type) {
                    continue;
                }
                let Some(def) = resolution.definition_of(here) else { continue };
                let Some(target) = inputs.get(def.input).and_then(|i| i.symbol(def.symbol)) else { continue };
                // Rule 12.1: a kernel's address (a device-side launch, `child<<<..>>>`)
                // is no call: the child runs in its own window (dynp: `parent_k`
                // launching `child_sum`, whose extern memory does not keep the
                // parent's window; sm_75..sm_120 exec and `-r`).
                if crate::resolve::is_kernel(target) {
                    continue;
                }
                let Some(section) = target.section_index() else {
                    continue;
                };
                let to = (def.input, section);
                let is_text =
                    inputs.get(def.input).and_then(|i| i.section(section)).is_some_and(|s| is_code_section(s.name));
                let list = f.edges.entry(from).or_default();
                if is_text && to != from && !list.contains(&to) {
                    list.push(to);
                }
            }
        }
    }
    if executable && any_shared {
        for (from, targets) in indirect {
            let list = f.edges.entry(*from).or_default();
            for &to in targets {
                if !list.contains(&to) {
                    list.push(to);
                }
            }
        }
    }
    for (node, names) in node_names {
        let a = names.iter().filter_map(|n| name_align.get(n)).copied().max().unwrap_or(EXTERN_ALIGN);
        f.node_extern_align.insert(node, a);
        if let Some(first) = names.first().and_then(|n| name_align.get(n)) {
            f.node_first_extern_align.insert(node, *first);
        }
        f.node_externs.insert(node, names.iter().map(|n| (*n).to_string()).collect());
    }
    // The link's extern alignment counts every extern, named by code or not
    // (rule 12.9: relinking e2+e1 with `-r`, whose code names only the
    // instances (first 0x10): `buf`'s 0x40 aligns `.nv_debug.shared`).
    if f.any_extern {
        f.extern_align = name_align.values().copied().max().unwrap_or(0);
        f.extern_value = f.extern_align;
    }
    if f.extern_align == 0 {
        f.zero_extern_align = f.any_extern && !name_align.is_empty();
        f.extern_align = EXTERN_ALIGN;
    }
    f
}

impl Facts {
    /// Whether this function's own code names `extern __shared__` memory.
    pub(crate) fn uses_extern_itself(&self, node: Node) -> bool {
        self.extern_users.contains(&node)
    }

    /// U27: whether function `node`'s own code names a weak variable of an
    /// input's `.nv_debug.shared`: a template kernel's own static, which
    /// ptxas puts there and an executable moves into the kernel's window.
    pub(crate) fn uses_weak_static_itself(&self, inputs: &[InputObject<'_>], node: Node) -> bool {
        self.uses.get(&node).is_some_and(|vars| {
            vars.iter().any(|v| {
                let Some(input) = inputs.get(v.input) else { return false };
                input.symbol(v.symbol).is_some_and(|y| {
                    y.bind == STB_WEAK
                        && y.section_index().and_then(|x| input.section(x)).is_some_and(|x| is_debug_shared(x))
                })
            })
        })
    }

    /// Records the kernels kept without being walked (see `unwalked`).
    pub(crate) fn set_unwalked(&mut self, kernels: &hashbrown::HashSet<(usize, usize)>) {
        self.unwalked = kernels.iter().copied().collect();
    }
}

/// Rule 12.1: in an executable an indirect call site reaches every
/// address-taken function of its prototype (`.nv.callgraph` blocks 3 and 2,
/// signatures compared as strings), as in rules 7.1/7.2: `table_kernel`
/// calling `float(float)` pointers reaches `shared_mix(int)` (both `#ii`),
/// whose `extern __shared__` keeps the kernel's window (fresh sm_75..sm_90a).
/// `-r` links do not count them (the kernel stays a non-user, rule 12.3).
/// Dead-code elimination walks them too (rule 9.12).
/// Computed once per link, by dead-code elimination ([`crate::gc::Liveness`]).
pub(crate) fn indirect_edges(inputs: &[InputObject<'_>], resolution: &Resolution<'_>) -> HashMap<Node, Vec<Node>> {
    let mut edges: HashMap<Node, Vec<Node>> = HashMap::new();
    let mut sites: Vec<(Node, &str)> = Vec::new();
    let mut taken: Vec<(Node, &str)> = Vec::new();
    for input in inputs {
        let Some(strtab) = input.cubin.symtab().and_then(|t| input.section(t.section)).map(|s| s.link as usize) else {
            continue;
        };
        let Some(strings) = input.section(strtab).and_then(|s| s.data) else { continue };
        for s in input.sections() {
            if s.sh_type != SHT_CUDA_CALLGRAPH
                || s.name != ".nv.callgraph"
                || resolution.is_discarded(input.index, s.index)
            {
                continue;
            }
            let Ok(graph) = CallGraph::decode(s.bytes()) else { continue };
            let home = |symbol: u32| {
                let def = resolution.definition_of(SymbolRef { input: input.index, symbol: symbol as usize })?;
                Some((def.input, inputs.get(def.input)?.symbol(def.symbol)?.section_index()?))
            };
            for (list, pairs) in [(&mut sites, &graph.indirect_calls), (&mut taken, &graph.address_taken)] {
                for p in pairs {
                    if let (Some(node), Some(sig)) = (home(p.0), string_at(strings, p.1)) {
                        list.push((node, sig));
                    }
                }
            }
        }
    }
    for (from, sig) in sites {
        for &(to, _) in taken.iter().filter(|(_, t)| *t == sig) {
            let list = edges.entry(from).or_default();
            if to != from && !list.contains(&to) {
                list.push(to);
            }
        }
    }
    edges
}

fn reach(facts: &Facts, start: Node) -> Vec<Node> {
    if facts.unwalked.contains(&start) {
        return vec![start];
    }
    let mut seen: HashSet<Node> = HashSet::from([start]);
    let mut order = vec![start];
    let mut queue = VecDeque::from([start]);
    while let Some(n) = queue.pop_front() {
        for &c in facts.edges.get(&n).map(Vec::as_slice).unwrap_or_default() {
            if seen.insert(c) {
                order.push(c);
                queue.push_back(c);
            }
        }
    }
    order
}

/// One kernel's `.nv.shared.<k>` and the facts about it.
struct Kernel {
    shared: OutId,
    text: OutId,
    /// The kernel's own variables (its input `.nv.shared.<k>`), symbol order.
    own: Vec<Variable>,
    own_size: u64,
    /// The own variables laid out by rule 12.1's order (`-r` sizes, rule 12.3).
    own_extent: u64,
    own_align: u64,
    /// An input `.nv.shared.<k>` without variables (a `-r` output's extern
    /// room): its (input, section) and `sh_addralign` (rule 12.9).
    room: Option<(Node, u64)>,
    /// Whether an input had a `.nv.shared.<k>` for it (a room `-g` ignores
    /// still counts: rule 12.9).
    had_section: bool,
    reach: Vec<Node>,
    uses_extern: bool,
}

fn kernels(inputs: &[InputObject<'_>], layout: &Layout, facts: &Facts) -> Vec<Kernel> {
    // Each kernel's facts (its reach above all) are its own: found in
    // parallel, collected in section order.
    layout
        .sections
        .par_iter()
        .enumerate()
        .filter_map(|(id, s)| {
            if s.class != SectionClass::Shared {
                return None;
            }
            let InfoField::Section(text) = s.info else { return None };
            let piece = layout.section(text).and_then(|t| t.pieces.first()).copied()?;
            let node = (piece.input, piece.section);
            let mut own = Vec::new();
            let mut own_size = 0;
            let mut own_align = 1;
            let mut room = None;
            let had_section = !s.pieces.is_empty();
            for p in &s.pieces {
                let Some(input) = inputs.get(p.input) else { continue };
                if let Some(sec) = input.section(p.section) {
                    own_size = own_size.max(p.offset.saturating_add(sec.size));
                    own_align = own_align.max(sec.addralign);
                    room = room.or(Some(((p.input, p.section), sec.addralign)));
                }
                for sym in input.symbols().iter().filter(|y| is_shared(y) && y.section_index() == Some(p.section)) {
                    own.push(Variable {
                        symbol: SymbolRef { input: p.input, symbol: sym.index },
                        align: sym.value.max(1),
                        size: sym.size,
                    });
                }
            }
            if !own.is_empty() {
                room = None;
            } else if layout.debug && room.is_some() {
                // Rule 12.9: `-g` ignores a `-r` output's rooms: in an executable
                // a kernel not reaching extern memory loses its section, a user's
                // extern memory starts at 0 (fresh relinked `-g -r` and `-r`
                // outputs with `-g`: 0x400 on sm_90, not 0x410); `-r -g` sizes
                // the kernel as an object's (fresh `-r` output, `-r -g`: 0x10).
                room = None;
                own_size = 0;
                // Nor its alignment (f6 cubl `-G`, the `-r -g` output
                // relinked `-g`: `scan_f`'s 16-aligned room, window 8-aligned).
                own_align = 1;
            }
            if let Some(max) = own.iter().map(|v| v.align).max() {
                // Rule 12.8: with variables, theirs is the alignment; a `-r`
                // output's section align 16 does not count (relinked shared:
                // `shared_static_kernel` 4).
                own_align = max;
            }
            let mut sorted: Vec<&Variable> = own.iter().collect();
            sorted.sort_by_key(|v| std::cmp::Reverse(v.align));
            // Rule 12.8: a section without variables (a `-r` output's extern
            // room) keeps its size as a block; with variables only they count
            // (sync: input 8, one 4-byte variable, output 4).
            let own_extent = if own.is_empty() {
                own_size
            } else {
                sorted.iter().fold(0, |cur, v| align_up(cur, v.align).saturating_add(v.size))
            };
            let reach = reach(facts, node);
            let uses_extern = reach.iter().any(|n| facts.extern_users.contains(n));
            Some(Kernel {
                shared: id,
                text,
                own,
                own_size,
                own_extent,
                own_align,
                room,
                had_section,
                reach,
                uses_extern,
            })
        })
        .collect()
}

/// Rule 12: decides every `.nv.shared.<k>`'s size, alignment and survival,
/// and the offsets relocations against shared variables get.
pub(crate) fn plan(inputs: &[InputObject<'_>], resolution: &Resolution<'_>, facts: Facts, layout: &mut Layout) {
    let kernels = kernels(inputs, layout, &facts);
    let debug_shared = layout.find(".nv_debug.shared");
    // Rule 12.1: the target decides the reserved area, 0x400 from sm_90 on,
    // not the inputs' `.nv.reservedSmem.cap` (CUDA 12.9's ptxas writes
    // none: fresh3's ABI-7 `ps_warp_stats` window is 0x200 + 0x400 on sm_90
    // and sm_90a, a lone ABI-7 kernel's 0x100 + 0x400 on sm_90, sm_100 and
    // sm_120). The symbol is read too, should an input ever say more.
    let by_target = if layout.target_sm >= 90 { RESERVED_FROM_SM90 } else { 0 };
    let reserved = inputs
        .iter()
        .flat_map(|i| i.symbols().iter())
        .filter(|s| s.name == RESERVED_CAP)
        .map(|s| s.value)
        .fold(by_target, u64::max);
    let mut plan = SharedPlan { reserved, null_value: null_value(layout, &kernels, reserved), ..SharedPlan::default() };
    if layout.executable {
        plan.kernel_code = kernels.iter().flat_map(|k| k.reach.iter().copied()).collect();
        let (extern_beside_common, pool_align) =
            plan_executable(inputs, resolution, layout, &facts, &kernels, reserved, &mut plan);
        // Inputs' `.nv_debug.shared` holding only extern definitions (a
        // `-r -g` output's): their alignment is not kept (fresh4 Grr.g,
        // lirr.g: G.gr's 0x80-aligned section relinked with `-g` comes out
        // 16-aligned, as from the objects; sm_75..sm_120).
        let only_externs = inputs.iter().all(|i| {
            i.sections()
                .iter()
                .filter(|s| s.name == ".nv_debug.shared")
                .all(|s| !holds_variables(inputs, i.index, s.index))
        });
        if let Some(out) = debug_shared.and_then(|id| layout.sections.get_mut(id)) {
            if only_externs && facts.any_extern {
                out.align = EXTERN_ALIGN;
            } else if (layout.debug || layout.preserve_relocs) && facts.any_extern && plan.common_area.is_some() {
                // Under `-g`, which defines the externs here, their largest
                // `st_value` counts as an alignment, as a relinked `-r`
                // output's instances do (rule 12.8.1): xshm_a's `-r -g`
                // output defines `xshm_dyn` at 0x30 beside `xshm_read`'s
                // `tile`; relinked with `-g` the section is 0x30-aligned
                // (sm_75..sm_100, plain and `-G`; fixture `xshma-relink-g`).
                // So does `-preserve-relocs`: sweep17 p197's 128-aligned
                // `dyn_raw` makes the section 128-aligned (sm_75..sm_120;
                // fixture `dsh128-pr`). Only where a common area is left in
                // it: with the one weak static moved into its kernel's window,
                // the empty section stays 16-aligned beside an extern at 0x100
                // (fixture `gkeep5-relink-g`, sm_75 and sm_90).
                // The pool's alignment counts too (sweep23 p241 `g` and
                // `preserve`: `sm_pair_energy`'s `alignas(256)` statics
                // beside 16-aligned externs: 256; sm_75..sm_90; fixture
                // `xsa`).
                out.align = out.align.max(facts.extern_value).max(pool_align.unwrap_or(0));
            }
            // Rule 12.2: no bytes of its own in an executable (sm_100+: the
            // reserved area, and so under `-g` or `-preserve-relocs`, rule
            // 12.4); kept only for extern shared memory.
            let keeps_symbols = layout.debug || layout.preserve_relocs;
            out.size = if layout.mercury || keeps_symbols { reserved } else { 0 };
            // Rule 12.8: dropped when code refers to an extern a `-r` output
            // defined here (relinked shm, xshm: a device function's `dyn`;
            // relinked shared, whose `dyn` no code names: kept) and a kernel
            // with variables of its own names extern memory itself and shares
            // the common area: xshm_a's `-r` output, relinked: `xshm_small`
            // (own `a[10]`, names `xshm_dyn`) and `xshm_big` both reach
            // `xshm_read`'s `tile`. Otherwise an empty one stays (p11 `touch`
            // naming `raw`; 21 small variants, `/tmp/s15/dbg`, sm_80;
            // fixtures `dshkeep`, `shroom*`).
            // Nor does one when an extern aligns the pool (a variable not
            // private to one kernel, a dead function's included) past 16
            // bytes: a dead function's template static and a 128-aligned
            // extern, in either order; with the static private to a live
            // kernel, or a 16-aligned extern, it stays (sm_75, sm_90,
            // sm_100; sweep17 p197; fixtures `dsh128`, `dsh16`).
            let over_aligned = pool_align.is_some_and(|a| a > EXTERN_ALIGN) && !keeps_symbols;
            // Not when another input names that extern through an undefined
            // symbol (sweep32 p332 `r-exec`: c.cu's `k_cgcopy_c` names `dyn`,
            // which the `-r` output of a.cu and b.cu defines, where
            // `k_barrier_b` is such a kernel; a.cu's `-r` output linked with
            // a b.cu naming `dyn`: the empty `.nv_debug.shared` stays,
            // sm_75..sm_120; fixture `rdsh`).
            let dropped =
                (facts.defined_extern && extern_beside_common && !facts.extern_defined_elsewhere) || over_aligned;
            out.keep = if facts.any_extern && !dropped { Keep::Always } else { Keep::Never };
            // Under `-g` it stays when an input's `.nv_debug.shared` holds
            // variables too (a `-r -g` output's, with a device function's
            // `static __shared__` beside the defined externs: fresh5 p6/p7
            // `-g` relinks, reserved size, the externs defined at 0,
            // sm_75..sm_120).
            if layout.debug && facts.any_extern && !only_externs {
                out.keep = Keep::Always;
            }
            // Rule 12.10: under `-g`/`-preserve-relocs` it holds the common
            // area after the reserved one (xshm 0x420, g2 0x418; g3, with a
            // private variable only, 0x400) and is kept for it (g5, without
            // extern memory); on Mercury too (`-preserve-relocs` cub
            // sm_100/sm_120: 0x418; s2, `f`'s `int t[6]` reached by two
            // kernels: 0x418).
            if keeps_symbols {
                if let Some(end) = plan.common_area {
                    out.size = reserved.saturating_add(end);
                    out.keep = Keep::Always;
                }
            }
        }
        // Rule 12.4: `-g` defines `extern __shared__` in `.nv_debug.shared`;
        // rule 12.10: so does `-preserve-relocs` when a common area is there
        // and a reserved area (g2, g7, g8, xshm on sm_90; not sm_75).
        let pr_keeps = layout.preserve_relocs && !layout.mercury && plan.common_area.is_some() && reserved != 0;
        if (layout.debug || pr_keeps) && facts.any_extern {
            plan.debug_shared = debug_shared;
        }
    } else {
        // Rule 12.3: the inputs' `.nv_debug.shared` are concatenated less the
        // losing copies of weak variables (cub `-r`: `block_sum<int>`'s
        // static `TempStorage`, 0x18 bytes in both inputs: 0x44 + 0x4b8 -
        // 0x18 = 0x4e4; sm_75, sm_80, sm_90, sm_100, sm_120).
        let lost: u64 = inputs
            .iter()
            .flat_map(|input| input.symbols().iter().map(move |s| (input, s)))
            .filter(|(input, s)| {
                is_shared(s)
                    && !is_extern(input, s)
                    && s.section_index().and_then(|x| input.section(x)).is_some_and(|sec| is_debug_shared(sec))
                    && resolution
                        .definition_of(SymbolRef { input: input.index, symbol: s.index })
                        .is_some_and(|d| d != SymbolRef { input: input.index, symbol: s.index })
            })
            .map(|(_, s)| s.size)
            .sum();
        let pool = pool_align(inputs);
        if let Some(out) = debug_shared.and_then(|id| layout.sections.get_mut(id)) {
            out.size = out.size.saturating_sub(lost);
            if let Some(a) = pool.filter(|_| !facts.any_extern) {
                // Without extern memory: the surviving variables' sizes,
                // summed without padding, grown by the pool alignment when
                // not above it (not the input sections, which ptxas grew
                // alike: `__align__(32) double[4]` 0x20 -> 0x40, twice 0x40;
                // `int[1]` 4 -> 8, with `int`+`char[2]` (5) 9; + `double[32]`
                // 0x120; cub-like t3+t4+ta 0x1a0 less the weak copy; sm_75).
                out.size = grow_by_pool(surviving_variables_size(inputs, resolution), a);
            }
        }
        plan_relocatable(layout, &facts, &kernels, pool, &mut plan);
        if facts.any_extern {
            if let Some(out) = debug_shared.and_then(|id| layout.sections.get_mut(id)) {
                // Rule 12.9: a `-r` output's `.nv_debug.shared` holding only
                // extern symbols (its room, sized by their alignment) adds
                // nothing: relinking `r.f1` (0x10) and `r.e1` (0x40) gives 0x40.
                let rooms: u64 = out
                    .pieces
                    .iter()
                    .filter(|p| !holds_variables(inputs, p.input, p.section))
                    .filter_map(|p| inputs.get(p.input)?.section(p.section).map(|s| s.size))
                    .sum();
                // The extern symbols are defined here and get room as a
                // kernel that does not use extern memory does (below): 0 ->
                // 0x10 (objects), 0x20 -> 0x50 for a relinked xshm (0x30, the
                // instance value as alignment), 0x297 stays (rr-shm, 0x100).
                // Of the variables, their sizes without padding, as without
                // extern memory (sweep8 p74: a device function's 4-byte
                // static `counter` in ptxas's 8-byte section, with three
                // externs: 0x14, not 0x18; sm_75..sm_120 `-r`).
                let held = out.size.saturating_sub(rooms);
                let held = match surviving_variables_size(inputs, resolution) {
                    0 => held,
                    vars => vars.min(held),
                };
                let a = relocatable_align(&facts, pool);
                out.size = grow_by_room(held, a);
                out.align = out.align.max(a);
            }
            plan.debug_shared = debug_shared;
        }
    }
    layout.shared = plan;
}

/// Rule 12.3's alignment of a `-r` link with extern memory: the externs',
/// raised by the pool's when a device function's variable is aligned above
/// them (sweep23 p241: `alignas(256)` statics of `sm_pair_energy` beside
/// 16-aligned externs. Every kernel using extern memory gets 0x200 aligned
/// 0x100, as a relinked `-r` output's 0x100 instance gives; kernels without
/// shared memory of their own that do not name extern memory get none;
/// `.nv_debug.shared` is 0x100-aligned and its 0x100-byte static grows by
/// 0x100, as at equality with a 0x100 extern; sm_75..sm_90; fixture `xsa`).
fn relocatable_align(facts: &Facts, pool: Option<u64>) -> u64 {
    facts.extern_align.max(pool.unwrap_or(0))
}

/// The sizes of the variables in the inputs' `.nv_debug.shared` that are
/// their own definitions (not losing weak copies), summed without padding.
fn surviving_variables_size(inputs: &[InputObject<'_>], resolution: &Resolution<'_>) -> u64 {
    inputs
        .iter()
        .flat_map(|input| input.symbols().iter().map(move |s| (input, s)))
        .filter(|(input, s)| {
            let here = SymbolRef { input: input.index, symbol: s.index };
            in_debug_shared(input, s) && resolution.definition_of(here).is_none_or(|d| d == here)
        })
        .map(|(_, s)| s.size)
        .sum()
}

/// The largest alignment of the extern memory kernel `k` reaches (its own
/// code and the functions it calls), if it reaches any.
fn reached_extern_align(facts: &Facts, k: &Kernel) -> Option<u64> {
    k.reach.iter().filter_map(|n| facts.node_extern_align.get(n)).copied().max()
}

/// Whether a kernel uses extern memory whose symbols all have alignment 0
/// (CUDA 12.9's ptxas, rule 12.3): in a link with ABI-8 externs too, it is
/// sized and named as in an all-ABI-7 one (/tmp/s11/ax: `a7x_k_dyn` next to
/// a 16-aligned extern user, `-r`: one unit, 0x10, and no section symbol,
/// where a 16-aligned user gets 0x20; sm_75/sm_90).
fn zero_extern_user(facts: &Facts, k: &Kernel) -> bool {
    k.uses_extern && reached_extern_align(facts, k) == Some(0)
}

/// The `-r` size of a kernel's section when the link has extern memory that
/// the kernel does not use.
fn non_user_size(k: &Kernel, a: u64) -> u64 {
    if k.room.is_some() {
        // Rule 12.9: a `-r` output's room (no variables) of a kernel
        // not using extern memory grows by the alignment whatever its
        // size (indir-relink `-r`: 0x10 -> 0x20 for every such kernel;
        // rr-shm's `ksa_noshared` 0x10 -> 0x110).
        k.own_size.saturating_add(a)
    } else if k.own_extent <= a {
        // A kernel grows at equality too, as under a pool (sweep10 p107
        // `r-relink-r`: `red[32]`, 0x80 bytes, in a link whose instance
        // makes the alignment 0x80: 0x100; sm_75..sm_90).
        grow_by_pool(k.own_extent, a)
    } else {
        k.own_extent.max(k.own_size)
    }
}

/// Rule 12.3: `-r`'s room for extern memory in a section whose code does not
/// use it: `a` more bytes when it holds no more than `a` (0 -> 0x10, 4 ->
/// 0x14, 7 -> 0x17, and at equality: a device function's `int c[4]` beside a
/// 16-aligned extern, 0x10 -> 0x20, fixture `pux` `-r` on sm_75..sm_100),
/// nothing otherwise (0x31, 0x200). Fits 6 `.nv_debug.shared` samples; the
/// mechanism is unknown. A kernel's section grows at equality too
/// ([`non_user_size`], [`grow_by_pool`]).
fn grow_by_room(extent: u64, a: u64) -> u64 {
    if extent <= a { extent.saturating_add(a) } else { extent }
}

/// Rule 12.3: the largest alignment (st_value, 12.0) of the device
/// functions' variables (`.nv_debug.shared`, weak template statics
/// included), if there is one.
fn pool_align(inputs: &[InputObject<'_>]) -> Option<u64> {
    inputs
        .iter()
        .flat_map(|input| input.symbols().iter().map(move |s| (input, s)))
        .filter(|(input, s)| in_debug_shared(input, s))
        .map(|(_, s)| s.value.max(1))
        .max()
}

/// Whether a symbol is a device function's shared variable (not extern).
fn in_debug_shared(input: &InputObject<'_>, s: &develf_parse::elf::Symbol<'_>) -> bool {
    is_shared(s)
        && !is_extern(input, s)
        && s.section_index().and_then(|x| input.section(x)).is_some_and(|sec| is_debug_shared(sec))
}

/// Rule 12.3 without extern memory: like [`grow_by_room`], but also at
/// equality (a kernel's `int[1]` with an `int` pool 4 -> 8, `double[4]` with
/// a 32-aligned pool 0x20 -> 0x40; ptxas does the same in one object:
/// `double q[1]` 8 -> 0x10; sm_75).
fn grow_by_pool(extent: u64, a: u64) -> u64 {
    if extent <= a { extent.saturating_add(a) } else { extent }
}

/// Whether an input section defines a shared variable with a size (not only
/// the extern symbols a `-r` output defines in `.nv_debug.shared`).
fn holds_variables(inputs: &[InputObject<'_>], input: usize, section: usize) -> bool {
    inputs.get(input).is_some_and(|i| {
        i.symbols().iter().any(|y| is_shared(y) && y.section_index() == Some(section) && !is_extern(i, y))
    })
}

/// [`holds_variables`] counting only local and global variables, not weak ones.
fn holds_strong_variables(inputs: &[InputObject<'_>], input: usize, section: usize) -> bool {
    inputs.get(input).is_some_and(|i| {
        i.symbols()
            .iter()
            .any(|y| is_shared(y) && y.section_index() == Some(section) && !is_extern(i, y) && y.bind != STB_WEAK)
    })
}

/// Rule 12.1: the common area as nvlink fills it. A variable goes at the
/// first of the area's successive ends (0, then each end a variable grew it
/// to, in the order they went in) where it overlaps no variable of a kernel
/// reaching it: not right after the variables of its own kernels, and not
/// in a hole an end below the area's end leaves (fixture `cah`: `cah_a`'s
/// `A[128]` (k1, k2, k5) and `cah_h`'s `H[64]` (k3, k4) both at 0, then
/// `cah_h`'s `s` at 0x200, not 0x100; sweep11 p124: `hist_build`'s five
/// scalars at 0x208, 0x408, 0x40c, ... among the other functions' scalars;
/// sm_75..sm_100).
#[derive(Default)]
struct CommonArea {
    /// The area's successive ends, ascending; the first is 0.
    ends: Vec<u64>,
    /// Each kernel's variables in the area: start -> end, disjoint.
    taken: HashMap<usize, BTreeMap<u64, u64>>,
}

impl CommonArea {
    /// Places a variable of `size` bytes and alignment `align` used by the
    /// kernels `by`; returns its offset.
    fn place(&mut self, by: &[usize], align: u64, size: u64) -> u64 {
        if self.ends.is_empty() {
            self.ends.push(0);
        }
        let overlaps = |at: u64| {
            let end = at.saturating_add(size);
            by.iter().any(|k| {
                // Disjoint intervals sorted by start have sorted ends too:
                // the last one starting before `end` reaches furthest.
                self.taken.get(k).and_then(|t| t.range(..end).next_back()).is_some_and(|(_, &e)| e > at)
            })
        };
        // The last end is the area's, past every variable: always free.
        let at = self.ends.iter().map(|&e| align_up(e, align)).find(|&at| !overlaps(at)).unwrap_or(0);
        let end = at.saturating_add(size);
        for k in by {
            let e = self.taken.entry(*k).or_default().entry(at).or_default();
            *e = (*e).max(end);
        }
        if self.ends.last().is_some_and(|&last| end > last) {
            self.ends.push(end);
        }
        at
    }

    /// Where the area ends: past every variable in it.
    fn end(&self) -> u64 {
        self.ends.last().copied().unwrap_or(0)
    }

    /// Where the variables of kernel `k` in the area end.
    fn kernel_end(&self, k: usize) -> u64 {
        self.taken.get(&k).and_then(|t| t.values().max()).copied().unwrap_or(0)
    }
}

/// Rule 12.1: nvlink's order of the device functions' shared variables,
/// which decides the common area's order and is where each kernel's sort of
/// its private variables starts. nvlink lists the variables together with
/// every `extern __shared__` symbol (size 0), by input and symbol index, and
/// sorts the list largest first with [`list_merge_sort`], an equal item of
/// the second half going first. Not stable, so equal variables come out in
/// an order that depends on every item listed, externs included. One
/// function's n equal `int`s (sm_75 `-g`, one object, n = 2..7, two
/// kernels) go 1 0; 1 0 2; 1 3 0 2; 1 3 2 4 0; ... and, reached by one
/// kernel, in that order sorted once more by the kernel's own sort (1 0;
/// 2 1 0; 0 1 2 3; ...; fixture `eqn`). Sweep10 p103 `swWavefront`'s
/// `bestScore`/`bestPos` are at 0, 4 after inputs `a b`, `a b c` and
/// `c b a`, at 4, 0 after `b a`, `a c b` and in the relinked `-r` output,
/// which only the listed externs (`buf`, `dyn`, `rows`) explain (fixtures
/// `eqx`, `eqx-rev`). The names and the code do not count.
fn sorted_pool<'a>(
    inputs: &'a [InputObject<'a>],
    resolution: &Resolution<'_>,
    pool: Vec<(Variable, Node)>,
) -> Vec<(Variable, Node)> {
    /// An item of nvlink's list: a variable (with the copies of it the
    /// kept code names), or an extern (size 0).
    struct Listed {
        at: SymbolRef,
        size: u64,
        named: Vec<(Variable, Node)>,
    }
    let mut listed: Vec<Listed> =
        pool.into_iter().map(|(v, node)| Listed { at: v.symbol, size: v.size, named: vec![(v, node)] }).collect();
    // An extern name is one symbol of the link, listed where it first
    // appears (p124's relinked `-r` output: its three
    // `externsharedinstance`s count once).
    let mut names: HashSet<&str> = HashSet::new();
    let pooled: HashSet<SymbolRef> = listed.iter().map(|l| l.at).collect();
    for input in inputs {
        for s in input.symbols().iter() {
            let at = SymbolRef { input: input.index, symbol: s.index };
            if is_shared(s) && is_extern(input, s) && names.insert(s.name) {
                listed.push(Listed { at, size: 0, named: Vec::new() });
            } else if in_debug_shared(input, s) && s.bind == STB_LOCAL && !pooled.contains(&at) {
                // Local variables of functions no kept kernel reaches are
                // listed too (p124's relinked `-r` output under
                // `-kernels-used`: `hist_build`'s scalars sort as in the
                // full link); a weak copy whose function lost is not
                // (sweep10 p117's `block_reduce<Min>` statics).
                listed.push(Listed { at, size: s.size, named: Vec::new() });
            } else if in_debug_shared(input, s)
                && s.bind != STB_LOCAL
                && !pooled.contains(&at)
                && resolution.definition_of(at).is_none_or(|d| d == at)
            {
                // So are weak variables no code names (a template's
                // `__shared__` that ptxas optimised out of its function, CUB's
                // `WarpReduce` storage in `warp_sum<float, 16>`), except a
                // copy another input's defines (sweep14 p160: with
                // `warp_sum`'s two such arrays listed, `block_sum<int>`'s
                // 0x18 bytes come before `block_max_f`'s and
                // `block_sort_keys`' 0x1220 before `block_sort_pairs`').
                listed.push(Listed { at, size: s.size, named: Vec::new() });
            }
        }
    }
    listed.sort_by_key(|l| (l.at.input, l.at.symbol));
    // A weak variable is one item, where its first copy is (named by code
    // or not), whichever copies the kept code names: sweep22 p238's
    // `row_norms_k` calls three `transform_reduce_block<lambda>` instances
    // of algos.cu, each with a 0x400-byte `s`; `reduce_k<Plus,float>`'s
    // `s`, first in core.cu but named in algos.cu, comes before them, and
    // nvlink places them in symbol order (0, 0x400, 0x800); counted where
    // algos.cu names it, they came out the other way round (fixture
    // `wcp`). Sweep17 p197 `preserve-ku` (rule 9.6) likewise on sm_80.
    let definition = |at: SymbolRef| resolution.definition_of(at).unwrap_or(at);
    let mut first: HashMap<SymbolRef, usize> = HashMap::new();
    let mut merged: Vec<Listed> = Vec::with_capacity(listed.len());
    for l in listed {
        let key = definition(l.at);
        match first.get(&key).and_then(|&i| merged.get_mut(i)) {
            Some(item) => item.named.extend(l.named),
            None => {
                first.insert(key, merged.len());
                merged.push(l);
            }
        }
    }
    list_merge_sort(merged, &|y, x| y.size >= x.size).into_iter().flat_map(|l| l.named).collect()
}

/// Rule 12.9: nvlink treats an input `.nv.shared.<k>` without variables (only
/// `-r` outputs have one: the extern room of rule 12.3) as if it held a
/// variable with symbol index 0, and so writes into the null symbol what it
/// writes into a variable: executables add the reserved area once per such
/// section (relinked sm_90: one 0x400, shm's three 0xc00, four kernels
/// 0x1000; sm_75 0; the Mercury finaliser writes a clean null symbol, sm_100
/// 0); `-r` sets the alignment (a COMMON-style value, rule 12.0) of the first
/// such section in input order (0x10, 0x40 for a 64-aligned extern's room;
/// `r.f1 r.e1` 0x10, `r.e1 r.f1` 0x40), `.nv.merc.symtab` mirroring it.
fn null_value(layout: &Layout, kernels: &[Kernel], reserved: u64) -> u64 {
    // Not an unselected kernel's room (rule 9.6: relinking kur's `-r` output
    // with `-r -kernels-used=` a kernel it lacks, the null symbol is 0).
    let rooms = kernels.iter().filter(|k| !layout.unselected_rooms.contains(&k.shared)).filter_map(|k| k.room);
    if !layout.executable {
        rooms.min_by_key(|&(node, _)| node).map_or(0, |(_, align)| align)
    } else if layout.mercury {
        0
    } else {
        reserved.saturating_mul(rooms.count() as u64)
    }
}

/// Device functions' variables (`.nv_debug.shared`), each with the first
/// function naming it, in nvlink's order ([`sorted_pool`]), and the
/// alignment of each one's input `.nv_debug.shared`.
fn pool(
    inputs: &[InputObject<'_>],
    resolution: &Resolution<'_>,
    facts: &Facts,
) -> (Vec<(Variable, Node)>, HashMap<SymbolRef, u64>) {
    let mut pool: Vec<(Variable, Node)> = Vec::new();
    let mut pool_section_align: HashMap<SymbolRef, u64> = HashMap::new();
    // In node order: a variable several functions name (a function and
    // ptxas's local clone of it, `f_one` and `f_one$2`) takes the first
    // one's node, whatever the hash map's order (rule 12.1's tie order
    // depends on it; develf's output used to change from run to run).
    let mut uses: Vec<(&Node, &Vec<SymbolRef>)> = facts.uses.iter().collect();
    uses.sort_unstable_by_key(|(n, _)| **n);
    for input in inputs {
        for (node, vars) in uses.iter().filter(|(n, _)| n.0 == input.index) {
            for &v in vars.iter() {
                let Some(sym) = input.symbol(v.symbol) else { continue };
                let section = sym.section_index().and_then(|x| input.section(x)).filter(|s| is_debug_shared(s));
                if let Some(section) = section.filter(|_| !pool.iter().any(|(p, _)| p.symbol == v)) {
                    pool.push((Variable { symbol: v, align: sym.value.max(1), size: sym.size }, **node));
                    pool_section_align.insert(v, section.addralign.max(1));
                }
            }
        }
    }
    (sorted_pool(inputs, resolution, pool), pool_section_align)
}

/// Rule 9.6 under `-preserve-relocs`: the kept unselected kernels of
/// `candidates` whose own code names a device function's variable, in the
/// order nvlink names their windows: by the first such variable in the
/// pool's order ([`sorted_pool`]: largest first), then candidate order
/// (sweep16 p182: `gemm_tiled<bf16,32>`'s 0x1080-byte `As` first, then
/// `gemm_tiled<float,16>` before `gemm_tiled<half,16>`, whose equal arrays
/// nvlink's sort puts in that order; `softmax_rows<float>` before
/// `softmax_rows<half>`). The sort lists each weak variable once, and the
/// kernels of variables one kernel names come before those of variables
/// several name (which go into the common area): sweep17 p197
/// `preserve-ku` sm_75, `tile_reduce<T,N>::buf` inlined into
/// `reduce_k<T,N>` in several files, `<float,256>`'s also into `mean_var`
/// and `<double,128>`'s into `l1_norm_d`: the windows of `reduce_k<unsigned,1024>`,
/// `<float,512>`, `<int,512>`, `<double,256>`, `<long long,256>` (equal
/// arrays in the order of a list with one copy each), then
/// `reduce_k<float,256>`, `mean_var`, `l1_norm_d`, `reduce_k<double,128>`
/// (fixture `pkw`).
pub(crate) fn unwalked_windows_order(
    inputs: &[InputObject<'_>],
    resolution: &Resolution<'_>,
    facts: &Facts,
    candidates: &[Node],
) -> Vec<Node> {
    let (pool, _) = pool(inputs, resolution, facts);
    let definition = |v: SymbolRef| resolution.definition_of(v).unwrap_or(v);
    let namers = |key: SymbolRef| -> Vec<Node> {
        candidates
            .iter()
            .copied()
            .filter(|k| facts.uses.get(k).is_some_and(|list| list.iter().any(|&u| definition(u) == key)))
            .collect()
    };
    let by_variable: Vec<Vec<Node>> = pool.iter().map(|(v, _)| namers(definition(v.symbol))).collect();
    let (private, common): (Vec<&Vec<Node>>, Vec<&Vec<Node>>) = by_variable.iter().partition(|ks| ks.len() == 1);
    let mut order = Vec::new();
    for &k in private.into_iter().chain(common).flatten() {
        if !order.contains(&k) {
            order.push(k);
        }
    }
    order
}

/// Rule 12.1. Returns whether a kernel with variables of its own names
/// extern memory in its own code and reaches the common area (rule 12.8's
/// condition for dropping a relinked `.nv_debug.shared`, in `plan`), and the
/// alignment the pool puts on every window, if it does (rule 12.9's, for
/// dropping an empty one).
fn plan_executable(
    inputs: &[InputObject<'_>],
    resolution: &Resolution<'_>,
    layout: &mut Layout,
    facts: &Facts,
    kernels: &[Kernel],
    reserved: u64,
    plan: &mut SharedPlan,
) -> (bool, Option<u64>) {
    let debug = layout.debug;
    let (pool, pool_section_align) = pool(inputs, resolution, facts);
    let mut common: Vec<(&Variable, Vec<usize>, Node)> = Vec::new();
    let mut private: HashMap<usize, Vec<&Variable>> = HashMap::new();
    let mut global_align: Option<u64> = None;
    // Every function using each variable: an inlined template's static
    // (`block_sum<int>`'s `TempStorage`) is named by each kernel that
    // inlined it, so it is reached by all of them (relinked cub `-r`: one
    // copy used by `red_int` and `red_int2`, both windows 0x418, align 0x10).
    let mut users_of: HashMap<SymbolRef, Vec<Node>> = HashMap::new();
    for (node, vars) in &facts.uses {
        for &v in vars {
            users_of.entry(v).or_default().push(*node);
        }
    }
    for users in users_of.values_mut() {
        users.sort_unstable();
    }
    let reached_by_users = |v: SymbolRef, first: Node| -> Vec<usize> {
        let users = users_of.get(&v).map_or(&[][..], Vec::as_slice);
        let mut by: Vec<usize> = kernels
            .iter()
            .enumerate()
            .filter(|(_, k)| k.reach.iter().any(|n| *n == first || users.contains(n)))
            .map(|(i, _)| i)
            .collect();
        by.dedup();
        by
    };
    // U27: the copies of one weak variable (a template's static in two
    // inputs: `red<int>`'s `s` named by t3's `kb` and t4's `kc`) are one
    // variable, laid out once, in the common area when the copies' kernels
    // are several (`-g`: WEAK in `.nv_debug.shared` at 0x400, sm_90; 0 on
    // sm_75); the other copies get its offset and home.
    let mut first_copy: HashMap<SymbolRef, SymbolRef> = HashMap::new();
    let mut aliases: Vec<(SymbolRef, SymbolRef)> = Vec::new();
    let mut copies: HashMap<SymbolRef, Vec<(SymbolRef, Node)>> = HashMap::new();
    for (v, node) in &pool {
        let key = resolution.definition_of(v.symbol).unwrap_or(v.symbol);
        copies.entry(key).or_default().push((v.symbol, *node));
    }
    for (v, node) in &pool {
        let key = resolution.definition_of(v.symbol).unwrap_or(v.symbol);
        let first = *first_copy.entry(key).or_insert(v.symbol);
        if first != v.symbol {
            aliases.push((v.symbol, first));
            continue;
        }
        let mut by: Vec<usize> = copies
            .get(&key)
            .into_iter()
            .flatten()
            .flat_map(|&(c, n)| if c == v.symbol { reached_by_users(c, *node) } else { reached_by_users(c, n) })
            .collect();
        by.sort_unstable();
        by.dedup();
        match by.as_slice() {
            [only] => private.entry(*only).or_default().push(v),
            _ => {
                // Rule 12.10: its input section's alignment, not the
                // variable's (g5: an `int` array shared by two kernels in an
                // object whose `.nv_debug.shared` is 8-aligned by a private
                // `double` array: every window 8-aligned).
                let a = pool_section_align.get(&v.symbol).copied().unwrap_or(v.align).max(v.align);
                global_align = Some(global_align.unwrap_or(1).max(a));
                // A variable no kernel reaches, kept with its function
                // (`-preserve-relocs`, `-g`), is in the common area too, at
                // 0 with every other such one: fixture `pun`'s `pun_orphan`'s
                // `tab[8]` (0x20) alone; under `-preserve-relocs
                // -kernels-used=pun_b` also `pun_sum<float>`'s and
                // `pun_sum<double>`'s `red`, `.nv_debug.shared` 0x80, the weak
                // ones still WEAK (sweep16 p182 `block_sum<T>`'s `red`,
                // called only by unwalked kernels).
                if by.len() >= 2 || (by.is_empty() && (debug || layout.preserve_relocs)) {
                    common.push((v, by.clone(), *node));
                }
            }
        }
    }
    // Rule 12.1: once one variable is not private, every window is aligned
    // to the largest alignment in the whole pool, private variables included
    // (x.cu: `f1`'s `int a[4]` reached by k1 and k2, `f2`'s `__align__(16)`
    // array by k3 only: all four windows 0x10, k4's `char c[3]` too; with
    // k2 not calling f1 (nothing common) k1 4, k4 1; sm_75; cub sm_90:
    // `block_sum<int>` shared by `red_int`/`red_int2`, `shared_scan`'s
    // 16-aligned `TempStorage` private to `red_float`: 0x10 everywhere).
    // Private means reached by one kept kernel through any of its users: a
    // variable first named by a kernel `-kernels-used` removes (an inlined
    // copy) is private to the kept kernel reaching its function (sweep24
    // p254 `-kernels-used=ik_scan_k`; fixture `kupn-ku`).
    if global_align.is_some() {
        global_align = pool.iter().map(|(v, _)| v.align).max();
    }
    if facts.any_extern {
        // An extern a `-r -g` output defined at 0 raises nothing (f6 cubl
        // `-G`, its `-r -g` output relinked `-g`: windows of kernels not
        // reaching `raw` keep the pool's 8; sm_75/sm_86/sm_90a).
        global_align = global_align.map(|a| a.max(facts.extern_value));
    }
    // The common area: variables of functions several kernels reach, laid
    // out once at the same offsets in every window (rule 12.1), in the
    // pool's order ([`sorted_pool`]): largest first (sweep p41: a weak
    // template's 0x100-byte `tile` before another instance's 0x80; /work/sweep/
    // red/shc t4, t5, t7, t8: three functions' arrays reached by two kernels,
    // largest first every time, alignment aside), equal ones as nvlink's sort
    // leaves them (fixtures `cmo`, `cmk1`, `cmk2`; sweep10 p117, p103).
    // Each variable goes where [`CommonArea::place`] finds room in every
    // window reaching it, so variables no kernel reaches together overlap
    // (cubl: `block_scan<int,256>`'s `s` (three kernels) and
    // `block_scan<float,128>`'s (two others) both at 0; `-preserve-relocs`
    // `.nv_debug.shared` 0x400).
    let mut area = CommonArea::default();
    let mut common_end: HashMap<Node, u64> = HashMap::new();
    let debug_shared = layout.find(".nv_debug.shared");
    for (v, by, node) in &common {
        let at = area.place(by, v.align, v.size);
        plan.offsets.insert(v.symbol, at);
        if let Some(id) = debug_shared {
            plan.homes.insert(v.symbol, id);
        }
        let end = at.saturating_add(v.size);
        let copy_users = aliases.iter().filter(|(_, first)| *first == v.symbol).flat_map(|(copy, _)| {
            let node = pool.iter().find(|(p, _)| p.symbol == *copy).map(|(_, n)| *n);
            node.into_iter().chain(users_of.get(copy).into_iter().flatten().copied())
        });
        let users: Vec<Node> = copy_users.collect();
        for user in std::iter::once(*node).chain(users_of.get(&v.symbol).into_iter().flatten().copied()).chain(users) {
            let e = common_end.entry(user).or_default();
            *e = (*e).max(end);
        }
    }
    let common_area = area.end();
    // The reserved-area part of the null symbol (`null_value`); a room's
    // offset is added to it below.
    let null_base = plan.null_value;
    let mut first_room_placed = false;
    let mut extern_beside_common = false;
    for (i, k) in kernels.iter().enumerate() {
        let mut cur = k.reach.iter().filter_map(|n| common_end.get(n)).copied().max().unwrap_or(0);
        cur = cur.max(area.kernel_end(i));
        let mut align = k.own_align;
        // Private variables: the kernel's own, then its callees', sorted
        // by alignment, largest first, then by size, smallest first (rule
        // 12.1), with nvlink's sort ([`list_merge_sort`]): not stable, so
        // three or more of one alignment and size come out in its order. Of
        // two, the kernel's own first (sweep14 p160 `reduce_items`' CUB
        // `TempStorage` at 0, `block_sum<long long>`'s at 0x30; fixture
        // `shown`; session 29 and before listed the callees' first, which no
        // fixture told apart). U28: a device
        // function's `pa[8]`, `qa[2]`, `ra[4]` at 0x18, 0, 8; a template
        // kernel's weak `s[4]`/`u[32]` at 0, 0x10 and `s[32]`/`u[4]` at
        // 0x10, 0 (sm_75/sm_90/sm_100); session 5: own `a[16]`, `b[8]`
        // declared in that order go b at 0x400, a at 0x420 (sm_90, sm_100);
        // f6 cubl: `reduce_d`'s own 0x80 `TempStorage` at 0, then its callee
        // `block_scan<double,512>`'s 0x1000 array at 0x80 (sm_86
        // `-preserve-relocs`, exec).
        // Rule 12.8: a relinked `-r` output's room without variables stays,
        // placed as the kernel's own variable would be, sorted with its
        // callees' (p11 `kc`: its 16-aligned 0x10 room at 0, then `touch`'s
        // 8-aligned `ll[16]` at 0x10; sm_75..sm_90a): `None` here.
        let mut placed: Vec<Option<&Variable>> = k.own.iter().map(Some).collect();
        placed.extend(private.get(&i).into_iter().flatten().copied().map(Some));
        if k.own.is_empty() && k.own_size > 0 {
            // First: nvlink treats the room as a variable with symbol index
            // 0 (rule 12.9), so it heads the list the sort starts from
            // (sweep11 p124 `r-relink-ku`: `k_hist`'s 0x10 room, then
            // `hist_build`'s scalars in the order the full list gives).
            placed.insert(0, None);
        }
        // (alignment, size) of a variable or the room.
        let extent = |v: Option<&Variable>| v.map_or((k.own_align, k.own_size), |v| (v.align, v.size));
        let placed = list_merge_sort(placed, &|&a, &b| {
            let ((a_align, a_size), (b_align, b_size)) = (extent(a), extent(b));
            a_align > b_align || (a_align == b_align && a_size < b_size)
        });
        let any_common = k.reach.iter().any(|n| common_end.contains_key(n));
        for &v in &placed {
            let (v_align, v_size) = extent(v);
            let at = align_up(cur, v_align);
            cur = at.saturating_add(v_size);
            let Some(v) = v else {
                // Rule 12.9: the null symbol, written like the room's
                // variable, takes the offset of the first kernel's room (f6
                // cubl relinked: `scan_f`'s room after the common
                // `block_scan<float,128>::s`: 0x200 on sm_75; p11: `ks2`'s
                // room at 0, not `ks`'s at 0x90 nor the sum).
                if k.room.is_some() && !first_room_placed {
                    plan.null_value = null_base.saturating_add(at);
                    first_room_placed = true;
                }
                continue;
            };
            plan.offsets.insert(v.symbol, at);
            plan.homes.insert(v.symbol, k.shared);
            align = align.max(v.align);
        }
        // The variables alone, in their placed order (a stable sort of them
        // without the room gives the same order).
        let vars: Vec<&Variable> = placed.iter().flatten().copied().collect();
        // Rule 12.8 (`plan`): such a kernel names extern memory in its own
        // code, has variables of its own and shares the common area.
        extern_beside_common |=
            !k.own.is_empty() && k.reach.first().is_some_and(|n| facts.extern_users.contains(n)) && any_common;
        if let Some(&kernel) = k.reach.first() {
            let user = |symbol: SymbolRef| pool.iter().find(|(p, _)| p.symbol == symbol).map_or(kernel, |(_, n)| *n);
            let mut variables: Vec<(SymbolRef, Node, u64)> =
                common.iter().filter(|(_, _, n)| k.reach.contains(n)).map(|(v, _, n)| (v.symbol, *n, v.size)).collect();
            variables.extend(vars.iter().map(|v| (v.symbol, user(v.symbol), v.size)));
            plan.windows.push(Window { kernel, end: cur, variables });
        }
        if k.uses_extern {
            // Rule 12.8: the extern offset follows the smallest extern
            // alignment the kernel reaches (rr-shm: `ksa` reaches its own
            // 0x100 instance and `dev_sh`'s 16-aligned `dyn`: 0x3a0; `ksb`
            // only the instance: 0x200).
            // The kernel's own code counts with the extern its first input
            // relocation names (fresh4 r-two-externs `c.cu`: `k1` names
            // `dynB` (16) first, `dynA` (64) later: extern at 0x20 after its
            // 0x14 bytes; `k2` the other way round: 0x40; fx_pipe's
            // `ns2::kern`: 0x30, not 0x80; sm_75..sm_120).
            // Not under `-g`, where the externs named by several kernels have
            // one value (fresh4 G.g/li.g: `fx_dyn_pipe` and `fx_dyn_pipe_raw`
            // both at 0x80, sm_80..sm_90a).
            // A relinked `-r` output's kernel names its `externsharedinstance`,
            // whose alignment is the first copy's (rule 12.8.1); where the
            // kernel also reaches real externs, only theirs count (sweep24
            // p250 `r-relink`: `sha_mixed_k`, 0xe0 of variables, reaches
            // `sh_f4_load`'s 64-aligned `sh_f4`: extern at 0x100, not 0xe0
            // after the first instance's 0x10; sm_75..sm_90).
            let only_instances = |n: &Node| {
                facts
                    .node_externs
                    .get(n)
                    .is_some_and(|names| names.iter().all(|x| x == crate::symbols::EXTERN_INSTANCE))
            };
            let real = k.reach.iter().any(|n| facts.node_extern_align.contains_key(n) && !only_instances(n));
            let own = |i: usize, n: &Node| if i == 0 && !debug { facts.node_first_extern_align.get(n) } else { None };
            let reached = k
                .reach
                .iter()
                .enumerate()
                .filter(|(_, n)| !(real && only_instances(n)))
                .filter_map(|(i, n)| own(i, n).or_else(|| facts.node_extern_align.get(n)))
                .copied()
                .min();
            let var_end = cur;
            cur = align_up(align_up(cur, EXTERN_ALIGN), reached.unwrap_or(EXTERN_ALIGN));
            plan.extern_offset.insert(k.text, cur);
            // Rule 12.8: the largest extern alignment the kernel reaches
            // (0x100 after relinking a `-r` output) rounds the window, not the
            // extern offset (rr-shm: `ksa`'s extern at 0x3a0, window 0x400),
            // and is the window's alignment. Per kernel: an over-aligned
            // `extern __shared__` elsewhere in the link does not count (xa:
            // `__align__(32)` `buf` and `__align__(128)` `big` in two files,
            // sm_75/sm_90/sm_100: 0x20/0x80 windows and aligns, a plain
            // extern's kernel 16).
            let most = reached_extern_align(facts, k);
            let most = most.unwrap_or(EXTERN_ALIGN).max(EXTERN_ALIGN);
            // Rule 12.9: a common area's alignment (raised to the link's
            // extern alignment) rounds the window too (an shm_a `-r` output
            // with the plain shm_b object: `ksb` reaches only the object's
            // 16-aligned `dynb`, but shares `dev_sh2`'s variables with `ksa`:
            // its 0x197 bytes round to 0x200, the extern offset stays 0x1a0).
            cur = align_up(cur, most.max(global_align.unwrap_or(1)));
            if debug && most.is_power_of_two() {
                // Rule 12.10: under `-g` the extern memory starts at the
                // rounded window's end (sweep23 p241 `g`: `sa_mean_k`'s
                // `sm_f4` at 0xd00, its 0x80 of `flags` after a 0xc00 common
                // area rounded to the pool's 0x100; 0xc80 without `-g`;
                // sm_75..sm_90; fixture `xsa`).
                plan.extern_offset.insert(k.text, cur);
            }
            if !most.is_power_of_two() {
                // Rule 12.8.1: a relinked `-r` output's `externsharedinstance`s
                // carry their kernels' extern offsets as alignments (0x90,
                // 0x2000, 0x10, 0x100: the first, 0x90, for all), which need
                // not be powers of two. The extern offset rounds up to it
                // (0x200 → 0x240), but the window is the variables' end
                // rounded to the larger of their alignment and the extern's,
                // without the extern offset: `xb_k`'s 0x100-aligned 0x200
                // room stays 0x200, `xa_k`'s 0x84 bytes give 0x90, `xb_sh`'s
                // 0x2000 0x2010 (sweep4 p61 `r-relink`, sm_75..sm_90a;
                // /work/sweep4/red/xinst).
                cur = align_up(var_end, most.max(align).max(global_align.unwrap_or(1)));
            }
            align = align.max(most);
        }
        // Rule 12.9 (U24): an extern-only window that comes out empty (no
        // reserved area: sm_75, or sm_100+ where the finaliser adds it later)
        // goes when its extern is over-aligned (xa: `kb`, 32-aligned `buf`;
        // a relinked shm_a's `ksb_only_dyn`, 0x100; sm_75 and sm_100), and
        // stays with a plain 16-aligned one (shared: `shared_dynamic_kernel`,
        // xa: `kd`). On sm_90 the reserved 0x400 keeps it.
        // So does a window kept only because the pool aligns it (below),
        // empty: fixture `dsh128`'s kernels without shared memory beside a
        // 128-aligned extern and a dead function's variable (sweep17 p197).
        let pool_kept_only = vars.is_empty() && k.own.is_empty() && k.own_size == 0 && !k.had_section;
        // Rule 9.6: an unselected kernel's window (`-preserve-relocs
        // -kernels-used`) holding nothing but its own extern memory is not
        // aligned by the pool: sweep17 p197 `preserve-ku`, `prefix_ll`,
        // `shorts_sum` and `stencil_d` (16-aligned externs) keep empty
        // 16-aligned windows beside the others' 128 (sm_75..sm_86; fixture
        // `pkw`'s `pkw_prefix`).
        let global_align = global_align.filter(|_| {
            !(layout.unselected_shared.contains(&k.shared)
                && k.uses_extern
                && !any_common
                && vars.is_empty()
                && k.own.is_empty()
                && k.own_size == 0)
        });
        // Under `-g` with a relinked `-r -g` output's externs (defined in
        // its `.nv_debug.shared`, so they align nothing) the pool alone
        // decides: 16-aligned, every window stays (above 16 only those no
        // input gave a section, as without relinking: `gkeep4-relink-g`,
        // `xsa-G-relink-g`), the output's empty rooms
        // and kernels no input gave a section alike; less, none of them
        // (session 41: /tmp/gk `hplain`, `e2k` with a 16- and a 4-aligned
        // static; sweep26 p273 `r-exec-G`'s `k_tile16`, `k_tile32`,
        // sm_75..sm_90). Without `-g` the same holds for kernels no input
        // gave a section (/tmp/gk `e2k` beside the 4-aligned output: none).
        let pool_keeps = facts.any_extern
            && match global_align {
                Some(g) if facts.relinked_extern && g < EXTERN_ALIGN => false,
                Some(EXTERN_ALIGN) if facts.relinked_extern => layout.debug || !k.had_section,
                // With ABI-7 externs (alignment 0) only a 16-aligned pool
                // keeps them, as in a `-r` link (sweep31 p323 `abi7`: an
                // ABI-7 kernel on `extern __shared__ double smem[]` beside
                // 4- and 8-aligned statics of device functions; the kernels
                // without shared memory get no window; sm_75, sm_90).
                Some(g) if facts.zero_extern_align && g != EXTERN_ALIGN => false,
                Some(_) => !k.had_section,
                None => false,
            };
        let empty_over_aligned = cur == 0
            && (layout.mercury || reserved == 0)
            && (k.uses_extern || pool_kept_only)
            && !any_common
            && align.max(global_align.unwrap_or(1)) > EXTERN_ALIGN;
        let keep = (!vars.is_empty()
            || k.uses_extern
            || any_common
            || !k.own.is_empty()
            || k.own_size > 0
            // Aligned by the pool with an extern in the link, a window no
            // input gave a section is kept (fixture `cgt`'s `k_c_scan`); a
            // `-r -g` output's empty one, a room `-g` ignores, is not
            // (sweep16 p180/p182 `G-r-relink-g`: `count_cells` and the other
            // kernels without shared memory lose theirs; fixture
            // `gkeep-relink-g`).
            || pool_keeps
            // Though `-g` ignores the rooms, it keeps them all, empty, when
            // a `-r -g` output defined an extern past offset 0 in a
            // `.nv_debug.shared` holding variables (`extern_past_zero`; its
            // user kernel's own variables first): sweep20 p212 `G-r-relink-g`,
            // `tok_class_hist_k`'s `sh_hist[4]` then `sh_text` at 0x10, and
            // `ht_reset_k`'s window kept (0, 0x400 on sm_90); fixture
            // `gkeep2-relink-g`. Not where that extern's value aligns every
            // window past 16 and nothing is reserved (or on Mercury), as an
            // over-aligned empty window goes (`empty_over_aligned`): sweep21
            // p221's `dyn_f` at 0x100 (256) after `fv_mixed_smem_k`'s 0x100
            // of its own, sm_75..sm_86 and sm_100/sm_120, kept on sm_90;
            // fixture `gkeep4-relink-g`. Nor where no common area is left
            // in `.nv_debug.shared`: a weak static that one kernel reaches goes
            // into its window (fixture `gkeep5-relink-g`, found by hand: no
            // room kept on sm_75 or sm_90; gkeep2's local `part`, p212's and
            // p221's weak statics are reached by several kernels).
            || (layout.debug
                && layout.executable
                && facts.extern_past_zero
                && k.had_section
                && !common.is_empty()
                && (facts.extern_value <= EXTERN_ALIGN || (!layout.mercury && reserved != 0))))
            && !empty_over_aligned;
        if let Some(g) = global_align {
            align = align.max(g);
        }
        if cur == 0 && (layout.mercury || reserved == 0) {
            plan.no_symbol.insert(k.shared);
        }
        // Rule 9.2: a kept kernel the lists do not reach keeps its input
        // room as it is, without the reserved area (sweep19 p206 relinked
        // with `-kernels-used`, sm_90: `dp_bitonic_k`'s 0x20, the others'
        // 0x10; fixture `kul-relink-ku`). On sm_100+ the finaliser adds the
        // area to it as to every window (0x420, 0x410).
        let room_as_is = layout.executable && !layout.mercury && layout.unselected_rooms.contains(&k.shared);
        if let Some(out) = layout.sections.get_mut(k.shared) {
            out.size = if room_as_is { cur } else { cur.saturating_add(reserved) };
            out.align = align;
            out.keep = if keep { Keep::Always } else { Keep::Never };
        }
    }
    for (copy, first) in &aliases {
        if let Some(&at) = plan.offsets.get(first) {
            plan.offsets.insert(*copy, at);
        }
        if let Some(&home) = plan.homes.get(first) {
            plan.homes.insert(*copy, home);
        }
    }
    // A weak variable's definition (its first copy) may be one no placed
    // function names, while relocations resolve to it: sweep p41 reversed
    // with the `-G` a.cu last (`c b a.G`), whose `tile_sum<32>` (fewer
    // registers) replaces c.cu's, so a.cu's `tile` is the copy laid out
    // (0x100, after `tile_sum<64>`'s 0x100 bytes) and c.cu's the definition
    // (develf patched 0 into the code and `.debug_info`; sm_75..sm_90a,
    // `G-rev` and `G-rev-g`). The definition takes the laid-out copy's place.
    for (v, _) in &pool {
        let Some(key) = resolution.definition_of(v.symbol).filter(|k| *k != v.symbol) else { continue };
        if let Some(&at) = plan.offsets.get(&v.symbol) {
            plan.offsets.entry(key).or_insert(at);
        }
        if let Some(&home) = plan.homes.get(&v.symbol) {
            plan.homes.entry(key).or_insert(home);
        }
    }
    share_extern_offsets(layout, facts, kernels, reserved, plan);
    plan.common_area = (!common.is_empty()).then_some(common_area);
    // Rule 12.10: an extern symbol's offset is the largest extern offset of
    // the kernels naming it (`-g`: one offset anyway); `-g`'s `.symtab` adds
    // the reserved area when `.nv_debug.shared` holds a common area (g1 0, g3
    // 0x20, g6 0x30; g2 0x420, xshm `xshm_dyn` 0x5b0 and `xshm_dynb` 0x400;
    // sm_75 and sm_90), `.debug_info` does not (shmG: `dyn` 0x3a0 and `dynb`
    // 0x1a0 plus ptxas's addend 0x400).
    plan.extern_bias = if common.is_empty() { 0 } else { reserved };
    for k in kernels {
        let Some(&start) = plan.extern_offset.get(&k.text) else { continue };
        for name in k.reach.iter().filter_map(|n| facts.node_externs.get(n)).flatten() {
            let v = plan.extern_values.entry(name.clone()).or_default();
            *v = (*v).max(start);
        }
    }
    (extern_beside_common, global_align)
}

/// Rule 12.1: a device function's `extern __shared__` memory has one address,
/// so every kernel reaching such a function starts its extern memory at the
/// largest of their starts, and the function's code gets that offset too
/// (shm2: `dfun` reached by k1 (own 0x28) and k2 (own 0x190): both windows
/// 0x190, `dfun` patched with 0x190; shm: `dev_sh` gets `ksa`'s 0x3a0;
/// sm_75 and sm_90). Kernels sharing such functions are settled together,
/// to a fixed point.
fn share_extern_offsets(layout: &mut Layout, facts: &Facts, kernels: &[Kernel], reserved: u64, plan: &mut SharedPlan) {
    let kernel_nodes: HashSet<Node> =
        kernels.iter().filter_map(|k| layout.section(k.text)?.pieces.first().map(|p| (p.input, p.section))).collect();
    let users: Vec<Node> = {
        let mut v: Vec<Node> = facts.extern_users.iter().copied().filter(|n| !kernel_nodes.contains(n)).collect();
        v.sort_unstable();
        v
    };
    // Kernels that must agree: those reaching one device function using
    // extern memory; under `-g`, also those naming one extern symbol, which
    // then has one value (rule 12.10: g6's three kernels, own 0, 0x24 and
    // 0xc, all put `d` at 0x30, windows 0x430).
    let mut groups: Vec<Vec<usize>> =
        users.iter().map(|f| (0..kernels.len()).filter(|&i| kernels[i].reach.contains(f)).collect()).collect();
    if layout.debug {
        let mut names: Vec<&String> = facts.node_externs.values().flatten().collect();
        names.sort_unstable();
        names.dedup();
        for name in names {
            let names_it =
                |k: &Kernel| k.reach.iter().any(|n| facts.node_externs.get(n).is_some_and(|l| l.contains(name)));
            groups.push((0..kernels.len()).filter(|&i| names_it(&kernels[i])).collect());
        }
    }
    if groups.is_empty() {
        return;
    }
    let mut start: Vec<Option<u64>> = kernels.iter().map(|k| plan.extern_offset.get(&k.text).copied()).collect();
    let mut changed = true;
    while changed {
        changed = false;
        for reaching in &groups {
            let Some(top) = reaching.iter().filter_map(|&i| start[i]).max() else { continue };
            for &i in reaching {
                if start[i] != Some(top) {
                    start[i] = Some(top);
                    changed = true;
                }
            }
        }
    }
    for f in &users {
        let top = (0..kernels.len()).filter(|&i| kernels[i].reach.contains(f)).filter_map(|i| start[i]).max();
        if let (Some(top), Some((text, _))) = (top, layout.placed(f.0, f.1)) {
            plan.extern_offset.insert(text, top);
        }
    }
    for (k, s) in kernels.iter().zip(&start) {
        let Some(s) = *s else { continue };
        if plan.extern_offset.get(&k.text).is_some_and(|&old| old < s) {
            plan.extern_offset.insert(k.text, s);
            // A window the sharing made non-empty has a section symbol (g4
            // sm_75: `k2`, extern memory only through `f`, at 0x10), and a
            // section even where its empty over-aligned window had none
            // (sweep10 p113 `G-r-relink-g`: `bias_relu_kernel`, extern-only,
            // takes the 0x30 of the `externsharedinstance` it shares with
            // `sgemm_regtile_kernel`: 0x30, aligned 0x30; sm_80/sm_86).
            // The start rounds up to the window's alignment (the pool's,
            // when it aligns every window) as a window's end does: sweep23
            // p241, `sd_byte_hist_k`, `sx_bytes_k` and `sk_dot_k` reach
            // extern memory only through functions `sx_spaces_k` (own 0x10)
            // also reaches, with a 256-aligned pool: start 0x10, windows
            // 0x100 (sm_75..sm_90); fixture `xsa`.
            // Not to externs the kernel does not reach (fixture `rxs`:
            // `rxs_indirect` shares `rxs_static_plus`'s start 0x540 through
            // `rxs_sum`'s 16-aligned extern beside rxs_c.cu's 128-aligned
            // one: window 0x540; sm_75, sm_90, sm_100).
            plan.no_symbol.remove(&k.shared);
            let reached = reached_extern_align(facts, k);
            if let Some(out) = layout.sections.get_mut(k.shared) {
                let round = reached.unwrap_or(facts.extern_align).max(out.align);
                out.size = out.size.max(align_up(s, round).saturating_add(reserved));
                out.keep = Keep::Always;
            }
        }
    }
}

/// Rule 12.3: `-r` keeps each kernel's input section; `extern __shared__`
/// gets room in every kernel's section and an `externsharedinstance` symbol.
fn plan_relocatable(layout: &mut Layout, facts: &Facts, kernels: &[Kernel], pool: Option<u64>, plan: &mut SharedPlan) {
    // Rule 12.3's 0x10 and 0x20 are the extern alignment and twice it
    // (rule 12.8: 0x100 and 0x200 when relinking a `-r` output), or the
    // pool's alignment where device functions' variables are aligned above
    // the externs ([`relocatable_align`]).
    let a = relocatable_align(facts, pool);
    // Rule 12.10: `-r -g` makes no instances. Each extern symbol is defined
    // in `.nv_debug.shared` at the largest `align_up(variables, a)` of the
    // kernels whose own code names it, `a` the link's alignment (g6: `d` at
    // 0x30 from `k2`'s 0x24; xa+b: `buf` 0x80 from `ka`'s 0x14; xshm:
    // `xshm_dyn` 0x30 from `xshm_small`, not `xshm_big`, which reaches it
    // through a function; shared's `dyn` 0), and each such kernel's offset is
    // the largest of its symbols'.
    let names_of = |k: &Kernel| k.reach.first().and_then(|n| facts.node_externs.get(n)).cloned().unwrap_or_default();
    if layout.debug {
        for k in kernels {
            for name in names_of(k) {
                let v = plan.extern_values.entry(name).or_default();
                *v = (*v).max(align_up(k.own_extent, a));
            }
        }
    }
    // A kernel's reach starts with the kernel itself.
    let own_code_uses_extern = |k: &Kernel| k.reach.first().is_some_and(|n| facts.extern_users.contains(n));
    let debug_offset = |k: &Kernel| -> Option<u64> {
        let names = names_of(k);
        (layout.debug && !names.is_empty())
            .then(|| names.iter().filter_map(|n| plan.extern_values.get(n)).copied().max().unwrap_or(0))
    };
    // The instances, in the input order of their kernels' code: the
    // unselected kernels' sections come last (rule 9.6) but not their
    // instances (fresh4 r-kernels-used-shared: fx_coop's `ns1::kern` first).
    let mut instances: Vec<(Option<Node>, u64, OutId)> = Vec::new();
    for k in kernels {
        let mut return_align = a;
        // Rule 12.3 with ABI-7 externs, kernel by kernel: a kernel whose
        // externs all have alignment 0 is sized as in an all-ABI-7 link
        // also next to ABI-8 externs (see `zero_extern`).
        let zero_extern = facts.zero_extern_align || zero_extern_user(facts, k);
        let (size, align) = if facts.any_extern {
            let size = if k.uses_extern {
                // Variables count, not a `-r` output's section size, and the
                // kernel's own extern alignment, not the link's (rule 12.9:
                // relinking a `-r` output whose `k2` has 0x1c of variables in
                // a 0x80 section: instance 0x40 when the first instance copy
                // is 0x40-aligned, 0x20 when it is 0x10; size 0x80 either way).
                let mine = reached_extern_align(facts, k);
                // A kernel naming several externs itself: the one its first
                // input relocation names (fresh4 r-two-externs: `k1`, whose
                // `.rel.text` lists `dynB` (16) before `dynA` (64), gets the
                // instance 0x10, `k2` 0x40; fx_pipe's `ns2::kern`: 0x10 for
                // `fx_dyn_pipe`, not 0x80 for `fx_dyn_pipe_raw`; sm_75..sm_90a).
                let first = k.reach.first().and_then(|n| facts.node_first_extern_align.get(n)).copied();
                // An unselected kernel's section (rule 9.6) takes its own
                // largest extern alignment, not the link's nor its first
                // relocation's (fresh4 r-kernels-used-shared: `ns1::kern`
                // 0x20/16, `fx_math_kern` 0x40/32, `ns2::kern` 0x100/128).
                // Its instance still follows the first relocation (`ns2::kern`
                // 0x10 in a 0x100/128 section).
                let unselected = layout.unselected_shared.contains(&k.shared);
                let largest = mine.unwrap_or(a);
                let mine = first.or(mine).unwrap_or(a);
                let a = if unselected { largest } else { a };
                if let Some(offset) = debug_offset(k) {
                    // Rule 12.10: `-r -g`, a kernel whose own code names
                    // extern memory: room up to its symbols' offset, at least
                    // twice the alignment (g6: 0x30; e2: 0x20; xa's `kb`,
                    // 0x40 for `buf` at 0x20) or, at offset 0, one alignment
                    // unit (shared, xshm's `xshm_only_dyn`: 0x10).
                    if offset == 0 && k.own.is_empty() { a } else { offset.max(a.saturating_mul(2)) }
                } else if layout.debug || (!own_code_uses_extern(k) && !zero_extern && !unselected) {
                    // A kernel reaching extern memory only through a device
                    // function (and under `-r -g` any kernel without an
                    // offset above) grows by the alignment also when its own
                    // variables fill exactly one unit, and gets no instance
                    // (cubl -G `-r -g`: `reduce_f`'s 0x10 of own variables,
                    // calling `stage_dyn` -> `dyn_smem<int>`: 0x20; g4's `k2`
                    // 0 -> 0x10; session 13 `-r`, own 0, 0x10, 0x14, 0x20,
                    // 0x31 calling `touch` on `extern __shared__ char raw[]`:
                    // 0x10, 0x20, 0x14, 0x20, 0x31; sm_75..sm_120), not a
                    // user's twice the alignment.
                    grow_by_pool(k.own_extent, a)
                } else {
                    // Rule 12.3 with ABI-7 externs (alignment 0): the own
                    // variables are rounded to the link's extern alignment
                    // (sweep27 p282 abi7 `-r`: `k_dyn_shared`'s 0x44 of
                    // `counters[17]` beside `dyn4`: instance and room 0x50,
                    // sm_75, sm_90).
                    let unit = if zero_extern { mine.max(a) } else { mine };
                    let offset = align_up(k.own_extent, unit).max(mine);
                    // One instance per kernel whose own code uses extern memory,
                    // equal offsets included (shm: 0x100, 0x10, 0x10); a kernel
                    // reaching it only through a device function gets none (xshm:
                    // `xshm_big`).
                    if own_code_uses_extern(k) {
                        instances.push((k.reach.first().copied(), offset, k.text));
                    }
                    if unselected {
                        return_align = a;
                    }
                    // Rule 12.3 with ABI-7 externs (alignment 0): instance 0,
                    // and one alignment unit of room, not two (fresh4
                    // r-abi7-extern: `ka` 0x10, where the ABI-8 build has
                    // instance 0x10 in 0x20; sm_75..sm_90a).
                    if zero_extern {
                        // Two units when the kernel names a relinked `-r`
                        // output's instance (the `-r` output of ABI-7 objects
                        // relinked with `-r`: `externsharedinstance` at 0,
                        // the users' rooms 0x20; session 41, /tmp/a7r and
                        // sweep26 p273, sm_75, sm_90).
                        let instance = names_of(k).iter().any(|n| n == crate::symbols::EXTERN_INSTANCE);
                        let units = if instance && !layout.debug { 2 } else { 1 };
                        offset.max(a.saturating_mul(units))
                    } else if !mine.is_power_of_two() {
                        // Rule 12.8.1: an instance alignment that is not a
                        // power of two (a relinked `-r` output's 0x90) gives
                        // the offset (0x2000 → 0x2010, 0x200 → 0x240) but
                        // not the size: the variables or twice the link's
                        // alignment (`xb_sh` 0x2000, `xb_k` 0x200; sweep4
                        // p61 `r-relink-r`, sm_75..sm_90a).
                        k.own_extent.max(a.saturating_mul(2))
                    } else {
                        // Rounded to the link's extern alignment, as an
                        // executable's window is (rule 12.8): fixture
                        // `rxi-relink` `-r`, `rxi_mixed`'s instance at 0xe0
                        // (the first instance's 16) reaching `rxi_load`'s
                        // 64-aligned `rxi_f4`: 0x100 (sm_75, sm_90, sm_100);
                        // not only the largest alignment the kernel reaches:
                        // sweep31 p323 `k_static_plus`, 0x534 of its own
                        // beside 8- and 16-aligned externs in a link with a
                        // 128-aligned one: 0x580 (sm_75..sm_120).
                        align_up(offset, largest.max(a)).max(a.saturating_mul(2))
                    }
                }
            } else {
                // Rule 12.3 with ABI-7 externs (alignment 0): a kernel not
                // using extern memory keeps its own alignment (f7
                // A7_p1mix_r: `k_accum`'s 4-aligned `tile` next to ABI-7
                // `k_main`/`k_c` using `extern __shared__`: 4, `-r` and
                // `-r -g`, where the all-ABI-8 link gives 16; sm_75..sm_90).
                // Not with a 16-aligned pool (below): its alignment stays
                // (/tmp/a7r `kp`, session 41: a bare room 0x10, 16-aligned;
                // p273 `k_static_shared`'s 8-aligned 0x320: 16-aligned).
                if facts.zero_extern_align && pool != Some(EXTERN_ALIGN) {
                    return_align = k.own_align;
                }
                non_user_size(k, a)
            };
            (size, return_align)
        } else if let Some(a) = pool {
            // Without extern memory, device functions' variables (weak
            // template statics too) do what extern memory does, with their
            // largest alignment: every kernel's section takes it and grows
            // by it when not larger (`bitonic<T>`'s `static __shared__ T s[]`
            // 8-aligned: `short[3]`'s 6 bytes -> 0xe, align 8; `char[3]`
            // 3 -> 7 / 0xb / 0x23 for a pool aligned 4 / 8 / 0x20, 9 stays
            // 9 for 4 and 8; sm_75, sm_90).
            (grow_by_pool(k.own_extent, a).max(k.own_size), k.own_align.max(a))
        } else {
            (k.own_size, k.own_align)
        };
        // Rule 12.10: under `-g`, an extern-only kernel at offset 0 goes when
        // the extern alignment is above 16 (e1 alone: `buf`, 0x40; xa+b:
        // `kd`'s plain extern in a 0x80-aligned link), like an empty
        // over-aligned executable window (12.9).
        let offset = debug_offset(k);
        // No variables or bytes of its own; `bare` with no room either.
        let no_own = k.own.is_empty() && k.own_size == 0;
        let bare = no_own && k.room.is_none();
        // The extern memory is a relinked `-r` output's and the kernel came
        // without a section.
        let relinked_without_section = facts.relinked_extern && !k.had_section;
        let dropped = offset == Some(0) && k.own.is_empty() && a > EXTERN_ALIGN;
        // A user of ABI-7 externs only, with no variables of its own, gets no
        // section in a link aligned above 16 by ABI-8 externs (fresh4 a7.r:
        // `fx_tab_kern`, `fx_math_kern`, `ns1::kern` next to fx_pipe's
        // 128-aligned `fx_dyn_pipe_raw`, sm_75..sm_90a; /tmp/s11/ax `a7x_k_dyn`
        // with a 128-aligned extern, either order, sm_75/sm_90).
        let dropped = dropped || (zero_extern && !layout.debug && no_own && a > EXTERN_ALIGN);
        // Rule 12.3: a kernel with no shared memory of its own that does not
        // use extern memory gets no section when the link's extern alignment
        // is above 16 (fresh4 r-extern-align: `kb` next to a kernel using
        // `extern __shared__ __align__(32|128)`: none, `-r` and `-r -g`,
        // sm_75/sm_90; 0x10 with a 4-, 8- or 16-aligned extern).
        // Nor when the extern memory is a relinked `-r` output's (its extern
        // defined in `.nv_debug.shared`): fresh5 rg_relink_rooms, `-r` and
        // `-r -g` of a `-r -g` output with `kdyn` and `kplain` and any
        // object or output with `kb`: `kb` gets none (`kplain`'s room grows
        // to 0x20 under `-r`; `-r -g` ignores rooms, so it gets none either;
        // sm_75). A kernel that came with a section does keep it (options
        // indir-r_r-g: `-r -g` of a plain `-r` output, its kernels' 0x10
        // rooms stay, sm_90).
        // With ABI-7 externs (alignment 0) it gets none either, unless
        // device functions' variables align the pool to exactly 16: then
        // every such kernel gets a 16-byte room (session 41, sweep26 p273
        // `abi7-r`: `scan_excl`'s cub `TempStorage`; /tmp/a7r: a 16-aligned
        // static gives `kp` 0x10, an 8-aligned one nothing, a 32-aligned one
        // drops the extern user's section too; sm_75).
        // So is one beside a relinked output's externs (session 41: gkp16's
        // `-r -g` output relinked with gkpe.cu's plain kernel, `-r` and
        // `-r -g`: 0x10; beside gkp4's 4-aligned pool none; sm_75, sm_90).
        let sixteen_pool = pool == Some(EXTERN_ALIGN);
        let zero_extern_drop = facts.zero_extern_align && !sixteen_pool;
        let relinked_drop = relinked_without_section && !sixteen_pool;
        let dropped = dropped || (bare && !k.uses_extern && (a > EXTERN_ALIGN || relinked_drop || zero_extern_drop));
        // Nor, with the pool aligning the link above 16, does one that
        // reaches extern memory only through a device function (sweep23
        // p241 `-r` and `-r -g`: `sk_dot_k` and `sx_dot_k`, which call
        // `sm_dyn_dot`, get none; sm_75..sm_90; fixture `xsa`), nor, as
        // above, where that output's externs are relinked and it came
        // without a section (fixture `xsa-G-relink-g`'s `-r -g`).
        // Nor, with ABI-7 externs (alignment 0) and no 16-aligned pool, as
        // the kernels not using extern memory above (sweep28 p291 `abi7-r`:
        // `k_smem`, which calls a.cu's `smem_fill` and b.cu's reduction on
        // `extern __shared__ float dyn_smem[]`, gets none; `k_params`, naming
        // it itself, its 0x10; sm_75, sm_90).
        // Nor, beside externs aligned above the ones it reaches (sweep31
        // p323 `k_indirect`, calling a.cu's reader of a 16-aligned extern
        // in a link with a 128-aligned one: none, where it gets 0x10
        // without the 128-aligned one; sm_75..sm_120).
        let reached = reached_extern_align(facts, k).unwrap_or(0);
        let dropped = dropped
            || (bare
                && k.uses_extern
                && !own_code_uses_extern(k)
                && (a > reached.max(EXTERN_ALIGN) || relinked_without_section || zero_extern_drop));
        let keep = (facts.any_extern || !no_own) && !dropped;
        // With ABI-7 externs (alignment 0) a user gets no symbol either
        // (fresh4 r-abi7-extern `ka`).
        let zero_user = zero_extern && !layout.debug;
        if no_own && (!own_code_uses_extern(k) || zero_user || (layout.debug && offset.unwrap_or(0) == 0)) {
            // Kept only for the extern room: no section symbol (R1: `kz`;
            // rule 12.10: under `-g` also a user at offset 0; a kernel
            // reaching extern memory only through a device function, s6's
            // `k0`, session 13).
            plan.no_symbol.insert(k.shared);
        }
        if let Some(out) = layout.sections.get_mut(k.shared) {
            out.size = size;
            out.align = align.max(out.align);
            out.keep = if keep { Keep::Always } else { Keep::Never };
        }
    }
    instances.sort_by_key(|&(node, _, _)| node);
    for (_, offset, text) in instances {
        plan.instances.push(offset);
        plan.instance_of.insert(text, plan.instances.len() - 1);
    }
}

/// The sort nvlink gives a kernel's private shared variables (rule 12.1):
/// a merge sort of a linked list that deals the items alternately onto two
/// lists, each built in reverse (pushed at its front), sorts both and
/// merges them, taking the second list's head only when it is strictly
/// `less` than the first's. It is not stable: n variables of one alignment
/// and size, in symbol order 0..n, come out as 0 1; 2 0 1; 2 0 3 1;
/// 0 4 2 3 1; ... (nvlink 13.5, sm_75 exec, n = 2..16: every order this
/// gives; the same with other names, other symbol indices and another code
/// order, so it depends on the list alone). Mixed alignments and sizes
/// (`float`, `double`, `short`, `char[4]`: d0 d1 f4 f0 f2 f1 f3 s0 c1 c0)
/// fit one pass with the combined comparison and not two passes. Sweep9
/// p11 `binomial_american`: four `float`s at 4, 0xc, 0, 8.
fn list_merge_sort<T>(items: Vec<T>, less: &impl Fn(&T, &T) -> bool) -> Vec<T> {
    if items.len() <= 1 {
        return items;
    }
    let (mut first, mut second): (Vec<T>, Vec<T>) = (Vec::new(), Vec::new());
    for (i, item) in items.into_iter().enumerate() {
        if i % 2 == 0 { first.push(item) } else { second.push(item) }
    }
    first.reverse();
    second.reverse();
    let (first, second) = (list_merge_sort(first, less), list_merge_sort(second, less));
    let mut merged = Vec::with_capacity(first.len() + second.len());
    let (mut a, mut b) = (first.into_iter().peekable(), second.into_iter().peekable());
    while let Some(x) = a.peek() {
        match b.peek() {
            Some(y) if less(y, x) => merged.extend(b.next()),
            _ => merged.extend(a.next()),
        }
    }
    merged.extend(b);
    merged
}

#[cfg(test)]
mod tests {
    use super::list_merge_sort;

    /// nvlink 13.5's offsets for n `__shared__ float`s of one kernel (sm_75
    /// exec; each a kernel that stores all n and reads them back), as
    /// symbol-order indices in offset order. Not a fixture: 15 more objects
    /// for one table.
    #[test]
    fn equal_variables_come_out_in_nvlink_order() {
        let nvlink: [&[usize]; 15] = [
            &[0, 1],
            &[2, 0, 1],
            &[2, 0, 3, 1],
            &[0, 4, 2, 3, 1],
            &[0, 4, 2, 1, 5, 3],
            &[2, 6, 0, 4, 1, 5, 3],
            &[2, 6, 0, 4, 3, 7, 1, 5],
            &[8, 0, 4, 2, 6, 3, 7, 1, 5],
            &[8, 0, 4, 2, 6, 9, 1, 5, 3, 7],
            &[10, 2, 6, 8, 0, 4, 9, 1, 5, 3, 7],
            &[10, 2, 6, 8, 0, 4, 11, 3, 7, 9, 1, 5],
            &[8, 0, 12, 4, 10, 2, 6, 11, 3, 7, 9, 1, 5],
            &[8, 0, 12, 4, 10, 2, 6, 9, 1, 13, 5, 11, 3, 7],
            &[10, 2, 14, 6, 8, 0, 12, 4, 9, 1, 13, 5, 11, 3, 7],
            &[10, 2, 14, 6, 8, 0, 12, 4, 11, 3, 15, 7, 9, 1, 13, 5],
        ];
        for order in nvlink {
            let items: Vec<usize> = (0..order.len()).collect();
            assert_eq!(list_merge_sort(items, &|_, _| false), order, "{} variables", order.len());
        }
    }

    /// Mixed types (fixture `shsort`'s `ss_mixed`, symbol order f0 d0 f1 c0
    /// f2 d1 s0 f3 f4 c1 as (alignment, size)): nvlink 13.5 places them
    /// d0 d1 f4 f0 f2 f1 f3 s0 c1 c0 (sm_75 exec).
    #[test]
    fn mixed_variables_sort_by_alignment_then_size() {
        let vars = [
            ("f0", 4, 4),
            ("d0", 8, 8),
            ("f1", 4, 4),
            ("c0", 1, 4),
            ("f2", 4, 4),
            ("d1", 8, 8),
            ("s0", 2, 2),
            ("f3", 4, 4),
            ("f4", 4, 4),
            ("c1", 1, 4),
        ];
        let less = |a: &(&str, u64, u64), b: &(&str, u64, u64)| a.1 > b.1 || (a.1 == b.1 && a.2 < b.2);
        let names: Vec<&str> = list_merge_sort(vars.to_vec(), &less).iter().map(|v| v.0).collect();
        assert_eq!(names, ["d0", "d1", "f4", "f0", "f2", "f1", "f3", "s0", "c1", "c0"]);
    }
}
