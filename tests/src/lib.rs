//! Shared helpers for the workspace-level integration tests: where the fixtures
//! are, what the manifest says, and a reader for the reference tools' dumps.

pub mod cuobjdump;
pub mod cuobjdump_nvinfo;

use std::path::{Path, PathBuf};

/// `tests/fixtures`, made by `cargo xtask fixtures` with NVIDIA's tools.
pub fn fixtures_dir() -> PathBuf {
    Path::new(env!("CARGO_MANIFEST_DIR")).join("fixtures")
}

/// One entry of `tests/fixtures/manifest.json`.
#[derive(Debug, Clone)]
pub struct Fixture {
    /// Path relative to the fixtures directory.
    pub path: String,
    /// `object`, `linked` or `relocatable-link`.
    pub kind: String,
    pub arch: String,
    pub abi: u64,
    pub inputs: Vec<String>,
}

impl Fixture {
    pub fn full_path(&self) -> PathBuf {
        fixtures_dir().join(&self.path)
    }

    /// The `cuobjdump -elf` output saved next to the cubin.
    pub fn cuobjdump_path(&self) -> PathBuf {
        self.full_path().with_extension("cuobjdump.txt")
    }
}

/// Every cubin in the manifest, in manifest order.
pub fn cubin_fixtures() -> Vec<Fixture> {
    let path = fixtures_dir().join("manifest.json");
    let text = std::fs::read_to_string(&path).unwrap_or_else(|e| panic!("cannot read {}: {e}", path.display()));
    let value: serde_json::Value = serde_json::from_str(&text).expect("manifest.json is JSON");
    value
        .as_array()
        .expect("manifest.json is an array")
        .iter()
        .map(|e| Fixture {
            path: e["path"].as_str().unwrap_or_default().to_string(),
            kind: e["kind"].as_str().unwrap_or_default().to_string(),
            arch: e["arch"].as_str().unwrap_or_default().to_string(),
            abi: e["abi"].as_u64().unwrap_or(0),
            inputs: e["inputs"]
                .as_array()
                .map(|a| a.iter().filter_map(|v| v.as_str().map(str::to_string)).collect())
                .unwrap_or_default(),
        })
        .filter(|f| f.path.ends_with(".cubin"))
        .collect()
}

/// A small deterministic PRNG (xorshift64*) for mutation tests.
#[derive(Debug, Clone)]
pub struct Rng(u64);

impl Rng {
    pub fn new(seed: u64) -> Rng {
        Rng(seed.max(1))
    }

    pub fn next_u64(&mut self) -> u64 {
        let mut x = self.0;
        x ^= x >> 12;
        x ^= x << 25;
        x ^= x >> 27;
        self.0 = x;
        x.wrapping_mul(0x2545_f491_4f6c_dd1d)
    }

    /// A value in `0..n` (`n > 0`).
    pub fn below(&mut self, n: usize) -> usize {
        (self.next_u64() % n as u64) as usize
    }
}
