//! `cargo xtask fixtures`: builds `tests/fixtures/` with NVIDIA's own tools.
//!
//! Everything the build does is described by the tables `OBJECTS` and `GROUPS`;
//! which source is built for which architecture is data there, not code here.
//! Every command runs with `tests/fixtures/` as its working directory and with
//! relative paths, so the command lines recorded in the outputs (and in
//! `manifest.json` / `*.nvlink.cmd`) can be re-run from that directory.

use std::collections::BTreeMap;
use std::fs;
use std::path::{Path, PathBuf};
use std::process::Command;
use std::sync::Mutex;
use std::sync::atomic::{AtomicUsize, Ordering};

use anyhow::{Context, Result, bail};
use serde::Serialize;

use crate::toolchain::{self, Toolchain};

/// Architectures built with CUDA 13.5 (ABI 8), oldest first.
const ABI8_ARCHS: &[&str] = &["sm_75", "sm_80", "sm_86", "sm_89", "sm_90", "sm_90a", "sm_100", "sm_100a", "sm_120"];
/// Targets an object or group gets only by naming them (`Archs::Only`):
/// sm_107, whose executables carry a record of their own (rule 7.2).
const NAMED_ONLY_ARCHS: &[&str] = &["sm_107"];

/// Every target a fixture can be built for.
fn fixture_archs() -> impl Iterator<Item = &'static &'static str> {
    ABI8_ARCHS.iter().chain(NAMED_ONLY_ARCHS)
}

/// Where a copy from `.target sm_75` PTX and one from the target's own PTX can
/// differ in rule 9.14's choice (sm_75: equal; Mercury: rule 11.2.1, not modelled).
const VSM_ARCHS: &[&str] = &["sm_75", "sm_86", "sm_90"];

/// The PTX ISA version the CUDA 12.9 ptxas accepts at most (13.5's nvcc writes 9.5).
const PTX_VERSION_FOR_PTXAS12: &str = "8.8";

/// The oldest architecture CUDA 13.5's nvcc generates PTX for; ABI-7 objects for
/// older targets are made from PTX for this one with `.target` rewritten.
const OLDEST_NVCC_ARCH: &str = "sm_75";

/// nvcc runs in this staging directory: a real directory holding a copy of
/// `src/` and symlinks to the output directories. nvcc hands cicc the *resolved*
/// absolute source path, and cicc derives the module id in the names of
/// internal-linkage symbols (`_ZN42_INTERNAL_<hash>_...`) from it and writes it,
/// with the working directory, into debug info. A fixed path keeps objects
/// identical whichever checkout builds them.
const STABLE_DIR: &str = "/tmp/develf-fixtures";

/// Directories under `tests/fixtures/` that this command owns and rebuilds.
const OUTPUT_DIRS: &[&str] = &["obj", "obj-abi7", "link", "link-r", "ptx", "ptx-abi7"];

/// Which architectures something is built for.
#[derive(Debug, Clone, Copy)]
enum Archs {
    /// Every ABI-8 architecture.
    All,
    /// ABI-8 architectures with this SM number or higher (clusters: 90).
    AtLeast(u32),
    /// Exactly these.
    Only(&'static [&'static str]),
}

impl Archs {
    fn contains(self, arch: &str) -> bool {
        match self {
            Archs::All => !NAMED_ONLY_ARCHS.contains(&arch),
            Archs::AtLeast(min) => sm_number(arch) >= min && !NAMED_ONLY_ARCHS.contains(&arch),
            Archs::Only(list) => list.contains(&arch),
        }
    }
}

/// How an object is made.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
enum Recipe {
    /// `nvcc -rdc=true -cubin` straight to the object.
    Nvcc,
    /// `nvcc -rdc=true -ptx` into `ptx/<arch>/`, then `ptxas` by hand. Needed when
    /// nvcc would hand ptxas a temporary file name that ends up in
    /// `.note.nv.tkinfo` (it does for -G and -lineinfo).
    NvccThenPtxas,
    /// A handwritten `.ptx` source assembled with `ptxas`.
    Ptxas,
    /// `nvcc -rdc=true -lib`: an archive of host objects, `obj/<arch>/<name>.a`
    /// (a stand-in for libcudadevrt.a, whose members nvlink treats apart).
    NvccLib,
}

/// One relocatable object, built for each architecture in `archs` with CUDA 13.5
/// and for each in `abi7` with the CUDA 12.9 ptxas.
#[derive(Debug)]
struct ObjectSpec {
    /// Output file stem; unique.
    name: &'static str,
    /// File under `src/`.
    source: &'static str,
    recipe: Recipe,
    /// Extra nvcc options (for `Recipe::Nvcc` and the nvcc half of `NvccThenPtxas`).
    nvcc_flags: &'static [&'static str],
    /// Extra ptxas options (for the ptxas half of `NvccThenPtxas`, for `Ptxas`,
    /// and for ABI-7 builds).
    ptxas_flags: &'static [&'static str],
    archs: Archs,
    /// Architectures for an ABI-7 build with CUDA 12.9's ptxas (may include sm_50).
    abi7: &'static [&'static str],
}

const ABI7_ALL: &[&str] = &["sm_50", "sm_75", "sm_90"];
/// Sources that use sm_70+ instructions (nanosleep, match, wmma, ...).
const ABI7_SM75_UP: &[&str] = &["sm_75", "sm_90"];
const ABI7_NONE: &[&str] = &[];
/// Rule 10 with mbarriers (`mbarrier.init` is sm_80+): sm_90 alone.
const A7MB_ARCHS: &[&str] = &["sm_90"];
/// An ABI-7 `cuda::barrier` function beside ABI-8 ones (a7nm): sm_80 and sm_90.
const A7NM_ARCHS: &[&str] = &["sm_80", "sm_90"];
/// `-G` objects are large; only a few architectures get them.
const DEBUG_ARCHS: &[&str] = &["sm_75", "sm_90"];
/// Rule 7.2's CTAIDZ_USED after NUM_BARRIERS (cznb): the sm_75..sm_86 order.
const CZNB_ARCHS: &[&str] = &["sm_75", "sm_86"];
/// Rule 7.2's RESERVED_SMEM_USED beside CTAIDZ_USED (rczo, rcz2): the
/// sm_80/sm_86 `-G` code of a dynamic tiled partition carries both.
const RCZ_ARCHS: &[&str] = &["sm_80", "sm_86"];
/// A function-less `-G` object first (gnof.cu), before the debug and mdbg groups' objects.
const GNOF_ARCHS: &[&str] = &["sm_75", "sm_90", "sm_100"];
/// Local `.const` symbols (rule 5.5): one architecture per ABI-8 family
/// (sm_75 with `_param` locals, sm_90, Mercury sm_100) keeps the bytes small.
const CONST_ARCHS: &[&str] = &["sm_75", "sm_90", "sm_100"];
/// The fresh2 template-library groups (rule 9.13): the `.rel` and `.rela`
/// families. Not Mercury: `tlib` sm_100 links byte-identically, but
/// tests/tests/reloc_nvlink.rs cannot yet tell which input's local dsqrt
/// copy a `.nv.merc.debug_frame` relocation names; `tlib-repl`'s replaced
/// FDE nvlink writes 8 bytes longer there (U9, not modelled).
const TLIB_ARCHS: &[&str] = &["sm_75", "sm_86", "sm_90", "sm_100"];
/// The fresh4 reproductions' objects (session 9).
const FRESH4_ARCHS: &[&str] = &["sm_75", "sm_90", "sm_100"];
/// The fresh5 reproductions' objects and groups (session 9).
const FRESH5_ARCHS: &[&str] = &["sm_75", "sm_86", "sm_90"];
/// Their group whose `-r -g` output is relinked (rule 12.2).
const FRESH4_GROUP_ARCHS: &[&str] = &["sm_75", "sm_90"];
const TLIB_REPL_ARCHS: &[&str] = &["sm_75", "sm_86", "sm_90"];
/// tl_a-r24 on sm_100 too, for options/commands.txt (rules 7.8 and U13 on
/// Mercury); its group stays off sm_100, where nvlink rewrites a replaced
/// copy's `.debug_frame` (docs/nvlink-layout.md, "Left on Mercury").
const TLIB_R24_ARCHS: &[&str] = &["sm_75", "sm_86", "sm_90", "sm_100"];
/// What nvcc passes to ptxas for -G.
const MDBG_ARCHS: &[&str] = &["sm_100"];
/// ulm: a static and two weak copies of one function, pre-Mercury and Mercury.
const ULM_ARCHS: &[&str] = &["sm_75", "sm_90", "sm_100", "sm_120"];
/// The sm_100a build alone: `tcgen05` code (U27's reserved shared variable).
const SM100A_ONLY: &[&str] = &["sm_100a"];
/// One sm_100 and one sm_120 build: Mercury code without the sm_100a copy.
const MERCURY_PAIR: &[&str] = &["sm_100", "sm_120"];
/// Rule 6.1's losing function banks: sm_75..sm_89 put double constants in bank 2.
const WCB_ARCHS: &[&str] = &["sm_75", "sm_86"];
/// Fixture `sbloop` (rule 11.3, the stack-pointer load's group in ptxas's
/// numbering): sm_100 only, as its sm_120 build is one nvlink's finaliser
/// still schedules differently (its waits around the loop).
const SBLOOP_ARCHS: &[&str] = &["sm_100"];
/// Fixture group `ucs-G` (rule 5.7's merged `.nv.ptx.const0.size`).
const UCS_ARCHS: &[&str] = &["sm_90", "sm_100"];
/// The `sco` groups (shared-memory overlap).
const SCO_ARCHS: &[&str] = &["sm_86", "sm_90"];
/// The `nbex-G` group: one non-Mercury and one Mercury target.
const NBEX_ARCHS: &[&str] = &["sm_86", "sm_100"];
/// The `indir` group: one architecture with and one without `_param` locals.
const INDIR_ARCHS: &[&str] = &["sm_75", "sm_90"];
/// Rules 12.8, 12.9: relinked rooms beside callees' arrays (session 15).
const SHROOM_ARCHS: &[&str] = &["sm_75", "sm_90", "sm_100", "sm_120"];
/// Groups seen to differ on sm_120 alone.
const SM120_ONLY: &[&str] = &["sm_120"];
/// Rule 7.2's RESERVED_SMEM_USED: cooperative groups' tile reductions set it
/// from sm_80 on.
const RSU_ARCHS: &[&str] = &["sm_80", "sm_90", "sm_100"];
/// Sweep11 p120's appended records (rule 7.2): sm_90, where the `-G`
/// object's cooperative-groups code brings both.
const CGT_ARCHS: &[&str] = &["sm_90"];
/// Sweep10's shared-memory relinks (rules 12.3, 12.10).
const ROOMEQ_ARCHS: &[&str] = &["sm_75", "sm_80", "sm_90"];
/// Without sm_90's reserved area: there `-g`'s `.symtab` gives the shared
/// variable 0x400 more than its relocations get, which tests/reloc_nvlink's
/// model does not know.
const XKEEP_ARCHS: &[&str] = &["sm_75", "sm_80"];
/// The `launch` objects and group (sm_75: ptxas writes CTAIDZ_USED for a
/// device function; sm_90 and Mercury sm_100 do not).
const LAUNCH_ARCHS: &[&str] = &["sm_75", "sm_90", "sm_100"];
/// The c2l group: where ptxas gives its libdevice function a constant bank 2
/// (sm_75; not sm_90, and launch_rt.cu is built for sm_75, sm_90 and sm_100).
const C2L_ARCHS: &[&str] = &["sm_75"];
/// The rxs group (extern shared memory of three alignments, `-r`).
const RXS_ARCHS: &[&str] = &["sm_75", "sm_90", "sm_100"];
/// Rule 9.15: an input's `.nv.global` of weak data that all lost.
const WNB_ARCHS: &[&str] = &["sm_75", "sm_90", "sm_100", "sm_120"];
/// Rule 7.2.1: a replacing weak copy's EXTERNS (sm_75's two copies use the
/// same registers, so nothing is replaced there).
const XU_ARCHS: &[&str] = &["sm_86", "sm_90", "sm_100", "sm_120"];
/// Rules 12.1 (common area order) and 7.2 (the only kernel's EXTERNS).
const SHC_ARCHS: &[&str] = &["sm_75", "sm_90", "sm_100"];
/// The `rrm` objects: not sm_100, where rrm_a's `DFMA` chain over pending
/// loads is a scoreboard numbering the rule 11.3 model does not reproduce
/// (nvlink's exec link of rrm_a alone; the relink itself is identical).
const RRM_ARCHS: &[&str] = &["sm_75", "sm_90"];
/// Fixture `pux`: nvlink's `-preserve-relocs` links of it fail on sm_75 and
/// sm_100 ("reference to deleted symbol").
const PUX_ARCHS: &[&str] = &["sm_90"];
/// `cp.async.bulk` on an mbarrier (sm_90+).
const EORDER_ARCHS: &[&str] = &["sm_90", "sm_100", "sm_120"];
/// Rule 9.13: a replaced weak copy's indirect call site and, below sm_90,
/// its `.rel.debug_frame` relocation.
const WIC_ARCHS: &[&str] = &["sm_86", "sm_90", "sm_100"];
/// Rule 9.13: replaced copies' line-table relocations (sm_75..sm_89 keep
/// them unless the first line table with relocations names inlined
/// functions; sm_90 drops those of copies with relocations).
const GLN_ARCHS: &[&str] = &["sm_86", "sm_90"];
/// Rule 12.1: a weak shared variable whose laid-out copy is not its definition.
const WSV_ARCHS: &[&str] = &["sm_75", "sm_90", "sm_100"];
/// Rule 7.2: the order of a kernel's appended EXTERNS and NUM_BARRIERS.
const NBO_ARCHS: &[&str] = &["sm_75", "sm_90", "sm_100"];
/// Fixture `sumloop`: every target, sm_107 too (rule 7.2's record 0x67).
const SUMLOOP_ARCHS: &[&str] =
    &["sm_75", "sm_80", "sm_86", "sm_89", "sm_90", "sm_90a", "sm_100", "sm_100a", "sm_120", "sm_107"];
const SUMLOOP_G_ARCHS: &[&str] = &["sm_100", "sm_120", "sm_107"];
/// The stand-in libcudadevrt.a and the objects linked with it.
/// Rule 9.13's per-name debug relocations: `.rel` (sm_80) and `.rela` (sm_90) FDE relocations.
const FRP_ARCHS: &[&str] = &["sm_80", "sm_90"];
/// rcrepl: sm_90 only, as nvlink's sm_75 `-r` link of it dies ("reference to
/// deleted section": rc_d's replaced `.nv.constant2.<fn>`, rule 6.1).
const RC_ARCHS: &[&str] = &["sm_90"];
/// Rule 7.2's NUM_MBARRIERS (`mbarrier` needs sm_80).
const MBO_ARCHS: &[&str] = &["sm_80", "sm_90"];
const MBSUM_ARCHS: &[&str] = &["sm_80", "sm_90", "sm_100"];
/// sm_120 only: on sm_100 nvlink's waits on a barrier also end the other
/// groups renumbered onto it (`wt_tf32` 0xfe0), which rule 11.3's model does
/// not follow yet, so the link differs there.
const WMTF_ARCHS: &[&str] = &["sm_120"];
const DEVRT_ARCHS: &[&str] = &["sm_75", "sm_90"];
const PTXAS_DEVICE_DEBUG: &[&str] = &["-g", "--dont-merge-basicblocks", "--return-at-end"];

const fn cu(name: &'static str, source: &'static str, archs: Archs, abi7: &'static [&'static str]) -> ObjectSpec {
    ObjectSpec { name, source, recipe: Recipe::Nvcc, nvcc_flags: &[], ptxas_flags: &[], archs, abi7 }
}

/// [`cu`] with nvcc flags (`-maxrregcount=N`, `-G`, ...), no ABI-7 build.
const fn nvcc_with(
    name: &'static str,
    source: &'static str,
    nvcc_flags: &'static [&'static str],
    archs: Archs,
) -> ObjectSpec {
    ObjectSpec { name, source, recipe: Recipe::Nvcc, nvcc_flags, ptxas_flags: &[], archs, abi7: ABI7_NONE }
}

/// An `nvcc -rdc=true -lib` archive, `obj/<arch>/<name>.a` ([`Recipe::NvccLib`]).
const fn host_library(name: &'static str, source: &'static str, archs: Archs) -> ObjectSpec {
    ObjectSpec { name, source, recipe: Recipe::NvccLib, nvcc_flags: &[], ptxas_flags: &[], archs, abi7: ABI7_NONE }
}

/// An object built `-G` (nvcc, then ptxas with what nvcc passes it for `-G`).
const fn device_debug(name: &'static str, source: &'static str, archs: Archs) -> ObjectSpec {
    ObjectSpec {
        name,
        source,
        recipe: Recipe::NvccThenPtxas,
        nvcc_flags: &["-G"],
        ptxas_flags: PTXAS_DEVICE_DEBUG,
        archs,
        abi7: ABI7_NONE,
    }
}

/// An object built `-lineinfo` (nvcc, then ptxas `--generate-line-info`).
const fn line_info(name: &'static str, source: &'static str, archs: Archs) -> ObjectSpec {
    ObjectSpec {
        name,
        source,
        recipe: Recipe::NvccThenPtxas,
        nvcc_flags: &["-lineinfo"],
        ptxas_flags: &["--generate-line-info"],
        archs,
        abi7: ABI7_NONE,
    }
}

const fn ptx(name: &'static str, source: &'static str) -> ObjectSpec {
    ObjectSpec {
        name,
        source,
        recipe: Recipe::Ptxas,
        nvcc_flags: &[],
        ptxas_flags: &[],
        archs: Archs::All,
        abi7: ABI7_ALL,
    }
}

const OBJECTS: &[ObjectSpec] = &[
    cu("big_helper", "big_helper.cu", Archs::All, ABI7_ALL),
    ObjectSpec {
        name: "big_params",
        source: "big_params.cu",
        recipe: Recipe::Nvcc,
        nvcc_flags: &["-maxrregcount=32"],
        ptxas_flags: &["-maxrregcount=32"],
        archs: Archs::All,
        abi7: ABI7_SM75_UP,
    },
    cu("a7x_dyn", "a7x_dyn.cu", Archs::Only(ABI7_SM75_UP), ABI7_SM75_UP),
    cu("a7x_tile", "a7x_tile.cu", Archs::Only(ABI7_SM75_UP), ABI7_NONE),
    // ABI-8 builds for every target too: groups nbraise, nbraise2-g.
    cu("a7nb_k", "a7nb_k.cu", Archs::All, ABI7_SM75_UP),
    cu("a7nb2_k", "a7nb2_k.cu", Archs::Only(ABI7_SM75_UP), ABI7_SM75_UP),
    cu("a7nb_f", "a7nb_f.cu", Archs::All, ABI7_NONE),
    cu("a7x_e16", "a7x_e16.cu", Archs::Only(ABI7_SM75_UP), ABI7_NONE),
    cu("a7x_e128", "a7x_e128.cu", Archs::Only(ABI7_SM75_UP), ABI7_NONE),
    cu("calls_lib", "calls_lib.cu", Archs::All, ABI7_ALL),
    cu("calls_main", "calls_main.cu", Archs::All, ABI7_ALL),
    cu("cluster_a", "cluster_a.cu", Archs::AtLeast(90), &["sm_90"]),
    cu("cluster_b", "cluster_b.cu", Archs::AtLeast(90), &["sm_90"]),
    cu("coop_grid", "coop_grid.cu", Archs::All, ABI7_SM75_UP),
    cu("coop_reduce", "coop_reduce.cu", Archs::All, ABI7_SM75_UP),
    cu("gsync", "gsync.cu", Archs::Only(MERCURY_PAIR), ABI7_NONE),
    cu("xcallee", "xcallee.cu", Archs::All, ABI7_NONE),
    cu("dsetp", "dsetp.cu", Archs::Only(MERCURY_PAIR), ABI7_NONE),
    device_debug("debug_a-G", "debug_a.cu", Archs::Only(DEBUG_ARCHS)),
    device_debug("gnof-G", "gnof.cu", Archs::Only(GNOF_ARCHS)),
    ObjectSpec {
        name: "debug_a-lineinfo",
        source: "debug_a.cu",
        recipe: Recipe::NvccThenPtxas,
        nvcc_flags: &["-lineinfo"],
        ptxas_flags: &["--generate-line-info"],
        archs: Archs::All,
        abi7: ABI7_NONE,
    },
    device_debug("debug_b-G", "debug_b.cu", Archs::Only(DEBUG_ARCHS)),
    ObjectSpec {
        name: "debug_b-lineinfo",
        source: "debug_b.cu",
        recipe: Recipe::NvccThenPtxas,
        nvcc_flags: &["-lineinfo"],
        ptxas_flags: &["--generate-line-info"],
        archs: Archs::All,
        abi7: ABI7_NONE,
    },
    cu("fptr_main", "fptr_main.cu", Archs::All, ABI7_ALL),
    // U28: private shared arrays, smallest first.
    cu("shpriv", "shpriv.cu", Archs::Only(&["sm_75", "sm_90", "sm_100"]), ABI7_NONE),
    cu("fptr_ops", "fptr_ops.cu", Archs::All, ABI7_ALL),
    cu("managed_a", "managed_a.cu", Archs::All, ABI7_ALL),
    cu("managed_b", "managed_b.cu", Archs::All, ABI7_ALL),
    cu("mma_arch", "mma_arch.cu", Archs::All, ABI7_SM75_UP),
    cu("mma_wmma", "mma_wmma.cu", Archs::All, ABI7_SM75_UP),
    ptx("ptx_lib", "ptx_lib.ptx"),
    ptx("ptx_main", "ptx_main.ptx"),
    ObjectSpec { archs: Archs::Only(CONST_ARCHS), abi7: ABI7_NONE, ..ptx("ptx_const_a", "ptx_const_a.ptx") },
    ObjectSpec { archs: Archs::Only(CONST_ARCHS), abi7: ABI7_NONE, ..ptx("ptx_const_b", "ptx_const_b.ptx") },
    cu("reloc_bytes", "reloc_bytes.cu", Archs::All, ABI7_ALL),
    cu("reloc_dead", "reloc_dead.cu", Archs::All, ABI7_ALL),
    cu("shared_a", "shared_a.cu", Archs::All, ABI7_ALL),
    cu("shared_b", "shared_b.cu", Archs::All, ABI7_ALL),
    cu("sync_atomics", "sync_atomics.cu", Archs::All, ABI7_SM75_UP),
    cu("sync_warp", "sync_warp.cu", Archs::All, ABI7_SM75_UP),
    cu("sys_main", "sys_main.cu", Archs::All, ABI7_ALL),
    cu("sys_util", "sys_util.cu", Archs::All, ABI7_ALL),
    cu("tex_a", "tex_a.cu", Archs::All, ABI7_ALL),
    cu("tex_b", "tex_b.cu", Archs::All, ABI7_ALL),
    cu("weak_a", "weak_a.cu", Archs::All, ABI7_ALL),
    cu("weak_b", "weak_b.cu", Archs::All, ABI7_ALL),
    // Programs written to find divergences on code nobody had linked yet (more
    // in docs/nvlink-layout.md, "Generated-program runs"); one architecture
    // each, to keep the bytes small.
    // Rule 9.14: a `.target sm_75` PTX object first, an object from its own
    // PTX second, the same weak functions (same registers) in both.
    ObjectSpec {
        name: "vsm_ptx",
        source: "vsm_ptx.ptx",
        recipe: Recipe::Ptxas,
        nvcc_flags: &[],
        ptxas_flags: &[],
        archs: Archs::Only(VSM_ARCHS),
        abi7: ABI7_NONE,
    },
    cu("vsm_cu", "vsm_cu.cu", Archs::Only(VSM_ARCHS), ABI7_NONE),
    ObjectSpec {
        name: "common_a",
        source: "common_a.ptx",
        recipe: Recipe::Ptxas,
        nvcc_flags: &[],
        ptxas_flags: &[],
        archs: Archs::Only(&["sm_90"]),
        abi7: ABI7_NONE,
    },
    ObjectSpec {
        name: "common_b",
        source: "common_b.ptx",
        recipe: Recipe::Ptxas,
        nvcc_flags: &[],
        ptxas_flags: &[],
        archs: Archs::Only(&["sm_90"]),
        abi7: ABI7_NONE,
    },
    // Rule 3.2 (f10): `-G` PTX for sm_75 assembled for Mercury targets, whose
    // one-byte `.debug_macinfo` has an aliased merc copy.
    ObjectSpec {
        name: "macinfo",
        source: "macinfo.ptx",
        recipe: Recipe::Ptxas,
        nvcc_flags: &[],
        ptxas_flags: PTXAS_DEVICE_DEBUG,
        archs: Archs::Only(MERCURY_PAIR),
        abi7: ABI7_NONE,
    },
    cu("virt_a", "virt_a.cu", Archs::Only(&["sm_90"]), ABI7_NONE),
    cu("virt_b", "virt_b.cu", Archs::Only(&["sm_90"]), ABI7_NONE),
    cu("wreg_a", "wreg_a.cu", Archs::Only(&["sm_90"]), ABI7_NONE),
    ObjectSpec {
        name: "wreg_b",
        source: "wreg_b.cu",
        recipe: Recipe::Nvcc,
        nvcc_flags: &["-maxrregcount=32"],
        ptxas_flags: &[],
        archs: Archs::Only(&["sm_90"]),
        abi7: ABI7_NONE,
    },
    // Rule 9.13 (fresh2): a header-only template library in three objects,
    // tl_a also built with -maxrregcount=24 so that its weak copies replace
    // the earlier ones (U9). `--extended-lambda` for tl_a's device lambda.
    ObjectSpec {
        name: "tl_a",
        source: "tl_a.cu",
        recipe: Recipe::Nvcc,
        nvcc_flags: &["--extended-lambda"],
        ptxas_flags: &[],
        archs: Archs::Only(TLIB_ARCHS),
        abi7: ABI7_SM75_UP,
    },
    nvcc_with("tl_a-r24", "tl_a.cu", &["--extended-lambda", "-maxrregcount=24"], Archs::Only(TLIB_R24_ARCHS)),
    line_info("tl_c-lineinfo", "tl_c.cu", Archs::Only(INDIR_ARCHS)),
    // Rule 9.13 for line tables (fresh2 tl-mix2): tl_b with line info and
    // tl_c with -G, whose `tl_poly<float>` replaces tl_b's; for
    // options/commands.txt only.
    line_info("tl_b-lineinfo", "tl_b.cu", Archs::Only(INDIR_ARCHS)),
    device_debug("tl_c-G", "tl_c.cu", Archs::Only(INDIR_ARCHS)),
    // fresh4 (session 9), for options/commands.txt and the groups below:
    // rule 6.1's banks through a pointer table and of a function no kept
    // kernel reaches, rules 12.1/12.3's extern alignments, rule 9's
    // `.debug_loc` of a losing copy.
    cu("ib_a", "ib_a.cu", Archs::Only(FRESH4_ARCHS), ABI7_NONE),
    cu("ib_b", "ib_b.cu", Archs::Only(FRESH4_ARCHS), ABI7_NONE),
    cu("ub", "ub.cu", Archs::Only(FRESH4_ARCHS), ABI7_NONE),
    cu("rea_a", "rea_a.cu", Archs::Only(FRESH4_ARCHS), ABI7_NONE),
    cu("rea_b", "rea_b.cu", Archs::Only(FRESH4_ARCHS), ABI7_NONE),
    cu("rte", "rte.cu", Archs::Only(FRESH4_ARCHS), ABI7_NONE),
    cu("dll_a", "dll_a.cu", Archs::Only(FRESH4_ARCHS), ABI7_NONE),
    device_debug("dll_b-G", "dll_b.cu", Archs::Only(FRESH4_ARCHS)),
    // fresh5 (session 9): rule 9.13 for a replaced `-G` weak template
    // kernel, rule 12.8 for `-g` executables of `-r -g` outputs (group
    // `eo_a`, `eo_b` below); for options/commands.txt.
    device_debug("wtk_a-G", "wtk_a.cu", Archs::Only(FRESH5_ARCHS)),
    line_info("wtk_b-lineinfo", "wtk_b.cu", Archs::Only(FRESH5_ARCHS)),
    cu("eo_a", "eo_a.cu", Archs::Only(FRESH5_ARCHS), ABI7_NONE),
    cu("eo_b", "eo_b.cu", Archs::Only(FRESH5_ARCHS), ABI7_NONE),
    // ABI-7 copies too: rules 7.8 (prototype order, last declaration) and 10.
    cu("tl_b", "tl_b.cu", Archs::Only(TLIB_ARCHS), ABI7_SM75_UP),
    cu("tl_c", "tl_c.cu", Archs::Only(TLIB_ARCHS), ABI7_SM75_UP),
    // fresh2: cross-file address initialisers, `__constant__` tables.
    // ABI-7 gi_a and cx_b too: rule 10's 0x66 record for kernels reaching
    // ABI-8 code (gi_kernel indirectly, cx_kernel_b; not the leaf cx_unused).
    cu("gi_a", "gi_a.cu", Archs::Only(CONST_ARCHS), ABI7_SM75_UP),
    cu("gi_b", "gi_b.cu", Archs::Only(CONST_ARCHS), ABI7_SM75_UP),
    cu("cx_a", "cx_a.cu", Archs::Only(CONST_ARCHS), ABI7_NONE),
    cu("cx_b", "cx_b.cu", Archs::Only(CONST_ARCHS), ABI7_SM75_UP),
    // fresh3: an ABI-7 kernel with a named barrier and a static shared array
    // calling ABI-8 code (rules 10 and 12.1): an ABI-7 build only.
    cu("a7bar_k", "a7bar_k.cu", Archs::Only(&[]), ABI7_SM75_UP),
    cu("a7bar_f", "a7bar_f.cu", Archs::Only(ABI7_SM75_UP), ABI7_NONE),
    cu("a7fb_f", "a7fb_f.cu", Archs::Only(ABI7_SM75_UP), ABI7_SM75_UP),
    cu("a7fb_k", "a7fb_k.cu", Archs::Only(&[]), ABI7_SM75_UP),
    cu("a7rp_a", "a7rp_a.cu", Archs::Only(&[]), ABI7_SM75_UP),
    cu("a7rp_f", "a7rp_f.cu", Archs::Only(&[]), ABI7_SM75_UP),
    cu("a7ro", "a7ro.cu", Archs::Only(&[]), ABI7_SM75_UP),
    cu("a7dx", "a7dx.cu", Archs::Only(ABI7_SM75_UP), ABI7_SM75_UP),
    // No group: its link's capsule differs (tests/fixtures/partial).
    nvcc_with("wsc", "wsc.cu", &["-Xptxas", "-O0"], Archs::Only(&["sm_100", "sm_120"])),
    cu("a7x_a", "a7x_a.cu", Archs::Only(&[]), ABI7_SM75_UP),
    // Rule 10: an ABI-7 kernel's 0x66 record against its appended
    // NUM_MBARRIERS (a7mb-mixed-abi).
    cu("a7mb_k", "a7mb_k.cu", Archs::Only(&[]), A7MB_ARCHS),
    cu("a7mb_f", "a7mb_f.cu", Archs::Only(A7MB_ARCHS), ABI7_NONE),
    cu("a7x_b", "a7x_b.cu", Archs::Only(ABI7_SM75_UP), ABI7_NONE),
    // Rules 1.4 and 7.1 (same-named static functions, recursion through an
    // indirect call): one architecture per family keeps the bytes small.
    cu("twin_a", "twin_a.cu", Archs::Only(CONST_ARCHS), ABI7_NONE),
    cu("twin_b", "twin_b.cu", Archs::Only(CONST_ARCHS), ABI7_NONE),
    // Rule 7.1's stack-size warnings (nvlink's stderr: options/stack-warnings.txt).
    cu("stackw_main", "stackw_main.cu", Archs::Only(&["sm_90", "sm_100"]), ABI7_NONE),
    cu("stackw_lib", "stackw_lib.cu", Archs::Only(&["sm_90", "sm_100"]), ABI7_NONE),
    cu("xshm_a", "xshm_a.cu", Archs::Only(&["sm_90"]), ABI7_NONE),
    cu("xshm_b", "xshm_b.cu", Archs::Only(&["sm_90"]), ABI7_NONE),
    cu("shroom_a", "shroom_a.cu", Archs::Only(SHROOM_ARCHS), ABI7_NONE),
    cu("msigrev", "msigrev.cu", Archs::Only(MERCURY_PAIR), ABI7_NONE),
    cu("dshkeep", "dshkeep.cu", Archs::Only(SHROOM_ARCHS), ABI7_NONE),
    cu("dshdrop", "dshdrop.cu", Archs::Only(SHROOM_ARCHS), ABI7_NONE),
    cu("shroom_b", "shroom_b.cu", Archs::Only(SHROOM_ARCHS), ABI7_NONE),
    cu("xconst_a", "xconst_a.cu", Archs::Only(&["sm_90", "sm_100"]), ABI7_NONE),
    // Rule 11.3: the Mercury finaliser's scoreboard re-allocation.
    cu("sbreuse_a", "sbreuse_a.cu", Archs::Only(MERCURY_PAIR), ABI7_NONE),
    cu("sbreuse_b", "sbreuse_b.cu", Archs::Only(MERCURY_PAIR), ABI7_NONE),
    cu("sbshare", "sbshare.cu", Archs::Only(MDBG_ARCHS), ABI7_NONE),
    // Rule 11.3: a grid-stride loop's wait for barrier reuse, moved to where
    // the store's registers are overwritten.
    cu("sbstride", "sbstride.cu", Archs::Only(MERCURY_PAIR), ABI7_NONE),
    // Rule 6.1: losing copies' function banks, merged behind the winner's.
    cu("wcb_a", "wcb_a.cu", Archs::Only(WCB_ARCHS), ABI7_NONE),
    cu("wcb_b", "wcb_b.cu", Archs::Only(WCB_ARCHS), ABI7_NONE),
    cu("wcb_c", "wcb_c.cu", Archs::Only(WCB_ARCHS), ABI7_NONE),
    // Rule 9.15: weak zero-filled data losing in a whole input's `.nv.global`.
    cu("wnb_a", "wnb_a.cu", Archs::Only(WNB_ARCHS), ABI7_NONE),
    cu("wnb_b", "wnb_b.cu", Archs::Only(WNB_ARCHS), ABI7_NONE),
    // Rule 7.2.1: a weak copy replacing an earlier one (U9) brings its
    // EXTERNS where its own input is met.
    cu("xu_rel", "xu_rel.cu", Archs::Only(XU_ARCHS), ABI7_NONE),
    nvcc_with("xu_mk", "xu_mk.cu", &["-maxrregcount=24"], Archs::Only(XU_ARCHS)),
    nvcc_with("xu_k", "xu_k.cu", &["-maxrregcount=24"], Archs::Only(XU_ARCHS)),
    // Rule 12.1: device functions' arrays several kernels reach, largest
    // first; rule 7.2: the only kernel's EXTERNS after NUM_BARRIERS.
    cu("shc_a", "shc_a.cu", Archs::Only(SHC_ARCHS), ABI7_NONE),
    cu("shc_b", "shc_b.cu", Archs::Only(SHC_ARCHS), ABI7_NONE),
    cu("shc_c", "shc_c.cu", Archs::Only(SHC_ARCHS), ABI7_NONE),
    // Rule 11.3: a diverged-warp fallback and NANOSLEEP in a kernel.
    cu("cgsb", "cgsb.cu", Archs::Only(MERCURY_PAIR), ABI7_NONE),
    // Rule 11.3: a store's read barrier on the barrier it waits on.
    cu("gcc", "gcc.cu", Archs::Only(MERCURY_PAIR), ABI7_NONE),
    // Rule 11.3: a grid sync's fence workaround and `BPT.TRAP`.
    cu("gsf", "gsf.cu", Archs::Only(MERCURY_PAIR), ABI7_NONE),
    // Rule 11.3: the fence workaround before `MEMBAR.SC.CTA`; a generic `ATOM`.
    cu("fshape", "fshape.cu", Archs::Only(MERCURY_PAIR), ABI7_NONE),
    // Rule 11.9: a grid-sync kernel's capsule numbering under `-g`.
    cu("gsync2", "gsync2.cu", Archs::Only(MERCURY_PAIR), ABI7_NONE),
    // Rule 11.9: capsules numbered by aligning them with their bitmaps.
    nvcc_with("capal", "capal.cu", &["-diag-suppress", "20054"], Archs::Only(MERCURY_PAIR)),
    cu("capwarp", "capwarp.cu", Archs::Only(MERCURY_PAIR), ABI7_NONE),
    // A bank-3 constant and a function with a jump table (bank 2), for a
    // relinked `-r` output's merc bank order.
    cu("mcord_a", "mcord_a.cu", Archs::Only(MERCURY_PAIR), ABI7_NONE),
    cu("mcord_b", "mcord_b.cu", Archs::Only(MERCURY_PAIR), ABI7_NONE),
    // Rule 11.2.1: weak copies replacing wfd_a's on Mercury.
    cu("wfd_a", "wfd_a.cu", Archs::Only(MERCURY_PAIR), ABI7_NONE),
    nvcc_with("wfd_b", "wfd_b.cu", &["-maxrregcount=24"], Archs::Only(MERCURY_PAIR)),
    nvcc_with("wfd_c", "wfd_c.cu", &["-maxrregcount=40"], Archs::Only(MDBG_ARCHS)),
    cu("wfr_a", "wfr_a.cu", Archs::Only(MERCURY_PAIR), ABI7_NONE),
    // Rule 11.2 (`.nv_debug_info_reg_sass`): a dead local function first
    // of its name keeps its ranges, a later live one is zeroed.
    ObjectSpec {
        name: "lrz_a",
        source: "lrz_a.ptx",
        recipe: Recipe::Ptxas,
        nvcc_flags: &[],
        ptxas_flags: &["-g"],
        archs: Archs::Only(MERCURY_PAIR),
        abi7: ABI7_NONE,
    },
    ObjectSpec {
        name: "lrz_c",
        source: "lrz_c.ptx",
        recipe: Recipe::Ptxas,
        nvcc_flags: &[],
        ptxas_flags: &["-g"],
        archs: Archs::Only(MERCURY_PAIR),
        abi7: ABI7_NONE,
    },
    ObjectSpec {
        name: "ulm_a",
        source: "ulm_a.ptx",
        recipe: Recipe::Ptxas,
        nvcc_flags: &[],
        ptxas_flags: &[],
        archs: Archs::Only(ULM_ARCHS),
        abi7: ABI7_NONE,
    },
    ObjectSpec {
        name: "ulm_b",
        source: "ulm_b.ptx",
        recipe: Recipe::Ptxas,
        nvcc_flags: &[],
        ptxas_flags: &[],
        archs: Archs::Only(ULM_ARCHS),
        abi7: ABI7_NONE,
    },
    ObjectSpec {
        name: "ulm_c",
        source: "ulm_c.ptx",
        recipe: Recipe::Ptxas,
        nvcc_flags: &[],
        ptxas_flags: &[],
        archs: Archs::Only(ULM_ARCHS),
        abi7: ABI7_NONE,
    },
    nvcc_with("wfr_b", "wfr_b.cu", &["-maxrregcount=24"], Archs::Only(MERCURY_PAIR)),
    // Rule 11.2.1: no row added past the end of the winner's Mercury code.
    cu("wfp_a", "wfp_a.cu", Archs::Only(MERCURY_PAIR), ABI7_NONE),
    nvcc_with("wfp_b", "wfp_b.cu", &["-maxrregcount=24"], Archs::Only(MERCURY_PAIR)),
    // Rule 6.1 with U9: cbr_y's cbr_smooth<double> (-Xptxas -O1, fewer
    // registers) replaces cbr_x's; both have a `.nv.constant2.<fn>` bank.
    cu("cbr_x", "cbr_x.cu", Archs::Only(WCB_ARCHS), ABI7_NONE),
    nvcc_with("cbr_y", "cbr_y.cu", &["-Xptxas", "-O1"], Archs::Only(WCB_ARCHS)),
    // Rule 9.13, replaced copies' debug relocations decided per name: frp_x's
    // frp_wt<float> (84 registers) replaced by frp_y's (-maxrregcount=32),
    // then by frp_z's (24); frp_y0's copy loses when met.
    cu("frp_x", "frp_x.cu", Archs::Only(FRP_ARCHS), ABI7_NONE),
    nvcc_with("frp_y", "frp_y.cu", &["-DFRP_REL", "-maxrregcount=32"], Archs::Only(FRP_ARCHS)),
    nvcc_with("frp_y0", "frp_y.cu", &["-DFRP_REL"], Archs::Only(FRP_ARCHS)),
    nvcc_with("frp_z", "frp_z.cu", &["-maxrregcount=24"], Archs::Only(FRP_ARCHS)),
    cu("frp_g", "frp_g.cu", Archs::Only(FRP_ARCHS), ABI7_NONE),
    nvcc_with("frp_xil", "frp_x.cu", &["-lineinfo", "-DFRP_INL"], Archs::Only(FRP_ARCHS)),
    nvcc_with("frp_yc", "frp_y.cu", &["-lineinfo", "-DFRP_CALL", "-maxrregcount=32"], Archs::Only(FRP_ARCHS)),
    nvcc_with("frp_zl", "frp_z.cu", &["-lineinfo", "-maxrregcount=24"], Archs::Only(FRP_ARCHS)),
    // REGCOUNT through rule 9.13's pairs: rc_d's rc_smooth<double>
    // (-Xptxas -O1) replaced by the -G rc_a's.
    nvcc_with("rc_d", "rc_d.cu", &["-Xptxas", "-O1"], Archs::Only(RC_ARCHS)),
    nvcc_with("rc_a-G", "rc_a.cu", &["-G"], Archs::Only(RC_ARCHS)),
    // Rule 7.2: appended NUM_BARRIERS and NUM_MBARRIERS (mbo_k's kernel
    // reaching mbo_i's mbarrier); mbo_i1 leaves mbo_k's the only kernel;
    // mbo_z's NUM_MBARRIERS of 0.
    cu("mbo_k", "mbo_k.cu", Archs::Only(MBO_ARCHS), ABI7_NONE),
    cu("mbo_i", "mbo_i.cu", Archs::Only(MBO_ARCHS), ABI7_NONE),
    nvcc_with("mbo_i1", "mbo_i.cu", &["-DMBO_ALONE"], Archs::Only(MBO_ARCHS)),
    cu("mbo_z", "mbo_z.cu", Archs::Only(MBO_ARCHS), ABI7_NONE),
    // Rule 6.1 in relinks: cbr_y64's copy (-maxrregcount=64) wins and the
    // `-r` output appends cbr_x's losing bank to its own.
    nvcc_with("cbr_y64", "cbr_y.cu", &["-maxrregcount=64"], Archs::Only(WCB_ARCHS)),
    // U25 with U9, for options/commands.txt only (nvlink's `-r` of the two
    // dies, "reference to deleted section"): cbg_d's rc_smooth<double> and
    // its bank replaced by the -G cbg_a's, which has none.
    nvcc_with("cbg_d", "cbg_d.cu", &["-Xptxas", "-O1"], Archs::Only(WCB_ARCHS)),
    nvcc_with("cbg_a-G", "cbg_a.cu", &["-G"], Archs::Only(WCB_ARCHS)),
    // Rule 3.2: a kernel-less `-G` object's aliased merc reg_type section.
    device_debug("rta_a-G", "rta_a.cu", Archs::Only(MERCURY_PAIR)),
    cu("rta_b", "rta_b.cu", Archs::Only(MERCURY_PAIR), ABI7_NONE),
    // Rule 7.2: nbo_kernel's appended EXTERNS (nbo_a's assert) and
    // NUM_BARRIERS (nbo_b's barrier) in the inputs' order.
    cu("nbo_a", "nbo_a.cu", Archs::Only(NBO_ARCHS), ABI7_NONE),
    cu("nbo_b", "nbo_b.cu", Archs::Only(NBO_ARCHS), ABI7_NONE),
    // Rule 12.1: wsv_b's wsv_sum<32> (-maxrregcount=24) replaces wsv_a's;
    // its `tile` is laid out, wsv_a's is the definition.
    cu("wsv_a", "wsv_a.cu", Archs::Only(WSV_ARCHS), ABI7_NONE),
    nvcc_with("wsv_b", "wsv_b.cu", &["-maxrregcount=24"], Archs::Only(WSV_ARCHS)),
    // Rule 9.13: gln_a's (-G) gln_rep<float> and gln_k's (-lineinfo, with
    // an inlined call) kernel gln_tk<float>, replaced by gln_c's (U9): their
    // line-table relocations.
    device_debug("gln_a-G", "gln_a.cu", Archs::Only(GLN_ARCHS)),
    line_info("gln_k-lineinfo", "gln_k.cu", Archs::Only(GLN_ARCHS)),
    nvcc_with("gln_c", "gln_c.cu", &["-maxrregcount=24"], Archs::Only(GLN_ARCHS)),
    // Rule 9.13: wic_a's wic_call<3>, replaced by wic_b's (U9), keeps its
    // indirect call site and (sm_86) its FDE relocation.
    cu("wic_a", "wic_a.cu", Archs::Only(WIC_ARCHS), ABI7_NONE),
    nvcc_with("wic_b", "wic_b.cu", &["-maxrregcount=24"], Archs::Only(WIC_ARCHS)),
    cu("sbshfl", "sbshfl.cu", Archs::Only(MERCURY_PAIR), ABI7_NONE),
    cu("sbloop", "sbloop.cu", Archs::Only(SBLOOP_ARCHS), ABI7_NONE),
    cu("sbstraight", "sbstraight.cu", Archs::Only(MERCURY_PAIR), ABI7_NONE),
    nvcc_with("gxshr-G", "gxshr.cu", &["-G"], Archs::Only(SHROOM_ARCHS)),
    cu("gunused", "gunused.cu", Archs::Only(MERCURY_PAIR), ABI7_NONE),
    cu("gatomret", "gatomret.cu", Archs::Only(MERCURY_PAIR), ABI7_NONE),
    cu("ghalfatom", "ghalfatom.cu", Archs::Only(MERCURY_PAIR), ABI7_NONE),
    cu("dshvar", "dshvar.cu", Archs::Only(SHROOM_ARCHS), ABI7_NONE),
    cu("gpress", "gpress.cu", Archs::Only(MERCURY_PAIR), ABI7_NONE),
    cu("gsplit", "gsplit.cu", Archs::Only(MERCURY_PAIR), ABI7_NONE),
    cu("gatomf", "gatomf.cu", Archs::Only(MERCURY_PAIR), ABI7_NONE),
    cu("mcu_a", "mcu_a.cu", Archs::Only(SM120_ONLY), ABI7_NONE),
    cu("mcu_b", "mcu_b.cu", Archs::Only(SM120_ONLY), ABI7_NONE),
    cu("mcu_c", "mcu_c.cu", Archs::Only(SM120_ONLY), ABI7_NONE),
    cu("gloop", "gloop.cu", Archs::Only(MERCURY_PAIR), ABI7_NONE),
    cu("glea", "glea.cu", Archs::Only(MERCURY_PAIR), ABI7_NONE),
    cu("shsort", "shsort.cu", Archs::Only(SHROOM_ARCHS), ABI7_NONE),
    cu("fbr_a", "fbr_a.cu", Archs::Only(WCB_ARCHS), ABI7_NONE),
    cu("fbr_b", "fbr_b.cu", Archs::Only(WCB_ARCHS), ABI7_NONE),
    cu("fbr_c", "fbr_c.cu", Archs::Only(WCB_ARCHS), ABI7_NONE),
    cu("fbend", "fbend.cu", Archs::Only(WCB_ARCHS), ABI7_NONE),
    nvcc_with("rsu-G", "rsu.cu", &["-G"], Archs::Only(RSU_ARCHS)),
    nvcc_with("wsts_a-G", "wsts_a.cu", &["-G"], Archs::Only(INDIR_ARCHS)),
    nvcc_with("wic_a-G", "wic_a.cu", &["-G"], Archs::Only(INDIR_ARCHS)),
    nvcc_with("wic_b-G", "wic_b.cu", &["-G"], Archs::Only(INDIR_ARCHS)),
    // `-dump-callgraph`'s demangled names (a template parameter as a
    // template argument); for options/callgraph-dumps.txt only.
    cu("cgx", "cgx.cu", Archs::Only(INDIR_ARCHS), ABI7_NONE),
    cu("dmt", "dmt.cu", Archs::Only(INDIR_ARCHS), ABI7_NONE),
    // `-v`'s barrier count before the first kernel with one; for
    // options/resource-reports.txt only.
    cu("vbar", "vbar.cu", Archs::Only(INDIR_ARCHS), ABI7_NONE),
    cu("cgn_a", "cgn_a.cu", Archs::Only(INDIR_ARCHS), ABI7_NONE),
    cu("cgn_b", "cgn_b.cu", Archs::Only(INDIR_ARCHS), ABI7_NONE),
    // Rule 7.1: stack-size warnings per indirect call site; for
    // options/stack-warnings.txt only.
    cu("sws_a", "sws_a.cu", Archs::Only(INDIR_ARCHS), ABI7_NONE),
    cu("sws_b", "sws_b.cu", Archs::Only(INDIR_ARCHS), ABI7_NONE),
    cu("wsts_b", "wsts_b.cu", Archs::Only(INDIR_ARCHS), ABI7_NONE),
    nvcc_with("fbo_a-G", "fbo_a.cu", &["-G"], Archs::Only(WCB_ARCHS)),
    cu("fbo_b", "fbo_b.cu", Archs::Only(WCB_ARCHS), ABI7_NONE),
    cu("wfc_a", "wfc_a.cu", Archs::Only(WCB_ARCHS), ABI7_NONE),
    nvcc_with("wfc_b", "wfc_b.cu", &["--use_fast_math"], Archs::Only(WCB_ARCHS)),
    nvcc_with("wfc_c", "wfc_c.cu", &["-Xptxas", "-O0"], Archs::Only(WCB_ARCHS)),
    cu("roomeq", "roomeq.cu", Archs::Only(ROOMEQ_ARCHS), ABI7_NONE),
    nvcc_with("xkeep-G", "xkeep.cu", &["-G"], Archs::Only(XKEEP_ARCHS)),
    cu("cmo_a", "cmo_a.cu", Archs::Only(SHC_ARCHS), ABI7_NONE),
    cu("cmo_b", "cmo_b.cu", Archs::Only(SHC_ARCHS), ABI7_NONE),
    cu("cmk1", "cmk1.cu", Archs::Only(SHC_ARCHS), ABI7_NONE),
    cu("cmk2", "cmk2.cu", Archs::Only(SHC_ARCHS), ABI7_NONE),
    cu("eqn", "eqn.cu", Archs::Only(SHC_ARCHS), ABI7_NONE),
    cu("eqx_a", "eqx_a.cu", Archs::Only(SHC_ARCHS), ABI7_NONE),
    cu("eqx_b", "eqx_b.cu", Archs::Only(SHC_ARCHS), ABI7_NONE),
    cu("eqx_c", "eqx_c.cu", Archs::Only(SHC_ARCHS), ABI7_NONE),
    cu("cah", "cah.cu", Archs::Only(SHC_ARCHS), ABI7_NONE),
    cu("kur", "kur.cu", Archs::Only(SHC_ARCHS), ABI7_NONE),
    cu("pkr", "pkr.cu", Archs::Only(SHC_ARCHS), ABI7_NONE),
    cu("mbsum", "mbsum.cu", Archs::Only(MBSUM_ARCHS), ABI7_NONE),
    cu("relfence", "relfence.cu", Archs::Only(MERCURY_PAIR), ABI7_NONE),
    cu("scoped", "scoped.cu", Archs::Only(MERCURY_PAIR), ABI7_NONE),
    cu("qx", "qx.cu", Archs::Only(MERCURY_PAIR), ABI7_NONE),
    cu("wmtf", "wmtf.cu", Archs::Only(WMTF_ARCHS), ABI7_NONE),
    cu("cbk", "cbk.cu", Archs::Only(SHC_ARCHS), ABI7_NONE),
    cu("shown", "shown.cu", Archs::Only(SHC_ARCHS), ABI7_NONE),
    cu("wun", "wun.cu", Archs::Only(SHC_ARCHS), ABI7_NONE),
    cu("pku", "pku.cu", Archs::Only(SHC_ARCHS), ABI7_NONE),
    cu("pkb", "pkb.cu", Archs::Only(SHC_ARCHS), ABI7_NONE),
    cu("pkw_a", "pkw_a.cu", Archs::Only(SHC_ARCHS), ABI7_NONE),
    cu("pkw_b", "pkw_b.cu", Archs::Only(SHC_ARCHS), ABI7_NONE),
    cu("wcp_a", "wcp_a.cu", Archs::Only(SHC_ARCHS), ABI7_NONE),
    // Capped so that its copy of the weak kernel has fewer registers and wins.
    nvcc_with("wcp_b", "wcp_b.cu", &["-maxrregcount=24"], Archs::Only(SHC_ARCHS)),
    cu("pun", "pun.cu", Archs::Only(SHC_ARCHS), ABI7_NONE),
    cu("cba_a", "cba_a.cu", Archs::Only(VSM_ARCHS), ABI7_NONE),
    cu("cba_b", "cba_b.cu", Archs::Only(VSM_ARCHS), ABI7_NONE),
    cu("cbe_a", "cbe_a.cu", Archs::Only(WCB_ARCHS), ABI7_NONE),
    cu("cbe_b", "cbe_b.cu", Archs::Only(WCB_ARCHS), ABI7_NONE),
    cu("fadr_a", "fadr_a.cu", Archs::Only(SHC_ARCHS), ABI7_NONE),
    cu("fadr_b", "fadr_b.cu", Archs::Only(SHC_ARCHS), ABI7_NONE),
    cu("kupn_a", "kupn_a.cu", Archs::Only(SHC_ARCHS), ABI7_NONE),
    cu("kupn_b", "kupn_b.cu", Archs::Only(SHC_ARCHS), ABI7_NONE),
    cu("adrw_a", "adrw_a.cu", Archs::Only(SHC_ARCHS), ABI7_NONE),
    cu("adrw_b", "adrw_b.cu", Archs::Only(SHC_ARCHS), ABI7_NONE),
    cu("xsa_a", "xsa_a.cu", Archs::Only(SHC_ARCHS), ABI7_NONE),
    cu("rxi_a", "rxi_a.cu", Archs::Only(SHC_ARCHS), ABI7_NONE),
    cu("ulw_a", "ulw_a.cu", Archs::Only(DEBUG_ARCHS), ABI7_NONE),
    cu("wlb_a", "wlb_a.cu", Archs::Only(WCB_ARCHS), ABI7_NONE),
    cu("wlb_b", "wlb_b.cu", Archs::Only(WCB_ARCHS), ABI7_NONE),
    // Capped so that its copy of the weak template has fewer registers and wins.
    nvcc_with("wlb_c", "wlb_c.cu", &["-maxrregcount=24"], Archs::Only(WCB_ARCHS)),
    nvcc_with("ulw_b-G", "ulw_b.cu", &["-G"], Archs::Only(DEBUG_ARCHS)),
    // Capped so that its weak division helper has fewer registers and wins.
    nvcc_with("ulw_c-G", "ulw_c.cu", &["-G", "-maxrregcount=24"], Archs::Only(DEBUG_ARCHS)),
    cu("rxi_b", "rxi_b.cu", Archs::Only(SHC_ARCHS), ABI7_NONE),
    cu("xsa_b", "xsa_b.cu", Archs::Only(SHC_ARCHS), ABI7_NONE),
    nvcc_with("xsa_a-G", "xsa_a.cu", &["-G"], Archs::Only(SHC_ARCHS)),
    nvcc_with("xsa_b-G", "xsa_b.cu", &["-G"], Archs::Only(SHC_ARCHS)),
    cu("casrz", "casrz.cu", Archs::Only(MERCURY_PAIR), ABI7_NONE),
    cu("sb16", "sb16.cu", Archs::Only(SM120_ONLY), ABI7_NONE),
    cu("sbhead", "sbhead.cu", Archs::Only(MERCURY_PAIR), ABI7_NONE),
    nvcc_with("sbuse", "sbuse.cu", &["-prec-sqrt=false"], Archs::Only(MERCURY_PAIR)),
    cu("wtf", "wtf.cu", Archs::Only(MERCURY_PAIR), ABI7_NONE),
    cu("sbmm", "sbmm.cu", Archs::Only(MERCURY_PAIR), ABI7_NONE),
    cu("sbdbl", "sbdbl.cu", Archs::Only(MERCURY_PAIR), ABI7_NONE),
    nvcc_with("sbpr", "sbpr.cu", &["--use_fast_math"], Archs::Only(MERCURY_PAIR)),
    cu("sbfwd", "sbfwd.cu", Archs::Only(MERCURY_PAIR), ABI7_NONE),
    nvcc_with("sbbvh", "sbbvh.cu", &["-maxrregcount=32"], Archs::Only(MERCURY_PAIR)),
    cu("sbtri", "sbtri.cu", Archs::Only(MERCURY_PAIR), ABI7_NONE),
    nvcc_with("sbbru", "sbbru.cu", &["-Xptxas", "-O1"], Archs::Only(MERCURY_PAIR)),
    cu("rrm_a", "rrm_a.cu", Archs::Only(RRM_ARCHS), ABI7_NONE),
    cu("rrm_b", "rrm_b.cu", Archs::Only(RRM_ARCHS), ABI7_NONE),
    cu("wst_a", "wst_a.cu", Archs::Only(SHC_ARCHS), ABI7_NONE),
    cu("wst_b", "wst_b.cu", Archs::Only(SHC_ARCHS), ABI7_NONE),
    cu("dsh128_a", "dsh128_a.cu", Archs::Only(SHC_ARCHS), ABI7_NONE),
    cu("dsh128_b", "dsh128_b.cu", Archs::Only(SHC_ARCHS), ABI7_NONE),
    cu("dsh128_c", "dsh128_c.cu", Archs::Only(SHC_ARCHS), ABI7_NONE),
    nvcc_with("wrel_a", "wrel_a.cu", &["-ftz=true"], Archs::Only(MERCURY_PAIR)),
    nvcc_with("wrel_b", "wrel_b.cu", &["--use_fast_math"], Archs::Only(MERCURY_PAIR)),
    cu("xshma", "xshm_a.cu", Archs::Only(SHC_ARCHS), ABI7_NONE),
    cu("tmab", "tma_b.cu", Archs::Only(MERCURY_PAIR), ABI7_NONE),
    cu("afbo", "afb.cu", Archs::Only(SHC_ARCHS), ABI7_NONE),
    cu("sbrlate", "sbrlate.cu", Archs::Only(MERCURY_PAIR), ABI7_NONE),
    cu("sbldg", "sbldg.cu", Archs::Only(MERCURY_PAIR), ABI7_NONE),
    cu("sbhoist", "sbhoist.cu", Archs::Only(MERCURY_PAIR), ABI7_NONE),
    cu("sbjoin5", "sbjoin5.cu", Archs::Only(MERCURY_PAIR), ABI7_NONE),
    cu("sbexit", "sbexit.cu", Archs::Only(MERCURY_PAIR), ABI7_NONE),
    cu("sbbsync", "sbbsync.cu", Archs::Only(MERCURY_PAIR), ABI7_NONE),
    cu("kuweak_a", "kuweak_a.cu", Archs::Only(SHC_ARCHS), ABI7_NONE),
    nvcc_with("kuweak_b", "kuweak_b.cu", &["-maxrregcount=24"], Archs::Only(SHC_ARCHS)),
    cu("pux", "pux.cu", Archs::Only(SHC_ARCHS), ABI7_NONE),
    cu("sbtog", "sbtog.cu", Archs::Only(MERCURY_PAIR), ABI7_NONE),
    cu("fence2", "fence2.cu", Archs::Only(MERCURY_PAIR), ABI7_NONE),
    cu("sbbssy", "sbbssy.cu", Archs::Only(MERCURY_PAIR), ABI7_NONE),
    cu("sbjoin", "sbjoin.cu", Archs::Only(MERCURY_PAIR), ABI7_NONE),
    cu("gsldc", "gsldc.cu", Archs::Only(MERCURY_PAIR), ABI7_NONE),
    nvcc_with("jtg-li", "jtg.cu", &["-lineinfo"], Archs::Only(MERCURY_PAIR)),
    nvcc_with("spg-li", "spg.cu", &["-lineinfo", "-maxrregcount=32"], Archs::Only(MERCURY_PAIR)),
    cu("eorder", "eorder.cu", Archs::Only(EORDER_ARCHS), ABI7_NONE),
    nvcc_with("gkeep-G", "gkeep.cu", &["-G"], Archs::Only(DEBUG_ARCHS)),
    nvcc_with("gkp16-G", "gkp16.cu", &["-G"], Archs::Only(DEBUG_ARCHS)),
    nvcc_with("gkp4-G", "gkp4.cu", &["-G"], Archs::Only(DEBUG_ARCHS)),
    nvcc_with("gkpe-G", "gkpe.cu", &["-G"], Archs::Only(DEBUG_ARCHS)),
    nvcc_with("gkeep2-G", "gkeep2.cu", &["-G"], Archs::Only(DEBUG_ARCHS)),
    nvcc_with("cznb-G", "cznb.cu", &["-G"], Archs::Only(CZNB_ARCHS)),
    nvcc_with("rczo-G", "rczo.cu", &["-G"], Archs::Only(RCZ_ARCHS)),
    nvcc_with("rcz2-G", "rcz2.cu", &["-G"], Archs::Only(RCZ_ARCHS)),
    nvcc_with("gkeep4_a-G", "gkeep4_a.cu", &["-G"], Archs::Only(DEBUG_ARCHS)),
    nvcc_with("gkeep4_b-G", "gkeep4_b.cu", &["-G"], Archs::Only(DEBUG_ARCHS)),
    nvcc_with("fence2-O1", "fence2.cu", &["-Xptxas", "-O1"], Archs::Only(MERCURY_PAIR)),
    cu("wl_a", "wl_a.cu", Archs::Only(SHC_ARCHS), ABI7_NONE),
    cu("wl_b", "wl_b.cu", Archs::Only(SHC_ARCHS), ABI7_NONE),
    nvcc_with("wl_c-r32", "wl_c.cu", &["-maxrregcount=32"], Archs::Only(SHC_ARCHS)),
    nvcc_with("afa-G", "afa.cu", &["-G"], Archs::Only(SHC_ARCHS)),
    nvcc_with("afb-G", "afb.cu", &["-G"], Archs::Only(SHC_ARCHS)),
    cu("sbcs2r", "sbcs2r.cu", Archs::Only(MERCURY_PAIR), ABI7_NONE),
    cu("sbrpr", "sbrpr.cu", Archs::Only(MERCURY_PAIR), ABI7_NONE),
    cu("sbbar", "sbbar.cu", Archs::Only(MERCURY_PAIR), ABI7_NONE),
    cu("sbpress", "sbpress.cu", Archs::Only(MERCURY_PAIR), ABI7_NONE),
    cu("wpp", "wpp.cu", Archs::Only(MERCURY_PAIR), ABI7_NONE),
    nvcc_with("cgt_a-G", "cgt_a.cu", &["-G"], Archs::Only(CGT_ARCHS)),
    cu("cgt_b", "cgt_b.cu", Archs::Only(CGT_ARCHS), ABI7_NONE),
    cu("cgt_c", "cgt_c.cu", Archs::Only(CGT_ARCHS), ABI7_NONE),
    nvcc_with("wfc_d", "wfc_d.cu", &["-Xptxas", "-O1"], Archs::Only(WCB_ARCHS)),
    cu("atomref", "atomref.cu", Archs::Only(MERCURY_PAIR), ABI7_NONE),
    // Rules 11.3 (a uniform instruction's wait is no use of the stack) and
    // 11.9 (a capsule whose count pairs up with no numbering): a TMA kernel.
    cu("tmacl", "tmacl.cu", Archs::Only(MERCURY_PAIR), ABI7_NONE),
    // Rule 11.3: the fence workaround's second shape (before a
    // `FENCE.VIEW.ASYNC.S`) in a kernel with a `DEPBAR`.
    cu("fva", "fva.cu", Archs::Only(MERCURY_PAIR), ABI7_NONE),
    // Rule 11.9: a cluster barrier in an `elect.sync` fallback, with calls.
    cu("clel", "clel.cu", Archs::Only(MERCURY_PAIR), ABI7_NONE),
    // U27: `tcgen05` code naming `__nv_reservedSMEM_tcgen05_partition`.
    cu("tcg", "tcg.cu", Archs::Only(SM100A_ONLY), ABI7_NONE),
    // Rule 11.9: an `EXIT` after a bulk tensor store (`UTMASTG`).
    cu("tmst", "tmst.cu", Archs::Only(MERCURY_PAIR), ABI7_NONE),
    // Rule 11.3: a loop head's wait on the stack-pointer load's barrier
    // from an instruction that does not read `R1`.
    cu("sbimad", "sbimad.cu", Archs::Only(MERCURY_PAIR), ABI7_NONE),
    // Rule 11.3: CUB's BlockReduce, whose `LDS` takes the read barrier of
    // the `STS` it waits for.
    cu("cubr_a", "cubr_a.cu", Archs::Only(MERCURY_PAIR), ABI7_NONE),
    cu("cubr_b", "cubr_b.cu", Archs::Only(MERCURY_PAIR), ABI7_NONE),
    // Rule 7.2: a -G kernel gets NUM_BARRIERS from its callee before the
    // EXTERNS appended for the callee's `__assertfail`.
    device_debug("nbex-G", "nbex.cu", Archs::Only(NBEX_ARCHS)),
    // Rule 12.1 (f6 cubl): common shared variables of device functions no
    // kernel reaches together overlap; a window's private variables are
    // sorted smallest first before the alignment sort.
    cu("sco_int", "sco_int.cu", Archs::Only(SCO_ARCHS), ABI7_NONE),
    cu("sco_flt", "sco_flt.cu", Archs::Only(SCO_ARCHS), ABI7_NONE),
    cu("sco_dbl", "sco_dbl.cu", Archs::Only(SCO_ARCHS), ABI7_NONE),
    cu("sco_mix", "sco_mix.cu", Archs::Only(SCO_ARCHS), ABI7_NONE),
    // Rule 4.3: Mercury `.strtab` signatures in `.nv.callgraph` order.
    cu("msig_a", "msig_a.cu", Archs::Only(MERCURY_PAIR), ABI7_NONE),
    cu("msig_b", "msig_b.cu", Archs::Only(MERCURY_PAIR), ABI7_NONE),
    cu("msig_c", "msig_c.cu", Archs::Only(MERCURY_PAIR), ABI7_NONE),
    // Rule 11.7: capsule counts leave `B2R.RESULT` out.
    cu("b2r_a", "b2r_a.cu", Archs::Only(MERCURY_PAIR), ABI7_NONE),
    cu("b2r_b", "b2r_b.cu", Archs::Only(MERCURY_PAIR), ABI7_NONE),
    // Rule 11.9: an `EXIT`'s wait on a pending read barrier moves to the
    // inserted `ERRBAR`; for options/commands.txt only.
    cu("ebwait", "ebwait.cu", Archs::Only(MERCURY_PAIR), ABI7_NONE),
    // Rule 11.9: exits before a `BRA.DIV` fallback, in a capsule whose count
    // pairs up with no numbering; for options/commands.txt only.
    cu("wdiv", "wdiv.cu", Archs::Only(MERCURY_PAIR), ABI7_NONE),
    // Rule 11.9: the same with a loop's `__syncwarp()`, a `NOP` after each
    // `BRA.DIV` counted; for options/commands.txt only.
    cu("wsdiv", "wsdiv.cu", Archs::Only(MERCURY_PAIR), ABI7_NONE),
    // Rule 11.9: exits after surface stores (the `SUST`'s wait stays on the
    // `EXIT`, its stall before the barriers); for options/commands.txt only.
    cu("sustx", "sustx.cu", Archs::Only(MERCURY_PAIR), ABI7_NONE),
    // Rule 9.12: an address-taken function outlives the code taking its
    // address; for options/commands.txt only.
    cu("atk", "atk.cu", Archs::Only(&["sm_75", "sm_90", "sm_100"]), ABI7_NONE),
    // Rules 7.1, 7.2, 9.12: a device-side launch (`k1` launches `k2`)
    // against stand-ins for libcudadevrt's launch functions (launch_rt.cu):
    // kernels kept without being live, and CTAIDZ_USED taken from a callee.
    cu("launch", "launch.cu", Archs::Only(LAUNCH_ARCHS), ABI7_NONE),
    cu("launch_rt", "launch_rt.cu", Archs::Only(LAUNCH_ARCHS), ABI7_NONE),
    // Rule 9.2 for launched kernels the lists do not reach (sweep19 p206).
    cu("kul", "kul.cu", Archs::Only(LAUNCH_ARCHS), ABI7_NONE),
    // Rule 7.2: appended CTAIDZ_USED and EXTERNS in a relinked executable
    // (sweep19 p200).
    cu("czo", "czo.cu", Archs::Only(LAUNCH_ARCHS), ABI7_NONE),
    // Rule 9.6, for options/commands.txt only: a launch across files.
    cu("xlaunch_a", "xlaunch_a.cu", Archs::Only(LAUNCH_ARCHS), ABI7_NONE),
    cu("xlaunch_b", "xlaunch_b.cu", Archs::Only(LAUNCH_ARCHS), ABI7_NONE),
    // Rule 6.1: the order of kernels' `.nv.constant2.<k>` when one is
    // launched from another file (sweep31 p324).
    cu("c2l_a", "c2l_a.cu", Archs::Only(C2L_ARCHS), ABI7_NONE),
    cu("c2l_c", "c2l_c.cu", Archs::Only(C2L_ARCHS), ABI7_NONE),
    // Rule 11.3: a kernel using its stack linked with a `-G` object keeps
    // ptxas's scoreboards (sweep31 p321).
    cu("sbstk_k", "sbstk_k.cu", Archs::Only(MERCURY_PAIR), ABI7_NONE),
    nvcc_with("sbstk_g-G", "sbstk_g.cu", &["-G"], Archs::Only(MERCURY_PAIR)),
    // Rule 10: NUM_BARRIERS and the 0x66 record by their first
    // contributors (sweep31 p322).
    cu("a7bo_b", "a7bo_b.cu", Archs::Only(ABI7_SM75_UP), ABI7_NONE),
    cu("a7bo_c", "a7bo_c.cu", Archs::Only(&[]), ABI7_SM75_UP),
    cu("a7mz_b", "a7mz_b.cu", Archs::Only(ABI7_SM75_UP), ABI7_NONE),
    cu("rdsh_a", "rdsh_a.cu", Archs::Only(CONST_ARCHS), ABI7_NONE),
    cu("rdsh_b", "rdsh_b.cu", Archs::Only(CONST_ARCHS), ABI7_NONE),
    cu("a7mz_c", "a7mz_c.cu", Archs::Only(&[]), ABI7_SM75_UP),
    cu("a7mf_a", "a7mf_a.cu", Archs::Only(ABI7_SM75_UP), ABI7_NONE),
    cu("a7mw_a", "a7mw_a.cu", Archs::Only(&[]), ABI7_SM75_UP),
    cu("a7nm_a", "a7nm_a.cu", Archs::Only(&[]), A7NM_ARCHS),
    cu("a7nm_b", "a7nm_b.cu", Archs::Only(A7NM_ARCHS), ABI7_NONE),
    cu("a7mw_b", "a7mw_b.cu", Archs::Only(ABI7_SM75_UP), ABI7_NONE),
    cu("a7mw_c", "a7mw_c.cu", Archs::Only(&[]), ABI7_SM75_UP),
    cu("a7mf_b", "a7mf_b.cu", Archs::Only(ABI7_SM75_UP), ABI7_NONE),
    // Rule 12.3: ABI-7 extern memory beside a pool not aligned to 16
    // (sweep31 p323).
    cu("a7es_a", "a7es_a.cu", Archs::Only(ABI7_SM75_UP), ABI7_NONE),
    cu("a7es_b", "a7es_b.cu", Archs::Only(&[]), ABI7_SM75_UP),
    // Rule 12.3: `-r` with externs of three alignments (sweep31 p323).
    cu("rxs_a", "rxs_a.cu", Archs::Only(RXS_ARCHS), ABI7_NONE),
    cu("rxs_b", "rxs_b.cu", Archs::Only(RXS_ARCHS), ABI7_NONE),
    cu("rxs_c", "rxs_c.cu", Archs::Only(RXS_ARCHS), ABI7_NONE),
    // Rule 11.3: stack-pointer-load waits at instructions that do not read
    // `R1` (sum and compare-and-swap loops).
    cu("sumloop", "sumloop.cu", Archs::Only(SUMLOOP_ARCHS), ABI7_NONE),
    // Rule 13.3, for options/commands.txt only: a stand-in libcudadevrt.a
    // (host objects, as NVIDIA's) joins the link while a function is still
    // undefined, though it does not define it (devrt_need, then the
    // library, then devrt_def).
    cu("devrt_need", "devrt_need.cu", Archs::Only(DEVRT_ARCHS), ABI7_NONE),
    cu("devrt_def", "devrt_def.cu", Archs::Only(DEVRT_ARCHS), ABI7_NONE),
    host_library("libcudadevrt", "devrt_fake.cu", Archs::Only(DEVRT_ARCHS)),
    // Rule 13.3 (f08): nvlink takes any input whose path contains
    // "cudadevrt" for its system library, a raw cubin too; devrt_var needs
    // only a variable it defines.
    cu("cudadevrt_user", "devrt_fake.cu", Archs::Only(DEVRT_ARCHS), ABI7_NONE),
    cu("devrt_var", "devrt_var.cu", Archs::Only(DEVRT_ARCHS), ABI7_NONE),
    cu("xconst_b", "xconst_b.cu", Archs::Only(&["sm_90"]), ABI7_NONE),
    // Rules 3.5 (p_memsz of NOBITS after the file image) and 7.3
    // (EICOMPAT_ATTR_INST_TENSORMAP_V1 merged as a maximum).
    // Rule 7.2.1, for options/commands.txt only: the only kernel's EXTERNS
    // gathers an unreached destructor's `free`, ahead of its own `malloc`.
    cu("onlyk", "onlyk.cu", Archs::Only(INDIR_ARCHS), ABI7_NONE),
    // Rule 4.3: a local address-taken function's signature by creation rank.
    cu("msl_a", "msl_a.cu", Archs::Only(MERCURY_PAIR), ABI7_NONE),
    cu("msl_b", "msl_b.cu", Archs::Only(MERCURY_PAIR), ABI7_NONE),
    // U13 / rule 9.11, for options/commands.txt only: weak copies of equal
    // register counts from sm_80 and sm_86 objects linked for sm_86.
    cu("wsm_a", "wsm_a.cu", Archs::Only(&["sm_80", "sm_86"]), ABI7_NONE),
    cu("wsm_b", "wsm_b.cu", Archs::Only(&["sm_86"]), ABI7_NONE),
    // U28 for a kernel's own arrays; for options/commands.txt only.
    cu("shorder", "shorder.cu", Archs::Only(&["sm_90", "sm_100"]), ABI7_NONE),
    cu("tma_a", "tma_a.cu", Archs::Only(&["sm_90", "sm_90a"]), ABI7_NONE),
    cu("tma_b", "tma_b.cu", Archs::Only(&["sm_90", "sm_90a"]), ABI7_NONE),
    // For options/commands.txt only: `-g -r` on sm_100/sm_120 (rule 11.9's
    // extern shared value in the merc symtab).
    cu("xshm_dyn", "xshm_dyn.cu", Archs::Only(&["sm_100", "sm_120"]), ABI7_NONE),
    cu("jtrel", "jtrel.cu", Archs::Only(MERCURY_PAIR), ABI7_NONE),
    cu("xinst_a", "xinst_a.cu", Archs::Only(&["sm_75", "sm_90"]), ABI7_NONE),
    cu("xinst_b", "xinst_b.cu", Archs::Only(&["sm_75", "sm_90"]), ABI7_NONE),
    cu("xinst_c", "xinst_c.cu", Archs::Only(&["sm_75", "sm_90"]), ABI7_NONE),
    // Rule 1.4 under -G: ptxas's local helpers (`__iAtomicAdd`, `__popc`)
    // in both inputs.
    // Rules 5.7 and 7.2 under -G: `.nv.ptx.const0.size` with ptxas's value
    // (0x40) and NUM_MBARRIERS from callees; mbar_b (no -G) has its own
    // mbarrier instructions.
    device_debug("mbar_a-G", "mbar_a.cu", Archs::Only(&["sm_90"])),
    device_debug("ucs_a-G", "ucs_a.cu", Archs::Only(UCS_ARCHS)),
    device_debug("ucs_b-G", "ucs_b.cu", Archs::Only(UCS_ARCHS)),
    cu("mbar_b", "mbar_b.cu", Archs::Only(&["sm_90"]), ABI7_NONE),
    // Mercury debug info (rules 3.2, 8.1, 11.2, 11.8): -G and -lineinfo on
    // sm_100 only (the -G objects are 20-40 KB).
    device_debug("mdbg_a-G", "mdbg_a.cu", Archs::Only(MDBG_ARCHS)),
    device_debug("mdbg_b-G", "mdbg_b.cu", Archs::Only(MDBG_ARCHS)),
    line_info("mdbg_a-lineinfo", "mdbg_a.cu", Archs::Only(MDBG_ARCHS)),
    line_info("mdbg_b-lineinfo", "mdbg_b.cu", Archs::Only(MDBG_ARCHS)),
    // Rule 11.8's exit sequences in links with a -G input: a -G object and
    // one built without -G, sm_100.
    device_debug("gxmix_a-G", "gxmix_a.cu", Archs::Only(MDBG_ARCHS)),
    cu("gxmix_b", "gxmix_b.cu", Archs::Only(MDBG_ARCHS), ABI7_NONE),
    cu("gxnocall_b", "gxnocall_b.cu", Archs::Only(MDBG_ARCHS), ABI7_NONE),
    cu("gxkeep_b", "gxkeep_b.cu", Archs::Only(MDBG_ARCHS), ABI7_NONE),
    cu("gxfptr_b", "gxfptr_b.cu", Archs::Only(MDBG_ARCHS), ABI7_NONE),
    cu("gxsurf_b", "gxsurf_b.cu", Archs::Only(MERCURY_PAIR), ABI7_NONE),
    device_debug("ghelp_a-G", "ghelp_a.cu", Archs::Only(DEBUG_ARCHS)),
    device_debug("ghelp_b-G", "ghelp_b.cu", Archs::Only(DEBUG_ARCHS)),
    // Rules 7.1, 9.10-9.12, 12.1, 12.8: indirect calls through `__constant__`
    // tables, a weak template in three objects (indir_c's copy, with fewer
    // registers, wins). Non-merc only.
    cu("indir_a", "indir_a.cu", Archs::Only(INDIR_ARCHS), ABI7_NONE),
    cu("indir_b", "indir_b.cu", Archs::Only(INDIR_ARCHS), ABI7_NONE),
    nvcc_with("indir_c", "indir_c.cu", &["-maxrregcount=32"], Archs::Only(INDIR_ARCHS)),
    // U25: device functions' bank 2 merged into their kernels' banks.
    cu("cbank_a", "cbank_a.cu", Archs::Only(&["sm_75"]), ABI7_NONE),
    cu("cbank_b", "cbank_b.cu", Archs::Only(&["sm_75"]), ABI7_NONE),
    // U25 on sm_100+: device functions' `switch` jump tables in bank 2.
    cu("jtab_a", "jtab_a.cu", Archs::Only(&["sm_100", "sm_120"]), ABI7_NONE),
    cu("jtab_b", "jtab_b.cu", Archs::Only(&["sm_100", "sm_120"]), ABI7_NONE),
];

/// An input of a link: an object from `obj/` (ABI 8) or `obj-abi7/` (ABI 7),
/// or another group's `-r` output from `link-r/` (relinking, rule 12.8).
#[derive(Debug, Clone, Copy)]
enum Input {
    Abi8(&'static str),
    Abi7(&'static str),
    LinkR(&'static str),
}

impl Input {
    fn path(self, arch: &str) -> String {
        match self {
            Input::Abi8(name) => format!("obj/{arch}/{name}.cubin"),
            Input::Abi7(name) => format!("obj-abi7/{arch}/{name}.cubin"),
            Input::LinkR(group) => format!("link-r/{arch}/{group}.cubin"),
        }
    }
}

/// One program linked with nvlink 13.5, for every ABI-8 architecture in `archs`
/// where all inputs exist: `link/<arch>/<name>.cubin` and, with `-r`,
/// `link-r/<arch>/<name>.cubin`.
#[derive(Debug)]
struct GroupSpec {
    name: &'static str,
    inputs: &'static [Input],
    /// Extra nvlink options (`-g` for the -G group).
    flags: &'static [&'static str],
    archs: Archs,
}

/// Groups linked with `-r` only. `wl`'s executable is byte-identical too,
/// but its three objects' local `__cuda_sm20_div_rn_f64_full`s of one name
/// defeat reloc_nvlink's by-name model of which relocations nvlink keeps;
/// the group is for the `-r` call graph (rule 9.13). `gsldc`'s executable
/// differs in the scoreboards the finaliser renumbers (not modelled for its
/// grid sync); the group is for the `-r` capsule (rule 11.7). `kuweak-ku`'s
/// executable is byte-identical too, but nvlink keeps the value of the
/// losing weak kernel copy's `.debug_frame` relocation, which reloc_nvlink's
/// model of dead symbols clears; the group is for the `-r` names (rule 9.6).
const RELOCATABLE_ONLY: &[&str] = &["wl", "gsldc", "kuweak-ku"];

const fn group(name: &'static str, inputs: &'static [Input]) -> GroupSpec {
    GroupSpec { name, inputs, flags: &[], archs: Archs::All }
}

use Input::{Abi7, Abi8, LinkR};

const GROUPS: &[GroupSpec] = &[
    group("big", &[Abi8("big_params"), Abi8("big_helper")]),
    group("calls", &[Abi8("calls_main"), Abi8("calls_lib")]),
    GroupSpec {
        name: "a7x-mixed-abi",
        inputs: &[Abi7("a7x_dyn"), Abi8("a7x_tile")],
        flags: &[],
        archs: Archs::Only(ABI7_SM75_UP),
    },
    GroupSpec {
        name: "a7mb-mixed-abi",
        inputs: &[Abi7("a7mb_k"), Abi8("a7mb_f")],
        flags: &[],
        archs: Archs::Only(A7MB_ARCHS),
    },
    GroupSpec {
        name: "a7x-e16-mixed-abi",
        inputs: &[Abi7("a7x_dyn"), Abi8("a7x_e16")],
        flags: &[],
        archs: Archs::Only(ABI7_SM75_UP),
    },
    GroupSpec {
        name: "a7x-e128-mixed-abi",
        inputs: &[Abi7("a7x_dyn"), Abi8("a7x_e128")],
        flags: &[],
        archs: Archs::Only(ABI7_SM75_UP),
    },
    GroupSpec {
        name: "a7nb-mixed-abi",
        inputs: &[Abi7("a7nb_k"), Abi8("a7nb_f")],
        flags: &[],
        archs: Archs::Only(ABI7_SM75_UP),
    },
    // Rule 10: ABI-7 callees' sh_flags counts raise the kernels' own
    // NUM_BARRIERS, last and with the flags cleared (session 41, sweep26
    // p273 `abi7`, `abi7G`); with ABI-8 callees the 0x66 record comes first
    // when the kernel is not the only one.
    GroupSpec {
        name: "a7fb-abi7",
        inputs: &[Abi7("a7fb_k"), Abi7("a7fb_f")],
        flags: &[],
        archs: Archs::Only(ABI7_SM75_UP),
    },
    // Rule 10: the `-r` output of ABI-7 objects (a `.nv.compat` without
    // ISA_CLASS) relinked with an ABI-8 object, either order: the ABI-7
    // records' values win and FINALIZER_VERSION goes (session 41, sweep26
    // `abi7-r-exec`, sm_90).
    GroupSpec {
        name: "a7fb-relink-mixed",
        inputs: &[LinkR("a7fb-abi7"), Abi8("a7nb_f")],
        flags: &[],
        archs: Archs::Only(ABI7_SM75_UP),
    },
    GroupSpec {
        name: "a7fb-relink-mixed-rev",
        inputs: &[Abi8("a7nb_f"), LinkR("a7fb-abi7")],
        flags: &[],
        archs: Archs::Only(ABI7_SM75_UP),
    },
    GroupSpec {
        name: "a7fb-mixed-abi",
        inputs: &[Abi7("a7fb_k"), Abi8("a7fb_f")],
        flags: &[],
        archs: Archs::Only(ABI7_SM75_UP),
    },
    // Rule 12.3 with ABI-7 externs beside a 16-aligned pool: 16-byte rooms
    // for the kernels not using extern memory (session 41, sweep26 p273).
    GroupSpec { name: "a7rp", inputs: &[Abi7("a7rp_a"), Abi7("a7rp_f")], flags: &[], archs: Archs::Only(ABI7_SM75_UP) },
    // Relinked with `-r`: the extern user, which names the output's instance
    // at 0, gets two units of room (0x20), not one.
    GroupSpec { name: "a7rp-relink", inputs: &[LinkR("a7rp")], flags: &[], archs: Archs::Only(ABI7_SM75_UP) },
    // Rule 12.3 with ABI-7 externs: own variables of 0x44 rounded to the
    // extern alignment, 0x50, under `-r` (sweep27 p282, session 42).
    GroupSpec { name: "a7ro", inputs: &[Abi7("a7ro")], flags: &[], archs: Archs::Only(ABI7_SM75_UP) },
    // Rule 12.3 with ABI-7 externs: a kernel reaching extern memory only
    // through a device function gets no section under `-r` (sweep28 p291
    // `abi7-r`, session 43); the ABI-8 build keeps it.
    GroupSpec { name: "a7dx", inputs: &[Abi7("a7dx")], flags: &[], archs: Archs::Only(ABI7_SM75_UP) },
    GroupSpec { name: "a7dx-abi8", inputs: &[Abi8("a7dx")], flags: &[], archs: Archs::Only(ABI7_SM75_UP) },
    // Rule 10 with rule 7.2: the ABI-7 kernel reaching the ABI-8 copy of a
    // weak template gets 0x66 before the EXTERNS appended from its callee's
    // list (sweep27 p282 `abi7-mix`, session 42).
    GroupSpec { name: "a7x", inputs: &[Abi8("a7x_b"), Abi7("a7x_a")], flags: &[], archs: Archs::Only(ABI7_SM75_UP) },
    GroupSpec {
        name: "a7rp-g",
        inputs: &[Abi7("a7rp_a"), Abi7("a7rp_f")],
        flags: &["-g"],
        archs: Archs::Only(ABI7_SM75_UP),
    },
    GroupSpec {
        name: "a7nb2-mixed-abi",
        inputs: &[Abi8("a7nb_f"), Abi7("a7nb2_k")],
        flags: &[],
        archs: Archs::Only(ABI7_SM75_UP),
    },
    // Rule 11 (Mercury): a function-less `-G` object alone, or with plain
    // objects: the empty `.rela.debug_info` beside its merc copy's entry, and
    // the empty merc `nv_debug_info_reg_*` copies at their normal sections.
    GroupSpec { name: "gnof-only-G", inputs: &[Abi8("gnof-G")], flags: &[], archs: Archs::Only(GNOF_ARCHS) },
    GroupSpec {
        name: "gnof-calls-G",
        inputs: &[Abi8("gnof-G"), Abi8("calls_main"), Abi8("calls_lib")],
        flags: &[],
        archs: Archs::Only(GNOF_ARCHS),
    },
    // Rule 4.3 (Mercury): msl_b's global `#iii` before msl_a's local `#ii`.
    GroupSpec { name: "msl", inputs: &[Abi8("msl_b"), Abi8("msl_a")], flags: &[], archs: Archs::Only(MERCURY_PAIR) },
    // Rule 7.2: a kernel's own NUM_BARRIERS (a7nb_k's `__syncthreads`, 1)
    // raised in place to its callee's 2.
    group("nbraise", &[Abi8("a7nb_k"), Abi8("a7nb_f")]),
    // Rule 7.2 under `-g`: the only kernel takes the count of a function it
    // does not call (cluster_b's `cluster_b_rank_value`, 1), appended; and
    // raises its own (coop_grid_kernel's 1) to an uncalled one's (2).
    GroupSpec { name: "nbonly-g", inputs: &[Abi8("reloc_dead"), Abi8("cluster_b")], flags: &["-g"], archs: Archs::All },
    GroupSpec {
        name: "nbraise2-g",
        inputs: &[Abi8("coop_grid"), Abi8("coop_reduce"), Abi8("a7nb_f")],
        flags: &["-g"],
        archs: Archs::All,
    },
    // Rule 11.9 (Mercury `-g`): exits carried in the capsules of grid-sync
    // kernels (their own numbering), and an `EXIT`'s wait on a `DSETP` moved
    // to the `ERRBAR`.
    GroupSpec { name: "gsync-g", inputs: &[Abi8("gsync")], flags: &["-g"], archs: Archs::Only(MERCURY_PAIR) },
    GroupSpec { name: "macinfo", inputs: &[Abi8("macinfo")], flags: &[], archs: Archs::Only(MERCURY_PAIR) },
    GroupSpec { name: "macinfo-g", inputs: &[Abi8("macinfo")], flags: &["-g"], archs: Archs::Only(MERCURY_PAIR) },
    // Rule 11.9: the capsule numbering of a cluster sync's expansion.
    GroupSpec {
        name: "cluster-g",
        inputs: &[Abi8("cluster_a"), Abi8("cluster_b")],
        flags: &["-g"],
        archs: Archs::Only(MERCURY_PAIR),
    },
    GroupSpec { name: "dsetp-g", inputs: &[Abi8("dsetp")], flags: &["-g"], archs: Archs::Only(MERCURY_PAIR) },
    GroupSpec {
        name: "calls-mixed-abi",
        inputs: &[Abi7("calls_main"), Abi8("calls_lib")],
        flags: &[],
        archs: Archs::Only(ABI7_SM75_UP),
    },
    GroupSpec {
        name: "cluster",
        inputs: &[Abi8("cluster_a"), Abi8("cluster_b")],
        flags: &[],
        archs: Archs::AtLeast(90),
    },
    group("coop", &[Abi8("coop_grid"), Abi8("coop_reduce")]),
    // Rule 12.3: `-r` room for kernels reaching extern memory through a callee.
    group("xcallee", &[Abi8("xcallee")]),
    // sm_100 only: on sm_120 the model does not reproduce ptxas's numbering
    // of the loop's `LDG` that also sets a read barrier (2, not 5), and
    // nvlink's output is not reproduced.
    GroupSpec { name: "sbshare", inputs: &[Abi8("sbshare")], flags: &[], archs: Archs::Only(MDBG_ARCHS) },
    GroupSpec { name: "sbstride", inputs: &[Abi8("sbstride")], flags: &[], archs: Archs::Only(MERCURY_PAIR) },
    GroupSpec {
        name: "wcbank",
        inputs: &[Abi8("wcb_a"), Abi8("wcb_b"), Abi8("wcb_c")],
        flags: &[],
        archs: Archs::Only(WCB_ARCHS),
    },
    GroupSpec {
        name: "wcbank-rev",
        inputs: &[Abi8("wcb_c"), Abi8("wcb_b"), Abi8("wcb_a")],
        flags: &[],
        archs: Archs::Only(WCB_ARCHS),
    },
    // Rule 9.15: wnb_a's `.nv.global` holds only losing weak data and goes.
    GroupSpec { name: "wnb", inputs: &[Abi8("wnb_b"), Abi8("wnb_a")], flags: &[], archs: Archs::Only(WNB_ARCHS) },
    // Rule 7.2.1: xu_kernel's EXTERNS is `malloc free` (xu_k's copy of
    // xu_release replaces xu_rel's and brings `free` after xu_mk's `malloc`).
    GroupSpec {
        name: "xurepl",
        inputs: &[Abi8("xu_rel"), Abi8("xu_mk"), Abi8("xu_k")],
        flags: &[],
        archs: Archs::Only(XU_ARCHS),
    },
    // Rule 12.1: the common area's arrays largest first (shc_tile<64>'s
    // before shc_tile<32>'s; shc_c's clones' arrays in a fixed order).
    GroupSpec {
        name: "shc",
        inputs: &[Abi8("shc_a"), Abi8("shc_b"), Abi8("shc_c")],
        flags: &[],
        archs: Archs::Only(SHC_ARCHS),
    },
    // Rule 9.13: wic_a's replaced wic_call<3> keeps its `#ii` call site
    // (exec and `-r`) and, on sm_86, its `.rel.debug_frame` relocation.
    GroupSpec { name: "wic", inputs: &[Abi8("wic_a"), Abi8("wic_b")], flags: &[], archs: Archs::Only(WIC_ARCHS) },
    // Rule 11.2.1: the first copies' FDEs hold the winners' programs with a
    // row added, the winners' slots their Mercury CIEs and empty FDEs; in
    // wfd-leaf the added row comes after the leaf winner's only one.
    // Rule 11.3: the scoreboards of a kernel with WARPSYNC.COLLECTIVE
    // regions and NANOSLEEP, allocated again without the stack load's.
    GroupSpec { name: "cgsb", inputs: &[Abi8("cgsb")], flags: &[], archs: Archs::Only(MERCURY_PAIR) },
    // Rule 11.3: gcc_copy's STG takes, as its read barrier, the barrier of
    // the LDC.64 it waits on (sm_120; sm_100 keeps ptxas's numbering).
    GroupSpec { name: "gcc", inputs: &[Abi8("gcc")], flags: &[], archs: Archs::Only(MERCURY_PAIR) },
    // Rule 11.3: gsf_kernel loses the fence workaround before its grid
    // sync; the scoreboard model follows the `BPT.TRAP` that ends a thread,
    // and the capsule is numbered as a grid sync's.
    GroupSpec { name: "gsf", inputs: &[Abi8("gsf")], flags: &[], archs: Archs::Only(MERCURY_PAIR) },
    // Rule 11.3: fshape_tile loses the four `LDS` before its `MEMBAR.SC.CTA`
    // and a capsule mark; fshape_wait's `ATOM.E.EXCH.64` keeps barrier 2.
    GroupSpec { name: "fshape", inputs: &[Abi8("fshape")], flags: &[], archs: Archs::Only(MERCURY_PAIR) },
    // Rule 11.9: gsync2_kernel's exits carried under `-g`, numbered as a
    // grid sync's capsule counts (its release fetch_add not counted).
    GroupSpec { name: "gsync2-g", inputs: &[Abi8("gsync2")], flags: &["-g"], archs: Archs::Only(MERCURY_PAIR) },
    // Rule 11.9: capal's exits carried under `-g` where the alignment of its
    // code with the capsules' bitmaps numbers them (crate::capsule_align).
    GroupSpec { name: "capal-g", inputs: &[Abi8("capal")], flags: &["-g"], archs: Archs::Only(MERCURY_PAIR) },
    GroupSpec { name: "capwarp-g", inputs: &[Abi8("capwarp")], flags: &["-g"], archs: Archs::Only(MERCURY_PAIR) },
    // Sweep6 cluster B: relinking mcord's `-r` output puts `.nv.constant2.<f>`
    // before `.nv.constant3`, and their merc copies the same way.
    GroupSpec {
        name: "mcord",
        inputs: &[Abi8("mcord_a"), Abi8("mcord_b")],
        flags: &[],
        archs: Archs::Only(MERCURY_PAIR),
    },
    GroupSpec { name: "mcord-relink", inputs: &[LinkR("mcord")], flags: &[], archs: Archs::Only(MERCURY_PAIR) },
    // Rules 11.3 and 11.8: with a `-G` input, fshape's kernels get error
    // barriers before their exits and lose the fence workaround as well.
    GroupSpec {
        name: "gxfence",
        inputs: &[Abi8("gxmix_a-G"), Abi8("fshape")],
        flags: &[],
        archs: Archs::Only(MDBG_ARCHS),
    },
    GroupSpec { name: "wfd", inputs: &[Abi8("wfd_a"), Abi8("wfd_b")], flags: &[], archs: Archs::Only(MERCURY_PAIR) },
    GroupSpec { name: "wfd-leaf", inputs: &[Abi8("wfd_a"), Abi8("wfd_c")], flags: &[], archs: Archs::Only(MDBG_ARCHS) },
    // Rule 11.2.1: no row added in a span not twice as long in Mercury code
    // (sweep24 p252).
    GroupSpec { name: "wfr", inputs: &[Abi8("wfr_a"), Abi8("wfr_b")], flags: &[], archs: Archs::Only(MERCURY_PAIR) },
    // U9 with rule 1.4: a replaced weak copy's sections beside a static of
    // the same name (sweep24 p251).
    GroupSpec { name: "lrz", inputs: &[Abi8("lrz_a"), Abi8("lrz_c")], flags: &[], archs: Archs::Only(MERCURY_PAIR) },
    GroupSpec {
        name: "ulm",
        inputs: &[Abi8("ulm_a"), Abi8("ulm_b"), Abi8("ulm_c")],
        flags: &[],
        archs: Archs::Only(ULM_ARCHS),
    },
    // Rule 11.2.1: wfp_a's last Mercury frame row lies past the winner's
    // Mercury code (sm_120), and its FDE gets no row added.
    GroupSpec { name: "wfp", inputs: &[Abi8("wfp_a"), Abi8("wfp_b")], flags: &[], archs: Archs::Only(MERCURY_PAIR) },
    // Rule 6.1 with U9: the executable has no `.nv.constant2.<fn>` for
    // cbr_x's replaced copy (the winner's bank goes into the kernels' banks).
    GroupSpec { name: "cbrepl", inputs: &[Abi8("cbr_x"), Abi8("cbr_y")], flags: &[], archs: Archs::Only(WCB_ARCHS) },
    // Rule 9.13: frp_y's copy has relocations of its own, so frp_x's leaf
    // copy loses its FDE relocation too where the table is `.rela` (sm_90);
    // frp-lost: frp_y0's copy lost when met and counts for nothing, nor names
    // a `.rela.text.<fn>`; frp-line: frp_xil's inlined functor makes the
    // line-table relocations `.rela`, and frp_yc's call drops frp_xil's.
    GroupSpec {
        name: "frp",
        inputs: &[Abi8("frp_x"), Abi8("frp_y"), Abi8("frp_z"), Abi8("frp_g")],
        flags: &[],
        archs: Archs::Only(FRP_ARCHS),
    },
    GroupSpec {
        name: "frp-lost",
        inputs: &[Abi8("frp_x"), Abi8("frp_y0"), Abi8("frp_z"), Abi8("frp_g")],
        flags: &[],
        archs: Archs::Only(FRP_ARCHS),
    },
    GroupSpec {
        name: "frp-line",
        inputs: &[Abi8("frp_xil"), Abi8("frp_yc"), Abi8("frp_zl"), Abi8("frp_g")],
        flags: &[],
        archs: Archs::Only(FRP_ARCHS),
    },
    // REGCOUNT: rc_kd and rc_ka reach rc_smooth<double>, whose replaced
    // rc_d copy's call of rc_d's local trig slow path still counts.
    GroupSpec { name: "rcrepl", inputs: &[Abi8("rc_d"), Abi8("rc_a-G")], flags: &[], archs: Archs::Only(RC_ARCHS) },
    // Rule 7.2: mbo_kernel gets NUM_MBARRIERS, NUM_BARRIERS with mbo_i
    // first, NUM_BARRIERS, NUM_MBARRIERS with mbo_k first or as the only
    // kernel (mbo-only); mbo_zkernel no NUM_MBARRIERS of 0.
    GroupSpec { name: "mbo", inputs: &[Abi8("mbo_i"), Abi8("mbo_k")], flags: &[], archs: Archs::Only(MBO_ARCHS) },
    GroupSpec { name: "mbo-rev", inputs: &[Abi8("mbo_k"), Abi8("mbo_i")], flags: &[], archs: Archs::Only(MBO_ARCHS) },
    GroupSpec { name: "mbo-only", inputs: &[Abi8("mbo_i1"), Abi8("mbo_k")], flags: &[], archs: Archs::Only(MBO_ARCHS) },
    GroupSpec { name: "mbo-zero", inputs: &[Abi8("mbo_z")], flags: &[], archs: Archs::Only(MBO_ARCHS) },
    // Rule 6.1 in relinks: cbrel's `-r` output holds cbr_x's losing bank
    // appended to cbr_y64's (0xf0 bytes, cbr_x's `.const_opt` locals
    // dropped), which relinks as 0x78; cbgrel's holds cbg_d's losing banks
    // as sections of their own (no `.const_opt` objects), which stay so in
    // the relinked executable.
    GroupSpec { name: "cbrel", inputs: &[Abi8("cbr_y64"), Abi8("cbr_x")], flags: &[], archs: Archs::Only(WCB_ARCHS) },
    GroupSpec { name: "cbrel-relink", inputs: &[LinkR("cbrel")], flags: &[], archs: Archs::Only(WCB_ARCHS) },
    GroupSpec { name: "cbgrel", inputs: &[Abi8("cbg_a-G"), Abi8("cbg_d")], flags: &[], archs: Archs::Only(WCB_ARCHS) },
    GroupSpec { name: "cbgrel-relink", inputs: &[LinkR("cbgrel")], flags: &[], archs: Archs::Only(WCB_ARCHS) },
    // Rule 3.2: `.nv.merc.nv_debug_info_reg_type` stays an alias of
    // `.nv_debug_info_reg_type`, in either order.
    GroupSpec {
        name: "rta-G",
        inputs: &[Abi8("rta_a-G"), Abi8("rta_b")],
        flags: &[],
        archs: Archs::Only(MERCURY_PAIR),
    },
    GroupSpec {
        name: "rta-rev-G",
        inputs: &[Abi8("rta_b"), Abi8("rta_a-G")],
        flags: &[],
        archs: Archs::Only(MERCURY_PAIR),
    },
    // Rule 7.2: nbo_kernel gets EXTERNS, NUM_BARRIERS with nbo_a first,
    // NUM_BARRIERS, EXTERNS with nbo_b first (the call graph is the same).
    GroupSpec { name: "nbo", inputs: &[Abi8("nbo_a"), Abi8("nbo_b")], flags: &[], archs: Archs::Only(NBO_ARCHS) },
    GroupSpec { name: "nbo-rev", inputs: &[Abi8("nbo_b"), Abi8("nbo_a")], flags: &[], archs: Archs::Only(NBO_ARCHS) },
    // Rule 12.1: wsv_sum<32>'s `tile` at 0x100 (after wsv_sum<64>'s) in the
    // code of wsv_b's copy, which replaced wsv_a's, the variable's definition.
    GroupSpec { name: "wsv", inputs: &[Abi8("wsv_a"), Abi8("wsv_b")], flags: &[], archs: Archs::Only(WSV_ARCHS) },
    // Rule 9.13: sm_86 keeps the replaced copies' `.rel.debug_line`
    // relocations when the `-G` gln_a comes first, drops them (gln_a's too)
    // when gln_k's line table, naming inlined functions, is the first with
    // relocations; sm_90 drops them in both orders.
    GroupSpec {
        name: "gln",
        inputs: &[Abi8("gln_a-G"), Abi8("gln_k-lineinfo"), Abi8("gln_c")],
        flags: &[],
        archs: Archs::Only(GLN_ARCHS),
    },
    GroupSpec {
        name: "gln-kfirst",
        inputs: &[Abi8("gln_k-lineinfo"), Abi8("gln_a-G"), Abi8("gln_c")],
        flags: &[],
        archs: Archs::Only(GLN_ARCHS),
    },
    GroupSpec { name: "sumloop", inputs: &[Abi8("sumloop")], flags: &[], archs: Archs::Only(SUMLOOP_ARCHS) },
    GroupSpec { name: "sumloop-g", inputs: &[Abi8("sumloop")], flags: &["-g"], archs: Archs::Only(SUMLOOP_G_ARCHS) },
    GroupSpec {
        name: "launch",
        inputs: &[Abi8("launch"), Abi8("launch_rt")],
        flags: &[],
        archs: Archs::Only(LAUNCH_ARCHS),
    },
    GroupSpec {
        name: "gnof-G",
        inputs: &[Abi8("gnof-G"), Abi8("debug_a-G"), Abi8("debug_b-G")],
        flags: &[],
        archs: Archs::Only(DEBUG_ARCHS),
    },
    GroupSpec {
        name: "gnof-mdbg-G",
        inputs: &[Abi8("gnof-G"), Abi8("mdbg_a-G"), Abi8("mdbg_b-G")],
        flags: &[],
        archs: Archs::Only(MDBG_ARCHS),
    },
    GroupSpec {
        name: "debug-G",
        inputs: &[Abi8("debug_a-G"), Abi8("debug_b-G")],
        flags: &["-g"],
        archs: Archs::Only(DEBUG_ARCHS),
    },
    group("debug-lineinfo", &[Abi8("debug_a-lineinfo"), Abi8("debug_b-lineinfo")]),
    group("fptr", &[Abi8("fptr_main"), Abi8("fptr_ops")]),
    GroupSpec {
        name: "ghelp-G",
        inputs: &[Abi8("ghelp_a-G"), Abi8("ghelp_b-G")],
        flags: &[],
        archs: Archs::Only(DEBUG_ARCHS),
    },
    group("managed", &[Abi8("managed_a"), Abi8("managed_b")]),
    GroupSpec {
        name: "shpriv",
        inputs: &[Abi8("shpriv")],
        flags: &[],
        archs: Archs::Only(&["sm_75", "sm_90", "sm_100"]),
    },
    GroupSpec {
        name: "mdbg-G",
        inputs: &[Abi8("mdbg_a-G"), Abi8("mdbg_b-G")],
        flags: &[],
        archs: Archs::Only(MDBG_ARCHS),
    },
    GroupSpec {
        name: "mdbg-lineinfo",
        inputs: &[Abi8("mdbg_a-lineinfo"), Abi8("mdbg_b-lineinfo")],
        flags: &[],
        archs: Archs::Only(MDBG_ARCHS),
    },
    // b first: a's `mdbg_late` line sequence moves to the front (rule 11.8).
    GroupSpec {
        name: "mdbg-lineinfo-swap",
        inputs: &[Abi8("mdbg_b-lineinfo"), Abi8("mdbg_a-lineinfo")],
        flags: &[],
        archs: Archs::Only(MDBG_ARCHS),
    },
    // Rule 11.8: the -G input changes the other's exits (and its own).
    GroupSpec {
        name: "gxmix",
        inputs: &[Abi8("gxmix_a-G"), Abi8("gxmix_b")],
        flags: &[],
        archs: Archs::Only(MDBG_ARCHS),
    },
    GroupSpec {
        name: "gxnocall",
        inputs: &[Abi8("gxmix_a-G"), Abi8("gxnocall_b")],
        flags: &[],
        archs: Archs::Only(MDBG_ARCHS),
    },
    // Rule 11.8: a kernel without calls whose scoreboards the finaliser
    // leaves as ptxas numbered them (no scoreboard on its stack-pointer load).
    GroupSpec {
        name: "gxkeep",
        inputs: &[Abi8("gxmix_a-G"), Abi8("gxkeep_b")],
        flags: &[],
        archs: Archs::Only(MDBG_ARCHS),
    },
    GroupSpec {
        name: "gxsurf",
        inputs: &[Abi8("gxmix_a-G"), Abi8("gxsurf_b")],
        flags: &[],
        archs: Archs::Only(MDBG_ARCHS),
    },
    GroupSpec { name: "gxsurf-g", inputs: &[Abi8("gxsurf_b")], flags: &["-g"], archs: Archs::Only(MERCURY_PAIR) },
    GroupSpec {
        name: "gxfptr",
        inputs: &[Abi8("gxmix_a-G"), Abi8("gxfptr_b")],
        flags: &[],
        archs: Archs::Only(MDBG_ARCHS),
    },
    group("mma", &[Abi8("mma_wmma"), Abi8("mma_arch")]),
    group("ptx", &[Abi8("ptx_main"), Abi8("ptx_lib")]),
    GroupSpec {
        name: "ptx-const",
        inputs: &[Abi8("ptx_const_a"), Abi8("ptx_const_b")],
        flags: &[],
        archs: Archs::Only(CONST_ARCHS),
    },
    GroupSpec {
        name: "ptx-mixed-abi",
        inputs: &[Abi8("ptx_main"), Abi7("ptx_lib")],
        flags: &[],
        archs: Archs::Only(ABI7_SM75_UP),
    },
    group("reloc", &[Abi8("reloc_bytes"), Abi8("reloc_dead")]),
    group("shared", &[Abi8("shared_a"), Abi8("shared_b")]),
    group("sync", &[Abi8("sync_atomics"), Abi8("sync_warp")]),
    group("sys", &[Abi8("sys_main"), Abi8("sys_util")]),
    group("tex", &[Abi8("tex_a"), Abi8("tex_b")]),
    group("weak", &[Abi8("weak_a"), Abi8("weak_b")]),
    group("common", &[Abi8("common_a"), Abi8("common_b")]),
    GroupSpec { name: "vsm", inputs: &[Abi8("vsm_ptx"), Abi8("vsm_cu")], flags: &[], archs: Archs::Only(VSM_ARCHS) },
    group("virt", &[Abi8("virt_a"), Abi8("virt_b")]),
    GroupSpec {
        name: "tma",
        inputs: &[Abi8("tma_a"), Abi8("tma_b")],
        flags: &[],
        archs: Archs::Only(&["sm_90", "sm_90a"]),
    },
    GroupSpec { name: "mbar", inputs: &[Abi8("mbar_a-G"), Abi8("mbar_b")], flags: &[], archs: Archs::Only(&["sm_90"]) },
    // Rule 5.7: `.nv.ptx.const0.size` is one symbol across the inputs, of
    // the largest value any gives it (ucs_a's 0x10; ucs_b, first, has 0).
    GroupSpec { name: "ucs-G", inputs: &[Abi8("ucs_b-G"), Abi8("ucs_a-G")], flags: &[], archs: Archs::Only(UCS_ARCHS) },
    group("wreg", &[Abi8("wreg_a"), Abi8("wreg_b")]),
    group("xshm", &[Abi8("xshm_a"), Abi8("xshm_b")]),
    group("twin", &[Abi8("twin_a"), Abi8("twin_b")]),
    GroupSpec {
        name: "stackw",
        inputs: &[Abi8("stackw_main"), Abi8("stackw_lib")],
        flags: &[],
        archs: Archs::Only(&["sm_90", "sm_100"]),
    },
    GroupSpec {
        name: "cbank",
        inputs: &[Abi8("cbank_a"), Abi8("cbank_b")],
        flags: &[],
        archs: Archs::Only(&["sm_75"]),
    },
    GroupSpec {
        name: "sbreuse",
        inputs: &[Abi8("sbreuse_a"), Abi8("sbreuse_b")],
        flags: &[],
        archs: Archs::Only(MERCURY_PAIR),
    },
    // Rule 11.3: `SHFL`s that set a write and a read barrier (the read
    // barrier's group is numbered first) and a loop behind a branch (merc2
    // `minmax`).
    GroupSpec { name: "sbshfl", inputs: &[Abi8("sbshfl")], flags: &[], archs: Archs::Only(MERCURY_PAIR) },
    // Rule 11.3: a branch around a loop to the `EXIT` carries the
    // stack-pointer load's barrier, never waited on there, and ptxas gives a
    // store in the loop that barrier (cuRAND's XORWOW `curand_init`).
    GroupSpec { name: "sbloop", inputs: &[Abi8("sbloop")], flags: &[], archs: Archs::Only(SBLOOP_ARCHS) },
    GroupSpec { name: "sbstraight", inputs: &[Abi8("sbstraight")], flags: &[], archs: Archs::Only(MERCURY_PAIR) },
    // Rule 12.10 relinked: a `-G` object's extern shared array, `-r`, then
    // `-g` (sweep8).
    GroupSpec { name: "gxshr", inputs: &[Abi8("gxshr-G")], flags: &[], archs: Archs::Only(SHROOM_ARCHS) },
    GroupSpec { name: "gxshr-relink-g", inputs: &[LinkR("gxshr")], flags: &["-g"], archs: Archs::Only(SHROOM_ARCHS) },
    // Rule 11.8: `EIATTR_UNUSED_LOAD_BYTE_OFFSET` after the error barriers
    // `-g` adds (sweep8).
    GroupSpec { name: "gunused-g", inputs: &[Abi8("gunused")], flags: &["-g"], archs: Archs::Only(MERCURY_PAIR) },
    // Rule 11.3: an `ATOMG` returning a value searches from 2 (sweep8).
    GroupSpec { name: "gatomret", inputs: &[Abi8("gatomret")], flags: &[], archs: Archs::Only(MERCURY_PAIR) },
    // Rule 11.3: a load whose write is waited on at a loop head (sweep8).
    GroupSpec { name: "ghalfatom", inputs: &[Abi8("ghalfatom")], flags: &[], archs: Archs::Only(MERCURY_PAIR) },
    // Rule 12.3: `.nv_debug.shared`'s variables beside extern memory in `-r`
    // (sweep8).
    GroupSpec { name: "dshvar", inputs: &[Abi8("dshvar")], flags: &[], archs: Archs::Only(SHROOM_ARCHS) },
    // Rule 11.3: pressed producers kept together where their wait reads them
    // all (sweep8).
    GroupSpec { name: "gpress", inputs: &[Abi8("gpress")], flags: &[], archs: Archs::Only(MERCURY_PAIR) },
    // Rule 11.3: a pressed group of loads split where the new numbering
    // frees a barrier of 2..5 (sweep8).
    GroupSpec { name: "gsplit", inputs: &[Abi8("gsplit")], flags: &[], archs: Archs::Only(MERCURY_PAIR) },
    // Rule 11.1: merc banks in their banks' order in an executable too,
    // relinking an `-r` output (sweep9).
    GroupSpec {
        name: "mcu",
        inputs: &[Abi8("mcu_a"), Abi8("mcu_b"), Abi8("mcu_c")],
        flags: &[],
        archs: Archs::Only(SM120_ONLY),
    },
    GroupSpec { name: "mcu-relink", inputs: &[LinkR("mcu")], flags: &[], archs: Archs::Only(SM120_ONLY) },
    // Rule 11.3: a `float` `atomicAdd` searches from 5 as `ATOMG` does, and a
    // load waited for at a loop head from 5 (sweep9).
    GroupSpec { name: "gatomf", inputs: &[Abi8("gatomf")], flags: &[], archs: Archs::Only(MERCURY_PAIR) },
    GroupSpec { name: "gloop", inputs: &[Abi8("gloop")], flags: &[], archs: Archs::Only(MERCURY_PAIR) },
    // Rule 11.3: a `LEA` reading `R0` is no use of the stack (sweep9).
    GroupSpec { name: "glea", inputs: &[Abi8("glea")], flags: &[], archs: Archs::Only(MERCURY_PAIR) },
    // Rule 12.1: private shared variables in the order of nvlink's
    // unstable sort (sweep9).
    GroupSpec { name: "shsort", inputs: &[Abi8("shsort")], flags: &[], archs: Archs::Only(SHROOM_ARCHS) },
    // U25, rule 6.1: device functions' banks placed last input `.text`
    // first, also where a relinked `-r` output orders them otherwise (sweep9).
    GroupSpec {
        name: "fbr",
        inputs: &[Abi8("fbr_a"), Abi8("fbr_b"), Abi8("fbr_c")],
        flags: &[],
        archs: Archs::Only(WCB_ARCHS),
    },
    GroupSpec { name: "fbr-relink", inputs: &[LinkR("fbr")], flags: &[], archs: Archs::Only(WCB_ARCHS) },
    // U25, rule 6.1: a device function's bank at the largest end of the
    // banks of the kernels reaching it, not in a hole below (sweep9).
    GroupSpec { name: "fbend", inputs: &[Abi8("fbend")], flags: &[], archs: Archs::Only(WCB_ARCHS) },
    // U25, rule 6.1: functions' banks placed last bank first, which a
    // relinked `-r` output keeps though its `.text`s move (sweep9).
    GroupSpec { name: "fbo", inputs: &[Abi8("fbo_a-G"), Abi8("fbo_b")], flags: &[], archs: Archs::Only(WCB_ARCHS) },
    GroupSpec { name: "fbo-relink", inputs: &[LinkR("fbo")], flags: &[], archs: Archs::Only(WCB_ARCHS) },
    // Rule 12.3: relinked with `-r`, a non-user filled exactly to the
    // instance's alignment grows by it (sweep10 p107 `r-relink-r`).
    GroupSpec { name: "roomeq", inputs: &[Abi8("roomeq")], flags: &[], archs: Archs::Only(ROOMEQ_ARCHS) },
    GroupSpec { name: "roomeq-relink", inputs: &[LinkR("roomeq")], flags: &[], archs: Archs::Only(ROOMEQ_ARCHS) },
    // Rule 12.10: relinked under `-g`, an extern-only kernel sharing the
    // instance name keeps the window the sharing gives it (sweep10 p113).
    GroupSpec { name: "xkeep", inputs: &[Abi8("xkeep-G")], flags: &[], archs: Archs::Only(XKEEP_ARCHS) },
    GroupSpec { name: "xkeep-relink-g", inputs: &[LinkR("xkeep")], flags: &["-g"], archs: Archs::Only(XKEEP_ARCHS) },
    // Rule 12.1: the common area's equal-sized variables in the order
    // nvlink's unstable sort of the symbol-ordered pool leaves them (sweep10
    // p117), in a direct link, a relink of the `-r` output and one object.
    GroupSpec { name: "cmo", inputs: &[Abi8("cmo_a"), Abi8("cmo_b")], flags: &[], archs: Archs::Only(SHC_ARCHS) },
    GroupSpec { name: "cmo-relink", inputs: &[LinkR("cmo")], flags: &[], archs: Archs::Only(SHC_ARCHS) },
    GroupSpec { name: "cmk1", inputs: &[Abi8("cmk1")], flags: &[], archs: Archs::Only(SHC_ARCHS) },
    GroupSpec { name: "cmk2", inputs: &[Abi8("cmk2")], flags: &[], archs: Archs::Only(SHC_ARCHS) },
    // Equal variables of one function, common and private (sweep11 p124),
    // and the externs in the sorted list (sweep10 p103: input order
    // decides).
    GroupSpec { name: "eqn", inputs: &[Abi8("eqn")], flags: &[], archs: Archs::Only(SHC_ARCHS) },
    GroupSpec {
        name: "eqx",
        inputs: &[Abi8("eqx_a"), Abi8("eqx_b"), Abi8("eqx_c")],
        flags: &[],
        archs: Archs::Only(SHC_ARCHS),
    },
    GroupSpec {
        name: "eqx-rev",
        inputs: &[Abi8("eqx_b"), Abi8("eqx_a"), Abi8("eqx_c")],
        flags: &[],
        archs: Archs::Only(SHC_ARCHS),
    },
    // Rule 12.8: relinked, the kernels name their `externsharedinstance`s
    // and the empty `.nv_debug.shared` goes (session 32 probe).
    GroupSpec { name: "eqx-relink", inputs: &[LinkR("eqx")], flags: &[], archs: Archs::Only(SHC_ARCHS) },
    GroupSpec { name: "eqx-rev-relink", inputs: &[LinkR("eqx-rev")], flags: &[], archs: Archs::Only(SHC_ARCHS) },
    // Rule 12.10: `-preserve-relocs` keeps the extern symbols the `-r`
    // output defined (`eqx_buf`, `eqx_dyn`, `eqx_rows`) at the reserved area
    // minus one, as it keeps undefined ones, since a common area exists
    // (found by the fixture sweep, session 42).
    GroupSpec {
        name: "eqx-relink-pr",
        inputs: &[LinkR("eqx")],
        flags: &["-preserve-relocs"],
        archs: Archs::Only(SHC_ARCHS),
    },
    // The common area's first fit among its successive ends (sweep11 p124).
    GroupSpec { name: "cah", inputs: &[Abi8("cah")], flags: &[], archs: Archs::Only(SHC_ARCHS) },
    // `-kernels-used` on a relinked `-r` output: the room first, and the
    // variables of functions no kept kernel reaches still in the sort
    // (sweep11 p124 `r-relink-ku`).
    GroupSpec { name: "kur", inputs: &[Abi8("kur")], flags: &[], archs: Archs::Only(SHC_ARCHS) },
    GroupSpec {
        name: "kur-relink-ku",
        inputs: &[LinkR("kur")],
        flags: &["-kernels-used=_Z6kur_h1Pi"],
        archs: Archs::Only(SHC_ARCHS),
    },
    // Rule 9.6 under `-r`: the unselected kernels' rooms come after the
    // input's relocation sections, also `kur_dyn`'s, which has a section
    // symbol; with no kernel selected the null symbol is 0.
    // Rule 9.2: relinking an `-r` output with `-kernels-used`, the windows
    // of the kernels the selected one launches (kept, not walked) come with
    // the removed kernels' windows in section order, `kul_dyn`'s too, which
    // its own code names; sm_90 keeps them without the reserved area
    // (sweep19 p206).
    GroupSpec { name: "kul", inputs: &[Abi8("kul"), Abi8("launch_rt")], flags: &[], archs: Archs::Only(LAUNCH_ARCHS) },
    // Rule 6.1: `c2l_child_a`'s and `c2l_child_a2`'s banks before
    // `c2l_child_c`'s, which c2l_a.cu launches (sweep31 p324).
    GroupSpec {
        name: "c2l",
        inputs: &[Abi8("c2l_a"), Abi8("c2l_c"), Abi8("launch_rt")],
        flags: &[],
        archs: Archs::Only(C2L_ARCHS),
    },
    GroupSpec {
        name: "sbstk",
        inputs: &[Abi8("sbstk_k"), Abi8("sbstk_g-G")],
        flags: &[],
        archs: Archs::Only(MERCURY_PAIR),
    },
    GroupSpec {
        name: "a7bo-mixed-abi",
        inputs: &[Abi8("a7bo_b"), Abi7("a7bo_c")],
        flags: &[],
        archs: Archs::Only(ABI7_SM75_UP),
    },
    // Rule 12.8: a relinked `-r` output's extern named through another
    // input's undefined symbol keeps the empty `.nv_debug.shared`.
    GroupSpec { name: "rdsh-a", inputs: &[Abi8("rdsh_a")], flags: &[], archs: Archs::Only(CONST_ARCHS) },
    GroupSpec { name: "rdsh", inputs: &[LinkR("rdsh-a"), Abi8("rdsh_b")], flags: &[], archs: Archs::Only(CONST_ARCHS) },
    // Rule 10: the 0x66 record against an appended CTAIDZ_USED (a7mz), and
    // its first contributor reached through another marked function (a7mf).
    GroupSpec {
        name: "a7mz-mixed-abi",
        inputs: &[Abi8("a7mz_b"), Abi7("a7mz_c")],
        flags: &[],
        archs: Archs::Only(ABI7_SM75_UP),
    },
    // Rule 10: a weak function first met in an ABI-7 copy orders neither
    // the 0x66 record nor NUM_BARRIERS (a7mw).
    GroupSpec {
        name: "a7mw-mixed-abi",
        inputs: &[Abi7("a7mw_a"), Abi8("a7mw_b"), Abi7("a7mw_c")],
        flags: &[],
        archs: Archs::Only(ABI7_SM75_UP),
    },
    // Rule 7.2: an ABI-7 function's barrier count from its flags alone
    // does not place an appended NUM_BARRIERS among the appended records
    // (a7nm).
    GroupSpec {
        name: "a7nm-mixed-abi",
        inputs: &[Abi7("a7nm_a"), Abi8("a7nm_b")],
        flags: &[],
        archs: Archs::Only(A7NM_ARCHS),
    },
    GroupSpec {
        name: "a7mf-mixed-abi",
        inputs: &[Abi8("a7mf_a"), Abi8("a7mf_b"), Abi7("a7mz_c")],
        flags: &[],
        archs: Archs::Only(ABI7_SM75_UP),
    },
    GroupSpec {
        name: "a7es-mixed-abi",
        inputs: &[Abi8("a7es_a"), Abi7("a7es_b")],
        flags: &[],
        archs: Archs::Only(ABI7_SM75_UP),
    },
    GroupSpec {
        name: "rxs",
        inputs: &[Abi8("rxs_a"), Abi8("rxs_b"), Abi8("rxs_c")],
        flags: &[],
        archs: Archs::Only(RXS_ARCHS),
    },
    GroupSpec {
        name: "kul-relink-ku",
        inputs: &[LinkR("kul")],
        flags: &["-kernels-used=_Z8kul_mainPi"],
        archs: Archs::Only(LAUNCH_ARCHS),
    },
    // Rule 9.2 with two kernels selected: the launched kernels are walked
    // (rule 9.5) but their windows still come late, `kul_dyn`'s after
    // `.debug_frame` (found by the fixture sweep, session 41).
    GroupSpec {
        name: "kul-relink-ku2",
        inputs: &[LinkR("kul")],
        flags: &["-kernels-used=_Z8kul_mainPi,_Z8kul_zeroPi"],
        archs: Archs::Only(LAUNCH_ARCHS),
    },
    // Rule 7.2: relinked, a kernel's appended CTAIDZ_USED and EXTERNS come
    // in the order of their first contributors' `.nv.info.<fn>` (sweep19
    // p200 `r-relink`, sm_75..sm_86).
    GroupSpec { name: "czo", inputs: &[Abi8("czo")], flags: &[], archs: Archs::Only(LAUNCH_ARCHS) },
    GroupSpec { name: "czo-relink", inputs: &[LinkR("czo")], flags: &[], archs: Archs::Only(LAUNCH_ARCHS) },
    GroupSpec {
        name: "kur-relink-kx",
        inputs: &[LinkR("kur")],
        flags: &["-kernels-used=_Z4nonePi"],
        archs: Archs::Only(SHC_ARCHS),
    },
    // Rule 12.10 with `-kernels-used`: `kur_buf` kept (session 42).
    GroupSpec {
        name: "kur-relink-ku-pr",
        inputs: &[LinkR("kur")],
        flags: &["-preserve-relocs", "-kernels-used=_Z6kur_h1Pi"],
        archs: Archs::Only(SHC_ARCHS),
    },
    // Rule 7.2 with rule 1.4: each `-G` object's static `__assert_fail` has
    // its own `.nv.info`, whose place orders the kernel's EXTERNS in the
    // `-g` executable of the `-r -g` output (sweep13 p143).
    GroupSpec { name: "afs", inputs: &[Abi8("afa-G"), Abi8("afb-G")], flags: &["-g"], archs: Archs::Only(SHC_ARCHS) },
    GroupSpec { name: "afs-relink-g", inputs: &[LinkR("afs")], flags: &["-g"], archs: Archs::Only(SHC_ARCHS) },
    // Rule 7.2: relinked, a kernel's EXTERNS follow its input's `.nv.info`
    // order, not its code's (session 32 probe of afb.cu).
    GroupSpec { name: "afbo", inputs: &[Abi8("afbo")], flags: &[], archs: Archs::Only(SHC_ARCHS) },
    GroupSpec { name: "afbo-relink", inputs: &[LinkR("afbo")], flags: &[], archs: Archs::Only(SHC_ARCHS) },
    // Rule 9.13 in `-r`: wl_b's copy, lost when met, lists no call pairs
    // though wl_c's replaces wl_a's (sweep14 p169).
    GroupSpec {
        name: "wl",
        inputs: &[Abi8("wl_a"), Abi8("wl_b"), Abi8("wl_c-r32")],
        flags: &[],
        archs: Archs::Only(SHC_ARCHS),
    },
    // Rule 12.1: a `-r -g` output's empty `.nv.shared.<k>` keeps no window
    // when relinked with `-g` (sweep16 p180/p182).
    GroupSpec { name: "gkeep", inputs: &[Abi8("gkeep-G")], flags: &["-g"], archs: Archs::Only(DEBUG_ARCHS) },
    GroupSpec { name: "gkeep-relink-g", inputs: &[LinkR("gkeep")], flags: &["-g"], archs: Archs::Only(DEBUG_ARCHS) },
    // Rule 12 with a relinked `-r -g` output: a 16-aligned pool keeps every
    // window, a 4-aligned one none (session 41, sweep26 p273 `r-exec-G`).
    GroupSpec { name: "gkp16", inputs: &[Abi8("gkp16-G")], flags: &["-g"], archs: Archs::Only(DEBUG_ARCHS) },
    GroupSpec {
        name: "gkp16-relink-g",
        inputs: &[LinkR("gkp16"), Abi8("gkpe-G")],
        flags: &["-g"],
        archs: Archs::Only(DEBUG_ARCHS),
    },
    GroupSpec { name: "gkp4", inputs: &[Abi8("gkp4-G")], flags: &["-g"], archs: Archs::Only(DEBUG_ARCHS) },
    GroupSpec {
        name: "gkp4-relink",
        inputs: &[LinkR("gkp4"), Abi8("gkpe-G")],
        flags: &[],
        archs: Archs::Only(DEBUG_ARCHS),
    },
    // Rule 12.9: with an extern defined past offset 0 the rooms all stay.
    GroupSpec { name: "gkeep2", inputs: &[Abi8("gkeep2-G")], flags: &["-g"], archs: Archs::Only(DEBUG_ARCHS) },
    GroupSpec { name: "gkeep2-relink-g", inputs: &[LinkR("gkeep2")], flags: &["-g"], archs: Archs::Only(DEBUG_ARCHS) },
    // Rule 12.9 with an extern past 0 that aligns every window past 16
    // (sweep21 p221).
    GroupSpec {
        name: "gkeep4",
        inputs: &[Abi8("gkeep4_a-G"), Abi8("gkeep4_b-G")],
        flags: &["-g"],
        archs: Archs::Only(DEBUG_ARCHS),
    },
    GroupSpec { name: "gkeep4-relink-g", inputs: &[LinkR("gkeep4")], flags: &["-g"], archs: Archs::Only(DEBUG_ARCHS) },
    // Rule 12.10: an extern past 0 raises no `.nv_debug.shared` alignment
    // where no common area is left (found by hand from sweep21 p221):
    // gkeep4's first object alone, its weak static reached by one kernel.
    GroupSpec { name: "gkeep5", inputs: &[Abi8("gkeep4_a-G")], flags: &["-g"], archs: Archs::Only(DEBUG_ARCHS) },
    GroupSpec { name: "gkeep5-relink-g", inputs: &[LinkR("gkeep5")], flags: &["-g"], archs: Archs::Only(DEBUG_ARCHS) },
    // Rule 7.2: an appended CTAIDZ_USED after a NUM_BARRIERS whose first
    // contributor comes first (sweep21 p224).
    GroupSpec { name: "cznb", inputs: &[Abi8("cznb-G")], flags: &["-g"], archs: Archs::Only(CZNB_ARCHS) },
    // Rule 7.2: RESERVED_SMEM_USED and CTAIDZ_USED from one function, for
    // the only kernel and beside a second one (sweep31 p322).
    GroupSpec { name: "rczo", inputs: &[Abi8("rczo-G")], flags: &[], archs: Archs::Only(RCZ_ARCHS) },
    GroupSpec { name: "rcz2", inputs: &[Abi8("rcz2-G")], flags: &[], archs: Archs::Only(RCZ_ARCHS) },
    // Rule 7.2: one callee's appended records in its own order, also
    // reversed in a relinked `-r` output (sweep15 p179).
    GroupSpec { name: "eorder", inputs: &[Abi8("eorder")], flags: &[], archs: Archs::Only(EORDER_ARCHS) },
    GroupSpec { name: "eorder-relink", inputs: &[LinkR("eorder")], flags: &[], archs: Archs::Only(EORDER_ARCHS) },
    // Rule 11.9: spill annotations moved with the code `-g` grows (sweep16
    // p188).
    GroupSpec { name: "spg-g", inputs: &[Abi8("spg-li")], flags: &["-g"], archs: Archs::Only(MERCURY_PAIR) },
    // Rule 11.9: a `switch`'s jump table moved with the code `-g` grows
    // (sweep16 p185).
    GroupSpec { name: "jtg-g", inputs: &[Abi8("jtg-li")], flags: &["-g"], archs: Archs::Only(MERCURY_PAIR) },
    // Rule 11.9/11.7: a grid sync's capsule numbered with its workspace
    // load carried, and the constant load after the sync patched (sweep16
    // p186). Linked `-r` only: the executable's scoreboards differ (the
    // finaliser's renumbering of this kernel is not modelled).
    GroupSpec { name: "gsldc", inputs: &[Abi8("gsldc")], flags: &[], archs: Archs::Only(MERCURY_PAIR) },
    // Rule 11.3: write-barrier groups pending at a join share a barrier
    // (sweep16 p185).
    GroupSpec { name: "sbjoin", inputs: &[Abi8("sbjoin")], flags: &[], archs: Archs::Only(MERCURY_PAIR) },
    // Rule 11.3: a `BSSY` between a load and its write's wait is no branch
    // (sweep15 p177).
    GroupSpec { name: "sbbssy", inputs: &[Abi8("sbbssy")], flags: &[], archs: Archs::Only(MERCURY_PAIR) },
    // Rule 11.3: the fence workaround's later `MEMBAR.ALL.CTA`s, and the
    // release fence's `CCTL.IVALL` waiting on every barrier (sweep15 p172).
    GroupSpec { name: "fence2", inputs: &[Abi8("fence2")], flags: &[], archs: Archs::Only(MERCURY_PAIR) },
    // With `-Xptxas -O1` ptxas's own numbering has a group pending past the
    // `CCTL.IVALL` that waits on every barrier.
    GroupSpec { name: "fence2-o1", inputs: &[Abi8("fence2-O1")], flags: &[], archs: Archs::Only(MERCURY_PAIR) },
    // Rule 11.3: a load kept on the barrier its reader waits for anyway;
    // uniform instructions waiting on the stack-pointer load (sweep14 p162).
    GroupSpec { name: "sbtog", inputs: &[Abi8("sbtog")], flags: &[], archs: Archs::Only(MERCURY_PAIR) },
    // Rule 12.1: weak variables no code names are listed for the common
    // area's sort (sweep14 p160).
    GroupSpec { name: "wun", inputs: &[Abi8("wun")], flags: &[], archs: Archs::Only(SHC_ARCHS) },
    // Rule 12.1: a kernel's own private variables before its callees'.
    GroupSpec { name: "shown", inputs: &[Abi8("shown")], flags: &[], archs: Archs::Only(SHC_ARCHS) },
    // U25: a kernel kept without being live gets no function banks.
    GroupSpec {
        name: "cbk-ku",
        inputs: &[Abi8("cbk")],
        flags: &["-preserve-relocs", "-kernels-used=cbk_sel"],
        archs: Archs::Only(SHC_ARCHS),
    },
    // Rule 9.6: under `-preserve-relocs -kernels-used` an unselected kernel
    // reaching a device function's shared variables gets a window (sweep16
    // p180).
    GroupSpec {
        name: "pku",
        inputs: &[Abi8("pku")],
        flags: &["-preserve-relocs", "-kernels-used=_Z7pku_selPfPKf"],
        archs: Archs::Only(SHC_ARCHS),
    },
    // Rule 9.6 with U25: those windows are named before the selected
    // kernel's new bank 2 (sweep19 p200).
    GroupSpec {
        name: "pkb",
        inputs: &[Abi8("pkb")],
        flags: &["-preserve-relocs", "-kernels-used=_Z7pkb_selPdPKi"],
        archs: Archs::Only(SHC_ARCHS),
    },
    // Rule 9.6: the order of those windows, from a sort listing each weak
    // array once, the kernels of arrays one kernel names first; an
    // unselected kernel with extern memory only keeps its empty window,
    // not aligned by the pool (sweep17 p197).
    GroupSpec {
        name: "pkw",
        inputs: &[Abi8("pkw_a"), Abi8("pkw_b")],
        flags: &["-preserve-relocs", "-kernels-used=_Z7pkw_selPf"],
        archs: Archs::Only(SHC_ARCHS),
    },
    GroupSpec {
        name: "pkw-rev",
        inputs: &[Abi8("pkw_b"), Abi8("pkw_a")],
        flags: &["-preserve-relocs", "-kernels-used=_Z7pkw_selPf"],
        archs: Archs::Only(SHC_ARCHS),
    },
    // Rule 12.1: a weak shared array is listed once, where its first copy
    // is, though the kept code names a later input's copy (sweep22 p238).
    GroupSpec { name: "wcp", inputs: &[Abi8("wcp_a"), Abi8("wcp_b")], flags: &[], archs: Archs::Only(SHC_ARCHS) },
    GroupSpec { name: "wcp-rev", inputs: &[Abi8("wcp_b"), Abi8("wcp_a")], flags: &[], archs: Archs::Only(SHC_ARCHS) },
    // Rule 8.2 on Mercury: the replaced copy's `.nv.merc.rela.text.<k>` is
    // followed by `.nv.merc.nv.resolvedrela.text.<k>` in `.shstrtab`.
    GroupSpec {
        name: "wcp-pr",
        inputs: &[Abi8("wcp_a"), Abi8("wcp_b")],
        flags: &["-preserve-relocs"],
        archs: Archs::Only(SHC_ARCHS),
    },
    // Rule 12.10: shared variables of functions no kernel reaches, kept by
    // `-preserve-relocs` or `-g`, at 0 in `.nv_debug.shared` (sweep16 p182).
    GroupSpec { name: "pun-pr", inputs: &[Abi8("pun")], flags: &["-preserve-relocs"], archs: Archs::Only(SHC_ARCHS) },
    // Rule 8.2: relinked, a `-preserve-relocs` output's `.nv.resolvedrela.*`
    // are not carried (session 41, found by `fixture_sweeps.sh var`).
    GroupSpec { name: "pun-pr-relink", inputs: &[LinkR("pun-pr")], flags: &[], archs: Archs::Only(SHC_ARCHS) },
    GroupSpec {
        name: "pun-pr-relink-pr",
        inputs: &[LinkR("pun-pr")],
        flags: &["-preserve-relocs"],
        archs: Archs::Only(SHC_ARCHS),
    },
    GroupSpec {
        name: "pun-ku",
        inputs: &[Abi8("pun")],
        flags: &["-preserve-relocs", "-kernels-used=_Z5pun_bPi"],
        archs: Archs::Only(SHC_ARCHS),
    },
    GroupSpec { name: "pun-g", inputs: &[Abi8("pun")], flags: &["-g"], archs: Archs::Only(SHC_ARCHS) },
    // U25: a function bank shared by a kernel with 8-aligned bank bytes of
    // its own and one without: both banks 8-aligned (sweep23 p246).
    GroupSpec { name: "cba", inputs: &[Abi8("cba_a"), Abi8("cba_b")], flags: &[], archs: Archs::Only(VSM_ARCHS) },
    GroupSpec { name: "cba-rev", inputs: &[Abi8("cba_b"), Abi8("cba_a")], flags: &[], archs: Archs::Only(VSM_ARCHS) },
    // Rule 5.6 with 9.11: a weak function's bank-2 local stays for the
    // first copy and the winner, not for a copy that lost when met (sweep24
    // p252 `rev-r`).
    GroupSpec {
        name: "wlb",
        inputs: &[Abi8("wlb_a"), Abi8("wlb_b"), Abi8("wlb_c")],
        flags: &[],
        archs: Archs::Only(WCB_ARCHS),
    },
    // U9 with rule 1.4: a weak helper replaced by a later copy, beside an
    // earlier input's static of the same name, gets its own `.text` and
    // `.nv.info` where the first weak copy is met (sweep24 p251 `mixed-G`).
    // Not on sm_100+, where develf still merges the merc companions (left).
    GroupSpec {
        name: "ulw",
        inputs: &[Abi8("ulw_a"), Abi8("ulw_b-G"), Abi8("ulw_c-G")],
        flags: &[],
        archs: Archs::Only(DEBUG_ARCHS),
    },
    // Rule 12.8: relinking a `-r` output, a kernel naming its instance and
    // reaching a 64-aligned extern through a function starts extern memory
    // at that extern's alignment, not the first instance's (sweep24 p250).
    GroupSpec { name: "rxi", inputs: &[Abi8("rxi_a"), Abi8("rxi_b")], flags: &[], archs: Archs::Only(SHC_ARCHS) },
    GroupSpec { name: "rxi-relink", inputs: &[LinkR("rxi")], flags: &[], archs: Archs::Only(SHC_ARCHS) },
    // U25: a kernel's bank ends at its alignment (sweep24 p254).
    GroupSpec { name: "cbe", inputs: &[Abi8("cbe_a"), Abi8("cbe_b")], flags: &[], archs: Archs::Only(WCB_ARCHS) },
    // Rules 7.2 and 12.1 with a function address taken but not called: no
    // register limit, no shared memory; NUM_BARRIERS through the indirect
    // call (sweep24 p254).
    GroupSpec { name: "fadr", inputs: &[Abi8("fadr_a"), Abi8("fadr_b")], flags: &[], archs: Archs::Only(SHC_ARCHS) },
    // Rule 12.1 under `-kernels-used`: a variable first named by a removed
    // kernel is private to the kept one that reaches it (sweep24 p254).
    GroupSpec {
        name: "kupn-ku",
        inputs: &[Abi8("kupn_a"), Abi8("kupn_b")],
        flags: &["-kernels-used=kupn_red"],
        archs: Archs::Only(SHC_ARCHS),
    },
    // An extern met before kupn_a's 128-aligned `.nv_debug.shared`: the
    // section stays 16-aligned, as when met after.
    GroupSpec {
        name: "kupn-ku-rev",
        inputs: &[Abi8("kupn_b"), Abi8("kupn_a")],
        flags: &["-kernels-used=kupn_red"],
        archs: Archs::Only(SHC_ARCHS),
    },
    GroupSpec { name: "kupn", inputs: &[Abi8("kupn_a"), Abi8("kupn_b")], flags: &[], archs: Archs::Only(SHC_ARCHS) },
    // Rule 9.12: code taking a function's address keeps it, not its callees
    // (sweep24 p254).
    GroupSpec {
        name: "adrw-ku",
        inputs: &[Abi8("adrw_a"), Abi8("adrw_b")],
        flags: &["-kernels-used=adrw_set"],
        archs: Archs::Only(SHC_ARCHS),
    },
    GroupSpec { name: "adrw", inputs: &[Abi8("adrw_a"), Abi8("adrw_b")], flags: &[], archs: Archs::Only(SHC_ARCHS) },
    // Rules 12.1, 12.3 and 12.10 with a device function's 256-aligned static
    // beside 16-aligned extern memory (sweep23 p241): windows of kernels
    // reaching extern memory only through shared functions round to the
    // pool's alignment; `-r` takes the pool's alignment as the link's; `-g`
    // starts extern memory at the rounded window's end.
    GroupSpec { name: "xsa", inputs: &[Abi8("xsa_a"), Abi8("xsa_b")], flags: &[], archs: Archs::Only(SHC_ARCHS) },
    GroupSpec {
        name: "xsa-G",
        inputs: &[Abi8("xsa_a-G"), Abi8("xsa_b-G")],
        flags: &["-g"],
        archs: Archs::Only(SHC_ARCHS),
    },
    GroupSpec { name: "xsa-G-relink-g", inputs: &[LinkR("xsa-G")], flags: &["-g"], archs: Archs::Only(SHC_ARCHS) },
    // Rule 11.3: a load group's later read barrier waited after its write
    // (sweep16 p181).
    GroupSpec { name: "sbrlate", inputs: &[Abi8("sbrlate")], flags: &[], archs: Archs::Only(MERCURY_PAIR) },
    // Rule 11.3: a global load and a constant load pressed onto one barrier
    // and read together at its wait stay on one barrier.
    GroupSpec { name: "sbldg", inputs: &[Abi8("sbldg")], flags: &[], archs: Archs::Only(MERCURY_PAIR) },
    // Rule 11.3: the stack-pointer load's barrier waited for before a shared
    // CAS loop that reuses it (sweep17 p197 `static_plus_dynamic`).
    GroupSpec { name: "sbhoist", inputs: &[Abi8("sbhoist")], flags: &[], archs: Archs::Only(MERCURY_PAIR) },
    // Rule 11.3: global loads behind branches, pending at the join, on
    // barrier 5 (sweep17 p197 `stencil_d`).
    GroupSpec { name: "sbjoin5", inputs: &[Abi8("sbjoin5")], flags: &[], archs: Archs::Only(MERCURY_PAIR) },
    // Rule 11.3: an `EXIT` (sm_100) and a 32-bit `IADD` of `R0` (sm_120)
    // wait on the stack-pointer load's barrier without reading `R1`
    // (sweep17 p196 `reverse_bits`).
    GroupSpec { name: "sbexit", inputs: &[Abi8("sbexit")], flags: &[], archs: Archs::Only(MERCURY_PAIR) },
    // Rule 11.3: two groups pending at a `BSYNC` interfere (sweep33 p343
    // `k_clear`).
    GroupSpec { name: "sbbsync", inputs: &[Abi8("sbbsync")], flags: &[], archs: Archs::Only(MERCURY_PAIR) },
    // Rule 11.9: an `EXIT` keeps its wait on a bulk tensor load's read
    // barrier under `-g` (session 32 probe of tma_b.cu).
    GroupSpec { name: "tmab-g", inputs: &[Abi8("tmab")], flags: &["-g"], archs: Archs::Only(MERCURY_PAIR) },
    // Rule 12.10: relinked with `-g`, a `-r -g` output's extern value aligns
    // `.nv_debug.shared` (session 32 probe of xshm_a.cu).
    GroupSpec { name: "xshma-g", inputs: &[Abi8("xshma")], flags: &["-g"], archs: Archs::Only(SHC_ARCHS) },
    GroupSpec { name: "xshma-relink-g", inputs: &[LinkR("xshma-g")], flags: &["-g"], archs: Archs::Only(SHC_ARCHS) },
    // U13 on Mercury: a replaced weak copy's merc relocation section goes
    // when the winner has no relocations (sweep17 p192).
    GroupSpec { name: "wrel", inputs: &[Abi8("wrel_a"), Abi8("wrel_b")], flags: &[], archs: Archs::Only(MERCURY_PAIR) },
    // Rules 12.2/12.9: the pool aligned past 16 by an extern drops the empty
    // `.nv_debug.shared` and empty windows (sweep17 p197).
    GroupSpec {
        name: "dsh128",
        inputs: &[Abi8("dsh128_a"), Abi8("dsh128_b")],
        flags: &[],
        archs: Archs::Only(SHC_ARCHS),
    },
    GroupSpec {
        name: "dsh16",
        inputs: &[Abi8("dsh128_a"), Abi8("dsh128_c")],
        flags: &[],
        archs: Archs::Only(SHC_ARCHS),
    },
    // Rule 9.6: a weak kernel's later copy wins, and `-kernels-used` does not
    // select it: under `-r` no `.nv.shared.<k>` name for it (sweep17 p197
    // `ku-r`).
    GroupSpec {
        name: "kuweak-ku",
        inputs: &[Abi8("kuweak_a"), Abi8("kuweak_b")],
        flags: &["-kernels-used=_Z11kuweak_mainPfi"],
        archs: Archs::Only(SHC_ARCHS),
    },
    // Rule 12.10: under `-preserve-relocs` the 128-aligned extern aligns
    // `.nv_debug.shared` as under `-g` (sweep17/18 p197 `preserve`).
    GroupSpec {
        name: "dsh128-pr",
        inputs: &[Abi8("dsh128_a"), Abi8("dsh128_b")],
        flags: &["-preserve-relocs"],
        archs: Archs::Only(SHC_ARCHS),
    },
    // Rule 11.3: a CAS returning nothing takes 5 (sweep16 p186).
    GroupSpec { name: "casrz", inputs: &[Abi8("casrz")], flags: &[], archs: Archs::Only(MERCURY_PAIR) },
    // Rule 11.3: `LDG.E Rd, [Ra]` (0x381) is a global load for the model
    // (sweep25 p262; sm_100 still differs: its `ATOMG` read barrier).
    GroupSpec { name: "sb16", inputs: &[Abi8("sb16")], flags: &[], archs: Archs::Only(SM120_ONLY) },
    // Rule 11.3: a loop head's wait for the loop's own read barrier, which
    // ptxas shares with the stack-pointer load (sweep17 p193).
    GroupSpec { name: "sbhead", inputs: &[Abi8("sbhead")], flags: &[], archs: Archs::Only(MERCURY_PAIR) },
    // Rule 11.3: `BPT.TRAP` and `F2I` waits that are no stack use (sweep23
    // p245, sweep22 p235).
    GroupSpec { name: "sbuse", inputs: &[Abi8("sbuse")], flags: &[], archs: Archs::Only(MERCURY_PAIR) },
    // Rule 11.9: a texture fetch's waterfall set-ups are not counted in the
    // capsule, whose constant loads after them nvlink patches (sweep19 p203).
    GroupSpec { name: "wtf", inputs: &[Abi8("wtf")], flags: &[], archs: Archs::Only(MERCURY_PAIR) },
    // U13 with rule 12.3: a relinked `-r` output's extern room stays with a
    // weak kernel whose later copy wins (sweep20 part-relink).
    GroupSpec { name: "rrm", inputs: &[Abi8("rrm_a")], flags: &[], archs: Archs::Only(RRM_ARCHS) },
    GroupSpec { name: "rrm-relink", inputs: &[LinkR("rrm"), Abi8("rrm_b")], flags: &[], archs: Archs::Only(RRM_ARCHS) },
    // U27 with rule 9.6: kernels kept by a table of their addresses but not
    // selected by `-kernels-used` get windows for their template statics,
    // named after `.nv.prototype` (sweep27 p282; exec only, `-r` none).
    GroupSpec {
        name: "wst",
        inputs: &[Abi8("wst_a"), Abi8("wst_b")],
        flags: &["-kernels-used=_Z5wst_kILi2EEvPfPKf"],
        archs: Archs::Only(SHC_ARCHS),
    },
    // U13 the other way round: rrm_b's winning copy first, the `-r`
    // output's room still joins the kernel's window (session 42).
    GroupSpec {
        name: "rrm-relink-rev",
        inputs: &[Abi8("rrm_b"), LinkR("rrm")],
        flags: &[],
        archs: Archs::Only(RRM_ARCHS),
    },
    // Rule 9.2 with it: `rrm_fill<double>` not selected, the room's name
    // comes late, after `.nv.shared._Z7rrm_dynPf` (session 42).
    GroupSpec {
        name: "rrm-relink-rev-ku",
        inputs: &[Abi8("rrm_b"), LinkR("rrm")],
        flags: &["-kernels-used=_Z9rrm_plainPf"],
        archs: Archs::Only(RRM_ARCHS),
    },
    // Rule 11.3: never-awaited read barriers, `PLOP3` waits and shared
    // counts in the scoreboard model (sweep19 p207).
    GroupSpec { name: "sbmm", inputs: &[Abi8("sbmm")], flags: &[], archs: Archs::Only(MERCURY_PAIR) },
    // Rule 11.3: a pressed group of double-precision producers split
    // (sweep20 p216).
    GroupSpec { name: "sbdbl", inputs: &[Abi8("sbdbl")], flags: &[], archs: Archs::Only(MERCURY_PAIR) },
    // Rule 11.3: a pressed load takes its own read barrier's (sweep20 p214).
    GroupSpec { name: "sbpr", inputs: &[Abi8("sbpr")], flags: &[], archs: Archs::Only(MERCURY_PAIR) },
    // Rule 11.3: a wait that ends a group before its barrier is set again
    // round a loop (sweep20 p210).
    GroupSpec { name: "sbfwd", inputs: &[Abi8("sbfwd")], flags: &[], archs: Archs::Only(MERCURY_PAIR) },
    // Rule 11.3: a load group's search with a read barrier first and plain
    // loads after; never-waited pressed read barriers (sweep20 p211).
    GroupSpec { name: "sbbvh", inputs: &[Abi8("sbbvh")], flags: &[], archs: Archs::Only(MERCURY_PAIR) },
    // Rule 11.3: a read barrier pressed onto its group's write barrier
    // (sweep20 p211).
    GroupSpec { name: "sbtri", inputs: &[Abi8("sbtri")], flags: &[], archs: Archs::Only(MERCURY_PAIR) },
    // Rule 11.3: a uniform branch's wait is no use of the stack (sweep21
    // p221).
    GroupSpec { name: "sbbru", inputs: &[Abi8("sbbru")], flags: &[], archs: Archs::Only(MERCURY_PAIR) },
    // Rule 12.10: extern shared relocations of code no kernel reaches are
    // listed under `-preserve-relocs` (sweep15 p174).
    // Rule 12.3: `-r` grows `.nv_debug.shared` by the extern alignment when
    // it holds exactly that much.
    GroupSpec { name: "pux", inputs: &[Abi8("pux")], flags: &[], archs: Archs::Only(SHC_ARCHS) },
    // Rule 12.10: under `-g` code no kernel reaches gets the extern's offset.
    GroupSpec { name: "pux-g", inputs: &[Abi8("pux")], flags: &["-g"], archs: Archs::Only(SHC_ARCHS) },
    GroupSpec { name: "pux-pr", inputs: &[Abi8("pux")], flags: &["-preserve-relocs"], archs: Archs::Only(PUX_ARCHS) },
    GroupSpec {
        name: "pux-ku",
        inputs: &[Abi8("pux")],
        flags: &["-preserve-relocs", "-kernels-used=_Z5pux_bPi"],
        archs: Archs::Only(PUX_ARCHS),
    },
    // Rule 11.3 in tensor-core loops (sweep13 p145).
    GroupSpec { name: "wmtf", inputs: &[Abi8("wmtf")], flags: &[], archs: Archs::Only(WMTF_ARCHS) },
    // Rule 11.3: release fences' operations left out of the fence capsule's
    // numbering (sweep13 p148).
    GroupSpec { name: "relfence", inputs: &[Abi8("relfence")], flags: &[], archs: Archs::Only(MERCURY_PAIR) },
    GroupSpec { name: "scoped", inputs: &[Abi8("scoped")], flags: &[], archs: Archs::Only(MERCURY_PAIR) },
    GroupSpec { name: "qx-g", inputs: &[Abi8("qx")], flags: &["-g"], archs: Archs::Only(MERCURY_PAIR) },
    // Rule 7.2: NUM_MBARRIERS summed over the functions a kernel reaches.
    GroupSpec { name: "mbsum", inputs: &[Abi8("mbsum")], flags: &[], archs: Archs::Only(MBSUM_ARCHS) },
    // Rule 7.1: under `-preserve-relocs -kernels-used` the kernels the list
    // does not select keep their own register counts (sweep13 p144).
    GroupSpec {
        name: "pkr-ku",
        inputs: &[Abi8("pkr")],
        flags: &["-preserve-relocs", "-kernels-used=ka"],
        archs: Archs::Only(SHC_ARCHS),
    },
    // Rule 11.3: waits on the stack-pointer load's barrier at instructions
    // reading no register (`CS2R`, `BAR.SYNC`), and a read barrier pressed
    // in with write barriers, split off (sweep12 p130, p139, p132).
    GroupSpec { name: "sbcs2r", inputs: &[Abi8("sbcs2r")], flags: &[], archs: Archs::Only(MERCURY_PAIR) },
    GroupSpec { name: "sbrpr", inputs: &[Abi8("sbrpr")], flags: &[], archs: Archs::Only(MERCURY_PAIR) },
    GroupSpec { name: "sbbar", inputs: &[Abi8("sbbar")], flags: &[], archs: Archs::Only(MERCURY_PAIR) },
    // A global load pressed onto the barrier set last (sweep12 p131).
    GroupSpec { name: "sbpress", inputs: &[Abi8("sbpress")], flags: &[], archs: Archs::Only(MERCURY_PAIR) },
    // Rule 11.9: a shared window pointer's two moves count once in the
    // capsule (sweep10 p107, p109).
    GroupSpec { name: "wpp", inputs: &[Abi8("wpp")], flags: &[], archs: Archs::Only(MERCURY_PAIR) },
    // Rule 7.2: RESERVED_SMEM_USED among the appended records, ordered by
    // first contributor (sweep11 p120 `G-exec` and `G-rev`).
    GroupSpec {
        name: "cgt",
        inputs: &[Abi8("cgt_a-G"), Abi8("cgt_b"), Abi8("cgt_c")],
        flags: &[],
        archs: Archs::Only(CGT_ARCHS),
    },
    GroupSpec {
        name: "cgt-rev",
        inputs: &[Abi8("cgt_c"), Abi8("cgt_b"), Abi8("cgt_a-G")],
        flags: &[],
        archs: Archs::Only(CGT_ARCHS),
    },
    // Rule 7.2: RESERVED_SMEM_USED appended to the kernels reaching a
    // function with it (sweep9).
    GroupSpec { name: "rsu", inputs: &[Abi8("rsu-G")], flags: &[], archs: Archs::Only(RSU_ARCHS) },
    GroupSpec {
        name: "wic-g",
        inputs: &[Abi8("wic_a-G"), Abi8("wic_b-G")],
        flags: &["-g"],
        archs: Archs::Only(INDIR_ARCHS),
    },
    GroupSpec {
        name: "wsts-g",
        inputs: &[Abi8("wsts_a-G"), Abi8("wsts_b")],
        flags: &["-g"],
        archs: Archs::Only(INDIR_ARCHS),
    },
    // U25, rule 6.1: banks placed by each function's first copy in input
    // order, whichever copy is kept (sweep2 p44).
    GroupSpec {
        name: "wfc",
        inputs: &[Abi8("wfc_a"), Abi8("wfc_b"), Abi8("wfc_c"), Abi8("wfc_d")],
        flags: &[],
        archs: Archs::Only(WCB_ARCHS),
    },
    // Rule 11.3's fence workaround: libcu++'s `atomic_ref::fetch_add` ends in
    // a predicated `@P0 CCTL.IVALL`, which the capsule's count leaves out.
    GroupSpec { name: "atomref", inputs: &[Abi8("atomref")], flags: &[], archs: Archs::Only(MERCURY_PAIR) },
    GroupSpec { name: "tmacl", inputs: &[Abi8("tmacl")], flags: &[], archs: Archs::Only(MERCURY_PAIR) },
    GroupSpec { name: "fva", inputs: &[Abi8("fva")], flags: &[], archs: Archs::Only(MERCURY_PAIR) },
    // Rule 11.9: the `EXIT` keeps its wait on the bulk reduction's read barrier.
    GroupSpec { name: "fva-g", inputs: &[Abi8("fva")], flags: &["-g"], archs: Archs::Only(MERCURY_PAIR) },
    // Rule 11.9: the capsule numbering of collective regions (an `ELECT`
    // counted, the `MOV` after it not).
    GroupSpec { name: "clel-g", inputs: &[Abi8("clel")], flags: &["-g"], archs: Archs::Only(MERCURY_PAIR) },
    // U27: the reserved shared variable's value in code, its merc relocations kept.
    GroupSpec { name: "tcg", inputs: &[Abi8("tcg")], flags: &[], archs: Archs::Only(SM100A_ONLY) },
    // Rule 11.9: the `EXIT` keeps its wait on the `UTMASTG`'s read barrier.
    GroupSpec { name: "tmst-g", inputs: &[Abi8("tmst")], flags: &["-g"], archs: Archs::Only(MERCURY_PAIR) },
    GroupSpec { name: "sbimad", inputs: &[Abi8("sbimad")], flags: &[], archs: Archs::Only(MERCURY_PAIR) },
    GroupSpec { name: "cubr", inputs: &[Abi8("cubr_a"), Abi8("cubr_b")], flags: &[], archs: Archs::Only(MERCURY_PAIR) },
    GroupSpec { name: "nbex-G", inputs: &[Abi8("nbex-G")], flags: &[], archs: Archs::Only(NBEX_ARCHS) },
    GroupSpec {
        name: "sco",
        inputs: &[Abi8("sco_int"), Abi8("sco_flt"), Abi8("sco_dbl"), Abi8("sco_mix")],
        flags: &[],
        archs: Archs::Only(SCO_ARCHS),
    },
    GroupSpec { name: "sco-dbl", inputs: &[Abi8("sco_dbl")], flags: &[], archs: Archs::Only(SCO_ARCHS) },
    GroupSpec {
        name: "msig",
        inputs: &[Abi8("msig_a"), Abi8("msig_b"), Abi8("msig_c")],
        flags: &[],
        archs: Archs::Only(MERCURY_PAIR),
    },
    GroupSpec { name: "b2r", inputs: &[Abi8("b2r_a"), Abi8("b2r_b")], flags: &[], archs: Archs::Only(MERCURY_PAIR) },
    GroupSpec {
        name: "jtab",
        inputs: &[Abi8("jtab_a"), Abi8("jtab_b")],
        flags: &[],
        archs: Archs::Only(&["sm_100", "sm_120"]),
    },
    // U25 (sweep4 p60): the jump tables of a relinked `-r` output, whose
    // relocations are listed ascending.
    GroupSpec { name: "jtrel", inputs: &[Abi8("jtrel")], flags: &[], archs: Archs::Only(MERCURY_PAIR) },
    GroupSpec { name: "jtrel-relink", inputs: &[LinkR("jtrel")], flags: &[], archs: Archs::Only(MERCURY_PAIR) },
    // Rule 11.7 with U25: `-preserve-relocs` writes the capsule fields of
    // `jump_i`'s table loads, whose bank went into `sw_k`'s (sweep4 p60).
    GroupSpec {
        name: "jtrel-pr",
        inputs: &[Abi8("jtrel")],
        flags: &["-preserve-relocs"],
        archs: Archs::Only(MERCURY_PAIR),
    },
    // Rule 12.8: relinking `-r` outputs that use extern shared memory (the
    // weak `externsharedinstance`, `dyn` defined in `.nv_debug.shared`).
    GroupSpec {
        name: "shared-relink",
        inputs: &[LinkR("shared")],
        flags: &[],
        archs: Archs::Only(&["sm_75", "sm_90"]),
    },
    GroupSpec {
        name: "indir",
        inputs: &[Abi8("indir_a"), Abi8("indir_b"), Abi8("indir_c")],
        flags: &[],
        archs: Archs::Only(INDIR_ARCHS),
    },
    // Rule 12.8: the `-r` output's externs defined in an extern-only
    // `.nv_debug.shared`, named by a device function (`ind_mix`).
    GroupSpec { name: "indir-relink", inputs: &[LinkR("indir")], flags: &[], archs: Archs::Only(INDIR_ARCHS) },
    // Rule 12.8.1 (sweep4 p61): a `-r` output whose `externsharedinstance`s
    // (0x90, 0x2000, 0x10, 0x100) are not all powers of two, relinked.
    GroupSpec {
        name: "xinst",
        inputs: &[Abi8("xinst_a"), Abi8("xinst_b"), Abi8("xinst_c")],
        flags: &[],
        archs: Archs::Only(&["sm_75", "sm_90"]),
    },
    GroupSpec { name: "xinst-relink", inputs: &[LinkR("xinst")], flags: &[], archs: Archs::Only(&["sm_75", "sm_90"]) },
    GroupSpec { name: "msigrev", inputs: &[Abi8("msigrev")], flags: &[], archs: Archs::Only(MERCURY_PAIR) },
    GroupSpec {
        name: "shroom",
        inputs: &[Abi8("shroom_b"), Abi8("shroom_a")],
        flags: &[],
        archs: Archs::Only(SHROOM_ARCHS),
    },
    // Rules 12.8, 12.9: a relinked kernel's room before its callee's 8-aligned
    // array; the null symbol takes the first room's offset (Mercury too).
    GroupSpec { name: "shroom-relink", inputs: &[LinkR("shroom")], flags: &[], archs: Archs::Only(SHROOM_ARCHS) },
    GroupSpec { name: "shroom-a", inputs: &[Abi8("shroom_a")], flags: &[], archs: Archs::Only(SHROOM_ARCHS) },
    GroupSpec { name: "shroom-a-relink", inputs: &[LinkR("shroom-a")], flags: &[], archs: Archs::Only(SHROOM_ARCHS) },
    // Rule 12.8: when a relinked `.nv_debug.shared` stays (`dshkeep`) or goes
    // (`dshdrop`, relinked exec in options/commands.txt: nvlink's `-r` relink
    // of it writes `sh_addralign` 0x30, the instance's offset, which the
    // validator rejects).
    GroupSpec { name: "dshkeep", inputs: &[Abi8("dshkeep")], flags: &[], archs: Archs::Only(SHROOM_ARCHS) },
    GroupSpec { name: "dshkeep-relink", inputs: &[LinkR("dshkeep")], flags: &[], archs: Archs::Only(SHROOM_ARCHS) },
    GroupSpec { name: "dshdrop", inputs: &[Abi8("dshdrop")], flags: &[], archs: Archs::Only(SHROOM_ARCHS) },
    // Rule 9.13: `tlib` drops tl_b's and tl_c's dsqrt slow paths, called only
    // by copies that lost when met; `tlib-repl` (tl_a's copies win on
    // registers) keeps tl_b's, drops the replaced `tl_poly<double>`'s FDE
    // relocation on sm_90 and lists its call in the `-r` call graph.
    GroupSpec {
        name: "tlib",
        inputs: &[Abi8("tl_a"), Abi8("tl_b"), Abi8("tl_c")],
        flags: &[],
        archs: Archs::Only(TLIB_ARCHS),
    },
    GroupSpec {
        name: "tlib-repl",
        inputs: &[Abi8("tl_c"), Abi8("tl_b"), Abi8("tl_a-r24")],
        flags: &[],
        archs: Archs::Only(TLIB_REPL_ARCHS),
    },
    // Rule 1.3: relinking a `-r` output with a `-lineinfo` input's debug
    // sections, whose section symbols follow bank symbols there.
    GroupSpec {
        name: "tlib-li",
        inputs: &[Abi8("tl_a"), Abi8("tl_b"), Abi8("tl_c-lineinfo")],
        flags: &[],
        archs: Archs::Only(INDIR_ARCHS),
    },
    GroupSpec { name: "tlib-li-relink", inputs: &[LinkR("tlib-li")], flags: &[], archs: Archs::Only(INDIR_ARCHS) },
    // Rule 12.2 (fresh4): relinking this group's `-r -g` output, whose
    // `.nv_debug.shared` holds only extern definitions, aligns the
    // executable's to 16, not to the extern's 128 (options/commands.txt
    // `rgds_relink*`; a relink with `-r` differs, docs/nvlink-layout.md).
    GroupSpec {
        name: "rgds",
        inputs: &[Abi8("rea_a"), Abi8("rea_b")],
        flags: &["-g"],
        archs: Archs::Only(FRESH4_GROUP_ARCHS),
    },
    // Rule 12.8 (fresh5): each object linked `-g` (`-r -g`), the `-r -g`
    // outputs then linked `-g` by options/commands.txt (`eo_*`).
    GroupSpec { name: "eo_a", inputs: &[Abi8("eo_a")], flags: &["-g"], archs: Archs::Only(FRESH5_ARCHS) },
    GroupSpec { name: "eo_b", inputs: &[Abi8("eo_b")], flags: &["-g"], archs: Archs::Only(FRESH5_ARCHS) },
    GroupSpec { name: "ginit", inputs: &[Abi8("gi_a"), Abi8("gi_b")], flags: &[], archs: Archs::Only(CONST_ARCHS) },
    GroupSpec { name: "cxt", inputs: &[Abi8("cx_a"), Abi8("cx_b")], flags: &[], archs: Archs::Only(CONST_ARCHS) },
    // Rule 7.8: ABI-7 tl_a's `__assertfail` signature replaced by ABI-8
    // tl_b's; rule 10: ABI-7 tl_kernel_a gets no 0x66, tl_kernel_c does.
    GroupSpec {
        name: "tlib-mixed-abi",
        inputs: &[Abi7("tl_a"), Abi8("tl_b"), Abi7("tl_c")],
        flags: &[],
        archs: Archs::Only(ABI7_SM75_UP),
    },
    // Rule 7.8: ABI-7 tl_b's prototypes in its `.symtab` order.
    GroupSpec {
        name: "tlib-repl-mixed-abi",
        inputs: &[Abi7("tl_c"), Abi7("tl_b"), Abi8("tl_a-r24")],
        flags: &[],
        archs: Archs::Only(ABI7_SM75_UP),
    },
    GroupSpec {
        name: "ginit-mixed-abi",
        inputs: &[Abi7("gi_a"), Abi8("gi_b")],
        flags: &[],
        archs: Archs::Only(ABI7_SM75_UP),
    },
    // Rule 10: ABI-7 inputs only still give an sm_90 link nvlink's `.nv.compat`.
    GroupSpec {
        name: "ginit-abi7",
        inputs: &[Abi7("gi_a"), Abi7("gi_b")],
        flags: &[],
        archs: Archs::Only(ABI7_SM75_UP),
    },
    // Rule 10: the `-r` output of ABI-7 objects (only the accelerator
    // record) with another ABI-7 object: that one stands for four
    // `.nv.compat` records of its own (sm_90).
    GroupSpec {
        name: "ginit-abi7-relink",
        inputs: &[LinkR("ginit-abi7"), Abi7("big_helper")],
        flags: &[],
        archs: Archs::Only(ABI7_SM75_UP),
    },
    GroupSpec {
        name: "cxt-mixed-abi",
        inputs: &[Abi8("cx_a"), Abi7("cx_b")],
        flags: &[],
        archs: Archs::Only(ABI7_SM75_UP),
    },
    // Rule 10: the ABI-7 kernel reaching ABI-8 code gets 0x66, then the
    // NUM_BARRIERS its `.text` flags carry; rule 12.1: its sm_90 window gets
    // the reserved 0x400 though no input has `.nv.reservedSmem.cap`.
    GroupSpec {
        name: "a7bar-mixed-abi",
        inputs: &[Abi7("a7bar_k"), Abi8("a7bar_f")],
        flags: &[],
        archs: Archs::Only(ABI7_SM75_UP),
    },
    // Rule 10 again through the `-r` output: its kernel lacks the 0x66
    // record and its `.text` keeps the barrier bits.
    GroupSpec {
        name: "a7bar-mixed-abi-relink",
        inputs: &[LinkR("a7bar-mixed-abi")],
        flags: &[],
        archs: Archs::Only(ABI7_SM75_UP),
    },
    // xconst_a is also built for sm_100, for the `-r` link of it alone in
    // options/commands.txt (rule 8.3's Mercury bank).
    GroupSpec {
        name: "xconst",
        inputs: &[Abi8("xconst_a"), Abi8("xconst_b")],
        flags: &[],
        archs: Archs::Only(&["sm_90"]),
    },
];

fn sm_number(arch: &str) -> u32 {
    let digits: String = arch.trim_start_matches("sm_").chars().take_while(char::is_ascii_digit).collect();
    digits.parse().unwrap_or(0)
}

/// The kind field of `manifest.json`.
#[derive(Debug, Clone, Copy, PartialEq, Eq, PartialOrd, Ord, Serialize)]
#[serde(rename_all = "kebab-case")]
enum Kind {
    Object,
    Linked,
    RelocatableLink,
}

#[derive(Debug, Clone, Copy)]
enum Tool {
    Nvcc,
    Ptxas13,
    Ptxas12,
    Nvlink,
}

impl Tool {
    /// The name used in recorded command lines. `ptxas-12.9` stands for the
    /// CUDA 12.9 ptxas (README.md says where it lives).
    fn display(self) -> &'static str {
        match self {
            Tool::Nvcc => "nvcc",
            Tool::Ptxas13 => "ptxas",
            Tool::Ptxas12 => "ptxas-12.9",
            Tool::Nvlink => "nvlink",
        }
    }
}

/// One step of a build, with paths relative to `tests/fixtures/`.
#[derive(Debug, Clone)]
enum Step {
    Run {
        tool: Tool,
        args: Vec<String>,
    },
    /// Rewrite `.version` (always) and `.target` (when `target` is set) at the
    /// start of lines, in place; shown as the equivalent `sed -i`.
    RewritePtx {
        file: String,
        target: Option<(String, String)>,
    },
}

impl Step {
    fn run(tool: Tool, args: Vec<String>) -> Step {
        Step::Run { tool, args }
    }

    fn display(&self) -> String {
        match self {
            Step::Run { tool, args } => {
                let mut line = tool.display().to_string();
                for arg in args {
                    line.push(' ');
                    line.push_str(arg);
                }
                line
            }
            Step::RewritePtx { file, target } => {
                let mut line = format!("sed -i -e 's/^\\.version .*/.version {PTX_VERSION_FOR_PTXAS12}/'");
                if let Some((from, to)) = target {
                    line.push_str(&format!(" -e 's/^\\.target {from}/.target {to}/'"));
                }
                line.push(' ');
                line.push_str(file);
                line
            }
        }
    }
}

/// One output file and how it is made.
#[derive(Debug, Clone)]
struct Job {
    path: String,
    kind: Kind,
    arch: String,
    abi: u8,
    /// The source file (objects) or the group name (links).
    source: String,
    inputs: Vec<String>,
    steps: Vec<Step>,
    /// The names `--only` matches: the object, its source file, or the group.
    names: Vec<String>,
}

impl Job {
    fn command(&self) -> String {
        self.steps.iter().map(Step::display).collect::<Vec<_>>().join(" && ")
    }
}

#[derive(Debug, Serialize)]
struct ManifestEntry<'a> {
    path: &'a str,
    kind: Kind,
    arch: &'a str,
    abi: u8,
    source: &'a str,
    #[serde(skip_serializing_if = "Option::is_none")]
    inputs: Option<&'a [String]>,
    command: String,
}

#[derive(Debug)]
struct Options {
    only: Option<String>,
    jobs: usize,
}

fn parse_options(args: &[String]) -> Result<Options> {
    let mut options = Options { only: None, jobs: 2 };
    let mut args = args.iter();
    while let Some(arg) = args.next() {
        let (flag, inline_value) = match arg.split_once('=') {
            Some((flag, value)) => (flag, Some(value.to_string())),
            None => (arg.as_str(), None),
        };
        let mut value = || -> Result<String> {
            match &inline_value {
                Some(value) => Ok(value.clone()),
                None => args.next().cloned().with_context(|| format!("{flag} needs a value")),
            }
        };
        match flag {
            "--only" => options.only = Some(value()?),
            "--jobs" | "-j" => {
                let text = value()?;
                options.jobs = text
                    .parse()
                    .ok()
                    .filter(|&jobs: &usize| jobs > 0)
                    .with_context(|| format!("--jobs wants a positive number, not `{text}`"))?;
            }
            "-h" | "--help" => {
                println!(
                    "usage: cargo xtask fixtures [--only NAME[,NAME...]] [--jobs N]\n\n\
                     Builds tests/fixtures/{{obj,obj-abi7,link,link-r}} from tests/fixtures/src.\n\
                     --only NAME  rebuild only what matches NAME (object, source file or group\n\
                     \x20            name) and keep everything else; links rebuild their inputs\n\
                     --jobs N     parallel tool runs (default 2)"
                );
                std::process::exit(0);
            }
            other => bail!("unknown option `{other}` for `fixtures`; see --help"),
        }
    }
    Ok(options)
}

/// All jobs the tables describe, objects first, each list sorted by path.
fn plan() -> Vec<Job> {
    let mut objects = Vec::new();
    for spec in OBJECTS {
        for arch in fixture_archs().filter(|arch| spec.archs.contains(arch)) {
            objects.push(abi8_object(spec, arch));
        }
        for arch in spec.abi7 {
            objects.push(abi7_object(spec, arch));
        }
    }
    objects.sort_by(|a, b| a.path.cmp(&b.path));

    let mut known: std::collections::BTreeSet<String> = objects.iter().map(|job| job.path.clone()).collect();
    // Groups linking `-r` outputs come after the groups making them (GROUPS order).
    for spec in GROUPS {
        for arch in fixture_archs().filter(|arch| spec.archs.contains(arch)) {
            if spec.inputs.iter().all(|input| known.contains(&input.path(arch))) {
                known.insert(format!("link-r/{arch}/{}.cubin", spec.name));
            }
        }
    }
    let mut links = Vec::new();
    for spec in GROUPS {
        for arch in fixture_archs().filter(|arch| spec.archs.contains(arch)) {
            let inputs: Vec<String> = spec.inputs.iter().map(|input| input.path(arch)).collect();
            if !inputs.iter().all(|input| known.contains(input)) {
                continue;
            }
            for kind in [Kind::Linked, Kind::RelocatableLink] {
                if kind == Kind::RelocatableLink || !RELOCATABLE_ONLY.contains(&spec.name) {
                    links.push(link_job(spec, arch, kind, &inputs));
                }
            }
        }
    }
    links.sort_by(|a, b| a.path.cmp(&b.path));
    objects.extend(links);
    objects
}

fn strings(items: &[&str]) -> Vec<String> {
    items.iter().map(|item| item.to_string()).collect()
}

fn abi8_object(spec: &ObjectSpec, arch: &str) -> Job {
    let extension = if spec.recipe == Recipe::NvccLib { "a" } else { "cubin" };
    let path = format!("obj/{arch}/{}.{extension}", spec.name);
    let source = format!("src/{}", spec.source);
    let steps = match spec.recipe {
        Recipe::Nvcc => {
            let mut args = vec![format!("-arch={arch}"), "-rdc=true".into(), "-cubin".into()];
            args.extend(strings(spec.nvcc_flags));
            args.extend([source.clone(), "-o".into(), path.clone()]);
            vec![Step::run(Tool::Nvcc, args)]
        }
        Recipe::NvccThenPtxas => {
            let ptx = format!("ptx/{arch}/{}.ptx", spec.name);
            let mut nvcc = vec![format!("-arch={arch}"), "-rdc=true".into(), "-ptx".into()];
            nvcc.extend(strings(spec.nvcc_flags));
            nvcc.extend([source.clone(), "-o".into(), ptx.clone()]);
            vec![Step::run(Tool::Nvcc, nvcc), Step::run(Tool::Ptxas13, ptxas_args(arch, spec, &ptx, &path))]
        }
        Recipe::Ptxas => vec![Step::run(Tool::Ptxas13, ptxas_args(arch, spec, &source, &path))],
        Recipe::NvccLib => {
            let mut args = vec![format!("-arch={arch}"), "-rdc=true".into(), "-lib".into()];
            args.extend(strings(spec.nvcc_flags));
            args.extend([source.clone(), "-o".into(), path.clone()]);
            vec![Step::run(Tool::Nvcc, args)]
        }
    };
    Job {
        path,
        kind: Kind::Object,
        arch: arch.to_string(),
        abi: 8,
        source,
        inputs: Vec::new(),
        steps,
        names: vec![spec.name.to_string(), spec.source.to_string()],
    }
}

fn ptxas_args(arch: &str, spec: &ObjectSpec, input: &str, output: &str) -> Vec<String> {
    let mut args = vec![format!("-arch={arch}"), "-m64".into(), "--compile-only".into()];
    args.extend(strings(spec.ptxas_flags));
    args.extend([input.to_string(), "-o".into(), output.to_string()]);
    args
}

/// ABI 7: CUDA 12.9's ptxas on PTX from CUDA 13.5's nvcc with `.version` lowered
/// (and `.target` lowered for archs nvcc 13.5 no longer knows), or on the
/// handwritten PTX as is.
fn abi7_object(spec: &ObjectSpec, arch: &str) -> Job {
    let path = format!("obj-abi7/{arch}/{}.cubin", spec.name);
    let source = format!("src/{}", spec.source);
    let steps = if spec.recipe == Recipe::Ptxas {
        vec![Step::run(Tool::Ptxas12, ptxas_args(arch, spec, &source, &path))]
    } else {
        let ptx = format!("ptx-abi7/{arch}/{}.ptx", spec.name);
        let nvcc_arch = if sm_number(arch) < sm_number(OLDEST_NVCC_ARCH) { OLDEST_NVCC_ARCH } else { arch };
        let mut nvcc = vec![format!("-arch={nvcc_arch}"), "-rdc=true".into(), "-ptx".into()];
        nvcc.extend(strings(spec.nvcc_flags));
        nvcc.extend([source.clone(), "-o".into(), ptx.clone()]);
        let target = (nvcc_arch != arch).then(|| (nvcc_arch.to_string(), arch.to_string()));
        vec![
            Step::run(Tool::Nvcc, nvcc),
            Step::RewritePtx { file: ptx.clone(), target },
            Step::run(Tool::Ptxas12, ptxas_args(arch, spec, &ptx, &path)),
        ]
    };
    Job {
        path,
        kind: Kind::Object,
        arch: arch.to_string(),
        abi: 7,
        source,
        inputs: Vec::new(),
        steps,
        names: vec![spec.name.to_string(), spec.source.to_string()],
    }
}

fn link_job(spec: &GroupSpec, arch: &str, kind: Kind, inputs: &[String]) -> Job {
    let dir = if kind == Kind::Linked { "link" } else { "link-r" };
    let path = format!("{dir}/{arch}/{}.cubin", spec.name);
    let mut args = vec![format!("-arch={arch}")];
    if kind == Kind::RelocatableLink {
        args.push("-r".into());
    }
    args.extend(strings(spec.flags));
    args.extend(inputs.iter().cloned());
    args.extend(["-o".into(), path.clone()]);
    let mut names = vec![spec.name.to_string()];
    names.extend(spec.inputs.iter().map(|input| match input {
        Input::Abi8(name) | Input::Abi7(name) | Input::LinkR(name) => name.to_string(),
    }));
    Job {
        path,
        kind,
        arch: arch.to_string(),
        abi: 8,
        source: spec.name.to_string(),
        inputs: inputs.to_vec(),
        steps: vec![Step::run(Tool::Nvlink, args)],
        names,
    }
}

/// What running the tools needs.
#[derive(Debug)]
struct Builder {
    toolchain: Toolchain,
    fixtures: PathBuf,
    /// Where nvcc runs from (`STABLE_DIR`, or `fixtures`).
    nvcc_dir: PathBuf,
}

impl Builder {
    fn program(&self, tool: Tool) -> PathBuf {
        match tool {
            Tool::Nvcc => self.toolchain.tool("nvcc"),
            Tool::Ptxas13 => self.toolchain.tool("ptxas"),
            Tool::Ptxas12 => self.toolchain.ptxas12.clone(),
            Tool::Nvlink => self.toolchain.tool("nvlink"),
        }
    }

    fn execute(&self, job: &Job) -> Result<()> {
        for step in &job.steps {
            match step {
                Step::Run { tool, args } => {
                    for arg in args.iter().skip_while(|arg| *arg != "-o").skip(1).take(1) {
                        if let Some(parent) = self.fixtures.join(arg).parent() {
                            fs::create_dir_all(parent)?;
                        }
                    }
                    let dir = match tool {
                        Tool::Nvcc => &self.nvcc_dir,
                        _ => &self.fixtures,
                    };
                    let output = Command::new(self.program(*tool))
                        .args(args)
                        .current_dir(dir)
                        .env("PWD", dir)
                        .env("PATH", self.toolchain.path_env())
                        .output()
                        .with_context(|| format!("running {}", tool.display()))?;
                    if !output.status.success() {
                        bail!(
                            "`{}` failed ({}):\n{}{}",
                            step.display(),
                            output.status,
                            String::from_utf8_lossy(&output.stdout),
                            String::from_utf8_lossy(&output.stderr)
                        );
                    }
                }
                Step::RewritePtx { file, target } => rewrite_ptx(&self.fixtures.join(file), target.as_ref())?,
            }
        }
        self.dump(&job.path)?;
        if job.kind != Kind::Object {
            let cmd = self.fixtures.join(sibling(&job.path, "nvlink.cmd"));
            fs::write(&cmd, job.command() + "\n")?;
        }
        Ok(())
    }

    /// `<stem>.cuobjdump.txt` (or `.cuobjdump.err` when cuobjdump fails).
    fn dump(&self, path: &str) -> Result<()> {
        let output = Command::new(self.toolchain.tool("cuobjdump"))
            .args(["-elf", path])
            .current_dir(&self.fixtures)
            .output()
            .context("running cuobjdump")?;
        let txt = self.fixtures.join(sibling(path, "cuobjdump.txt"));
        let err = self.fixtures.join(sibling(path, "cuobjdump.err"));
        fs::write(&txt, &output.stdout)?;
        if output.status.success() {
            if err.exists() {
                fs::remove_file(&err)?;
            }
        } else {
            fs::write(&err, &output.stderr)?;
        }
        Ok(())
    }
}

/// `dir/name.cubin` → `dir/name.<extension>`.
fn sibling(path: &str, extension: &str) -> String {
    let stem = path.strip_suffix(".cubin").unwrap_or(path);
    format!("{stem}.{extension}")
}

fn rewrite_ptx(file: &Path, target: Option<&(String, String)>) -> Result<()> {
    let text = fs::read_to_string(file).with_context(|| format!("reading {}", file.display()))?;
    let mut out = String::with_capacity(text.len());
    for line in text.split_inclusive('\n') {
        if line.starts_with(".version ") {
            out.push_str(&format!(".version {PTX_VERSION_FOR_PTXAS12}"));
            if line.ends_with('\n') {
                out.push('\n');
            }
            continue;
        }
        if let Some((from, to)) = target
            && let Some(rest) = line.strip_prefix(&format!(".target {from}"))
        {
            out.push_str(&format!(".target {to}{rest}"));
            continue;
        }
        out.push_str(line);
    }
    fs::write(file, out).with_context(|| format!("writing {}", file.display()))
}

/// Marks a staging directory as ours, so it may be deleted.
const STAGE_MARKER: &str = ".develf-fixtures-stage";

/// Sets up `STABLE_DIR` (see there); falls back to `fixtures` itself.
fn stage_nvcc_dir(fixtures: &Path) -> PathBuf {
    match try_stage(fixtures) {
        Ok(dir) => dir,
        Err(error) => {
            eprintln!(
                "warning: cannot set up {STABLE_DIR} ({error:#}); objects will record {} instead",
                fixtures.display()
            );
            fixtures.to_path_buf()
        }
    }
}

fn try_stage(fixtures: &Path) -> Result<PathBuf> {
    let stage = Path::new(STABLE_DIR);
    match fs::symlink_metadata(stage) {
        Ok(meta) if meta.file_type().is_symlink() || meta.is_file() => fs::remove_file(stage)?,
        Ok(_) if stage.join(STAGE_MARKER).exists() => fs::remove_dir_all(stage)?,
        Ok(_) => bail!("{STABLE_DIR} exists and is not ours (no {STAGE_MARKER})"),
        Err(_) => {}
    }
    fs::create_dir_all(stage)?;
    fs::write(stage.join(STAGE_MARKER), fixtures.display().to_string() + "\n")?;
    copy_tree(&fixtures.join("src"), &stage.join("src"))?;
    for dir in ["obj", "ptx", "ptx-abi7"] {
        fs::create_dir_all(fixtures.join(dir))?;
        std::os::unix::fs::symlink(fixtures.join(dir), stage.join(dir))?;
    }
    Ok(stage.to_path_buf())
}

fn copy_tree(from: &Path, to: &Path) -> Result<()> {
    fs::create_dir_all(to)?;
    for entry in fs::read_dir(from).with_context(|| format!("reading {}", from.display()))? {
        let entry = entry?;
        let target = to.join(entry.file_name());
        if entry.file_type()?.is_dir() {
            copy_tree(&entry.path(), &target)?;
        } else {
            fs::copy(entry.path(), &target)?;
        }
    }
    Ok(())
}

pub fn run(args: &[String]) -> Result<()> {
    let options = parse_options(args)?;
    let toolchain = toolchain::ensure()?;
    let fixtures = toolchain::workspace_root().join("tests").join("fixtures");
    let fixtures = fixtures.canonicalize().with_context(|| format!("{} is missing", fixtures.display()))?;

    let all = plan();
    let selected: Vec<&Job> = match &options.only {
        None => {
            for dir in OUTPUT_DIRS {
                let dir = fixtures.join(dir);
                if dir.exists() {
                    fs::remove_dir_all(&dir).with_context(|| format!("removing {}", dir.display()))?;
                }
            }
            all.iter().collect()
        }
        Some(name) => {
            // Several names, comma-separated, build in one run: groups
            // sharing an object whose bytes change with every compile (a
            // `-G` object's tkinfo names ptxas's temporary file) must link
            // the same copy of it.
            let names: Vec<&str> = name.split(',').collect();
            let direct: Vec<&Job> =
                all.iter().filter(|job| job.names.iter().any(|n| names.contains(&n.as_str()))).collect();
            if direct.is_empty() {
                bail!("--only {name}: no object, source or group has that name");
            }
            // Links need their inputs rebuilt too (they may be stale or absent).
            let needed: std::collections::BTreeSet<&str> =
                direct.iter().flat_map(|job| job.inputs.iter().map(String::as_str)).collect();
            all.iter()
                .filter(|job| direct.iter().any(|d| d.path == job.path) || needed.contains(job.path.as_str()))
                .collect()
        }
    };

    let nvcc_dir = stage_nvcc_dir(&fixtures);
    let context = Builder { toolchain, fixtures, nvcc_dir };
    let (objects, links): (Vec<&Job>, Vec<&Job>) = selected.into_iter().partition(|job| job.kind == Kind::Object);
    eprintln!("fixtures: {} objects, {} links, {} jobs in parallel", objects.len(), links.len(), options.jobs);
    let mut failures = run_parallel(&context, &objects, options.jobs);
    // Relinks (rule 12.8) read other links' `-r` outputs: they run last.
    let (relinks, links): (Vec<&Job>, Vec<&Job>) =
        links.into_iter().partition(|job| job.inputs.iter().any(|input| input.starts_with("link-r/")));
    failures.extend(run_parallel(&context, &links, options.jobs));
    failures.extend(run_parallel(&context, &relinks, options.jobs));

    write_manifest(&context.fixtures, &all)?;
    write_tools(&context)?;
    print_summary(&context.fixtures, &all);

    let dump_errors: Vec<&Job> =
        all.iter().filter(|job| context.fixtures.join(sibling(&job.path, "cuobjdump.err")).exists()).collect();
    for job in &dump_errors {
        eprintln!("warning: cuobjdump -elf failed on {} (see {})", job.path, sibling(&job.path, "cuobjdump.err"));
    }
    if !failures.is_empty() {
        for (path, error) in &failures {
            eprintln!("FAILED {path}: {error:#}");
        }
        bail!("{} fixture(s) failed", failures.len());
    }
    Ok(())
}

/// Runs jobs on `jobs` threads; returns the failures in job order.
fn run_parallel(context: &Builder, jobs: &[&Job], threads: usize) -> Vec<(String, anyhow::Error)> {
    let next = AtomicUsize::new(0);
    let results: Mutex<Vec<(usize, anyhow::Error)>> = Mutex::new(Vec::new());
    std::thread::scope(|scope| {
        for _ in 0..threads.min(jobs.len()).max(1) {
            scope.spawn(|| {
                loop {
                    let index = next.fetch_add(1, Ordering::Relaxed);
                    let Some(job) = jobs.get(index) else { break };
                    eprintln!("  [{}/{}] {}", index + 1, jobs.len(), job.path);
                    if let Err(error) = context.execute(job) {
                        results.lock().unwrap_or_else(|poison| poison.into_inner()).push((index, error));
                    }
                }
            });
        }
    });
    let mut failures = results.into_inner().unwrap_or_else(|poison| poison.into_inner());
    failures.sort_by_key(|(index, _)| *index);
    failures.into_iter().map(|(index, error)| (jobs[index].path.clone(), error)).collect()
}

/// The manifest lists every planned file that exists, sorted by path.
fn write_manifest(fixtures: &Path, all: &[Job]) -> Result<()> {
    let mut jobs: Vec<&Job> = all.iter().filter(|job| fixtures.join(&job.path).is_file()).collect();
    jobs.sort_by(|a, b| a.path.cmp(&b.path));
    let entries: Vec<ManifestEntry<'_>> = jobs
        .iter()
        .map(|job| ManifestEntry {
            path: &job.path,
            kind: job.kind,
            arch: &job.arch,
            abi: job.abi,
            source: &job.source,
            inputs: (job.kind != Kind::Object).then_some(job.inputs.as_slice()),
            command: job.command(),
        })
        .collect();
    let json = serde_json::to_string_pretty(&entries)? + "\n";
    fs::write(fixtures.join("manifest.json"), json).context("writing manifest.json")
}

fn write_tools(context: &Builder) -> Result<()> {
    let mut text = String::from(
        "# Tools used by `cargo xtask fixtures` (see README.md).\n\
         # ptxas-12.9 in recorded commands is the CUDA 12.9 ptxas.\n\n",
    );
    let tools: [(&str, PathBuf); 6] = [
        ("nvcc", context.program(Tool::Nvcc)),
        ("ptxas", context.program(Tool::Ptxas13)),
        ("nvlink", context.program(Tool::Nvlink)),
        ("cuobjdump", context.toolchain.tool("cuobjdump")),
        ("nvdisasm", context.toolchain.tool("nvdisasm")),
        ("ptxas-12.9", context.program(Tool::Ptxas12)),
    ];
    for (name, program) in tools {
        let output = Command::new(&program)
            .arg("--version")
            .output()
            .with_context(|| format!("running {} --version", program.display()))?;
        let version = String::from_utf8_lossy(&output.stdout);
        let last = version.lines().filter(|line| line.starts_with("Cuda") || line.starts_with("Build"));
        text.push_str(&format!("{name}: {}\n", last.collect::<Vec<_>>().join(" / ")));
    }
    if let Ok(output) = Command::new("gcc").arg("--version").output() {
        let version = String::from_utf8_lossy(&output.stdout);
        text.push_str(&format!("host compiler (nvcc preprocessing): {}\n", version.lines().next().unwrap_or("")));
    }
    text.push_str("\nPyPI wheels:\n");
    for package in &context.toolchain.packages {
        text.push_str(&format!("  {package}\n"));
    }
    fs::write(context.fixtures.join("TOOLS.txt"), text).context("writing TOOLS.txt")
}

fn print_summary(fixtures: &Path, all: &[Job]) {
    let mut counts: BTreeMap<(u32, String), BTreeMap<(Kind, u8), usize>> = BTreeMap::new();
    for job in all.iter().filter(|job| fixtures.join(&job.path).is_file()) {
        *counts.entry((sm_number(&job.arch), job.arch.clone())).or_default().entry((job.kind, job.abi)).or_default() +=
            1;
    }
    let columns = [
        ("object abi8", Kind::Object, 8),
        ("object abi7", Kind::Object, 7),
        ("linked", Kind::Linked, 8),
        ("relocatable-link", Kind::RelocatableLink, 8),
    ];
    print!("\n{:<9}", "arch");
    for (title, _, _) in columns {
        print!("{title:>18}");
    }
    println!("{:>8}", "total");
    let mut totals = [0usize; 4];
    for ((_, arch), by_kind) in &counts {
        print!("{arch:<9}");
        let mut row = 0;
        for (column, (_, kind, abi)) in columns.iter().enumerate() {
            let count = by_kind.get(&(*kind, *abi)).copied().unwrap_or(0);
            totals[column] += count;
            row += count;
            print!("{count:>18}");
        }
        println!("{row:>8}");
    }
    print!("{:<9}", "total");
    for total in totals {
        print!("{total:>18}");
    }
    println!("{:>8}", totals.iter().sum::<usize>());
}
