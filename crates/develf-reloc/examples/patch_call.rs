//! Resolve the relocations of one section of a cubin against made-up
//! addresses, the way a linker would, and print what changes.
//!
//! ```sh
//! cargo run -p develf-reloc --example patch_call
//! ```

use develf_format::reloc::{self, R_CUDA_ABS32_HI_32, R_CUDA_ABS32_LO_32, R_CUDA_ABS55_16_34, R_CUDA_CONST_FIELD21_38};
use develf_reloc::keep::{self, OutputKind, SymbolHome, SymbolState};
use develf_reloc::{apply_in_section, descriptor};

fn main() {
    // Four sm_90 instructions (16 bytes each): MOV R4, lo(ret); MOV R5, hi(ret);
    // CALL.ABS.NOINC target; LDC R3, c[0x3][0x0].
    let mut text = [0u8; 64];
    let relocs = [
        (0x00, R_CUDA_ABS32_LO_32, 0x7f00_1234_5000u64, 0xd0i64, SymbolHome::Code),
        (0x10, R_CUDA_ABS32_HI_32, 0x7f00_1234_5000, 0xd0, SymbolHome::Code),
        (0x20, R_CUDA_ABS55_16_34, 0x7f00_1234_8000, 0, SymbolHome::Code),
        // Constant-bank symbols are `bank << 16 | offset`.
        (0x30, R_CUDA_CONST_FIELD21_38, (3 << 16) | 0x40, 4, SymbolHome::ConstantBank),
    ];
    for (offset, r_type, value, addend, home) in relocs {
        let desc = descriptor(r_type).expect("known type");
        let query = keep::Query {
            r_type,
            output: OutputKind::Executable,
            symbol: home,
            state: SymbolState::Live,
            mercury: false,
        };
        let fate = keep::disposition(&query);
        apply_in_section(r_type, &mut text, 1, offset, value, Some(addend), offset).expect("fits");
        let word = u128::from_le_bytes(text[offset as usize..offset as usize + 16].try_into().expect("16 bytes"));
        println!(
            "{:#06x} {:<24} pieces {:?} shift {} -> {word:032x}   nvlink would: {fate:?}",
            offset,
            desc.name,
            desc.pieces.iter().map(|p| (p.offset, p.width)).collect::<Vec<_>>(),
            desc.shift,
        );
    }
    // Errors name the type, the place, the value and the allowed range.
    let err = apply_in_section(reloc::R_CUDA_ABS16_32, &mut text, 1, 0x30, 0x1_0000, Some(0), 0)
        .expect_err("0x10000 does not fit 16 bits");
    println!("{err}");
}
