//! Property tests: decode ∘ encode is the identity on generated typed records, and
//! encode ∘ decode is the identity on arbitrary bytes for every section kind.

use develf_eiattr::callgraph::Pair;
use develf_eiattr::display::{NoSymbols, SymbolInfo, SymbolTableView};
use develf_eiattr::shape::*;
use develf_eiattr::{
    Attribute, CallGraph, Compat, CompatAttribute, Located, Metadata, NvInfo, SectionKind, TkInfo, validate_section,
};
use proptest::prelude::*;

fn kparam() -> impl Strategy<Value = KparamInfo> {
    (any::<u32>(), any::<u16>(), any::<u16>(), any::<u8>(), 0u8..16, 0u8..32, any::<bool>(), 0u16..0x4000).prop_map(
        |(index, ordinal, offset, log_alignment, space, cbank, is_cbank, size)| KparamInfo {
            index,
            ordinal,
            offset,
            log_alignment,
            space,
            cbank,
            is_cbank,
            size,
        },
    )
}

fn kparam_v2() -> impl Strategy<Value = KparamInfoV2> {
    (any::<u32>(), any::<u16>(), any::<u16>(), any::<u16>(), any::<u8>(), 0u8..16, 0u8..16).prop_map(
        |(index, ordinal, offset, size, log_alignment, space, unknown_bits)| KparamInfoV2 {
            index,
            ordinal,
            offset,
            size,
            log_alignment,
            space,
            unknown_bits,
        },
    )
}

fn words(max: usize) -> impl Strategy<Value = Vec<u32>> {
    prop::collection::vec(any::<u32>(), 0..max)
}

fn function_value() -> impl Strategy<Value = FunctionValue> {
    (any::<u32>(), any::<u32>()).prop_map(|(function, value)| FunctionValue { function, value })
}

fn dim3() -> impl Strategy<Value = Dim3> {
    (any::<u32>(), any::<u32>(), any::<u32>()).prop_map(|(x, y, z)| Dim3 { x, y, z })
}

fn branches() -> impl Strategy<Value = IndirectBranches> {
    prop::collection::vec(
        (any::<u32>(), 0u32..3, words(6)).prop_map(|(offset, kind, targets)| IndirectBranch { offset, kind, targets }),
        0..5,
    )
    .prop_map(IndirectBranches)
}

fn attribute() -> impl Strategy<Value = Attribute> {
    prop_oneof![
        Just(Attribute::CtaidzUsed(Flag)),
        Just(Attribute::WmmaUsed(Flag)),
        function_value().prop_map(Attribute::Regcount),
        function_value().prop_map(Attribute::FrameSize),
        function_value().prop_map(Attribute::MaxStackSize),
        function_value().prop_map(Attribute::MinStackSize),
        kparam().prop_map(Attribute::KparamInfo),
        kparam_v2().prop_map(Attribute::KparamInfoV2),
        words(20).prop_map(|w| Attribute::ExitInstrOffsets(Words(w))),
        words(20).prop_map(|w| Attribute::Externs(Symbols(w))),
        dim3().prop_map(Attribute::MaxThreads),
        dim3().prop_map(Attribute::CtaPerCluster),
        any::<u32>().prop_map(|v| Attribute::CudaApiVersion(Word(v))),
        any::<u32>().prop_map(|v| Attribute::Language(Language(v))),
        any::<u16>().prop_map(|v| Attribute::MaxregCount(HalfValue(v))),
        any::<u16>().prop_map(|v| Attribute::NumBarriers(ByteValue(v))),
        (any::<u32>(), any::<u16>(), any::<u16>())
            .prop_map(|(section, offset, size)| Attribute::ParamCbank(ParamCbank { section, offset, size })),
        branches().prop_map(Attribute::IndirectBranchTargets),
        prop::collection::vec(any::<u8>(), 0..40).prop_map(|b| Attribute::Annotations(Bytes(b))),
    ]
}

fn compat_attribute() -> impl Strategy<Value = CompatAttribute> {
    prop_oneof![
        any::<u16>().prop_map(|v| CompatAttribute::IsaClass(ByteValue(v))),
        any::<u16>().prop_map(|v| CompatAttribute::FinalizerVersion(FinalizerVersion(v))),
        words(4).prop_map(|w| CompatAttribute::CanFastpathFinalize(Words(w))),
    ]
}

/// Plausible record bytes: a valid header with any code, and a payload of any length.
fn record_bytes() -> impl Strategy<Value = Vec<u8>> {
    (1u8..=4, any::<u8>(), any::<u16>(), prop::collection::vec(any::<u8>(), 0..48)).prop_map(
        |(format, code, value, payload)| {
            let mut out = vec![format, code];
            if format == 4 {
                out.extend_from_slice(&u16::try_from(payload.len()).unwrap_or(0).to_le_bytes());
                out.extend_from_slice(&payload);
            } else {
                out.extend_from_slice(&value.to_le_bytes());
            }
            out
        },
    )
}

const KINDS: [SectionKind; 8] = [
    SectionKind::NvInfo,
    SectionKind::Compat,
    SectionKind::Notes,
    SectionKind::CallGraph,
    SectionKind::Prototype,
    SectionKind::RelAction,
    SectionKind::Uft,
    SectionKind::UftEntry,
];

proptest! {
    // Failures are printed with their seed; no persistence file beside the sources.
    #![proptest_config(ProptestConfig { failure_persistence: None, ..ProptestConfig::default() })]

    #[test]
    fn typed_records_survive_encode_then_decode(attrs in prop::collection::vec(attribute(), 0..12)) {
        let info = NvInfo {
            records: attrs.iter().cloned().map(|attribute| Located { offset: 0, attribute }).collect(),
            trailing: Vec::new(),
            error: None,
        };
        let bytes = info.encode().expect("typed records encode");
        let back = NvInfo::decode(&bytes);
        let got: Vec<Attribute> = back.records.into_iter().map(|r| r.attribute).collect();
        prop_assert_eq!(got, attrs);
    }

    #[test]
    fn typed_compat_records_survive_encode_then_decode(attrs in prop::collection::vec(compat_attribute(), 0..8)) {
        let compat = Compat {
            records: attrs.iter().cloned().map(|attribute| Located { offset: 0, attribute }).collect(),
            trailing: Vec::new(),
            error: None,
        };
        let back = Compat::decode(&compat.encode().expect("encodes"));
        let got: Vec<CompatAttribute> = back.records.into_iter().map(|r| r.attribute).collect();
        prop_assert_eq!(got, attrs);
    }

    #[test]
    fn record_bytes_survive_decode_then_encode(records in prop::collection::vec(record_bytes(), 0..12)) {
        let bytes = records.concat();
        prop_assert_eq!(NvInfo::decode(&bytes).encode().expect("encodes"), bytes.clone());
        prop_assert_eq!(Compat::decode(&bytes).encode().expect("encodes"), bytes);
    }

    #[test]
    fn any_bytes_survive_every_codec(bytes in prop::collection::vec(any::<u8>(), 0..200)) {
        let symbols = SymbolTableView::new(vec![SymbolInfo::default(), SymbolInfo::function("f")]);
        for kind in KINDS {
            let decoded = Metadata::decode(kind, &bytes);
            prop_assert_eq!(decoded.encode().expect("encodes"), bytes.clone());
            let _ = validate_section(kind, &bytes, &symbols);
            let _ = validate_section(kind, &bytes, &NoSymbols);
        }
    }

    #[test]
    fn call_graphs_survive_encode_then_decode(blocks in prop::collection::vec(prop::collection::vec((1u32..1000, 0u32..1000), 0..6), 4)) {
        let to_pairs = |v: &Vec<(u32, u32)>| v.iter().map(|&(a, b)| Pair(a, b)).collect::<Vec<_>>();
        let graph = CallGraph {
            calls: to_pairs(&blocks[0]),
            address_taken: to_pairs(&blocks[1]),
            indirect_calls: to_pairs(&blocks[2]),
            address_of: to_pairs(&blocks[3]),
        };
        prop_assert_eq!(CallGraph::decode(&graph.encode()), Ok(graph));
    }

    #[test]
    fn remapping_is_all_or_nothing(attr in attribute(), hole in any::<u32>()) {
        let mut a = attr.clone();
        let result = a.remap_symbols(&|s| (s != hole).then_some(s.wrapping_add(1)));
        if attr.symbols().contains(&hole) {
            prop_assert!(result.is_err());
            prop_assert_eq!(a, attr);
        } else {
            prop_assert!(result.is_ok());
            let expected: Vec<u32> = attr.symbols().iter().map(|s| s.wrapping_add(1)).collect();
            prop_assert_eq!(a.symbols(), expected);
        }
    }
}

#[test]
fn tkinfo_built_like_ptxas_matches_its_bytes() {
    // The descriptor of a ptxas 13.5 tkinfo note (fixture obj/sm_100/fptr_main.cubin).
    let t = TkInfo::new(
        "ptxas",
        "Cuda compilation tools, release 13.5, V13.5.37",
        "Build cuda_13.5.r13.5/compiler.39125733_0",
        "-arch sm_100 -m 64 -c  ",
    );
    assert_eq!(
        (t.tool_name_offset, t.tool_version_offset, t.tool_branch_offset, t.command_line_offset),
        (1, 7, 0x36, 0x60)
    );
    let mut desc = Vec::new();
    t.encode(&mut desc);
    assert_eq!(desc.len(), 0x90);
    assert_eq!(TkInfo::decode(&desc).as_ref(), Some(&t));
    assert_eq!(t.tool_version(), Some("Cuda compilation tools, release 13.5, V13.5.37"));
}
