//! Phase 4: the output sections. nvlink creates its sections in a fixed order
//! while it walks the inputs (rule 1.3); that log is also the byte content of
//! `.shstrtab` (rule 4.1) and the order of section symbols (rule 5.1), so it is
//! replayed here exactly, including sections created and then dropped. Input
//! sections of the same name are merged at aligned offsets in command-line
//! order (rule 6); header fields follow rule 2 through one class table.

use crate::gc::{Liveness, is_code_section};
use crate::input::InputObject;
use crate::options::{LinkOptions, OutputKind};
use crate::resolve::{GlobalId, Resolution, SymbolRef, is_kernel};
use compact_str::CompactString;
use develf_format::reloc::{R_CUDA_SURF_HEADER_INDEX, R_CUDA_TEX_HEADER_INDEX};
use develf_format::section::{
    SHF_CUDA_MERCURY, SHT_CUDA_CAPMERC, SHT_CUDA_MERCURY_CALLGRAPH, SHT_CUDA_MERCURY_RELA,
    SHT_CUDA_MERCURY_RESOLVED_RELA, SHT_CUDA_MERCURY_SYMTAB, SHT_RELA,
};
use develf_format::section::{
    SHT_CUDA_CALLGRAPH, SHT_CUDA_COMPAT_INFO, SHT_CUDA_GLOBAL, SHT_CUDA_INFO, SHT_CUDA_PROTOTYPE, SHT_CUDA_RELOCINFO,
    SHT_CUDA_RESERVED_SHARED, SHT_CUDA_RESOLVED_RELA, SHT_CUDA_SHARED, SHT_NOBITS, SHT_NOTE, SHT_PROGBITS, SHT_REL,
    SHT_STRTAB, SHT_SYMTAB, SHT_SYMTAB_SHNDX, is_relocation_type,
};
use develf_format::symbol::{
    STB_LOCAL, STO_CUDA_SHARED, STO_CUDA_SPACE_MASK, STT_CUDA_OBJECT, STT_CUDA_SURFACE, STT_CUDA_TEXTURE, STT_FUNC,
    STT_OBJECT, STT_SECTION,
};
use develf_reloc::keep::SymbolHome;
use hashbrown::{DefaultHashBuilder, HashMap, HashSet, HashTable};
use rayon::prelude::*;
use smallvec::SmallVec;
use std::hash::BuildHasher as _;

/// Index of an output section in creation order.
pub(crate) type OutId = usize;

/// What kind of section an output section is; decides its rank in the header
/// table (rule 1.1), its header fields (rule 2) and its section symbol (rule 5.2).
#[derive(Debug, Clone, Copy, PartialEq, Eq, Hash)]
pub(crate) enum SectionClass {
    ShStrTab,
    StrTab,
    SymTab,
    SymTabShndx,
    Debug,
    TkInfo,
    CuInfo,
    NvInfo,
    Compat,
    FunctionInfo,
    CallGraph,
    Prototype,
    RelAction,
    Relocation,
    ConstantBank,
    Text,
    GlobalInit,
    Shared,
    DebugShared,
    Global,
    /// Sections the fixtures never show (`.nv.local.*`, `.nv.uft*`): merged
    /// like data, placed after `.nv.global`.
    OtherData,
    /// merc: `.nv.constant0.<fn>` (rule 1.1, class 19).
    MercuryConstant0,
    /// `.nv.merc.*`, `.nv.capmerc.*` (rule 1.1, class 20; rule 11).
    Mercury,
}

/// One row of the class table.
#[derive(Debug, Clone, Copy)]
pub(crate) struct ClassRule {
    pub class: SectionClass,
    /// Position in the header table (rule 1.1); ties broken by creation order.
    pub rank: u8,
    /// Has an STT_SECTION symbol (rule 5.2).
    pub section_symbol: bool,
    /// The type an executable gives it (rule 2: sections that get memory).
    pub executable_type: Option<u32>,
}

use SectionClass as C;

/// Rules 1.1, 2 and 5.2 in one table.
pub(crate) static CLASS_TABLE: &[ClassRule] = &[
    ClassRule { class: C::ShStrTab, rank: 1, section_symbol: false, executable_type: None },
    ClassRule { class: C::StrTab, rank: 2, section_symbol: false, executable_type: None },
    ClassRule { class: C::SymTab, rank: 3, section_symbol: false, executable_type: None },
    ClassRule { class: C::Debug, rank: 4, section_symbol: true, executable_type: None },
    // Rule 3.6: kept only with extended numbering; after the debug sections.
    ClassRule { class: C::SymTabShndx, rank: 5, section_symbol: false, executable_type: None },
    ClassRule { class: C::TkInfo, rank: 6, section_symbol: true, executable_type: None },
    ClassRule { class: C::CuInfo, rank: 7, section_symbol: true, executable_type: None },
    ClassRule { class: C::NvInfo, rank: 8, section_symbol: false, executable_type: None },
    ClassRule { class: C::Compat, rank: 9, section_symbol: false, executable_type: None },
    ClassRule { class: C::FunctionInfo, rank: 10, section_symbol: false, executable_type: None },
    ClassRule { class: C::CallGraph, rank: 11, section_symbol: true, executable_type: None },
    ClassRule { class: C::Prototype, rank: 12, section_symbol: true, executable_type: None },
    ClassRule { class: C::RelAction, rank: 13, section_symbol: true, executable_type: None },
    ClassRule { class: C::Relocation, rank: 14, section_symbol: false, executable_type: None },
    ClassRule { class: C::ConstantBank, rank: 15, section_symbol: true, executable_type: Some(SHT_PROGBITS) },
    ClassRule { class: C::Text, rank: 16, section_symbol: true, executable_type: None },
    ClassRule { class: C::GlobalInit, rank: 17, section_symbol: true, executable_type: Some(SHT_PROGBITS) },
    ClassRule { class: C::Shared, rank: 18, section_symbol: true, executable_type: Some(SHT_NOBITS) },
    // Rule 1.1: `.nv_debug.shared` shares the rank of the kernel windows, in
    // creation order (shm: after shm_a's windows, before shm_b's).
    ClassRule { class: C::DebugShared, rank: 18, section_symbol: false, executable_type: Some(SHT_NOBITS) },
    // `.nv.global` too, when created after a kernel window (big: tpl_a's
    // `.nv.global` between its windows and the next input's).
    ClassRule { class: C::Global, rank: 18, section_symbol: true, executable_type: Some(SHT_NOBITS) },
    ClassRule { class: C::OtherData, rank: 21, section_symbol: true, executable_type: None },
    ClassRule { class: C::MercuryConstant0, rank: 22, section_symbol: true, executable_type: Some(SHT_PROGBITS) },
    ClassRule { class: C::Mercury, rank: 23, section_symbol: false, executable_type: None },
];

impl SectionClass {
    pub fn rule(self) -> ClassRule {
        CLASS_TABLE.iter().copied().find(|r| r.class == self).unwrap_or(ClassRule {
            class: self,
            rank: u8::MAX,
            section_symbol: false,
            executable_type: None,
        })
    }

    /// The class of an input section, or `None` for sections the linker
    /// regenerates (string and symbol tables) and the null section.
    pub fn of_input(name: &str, sh_type: u32) -> Option<SectionClass> {
        // Rule 3.6: index tables are remade, `.nv.merc.symtab_shndx` included.
        if sh_type == SHT_SYMTAB_SHNDX {
            return None;
        }
        // Rule 8.2: an earlier `-preserve-relocs` link's record of what it
        // resolved is not carried; the output lists its own (session 41:
        // `-r -preserve-relocs` outputs relinked plain, `-r` or
        // `-preserve-relocs`, sm_75..sm_90: their `.nv.resolvedrela.debug_frame`
        // goes).
        if sh_type == SHT_CUDA_RESOLVED_RELA {
            return None;
        }
        if name.starts_with(".nv.merc.") || name.starts_with(".nv.capmerc.") {
            return Some(C::Mercury);
        }
        if is_relocation_type(sh_type) {
            return Some(C::Relocation);
        }
        Some(match name {
            "" | ".shstrtab" | ".strtab" | ".symtab" | ".symtab_shndx" => return None,
            // CUDA 12.9's Mercury objects carry this (deprecated) note;
            // nvlink writes neither it nor its name (fresh3 ABI-7 `ps_c`,
            // `ps_e` on sm_100/sm_120, exec and `-r`).
            ".note.nv.cuver" => return None,
            ".note.nv.tkinfo" => C::TkInfo,
            ".note.nv.cuinfo" => C::CuInfo,
            ".nv.info" => C::NvInfo,
            ".nv.compat" => C::Compat,
            ".nv.callgraph" => C::CallGraph,
            ".nv.prototype" => C::Prototype,
            ".nv.rel.action" => C::RelAction,
            ".nv.global.init" => C::GlobalInit,
            ".nv.global" => C::Global,
            ".nv_debug.shared" => C::DebugShared,
            _ if name.starts_with(".nv.info.") => C::FunctionInfo,
            _ if name.starts_with(".debug_") || name.starts_with(".nv_debug_") => C::Debug,
            _ if name.starts_with(".nv.constant") => C::ConstantBank,
            _ if is_code_section(name) => C::Text,
            _ if name.starts_with(".nv.shared.") => C::Shared,
            _ => C::OtherData,
        })
    }
}

/// Whether a section of this type takes file space (rule 3.1's NOBITS-like list).
pub(crate) fn occupies_file(sh_type: u32) -> bool {
    !matches!(sh_type, SHT_NOBITS | 0x7000_0007 | 0x7000_0009 | 0x7000_000a | 0x7000_0015)
}

/// One input section's bytes in an output section.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub(crate) struct Piece {
    pub input: usize,
    pub section: usize,
    pub offset: u64,
}

/// Whether an output section gets a header.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub(crate) enum Keep {
    Always,
    /// Created and dropped (`.symtab_shndx` without extended numbering,
    /// rule 3.6): its name stays in `.shstrtab` (rule 4.1).
    Never,
    /// Relocation sections and `.nv.prototype`: only with contents (rule 4.1).
    IfNotEmpty,
    /// Mercury's `.symtab_shndx` and `.nv.merc.symtab_shndx`: only when the
    /// sections written reach 0xff00 (rule 3.6), decided in crate::write.
    IfExtended,
}

/// What fills `sh_info` (rule 2).
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub(crate) enum InfoField {
    Zero,
    /// The header index of another output section.
    Section(OutId),
    /// `.text.<fn>`: the input's top byte (register count) | the function's
    /// symbol index. The symbol as u32s ([`InfoField::function`]): 16 bytes
    /// a section, not 24.
    Function {
        input: u32,
        symbol: u32,
        high_bits: u32,
    },
}

impl InfoField {
    /// Input numbers and symbol indices count what is held in memory: far
    /// below 2^32.
    pub(crate) fn function(symbol: SymbolRef, high_bits: u32) -> InfoField {
        InfoField::Function { input: symbol.input as u32, symbol: symbol.symbol as u32, high_bits }
    }

    /// The function whose symbol index this is, for `.text.<fn>`.
    pub(crate) fn function_symbol(self) -> Option<SymbolRef> {
        match self {
            InfoField::Function { input, symbol, .. } => {
                Some(SymbolRef { input: input as usize, symbol: symbol as usize })
            }
            _ => None,
        }
    }
}

#[derive(Debug, Clone)]
pub(crate) struct OutSection {
    pub name: CompactString,
    pub class: SectionClass,
    pub sh_type: u32,
    pub flags: u64,
    pub align: u64,
    pub entsize: u64,
    /// Bytes (or NOBITS extent) of merged input pieces; generated sections get
    /// their size from their contents.
    pub size: u64,
    pub pieces: SmallVec<[Piece; 1]>,
    pub info: InfoField,
    pub keep: Keep,
    /// For relocation sections: the section patched ([`OutSection::target`];
    /// a u32, which saves 8 bytes of each of a big link's 27,000 sections).
    pub target_index: Option<u32>,
}

impl OutSection {
    /// For relocation sections: the section patched.
    pub fn target(&self) -> Option<OutId> {
        self.target_index.map(|t| t as OutId)
    }

    pub fn set_target(&mut self, target: Option<OutId>) {
        self.target_index = target.and_then(Self::index_of);
    }

    /// A section id as stored: ids count headers held in memory, so they
    /// are far below 2^32.
    pub fn index_of(id: OutId) -> Option<u32> {
        u32::try_from(id).ok()
    }
}

/// One step of nvlink's name log: a section created, or a local symbol met
/// while an input's object symbols are walked (rules 1.3, 4.2, 5.1).
/// Held as u32s (12 bytes, not 24): a big link logs ~38,000 steps, and
/// the symbol table's walk copies the log.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub(crate) enum LogEntry {
    Section(u32),
    /// (input, symbol index).
    Local(u32, u32),
}

impl LogEntry {
    /// Section ids, input numbers and symbol indices are below 2^32: each
    /// is bounded by a count of headers or files held in memory.
    pub(crate) fn section(id: OutId) -> LogEntry {
        LogEntry::Section(id as u32)
    }

    pub(crate) fn local(r: SymbolRef) -> LogEntry {
        LogEntry::Local(r.input as u32, r.symbol as u32)
    }

    /// The step with full-width indices, to match on.
    pub(crate) fn step(self) -> Step {
        match self {
            LogEntry::Section(id) => Step::Section(id as OutId),
            LogEntry::Local(input, symbol) => Step::Local(SymbolRef { input: input as usize, symbol: symbol as usize }),
        }
    }
}

/// A [`LogEntry`] as the linker uses it.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub(crate) enum Step {
    Section(OutId),
    Local(SymbolRef),
}

#[derive(Debug)]
pub(crate) struct Layout {
    /// Creation order (rule 1.3).
    pub sections: Vec<OutSection>,
    /// Per section, once the sections are final: what a symbol defined in
    /// it is to a relocation, and its constant bank number
    /// ([`Layout::section_home`]; made by crate::relocate, which asks for
    /// every relocation).
    pub homes: std::sync::OnceLock<Vec<(SymbolHome, u8)>>,
    /// Sections and local symbols in the order nvlink meets them: the order of
    /// local names in `.strtab` and of locals in `.symtab`.
    pub log: Vec<LogEntry>,
    /// Functions whose `.nv.prototype` entries are all dropped (rule 7.8).
    pub prototype_vetoed: HashSet<GlobalId>,
    /// Per input, per section: where its bytes went.
    /// (Section ids as u32: 16 bytes a slot, not 24; a big link has 30,000.)
    pub placement: Vec<Vec<Option<(u32, u64)>>>,
    pub by_name: NameIndex,
    pub executable: bool,
    pub mercury: bool,
    /// Rule 12: kernel shared windows, extern shared memory.
    pub shared: crate::shared::SharedPlan,
    /// Rule 11.6: texture/surface header slots nvlink adds to kernels' banks.
    pub texture_banks: Vec<TextureBank>,
    /// Rule 8.2 (`-preserve-relocs`; on Mercury only shared-memory entries
    /// fill it): per patched section, its
    /// `.nv.resolvedrela.<target>` (the relocations nvlink resolved).
    pub resolved_relocations: HashMap<OutId, OutId>,
    /// Rule 8.2 on Mercury: per capsule, its
    /// `.nv.merc.nv.resolvedrela.text.<k>` (the shared-memory relocations of
    /// the expanded code nvlink resolved).
    pub merc_resolved_relocations: HashMap<OutId, OutId>,
    /// `-preserve-relocs` (rule 8.2), on every target.
    pub preserve_relocs: bool,
    /// `-g` (rules 9.7, 12.4): keeps what debuggers need, such as the
    /// kernels' shared variables.
    pub debug: bool,
    /// Discarded input sections (a weak duplicate's `.nv.constant0.<k>`)
    /// whose name an output section has: their locals live on there (rule 5.6).
    pub aliases: HashMap<(usize, usize), OutId>,
    /// Losing copies' `.nv.constant2.<fn>` kept as sections of their own
    /// (rule 9): their locals (`<fn>.const_opt.0.8`) go.
    pub loser_banks: HashSet<(usize, usize)>,
    /// The null symbol's value where nvlink writes one there: a losing copy's
    /// function bank merged into kernels' banks (`merge_function_banks`).
    pub null_value: Option<u64>,
    /// `-r -kernels-used`: the `.nv.shared.<k>` of unselected kernels using
    /// extern memory (rule 9.6), sized by their own extern alignment.
    pub unselected_shared: HashSet<OutId>,
    /// `-r -kernels-used`: the input `.nv.shared.<k>` (a relinked `-r`
    /// output's rooms) of unselected kernels, created late (rule 9.6).
    pub unselected_rooms: HashSet<OutId>,
    /// U17: where each linker-allocated `.common` global went (`.nv.global`).
    pub common: HashMap<GlobalId, (OutId, u64)>,
    /// U25: device functions' `.nv.constant2.<fn>` (input, section) copied
    /// into their kernels' banks; `-preserve-relocs` keeps neither their
    /// locals nor the relocations against them.
    pub merged_banks: HashSet<(usize, usize)>,
    /// U27 (sm_110 executables): the reserved shared sections whose
    /// variables move: (lowest input offset, where it goes).
    pub reserved_shared: HashMap<OutId, (u64, u64)>,
    /// The target's SM number: e_flags bits 8..15 name it, not the inputs'
    /// (rule 3.4: sm_80 objects in an sm_86 link give 0x5604).
    pub target_sm: u32,
}

/// Rule 11.6: one texture/surface header slot in a kernel's `.nv.constant0`.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub(crate) struct TextureSlot {
    pub global: GlobalId,
    /// Offset in the kernel's bank 0.
    pub offset: u64,
    /// `R_CUDA_TEX_HEADER_INDEX` or `R_CUDA_SURF_HEADER_INDEX`.
    pub r_type: u32,
}

/// Rule 11.6: a kernel bank that got slots, and the relocation section
/// (`.rel.nv.constant0.<k>`, merc `.rela.nv.constant0.<k>`) naming them.
#[derive(Debug, Clone, PartialEq, Eq)]
pub(crate) struct TextureBank {
    pub text: OutId,
    pub bank: OutId,
    pub relocations: OutId,
    pub slots: Vec<TextureSlot>,
    /// Mercury (rule 11.5): the kernel's
    /// `.nv.merc.nv.constant.entry_image_header_indices.<k>` and its
    /// `.nv.merc.rela...` (crate::mercury::header_index_tables).
    pub header_indices: Option<(OutId, OutId)>,
}

/// Output sections by name. The ids are hashed by their section's name, so
/// each name is stored once, in its [`OutSection`] (a big link creates tens
/// of thousands of sections).
#[derive(Debug, Default)]
pub(crate) struct NameIndex {
    ids: HashTable<OutId>,
    hasher: DefaultHashBuilder,
}

impl NameIndex {
    fn name_of(sections: &[OutSection], id: OutId) -> &str {
        sections.get(id).map_or("", |s| s.name.as_str())
    }

    fn with_capacity(n: usize) -> NameIndex {
        NameIndex { ids: HashTable::with_capacity(n), hasher: DefaultHashBuilder::default() }
    }

    pub fn get(&self, sections: &[OutSection], name: &str) -> Option<OutId> {
        self.ids.find(self.hasher.hash_one(name), |&id| Self::name_of(sections, id) == name).copied()
    }

    /// The hash [`NameIndex::get_hashed`] and [`NameIndex::insert_new`] take.
    fn hash(&self, name: &str) -> u64 {
        self.hasher.hash_one(name)
    }

    fn get_hashed(&self, sections: &[OutSection], hash: u64, name: &str) -> Option<OutId> {
        self.ids.find(hash, |&id| Self::name_of(sections, id) == name).copied()
    }

    /// Indexes section `id` (already in `sections`), whose name, of hash
    /// `hash`, no indexed section has.
    fn insert_new(&mut self, sections: &[OutSection], hash: u64, id: OutId) {
        let hasher = &self.hasher;
        self.ids.insert_unique(hash, id, |&k| hasher.hash_one(Self::name_of(sections, k)));
    }

    /// Makes section `id` (already in `sections`) the one its name finds.
    pub fn insert(&mut self, sections: &[OutSection], id: OutId) {
        let name = Self::name_of(sections, id);
        let hash = self.hasher.hash_one(name);
        match self.ids.find_mut(hash, |&k| Self::name_of(sections, k) == name) {
            Some(slot) => *slot = id,
            None => {
                let hasher = &self.hasher;
                self.ids.insert_unique(hash, id, |&k| hasher.hash_one(Self::name_of(sections, k)));
            }
        }
    }
}

impl Layout {
    pub fn placed(&self, input: usize, section: usize) -> Option<(OutId, u64)> {
        self.placement.get(input).and_then(|p| p.get(section)).copied().flatten().map(|(id, at)| (id as OutId, at))
    }

    /// Where a local symbol of input section `section` goes: [`Layout::placed`],
    /// or, for a discarded weak duplicate, the kept section of the same name
    /// at offset 0 (rule 5.6: the duplicate kernel's `_param`).
    pub fn local_home(&self, input: usize, section: usize) -> Option<(OutId, u64)> {
        if self.loser_banks.contains(&(input, section)) {
            return None;
        }
        self.placed(input, section).or_else(|| self.aliases.get(&(input, section)).map(|&id| (id, 0)))
    }

    pub fn section(&self, id: OutId) -> Option<&OutSection> {
        self.sections.get(id)
    }

    pub fn find(&self, name: &str) -> Option<OutId> {
        self.by_name.get(&self.sections, name)
    }

    /// What a symbol defined in section `id` is to a relocation, and the
    /// section's constant bank number (`.nv.constant<n>`; 0 for others).
    pub fn section_home(&self, id: OutId) -> (SymbolHome, u64) {
        match self.homes.get().and_then(|h| h.get(id)) {
            Some(&(home, bank)) if bank != u8::MAX => (home, u64::from(bank)),
            _ => {
                let name = self.section(id).map_or("", |s| s.name.as_str());
                (SymbolHome::of_section(name), bank_number(name))
            }
        }
    }

    /// Makes [`Layout::section_home`]'s table, in parallel (a big link
    /// has tens of thousands of sections). Two bytes a section: it lives
    /// as long as the layout; a bank number past 254 (none seen) is looked
    /// up by name.
    pub fn index_homes(&self) {
        self.homes.get_or_init(|| {
            self.sections
                .par_iter()
                .map(|s| {
                    let bank = u8::try_from(bank_number(&s.name)).unwrap_or(u8::MAX);
                    (SymbolHome::of_section(&s.name), bank)
                })
                .collect()
        });
    }

    /// Adds a section the linker makes itself (no input has it) at the end
    /// of the creation log; an existing section of that name is returned.
    pub(crate) fn push_section(&mut self, section: OutSection) -> OutId {
        if let Some(id) = self.find(&section.name) {
            return id;
        }
        let id = self.sections.len();
        self.log.push(LogEntry::section(id));
        self.sections.push(section);
        self.by_name.insert(&self.sections, id);
        id
    }
}

/// The `<n>` of `.nv.constant<n>` (and of `.nv.constant<n>.<fn>`); 0 for
/// other sections.
pub(crate) fn bank_number(section: &str) -> u64 {
    let Some(rest) = section.strip_prefix(".nv.constant") else { return 0 };
    let digits = rest.bytes().take_while(u8::is_ascii_digit);
    digits.fold(0u64, |n, d| n.saturating_mul(10).saturating_add(u64::from(d - b'0')))
}

fn align_up(value: u64, align: u64) -> u64 {
    let align = align.max(1);
    value.div_ceil(align).saturating_mul(align)
}

struct Builder<'l, 'a> {
    inputs: &'l [InputObject<'a>],
    resolution: &'l Resolution<'a>,
    liveness: &'l Liveness,
    layout: Layout,
    /// Rule 1.4: input sections of a static function whose name an earlier
    /// input's function already has; they get output sections of their own.
    private: HashSet<(usize, usize)>,
    /// Rule 1.4: output `.text` sections made for a local (static) function.
    local_texts: HashSet<OutId>,
    /// Rule 1.4 on Mercury: the output capsule, `.nv.merc.nv.info.<fn>` and
    /// `.nv.merc.rela.text.<fn>` sections made for a local function.
    local_merc: HashSet<OutId>,
    /// U25: device functions' `.nv.constant2.<fn>` held back from an
    /// executable, to be copied into their kernels' banks.
    function_banks: Vec<(usize, usize)>,
    /// Per input, per section: [`SectionClass::of_input`], which the walk
    /// asks for several times a section.
    classes: Vec<Vec<Option<SectionClass>>>,
    /// Rule 9.6: the `.nv.shared.<k>` of kernels `-kernels-used` or
    /// `-variables-used` does not select, not created with their kernel.
    unselected_kernel_shared: HashSet<(usize, usize)>,
    /// The extern rooms of losing weak kernel copies the lists do not
    /// select (U13, rule 9.2): named late, kept where the kernel is.
    unselected_losing_rooms: HashSet<(usize, usize)>,
    /// Whether an extern `__shared__` variable has made `.nv_debug.shared`
    /// ([`create_debug_shared`]).
    extern_debug_shared: bool,
}

/// Rule 1.4: the sections that belong to one function, by name prefix.
const FUNCTION_SECTION_PREFIXES: [&str; 9] = [
    ".text.",
    ".nv.info.",
    ".rela.text.",
    ".rel.text.",
    ".nv.constant2.",
    ".nv.capmerc.text.",
    ".nv.merc.rela.text.",
    ".nv.merc.rel.text.",
    ".nv.merc.nv.info.",
];

impl Builder<'_, '_> {
    fn class_of(&self, input: usize, section: usize) -> Option<SectionClass> {
        self.classes.get(input).and_then(|c| c.get(section)).copied().flatten()
    }

    fn create(&mut self, name: &str, class: SectionClass, sh_type: u32, flags: u64, align: u64) -> OutId {
        self.create_in(false, name, class, sh_type, flags, align)
    }

    /// A linker-made `.nv.shared.<k>` (a kernel's shared-memory window; its
    /// size and alignment are decided later, crate::shared).
    fn create_shared(&mut self, name: &str) -> OutId {
        self.create(name, C::Shared, SHT_CUDA_SHARED, 0x43, 4)
    }

    /// A `.nv.shared.<k>` that nvlink names (its string stays in `.shstrtab`,
    /// rule 4.1) but writes no header for: a pruned or removed kernel's
    /// (rules 9.2, 13.5).
    fn log_shared_name(&mut self, name: &str) {
        let id = self.create_shared(name);
        if let Some(out) = self.layout.sections.get_mut(id) {
            out.keep = Keep::Never;
        }
    }

    /// Rule 1.4: a static function named like one met before (two files'
    /// `__internal_trig_reduction_slowpathd`, from `sin()`) keeps its own
    /// `.text`, `.nv.info`, relocation and capsule sections.
    fn mark_private(&mut self, input: usize, text: usize) {
        let Some(function) =
            self.inputs.get(input).and_then(|i| i.section(text)).and_then(|t| t.name.strip_prefix(".text."))
        else {
            return;
        };
        let Some(object) = self.inputs.get(input) else { return };
        for s in object.sections() {
            if FUNCTION_SECTION_PREFIXES.iter().any(|p| s.name.strip_prefix(p) == Some(function)) {
                self.private.insert((input, s.index));
            }
        }
    }

    /// U9 with rule 1.4: the `.text`, `.nv.info`, relocation and Mercury
    /// sections a replaced weak copy creates for its later winner, as
    /// [`Builder::create`], but a section of that name an earlier input's
    /// static function made is not taken: a new one is made and found by the
    /// name from then on, so the winner fills it (sweep24 p251 `mixed-G`:
    /// cdmath.cu's plain build has a static `__cuda_sm20_div_rn_f64_full`; of
    /// the `-G` files' weak copies cswitch.cu's is met first and cchain.cu's,
    /// 24 registers, wins; nvlink makes its sections at cswitch.cu's place;
    /// sm_75..sm_120, exec and `-r`; fixtures `ulw`, `ulm`).
    fn create_beside_local(&mut self, name: &str, class: SectionClass, sh_type: u32, flags: u64, align: u64) -> OutId {
        let local = |b: &Self, id: OutId| match b.layout.section(id) {
            Some(s) => match (s.class, s.info) {
                (C::Text, _) => b.local_texts.contains(&id),
                (C::FunctionInfo, InfoField::Section(text)) => b.local_texts.contains(&text),
                (C::Relocation, _) => s.target().is_some_and(|t| b.local_texts.contains(&t)),
                (C::Mercury, _) => b.local_merc.contains(&id),
                _ => false,
            },
            None => false,
        };
        match self.layout.find(name) {
            Some(id) if local(self, id) => {
                let id = self.create_in(true, name, class, sh_type, flags, align);
                self.layout.by_name.insert(&self.layout.sections, id);
                id
            }
            _ => self.create(name, class, sh_type, flags, align),
        }
    }

    fn create_in(
        &mut self,
        private: bool,
        name: &str,
        class: SectionClass,
        sh_type: u32,
        flags: u64,
        align: u64,
    ) -> OutId {
        // One hash of the name for the lookup and the insertion (a big link
        // creates tens of thousands of sections).
        let hash = self.layout.by_name.hash(name);
        let known = self.layout.by_name.get_hashed(&self.layout.sections, hash, name);
        if let (false, Some(id)) = (private, known) {
            return id;
        }
        let entsize = match class {
            C::SymTab => 24,
            C::SymTabShndx => 4,
            C::CallGraph | C::Prototype | C::RelAction => 8,
            C::Relocation if sh_type == SHT_REL => 16,
            C::Relocation => 24,
            _ => 0,
        };
        let sh_type = match (self.layout.executable, class.rule().executable_type) {
            (true, Some(t)) => t,
            _ => sh_type,
        };
        let keep = match class {
            C::SymTabShndx => Keep::Never,
            C::Relocation => Keep::IfNotEmpty,
            _ => Keep::Always,
        };
        let id = self.layout.sections.len();
        self.layout.sections.push(OutSection {
            name: CompactString::from(name),
            class,
            sh_type,
            flags,
            align,
            entsize,
            size: 0,
            pieces: SmallVec::new(),
            info: InfoField::Zero,
            keep,
            target_index: None,
        });
        if !private {
            self.layout.by_name.insert_new(&self.layout.sections, hash, id);
        }
        self.layout.log.push(LogEntry::section(id));
        id
    }

    /// U25: an executable's `.nv.constant2.<fn>` of a device function: it
    /// gets no output section of its own.
    fn is_function_bank(&self, input: usize, index: usize) -> bool {
        if !self.layout.executable {
            return false;
        }
        let Some(object) = self.inputs.get(input) else { return false };
        let Some(s) = object.section(index) else { return false };
        // Rule 6.1: a losing copy's bank goes with the winner's bank when the
        // winner's input has one (`merge_function_banks`), else it is kept as a
        // section of its own (rule 9).
        // A bank no `.const_opt` object lies in (a `-r` output's losing
        // copy's bank kept as a section of its own, rule 6.1) stays one in
        // the executable too (sweep2 p44 `G-r-relink`, sm_75..sm_89:
        // `.nv.constant2._Z6smoothIfET_S0_i` 0x10 and `<smooth<double>>`
        // 0x78, PROGBITS, `sh_info` the winner's `.text`).
        s.name.starts_with(".nv.constant2.")
            && object
                .symbols()
                .iter()
                .any(|y| matches!(y.st_type, STT_OBJECT | STT_CUDA_OBJECT) && y.section_index() == Some(index))
            && object.symbols().iter().any(|y| {
                y.st_type == STT_FUNC
                    && y.section_index() == Some(s.info as usize)
                    && !is_kernel(y)
                    && self.resolution.definition_of(SymbolRef { input, symbol: y.index }).is_none_or(|d| {
                        d.input == input
                            || self.inputs.get(d.input).is_some_and(|w| w.sections().iter().any(|x| x.name == s.name))
                    })
            })
    }

    /// U25 on sm_100+: what goes with a device function's held-back bank —
    /// its merc copy `.nv.merc.nv.constant.optimizer.<fn>` and the
    /// relocation sections (`.rela.nv.constant2.<fn>`, merc
    /// `.nv.merc.rela.nv.constant.optimizer.<fn>`) patching either; they too
    /// are copied into the kernels' sections (crate::layout::merge_function_banks).
    fn held_back(&self, input: usize, index: usize) -> bool {
        if !self.layout.executable {
            return false;
        }
        let Some(object) = self.inputs.get(input) else { return false };
        let Some(s) = object.section(index) else { return false };
        let bank_of_merc = |name: &str| {
            let function = name.strip_prefix(MERC_OPTIMIZER_PREFIX)?;
            let normal = format!(".nv.constant2.{function}");
            object.sections().iter().find(|x| x.name == normal).map(|x| x.index)
        };
        let held_bank = |x: usize| {
            self.is_function_bank(input, x)
                || object.section(x).and_then(|t| bank_of_merc(t.name)).is_some_and(|n| self.is_function_bank(input, n))
        };
        if is_relocation_type(s.sh_type) {
            return held_bank(s.info as usize);
        }
        bank_of_merc(s.name).is_some_and(|n| self.is_function_bank(input, n))
    }

    fn usable(&self, input: usize, section: usize) -> bool {
        !self.resolution.is_discarded(input, section) && !self.liveness.is_dead(input, section)
    }

    /// Creates (or finds) the output section for input section `index` and
    /// appends the input's bytes at the next aligned offset (rule 6).
    fn place(&mut self, input: usize, index: usize) -> Option<OutId> {
        if let Some((id, _)) = self.layout.placed(input, index) {
            return Some(id);
        }
        if !self.usable(input, index) {
            return None;
        }
        self.place_unchecked(input, index)
    }

    /// [`Builder::place`] of a section resolution or dead-code elimination
    /// dropped (a losing weak kernel's `-r` extern room, U13).
    fn place_unchecked(&mut self, input: usize, index: usize) -> Option<OutId> {
        let s = *self.inputs.get(input)?.section(index)?;
        let class = self.class_of(input, index)?;
        if class == C::ConstantBank && self.is_function_bank(input, index) {
            if !self.function_banks.contains(&(input, index)) {
                self.function_banks.push((input, index));
            }
            return None;
        }
        if matches!(class, C::Mercury | C::Relocation) && self.held_back(input, index) {
            return None;
        }
        if class == C::ConstantBank && self.resolution.is_discarded(input, s.info as usize) {
            self.layout.loser_banks.insert((input, index));
        }
        let align = s.addralign.max(1);
        let private = self.private.contains(&(input, index));
        let id = self.create_in(private, s.name, class, s.sh_type, s.flags, align);
        let executable = self.layout.executable;
        let out = self.layout.sections.get_mut(id)?;
        // Rule 12.3: `-r` sums the `.nv_debug.shared` inputs without padding
        // (their variables keep their own values; shm_a 0x100 + shm_b 0x197 +
        // 2 x 0x80 = 0x397).
        let offset = if class == C::DebugShared && !executable { out.size } else { align_up(out.size, align) };
        out.size = offset.saturating_add(s.size);
        // An executable's `.nv_debug.shared` made for extern memory keeps the
        // extern's 16-byte alignment, whichever comes first: an input's
        // 128-aligned section met before the extern ([`create_debug_shared`]
        // resets it) or after (fixture `kupn-ku` with its inputs reversed,
        // sm_75..sm_100: 16 both ways).
        if !(class == C::DebugShared && executable && self.extern_debug_shared) {
            out.align = out.align.max(align);
        }
        // Most sections get one piece, held inline (`pieces`' type).
        out.pieces.push(Piece { input, section: index, offset });
        if let (Some(slot), Ok(id)) =
            (self.layout.placement.get_mut(input).and_then(|p| p.get_mut(index)), u32::try_from(id))
        {
            *slot = Some((id, offset));
        }
        Some(id)
    }
}

/// U13: a losing weak kernel's `.nv.shared.<k>` in input `input` that is a
/// relinked `-r` output's extern room (no variables), when the winning copy
/// (`winner`, its `.text` `winner_text`) has no `.nv.shared` of its own: the
/// room stays with the kernel.
fn losing_room(
    inputs: &[InputObject<'_>],
    input: usize,
    shared_name: &str,
    winner: SymbolRef,
    winner_text: usize,
) -> Option<usize> {
    let loser = inputs.get(input)?;
    let room = loser
        .sections()
        .iter()
        .find(|x| x.name == shared_name)
        .map(|x| x.index)
        .filter(|&x| !loser.symbols().iter().any(|y| y.section_index() == Some(x) && y.st_type != STT_SECTION))?;
    let winner_has_own = inputs.get(winner.input).is_some_and(|w| {
        let name = w.section(winner_text).map(|t| companion(".nv.shared.", t.name));
        w.sections().iter().any(|x| Some(x.name) == name.as_deref())
    });
    (!winner_has_own).then_some(room)
}

/// The undefined symbol whose value is where an sm_110 executable's reserved
/// shared variables start.
const RESERVED_OFFSET: &str = ".nv.reservedSmem.offset0";

/// U27 (sm_110 executables): `.nv.shared.reserved.0` (ptxas: 0x80 bytes, its
/// one variable `__nv_reservedSMEM_gb10b_war_var` of 0x80 bytes at 0x10)
/// holds its variables from `.nv.reservedSmem.offset0`'s value (0x40) on:
/// the variable at 0x40, the section (NOBITS) 0xc0 bytes, the merc copy's
/// 0x80 unchanged with the variable at 0 in `.nv.merc.symtab` (merc2 sm_110
/// exec, reversed and relinked; t, s and t+s alone: 6/6; `-r` keeps ptxas's
/// 0x10). Only this one variable was ever seen, so "from the lowest
/// variable on" is the simplest reading, not a measured rule for several.
fn reserved_shared_windows(b: &mut Builder<'_, '_>) {
    let inputs = b.inputs;
    let Some(start) = inputs
        .iter()
        .flat_map(|i| i.symbols())
        .find(|y| y.name == RESERVED_OFFSET && y.section_index().is_none())
        .map(|y| y.value)
    else {
        return;
    };
    for id in 0..b.layout.sections.len() {
        let Some(out) = b.layout.sections.get(id) else { continue };
        let reserved = out.class != C::Mercury
            && out.pieces.iter().any(|p| {
                inputs
                    .get(p.input)
                    .and_then(|i| i.section(p.section))
                    .is_some_and(|s| s.sh_type == SHT_CUDA_RESERVED_SHARED)
            });
        if !reserved {
            continue;
        }
        let variables: Vec<(u64, u64)> = out
            .pieces
            .iter()
            .flat_map(|p| {
                let symbols = inputs.get(p.input).map(|i| i.symbols()).unwrap_or_default();
                symbols
                    .iter()
                    .filter(move |y| y.section_index() == Some(p.section) && y.st_type != STT_SECTION)
                    .map(move |y| (y.value.saturating_add(p.offset), y.size))
                    .collect::<Vec<_>>()
            })
            .collect();
        let Some(lowest) = variables.iter().map(|&(v, _)| v).min() else { continue };
        let end = variables.iter().map(|&(v, n)| v - lowest + start + n).max().unwrap_or(0);
        let merc = format!(".nv.merc{}", out.name);
        if let Some(out) = b.layout.sections.get_mut(id) {
            out.size = out.size.max(end);
        }
        b.layout.reserved_shared.insert(id, (lowest, start));
        // The merc copy keeps its size; its variables (named by
        // `.nv.merc.symtab`, mirroring `.symtab`) start at 0.
        if let Some(copy) = b.layout.find(&merc) {
            b.layout.reserved_shared.insert(copy, (lowest, 0));
        }
    }
}

/// U27: a symbol's value once [`reserved_shared_windows`] moved its section's
/// variables.
pub(crate) fn reserved_shared_value(layout: &Layout, section: crate::symbols::SymbolSection, value: u64) -> u64 {
    match section {
        crate::symbols::SymbolSection::Section(id) => match layout.reserved_shared.get(&id) {
            Some(&(lowest, start)) => value.saturating_sub(lowest).saturating_add(start),
            None => value,
        },
        crate::symbols::SymbolSection::Raw(_) => value,
    }
}

/// Where each output `.text` in `functions` first comes in input order: its
/// first copy's `.nv.constant2.<fn>` (input, section), or the copy's
/// `.text` where it has no bank. The first copy is the first input `.text`
/// of the same name whose function resolves to the same definition as the
/// placed one's (a weak function's first copy, whichever copy is kept; a
/// local function's own section).
fn first_copies(b: &Builder<'_, '_>, functions: &[OutId]) -> HashMap<OutId, (usize, usize)> {
    let (inputs, resolution) = (b.inputs, b.resolution);
    let mut wanted: HashMap<&str, Vec<(OutId, SymbolRef)>> = HashMap::new();
    for &f in functions {
        let Some(out) = b.layout.section(f) else { continue };
        let Some(def) = out.info.function_symbol().and_then(|y| resolution.definition_of(y)) else { continue };
        wanted.entry(out.name.as_str()).or_default().push((f, def));
    }
    let mut first: HashMap<OutId, (usize, usize)> = HashMap::new();
    for (i, object) in inputs.iter().enumerate() {
        for s in object.sections() {
            let Some(candidates) = wanted.get(s.name) else { continue };
            let Some(function) =
                object.symbols().iter().find(|y| y.st_type == STT_FUNC && y.section_index() == Some(s.index))
            else {
                continue;
            };
            let def = resolution.definition_of(SymbolRef { input: i, symbol: function.index });
            let bank = || {
                object.sections().iter().find(|x| x.name.starts_with(".nv.constant2.") && x.info as usize == s.index)
            };
            for &(f, _) in candidates.iter().filter(|(_, d)| Some(*d) == def) {
                first.entry(f).or_insert_with(|| (i, bank().map_or(s.index, |x| x.index)));
            }
        }
    }
    first
}

/// U25 (sm_100+): the merc copy of a function's or kernel's bank 2.
pub(crate) const MERC_OPTIMIZER_PREFIX: &str = ".nv.merc.nv.constant.optimizer.";

/// The name a function's companion section has: `.nv.info.<fn>` for `.text.<fn>`.
fn companion(prefix: &str, text_name: &str) -> String {
    format!("{prefix}{}", text_name.strip_prefix(".text.").unwrap_or(text_name))
}

pub(crate) fn build(
    options: &LinkOptions,
    inputs: &[InputObject<'_>],
    resolution: &Resolution<'_>,
    liveness: &Liveness,
) -> Layout {
    let executable = options.output == OutputKind::Executable;
    let mercury = options.arch.sm >= 100;
    // Most input sections make or join an output section: room for all of
    // them up front (a big link has tens of thousands).
    let capacity = inputs.iter().map(|i| i.sections().len()).sum::<usize>() + 64;
    let layout = Layout {
        sections: Vec::with_capacity(capacity),
        homes: std::sync::OnceLock::new(),
        log: Vec::with_capacity(capacity),
        prototype_vetoed: HashSet::new(),
        placement: inputs.iter().map(|i| vec![None; i.sections().len()]).collect(),
        by_name: NameIndex::with_capacity(capacity),
        executable,
        mercury,
        shared: crate::shared::SharedPlan::default(),
        texture_banks: Vec::new(),
        resolved_relocations: HashMap::new(),
        merc_resolved_relocations: HashMap::new(),
        preserve_relocs: options.preserve_relocs,
        debug: options.debug,
        target_sm: options.arch.sm,
        aliases: HashMap::new(),
        loser_banks: HashSet::new(),
        null_value: None,
        unselected_shared: HashSet::new(),
        unselected_rooms: HashSet::new(),
        common: HashMap::new(),
        merged_banks: HashSet::new(),
        reserved_shared: HashMap::new(),
    };
    let mut b = Builder {
        inputs,
        resolution,
        liveness,
        layout,
        private: HashSet::new(),
        local_texts: HashSet::new(),
        local_merc: HashSet::new(),
        function_banks: Vec::new(),
        classes: inputs
            .par_iter()
            .map(|i| i.sections().iter().map(|s| SectionClass::of_input(s.name, s.sh_type)).collect())
            .collect(),
        unselected_kernel_shared: HashSet::new(),
        unselected_losing_rooms: HashSet::new(),
        extern_debug_shared: false,
    };
    // The shared-memory facts (rule 12) and the prototype vetoes (rule 7.8)
    // need only the inputs and their resolution: found beside the walk over
    // the inputs, which is one thread's (it replays nvlink's creation order).
    let ((), (mut shared_facts, vetoes)) = rayon::join(
        || place_inputs(&mut b, options),
        || {
            (
                crate::shared::facts(inputs, resolution, executable, options.debug_given(), &liveness.indirect),
                prototype_vetoes(inputs, resolution),
            )
        },
    );
    b.layout.prototype_vetoed = vetoes;
    if executable && options.preserve_relocs {
        shared_facts.set_unwalked(&liveness.unwalked_kernels);
    }

    // Rule 1.3.3: the fixed end.
    b.create(".nv.callgraph", C::CallGraph, SHT_CUDA_CALLGRAPH, 0, 4);
    // Always created (its name is in every `.shstrtab`), kept only when some
    // entry survives (managed: no input has one; reloc exec: all entries dead).
    let prototype = b.create(".nv.prototype", C::Prototype, SHT_CUDA_PROTOTYPE, 0, 4);
    let keep_prototype = any_prototype_survives(inputs, resolution, &b.layout);
    if let Some(out) = b.layout.sections.get_mut(prototype) {
        out.keep = if keep_prototype { Keep::Always } else { Keep::Never };
    }
    // Before `.nv.rel.action` (f6 dynp exec `-kernels-used`: after
    // `.nv.prototype`, before `.nv.rel.action` in `.shstrtab`), and before
    // the kernels' new banks (sweep19 p200 `-preserve-relocs
    // -kernels-used=watchdog_kernel`, sm_75: `fmt_selftest_kernel`'s and
    // `histo_kernel`'s windows, then `.nv.constant2.<watchdog_kernel>`).
    if lists_apply(options) {
        unselected_windows(&mut b, &shared_facts, options);
    }
    // U25: the kernels' new banks are named after `.nv.prototype`, before
    // `.nv.rel.action` (cd sm_75: `.nv.constant2._Z3kd1Pd` in `.shstrtab`).
    merge_function_banks(&mut b);
    if inputs.is_empty() && mercury {
        // Rule 13.6: with no input to carry them, nvlink still writes the
        // merc symbol table and call graph (both generated from the output's).
        let symtab = b.create(".nv.merc.symtab", C::Mercury, SHT_CUDA_MERCURY_SYMTAB, SHF_CUDA_MERCURY, 8);
        let callgraph = b.create(".nv.merc.nv.callgraph", C::Mercury, SHT_CUDA_MERCURY_CALLGRAPH, SHF_CUDA_MERCURY, 4);
        for (id, entsize) in [(symtab, 24), (callgraph, 8)] {
            if let Some(out) = b.layout.sections.get_mut(id) {
                out.entsize = entsize;
            }
        }
    }
    if executable && !mercury {
        b.create(".nv.rel.action", C::RelAction, SHT_CUDA_RELOCINFO, 0, 8);
    }
    if executable {
        assign_texture_slots(&mut b);
        // Rule 11.5: the merc header-index tables of the slotted banks.
        crate::mercury::header_index_tables(&mut b.layout);
    }
    finish_classes(&mut b.layout);
    // Rule 12: sizes, alignment and survival of every `.nv.shared.<k>`.
    crate::shared::plan(inputs, resolution, shared_facts, &mut b.layout);
    if executable {
        reserved_shared_windows(&mut b);
    }
    keep_symtab_shndx(&mut b.layout);
    b.layout
}

/// Rule 9.6: with `-kernels-used`/`-variables-used` (exec and `-r`) a
/// kernel the lists do not select gets no `.nv.shared.<k>` where it is met,
/// except one whose own code uses `extern __shared__` memory and has no
/// section of that name: its window is named here, after `.nv.prototype`
/// (its section symbol after `.nv.callgraph`'s), with an
/// `externsharedinstance` (rule 12.3). Under `-r` it is sized by the kernel's
/// own largest extern alignment. Found three times in session 10: f6 dynp
/// `child_sum` (`-r -kernels-used=tex_k`, `=child_fill`: 0x20, sm_75..sm_120),
/// f7 p1/p3 (12 targets), fresh4 r-kernels-used-shared (`ns1::kern` 0x20/16 ..
/// `ns2::kern` 0x100/128) and fresh5 rku_extshared.
///
/// An executable under `-preserve-relocs` keeps the unselected kernels, and
/// one that reaches a device function's shared variables (in
/// `.nv_debug.shared`) gets its window here too, before those of the extern
/// users: sweep16 p180 `-preserve-relocs -kernels-used=bounding_box`,
/// `kinetic_energy` and `momentum` (inlined `block_reduce<float,256>`'s weak
/// `partial`) get 0x20 each, after the selected kernel's window, the other
/// kept kernels none; their common area makes `.nv_debug.shared` 0x20
/// (sm_75..sm_90; fixture `pku`).
fn unselected_windows(b: &mut Builder<'_, '_>, facts: &crate::shared::Facts, options: &LinkOptions) {
    // The unselected kernels kept, as (input, `.text`), in symbol order.
    let mut unselected: Vec<crate::shared::Node> = Vec::new();
    for input in b.inputs {
        for s in input.symbols() {
            if !is_kernel(s) || crate::host_info::is_root_kernel(options, s.name) {
                continue;
            }
            let Some(text) = s.section_index() else { continue };
            let me = SymbolRef { input: input.index, symbol: s.index };
            if b.resolution.definition_of(me) == Some(me) && !b.resolution.is_discarded(input.index, text) {
                unselected.push((input.index, text));
            }
        }
    }
    // U27 in an executable: so does one whose own code names its template
    // static (WEAK in `.nv_debug.shared`), in symbol order (sweep27 p282
    // `-kernels-used=k_stencil<3>`: `k_stencil<7>`'s and `k_stencil<1>`'s
    // windows, the kernels kept by a table of kernel addresses; sm_75..sm_120;
    // `-r` makes none). `-preserve-relocs` orders them with the others that
    // name a device function's variable (`unwalked_windows_order`).
    let weak_statics = b.layout.executable && !options.preserve_relocs;
    let (users, others): (Vec<_>, Vec<_>) = unselected
        .into_iter()
        .partition(|&n| facts.uses_extern_itself(n) || (weak_statics && facts.uses_weak_static_itself(b.inputs, n)));
    let mut windows = Vec::new();
    if b.layout.executable && options.preserve_relocs {
        windows = crate::shared::unwalked_windows_order(b.inputs, b.resolution, facts, &others);
    }
    windows.extend(users);
    let mut made = Vec::new();
    for (i, text) in windows {
        let Some(out_text) = b.layout.placed(i, text).map(|(id, _)| id) else { continue };
        let text_name = b.inputs.get(i).and_then(|x| x.section(text)).map(|t| t.name).unwrap_or_default();
        made.push((companion(".nv.shared.", text_name), out_text));
    }
    for (name, out_text) in made {
        if b.layout.find(&name).is_some() {
            continue;
        }
        let id = b.create_shared(&name);
        if let Some(out) = b.layout.sections.get_mut(id) {
            out.info = InfoField::Section(out_text);
        }
        // `-r` sizes it by the kernel's own largest extern alignment
        // (`shared::plan_relocatable`).
        b.layout.unselected_shared.insert(id);
    }
}

/// Rules 1.3.1 and 1.3.2: the fixed start, then every input's sections in
/// the order nvlink creates them, then the `.common` globals.
fn place_inputs(b: &mut Builder<'_, '_>, options: &LinkOptions) {
    let (inputs, resolution) = (b.inputs, b.resolution);
    let (executable, mercury) = (b.layout.executable, b.layout.mercury);
    // Rule 8.2: Mercury outputs list only the shared-memory relocations
    // (crate::relocate::Context::resolved_entry); the sections of every other
    // target stay empty and are dropped.
    let preserve_relocs = options.preserve_relocs;
    // Rule 13.6: a link without inputs for sm_90 or later still gets
    // nvlink's `.nv.compat`; so does one of ABI-7 inputs only (fresh2's seven
    // 12.9-ptxas objects for sm_90, exec and `-r`: the accelerator record).
    let has_compat = inputs.iter().any(|i| i.sections().iter().any(|s| s.sh_type == SHT_CUDA_COMPAT_INFO))
        || (inputs.iter().all(|i| i.abi7) && options.arch.sm >= 90);

    // Rule 1.3.1: the fixed start.
    b.create(".shstrtab", C::ShStrTab, SHT_STRTAB, 0, 1);
    b.create(".strtab", C::StrTab, SHT_STRTAB, 0, 1);
    b.create(".symtab", C::SymTab, SHT_SYMTAB, 0, 8);
    b.create(".symtab_shndx", C::SymTabShndx, SHT_SYMTAB_SHNDX, 0, 4);
    b.create(".note.nv.tkinfo", C::TkInfo, SHT_NOTE, 0x200_0000, 4);
    let cuinfo_flags = if has_compat { 0x100_0040 } else { 0x100_0000 };
    b.create(".note.nv.cuinfo", C::CuInfo, SHT_NOTE, cuinfo_flags, 4);
    let nv_info = b.create(".nv.info", C::NvInfo, SHT_CUDA_INFO, 0, 4);
    // Rules 7.1 and 9.3: an `.nv.info` left without records (every function
    // removed: `-variables-used` on vars sm_90, `-kernels-used` matching no
    // kernel on managed, mma, weak) has no header; its name stays in `.shstrtab`.
    if let Some(out) = b.layout.sections.get_mut(nv_info) {
        out.keep = Keep::IfNotEmpty;
    }
    if has_compat {
        b.create(".nv.compat", C::Compat, SHT_CUDA_COMPAT_INFO, 0, 4);
    }

    for input in inputs {
        let i = input.index;
        // 1.3.2.1: each function's .text, and a kernel's .nv.info / .nv.shared.
        for s in input.symbols() {
            if s.st_type != STT_FUNC {
                continue;
            }
            let Some(text) = s.section_index() else { continue };
            let me = SymbolRef { input: i, symbol: s.index };
            let def = resolution.definition_of(me);
            // U9: a weak device function that loses to a later input's copy
            // (fewer registers) still has its `.text` created here, and the
            // winner's code goes into it (wreg `-r`: `wsum` before `kwa`).
            // U13: so does a weak kernel (sm_80 tpl_a + sm_86 tpl_b for sm_86,
            // where the newer SM's `tkernel<int>` wins), with its `.nv.info`
            // and `.nv.shared` names.
            // Rule 9.10: not when the winner is dead code (fresh
            // `-kernels-used`: `wsum<T>`'s winning copies die with `tkern<T>`
            // and nvlink creates no name for the first copies).
            if let Some(d) = def.filter(|d| d.input > i) {
                let winner = inputs.get(d.input).and_then(|x| x.symbol(d.symbol)).and_then(|y| y.section_index());
                let later = winner.filter(|&x| !b.liveness.is_dead(d.input, x));
                let header = input.section(text).copied();
                // Rule 13.5 with U13: a weak kernel no host object names
                // leaves its `.nv.shared.<k>` name where its first copy is
                // met, not at the later copy that wins (sweep20 p210
                // `cg_fill_k<double>` in cgstate.o, blas1.o and driver.o,
                // driver.o's copy winning: host-object links, sm_75..sm_86).
                if let (None, Some(x), Some(h)) = (later, winner, header) {
                    if is_kernel(s) && b.liveness.host_pruned.contains(&(d.input, x)) {
                        b.log_shared_name(&companion(".nv.shared.", h.name));
                    }
                }
                // Rule 9.6: under `-kernels-used` a kernel the list does not
                // select is a device function here too: no `.nv.info.<k>` or
                // `.nv.shared.<k>` name, its `.nv.info` created with the
                // input's function infos (1.3.2.5; sweep17 p197
                // `reduce_k<float, 128>`, whose copy in red.cu wins, `-r
                // -kernels-used` of another kernel; sm_75..sm_90).
                if let (Some(winner_text), Some(h)) = (later, header) {
                    let id = b.create_beside_local(h.name, C::Text, h.sh_type, h.flags, h.addralign.max(1));
                    if is_kernel(s) && selected_by_lists(options, s.name) {
                        let info = b.create(&companion(".nv.info.", h.name), C::FunctionInfo, SHT_CUDA_INFO, 0x40, 4);
                        let shared_name = companion(".nv.shared.", h.name);
                        // A relinked `-r` output's extern room (a `.nv.shared.<k>`
                        // with no variables) stays with the kernel when a later
                        // copy without shared memory wins (sweep20 p213
                        // `nb_foreach_k<ZeroAcc>`: the `-r` output of two files
                        // first, tiles.cu's 8-register copy winning; nvlink's
                        // window is the room, 0x10 on sm_75..sm_86, 0x410 on
                        // sm_90; p210, p212, p214 alike).
                        let shared = losing_room(inputs, i, &shared_name, d, winner_text)
                            .and_then(|x| b.place_unchecked(i, x))
                            .unwrap_or_else(|| b.create_shared(&shared_name));
                        for x in [info, shared] {
                            if let Some(out) = b.layout.sections.get_mut(x) {
                                out.info = InfoField::Section(id);
                            }
                        }
                    }
                }
            }
            // U13, the losing copy's room when the winner (earlier or later)
            // has no shared memory of its own. An earlier winner's window
            // takes it (fixture `rrm-relink-rev`: rrm_b's 12-register
            // `rrm_fill<double>` first, the `-r` output's 0x10 room after;
            // nvlink's window 0x410 on sm_90, 0x10 on sm_75); a later one's
            // is placed above. Rule 9.2: a kernel the lists do not select,
            // dead or not, leaves the room's name late, with the removed
            // kernels' windows (`-kernels-used=rrm_plain` after
            // `.nv.shared._Z7rrm_dynPf`; rrm's `-r` output first,
            // `-kernels-used=rrm_dyn`: after its `.rela.debug_frame`; sm_75
            // and sm_90).
            // Only a losing kernel copy that either case needs is looked at.
            let selected = || selected_by_lists(options, s.name);
            if let Some(d) = def.filter(|d| is_kernel(s) && d.input != i && (d.input < i || !selected())) {
                let winner_text = inputs.get(d.input).and_then(|x| x.symbol(d.symbol)).and_then(|y| y.section_index());
                if let (Some(winner_text), Some(h)) = (winner_text, input.section(text)) {
                    let shared_name = companion(".nv.shared.", h.name);
                    if let Some(x) = losing_room(inputs, i, &shared_name, d, winner_text) {
                        if selected() {
                            b.place_unchecked(i, x);
                        } else {
                            b.unselected_losing_rooms.insert((i, x));
                        }
                    }
                }
            }
            if def != Some(me) || b.layout.placed(i, text).is_some() {
                continue;
            }
            // A local (static) function's name comes just before its section's
            // (fptr: `fptr_ident`, 12/12 links; rules 4.2, 5.1).
            if s.bind == STB_LOCAL && b.usable(i, text) {
                b.layout.log.push(LogEntry::local(me));
                if input.section(text).is_some_and(|t| b.layout.find(t.name).is_some()) {
                    b.mark_private(i, text);
                }
            } else if b.usable(i, text)
                && input.section(text).and_then(|t| b.layout.find(t.name)).is_some_and(|id| b.local_texts.contains(&id))
            {
                // Rule 1.4 the other way round: a global function named like an
                // earlier input's static one does not join its section either
                // (PTX `.func hf` then `.visible .func hf`, sm_75/sm_90, exec
                // and `-r`). A `.text` an earlier *weak* copy made (U9/U13)
                // is not a local's, so the winner still fills it.
                b.mark_private(i, text);
            }
            let Some(id) = b.place(i, text) else {
                // Rule 13.5: a kernel no host object names leaves its
                // `.nv.shared.<k>` name behind (staticlib: `dev_unused_kernel`).
                if b.liveness.host_pruned.contains(&(i, text)) {
                    let text_name = input.section(text).map(|t| t.name).unwrap_or_default();
                    b.log_shared_name(&companion(".nv.shared.", text_name));
                }
                continue;
            };
            if s.bind == STB_LOCAL {
                b.local_texts.insert(id);
            }
            let high_bits = input.section(text).map_or(0, |t| t.info & 0xff00_0000);
            if let Some(out) = b.layout.sections.get_mut(id) {
                out.info = InfoField::function(me, high_bits);
            }
            // Rule 9.6: `-r` with `-kernels-used`/`-variables-used` creates a
            // kernel the list does not select like a device function: its
            // `.nv.info.<k>` comes with the input's other function infos and it
            // gets no `.nv.shared.<k>` (tpl, vars on sm_90). Not under `-g`,
            // which ignores the lists (rule 9.7; fresh3 `-r -g
            // -kernels-used=ps_driver`: every kernel's `.nv.shared.<k>` name,
            // sm_75..sm_90a).
            // So is one an earlier input names first (an undefined
            // reference, ENTRY in its `st_other`): p20 cdp `parent` in a.cu
            // launching `child` from b.cu, `-kernels-used=_Z6parentPii`,
            // gets `child`'s `.nv.info` and `.nv.shared` with its `.text`
            // (exec and `-r`, sm_80); b.cu first, or one file, does not.
            let met_earlier = b
                .resolution
                .global(me)
                .and_then(|g| b.resolution.globals.get(g))
                .is_some_and(|g| g.first.input < input.index && g.first_definition != Some(g.first));
            let selected = selected_by_lists(options, s.name) || met_earlier;
            if is_kernel(s) {
                let text_name = input.section(text).map(|t| t.name).unwrap_or_default();
                let shared_name = companion(".nv.shared.", text_name);
                let own = input.sections().iter().find(|x| x.name == shared_name).map(|x| x.index);
                if selected {
                    let info = b.create(&companion(".nv.info.", text_name), C::FunctionInfo, SHT_CUDA_INFO, 0x40, 4);
                    if let Some(out) = b.layout.sections.get_mut(info) {
                        out.info = InfoField::Section(id);
                    }
                    let shared = match own {
                        Some(x) => b.place(i, x),
                        None => Some(b.create_shared(&shared_name)),
                    };
                    if let Some(out) = shared.and_then(|sh| b.layout.sections.get_mut(sh)) {
                        out.info = InfoField::Section(id);
                    }
                } else if let Some(x) = own {
                    // Rule 9.6 under `-r`, and for an executable's kept
                    // kernel the lists do not name (rule 9.2): created late
                    // ([`is_dead_shared`]).
                    b.unselected_kernel_shared.insert((i, x));
                }
            }
        }
        // 1.3.2.2-4: data, debug and constant sections. First every object
        // symbol (neither function nor section symbol) in symtab order creates
        // its section (ptxas's `_param` creates `.nv.constant0.<k>`; an extern
        // `__shared__` variable, which has no section, creates
        // `.nv_debug.shared`), then every section symbol in symtab order, then
        // any such section no symbol names, in section order. ptxas 13 puts
        // sm_90 bank-0 section symbols last and has no `_param`, so banks come
        // after `.debug_*` there and before them on sm_75..sm_89 (162/162
        // non-merc links). Each kernel bank is followed (exec) by its
        // linker-made `.rel.nv.constant0.<k>` (texture/surface header indices).
        // A local object's name is logged right after the section it creates
        // (or, if the section exists, where it is met): `.strtab` and the
        // `-r` `.symtab` show `.nv.constant0.<k>`, `_param`, `$s_count`, ...
        // A losing copy's kept bank (rule 9) is not created by its locals,
        // which go: it comes with the section symbols (loser-bank2 sm_75:
        // `.nv.constant2.<hz>` after the kernel's `.nv.constant0.<kb>`).
        let loser_bank = |x: usize| {
            input.section(x).is_some_and(|t| {
                t.name.starts_with(".nv.constant2.")
                    && !resolution.is_discarded(i, x)
                    && resolution.is_discarded(i, t.info as usize)
            })
        };
        let objects = input.symbols().iter().filter(|s| {
            s.index != 0
                && !matches!(s.st_type, STT_FUNC | STT_SECTION)
                && !(s.bind == STB_LOCAL && s.section_index().is_some_and(loser_bank))
        });
        let mut order: Vec<(Option<usize>, Option<usize>)> = objects
            .filter_map(|s| match s.section_index() {
                Some(x) => Some((Some(x), (s.bind == STB_LOCAL).then_some(s.index))),
                None if s.other & STO_CUDA_SPACE_MASK == STO_CUDA_SHARED => Some((None, None)),
                // Rule 5.7: `-r` keeps an undefined local object where it is
                // met (libcudadevrt's `.nv.ptx.const0.size`); not the unnamed
                // NOTYPE one CUDA 12.9's ptxas writes (cub_b, sm_90 `-r`).
                None if !executable
                    && s.bind == STB_LOCAL
                    && !s.name.is_empty()
                    && matches!(s.st_type, STT_OBJECT | STT_CUDA_OBJECT) =>
                {
                    Some((None, Some(s.index)))
                }
                None => None,
            })
            .collect();
        let by_objects = order.len();
        order.extend(input.symbols().iter().filter(|s| s.st_type == STT_SECTION).map(|s| (s.section_index(), None)));
        order.extend((0..input.sections().len()).map(|x| (Some(x), None)));
        // Rule 9.2: a removed kernel's `.nv.shared.<k>` not met through a
        // variable in it is logged after the input's relocation sections,
        // in section order (f13: a `-r` output's `.nv.shared` sections,
        // relinked with `-kernels-used`, sm_80/sm_90).
        let mut dead_shared: Vec<usize> = Vec::new();
        for (n, (step, local)) in order.into_iter().enumerate() {
            if let (Some(x), true) = (step, n >= by_objects) {
                if is_dead_shared(b, i, x) {
                    if !dead_shared.contains(&x) {
                        dead_shared.push(x);
                    }
                    continue;
                }
            }
            let Some(index) = step else {
                match local {
                    Some(symbol) => b.layout.log.push(LogEntry::local(SymbolRef { input: i, symbol })),
                    None => create_debug_shared(b),
                }
                continue;
            };
            // The first debug section met brings all of the input's, in
            // section order: relinking fresh2's `-r` output of a `-lineinfo`
            // object (sm_90), whose `.debug_line` .. `.nv_debug_ptx_txt.*`
            // section symbols come after bank symbols, logs them right after
            // `.debug_frame` (ptxas objects list them together anyway). The
            // one met need not be the first: a `-G` object with no function
            // has an empty `.debug_frame` without a section symbol before its
            // `.debug_line`, and the output's `.debug_frame` still comes first
            // (an `nvcc -G -rdc` host-only TU first in `nvcc -dlink`'s
            // nvlink line, sm_75..sm_120).
            if b.class_of(i, index) == Some(C::Debug) {
                for x in 0..input.sections().len() {
                    if b.class_of(i, x) == Some(C::Debug) {
                        create_for_symbol(b, i, x, executable && !mercury);
                    }
                }
            } else {
                create_for_symbol(b, i, index, executable && !mercury);
            }
            if let Some(symbol) = local {
                // Rule 5.6: the local of a weak duplicate's discarded bank
                // (sm_75..sm_89 `_param` of a template kernel instantiated in
                // two files) is met here and kept, in the surviving bank.
                // Not a function's bank whose copy lost when met (rule 9.11):
                // sweep24 p252 `rev-r` (sm_75), `wt_dot<float>` 62 registers
                // in wkern (first), wfast (lost when met) and wtmpl, 24 in
                // wcap (the winner): nvlink keeps wkern's and wcap's
                // `.const_opt.0.8`, not wfast's; fixture `wlb`.
                let lost_function_bank = || {
                    input.section(index).is_some_and(|sec| {
                        sec.name.starts_with(".nv.constant2.")
                            && input
                                .function_in(sec.info as usize)
                                .is_some_and(|f| b.resolution.lost_when_met(SymbolRef { input: i, symbol: f }))
                    })
                };
                if b.layout.placed(i, index).is_none() && b.resolution.is_discarded(i, index) && !lost_function_bank() {
                    let name = input.section(index).map(|s| s.name).unwrap_or_default();
                    if let Some(id) = b.layout.find(name) {
                        b.layout.aliases.insert((i, index), id);
                    }
                }
                if b.layout.local_home(i, index).is_some() {
                    b.layout.log.push(LogEntry::local(SymbolRef { input: i, symbol }));
                }
            }
        }
        // 1.3.2.5: the remaining .nv.info.<fn> (device functions).
        for s in input.sections() {
            if b.class_of(i, s.index) != Some(C::FunctionInfo) {
                continue;
            }
            // U9: a losing copy met before its winner has its `.nv.info.<fn>`
            // created here too (wreg `-r`: after `.nv.constant0._Z3kwaPfPKf`).
            let replaced = !b.usable(i, s.index)
                && input.symbols().iter().any(|y| {
                    y.st_type == STT_FUNC
                        && y.section_index() == Some(s.info as usize)
                        && resolution.definition_of(SymbolRef { input: i, symbol: y.index }).is_some_and(|d| {
                            d.input > i
                                && (!is_kernel(y) || !selected_by_lists(options, y.name))
                                && inputs
                                    .get(d.input)
                                    .and_then(|x| x.symbol(d.symbol))
                                    .and_then(|w| w.section_index())
                                    .is_some_and(|x| !b.liveness.is_dead(d.input, x))
                        })
                });
            if replaced {
                let text = input.section(s.info as usize).map(|t| t.name).unwrap_or_default();
                if let Some(owner) = b.layout.find(text) {
                    let id = b.create_beside_local(s.name, C::FunctionInfo, SHT_CUDA_INFO, 0x40, 4);
                    if let Some(out) = b.layout.sections.get_mut(id) {
                        out.info = InfoField::Section(owner);
                    }
                }
                continue;
            }
            if !b.usable(i, s.index) {
                continue;
            }
            let Some((owner, _)) = b.layout.placed(i, s.info as usize) else { continue };
            let private = b.private.contains(&(i, s.index));
            let id = b.create_in(private, s.name, C::FunctionInfo, SHT_CUDA_INFO, 0x40, 4);
            if let Some(out) = b.layout.sections.get_mut(id) {
                out.info = InfoField::Section(owner);
            }
        }
        // Constant banks of other functions (.nv.constant2.<fn>) point at
        // their function; a losing copy's kept bank (rule 9) at the winner's.
        for s in input.sections() {
            if let Some((id, _)) = b.layout.placed(i, s.index) {
                let owner = b.layout.placed(i, s.info as usize).map(|(o, _)| o).or_else(|| {
                    let text =
                        input.section(s.info as usize).filter(|_| b.resolution.is_discarded(i, s.info as usize))?;
                    b.layout.find(text.name)
                });
                if let (Some(owner), Some(out)) = (owner, b.layout.sections.get_mut(id)) {
                    if out.class == C::ConstantBank || out.class == C::Shared {
                        out.info = InfoField::Section(owner);
                    }
                }
            }
        }
        // 1.3.2.6: relocation sections, in input order, for placed targets.
        // An empty input relocation section is never created on sm_75..sm_90a
        // (ptx: `.rela.nv.constant2.ptx_branch_kernel`, 12/12 non-merc links);
        // merc outputs keep it, empty (6/6 ptx links, exec and `-r`).
        for s in input.sections() {
            let empty = s.size == 0;
            // U13: a weak function's relocation sections are named where its
            // losing copy is, when the winner comes from a later input.
            if is_relocation_type(s.sh_type)
                && !empty
                && !s.name.starts_with(".nv.merc.")
                && b.resolution.is_discarded(i, s.info as usize)
                && lost_to_later(b, i, s.info as usize)
            {
                b.create_beside_local(s.name, C::Relocation, s.sh_type, 0x40, 8);
                // Rule 8.2: with `-preserve-relocs`, its `.nv.resolvedrela`
                // follows here too (fresh2 tlib-repl, sm_75..sm_90a: after
                // tl_b's `.rela.text._Z7tl_polyIdET_S0_`, not after tl_a's).
                let text = input.section(s.info as usize).and_then(|t| b.layout.find(t.name));
                if let (true, Some(text)) = (preserve_relocs, text) {
                    create_resolved_relocations(b, text);
                }
                continue;
            }
            if !is_relocation_type(s.sh_type)
                || (empty && !(mercury && s.name.starts_with(".rel")))
                || s.name.starts_with(".nv.merc.")
                || !b.usable(i, s.index)
            {
                continue;
            }
            let Some((target, _)) = b.layout.placed(i, s.info as usize) else { continue };
            // Rule 12.1: shared-memory relocations are resolved after nvlink
            // drops emptied relocation sections, so on merc a section that
            // had some stays (shm, clus), while one emptied by constant or
            // global references goes (cm: `.rela.text._Z3kcmPf`).
            // Read only where it counts: every entry of every relocation
            // section otherwise.
            let has_shared = || {
                input.cubin.relocation_section(s.index).is_some_and(|r| {
                    r.entries().any(|e| {
                        input
                            .symbol(e.symbol as usize)
                            .is_some_and(|y| y.other & STO_CUDA_SPACE_MASK == STO_CUDA_SHARED)
                    })
                })
            };
            if let Some(id) = b.place(i, s.index) {
                if let Some(out) = b.layout.sections.get_mut(id) {
                    out.set_target(Some(target));
                    out.flags = 0x40;
                    // Merc outputs keep an input relocation section even when
                    // nothing of it is left: empty in the input (ptx), or, in
                    // an executable, one with shared-memory relocations, all
                    // resolved (shm, clus: `.rela.text.<k>` stays, 0 bytes;
                    // sm_100 and sm_120, 4/4 links). `-r` ptx drops its
                    // emptied `.rela.text.ptx_lib_affine` (3/3), an executable
                    // its `.rela.debug_frame` emptied by dead functions
                    // (`-variables-used`, vars sm_100) and the `.rela.text.<k>`
                    // of constant references (cm, sm_100/sm_120).
                    if (empty || (mercury && executable && has_shared())) && out.class == C::Relocation {
                        out.keep = Keep::Always;
                    }
                }
                if preserve_relocs {
                    create_resolved_relocations(b, target);
                }
            }
        }
        dead_shared.sort_unstable();
        for x in dead_shared {
            create_for_symbol(b, i, x, executable && !mercury);
            // An unselected kernel's (rule 9.6) is still its kernel's window.
            // A losing copy's room (U13) belongs to the winner's `.text`, of
            // the same name.
            let owner = input.section(x).and_then(|s| {
                b.layout.placed(i, s.info as usize).map(|(o, _)| o).or_else(|| {
                    let text =
                        input.section(s.info as usize).filter(|_| b.unselected_losing_rooms.contains(&(i, x)))?;
                    b.layout.find(text.name)
                })
            });
            if let (Some(owner), Some((id, _))) = (owner, b.layout.placed(i, x)) {
                if let Some(out) = b.layout.sections.get_mut(id) {
                    out.info = InfoField::Section(owner);
                }
                b.layout.unselected_rooms.insert(id);
            }
        }
        // Rule 11: Mercury sections, carried in input order when what they
        // describe survived; their links are set in crate::mercury.
        for s in crate::mercury::placement_order(input) {
            // U13 on Mercury too: a weak function's merc relocation section
            // is named where its losing copy is, when the winner comes from
            // a later input (fresh2 allmix sm_100, `tl_b-O0 tl_a-r24`:
            // `.nv.merc.rela.text._Z7tl_polyIdET_S0_` before tl_b's
            // `.nv.merc.rela.text._Z7tl_polyIfET_S0_` in `.shstrtab`).
            let replaced = s.sh_type == SHT_CUDA_MERCURY_RELA
                && s.size > 0
                && s.name
                    .strip_prefix(".nv.merc.rela")
                    .filter(|n| n.starts_with(".text."))
                    .and_then(|n| input.sections().iter().find(|t| t.name == n))
                    .is_some_and(|t| b.resolution.is_discarded(i, t.index) && lost_to_later(b, i, t.index));
            if replaced {
                let id = b.create_beside_local(s.name, C::Mercury, s.sh_type, s.flags, s.addralign.max(1));
                // Kept only if the winner's relocations fill it: a winner
                // without any (built with other flags) leaves no empty
                // section (sweep17 p192 `dot_lp<half>`, gemv's copy replaced
                // by softmax's, sm_100/sm_120; fixture `wrel`).
                if let Some(out) = b.layout.sections.get_mut(id) {
                    out.keep = Keep::IfNotEmpty;
                }
                if let (true, Some(suffix)) = (preserve_relocs, s.name.strip_prefix(".nv.merc.rela")) {
                    name_merc_resolved_relocations(b, suffix);
                }
                continue;
            }
            if b.class_of(i, s.index) == Some(C::Mercury)
                && crate::mercury::carried(inputs, resolution, &b.layout, i, s)
            {
                // U9 beside a static of the same name (see
                // `create_beside_local`), on Mercury: the replaced weak copy's
                // capsule and merc `.nv.info` get sections of their own at its
                // place, which the winner fills, not the static's (sweep24
                // p251 `mixed-G` sm_100/sm_120; fixture `ulw`).
                let text_in = merc_function_text(input, s);
                let local_here =
                    text_in.and_then(|t| b.layout.placed(i, t)).is_some_and(|(t, _)| b.local_texts.contains(&t));
                if text_in.is_some() && !local_here && !b.private.contains(&(i, s.index)) {
                    b.create_beside_local(s.name, C::Mercury, s.sh_type, s.flags, s.addralign.max(1));
                }
                if let Some(id) = b.place(i, s.index) {
                    if local_here {
                        b.local_merc.insert(id);
                    }
                    crate::mercury::attach(&mut b.layout, i, s, id);
                    if preserve_relocs && s.sh_type == SHT_CUDA_MERCURY_RELA {
                        create_merc_resolved_relocations(b, id);
                    }
                }
            }
        }
    }

    // U17: `.common` globals go to the end of `.nv.global`, created here if
    // no input has one (ptx with `.common .global .u64 pcommon` in both
    // files: `.nv.global` named after the last input's sections).
    if !resolution.common.is_empty() {
        let id = b.create(".nv.global", C::Global, SHT_CUDA_GLOBAL, 0x3, 1);
        for &(g, size, align) in &resolution.common {
            if let Some(out) = b.layout.sections.get_mut(id) {
                let offset = align_up(out.size, align);
                out.size = offset.saturating_add(size);
                out.align = out.align.max(align);
                b.layout.common.insert(g, (id, offset));
            }
        }
    }
}

/// The `.text` of the function a per-function Mercury section belongs to:
/// its capsule's function symbol's section (a capsule's `sh_info` holds the
/// symbol in its low 24 bits; its merc `.nv.info` and relocation sections
/// point at the capsule). Only the sections named after their function: a
/// function's merc constant optimizer bank, which points at the capsule too,
/// is placed with its bank (rule 6.1; fixtures `jtab`, `mcord`).
fn merc_function_text(input: &InputObject<'_>, s: &develf_parse::elf::Section<'_>) -> Option<usize> {
    const NAMED: [&str; 4] = [".nv.capmerc.text.", ".nv.merc.nv.info.", ".nv.merc.rela.text.", ".nv.merc.rel.text."];
    if !NAMED.iter().any(|p| s.name.starts_with(p)) {
        return None;
    }
    let capsule = if s.sh_type == SHT_CUDA_CAPMERC { Some(s) } else { input.section(s.info as usize) };
    let capsule = capsule.filter(|c| c.sh_type == SHT_CUDA_CAPMERC)?;
    input.symbol((capsule.info & 0x00ff_ffff) as usize)?.section_index()
}

/// Rule 3.6: the section count from which nvlink keeps `.symtab_shndx`
/// (`SHN_LORESERVE`).
pub(crate) const EXTENDED_NUMBERING_FROM: usize = 0xff00;

/// Rule 3.6 (sm_75..sm_90a): `.symtab_shndx` is kept when the sections
/// created (the creation log, dropped ones and `.symtab_shndx` included)
/// reach 0xff00, counting one more in an executable. The count of sections
/// actually written does not decide: 40 objects plus one of 509 (exec) / 531
/// (`-r`) functions create 65,277 / 65,279 sections and get none, 510 / 532
/// functions create 65,279 / 65,281 and keep it (with 65,197 / 65,240 written
/// sections); the same with 39 + 2 objects and one call more or less
/// (docs/nvlink-layout-scripts/xindex.py).
///
/// Mercury (sm_100+): the finaliser decides on the sections it writes
/// (crate::write) and then adds `.symtab_shndx` and its own
/// `.nv.merc.symtab_shndx` after every other section. The latter is made
/// here, outside the creation log: its name is in no string table but the
/// merc `.shstrtab`, which lists the written sections (rule 4.3).
fn keep_symtab_shndx(layout: &mut Layout) {
    let Some(id) = layout.sections.iter().position(|s| s.class == C::SymTabShndx) else { return };
    if layout.mercury {
        let Some(shndx) = layout.sections.get_mut(id) else { return };
        shndx.keep = Keep::IfExtended;
        let merc = OutSection {
            name: CompactString::from(MERC_SYMTAB_SHNDX),
            flags: develf_format::section::SHF_CUDA_MERCURY,
            ..shndx.clone()
        };
        layout.sections.push(merc);
        layout.by_name.insert(&layout.sections, layout.sections.len() - 1);
        return;
    }
    let created = layout.sections.len() + usize::from(layout.executable);
    if created >= EXTENDED_NUMBERING_FROM {
        if let Some(s) = layout.sections.get_mut(id) {
            s.keep = Keep::Always;
        }
    }
}

/// The finaliser's extended index table for `.nv.merc.symtab` (rule 3.6).
pub(crate) const MERC_SYMTAB_SHNDX: &str = ".nv.merc.symtab_shndx";

/// Whether kernel `name` counts as a kernel for rule 9.6: always without
/// `-kernels-used`/`-variables-used` or under `-g` (rule 9.7), else when
/// the list selects it; an unselected one is laid out as a device function.
fn selected_by_lists(options: &LinkOptions, name: &str) -> bool {
    !lists_apply(options) || crate::host_info::is_root_kernel(options, name)
}

/// Whether `-kernels-used`/`-variables-used` select the kernels (rule 9.6):
/// given, and not under `-g`, which ignores them (rule 9.7).
fn lists_apply(options: &LinkOptions) -> bool {
    !options.debug_given() && (options.kernels_used.is_some() || options.variables_used.is_some())
}

/// Whether section `index` of input `i` is a removed kernel's own
/// `.nv.shared.<k>` whose name rule 9.2 still logs ([`create_for_symbol`]),
/// or (rule 9.6, `-r`) an unselected kernel's, which goes the same way even
/// where the input has a section symbol for it right after the kernel's
/// `.text` (a relinked `-r` output, kur `-r -kernels-used=_Z6kur_h2Pi`:
/// `.nv.shared._Z7kur_dynPi` after the input's relocation sections).
fn is_dead_shared(b: &Builder<'_, '_>, i: usize, index: usize) -> bool {
    b.class_of(i, index) == Some(C::Shared)
        && b.layout.placed(i, index).is_none()
        && ((!b.usable(i, index) && b.liveness.is_dead(i, index) && !b.resolution.is_discarded(i, index))
            || b.unselected_kernel_shared.contains(&(i, index))
            || b.unselected_losing_rooms.contains(&(i, index))
            || unwalked_window(b, i, index))
}

/// Rule 9.2 for a kept kernel the lists do not reach: an executable keeps
/// a kernel whose address live code takes (a device-side launch) without
/// walking into it (`gc`), and nvlink names its `.nv.shared.<k>`, when no
/// variable in it is met first, with the removed kernels' windows, in
/// section order, though the kernel's own code refers to it. Sweep19 p206
/// (dynamic parallelism, an `-r` output relinked with
/// `-kernels-used=dp_pipeline_k`): `dp_bitonic_k`'s window, which only its
/// section symbol names, comes after `dp_reset_stats_k`'s and the others'
/// (sm_75..sm_90).
fn unwalked_window(b: &Builder<'_, '_>, i: usize, index: usize) -> bool {
    let Some(s) = b.inputs.get(i).and_then(|x| x.section(index)) else { return false };
    b.layout.executable
        && s.flags & crate::resolve::SHF_INFO_LINK != 0
        && b.liveness.unwalked_kernels.contains(&(i, s.info as usize))
}

/// Rule 1.3.2.2-4: creates the data, debug or constant section `index` of
/// input `i` when a symbol naming it is met; an executable's kernel bank is
/// followed by its `.rel.nv.constant0.<k>` (`linker_relocations`).
fn create_for_symbol(b: &mut Builder<'_, '_>, i: usize, index: usize, linker_relocations: bool) {
    let Some(s) = b.inputs.get(i).and_then(|x| x.section(index)).copied() else { return };
    let Some(class) = b.class_of(i, index) else { return };
    if !matches!(
        class,
        C::GlobalInit | C::Global | C::OtherData | C::Shared | C::DebugShared | C::ConstantBank | C::Debug
    ) {
        return;
    }
    if b.layout.placed(i, index).is_some() {
        return;
    }
    if !b.usable(i, index) {
        // U13: a weak kernel's bank whose kernel lost to a later input's copy
        // is created here, named where nvlink meets it (sm_80 tpl_a + sm_86
        // tpl_b for sm_86: `.nv.constant0.<tkernel<int>>` after `ka`'s), and
        // the winner's bank goes into it; a local of the discarded bank then
        // has a home (rule 5.6: `-r`'s `_param`).
        // Not a bank only the replaced copy has (a `-use_fast_math` copy's
        // `.nv.constant2.<fn>` replaced by a plain one with fewer registers):
        // nvlink's executable has no such section (`b.cubin a.cubin`, sm_75;
        // its `-r` link dies, "reference to deleted section").
        if class == C::ConstantBank
            && b.resolution.is_discarded(i, index)
            && lost_to_later(b, i, s.info as usize)
            && winner_has_section(b, i, s.info as usize, s.name)
            && !winner_bank_held(b, i, s.info as usize, s.name)
        {
            let id = b.create(s.name, C::ConstantBank, s.sh_type, s.flags, s.addralign.max(1));
            // As for a placed bank, only a kernel's bank 0 gets the linker's
            // `.rel` name: a replaced copy's `.nv.constant2.<k>` (its
            // double-precision constants) does not (fixture `rrm-relink`,
            // sm_75 exec: no `.rel.nv.constant2._Z8rrm_fillIdEvPT_iS0_`).
            if linker_relocations && s.name.starts_with(".nv.constant0") {
                let rel = b.create(&format!(".rel{}", s.name), C::Relocation, SHT_REL, 0, 8);
                if let Some(out) = b.layout.sections.get_mut(rel) {
                    out.set_target(Some(id));
                }
            }
            return;
        }
        // Rule 9.2: a removed kernel's own `.nv.shared.<k>` still has its
        // name logged where this pass meets it (sync sm_75 `-kernels-used=
        // sync_spin`: `.nv.shared._Z18sync_atomic_kernelPiPfi` after the kept
        // kernel's bank, at its `$s_count`); other dead sections leave nothing.
        // So does an unselected losing copy's room (U13, above), which is
        // kept as the kernel's room where the kernel is (rule 9.6: `-r`, and
        // `-preserve-relocs`, which keeps unselected kernels: rrm_b first,
        // `-kernels-used=rrm_plain`, sm_75 and sm_90).
        let losing_room = b.unselected_losing_rooms.contains(&(i, index));
        let kernel_kept =
            b.inputs.get(i).and_then(|x| x.section(s.info as usize)).is_some_and(|t| b.layout.find(t.name).is_some());
        if losing_room && kernel_kept {
            b.place_unchecked(i, index);
        } else if losing_room
            || (class == C::Shared && b.liveness.is_dead(i, index) && !b.resolution.is_discarded(i, index))
        {
            b.log_shared_name(s.name);
        }
        return;
    }
    let Some(id) = b.place(i, index) else { return };
    if class == C::ConstantBank && s.name.starts_with(".nv.constant0") {
        let owner = b.layout.placed(i, s.info as usize).map(|(o, _)| o);
        if let (Some(owner), Some(out)) = (owner, b.layout.sections.get_mut(id)) {
            out.info = InfoField::Section(owner);
        }
        if linker_relocations {
            let rel = b.create(&format!(".rel{}", s.name), C::Relocation, SHT_REL, 0, 8);
            if let Some(out) = b.layout.sections.get_mut(rel) {
                out.set_target(Some(id));
            }
        }
    }
}

/// Whether the function in section `text` of input `i` is a weak copy that
/// lost to a later input's (U13).
/// Rule 9.10 here too: not when the winner is dead code (fresh2 tlib-repl
/// `-kernels-used=tl_kernel_c` and `-variables-used=tl_counter`, sm_75..sm_90a:
/// tl_a's winning `tl_poly<double>` dies and nvlink names no
/// `.rela.text._Z7tl_polyIdET_S0_` for tl_b's replaced copy).
/// Only a copy that was taken (the first, or one that replaced the chosen
/// copy): one that lost when met names nothing (rule 9.11; sweep2
/// `/work/sweep2/red/fderepl` `x.leaf y.rel.0 z.leaf.24`, sm_80 and sm_90:
/// y's `wt<float>` loses to x's, both replaced by z's, and nvlink names no
/// `.rela.text._Z2wtIfET_PKS0_i` or `.rel.text.<wt>`; develf named them at
/// y's place).
fn lost_to_later(b: &Builder<'_, '_>, i: usize, text: usize) -> bool {
    let taken = b.inputs.get(i).is_some_and(|input| {
        input.symbols().iter().any(|y| {
            y.st_type == STT_FUNC
                && y.section_index() == Some(text)
                && !b.resolution.lost_when_met(SymbolRef { input: i, symbol: y.index })
        })
    });
    taken
        && function_definitions(b, i, text).any(|d| {
            d.input > i
                && b.inputs
                    .get(d.input)
                    .and_then(|x| x.symbol(d.symbol))
                    .and_then(|w| w.section_index())
                    .is_some_and(|x| !b.liveness.is_dead(d.input, x))
        })
}

/// Whether the input defining the function of input `i`'s `.text` section
/// `text` has a section named `name`.
fn winner_has_section(b: &Builder<'_, '_>, i: usize, text: usize, name: &str) -> bool {
    function_definitions(b, i, text)
        .any(|d| b.inputs.get(d.input).is_some_and(|w| w.sections().iter().any(|x| x.name == name)))
}

/// Rule 6.1 with U9: whether the winning copy's section `name` is an
/// executable's device-function bank (`is_function_bank`), which goes into
/// the reaching kernels' banks and has no output section of its own, so a
/// replaced earlier copy's bank names none either (sweep2 p44,
/// /work/sweep2/red/cb2repl: x.cu's `smooth<double>`, 92 registers and a
/// `.const_opt` bank, replaced by y.cu's `-Xptxas -O1` copy, 85 registers,
/// with a bank of its own: nvlink writes no `.nv.constant2._Z6smoothIdET_S0_i`;
/// develf wrote an empty one; sm_75..sm_89 exec).
fn winner_bank_held(b: &Builder<'_, '_>, i: usize, text: usize, name: &str) -> bool {
    function_definitions(b, i, text).any(|d| {
        b.inputs
            .get(d.input)
            .and_then(|w| w.sections().iter().find(|x| x.name == name))
            .is_some_and(|x| b.is_function_bank(d.input, x.index))
    })
}

/// The definitions the functions of input `i`'s `.text` section `text`
/// resolve to (the winning copies, for weak functions).
fn function_definitions<'b>(b: &'b Builder<'_, '_>, i: usize, text: usize) -> impl Iterator<Item = SymbolRef> + 'b {
    b.inputs.get(i).into_iter().flat_map(move |input| {
        input
            .symbols()
            .iter()
            .filter(move |y| y.st_type == STT_FUNC && y.section_index() == Some(text))
            .filter_map(move |y| b.resolution.definition_of(SymbolRef { input: i, symbol: y.index }))
    })
}

/// Rule 8.2 (`-preserve-relocs`): the first relocation section created for
/// `target` (`.rela` or `.rel`, whichever an input has first) is followed in
/// the creation log by `.nv.resolvedrela.<target>` (sm_75: `.rela.text.X`,
/// `.nv.resolvedrela.text.X`, `.rel.text.X`, but `.rel.debug_frame`,
/// `.nv.resolvedrela.debug_frame`, `.rela.debug_frame`), kept only when some
/// relocation was resolved.
fn create_resolved_relocations(b: &mut Builder<'_, '_>, target: OutId) {
    if b.layout.resolved_relocations.contains_key(&target) {
        return;
    }
    let Some(target_name) = b.layout.section(target).map(|s| s.name.clone()) else { return };
    let name = format!(".nv.resolvedrela{target_name}");
    let id = b.create(&name, C::Relocation, SHT_CUDA_RESOLVED_RELA, 0x40, 8);
    if let Some(out) = b.layout.sections.get_mut(id) {
        out.set_target(Some(target));
    }
    b.layout.resolved_relocations.insert(target, id);
}

/// Rule 8.2 on Mercury (`-preserve-relocs`): a capsule's
/// `.nv.merc.rela.text.<k>` is followed in class 20 by
/// `.nv.merc.nv.resolvedrela.text.<k>` (type 0x70000088, flags 0x10000040,
/// link `.nv.merc.symtab`, info the capsule, entsize 24), kept only with
/// entries: the `R_MERCURY` 3 shared-memory relocations nvlink resolved
/// (nw hist_kernel/pipeline_kernel, cub, s1/s2 sm_100/sm_120 exec).
fn create_merc_resolved_relocations(b: &mut Builder<'_, '_>, rela: OutId) {
    let Some(capsule) = b.layout.section(rela).and_then(|r| r.target()) else { return };
    if b.layout.merc_resolved_relocations.contains_key(&capsule) {
        return;
    }
    let Some(suffix) = b
        .layout
        .section(capsule)
        .filter(|c| c.sh_type == SHT_CUDA_CAPMERC)
        .and_then(|c| c.name.strip_prefix(".nv.capmerc").map(str::to_string))
    else {
        return;
    };
    let id = name_merc_resolved_relocations(b, &suffix);
    if let Some(out) = b.layout.sections.get_mut(id) {
        out.set_target(Some(capsule));
        out.info = InfoField::Section(capsule);
    }
    b.layout.merc_resolved_relocations.insert(capsule, id);
}

/// Creates (or finds) `.nv.merc.nv.resolvedrela<suffix>` (`suffix`:
/// `.text.<k>`) without its capsule: a replaced weak copy's
/// `.nv.merc.rela.text.<k>` names it right after itself, before the winner
/// fills both ([`create_merc_resolved_relocations`]; fixture `wcp`
/// `-preserve-relocs`, sm_100).
fn name_merc_resolved_relocations(b: &mut Builder<'_, '_>, suffix: &str) -> OutId {
    let name = format!(".nv.merc.nv.resolvedrela{suffix}");
    let id = b.create(&name, C::Mercury, SHT_CUDA_MERCURY_RESOLVED_RELA, SHF_CUDA_MERCURY | 0x40, 8);
    if let Some(out) = b.layout.sections.get_mut(id) {
        out.entsize = 24;
        out.keep = Keep::IfNotEmpty;
    }
    id
}

/// `.nv_debug.shared`: the extern `__shared__` window (rule 1.1 class 17).
fn create_debug_shared(b: &mut Builder<'_, '_>) {
    let id = b.create(".nv_debug.shared", C::DebugShared, SHT_CUDA_SHARED, 0x3, 16);
    b.extern_debug_shared = true;
    if let Some(out) = b.layout.sections.get_mut(id) {
        out.align = 16;
    }
}

/// Rule 7.8: a function keeps its `.nv.prototype` entry only when every input
/// that has the function in its symtab (defining or calling it) has an entry
/// for it. ptx: `ptx_lib_affine` (ptx_lib defines it without an entry) and
/// reloc: `reloc_fn` (reloc_bytes calls it without one) lose theirs; 184/184
/// non-merc links.
fn prototype_vetoes(inputs: &[InputObject<'_>], resolution: &Resolution<'_>) -> HashSet<GlobalId> {
    // Dense tables over the globals (a big link has tens of thousands):
    // whether any input has an entry, and the last input that had one.
    fn entries<'r>(input: &'r InputObject<'_>, resolution: &'r Resolution<'_>) -> impl Iterator<Item = GlobalId> + 'r {
        input.sections().iter().filter(|s| s.sh_type == SHT_CUDA_PROTOTYPE).flat_map(move |s| {
            s.bytes().chunks_exact(8).filter_map(move |pair| {
                let symbol = u32::from_le_bytes([pair[0], pair[1], pair[2], pair[3]]) as usize;
                resolution.global(SymbolRef { input: input.index, symbol })
            })
        })
    }
    let mut any_entry = vec![false; resolution.globals.len()];
    for g in inputs.iter().flat_map(|i| entries(i, resolution)) {
        if let Some(slot) = any_entry.get_mut(g) {
            *slot = true;
        }
    }
    let mut entry_in = vec![usize::MAX; resolution.globals.len()];
    let mut vetoed = HashSet::new();
    for input in inputs {
        for g in entries(input, resolution) {
            if let Some(slot) = entry_in.get_mut(g) {
                *slot = input.index;
            }
        }
        for s in input.symbols().iter().filter(|s| s.st_type == STT_FUNC) {
            let Some(g) = resolution.global(SymbolRef { input: input.index, symbol: s.index }) else { continue };
            if any_entry.get(g) == Some(&true) && entry_in.get(g) != Some(&input.index) {
                vetoed.insert(g);
            }
        }
    }
    vetoed
}

/// Whether some `.nv.prototype` entry names a symbol that is in the output.
fn any_prototype_survives(inputs: &[InputObject<'_>], resolution: &Resolution<'_>, layout: &Layout) -> bool {
    let live_refs =
        if layout.executable { crate::symbols::live_references(inputs, resolution, layout) } else { Vec::new() };
    inputs.iter().any(|input| {
        input.sections().iter().filter(|s| s.sh_type == SHT_CUDA_PROTOTYPE).any(|s| {
            s.bytes().chunks_exact(8).any(|pair| {
                let symbol = u32::from_le_bytes([pair[0], pair[1], pair[2], pair[3]]) as usize;
                let r = SymbolRef { input: input.index, symbol };
                if resolution.global(r).is_some_and(|g| layout.prototype_vetoed.contains(&g)) {
                    return false;
                }
                let Some(def) = resolution.definition_of(SymbolRef { input: input.index, symbol }) else {
                    // Rule 13.4: an undefined function only dead code calls
                    // gets no symbol, so its entry goes too (sys with every
                    // kernel removed: `vprintf`, `__assertfail`; rule 9.3).
                    let function = input.symbol(symbol).is_some_and(|s| s.st_type == STT_FUNC);
                    let g = resolution.global(r);
                    return !(function && g.and_then(|g| live_refs.get(g)) == Some(&Some(false)));
                };
                let section = inputs.get(def.input).and_then(|i| i.symbol(def.symbol)).and_then(|s| s.section_index());
                section.is_none_or(|x| layout.placed(def.input, x).is_some())
            })
        })
    })
}

/// Post-placement fixes: merc constant0 class (rule 1.1 class 19) and the
/// metadata sections' fixed alignment.
fn finish_classes(layout: &mut Layout) {
    let slotted: HashSet<OutId> = layout.texture_banks.iter().map(|t| t.bank).collect();
    for (id, s) in layout.sections.iter_mut().enumerate() {
        // A bank with linker-made relocations (texture slots) stays in class 14.
        if layout.mercury
            && s.class == C::ConstantBank
            && s.name.starts_with(".nv.constant0.")
            && !slotted.contains(&id)
        {
            s.class = C::MercuryConstant0;
        }
        if s.class == C::Text {
            s.align = s.align.max(128);
        }
        if s.class == C::Relocation {
            s.align = 8;
        }
    }
}

/// Texture and surface references: kinds in slot order (rule 11.6) with the
/// relocation type naming their header index.
/// Rule 11.6: the order nvlink gives `n` texture/surface header slots, a
/// fixed permutation of the references that depends only on `n` (what a
/// merge sort whose comparator finds every pair equal leaves): the
/// even-numbered items (0, 2, ...) reversed and the odd-numbered reversed
/// are ordered the same way, then the odd ones come first for an even `n`,
/// the even ones for an odd `n`. Fits every measured count: 2..17, 20, 24,
/// 32 textures (sm_90: `[2,1]`, `[1,3,2]`, `[2,4,1,3]`, `[5,1,3,2,4]`, ...),
/// and two textures with two surfaces (surfaces first: `sB, tB, sA, tA`).
fn slot_order<T: Copy>(list: &[T]) -> Vec<T> {
    if list.len() <= 1 {
        return list.to_vec();
    }
    let even: Vec<T> = list.iter().copied().step_by(2).collect::<Vec<_>>().into_iter().rev().collect();
    let odd: Vec<T> = list.iter().copied().skip(1).step_by(2).collect::<Vec<_>>().into_iter().rev().collect();
    let (even, odd) = (slot_order(&even), slot_order(&odd));
    if list.len() % 2 == 0 { [odd, even].concat() } else { [even, odd].concat() }
}

static TEXTURE_KINDS: &[(u8, u32)] =
    &[(STT_CUDA_TEXTURE, R_CUDA_TEX_HEADER_INDEX), (STT_CUDA_SURFACE, R_CUDA_SURF_HEADER_INDEX)];

/// Rule 11.6 (executables): every kernel whose code names a texture or
/// surface reference gets one u32 header slot per texture/surface reference
/// of the whole link, appended to its `.nv.constant0.<k>` (merc: from a
/// 16-aligned offset), textures before surfaces, each kind in `.symtab`
/// order (the fixtures' and two-reference runs' order; more references of
/// one kind are permuted in a way not established). The slots are named by
/// `R_CUDA_TEX/SURF_HEADER_INDEX` relocations in `.rel.nv.constant0.<k>`
/// (merc: a `.rela` created after every input's sections).
fn assign_texture_slots(b: &mut Builder<'_, '_>) {
    let kind_of = |g: &crate::resolve::Global<'_>| {
        let r = g.definition.unwrap_or(g.first);
        let st_type = b.inputs.get(r.input).and_then(|i| i.symbol(r.symbol)).map(|s| s.st_type)?;
        TEXTURE_KINDS.iter().position(|(t, _)| *t == st_type)
    };
    let mut references: Vec<(usize, GlobalId)> =
        b.resolution.globals.iter().enumerate().filter_map(|(g, global)| Some((kind_of(global)?, g))).collect();
    if references.is_empty() {
        return;
    }
    // Rule 11.6: surfaces, then textures, each in `.symtab` order, put in
    // nvlink's slot order.
    references.sort_by_key(|&(kind, g)| (std::cmp::Reverse(kind), g));
    let references = slot_order(&references);
    // Kernels whose code names a reference, in output section order.
    let mut users: Vec<OutId> = Vec::new();
    // Whether any code names one, live or not (a `-r` output's references
    // already have their slots: it names none in code).
    let mut named = false;
    for input in b.inputs {
        for rs in input.cubin.relocation_sections() {
            let code = input.section(rs.target as usize).is_some_and(|t| t.name.starts_with(".text."));
            let names_reference = code
                && rs.entries().any(|r| {
                    let symbol = input.symbol(r.symbol as usize).map(|s| s.st_type);
                    symbol.is_some_and(|t| TEXTURE_KINDS.iter().any(|(k, _)| *k == t))
                });
            named |= names_reference;
            let Some((text, _)) = b.layout.placed(input.index, rs.target as usize) else { continue };
            if names_reference && b.layout.section(text).is_some_and(|s| s.class == C::Text) && !users.contains(&text) {
                users.push(text);
            }
        }
    }
    users.sort_unstable();
    // With no live kernel naming one, but dead code naming one, the
    // references still get their slots, in the first kernel's bank (ptx
    // `-kernels-used=ptx_branch_kernel`: `ptx_tex_kernel` is gone and
    // `ptx_branch_kernel`, which names no texture, gets both slots; sm_75,
    // sm_90). Not when relinking ptx's `-r` output, whose kernels name none.
    if users.is_empty() && named {
        let kernels = b.inputs.iter().flat_map(|input| {
            input
                .symbols()
                .iter()
                .filter(|s| is_kernel(s))
                .filter_map(|s| b.layout.placed(input.index, s.section_index()?).map(|(id, _)| id))
        });
        users.extend(kernels.min());
    }
    let mercury = b.layout.mercury;
    for text in users {
        let Some(text_name) = b.layout.section(text).map(|s| s.name.clone()) else { continue };
        let bank_name = companion(".nv.constant0.", &text_name);
        let Some(bank) = b.layout.find(&bank_name) else { continue };
        let relocations = if mercury {
            b.create(&format!(".rela{bank_name}"), C::Relocation, SHT_RELA, 0, 8)
        } else {
            b.create(&format!(".rel{bank_name}"), C::Relocation, SHT_REL, 0, 8)
        };
        let Some(out) = b.layout.sections.get_mut(bank) else { continue };
        let start = if mercury { align_up(out.size, 16) } else { out.size };
        let slots: Vec<TextureSlot> = references
            .iter()
            .zip((start..).step_by(4))
            .filter_map(|(&(kind, global), offset)| {
                TEXTURE_KINDS.get(kind).map(|&(_, r_type)| TextureSlot { global, offset, r_type })
            })
            .collect();
        out.size = start.saturating_add(4 * slots.len() as u64);
        if let Some(rel) = b.layout.sections.get_mut(relocations) {
            rel.set_target(Some(bank));
            rel.flags = 0;
        }
        b.layout.texture_banks.push(TextureBank { text, bank, relocations, slots, header_indices: None });
    }
}

/// U25, rule 6.1 (executables): nvlink gives a device function's
/// `.nv.constant2.<fn>` (ptxas's `.const_opt` literals of double-precision
/// math: `__internal_accurate_pow`, `dmath`; on sm_100+ also `switch` jump
/// tables) no section of its own; its bytes go into the `.nv.constant2.<k>`
/// of every kernel that reaches the function, created when the kernel has
/// none. Each function has one offset, the same in every such bank (its
/// relocations are resolved once): functions are taken last bank first (by
/// their first copies, [`first_copies`]), and each goes at the largest end
/// (aligned) of the banks of all kernels reaching it (the kernel's own bytes
/// at 0, functions placed before), never into a hole below, which leaves
/// holes (sweep9 p24 `G-exec`, sm_75..sm_86: `cos` and `sin`, reached by
/// `trig_double` alone, at 0x108 and 0x110 behind `tan`, `cospi`, `sinpi`
/// at 0xf0..0x108, though 0x18..0xf0 is free in that kernel's bank; fixture
/// `fbend`; math, c2 t2, cd on sm_75/sm_86: `fd` at 0x58 behind `kd2`'s own
/// 0x58 though `kd1` has none; `fb` at 0 below `fa` at 0xb0 in
/// `kc1`; jtab on sm_100/sm_120: `mix` 0x108, `pick` 0x128, `leaf` 0x158
/// behind `kown`'s own 0x108, so `kleaf`'s bank is 0x194 bytes, both input
/// orders). The kernels reaching a function are taken last `.text` first,
/// which is the order their new banks are created in (cbank: `kd1`, `kc1`,
/// `kc4`; two: `k1` before `k2`; jtab: `kmix`, `kpick`, `kleaf`, one per
/// function). On sm_100+ the function's merc copy
/// (`.nv.merc.nv.constant.optimizer.<fn>`) goes the same way into the
/// kernel's, and the relocation sections of both into the kernel's
/// (`.rela.nv.constant2.<k>`, empty and kept; `.nv.merc.rela.nv.constant.
/// optimizer.<k>`, whose entry order is crate::mercury's), created likewise.
fn merge_function_banks(b: &mut Builder<'_, '_>) {
    if b.function_banks.is_empty() {
        return;
    }
    let (inputs, resolution) = (b.inputs, b.resolution);
    let phantoms = replaced_bank_functions(b);
    let held: Vec<HeldBank> = b.function_banks.iter().filter_map(|&(i, x)| HeldBank::find(inputs, i, x)).collect();
    b.layout.merged_banks =
        held.iter().flat_map(|h| std::iter::once((h.input, h.bank)).chain(h.merc_bank.map(|m| (h.input, m)))).collect();
    // The held-back banks of each function, by the function's output `.text`:
    // its own, then those of losing copies met after it (their `.text` is
    // not placed; the winner's is), in input order.
    let mut bank_of: HashMap<OutId, Vec<&HeldBank>> = HashMap::new();
    for h in &held {
        let Some(object) = inputs.get(h.input) else { continue };
        let Some(text) = object.section(h.bank).map(|s| s.info as usize) else { continue };
        let winner_text = || {
            let function =
                object.symbols().iter().find(|y| y.st_type == STT_FUNC && y.section_index() == Some(text))?;
            let def = resolution.definition_of(SymbolRef { input: h.input, symbol: function.index })?;
            let def_text = inputs.get(def.input)?.symbol(def.symbol)?.section_index()?;
            b.layout.placed(def.input, def_text)
        };
        if let Some((id, _)) = b.layout.placed(h.input, text).or_else(winner_text) {
            let banks = bank_of.entry(id).or_default();
            if !banks.iter().any(|o| o.input == h.input) {
                banks.push(h);
            }
        }
    }
    for banks in bank_of.values_mut() {
        banks.sort_by_key(|h| h.input);
    }
    // The call graph over output `.text` sections.
    let mut calls: HashMap<OutId, Vec<OutId>> = HashMap::new();
    crate::resolve::callgraph_calls(inputs, resolution, |(fi, fx), (ti, tx)| {
        let placed = |i: usize, x: usize| b.layout.placed(i, x).map(|(id, _)| id);
        if let (Some(from), Some(to)) = (placed(fi, fx), placed(ti, tx)) {
            let callees = calls.entry(from).or_default();
            if !callees.contains(&to) {
                callees.push(to);
            }
        }
    });
    // Indirect calls count: a call site of prototype P reaches every
    // address-taken function of prototype P (rules 7.1, 9.12, 12.1; fresh4
    // `fx_pipe_tab`, `fx_tab_kern`, `ns1::driver` call `fx_m_sin`/`fx_m_erf`
    // through `__device__ fx_table[]`: nvlink puts their 0x700 bytes in each
    // kernel's bank, sm_75..sm_120).
    for (&(fi, fx), targets) in &b.liveness.indirect {
        let Some((from, _)) = b.layout.placed(fi, fx) else { continue };
        for &(ti, tx) in targets {
            if let Some((to, _)) = b.layout.placed(ti, tx) {
                let callees = calls.entry(from).or_default();
                if !callees.contains(&to) {
                    callees.push(to);
                }
            }
        }
    }
    // Kernels, last `.text` first, with the banked functions each reaches.
    let mut kernels: Vec<(OutId, HashSet<OutId>)> = Vec::new();
    for (id, out) in b.layout.sections.iter().enumerate().rev() {
        let Some(symbol) = out.info.function_symbol() else { continue };
        if out.class != C::Text
            || !inputs.get(symbol.input).and_then(|o| o.symbol(symbol.symbol)).is_some_and(is_kernel)
        {
            continue;
        }
        // A kernel kept without being live (`-preserve-relocs` with
        // `-kernels-used`) gets no function banks: it is a device function
        // to nvlink (sweep13 p150 `bessel_kernel`, sm_75..sm_86: no
        // `.nv.constant2.<k>` of its callees' banks).
        let unwalked = out.pieces.first().is_some_and(|p| b.liveness.unwalked_kernels.contains(&(p.input, p.section)));
        let mut seen = HashSet::new();
        let mut reached = HashSet::new();
        let mut stack = if unwalked { Vec::new() } else { vec![id] };
        while let Some(f) = stack.pop() {
            if !seen.insert(f) {
                continue;
            }
            if f != id && (bank_of.contains_key(&f) || phantoms.contains(&f)) {
                reached.insert(f);
            }
            if let Some(callees) = calls.get(&f) {
                stack.extend(callees.iter().copied());
            }
        }
        kernels.push((id, reached));
    }
    // The kernels reaching a function get their banks made in the reverse of
    // the call graph's node order (the order function symbols first appear,
    // inputs and symbol tables in order): sweep31 p324 (sm_75), `k_child_c`
    // is launched from a.cu, so a.cu's symbol table names it before
    // `k_child_a`, and nvlink makes `k_child_a`'s bank before `k_child_c`'s
    // though `k_child_c`'s `.text` comes last; without the launch the two
    // orders agree.
    let node = function_node_order(inputs);
    let node_of = |k: OutId| {
        let symbol = b.layout.section(k).and_then(|s| s.info.function_symbol());
        symbol.and_then(|f| inputs.get(f.input)?.symbol(f.symbol)).and_then(|f| node.get(f.name).copied())
    };
    kernels.sort_by_key(|&(k, _)| std::cmp::Reverse(node_of(k)));
    let mut used: HashMap<OutId, Vec<(u64, u64)>> = HashMap::new();
    for (k, _) in &kernels {
        let own = kernel_bank(b, *k).and_then(|x| b.layout.section(x)).map_or(0, |s| s.size);
        used.insert(*k, if own > 0 { vec![(0, own)] } else { Vec::new() });
    }
    // Functions last bank first, by the bank of their first copy in input
    // order (input, then section; `first_copies`): each at the largest
    // aligned end of the reaching kernels' banks. Not output `.text` order:
    // relinking an `-r` output (sweep9 p27 `r-relink`, sm_75..sm_86), nvlink
    // places `summary_of` (bank section 69, output `.text` 82) before
    // `coulomb_like` (65, 95), so `apply_scalar_fn`'s bank holds
    // `coulomb_like` at 0x60, behind the 0x60 bytes `summary_of` takes in the
    // other kernels reaching both. Nor input `.text` order: in p24's `-G`
    // `-r` output, relinked (sm_75..sm_86), `cos`'s `.text` (208) comes after
    // `tan`'s (204) but its bank (166) before `tan`'s (169), and nvlink
    // places `tan` first (0xf0, behind `huge_trig_table`'s own 0xf0 bytes)
    // and `cos` behind it (0x108), as in the exec link of the objects. The
    // first copy, not the one kept: sweep2 p44 (sm_75..sm_89) keeps d.cu's
    // `smooth<double>` and c.cu's `smooth<float>`, and nvlink goes by a.cu's
    // copies of both (`smooth<float>` first).
    let mut functions: Vec<OutId> = bank_of.keys().chain(&phantoms).copied().collect();
    let first_copy = first_copies(b, &functions);
    functions.sort_unstable_by_key(|&f| std::cmp::Reverse((first_copy.get(&f).copied(), f)));
    functions.dedup();
    for f in functions {
        let reachers: Vec<OutId> = kernels.iter().filter(|(_, r)| r.contains(&f)).map(|(k, _)| *k).collect();
        let Some(banks) = bank_of.get(&f) else {
            // A replaced copy's bank whose winner has none: nvlink places
            // an empty bank for the function, at the lowest offset (a
            // multiple of 8) inside no reaching kernel's bytes, and the
            // reaching kernels' banks grow to it (/work/sweep2/red/cb2g
            // `r2_d r2_a-G`, sm_75: r2_d's rc_smooth<double>, 85 registers
            // and a 0x78-byte bank, replaced by the -G r2_a's, 32, without
            // one; r2_ka_d reaches `sin` and `cos` at 0 and 8, r2_kd those
            // and `sinf`, `cosf` at 0x10 and 0x18, and both banks end at
            // 0x20; sweep2 p44 `G-rev`, sm_75..sm_89: `ka_d` 0x20). No
            // bank is created for it.
            let intervals: Vec<(u64, u64)> =
                reachers.iter().flat_map(|k| used.get(k).cloned().unwrap_or_default()).collect();
            let mut candidates: Vec<u64> =
                std::iter::once(0).chain(intervals.iter().map(|&(_, end)| align_up(end, 8))).collect();
            candidates.sort_unstable();
            let at = candidates.into_iter().find(|&c| intervals.iter().all(|&(lo, hi)| c < lo || c >= hi));
            for (&k, at) in reachers.iter().zip(std::iter::repeat(at.unwrap_or(0))) {
                if let Some(out) = kernel_bank(b, k).and_then(|x| b.layout.sections.get_mut(x)) {
                    out.size = out.size.max(at);
                }
            }
            continue;
        };
        for (n, &h) in banks.iter().enumerate() {
            let Some(s) = inputs.get(h.input).and_then(|o| o.section(h.bank)).copied() else { continue };
            let (size, align) = (s.size, s.addralign.max(1));
            let ends = reachers.iter().filter_map(|k| used.get(k)).flatten().map(|&(_, end)| align_up(end, align));
            let at = ends.max().unwrap_or(0);
            // A losing copy's bank is placed, but its section symbol has no
            // output symbol: nvlink writes the offset into the null symbol's
            // value instead, the last such bank's (wc2 sm_80: `wf<double>` in
            // x, y and z: 16 for `x y`, 24 and 40 behind 8 bytes of another
            // function's bank for `x z` and `x y z`).
            if n > 0 && !reachers.is_empty() {
                b.layout.null_value = Some(at);
            }
            for &k in &reachers {
                used.entry(k).or_default().push((at, at.saturating_add(size)));
                copy_function_bank(b, h, k, at);
            }
        }
        share_bank_alignment(b, &reachers);
    }
    // A kernel's bank ends at its alignment: sweep24 p254 `rev` (sm_75),
    // `ir_tree_k`'s and `ik_expr_k`'s banks end 4 bytes past an 8-byte
    // boundary after their last function's table, and nvlink's are 0x7a0,
    // not 0x79c; fixture `cbe`: 8 bytes of its own and a 0xc-byte table,
    // 0x18 (sm_75, sm_86).
    for (k, _) in &kernels {
        if let Some(out) = kernel_bank(b, *k).and_then(|x| b.layout.sections.get_mut(x)) {
            out.size = align_up(out.size, out.align.max(1));
        }
    }
}

/// U25 with U9: the output `.text` of functions whose first copy (or a
/// copy that replaced it) has a `.nv.constant2.<fn>` and was replaced by a
/// later copy whose input has none (`merge_function_banks`).
fn replaced_bank_functions(b: &Builder<'_, '_>) -> Vec<OutId> {
    let mut out = Vec::new();
    for (i, object) in b.inputs.iter().enumerate() {
        for s in object.sections().iter().filter(|s| s.name.starts_with(".nv.constant2.")) {
            for y in object
                .symbols()
                .iter()
                .filter(|y| y.st_type == STT_FUNC && y.section_index() == Some(s.info as usize) && !is_kernel(y))
            {
                let r = SymbolRef { input: i, symbol: y.index };
                let Some(def) = b.resolution.definition_of(r) else { continue };
                if def.input <= i
                    || b.resolution.lost_when_met(r)
                    || b.inputs.get(def.input).is_none_or(|w| w.sections().iter().any(|x| x.name == s.name))
                {
                    continue;
                }
                let Some(text) =
                    b.inputs.get(def.input).and_then(|w| w.symbol(def.symbol)).and_then(|w| w.section_index())
                else {
                    continue;
                };
                if let Some((id, _)) = b.layout.placed(def.input, text) {
                    if !out.contains(&id) {
                        out.push(id);
                    }
                }
            }
        }
    }
    out
}

/// U25: a device function's held-back bank 2 and what goes with it
/// (sm_100+: the merc copy and the relocation sections of both).
struct HeldBank {
    input: usize,
    bank: usize,
    relocations: Option<usize>,
    merc_bank: Option<usize>,
    merc_relocations: Option<usize>,
}

impl HeldBank {
    fn find(inputs: &[InputObject<'_>], input: usize, bank: usize) -> Option<HeldBank> {
        let object = inputs.get(input)?;
        let function = object.section(bank)?.name.strip_prefix(".nv.constant2.")?;
        let merc_name = format!("{MERC_OPTIMIZER_PREFIX}{function}");
        let merc_bank = object.sections().iter().find(|s| s.name == merc_name).map(|s| s.index);
        let relocation_of = |target: usize, merc: bool| {
            object
                .sections()
                .iter()
                .find(|s| {
                    is_relocation_type(s.sh_type)
                        && s.info as usize == target
                        && (s.sh_type == develf_format::section::SHT_CUDA_MERCURY_RELA) == merc
                })
                .map(|s| s.index)
        };
        Some(HeldBank {
            input,
            bank,
            relocations: relocation_of(bank, false),
            merc_bank,
            merc_relocations: merc_bank.and_then(|m| relocation_of(m, true)),
        })
    }
}

/// U25: kernel `k`'s output `.nv.constant2.<k>`, where it has one.
fn kernel_bank(b: &Builder<'_, '_>, k: OutId) -> Option<OutId> {
    b.layout.find(&companion(".nv.constant2.", &b.layout.section(k)?.name))
}

/// U25: the banks of the kernels reaching one function bank share the
/// largest of their alignments, as the offset they share was found over all
/// of them: sweep23 p246, `cg_chain`'s 4-aligned table at 8 behind
/// `ck_everything_k`'s own 8-aligned bytes makes `cd_chain_k`'s new bank
/// 0x20 bytes aligned 8 (sm_75..sm_86); where every bank is 4-aligned they
/// stay 4 (jtab, sm_100/sm_120).
fn share_bank_alignment(b: &mut Builder<'_, '_>, reachers: &[OutId]) {
    let banks: Vec<OutId> = reachers.iter().filter_map(|&k| kernel_bank(b, k)).collect();
    let align = banks.iter().filter_map(|&x| b.layout.section(x)).map(|s| s.align).max().unwrap_or(1);
    for x in banks {
        if let Some(out) = b.layout.sections.get_mut(x) {
            out.align = out.align.max(align);
        }
    }
}

/// Each global function name's place in the call graph's node order (rule
/// 13.10: the order function symbols first appear, inputs in order, each
/// symbol table in order, undefined references included).
fn function_node_order<'n>(inputs: &[InputObject<'n>]) -> HashMap<&'n str, usize> {
    let mut order: HashMap<&'n str, usize> = HashMap::new();
    for object in inputs {
        for symbol in object.symbols() {
            if symbol.st_type == STT_FUNC && !symbol.name.is_empty() {
                let next = order.len();
                order.entry(symbol.name).or_insert(next);
            }
        }
    }
    order
}

/// U25: copies function bank `h` into kernel `k`'s sections at offset `at`,
/// creating those the kernel lacks.
fn copy_function_bank(b: &mut Builder<'_, '_>, h: &HeldBank, k: OutId, at: u64) {
    let inputs = b.inputs;
    let Some(object) = inputs.get(h.input) else { return };
    let Some(text) = b.layout.section(k).map(|s| s.name.clone()) else { return };
    let capsule = b.layout.find(&format!(".nv.capmerc{text}"));
    let mercury = b.layout.mercury;
    // The bank and its merc copy: the function's bytes at `at`.
    let add_data = |b: &mut Builder<'_, '_>, x: usize, name: String, class: SectionClass, info: Option<OutId>| {
        let s = object.section(x).copied()?;
        let id = match b.layout.find(&name) {
            Some(id) => id,
            None => {
                let id = b.create(&name, class, s.sh_type, s.flags, s.addralign.max(1));
                if let (Some(out), Some(t)) = (b.layout.sections.get_mut(id), info) {
                    out.info = InfoField::Section(t);
                }
                id
            }
        };
        if let Some(out) = b.layout.sections.get_mut(id) {
            out.size = out.size.max(at.saturating_add(s.size));
            out.align = out.align.max(s.addralign.max(1));
            out.pieces.push(Piece { input: h.input, section: x, offset: at });
        }
        if let (Some(slot), Ok(id)) =
            (b.layout.placement.get_mut(h.input).and_then(|p| p.get_mut(x)), u32::try_from(id))
        {
            slot.get_or_insert((id, at));
        }
        Some(id)
    };
    let bank = add_data(b, h.bank, companion(".nv.constant2.", &text), C::ConstantBank, Some(k));
    let merc_bank =
        h.merc_bank.and_then(|m| add_data(b, m, companion(MERC_OPTIMIZER_PREFIX, &text), C::Mercury, capsule));
    // The relocation sections: the function's whole list, into the kernel's.
    let add_relocations = |b: &mut Builder<'_, '_>, x: Option<usize>, target: Option<OutId>, merc: bool| {
        let (Some(x), Some(target)) = (x, target) else { return };
        let Some(s) = object.section(x).copied() else { return };
        // Rule 1.3.2.6: sm_75..sm_90a create no empty relocation section.
        if !mercury && s.size == 0 {
            return;
        }
        let Some(target_name) = b.layout.section(target).map(|t| t.name.clone()) else { return };
        let name = match (merc, s.sh_type) {
            (true, _) => format!(".nv.merc.rela{}", target_name.strip_prefix(".nv.merc").unwrap_or(&target_name)),
            (false, SHT_REL) => format!(".rel{target_name}"),
            (false, _) => format!(".rela{target_name}"),
        };
        let existed = b.layout.find(&name).is_some();
        let class = if merc { C::Mercury } else { C::Relocation };
        let id = b.create(&name, class, s.sh_type, s.flags, 8);
        if let Some(out) = b.layout.sections.get_mut(id) {
            if !existed {
                out.set_target(Some(target));
                out.entsize = if s.sh_type == SHT_REL { 16 } else { 24 };
                if merc {
                    out.info = InfoField::Section(target);
                    out.keep = Keep::IfNotEmpty;
                } else if mercury && s.size == 0 {
                    // As an input's empty relocation section on merc (1.3.2.6):
                    // sw `.rela.nv.constant2._Z4ksw2Pi`, 0 bytes.
                    out.keep = Keep::Always;
                }
            }
            let offset = align_up(out.size, 8);
            out.size = offset.saturating_add(s.size);
            out.pieces.push(Piece { input: h.input, section: x, offset });
        }
    };
    add_relocations(b, h.relocations, bank, false);
    add_relocations(b, h.merc_relocations, merc_bank, true);
}
