//! Note types in `.note.nv.*` sections. The owner of both is `"NVIDIA Corp"`.

use crate::code_table;

/// The note owner string (without its NUL).
pub const NVIDIA_NOTE_OWNER: &str = "NVIDIA Corp";

code_table! {
    /// Note types.
    pub NOTE_TYPES: u32 {
        /// `.note.nv.cuinfo`: note version, virtual SM, toolkit version.
        NT_CUDA_CUINFO = 1000,
        /// `.note.nv.tkinfo`: tool name, version, branch, command line.
        NT_CUDA_TKINFO = 2000,
    }
}

/// What cuobjdump prints as the description of a note type.
pub fn description(n_type: u32) -> Option<&'static str> {
    match n_type {
        NT_CUDA_CUINFO => Some("NVIDIA CUDA Information"),
        NT_CUDA_TKINFO => Some("NVIDIA CUDA Toolkit Information"),
        _ => None,
    }
}
