//! Applies arbitrary relocations to arbitrary sites: the engine must never
//! panic, must not touch bits outside the type's pieces, and must give back
//! what it wrote for the types that can be read back.

#![no_main]

use develf_reloc::{RelocError, apply, apply_dead, apply_in_section, apply_rel, descriptor, extract, read_addend};
use libfuzzer_sys::fuzz_target;

fuzz_target!(|data: &[u8]| {
    if data.len() < 28 {
        return;
    }
    let word = |at: usize| u64::from_le_bytes(data[at..at + 8].try_into().unwrap_or_default());
    // Types near both families' ranges, plus anything else.
    let raw = u32::from_le_bytes(data[0..4].try_into().unwrap_or_default());
    let r_type = match raw % 4 {
        0 => raw % 0x80,
        1 => develf_format::reloc::MERCURY_BASE + (raw >> 2) % 0x48,
        _ => raw,
    };
    let (s, a, p) = (word(4), word(12) as i64, word(20));
    let mut site = data[28..].to_vec();
    let before = site.clone();
    match apply(r_type, &mut site, s, a, p) {
        Ok(()) => {
            if let Some(desc) = descriptor(r_type) {
                // Bits outside the pieces are untouched.
                let mut mask = [0u8; 16];
                for piece in desc.pieces {
                    for bit in piece.offset as usize..piece.offset as usize + piece.width as usize {
                        mask[bit / 8] |= 1 << (bit % 8);
                    }
                }
                for (i, (x, y)) in before.iter().zip(&site).enumerate() {
                    let m = mask.get(i).copied().unwrap_or(0);
                    assert_eq!(x & !m, y & !m, "bits outside the field changed");
                }
                if desc.is_readable() {
                    let v = develf_reloc::field_value(desc, s, a, p).expect("applied, so in range");
                    let bits = desc.field_bits().min(64);
                    let m = if bits >= 64 { u64::MAX } else { (1u64 << bits) - 1 };
                    assert_eq!(extract(r_type, &site).expect("readable"), v & m);
                }
            }
        }
        Err(RelocError::OutOfRange { .. }) => assert_eq!(site, before, "a failed apply left bytes changed"),
        Err(_) => {}
    }
    let _ = read_addend(r_type, &site);
    let _ = apply_rel(r_type, &mut site, s, p);
    let _ = apply_dead(r_type, &mut site);
    let _ = apply_in_section(r_type, &mut site, 1, p, s, Some(a), p);
    let _ = apply_in_section(r_type, &mut site, 1, p % 32, s, None, p);
});
