//! What `nvlink -v` prints after a link: the output's global memory and,
//! per kernel, its resources, read back from the linked cubin.
//!
//! nvlink 13.5's report, checked against its `-v` on all 1,716 fixture links
//! (sm_75..sm_121, executables and `-r`):
//!
//! ```text
//! nvlink info    : 5079 bytes gmem, 288 bytes cmem[3]
//! nvlink info    : Function properties for '_Z8k_sort_cPii':
//! nvlink info    : used 41 registers, used 1 barriers, 0 stack, 4640 bytes smem, 364 bytes cmem[0], 0 bytes lmem
//! ```
//!
//! * `gmem` is `.nv.global` and `.nv.global.init` together; `cmem[3]`, the
//!   module's constant bank, is named where the output has one.
//! * The kernels come in the reverse order of their code's section headers
//!   (file-local kernels among the others, libcudadevrt's where its code
//!   is; sweep29 p303, p304).
//! * Registers are the `.nv.info` `EIATTR_REGCOUNT`; the stack is
//!   `EIATTR_MIN_STACK_SIZE` (or `EIATTR_MAX_STACK_SIZE`, 0 where it cannot be
//!   determined, -1), and in an executable at least the kernel's
//!   `EIATTR_FRAME_SIZE`; `smem` is the kernel's `.nv.shared.<kernel>`, less
//!   the 1 KB reserved area on sm_100+ executables; `cmem[N]` each
//!   `.nv.constant<N>.<kernel>`; `lmem` its `.nv.local.<kernel>`.
//! * On sm_100 and later nvlink names no constant bank, neither the module's
//!   nor the kernels'.
//! * In an executable before sm_100, a kernel whose code or constant bank
//!   names texture or surface references (`.texref`, `.surfref`) ends with
//!   how many of each (`, 1 textures, 1 surfaces`: fixture `ptx`,
//!   sm_75..sm_90a; not on sm_100, sm_100a, sm_120, nor under `-r`).
//! * The barrier count is the kernel's `EIATTR_NUM_BARRIERS`; a kernel
//!   without one repeats the count printed before it. Before the first
//!   kernel with one, nvlink prints the number of sections of zeroed
//!   memory in the output: `.nv.global`, each `.nv.shared.<k>` and
//!   `.nv.shared.reserved.*`, not their Mercury copies (session 45:
//!   controlled links of 1 to 5 kernels with and without shared arrays and
//!   barriers and zeroed or initialised globals, one or several objects,
//!   every order; fixture `vbar`; tcg on sm_100a, 2 with its reserved
//!   area): all 1,106 fixture links with such a first kernel.

use develf_format::nvinfo::{EIATTR_FRAME_SIZE, EIATTR_MAX_STACK_SIZE, EIATTR_MIN_STACK_SIZE, EIATTR_REGCOUNT};
use develf_format::section::{SHT_CUDA_GLOBAL, SHT_CUDA_RESERVED_SHARED, SHT_CUDA_SHARED, SHT_NOBITS};
use develf_format::symbol::{STO_CUDA_ENTRY, STT_CUDA_SURFACE, STT_CUDA_TEXTURE, STT_FUNC};
use develf_parse::cubin::Cubin;
use std::collections::HashMap;

/// The shared memory sm_100+ executables reserve at the start of every
/// kernel's window, which nvlink's `smem` leaves out.
const MERCURY_RESERVED_SHARED: u64 = 1024;
/// The constant banks a kernel can have (`.nv.constant0` .. `.nv.constant17`).
const CONSTANT_BANKS: u32 = 18;
/// The section types nvlink counts in `-v`'s first barrier count.
const ZEROED_MEMORY: [u32; 4] = [SHT_NOBITS, SHT_CUDA_GLOBAL, SHT_CUDA_SHARED, SHT_CUDA_RESERVED_SHARED];

/// The report's lines, without nvlink's `info` prefix; `None` when `output`
/// is not a cubin develf can read.
pub fn resource_report(output: &[u8], relocatable: bool) -> Option<Vec<String>> {
    let cubin = Cubin::parse(output).ok()?;
    let mercury = cubin.target().is_some_and(|arch| arch.sm >= 100);
    // By name, once: a big link has tens of thousands of sections.
    let sizes: HashMap<&str, u64> = cubin.sections().iter().map(|s| (s.name, s.size)).collect();
    let size_of = |name: &str| sizes.get(name).copied();
    let mut lines = Vec::new();
    let gmem = size_of(".nv.global").unwrap_or(0) + size_of(".nv.global.init").unwrap_or(0);
    lines.push(match size_of(".nv.constant3").filter(|_| !mercury) {
        Some(bank) => format!("{gmem} bytes gmem, {bank} bytes cmem[3]"),
        None => format!("{gmem} bytes gmem"),
    });
    let function_values = function_values(&cubin);
    let kernel_barriers = kernel_barriers(&cubin);
    let references = if relocatable || mercury { HashMap::new() } else { references_named(&cubin) };
    let mut kernels: Vec<_> =
        cubin.symbols().iter().filter(|s| s.st_type == STT_FUNC && s.other & STO_CUDA_ENTRY != 0).collect();
    kernels.sort_by_key(|kernel| std::cmp::Reverse(kernel.section_index()));
    // Before the first kernel with a count of its own: the sections of
    // zeroed memory (the module documentation's last point).
    let zeroed = cubin
        .sections()
        .iter()
        .filter(|s| ZEROED_MEMORY.contains(&s.sh_type) && !s.name.starts_with(".nv.merc."))
        .count();
    let mut barriers = u32::try_from(zeroed).unwrap_or(u32::MAX);
    for kernel in kernels {
        let name = kernel.name;
        let value = |attribute: u8| function_values.get(&(attribute, kernel.index)).copied();
        if let Some(&count) = kernel_barriers.get(name) {
            barriers = count;
        }
        let registers = value(EIATTR_REGCOUNT).unwrap_or(0);
        let stack = value(EIATTR_MIN_STACK_SIZE).or_else(|| value(EIATTR_MAX_STACK_SIZE)).unwrap_or(0);
        let stack = if stack == u32::MAX { 0 } else { stack };
        let stack = if relocatable { stack } else { stack.max(value(EIATTR_FRAME_SIZE).unwrap_or(0)) };
        let shared = size_of(&format!(".nv.shared.{name}")).unwrap_or(0);
        let shared = if mercury && !relocatable { shared.saturating_sub(MERCURY_RESERVED_SHARED) } else { shared };
        let mut banks = String::new();
        if !mercury {
            for bank in 0..CONSTANT_BANKS {
                if let Some(size) = size_of(&format!(".nv.constant{bank}.{name}")) {
                    banks.push_str(&format!("{size} bytes cmem[{bank}], "));
                }
            }
        }
        let local = size_of(&format!(".nv.local.{name}")).unwrap_or(0);
        let mut named = String::new();
        let own = [format!(".text.{name}"), format!(".nv.constant0.{name}")];
        let own: Vec<&(u8, u32)> = own.iter().flat_map(|section| references.get(section.as_str())).flatten().collect();
        for (kind, what) in [(STT_CUDA_TEXTURE, "textures"), (STT_CUDA_SURFACE, "surfaces")] {
            let mut symbols: Vec<u32> = own.iter().filter(|(t, _)| *t == kind).map(|(_, s)| *s).collect();
            symbols.sort_unstable();
            symbols.dedup();
            if !symbols.is_empty() {
                named.push_str(&format!(", {} {what}", symbols.len()));
            }
        }
        lines.push(format!("Function properties for '{name}':"));
        lines.push(format!(
            "used {registers} registers, used {barriers} barriers, {stack} stack, {shared} bytes smem, {banks}{local} bytes lmem{named}"
        ));
    }
    Some(lines)
}

/// The `.nv.info` values this report reads (registers, frame and stack
/// sizes), by (attribute, function's symbol index).
fn function_values(cubin: &Cubin<'_>) -> HashMap<(u8, usize), u32> {
    use develf_eiattr::Attribute as A;
    let mut values = HashMap::new();
    for section in cubin.sections().iter().filter(|s| s.name == ".nv.info") {
        for record in develf_eiattr::NvInfo::decode(section.bytes()).records {
            let (attribute, value) = match record.attribute {
                A::Regcount(v) => (EIATTR_REGCOUNT, v),
                A::FrameSize(v) => (EIATTR_FRAME_SIZE, v),
                A::MinStackSize(v) => (EIATTR_MIN_STACK_SIZE, v),
                A::MaxStackSize(v) => (EIATTR_MAX_STACK_SIZE, v),
                _ => continue,
            };
            values.insert((attribute, value.function as usize), value.value);
        }
    }
    values
}

/// The texture and surface references (type, symbol) the relocations of
/// each section name, by the section's name.
fn references_named<'a>(cubin: &Cubin<'a>) -> HashMap<&'a str, Vec<(u8, u32)>> {
    let mut named: HashMap<&'a str, Vec<(u8, u32)>> = HashMap::new();
    for relocations in cubin.relocation_sections() {
        let Some(patched) = cubin.sections().get(relocations.target as usize) else { continue };
        for relocation in relocations.entries() {
            let Some(symbol) = cubin.symbols().get(relocation.symbol as usize) else { continue };
            if matches!(symbol.st_type, STT_CUDA_TEXTURE | STT_CUDA_SURFACE) {
                named.entry(patched.name).or_default().push((symbol.st_type, relocation.symbol));
            }
        }
    }
    named
}

/// Each kernel's own `EIATTR_NUM_BARRIERS` (in `.nv.info.<kernel>`), by name.
fn kernel_barriers<'a>(cubin: &'a Cubin<'a>) -> HashMap<&'a str, u32> {
    let mut counts = HashMap::new();
    for section in cubin.sections() {
        let Some(kernel) = section.name.strip_prefix(".nv.info.") else { continue };
        let records = develf_eiattr::NvInfo::decode(section.bytes()).records;
        if let Some(count) = records.iter().find_map(|r| match r.attribute {
            develf_eiattr::Attribute::NumBarriers(develf_eiattr::shape::ByteValue(count)) => Some(count),
            _ => None,
        }) {
            // A BVAL's byte (its other byte is padding).
            counts.insert(kernel, u32::from(count & 0xff));
        }
    }
    counts
}
