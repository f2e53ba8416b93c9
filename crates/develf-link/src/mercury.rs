//! Mercury targets (sm_100, sm_100a, sm_120): what nvlink's finaliser does to
//! the output after the normal link (docs/nvlink-layout.md rule 11, and the
//! merc parts of rules 1.1, 2, 3.1, 3.2, 3.5, 4.3, 5.4, 7.9 and 8).
//!
//! Inputs carry a second, parallel object: `.nv.merc.symtab` (index-aligned
//! with `.symtab`, minus the trailing `.nv.constant0.<fn>` section symbols),
//! `.nv.capmerc.text.<fn>` (the capsule: code for the finaliser), and
//! `.nv.merc.*` copies of the metadata, debug and data sections with their
//! own relocations (`.nv.merc.rela.*`, types `0x10000 + R_MERCURY_n`, against
//! `.nv.merc.symtab`). This module rebuilds that object for the output:
//!
//! * layout: which Mercury sections survive (dead code, weak losers), their
//!   `sh_link`/`sh_info`/`sh_entsize` (rule 2), their order inside class 20
//!   (rule 1.1) and the aliases that share bytes with a normal section (3.2);
//! * symbols: `.symtab` with the constant-bank section symbols after the
//!   globals (5.4), `.strtab` in symtab order (4.3), and `.nv.merc.symtab`
//!   mirroring `.symtab` entry for entry (rule 11, U3);
//! * relocations: `.nv.merc.rela.*` remapped and filtered like `.rela.*`
//!   (rule 8), applied to the merc debug sections but never to the capsule;
//!   FDE CIE pointers corrected (7.9);
//! * writing: `.shstrtab` in header order plus 36 zero bytes (4.3, U1), the
//!   capsule's leading `.text` section index.

use crate::body::Body;
use crate::error::LinkError;
use crate::input::InputObject;
use crate::layout::{InfoField, Keep, Layout, LogEntry, OutId, OutSection, SectionClass};
use crate::relocate::{Contents, OutRelocation, Resolved, SymbolResolver};
use crate::resolve::{Resolution, SymbolRef, is_kernel};
use crate::symbols::{OutSymbol, StringTable, SymbolSection, SymbolTable};
use develf_eiattr::Attribute;
use develf_eiattr::shape::ByteValue;
use develf_format::reloc::{
    R_CUDA_32, R_CUDA_SURF_HEADER_INDEX, R_CUDA_TEX_HEADER_INDEX, R_MERCURY_ABS16, R_MERCURY_ABS32,
    R_MERCURY_SURF_HEADER_INDEX, R_MERCURY_TEX_HEADER_INDEX,
};
use develf_format::section::{
    SHF_ALLOC, SHF_CUDA_MERCURY, SHT_CUDA_CAPMERC, SHT_CUDA_MERCURY_CALLGRAPH, SHT_CUDA_MERCURY_CONSTANT_IMGHDR,
    SHT_CUDA_MERCURY_INFO, SHT_CUDA_MERCURY_PROTOTYPE, SHT_CUDA_MERCURY_RELA, SHT_CUDA_MERCURY_RESOLVED_RELA,
    SHT_CUDA_MERCURY_SYMTAB, SHT_CUDA_PROTOTYPE,
};
use develf_format::symbol::{STB_GLOBAL, STB_LOCAL, STT_FUNC, STT_OBJECT, STT_SECTION};
use develf_format::symbol::{STO_CUDA_SHARED, STO_CUDA_SPACE_MASK};
use develf_parse::elf::{Section, Symbol, string_at};
use develf_reloc::keep::{self, Disposition, Query, SymbolHome, SymbolState};
use std::collections::HashMap;

/// Sections whose relocations keep input order on merc (rule 8.1).
static LINE_TABLES: &[&str] = &[".debug_line", ".nv_debug_line_sass"];
/// `STT_CUDA_OBJECT`.
const STT_CUDA_OBJECT: u8 = 13;
/// `SHF_INFO_LINK`.
const SHF_INFO_LINK: u64 = 0x40;
/// Rule 4.3 / U1: the merc `.shstrtab` ends in this many zero bytes (90/90 links).
pub(crate) const SHSTRTAB_PADDING: usize = 36;

/// Rule 1.1, class 20: the order of the Mercury sections in the header table,
/// by name prefix (first match wins); creation order within each.
static SUBRANKS: &[(&str, u8)] = &[
    (".nv.merc.symtab", 0),
    (".nv.merc.debug_", 1),
    (".nv.merc.nv_debug_", 1),
    (".nv.merc.nv.info.", 3),
    (".nv.merc.nv.info", 2),
    (".nv.merc.nv.callgraph", 4),
    (".nv.merc.nv.prototype", 5),
    (".nv.merc.rela", 6),
    // Rule 8.2: each right after its `.nv.merc.rela.text.<k>` (creation order).
    (".nv.merc.nv.resolvedrela", 6),
    (".nv.merc.nv.constant", 7),
    (".nv.capmerc.", 8),
    (".nv.merc.nv.global.init", 9),
    // sm_110's reserved shared section comes last (merc2 sm_110 `-r`, 3 and 6 inputs).
    (".nv.merc.nv.shared.reserved.", 10),
];

/// Rule 3.2: Mercury sections that take no file space of their own but share
/// the bytes of a normal section: (merc name or prefix, normal name or prefix).
static ALIASES: &[(&str, &str)] = &[
    (".nv.merc.nv.constant.user", ".nv.constant3"),
    (".nv.merc.nv.global.init", ".nv.global.init"),
    (".nv.merc.nv_debug_ptx_txt", ".nv_debug_ptx_txt"),
    // U21: `-lineinfo` objects' `.nv.merc.debug_str` (two.cu, sm_100/sm_120).
    (".nv.merc.debug_str", ".debug_str"),
    // `-G` objects: ptxas already aliases these three onto the normal copies
    // (every sm_100/sm_120 `-G` object of merc2, 12/12), and nvlink keeps
    // them aliased, exec and `-r`: the output's bytes are the normal
    // section's (`.nv.merc.debug_info`'s DW_AT_stmt_list holds the
    // `.debug_line` offset, 0x184, not the merc one, 0x1c4), which is what
    // made develf's merc2 `-G` outputs 0x4340 bytes longer (sm_100, sm_120).
    (".nv.merc.debug_abbrev", ".debug_abbrev"),
    (".nv.merc.debug_loc", ".debug_loc"),
    (".nv.merc.debug_info", ".debug_info"),
    // f10: `-G` PTX for sm_75 compiled by ptxas for a Mercury target has a
    // one-byte `.debug_macinfo`, aliased the same way in the object and in
    // nvlink's output (sm_100, sm_110, sm_120; exec, `-g` and `-r`).
    (".nv.merc.debug_macinfo", ".debug_macinfo"),
];

/// Rule 2: the `sh_link` of Mercury sections, by type.
#[derive(Clone, Copy, PartialEq, Eq)]
enum MercLink {
    StrTab,
    MercSymTab,
}

static LINKS: &[(u32, MercLink, u64)] = &[
    (SHT_CUDA_MERCURY_SYMTAB, MercLink::StrTab, 24),
    (SHT_CUDA_MERCURY_INFO, MercLink::MercSymTab, 0),
    (SHT_CUDA_MERCURY_CALLGRAPH, MercLink::MercSymTab, 8),
    (SHT_CUDA_MERCURY_PROTOTYPE, MercLink::MercSymTab, 8),
    (SHT_CUDA_MERCURY_RELA, MercLink::MercSymTab, 24),
    (SHT_CUDA_MERCURY_RESOLVED_RELA, MercLink::MercSymTab, 24),
    (SHT_CUDA_CAPMERC, MercLink::MercSymTab, 0),
];

/// The position of a section inside its class (0 outside class 20).
pub(crate) fn subrank(s: &OutSection) -> u8 {
    if s.class != SectionClass::Mercury {
        return 0;
    }
    SUBRANKS.iter().find(|(p, _)| s.name.starts_with(p)).map_or(7, |&(_, r)| r)
}

/// ptxas's reserved shared sections (`.nv.shared.reserved.0`), NOBITS in
/// an executable like the kernels' windows but with merc copies of their own.
const RESERVED_SHARED_PREFIX: &str = ".nv.shared.reserved.";

/// The header-order key of a section inside its class: [`subrank`], then,
/// for `.nv.merc.nv.info.<fn>`, the creation order of the `.nv.info.<fn>` it
/// copies (rule 11.1: the two lists are in the same order, 90/90 links);
/// 0 otherwise (creation order).
pub(crate) fn order_key(inputs: &[InputObject<'_>], layout: &Layout, s: &OutSection) -> (u8, usize) {
    // Rule 11.5: a slotted `.nv.constant0.<k>` acts as if created last: after
    // every other section of its class (ptx: after `.nv.constant3`, 3/3 links).
    if slotted_bank(layout, s).is_some() {
        return (0, usize::MAX);
    }
    // A kernel's trailing `.nv.constant0.<k>` (rule 1.1 class 19) follows
    // its `.text.<k>`: the input order where an input's banks are not in its
    // code's order (libcudadevrt's 32 `memcpy_3d_device`/`memset_3d_device`
    // kernels, whose `.text` nvlink -r reverses: dp `-lcudadevrt -r`, sm_100).
    if s.class == SectionClass::MercuryConstant0 {
        if let InfoField::Section(text) = s.info {
            return (0, text);
        }
    }
    let rank = subrank(s);
    // A capsule follows its `.text.<fn>`, whose creation order is the
    // function symbols' (shm sm_100/sm_120: shm_b's helper
    // `__cuda_sm20_rem_u16` before `ksb_only_dyn`, unlike their input sections).
    let normal = s
        .name
        .strip_prefix(".nv.merc.nv.info.")
        .filter(|_| s.class == SectionClass::Mercury)
        .and_then(|f| {
            let name = format!(".nv.info.{f}");
            // Rule 1.4: a same-named static function's info describes its own `.text`.
            let own = own_text(inputs, layout, s, f).and_then(|text| {
                let describes = |x: &OutSection| x.name == name && matches!(x.info, InfoField::Section(t) if t == text);
                // Usually the one section of the name (found without a scan:
                // a big link has tens of thousands of these).
                match layout.find(&name) {
                    Some(first) if layout.section(first).is_some_and(describes) => Some(first),
                    _ => layout.sections.iter().position(describes),
                }
            });
            own.or_else(|| layout.find(&name))
        })
        .or_else(|| {
            s.name
                .strip_prefix(".nv.capmerc.text.")
                .filter(|_| s.class == SectionClass::Mercury)
                .and_then(|f| own_text(inputs, layout, s, f).or_else(|| layout.find(&format!(".text.{f}"))))
        })
        .or_else(|| {
            // The merc constant banks follow the banks they copy: a relinked
            // `-r` output's `.nv.constant2.<f>` comes before its
            // `.nv.constant3`, and so does `.nv.merc.nv.constant.optimizer.<f>`
            // before `.nv.merc.nv.constant.user` (sweep6 cluster B, sm_100 and
            // sm_120 `r-relink-r`), where the input had them the other way.
            // In an executable too (sweep9 p20 `r-relink`, sm_120: a kernel's
            // optimizer bank before the user bank), where the header-index
            // banks rule 11.5 creates come after both (fixture ptx).
            if s.class != SectionClass::Mercury {
                return None;
            }
            if layout.executable && s.name.starts_with(HEADER_INDICES) {
                return Some(usize::MAX);
            }
            match s.name.strip_prefix(crate::layout::MERC_OPTIMIZER_PREFIX) {
                Some(f) => layout.find(&format!(".nv.constant2.{f}")),
                None if s.name == ".nv.merc.nv.constant.user" => layout.find(".nv.constant3"),
                None => None,
            }
        });
    (rank, normal.unwrap_or(0))
}

/// Rule 1.4: the `.text.<f>` of the input a merc section `s` came from (two
/// inputs' static functions may share the name).
fn own_text(inputs: &[InputObject<'_>], layout: &Layout, s: &OutSection, function: &str) -> Option<OutId> {
    let piece = s.pieces.first()?;
    // Exactly: a merc info names its capsule (sh_info), a capsule its
    // function symbol (low 24 bits of sh_info), whose section is the `.text`.
    // Needed where one input holds two same-named static functions (an nvlink
    // `-r` output of two `-G` objects each with `__iAtomicAdd`: the second
    // capsule comes after red's other capsules, not after the first; merc2
    // relinked `-r`, sm_100/sm_120).
    if let Some(input) = inputs.get(piece.input) {
        let mut section = input.section(piece.section);
        if section.is_some_and(|x| x.sh_type == SHT_CUDA_MERCURY_INFO) {
            section = section.and_then(|x| input.section(x.info as usize));
        }
        let text = section
            .filter(|x| x.sh_type == SHT_CUDA_CAPMERC)
            .and_then(|x| input.symbol((x.info & 0x00ff_ffff) as usize))
            .and_then(|y| y.section_index())
            .and_then(|x| layout.placed(piece.input, x))
            .map(|(o, _)| o)
            .filter(|&o| layout.section(o).is_some_and(|x| x.name == format!(".text.{function}")));
        if text.is_some() {
            return text;
        }
    }
    let name = format!(".text.{function}");
    // Usually the one section of the name, holding this input's code.
    if let Some(first) = layout.find(&name) {
        if layout.section(first).is_some_and(|x| x.pieces.iter().any(|p| p.input == piece.input)) {
            return Some(first);
        }
    }
    layout
        .placement
        .get(piece.input)?
        .iter()
        .flatten()
        .map(|&(o, _)| o as OutId)
        .find(|&o| layout.section(o).is_some_and(|x| x.name == name))
}

/// A `.nv.merc.rela.*` section (kept only with entries, like `.rela.*`).
pub(crate) fn is_relocation(s: &OutSection) -> bool {
    s.class == SectionClass::Mercury && s.sh_type == SHT_CUDA_MERCURY_RELA
}

/// A `.nv.merc.nv.resolvedrela.*` section (rule 8.2; kept only with entries).
pub(crate) fn is_resolved_relocation(s: &OutSection) -> bool {
    s.class == SectionClass::Mercury && s.sh_type == SHT_CUDA_MERCURY_RESOLVED_RELA
}

/// The normal section whose bytes a merc alias shares (rule 3.2).
pub(crate) fn alias_target(s: &OutSection) -> Option<String> {
    if s.class != SectionClass::Mercury {
        return None;
    }
    // An empty merc debug copy points at its (equally empty) normal section
    // (data-only object on sm_100: `.nv.merc.debug_frame` at `.debug_frame`'s
    // offset, exec and `-r`; a function-less `-G` object, gnof-G:
    // `.nv.merc.nv_debug_info_reg_sass` and `_reg_type` at theirs, sm_100,
    // sm_100a, sm_120, exec, `-g` and `-r`).
    if s.size == 0 {
        for (merc, normal) in [(".nv.merc.debug_", ".debug_"), (".nv.merc.nv_debug_", ".nv_debug_")] {
            if let Some(rest) = s.name.strip_prefix(merc) {
                return Some(format!("{normal}{rest}"));
            }
        }
    }
    ALIASES.iter().find_map(|(merc, normal)| s.name.strip_prefix(merc).map(|rest| format!("{normal}{rest}")))
}

/// Rule 3.2: a merc debug copy that every input contributing to it had
/// aliased onto its normal twin (ptxas writes some `-G` objects'
/// `.nv.merc.nv_debug_info_reg_type` at `.nv_debug_info_reg_type`'s offset:
/// sweep p33's a.cu, not p31's or p41's) stays aliased: the normal name.
/// Sweep p33 `-G` links (a.cu `-G` with plain b.cu and c.cu, whichever input
/// comes first; sm_100 and sm_120, exec, `-g`, `-r`, `-r -g` and the relinks).
pub(crate) fn aliased_in_inputs(inputs: &[InputObject<'_>], layout: &Layout, s: &OutSection) -> Option<String> {
    if s.class != SectionClass::Mercury || s.pieces.is_empty() {
        return None;
    }
    let normal = [(".nv.merc.debug_", ".debug_"), (".nv.merc.nv_debug_", ".nv_debug_")]
        .iter()
        .find_map(|(merc, normal)| s.name.strip_prefix(merc).map(|rest| format!("{normal}{rest}")))?;
    let twin = layout.find(&normal).and_then(|id| layout.section(id))?;
    let aliased = |p: &crate::layout::Piece| {
        let Some(input) = inputs.get(p.input) else { return false };
        let Some(copy) = input.section(p.section) else { return false };
        input.sections().iter().any(|x| {
            x.name == normal
                && x.offset == copy.offset
                && x.size == copy.size
                && twin.pieces.iter().any(|t| t.input == p.input && t.section == x.index && t.offset == p.offset)
        })
    };
    (twin.size == s.size && twin.pieces.len() == s.pieces.len() && s.pieces.iter().all(aliased)).then_some(normal)
}

/// Whether Mercury section `s` of input `input` belongs in the output: a
/// capsule only when the function it codes survived (rule 9: dead functions
/// and losing weak copies take their capsule with them); a section attached
/// to another (`SHF_INFO_LINK`) only when that one is carried.
pub(crate) fn carried(
    inputs: &[InputObject<'_>],
    resolution: &Resolution<'_>,
    layout: &Layout,
    input: usize,
    s: &Section<'_>,
) -> bool {
    carried_depth(inputs, resolution, layout, input, s, 0)
}

fn carried_depth(
    inputs: &[InputObject<'_>],
    resolution: &Resolution<'_>,
    layout: &Layout,
    input: usize,
    s: &Section<'_>,
    depth: usize,
) -> bool {
    let Some(object) = inputs.get(input) else { return false };
    if s.sh_type == SHT_CUDA_CAPMERC {
        let me = SymbolRef { input, symbol: (s.info & 0x00ff_ffff) as usize };
        if resolution.definition_of(me) != Some(me) {
            return false;
        }
        return object
            .symbol(me.symbol)
            .and_then(|f| f.section_index())
            .is_some_and(|t| layout.placed(input, t).is_some());
    }
    if s.flags & SHF_INFO_LINK == 0 && s.sh_type != SHT_CUDA_MERCURY_RELA {
        return true;
    }
    let target = s.info as usize;
    if layout.placed(input, target).is_some() {
        return true;
    }
    match object.section(target) {
        Some(t) if depth < 2 && SectionClass::of_input(t.name, t.sh_type) == Some(SectionClass::Mercury) => {
            carried_depth(inputs, resolution, layout, input, t, depth + 1)
        }
        _ => false,
    }
}

/// The order Mercury sections of one input are placed in: capsules, then
/// the other sections, then relocations, so that a section attached to
/// another finds its output section; the header order inside class 20 comes
/// from [`subrank`] and, within a kind, this order.
pub(crate) fn placement_order<'l, 'a>(input: &'l InputObject<'a>) -> impl Iterator<Item = &'l Section<'a>> + 'l {
    let step = |s: &Section<'_>| match s.sh_type {
        SHT_CUDA_CAPMERC => 0,
        SHT_CUDA_MERCURY_RELA => 2,
        _ => 1,
    };
    (0..3).flat_map(move |k| input.sections().iter().filter(move |s| step(s) == k))
}

/// Rule 2 for a Mercury section just placed as output section `id`.
pub(crate) fn attach(layout: &mut Layout, input: usize, s: &Section<'_>, id: OutId) {
    let target = layout.placed(input, s.info as usize).map(|(t, _)| t);
    let Some(out) = layout.sections.get_mut(id) else { return };
    if let Some(&(_, _, entsize)) = LINKS.iter().find(|(t, _, _)| *t == s.sh_type) {
        out.entsize = entsize;
    }
    if s.sh_type == SHT_CUDA_CAPMERC {
        out.info =
            InfoField::function(SymbolRef { input, symbol: (s.info & 0x00ff_ffff) as usize }, s.info & 0xff00_0000);
    } else if s.sh_type == SHT_CUDA_MERCURY_PROTOTYPE
        || (s.sh_type == SHT_CUDA_MERCURY_INFO && s.flags & SHF_INFO_LINK == 0)
    {
        // Like `.nv.prototype` and `.nv.info` (rule 9.3): only when some
        // entry survives.
        out.keep = Keep::IfNotEmpty;
    } else if s.sh_type == SHT_CUDA_MERCURY_INFO && s.flags & SHF_INFO_LINK == 0 {
        // Like `.nv.info` (rule 7.1): dropped when no record is left
        // (`-variables-used` on vars sm_100).
        out.keep = Keep::IfNotEmpty;
    } else if s.sh_type == SHT_CUDA_MERCURY_RELA {
        out.set_target(target);
        out.keep = Keep::IfNotEmpty;
        if let Some(t) = target {
            out.info = InfoField::Section(t);
        }
    } else if s.flags & SHF_INFO_LINK != 0 {
        if let Some(t) = target {
            out.info = InfoField::Section(t);
        }
    }
}

/// Per input: its `.nv.merc.symtab`, if any.
fn merc_symbols<'a>(inputs: &[InputObject<'a>]) -> Vec<Vec<Symbol<'a>>> {
    inputs.iter().map(|i| i.cubin.mercury_symtab().map(|t| t.symbols).unwrap_or_default()).collect()
}

/// The Mercury symbol table of the output (rule 11, U3).
#[derive(Debug, Default)]
pub(crate) struct MercTable {
    pub symbols: Vec<OutSymbol>,
    /// `sh_info`: one past the last local.
    pub first_global: u32,
}

/// What produced each output symbol.
#[derive(Clone, Copy)]
enum Source {
    Null,
    Section(OutId),
    Local(SymbolRef),
    Global(SymbolRef),
}

fn is_constant0(layout: &Layout, s: &OutSymbol) -> bool {
    match s.section {
        SymbolSection::Section(id) => layout.section(id).is_some_and(|o| o.class == SectionClass::MercuryConstant0),
        SymbolSection::Raw(_) => false,
    }
}

/// Rules 4.3, 5.3 (merc), 5.4 and 11: rewrites the finished `.symtab` the way
/// nvlink's finaliser does and builds `.nv.merc.symtab` beside it.
pub(crate) fn finish_symbols(
    inputs: &[InputObject<'_>],
    resolution: &Resolution<'_>,
    layout: &Layout,
    table: &mut SymbolTable,
) {
    let merc = merc_symbols(inputs);
    let count = table.symbols.len();
    let mut source = vec![Source::Null; count];
    for (id, slot) in table.section_symbol.iter().enumerate() {
        if let Some(s) = slot.and_then(|i| source.get_mut(i as usize)) {
            *s = Source::Section(id);
        }
    }
    for (r, &i) in &table.local_index {
        if let Some(s) = source.get_mut(i as usize) {
            *s = Source::Local(*r);
        }
    }
    for (g, slot) in table.global_index.iter().enumerate() {
        let Some(global) = resolution.globals.get(g) else { continue };
        if let Some(s) = slot.and_then(|i| source.get_mut(i as usize)) {
            *s = Source::Global(global.definition.unwrap_or(global.first));
        }
    }

    // Rule 5.4: the constant-bank section symbols (and locals in them) after the globals.
    // Rule 5.2 (merc): every local before the first global. The only
    // locals placed among the globals are `-g`'s weak template statics kept
    // in a kernel's window (rule 12.10, U27: sm_90 puts `bitonic<T>`'s `s`
    // at its resolution place); the finaliser moves them, in their order,
    // to the end of the locals, right after `.nv.prototype`'s section
    // symbol (merc2 `-G` `-g`, sm_100/sm_120: 5 symbols).
    let (mut front, mut globals, mut back): (Vec<usize>, Vec<usize>, Vec<usize>) = (Vec::new(), Vec::new(), Vec::new());
    for (i, s) in table.symbols.iter().enumerate() {
        if i > 0 && s.bind == STB_LOCAL && is_constant0(layout, s) {
            back.push(i)
        } else if i == 0 || s.bind == STB_LOCAL {
            front.push(i)
        } else {
            globals.push(i)
        }
    }
    front.extend(globals);
    // In header order (crate::mercury::order_key: their kernels' `.text` order).
    back.sort_by_key(|&i| match table.symbols.get(i).map(|s| s.section) {
        Some(SymbolSection::Section(id)) => match layout.section(id).map(|o| o.info) {
            Some(InfoField::Section(text)) => text,
            _ => id,
        },
        _ => 0,
    });
    let mirrored = front.len();
    front.extend(back);
    let mut new_index = vec![0u32; count];
    for (new, &old) in front.iter().enumerate() {
        if let Some(slot) = new_index.get_mut(old) {
            *slot = u32::try_from(new).unwrap_or(u32::MAX);
        }
    }
    let old_names: Vec<String> =
        table.symbols.iter().map(|s| string_at(&table.strtab.bytes, s.name).unwrap_or_default().to_string()).collect();
    let mut symbols: Vec<OutSymbol> = front.iter().filter_map(|&i| table.symbols.get(i).cloned()).collect();
    let sources: Vec<Source> = front.iter().map(|&i| source.get(i).copied().unwrap_or(Source::Null)).collect();
    let names: Vec<&str> = front.iter().map(|&i| old_names.get(i).map_or("", String::as_str)).collect();
    let remap = |i: &mut u32| *i = new_index.get(*i as usize).copied().unwrap_or(*i);
    table.section_symbol.iter_mut().flatten().for_each(remap);
    table.global_index.iter_mut().flatten().for_each(remap);
    table.local_index.values_mut().for_each(remap);
    table.extern_instances.iter_mut().for_each(remap);

    // Rule 5.3 (merc): undefined weak objects become global CUDA objects.
    for s in &mut symbols {
        if s.section == SymbolSection::Raw(0) && s.st_type == STT_OBJECT {
            s.st_type = STT_CUDA_OBJECT;
            s.bind = STB_GLOBAL;
        }
    }

    // The merc counterpart of each section symbol: the section the same entry
    // of an input's `.nv.merc.symtab` names.
    let mut counterpart: HashMap<OutId, (OutId, String)> = HashMap::new();
    for input in inputs {
        let Some(list) = merc.get(input.index) else { continue };
        for m in list.iter().filter(|m| m.st_type == STT_SECTION) {
            let Some(main) = input.symbol(m.index).filter(|s| s.st_type == STT_SECTION) else { continue };
            // U25: a device function's merged bank names no kernel's.
            if main.section_index().is_some_and(|x| layout.merged_banks.contains(&(input.index, x))) {
                continue;
            }
            let out_main = main.section_index().and_then(|x| layout.placed(input.index, x)).map(|(o, _)| o);
            let out_merc = m.section_index().and_then(|x| layout.placed(input.index, x)).map(|(o, _)| o);
            if let (Some(a), Some(b)) = (out_main, out_merc) {
                counterpart.entry(a).or_insert((b, m.name.to_string()));
            }
        }
    }

    // `.nv.merc.symtab`: one entry per `.symtab` entry before the constant banks.
    let mut merc_out: Vec<(OutSymbol, String)> = Vec::with_capacity(mirrored);
    for (k, (s, src)) in symbols.iter().zip(&sources).enumerate().take(mirrored) {
        let name = names.get(k).copied().unwrap_or("").to_string();
        let entry = match *src {
            // The null symbol, and symbols nvlink makes (`externsharedinstance`, rule 12.3).
            Source::Null => (s.clone(), name),
            Source::Section(id) => {
                // Sections nvlink generates (`.nv.callgraph`, `.nv.prototype`)
                // have no input symbol to follow: their copy is `.nv.merc<name>`.
                let by_name = || {
                    let main = layout.section(id)?;
                    // Rule 11.5: a slotted bank's counterpart is its header-index table.
                    if let Some(table) = slotted_bank(layout, main).and_then(|t| t.header_indices).map(|(t, _)| t) {
                        let name = layout.section(table)?.name.strip_prefix(".nv.merc")?.to_string();
                        return Some((table, name));
                    }
                    // U25: a kernel bank 2 nvlink made for a device
                    // function's jump table mirrors to its merc copy.
                    if let Some(k) = main.name.strip_prefix(".nv.constant2.") {
                        if let Some(b) = layout.find(&format!(".nv.merc.nv.constant.optimizer.{k}")) {
                            return Some((b, format!(".nv.constant.optimizer.{k}")));
                        }
                    }
                    let b = layout.find(&format!(".nv.merc{}", main.name))?;
                    Some((b, main.name.to_string()))
                };
                match counterpart.get(&id).cloned().or_else(by_name) {
                    Some((b, merc_name)) => (OutSymbol { section: SymbolSection::Section(b), ..s.clone() }, merc_name),
                    None => (s.clone(), name),
                }
            }
            Source::Local(r) | Source::Global(r) => match merc.get(r.input).and_then(|l| l.get(r.symbol)) {
                // U17: a `.common` global: where `.symtab` has it.
                Some(m) if m.raw_shndx == develf_format::symbol::SHN_COMMON => {
                    (OutSymbol { st_type: m.st_type, other: m.other, ..s.clone() }, name)
                }
                Some(m) => {
                    let placed = m.section_index().and_then(|x| layout.placed(r.input, x));
                    let section = match placed {
                        Some((id, _)) => SymbolSection::Section(id),
                        // `-r` extern shared memory: defined where `.symtab` has it (rule 12.3).
                        None if m.section_index().is_none() && matches!(s.section, SymbolSection::Section(_)) => {
                            s.section
                        }
                        None => SymbolSection::Raw(m.raw_shndx),
                    };
                    let mut st_type = m.st_type;
                    let mut bind = s.bind;
                    if placed.is_none() && m.raw_shndx == 0 && st_type == STT_OBJECT {
                        st_type = STT_CUDA_OBJECT;
                        // An undefined *local* (rule 5.7, `-r`) stays local,
                        // as in `.symtab`: libcudadevrt's
                        // `.nv.ptx.const0.size` (dp `-lcudadevrt -r`, sm_100).
                        if s.bind != STB_LOCAL {
                            bind = STB_GLOBAL;
                        }
                    }
                    // Rule 12.3: `-r` shared variables keep their input
                    // value; U16: an undefined variable is -1 as in `.symtab`.
                    // Rule 5.7: an undefined local object has `.symtab`'s
                    // merged value (/tmp/g1 `cubx` `-G` sm_100 `-r`: 0x10,
                    // where cx_a's merc copy has 0).
                    let undefined_local =
                        placed.is_none() && m.raw_shndx == 0 && st_type == STT_CUDA_OBJECT && bind == STB_LOCAL;
                    let value =
                        if placed.is_none() && s.value == u64::MAX || undefined_local { s.value } else { m.value }
                            .saturating_add(
                                placed
                                    .filter(|&(id, _)| !crate::symbols::keeps_shared_value(layout, id))
                                    .map_or(0, |(_, b)| b),
                            );
                    let sym = OutSymbol {
                        name: s.name,
                        bind,
                        st_type,
                        other: m.other,
                        section,
                        value: crate::layout::reserved_shared_value(layout, section, value),
                        size: m.size,
                    };
                    // Rule 11.9: under `-g` an executable's shared variables
                    // are where `.symtab` has them, less the reserved area
                    // (shared `tile`, `dyn`: 0x400 → 0; cub `block_sum`'s `t`
                    // 0x8a0 → 0x4a0, in its kernel's `.nv.shared.<k>` as in
                    // `.symtab`, not the input's `.nv_debug.shared`); a `-r`
                    // output's extern ones have `.symtab`'s value (shared
                    // `dyn`: 0; a `cuda::barrier` kernel's `smem` after its
                    // static 0x10 bytes: 0x10, sm_100..sm_121 `-g -r`).
                    let shared = m.other & STO_CUDA_SPACE_MASK == STO_CUDA_SHARED;
                    let extern_shared = inputs
                        .get(r.input)
                        .and_then(|i| i.symbol(r.symbol).map(|y| crate::shared::is_extern(i, y)))
                        .unwrap_or(false);
                    // (merc2 `-G` `-g`: 6 symbols, sm_100/sm_120; two `-G`
                    // kernels with two `__shared__` arrays each: `a` 0x440 /
                    // 0x40, `b` 0x400 / 0.) Not the reserved shared sections,
                    // which have merc copies of their own (U27, sm_110's
                    // `.nv.shared.reserved.0`).
                    let reserved = matches!(s.section, SymbolSection::Section(id)
                        if layout.section(id).is_some_and(|o| o.name.starts_with(RESERVED_SHARED_PREFIX)));
                    // `-preserve-relocs` keeps them so too, with `.symtab`'s
                    // STV_INTERNAL added to the space bit (0x41: nw
                    // hist_kernel's `local`, pipeline_kernel's `bar`, s1
                    // sm_100/sm_120; rule 12.4).
                    let keeps = layout.debug || layout.preserve_relocs;
                    let sym = if keeps && shared && layout.executable && !reserved {
                        let other = m.other | (s.other & 0x3);
                        OutSymbol {
                            value: s.value.saturating_sub(layout.shared.reserved),
                            section: s.section,
                            other,
                            ..sym
                        }
                    } else if layout.debug && shared && extern_shared {
                        OutSymbol { value: s.value, ..sym }
                    } else {
                        sym
                    };
                    (sym, name)
                }
                None => (s.clone(), name),
            },
        };
        merc_out.push(entry);
    }

    // Rule 4.3: `.strtab` = the names in symtab order, then the merc-only
    // names, then the prototype signatures, less those only dead functions
    // (rule 9) use (sys exec drops `sys_alloc_ints`'s `#li`; 3/3 links).
    let (dead_signatures, dead_entries) = dead_signatures(inputs, resolution, layout);
    let mut strtab = StringTable::new();
    for (k, (s, &name)) in symbols.iter_mut().zip(&names).enumerate() {
        // The `.symtab` section symbol of `.nv.constant2.<fn>` is named like
        // its merc copy, `.nv.constant.optimizer.<fn>` (ptx: exec and `-r` on
        // sm_100/sm_100a/sm_120, where `.nv.constant3` keeps its own name).
        let merc_name = merc_out.get(k).map(|(_, n)| n.as_str()).unwrap_or_default();
        let renamed = name.starts_with(".nv.constant2.") && merc_name.starts_with(".nv.constant.optimizer.");
        s.name = strtab.add(if renamed { merc_name } else { name });
    }
    for (s, name) in &mut merc_out {
        s.name = strtab.add(name);
    }
    // A signature comes in at its first live entry (fresh2 tl-ku sm_100,
    // `-kernels-used=tl_kernel_b`: tl_a's dead `tl_reduce<float, Plus>`
    // does not bring in `#ilib1`, tl_b's live `tl_reduce<int, Max>` does,
    // after tl_a's `#ii`).
    let live_entry = |e: crate::symbols::PrototypeEntry| !dead_entries.contains(&e);
    let first_mention = |r: SymbolRef| {
        let global = resolution.global(r).and_then(|g| resolution.globals.get(g));
        global.map_or(r, |g| g.first)
    };
    for p in crate::symbols::merc_signature_strings(inputs, &live_entry, &first_mention) {
        if !dead_signatures.contains(p) {
            strtab.add(p);
        }
    }

    let last_local = |list: &[OutSymbol]| list.iter().rposition(|s| s.bind == STB_LOCAL).map_or(0, |i| i + 1);
    let merc_symbols: Vec<OutSymbol> = merc_out.into_iter().map(|(s, _)| s).collect();
    table.first_global = u32::try_from(last_local(&symbols)).unwrap_or(u32::MAX);
    table.merc = Some(MercTable {
        first_global: u32::try_from(last_local(&merc_symbols)).unwrap_or(u32::MAX),
        symbols: merc_symbols,
    });
    table.symbols = symbols;
    table.strtab = strtab;
}

/// The `.nv.prototype` signature strings whose every entry names a function
/// that is defined but not in the output (dead code, rule 9), or an
/// undefined function that gets no symbol (rule 9.3); and the entries that
/// name such a function.
fn dead_signatures<'a>(
    inputs: &[InputObject<'a>],
    resolution: &Resolution<'_>,
    layout: &Layout,
) -> (std::collections::HashSet<&'a str>, std::collections::HashSet<crate::symbols::PrototypeEntry>) {
    let mut dead = std::collections::HashSet::new();
    let mut dead_entries = std::collections::HashSet::new();
    let mut live = std::collections::HashSet::new();
    let live_refs =
        if layout.executable { crate::symbols::live_references(inputs, resolution, layout) } else { Vec::new() };
    // Whether the section defining `d` is in the output (`None`: no section).
    let placed = |d: SymbolRef| {
        let section = inputs.get(d.input).and_then(|i| i.symbol(d.symbol)).and_then(|s| s.section_index());
        section.map(|x| layout.placed(d.input, x).is_some())
    };
    for input in inputs {
        let Some(strtab) = input.cubin.symtab().and_then(|t| input.section(t.section)).map(|s| s.link as usize) else {
            continue;
        };
        let Some(strings) = input.section(strtab).and_then(|s| s.data) else { continue };
        for s in input.sections().iter().filter(|s| s.sh_type == SHT_CUDA_PROTOTYPE) {
            for (index, entry) in s.bytes().chunks_exact(8).enumerate() {
                let symbol = u32::from_le_bytes([entry[0], entry[1], entry[2], entry[3]]) as usize;
                let offset = u32::from_le_bytes([entry[4], entry[5], entry[6], entry[7]]);
                let Some(text) = string_at(strings, offset) else { continue };
                let here = SymbolRef { input: input.index, symbol };
                let is_dead = match resolution.definition_of(here) {
                    Some(d) => placed(d) == Some(false),
                    // Rule 9.3 / 13.4: an undefined function only dead code
                    // calls gets no symbol, and its signature goes with it
                    // (sys sm_100 with `-kernels-used` matching no kernel:
                    // `vprintf`, `malloc`, `free`, `__assertfail`'s).
                    None => {
                        let function = input.symbol(symbol).is_some_and(|s| s.st_type == STT_FUNC);
                        function && resolution.global(here).and_then(|g| live_refs.get(g)) == Some(&Some(false))
                    }
                };
                if is_dead {
                    dead_entries.insert(crate::symbols::PrototypeEntry { input: input.index, section: s.index, index });
                    dead.insert(text)
                } else {
                    live.insert(text)
                };
            }
        }
        // A signature a placed address-taken function or indirect call site
        // has in `.nv.callgraph` stays, whatever its prototype entries say
        // (nw `-G` on sm_100 with `-kernels-used`/`-variables-used`:
        // `#vll` of `__cuda_fetch_local_bop_add`, kept as address-taken
        // while its prototype's other users are dead; rule 9.12).
        for s in input
            .sections()
            .iter()
            .filter(|s| s.sh_type == develf_format::section::SHT_CUDA_CALLGRAPH && s.name == ".nv.callgraph")
        {
            let Ok(graph) = develf_eiattr::CallGraph::decode(s.bytes()) else { continue };
            for pair in graph.address_taken.iter().chain(&graph.indirect_calls) {
                let here = SymbolRef { input: input.index, symbol: pair.0 as usize };
                let Some(text) = string_at(strings, pair.1) else { continue };
                match resolution.definition_of(here).and_then(placed) {
                    Some(true) => {
                        live.insert(text);
                    }
                    // A removed function's entries bring no signature
                    // either (msigrev with `-variables-used`, every kernel
                    // removed: no `#ii #iii #ll`; sm_100, sm_120).
                    Some(false) => {
                        dead.insert(text);
                    }
                    None => {}
                }
            }
        }
    }
    dead.retain(|t| !live.contains(t));
    (dead, dead_entries)
}

struct Relocator<'l, 'a> {
    inputs: &'l [InputObject<'a>],
    resolution: &'l Resolution<'a>,
    layout: &'l Layout,
    symbols: &'l SymbolTable,
    merc: Vec<Vec<Symbol<'a>>>,
}

impl Relocator<'_, '_> {
    fn resolve(&self, input: usize, symbol: usize, patched: SymbolHome, text: Option<OutId>) -> Resolved {
        let resolver = SymbolResolver {
            inputs: self.inputs,
            resolution: self.resolution,
            layout: self.layout,
            symbols: self.symbols,
        };
        let merc = &self.merc;
        let mut resolved =
            resolver.resolve(&|i, s| merc.get(i).and_then(|l| l.get(s)).copied(), input, symbol, patched);
        // Extern memory: undefined, or an extern a relinked `-r` output
        // defines (rule 12.8; fixture `rdsh`'s `-r` link, sm_100: `rdsh_kb`
        // names `dyn`, which rdsh_a's `-r` output defines).
        let is_extern = crate::shared::refers_to_extern(self.inputs, self.resolution, SymbolRef { input, symbol });
        if is_extern && resolved.home == SymbolHome::SharedMemory && !self.layout.executable {
            // Rule 12.3: `-r` points a kernel's extern shared memory at its
            // `externsharedinstance`; a device function keeps the symbol.
            let slot = text.and_then(|t| self.layout.shared.instance_of.get(&t));
            if let Some(&index) = slot.and_then(|&k| self.symbols.extern_instances.get(k)) {
                resolved.index = Some(index);
            }
        }
        resolved
    }

    /// One `.nv.merc.rela.*` output section: its kept entries (reverse input
    /// order, each input's list reversed: rule 8.1), applying the rest to
    /// `data` unless the target is the capsule (its relocations patch the
    /// expanded code, which is not in the file).
    fn section(
        &self,
        rela: &OutSection,
        data: &mut [u8],
        capsule: bool,
        resolved_list: &mut Vec<OutRelocation>,
    ) -> Result<Vec<OutRelocation>, LinkError> {
        // Rule 8.2: `-preserve-relocs` lists the capsule's resolved
        // shared-memory relocations in `.nv.merc.nv.resolvedrela.text.<k>`.
        let lists_resolved = rela.target().is_some_and(|t| self.layout.merc_resolved_relocations.contains_key(&t));
        let output = if self.layout.executable { keep::OutputKind::Executable } else { keep::OutputKind::Relocatable };
        let patched_home = rela
            .target()
            .and_then(|t| self.layout.section(t))
            .map_or(SymbolHome::Other, |t| SymbolHome::of_section(&t.name));
        // The normal `.text.<fn>` of a capsule (rule 12.3's instances are keyed by it).
        let normal_text = rela.target().and_then(|t| self.layout.section(t)).and_then(|t| {
            let name = t.name.strip_prefix(".nv.capmerc").or_else(|| t.name.strip_prefix(".nv.merc"))?;
            self.layout.find(name)
        });
        let target_name = rela.target().and_then(|t| self.layout.section(t)).map_or("", |t| t.name.as_str());
        let mut kept = Vec::new();
        // U25: a device function's bank relocations copied into a kernel's
        // come after the kernel's own, functions in the order they were
        // placed (crate::layout::merge_function_banks).
        let merged = |p: &&crate::layout::Piece| {
            let target = self.inputs.get(p.input).and_then(|i| i.section(p.section)).map(|s| s.info as usize);
            target.is_some_and(|t| self.layout.merged_banks.contains(&(p.input, t)))
        };
        let (functions, own): (Vec<&crate::layout::Piece>, Vec<&crate::layout::Piece>) =
            rela.pieces.iter().partition(merged);
        for piece in own.into_iter().rev().chain(functions) {
            let Some(input) = self.inputs.get(piece.input) else { continue };
            let Some(rs) = input.cubin.relocation_section(piece.section) else { continue };
            let Some((_, base)) = self.layout.placed(piece.input, rs.target as usize) else { continue };
            // Rule 9: nothing inside a losing weak data copy, as in `.rela.*`;
            // the merc data section mirrors its normal one byte for byte.
            let normal = input
                .section_name(rs.target as usize)
                .strip_prefix(".nv.merc")
                .and_then(|name| input.sections().iter().find(|x| x.name == name))
                .map(|x| x.index);
            let losing = normal
                .map(|x| crate::relocate::losing_data(self.inputs, self.resolution, piece.input, x))
                .unwrap_or_default();
            let mut entries: Vec<_> = rs.entries().collect();
            if self.layout.merged_banks.contains(&(piece.input, rs.target as usize)) {
                let symbols = self.merc.get(piece.input).map_or(&[][..], Vec::as_slice);
                merged_bank_order(&mut entries, symbols, rs.target as usize);
            }
            // Rule 11.7: the capsule fields these relocations resolve into.
            let fields = if capsule {
                capsule_fields(input, self.merc.get(piece.input).map_or(&[], Vec::as_slice), rs.target as usize)
            } else {
                HashMap::new()
            };
            for r in entries.iter().rev() {
                if losing.iter().any(|&(from, to)| (from..to).contains(&r.offset)) {
                    continue;
                }
                let mut resolved = self.resolve(piece.input, r.symbol as usize, patched_home, normal_text);
                // Rule 9 as in `.rela.debug_info`: the merc `.debug_info` of a
                // losing weak copy keeps its records, pointing at the live
                // winner (two `-G` inputs instantiating one template, sm_100
                // exec and `-r`: b's `twice<int>` pc range, 2 entries), and
                // so does its merc `.debug_loc` (fresh5: two `-G` copies of the
                // weak kernel `tk<unsigned>`, sm_100/sm_120 exec `-g`, `-r`,
                // `-r -g`: the second copy's 2 location-list entries).
                if resolved.state == SymbolState::DiscardedDuplicate
                    && (target_name == ".nv.merc.debug_info" || target_name == ".nv.merc.debug_loc")
                    && crate::relocate::winner_placed(
                        self.inputs,
                        self.resolution,
                        self.layout,
                        SymbolRef { input: piece.input, symbol: r.symbol as usize },
                    )
                {
                    resolved.state = SymbolState::Live;
                }
                let query =
                    Query { r_type: r.r_type, output, symbol: resolved.home, state: resolved.state, mercury: true };
                let offset = base.saturating_add(r.offset);
                let at = usize::try_from(offset).unwrap_or(usize::MAX);
                let fail = |message: String| LinkError::Relocation {
                    file: input.name.to_string(),
                    section: input.section_name(rs.section),
                    offset: r.offset,
                    message,
                };
                let apply = |data: &mut [u8]| -> Result<(), LinkError> {
                    if capsule {
                        let at = fields.get(&r.offset).map(|&f| base.saturating_add(f as u64));
                        return self.apply_capsule(rela, piece.input, r, &resolved, at, data);
                    }
                    if matches!(resolved.home, SymbolHome::TextureSlot | SymbolHome::SharedMemory) {
                        return Ok(());
                    }
                    let Some(site) = data.get_mut(at..) else { return Ok(()) };
                    if develf_reloc::descriptor(r.r_type).is_none() {
                        return Ok(());
                    }
                    match r.addend {
                        Some(a) => develf_reloc::apply(r.r_type, site, resolved.value, a, offset),
                        None => develf_reloc::apply_rel(r.r_type, site, resolved.value, offset),
                    }
                    .map_err(|e| fail(e.to_string()))
                };
                // Rule 8.1: against a section symbol, the kept addend adds
                // where the input's piece went (merc2 `-G`: DW_AT_stmt_list
                // `.nv.merc.debug_line + 452`, exec and `-r`).
                let section_symbol = self
                    .merc
                    .get(piece.input)
                    .and_then(|l| l.get(r.symbol as usize))
                    .is_some_and(|s| s.st_type == STT_SECTION);
                let addend =
                    r.addend.map_or(0, |a| if section_symbol { a.wrapping_add(resolved.value as i64) } else { a });
                let mut keep_entry = |t: u32| {
                    if let Some(symbol) = resolved.index {
                        kept.push(OutRelocation { offset, r_type: t, symbol, addend });
                    }
                };
                // U27: an executable keeps the Mercury code's relocations
                // against a reserved shared window's variable (sweep2
                // p54_hopper `k_red`, sm_100a: its two `R_MERCURY_ABS32`
                // against `__nv_reservedSMEM_tcgen05_partition`, as those
                // against the undefined `.nv.reservedSmem.cap`); `.text`'s
                // are applied (`relocate::reserved_shared`) and go.
                let reserved = self.layout.executable
                    && capsule
                    && crate::relocate::reserved_shared(
                        self.inputs,
                        self.resolution,
                        self.layout,
                        SymbolRef { input: piece.input, symbol: r.symbol as usize },
                    )
                    .is_some();
                let disposition = if reserved {
                    Disposition::Keep(r.r_type)
                } else {
                    crate::relocate::disposition(&query, &resolved)
                };
                match disposition {
                    Disposition::Apply => {
                        apply(data)?;
                        let listed = lists_resolved
                            && resolved.state == SymbolState::Live
                            && crate::relocate::lists_shared(self.inputs, self.layout, piece.input, r.symbol as usize);
                        if let (true, Some(symbol)) = (listed, resolved.index) {
                            resolved_list.push(OutRelocation { offset, r_type: r.r_type, symbol, addend });
                        }
                    }
                    Disposition::ApplyDead if capsule => {
                        // Rule 11.7 with U25: where a device function's
                        // bank went into its kernels' (no output home of
                        // its own), a `-g` or `-preserve-relocs` link still
                        // writes the capsule's field, with the constant's
                        // offset in the function's own bank (sweep4 p60_surf
                        // `jump_i`, a 12-case switch: `.const_opt.0.16` ..
                        // `.48.64` less 0x8000 give `00 80` .. `30 80`,
                        // sm_100/sm_120; an executable without either does
                        // not resolve the capsule's relocations at all).
                        if let Some(value) = self.merged_bank_offset(piece.input, r.symbol as usize) {
                            let at = fields.get(&r.offset).map(|&f| base.saturating_add(f as u64));
                            self.write_capsule_field(rela, piece.input, r, value, at, data)?;
                        }
                    }
                    Disposition::ApplyDead => {
                        if let Some(site) = data.get_mut(at..) {
                            develf_reloc::apply_dead(r.r_type, site).map_err(|e| fail(e.to_string()))?;
                        }
                    }
                    Disposition::Drop => {}
                    Disposition::Keep(t) => keep_entry(t),
                    Disposition::ApplyAndKeep(t) => {
                        apply(data)?;
                        keep_entry(t);
                    }
                }
            }
        }
        Ok(kept)
    }

    /// Rule 11.7: a resolved relocation of a capsule's expanded code that
    /// falls on an `LDC` record (its field at output offset `at`, from
    /// [`capsule_fields`]) writes its value into the record: `R_MERCURY_ABS16`
    /// 2 bytes, `R_MERCURY_ABS32` 4 bytes (the field widths seen: ptx_branch_kernel's `-0x8000` becomes
    /// `00 80 00 00`). A constant's value is its bank offset; a texture or
    /// surface's (executables) its offset in the kernel's
    /// `.nv.merc.nv.constant.entry_image_header_indices.<k>` (rule 11.5).
    fn apply_capsule(
        &self,
        rela: &OutSection,
        input: usize,
        r: &develf_parse::elf::Relocation,
        resolved: &Resolved,
        at: Option<u64>,
        data: &mut [u8],
    ) -> Result<(), LinkError> {
        let value = match resolved.home {
            SymbolHome::TextureSlot => match self.header_index_offset(rela, input, r.symbol as usize) {
                Some(v) => v,
                None => return Ok(()),
            },
            SymbolHome::SharedMemory => return Ok(()),
            _ => resolved.value,
        };
        self.write_capsule_field(rela, input, r, value, at, data)
    }

    /// The offset of merc symbol `symbol` of `input` in its device
    /// function's constant bank, when that bank went into its kernels'
    /// (U25, `Layout::merged_banks`).
    fn merged_bank_offset(&self, input: usize, symbol: usize) -> Option<u64> {
        let y = self.merc.get(input)?.get(symbol)?;
        self.layout.merged_banks.contains(&(input, y.section_index()?)).then_some(y.value)
    }

    /// Writes `value` with relocation `r`'s addend into the capsule field
    /// at output offset `at` (nothing where `r` falls on no field).
    fn write_capsule_field(
        &self,
        rela: &OutSection,
        input: usize,
        r: &develf_parse::elf::Relocation,
        value: u64,
        at: Option<u64>,
        data: &mut [u8],
    ) -> Result<(), LinkError> {
        let Some(at) = at else { return Ok(()) };
        if !matches!(r.r_type, R_MERCURY_ABS16 | R_MERCURY_ABS32) {
            return Ok(());
        }
        let Some(site) = usize::try_from(at).ok().and_then(|a| data.get_mut(a..)) else { return Ok(()) };
        match r.addend {
            Some(a) => develf_reloc::apply(r.r_type, site, value, a, at),
            None => develf_reloc::apply_rel(r.r_type, site, value, at),
        }
        .map_err(|e| LinkError::Relocation {
            file: self.inputs.get(input).map_or_else(String::new, |i| i.name.to_string()),
            section: rela.name.to_string(),
            offset: r.offset,
            message: e.to_string(),
        })
    }

    /// Rule 11.5: a texture/surface reference's offset in the header-index
    /// table of the kernel whose capsule `rela` patches (4 per slot).
    fn header_index_offset(&self, rela: &OutSection, input: usize, symbol: usize) -> Option<u64> {
        let capsule = self.layout.section(rela.target()?)?;
        let text = self.layout.find(&capsule_text(capsule)?)?;
        let bank = self.layout.texture_banks.iter().find(|t| t.text == text)?;
        let first = bank.slots.first()?.offset;
        let global = self.resolution.global(SymbolRef { input, symbol })?;
        bank.slots.iter().find(|s| s.global == global).map(|s| s.offset.saturating_sub(first))
    }
}

/// U25: the order nvlink lists a device function's jump-table relocations
/// in once it copied them into a kernel's
/// `.nv.merc.rela.nv.constant.optimizer.<k>`: per `.const_opt` object of the
/// function's bank (one per table piece: `classify`'s `.const_opt.0.16`,
/// `.16.32`, `.32.48`), the highest object first, each object's entries
/// ascending (sw: 0x128..0x134, 0x118..0x124, 0x108..0x114 from ptxas's
/// 0x2c..0x0; jtab: objects of 16 and 12 bytes alike; a PTX `brx.idx`
/// table in one object: plain ascending). Within an object the entries keep
/// their input order, which the caller's reversal turns around: ptxas lists
/// them descending, a `-r` output ascending, so a relinked `-r` output's
/// tables come out wholly descending (sweep4 p60 `r-relink`, sm_100/sm_120:
/// `shade`'s 0xe8, 0xe4, 0xe0, 0xdc.. in `sw_k`'s section; fixture
/// `jtrel-relink`, repro /work/sweep4/red/jtrel). Sorted here by object
/// only, stably: the reverse of that.
fn merged_bank_order(entries: &mut [develf_parse::elf::Relocation], symbols: &[Symbol<'_>], bank: usize) {
    let objects: Vec<(u64, u64)> = symbols
        .iter()
        .filter(|y| y.st_type != STT_SECTION && y.section_index() == Some(bank))
        .map(|y| (y.value, y.value.saturating_add(y.size)))
        .collect();
    let object_of = |offset: u64| {
        objects.iter().filter(|&&(lo, hi)| lo <= offset && offset < hi).map(|&(lo, _)| lo).next().unwrap_or(offset)
    };
    entries.sort_by_key(|r| object_of(r.offset));
}

/// Rule 8 for `.nv.merc.rela.*`, and rule 7.9's CIE pointers, on the
/// contents relocate built.
pub(crate) fn relocate(
    inputs: &[InputObject<'_>],
    resolution: &Resolution<'_>,
    layout: &Layout,
    symbols: &SymbolTable,
    contents: &mut Contents,
) -> Result<(), LinkError> {
    let r = Relocator { inputs, resolution, layout, symbols, merc: merc_symbols(inputs) };
    for (id, s) in layout.sections.iter().enumerate() {
        if !is_relocation(s) {
            continue;
        }
        let Some(target) = s.target() else { continue };
        let capsule = layout.section(target).is_some_and(|t| t.sh_type == SHT_CUDA_CAPMERC);
        let target_name = layout.section(target).map_or("", |t| t.name.as_str());
        let mut data = match contents.data.get_mut(target) {
            Some(body) => std::mem::take(body.bytes_mut(target_name)?),
            None => Vec::new(),
        };
        let mut resolved_list = Vec::new();
        let kept = r.section(s, &mut data, capsule, &mut resolved_list);
        if let Some(slot) = contents.data.get_mut(target) {
            *slot = Body::Owned(data);
        }
        let mut kept = kept?;
        // Exact: the lists live until the output is written.
        kept.shrink_to_fit();
        contents.relocations.set(id, kept);
        if let Some(&x) = layout.merc_resolved_relocations.get(&target).filter(|&&x| x < layout.sections.len()) {
            contents.relocations.set(x, resolved_list);
        }
    }
    // Rule 11.5: the header-index tables' relocations, made by the linker.
    header_index_relocations(layout, symbols, contents);
    // Rule 8.1 (merc): the line-table relocations keep input order.
    for (id, s) in layout.sections.iter().enumerate() {
        let target = s.target().and_then(|t| layout.section(t)).map_or("", |t| t.name.as_str());
        if s.class == SectionClass::Relocation && LINE_TABLES.contains(&target) {
            if let Some(list) = contents.relocations.get_mut(id) {
                list.reverse();
            }
        }
    }
    // Rule 11.2: the normal `.debug_frame` loses the CIE+FDE of every dead
    // or losing function (before the CIE pointers are recomputed).
    if let Some(frame) = layout.find(".debug_frame") {
        cut_frame_entries(inputs, resolution, layout, frame, contents)?;
    }
    copy_line_string_bases(inputs, layout, contents, &r.merc)?;
    for name in LINE_TABLES {
        if let Some(table) = layout.find(name) {
            cut_line_sequences(inputs, resolution, layout, symbols, table, contents)?;
        }
    }
    if let Some(registers) = layout.find(REGISTER_TABLE) {
        clear_register_ranges(inputs, resolution, layout, registers, contents)?;
    }
    // An input that is itself an nvlink `-r` output has no relocation left
    // for its `.nv.merc.debug_frame` CIE pointers, and nvlink keeps their
    // input-relative values there (relinked sten/sort/solver halves,
    // sm_100..sm_121: the second half's FDEs point at 0, 14 FDEs a link;
    // rule 11.1), while the normal copy's are recomputed.
    for (id, s) in layout.sections.iter().enumerate() {
        if s.name == ".debug_frame" || s.name == ".nv.merc.debug_frame" {
            let raw = if s.name == ".nv.merc.debug_frame" { unrelocated_cie_pointers(inputs, s) } else { Vec::new() };
            if let Some(data) = contents.data.get_mut(id) {
                fix_cie_pointers(data.bytes_mut(&s.name)?, &raw);
            }
        }
    }
    // Rule 11.3: the finaliser's scoreboard rewrite of stack-free kernels;
    // not under `-g` (rule 11.9: cub red_int2, merc2 block_reduce keep ptxas's
    // scoreboards).
    if layout.executable && !layout.debug {
        for (id, s) in layout.sections.iter().enumerate() {
            if s.class == SectionClass::Text && is_kernel_text(inputs, layout, id) {
                if let Some(data) = contents.data.get_mut(id) {
                    drop_stack_scoreboard(data.bytes_mut(&s.name)?);
                }
            }
        }
    }
    Ok(())
}

/// One CIE or FDE of a `.debug_frame`: its byte range, whether it is a CIE,
/// and (FDE) where its CIE pointer and initial location are.
struct FrameEntry {
    start: usize,
    end: usize,
    cie: bool,
    /// Offset of the initial-location field (FDE).
    location: usize,
}

/// The entries of a `.debug_frame` (32- or 64-bit DWARF); stops at the
/// first malformed one.
fn frame_entries(data: &[u8]) -> Vec<FrameEntry> {
    let mut out = Vec::new();
    let mut at = 0usize;
    let word = |at: usize| data.get(at..at + 4).map(|b| u32::from_le_bytes([b[0], b[1], b[2], b[3]]));
    let quad = |at: usize| {
        data.get(at..at + 8).map(|b| {
            let mut q = [0u8; 8];
            q.copy_from_slice(b);
            u64::from_le_bytes(q)
        })
    };
    while let Some(first) = word(at) {
        let (length, header, cie, location) = if first == u32::MAX {
            let (Some(length), Some(id)) = (quad(at + 4), quad(at + 12)) else { break };
            (length, 12usize, id == u64::MAX, at + 20)
        } else {
            let Some(id) = word(at + 4) else { break };
            (u64::from(first), 4usize, id == u32::MAX, at + 8)
        };
        let Some(end) = usize::try_from(length).ok().and_then(|l| at.checked_add(header)?.checked_add(l)) else {
            break;
        };
        if length == 0 || end > data.len() {
            break;
        }
        out.push(FrameEntry { start: at, end, cie, location });
        at = end;
    }
    out
}

/// Rule 11.2 (merc, exec and `-r`): nvlink cuts out of the normal
/// `.debug_frame` the FDE of every function that is not in the output (dead
/// code, rule 9, or a losing weak copy) together with its CIE when no kept
/// FDE uses that CIE; later entries move down and so do the offsets of the
/// kept `.rela.debug_frame` entries. `.nv.merc.debug_frame` keeps every
/// entry (its dead FDEs just get a zero range, rule 8.2).
fn cut_frame_entries(
    inputs: &[InputObject<'_>],
    resolution: &Resolution<'_>,
    layout: &Layout,
    frame: OutId,
    contents: &mut Contents,
) -> Result<(), LinkError> {
    let Some(out) = layout.section(frame) else { return Ok(()) };
    // Output byte ranges to remove or rewrite (rule 11.2.1), ascending.
    let mut cut: Vec<(u64, u64, Vec<u8>)> = Vec::new();
    let replaced = replaced_frames(inputs, resolution, layout, frame, contents)?;
    for piece in &out.pieces {
        let Some(input) = inputs.get(piece.input) else { continue };
        if input.section(piece.section).is_none() {
            continue;
        }
        let entries = frame_entries(&input.contents(piece.section));
        // The function each FDE describes: the relocation at its initial location.
        let mut describes: HashMap<u64, usize> = HashMap::new();
        for rs in input.cubin.relocation_sections().filter(|r| r.target as usize == piece.section) {
            for r in rs.entries() {
                if input.symbol(r.symbol as usize).is_some_and(|s| s.st_type != STT_SECTION) {
                    describes.entry(r.offset).or_insert(r.symbol as usize);
                }
            }
        }
        let gone = |e: &FrameEntry| {
            let Some(&symbol) = describes.get(&(e.location as u64)) else { return false };
            describes_gone_code(inputs, resolution, layout, SymbolRef { input: piece.input, symbol })
        };
        // A CIE goes with its FDEs when every one of them goes.
        let mut k = 0;
        while let Some(e) = entries.get(k) {
            let group_end = entries.iter().skip(k + 1).position(|f| f.cie).map_or(entries.len(), |p| k + 1 + p);
            let fdes = entries.get(k + 1..group_end).unwrap_or_default();
            if e.cie && !fdes.is_empty() && fdes.iter().all(&gone) {
                let end = fdes.last().map_or(e.end, |f| f.end);
                cut.push((piece.offset + e.start as u64, piece.offset + end as u64, Vec::new()));
                k = group_end;
                continue;
            }
            if !e.cie && gone(e) {
                cut.push((piece.offset + e.start as u64, piece.offset + e.end as u64, Vec::new()));
            }
            k += 1;
        }
    }
    cut.extend(replaced);
    splice_ranges(layout, frame, cut, contents)
}

/// One CFA program's operations: (start, length, advance in code units if
/// it is a `DW_CFA_advance_loc*`). `None` for an operation not known here.
fn cfa_ops(program: &[u8]) -> Option<Vec<(usize, usize, Option<u64>)>> {
    let mut out = Vec::new();
    let mut at = 0;
    while at < program.len() {
        let (len, advance) = crate::errbar::cfa_op(program, at)?;
        out.push((at, len, advance));
        at += len;
    }
    Some(out)
}

/// The locations (bytes) where a CFA program starts a new row.
fn cfa_rows(program: &[u8], align: u64) -> Vec<u64> {
    let mut loc = 0u64;
    let mut rows = Vec::new();
    for (_, _, advance) in cfa_ops(program).unwrap_or_default() {
        if let Some(a) = advance {
            loc = loc.saturating_add(a.saturating_mul(align));
            rows.push(loc);
        }
    }
    rows
}

/// A frame section's CIE code alignment factor (64-bit DWARF CIE: version,
/// augmentation string, then the factor).
fn code_alignment(cie: &[u8]) -> u64 {
    let Some(aug) = cie.get(21..).and_then(|b| b.iter().position(|&c| c == 0)) else { return 1 };
    cie.get(21 + aug + 1..).and_then(|b| b.first()).map_or(1, |&f| u64::from(f & 0x7f).max(1))
}

/// An input frame section's FDE of function `name`: (the CIE before it, the
/// FDE), byte ranges in the section.
fn fde_of(
    input: &InputObject<'_>,
    section: usize,
    symbols: &[Symbol<'_>],
    name: &str,
) -> Option<((usize, usize), (usize, usize))> {
    let entries = frame_entries(&input.contents(section));
    let mut at: Vec<u64> = Vec::new();
    for rs in input.cubin.relocation_sections().filter(|r| r.target as usize == section) {
        for r in rs.entries() {
            if symbols.get(r.symbol as usize).is_some_and(|s| s.st_type != STT_SECTION && s.name == name) {
                at.push(r.offset);
            }
        }
    }
    let k = entries.iter().position(|e| !e.cie && at.contains(&(e.location as u64)))?;
    let cie = entries.get(..k)?.iter().rposition(|e| e.cie).and_then(|c| entries.get(c))?;
    let fde = entries.get(k)?;
    Some(((cie.start, cie.end), (fde.start, fde.end)))
}

/// Rule 11.2.1: the normal `.debug_frame` of a Mercury link where a later
/// weak copy replaced the first (U9, U13), as byte ranges of the output
/// section and what nvlink writes there instead:
/// * the first copy's FDE (its CIE stays) holds the winner's range and
///   program, after the first copy's operations before its first advance
///   (`DW_CFA_def_cfa SP, 0`), without the winner's trailing nops, padded
///   with nops to a multiple of 8 bytes, and with a row added where the first
///   copy's last Mercury row falls in the winner's code: the winner's SASS
///   row at or before that Mercury location, plus half the Mercury distance,
///   rounded up to an instruction (16 bytes); the advance over it is split
///   in two `DW_CFA_advance_loc4`, or one is appended past the last (no row
///   where one is already); the
///   winner's own operations before its first advance give way to the first
///   copy's;
/// * the winner's own CIE and FDE are its Mercury CIE (code alignment 1) and
///   an FDE without instructions (four nops) whose range is the winner's
///   Mercury range.
///
/// Sweep p37 (`poly<16>`, `poly<24>`: a.cu's copies replaced by b.cu's
/// `-maxrregcount=32` ones; sm_100, sm_120, exec, `-r`, `-g`, reversed);
/// /work/sweep/red/fde (`poly<8..32>` against copies built with
/// `-maxrregcount=24`, 32 and 40: 47 of 47 added rows). Not where the first
/// copy is cut (rule 11.2: it has relocations of its own, rule 9.13) or was
/// itself a replacing copy.
fn replaced_frames(
    inputs: &[InputObject<'_>],
    resolution: &Resolution<'_>,
    layout: &Layout,
    frame: OutId,
    contents: &mut Contents,
) -> Result<Vec<(u64, u64, Vec<u8>)>, LinkError> {
    const INSTRUCTION: u64 = 16;
    const DW_CFA_ADVANCE_LOC4: u8 = 0x04;
    let mut edits = Vec::new();
    if resolution.replacers.is_empty() {
        return Ok(edits);
    }
    let Some(out) = layout.section(frame) else { return Ok(edits) };
    let data = match contents.data.get_mut(frame) {
        Some(body) => body.bytes_mut(&out.name)?.clone(),
        None => return Ok(edits),
    };
    let merc = merc_symbols(inputs);
    // Where each input's `.debug_frame` went.
    let base = |input: usize| out.pieces.iter().find(|p| p.input == input).map(|p| p.offset);
    for g in &resolution.globals {
        let (Some(first), Some(winner)) = (g.first_definition, g.definition) else { continue };
        if first == winner || winner.input <= first.input || !resolution.replacers.contains(&winner) {
            continue;
        }
        let (Some(fi), Some(wi)) = (inputs.get(first.input), inputs.get(winner.input)) else { continue };
        if fi.symbol(first.symbol).is_none_or(|s| s.st_type != STT_FUNC)
            || describes_gone_code(inputs, resolution, layout, first)
        {
            continue;
        }
        let find = |i: &InputObject<'_>, name: &str| i.sections().iter().find(|s| s.name == name).map(|s| s.index);
        let (Some(f_frame), Some(w_frame), Some(f_merc), Some(w_merc)) = (
            find(fi, ".debug_frame"),
            find(wi, ".debug_frame"),
            find(fi, ".nv.merc.debug_frame"),
            find(wi, ".nv.merc.debug_frame"),
        ) else {
            continue;
        };
        let empty: Vec<Symbol<'_>> = Vec::new();
        let (f_merc_symbols, w_merc_symbols) =
            (merc.get(first.input).unwrap_or(&empty), merc.get(winner.input).unwrap_or(&empty));
        let (Some((_, f_fde)), Some((w_cie, w_fde)), Some((f_mcie, f_mfde)), Some((w_mcie, w_mfde))) = (
            fde_of(fi, f_frame, fi.symbols(), g.name),
            fde_of(wi, w_frame, wi.symbols(), g.name),
            fde_of(fi, f_merc, f_merc_symbols, g.name),
            fde_of(wi, w_merc, w_merc_symbols, g.name),
        ) else {
            continue;
        };
        let (Some(f_base), Some(w_base)) = (base(first.input), base(winner.input)) else { continue };
        let at = |b: u64, x: usize| usize::try_from(b).ok().map(|b| b + x);
        let (Some(f_start), Some(f_end), Some(w_start), Some(w_end)) =
            (at(f_base, f_fde.0), at(f_base, f_fde.1), at(w_base, w_fde.0), at(w_base, w_fde.1))
        else {
            continue;
        };
        let (Some(f_out), Some(w_out)) = (data.get(f_start..f_end), data.get(w_start..w_end)) else { continue };
        let w_in = wi.contents(w_frame);
        let (f_min, w_min) = (fi.contents(f_merc), wi.contents(w_merc));
        let slice = |d: &[u8], r: (usize, usize)| d.get(r.0..r.1).map(<[u8]>::to_vec);
        let (Some(w_cie_bytes), Some(w_mcie_bytes), Some(f_mcie_bytes), Some(f_mfde_bytes), Some(w_mfde_bytes)) = (
            slice(&w_in, w_cie),
            slice(&w_min, w_mcie),
            slice(&f_min, f_mcie),
            slice(&f_min, f_mfde),
            slice(&w_min, w_mfde),
        ) else {
            continue;
        };
        let (Some(f_program), Some(w_program)) = (f_out.get(FDE_HEADER..), w_out.get(FDE_HEADER..)) else { continue };
        let (Some(f_mprogram), Some(w_mprogram)) = (f_mfde_bytes.get(FDE_HEADER..), w_mfde_bytes.get(FDE_HEADER..))
        else {
            continue;
        };
        let align = code_alignment(&w_cie_bytes);
        let (m_align, fm_align) = (code_alignment(&w_mcie_bytes), code_alignment(&f_mcie_bytes));
        let (Some(f_ops), Some(w_ops)) = (cfa_ops(f_program), cfa_ops(w_program)) else { continue };
        // The first copy's operations before its first advance.
        let prefix_len = f_ops.iter().find(|o| o.2.is_some()).map_or(f_program.len(), |o| o.0);
        // The winner's program without its trailing nops.
        let w_len = w_ops.iter().rposition(|o| w_program.get(o.0) != Some(&0)).map_or(0, |k| w_ops[k].0 + w_ops[k].1);
        // The row added: the first copy's last Mercury row in the winner's
        // code, through the pairs of the winner's SASS and Mercury rows.
        let sass = cfa_rows(w_program, align);
        let mut mercury = cfa_rows(w_mprogram, m_align);
        if mercury.len() == sass.len() + 1 && mercury.first() == Some(&0) {
            mercury.remove(0);
        }
        // A row past the end of the winner's Mercury code has nothing to map
        // to, and none is added (sweep17 p195 `poly_eval<float>`: the first
        // copy's last row at 0x1460, the `-maxrregcount=24` winner's Mercury
        // range 0x13e0; sm_120 exec). A row at the end itself is mapped
        // (fixture `wfd-leaf`: 0x900, the winner's range).
        let w_mrange = w_mfde_bytes.get(28..36).and_then(|r| r.try_into().ok()).map(u64::from_le_bytes);
        let added = cfa_rows(f_mprogram, fm_align).into_iter().rfind(|&x| x > 0).and_then(|x| {
            if mercury.len() != sass.len() || w_mrange.is_some_and(|r| x > r) {
                return None;
            }
            let pairs: Vec<(u64, u64)> =
                std::iter::once((0, 0)).chain(mercury.iter().copied().zip(sass.iter().copied())).collect();
            let k = pairs.iter().rposition(|&(m, _)| m <= x)?;
            let (m, s) = pairs[k];
            // Half the Mercury distance is the SASS distance only where the
            // span between the rows around it is twice as long in Mercury
            // code (every instruction there two Mercury ones). Elsewhere the
            // finaliser's map, which develf does not have, places the row,
            // or nvlink adds none: sweep24 p252 `wt_dot<float>`, the first
            // copy's last row at 0x2510 in the `-maxrregcount=24` winner's
            // span 0xc0..0x2930 (SASS 0x60..0x19a0, not 2:1): no row
            // (sm_100, sm_120; fixture `wfr`). Its `wt_dot<double>` gets one
            // at 0x14b0 (0x2300 in 0xe0..0x2d70, SASS 0x80..0x1b20), where
            // neither the half (0x1190) nor the span's ratio (0x14e0) puts
            // it; develf adds none there either and differs.
            // (Past the last row the code's end is no such bound: its
            // padding differs; fixture `wfd-leaf` adds the row there.)
            if let Some(&(m_next, s_next)) = pairs.get(k + 1) {
                if m_next.checked_sub(m)? != 2 * s_next.checked_sub(s)? {
                    return None;
                }
            }
            let y = (s + (x - m) / 2).div_ceil(INSTRUCTION) * INSTRUCTION;
            (!sass.contains(&y)).then_some(y)
        });
        let mut program: Vec<u8> = f_program.get(..prefix_len).unwrap_or_default().to_vec();
        // The winner's own operations before its first advance give way to
        // the first copy's (fde: a 24-register leaf `poly<12>` replacing a
        // 38-register one keeps one `DW_CFA_def_cfa`).
        let w_first = w_ops.iter().find(|o| o.2.is_some()).map_or(w_len, |o| o.0);
        let mut loc = 0u64;
        for &(start, len, advance) in &w_ops {
            if start < w_first {
                continue;
            }
            if start >= w_len {
                break;
            }
            let op = w_program.get(start..start + len).unwrap_or_default();
            if let (Some(a), Some(y)) = (advance, added) {
                let next = loc + a * align;
                if loc < y && y < next {
                    program.push(DW_CFA_ADVANCE_LOC4);
                    program.extend_from_slice(&u32::try_from((y - loc) / align).unwrap_or(0).to_le_bytes());
                    program.push(DW_CFA_ADVANCE_LOC4);
                    program.extend_from_slice(&u32::try_from((next - y) / align).unwrap_or(0).to_le_bytes());
                    loc = next;
                    continue;
                }
            }
            if let Some(a) = advance {
                loc += a * align;
            }
            program.extend_from_slice(op);
        }
        // Past the winner's last row: an advance of its own at the end (fde:
        // a leaf `poly<24>` whose one row is at 0x480 gets another at 0x490).
        if let Some(y) = added.filter(|&y| y > loc) {
            program.push(DW_CFA_ADVANCE_LOC4);
            program.extend_from_slice(&u32::try_from((y - loc) / align).unwrap_or(0).to_le_bytes());
        }
        while (FDE_HEADER + program.len()) % 8 != 0 {
            program.push(0);
        }
        // The first copy's slot: its header (length rewritten), the winner's range.
        let first_fde = fde_with(f_out, &program, w_out.get(28..36));
        edits.push((f_start as u64, f_end as u64, first_fde));
        // The winner's slot: its Mercury CIE and an empty FDE with the Mercury range.
        let (Some(wc_start), Some(wc_end)) = (at(w_base, w_cie.0), at(w_base, w_cie.1)) else { continue };
        if wc_end != w_start {
            continue;
        }
        edits.push((wc_start as u64, wc_end as u64, w_mcie_bytes.clone()));
        let winner_fde = fde_with(w_out, &[0; 4], w_mfde_bytes.get(28..36));
        edits.push((w_start as u64, w_end as u64, winner_fde));
    }
    Ok(edits)
}

/// A 64-bit DWARF FDE's header: length escape and length, CIE pointer,
/// initial location, address range.
const FDE_HEADER: usize = 36;

/// A 64-bit DWARF FDE made of `fde`'s header (length, CIE pointer, initial
/// location) with `program` after it, its length field set to match and its
/// address range replaced by `range` where there is one.
fn fde_with(fde: &[u8], program: &[u8], range: Option<&[u8]>) -> Vec<u8> {
    let mut out = fde.get(..FDE_HEADER).unwrap_or_default().to_vec();
    out.extend_from_slice(program);
    let length = (out.len() - 12) as u64;
    if let Some(l) = out.get_mut(4..12) {
        l.copy_from_slice(&length.to_le_bytes());
    }
    if let (Some(to), Some(from)) = (out.get_mut(28..36), range) {
        to.copy_from_slice(from);
    }
    out
}

/// Whether debug records about function `here` describe code that is not in
/// the output: a weak copy that lost to an earlier input's (a copy met
/// before its winner was replaced, not dropped, U9: wreg sm_100/sm_120), or a
/// dead function (rule 11.2).
fn describes_gone_code(
    inputs: &[InputObject<'_>],
    resolution: &Resolution<'_>,
    layout: &Layout,
    here: SymbolRef,
) -> bool {
    let Some(def) = resolution.definition_of(here) else { return false };
    let defined_here =
        inputs.get(here.input).and_then(|i| i.symbol(here.symbol)).is_some_and(|s| s.section_index().is_some());
    // Rules 9.11 and 9.13 as in `.rela.debug_frame` (fresh2 `tl_c tl_b tl_a`,
    // sm_100/sm_120: tl_b's replaced `tl_poly<double>` FDE goes).
    if defined_here && def != here && crate::relocate::describes_replaced_code(inputs, resolution, here, def, false) {
        return true;
    }
    let section = inputs.get(def.input).and_then(|i| i.symbol(def.symbol)).and_then(|s| s.section_index());
    section.is_some_and(|x| layout.placed(def.input, x).is_none())
}

/// The code size of the copy that replaced weak function `here`, where it
/// is smaller than `here`'s own: the end of `here`'s kept line rows.
fn replaced_by_shorter(inputs: &[InputObject<'_>], resolution: &Resolution<'_>, here: SymbolRef) -> Option<u64> {
    let def = resolution.definition_of(here).filter(|&d| d != here)?;
    let size =
        |at: SymbolRef| inputs.get(at.input).and_then(|i| i.symbol(at.symbol)).map(|s| (s.size, s.section_index()));
    let ((own, own_section), (winner, _)) = (size(here)?, size(def)?);
    (own_section.is_some() && winner < own).then_some(winner)
}

/// Rule 11.2 for line tables, a replaced copy's kept sequence (sweep22 p233:
/// params.cu's `-lineinfo` `cl_horner<double,8>`, 0x600 bytes, replaced by
/// bigargs.cu's 0x280; sm_100/sm_120, exec and `-r`): nvlink drops the rows
/// at or past the winner's size and ends the sequence there, an
/// `advance_pc` from the last row kept (`02 c0 04 00 01 01` after the row at
/// 0x40) in `.debug_line`. Its `.nv_debug_line_sass` sequence ends at 0x280
/// too, but with rows at other addresses than the input's (0xd0 for 0xc0),
/// which the Mercury→SASS map rule 11.2.2 lacks would give; it stays as it
/// is. Some copies' rows before the cut move too (p230's replaced
/// `tc_scalar_dot<float>`: a row at 0xef0 for the input's 0xaf0), by a
/// mapping not known; develf applies the cut alone there. Returns where in
/// `program` (one sequence, from its `DW_LNE_set_address`) the kept part
/// ends and the bytes that end it there, or `None` where nothing is past
/// `limit` or an operation is not one this reader follows. On sm_75..sm_90
/// the rows stay.
fn clip_sequence(header: &crate::errbar::LineHeader, program: &[u8], limit: u64) -> Option<(usize, Vec<u8>)> {
    use crate::errbar::{leb, uleb};
    let mut at = 0usize;
    let mut address = 0u64;
    let mut base: Option<u64> = None;
    // Where the last row's operation ends, and the row's address.
    let mut last_row: Option<(usize, u64)> = None;
    let past = |address: u64, base: Option<u64>| base.is_some_and(|b| address.saturating_sub(b) >= limit);
    while at < program.len() {
        let op = program[at];
        let (row, next) = if op >= header.opcode_base {
            let adjusted = op - header.opcode_base;
            address += u64::from(adjusted / header.line_range) * header.min_inst;
            (true, at + 1)
        } else {
            match op {
                0 => {
                    let n = usize::try_from(uleb(program, at + 1)?).ok()?;
                    let body = at + 1 + leb(program, at + 1)?;
                    let next = body.checked_add(n).filter(|&x| x <= program.len())?;
                    match program.get(body) {
                        Some(2) if n == 9 => {
                            address = u64::from_le_bytes(program.get(body + 1..body + 9)?.try_into().ok()?);
                            base = Some(address);
                        }
                        Some(1) => {
                            // The end: past the limit, it moves back to it.
                            if !past(address, base) || address.saturating_sub(base?) == limit {
                                return None;
                            }
                            break;
                        }
                        _ => {}
                    }
                    (false, next)
                }
                1 => (true, at + 1),
                2 => {
                    address += uleb(program, at + 1)?.checked_mul(header.min_inst)?;
                    (false, at + 1 + leb(program, at + 1)?)
                }
                8 => {
                    address += u64::from((255 - header.opcode_base) / header.line_range) * header.min_inst;
                    (false, at + 1)
                }
                9 => {
                    address += u64::from(u16::from_le_bytes(program.get(at + 1..at + 3)?.try_into().ok()?));
                    (false, at + 3)
                }
                _ => {
                    let mut next = at + 1;
                    for _ in 0..*header.operands.get(usize::from(op) - 1)? {
                        next += leb(program, next)?;
                    }
                    (false, next)
                }
            }
        };
        if row {
            if past(address, base) {
                break;
            }
            last_row = Some((next, address));
        }
        at = next;
    }
    let (keep, row_address) = last_row?;
    let advance = (base? + limit).checked_sub(row_address)? / header.min_inst;
    let mut tail = Vec::new();
    if advance > 0 {
        // In SLEB128 form, as nvlink writes every `advance_pc` (`sleb`).
        tail.push(0x02);
        crate::errbar::sleb(i64::try_from(advance).ok()?, &mut tail);
    }
    tail.extend_from_slice(&[0x00, 0x01, 0x01]);
    (keep + tail.len() <= program.len()).then_some((keep, tail))
}

/// U12 resolved (rule 11.2 for line tables): the normal `.debug_line` and
/// `.nv_debug_line_sass` lose the sequence of every losing or dead function:
/// from its `DW_LNE_set_address` (3 bytes before the relocation naming the
/// function) to the next sequence's or the unit's end, the unit's
/// `unit_length` shrinking to match (tpl `-lineinfo`, sm_100 and sm_120,
/// exec and `-r`: both sections byte for byte, 8/8; sm_75..sm_90a keep them).
/// A unit left with no sequence keeps one `DW_LNE_end_sequence` (rule 9.8).
fn cut_line_sequences<'a>(
    inputs: &[InputObject<'a>],
    resolution: &Resolution<'a>,
    layout: &Layout,
    symbols: &SymbolTable,
    table: OutId,
    contents: &mut Contents,
) -> Result<(), LinkError> {
    const SET_ADDRESS_PREFIX: u64 = 3;
    const END_SEQUENCE: [u8; 3] = [0x00, 0x01, 0x01];
    let Some(out) = layout.section(table) else { return Ok(()) };
    let mut cut: Vec<(u64, u64)> = Vec::new();
    // New bytes written where a clipped sequence now ends: (offset, bytes).
    let mut clips: Vec<(u64, Vec<u8>)> = Vec::new();
    let mut lengths: Vec<(u64, u32)> = Vec::new();
    // Sequences moved by the reordering below: (old start, old stop, new start).
    let mut moves: Vec<(u64, u64, u64)> = Vec::new();
    let resolver = SymbolResolver { inputs, resolution, layout, symbols };
    let lookup = |i: usize, y: usize| inputs.get(i).and_then(|x| x.symbol(y)).copied();
    let output_index = |input: usize, symbol: usize| {
        resolver.resolve(&lookup, input, symbol, SymbolHome::DebugLine).index.unwrap_or(u32::MAX)
    };
    for piece in &out.pieces {
        let Some(input) = inputs.get(piece.input) else { continue };
        if input.section(piece.section).is_none() {
            continue;
        }
        let bytes = input.contents(piece.section);
        let mut sites: Vec<(u64, usize)> = Vec::new();
        for rs in input.cubin.relocation_sections().filter(|r| r.target as usize == piece.section) {
            for r in rs.entries() {
                if input.symbol(r.symbol as usize).is_some_and(|s| s.st_type != STT_SECTION) {
                    sites.push((r.offset, r.symbol as usize));
                }
            }
        }
        sites.sort_unstable();
        // Units: 32-bit DWARF only (ptxas writes no other).
        let mut unit = 0u64;
        while let Some(word) = usize::try_from(unit).ok().and_then(|u| bytes.get(u..u + 4)) {
            let length = u32::from_le_bytes([word[0], word[1], word[2], word[3]]);
            if length == u32::MAX || length == 0 {
                break;
            }
            let end = unit + 4 + u64::from(length);
            let inside: Vec<&(u64, usize)> = sites.iter().filter(|(o, _)| *o > unit && *o < end).collect();
            let gone: Vec<bool> = inside
                .iter()
                .map(|&&(_, symbol)| {
                    describes_gone_code(inputs, resolution, layout, SymbolRef { input: piece.input, symbol })
                })
                .collect();
            // A unit that loses every sequence keeps its final
            // `DW_LNE_end_sequence` (`00 01 01`): nvlink never leaves a line
            // program empty (debug-lineinfo with `-kernels-used` matching no
            // kernel: unit_length 0x83 → 0x43, header + 3 bytes; a unit
            // keeping any sequence loses the last one's end_sequence with it).
            let keeps_end = !gone.is_empty()
                && gone.iter().all(|&g| g)
                && usize::try_from(end)
                    .ok()
                    .and_then(|e| bytes.get(e.saturating_sub(END_SEQUENCE.len())..e))
                    .is_some_and(|tail| tail == END_SEQUENCE);
            let unit_stop = if keeps_end { end - END_SEQUENCE.len() as u64 } else { end };
            // The sequences of the unit, each from its set_address to the
            // next one's or the unit's end.
            let spans: Vec<(u64, u64)> = inside
                .iter()
                .enumerate()
                .map(|(k, &&(offset, _))| {
                    let start = offset.saturating_sub(SET_ADDRESS_PREFIX);
                    let stop =
                        inside.get(k + 1).map_or(unit_stop, |&&(next, _)| next.saturating_sub(SET_ADDRESS_PREFIX));
                    (start, stop.max(start))
                })
                .collect();
            // Rule 11.2: the kept sequences of a unit come in the output
            // `.symtab` order of their functions, not in input order (merc2
            // `-lineinfo` reversed, sm_100/sm_121: red's `warp_sum` (symbol
            // 75) before `norm_kernel` (93), which the forward link (74, 75)
            // keeps in input order; polyG `-G`). The merc copies keep input
            // order. A unit losing every sequence has nothing to order.
            let mut new_start: Vec<u64> = spans.iter().map(|&(start, _)| start).collect();
            if !keeps_end && spans.len() > 1 && spans.windows(2).all(|w| w[0].1 == w[1].0) {
                let keys: Vec<u32> = inside.iter().map(|&&(_, symbol)| output_index(piece.input, symbol)).collect();
                let mut order: Vec<usize> = (0..spans.len()).collect();
                order.sort_by_key(|&k| keys.get(k).copied().unwrap_or(u32::MAX));
                if order.iter().enumerate().any(|(a, &b)| a != b) {
                    let mut at = spans.first().map_or(0, |s| s.0);
                    for &k in &order {
                        let Some(&(start, stop)) = spans.get(k) else { continue };
                        if let Some(slot) = new_start.get_mut(k) {
                            *slot = at;
                        }
                        moves.push((piece.offset + start, piece.offset + stop, piece.offset + at));
                        at += stop - start;
                    }
                }
            }
            let mut removed = 0u64;
            // Only `.debug_line`'s kept sequences are cut (`clip_sequence`).
            let header = usize::try_from(unit)
                .ok()
                .filter(|_| out.name == ".debug_line")
                .and_then(|u| crate::errbar::LineHeader::read(&bytes, u));
            for (k, &(start, stop)) in spans.iter().enumerate() {
                if !gone.get(k).copied().unwrap_or(false) {
                    // A kept sequence of a replaced copy ends with the
                    // winner's code (`clip_sequence`).
                    let Some((&&(_, symbol), header)) = inside.get(k).zip(header.as_ref()) else { continue };
                    let limit = replaced_by_shorter(inputs, resolution, SymbolRef { input: piece.input, symbol });
                    let program = bytes.get(start as usize..stop as usize);
                    let clip = limit.zip(program).and_then(|(l, p)| clip_sequence(header, p, l));
                    if let Some((keep, tail)) = clip {
                        let at = piece.offset + new_start.get(k).copied().unwrap_or(start);
                        let (from, to) = (at + keep as u64 + tail.len() as u64, at + (stop - start));
                        clips.push((at + keep as u64, tail));
                        cut.push((from, to));
                        removed += to - from;
                    }
                    continue;
                }
                if start < stop {
                    let at = new_start.get(k).copied().unwrap_or(start);
                    cut.push((piece.offset + at, piece.offset + at + (stop - start)));
                    removed += stop - start;
                }
            }
            if removed > 0 {
                let shorter = u32::try_from(u64::from(length).saturating_sub(removed)).unwrap_or(length);
                lengths.push((piece.offset + unit, shorter));
            }
            unit = end;
        }
    }
    if !moves.is_empty() {
        move_sequences(layout, table, &moves, contents, &out.name)?;
    }
    if let Some(body) = contents.data.get_mut(table) {
        let data = body.bytes_mut(&out.name)?;
        for (at, length) in lengths {
            let at = usize::try_from(at).unwrap_or(usize::MAX);
            if let Some(slot) = data.get_mut(at..at.saturating_add(4)) {
                slot.copy_from_slice(&length.to_le_bytes());
            }
        }
        for (at, tail) in &clips {
            let at = usize::try_from(*at).unwrap_or(usize::MAX);
            if let Some(slot) = data.get_mut(at..at.saturating_add(tail.len())) {
                slot.copy_from_slice(tail);
            }
        }
    }
    move_line_references(inputs, layout, table, &cut, contents)?;
    remove_ranges(layout, table, cut, contents)
}

/// Moves line-table sequences (`(old start, old stop, new start)`, output
/// offsets) and the relocations inside them, whose lists stay ascending.
fn move_sequences(
    layout: &Layout,
    table: OutId,
    moves: &[(u64, u64, u64)],
    contents: &mut Contents,
    name: &str,
) -> Result<(), LinkError> {
    if let Some(body) = contents.data.get_mut(table) {
        let data = body.bytes_mut(name)?;
        let old = data.clone();
        for &(start, stop, to) in moves {
            let (start, stop, to) = (start as usize, stop as usize, to as usize);
            if let (Some(from), true) = (old.get(start..stop), to + (stop - start) <= data.len()) {
                data[to..to + (stop - start)].copy_from_slice(from);
            }
        }
    }
    for (id, s) in layout.sections.iter().enumerate() {
        if s.class != SectionClass::Relocation || s.target() != Some(table) {
            continue;
        }
        if let Some(list) = contents.relocations.get_mut(id) {
            for r in list.iter_mut() {
                if let Some(&(start, _, to)) = moves.iter().find(|&&(start, stop, _)| (start..stop).contains(&r.offset))
                {
                    r.offset = r.offset - start + to;
                }
            }
            list.sort_by_key(|r| r.offset);
        }
    }
    Ok(())
}

/// Rule 11.2: offsets into a line table that lost sequences move with it.
/// `.debug_info`'s DW_AT_stmt_list (`R_CUDA_32` against the `.debug_line`
/// section symbol) names the unit of its input, which moves down by the bytes
/// cut before it: two `-G` inputs, sm_100 exec, where the first input's dead
/// `unused_a` sequence (0x17 bytes) goes: the second unit starts at 0x77, not
/// 0x8e, and nvlink's stmt_list says 0x77. Applied values are rewritten, kept
/// entries (`-r`) get the moved addend.
fn move_line_references(
    inputs: &[InputObject<'_>],
    layout: &Layout,
    table: OutId,
    cut: &[(u64, u64)],
    contents: &mut Contents,
) -> Result<(), LinkError> {
    if cut.is_empty() || layout.section(table).is_none() {
        return Ok(());
    }
    let moved = |offset: u64| -> u64 {
        offset
            - cut
                .iter()
                .filter(|&&(start, end)| end <= offset && start < end)
                .map(|&(start, end)| end - start)
                .sum::<u64>()
    };
    for (id, s) in layout.sections.iter().enumerate() {
        if !matches!(s.class, SectionClass::Debug) || s.pieces.is_empty() {
            continue;
        }
        let kept_in =
            layout.sections.iter().position(|r| r.class == SectionClass::Relocation && r.target() == Some(id));
        let mut writes: Vec<(u64, u32)> = Vec::new();
        for piece in &s.pieces {
            let Some(input) = inputs.get(piece.input) else { continue };
            for rs in input.cubin.relocation_sections().filter(|r| r.target as usize == piece.section) {
                for r in rs.entries() {
                    let Some(symbol) = input.symbol(r.symbol as usize) else { continue };
                    let Some(x) = symbol.section_index().filter(|_| symbol.st_type == STT_SECTION) else { continue };
                    let Some((home, base)) = layout.placed(piece.input, x) else { continue };
                    if home != table || r.r_type != R_CUDA_32 {
                        continue;
                    }
                    let old = base.wrapping_add(r.addend.unwrap_or(0) as u64);
                    let new = moved(old);
                    if new == old {
                        continue;
                    }
                    let at = piece.offset + r.offset;
                    let kept = kept_in
                        .and_then(|k| contents.relocations.get_mut(k))
                        .and_then(|list| list.iter_mut().find(|e| e.offset == at));
                    match kept {
                        Some(entry) => entry.addend = new as i64,
                        None => writes.push((at, u32::try_from(new).unwrap_or(u32::MAX))),
                    }
                }
            }
        }
        if writes.is_empty() {
            continue;
        }
        if let Some(body) = contents.data.get_mut(id) {
            let data = body.bytes_mut(&s.name)?;
            for (at, value) in writes {
                let at = usize::try_from(at).unwrap_or(usize::MAX);
                if let Some(slot) = data.get_mut(at..at.saturating_add(4)) {
                    slot.copy_from_slice(&value.to_le_bytes());
                }
            }
        }
    }
    Ok(())
}

/// The start offsets of the units of a `.debug_line` (32-bit DWARF, as
/// ptxas writes it).
fn line_units(bytes: &[u8]) -> Vec<usize> {
    let mut units = Vec::new();
    let mut at = 0usize;
    while let Some(word) = bytes.get(at..at + 4) {
        let length = u32::from_le_bytes([word[0], word[1], word[2], word[3]]) as usize;
        if length == 0 || length == u32::MAX as usize || at + 4 + length > bytes.len() {
            break;
        }
        units.push(at);
        at += 4 + length;
    }
    units
}

/// `-lineinfo` line tables: ptxas's unit header ends, after the file names,
/// with a 4-byte offset into `.debug_str` (0 in the object) where the unit
/// has inlined-function names. Only the merc copy has a relocation for it
/// (`R_MERCURY_ABS32` against `.nv.merc.debug_str`), yet nvlink writes the
/// resolved value (where the input's `.debug_str` went) into the normal
/// `.debug_line` too, at the same place in the unit's header (merc2
/// `-lineinfo`, sm_100/sm_121, exec and `-r`: 0x68, 0x33e, 0x42c, 0x4a4 for
/// red, sort, solver, io; sten's unit has no such field). A field without a
/// relocation (a relinked `-r` output's) keeps its bytes in both.
fn copy_line_string_bases(
    inputs: &[InputObject<'_>],
    layout: &Layout,
    contents: &mut Contents,
    merc: &[Vec<Symbol<'_>>],
) -> Result<(), LinkError> {
    let Some(table) = layout.find(".debug_line") else { return Ok(()) };
    let mut writes: Vec<(usize, u32)> = Vec::new();
    for (i, input) in inputs.iter().enumerate() {
        let find = |name: &str| input.sections().iter().find(|x| x.name == name);
        let (Some(normal), Some(copy)) = (find(".debug_line"), find(".nv.merc.debug_line")) else { continue };
        let Some((home, base)) = layout.placed(i, normal.index) else { continue };
        if home != table {
            continue;
        }
        let (normal_units, copy_units) =
            (line_units(&input.contents(normal.index)), line_units(&input.contents(copy.index)));
        let symbols = merc.get(i).map_or(&[][..], Vec::as_slice);
        for rs in input.cubin.relocation_sections().filter(|r| r.target as usize == copy.index) {
            for r in rs.entries().filter(|r| r.r_type == R_MERCURY_ABS32) {
                let Some(strings) = symbols
                    .get(r.symbol as usize)
                    .filter(|y| y.st_type == STT_SECTION)
                    .and_then(|y| y.section_index())
                    .filter(|&x| input.section(x).is_some_and(|x| x.name == ".nv.merc.debug_str"))
                else {
                    continue;
                };
                let Some((_, strings_base)) = layout.placed(i, strings) else { continue };
                let offset = usize::try_from(r.offset).unwrap_or(usize::MAX);
                let Some(k) = copy_units.iter().rposition(|&u| u <= offset) else { continue };
                let (Some(&unit), Some(&normal_unit)) = (copy_units.get(k), normal_units.get(k)) else { continue };
                let value = strings_base.wrapping_add(r.addend.unwrap_or(0) as u64);
                let at = usize::try_from(base).unwrap_or(usize::MAX).saturating_add(normal_unit + (offset - unit));
                writes.push((at, u32::try_from(value).unwrap_or(u32::MAX)));
            }
        }
    }
    if writes.is_empty() {
        return Ok(());
    }
    if let Some(body) = contents.data.get_mut(table) {
        let data = body.bytes_mut(".debug_line")?;
        for (at, value) in writes {
            if let Some(slot) = data.get_mut(at..at.saturating_add(4)) {
                slot.copy_from_slice(&value.to_le_bytes());
            }
        }
    }
    Ok(())
}

/// The `-G` register-location table (per function: its name, a u32 count,
/// then per entry a u32, the PTX register's name, a u32 location and the u32
/// start and end of the range, offsets in the function's code).
const REGISTER_TABLE: &str = ".nv_debug_info_reg_sass";

/// Rule 11.2 for `.nv_debug_info_reg_sass` (merc only; sm_90 keeps every
/// range): the normal copy keeps every function's block but zeroes the
/// ranges (start and end) of each function not in the output: dead (exec:
/// `unused_a`), a losing weak copy (the second input's `twice<int>`, exec and
/// `-r`), or a local function whose name an earlier input's kept function
/// already has (merc2 `-G`: red's `__iAtomicAdd` after vec's, sort's `__popc`
/// after red's, io's `__iAtomicMax` after red's; 19 zeroed words in every
/// `-r`, the relinked halves' only in the second half). The table has no
/// relocations: nvlink finds the function by name. `.nv.merc.*`'s copy keeps
/// everything. Evidence: merc2 sm_100/sm_120 `-G` `-r`, `-g -r`, relinked `-r`
/// (6/6 sections byte-identical) and the two-input `twice` runs (exec, `-r`).
fn clear_register_ranges(
    inputs: &[InputObject<'_>],
    resolution: &Resolution<'_>,
    layout: &Layout,
    table: OutId,
    contents: &mut Contents,
) -> Result<(), LinkError> {
    let Some(out) = layout.section(table) else { return Ok(()) };
    // The first input with a kept function of each name, and the first
    // defining one, kept or not.
    let mut first_kept: HashMap<&[u8], usize> = HashMap::new();
    let mut first_defined: HashMap<&[u8], usize> = HashMap::new();
    for (k, input) in inputs.iter().enumerate() {
        for s in input.symbols() {
            if s.st_type == STT_FUNC && s.section_index().is_some() {
                first_defined.entry(s.name.as_bytes()).or_insert(k);
            }
            if s.st_type == STT_FUNC && s.section_index().is_some_and(|x| layout.placed(k, x).is_some()) {
                first_kept.entry(s.name.as_bytes()).or_insert(k);
            }
        }
    }
    // Output offsets of the (start, end) pairs to zero.
    let mut clear: Vec<u64> = Vec::new();
    for piece in &out.pieces {
        let Some(input) = inputs.get(piece.input) else { continue };
        if input.section(piece.section).is_none() {
            continue;
        }
        let bytes = input.contents(piece.section);
        // This input's defined functions by name (the first of a name).
        let mut functions: HashMap<&[u8], usize> = HashMap::new();
        for (index, s) in input.symbols().iter().enumerate() {
            if s.st_type == STT_FUNC && s.section_index().is_some() {
                functions.entry(s.name.as_bytes()).or_insert(index);
            }
        }
        let gone = |name: &[u8]| -> bool {
            let Some((&index, symbol)) = functions.get(name).and_then(|i| Some((i, input.symbol(*i)?))) else {
                return false;
            };
            // A local function goes by its name: its block stays when some
            // function of that name is kept and no earlier input defines
            // one, dead or not (sweep26 p274 `G-nog`, sm_100/sm_120: a.cu's
            // dead libdevice `rsqrt` and `exp2` keep their ranges, c.cu's
            // live copies are zeroed).
            if symbol.bind == STB_LOCAL {
                return !first_kept.contains_key(name) || first_defined.get(name).is_some_and(|&k| k < piece.input);
            }
            let here = SymbolRef { input: piece.input, symbol: index };
            describes_gone_code(inputs, resolution, layout, here)
        };
        let mut at = 0usize;
        let string_end = |from: usize| bytes.get(from..).and_then(|b| b.iter().position(|&c| c == 0)).map(|n| from + n);
        let word = |from: usize| bytes.get(from..from + 4).map(|b| u32::from_le_bytes([b[0], b[1], b[2], b[3]]));
        while let Some(name_end) = string_end(at) {
            let name = bytes.get(at..name_end).unwrap_or_default();
            let Some(count) = word(name_end + 1) else { break };
            let zero = gone(name);
            let mut entry = name_end + 5;
            let mut complete = true;
            for _ in 0..count {
                let Some(register_end) = string_end(entry + 4) else {
                    complete = false;
                    break;
                };
                let range = register_end + 5;
                if bytes.len() < range + 8 {
                    complete = false;
                    break;
                }
                if zero {
                    clear.push(piece.offset + range as u64);
                }
                entry = range + 8;
            }
            if !complete {
                break;
            }
            at = entry;
        }
    }
    if clear.is_empty() {
        return Ok(());
    }
    if let Some(body) = contents.data.get_mut(table) {
        let data = body.bytes_mut(&out.name)?;
        for at in clear {
            let at = usize::try_from(at).unwrap_or(usize::MAX);
            if let Some(slot) = data.get_mut(at..at.saturating_add(8)) {
                slot.fill(0);
            }
        }
    }
    Ok(())
}

/// Removes output byte ranges of section `target` and moves (or drops) the
/// relocations that patch it accordingly.
fn remove_ranges(
    layout: &Layout,
    target: OutId,
    cut: Vec<(u64, u64)>,
    contents: &mut Contents,
) -> Result<(), LinkError> {
    splice_ranges(layout, target, cut.into_iter().map(|(start, end)| (start, end, Vec::new())).collect(), contents)
}

/// Replaces byte ranges of output section `target` (`(start, end, new
/// bytes)`, not overlapping): later bytes and the relocations patching them
/// move; a relocation inside a replaced range keeps its place from the
/// range's start when the new bytes still reach it, else it goes.
fn splice_ranges(
    layout: &Layout,
    target: OutId,
    mut cut: Vec<(u64, u64, Vec<u8>)>,
    contents: &mut Contents,
) -> Result<(), LinkError> {
    let frame = target;
    if cut.is_empty() {
        return Ok(());
    }
    cut.sort_unstable_by_key(|c| (c.0, c.1));
    let name = layout.section(frame).map_or("", |s| s.name.as_str());
    if let Some(body) = contents.data.get_mut(frame) {
        let data = body.bytes_mut(name)?;
        let mut kept = Vec::with_capacity(data.len());
        let mut at = 0usize;
        for (start, end, bytes) in &cut {
            let (start, end) =
                (usize::try_from(*start).unwrap_or(usize::MAX), usize::try_from(*end).unwrap_or(usize::MAX));
            kept.extend_from_slice(data.get(at..start.max(at)).unwrap_or_default());
            kept.extend_from_slice(bytes);
            at = at.max(end);
        }
        kept.extend_from_slice(data.get(at..).unwrap_or_default());
        *data = kept;
    }
    let moved = |offset: u64| -> Option<u64> {
        // Signed: a range may grow.
        let mut shift = 0i64;
        for (start, end, bytes) in &cut {
            if offset >= *end {
                shift += (*end - *start) as i64 - bytes.len() as i64;
            } else if offset >= *start {
                let inside = offset - start;
                return (inside < bytes.len() as u64).then(|| (*start as i64 - shift) as u64 + inside);
            }
        }
        Some((offset as i64 - shift) as u64)
    };
    for (id, s) in layout.sections.iter().enumerate() {
        if s.class != SectionClass::Relocation || s.target() != Some(frame) {
            continue;
        }
        if let Some(list) = contents.relocations.get_mut(id) {
            list.retain_mut(|r| match moved(r.offset) {
                Some(o) => {
                    r.offset = o;
                    true
                }
                None => false,
            });
        }
    }
    Ok(())
}

/// Rule 7.9 (merc): every FDE's CIE pointer names the CIE before it. ptxas
/// 13.5 writes the merc copy's offset into `.debug_frame`'s second FDE
/// (0x70 where the CIE is at 0x68); nvlink points it at the real CIE.
/// 64-bit DWARF only (`0xffffffff` escape), as ptxas writes it. Except in
/// `raw`: the FDEs of an input whose CIE pointers have no relocation (a `-r`
/// output's `.nv.merc.debug_frame`) keep their bytes, pointing into the
/// start of the merged section (shm_b + shm_a's `-r` output on sm_100: 0, not
/// 0x1c0; rule 7.9).
fn fix_cie_pointers(data: &mut [u8], raw: &[(u64, u64)]) {
    let mut at = 0usize;
    let mut cie: Option<u64> = None;
    while let Some(head) = data.get(at..at + 20) {
        if head[..4] != [0xff; 4] {
            return;
        }
        let mut len = [0u8; 8];
        len.copy_from_slice(&head[4..12]);
        let Ok(length) = usize::try_from(u64::from_le_bytes(len)) else { return };
        let mut id = [0u8; 8];
        id.copy_from_slice(&head[12..20]);
        if u64::from_le_bytes(id) == u64::MAX {
            cie = Some(at as u64);
        } else if raw.iter().any(|&(from, to)| (from..to).contains(&(at as u64))) {
            // Kept as the input has it.
        } else if let (Some(c), Some(field)) = (cie, data.get_mut(at + 12..at + 20)) {
            field.copy_from_slice(&c.to_le_bytes());
        }
        let Some(next) = at.checked_add(12).and_then(|x| x.checked_add(length)) else { return };
        if next <= at {
            return;
        }
        at = next;
    }
}

/// The byte ranges of `out` whose input had no relocation against a section
/// symbol (ptxas relocates each FDE's CIE pointer against `.debug_frame`; a
/// `-r` output has resolved and dropped those).
fn unrelocated_cie_pointers(inputs: &[InputObject<'_>], out: &OutSection) -> Vec<(u64, u64)> {
    out.pieces
        .iter()
        .filter_map(|p| {
            let input = inputs.get(p.input)?;
            let size = input.section(p.section)?.size;
            let relocated = input.cubin.relocation_sections().filter(|r| r.target as usize == p.section).any(|r| {
                r.entries().any(|e| input.symbol(e.symbol as usize).is_some_and(|y| y.st_type == STT_SECTION))
            });
            (!relocated).then_some((p.offset, p.offset.saturating_add(size)))
        })
        .collect()
}

/// The Mercury metadata sections nvlink regenerates: the merc copies of
/// `.nv.info`, `.nv.callgraph` and `.nv.prototype` are byte copies of the
/// normal ones (90/90, 90/90, 75/75 links; the merc symtab mirrors the normal
/// one), `.nv.merc.nv.info.<fn>` is rule 7.2 on the merc input section.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub(crate) enum Generated {
    NvInfo,
    FunctionInfo,
    CallGraph,
    Prototype,
    /// `.nv.merc.nv.constant.entry_image_header_indices.<k>`: one zero u32
    /// per texture/surface slot (rule 11.5).
    HeaderIndices,
}

pub(crate) fn generated(s: &OutSection) -> Option<Generated> {
    if s.class != SectionClass::Mercury {
        return None;
    }
    match s.sh_type {
        SHT_CUDA_MERCURY_CONSTANT_IMGHDR if s.pieces.is_empty() => Some(Generated::HeaderIndices),
        SHT_CUDA_MERCURY_INFO if s.flags & SHF_INFO_LINK != 0 => Some(Generated::FunctionInfo),
        SHT_CUDA_MERCURY_INFO => Some(Generated::NvInfo),
        SHT_CUDA_MERCURY_CALLGRAPH => Some(Generated::CallGraph),
        SHT_CUDA_MERCURY_PROTOTYPE => Some(Generated::Prototype),
        _ => None,
    }
}

/// Rule 2: (`sh_link`, `sh_info`) of a Mercury section, given the header
/// indices of `.strtab` and `.nv.merc.symtab`; `None` for the rest.
pub(crate) fn link_info(s: &OutSection, strtab: u32, merc_symtab: u32, symbols: &SymbolTable) -> Option<(u32, u32)> {
    let &(_, link, _) = LINKS.iter().find(|(t, _, _)| *t == s.sh_type && s.class == SectionClass::Mercury)?;
    match link {
        MercLink::StrTab => Some((strtab, symbols.merc.as_ref().map_or(0, |m| m.first_global))),
        MercLink::MercSymTab => Some((merc_symtab, u32::MAX)),
    }
}

/// Rules 4.3 and U1: the merc `.shstrtab` (NUL, the names in header order,
/// 36 zero bytes) and each kept section's name offset.
pub(crate) fn shstrtab(layout: &Layout, kept: &[OutId]) -> (Vec<u8>, HashMap<OutId, u32>) {
    let mut bytes = vec![0u8];
    let mut offsets = HashMap::new();
    // Rule 1.4: a name two sections carry is written once.
    let mut named: HashMap<&str, u32> = HashMap::new();
    for &id in kept {
        let Some(s) = layout.section(id) else { continue };
        if let Some(&o) = named.get(s.name.as_str()) {
            offsets.insert(id, o);
            continue;
        }
        let o = u32::try_from(bytes.len()).unwrap_or(u32::MAX);
        named.insert(&s.name, o);
        offsets.insert(id, o);
        bytes.extend_from_slice(s.name.as_bytes());
        bytes.push(0);
    }
    bytes.resize(bytes.len() + SHSTRTAB_PADDING, 0);
    (bytes, offsets)
}

/// The capsule starts with the header index of its function's `.text`
/// section (a u32; 90/90 links).
pub(crate) fn patch_capsule(s: &OutSection, body: &mut [u8], text_index: Option<u32>) {
    if s.sh_type != SHT_CUDA_CAPMERC {
        return;
    }
    if let (Some(index), Some(field)) = (text_index, body.get_mut(..4)) {
        field.copy_from_slice(&index.to_le_bytes());
    }
}

/// The `.text.<fn>` a capsule codes.
pub(crate) fn capsule_text(s: &OutSection) -> Option<String> {
    (s.sh_type == SHT_CUDA_CAPMERC).then(|| s.name.strip_prefix(".nv.capmerc").map(str::to_string)).flatten()
}

pub(crate) fn is_merc_symtab(s: &OutSection) -> bool {
    s.class == SectionClass::Mercury && s.sh_type == SHT_CUDA_MERCURY_SYMTAB
}

/// Whether output section `id` is the `.text` of a kernel.
fn is_kernel_text(inputs: &[InputObject<'_>], layout: &Layout, id: OutId) -> bool {
    let Some(s) = layout.section(id) else { return false };
    let Some(name) = s.name.strip_prefix(".text.") else { return false };
    s.pieces.iter().any(|p| {
        inputs.get(p.input).is_some_and(|i| {
            i.cubin.symbols().iter().any(|y| y.name == name && y.section_index() == Some(p.section) && is_kernel(y))
        })
    })
}

use crate::scoreboard::{CONTROL_SHIFT, DEPBAR_OPCODE, LOAD_STACK_POINTER};
const NO_BARRIER: u64 = crate::scoreboard::NO_BARRIER as u64;

/// Rule 11.3: nvlink's Mercury finaliser, linking an executable, takes the
/// write scoreboard off a kernel's `LDC R1, c[0x0][0x37c]` when nothing ever
/// waits on it (the kernel has no stack) and allocates the scoreboards
/// again (`scoreboard::reallocate`, where ptxas's numbering is reproduced by
/// the model). Where the model does not apply, the case first seen: the load
/// sets barrier 0 and no other instruction names barrier 0, and the barriers
/// ptxas numbered above it move down by one: write/read barriers 1..4 become
/// 0..3 and wait masks shift likewise; barrier 5 stays (13/13 such kernels in
/// the merc exec fixtures).
fn drop_stack_scoreboard(text: &mut [u8]) {
    if crate::scoreboard::reallocate(text) {
        return;
    }
    let fields = |hi: u64| {
        let c = hi >> CONTROL_SHIFT;
        ((c >> 5) & 7, (c >> 8) & 7, (c >> 11) & 0x3f)
    };
    let mut words = crate::errbar::instruction_words(text);
    let Some(&(lo, hi)) = words.first() else { return };
    if lo != LOAD_STACK_POINTER || fields(hi).0 != 0 {
        return;
    }
    let names_zero = words.iter().skip(1).any(|&(lo, hi)| {
        let (w, r, wait) = fields(hi);
        w == 0 || r == 0 || wait & 1 != 0 || lo & 0xfff == DEPBAR_OPCODE
    });
    if names_zero {
        return;
    }
    let down = |b: u64| if (1..=4).contains(&b) { b - 1 } else { b };
    for (k, (_, hi)) in words.iter_mut().enumerate() {
        let (w, r, wait) = fields(*hi);
        let (w, r) = if k == 0 { (NO_BARRIER, r) } else { (down(w), down(r)) };
        let wait = ((wait >> 1) & 0xf) | (wait & 0x20);
        let control = ((*hi >> CONTROL_SHIFT) & !(0xfff << 5)) | (w << 5) | (r << 8) | (wait << 11);
        *hi = (*hi & ((1u64 << CONTROL_SHIFT) - 1)) | (control << CONTROL_SHIFT);
    }
    for (chunk, (lo, hi)) in text.chunks_exact_mut(16).zip(words) {
        chunk[..8].copy_from_slice(&lo.to_le_bytes());
        chunk[8..].copy_from_slice(&hi.to_le_bytes());
    }
}

/// Rule 11.7: the items of a capsule's record stream. The capsule starts
/// with a header: u32 `.text` index, u32 `0xc000_0001`, u32 count of the
/// function's `.text` instructions (NOP padding excluded), then one bit per
/// instruction in u32 words. A set bit is an instruction the capsule does
/// not carry (the finaliser takes it from `.text`); every clear bit has one
/// item, in `.text` order: a record of `16 * n` bytes (first byte `n`,
/// 1..=0x3f; the second byte its opcode), or a 4-byte item (first byte
/// 0x40..=0x4f: calls, returns); a 2-byte entry 0x5x/0xdx with low nibble 0
/// is an item (the closing branch's ends the stream), with low nibble 1 a
/// mark before a record, no item (rule 11.9).
struct CapsuleItems {
    count: usize,
    /// The instruction bits, lowest instruction first.
    copied: Vec<bool>,
    /// Per item: (capsule offset, first byte, second byte).
    items: Vec<(usize, u8, u8)>,
}

fn capsule_items(bytes: &[u8]) -> Option<CapsuleItems> {
    let word = |at: usize| bytes.get(at..at + 4).map(|b| u32::from_le_bytes([b[0], b[1], b[2], b[3]]));
    let count = usize::try_from(word(8)?).ok()?;
    let words = count.div_ceil(32);
    // The bitmap must lie in the capsule before anything is sized by the
    // count: a corrupt count (found by fuzzing: 0xffff_ff.. in a mutated
    // sm_100a `calls_lib`) would otherwise ask for gigabytes.
    if words.checked_mul(4).and_then(|b| b.checked_add(12)).is_none_or(|end| end > bytes.len()) {
        return None;
    }
    let mut copied = Vec::with_capacity(count);
    for i in 0..count {
        let w = word(12 + 4 * (i / 32))?;
        copied.push(w >> (i % 32) & 1 != 0);
    }
    let mut items = Vec::new();
    let mut at = 12 + 4 * words;
    while let Some(&first) = bytes.get(at) {
        let second = bytes.get(at + 1).copied().unwrap_or(0);
        let size = match first {
            1..=0x3f => 16 * usize::from(first),
            0x40..=0x4f => 4,
            // A 2-byte mark before a record (`51 01`: sten `stencil_smem`'s
            // `@P1 BRA`, whose own bit is set; `51 02` before a carried
            // `EXIT`, `d1 01`, `d1 04`: low nibble 1): no instruction of its
            // own. Low nibble 0: the closing item, or (not last:
            // stencil_texy's `d0 00`) an instruction's 2-byte item.
            0x50..=0x5f | 0xd0..=0xdf => {
                if first & 0xf != 0 && at + 2 < bytes.len() {
                    at += 2;
                    continue;
                }
                items.push((at, first, second));
                if at + 2 >= bytes.len() {
                    break;
                }
                at += 2;
                continue;
            }
            // An item this reader does not know: the stream after it cannot be followed.
            _ => break,
        };
        items.push((at, first, second));
        at += size;
    }
    Some(CapsuleItems { count, copied, items })
}

/// Rule 11.7: a 32-byte capsule record with this opcode is a constant load
/// (`LDC`); its constant offset is the field at record + 0x1c (ptxas leaves
/// 0 there for a relocated operand).
const LDC_OPCODE: u8 = 0x22;
const LDC_UNITS: u8 = 2;
const LDC_FIELD: usize = 0x1c;

/// Rule 11.7: for the capsule (input section `capsule` of `input`), the
/// capsule offset of the field each `.nv.merc.rela.text.<fn>` entry patches,
/// keyed by the entry's offset in the expanded code. The merc relocations
/// and the `.rela.text.<fn>` ones are the same list (same symbols, each
/// sorted by offset); a `.text` relocation's offset / 16 is its instruction,
/// whose capsule item is the number of carried instructions before it. Only
/// `LDC` records are mapped; relocations of copied instructions (e.g. `MOV R,
/// sym`) and of other records patch nothing in the file. When the two lists
/// do not pair up, nothing is mapped (no byte is guessed).
fn capsule_fields(input: &InputObject<'_>, merc: &[Symbol<'_>], capsule: usize) -> HashMap<u64, usize> {
    let mut out = HashMap::new();
    let Some(cap) = input.section(capsule) else { return out };
    let Some(text) = input.symbol((cap.info & 0x00ff_ffff) as usize).and_then(|f| f.section_index()) else {
        return out;
    };
    let Some(stream) = capsule_items(cap.bytes()) else { return out };
    let is_merc = |section: usize| input.section(section).is_some_and(|s| s.sh_type == SHT_CUDA_MERCURY_RELA);
    let collect = |target: usize, want_merc: bool| {
        let mut list: Vec<develf_parse::elf::Relocation> = input
            .cubin
            .relocation_sections()
            .filter(|r| r.target as usize == target && is_merc(r.section) == want_merc)
            .flat_map(|r| r.entries().collect::<Vec<_>>())
            .collect();
        list.sort_by_key(|r| r.offset);
        list
    };
    let (expanded, normal) = (collect(capsule, true), collect(text, false));
    // The merc list may hold relocations the `.text` one lacks: ptxas
    // relocates the Mercury code of a kernel with static `__shared__` against
    // `.nv.reservedSmem.cap` too (sten `stencil_smem`, sm_100..sm_121: 7 merc
    // entries, 6 in `.rela.text`, and nvlink still patches the four `c_coef`
    // loads after it). Those are skipped; a `.text` relocation with no merc
    // partner in order still maps nothing.
    let mut pairs = Vec::with_capacity(normal.len());
    let mut rest = expanded.iter();
    for n in &normal {
        let Some(ns) = input.symbol(n.symbol as usize) else { return out };
        let partner = rest.by_ref().find(|m| {
            merc.get(m.symbol as usize).is_some_and(|ms| {
                (ms.st_type == STT_SECTION) == (ns.st_type == STT_SECTION)
                    && (ms.st_type == STT_SECTION || ms.name == ns.name)
            })
        });
        let Some(m) = partner else { return HashMap::new() };
        pairs.push((m.offset, n.offset));
    }
    // The bits number the function's instructions without its NOPs, not
    // only the padding ones (sten `stencil_smem`: a `NOP` at 0x200 inside
    // the code, count 55 for 56 instructions before the padding).
    if pairs.is_empty() {
        return out;
    }
    // Code may live outside the input's bytes (read when needed, `Input::code`).
    let code: Vec<u8> = match input.piece_bytes(text) {
        crate::body::PieceBytes::Here(b) => b.to_vec(),
        crate::body::PieceBytes::Elsewhere { source, offset, len } => {
            let mut buf = vec![0; usize::try_from(len).unwrap_or(0)];
            if source.read_exact_at(&mut buf, offset).is_err() {
                return out;
            }
            buf
        }
    };
    // Rule 11.9: the first numbering that pairs up with the capsule's count,
    // also a fence's, a release operation's or a grid sync's (sweep16 p186
    // `sssp_persistent`, `grid.sync()` between two loads of `c_max_iters`:
    // numbered without its arrival `ATOM.E`, the second load's record is
    // found and patched, as nvlink does; sm_100/sm_120 exec and `-r`);
    // NOPs left out otherwise.
    let numbered = crate::errbar::fallback_numbering(&code, stream.count, &crate::errbar::CAPSULE_NUMBERINGS)
        .unwrap_or_else(|| crate::errbar::numbering_without(&code, crate::errbar::CAPSULE_NUMBERINGS[0]).0);
    for (expanded_offset, text_offset) in pairs {
        let Some(Some(i)) = usize::try_from(text_offset / 16).ok().and_then(|i| numbered.get(i).copied()) else {
            continue;
        };
        if i >= stream.count || stream.copied.get(i).copied().unwrap_or(true) {
            continue;
        }
        let k = i - stream.copied.iter().take(i).filter(|&&c| c).count();
        if let Some(&(at, units, opcode)) = stream.items.get(k) {
            if units == LDC_UNITS && opcode == LDC_OPCODE {
                out.insert(expanded_offset, at + LDC_FIELD);
            }
        }
    }
    out
}

/// The name prefix of a kernel's texture/surface header-index table (rule 11.5).
const HEADER_INDICES: &str = ".nv.merc.nv.constant.entry_image_header_indices.";

/// The texture bank (rule 11.6) whose `.nv.constant0.<k>` is `s`, on a Mercury executable.
fn slotted_bank<'l>(layout: &'l Layout, s: &OutSection) -> Option<&'l crate::layout::TextureBank> {
    if !layout.mercury || s.class != SectionClass::ConstantBank {
        return None;
    }
    let id = layout.find(&s.name)?;
    layout.texture_banks.iter().find(|t| t.bank == id)
}

/// Rule 11.5 (Mercury executables): for each kernel bank that got texture/
/// surface slots (rule 11.6) nvlink's finaliser
/// * re-creates the bank last: its header follows the rest of class 14
///   ([`order_key`]), its `.symtab` section symbol and `.strtab` name come
///   after `.nv.prototype`'s (the creation log; ptx exec 3/3, runs t1, s1,
///   ts2, tsn, ts120);
/// * marks its `.rela.nv.constant0.<k>` `SHF_INFO_LINK` (non-merc `.rel`: 0);
/// * adds `.nv.merc.nv.constant.entry_image_header_indices.<k>` (one zero u32
///   per slot, in slot order; `sh_info` = the kernel's capsule) and its
///   `.nv.merc.rela...` (one `R_MERCURY_TEX/SURF_HEADER_INDEX` per slot,
///   [`header_index_relocations`]); in class 20 they sort with the other
///   merc relocations and constants, created after every input's.
pub(crate) fn header_index_tables(layout: &mut Layout) {
    if !layout.mercury || !layout.executable {
        return;
    }
    for k in 0..layout.texture_banks.len() {
        let Some((text, bank, relocations, slots)) =
            layout.texture_banks.get(k).map(|t| (t.text, t.bank, t.relocations, t.slots.len()))
        else {
            continue;
        };
        if let Some(at) = layout.log.iter().position(|e| *e == LogEntry::section(bank)) {
            let entry = layout.log.remove(at);
            layout.log.push(entry);
        }
        if let Some(rel) = layout.sections.get_mut(relocations) {
            rel.flags = SHF_INFO_LINK;
        }
        let Some(text_name) = layout.section(text).map(|s| s.name.clone()) else { continue };
        let Some(function) = text_name.strip_prefix(".text.") else { continue };
        let capsule = layout.find(&format!(".nv.capmerc{text_name}"));
        let table_name = format!("{HEADER_INDICES}{function}");
        let rela_name = format!(".nv.merc.rela{}", table_name.strip_prefix(".nv.merc").unwrap_or(&table_name));
        let table = layout.push_section(OutSection {
            name: table_name.into(),
            class: SectionClass::Mercury,
            sh_type: SHT_CUDA_MERCURY_CONSTANT_IMGHDR,
            flags: SHF_CUDA_MERCURY | SHF_INFO_LINK | SHF_ALLOC,
            align: 4,
            entsize: 0,
            size: 4 * slots as u64,
            pieces: smallvec::SmallVec::new(),
            info: capsule.map_or(InfoField::Zero, InfoField::Section),
            keep: Keep::Always,
            target_index: None,
        });
        let rela = layout.push_section(OutSection {
            name: rela_name.into(),
            class: SectionClass::Mercury,
            sh_type: SHT_CUDA_MERCURY_RELA,
            flags: SHF_CUDA_MERCURY | SHF_INFO_LINK,
            align: 8,
            entsize: 24,
            size: 0,
            pieces: smallvec::SmallVec::new(),
            info: InfoField::Section(table),
            keep: Keep::IfNotEmpty,
            target_index: OutSection::index_of(table),
        });
        if let Some(t) = layout.texture_banks.get_mut(k) {
            t.header_indices = Some((table, rela));
        }
    }
}

/// Rule 11.5: `.nv.merc.rela.nv.constant.entry_image_header_indices.<k>` =
/// (4·i, `R_MERCURY_TEX_HEADER_INDEX` / `R_MERCURY_SURF_HEADER_INDEX`, the
/// reference) per slot i, highest first like the bank's own
/// `.rela.nv.constant0.<k>` (rule 8.1). The merc symtab mirrors `.symtab`
/// up to the trailing banks, so the reference's index is its `.symtab` one.
fn header_index_relocations(layout: &Layout, symbols: &SymbolTable, contents: &mut Contents) {
    for t in &layout.texture_banks {
        let Some((_, rela)) = t.header_indices else { continue };
        let first = t.slots.first().map_or(0, |s| s.offset);
        let mut list: Vec<OutRelocation> = t
            .slots
            .iter()
            .filter_map(|s| {
                let symbol = symbols.global_index.get(s.global).copied().flatten()?;
                let r_type = match s.r_type {
                    R_CUDA_TEX_HEADER_INDEX => R_MERCURY_TEX_HEADER_INDEX,
                    R_CUDA_SURF_HEADER_INDEX => R_MERCURY_SURF_HEADER_INDEX,
                    _ => return None,
                };
                Some(OutRelocation { offset: s.offset.saturating_sub(first), r_type, symbol, addend: 0 })
            })
            .collect();
        list.sort_by_key(|r| std::cmp::Reverse(r.offset));
        if rela < layout.sections.len() {
            contents.relocations.set(rela, list);
        }
    }
}

/// Rule 11.5: a Mercury executable's kernel with texture/surface slots gets
/// `EIATTR_BINDLESS_TEXTURE_BANK` and `EIATTR_BINDLESS_SURFACE_BANK` (bank
/// 0) at the end of its `.nv.info.<k>`, after group F; both records also
/// when it has slots of one kind only (runs t1, s1), none on a kernel
/// without slots (tsn `k2`), none in `.nv.merc.nv.info.<k>`.
pub(crate) fn bindless_records(layout: &Layout, info_name: &str, text: OutId) -> Vec<Attribute> {
    let slotted = layout.texture_banks.iter().any(|t| t.text == text && t.header_indices.is_some());
    if !slotted || info_name.starts_with(".nv.merc.") {
        return Vec::new();
    }
    vec![Attribute::BindlessTextureBank(ByteValue(0)), Attribute::BindlessSurfaceBank(ByteValue(0))]
}

#[cfg(test)]
#[allow(clippy::unwrap_used)] // a failing unwrap is a failing test
mod tests {
    use super::*;

    /// A capsule whose instruction count promises a bitmap longer than the
    /// capsule is refused before anything is sized by that count (the link
    /// fuzz: a mutated sm_100a `calls_lib` asked for a 4 GB bitmap and
    /// aborted under a memory limit).
    #[test]
    fn capsule_count_past_its_bytes_is_refused() {
        let mut capsule = Vec::new();
        for w in [0u32, 0xc000_0001, 0xffff_ff00] {
            capsule.extend_from_slice(&w.to_le_bytes());
        }
        capsule.extend_from_slice(&[0u8; 20]);
        assert!(capsule_items(&capsule).is_none());
        // The same capsule with a count its bitmap holds is read.
        capsule[8..12].copy_from_slice(&40u32.to_le_bytes());
        let items = capsule_items(&capsule).unwrap();
        assert_eq!((items.count, items.copied.len()), (40, 40));
    }
}
