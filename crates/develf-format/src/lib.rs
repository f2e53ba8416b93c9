//! Format definitions for GPU device ELF: NVIDIA cubins (and, in [`zebin`] once
//! added, Intel ZE binaries).
//!
//! Constants come in families, each a `pub const` per value plus a `(value, name)`
//! table built by [`code_table!`], so dumpers name everything from data:
//!
//! ```
//! use develf_format::{reloc, section};
//! assert_eq!(reloc::type_name(reloc::R_CUDA_ABS32_LO_32), Some("R_CUDA_ABS32_LO_32"));
//! assert_eq!(section::cuobjdump_type_name(section::SHT_CUDA_INFO), Some("CUDA_INFO"));
//! ```
//!
//! Every name was checked against what NVIDIA's tools print (cuobjdump 13.5,
//! nvlink 13.5's own name tables). Nothing here allocates or does I/O.

pub mod header;
pub mod note;
pub mod nvinfo;
pub mod reloc;
pub mod reloc_desc;
pub mod section;
pub mod symbol;
pub mod table;
pub mod zebin;
