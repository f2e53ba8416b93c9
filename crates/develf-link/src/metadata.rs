//! Phase 7: the metadata sections nvlink generates (rule 7): `.nv.info`,
//! `.nv.info.<fn>`, `.nv.compat`, the two notes, `.nv.callgraph`,
//! `.nv.prototype` and `.nv.rel.action`. Decoding, remapping and encoding go
//! through develf-eiattr; symbol indices are rewritten to the output symtab.

use crate::error::{LinkError, LinkWarning};
use crate::input::InputObject;
use crate::layout::{InfoField, Layout, OutId, OutSection, SectionClass};
use crate::mercury::Generated as MercGenerated;
use crate::options::LinkOptions;
use crate::resolve::{Resolution, SymbolRef};
use crate::symbols::SymbolTable;
use develf_eiattr::callgraph::Pair;
use develf_eiattr::shape::{ByteValue, FunctionValue, Word};
use develf_eiattr::{Attribute, CallGraph, NvInfo, Prototypes, RawAttribute};
use develf_format::nvinfo::{
    self, EIATTR_EXTERNS, EIATTR_MAX_STACK_SIZE, EIATTR_NUM_BARRIERS, EIATTR_NUM_MBARRIERS, RawRecord,
};
use develf_format::section::{SHT_CUDA_CALLGRAPH, SHT_CUDA_COMPAT_INFO, SHT_CUDA_INFO, SHT_CUDA_PROTOTYPE};
use develf_format::symbol::STO_CUDA_ENTRY;
use develf_parse::elf::string_at;
use hashbrown::{HashMap, HashSet};
use rayon::prelude::*;

/// The tool strings of nvlink 13.5's tkinfo note (rule 7.5).
const TOOL_NAME: &str = "nvlink";
const TOOL_VERSION: &str = "Cuda compilation tools, release 13.5, V13.5.37";
const TOOL_BRANCH: &str = "Build cuda_13.5.r13.5/compiler.39125733_0";
/// `NT_CUDA_TKINFO`.
const NOTE_TKINFO: u32 = 2000;
/// `.nv.rel.action` of every non-merc executable (rule 7.7).
const REL_ACTION: [u8; 16] = [0x73, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0x11, 0x25, 0, 0x05, 0x36];
/// Code 0x66, appended to kernels of ABI-7 inputs in executables (rules 7.2, 10).
const ATTR_ABI7_MARK: u8 = 0x66;
/// Rule 10: the barrier count an ABI-7 `.text` keeps in sh_flags bits 20..26.
pub(crate) const ABI7_BARRIER_MASK: u64 = 0x7f << 20;
/// `.nv.compat` byte-valued (EIFMT_BVAL) records whose merged value is the
/// largest of the inputs' (rule 7.3, U5): code 0x02 (ptx: 2 over 1; mma: 4
/// over 1 in either input order; 12/12 fixture links, 2 swapped runs) and
/// EICOMPAT_ATTR_INST_TENSORMAP_V1 (an sm_90 `cp.async.bulk.tensor` kernel
/// in the second input: 1 over the first's 0, sm_90..sm_121, session 5).
const COMPAT_MAX_CODES: &[u8] = &[0x02, develf_format::nvinfo::EICOMPAT_ATTR_INST_TENSORMAP_V1];
/// `.nv.compat` EICOMPAT_ATTR_CAN_FASTPATH_FINALIZE (EIFMT_SVAL, u32 words).
const COMPAT_FASTPATH: u8 = develf_format::nvinfo::EICOMPAT_ATTR_CAN_FASTPATH_FINALIZE;
/// `.nv.compat` records kept only when every input has one (rule 7.3).
const COMPAT_ALL_CODES: &[u8] = &[develf_format::nvinfo::EICOMPAT_ATTR_INST_TCGEN05_MMA];
/// `.nv.compat` EICOMPAT_ATTR_FINALIZER_VERSION, the last record.
const COMPAT_FINALIZER_VERSION: u8 = develf_format::nvinfo::EICOMPAT_ATTR_FINALIZER_VERSION;
/// `.nv.compat` record naming an architecture-specific ('a') target.
const EICOMPAT_ATTR_CUDA_ACCELERATOR_TARGET: u8 = 0x09;
/// EICOMPAT_ATTR_ISA_CLASS: every ABI-8 object from ptxas 13.x has it.
const EICOMPAT_ATTR_ISA_CLASS: u8 = 0x02;
/// Stack size nvlink writes when recursion makes it unknown (rule 7.1).
const UNKNOWN_STACK: u32 = u32::MAX;
/// The Mercury finaliser's group, re-appended in input order (rule 7.2).
const MERCURY_GROUP: [u8; 5] = [0x19, 0x0a, 0x36, 0x6b, 0x6d];

struct Context<'l, 'a> {
    options: &'l LinkOptions,
    inputs: &'l [InputObject<'a>],
    resolution: &'l Resolution<'a>,
    layout: &'l Layout,
    symbols: &'l SymbolTable,
}

/// Rule 7.2: where nvlink meets a contributor of an appended record: the
/// input of the function's code, its `.nv.info.<fn>`, its output symbol.
#[derive(Debug, Clone, Copy, PartialEq, Eq, PartialOrd, Ord)]
struct ContributorKey(usize, usize, usize);

impl ContributorKey {
    const FIRST: ContributorKey = ContributorKey(0, 0, 0);
    const LAST: ContributorKey = ContributorKey(usize::MAX, usize::MAX, usize::MAX);
}

/// Calls between output symbols, and per-function facts from `.nv.info`.
#[derive(Default)]
struct CallFacts {
    callees: HashMap<u32, Vec<u32>>,
    /// Indirect calls: each function's call-site prototypes, and every
    /// address-taken function with its prototype (callgraph blocks 3 and 2,
    /// prototypes as output `.strtab` offsets).
    indirect: HashMap<u32, Vec<u32>>,
    address_taken: Vec<(u32, u32)>,
    frame: HashMap<u32, u32>,
    regcount: HashMap<u32, u32>,
    /// NUM_BARRIERS of each function's input `.nv.info.<fn>` (rule 7.2), or
    /// an ABI-7 device function's count from its `.text` sh_flags (rule 10).
    barriers: HashMap<u32, u16>,
    /// The functions whose [`CallFacts::barriers`] count comes from ABI-7
    /// sh_flags, not a record.
    flag_barriers: HashSet<u32>,
    /// NUM_MBARRIERS of each function's input `.nv.info.<fn>` (rule 7.2).
    mbarriers: HashMap<u32, u16>,
    /// Per function: the order of its NUM_BARRIERS, NUM_MBARRIERS and
    /// EXTERNS records in its kept `.nv.info.<fn>` (`u8::MAX`: none). ptxas
    /// writes them in that order but for NUM_MBARRIERS, last; a `-r`
    /// output's records are reversed.
    record_order: HashMap<u32, [u8; 3]>,
    /// EXTERNS of each function's input `.nv.info.<fn>`, as output symbol
    /// indices in input order (rule 7.2).
    externs: HashMap<u32, Vec<u32>>,
    /// The functions whose `.nv.info.<fn>` carries CTAIDZ_USED (they read
    /// `%ctaid.z`; rule 7.2).
    ctaidz: HashSet<u32>,
    /// Those of them whose CTAIDZ_USED comes before their EXTERNS (or that
    /// have none): a `-r` output's records are reversed.
    ctaidz_first: HashSet<u32>,
    /// Those of them whose CTAIDZ_USED comes after their RESERVED_SMEM_USED
    /// (ptxas writes RESERVED_SMEM_USED first; a `-r` output reverses them).
    ctaidz_after_reserved: HashSet<u32>,
    /// The functions whose `.nv.info.<fn>` carries RESERVED_SMEM_USED (rule
    /// 7.2).
    reserved_smem: HashSet<u32>,
    /// The functions whose winning `.nv.info.<fn>` carries the 0x66 record
    /// (rule 10: ptxas 13.x writes it for its functions, not for built-in
    /// helpers such as `__cuda_sm70_matchsync_any_b32`; CUDA 12.9 never).
    marked: HashSet<u32>,
    /// Per output symbol: whether a cycle is reachable from it (set by
    /// [`CallFacts::find_recursion`], linear in the call graph).
    recursive: Vec<bool>,
    /// Per output symbol: the largest REGCOUNT of the functions reachable
    /// from it, itself included (set with `recursive`).
    most_registers: Vec<u32>,
    /// `callees` plus each indirect call site's address-taken targets of
    /// its prototype (rule 7.1), when there are indirect calls.
    widened: Option<HashMap<u32, Vec<u32>>>,
    /// The output's kernels that are kept without being live
    /// ([`crate::gc::Liveness`]'s `unwalked_kernels`): nvlink treats them
    /// as device functions (no MIN_STACK_SIZE, no gathered EXTERNS).
    unwalked: HashSet<u32>,
    /// The output's kernel when it has exactly one (rule 7.2.1: that kernel's
    /// EXTERNS gathers every function's list).
    only_kernel: Option<u32>,
    /// Per output section: for a `.text.<fn>`, its `.nv.info.<fn>`
    /// ([`Context::info_sections`]). Made once, when a kernel will need it,
    /// before the functions' records are made ([`build`]).
    info_of_text: std::sync::OnceLock<Vec<Option<OutId>>>,
    /// Per input code section: the index of its input `.nv.info.<fn>`
    /// ([`Context::input_info_sections`]), for rule 7.2's order within one
    /// input. Made once, when a kernel's EXTERNS first need it.
    input_info_of_text: std::sync::OnceLock<HashMap<(usize, usize), usize>>,
    /// [`Context::first_copies_abi7`], made when an ABI-7 kernel's 0x66
    /// record is placed.
    first_copies_abi7: std::sync::OnceLock<HashSet<u32>>,
    /// Whether any call or address-taken target is undefined in the output:
    /// without one, and without EXTERNS, no kernel's list can grow.
    undefined_target: bool,
}

impl CallFacts {
    /// Whether function `g` has a NUM_BARRIERS record, not only an ABI-7
    /// count from its sh_flags (rule 10).
    fn has_barrier_record(&self, g: u32) -> bool {
        self.barriers.contains_key(&g) && !self.flag_barriers.contains(&g)
    }

    /// Every function reachable from `f`, `f` included, and whether a cycle is
    /// reachable (recursion).
    fn reach(&self, f: u32) -> (Vec<u32>, bool) {
        // Iterative DFS with an explicit stack; colours (0 unseen, 1 on the
        // path, 2 done), one byte per output symbol, detect back edges.
        let mut colour: Vec<u8> = vec![0; self.recursive.len().max(f as usize + 1)];
        let mut order = Vec::new();
        let mut recursive = false;
        let mut stack: Vec<(u32, usize)> = vec![(f, 0)];
        if let Some(slot) = colour.get_mut(f as usize) {
            *slot = 1;
        }
        order.push(f);
        while let Some(&mut (node, ref mut next)) = stack.last_mut() {
            let callees = self.callees.get(&node).map(Vec::as_slice).unwrap_or_default();
            if let Some(&c) = callees.get(*next) {
                *next += 1;
                if colour.len() <= c as usize {
                    colour.resize(c as usize + 1, 0);
                }
                match colour.get(c as usize).copied() {
                    Some(1) => recursive = true,
                    Some(0) => {
                        colour[c as usize] = 1;
                        order.push(c);
                        stack.push((c, 0));
                    }
                    _ => {}
                }
            } else {
                if let Some(slot) = colour.get_mut(node as usize) {
                    *slot = 2;
                }
                stack.pop();
            }
        }
        (order, recursive)
    }

    /// Every function reachable from `f` through calls *and* indirect calls,
    /// an indirect call site reaching every address-taken function of its
    /// prototype (rule 7.2, EXTERNS: `kpoly` calls virtual destructors, whose
    /// deleting ones call `free`, and its list gains `free`; poly on every
    /// architecture, also with -G, where `free` lands before the
    /// `__assertfail` of a function later in `.text`).
    fn reach_through_addresses(&self, f: u32) -> Vec<u32> {
        // One bit per output symbol (a kernel of a big link reaches
        // thousands of functions; a hash set per kernel costs more).
        let mut seen = crate::bits::Bits::new(self.recursive.len());
        let mut order = vec![f];
        seen.insert(f as usize);
        let mut next = 0;
        while let Some(&node) = order.get(next) {
            next += 1;
            let calls = self.callees.get(&node).map(Vec::as_slice).unwrap_or_default();
            let sites = self.indirect.get(&node).map(Vec::as_slice).unwrap_or_default();
            let targets = self.address_taken.iter().filter(|(_, p)| sites.contains(p)).map(|&(g, _)| g);
            for c in calls.iter().copied().chain(targets) {
                if seen.insert(c as usize) {
                    order.push(c);
                }
            }
        }
        order
    }

    /// The functions whose NUM_BARRIERS and NUM_MBARRIERS counts kernel `f`
    /// takes (rule 7.2): those it reaches, or, for the output's only
    /// kernel, every function of the output, as with its EXTERNS (rule
    /// 7.2.1). Under `-g` or `-preserve-relocs`, which keep unreached
    /// functions, a lone kernel gets their counts: reloc_dead's kernel linked
    /// with cluster_b's `cluster_b_rank_value` (1) or a7nb_f's `a7nb_helper`
    /// (2), which it does not call, gets NUM_BARRIERS 1 or 2 (sm_90, sm_100a;
    /// nvlink 13.5); beside a second kernel it gets none.
    /// Through indirect calls too, as EXTERNS: sweep24 p254 `ir_misc_k`
    /// calls `g_parity[x & 1](x)`, an `int(int)` prototype whose
    /// address-taken functions include barrier users: NUM_BARRIERS 1
    /// (sm_75..sm_90; fixture `fadr`'s `fadr_call`).
    fn barrier_contributors(&self, f: u32) -> Vec<u32> {
        let holders = self.barriers.keys().chain(self.mbarriers.keys()).copied();
        self.contributors(f, holders, Self::reach_through_addresses)
    }

    /// The functions whose CTAIDZ_USED kernel `f` takes: as for its
    /// NUM_BARRIERS, every function when it is the only kernel.
    fn ctaidz_contributors(&self, f: u32) -> Vec<u32> {
        self.contributors(f, self.ctaidz.iter().copied(), |facts, f| facts.reach(f).0)
    }

    /// The functions kernel `f` reaches (by `reach`), or, for the output's
    /// only kernel, all of `holders` (the functions with the record in
    /// question).
    fn contributors(
        &self,
        f: u32,
        holders: impl Iterator<Item = u32>,
        reach: impl FnOnce(&Self, u32) -> Vec<u32>,
    ) -> Vec<u32> {
        if self.only_kernel == Some(f) {
            return holders.collect();
        }
        reach(self, f)
    }

    /// The largest of `counts` (NUM_BARRIERS) over kernel `f`'s
    /// `contributors` ([`CallFacts::barrier_contributors`]), itself left out.
    fn largest_count(f: u32, contributors: &[u32], counts: &HashMap<u32, u16>) -> Option<u16> {
        contributors.iter().filter(|&&g| g != f).filter_map(|g| counts.get(g)).copied().max()
    }

    /// The sum of `counts` (NUM_MBARRIERS) over kernel `f`'s `contributors`,
    /// each once, itself left out: each function's mbarriers are objects of
    /// its own (`kboth` calling `f1` and `f3`, 1 each: 2; `kdia` calling `g2`,
    /// which calls `g1`, and `g1`: 2; the only kernel under
    /// `-preserve-relocs`: 1 + 4 from two uncalled kernels, sweep13 p148;
    /// sm_80, sm_90). `None` when no contributor has a record.
    fn summed_count(f: u32, contributors: &[u32], counts: &HashMap<u32, u16>) -> Option<u16> {
        let mut seen = HashSet::new();
        contributors
            .iter()
            .filter(|&&g| g != f && seen.insert(g))
            .filter_map(|g| counts.get(g))
            .fold(None, |sum: Option<u16>, &n| Some(sum.unwrap_or(0).saturating_add(n)))
    }

    /// Whether a cycle is reachable from `f` (what `reach(f).1` says), from
    /// the table [`CallFacts::find_recursion`] filled.
    fn is_recursive(&self, f: u32) -> bool {
        self.recursive.get(f as usize).copied().unwrap_or(false)
    }

    /// The largest register count over `reach(f)` (what rule 7.1 raises a
    /// kernel's REGCOUNT to), from the table `find_recursion` filled.
    fn most_registers(&self, f: u32) -> u32 {
        let own = self.regcount.get(&f).copied().unwrap_or(0);
        self.most_registers.get(f as usize).copied().unwrap_or(own)
    }

    /// Fills `recursive` for every function at once: Tarjan's strongly
    /// connected components (iterative), which completes every component
    /// after all the components it reaches, so one pass over the call graph
    /// decides each: cyclic itself (two or more members, or a self-call) or
    /// calling into a recursive one. Linear, where `reach` per function is
    /// quadratic (big: 10,000 functions).
    fn find_recursion(&mut self) {
        const NONE: u32 = u32::MAX;
        let n = self
            .callees
            .iter()
            .flat_map(|(&a, list)| std::iter::once(a).chain(list.iter().copied()))
            .max()
            .map_or(0, |m| m as usize + 1);
        let empty: &[u32] = &[];
        let callees = |v: u32| self.callees.get(&v).map_or(empty, Vec::as_slice);
        let mut index = vec![NONE; n];
        let mut low = vec![NONE; n];
        let mut on_stack = vec![false; n];
        let mut recursive = vec![false; n];
        let mut most = vec![0u32; n];
        let mut stack: Vec<u32> = Vec::new();
        let mut counter = 0u32;
        let mut roots: Vec<u32> = self.callees.keys().copied().collect();
        roots.sort_unstable();
        for root in roots {
            if index[root as usize] != NONE {
                continue;
            }
            index[root as usize] = counter;
            low[root as usize] = counter;
            counter += 1;
            stack.push(root);
            on_stack[root as usize] = true;
            let mut path: Vec<(u32, usize)> = vec![(root, 0)];
            while let Some(&mut (v, ref mut next)) = path.last_mut() {
                if let Some(&w) = callees(v).get(*next) {
                    *next += 1;
                    let (vi, wi) = (v as usize, w as usize);
                    if index[wi] == NONE {
                        index[wi] = counter;
                        low[wi] = counter;
                        counter += 1;
                        stack.push(w);
                        on_stack[wi] = true;
                        path.push((w, 0));
                    } else if on_stack[wi] {
                        low[vi] = low[vi].min(index[wi]);
                    }
                    continue;
                }
                path.pop();
                let vi = v as usize;
                if let Some(&(u, _)) = path.last() {
                    low[u as usize] = low[u as usize].min(low[vi]);
                }
                if low[vi] != index[vi] {
                    continue;
                }
                let mut members = Vec::new();
                while let Some(w) = stack.pop() {
                    on_stack[w as usize] = false;
                    members.push(w);
                    if w == v {
                        break;
                    }
                }
                // Callees outside the component are complete; inside it they
                // still read false, which the cyclic test covers.
                let cyclic = members.len() > 1 || callees(v).contains(&v);
                let rec = cyclic || members.iter().any(|&m| callees(m).iter().any(|&c| recursive[c as usize]));
                // Members' own counts, and the finished components they call
                // (a callee inside this component still reads 0).
                let registers = members
                    .iter()
                    .flat_map(|&m| {
                        std::iter::once(self.regcount.get(&m).copied().unwrap_or(0))
                            .chain(callees(m).iter().map(|&c| most[c as usize]))
                    })
                    .max()
                    .unwrap_or(0);
                for m in members {
                    recursive[m as usize] = rec;
                    most[m as usize] = registers;
                }
            }
        }
        // Functions in no call edge reach only themselves.
        for (v, slot) in most.iter_mut().enumerate() {
            if index[v] == NONE {
                *slot = self.regcount.get(&(v as u32)).copied().unwrap_or(0);
            }
        }
        self.recursive = recursive;
        self.most_registers = most;
    }

    /// Rule 7.1: recursion counts indirect calls too, an indirect call site
    /// reaching every address-taken function of its prototype (fptr: `kfp2`
    /// calls through `pick(i)`, whose targets include `sub2`, which calls the
    /// mutually recursive `odd`/`even`: nvlink appends CRS_STACK_SIZE
    /// 0xffffffff to `kfp2`; sm_75, 86, 90, 100, 120 exec). Register counts
    /// follow them as well (fresh: `disp_kernel`, 26 registers, calls
    /// `chain1` (24) through a pointer, which calls `chain2` (36): REGCOUNT
    /// 36, sm_75..sm_90a exec; kfp2's targets all have its own 24).
    fn find_recursion_through_addresses(&mut self) {
        if self.indirect.is_empty() || self.address_taken.is_empty() {
            return;
        }
        let mut widened =
            CallFacts { callees: self.callees.clone(), regcount: self.regcount.clone(), ..CallFacts::default() };
        for (&caller, sites) in &self.indirect {
            let targets = self.address_taken.iter().filter(|(_, p)| sites.contains(p)).map(|&(g, _)| g);
            let list = widened.callees.entry(caller).or_default();
            for t in targets {
                if !list.contains(&t) {
                    list.push(t);
                }
            }
        }
        widened.find_recursion();
        self.widened = Some(widened.callees.clone());
        for (f, &most) in widened.most_registers.iter().enumerate() {
            if self.most_registers.len() <= f {
                let own = self.regcount.get(&(f as u32)).copied().unwrap_or(0);
                self.most_registers.resize(f + 1, 0);
                self.most_registers[f] = own;
            }
            self.most_registers[f] = self.most_registers[f].max(most);
        }
        for (f, &r) in widened.recursive.iter().enumerate() {
            if r {
                if self.recursive.len() <= f {
                    self.recursive.resize(f + 1, false);
                }
                self.recursive[f] = true;
            }
        }
    }

    /// Frame of `f` plus the deepest callee chain, `None` under recursion.
    fn stack_size(&self, f: u32, memo: &mut HashMap<u32, Option<u32>>, depth: usize) -> Option<u32> {
        if let Some(v) = memo.get(&f) {
            return *v;
        }
        if depth > self.callees.len() + 1 {
            return None;
        }
        memo.insert(f, None); // a cycle back here reads "unknown"
        let mut deepest = 0u32;
        // Rule 7.1: indirect calls count (fresh sm_75 `math_kernel`: 0x20 of
        // its own and `dnorm`'s, 0x30 with its pointer's targets).
        let callees = self.widened.as_ref().unwrap_or(&self.callees);
        for &c in callees.get(&f).map(Vec::as_slice).unwrap_or_default() {
            let s = self.stack_size(c, memo, depth + 1)?;
            deepest = deepest.max(s);
        }
        let v = self.frame.get(&f).copied().unwrap_or(0).checked_add(deepest);
        memo.insert(f, v);
        v
    }
}

fn encode(records: &[Attribute], section: &str) -> Result<Vec<u8>, LinkError> {
    encode_all(records.iter(), records.len(), section)
}

/// [`encode`] for records given in order by an iterator (`count` of them).
fn encode_all<'r>(
    records: impl Iterator<Item = &'r Attribute>,
    count: usize,
    section: &str,
) -> Result<Vec<u8>, LinkError> {
    // Most records are 4 to 12 bytes: one allocation for most sections.
    let mut out = Vec::with_capacity(count * 12);
    for r in records {
        r.encode(&mut out).map_err(|e| LinkError::Unsupported(format!("{section}: {e}")))?;
    }
    // Kept until the output is written (a big link has tens of thousands of
    // `.nv.info.<fn>`, most half the estimate): an exact copy, whose spare
    // buffer the next section's encoding reuses.
    Ok(out.as_slice().to_vec())
}

impl Context<'_, '_> {
    fn out_index(&self, input: usize, symbol: u32) -> Option<u32> {
        self.symbols.output_index(
            self.inputs,
            self.resolution,
            self.layout,
            SymbolRef { input, symbol: symbol as usize },
        )
    }

    /// A record about symbol `symbol` of `input` survives unless the symbol's
    /// definition here lost to another input's or was removed (rule 7.1).
    fn survives(&self, input: usize, symbol: u32) -> bool {
        let r = SymbolRef { input, symbol: symbol as usize };
        let defined_here =
            self.inputs.get(input).and_then(|i| i.symbol(r.symbol)).is_some_and(|s| s.section_index().is_some());
        if defined_here && self.resolution.definition_of(r).is_some_and(|d| d.input != input) {
            return false;
        }
        self.out_index(input, symbol).is_some()
    }

    /// A weak copy taken first (or replacing the chosen one) and replaced by
    /// a later input's copy (U9), whose winner is in the output.
    fn replaced_copy(&self, input: usize, symbol: u32) -> bool {
        let r = SymbolRef { input, symbol: symbol as usize };
        let defined_here =
            self.inputs.get(input).and_then(|i| i.symbol(r.symbol)).is_some_and(|s| s.section_index().is_some());
        defined_here
            && self.resolution.definition_of(r).is_some_and(|d| d.input > input)
            && !self.resolution.lost_when_met(r)
            && self.out_index(input, symbol).is_some()
    }

    fn remap(&self, input: usize, attr: &mut Attribute) -> bool {
        attr.remap_symbols(&|s| self.out_index(input, s)).is_ok()
    }

    fn is_defined_output(&self, index: u32) -> bool {
        self.symbols
            .symbols
            .get(index as usize)
            .is_some_and(|s| !matches!(s.section, crate::symbols::SymbolSection::Raw(0)))
    }

    fn call_facts<'r>(
        &self,
        nv_info: impl Iterator<Item = &'r Attribute>,
        unwalked: &hashbrown::HashSet<(usize, usize)>,
    ) -> CallFacts {
        let mut facts = CallFacts::default();
        // Each input's part is read in parallel and merged in input order.
        let parts: Vec<InputFacts> = self.inputs.par_iter().map(|input| self.input_facts(input)).collect();
        for part in parts {
            for (a, b) in part.calls {
                let list = facts.callees.entry(a).or_default();
                if !list.contains(&b) {
                    list.push(b);
                }
            }
            for (f, p) in part.indirect {
                facts.indirect.entry(f).or_default().push(p);
            }
            facts.address_taken.extend(part.address_taken);
            for (function, n) in part.barriers {
                facts.barriers.insert(function, n);
            }
            facts.flag_barriers.extend(part.flag_barriers);
            for (function, n) in part.mbarriers {
                facts.mbarriers.insert(function, n);
            }
            facts.record_order.extend(part.record_order);
            for (function, out) in part.externs {
                facts.externs.entry(function).or_insert(out);
            }
            facts.marked.extend(part.marked);
            for (function, first, after_reserved) in part.ctaidz {
                facts.ctaidz.insert(function);
                if first {
                    facts.ctaidz_first.insert(function);
                }
                if after_reserved {
                    facts.ctaidz_after_reserved.insert(function);
                }
            }
            facts.reserved_smem.extend(part.reserved_smem);
        }
        for attr in nv_info {
            match attr {
                Attribute::FrameSize(FunctionValue { function, value }) => {
                    facts.frame.insert(*function, *value);
                }
                Attribute::Regcount(FunctionValue { function, value }) => {
                    facts.regcount.insert(*function, *value);
                }
                _ => {}
            }
        }
        if self.layout.executable {
            // Kernels kept without being live (crate::gc::Liveness's
            // `unwalked_kernels`) do not count: `-kernels-used=k1` with k1
            // launching k2 and libcudadevrt's 32 kernels kept, k1 still
            // gathers every function's EXTERNS and NUM_BARRIERS (sm_80).
            let (walked, unwalked): (Vec<u32>, Vec<u32>) =
                self.kernels().into_iter().partition(|&k| self.is_walked(k, unwalked));
            facts.unwalked = unwalked.into_iter().collect();
            facts.only_kernel = match walked.as_slice() {
                [k] => Some(*k),
                _ => None,
            };
        }
        facts.find_recursion();
        facts.find_recursion_through_addresses();
        let targets = facts.callees.values().flatten().chain(facts.address_taken.iter().map(|(g, _)| g));
        facts.undefined_target = targets.copied().any(|g| !self.is_defined_output(g));
        facts
    }

    /// One input's call edges (output symbol indices), indirect calls,
    /// address-taken functions, and its functions' barrier counts and
    /// EXTERNS, in the input's order.
    fn input_facts(&self, input: &InputObject<'_>) -> InputFacts {
        let mut part = InputFacts::default();
        for s in input.sections() {
            if s.sh_type != SHT_CUDA_CALLGRAPH {
                continue;
            }
            let Ok(graph) = CallGraph::decode(s.bytes()) else { continue };
            for Pair(caller, callee) in graph.calls {
                // Rule 9.13: a weak copy taken and replaced keeps its pairs,
                // now the winner's, for the REGCOUNT a kernel takes from
                // what it reaches (sweep2 p44 `d c b a.G`, sm_75: d.cu's
                // `smooth<double>`, replaced by a.G's, calls d.cu's local
                // `__internal_trig_reduction_slowpathd`, 46 registers, and
                // every kernel reaching `smooth<double>` gets 46; fixture
                // `rcrepl`).
                if !self.survives(input.index, caller) && !self.replaced_copy(input.index, caller) {
                    continue;
                }
                if let (Some(a), Some(b)) = (self.out_index(input.index, caller), self.out_index(input.index, callee)) {
                    part.calls.push((a, b));
                }
            }
            let signed = |Pair(f, p): Pair| {
                if !self.survives(input.index, f) {
                    return None;
                }
                Some((self.out_index(input.index, f)?, self.signature(input, p)?))
            };
            part.indirect.extend(graph.indirect_calls.into_iter().filter_map(signed));
            part.address_taken.extend(graph.address_taken.into_iter().filter_map(signed));
        }
        for s in input.sections().iter().filter(|s| s.sh_type == SHT_CUDA_INFO && s.name.starts_with(".nv.info.")) {
            let Some(symbol) = input.function_in(s.info as usize) else { continue };
            let Some(function) = self.out_index(input.index, symbol as u32) else { continue };
            // Only four codes matter here: decode just those records.
            let wanted = |r: &RawRecord<'_>| {
                r.attribute == EIATTR_NUM_BARRIERS
                    || r.attribute == EIATTR_EXTERNS
                    || r.attribute == EIATTR_NUM_MBARRIERS
                    || r.attribute == nvinfo::EIATTR_CTAIDZ_USED
                    || r.attribute == nvinfo::EIATTR_RESERVED_SMEM_USED
                    || r.attribute == ATTR_ABI7_MARK
            };
            let mut seen_externs = false;
            let mut seen_reserved = false;
            let mut order = [u8::MAX; 3];
            let mut next = 0u8;
            for raw in nvinfo::records(s.bytes()).flatten().filter(wanted) {
                seen_externs |= raw.attribute == EIATTR_EXTERNS;
                seen_reserved |= raw.attribute == nvinfo::EIATTR_RESERVED_SMEM_USED;
                let slot = match raw.attribute {
                    EIATTR_NUM_BARRIERS => Some(0),
                    EIATTR_NUM_MBARRIERS if raw.format == EIFMT_HVAL => Some(1),
                    EIATTR_EXTERNS => Some(2),
                    _ => None,
                };
                if let Some(at) = slot.and_then(|k: usize| order.get_mut(k)).filter(|at| **at == u8::MAX) {
                    *at = next;
                    next = next.saturating_add(1);
                }
                if raw.attribute == ATTR_ABI7_MARK {
                    if self.survives(input.index, symbol as u32) {
                        part.marked.push(function);
                    }
                    continue;
                }
                if raw.attribute == nvinfo::EIATTR_CTAIDZ_USED {
                    if self.survives(input.index, symbol as u32) {
                        part.ctaidz.push((function, !seen_externs, seen_reserved));
                    }
                    continue;
                }
                if raw.attribute == nvinfo::EIATTR_RESERVED_SMEM_USED {
                    if self.survives(input.index, symbol as u32) {
                        part.reserved_smem.push(function);
                    }
                    continue;
                }
                if raw.attribute == EIATTR_NUM_MBARRIERS {
                    if raw.format == EIFMT_HVAL {
                        part.mbarriers.push((function, raw.value));
                    }
                    continue;
                }
                match Attribute::decode(&raw) {
                    // Only the kept copy's count too (fresh4 a7: in input
                    // order the ABI-7 copy of a weak callee, whose count is in
                    // its sh_flags, wins over ABI-8 copies with a record, and
                    // `fx_coop_grid` gets no count from its callees; reversed,
                    // an ABI-8 copy wins and it does; sm_80..sm_89).
                    Attribute::NumBarriers(ByteValue(n)) if self.survives(input.index, symbol as u32) => {
                        part.barriers.push((function, n))
                    }
                    // Rule 7.2: only the kept copy's list (a losing weak
                    // copy's EXTERNS go with its `.nv.info.<fn>`).
                    Attribute::Externs(list) if self.survives(input.index, symbol as u32) => {
                        let out = list.0.iter().filter_map(|&e| self.out_index(input.index, e)).collect();
                        part.externs.push((function, out));
                    }
                    _ => {}
                }
            }
            // Rule 10: an ABI-7 device function keeps its barrier count in
            // its `.text` sh_flags, not in a record; it counts for the
            // kernels reaching it as a record would (sweep26 p273 `abi7`:
            // `k_scan` gets NUM_BARRIERS 1 from `scan_excl`'s flags, as from
            // an ABI-8 copy's record; sm_75..sm_90).
            let abi7_count = input.section(s.info as usize).map_or(0, |t| (t.flags & ABI7_BARRIER_MASK) >> 20);
            if order[0] == u8::MAX
                && abi7_count != 0
                && !self.is_kernel(function)
                && self.survives(input.index, symbol as u32)
            {
                part.barriers.push((function, u16::try_from(abi7_count).unwrap_or(u16::MAX)));
                part.flag_barriers.push(function);
            }
            if self.survives(input.index, symbol as u32) {
                part.record_order.push((function, order));
            }
        }
        part
    }

    /// Rule 7.2: an EXTERNS entry stays when the output leaves it undefined
    /// or when it is a kernel (an address-taken kernel: dynpar's `child` in
    /// `parent`'s list, libcudadevrt's 32 `memset`/`memcpy_3d_device`
    /// kernels in `cnprtCnpv2TranslateError`'s; a defined device function
    /// goes, fptr's address-taken `fptr_times3` included).
    fn extern_kept(&self, index: u32) -> bool {
        !self.is_defined_output(index) || self.is_kernel(index)
    }

    fn is_kernel(&self, index: u32) -> bool {
        self.symbols.symbols.get(index as usize).is_some_and(|s| s.other & STO_CUDA_ENTRY != 0)
    }

    /// Whether kernel `k` is live, not only kept ([`crate::gc::Liveness`]).
    fn is_walked(&self, k: u32, unwalked: &hashbrown::HashSet<(usize, usize)>) -> bool {
        unwalked.is_empty() || self.text_piece_of(k).is_none_or(|p| !unwalked.contains(&p))
    }

    /// The input (input, section) whose `.text` an output function's
    /// section starts with.
    fn text_piece_of(&self, function: u32) -> Option<(usize, usize)> {
        let crate::symbols::SymbolSection::Section(id) = self.symbols.symbols.get(function as usize)?.section else {
            return None;
        };
        let piece = self.layout.section(id)?.pieces.first()?;
        Some((piece.input, piece.section))
    }

    /// The kernels of the output, in symtab order.
    fn kernels(&self) -> Vec<u32> {
        (0..self.symbols.symbols.len())
            .filter(|&i| {
                self.symbols.symbols.get(i).is_some_and(|s| {
                    s.st_type == develf_format::symbol::STT_FUNC
                        && s.other & STO_CUDA_ENTRY != 0
                        && self.is_defined_output(i as u32)
                })
            })
            .map(|i| i as u32)
            .collect()
    }

    /// Rule 7.1, nvlink's "Stack size for entry function '<k>' cannot be
    /// statically determined": in an executable, once for each callee of a
    /// kernel whose stack size is unknown (recursive, or reaching
    /// recursion), and once more for each indirect call site it is a
    /// possible target of, kernels in output `.text` order. Calls:
    /// `calls_fib_kernel` once (`lib_fib`); a kernel calling three
    /// recursive functions three times, one calling
    /// a function that reaches two recursive ones once; fptr `kfp` twice
    /// (`even`, and `sub2` through its pointer call), `kfp2` once (`sub2`);
    /// nothing under `-r`.
    fn stack_warnings(&self, facts: &CallFacts) -> Vec<LinkWarning> {
        if !self.layout.executable {
            return Vec::new();
        }
        let name = |i: u32| {
            let s = self.symbols.symbols.get(i as usize);
            s.and_then(|s| string_at(&self.symbols.strtab.bytes, s.name)).unwrap_or_default().to_string()
        };
        let mut kernels = self.kernels();
        kernels.sort_by_key(|&k| self.text_section(k).unwrap_or(usize::MAX));
        let mut warnings = Vec::new();
        // Not for a kernel kept without being walked (`-preserve-relocs
        // -kernels-used` keeps the unselected ones): nvlink treats it as a
        // device function (sweep27 p283 `pr-ku`: no warning for `k_tree`,
        // `k_gcd`, ..., which `-kernels-used=k_tree` alone warns for;
        // sm_75..sm_120).
        // An address-taken function counts once however many inputs take it.
        let mut taken: Vec<(u32, u32)> = Vec::new();
        for &(g, p) in &facts.address_taken {
            if !taken.iter().any(|&(t, _)| t == g) {
                taken.push((g, p));
            }
        }
        for k in kernels.into_iter().filter(|k| !facts.unwalked.contains(k)) {
            // A direct callee once; each indirect call site then brings every
            // address-taken function of its prototype again (sweep30 p313
            // sm_90: `k_diamond`'s five sites through `Shape*`, two recursive
            // candidates each: 10 warnings; `k_dispatch`: `u_rec` called and
            // in two sites' candidates: 3).
            let direct = facts.callees.get(&k).into_iter().flatten().copied();
            let sites = facts.indirect.get(&k).map(Vec::as_slice).unwrap_or_default();
            let through_pointers =
                sites.iter().flat_map(|site| taken.iter().filter(move |(_, p)| p == site).map(|&(g, _)| g));
            for c in direct.chain(through_pointers).filter(|&c| facts.is_recursive(c)) {
                warnings.push(LinkWarning::UnknownStackSize { kernel: name(k), callee: name(c) });
            }
        }
        warnings
    }

    /// Rule 7.1.
    fn nv_info(&self, unwalked: &hashbrown::HashSet<(usize, usize)>) -> Result<(Vec<u8>, CallFacts), LinkError> {
        // Each input's records are decoded in parallel, kept in input order.
        let per_input: Vec<Vec<Attribute>> = self
            .inputs
            .par_iter()
            .map(|input| {
                let mut records = Vec::new();
                for s in input.sections() {
                    if s.sh_type != SHT_CUDA_INFO || s.name != ".nv.info" {
                        continue;
                    }
                    for record in NvInfo::decode(s.bytes()).records {
                        let mut attr = record.attribute;
                        if self.layout.executable && attr.code() == EIATTR_MAX_STACK_SIZE {
                            continue;
                        }
                        if !attr.all_symbols(&mut |sym| self.survives(input.index, sym))
                            || !self.remap(input.index, &mut attr)
                        {
                            continue;
                        }
                        records.push(attr);
                    }
                }
                records
            })
            .collect();
        // The output's records are the inputs' reversed: each input's list,
        // walked from its end, last input first. Kept per input rather than
        // copied into one list (a big link's are some 3 MB).
        let mut per_input = per_input;
        let facts = self.call_facts(per_input.iter().rev().flat_map(|l| l.iter().rev()), unwalked);
        let mut appended: Vec<Attribute> = Vec::new();
        if self.layout.executable {
            for attr in per_input.iter_mut().flat_map(|l| l.iter_mut()) {
                if let Attribute::Regcount(FunctionValue { function, value }) = attr {
                    // Rule 7.1: only kernels are raised; a device function keeps
                    // its own count (deep38: f_30 stays 24 though f_31 uses 68;
                    // big: 10,000 device functions, 200 kernels). So does a
                    // kernel kept without being live (`-preserve-relocs
                    // -kernels-used=ka`: `kb` 24 though `heavy` uses 75;
                    // sweep13 p144 `destroy_scene`, sm_80..sm_120).
                    if !self.is_kernel(*function) || facts.unwalked.contains(function) {
                        continue;
                    }
                    *value = (*value).max(facts.most_registers(*function));
                }
            }
            let mut memo = HashMap::new();
            // Not the kernels that are kept without being live (an
            // address-taken one under `-kernels-used`: k2 launched by k1
            // with `-kernels-used=k1`, libcudadevrt's `memset_3d` kernels;
            // `-preserve-relocs`' `unused_kernel`; sm_80).
            for k in self.kernels().into_iter().filter(|k| !facts.unwalked.contains(k)) {
                // Recursion through an indirect call makes it unknown too
                // (fptr `kfp2`, rule 7.1).
                let value = if facts.is_recursive(k) {
                    UNKNOWN_STACK
                } else {
                    facts.stack_size(k, &mut memo, 0).unwrap_or(UNKNOWN_STACK)
                };
                appended.push(Attribute::MinStackSize(FunctionValue { function: k, value }));
            }
        }
        let count = per_input.iter().map(Vec::len).sum::<usize>() + appended.len();
        let records = per_input.iter().rev().flat_map(|l| l.iter().rev()).chain(&appended);
        Ok((encode_all(records, count, ".nv.info")?, facts))
    }

    /// Rule 7.2, for the output section `name` describing the function in `text`.
    fn function_info(&self, name: &str, text: usize, facts: &CallFacts) -> Result<Vec<u8>, LinkError> {
        let Some(piece) = self.layout.section(text).and_then(|t| t.pieces.first()).copied() else {
            return Ok(Vec::new());
        };
        let Some(input) = self.inputs.get(piece.input) else { return Ok(Vec::new()) };
        let merc = name.starts_with(".nv.merc.");
        let indexed = input.info_about(piece.section, merc).and_then(|i| input.section(i)).filter(|s| s.name == name);
        let source = indexed.or_else(|| {
            input
                .sections()
                .iter()
                .find(|s| is_info_type(s.sh_type) && s.name == name && s.info as usize == piece.section)
        });
        let Some(source) = source else { return Ok(Vec::new()) };
        // The records up to the first unreadable one (NvInfo::decode's), each
        // decoded as it is used: a big link has ten thousand functions.
        let records = || nvinfo::records(source.bytes()).map_while(Result::ok);
        let decoded_has_mark = records().any(|r| r.attribute == ATTR_ABI7_MARK);
        // Room for the records and what rules 7.1, 7.2 and 10 append.
        let mut reversed: Vec<Attribute> = Vec::with_capacity(records().count() + 4);
        let mut group: Vec<Attribute> = Vec::new();
        let function = self.text_function(text);
        let recursive = function.is_some_and(|f| facts.is_recursive(f));
        // A kernel kept without being live is a device function here
        // (f06 `-kernels-used=parent`: `child`, which `parent` launches,
        // keeps no EXTERNS of what it calls; sm_80).
        let kernel = function.is_some_and(|f| self.is_kernel(f) && !facts.unwalked.contains(&f));
        // Rule 7.2, exec EXTERNS of a kernel: its own list (filtered), then
        // the lists of the functions it reaches. It stays in its reversed
        // place, except in an output with one kernel whose list the callees
        // extended: then it goes last (sys: sys_kernel gains `__assertfail`;
        // without the assert, or with a second kernel, it stays).
        let (kernel_externs, extended) = match function {
            Some(f) if self.layout.executable && kernel => {
                let (list, own, early) = self.kernel_externs(f, facts);
                let extended = list.len() > own;
                (Some((list, early)), extended)
            }
            _ => (None, false),
        };
        // A lone live kernel counts as the only one (`facts.only_kernel`).
        let externs_last =
            extended && (self.kernels().len() < 2 || (function.is_some() && facts.only_kernel == function));
        // That last list puts what the functions of earlier inputs brought
        // before the kernel's own entries, the rest after (sys_util +
        // sys_main: sys_checked's __assertfail, sys_report's vprintf, then
        // malloc, free; fresh2 tl_c + tl_b + tl_a-r24 with `-kernels-used`:
        // tl_c's tl_rec_b's vprintf before the kernel's own __assertfail;
        // sm_75..sm_90a). In place, its own entries stay first.
        let kernel_externs = kernel_externs.map(|(mut list, early)| {
            if externs_last && !early.is_empty() {
                list.retain(|e| !early.contains(e));
                list.splice(0..0, early);
            }
            list
        });
        let mut had_externs = false;
        for record in records() {
            let mut attr = Attribute::decode(&record);
            if attr.code() == EIATTR_EXTERNS {
                if let Some(list) = &kernel_externs {
                    had_externs = true;
                    if !externs_last && !list.is_empty() {
                        reversed.push(Attribute::Externs(develf_eiattr::shape::Symbols(list.clone())));
                    }
                    continue;
                }
            }
            if attr.code() == EIATTR_EXTERNS {
                // Kept only for what is still undefined, or a kernel (rule 7.2, EXTERNS).
                let Attribute::Externs(list) = &attr else { continue };
                let still: Vec<u32> = list
                    .0
                    .iter()
                    .filter_map(|&s| self.out_index(input.index, s))
                    .filter(|&o| self.extern_kept(o))
                    .collect();
                if still.is_empty() {
                    continue;
                }
                reversed.push(Attribute::Externs(develf_eiattr::shape::Symbols(still)));
                continue;
            }
            if !self.remap(input.index, &mut attr) {
                continue;
            }
            // Rule 7.1: only a kernel's record; a recursive device function
            // keeps its own (fptr: the mutually recursive `odd`/`even` keep
            // CRS_STACK_SIZE 0; sm_75, 80, 86, 90, 100, 120 exec).
            if self.layout.executable && recursive && kernel {
                if let Attribute::CrsStackSize(w) = &mut attr {
                    *w = Word(UNKNOWN_STACK);
                }
            }
            // Rule 7.2: a kernel's own NUM_BARRIERS is raised in place to
            // the largest count of the functions it takes counts from
            // (`barrier_contributors`): a7nb_k's `__syncthreads` kernel (1)
            // calling a7nb_f's `a7nb_helper` (`bar.sync 1, 64`: 2) has 2,
            // coop_grid_kernel (1) as the only kernel beside an uncalled
            // `a7nb_helper` under `-g` too (sm_90 exec; nvlink 13.5).
            if let (Attribute::NumBarriers(ByteValue(own)), Some(f), true) =
                (&mut attr, function, self.layout.executable && kernel)
            {
                let most = CallFacts::largest_count(f, &facts.barrier_contributors(f), &facts.barriers);
                *own = (*own).max(most.unwrap_or(0));
            }
            // Its own NUM_MBARRIERS grows by its contributors' (`kown`, 1,
            // calling `g1`, 1: 2; sm_90).
            if let (Attribute::Raw(record), Some(f), true) = (&mut attr, function, self.layout.executable && kernel) {
                if record.code == EIATTR_NUM_MBARRIERS && !facts.mbarriers.is_empty() {
                    let more = CallFacts::summed_count(f, &facts.barrier_contributors(f), &facts.mbarriers);
                    record.value = record.value.saturating_add(more.unwrap_or(0));
                }
            }
            if self.layout.mercury && MERCURY_GROUP.contains(&attr.code()) {
                group.push(attr);
            } else {
                reversed.push(attr);
            }
        }
        reversed.reverse();
        // Rule 7.1: an executable's recursive kernel without a CRS_STACK_SIZE
        // record of its own gets one saying "unknown" (poly: `kack` calls the
        // recursive `ack`; a kernel with the record has it rewritten in place),
        // before an appended EXTERNS (virt `-kernels-used=virt_rec_kernel`,
        // sm_90: `CRS_STACK_SIZE, EXTERNS free`).
        if self.layout.executable
            && kernel
            && recursive
            && !reversed.iter().chain(&group).any(|a| matches!(a, Attribute::CrsStackSize(_)))
        {
            reversed.push(Attribute::CrsStackSize(Word(UNKNOWN_STACK)));
        }
        // Rule 7.2, exec NUM_BARRIERS: a kernel without its own record whose
        // callees use named barriers gets their largest count appended
        // (cluster: cluster_kernel gets cluster_b_rank_value's 1; 4/4 links).
        // The same for NUM_MBARRIERS (HVAL), after it: a `-G` kernel whose
        // `cuda::barrier` calls are not inlined gets its callees' largest
        // count (a fresh pipeline kernel: 1 from three callees with 1 each,
        // sm_90 and sm_100 exec). The call graph is walked only when a
        // function has such a record. Against an appended EXTERNS, the one
        // whose first contributor comes first in the EXTERNS lists' order
        // comes first (`appended_keys`).
        // Rule 7.2, exec CTAIDZ_USED: a kernel without the flag whose
        // callees read `%ctaid.z` gets it appended (a kernel calling a
        // `__noinline__` function that reads `blockIdx.z`; sm_75, sm_80;
        // ptxas writes no such record for Mercury functions). The only
        // kernel takes it from every function, as its NUM_BARRIERS
        // (`-kernels-used=k1` with libcudadevrt's `memcpy_3d` kernels kept).
        // Before NUM_BARRIERS; before or after an appended EXTERNS by which
        // of their contributors comes first (`ctaidz_first`).
        let mut ctaidz = function.filter(|&f| {
            self.layout.executable
                && kernel
                && !facts.ctaidz.is_empty()
                && !reversed.iter().chain(&group).any(|a| a.code() == nvinfo::EIATTR_CTAIDZ_USED)
                && facts.ctaidz_contributors(f).iter().any(|&g| g != f && facts.ctaidz.contains(&g))
        });
        let mut appended_externs = kernel_externs.filter(|list| (externs_last || !had_externs) && !list.is_empty());
        // (An EXTERNS the only kernel gathered goes last: `-kernels-used=kz`
        // puts CTAIDZ_USED before it, though `fz` brings both.)
        // Ahead of the records appended below, unless their first
        // contributors come before its own (`ctaidz_early`).
        let mut ctaidz_early = None;
        if let Some(f) = ctaidz.filter(|&f| appended_externs.is_none() || externs_last || self.ctaidz_first(f, facts)) {
            ctaidz = None;
            ctaidz_early = Some(f);
        }
        let exec_kernel = self.layout.executable && kernel;
        // An ABI-7 kernel with its own barrier count (rule 10, below) gets
        // its callees' count here all the same, and keeps its own in its
        // sh_flags (`keeps_abi7_barriers`).
        let abi7_barriers = self.abi7_barrier_count(text);
        let own_abi7_count = self.layout.executable && abi7_barriers != 0;
        let wants_barriers = exec_kernel
            && !facts.barriers.is_empty()
            && !reversed.iter().any(|a| matches!(a, Attribute::NumBarriers(_)));
        let wants_mbarriers =
            exec_kernel && !facts.mbarriers.is_empty() && !reversed.iter().chain(&group).any(is_mbarrier_count);
        let mut appended: Vec<(ContributorKey, u8, Attribute)> = Vec::new();
        // Rule 10: callees' counts from ABI-7 sh_flags alone are not appended
        // in their contributors' order: they raise the count that goes last
        // (below), as the kernel's own would (sweep26 p273 `abi7G`:
        // `k_block_reduce` ends EXTERNS `__assertfail`, NUM_BARRIERS 1 from
        // `staged_sum<int,64>`'s flags; sm_75).
        let mut flag_count = None;
        if let Some(f) = function.filter(|_| wants_barriers || wants_mbarriers) {
            let contributors = facts.barrier_contributors(f);
            let (flagged, records): (Vec<u32>, Vec<u32>) =
                contributors.iter().copied().partition(|g| facts.flag_barriers.contains(g));
            let most = |counts: &HashMap<u32, u16>| CallFacts::largest_count(f, &contributors, counts);
            let sum = |counts: &HashMap<u32, u16>| CallFacts::summed_count(f, &contributors, counts);
            let by_records = CallFacts::largest_count(f, &records, &facts.barriers);
            if let Some(n) = most(&facts.barriers).filter(|_| wants_barriers && by_records.is_some()) {
                appended.push((ContributorKey::LAST, 0, Attribute::NumBarriers(ByteValue(n))));
            }
            if wants_barriers && by_records.is_none() {
                flag_count = CallFacts::largest_count(f, &flagged, &facts.barriers);
            }
            // Functions whose NUM_MBARRIERS is 0 (an `mbarrier.arrive` only)
            // bring none: nvlink appends no record of 0 (/work/sweep2/red/mbo
            // `mo_i2 mo_k3`, sm_90; fixture `mbo-zero`), though they still
            // order the records (`appended_keys`).
            if let Some(n) = sum(&facts.mbarriers).filter(|&n| wants_mbarriers && n > 0) {
                let record =
                    RawAttribute { format: EIFMT_HVAL, code: EIATTR_NUM_MBARRIERS, value: n, payload: Vec::new() };
                appended.push((ContributorKey::LAST, 1, Attribute::Raw(record)));
            }
        }
        // Rule 7.2, exec RESERVED_SMEM_USED: a kernel without the flag whose
        // callees have it (the cooperative-groups code of a `-G` object,
        // `tiled_partition<16>` and `cg::reduce` in `__device__` functions
        // that stay calls) gets it appended, before the merc group (sweep9
        // p21 `G-exec`: `segment16_sums` calling `tile16_sum`, sm_80..sm_90
        // and, in both `.nv.info` copies, sm_100/sm_120), in the order of its
        // first contributor among the appended records (sweep11 p120, sm_90:
        // `G-exec`'s `k_a_sum_int` RESERVED_SMEM_USED then NUM_BARRIERS 16,
        // `G-rev`'s `k_a_max_scaled` NUM_BARRIERS then RESERVED_SMEM_USED).
        if exec_kernel
            && !facts.reserved_smem.is_empty()
            && !reversed.iter().chain(&group).any(|a| a.code() == nvinfo::EIATTR_RESERVED_SMEM_USED)
            && function.is_some_and(|f| facts.reach(f).0.iter().any(|&g| g != f && facts.reserved_smem.contains(&g)))
        {
            appended.push((ContributorKey::LAST, 3, Attribute::ReservedSmemUsed(develf_eiattr::shape::Flag)));
        }
        // The only kernel's gathered list stays last, after NUM_BARRIERS too
        // (sweep p41 `-kernels-used=ka`: `ka` reaches `warn_once`'s
        // `vprintf` through a lower output index than `tile_sum`'s barrier,
        // yet nvlink writes NUM_BARRIERS, EXTERNS; sm_75..sm_120). Otherwise
        // the appended NUM_BARRIERS, NUM_MBARRIERS, EXTERNS and
        // RESERVED_SMEM_USED come in the order of their first contributors
        // (`appended_keys`).
        if let Some(f) = function.filter(|_| !appended.is_empty()) {
            if !externs_last {
                if let Some(list) = appended_externs.take() {
                    appended.push((ContributorKey::LAST, 2, Attribute::Externs(develf_eiattr::shape::Symbols(list))));
                }
            }
            if appended.len() > 1 {
                let mut keys = self.appended_keys(f, facts);
                // Among the appended records, an ABI-7 function whose barrier
                // count is in its sh_flags alone does not place NUM_BARRIERS:
                // the first function with a record does (sweep32 p332
                // `abi7-mix`, sm_80..sm_90: ABI-8 `k_barrier_b` reaches ABI-7
                // functions with barrier bits, one of them with a
                // NUM_MBARRIERS record, before b.cu's `b_barrier_copy` with
                // both records: NUM_MBARRIERS, NUM_BARRIERS). Against
                // CTAIDZ_USED it does (sweep31 p322 `abi7-r-exec`, sm_75).
                if u32::try_from(keys[0].2).is_ok_and(|g| facts.flag_barriers.contains(&g)) {
                    let first = self.first_contributor(f, facts, |g| facts.has_barrier_record(g));
                    if first != ContributorKey::LAST {
                        keys[0] = first;
                    }
                }
                for (key, rank, _) in &mut appended {
                    *key = keys[usize::from(*rank)];
                }
                // One contributor bringing several brings them in its own
                // records' order (sweep15 p179 `bulk_copy`, `cp.async.bulk`
                // on an mbarrier: NUM_BARRIERS, EXTERNS
                // `__cuda_syscall_cp_async_bulk_unicast`, NUM_MBARRIERS in
                // `bulk_kernel`; relinking its `-r` output, whose records are
                // reversed: NUM_MBARRIERS, EXTERNS, NUM_BARRIERS; sm_90..sm_120;
                // nbex-G: NUM_BARRIERS, EXTERNS).
                // The only kernel's NUM_MBARRIERS still never precedes its
                // NUM_BARRIERS (`appended_keys`; fixture `eorder-relink`).
                let position = |key: ContributorKey, rank: u8| {
                    let own = u32::try_from(key.2).ok().and_then(|g| facts.record_order.get(&g));
                    let at = own.and_then(|o| o.get(usize::from(rank))).copied().filter(|&at| at != u8::MAX);
                    u16::from(at.unwrap_or(rank)) * 2
                };
                let only = facts.only_kernel == Some(f);
                let order = |key: ContributorKey, rank: u8| match rank {
                    1 if only && keys[0] == key => position(key, 1).max(position(key, 0) + 1),
                    r => position(key, r),
                };
                appended.sort_by_key(|(key, rank, _)| (*key, order(*key, *rank)));
            }
        }
        // An early CTAIDZ_USED follows the appended records whose first
        // contributor comes before its own (sweep21 p224 `-g`, sm_75..sm_86:
        // `cx_dynamic_tiles_k` calls `cx_dyn_tile_sum`, which reads
        // `%ctaid.z` and calls the barrier functions, whose `.nv.info` comes
        // first in `tiles.cu`'s object: NUM_BARRIERS, CTAIDZ_USED). The only
        // kernel keeps it first (`ctaidz_first`).
        let appended_from = reversed.len();
        if let Some(f) = ctaidz_early {
            let only = facts.only_kernel == Some(f);
            let (keys, own) = if appended.is_empty() {
                ([ContributorKey::LAST; 4], ContributorKey::LAST)
            } else {
                (self.appended_keys(f, facts), self.ctaidz_key(f, facts))
            };
            // A function bringing RESERVED_SMEM_USED too brings it beside its
            // CTAIDZ_USED (sweep31 p322 `-G`, sm_80/sm_86: `dyn_tile_sum` of
            // a dynamic `tiled_partition` reads `%ctaid.z`): in its own
            // records' order (`k_mixed_c` beside a second kernel:
            // NUM_BARRIERS, RESERVED_SMEM_USED, CTAIDZ_USED), or right after
            // the only kernel's first CTAIDZ_USED (alone: CTAIDZ_USED,
            // RESERVED_SMEM_USED, NUM_BARRIERS).
            let same_reserved = |rank: u8| rank == 3 && own != ContributorKey::LAST && keys[3] == own;
            let reserved_first = u32::try_from(own.2).is_ok_and(|g| facts.ctaidz_after_reserved.contains(&g));
            let before = if only {
                0
            } else {
                appended
                    .iter()
                    .take_while(|(_, rank, _)| {
                        keys[usize::from(*rank)] < own || (same_reserved(*rank) && reserved_first)
                    })
                    .count()
            };
            let mut rest = appended.split_off(before);
            for (_, _, record) in appended {
                reversed.push(record);
            }
            reversed.push(ctaidz_used());
            if only {
                if let Some(at) = rest.iter().position(|(_, rank, _)| same_reserved(*rank)) {
                    reversed.push(rest.remove(at).2);
                }
            }
            appended = rest;
        }
        for (_, rank, record) in appended {
            reversed.push(record);
            if rank == 2 && ctaidz.take().is_some() {
                reversed.push(ctaidz_used());
            }
        }
        // Rule 7.2, exec EXTERNS of a kernel without a list of its own, or
        // of the output's only kernel: appended last (sys: sys_kernel gets
        // `__assertfail` from sys_checked). Device functions keep their own
        // list in place.
        let externs_at = appended_externs.is_some().then_some(reversed.len());
        if let Some(list) = appended_externs {
            reversed.push(Attribute::Externs(develf_eiattr::shape::Symbols(list)));
        }
        if ctaidz.is_some() {
            reversed.push(ctaidz_used());
        }
        // Rule 10 (after rule 7.1's CRS_STACK_SIZE: fptr_b's recursive
        // `kfp2` ends `CRS_STACK_SIZE, 0x66`): a kernel without the 0x66
        // record of ptxas 13.x gets it when it reaches a function that has
        // it. That is an ABI-7 kernel calling into ABI-8 code (calls-mixed-abi;
        // ptx-mixed-abi's device function `ptx_lib_affine` gets none, 4/4
        // exec links), and also one whose ABI-7 origin a `-r` output hides
        // (fresh3 `mix` relinked: `ps_driver`, sm_75..sm_90a).
        let mark = self.layout.executable && kernel && !decoded_has_mark && self.reaches_marked_code(facts, function);
        if mark {
            let record =
                Attribute::Raw(RawAttribute { format: 4, code: ATTR_ABI7_MARK, value: 4, payload: vec![3, 0, 0, 0] });
            // After a NUM_BARRIERS appended from the callees' records when
            // the kernel is the output's only one (a7nb-mixed-abi), before
            // it otherwise (a7bar-mixed-abi, with `a7bar_leaf` beside it;
            // /tmp/a7 in session 41: `kown1` alone, or with `kown2` or
            // `kplain`; sm_75). Against an appended NUM_MBARRIERS, by their
            // first contributors (`appended_keys`; the mark's is the first
            // marked function reached), the mark first on a tie: sweep30
            // p312 `abi7-mix`, ABI-7 `k_bulk_copy` calling ABI-8 `mbar_init`
            // (both): `0x66, NUM_MBARRIERS, NUM_BARRIERS`; sweep29 p301
            // `abi7-mix`, ABI-7 `k_tiles_c` reaching ABI-7 `mbar_init` in
            // an earlier input than its ABI-8 callee, and sweep30 p312
            // `abi7-r-exec`: `NUM_MBARRIERS, 0x66, NUM_BARRIERS` (sm_90).
            let mark_first = |f: u32| self.mark_key(f, facts) <= self.appended_keys(f, facts)[1];
            let mark_before_barriers = |f: u32| {
                let replaced = self.first_copies_abi7(facts);
                let by_record = |g: u32| facts.has_barrier_record(g) && !replaced.contains(&g);
                self.mark_key(f, facts) <= self.first_contributor(f, facts, by_record)
            };
            // Against an appended CTAIDZ_USED by first contributors too
            // (sweep31 p322 `abi7-mix`, ABI-7 `k_mixed_c` reaching b.cu's
            // `redux_all` and its own file's `dyn_tile_sum`: `0x66,
            // CTAIDZ_USED`, sm_75..sm_86; fixture a7mz-mixed-abi).
            let mark_before_ctaidz = |f: u32| self.mark_key(f, facts) <= self.ctaidz_key(f, facts);
            let appended_barriers = reversed
                .get(appended_from..)
                .and_then(|tail| {
                    tail.iter().position(|a| {
                        (matches!(a, Attribute::NumBarriers(_)) && function.is_some_and(mark_before_barriers))
                            || (is_mbarrier_count(a) && function.is_some_and(mark_first))
                            || (a.code() == nvinfo::EIATTR_CTAIDZ_USED && function.is_some_and(mark_before_ctaidz))
                    })
                })
                .map(|at| appended_from + at);
            // Before an appended EXTERNS too when the marked code comes from
            // an earlier input than the kernel's (sweep27 p282 `abi7-mix`:
            // ABI-7 `k_smooth` reaching b.cu's code, `0x66, EXTERNS`; fixture
            // a7x's `a7x_main`, `a7x_pk`), after it otherwise (sweep27 p284
            // `abi7G`: ABI-7 `k_device_info` calling libcudadevrt, the last
            // input: `EXTERNS, 0x66`; a7fb-mixed-abi's `-r` output relinked:
            // `a7fb_ext` calling `a7fb_check` of the same input). The only
            // kernel has it last (`-kernels-used=a7fb_ext`: `NUM_BARRIERS,
            // EXTERNS, 0x66`). sm_75, sm_90.
            let externs_at = externs_at.filter(|_| self.marked_code_earlier(facts, function));
            match appended_barriers.or(externs_at).filter(|_| facts.only_kernel != function) {
                Some(at) => reversed.insert(at, record),
                None => reversed.push(record),
            }
        }
        // An ABI-7 function using barriers (its `.text` sh_flags bits
        // 20..26) gets NUM_BARRIERS with that count appended, kernel or
        // device function, after the 0x66 record (cub_b built by CUDA 12.9's
        // ptxas, sm_75 and sm_90: `scan_long`, `red_int2`, `shared_scan` all
        // 0x100006 -> NUM_BARRIERS 1, no 0x66: they reach no ABI-8 code;
        // fresh3 ABI-7 `ps_warp_stats`, `bar.sync 3, 64`, calls ABI-8
        // `ps_bucket`: 0x66 then NUM_BARRIERS 4, sm_75..sm_90a). A `-r`
        // output keeps the bits, and relinking it does the same (fresh3
        // `a7` relinked, sm_75..sm_90a); ptxas 13.x never sets them.
        if (own_abi7_count || flag_count.is_some()) && !reversed.iter().any(|a| matches!(a, Attribute::NumBarriers(_)))
        {
            let own = if own_abi7_count { abi7_barriers } else { 0 };
            reversed.push(Attribute::NumBarriers(ByteValue(own.max(flag_count.unwrap_or(0)))));
        }
        // Rule 7.2 (merc): group F follows the exec additions above (sys:
        // EXTERNS, cluster: NUM_BARRIERS come before CBANK_PARAM_SIZE).
        reversed.extend(group);
        // Rule 11.5 (merc exec): the bindless bank records of a slotted kernel.
        reversed.extend(crate::mercury::bindless_records(self.layout, name, text));
        // An sm_107 executable: every function's `.nv.info.<fn>` ends with
        // record 0x67 (BVAL 0), which nvlink 13.5 adds there and nowhere
        // else (not `-r`, not the merc copies, not sm_100/103/110/120/121;
        // exec and `-g`, kernels and device functions alike).
        if self.layout.executable && self.options.arch.sm == 107 && !merc {
            reversed.push(Attribute::Raw(RawAttribute {
                format: EIFMT_BVAL,
                code: ATTR_SM107_MARK,
                value: 0,
                payload: Vec::new(),
            }));
        }
        encode(&reversed, name)
    }

    /// Rule 10: whether an executable keeps the barrier count in an ABI-7
    /// kernel's `.text` sh_flags: when its callees' NUM_BARRIERS records
    /// give it one (appended before the 0x66 record, their count, not its
    /// own), its own count stays in the flags; otherwise its own count
    /// becomes the NUM_BARRIERS after the 0x66 record and the flags are
    /// cleared. /tmp/s11/nb: ABI-7 kernels with 1, 2 and 3 barriers of their
    /// own (0x100006, 0x200006, 0x300006) calling ABI-8 `a7nb_helper` (`bar.sync
    /// 1, 64`, 2): NUM_BARRIERS 2 then 0x66, flags kept, in either input
    /// order (sm_75/80/86/90 exec); fresh4 a7: ABI-7 `fx_coop_grid`, whose
    /// callees' kept copies have no record in input order: 0x66 then its own
    /// NUM_BARRIERS 1, flags 6; reversed, 1 from the callees, flags 0x100006
    /// (sm_80/86/89 exec and `-g`).
    pub(crate) fn keeps_abi7_barriers(&self, text: usize, facts: &CallFacts) -> bool {
        if !self.layout.executable || facts.barriers.is_empty() || self.abi7_barrier_count(text) == 0 {
            return false;
        }
        let Some(f) = self.text_function(text).filter(|&f| self.is_kernel(f)) else { return false };
        // Only records count: an ABI-7 callee's count in its sh_flags raises
        // the kernel's own NUM_BARRIERS instead, and the flags are cleared
        // (/tmp/a7 in session 41: ABI-7 `kown1`/`kown2` calling ABI-7 `fbar`
        // (1) and `fbar2` (2): NUM_BARRIERS 1 and 2, flags 6; with ABI-8
        // callees the flags stay; sm_75, sm_90).
        let records: Vec<u32> =
            facts.barrier_contributors(f).into_iter().filter(|g| !facts.flag_barriers.contains(g)).collect();
        CallFacts::largest_count(f, &records, &facts.barriers).is_some()
    }

    /// The output symbol of the function a `.text` holds.
    fn text_function(&self, text: usize) -> Option<u32> {
        let symbol = self.layout.section(text)?.info.function_symbol()?;
        self.out_index(symbol.input, symbol.symbol as u32)
    }

    /// Rule 10: the barrier count an ABI-7 `.text` keeps in its sh_flags
    /// (0 for ptxas 13.x code).
    fn abi7_barrier_count(&self, text: usize) -> u16 {
        let Some(piece) = self.layout.section(text).and_then(|t| t.pieces.first()) else { return 0 };
        let flags = self.inputs.get(piece.input).and_then(|i| i.section(piece.section)).map_or(0, |t| t.flags);
        u16::try_from((flags & ABI7_BARRIER_MASK) >> 20).unwrap_or(u16::MAX)
    }

    /// Rule 10: a kernel lacking the 0x66 record gets it only when it
    /// reaches (calls, through any chain) a function whose `.nv.info.<fn>`
    /// carries it: fresh2 ABI-7 `tl_kernel_c` (calls tl_b's `tl_rec_c`) and
    /// `cx_kernel_b` (cx_a's `cx_lookup`) get it; the leaf kernels
    /// `cx_unused` and `tl_apply<lambda>`, and `tl_kernel_a`, whose callees
    /// are its own input's, do not (sm_75, sm_90 exec).
    fn reaches_marked_code(&self, facts: &CallFacts, function: Option<u32>) -> bool {
        let Some(f) = function else { return false };
        // The output's only kernel reaches every function, as in rule 7.2.1
        // (fresh3 `-kernels-used=ps_mixed`: the ABI-7 leaf kernel, alone with
        // ps_a's ABI-8 destructors, gets 0x66; sm_75..sm_90a).
        if facts.only_kernel == Some(f) {
            return facts.marked.iter().any(|&g| g != f);
        }
        // Indirect calls count (fresh2 ABI-7 `gi_kernel` calls gi_b's
        // `gi_op_dbl` through a `__device__` table: 0x66).
        let reach = facts.reach_through_addresses(f);
        reach.iter().filter(|&&g| g != f).any(|g| facts.marked.contains(g))
    }

    /// Rule 10: the first function with the 0x66 record that kernel `f`
    /// reaches, in [`Context::appended_keys`]' order: where its appended
    /// 0x66 stands against an appended NUM_MBARRIERS.
    fn mark_key(&self, f: u32, facts: &CallFacts) -> ContributorKey {
        let replaced = self.first_copies_abi7(facts);
        self.first_contributor(f, facts, |g| facts.marked.contains(&g) && !replaced.contains(&g))
    }

    /// Rule 10: the weak functions (output symbols) whose first copy in
    /// input order is an ABI-7 object's, replaced by a later input's, found
    /// once per link. nvlink meets each where that copy is, without the 0x66
    /// record or a NUM_BARRIERS record, so it orders neither (sweep31 p322 `abi7-mix`,
    /// sm_75: `k_mixed_c` reaches `xor_butterfly<int>`, whose ABI-8 copy in
    /// b.cu replaced a.cu's ABI-7 one: NUM_BARRIERS (b.cu's barrier helper),
    /// then 0x66 (b.cu's later `redux_all`); sweep29 p300 `abi7-mix`:
    /// `block_sum<int, 128>`, the same, brings NUM_BARRIERS and 0x66, and
    /// `transform_bf`'s 0x66 comes first, before c.cu's barrier).
    fn first_copies_abi7<'f>(&self, facts: &'f CallFacts) -> &'f HashSet<u32> {
        facts.first_copies_abi7.get_or_init(|| {
            let replaced = |global: &crate::resolve::Global<'_>| {
                global.first_definition.is_some_and(|first| {
                    Some(first) != global.definition && self.inputs.get(first.input).is_some_and(|i| i.abi7)
                })
            };
            self.resolution
                .globals
                .iter()
                .zip(&self.symbols.global_index)
                .filter(|(global, _)| replaced(global))
                .filter_map(|(_, &out)| out)
                .collect()
        })
    }

    /// Rule 10: whether kernel `function` reaches code carrying the 0x66
    /// record from an earlier input than its own.
    fn marked_code_earlier(&self, facts: &CallFacts, function: Option<u32>) -> bool {
        let Some(f) = function else { return false };
        let input_of =
            |g: u32| self.text_section(g).and_then(|t| self.layout.section(t)?.pieces.first().map(|p| p.input));
        let Some(own) = input_of(f) else { return false };
        facts
            .reach_through_addresses(f)
            .iter()
            .any(|&g| g != f && facts.marked.contains(&g) && input_of(g).is_some_and(|i| i < own))
    }

    /// Rule 7.5: nvlink's own note, then (executables) every input's.
    fn tkinfo(&self) -> Vec<u8> {
        let base = |n: &str| n.rsplit(['/', '\\']).next().unwrap_or(n).to_string();
        let arch = self.options.arch.to_string();
        let relocatable = if self.layout.executable { "" } else { "-r  " };
        // In nvlink's order of the options it records (`-arch sm_100
        // -preserve-relocs  -r  `: fixture jtrel-pr).
        let preserve = if self.options.preserve_relocs { "-preserve-relocs  " } else { "" };
        // Then the kernel and variable lists, comma-joined (`-arch sm_75
        // -kernels-used _Z6kur_h1Pi `: fixture kur-relink-ku).
        let list = |flag: &str, names: &Option<Vec<String>>| {
            names.as_ref().map_or(String::new(), |n| format!("-{flag} {} ", n.join(",")))
        };
        let used = format!(
            "{}{}",
            list("kernels-used", &self.options.kernels_used),
            list("variables-used", &self.options.variables_used)
        );
        let (object, derived) = if self.options.debug_given() {
            let names: Vec<String> = self.inputs.iter().map(|i| base(i.name)).collect();
            let out = base(&self.options.output_name);
            (out.clone(), format!("{} -o {out} -g  -arch {arch} {preserve}{used}{relocatable}", names.join(",")))
        } else {
            (String::new(), format!("-arch {arch} {preserve}{used}{relocatable}"))
        };
        // The caller's rendering of the whole command line (rule 7.5: nvlink
        // records every option it was given, not only these three).
        let command_line = self.options.command_line.clone().unwrap_or(derived);
        let mut strings = Vec::new();
        let mut offsets = [0u32; 4];
        strings.extend_from_slice(object.as_bytes());
        strings.push(0);
        for (slot, s) in offsets.iter_mut().zip([TOOL_NAME, TOOL_VERSION, TOOL_BRANCH, command_line.as_str()]) {
            *slot = u32::try_from(strings.len()).unwrap_or(u32::MAX);
            strings.extend_from_slice(s.as_bytes());
            strings.push(0);
        }
        let desc_size = (24 + strings.len()).div_ceil(4) * 4;
        let mut out = Vec::with_capacity(desc_size + 24);
        for w in [12u32, u32::try_from(desc_size).unwrap_or(u32::MAX), NOTE_TKINFO] {
            out.extend_from_slice(&w.to_le_bytes());
        }
        out.extend_from_slice(b"NVIDIA Corp\0");
        for w in [2u32, 0, offsets[0], offsets[1], offsets[2], offsets[3]] {
            out.extend_from_slice(&w.to_le_bytes());
        }
        out.extend_from_slice(&strings);
        out.resize(12 + 12 + desc_size, 0);
        if self.layout.executable {
            for input in self.inputs {
                if let Some(s) = input.sections().iter().find(|s| s.name == ".note.nv.tkinfo") {
                    out.extend_from_slice(s.bytes());
                }
            }
        }
        out
    }

    /// Rule 7.4: the first ABI-8 input's note, its virtual SM lowered to the
    /// smallest any ABI-8 input has (sm_86 + sm_80 objects: 80; a `.target
    /// sm_75` PTX object among sm_90 ones: 75).
    fn cuinfo(&self) -> Vec<u8> {
        fn note<'i>(i: &'i InputObject<'_>) -> Option<&'i [u8]> {
            i.sections().iter().find(|s| s.name == ".note.nv.cuinfo").map(|s| s.bytes())
        }
        let mut bytes = self
            .inputs
            .iter()
            .filter(|i| !i.abi7)
            .chain(self.inputs.iter())
            .find_map(note)
            .map(<[u8]>::to_vec)
            .unwrap_or_else(|| {
                // Rule 7.4: inputs all ABI 7 (no cuinfo note): nvlink's note
                // names the smallest virtual SM of their e_flags (bits 16..23),
                // not the target (12.9 objects from `.target sm_75` PTX linked
                // for sm_86/sm_89/sm_90: 75).
                let abi7_virtual = self
                    .inputs
                    .iter()
                    .filter(|i| i.abi7)
                    .map(|i| (i.cubin.header().flags >> 16) & 0xff)
                    .filter(|&v| v != 0)
                    .min();
                empty_link_cuinfo(abi7_virtual.unwrap_or(self.options.arch.sm))
            });
        // The descriptor ends the note: u16 version, u16 virtual SM, u32 toolkit.
        let virtual_sm = |b: &[u8]| {
            let at = b.len().checked_sub(6)?;
            Some(u16::from_le_bytes([*b.get(at)?, *b.get(at + 1)?]))
        };
        let lowest = self
            .inputs
            .iter()
            .filter(|i| !i.abi7)
            .filter_map(note)
            .filter(|b| b.len() == bytes.len())
            .filter_map(virtual_sm)
            .min();
        if let (Some(lowest), Some(at)) = (lowest, bytes.len().checked_sub(6)) {
            if let Some(slot) = bytes.get_mut(at..at + 2) {
                slot.copy_from_slice(&lowest.to_le_bytes());
            }
        }
        bytes
    }

    /// The code section of output function symbol `g`, if it is defined.
    fn text_section(&self, g: u32) -> Option<crate::layout::OutId> {
        match self.symbols.symbols.get(g as usize).map(|s| &s.section) {
            Some(crate::symbols::SymbolSection::Section(id)) => Some(*id),
            _ => None,
        }
    }

    /// Whether function `g` brings EXTERNS to the kernels reaching it: a
    /// list of its own, or it is itself an undefined function kept.
    fn brings_externs(&self, g: u32, facts: &CallFacts) -> bool {
        facts.externs.get(&g).is_some_and(|l| !l.is_empty())
            || (self.text_section(g).is_none() && !self.is_defined_output(g) && self.extern_kept(g))
    }

    /// Where contributor `g` comes in [`Context::appended_keys`]' order:
    /// the input of its code, then its `.nv.info.<fn>`; undefined last.
    fn contributor_key(&self, g: u32, info_sections: &[Option<usize>]) -> ContributorKey {
        match self.text_section(g) {
            Some(t) => {
                let input = self.layout.section(t).and_then(|s| s.pieces.first()).map_or(usize::MAX, |p| p.input);
                let info = info_sections.get(t).copied().flatten().unwrap_or(usize::MAX);
                ContributorKey(input, info, g as usize)
            }
            None => ContributorKey(usize::MAX, usize::MAX, g as usize),
        }
    }

    /// Rule 7.2: the first contributors of a kernel's appended NUM_BARRIERS,
    /// NUM_MBARRIERS and EXTERNS (in that order), which order the three
    /// records, ties in that order too. nvlink adds each record when it
    /// first meets a contributor: a function with a NUM_BARRIERS record, one
    /// with a NUM_MBARRIERS record, one with an EXTERNS list or an undefined
    /// callee. It meets them in the order the EXTERNS lists are gathered in
    /// (`kernel_externs`): by the input of the function's code, then its
    /// `.nv.info.<fn>`; undefined functions last. Not the call graph's
    /// shape: a relinked `-r` output's kernel reaching `f1 -> f2 ->
    /// __assert_fail` and a `block_sum` with a barrier gets EXTERNS first
    /// where `.nv.info.__assert_fail` precedes `block_sum`'s, and
    /// NUM_BARRIERS first where it follows (/work/sweep/red/p35 r51, r6;
    /// sweep p35 `G-r-relink`, sm_75..sm_89, where `kgrid` reaches the
    /// barrier at depth 1 and `__assertfail` at depth 5); sweep p41 `xsm`
    /// (sm_86): an sm_86 copy of `warn_once` replacing the sm_80 input's
    /// brings its `vprintf` where its input is met, after the sm_80 input's
    /// `tile_sum` barriers, so NUM_BARRIERS comes first. A function with
    /// both brings NUM_BARRIERS first (nbex-G). NUM_MBARRIERS takes its
    /// place the same way (sweep2 p46: a `-G` a.cu whose `k_bar` waits on a
    /// `cuda::barrier`, reaching its mbarrier functions and
    /// `__syncthreads`'s `__barrier_sync`: NUM_MBARRIERS, NUM_BARRIERS on
    /// sm_90 with a.cu first and on sm_80..sm_89 with it last, where
    /// `.nv.info` of the barrier's `__try_wait_phase` precedes
    /// `__barrier_sync`'s; the relinked `-r` output of sm_90: NUM_MBARRIERS,
    /// EXTERNS `__assertfail`, NUM_BARRIERS). RESERVED_SMEM_USED too
    /// (sweep11 p120, fixtures `cgt`/`cgt-rev`). The output's only kernel whose
    /// counts come from functions it does not reach has them first, and the
    /// only kernel's NUM_MBARRIERS never comes before its NUM_BARRIERS.
    fn appended_keys(&self, f: u32, facts: &CallFacts) -> [ContributorKey; 4] {
        let info_sections = facts.info_of_text.get_or_init(|| self.info_sections());
        let mut keys = [ContributorKey::LAST; 4];
        for g in facts.reach_through_addresses(f) {
            if g == f {
                continue;
            }
            let has = [
                facts.barriers.contains_key(&g),
                facts.mbarriers.contains_key(&g),
                self.brings_externs(g, facts),
                facts.reserved_smem.contains(&g),
            ];
            if !has.contains(&true) {
                continue;
            }
            let key = self.contributor_key(g, info_sections);
            for (slot, _) in keys.iter_mut().zip(has).filter(|(_, h)| *h) {
                *slot = (*slot).min(key);
            }
        }
        if facts.only_kernel == Some(f) && keys[0] == ContributorKey::LAST {
            keys[0] = ContributorKey::FIRST;
            keys[1] = keys[1].min(ContributorKey::FIRST);
        }
        // The only kernel's NUM_MBARRIERS never precedes its NUM_BARRIERS
        // (/work/sweep2/red/mbo `mo_i mo_k`: NUM_BARRIERS, NUM_MBARRIERS
        // where mo_i's `mo_init` comes first; with a second kernel in mo_i,
        // NUM_MBARRIERS first; sm_80, sm_90; fixtures `mbo-only`, `mbo`).
        if facts.only_kernel == Some(f) {
            keys[1] = keys[1].max(keys[0]);
        }
        keys
    }

    /// The first contributor of kernel `f`'s appended CTAIDZ_USED, in
    /// [`Context::appended_keys`]' order.
    fn ctaidz_key(&self, f: u32, facts: &CallFacts) -> ContributorKey {
        self.first_contributor(f, facts, |g| facts.ctaidz.contains(&g))
    }

    /// The first function kernel `f` reaches (through addresses too, itself
    /// left out) for which `holds` is true, in [`Context::appended_keys`]'
    /// order; [`ContributorKey::LAST`] when there is none.
    fn first_contributor(&self, f: u32, facts: &CallFacts, holds: impl Fn(u32) -> bool) -> ContributorKey {
        let info_sections = facts.info_of_text.get_or_init(|| self.info_sections());
        facts
            .reach_through_addresses(f)
            .into_iter()
            .filter(|&g| g != f && holds(g))
            .map(|g| self.contributor_key(g, info_sections))
            .min()
            .unwrap_or(ContributorKey::LAST)
    }

    /// Rule 7.2: whether a kernel's appended CTAIDZ_USED comes before its
    /// appended EXTERNS: by which of their first contributors comes first in
    /// the order that places NUM_BARRIERS ([`Context::appended_keys`]: the
    /// input of the function's code, then its `.nv.info.<fn>`), not by the
    /// call graph's shape. Sweep19 p200 relinked: `fill_record`'s
    /// `.nv.info` (CTAIDZ_USED) precedes `report_error`'s (EXTERNS) and
    /// follows `arena_alloc_or_malloc`'s (EXTERNS), so `arena_names_kernel`
    /// gets CTAIDZ_USED first and `arena_stress_kernel` EXTERNS first; in
    /// the `-G` build `report_fatal`'s and `handler_print`'s come first and
    /// every such kernel gets EXTERNS first (sm_75..sm_86; a breadth-first
    /// and a depth-first walk each got some of these wrong). A function
    /// with both brings them in its own records' order (ptxas writes
    /// CTAIDZ_USED after the EXTERNS: launch's `fz` gives `kz` EXTERNS, then
    /// CTAIDZ_USED, sm_80; a `-r` output reverses them, and relinking it
    /// gives CTAIDZ_USED first, sm_75).
    fn ctaidz_first(&self, f: u32, facts: &CallFacts) -> bool {
        // The only kernel whose record comes from functions it does not
        // reach: first (`-kernels-used=k1` with libcudadevrt, whose
        // `memset_3d` kernels have barriers and read `%ctaid.z` while k1
        // reaches the launch functions' EXTERNS: CTAIDZ_USED, NUM_BARRIERS,
        // EXTERNS; sm_75..sm_100).
        if facts.only_kernel == Some(f) && !facts.reach(f).0.iter().any(|&g| g != f && facts.ctaidz.contains(&g)) {
            return true;
        }
        // The appended EXTERNS' first contributor, as `appended_keys` finds it.
        let (ctaidz, externs) = (self.ctaidz_key(f, facts), self.appended_keys(f, facts)[2]);
        match ctaidz.cmp(&externs) {
            std::cmp::Ordering::Less => true,
            std::cmp::Ordering::Greater => false,
            // One function brings both (or neither is brought).
            std::cmp::Ordering::Equal => {
                ctaidz == ContributorKey::LAST || u32::try_from(ctaidz.2).is_ok_and(|g| facts.ctaidz_first.contains(&g))
            }
        }
    }

    /// Per output section: for a `.text.<fn>`, its `.nv.info.<fn>`: the
    /// first one whose link names it. Not looked up by name: two static
    /// functions of one name (rule 1.4) each have their own (sweep13 p143's
    /// two `__assert_fail`s in a relinked `-r -g` output: by name the second
    /// one's code had none, and its `__assertfail` went first in
    /// `build_lists`' EXTERNS).
    fn info_sections(&self) -> Vec<Option<OutId>> {
        let mut info = vec![None; self.layout.sections.len()];
        for (id, s) in self.layout.sections.iter().enumerate() {
            if s.class != crate::layout::SectionClass::FunctionInfo {
                continue;
            }
            if let InfoField::Section(text) = s.info {
                if let Some(slot @ None) = info.get_mut(text) {
                    *slot = Some(id);
                }
            }
        }
        info
    }

    /// Per input code section (input, section index): the index of that
    /// input's `.nv.info.<fn>` for it, where it has one.
    fn input_info_sections(&self) -> HashMap<(usize, usize), usize> {
        let mut info = HashMap::new();
        for input in self.inputs {
            for s in input.sections().iter().filter(|s| s.sh_type == SHT_CUDA_INFO && s.index != 0) {
                info.entry((input.index, s.info as usize)).or_insert(s.index);
            }
        }
        info
    }

    /// Rule 7.2, an executable kernel's EXTERNS: its input list less the
    /// defined device functions, then the lists of the defined functions it
    /// reaches through the call graph in output `.text` order, each name
    /// once (dynpar `parent`: `child`, then `cnprtCnpv2TranslateError`'s 32
    /// kernels, `__cudaCDP2LaunchDeviceV2`'s, `...GetParameterBufferV2`'s,
    /// `...GetLastError`'s syscalls; sys `sm3` run: `malloc free` then
    /// sys_checked's `__assertfail`, sys_report's `vprintf`); any other
    /// undefined function reached last, by symbol index.
    /// Returns the list and how many of its names the kernel's own list gave.
    /// Also says which entries only functions of earlier inputs than the
    /// kernel's brought (see `function_info`'s use of them).
    fn kernel_externs(&self, f: u32, facts: &CallFacts) -> (Vec<u32>, usize, Vec<u32>) {
        let mut out: Vec<u32> = Vec::new();
        let add = |out: &mut Vec<u32>, e: u32| {
            if self.extern_kept(e) && !out.contains(&e) {
                out.push(e);
            }
        };
        for &e in facts.externs.get(&f).map(Vec::as_slice).unwrap_or_default() {
            add(&mut out, e);
        }
        let own = out.len();
        if facts.externs.is_empty() && !facts.undefined_target {
            return (out, own, Vec::new());
        }
        let mut reach = facts.reach_through_addresses(f);
        // The output's only kernel gets the lists of *every* function in the
        // output, not only of those it reaches (fresh3 `-kernels-used=
        // ps_smooth`, `ps_apply_forces` or `ps_tree_kernel`: the kernel gains
        // `free` from the virtual deleting destructors the vtables keep,
        // which none of the three calls; with two kernels neither gains it;
        // sm_75..sm_90a).
        if facts.only_kernel == Some(f) {
            let seen: HashSet<u32> = reach.iter().copied().collect();
            let mut rest: Vec<u32> = facts.externs.keys().copied().filter(|g| !seen.contains(g)).collect();
            rest.sort_unstable();
            reach.extend(rest);
        }
        // In the order of the functions' `.nv.info.<fn>` sections (creation
        // order: kernels with their `.text`, device functions later), not of
        // their `.text` (polyG: `_ZN6SquareD0Ev`'s `free` before
        // `__assert_fail`'s `__assertfail`, though its `.text` comes first).
        let info_sections = facts.info_of_text.get_or_init(|| self.info_sections());
        let info_of = |t: crate::layout::OutId| info_sections.get(t).copied().flatten();
        // Where a function's code sits in the inputs: input, then section.
        let place_of = |t: crate::layout::OutId| self.layout.section(t)?.pieces.first().map(|p| (p.input, p.section));
        // Keyed first by the input of the function's code: a weak copy that
        // replaced an earlier one (U9, fewer registers) keeps the first
        // copy's `.nv.info.<fn>` place, yet brings its list where its own
        // input is met (sweep p36: a `-G` object's virtual deleting
        // destructors, 24 registers, replace a plain object's, 36; the
        // kernel reaching them and the plain object's `make_shape` gets
        // `malloc free`, not `free malloc`, when the plain object comes
        // first; sm_80..sm_90a, exec and `-g`). Otherwise input order is
        // `.nv.info` order.
        let mut defined: Vec<(Option<usize>, Option<crate::layout::OutId>, crate::layout::OutId, u32)> =
            // Only functions with a list contribute: the others need no order key.
            reach
                .iter()
                .filter(|&&g| g != f && facts.externs.get(&g).is_some_and(|l| !l.is_empty()))
                .filter_map(|&g| self.text_section(g).map(|t| (place_of(t).map(|(input, _)| input), info_of(t), t, g)))
                .collect();
        defined.sort_unstable();
        let kernel_place = self.text_section(f).and_then(place_of);
        let mut early = Vec::new();
        for (_, _, t, g) in defined {
            // Before the kernel in input order: an earlier input, or earlier
            // in the kernel's own input (fresh3 `-kernels-used=ps_make_forces`:
            // ps_a's destructors, ahead of the kernel there, bring `free`
            // before its own `malloc`; sm_75..sm_90a).
            // Within one input, by its `.nv.info.<fn>` sections' order, not
            // its code's: a relinked `-r` output lists the kernel's info
            // before its callee's, though its code comes after (fixture
            // `afb` relinked: `afb_check`'s `__assertfail` before
            // `afb_note`'s `vprintf`, where the object gives `vprintf
            // __assertfail`; sm_75..sm_100; fixture `afbo-relink`).
            let earlier = match (place_of(t), kernel_place) {
                (Some((i, x)), Some((k, y))) if i == k => {
                    let info = facts.input_info_of_text.get_or_init(|| self.input_info_sections());
                    let info_of = |text: usize| info.get(&(i, text)).copied().unwrap_or(text);
                    info_of(x) < info_of(y)
                }
                (Some(i), Some(k)) => i < k,
                _ => false,
            };
            for &e in facts.externs.get(&g).map(Vec::as_slice).unwrap_or_default() {
                if earlier && !early.contains(&e) && self.extern_kept(e) {
                    early.push(e);
                }
                add(&mut out, e);
            }
        }
        let mut undefined: Vec<u32> = reach.into_iter().filter(|&g| g != f && !self.is_defined_output(g)).collect();
        undefined.sort_unstable();
        for e in undefined {
            add(&mut out, e);
        }
        (out, own, early)
    }

    /// Rule 7.3: the first input's records, each byte-valued record of
    /// [`COMPAT_MAX_CODES`] raised to the largest value any input has (U5).
    fn compat(&self) -> Vec<u8> {
        let mut all = self.inputs.iter().filter_map(compat_bytes);
        let Some(first) = all.next() else { return empty_link_compat(self.options.arch) };
        let mut out = first.to_vec();
        // A first `.nv.compat` without ISA_CLASS (the `-r` output of ABI-7
        // objects) stands for the ABI-7 records (rule 10, below) before the
        // later inputs add theirs: ISA_CLASS, INST_TENSORMAP_V1,
        // CUDA_INTERNAL_TARGET, 0x0d, then their CAN_FASTPATH_FINALIZE
        // (session 41, sweep26 `abi7-r-exec`, sm_90).
        if !has_compat_record(&out, EICOMPAT_ATTR_ISA_CLASS) {
            for record in ABI7_COMPAT.chunks_exact(4) {
                if !has_compat_record(&out, record[1]) {
                    out.extend_from_slice(record);
                }
            }
        }
        for other in all {
            for (code, value) in compat_byte_records(other) {
                if !COMPAT_MAX_CODES.contains(&code) {
                    continue;
                }
                let at = compat_byte_records(&out).into_iter().position(|(c, _)| c == code);
                let offset = at.and_then(|k| compat_byte_offsets(&out).get(k).copied());
                if let Some(slot) = offset.and_then(|o| out.get_mut(o)) {
                    *slot = (*slot).max(value);
                }
            }
        }
        // Rule 7.3: the accelerator record names the target, not the inputs
        // (sm_90 objects linked for sm_90a: 1, 2/2 links).
        let at = compat_byte_records(&out).into_iter().position(|(c, _)| c == EICOMPAT_ATTR_CUDA_ACCELERATOR_TARGET);
        if let Some(slot) = at.and_then(|k| compat_byte_offsets(&out).get(k).copied()).and_then(|o| out.get_mut(o)) {
            *slot = u8::from(self.options.arch.accelerator);
        }
        // Rule 7.3: a record only a later input has (sm_100's 0x07 after an
        // sm_103 or sm_121 first input) is added before FINALIZER_VERSION,
        // which stays last (3/3 links).
        for other in self.inputs.iter().skip(1) {
            let Some(bytes) = compat_bytes(other) else { continue };
            let records = compat_walk(bytes);
            for (k, &(_, code, at)) in records.iter().enumerate() {
                if has_compat_record(&out, code) {
                    continue;
                }
                let end = records.get(k + 1).map_or(bytes.len(), |r| r.2 - 2);
                let Some(record) = bytes.get(at - 2..end) else { continue };
                insert_before_finalizer_version(&mut out, record);
            }
        }
        // Rule 10: an ABI-7 input, which has no `.nv.compat`, counts as one
        // with ISA_CLASS 0, INST_TENSORMAP_V1 3, CUDA_INTERNAL_TARGET 2 and
        // record 0x0d (u16) 0x100, wherever it stands, once some input has a
        // `.nv.compat` (with none the link's own accelerator record stands,
        // `empty_link_compat`): the `-r` output of ABI-7 objects (only the
        // accelerator record) linked with an ABI-7 object, before or after
        // it, sm_90 and sm_90a, exec and `-r` (/tmp/g1 A7 relinks, 4 programs
        // x 4 shapes: the same four records appended); an ABI-8 sm_90 input
        // already has all four (mixed-ABI links unchanged). So does an input
        // whose `.nv.compat` lacks ISA_CLASS: the `-r` output of ABI-7
        // objects relinked alone (ginit-abi7, sm_90: nvlink also warns
        // "Output is limited to run on SM Arch '90' only, due to missing
        // attribute 'ISA_CLASS'").
        if self.inputs.iter().any(|i| i.abi7 || lacks_isa_class(i)) {
            for record in ABI7_COMPAT.chunks_exact(4) {
                if has_compat_record(&out, record[1]) {
                    continue;
                }
                insert_before_finalizer_version(&mut out, record);
            }
        }
        // An input whose `.nv.compat` lacks ISA_CLASS (nvlink warns that the
        // output "is limited to run on SM Arch '90' only") also brings those
        // records' values into an ABI-8 input's: ISA_CLASS 0, the others
        // the larger, and FINALIZER_VERSION goes (session 41, sweep26
        // `abi7-r-exec`: the `-r` output of ABI-7 objects relinked with an
        // ABI-8 object, either order, sm_90: ISA_CLASS 0, INST_TENSORMAP_V1
        // 3, CUDA_INTERNAL_TARGET 2, 0x0d 0x101 from the object's 0x101).
        if self.inputs.iter().any(lacks_isa_class) {
            for record in ABI7_COMPAT.chunks_exact(4) {
                let (format, code) = (record[0], record[1]);
                let Some(&(_, _, at)) = compat_walk(&out).iter().find(|&&(f, c, _)| f == format && c == code) else {
                    continue;
                };
                match format {
                    2 if code == EICOMPAT_ATTR_ISA_CLASS => {
                        if let Some(slot) = out.get_mut(at) {
                            *slot = 0;
                        }
                    }
                    2 => {
                        if let Some(slot) = out.get_mut(at) {
                            *slot = (*slot).max(record[2]);
                        }
                    }
                    _ => {
                        // The largest of every input's (0x101 over the
                        // stand-in 0x100 in either order).
                        let inputs = self.inputs.iter().filter_map(|i| {
                            let b = compat_bytes(i)?;
                            let &(_, _, a) = compat_walk(b).iter().find(|&&(f, c, _)| f == format && c == code)?;
                            b.get(a..a + 2).map(|v| u16::from_le_bytes([v[0], v[1]]))
                        });
                        let value = inputs.fold(u16::from_le_bytes([record[2], record[3]]), u16::max);
                        if let Some(slot) = out.get_mut(at..at + 2) {
                            slot.copy_from_slice(&value.to_le_bytes());
                        }
                    }
                }
            }
            remove_compat_record(&mut out, COMPAT_FINALIZER_VERSION);
        }
        // Rule 7.3: INST_TCGEN05_MMA (which ptxas writes into every sm_100a
        // object) stays only when every input has it: an sm_100 object in an
        // sm_100a link removes it, first or second (2/2 links; sm_100a
        // objects alone keep it).
        for &code in COMPAT_ALL_CODES {
            let everywhere = self.inputs.iter().all(|i| compat_bytes(i).is_some_and(|b| has_compat_record(b, code)));
            if !everywhere {
                remove_compat_record(&mut out, code);
            }
        }
        // Rule 7.3: CAN_FASTPATH_FINALIZE's words are the AND of every
        // input's, an input contributing its own words when built for the
        // target itself, only their lowest set bit when built for the plain
        // SM of an 'a' target (sm_100's 9 → 1 into sm_100a, sm_120's 0x50
        // → 0x10 into sm_120a), and 0 when built for another SM of the
        // family (sm_100 into sm_103, sm_120 into sm_121). 12/12 links.
        //
        // An executable left with no code has nothing to finalise: it gets
        // the value of a link without inputs (`empty_link_compat`), not the
        // AND. sm_120a objects (0x10) give 0x50, sm_100 objects linked for
        // sm_100a (1) give 9: a device function alone, or every kernel
        // removed by `-kernels-used`; exec only, `-r` keeps the AND
        // (f02, 2026-11-22: 12 links over sm_100a, sm_100f, sm_103,
        // sm_120a, sm_121, sm_121a).
        let target = self.options.arch;
        let no_code = self.layout.executable && !self.layout.sections.iter().any(|s| s.class == SectionClass::Text);
        if let Some(&(_, _, at)) = compat_walk(&out).iter().find(|&&(f, c, _)| f == 4 && c == COMPAT_FASTPATH) {
            let len = out.get(at..at + 2).map_or(0, |b| usize::from(u16::from_le_bytes([b[0], b[1]])));
            let words =
                |b: &[u8]| b.chunks_exact(4).map(|w| u32::from_le_bytes([w[0], w[1], w[2], w[3]])).collect::<Vec<_>>();
            let mut merged = out.get(at + 2..at + 2 + len).map(words).unwrap_or_default();
            for input in self.inputs {
                let Some(arch) = input.cubin.target() else { continue };
                let theirs = compat_bytes(input)
                    .and_then(|b| {
                        let &(_, _, a) = compat_walk(b).iter().find(|&&(f, c, _)| f == 4 && c == COMPAT_FASTPATH)?;
                        let n = b.get(a..a + 2).map(|x| usize::from(u16::from_le_bytes([x[0], x[1]])))?;
                        b.get(a + 2..a + 2 + n).map(words)
                    })
                    .unwrap_or_default();
                for (k, m) in merged.iter_mut().enumerate() {
                    let w = theirs.get(k).copied().unwrap_or(0);
                    let contribution = if arch == target {
                        w
                    } else if arch.sm == target.sm && target.accelerator {
                        w & w.wrapping_neg()
                    } else {
                        0
                    };
                    *m &= contribution;
                }
            }
            if no_code {
                for (k, m) in merged.iter_mut().enumerate() {
                    *m = if k == 0 { u32::from(empty_link_fastpath(target)) } else { 0 };
                }
            }
            if let Some(slot) = out.get_mut(at + 2..at + 2 + len) {
                for (chunk, m) in slot.chunks_exact_mut(4).zip(&merged) {
                    chunk.copy_from_slice(&m.to_le_bytes());
                }
            }
        }
        out
    }

    fn signature_text<'i>(&self, input: &InputObject<'i>, offset: u32) -> Option<&'i str> {
        let strtab = input.cubin.symtab().and_then(|t| input.section(t.section)).map(|s| s.link as usize)?;
        string_at(input.section(strtab)?.data?, offset)
    }

    fn signature(&self, input: &InputObject<'_>, offset: u32) -> Option<u32> {
        let text = self.signature_text(input, offset)?;
        // Rule 7.6: Mercury's `.strtab` ends with the signatures but not the
        // empty one, which a kernel launched from the device has (dp sm_100
        // `-r`: `<child, "">`); nvlink points it at the leading NUL, offset
        // 0 (sm_90 gets a string of its own, offset 1).
        self.symbols.strtab.offset(text).or_else(|| (text.is_empty() && self.layout.mercury).then_some(0))
    }

    /// Rule 7.6: calls sorted stably by caller; the other blocks concatenated.
    fn callgraph(&self) -> Vec<u8> {
        let mut out = CallGraph::default();
        let mut replaced_calls = Vec::new();
        for input in self.inputs {
            for s in input.sections() {
                if s.sh_type != SHT_CUDA_CALLGRAPH {
                    continue;
                }
                let Ok(graph) = CallGraph::decode(s.bytes()) else { continue };
                let i = input.index;
                let later = |a: u32| {
                    let r = SymbolRef { input: i, symbol: a as usize };
                    self.resolution.definition_of(r).is_some_and(|d| d.input > i)
                };
                let both = |Pair(a, b): Pair| {
                    if !self.survives(i, a) {
                        return None;
                    }
                    Some(Pair(self.out_index(i, a)?, self.out_index(i, b)?))
                };
                // U13: an executable also keeps the calls of a losing weak copy
                // whose winner comes from a later input, naming the winner
                // (sm_80 tpl_a + sm_86 tpl_b for sm_86: `tkernel<int> ->
                // tsum<int>` twice); `-r` lists such a pair once (mix80_86r;
                // rule 9.13 below).
                // Not those of a copy that lost when met (rule 9.11): poly's
                // `Shape::~Shape` D0 in shape (36 registers, taken first), rect
                // (36, lost when met) and scratch (35, replaces shape's): two
                // pairs to `free`, shape's and scratch's (sm_86 exec).
                let lost = |a: u32| self.resolution.lost_when_met(SymbolRef { input: i, symbol: a as usize });
                let calls = |Pair(a, b): Pair| {
                    if self.layout.executable && later(a) && !lost(a) {
                        return Some(Pair(self.out_index(i, a)?, self.out_index(i, b)?));
                    }
                    both(Pair(a, b))
                };
                let with_signature = |Pair(a, p): Pair| {
                    if !self.survives(i, a) {
                        return None;
                    }
                    Some(Pair(self.out_index(i, a)?, self.signature(input, p)?))
                };
                // U13: an address-taken weak function whose winner comes from
                // a later input is listed at its losing copy's place (poly
                // sm_80 + sm_86 for sm_86, exec and `-r`).
                // So is one whose winner comes from an *earlier* input (fresh4
                // dp: fx_main-dp launches the weak kernel `fx_scale<float>`,
                // whose winner is fx_coop's: nvlink lists it, sm_75..sm_90a).
                // Such a losing copy's empty signature (a kernel launched from
                // the device) is offset 0, the leading NUL, even where `.strtab`
                // has a `""` of its own (fresh4 dp; `x.cubin c.cubin a.cubin`:
                // x's `""` at 1, a's `tk<float>` at 0; sm_75): nvlink added no
                // string for it (rule 4.2) and its lookup of `""` gives 0.
                let taken = |Pair(a, p): Pair| {
                    let out = self.out_index(i, a)?;
                    if crate::symbols::lost_copy(input, self.resolution, a) && self.signature_text(input, p)?.is_empty()
                    {
                        return Some(Pair(out, 0));
                    }
                    Some(Pair(out, self.signature(input, p)?))
                };
                // Rule 9.13: `-r` keeps a replaced copy's calls as well, once
                // each: fresh2 `tl_c tl_b tl_a` (tl_a `-maxrregcount=24`,
                // sm_90 `-r`) lists tl_b's `tl_poly<double> -> dsqrt` (its
                // local) after tl_a's; a pair equal to the winner's is not
                // repeated (`w_call -> w_glob` once, twice in the executable).
                // Not a copy that lost when met (sweep14 p169: rng's, wscan's
                // and mc's `engine_mean<philox>` of 54, 54 and 53 registers,
                // each calling its own local `__cuda_sm20_div_rn_f64_full`:
                // wscan's lost to rng's and lists no pair; sm_75..sm_120 `-r`).
                let relocatable_calls = |Pair(a, b): Pair| {
                    if !self.layout.executable && later(a) && !lost(a) {
                        let pair = Pair(self.out_index(i, a)?, self.out_index(i, b)?);
                        return Some((pair, true));
                    }
                    calls(Pair(a, b)).map(|p| (p, false))
                };
                for (pair, replaced) in graph.calls.into_iter().filter_map(relocatable_calls) {
                    if replaced {
                        replaced_calls.push(pair);
                    }
                    out.calls.push(pair);
                }
                // Address-taken functions (block 2) are listed once, first
                // input first (fptr: times3, add1 from main, then ident, neg
                // from ops; 12/12 fptr links); indirect call sites (block 3)
                // are not deduplicated.
                for pair in graph.address_taken.into_iter().filter_map(taken) {
                    if !out.address_taken.iter().any(|p| p.0 == pair.0) {
                        out.address_taken.push(pair);
                    }
                }
                // Rule 9.13: a replaced copy's indirect call sites stay, naming
                // the winner, in the executable and in `-r` alike (sweep p36
                // `xsm`: sm_80 a.cu's `Shape::scale`, replaced by sm_86
                // b.cu's (U13), lists its `#il` call site beside b's; fixture
                // wic: `wic_call<3>`, which calls through a pointer, replaced
                // by a `-maxrregcount=24` copy (U9), and the same with a
                // newer-PTX copy (/work/sweep/red/wic); sm_75..sm_120, exec
                // and `-r`). A copy that lost when met lists none (the
                // reversed links).
                let sites = |Pair(a, p): Pair| {
                    if later(a) && !lost(a) {
                        return Some(Pair(self.out_index(i, a)?, self.signature(input, p)?));
                    }
                    with_signature(Pair(a, p))
                };
                out.indirect_calls.extend(graph.indirect_calls.into_iter().filter_map(sites));
                // Like calls (poly sm_80 + sm_86: a losing vtable's entries twice).
                out.address_of.extend(graph.address_of.into_iter().filter_map(calls));
            }
        }
        // Rule 9.13: `-r` keeps one of a replaced copy's pairs that repeat
        // another (the winner's): the first met, the replaced copy's, at its
        // place (fresh5: a `-G` `tk<unsigned>` calling `tw`, `ti`, replaced by
        // a later plain or `-lineinfo` copy calling `tw`: nvlink lists
        // `tk -> ti, tk -> tw` as for the `-G` input alone, sm_86..sm_120).
        for pair in replaced_calls {
            if out.calls.iter().filter(|&&p| p == pair).count() > 1 {
                if let Some(at) = out.calls.iter().rposition(|&p| p == pair) {
                    out.calls.remove(at);
                }
            }
        }
        // Each input's pairs are prepended, then sorted stably by caller; the
        // indirect call sites (block 3) and address-of pairs (block 4) too
        // (poly: `kpoly`'s six vtable entries and two call signatures come out
        // reversed, on every architecture). The key is the caller's creation
        // rank, not its output index: a local caller (ptxas's `$N` clone of a
        // `__noinline__` function, `_Z9dev_norm2PKdi$17`) sorts among its
        // input's globals, not before every global as `.symtab` puts it.
        let rank = self.creation_rank();
        let key = |p: &Pair| rank.get(p.0 as usize).copied().unwrap_or(u32::MAX);
        for list in [&mut out.calls, &mut out.indirect_calls, &mut out.address_of] {
            list.reverse();
            list.sort_by_key(key);
        }
        // Block 2 keeps its first-met order, sorted stably by the same key:
        // relinking dp's `-r` output (block 2 `child`, then libcudadevrt's
        // local `memset`/`memcpy_3d_device` kernels) lists the locals first,
        // created before the global `child` (sm_90 exec and `-r`); the first
        // link (child from the first input) keeps `child` first.
        out.address_taken.sort_by_key(key);
        out.encode()
    }

    /// Per output symbol, the order in which nvlink creates it: every input's
    /// `.symtab` walked in order, a symbol counted at its first mention
    /// (locals and globals together). Output globals keep this order, which
    /// is why sorting by it equals sorting by output index for them (rule 7.6).
    fn creation_rank(&self) -> Vec<u32> {
        let mut rank = vec![u32::MAX; self.symbols.symbols.len()];
        let mut next = 0u32;
        for input in self.inputs {
            for s in 1..input.symbols().len() {
                let Ok(symbol) = u32::try_from(s) else { break };
                if let Some(slot) = self.out_index(input.index, symbol).and_then(|o| rank.get_mut(o as usize)) {
                    if *slot == u32::MAX {
                        *slot = next;
                        next += 1;
                    }
                }
            }
        }
        rank
    }

    /// Rule 7.8 (order unverified, U6): every input's entries in input order.
    fn prototype(&self) -> Vec<u8> {
        let mut out = Prototypes::default();
        // Output symbol -> (its entry, whether a declaration made it).
        let mut seen: HashMap<u32, (usize, bool)> = HashMap::new();
        for input in self.inputs {
            for s in input.sections() {
                if s.sh_type != SHT_CUDA_PROTOTYPE {
                    continue;
                }
                let Some(mut list) = Prototypes::decode(s.bytes()) else { continue };
                // In input symbol order, not the section's: CUDA 12.9's ptxas
                // lists `tl_scalef` first but puts the weak `tl_poly<T>`,
                // `tl_reduce<…>` before it in `.symtab` (fresh2 ABI-7 tl_b,
                // sm_75/sm_90: nvlink's entries follow `.symtab`); 13.5's
                // lists are in that order already.
                list.0.sort_by_key(|p| p.symbol);
                for mut p in list.0 {
                    let r = SymbolRef { input: input.index, symbol: p.symbol as usize };
                    let vetoed = self.resolution.global(r).is_some_and(|g| self.layout.prototype_vetoed.contains(&g));
                    // U13: a losing weak copy whose winner comes from a *later*
                    // input (sm_80 tpl_a + sm_86 tpl_b for sm_86: the sm_86
                    // `shared_helper` wins) keeps its entry in its own input's
                    // place, naming the winner; a later loser's entry is a
                    // duplicate anyway.
                    let replaced_by_later = self.resolution.definition_of(r).is_some_and(|d| d.input > input.index);
                    if vetoed || !(self.survives(input.index, p.symbol) || replaced_by_later) {
                        continue;
                    }
                    let (Some(symbol), Some(signature)) =
                        (self.out_index(input.index, p.symbol), self.signature(input, p.signature))
                    else {
                        continue;
                    };
                    // An undefined function declared by several inputs keeps
                    // its first place with the *last* declaration's signature:
                    // fresh2's ABI-7 tl_a (`__assertfail`
                    // `#vllill|10p4r…`) and ABI-8 tl_b (`…|12p4r…`) give
                    // tl_b's, the swapped kinds tl_a's (sm_90 exec and `-r`).
                    let declared = input.symbol(p.symbol as usize).is_some_and(|y| y.section_index().is_none());
                    if let Some(&(at, true)) = seen.get(&symbol).filter(|_| declared) {
                        if let Some(entry) = out.0.get_mut(at) {
                            entry.signature = signature;
                        }
                        continue;
                    }
                    if !seen.contains_key(&symbol) {
                        seen.insert(symbol, (out.0.len(), declared));
                        p.symbol = symbol;
                        p.signature = signature;
                        out.0.push(p);
                    }
                }
            }
        }
        out.encode()
    }
}

/// `.nv.info.<fn>` or its merc copy `.nv.merc.nv.info.<fn>` (rule 11).
fn is_info_type(sh_type: u32) -> bool {
    sh_type == SHT_CUDA_INFO || sh_type == develf_format::section::SHT_CUDA_MERCURY_INFO
}

/// What one input adds to [`CallFacts`] ([`Context::input_facts`]).
#[derive(Debug, Default)]
struct InputFacts {
    calls: Vec<(u32, u32)>,
    indirect: Vec<(u32, u32)>,
    address_taken: Vec<(u32, u32)>,
    barriers: Vec<(u32, u16)>,
    flag_barriers: Vec<u32>,
    mbarriers: Vec<(u32, u16)>,
    /// Per function: where its NUM_BARRIERS, NUM_MBARRIERS and EXTERNS
    /// records come among them ([`CallFacts::record_order`]).
    record_order: Vec<(u32, [u8; 3])>,
    externs: Vec<(u32, Vec<u32>)>,
    marked: Vec<u32>,
    /// (function, whether its CTAIDZ_USED comes before any EXTERNS there,
    /// whether after a RESERVED_SMEM_USED).
    ctaidz: Vec<(u32, bool, bool)>,
    reserved_smem: Vec<u32>,
}

/// The generated sections' contents, in output section order (merged
/// sections have none: a big link's 27,000 sections have 10,000 generated
/// ones, so there is no slot per section).
pub(crate) type GeneratedSections = Vec<(OutId, Vec<u8>)>;

/// The merged `.nv.info` and the call facts the per-function sections need:
/// the mostly sequential start of the metadata, which crate::link_objects
/// runs beside the relocation.
pub(crate) struct MergedInfo {
    nv_info: Vec<u8>,
    facts: CallFacts,
}

pub(crate) fn merge_nv_info(
    options: &LinkOptions,
    inputs: &[InputObject<'_>],
    resolution: &Resolution<'_>,
    layout: &Layout,
    symbols: &SymbolTable,
    liveness: &crate::gc::Liveness,
) -> Result<MergedInfo, LinkError> {
    let cx = Context { options, inputs, resolution, layout, symbols };
    let (nv_info, facts) = cx.nv_info(&liveness.unwalked_kernels)?;
    Ok(MergedInfo { nv_info, facts })
}

/// Rule 7.1's stack-size warnings of the link the phases before made, for
/// a link that failed the executable's checks ([`LinkError::warnings`]).
pub(crate) fn stack_warnings(
    options: &LinkOptions,
    inputs: &[InputObject<'_>],
    resolution: &Resolution<'_>,
    layout: &Layout,
    symbols: &SymbolTable,
    liveness: &crate::gc::Liveness,
) -> Vec<LinkWarning> {
    let cx = Context { options, inputs, resolution, layout, symbols };
    cx.nv_info(&liveness.unwalked_kernels).map(|(_, facts)| cx.stack_warnings(&facts)).unwrap_or_default()
}

/// Rule 10's warning for each of `inputs` (in order) whose `.nv.compat`
/// lacks ISA_CLASS.
pub(crate) fn missing_isa_class(options: &LinkOptions, inputs: &[InputObject<'_>]) -> Vec<LinkWarning> {
    inputs
        .iter()
        .filter(|i| lacks_isa_class(i))
        .map(|i| LinkWarning::MissingIsaClass { input: i.name.to_string(), sm: options.arch.sm })
        .collect()
}

pub(crate) fn build(
    options: &LinkOptions,
    inputs: &[InputObject<'_>],
    resolution: &Resolution<'_>,
    layout: &Layout,
    symbols: &SymbolTable,
    merged: MergedInfo,
) -> Result<(GeneratedSections, Vec<LinkWarning>, Vec<OutId>), LinkError> {
    let cx = Context { options, inputs, resolution, layout, symbols };
    let MergedInfo { nv_info, facts } = merged;
    let mut warnings = missing_isa_class(options, inputs);
    warnings.extend(cx.stack_warnings(&facts));
    // What `kernel_externs` orders by, when a kernel will ask: made here, on
    // every thread, rather than by the first kernel while the others wait.
    if layout.executable && (!facts.externs.is_empty() || facts.undefined_target) {
        facts.info_of_text.get_or_init(|| cx.info_sections());
    }
    // Rule 10: the ABI-7 kernels whose `.text` keeps its barrier bits.
    let barrier_bits_kept: Vec<OutId> = (0..layout.sections.len())
        .filter(|&id| layout.section(id).is_some_and(|s| s.class == SectionClass::Text))
        .filter(|&id| cx.keeps_abi7_barriers(id, &facts))
        .collect();
    let generate = |s: &OutSection| -> Result<Option<Vec<u8>>, LinkError> {
        let mut bytes = match s.class {
            SectionClass::NvInfo => nv_info.clone(),
            SectionClass::FunctionInfo => match s.info {
                InfoField::Section(text) => cx.function_info(&s.name, text, &facts)?,
                _ => Vec::new(),
            },
            SectionClass::TkInfo => cx.tkinfo(),
            SectionClass::CuInfo => cx.cuinfo(),
            SectionClass::Compat => cx.compat(),
            SectionClass::CallGraph => cx.callgraph(),
            SectionClass::Prototype => cx.prototype(),
            SectionClass::RelAction => REL_ACTION.to_vec(),
            // Rule 11: the merc copies (crate::mercury::Generated).
            SectionClass::Mercury => match (crate::mercury::generated(s), s.info) {
                (Some(MercGenerated::NvInfo), _) => nv_info.clone(),
                (Some(MercGenerated::CallGraph), _) => cx.callgraph(),
                (Some(MercGenerated::Prototype), _) => cx.prototype(),
                (Some(MercGenerated::HeaderIndices), _) => vec![0; usize::try_from(s.size).unwrap_or(0)],
                (Some(MercGenerated::FunctionInfo), InfoField::Section(text)) => {
                    cx.function_info(&s.name, text, &facts)?
                }
                _ => return Ok(None),
            },
            _ => return Ok(None),
        };
        // Held until the output is written: no room to spare (the
        // call graph's encoder grows by doubling).
        bytes.shrink_to_fit();
        Ok(Some(bytes))
    };
    // Sections are independent; collected in section order, so the bytes do
    // not depend on the thread count. Collected as results (errors boxed)
    // and unwrapped in place: collecting into a `Result` would gather the
    // sections in pieces and copy them over.
    type Generated = Result<(OutId, Vec<u8>), Box<LinkError>>;
    let results: Vec<Generated> = layout
        .sections
        .par_iter()
        .enumerate()
        .filter_map(|(id, s)| match generate(s) {
            Ok(None) => None,
            Ok(Some(bytes)) => Some(Ok((id, bytes))),
            Err(e) => Some(Err(Box::new(e))),
        })
        .collect();
    let sections = results.into_iter().map(|r| r.map_err(|e| *e)).collect::<Result<_, LinkError>>()?;
    Ok((sections, warnings, barrier_bits_kept))
}

/// Rule 13.6: the `.note.nv.cuinfo` of a link without inputs (nvlink 13.5:
/// note version 2, the target's SM as the virtual SM, toolkit 13.5).
fn empty_link_cuinfo(sm: u32) -> Vec<u8> {
    let mut note = Vec::with_capacity(32);
    for word in [12u32, 8, 1000] {
        note.extend_from_slice(&word.to_le_bytes());
    }
    note.extend_from_slice(b"NVIDIA Corp\0");
    note.extend_from_slice(&2u16.to_le_bytes());
    note.extend_from_slice(&u16::try_from(sm).unwrap_or(u16::MAX).to_le_bytes());
    note.extend_from_slice(&135u32.to_le_bytes());
    note
}

/// The CAN_FASTPATH_FINALIZE byte of an output without code: the value
/// ptxas gives the family's objects (rule 13.6).
fn empty_link_fastpath(arch: develf_format::header::Arch) -> u8 {
    match arch.sm {
        100 => 0x09,
        120 => 0x50,
        _ => 0,
    }
}

/// Rule 13.6: the `.nv.compat` of a link without inputs, as nvlink 13.5
/// writes it: the accelerator record; on Mercury then CAN_FASTPATH_FINALIZE
/// with the value ptxas gives the family's objects (0x09 sm_100, 0x50
/// sm_120, 0 for sm_103/sm_110/sm_121: nvlink's empty outputs for all 15
/// Mercury targets) and FINALIZER_VERSION 1.1.0.
fn empty_link_compat(arch: develf_format::header::Arch) -> Vec<u8> {
    let accelerator = vec![2, EICOMPAT_ATTR_CUDA_ACCELERATOR_TARGET, u8::from(arch.accelerator), 0];
    if arch.sm < 100 {
        return accelerator;
    }
    let fastpath = empty_link_fastpath(arch);
    let mut out = accelerator;
    out.extend_from_slice(&[
        4,
        develf_format::nvinfo::EICOMPAT_ATTR_CAN_FASTPATH_FINALIZE,
        8,
        0,
        fastpath,
        0,
        0,
        0,
        0,
        0,
        0,
        0,
    ]);
    out.extend_from_slice(&[3, COMPAT_FINALIZER_VERSION, 0x40, 0x04]);
    out
}

/// The `.nv.compat` records an ABI-7 input stands for (rule 10, `compat`):
/// ISA_CLASS 0, INST_TENSORMAP_V1 3, CUDA_INTERNAL_TARGET 2 (byte values),
/// record 0x0d 0x100 (u16).
const ABI7_COMPAT: [u8; 16] = [2, 0x02, 0, 0, 2, 0x03, 3, 0, 2, 0x0c, 2, 0, 3, 0x0d, 0, 1];

/// Whether an input has a `.nv.compat` without ISA_CLASS (the `-r` output of
/// ABI-7 objects).
pub(crate) fn lacks_isa_class(input: &InputObject<'_>) -> bool {
    compat_bytes(input).is_some_and(|b| !has_compat_record(b, EICOMPAT_ATTR_ISA_CLASS))
}

/// Whether `.nv.compat` bytes hold a record with `code`.
fn has_compat_record(bytes: &[u8], code: u8) -> bool {
    compat_walk(bytes).iter().any(|&(_, c, _)| c == code)
}

/// An input's `.nv.compat` bytes, if it has the section.
fn compat_bytes<'i>(input: &'i InputObject<'_>) -> Option<&'i [u8]> {
    input.sections().iter().find(|s| s.sh_type == SHT_CUDA_COMPAT_INFO).map(|s| s.bytes())
}

/// Adds a whole `.nv.compat` record before FINALIZER_VERSION, which stays
/// last, or at the end without one (rule 7.3).
fn insert_before_finalizer_version(out: &mut Vec<u8>, record: &[u8]) {
    let before = compat_walk(out).iter().find(|&&(_, c, _)| c == COMPAT_FINALIZER_VERSION).map(|r| r.2 - 2);
    let place = before.unwrap_or(out.len());
    out.splice(place..place, record.iter().copied());
}

/// Removes the `.nv.compat` record with `code`, if there is one.
fn remove_compat_record(out: &mut Vec<u8>, code: u8) {
    let records = compat_walk(out);
    if let Some(k) = records.iter().position(|&(_, c, _)| c == code) {
        let start = records[k].2 - 2;
        let end = records.get(k + 1).map_or(out.len(), |r| r.2 - 2);
        out.drain(start..end);
    }
}

/// The `.nv.compat` TLV walk: (format, code, offset of the value byte or payload).
fn compat_walk(bytes: &[u8]) -> Vec<(u8, u8, usize)> {
    let mut out = Vec::new();
    let mut at = 0usize;
    while let (Some(&format), Some(&code)) = (bytes.get(at), bytes.get(at + 1)) {
        out.push((format, code, at + 2));
        at = match format {
            // EIFMT_SVAL: a u16 payload length, then the payload.
            4 => {
                let len = bytes.get(at + 2..at + 4).map_or(0, |b| u16::from_le_bytes([b[0], b[1]]) as usize);
                at + 4 + len
            }
            _ => at + 4,
        };
    }
    out
}

/// The byte-valued (EIFMT_BVAL, format 2) `.nv.compat` records: (code, value).
fn compat_byte_records(bytes: &[u8]) -> Vec<(u8, u8)> {
    compat_walk(bytes)
        .into_iter()
        .filter(|&(format, _, _)| format == 2)
        .filter_map(|(_, code, at)| bytes.get(at).map(|&v| (code, v)))
        .collect()
}

/// Offsets of the values of [`compat_byte_records`], in the same order.
fn compat_byte_offsets(bytes: &[u8]) -> Vec<usize> {
    compat_walk(bytes).into_iter().filter(|&(format, _, _)| format == 2).map(|(_, _, at)| at).collect()
}

/// The `.nv.info` format of a 16-bit value (EIFMT_HVAL).
const EIFMT_HVAL: u8 = 3;
/// The `.nv.info` format of a flag (EIFMT_NVAL: no value).
const EIFMT_NVAL: u8 = 1;
/// The `.nv.info` format of a byte value (EIFMT_BVAL).
const EIFMT_BVAL: u8 = 2;
/// The record nvlink appends to an sm_107 executable's function infos
/// (unnamed in nvlink 13.5; cuobjdump prints "unknown attribute 0x67").
const ATTR_SM107_MARK: u8 = 0x67;

/// The CTAIDZ_USED flag a kernel takes from its callees (rule 7.2).
fn ctaidz_used() -> Attribute {
    Attribute::Raw(RawAttribute { format: EIFMT_NVAL, code: nvinfo::EIATTR_CTAIDZ_USED, value: 0, payload: Vec::new() })
}

fn is_mbarrier_count(a: &Attribute) -> bool {
    matches!(a, Attribute::Raw(r) if r.code == EIATTR_NUM_MBARRIERS)
}

#[cfg(test)]
mod tests {
    use super::*;

    /// `find_recursion` agrees with the per-function DFS on random graphs
    /// (self-calls, cycles, chains into cycles, nodes without callees).
    #[test]
    fn recursion_and_register_tables_match_reach() {
        let mut seed = 0x5eed_u64;
        let mut next = |n: u64| {
            seed = seed.wrapping_mul(6_364_136_223_846_793_005).wrapping_add(1_442_695_040_888_963_407);
            (seed >> 33) % n
        };
        for _ in 0..300 {
            let nodes = 1 + next(40) as u32;
            let mut facts = CallFacts::default();
            for _ in 0..next(u64::from(nodes) * 2) {
                let (a, b) = (next(u64::from(nodes)) as u32, next(u64::from(nodes)) as u32);
                // Mostly forward edges, so that some graphs have no cycle.
                let (a, b) = if next(8) == 0 { (a, b) } else { (a.min(b), a.max(b) + 1) };
                let list = facts.callees.entry(a).or_default();
                if !list.contains(&b) {
                    list.push(b);
                }
            }
            for f in 0..=nodes + 1 {
                if next(3) != 0 {
                    facts.regcount.insert(f, next(256) as u32);
                }
            }
            facts.find_recursion();
            for f in 0..=nodes + 1 {
                let (reach, recursive) = facts.reach(f);
                assert_eq!(facts.is_recursive(f), recursive, "function {f} of {:?}", facts.callees);
                let most = reach.iter().filter_map(|g| facts.regcount.get(g)).copied().max().unwrap_or(0);
                assert_eq!(facts.most_registers(f), most, "function {f} of {:?}", facts.callees);
            }
        }
    }
}
