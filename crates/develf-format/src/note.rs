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

/// `.note.nv.cuinfo`'s 8-byte descriptor: `{ u16 note version, u16 virtual SM,
/// u32 toolkit version }` (ptxas 13.5 writes 2, 90, 135 for sm_90 with CUDA 13.5).
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub struct CuInfo {
    pub note_version: u16,
    /// The virtual architecture (90 = `compute_90`; cuobjdump prints `sm_90`).
    pub virtual_sm: u16,
    /// Toolkit version as major * 10 + minor (135 = 13.5).
    pub toolkit_version: u32,
}

impl CuInfo {
    /// Size of the descriptor.
    pub const SIZE: usize = 8;

    /// Reads a descriptor; `None` unless it is exactly [`CuInfo::SIZE`] bytes.
    pub fn decode(desc: &[u8]) -> Option<CuInfo> {
        let b: &[u8; 8] = desc.try_into().ok()?;
        Some(CuInfo {
            note_version: u16::from_le_bytes([b[0], b[1]]),
            virtual_sm: u16::from_le_bytes([b[2], b[3]]),
            toolkit_version: u32::from_le_bytes([b[4], b[5], b[6], b[7]]),
        })
    }

    pub fn encode(&self, out: &mut Vec<u8>) {
        out.extend_from_slice(&self.note_version.to_le_bytes());
        out.extend_from_slice(&self.virtual_sm.to_le_bytes());
        out.extend_from_slice(&self.toolkit_version.to_le_bytes());
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    // The descriptor of .note.nv.cuinfo in a ptxas 13.5 sm_90 object.
    #[test]
    fn cuinfo_round_trip() {
        let desc = [0x02, 0x00, 0x5a, 0x00, 0x87, 0x00, 0x00, 0x00];
        let info = CuInfo::decode(&desc).expect("8 bytes");
        assert_eq!((info.note_version, info.virtual_sm, info.toolkit_version), (2, 90, 135));
        let mut out = Vec::new();
        info.encode(&mut out);
        assert_eq!(out, desc);
        assert_eq!(CuInfo::decode(&desc[..7]), None);
    }
}
