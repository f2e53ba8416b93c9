//! Phase 6: section contents and relocations. Each output section's bytes are
//! its pieces at their offsets (borrowed, see crate::body); every input
//! relocation patching it is applied (recorded as a patch over those bytes),
//! dropped or kept as `develf_reloc::keep::disposition` says
//! (rule 8.2). Kept relocations are listed in reverse input order, each
//! input's list reversed (rule 8.1). Sections are processed in parallel and
//! the results collected in section order, so the bytes do not depend on
//! the thread count.

use crate::body::{Body, Merged, PieceBytes};
use crate::error::LinkError;
use crate::input::InputObject;
use crate::layout::{Layout, OutId, SectionClass, occupies_file};
use crate::resolve::{Resolution, STT_CUDA_SAMPLER, SymbolRef, TABLE_SYMBOLS};
use crate::symbols::SymbolTable;
use develf_format::reloc_desc::Action;
use develf_format::section::SHT_CUDA_RESOLVED_RELA;
use develf_format::symbol::{
    STB_LOCAL, STB_WEAK, STO_CUDA_CONSTANT, STO_CUDA_SHARED, STO_CUDA_SPACE_MASK, STT_CUDA_OBJECT, STT_CUDA_SURFACE,
    STT_CUDA_TEXTURE, STT_FUNC, STT_NOTYPE, STT_OBJECT, STT_SECTION,
};
use develf_parse::elf::Symbol;
use develf_reloc::keep::{self, Disposition, Query, SymbolHome, SymbolState};
use develf_reloc::{ValuePart, descriptor};
use rayon::prelude::*;

/// Rule 11.6: the constant bank `nvlink -r` resolves texture and surface
/// operands to.
const RELOCATABLE_TEXTURE_BANK: u64 = 0x1c;

/// One relocation of the output: 24 bytes, an `Elf64_Rela`'s worth (a
/// big link keeps tens of thousands). A `.rel` section's entries carry 0,
/// which the writer leaves out.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub(crate) struct OutRelocation {
    pub offset: u64,
    pub r_type: u32,
    pub symbol: u32,
    pub addend: i64,
}

#[derive(Debug)]
pub(crate) struct Contents<'a> {
    /// Per output section: bytes of merged sections (empty for generated ones).
    pub data: Vec<Body<'a>>,
    /// The entries of relocation sections.
    pub relocations: RelocationLists,
}

/// The entries of each relocation section that has any, in output section
/// order: most output sections are not relocation sections (a big link's
/// 27,000 sections have 6,800 lists), so there is no slot per section.
#[derive(Debug, Default)]
pub(crate) struct RelocationLists {
    lists: Vec<(OutId, Vec<OutRelocation>)>,
}

impl RelocationLists {
    fn find(&self, id: OutId) -> Result<usize, usize> {
        self.lists.binary_search_by_key(&id, |&(k, _)| k)
    }

    /// The entries of section `id` (none for a section without a list).
    pub(crate) fn get(&self, id: OutId) -> &[OutRelocation] {
        self.find(id).ok().and_then(|k| self.lists.get(k)).map_or(&[], |(_, list)| list.as_slice())
    }

    /// The entries of section `id` to change, when it has any.
    pub(crate) fn get_mut(&mut self, id: OutId) -> Option<&mut Vec<OutRelocation>> {
        let k = self.find(id).ok()?;
        self.lists.get_mut(k).map(|(_, list)| list)
    }

    /// Makes `list` the entries of section `id`.
    pub(crate) fn set(&mut self, id: OutId, list: Vec<OutRelocation>) {
        match self.find(id) {
            Ok(k) => self.lists[k].1 = list,
            Err(_) if list.is_empty() => {}
            Err(k) => self.lists.insert(k, (id, list)),
        }
    }

    /// Takes the entries of section `id` out (each list is freed once its
    /// bytes are made).
    pub(crate) fn take(&mut self, id: OutId) -> Vec<OutRelocation> {
        self.get_mut(id).map(std::mem::take).unwrap_or_default()
    }
}

struct Context<'l, 'a> {
    inputs: &'l [InputObject<'a>],
    resolution: &'l Resolution<'a>,
    layout: &'l Layout,
    symbols: &'l SymbolTable,
    /// (patched section, relocation section patching it), by patched
    /// section then relocation section ([`Context::patched_by`]).
    patched_by: Vec<(u32, u32)>,
}

/// One section's bytes and the relocations kept per relocation section.
type SectionOutput<'a> = (Body<'a>, Vec<(OutId, Vec<OutRelocation>)>);

/// What an input symbol is in the output, for one relocation.
pub(crate) struct Resolved {
    pub(crate) state: SymbolState,
    pub(crate) home: SymbolHome,
    /// Offset in its output section (sections have no addresses, rule 6).
    pub(crate) value: u64,
    /// The constant bank number, for `bank << 16 | offset` values.
    pub(crate) bank: u64,
    /// Its output symbol index.
    pub(crate) index: Option<u32>,
    /// Rule 8.3: an undefined `__constant__` variable in `-r`, applied as -1.
    pub(crate) undefined_constant: bool,
    /// Rule 8.4: a weak `__constant__` definition a later link may replace.
    pub(crate) preemptible: bool,
}

/// [`keep::disposition`], plus rule 8.4: `-r` keeps, unapplied, a code
/// relocation against a *weak* constant-bank variable (a C++17 `inline
/// __constant__` array both files define: `c_helper`'s `R_CUDA_ABS16_32`
/// against `ctab_inl` stays in `.rela.text.c_helper`; sm_75, 86, 90, 100,
/// 120, both input orders, 15/15 `-r` links), as it keeps one against code
/// or global memory; executables resolve it.
pub(crate) fn disposition(query: &keep::Query, resolved: &Resolved) -> keep::Disposition {
    let rule = keep::disposition(query);
    match rule {
        keep::Disposition::Apply
            if resolved.preemptible
                && query.output == keep::OutputKind::Relocatable
                && descriptor(query.r_type).is_some_and(|d| matches!(d.action, Action::Write)) =>
        {
            keep::Disposition::Keep(query.r_type)
        }
        other => other,
    }
}

/// Resolves a relocation's symbol to its place in the output. One resolver
/// serves `.rela*` (symbols of `.symtab`) and `.nv.merc.rela*` (symbols of
/// `.nv.merc.symtab`, which mirrors `.symtab` entry for entry, rule 11.1): the
/// caller passes the table its relocations index.
pub(crate) struct SymbolResolver<'l, 'a> {
    pub(crate) inputs: &'l [InputObject<'a>],
    pub(crate) resolution: &'l Resolution<'a>,
    pub(crate) layout: &'l Layout,
    pub(crate) symbols: &'l SymbolTable,
}

impl<'a> SymbolResolver<'_, 'a> {
    pub(crate) fn resolve(
        &self,
        table: &dyn Fn(usize, usize) -> Option<Symbol<'a>>,
        input: usize,
        symbol: usize,
        patched: SymbolHome,
    ) -> Resolved {
        let here = SymbolRef { input, symbol };
        let sym = table(input, symbol);
        // Rule 5.7: an undefined local (`.nv.ptx.const0.size`) keeps its `-r`
        // symbol, but the relocations naming it go as before (nvlink lists
        // none of libcudadevrt's 24 against it).
        let undefined_local =
            sym.as_ref().is_some_and(|s| symbol != 0 && s.bind == STB_LOCAL && s.section_index().is_none());
        let index = if undefined_local {
            None
        } else {
            self.symbols.output_index(self.inputs, self.resolution, self.layout, here)
        };
        let unresolved = |home| Resolved {
            state: SymbolState::Live,
            home,
            value: 0,
            bank: 0,
            index,
            undefined_constant: false,
            preemptible: false,
        };
        // Rule 8.3: what an undefined variable is applied as: -1 in its bank.
        let undefined_constant = || Resolved {
            state: SymbolState::Live,
            home: SymbolHome::ConstantBank,
            value: u64::MAX,
            bank: 0,
            index,
            undefined_constant: true,
            preemptible: false,
        };
        let Some(sym) = sym else {
            return unresolved(SymbolHome::Undefined);
        };
        if undefined_local && matches!(sym.st_type, STT_OBJECT | STT_CUDA_OBJECT) {
            // Applied like an undefined `__constant__` (rule 8.3), in `-r`
            // and `-g` links alike, with the value rule 5.7 gives it
            // (`undefined_local_value`: the program's constant data size, or
            // -1 in libcudadevrt's `__cudaCDP2MemcpyAsync` and friends where
            // there is none; sm_75, sm_90, sm_100).
            return Resolved {
                value: undefined_local_value(self.inputs, self.layout, sym.name),
                ..undefined_constant()
            };
        }
        if matches!(sym.st_type, STT_CUDA_TEXTURE | STT_CUDA_SURFACE | STT_CUDA_SAMPLER) {
            return unresolved(SymbolHome::TextureSlot);
        }
        if TABLE_SYMBOLS.contains(&sym.name) {
            return unresolved(SymbolHome::TableOffset);
        }
        let Some(def) = self.resolution.definition_of(here) else {
            // U17: a `.common` global lives where the linker allocated it.
            if let Some(&(id, offset)) = self.resolution.global(here).and_then(|g| self.layout.common.get(&g)) {
                let name = self.layout.section(id).map_or("", |s| s.name.as_str());
                return Resolved {
                    state: SymbolState::Live,
                    home: SymbolHome::of_section(name),
                    value: offset,
                    bank: 0,
                    index,
                    undefined_constant: false,
                    preemptible: false,
                };
            }
            if sym.other & STO_CUDA_SPACE_MASK == STO_CUDA_SHARED {
                return unresolved(SymbolHome::SharedMemory);
            }
            // Rule 8.3: `-r` applies code relocations against an undefined
            // `__constant__` variable with the value -1 (the symbol's own
            // value, rule 5 / U16) and drops them (c: `cext`, `cdbl`, `cbig`;
            // tpl_a alone: `ctab_b`; sm_75, sm_90, sm_100). An executable
            // reports it undefined before this.
            if !self.layout.executable && sym.other & STO_CUDA_SPACE_MASK == STO_CUDA_CONSTANT {
                return undefined_constant();
            }
            return unresolved(SymbolHome::Undefined);
        };
        let Some(def_input) = self.inputs.get(def.input) else { return unresolved(SymbolHome::Undefined) };
        let Some(def_sym) = table(def.input, def.symbol) else { return unresolved(SymbolHome::Undefined) };
        let Some(section) = def_sym.section_index() else {
            return unresolved(SymbolHome::Undefined);
        };
        let home_of = |name: &str| SymbolHome::of_section(name);
        // A debug record of a definition that lost to another input's describes
        // code that is not in the output (rule 9), whether or not the winner
        // survives: `-kernels-used` removing the winner of a weak pair leaves
        // the loser's FDE range unclaimed (tpl: `tsum<int>`, sm_80 and sm_90;
        // rule 9.4, ptx `-kernels-used=ptx_tex_kernel`: `ptx_lib`'s range of
        // `ptx_weak_one`).
        // Only code: debug records of losing weak *data* (a vtable) keep
        // pointing at the winner (polyG `-r`: `_ZTV5Shape` in `.debug_info`).
        // A copy met *before* the winner was taken first and replaced (U9,
        // fewer registers): its records stay and point at the winner (wreg:
        // wreg_a's `wsum` FDE; wreg_b first drops wreg_a's as usual).
        // Rule 9.11: a copy met *after* another lost when met, and its records
        // go even when the final winner comes later still (fresh: `wsum<float>`
        // in fr_a, fr_b, fr_c, fr_c's winning with fewer registers: fr_b's FDE
        // relocation goes, fr_a's stays). Rule 9.13 for replaced copies:
        // `describes_replaced_code`.
        let describes_loser = matches!(patched, SymbolHome::Debug | SymbolHome::DebugLine)
            && sym.st_type == STT_FUNC
            && describes_replaced_code(self.inputs, self.resolution, here, def, patched == SymbolHome::DebugLine);
        let Some((id, base)) = self.layout.placed(def.input, section) else {
            let name = def_input.section(section).map_or("", |s| s.name);
            // Rule 6.1: a device function's bank 2 that no kernel reaches
            // (kept only as an address in data: `-variables-used=fx_table`,
            // `-kernels-used=ns1::kern`) is placed nowhere, but nvlink still
            // applies its relocations as if at offset 0 of bank 2 (fresh4
            // repro/unreached-bank: `c[0x2][0x0]`, where develf left
            // `c[0x0][0x0]`; sm_75..sm_89).
            if self.layout.merged_banks.contains(&(def.input, section)) && name.starts_with(".nv.constant2.") {
                return Resolved {
                    state: SymbolState::Live,
                    home: SymbolHome::ConstantBank,
                    value: def_sym.value,
                    bank: crate::layout::bank_number(name),
                    index,
                    undefined_constant: false,
                    preemptible: false,
                };
            }
            // Duplicates are recorded against `.symtab`'s sections (the merc
            // table's point at the `.nv.merc.*` copies).
            let main_section = def_input.symbol(def.symbol).and_then(|s| s.section_index());
            // Rule 9.13: a replaced copy (U9) with relocations of its own
            // whose winner is dead is a loser on sm_75..sm_89 too: its FDE
            // keeps its range (fresh2 tlib-repl `-variables-used=tl_counter`
            // and `-kernels-used=tl_kernel_c`, sm_75/sm_86: tl_b's
            // `tl_poly<double>` FDE keeps 0x480); a leaf's range is cleared
            // (tl_c's `tl_reduce<float>`, every arch).
            // Per name, not per copy (sweep2 p44 `-kernels-used=ka_d`, sm_75:
            // b.cu's leaf `stats_of`, replaced by c.cu's, after replacing a.cu's,
            // which has relocations, keeps its range too):
            // `replaced_with_relocations`.
            let replaced = matches!(patched, SymbolHome::Debug | SymbolHome::DebugLine)
                && sym.st_type == STT_FUNC
                && def != here
                && sym.section_index().is_some()
                && (def.input < here.input
                    || self.resolution.lost_when_met(here)
                    || replaced_with_relocations(self.inputs, self.resolution, here, def));
            let state = if describes_loser
                || replaced
                || main_section.is_some_and(|x| self.resolution.is_discarded(def.input, x))
            {
                SymbolState::DiscardedDuplicate
            } else {
                SymbolState::Dead
            };
            return Resolved {
                state,
                home: home_of(name),
                value: 0,
                bank: 0,
                index,
                undefined_constant: false,
                preemptible: false,
            };
        };
        let (home, bank) = self.layout.section_home(id);
        Resolved {
            state: if describes_loser { SymbolState::DiscardedDuplicate } else { SymbolState::Live },
            home,
            value: base.saturating_add(def_sym.value),
            bank,
            index,
            undefined_constant: false,
            preemptible: def_sym.bind == STB_WEAK && home == SymbolHome::ConstantBank,
        }
    }
}

impl<'a> Context<'_, 'a> {
    fn resolve(&self, input: usize, symbol: usize, patched: SymbolHome) -> Resolved {
        let resolver = SymbolResolver {
            inputs: self.inputs,
            resolution: self.resolution,
            layout: self.layout,
            symbols: self.symbols,
        };
        let inputs = self.inputs;
        resolver.resolve(&|i, s| inputs.get(i).and_then(|x| x.symbol(s)).copied(), input, symbol, patched)
    }

    /// Rule 12: the offset of a shared variable in its kernel's window
    /// (executables), or, for `extern __shared__` in `-r`, the
    /// `externsharedinstance` the relocation is rewritten to (rule 8.2).
    fn shared_value(&self, input: usize, symbol: usize, patched: OutId, resolved: &mut Resolved) -> u64 {
        let here = SymbolRef { input, symbol };
        if self.layout.executable {
            if let Some(value) = reserved_shared(self.inputs, self.resolution, self.layout, here) {
                return value;
            }
        }
        let key = self.resolution.definition_of(here).unwrap_or(here);
        let is_extern = crate::shared::refers_to_extern(self.inputs, self.resolution, here);
        let plan = &self.layout.shared;
        // Rule 12.3: only a kernel's own code is pointed at its
        // `externsharedinstance`; a device function keeps the extern symbol
        // (shm `-r`: `dev_sh`'s `dyn`, every architecture).
        if is_extern && !self.layout.executable {
            if let Some(&index) =
                plan.instance_of.get(&patched).and_then(|&slot| self.symbols.extern_instances.get(slot))
            {
                resolved.index = Some(index);
            }
        }
        // Rule 12.10: outside code (`.debug_info` of `-G` objects), the extern
        // symbol's own offset under `-g`, which defines it; otherwise it stays
        // undefined, -1 (shmG sm_90: 0x3a0 / 0x3ff with ptxas's addend 0x400).
        // An extern no kept code names (a relinked `-r` output's kernels name
        // their `externsharedinstance`s instead) is defined at 0, as in
        // `.symtab` (sweep8 p90/p91/p96 `G-r` relinked with `-g`, sm_75 to
        // sm_120: nvlink writes 0).
        // An extern no window places, in an executable: -1 as undefined,
        // but under `-g`, which defines it, its offset.
        let unplaced_extern = || {
            let name = self.inputs.get(key.input).and_then(|i| i.symbol(key.symbol)).map_or("", |s| s.name);
            if self.layout.debug { plan.extern_values.get(name).copied().unwrap_or(0) } else { u64::MAX }
        };
        let code = self.layout.section(patched).is_some_and(|s| crate::gc::is_code_section(&s.name));
        if is_extern && self.layout.executable && !code {
            return unplaced_extern();
        }
        match plan.offsets.get(&key) {
            Some(&v) => v,
            // A device function no kernel reaches (kept for its address in
            // data, rule 9.12) gets -1 in an executable, like an undefined
            // extern (fresh `-kernels-used`: `shared_mix`'s `dsm_i`/`dsm_f`),
            // but under `-g`, which defines the extern, its offset (fixture
            // `pux` `-g`: `pux_orphan`'s `pux_dyn` 0x10 after the common
            // area, sm_75..sm_100).
            None if is_extern => plan
                .extern_offset
                .get(&patched)
                .copied()
                .unwrap_or_else(|| if self.layout.executable { unplaced_extern() } else { 0 }),
            // A variable of a kernel that is gone (`-kernels-used`): -1, as
            // an undefined one (rule 12.10; a `-G` kernel's `bar` in
            // `.debug_info`: 0x3ff with ptxas's addend 0x400, sm_90 and
            // sm_120, session 5).
            None if resolved.state == SymbolState::Dead => u64::MAX,
            // A weak variable no kept code places in a window, named
            // outside code in an executable: -1 too. A weak function's
            // losing `-G` copy was the only user of its local static
            // `__shared__` (sweep29 p300 `mixG-a`: a.cu's `-G`
            // `warp_reduce_op<float, maximum>` loses to b.cu's `-O3` copy,
            // which has no `ts`; nvlink writes all ones at its `DW_OP_addr`,
            // sm_75; fixture `wsts-g`). Code keeps 0 (fixture `pun-pr-relink`:
            // the orphan `pun_orphan`'s variable), and so does a local one
            // (fixture `cgt` with `-variables-used`: `block_sum_int`'s
            // `warp_part`, 0 + ptxas's 0x400, sm_90).
            None if self.layout.executable && !code && self.is_weak(key) => u64::MAX,
            None => 0,
        }
    }

    /// Whether `key` is a weak symbol.
    fn is_weak(&self, key: SymbolRef) -> bool {
        self.inputs.get(key.input).and_then(|i| i.symbol(key.symbol)).is_some_and(|s| s.bind == STB_WEAK)
    }

    /// Rule 11.6: what a texture/surface operand in output section `patched`
    /// resolves to, as (offset, bank): in an executable its slot in the
    /// kernel's bank 0; in `-r`, offset 0 in bank 0x1c (`c[0x1c][0x0]`; sm_90
    /// `R_CUDA_CONST_FIELD21_38`, 3 fixture links and 3 extra runs; the
    /// sm_75..sm_89 `BINDLESSOFF14_40` field, an offset, keeps 0).
    fn texture_value(&self, input: usize, symbol: usize, patched: OutId) -> Option<(u64, u64)> {
        let sampler =
            self.inputs.get(input).and_then(|i| i.symbol(symbol)).is_some_and(|s| s.st_type == STT_CUDA_SAMPLER);
        if sampler {
            return None;
        }
        if !self.layout.executable {
            return Some((0, RELOCATABLE_TEXTURE_BANK));
        }
        let global = self.resolution.global(SymbolRef { input, symbol })?;
        let bank = self.layout.texture_banks.iter().find(|t| t.text == patched)?;
        bank.slots.iter().find(|s| s.global == global).map(|s| (s.offset, 0))
    }

    /// Rule 8.2 (`-preserve-relocs`): the `.nv.resolvedrela` entry of a
    /// relocation nvlink applied: value-writing types only (not
    /// `R_CUDA_UNUSED_CLEAR*`, the YIELD rewrites, texture/surface operands
    /// an executable resolves to header slots (`-r`'s bank-0x1c ones are
    /// listed), or `__UFT_OFFSET`-style table offsets: fptr and reloc
    /// `R_CUDA_ABS56_16_34`), the offset in the output section, the
    /// output symbol, the addend (0 for REL) plus, against a section symbol,
    /// where that input's section went (the `.debug_frame` CIE pointers).
    fn resolved_entry(
        &self,
        input: usize,
        r: &develf_parse::elf::Relocation,
        offset: u64,
        resolved: &Resolved,
        code: bool,
        site: (usize, usize),
    ) -> Option<OutRelocation> {
        let writes = descriptor(r.r_type).is_some_and(|d| d.action == Action::Write);
        let slot = resolved.home == SymbolHome::TextureSlot && self.layout.executable;
        let slot_or_table = slot || resolved.home == SymbolHome::TableOffset;
        if !writes || slot_or_table || resolved.state != SymbolState::Live {
            return None;
        }
        // An undefined local label (`-G` objects' `.rela.debug_loc` against
        // `$L__tmp177`, NOTYPE, SHN_UNDEF) is listed against the null symbol
        // (f6 coop sm_75 `-G`, `-preserve-relocs -g`: one entry, symbol 0).
        let undefined_label = || {
            self.inputs.get(input).and_then(|i| i.symbol(r.symbol as usize)).is_some_and(|s| {
                r.symbol != 0 && s.bind == STB_LOCAL && s.st_type == STT_NOTYPE && s.section_index().is_none()
            })
        };
        let symbol = match resolved.index {
            Some(index) => index,
            None if !self.layout.mercury && undefined_label() => 0,
            None => return None,
        };
        // Rule 8.2 on Mercury: only the shared-memory relocations are listed
        // (nw hist_kernel/pipeline_kernel and s1/s2 sm_100/sm_120: the
        // kernels' and device functions' block statics; no constants, code
        // or CIE pointers).
        // Not `.debug_info`'s (sm_100 `-G` objects: none listed).
        if self.layout.mercury && !(code && lists_shared(self.inputs, self.layout, input, r.symbol as usize)) {
            return None;
        }
        let input_symbol = self.inputs.get(input).and_then(|i| Some((i, i.symbol(r.symbol as usize)?)));
        // Rule 12.10: `-preserve-relocs` alone keeps an `extern __shared__`
        // symbol (with a common area) but lists none of the relocations of
        // code a kernel reaches (`.debug_info`'s, of `-G` objects, it does:
        // shmG sm_90); `-g` lists them (rule 12.4). Those of code no kernel
        // reaches it lists, as resolved against that symbol (sweep15 p174
        // `-preserve-relocs -kernels-used=callee_kernel`, sm_90: `dyn_dsum`
        // and `dyn_fill`, called only by an unselected kernel, so unwalked;
        // fixture `pux`'s `pux_orphan`, which only a pointer in data names).
        let extern_shared = input_symbol
            .is_some_and(|(i, s)| s.other & STO_CUDA_SPACE_MASK == STO_CUDA_SHARED && crate::shared::is_extern(i, s));
        let reached = || self.layout.shared.kernel_code.contains(&site);
        if self.layout.executable && extern_shared && !self.layout.debug && code && reached() {
            return None;
        }
        // U25: nor those against a device function's merged bank 2 (cd
        // sm_75/sm_86: no `.nv.resolvedrela.text._Z2fad`).
        let merged = input_symbol
            .and_then(|(_, s)| s.section_index())
            .is_some_and(|x| self.layout.merged_banks.contains(&(input, x)));
        if merged {
            return None;
        }
        let section_symbol = input_symbol.is_some_and(|(_, s)| s.st_type == STT_SECTION);
        let base = if section_symbol { resolved.value as i64 } else { 0 };
        let addend = r.addend.unwrap_or(0).wrapping_add(base);
        Some(OutRelocation { offset, r_type: r.r_type, symbol, addend })
    }

    /// Whether the definition input symbol `symbol` resolves to is in the output.
    fn winner_placed(&self, input: usize, symbol: usize) -> bool {
        winner_placed(self.inputs, self.resolution, self.layout, SymbolRef { input, symbol })
    }

    /// Where `symbol` of `input` is a function this input defines and
    /// another input's copy without debug information replaced: the size of
    /// the output code section holding the winner.
    fn replaced_code_size(&self, input: usize, symbol: usize) -> Option<u64> {
        let here = SymbolRef { input, symbol };
        let own = self.inputs.get(input)?.symbol(symbol)?;
        if own.st_type != STT_FUNC || own.section_index().is_none() {
            return None;
        }
        let def = self.resolution.definition_of(here).filter(|&d| d != here)?;
        // A winner with debug information of its own (`-G`) maps the
        // loser's offsets as they are (sweep26 p270, p273: `-G` copies in
        // every input, sm_100/sm_120, exec and `-r`).
        if self.inputs.get(def.input)?.cubin.sections().iter().any(|s| s.name == ".debug_info") {
            return None;
        }
        let section = self.inputs.get(def.input)?.symbol(def.symbol)?.section_index()?;
        let (id, _) = self.layout.placed(def.input, section)?;
        self.layout.section(id).map(|s| s.size)
    }

    /// Rule 9: the ranges of input section `section` holding weak data that
    /// lost to another input's copy (a vtable both files emit). The copy keeps
    /// its place; the relocations inside it are neither applied nor kept (poly:
    /// poly_b's `_ZTV5Shape`, exec and `-r`, every architecture).
    fn losing_data(&self, input: usize, section: usize) -> Vec<(u64, u64)> {
        losing_data(self.inputs, self.resolution, input, section)
    }

    /// The relocation sections that patch output section `id`, in section order.
    fn patched_by(&self, id: OutId) -> impl Iterator<Item = OutId> + '_ {
        let id = u32::try_from(id).unwrap_or(u32::MAX);
        let first = self.patched_by.partition_point(|&(t, _)| t < id);
        self.patched_by[first..].iter().take_while(move |&&(t, _)| t == id).map(|&(_, r)| r as OutId)
    }

    /// Bytes and kept relocations of one output section.
    fn section(&self, id: OutId) -> Result<SectionOutput<'a>, LinkError> {
        let Some(out) = self.layout.section(id) else { return Ok((Body::default(), Vec::new())) };
        if out.class == SectionClass::Relocation || out.pieces.is_empty() {
            return Ok((Body::default(), Vec::new()));
        }
        // The input pieces, borrowed: the relocations below record patches
        // over them and the writer assembles the bytes (crate::body).
        let mut data = Merged::new(0);
        let in_file = occupies_file(out.sh_type);
        if in_file {
            usize::try_from(out.size).map_err(|_| LinkError::TooLarge(out.name.to_string()))?;
            let mut pieces: Vec<(u64, PieceBytes<'a>)> = out
                .pieces
                .iter()
                .map(|p| {
                    let bytes = self.inputs.get(p.input).map_or(PieceBytes::Here(&[]), |i| i.piece_bytes(p.section));
                    (p.offset, bytes)
                })
                .collect();
            pieces.sort_by_key(|&(offset, _)| offset);
            data = Merged::with_pieces(out.size, pieces.len());
            // Pieces of a well-formed link overlap only where their bytes
            // agree (deduplicated constant data); a damaged input's may not
            // (the link fuzz target: two inputs' merc bank-2 copies both at
            // 0). The bytes placed first stay, so the output does not depend
            // on how the writer splits the section.
            let mut end = 0u64;
            for (offset, bytes) in pieces {
                let covered = end.saturating_sub(offset);
                if covered >= bytes.len() && bytes.len() > 0 {
                    continue;
                }
                let (offset, bytes) = (offset.saturating_add(covered), bytes.skip(covered));
                end = end.max(offset.saturating_add(bytes.len()));
                data.piece(offset, bytes);
            }
        }
        let patched_home = SymbolHome::of_section(&out.name);
        let mut kept_lists = Vec::new();
        // Rule 8.2: what `-preserve-relocs` lists in `.nv.resolvedrela.<target>`,
        // keyed by (input, input relocation section, entry) for its order.
        let resolved_into = self.layout.resolved_relocations.get(&id).copied();
        let code = crate::gc::is_code_section(&out.name);
        let mut resolved_list: Vec<((usize, usize, usize), OutRelocation)> = Vec::new();
        let executable = self.layout.executable;
        let output = if executable { keep::OutputKind::Executable } else { keep::OutputKind::Relocatable };
        for rel_id in self.patched_by(id) {
            let Some(rel) = self.layout.section(rel_id) else { continue };
            let mut kept = Vec::new();
            for piece in rel.pieces.iter().rev() {
                let Some(input) = self.inputs.get(piece.input) else { continue };
                let Some(rs) = input.cubin.relocation_section(piece.section) else { continue };
                let Some((_, base)) = self.layout.placed(piece.input, rs.target as usize) else { continue };
                let site = (piece.input, rs.target as usize);
                let losing = self.losing_data(piece.input, rs.target as usize);
                for r in rs.entries().rev() {
                    let r = &r;
                    let position = r.index;
                    if losing.iter().any(|&(from, to)| (from..to).contains(&r.offset)) {
                        continue;
                    }
                    let mut resolved = self.resolve(piece.input, r.symbol as usize, patched_home);
                    // Rule 9: `.debug_info` keeps a losing weak copy's records,
                    // pointing at the live winner (polyG: `_ZN5ShapeD1Ev`'s pc
                    // range in poly_b's `.debug_info`, exec `-g` and `-r`, sm_75
                    // and sm_90); `.debug_frame`, `.debug_line` and
                    // `.nv_debug_line_sass` drop them (tplli, weak, polyG).
                    // `.debug_loc` keeps them too (fresh4 `G.gr`, `mix.r`:
                    // fx_tab-G's 20 entries against its losing
                    // `fx_horner<double,5>`, sm_75..sm_90a `-r`, `-g`).
                    if resolved.state == SymbolState::DiscardedDuplicate
                        && (out.name == ".debug_info" || out.name == ".debug_loc")
                        && self.winner_placed(piece.input, r.symbol as usize)
                    {
                        resolved.state = SymbolState::Live;
                    }
                    let shared_value = (resolved.home == SymbolHome::SharedMemory)
                        .then(|| self.shared_value(piece.input, r.symbol as usize, id, &mut resolved));
                    // A gone kernel's shared variable is applied as -1
                    // (`shared_value`), where other dead symbols are not.
                    if resolved.state == SymbolState::Dead && shared_value == Some(u64::MAX) {
                        resolved.state = SymbolState::Live;
                    }
                    let texture = (resolved.home == SymbolHome::TextureSlot)
                        .then(|| self.texture_value(piece.input, r.symbol as usize, id))
                        .flatten();
                    if let Some((value, bank)) = texture {
                        resolved.value = value;
                        resolved.bank = bank;
                    }
                    let query = Query {
                        r_type: r.r_type,
                        output,
                        symbol: resolved.home,
                        state: resolved.state,
                        mercury: self.layout.mercury,
                    };
                    let offset = base.saturating_add(r.offset);
                    let fail = |message: String| LinkError::Relocation {
                        file: input.name.to_string(),
                        section: input.section_name(rs.section),
                        offset: r.offset,
                        message,
                    };
                    // Rule 8.1: a kept RELA entry against a section symbol
                    // adds where its input's piece went (merc `-r`:
                    // `.debug_info`'s DW_AT_stmt_list, `.debug_line + 0x184`).
                    let section_symbol = input.symbol(r.symbol as usize).is_some_and(|s| s.st_type == STT_SECTION);
                    let mut addend =
                        r.addend.map_or(0, |a| if section_symbol { a.wrapping_add(resolved.value as i64) } else { a });
                    // Rule 9.14 (Mercury): a kept record of a replaced copy
                    // (lost when met, or replaced later by fewer registers)
                    // points no further than the winner's end. nvlink moves
                    // the loser's offsets as if its code were finalised
                    // again (not modelled: checks/mwg_*.cu, `mwg_shared`'s
                    // -G records 0x20..0x260 and its end 0x300 become
                    // 0x10..0x1d0 and 0x1e0, the -O3 winner 0xd00 long; test
                    // mercury_vs_nvlink with checks/mwc_*.cu), then clamps
                    // them to the winner's size; only the clamp is done here
                    // (sweep31 p321 `shared_inline`: 0x300 -> 0x180; p320
                    // `tc_dot<8>`: 0x280..0x900 -> 0x280; sweep29 repro
                    // merc-weak-G-debugreloc `k_fill<int>`: 0x340, 0x400 ->
                    // 0x200; `-G` losers, `-O3` winners, sm_100 exec and
                    // `-r`). sm_90 keeps the loser's offsets.
                    if self.layout.mercury
                        && addend != 0
                        && resolved.state == SymbolState::Live
                        && (out.name == ".debug_info" || out.name == ".debug_loc")
                    {
                        if let Some(winner) = self.replaced_code_size(piece.input, r.symbol as usize) {
                            if u64::try_from(addend).is_ok_and(|a| a > winner) {
                                addend = i64::try_from(winner).unwrap_or(addend);
                            }
                        }
                    }
                    let keep_entry = |t: u32, kept: &mut Vec<OutRelocation>| {
                        if let Some(symbol) = resolved.index {
                            kept.push(OutRelocation { offset, r_type: t, symbol, addend });
                        }
                    };
                    let apply = |data: &mut Merged<'a>| -> Result<(), LinkError> {
                        if data.is_empty() {
                            return Ok(());
                        }
                        let Some(desc) = descriptor(r.r_type) else { return Ok(()) };
                        if resolved.home == SymbolHome::TextureSlot && texture.is_none() {
                            // A slot nvlink did not assign (device-function code,
                            // samplers): not modelled.
                            return Ok(());
                        }
                        let undefined_bank = match (shared_value, desc.value_part) {
                            (None, ValuePart::BankAddress(n)) if resolved.undefined_constant => Some(n),
                            _ => None,
                        };
                        let value = match (shared_value, desc.value_part) {
                            (Some(v), _) => v,
                            (None, ValuePart::BankAddress(n)) => resolved.value.saturating_add(resolved.bank << n),
                            (None, _) => resolved.value,
                        };
                        // Most relocations are planned here and written with
                        // the section (crate::body); a REL addend or an
                        // undefined constant's bank is read from the site.
                        if let (Some(a), None) = (r.addend, undefined_bank) {
                            let planned = develf_reloc::plan(r.r_type, data.site_len(offset), value, a, offset)
                                .map_err(|e| fail(e.to_string()))?;
                            if let Some(write) = planned {
                                data.field(offset, write);
                            }
                            return Ok(());
                        }
                        let (mut site, len) = data.site(offset).map_err(|e| LinkError::ReadCode {
                            what: format!("{} for a relocation in {}", input.name, input.section_name(rs.section)),
                            message: e.to_string(),
                        })?;
                        let site = &mut site[..len];
                        let value = match undefined_bank {
                            Some(n) => undefined_bank_address(r.r_type, n, site, self.layout.mercury),
                            None => value,
                        };
                        match r.addend {
                            Some(a) => develf_reloc::apply(r.r_type, site, value, a, offset),
                            None => develf_reloc::apply_rel(r.r_type, site, value, offset),
                        }
                        .map_err(|e| fail(e.to_string()))?;
                        data.patch(offset, site);
                        Ok(())
                    };
                    // Rule 8.2: the `.nv.resolvedrela` entry of this relocation, if any.
                    let listed =
                        |resolved: &Resolved| self.resolved_entry(piece.input, r, offset, resolved, code, site);
                    match disposition(&query, &resolved) {
                        Disposition::Apply => {
                            apply(&mut data)?;
                            if resolved_into.is_some() {
                                if let Some(entry) = listed(&resolved) {
                                    resolved_list.push(((piece.input, rs.section, position), entry));
                                }
                            }
                        }
                        Disposition::ApplyDead => {
                            if offset <= data.len() {
                                let planned = develf_reloc::plan_dead(r.r_type, data.site_len(offset))
                                    .map_err(|e| fail(e.to_string()))?;
                                if let Some(write) = planned {
                                    data.field(offset, write);
                                }
                            }
                        }
                        Disposition::Drop => {}
                        Disposition::Keep(t) => {
                            keep_entry(t, &mut kept);
                            // Rule 8.2: a relocation against an undefined local
                            // label stays unapplied, but `-preserve-relocs` lists
                            // it against the null symbol (`resolved_entry`).
                            if resolved.index.is_none() && resolved_into.is_some() && executable {
                                if let Some(entry) = listed(&resolved) {
                                    resolved_list.push(((piece.input, rs.section, position), entry));
                                }
                            }
                        }
                        Disposition::ApplyAndKeep(t) => {
                            apply(&mut data)?;
                            keep_entry(t, &mut kept);
                        }
                    }
                }
            }
            // Exact: the lists live until the output is written. An empty
            // list is no list (`build`): most sections keep nothing.
            if !kept.is_empty() {
                kept.shrink_to_fit();
                kept_lists.push((rel_id, kept));
            }
        }
        if let Some(resolved_id) = resolved_into {
            // Rule 8.2: rule 8.1's order over every input relocation section
            // of the target, `.rel` and `.rela` together, in section order.
            resolved_list.sort_by_key(|&(key, _)| std::cmp::Reverse(key));
            kept_lists.push((resolved_id, resolved_list.into_iter().map(|(_, r)| r).collect()));
        }
        data.shrink();
        let body = if in_file { Body::Merged(Box::new(data)) } else { Body::default() };
        Ok((body, kept_lists))
    }
}

/// Rule 8.3: the bank address an undefined `__constant__` variable stands for
/// in `-r`, for a type whose offset part is `n` bits: offset -1 (all ones: the
/// addend's carry stays in the offset, `ctab_b[i & 31]`'s +0x14 becomes
/// 0x13), in bank 0x1c on sm_75..sm_90 (rule 11.6's bank for what `-r`
/// cannot place; c: `R_CUDA_CONST_FIELD19_40`, `CONST_FIELD21_38`) and, on
/// Mercury targets, in the bank the input's field holds (ptxas's 3; c sm_100:
/// `CONST_FIELD21_38`, `CONST_FIELD22_37`).
fn undefined_bank_address(r_type: u32, n: u8, site: &[u8], mercury: bool) -> u64 {
    let offset = (1u64 << (n & 63)) - 1;
    let bank = if mercury {
        let shift = descriptor(r_type).map_or(0, |d| d.shift);
        develf_reloc::extract(r_type, site).map_or(0, |field| (field << shift) >> (n & 63))
    } else {
        RELOCATABLE_TEXTURE_BANK
    };
    (bank << n) | offset
}

/// Rule 8.2 on Mercury: whether a resolved relocation of code against input
/// symbol `symbol` is listed under `-preserve-relocs`: a shared variable
/// (not `.nv.reservedSmem.*`), an `extern __shared__` one only under `-g`
/// (rule 12.10: pipeline_kernel's `smem` is not listed).
pub(crate) fn lists_shared(inputs: &[InputObject<'_>], layout: &Layout, input: usize, symbol: usize) -> bool {
    let Some(i) = inputs.get(input) else { return false };
    let Some(s) = i.symbol(symbol) else { return false };
    s.other & STO_CUDA_SPACE_MASK == STO_CUDA_SHARED && (layout.debug || !crate::shared::is_extern(i, s))
}

/// The value of a variable of a reserved shared window (U27:
/// `.nv.shared.reserved.0`, laid out from `.nv.reservedSmem.offset0` on in
/// executables), or `None` for any other symbol. sm_100a `tcgen05` code
/// names `__nv_reservedSMEM_tcgen05_partition` there (sweep2 p54_hopper
/// `k_red`: its two `UMOV` immediates get 0x40, where ptxas's value is 1).
pub(crate) fn reserved_shared(
    inputs: &[InputObject<'_>],
    resolution: &Resolution<'_>,
    layout: &Layout,
    here: SymbolRef,
) -> Option<u64> {
    let def = resolution.definition_of(here).unwrap_or(here);
    let symbol = inputs.get(def.input)?.symbol(def.symbol)?;
    let (id, base) = layout.placed(def.input, symbol.section_index()?)?;
    layout.reserved_shared.contains_key(&id).then(|| {
        crate::layout::reserved_shared_value(
            layout,
            crate::symbols::SymbolSection::Section(id),
            base.saturating_add(symbol.value),
        )
    })
}

/// Whether the definition `here` resolves to is in the output.
pub(crate) fn winner_placed(
    inputs: &[InputObject<'_>],
    resolution: &Resolution<'_>,
    layout: &Layout,
    here: SymbolRef,
) -> bool {
    let Some(def) = resolution.definition_of(here) else { return false };
    let section = inputs.get(def.input).and_then(|i| i.symbol(def.symbol)).and_then(|s| s.section_index());
    section.is_some_and(|x| layout.placed(def.input, x).is_some())
}

/// Rule 9: the ranges of input section `section` holding weak data that lost
/// to another input's copy (see [`Context::losing_data`]).
pub(crate) fn losing_data(
    inputs: &[InputObject<'_>],
    resolution: &Resolution<'_>,
    input: usize,
    section: usize,
) -> Vec<(u64, u64)> {
    let Some(i) = inputs.get(input) else { return Vec::new() };
    i.weak_data()
        .filter(|s| s.section_index() == Some(section))
        .filter(|s| {
            let me = SymbolRef { input, symbol: s.index };
            resolution.definition_of(me).is_some_and(|d| d != me)
        })
        .map(|s| (s.value, s.value.saturating_add(s.size)))
        .collect()
}

pub(crate) fn build<'a>(
    inputs: &[InputObject<'a>],
    resolution: &Resolution<'a>,
    layout: &Layout,
    symbols: &SymbolTable,
) -> Result<Contents<'a>, LinkError> {
    // One pair per relocation section, not a list per section: a big link has
    // tens of thousands of sections, a third of them patched.
    let mut patched_by: Vec<(u32, u32)> = Vec::new();
    for (id, s) in layout.sections.iter().enumerate() {
        if s.sh_type == SHT_CUDA_RESOLVED_RELA || crate::mercury::is_resolved_relocation(s) {
            continue;
        }
        let target = s.target().filter(|&t| t < layout.sections.len());
        if let (SectionClass::Relocation, Some(t), Ok(rel)) = (s.class, target, u32::try_from(id)) {
            patched_by.push((u32::try_from(t).unwrap_or(u32::MAX), rel));
        }
    }
    patched_by.sort_unstable();
    layout.index_homes();
    let cx = Context { inputs, resolution, layout, symbols, patched_by };
    // The bodies straight into their list, the kept relocations (or the
    // section's error, boxed) beside them: the first error in section order
    // is the one reported, whatever the thread count.
    let (data, kept): (Vec<Body<'a>>, Vec<Result<_, Box<LinkError>>>) = (0..layout.sections.len())
        .into_par_iter()
        .map(|id| match cx.section(id) {
            Ok((body, kept)) => (body, Ok(kept)),
            Err(e) => (Body::default(), Err(Box::new(e))),
        })
        .unzip();
    let mut lists = Vec::new();
    for result in kept {
        let kept = result.map_err(|e| *e)?;
        lists.extend(kept.into_iter().filter(|&(rel_id, _)| rel_id < layout.sections.len()));
    }
    // One list per relocation section (each patches one target); should one
    // be given twice, the last wins. An empty list is no list.
    lists.sort_by_key(|&(rel_id, _)| rel_id);
    lists.dedup_by(|later, earlier| {
        let same = later.0 == earlier.0;
        if same {
            std::mem::swap(later, earlier);
        }
        same
    });
    lists.retain(|(_, list)| !list.is_empty());
    lists.shrink_to_fit();
    let mut relocations = RelocationLists { lists };
    // Rule 11.6: the linker-made slot relocations, highest slot first.
    for t in &layout.texture_banks {
        let mut list: Vec<OutRelocation> = t
            .slots
            .iter()
            .filter_map(|s| {
                let symbol = symbols.global_index.get(s.global).copied().flatten()?;
                Some(OutRelocation { offset: s.offset, r_type: s.r_type, symbol, addend: 0 })
            })
            .collect();
        list.sort_by_key(|r| std::cmp::Reverse(r.offset));
        if t.relocations < layout.sections.len() {
            relocations.set(t.relocations, list);
        }
    }
    Ok(Contents { data, relocations })
}

/// Rule 5.7: the value of an undefined local in a `-r` output, and what it
/// is applied as. The undefined locals of one name are one symbol across the
/// inputs (/tmp/g1 `cubx` `-G`, sm_80 and sm_100: cx_b's and cx_c's
/// `__isGlobal`/`__isConstant` get cx_a's value, in either input order, and
/// the `-r` output has one such symbol). For `.nv.ptx.const0.size`, through
/// which libcudadevrt's and `-G` code read the size of the program's
/// `__constant__` data, that is the size of the output's `.nv.constant3`
/// whenever there is some (0x80, 0xc0, 0xa0 in dynamic-parallelism links
/// with 128, 128 + 64 and 96 + 64 bytes of it, exec and `-r`, sm_75, sm_90,
/// sm_100; two `-G` objects with 0x40 and 0x60 of it: 0xa0, not the largest;
/// session 11). Otherwise the largest value any input gives it, or -1 where
/// all give 0 (libcudadevrt's objects in a program without constant data).
pub(crate) fn undefined_local_value(inputs: &[InputObject<'_>], layout: &Layout, name: &str) -> u64 {
    let constants = layout.find(".nv.constant3").and_then(|id| layout.section(id)).map_or(0, |s| s.size);
    if name == PTX_CONST0_SIZE && constants > 0 {
        return constants;
    }
    let values = inputs.iter().flat_map(|i| i.symbols().iter()).filter(|s| {
        s.name == name
            && s.bind == STB_LOCAL
            && s.section_index().is_none()
            && matches!(s.st_type, STT_OBJECT | STT_CUDA_OBJECT)
    });
    match values.map(|s| s.value).max().unwrap_or(0) {
        0 => u64::MAX,
        value => value,
    }
}

/// The undefined local through which libcudadevrt's and `-G` code read the
/// size of the program's `__constant__` data (rule 5.7).
const PTX_CONST0_SIZE: &str = ".nv.ptx.const0.size";

/// Whether debug records of the weak copy `here` (defined in its input,
/// resolved to `def`) describe code that is not the output's: a copy that
/// lost to an earlier input's, or, its winner coming later:
/// * Rule 9.11: a copy met *after* another lost when met, and its records go
///   even when the final winner comes later still (fresh: `wsum<float>` in
///   fr_a, fr_b, fr_c, fr_c's winning with fewer registers: fr_b's FDE
///   relocation goes, fr_a's stays).
/// * Rule 9.13: a copy taken first and replaced (U9, U13) keeps its records
///   in a debug table where the link's first relocation section patching
///   that table is a `.rel` one; where it is `.rela`, only while the copy has
///   no relocations of its own. The first such section is that of the first
///   input having one, in its section order: sm_75..sm_89 objects put the
///   FDE start addresses in a `.rel.debug_frame` ahead of their
///   `.rela.debug_frame`, and the line tables' in a `.rel.debug_line`, after
///   a `.rela.debug_line` only in a `-lineinfo` unit naming inlined
///   functions (the `.debug_str` base in its header); sm_90+ objects have
///   only `.rela` ones. So on sm_90: fresh2 `tlib-repl` (`tl_c tl_b tl_a`,
///   tl_a `-maxrregcount=24`) drops tl_b's `tl_poly<double>` FDE relocation
///   (it calls the dsqrt slow path) and keeps tl_c's leaf `tl_reduce<float>`
///   one (like wreg_a's `wsum`); a replaced copy that only reads a
///   `__device__` global goes too. On sm_75..sm_89 every replaced copy keeps
///   its FDE relocation (same links; sweep p36 `xsm`: sm_80 a.cu's
///   `Shape::scale`, replaced by sm_86 b.cu's, U13; fixture wic's
///   `wic_call<3>`, which calls through a pointer, replaced by a
///   `-maxrregcount=24` copy, U9; sm_75, sm_80, sm_86, exec and `-r`), and
///   its line-table relocation, kernel or device function (sweep p41: a.cu's
///   `-G` `report<float>` replaced by c.cu's plain copy, sm_80..sm_89 exec,
///   `-g`, `-r`; /work/sweep/red/gline; fresh5's `-G` kernel
///   `tk<unsigned>`), unless the first line table with relocations names
///   inlined functions: fresh2 tl-mix2 (`tl_a tl_b-li tl_c-G`: tl_b's
///   `tl_poly<float>` loses its line-table relocation, keeps its FDE one);
///   /work/sweep/red/gln, `gln_k-li gln_a-G gln_c`: gln_k's kernel
///   `gln_tk<float>` and gln_a's `gln_rep<float>` lose theirs, which
///   `gln_a-G gln_k-li gln_c` keeps, sm_86 exec and `-r`; gline `ai.li c.G`,
///   `ki.li kc.r24`, sm_80. A leaf keeps it everywhere (tl-mix3, `tl_c-li
///   tl_b tl_a-r24`: tl_c's `tl_reduce<float>`).
///   Per name, not per copy: where one copy taken and replaced has
///   relocations of its own, every replaced copy of the name loses its
///   records in such a table (`replaced_with_relocations`; sweep2
///   /work/sweep2/red/fderepl: `x.leaf y.rel z` and `x.rel y.leaf z`, each
///   copy replacing the one before, keep only z's FDE relocation on sm_90,
///   `x.leaf y.leaf z` keeps all three; on sm_80 the line-table relocations
///   of `x.leafIL y.callL z` and `x.callIL y.leafIL z` likewise; a copy that
///   lost when met counts for nothing: `x.leaf y.rel.0 z` keeps x's).
pub(crate) fn describes_replaced_code(
    inputs: &[InputObject<'_>],
    resolution: &Resolution<'_>,
    here: SymbolRef,
    def: SymbolRef,
    line_table: bool,
) -> bool {
    let Some(input) = inputs.get(here.input) else { return false };
    if input.symbol(here.symbol).and_then(|s| s.section_index()).is_none() {
        return false;
    }
    if def.input == here.input {
        return false;
    }
    if def.input < here.input || resolution.lost_when_met(here) {
        return true;
    }
    if !first_relocations_are_rela(inputs, if line_table { ".debug_line" } else { ".debug_frame" }) {
        return false;
    }
    replaced_with_relocations(inputs, resolution, here, def)
}

/// Rule 9.13: whether a copy of `here`'s name taken before the winner `def`
/// and replaced (the first definition, or a replacer met before `def`) has
/// relocation sections of its own. nvlink treats every replaced copy of the
/// name alike by this test.
pub(crate) fn replaced_with_relocations(
    inputs: &[InputObject<'_>],
    resolution: &Resolution<'_>,
    here: SymbolRef,
    def: SymbolRef,
) -> bool {
    let Some(global) = resolution.global(here) else { return false };
    let first = resolution.globals.get(global).and_then(|g| g.first_definition);
    // The replacers are few per link: a set, not a list per name.
    let replacers = resolution.replacers.iter().copied().filter(|&r| resolution.global(r) == Some(global));
    let has_own = |copy: SymbolRef| {
        let Some(object) = inputs.get(copy.input) else { return false };
        let Some(text) = object.symbol(copy.symbol).and_then(|s| s.section_index()) else { return false };
        object.cubin.relocation_sections().any(|rs| rs.target as usize == text)
    };
    first.into_iter().chain(replacers).filter(|&c| c != def && c.input < def.input).any(has_own)
}

/// Rule 9.13: whether the first relocation section patching a section named
/// `table`, in the first input having one (in its section order), is a
/// `.rela` one; true where no input has one.
fn first_relocations_are_rela(inputs: &[InputObject<'_>], table: &str) -> bool {
    inputs
        .iter()
        .find_map(|input| {
            input
                .cubin
                .relocation_sections()
                .find(|rs| input.section(rs.target as usize).is_some_and(|s| s.name == table))
        })
        .is_none_or(|rs| rs.rela)
}
