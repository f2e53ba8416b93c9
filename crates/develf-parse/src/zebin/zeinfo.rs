//! `.ze_info`: the YAML metadata section of a zebin, as IGC's spec
//! (`IGC/ZEBinWriter/zebin/spec/zeinfo.md`) and NEO's decoder (`zeinfo.h` tags)
//! document it.
//!
//! Every documented key has a typed field; keys the spec does not document are kept
//! (each struct's `unknown` map, serialized inline) and reported as warnings that
//! name the key and the `.ze_info` version. NEO itself fails on unknown keys unless
//! its `IgnoreZebinUnknownAttributes` debug flag is set; develf warns instead,
//! because a newer IGC adding a key is the common case and the rest still reads.
//!
//! YAML is parsed with `serde_norway` (a maintained fork of the deprecated
//! serde_yaml), after bounding the input: at most [`MAX_ZEINFO_SIZE`] bytes, and
//! serde_norway's own recursion and alias-expansion limits bound the rest.

use serde::{Deserialize, Serialize};
use serde_norway::Value;
use std::collections::BTreeMap;

/// The largest `.ze_info` develf parses (ocloc's are a few KiB to a few hundred).
pub const MAX_ZEINFO_SIZE: usize = 16 << 20;

/// The newest minor version develf's key tables follow (ocloc 26.27 writes 1.73).
pub const KNOWN_MINOR: u32 = 73;

/// `MAJOR.MINOR`, read as NEO's `populateZeInfoVersion` does.
#[derive(Debug, Clone, Copy, PartialEq, Eq, PartialOrd, Ord, Serialize)]
pub struct Version {
    pub major: u32,
    pub minor: u32,
}

impl Version {
    /// NEO requires a `.` with digits on both sides and reads each side with `atoi`;
    /// develf is stricter only in rejecting non-digits.
    pub fn parse(text: &str) -> Option<Version> {
        let (major, minor) = text.trim().split_once('.')?;
        Some(Version { major: major.parse().ok()?, minor: minor.parse().ok()? })
    }
}

impl core::fmt::Display for Version {
    fn fmt(&self, f: &mut core::fmt::Formatter<'_>) -> core::fmt::Result {
        write!(f, "{}.{}", self.major, self.minor)
    }
}

/// Keys not in the spec, kept with their values.
pub type Unknown = BTreeMap<String, Value>;

/// The whole `.ze_info` document.
#[derive(Debug, Clone, Default, PartialEq, Deserialize, Serialize)]
pub struct ZeInfoDoc {
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub version: Option<Value>,
    #[serde(default)]
    pub kernels: Option<Vec<Kernel>>,
    #[serde(default, skip_serializing_if = "Vec::is_empty")]
    pub functions: Vec<Function>,
    #[serde(default, skip_serializing_if = "Vec::is_empty")]
    pub global_host_access_table: Vec<GlobalHostAccess>,
    /// Argument names and types for `clGetKernelArgInfo`; NEO cuts the text here
    /// before decoding and reads it only on demand.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub kernels_misc_info: Option<Value>,
    /// Experimental cost model data (spec 1.4x+); not used by NEO.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub kernels_cost_info: Option<Value>,
    #[serde(flatten)]
    pub unknown: Unknown,
}

#[derive(Debug, Clone, Default, PartialEq, Deserialize, Serialize)]
pub struct Kernel {
    pub name: String,
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub user_attributes: Option<UserAttributes>,
    pub execution_env: ExecutionEnv,
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub debug_env: Option<DebugEnv>,
    #[serde(default, skip_serializing_if = "Vec::is_empty")]
    pub payload_arguments: Vec<PayloadArgument>,
    #[serde(default, skip_serializing_if = "Vec::is_empty")]
    pub per_thread_payload_arguments: Vec<PerThreadPayloadArgument>,
    #[serde(default, skip_serializing_if = "Vec::is_empty")]
    pub binding_table_indices: Vec<BindingTableIndex>,
    #[serde(default, skip_serializing_if = "Vec::is_empty")]
    pub per_thread_memory_buffers: Vec<PerThreadMemoryBuffer>,
    #[serde(default, skip_serializing_if = "Vec::is_empty")]
    pub inline_samplers: Vec<InlineSampler>,
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub experimental_properties: Option<ExperimentalProperties>,
    #[serde(flatten)]
    pub unknown: Unknown,
}

/// A function callable from other modules (spec "Function Attributes").
#[derive(Debug, Clone, Default, PartialEq, Deserialize, Serialize)]
pub struct Function {
    pub name: String,
    pub execution_env: ExecutionEnv,
    #[serde(flatten)]
    pub unknown: Unknown,
}

#[derive(Debug, Clone, Default, PartialEq, Deserialize, Serialize)]
pub struct GlobalHostAccess {
    pub device_name: String,
    pub host_name: String,
    #[serde(flatten)]
    pub unknown: Unknown,
}

/// `execution_env`: `grf_count` and `simd_size` are required, the rest optional with
/// the spec's defaults (absent here means "default").
#[derive(Debug, Clone, Default, PartialEq, Deserialize, Serialize)]
#[serde(default)]
pub struct ExecutionEnv {
    #[serde(skip_serializing_if = "Option::is_none")]
    pub actual_kernel_start_offset: Option<i64>,
    #[serde(skip_serializing_if = "Option::is_none")]
    pub barrier_count: Option<i64>,
    #[serde(skip_serializing_if = "Option::is_none")]
    pub disable_mid_thread_preemption: Option<bool>,
    #[serde(skip_serializing_if = "Option::is_none")]
    pub eu_thread_count: Option<i64>,
    #[serde(skip_serializing_if = "Option::is_none")]
    pub generate_local_id: Option<bool>,
    #[serde(skip_serializing_if = "Option::is_none")]
    pub grf_count: Option<i64>,
    #[serde(skip_serializing_if = "Option::is_none")]
    pub has_4gb_buffers: Option<bool>,
    #[serde(skip_serializing_if = "Option::is_none")]
    pub has_device_enqueue: Option<bool>,
    #[serde(skip_serializing_if = "Option::is_none")]
    pub has_dpas: Option<bool>,
    #[serde(skip_serializing_if = "Option::is_none")]
    pub has_fence_for_image_access: Option<bool>,
    #[serde(skip_serializing_if = "Option::is_none")]
    pub has_global_atomics: Option<bool>,
    #[serde(skip_serializing_if = "Option::is_none")]
    pub has_indirect_calls: Option<bool>,
    #[serde(skip_serializing_if = "Option::is_none")]
    pub has_lsc_stores_with_non_default_l1_cache_controls: Option<bool>,
    #[serde(skip_serializing_if = "Option::is_none")]
    pub has_multi_scratch_spaces: Option<bool>,
    #[serde(skip_serializing_if = "Option::is_none")]
    pub has_no_stateless_write: Option<bool>,
    #[serde(skip_serializing_if = "Option::is_none")]
    pub has_printf_calls: Option<bool>,
    #[serde(skip_serializing_if = "Option::is_none")]
    pub has_rtcalls: Option<bool>,
    #[serde(skip_serializing_if = "Option::is_none")]
    pub has_sample: Option<bool>,
    #[serde(skip_serializing_if = "Option::is_none")]
    pub has_stack_calls: Option<bool>,
    #[serde(skip_serializing_if = "Option::is_none")]
    pub hw_preemption_mode: Option<i64>,
    #[serde(skip_serializing_if = "Option::is_none")]
    pub indirect_stateless_count: Option<i64>,
    #[serde(skip_serializing_if = "Option::is_none")]
    pub inline_data_payload_size: Option<i64>,
    #[serde(skip_serializing_if = "Option::is_none")]
    pub offset_to_skip_per_thread_data_load: Option<i64>,
    #[serde(skip_serializing_if = "Option::is_none")]
    pub offset_to_skip_set_ffid_gp: Option<i64>,
    #[serde(skip_serializing_if = "Option::is_none")]
    pub private_size: Option<i64>,
    #[serde(skip_serializing_if = "Option::is_none")]
    pub require_assert_buffer: Option<bool>,
    #[serde(skip_serializing_if = "Option::is_none")]
    pub require_disable_eufusion: Option<bool>,
    #[serde(skip_serializing_if = "Option::is_none")]
    pub require_iab: Option<bool>,
    #[serde(skip_serializing_if = "Option::is_none")]
    pub require_sync_buffer: Option<bool>,
    #[serde(skip_serializing_if = "Option::is_none")]
    pub required_sub_group_size: Option<i64>,
    #[serde(skip_serializing_if = "Option::is_none")]
    pub required_work_group_size: Option<Vec<i64>>,
    #[serde(skip_serializing_if = "Option::is_none")]
    pub simd_size: Option<i64>,
    #[serde(skip_serializing_if = "Option::is_none")]
    pub slm_size: Option<i64>,
    #[serde(skip_serializing_if = "Option::is_none")]
    pub spill_size: Option<i64>,
    #[serde(skip_serializing_if = "Option::is_none")]
    pub subgroup_independent_forward_progress: Option<bool>,
    /// `age_based`, `round_robin` or `round_robin_stall`.
    #[serde(skip_serializing_if = "Option::is_none")]
    pub thread_scheduling_mode: Option<String>,
    #[serde(skip_serializing_if = "Option::is_none")]
    pub work_group_walk_order_dimensions: Option<Vec<i64>>,
    /// NEO's extension keys (`zeinfo_decoder_ext`).
    #[serde(skip_serializing_if = "Option::is_none")]
    pub local_region_size: Option<i64>,
    #[serde(skip_serializing_if = "Option::is_none")]
    pub dispatch_walk_order: Option<i64>,
    #[serde(skip_serializing_if = "Option::is_none")]
    pub partition_dim: Option<i64>,
    #[serde(flatten)]
    pub unknown: Unknown,
}

#[derive(Debug, Clone, Default, PartialEq, Deserialize, Serialize)]
#[serde(default)]
pub struct UserAttributes {
    #[serde(skip_serializing_if = "Option::is_none")]
    pub intel_reqd_sub_group_size: Option<i64>,
    #[serde(skip_serializing_if = "Option::is_none")]
    pub intel_reqd_workgroup_walk_order: Option<Vec<i64>>,
    #[serde(skip_serializing_if = "Option::is_none")]
    pub intel_reqd_thread_group_dispatch_size: Option<i64>,
    #[serde(skip_serializing_if = "Option::is_none")]
    pub invalid_kernel: Option<String>,
    #[serde(skip_serializing_if = "Option::is_none")]
    pub reqd_work_group_size: Option<Vec<i64>>,
    #[serde(skip_serializing_if = "Option::is_none")]
    pub vec_type_hint: Option<String>,
    #[serde(skip_serializing_if = "Option::is_none")]
    pub work_group_size_hint: Option<Vec<i64>>,
    /// NEO keeps any other `*_hint` attribute as a string ("otherHints"); so does develf.
    #[serde(flatten)]
    pub unknown: Unknown,
}

#[derive(Debug, Clone, Default, PartialEq, Deserialize, Serialize)]
#[serde(default)]
pub struct DebugEnv {
    #[serde(skip_serializing_if = "Option::is_none")]
    pub sip_surface_bti: Option<i64>,
    #[serde(skip_serializing_if = "Option::is_none")]
    pub sip_surface_offset: Option<i64>,
    #[serde(flatten)]
    pub unknown: Unknown,
}

#[derive(Debug, Clone, Default, PartialEq, Deserialize, Serialize)]
#[serde(default)]
pub struct ExperimentalProperties {
    #[serde(skip_serializing_if = "Option::is_none")]
    pub has_non_kernel_arg_load: Option<i64>,
    #[serde(skip_serializing_if = "Option::is_none")]
    pub has_non_kernel_arg_store: Option<i64>,
    #[serde(skip_serializing_if = "Option::is_none")]
    pub has_non_kernel_arg_atomic: Option<i64>,
    #[serde(flatten)]
    pub unknown: Unknown,
}

/// One `payload_arguments` entry (cross-thread data).
#[derive(Debug, Clone, Default, PartialEq, Deserialize, Serialize)]
#[serde(default)]
pub struct PayloadArgument {
    pub arg_type: String,
    #[serde(skip_serializing_if = "Option::is_none")]
    pub offset: Option<i64>,
    #[serde(skip_serializing_if = "Option::is_none")]
    pub size: Option<i64>,
    #[serde(skip_serializing_if = "Option::is_none")]
    pub arg_index: Option<i64>,
    #[serde(skip_serializing_if = "Option::is_none")]
    pub addrmode: Option<String>,
    #[serde(skip_serializing_if = "Option::is_none")]
    pub addrspace: Option<String>,
    #[serde(skip_serializing_if = "Option::is_none")]
    pub access_type: Option<String>,
    #[serde(skip_serializing_if = "Option::is_none")]
    pub sampler_index: Option<i64>,
    #[serde(skip_serializing_if = "Option::is_none")]
    pub source_offset: Option<i64>,
    #[serde(skip_serializing_if = "Option::is_none")]
    pub slm_alignment: Option<i64>,
    #[serde(skip_serializing_if = "Option::is_none")]
    pub image_type: Option<String>,
    #[serde(skip_serializing_if = "Option::is_none")]
    pub image_transformable: Option<bool>,
    #[serde(skip_serializing_if = "Option::is_none")]
    pub sampler_type: Option<String>,
    #[serde(skip_serializing_if = "Option::is_none")]
    pub sampler_desc_addrmode: Option<String>,
    #[serde(skip_serializing_if = "Option::is_none")]
    pub sampler_desc_filtermode: Option<String>,
    #[serde(skip_serializing_if = "Option::is_none")]
    pub sampler_desc_normalized: Option<bool>,
    #[serde(skip_serializing_if = "Option::is_none")]
    pub is_pipe: Option<bool>,
    #[serde(skip_serializing_if = "Option::is_none")]
    pub is_ptr: Option<bool>,
    #[serde(skip_serializing_if = "Option::is_none")]
    pub bti_value: Option<i64>,
    #[serde(flatten)]
    pub unknown: Unknown,
}

/// One `per_thread_payload_arguments` entry: `local_id` or `packed_local_ids`.
#[derive(Debug, Clone, Default, PartialEq, Deserialize, Serialize)]
#[serde(default)]
pub struct PerThreadPayloadArgument {
    pub arg_type: String,
    #[serde(skip_serializing_if = "Option::is_none")]
    pub offset: Option<i64>,
    #[serde(skip_serializing_if = "Option::is_none")]
    pub size: Option<i64>,
    #[serde(flatten)]
    pub unknown: Unknown,
}

#[derive(Debug, Clone, Default, PartialEq, Deserialize, Serialize)]
#[serde(default)]
pub struct BindingTableIndex {
    #[serde(skip_serializing_if = "Option::is_none")]
    pub bti_value: Option<i64>,
    #[serde(skip_serializing_if = "Option::is_none")]
    pub arg_index: Option<i64>,
    #[serde(flatten)]
    pub unknown: Unknown,
}

#[derive(Debug, Clone, Default, PartialEq, Deserialize, Serialize)]
#[serde(default)]
pub struct PerThreadMemoryBuffer {
    /// `global`, `scratch` or `slm`.
    #[serde(rename = "type", skip_serializing_if = "Option::is_none")]
    pub allocation_type: Option<String>,
    /// `private_space`, `spill_fill_space` or `single_space`.
    #[serde(skip_serializing_if = "Option::is_none")]
    pub usage: Option<String>,
    #[serde(skip_serializing_if = "Option::is_none")]
    pub size: Option<i64>,
    #[serde(skip_serializing_if = "Option::is_none")]
    pub is_simt_thread: Option<bool>,
    #[serde(skip_serializing_if = "Option::is_none")]
    pub slot: Option<i64>,
    #[serde(flatten)]
    pub unknown: Unknown,
}

#[derive(Debug, Clone, Default, PartialEq, Deserialize, Serialize)]
#[serde(default)]
pub struct InlineSampler {
    #[serde(skip_serializing_if = "Option::is_none")]
    pub sampler_index: Option<i64>,
    #[serde(skip_serializing_if = "Option::is_none")]
    pub addrmode: Option<String>,
    #[serde(skip_serializing_if = "Option::is_none")]
    pub filtermode: Option<String>,
    #[serde(skip_serializing_if = "Option::is_none")]
    pub normalized: Option<bool>,
    #[serde(flatten)]
    pub unknown: Unknown,
}

/// Enum values NEO accepts (`zeinfo_enum_lookup.h`); anything else is an error there.
pub mod enums {
    pub const ARG_TYPES: &[&str] = &[
        "packed_local_ids",
        "local_id",
        "local_size",
        "group_count",
        "global_size",
        "enqueued_local_size",
        "global_id_offset",
        "private_base_stateless",
        "arg_byvalue",
        "arg_bypointer",
        "buffer_address",
        "buffer_offset",
        "printf_buffer",
        "work_dimensions",
        "implicit_arg_buffer",
        "image_width",
        "image_height",
        "image_depth",
        "image_channel_data_type",
        "image_channel_order",
        "image_array_size",
        "image_num_samples",
        "image_num_mip_levels",
        "flat_image_baseoffset",
        "flat_image_width",
        "flat_image_height",
        "flat_image_pitch",
        "sampler_snap_wa",
        "sampler_normalized",
        "sampler_address",
        "vme_mb_block_type",
        "vme_subpixel_mode",
        "vme_sad_adjust_mode",
        "vme_search_path_type",
        "sync_buffer",
        "rt_global_buffer",
        "const_base",
        "global_base",
        "assert_buffer",
        "indirect_data_pointer",
        "scratch_pointer",
        "region_group_size",
        "region_group_dimension",
        "region_group_wg_count",
        "region_group_barrier_buffer",
        "inline_sampler",
        "buffer_size",
        "image_srgb_channel_order",
    ];
    pub const ADDRMODES: &[&str] = &["stateless", "stateful", "bindless", "slm"];
    pub const ADDRSPACES: &[&str] = &["global", "local", "constant", "image", "sampler"];
    pub const ACCESS_TYPES: &[&str] = &["readonly", "writeonly", "readwrite"];
    pub const THREAD_SCHEDULING_MODES: &[&str] = &["age_based", "round_robin", "round_robin_stall"];
}

/// A parsed `.ze_info`: the typed document and its version.
#[derive(Debug, Clone, PartialEq)]
pub struct ZeInfo {
    pub doc: ZeInfoDoc,
    /// The `version` key, when it reads as MAJOR.MINOR.
    pub version: Option<Version>,
}

impl ZeInfo {
    /// Parses the YAML text. Fails on YAML errors, on values of the wrong type or
    /// shape, and on inputs over [`MAX_ZEINFO_SIZE`].
    pub fn parse(text: &str) -> Result<ZeInfo, String> {
        if text.len() > MAX_ZEINFO_SIZE {
            return Err(format!("{} bytes, over the {MAX_ZEINFO_SIZE}-byte bound", text.len()));
        }
        let doc: ZeInfoDoc = serde_norway::from_str(text).map_err(|e| e.to_string())?;
        let version = doc.version.as_ref().and_then(value_as_version);
        Ok(ZeInfo { doc, version })
    }

    pub fn kernels(&self) -> &[Kernel] {
        self.doc.kernels.as_deref().unwrap_or(&[])
    }

    /// Every kept unknown key, as a path like `kernels[vadd].execution_env.foo`.
    pub fn unknown_keys(&self) -> Vec<String> {
        fn add(out: &mut Vec<String>, prefix: &str, map: &Unknown) {
            out.extend(map.keys().map(|key| format!("{prefix}{key}")));
        }
        let mut out = Vec::new();
        add(&mut out, "", &self.doc.unknown);
        for k in self.kernels() {
            let p = format!("kernels[{}]", k.name);
            add(&mut out, &format!("{p}."), &k.unknown);
            add(&mut out, &format!("{p}.execution_env."), &k.execution_env.unknown);
            if let Some(a) = &k.user_attributes {
                // NEO keeps any other `*_hint` user attribute as a string.
                let others = a.unknown.keys().filter(|key| !key.ends_with("_hint"));
                out.extend(others.map(|key| format!("{p}.user_attributes.{key}")));
            }
            if let Some(d) = &k.debug_env {
                add(&mut out, &format!("{p}.debug_env."), &d.unknown);
            }
            if let Some(e) = &k.experimental_properties {
                add(&mut out, &format!("{p}.experimental_properties."), &e.unknown);
            }
            for (i, a) in k.payload_arguments.iter().enumerate() {
                add(&mut out, &format!("{p}.payload_arguments[{i}]."), &a.unknown);
            }
            for (i, a) in k.per_thread_payload_arguments.iter().enumerate() {
                add(&mut out, &format!("{p}.per_thread_payload_arguments[{i}]."), &a.unknown);
            }
            for (i, a) in k.binding_table_indices.iter().enumerate() {
                add(&mut out, &format!("{p}.binding_table_indices[{i}]."), &a.unknown);
            }
            for (i, a) in k.per_thread_memory_buffers.iter().enumerate() {
                add(&mut out, &format!("{p}.per_thread_memory_buffers[{i}]."), &a.unknown);
            }
            for (i, a) in k.inline_samplers.iter().enumerate() {
                add(&mut out, &format!("{p}.inline_samplers[{i}]."), &a.unknown);
            }
        }
        for f in &self.doc.functions {
            add(&mut out, &format!("functions[{}].", f.name), &f.unknown);
            add(&mut out, &format!("functions[{}].execution_env.", f.name), &f.execution_env.unknown);
        }
        for (i, g) in self.doc.global_host_access_table.iter().enumerate() {
            add(&mut out, &format!("global_host_access_table[{i}]."), &g.unknown);
        }
        out
    }
}

/// `version: '1.20'` is a string; an unquoted `1.20` would be a float, whose text
/// NEO would still read, so accept both.
fn value_as_version(value: &Value) -> Option<Version> {
    match value {
        Value::String(s) => Version::parse(s),
        Value::Number(n) => Version::parse(&n.to_string()),
        _ => None,
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    const SAMPLE: &str = "---\nversion: '1.20'\nkernels:\n  - name: k\n    execution_env:\n      grf_count: 128\n      simd_size: 32\n      brand_new: 1\n    per_thread_payload_arguments:\n      - arg_type: local_id\n        offset: 0\n        size: 192\n";

    #[test]
    fn parses_and_keeps_unknown_keys() {
        let z = ZeInfo::parse(SAMPLE).expect("parses");
        assert_eq!(z.version, Some(Version { major: 1, minor: 20 }));
        assert_eq!(z.kernels()[0].execution_env.simd_size, Some(32));
        assert_eq!(z.unknown_keys(), vec!["kernels[k].execution_env.brand_new".to_string()]);
    }

    #[test]
    fn rejects_bad_shapes() {
        assert!(ZeInfo::parse("kernels: 3").is_err());
        let z = ZeInfo::parse("bogus_top_level: 1\nkernels: []").expect("unknown keys are kept");
        assert_eq!(z.unknown_keys(), vec!["bogus_top_level".to_string()]);
        assert!(ZeInfo::parse("a: &a [*a, *a]").is_err());
    }
}
