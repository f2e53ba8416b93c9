//! Property tests: for every type whose field can be read back, applying a
//! value and extracting it gives the value back (in field units), the bits
//! outside the pieces are untouched, and nothing panics on any input.

#![allow(clippy::unwrap_used)] // a failing unwrap is a failing test

use develf_format::reloc::{CUDA_RELOCATIONS, MERCURY_RELOCATIONS};
use develf_reloc::{Action, RelocError, ValuePart, apply, apply_dead, apply_rel, descriptor, extract, read_addend};
use proptest::prelude::*;

fn all_types() -> Vec<u32> {
    CUDA_RELOCATIONS.iter().chain(MERCURY_RELOCATIONS.iter()).map(|(t, _)| *t).collect()
}

fn piece_mask(r_type: u32) -> u128 {
    let desc = descriptor(r_type).expect("known type");
    desc.pieces.iter().fold(0u128, |m, p| {
        let w = if p.width >= 128 { u128::MAX } else { (1u128 << p.width) - 1 };
        m | (w << p.offset)
    })
}

proptest! {
    #![proptest_config(ProptestConfig::with_cases(2000))]

    /// The linker plans relocations without their bytes and writes them
    /// later (`plan`, `plan_dead`, `FieldWrite::write`): the same bytes and
    /// the same errors as `apply`/`apply_dead` on the site, for every site length.
    #[test]
    fn planning_then_writing_equals_applying(
        type_index in 0usize..182,
        word in any::<[u8; 16]>(),
        len in 0usize..=16,
        s in any::<u64>(),
        a in any::<i64>(),
        p in any::<u64>(),
    ) {
        let types = all_types();
        let r_type = types[type_index % types.len()];
        let mut applied = word;
        let applied_result = apply(r_type, &mut applied[..len], s, a, p);
        let mut planned = word;
        let planned_result = develf_reloc::plan(r_type, len, s, a, p)
            .and_then(|w| w.map_or(Ok(()), |w| w.write(&mut planned[..len])));
        prop_assert_eq!(applied_result.map_err(|e| e.to_string()), planned_result.map_err(|e| e.to_string()));
        prop_assert_eq!(applied, planned);

        let mut dead = word;
        let dead_result = apply_dead(r_type, &mut dead[..len]);
        let mut dead_planned = word;
        let dead_planned_result = develf_reloc::plan_dead(r_type, len)
            .and_then(|w| w.map_or(Ok(()), |w| w.write(&mut dead_planned[..len])));
        prop_assert_eq!(dead_result.map_err(|e| e.to_string()), dead_planned_result.map_err(|e| e.to_string()));
        prop_assert_eq!(dead, dead_planned);
    }

    #[test]
    fn apply_then_extract_gives_the_field_back(
        type_index in 0usize..182,
        word in any::<[u8; 16]>(),
        s in any::<u64>(),
        a in any::<i64>(),
        p in any::<u64>(),
    ) {
        let types = all_types();
        let r_type = types[type_index % types.len()];
        let Some(desc) = descriptor(r_type) else { return Ok(()) };
        let mut site = word;
        match apply(r_type, &mut site, s, a, p) {
            Ok(()) => {
                let mask = piece_mask(r_type);
                let before = u128::from_le_bytes(word);
                let after = u128::from_le_bytes(site);
                // Outside the pieces nothing changes.
                prop_assert_eq!((before ^ after) & !mask, 0);
                if desc.is_readable() {
                    let expected = develf_reloc::field_value(desc, s, a, p).unwrap();
                    let bits = desc.field_bits().min(64);
                    let m = if bits >= 64 { u64::MAX } else { (1u64 << bits) - 1 };
                    prop_assert_eq!(extract(r_type, &site).unwrap(), expected & m);
                }
            }
            Err(RelocError::OutOfRange { value, min, max, .. }) => {
                prop_assert!(value < min || value > max);
                prop_assert_eq!(site, word, "a failed apply leaves the site alone");
            }
            Err(e) => prop_assert!(false, "unexpected {e}"),
        }
    }

    #[test]
    fn rel_addend_round_trips_for_in_range_values(
        type_index in 0usize..182,
        word in any::<[u8; 16]>(),
        addend in -0x8000i64..0x8000,
    ) {
        let types = all_types();
        let r_type = types[type_index % types.len()];
        let Some(desc) = descriptor(r_type) else { return Ok(()) };
        if !desc.is_readable() || desc.pc_relative {
            return Ok(());
        }
        // Word-addressed fields only hold multiples of 1 << shift.
        let addend = addend & !((1i64 << desc.shift) - 1);
        let addend = match desc.value_part {
            ValuePart::Whole => addend,
            ValuePart::BankAddress(_) => addend & 0xffff,
            // A part type stores only its part of the addend.
            _ => return Ok(()),
        };
        let mut site = word;
        if apply(r_type, &mut site, 0, addend, 0).is_err() {
            return Ok(());
        }
        prop_assert_eq!(read_addend(r_type, &site).unwrap(), addend);
        // apply_rel with S = 0x100 gives what apply with the explicit addend gives.
        let mut rel = site;
        let mut rela = site;
        let r1 = apply_rel(r_type, &mut rel, 0x100, 0);
        let r2 = apply(r_type, &mut rela, 0x100, addend, 0);
        prop_assert_eq!(r1.is_ok(), r2.is_ok());
        prop_assert_eq!(rel, rela);
    }

    #[test]
    fn hostile_input_never_panics(
        r_type in any::<u32>(),
        len in 0usize..20,
        s in any::<u64>(),
        a in any::<i64>(),
        p in any::<u64>(),
    ) {
        let mut site = vec![0xa5u8; len];
        let _ = apply(r_type, &mut site, s, a, p);
        let _ = apply_rel(r_type, &mut site, s, p);
        let _ = apply_dead(r_type, &mut site);
        let _ = extract(r_type, &site);
        let _ = read_addend(r_type, &site);
        let _ = develf_reloc::apply_in_section(r_type, &mut site, 3, s, s, Some(a), p);
    }
}

#[test]
fn every_named_type_has_a_descriptor_and_rewrites_are_not_readable() {
    for t in all_types() {
        let name = develf_format::reloc::type_name(t).unwrap();
        let desc = descriptor(t);
        if name.ends_with("_NONE_LAST") {
            assert!(desc.is_none(), "{name}");
            continue;
        }
        let desc = desc.unwrap_or_else(|| panic!("{name} has no descriptor"));
        if matches!(desc.action, Action::WriteConstant(_) | Action::ClearIfDead) {
            assert!(extract(t, &[0; 16]).is_err(), "{name}");
        }
    }
}
