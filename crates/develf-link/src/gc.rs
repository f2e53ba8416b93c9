//! Phase 3: dead-code elimination (rule 9). Executables keep only the
//! functions a kernel can reach (the kernels named by `-kernels-used`, when
//! given) through relocations and `.nv.callgraph` calls, plus functions whose
//! address is stored in data.
//! `-r`, `-preserve-relocs` and `-g` keep everything. One pass over the relocations builds the edges; one
//! breadth-first walk marks the live code: linear in the size of the call graph.

use crate::input::InputObject;
use crate::options::{LinkOptions, OutputKind};
use crate::resolve::{Resolution, SHF_INFO_LINK, SymbolRef, is_kernel};
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
}

impl Liveness {
    pub fn is_dead(&self, input: usize, section: usize) -> bool {
        self.dead.get(input).and_then(|d| d.get(section)).copied().unwrap_or(false)
    }
}

pub(crate) fn is_code_section(name: &str) -> bool {
    name.starts_with(".text.")
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
    // Rule 8.2: `-preserve-relocs` keeps every function too, `-kernels-used`
    // or not (reloc: `reloc_unused` on sm_75/sm_90/sm_100; calls with
    // `-kernels-used=calls_fib` keeps all four functions). Rule 9.7: so does
    // `-g` (sys keeps `sys_alloc_ints`; debug-G with a `-kernels-used`
    // matching no kernel keeps both functions).
    if options.output == OutputKind::Relocatable || options.preserve_relocs || options.debug {
        return Liveness { dead, host_pruned: Vec::new() };
    }
    // Dense numbering of all input sections: base[input] + section.
    let mut base = Vec::with_capacity(inputs.len());
    let mut total = 0usize;
    for input in inputs {
        base.push(total);
        total += input.sections().len();
    }
    let node = |input: usize, section: usize| base.get(input).map(|b| b + section);
    let is_text = |input: usize, section: usize| {
        inputs.get(input).and_then(|i| i.section(section)).is_some_and(|s| is_code_section(s.name))
    };
    let mut edges: Vec<Vec<usize>> = vec![Vec::new(); total];
    let mut live = vec![false; total];
    let mut in_data = vec![false; total];
    let mut queue = VecDeque::new();
    let root = |n: usize, live: &mut Vec<bool>, queue: &mut VecDeque<usize>| {
        if let Some(l) = live.get_mut(n) {
            if !*l {
                *l = true;
                queue.push_back(n);
            }
        }
    };

    for input in inputs {
        for rs in input.cubin.relocation_sections() {
            let target = rs.target as usize;
            if resolution.is_discarded(input.index, rs.section) {
                continue;
            }
            let from_code = is_text(input.index, target);
            let from_debug = input.section(target).is_none_or(|s| is_debug_section(s.name));
            for r in rs.entries() {
                let Some(def) = resolution.definition_of(SymbolRef { input: input.index, symbol: r.symbol as usize })
                else {
                    continue;
                };
                let Some(def_section) = inputs.get(def.input).and_then(|i| i.symbol(def.symbol)) else { continue };
                let Some(section) = def_section.section_index() else { continue };
                if !is_text(def.input, section) {
                    continue;
                }
                let Some(to) = node(def.input, section) else { continue };
                if from_code {
                    if let (Some(from), true) = (node(input.index, target), to < total) {
                        if let Some(e) = edges.get_mut(from) {
                            e.push(to);
                        }
                    }
                } else if !from_debug {
                    // A function pointer in data (`.nv.global.init`, a constant
                    // bank) keeps its function, but the walk does not go on
                    // from it (rule 9.12: fresh `-kernels-used`, `chain1` in
                    // a `__constant__` table stays, its callees `chain2` and
                    // the division slow path go; sm_75..sm_90a).
                    if let Some(l) = in_data.get_mut(to) {
                        *l = true;
                    }
                }
            }
        }
    }
    // Rule 9.9: ptxas's call graph keeps a callee even where the call left
    // no relocation. sm_75/sm_80 CUB objects list `warp_max ->
    // __cuda_sm70_shflsync_down` though the shuffle was inlined (no
    // `R_CUDA_ABS47_34` to it); nvlink keeps the function, its `.nv.info`,
    // FDE and prototype (cub sm_75, sm_80, 10/10 links). Only the input's
    // own `.nv.callgraph` (the merc copy repeats it with other indices).
    crate::resolve::callgraph_calls(inputs, resolution, |(fi, fx), (ti, tx)| {
        let text_of = |i: usize, x: usize| is_text(i, x).then(|| node(i, x)).flatten();
        if let (Some(from), Some(to)) = (text_of(fi, fx), text_of(ti, tx)) {
            if let Some(e) = edges.get_mut(from) {
                e.push(to);
            }
        }
    });
    // Rule 9.12: an indirect call site reaches every address-taken function
    // of its prototype (fresh `-kernels-used=disp_kernel`: `chain1`, called
    // through a `__constant__` table, keeps `chain2` and the division slow path).
    let mut indirect = hashbrown::HashMap::new();
    crate::shared::indirect_edges(inputs, resolution, &mut indirect);
    for ((fi, fx), targets) in indirect {
        let Some(from) = is_text(fi, fx).then(|| node(fi, fx)).flatten() else { continue };
        for (ti, tx) in targets {
            if let (Some(to), Some(e)) = (is_text(ti, tx).then(|| node(ti, tx)).flatten(), edges.get_mut(from)) {
                e.push(to);
            }
        }
    }
    let mut host_candidates: Vec<(usize, usize)> = Vec::new();
    for input in inputs {
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
                host_candidates.push((input.index, section));
            }
            if let (true, Some(section)) = (wanted, s.section_index()) {
                if let Some(n) = node(input.index, section) {
                    root(n, &mut live, &mut queue);
                }
            }
        }
    }
    while let Some(n) = queue.pop_front() {
        let targets = edges.get(n).cloned().unwrap_or_default();
        for t in targets {
            root(t, &mut live, &mut queue);
        }
    }
    for (l, d) in live.iter_mut().zip(&in_data) {
        *l |= *d;
    }

    for input in inputs {
        let Some(marks) = dead.get_mut(input.index) else { continue };
        for s in input.sections() {
            if is_code_section(s.name) && !node(input.index, s.index).and_then(|n| live.get(n)).copied().unwrap_or(true)
            {
                if let Some(m) = marks.get_mut(s.index) {
                    *m = true;
                }
            }
        }
        for s in input.sections() {
            let owner_dead = s.flags & SHF_INFO_LINK != 0 && marks.get(s.info as usize).copied().unwrap_or(false);
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
    }
    let host_pruned = host_candidates
        .into_iter()
        .filter(|&(i, t)| !node(i, t).and_then(|n| live.get(n)).copied().unwrap_or(true))
        .collect();
    Liveness { dead, host_pruned }
}
