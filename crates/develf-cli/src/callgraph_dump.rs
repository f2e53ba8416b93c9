//! `-dump-callgraph`: nvlink's call graph text, computed from the inputs
//! and from what the link decided (which kernels it keeps, where their code
//! went), with nvlink's "regcount N for F propagated to entry K" lines.

use crate::nvlink_demangle::demangle_like_nvlink;
use develf_format::header::Arch;
use develf_link::Input;
use std::collections::HashMap;
use std::fmt::Write as _;

/// A function in the call graph dump.
#[derive(Debug, Default)]
struct Node {
    name: String,
    registers: Option<u32>,
    entry: bool,
    address_taken: bool,
    defined: bool,
    /// Callee node numbers, in the order the edges were recorded.
    callees: Vec<usize>,
    /// The output section header of its code (the first, for a function
    /// defined in several inputs).
    placed: Option<u32>,
}

/// nvlink's `-dump-callgraph` text, computed from the inputs: functions are
/// numbered in the order their symbols first appear (inputs in order, symbol
/// tables in order), each line lists its callees newest edge first, indirect
/// call sites list every address-taken function of the same prototype,
/// functions no kernel reaches print as a bare number, and a callee needing
/// more registers than its kernel is reported as nvlink does. Functions from
/// nvlink's built-in libraries (`__cuda_sm70_*`) show no register count here.
pub fn callgraph_dump(inputs: &[Input<'_>], arch: Arch, demangle: bool) -> String {
    let scope = DumpScope {
        kept: &|_| true,
        placed: &|_, _| None,
        debug: false,
        preserve_relocs: false,
        address_taken_kernels: false,
    };
    callgraph_dump_kept(inputs, arch, demangle, &scope)
}

/// What the link decided that its call graph dump shows.
pub struct DumpScope<'a> {
    /// The kernels the link keeps as kernels (all, or those `-kernels-used`,
    /// `-variables-used` or host information select).
    pub kept: &'a dyn Fn(&str) -> bool,
    /// The output section header an input section went to
    /// (`develf_link::Image::section_header_index`).
    pub placed: &'a dyn Fn(usize, usize) -> Option<u32>,
    /// `-g`: every function the output keeps is printed in full.
    pub debug: bool,
    /// `-preserve-relocs`: as `-g` (the kernels not selected are kept, and
    /// printed as functions).
    pub preserve_relocs: bool,
    /// Every address-taken kernel is an entry, walked: nvlink 13.5 does so
    /// when `-kernels-used` names two kernels or more, not for one (fixture
    /// kul: `-kernels-used=kul_main,kul_zero` or `kul_main,kul_last` print
    /// `^&kul_dyn`, `kul_main` or `kul_main,kul_main` `&kul_dyn`; sweep27
    /// p282 likewise, whether the kernels named are address-taken or not).
    pub address_taken_kernels: bool,
}

impl std::fmt::Debug for DumpScope<'_> {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        f.debug_struct("DumpScope")
            .field("debug", &self.debug)
            .field("preserve_relocs", &self.preserve_relocs)
            .field("address_taken_kernels", &self.address_taken_kernels)
            .finish_non_exhaustive()
    }
}

/// [`callgraph_dump`] as a link decided it (`scope`, rule 13.10): the walk
/// that prints functions in full starts from the kernels it keeps (f7 p6:
/// `-kernels-used=_Z6k_leafPi` prints `ping`, `pong`, `fib`, `k_ops` and
/// `k_shapes` as bare numbers); address-taken functions print in full
/// without being walked into; a kernel not selected prints as a function
/// (no `^`; fixture kul: `&kul_zero(int *)`). nvlink raises the entries'
/// counts function by function in the output's section order
/// (`scope.placed`).
pub fn callgraph_dump_kept(inputs: &[Input<'_>], arch: Arch, demangle: bool, scope: &DumpScope<'_>) -> String {
    let (kept, placed) = (scope.kept, scope.placed);
    let mut nodes: Vec<Node> = Vec::new();
    let mut globals: HashMap<String, usize> = HashMap::new();
    let mut address_taken: Vec<(usize, String)> = Vec::new();
    let mut indirect_calls: Vec<(usize, String)> = Vec::new();
    let mut direct_calls: Vec<(usize, usize)> = Vec::new();
    for (input_index, input) in inputs.iter().enumerate() {
        let Ok(cubin) = develf_parse::Cubin::parse(input.bytes) else { continue };
        let Some(symtab) = cubin.symtab() else { continue };
        let strtab = cubin.elf().section(symtab.section).map_or(0, |s| s.link as usize);
        // Each function's register count in this input (its `.nv.info`).
        let mut registers: HashMap<usize, u32> = HashMap::new();
        for section in cubin.sections() {
            if section.name == ".nv.info" || section.name.starts_with(".nv.info.") {
                for record in develf_eiattr::NvInfo::decode(section.bytes()).records {
                    if let develf_eiattr::Attribute::Regcount(value) = record.attribute {
                        registers.insert(value.function as usize, value.value);
                    }
                }
            }
        }
        let mut node_of: HashMap<usize, usize> = HashMap::new();
        // Copies of functions defined in an earlier input that bring nothing.
        let mut ignored_copies: std::collections::HashSet<usize> = std::collections::HashSet::new();
        for symbol in &symtab.symbols {
            if symbol.st_type != develf_format::symbol::STT_FUNC || symbol.name.is_empty() {
                continue;
            }
            let local = symbol.bind == develf_format::symbol::STB_LOCAL;
            let index = match (local, globals.get(symbol.name)) {
                (false, Some(&i)) => i,
                _ => {
                    nodes.push(Node { name: symbol.name.to_string(), ..Node::default() });
                    if !local {
                        globals.insert(symbol.name.to_string(), nodes.len() - 1);
                    }
                    nodes.len() - 1
                }
            };
            node_of.insert(symbol.index, index);
            if let Some(section) = symbol.section_index() {
                let node = &mut nodes[index];
                // A function defined in several inputs (weak) has the first
                // copy's count and calls; a later copy with fewer registers
                // lowers the count and adds its calls, repeats included; any
                // other copy brings nothing (fixtures cbr, wfc, gln, wcp;
                // sweep27 p282 `-G`'s `tile_incl_scan<int, 16>`, in three
                // inputs with the same count: the first's calls only).
                let count = registers.get(&symbol.index).copied();
                match (node.defined, count, node.registers) {
                    (false, _, _) => node.registers = count,
                    (true, Some(r), Some(c)) if r < c => node.registers = Some(r),
                    (true, _, _) => {
                        ignored_copies.insert(symbol.index);
                    }
                }
                node.defined = true;
                if let Some(header) = placed(input_index, section) {
                    node.placed = Some(node.placed.map_or(header, |p| p.min(header)));
                }
                node.entry |= symbol.other & develf_format::symbol::STO_CUDA_ENTRY != 0;
            }
        }
        // An input's repeated edge counts once; another input's copy of the
        // caller may repeat it (fixture gln: `gln_tk<float> -> 1 1`).
        let mut seen_calls = std::collections::HashSet::new();
        for section in cubin.sections() {
            if section.name != ".nv.callgraph" {
                continue;
            }
            let Ok(graph) = develf_eiattr::CallGraph::decode(section.bytes()) else { continue };
            let prototype = |offset: u32| cubin.elf().string(strtab, offset).unwrap_or("").to_string();
            for pair in &graph.calls {
                if ignored_copies.contains(&(pair.0 as usize)) {
                    continue;
                }
                if let (Some(&a), Some(&b)) = (node_of.get(&(pair.0 as usize)), node_of.get(&(pair.1 as usize))) {
                    if seen_calls.insert((a, b)) {
                        direct_calls.push((a, b));
                    }
                }
            }
            for pair in &graph.address_taken {
                if let Some(&f) = node_of.get(&(pair.0 as usize)) {
                    if !address_taken.iter().any(|(n, _)| *n == f) {
                        address_taken.push((f, prototype(pair.1)));
                    }
                    nodes[f].address_taken = true;
                }
            }
            // An ignored copy's indirect call sites bring nothing either
            // (sweep29 p301 `-G`: libcu++'s `__cuda_fetch_weak_if_local<unsigned
            // long, ..>` in two inputs with the same count lists its
            // candidates once).
            for pair in &graph.indirect_calls {
                if ignored_copies.contains(&(pair.0 as usize)) {
                    continue;
                }
                if let Some(&f) = node_of.get(&(pair.0 as usize)) {
                    indirect_calls.push((f, prototype(pair.1)));
                }
            }
        }
    }
    for (caller, callee) in direct_calls {
        nodes[caller].callees.push(callee);
    }
    // An indirect call site's candidates are the address-taken functions of
    // its prototype, printed in descending node order, the sites in the
    // order the inputs list them, after (printed before) the direct callees
    // (`k_shapes -> 3 2 4 1`: `area()` then `scale()` candidates; f7 p6).
    for (caller, prototype) in indirect_calls.iter().rev() {
        let mut targets: Vec<usize> =
            address_taken.iter().filter(|(_, p)| p == prototype).map(|(target, _)| *target).collect();
        targets.sort_unstable();
        nodes[*caller].callees.extend(targets);
    }
    // Printed in full: what the walk below reaches, and address-taken functions.
    let mut reachable = vec![false; nodes.len()];
    // In a `-g` or `-preserve-relocs` link every function the output keeps
    // is printed in full, called or not (sweep27 p283 `-G` sm_100: `rsqrt`,
    // `exp2`, `exp10`; p280: an unused base-object constructor; fixture
    // jtrel: `jump_i`; fixture cbk `-kernels-used`: the kernel not selected,
    // as a function); otherwise one kept only because a variable holds its
    // address is not (fixture adrw `-kernels-used`). An address-taken
    // function is printed in full, but the walk does not go on into its
    // callees (fixture adrw `-kernels-used=adrw_set`: `&adrw_outer(float)
    // -> 1`, and 1, `adrw_inner`, bare).
    let is_kernel =
        |node: &Node| node.entry && (kept(&node.name) || (scope.address_taken_kernels && node.address_taken));
    let keeps_unreached = scope.debug || scope.preserve_relocs;
    let mut stack: Vec<usize> =
        (0..nodes.len()).filter(|&i| is_kernel(&nodes[i]) || (keeps_unreached && nodes[i].placed.is_some())).collect();
    while let Some(i) = stack.pop() {
        if !std::mem::replace(&mut reachable[i], true) {
            stack.extend(nodes[i].callees.iter().copied().filter(|&c| !reachable[c]));
        }
    }
    for (i, node) in nodes.iter().enumerate() {
        reachable[i] |= node.address_taken;
    }
    let display = |node: &Node| if demangle { demangle_like_nvlink(&node.name) } else { node.name.clone() };
    // The target's number without its `a`/`f` suffix (`-arch=sm_100a`: "sm_100").
    let arch = format!("sm_{}", arch.sm);
    let mut out = format!(
        "callgraph for {arch}:\n# A: s -> B // s (number A) potentially calls B\n# s [N]     // s uses N registers\n# ^s        // s is entry point\n# &s        // s has address taken\n"
    );
    for (i, node) in nodes.iter().enumerate() {
        if !reachable[i] {
            let _ = writeln!(out, "{}: ", i + 1);
            continue;
        }
        // An entry whose address is taken (a kernel launched from the
        // device) is both: `^&k_child(...)` (sweep27 p284, sm_75..sm_120).
        let marker = match (is_kernel(node), node.address_taken) {
            (true, true) => "^&",
            (true, false) => "^",
            (false, true) => "&",
            (false, false) => "",
        };
        let registers = node.registers.filter(|_| node.defined).map_or(String::new(), |r| format!(" [{r}]"));
        let _ = write!(out, "{}: {marker}{}{registers} ->", i + 1, display(node));
        for callee in node.callees.iter().rev() {
            let _ = write!(out, " {}", callee + 1);
        }
        out.push('\n');
    }
    // nvlink raises each entry's count function by function, in the order
    // of their code in the output (then ascending node order: f7's links),
    // and prints every raise: one line per (function, entry)
    // where the function, reached from the entry, uses more registers than
    // the entry's count so far; for one function the entries come in
    // descending node order (f7 p7: `k1 k2 k3 kh`, nodes 6 5 4 2; f7 `-G` p1:
    // `tsum<int,3>` for k_int, then `tmix<double>` 36 and the f64 division's
    // 45 both for k_d).
    let entries: Vec<(usize, Vec<bool>)> = nodes
        .iter()
        .enumerate()
        .rev()
        .filter(|(i, n)| is_kernel(n) && reachable[*i] && n.registers.is_some())
        .map(|(i, node)| {
            let mut seen = vec![false; nodes.len()];
            let mut stack = node.callees.clone();
            while let Some(c) = stack.pop() {
                if !std::mem::replace(&mut seen[c], true) {
                    stack.extend(nodes[c].callees.iter().copied());
                }
            }
            (i, seen)
        })
        .collect();
    // (Output order: sweep27 p280 sm_90 `make_shape`, the last `.text`, is
    // raised last though its node is 23 of 59; p281 sm_75 `h_dot`'s two copies,
    // nodes 2 and 15, before `bf_norm`, node 5.)
    let mut order: Vec<usize> = (0..nodes.len()).collect();
    order.sort_by_key(|&f| (nodes[f].placed.unwrap_or(u32::MAX), f));
    let mut count: Vec<Option<u32>> = nodes.iter().map(|n| n.registers).collect();
    for (f, function) in order.into_iter().map(|f| (f, &nodes[f])) {
        let Some(r) = function.registers.filter(|_| function.defined) else { continue };
        for (e, reached) in &entries {
            if *e != f && reached[f] && count[*e].is_some_and(|c| r > c) {
                count[*e] = Some(r);
                let _ =
                    writeln!(out, "regcount {r} for {} propagated to entry {}", display(function), display(&nodes[*e]));
            }
        }
    }
    out
}
