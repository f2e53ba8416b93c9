//! Phase 3: dead-code elimination (rule 9). Executables keep only the
//! functions a kernel can reach (the kernels named by `-kernels-used`, when
//! given) through relocations and `.nv.callgraph` calls, plus functions whose
//! address is stored in data or taken anywhere (rule 9.12).
//! `-r`, `-preserve-relocs` and `-g` keep everything. One pass over the relocations builds the edges; one
//! breadth-first walk marks the live code: linear in the size of the call graph.

use crate::input::InputObject;
use crate::options::{LinkOptions, OutputKind};
use crate::resolve::{Resolution, SHF_INFO_LINK, SymbolRef, is_kernel};
use rayon::prelude::*;
use std::collections::VecDeque;

/// Which input sections survive.
#[derive(Debug)]
pub(crate) struct Liveness {
    /// Per input, per section: removed as dead code (the function's `.text`
    /// and the sections attached to it).
    pub dead: Vec<Vec<bool>>,
    /// Rule 13.5: kernels (input, `.text` section) removed because no host
    /// object names them. Unlike other dead code, nvlink still creates their
    /// `.nv.shared.<k>` name (in `.shstrtab`, where the `.text` would be).
    pub host_pruned: Vec<(usize, usize)>,
    /// Rules 9.12 and 12.1: per (input, section) holding an indirect call
    /// site, the (input, section) of every address-taken function of its
    /// prototype ([`crate::shared::indirect_edges`]), for the phases that
    /// walk calls (layout's banks and shared memory, the register check).
    pub indirect: hashbrown::HashMap<(usize, usize), Vec<(usize, usize)>>,
    /// Kernels (input, `.text` section) in the output that the live-code
    /// walk did not reach: kept only because their address is taken (under
    /// `-kernels-used`), or because `-preserve-relocs` or `-g` keep
    /// everything. nvlink gives them no `EIATTR_MIN_STACK_SIZE` (rule 7.1).
    pub unwalked_kernels: hashbrown::HashSet<(usize, usize)>,
}

impl Liveness {
    pub fn is_dead(&self, input: usize, section: usize) -> bool {
        self.dead.get(input).and_then(|d| d.get(section)).copied().unwrap_or(false)
    }
}

pub(crate) fn is_code_section(name: &str) -> bool {
    name.starts_with(".text.")
}

/// Whether a relocation in code builds one 32-bit half of an address (the
/// `MOV`s of a function pointer's low and high words): the function's
/// address is taken there, not called. nvlink applies neither a register
/// limit nor shared memory through it, and keeps the function without its
/// callees (dead-code elimination, [`collect`]); an indirect call site
/// reaches the function instead (sweep24 p254: `it_check_k`, capped at 32 registers,
/// compares table entries with `ir_eval_bin`'s address, 34 registers, and
/// `it_reset_k` stores them: nvlink links them without windows,
/// sm_75..sm_90; fixture `fadr`).
pub(crate) fn takes_address_half(r_type: u32) -> bool {
    use develf_format::reloc_desc::{ValuePart, descriptor};
    descriptor(r_type).is_some_and(|d| matches!(d.value_part, ValuePart::Lo32 | ValuePart::Hi32))
}

/// Sections whose relocations never keep a function alive: debug info, and the
/// Mercury copies, whose edges repeat the normal sections' (rule 11; a capsule's
/// call must not root its callee: sys `sys_alloc_ints` on sm_100+).
pub(crate) fn is_debug_section(name: &str) -> bool {
    name.starts_with(".debug_")
        || name.starts_with(".nv_debug_")
        || name.starts_with(".nv.merc.")
        || name.starts_with(".nv.capmerc.")
}

pub(crate) fn collect(options: &LinkOptions, inputs: &[InputObject<'_>], resolution: &Resolution<'_>) -> Liveness {
    let mut dead: Vec<Vec<bool>> = inputs.iter().map(|i| vec![false; i.sections().len()]).collect();
    let indirect = crate::shared::indirect_edges(inputs, resolution);
    // Rule 8.2: `-preserve-relocs` keeps every function too, `-kernels-used`
    // or not (reloc: `reloc_unused` on sm_75/sm_90/sm_100; calls with
    // `-kernels-used=calls_fib` keeps all four functions). Rule 9.7: so does
    // `-g` (sys keeps `sys_alloc_ints`; debug-G with a `-kernels-used`
    // matching no kernel keeps both functions).
    // Under `-g` nvlink also treats every kernel as live (MIN_STACK_SIZE for
    // each, `-kernels-used` or not: launch `-g -kernels-used=k3`, sm_75..
    // sm_100); under `-preserve-relocs` only the walk's (f05), so the walk
    // runs and removes nothing.
    if options.output == OutputKind::Relocatable || options.debug_given() {
        return Liveness { dead, host_pruned: Vec::new(), indirect, unwalked_kernels: Default::default() };
    }
    let keep_all = options.preserve_relocs;
    // Under `-kernels-used` (or `-variables-used`) a kernel whose address
    // live code takes is kept but not walked into; with the host objects'
    // kernel lists (rule 13.5) it is (see the relocation loop below).
    let explicit_roots = options.kernels_used.is_some() || options.variables_used.is_some();
    // Dense numbering of all input sections: base[input] + section.
    let mut base = Vec::with_capacity(inputs.len());
    let mut total = 0usize;
    for input in inputs {
        base.push(total);
        total += input.sections().len();
    }
    let node = |input: usize, section: usize| base.get(input).map(|b| b + section).filter(|&n| n < total);
    let is_text = |input: usize, section: usize| {
        inputs.get(input).and_then(|i| i.section(section)).is_some_and(|s| is_code_section(s.name))
    };
    // Each input's edges and roots are found on their own (reading the
    // relocations is most of the work); the walk below only needs the live
    // set, which does not depend on the order they are merged in.
    let found: Vec<InputEdges> = inputs
        .par_iter()
        .map(|input| {
            let mut found = InputEdges::default();
            for rs in input.cubin.relocation_sections() {
                let target = rs.target as usize;
                if resolution.is_discarded(input.index, rs.section) {
                    continue;
                }
                let from_code = is_text(input.index, target);
                let from_debug = input.section(target).is_none_or(|s| is_debug_section(s.name));
                for r in rs.entries() {
                    let Some(def) =
                        resolution.definition_of(SymbolRef { input: input.index, symbol: r.symbol as usize })
                    else {
                        continue;
                    };
                    let Some(def_section) = inputs.get(def.input).and_then(|i| i.symbol(def.symbol)) else { continue };
                    let Some(section) = def_section.section_index() else { continue };
                    if !is_text(def.input, section) {
                        continue;
                    }
                    let Some(to) = node(def.input, section) else { continue };
                    // A kernel referenced from code (a device-side launch's
                    // `R_CUDA_FUNC_DESC32_*`) is kept like a pointer in data,
                    // not called: nvlink keeps it but not its callees (k1
                    // launching k2 under `-kernels-used=k1`: k2 stays, the
                    // function only k2 calls goes, and k2's call to it is
                    // left `CALL.ABS 0x0`; sm_80).
                    // (A kernel's references to itself keep nothing.) With
                    // the host objects' lists the launch is an edge: dynpar's
                    // `child`, and a k2 launched by the host's k1 keeps its
                    // callee (host object, no `-kernels-used`; sm_80).
                    if from_code && explicit_roots && crate::resolve::is_kernel(def_section) {
                        if node(input.index, target) == Some(to) {
                            continue;
                        }
                        found.in_data.push(to);
                        found.taken_kernels.push(to);
                    } else if from_code && takes_address_half(r.r_type) {
                        // (A function's halves of its own address are the
                        // return addresses of its calls: nothing to keep.)
                        if node(input.index, target) == Some(to) {
                            continue;
                        }
                        // Code taking a function's address (the `MOV`s of its
                        // low and high words) keeps it the way a pointer in
                        // data does: the walk does not go on into its callees,
                        // which an indirect call site reaches instead
                        // (sweep24 p254 `-kernels-used=it_reset_k`: the
                        // collectives it stores stay, the shuffle and
                        // division helpers they call go; a lone kernel
                        // storing `f`'s address keeps `f`, not `f`'s callee;
                        // sm_75..sm_120; fixture `adrw-ku`).
                        found.in_data.push(to);
                    } else if from_code {
                        if let Some(from) = node(input.index, target) {
                            found.edge(from, to);
                        }
                    } else if !from_debug {
                        // A function pointer in data (`.nv.global.init`, a
                        // constant bank) keeps its function, but the walk does
                        // not go on from it (rule 9.12: fresh `-kernels-used`,
                        // `chain1` in a `__constant__` table stays, its callees
                        // `chain2` and the division slow path go; sm_75..sm_90a).
                        found.in_data.push(to);
                    }
                }
            }
            // Rule 9.9: ptxas's call graph keeps a callee even where the call
            // left no relocation. sm_75/sm_80 CUB objects list `warp_max ->
            // __cuda_sm70_shflsync_down` though the shuffle was inlined (no
            // `R_CUDA_ABS47_34` to it); nvlink keeps the function, its
            // `.nv.info`, FDE and prototype (cub sm_75, sm_80, 10/10 links).
            // Only the input's own `.nv.callgraph` (the merc copy repeats it
            // with other indices).
            //
            // Rule 9.12: every function the input's call graph lists as
            // address-taken is kept like a pointer in data, even where the
            // code taking its address is dead (nw `-G` `-kernels-used`:
            // libcu++'s `__cuda_fetch_local_bop_add` stays, its taker goes;
            // sm_90, sm_100; fixture atk).
            let text_of = |i: usize, x: usize| is_text(i, x).then(|| node(i, x)).flatten();
            let is_kernel_text = |i: usize, x: usize| {
                inputs.get(i).is_some_and(|input| {
                    input.symbols().iter().any(|y| y.section_index() == Some(x) && crate::resolve::is_kernel(y))
                })
            };
            let mut taken = Vec::new();
            crate::resolve::input_callgraph(
                inputs,
                resolution,
                input,
                |(fi, fx), (ti, tx)| {
                    if let (Some(from), Some(to)) = (text_of(fi, fx), text_of(ti, tx)) {
                        found.edge(from, to);
                    }
                },
                |(ti, tx)| taken.extend(text_of(ti, tx).map(|n| (n, is_kernel_text(ti, tx)))),
            );
            for (n, kernel) in taken {
                found.in_data.push(n);
                if kernel {
                    found.taken_kernels.push(n);
                }
            }
            for s in input.symbols() {
                if !is_kernel(s)
                    || resolution.definition_of(SymbolRef { input: input.index, symbol: s.index })
                        != Some(SymbolRef { input: input.index, symbol: s.index })
                {
                    continue;
                }
                // Rules 9 and 13.5: `-kernels-used` (substrings), else the host objects' patterns.
                let wanted = crate::host_info::is_root_kernel(options, s.name);
                let by_host = options.kernels_used.is_none() && options.variables_used.is_none();
                if let (false, true, Some(section)) = (wanted, by_host, s.section_index()) {
                    found.host_candidates.push((input.index, section));
                }
                if let (true, Some(section)) = (wanted, s.section_index()) {
                    found.roots.extend(node(input.index, section));
                }
                if let Some(section) = s.section_index() {
                    found.kernels.push((input.index, section));
                }
            }
            found
        })
        .collect();
    let mut edges: Vec<Vec<usize>> = vec![Vec::new(); total];
    let mut live = vec![false; total];
    let mut queue = VecDeque::new();
    let root = |n: usize, live: &mut Vec<bool>, queue: &mut VecDeque<usize>| {
        if let Some(l) = live.get_mut(n) {
            if !*l {
                *l = true;
                queue.push_back(n);
            }
        }
    };
    for f in &found {
        for &(from, to) in &f.edges {
            if let Some(e) = edges.get_mut(from) {
                e.push(to);
            }
        }
        for &n in &f.roots {
            root(n, &mut live, &mut queue);
        }
    }
    // Rule 9.12: an indirect call site reaches every address-taken function
    // of its prototype (fresh `-kernels-used=disp_kernel`: `chain1`, called
    // through a `__constant__` table, keeps `chain2` and the division slow path).
    for (&(fi, fx), targets) in &indirect {
        let Some(from) = is_text(fi, fx).then(|| node(fi, fx)).flatten() else { continue };
        for &(ti, tx) in targets {
            if let (Some(to), Some(e)) = (is_text(ti, tx).then(|| node(ti, tx)).flatten(), edges.get_mut(from)) {
                e.push(to);
            }
        }
    }
    // Unless exactly one kernel is a root, nvlink walks from the
    // address-taken kernels too: with a `-kernels-used` matching none (or
    // only `-variables-used`) a self-launching `child` keeps the
    // libcudadevrt launch functions it calls (develf used to write
    // `CALL.ABS 0x0` there); with `-kernels-used=k3,kz` or `=k1,kz` k2,
    // which k1 launches, keeps its callee `f` and gets MIN_STACK_SIZE; with
    // `-kernels-used=k1` (or `=k1,nomatch`) it does neither. An
    // address-taken device function's callees still go (launch, sm_80).
    if queue.is_empty() || (explicit_roots && queue.len() != 1) {
        for f in &found {
            for &n in &f.taken_kernels {
                root(n, &mut live, &mut queue);
            }
        }
    }
    while let Some(n) = queue.pop_front() {
        for &t in edges.get(n).map(Vec::as_slice).unwrap_or_default() {
            root(t, &mut live, &mut queue);
        }
    }

    let walked = |input: usize, section: usize| node(input, section).and_then(|n| live.get(n)).copied().unwrap_or(true);
    let unwalked_kernels: hashbrown::HashSet<(usize, usize)> =
        found.iter().flat_map(|f| f.kernels.iter().copied()).filter(|&(i, x)| !walked(i, x)).collect();
    for f in &found {
        for &n in &f.in_data {
            if let Some(l) = live.get_mut(n) {
                *l = true;
            }
        }
    }
    if keep_all {
        return Liveness { dead, host_pruned: Vec::new(), indirect, unwalked_kernels };
    }
    dead.par_iter_mut().zip(inputs).for_each(|(marks, input)| {
        for s in input.sections() {
            if is_code_section(s.name) && !node(input.index, s.index).and_then(|n| live.get(n)).copied().unwrap_or(true)
            {
                if let Some(m) = marks.get_mut(s.index) {
                    *m = true;
                }
            }
        }
        for s in input.sections() {
            let mut owner_dead = s.flags & SHF_INFO_LINK != 0 && marks.get(s.info as usize).copied().unwrap_or(false);
            // A losing copy's bank that resolution keeps (rule 9) lives
            // with the winner.
            if owner_dead
                && resolution.is_discarded(input.index, s.info as usize)
                && !resolution.is_discarded(input.index, s.index)
            {
                let winner_text = input
                    .symbols()
                    .iter()
                    .filter(|y| {
                        y.section_index() == Some(s.info as usize) && y.st_type == develf_format::symbol::STT_FUNC
                    })
                    .find_map(|y| resolution.definition_of(SymbolRef { input: input.index, symbol: y.index }))
                    .and_then(|d| Some((d.input, inputs.get(d.input)?.symbol(d.symbol)?.section_index()?)));
                owner_dead =
                    winner_text.is_none_or(|(wi, wx)| !node(wi, wx).and_then(|n| live.get(n)).copied().unwrap_or(true));
            }
            if owner_dead && !is_code_section(s.name) {
                if let Some(m) = marks.get_mut(s.index) {
                    *m = true;
                }
            }
        }
        // Relocation sections of dead sections (two levels: .rela.nv.constant0.<fn>).
        for rs in input.cubin.relocation_sections() {
            if marks.get(rs.target as usize).copied().unwrap_or(false) {
                if let Some(m) = marks.get_mut(rs.section) {
                    *m = true;
                }
            }
        }
    });
    let host_pruned = found
        .into_iter()
        .flat_map(|f| f.host_candidates)
        .filter(|&(i, t)| !node(i, t).and_then(|n| live.get(n)).copied().unwrap_or(true))
        .collect();
    Liveness { dead, host_pruned, indirect, unwalked_kernels }
}

/// What one input adds to the call graph (dense section numbers).
#[derive(Default)]
struct InputEdges {
    /// (caller's `.text`, callee's `.text`).
    edges: Vec<(usize, usize)>,
    /// The kernels the link is for: kept, and the walk starts from them.
    roots: Vec<usize>,
    /// Functions whose address data holds: kept, but what they call is
    /// not kept for it (rule 9.12).
    in_data: Vec<usize>,
    /// The kernels among `in_data`: the walk starts from them when no
    /// kernel is a root.
    taken_kernels: Vec<usize>,
    /// Every kernel the input defines (the resolution's copy).
    kernels: Vec<(usize, usize)>,
    /// Rule 13.5: kernels kept only if a host object names them.
    host_candidates: Vec<(usize, usize)>,
}

impl InputEdges {
    /// Records a call. A function's references to itself (a relocation
    /// pair per branch) and a repeat of the last edge change nothing live:
    /// not kept, which keeps the list small (a big link has some hundred
    /// thousand relocations).
    fn edge(&mut self, from: usize, to: usize) {
        if from != to && self.edges.last() != Some(&(from, to)) {
            self.edges.push((from, to));
        }
    }
}
