//! Link-time checks of an executable that nvlink also makes, with messages
//! that say what to change (rules 12.6 and 12.7), and a bound on what the
//! output may allocate (DESIGN.md, "Conventions": hostile input never makes
//! the linker allocate without bound).

use crate::LinkError;
use crate::error::{Location, RegisterOverLimit, SharedContribution, SharedOverLimit, SymbolName};
use crate::gc::{Liveness, is_code_section, takes_address_half};
use crate::input::InputObject;
use crate::layout::{Layout, occupies_file};
use crate::resolve::{Resolution, SymbolRef, is_kernel};
use develf_format::nvinfo::{self, EIATTR_MAXREG_COUNT, EIATTR_REGCOUNT, Format};
use develf_format::symbol::STT_FUNC;
use rayon::prelude::*;
use std::collections::{HashMap, VecDeque};

/// Rule 12.6: the most static shared memory a kernel may declare, on every
/// target from sm_75 to sm_120 (measured: 0xc000 links, 0xc004 fails with
/// `Entry function 'kbig' uses too much shared data (0xc004 bytes, 0xc000
/// max)` on sm_75, 80, 86, 89, 90, 100, 120). Larger windows need
/// `extern __shared__` memory and `cudaFuncSetAttribute` at run time.
pub(crate) const STATIC_SHARED_LIMIT: u64 = 0xc000;

/// The largest `.nv.constant3` (the `__constant__` variables of every input,
/// constant bank 3) nvlink writes, in executables and `-r` outputs alike:
/// PTX `.const` arrays of 40000 + 25536 bytes link, 40000 + 25540 fail with
/// `File uses too much global constant data (0x10004 bytes, 0x10000 max)`
/// (exit status 255, sm_90, exec and `-r`; the same from nvcc objects on
/// sm_75, sm_90 and sm_100, 0x101d0 and 0x12110 bytes). Counted after dead
/// code: with `-variables-used`/`-kernels-used` dropping the second array
/// the link succeeds.
pub(crate) const CONSTANT_BANK_LIMIT: u64 = 0x10000;

/// Rule 9: nvlink `-r` dies ("Internal error: reference to deleted section")
/// when a weak function's copy with a `.nv.constant2.<fn>` is replaced by a
/// later copy with fewer registers whose input has no section of that name
/// (fresh4 loser-bank2, sm_75/sm_86/sm_89: `b.cubin a.cubin`, b's
/// `-use_fast_math` `hz<float, 5>`, 38 registers and an 8-byte bank, a's
/// plain one, 36; the executable links and drops the bank). A later *losing*
/// copy's bank is kept instead (`a.cubin b.cubin`).
pub(crate) fn replaced_bank(inputs: &[InputObject<'_>], resolution: &Resolution<'_>) -> Result<(), LinkError> {
    for input in inputs {
        for s in input.sections().iter().filter(|s| s.name.starts_with(".nv.constant2.")) {
            let text = s.info as usize;
            if !resolution.is_discarded(input.index, text) {
                continue;
            }
            let function = |y: &&develf_parse::elf::Symbol<'_>| {
                y.st_type == STT_FUNC && !is_kernel(y) && y.section_index() == Some(text)
            };
            for y in input.symbols().iter().filter(function) {
                let Some(d) = resolution.definition_of(SymbolRef { input: input.index, symbol: y.index }) else {
                    continue;
                };
                let Some(winner) = inputs.get(d.input).filter(|_| d.input > input.index) else { continue };
                if winner.sections().iter().any(|x| x.name == s.name) {
                    continue;
                }
                return Err(LinkError::ReplacedBank {
                    function: SymbolName::new(y.name),
                    replaced: input.name.to_string(),
                    winner: winner.name.to_string(),
                    bank: s.name.to_string(),
                });
            }
        }
    }
    Ok(())
}

/// Output sections are made of input bytes and alignment padding; anything
/// much larger than the inputs comes from a corrupt size or alignment.
fn output_bound(inputs: &[InputObject<'_>]) -> u64 {
    let total: u64 = inputs.iter().map(|i| i.cubin.data().len() as u64).sum();
    total.saturating_mul(4).saturating_add(1 << 20)
}

/// Refuses a layout whose file-backed sections would be far larger than the
/// inputs (a mutated `sh_size` or `sh_addralign`), before any is allocated.
pub(crate) fn output_size(inputs: &[InputObject<'_>], layout: &Layout) -> Result<(), LinkError> {
    let bound = output_bound(inputs);
    // The file offsets the writer will choose: every section aligned in turn.
    let mut end = 0u64;
    for s in &layout.sections {
        let align = s.align.max(1);
        end = end.div_ceil(align).saturating_mul(align);
        if occupies_file(s.sh_type) {
            end = end.saturating_add(s.size);
        }
        if end > bound || align > bound {
            return Err(LinkError::TooLarge(format!(
                "section {} (size {:#x}, alignment {:#x}) would end at {:#x}, from {:#x} bytes of input \
                 (a corrupt section size or alignment)",
                s.name,
                s.size,
                s.align,
                end,
                bound.saturating_sub(1 << 20) / 4
            )));
        }
        if occupies_file(s.sh_type) && !s.pieces.is_empty() && s.size > bound {
            return Err(LinkError::TooLarge(format!(
                "section {} would be {:#x} bytes from {:#x} bytes of input (a corrupt section size or alignment)",
                s.name,
                s.size,
                bound.saturating_sub(1 << 20) / 4
            )));
        }
    }
    Ok(())
}

/// Refuses an output whose global constant bank (`.nv.constant3`) is larger
/// than [`CONSTANT_BANK_LIMIT`]. Otherwise the first relocation past 0xffff
/// would fail with a less useful message.
pub(crate) fn constant_bank(layout: &Layout) -> Result<(), LinkError> {
    match layout.sections.iter().find(|s| s.name == ".nv.constant3") {
        Some(s) if s.size > CONSTANT_BANK_LIMIT => {
            Err(LinkError::ConstantBankOverLimit { bytes: s.size, limit: CONSTANT_BANK_LIMIT })
        }
        _ => Ok(()),
    }
}

/// The name of the function whose code is section `text` of input `input`.
fn function_name<'a>(inputs: &[InputObject<'a>], input: usize, text: usize) -> Option<&'a str> {
    inputs
        .get(input)?
        .symbols()
        .iter()
        .find(|s| s.st_type == STT_FUNC && s.section_index() == Some(text))
        .map(|s| s.name)
}

/// A function name for a call path: demangled, with ptxas's clone suffix
/// kept (`_Z3midPKf$1`, the copy of `mid` compiled for a kernel's limit:
/// `mid(float const*)$1`).
fn pretty_function(raw: &str) -> String {
    if let Some((base, n)) =
        raw.rsplit_once('$').filter(|(_, n)| !n.is_empty() && n.bytes().all(|b| b.is_ascii_digit()))
    {
        if let Some(d) = crate::demangle::demangle(base) {
            return format!("{d}${n}");
        }
    }
    crate::demangle::demangle(raw).unwrap_or_else(|| raw.to_string())
}

/// A shared variable's name: ptxas names a variable declared inside a
/// function body `$__<name>__<n>` (`$__own_tile__9`); shown as `<name>`.
fn variable_name(raw: &str) -> SymbolName {
    let inner = raw
        .strip_prefix("$__")
        .and_then(|r| r.rsplit_once("__"))
        .filter(|(name, n)| !name.is_empty() && n.bytes().all(|b| b.is_ascii_digit()))
        .map(|(name, _)| name.to_string());
    match inner {
        Some(name) => SymbolName { mangled: raw.to_string(), demangled: Some(name) },
        None => SymbolName::new(raw),
    }
}

fn file_name(inputs: &[InputObject<'_>], input: usize) -> String {
    inputs.get(input).map(|i| i.name.to_string()).unwrap_or_default()
}

/// Rule 12.6: every kernel's static window (its own variables, those of the
/// functions it reaches, the common area) must end at or below 0xc000 bytes.
/// nvlink counts where the variables end: neither `extern __shared__`
/// memory nor the reserved area (`.nv.reservedSmem.cap`, 0x400 on sm_90+)
/// is included. `-r` links are not checked (nvlink: none).
pub(crate) fn shared_memory(inputs: &[InputObject<'_>], layout: &Layout) -> Result<(), LinkError> {
    let mut over = Vec::new();
    for w in &layout.shared.windows {
        if w.end <= STATIC_SHARED_LIMIT {
            continue;
        }
        let (ki, kt) = w.kernel;
        let mut contributors: Vec<SharedContribution> = w
            .variables
            .iter()
            .map(|&(var, (ui, ut), bytes)| {
                let input = inputs.get(var.input);
                let symbol = input.and_then(|i| i.symbol(var.symbol));
                let section = symbol
                    .and_then(|s| s.section_index())
                    .and_then(|x| input.map(|i| i.section_name(x)))
                    .unwrap_or_default();
                SharedContribution {
                    variable: variable_name(symbol.map(|s| s.name).unwrap_or_default()),
                    location: Location {
                        file: file_name(inputs, var.input),
                        section,
                        within: function_name(inputs, ui, ut).map(|n| SymbolName::new(n).to_string()),
                    },
                    bytes,
                }
            })
            .collect();
        contributors.sort_by_key(|c| std::cmp::Reverse(c.bytes));
        over.push(SharedOverLimit {
            kernel: SymbolName::new(function_name(inputs, ki, kt).unwrap_or_default()),
            file: file_name(inputs, ki),
            total: w.end,
            limit: STATIC_SHARED_LIMIT,
            contributors,
        });
    }
    if over.is_empty() { Ok(()) } else { Err(LinkError::SharedMemoryOverLimit(over)) }
}

type Node = (usize, usize);

/// Rule 12.7: a kernel's `EIATTR_MAXREG_COUNT` (from `__launch_bounds__`,
/// `__maxnreg__` or `-maxrregcount`; 0xff: none) must be at least the
/// `EIATTR_REGCOUNT` of every function it reaches through calls. nvlink:
/// `entry function '_Z2klPfPKf' with max regcount of 32 calls function
/// '_Z5heavyPKf' with regcount of 108` (exit status 255), for a kernel
/// calling `heavy` directly or through another function that fits (ptxas
/// clones such a middle function for the kernel's limit: `_Z3midPKf$1`).
/// Only live kernels are checked; `-r` links are not (nvlink: none).
pub(crate) fn register_limits(
    inputs: &[InputObject<'_>],
    resolution: &Resolution<'_>,
    liveness: &Liveness,
) -> Result<(), LinkError> {
    // Per kernel `.text`: its limit. Raw records: this runs on every link and
    // most have no limit at all. Inputs are read in parallel, kept in order.
    let limits_of = |input: &InputObject<'_>| {
        let mut limits: Vec<(Node, u32)> = Vec::new();
        for s in input.sections() {
            if !s.name.starts_with(".nv.info.") {
                continue;
            }
            let text = s.info as usize;
            for r in nvinfo::records(s.bytes()).flatten() {
                if r.attribute == EIATTR_MAXREG_COUNT && r.format == Format::Hval as u8 {
                    if liveness.is_dead(input.index, text) || resolution.is_discarded(input.index, text) {
                        break;
                    }
                    limits.push(((input.index, text), u32::from(r.value)));
                }
            }
        }
        limits
    };
    let mut limits: Vec<(Node, u32)> = inputs.par_iter().flat_map_iter(limits_of).collect();
    if limits.is_empty() {
        return Ok(());
    }
    // Per input function (input, symbol): its register count.
    let counts_of = |input: &InputObject<'_>| {
        let mut counts: Vec<(SymbolRef, u32)> = Vec::new();
        for s in input.sections().iter().filter(|s| s.name == ".nv.info") {
            for r in nvinfo::records(s.bytes()).flatten() {
                if let (EIATTR_REGCOUNT, Some(Format::Sval), [f0, f1, f2, f3, v0, v1, v2, v3]) =
                    (r.attribute, Format::from_u8(r.format), r.payload)
                {
                    let function = u32::from_le_bytes([*f0, *f1, *f2, *f3]) as usize;
                    counts.push((
                        SymbolRef { input: input.index, symbol: function },
                        u32::from_le_bytes([*v0, *v1, *v2, *v3]),
                    ));
                }
            }
        }
        counts
    };
    // Collected in input order, so a later record of a function wins as before.
    let regcount: HashMap<SymbolRef, u32> =
        inputs.par_iter().flat_map_iter(counts_of).collect::<Vec<_>>().into_iter().collect();
    // A kernel whose limit no function of the link exceeds needs no walk
    // (ptxas writes a MAXREG_COUNT for every kernel, usually 255).
    let most = regcount.values().copied().max().unwrap_or(0);
    limits.retain(|&(_, limit)| limit < most);
    if limits.is_empty() {
        return Ok(());
    }
    // Call edges between code sections, through the chosen definitions.
    let mut edges: HashMap<Node, Vec<(Node, SymbolRef)>> = HashMap::new();
    for input in inputs {
        for rs in input.cubin.relocation_sections() {
            let from = rs.target as usize;
            if !input.section(from).is_some_and(|s| is_code_section(s.name)) {
                continue;
            }
            for r in rs.entries() {
                // An address taken is no call; indirect calls count below.
                if takes_address_half(r.r_type) {
                    continue;
                }
                let Some(def) = resolution.definition_of(SymbolRef { input: input.index, symbol: r.symbol as usize })
                else {
                    continue;
                };
                let Some(sym) = inputs.get(def.input).and_then(|i| i.symbol(def.symbol)) else { continue };
                if sym.st_type != STT_FUNC || is_kernel(sym) {
                    continue;
                }
                let Some(to) = sym.section_index() else { continue };
                let list = edges.entry((input.index, from)).or_default();
                if !list.iter().any(|(n, _)| *n == (def.input, to)) {
                    list.push(((def.input, to), def));
                }
            }
        }
    }
    // Indirect calls count: a call site of prototype P reaches every
    // address-taken function of prototype P (fresh4 `indirect-regcap`:
    // `__maxnreg__(24)` kernel `k` calling `tab[i](x)`, `tab = {hs, he}`:
    // nvlink fails, naming `he` (83) and its callees; sm_75..sm_120).
    for (&from, targets) in &liveness.indirect {
        if !inputs.get(from.0).and_then(|i| i.section(from.1)).is_some_and(|s| is_code_section(s.name)) {
            continue;
        }
        for &to in targets {
            let Some(symbol) = inputs.get(to.0).and_then(|i| i.function_in(to.1)) else { continue };
            let list = edges.entry(from).or_default();
            if !list.iter().any(|(n, _)| *n == to) {
                list.push((to, SymbolRef { input: to.0, symbol }));
            }
        }
    }
    let mut over = Vec::new();
    for (kernel, limit) in limits {
        // Breadth first: the shortest call path to each function.
        let mut parent: HashMap<Node, Option<Node>> = HashMap::from([(kernel, None)]);
        let mut queue = VecDeque::from([kernel]);
        while let Some(n) = queue.pop_front() {
            for &(to, def) in edges.get(&n).map(Vec::as_slice).unwrap_or_default() {
                if parent.contains_key(&to) {
                    continue;
                }
                parent.insert(to, Some(n));
                queue.push_back(to);
                let needed = regcount.get(&def).copied().unwrap_or(0);
                if needed <= limit {
                    continue;
                }
                let mut path = vec![to];
                let mut cur = Some(n);
                while let Some(c) = cur {
                    path.push(c);
                    cur = parent.get(&c).copied().flatten();
                }
                path.reverse();
                let name = |(i, t): Node| pretty_function(function_name(inputs, i, t).unwrap_or_default());
                over.push(RegisterOverLimit {
                    kernel: SymbolName::new(function_name(inputs, kernel.0, kernel.1).unwrap_or_default()),
                    file: file_name(inputs, kernel.0),
                    limit,
                    callee: SymbolName::new(function_name(inputs, to.0, to.1).unwrap_or_default()),
                    callee_file: file_name(inputs, to.0),
                    needed,
                    path: path.into_iter().map(name).collect(),
                });
            }
        }
    }
    if over.is_empty() { Ok(()) } else { Err(LinkError::RegisterLimit(over)) }
}
