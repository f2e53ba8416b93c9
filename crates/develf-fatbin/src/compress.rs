//! Payload codecs, with limits that make decompression bombs cost nothing.
//!
//! The codec is named by the entry's flags (checked against CUDA 13.5's
//! `fatbinary -compress-algo=N`): 0x1000 zlib, 0x2000 LZ4 block (both the fast and
//! the HC compressor write it), 0x4000 LZ4 frame, 0x8000 ZSTD frame (the default
//! of `--compress-mode=default|size|balance`; `speed` picks LZ4 block).
//! Every decoder writes into a buffer no larger than the entry's declared
//! uncompressed size, which is itself checked against [`Limits`] before anything
//! is allocated.

use crate::codes;
use develf_parse::Diagnostic;
use std::io::Read;

/// How much one entry may decompress to.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub struct Limits {
    /// The most bytes one entry may decompress to.
    pub max_uncompressed: u64,
    /// The most bytes one entry may decompress to per compressed byte. LZ4 cannot
    /// exceed 255; real ZSTD cubins compress 5–20×; an all-zero payload compresses
    /// about 10000× under ZSTD, which is what a bomb looks like.
    pub max_ratio: u64,
    /// Ratio checks apply only above this size, so tiny entries are never refused.
    pub ratio_floor: u64,
}

impl Default for Limits {
    fn default() -> Limits {
        Limits { max_uncompressed: 1 << 30, max_ratio: 1024, ratio_floor: 1 << 20 }
    }
}

impl Limits {
    /// Checks a declared size before any allocation.
    pub fn check(&self, compressed: u64, uncompressed: u64) -> Result<(), String> {
        if uncompressed > self.max_uncompressed {
            return Err(format!(
                "declared uncompressed size {uncompressed} exceeds the limit of {} bytes",
                self.max_uncompressed
            ));
        }
        if uncompressed > self.ratio_floor && uncompressed / compressed.max(1) > self.max_ratio {
            return Err(format!(
                "{compressed} compressed bytes declared to expand to {uncompressed} (more than {}x)",
                self.max_ratio
            ));
        }
        Ok(())
    }
}

/// How an entry's payload is stored.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Hash)]
pub enum Codec {
    None,
    Zlib,
    Lz4Block,
    Lz4Frame,
    Zstd,
}

impl Codec {
    pub fn name(self) -> &'static str {
        match self {
            Codec::None => "none",
            Codec::Zlib => "zlib",
            Codec::Lz4Block => "lz4",
            Codec::Lz4Frame => "lz4-frame",
            Codec::Zstd => "zstd",
        }
    }
}

/// Decompresses `input` into exactly `expected` bytes.
pub fn decompress(codec: Codec, input: &[u8], expected: u64, limits: &Limits) -> Result<Vec<u8>, Diagnostic> {
    limits.check(input.len() as u64, expected).map_err(|m| Diagnostic::new(codes::DECOMPRESSION_LIMIT, m))?;
    let expected =
        usize::try_from(expected).map_err(|_| Diagnostic::new(codes::DECOMPRESSION_LIMIT, "size exceeds usize"))?;
    let failed = |what: String| Diagnostic::new(codes::DECOMPRESSION_FAILED, what);
    match codec {
        Codec::None => Ok(input.to_vec()),
        Codec::Lz4Block => {
            let mut out = vec![0u8; expected];
            let n = lz4_flex::block::decompress_into(input, &mut out).map_err(|e| failed(format!("LZ4 block: {e}")))?;
            if n != expected {
                return Err(size_mismatch(n as u64, expected as u64));
            }
            Ok(out)
        }
        Codec::Lz4Frame => read_capped(lz4_flex::frame::FrameDecoder::new(input), expected, "LZ4 frame"),
        Codec::Zstd => {
            check_zstd_window(input, expected as u64, limits)?;
            let decoder = ruzstd::decoding::StreamingDecoder::new(input).map_err(|e| failed(format!("ZSTD: {e}")))?;
            read_capped(decoder, expected, "ZSTD")
        }
        Codec::Zlib => {
            // The limit makes the decoder stop (with an error) one byte past the
            // declared size instead of inflating a bomb.
            let out = miniz_oxide::inflate::decompress_to_vec_zlib_with_limit(input, expected.saturating_add(1))
                .map_err(|e| failed(format!("zlib: {e}")))?;
            if out.len() != expected {
                return Err(size_mismatch(out.len() as u64, expected as u64));
            }
            Ok(out)
        }
    }
}

fn size_mismatch(got: u64, expected: u64) -> Diagnostic {
    Diagnostic::new(
        codes::DECOMPRESSED_SIZE_MISMATCH,
        format!("payload decompressed to {got} bytes, the header declares {expected}"),
    )
}

/// Reads at most `expected + 1` bytes, so a stream that runs long is caught
/// without reading the rest of it.
fn read_capped(reader: impl Read, expected: usize, what: &str) -> Result<Vec<u8>, Diagnostic> {
    let mut out = Vec::with_capacity(expected);
    let cap = expected as u64 + 1;
    reader
        .take(cap)
        .read_to_end(&mut out)
        .map_err(|e| Diagnostic::new(codes::DECOMPRESSION_FAILED, format!("{what}: {e}")))?;
    if out.len() != expected {
        return Err(size_mismatch(out.len() as u64, expected as u64));
    }
    Ok(out)
}

/// The ZSTD decoder allocates its window up front (up to 100 MiB); refuse a
/// frame header that asks for more than the entry can need.
fn check_zstd_window(input: &[u8], expected: u64, limits: &Limits) -> Result<(), Diagnostic> {
    let bad = |m: &str| Diagnostic::new(codes::DECOMPRESSION_FAILED, format!("ZSTD: {m}"));
    if input.len() < 6 || input[..4] != [0x28, 0xB5, 0x2F, 0xFD] {
        return Err(bad("no frame magic 28 B5 2F FD"));
    }
    let descriptor = input[4];
    let single_segment = descriptor & 0x20 != 0;
    let window = if single_segment {
        // The window is the content size, which the size check below covers.
        expected
    } else {
        let w = input[5];
        let log = 10 + u64::from(w >> 3);
        let base = 1u64 << log;
        base + (base / 8) * u64::from(w & 7)
    };
    // A window larger than the output is legal but never needed; allow the
    // smallest power of two above the output, and at least 1 MiB.
    let allowed = expected.max(1 << 20).checked_next_power_of_two().unwrap_or(u64::MAX);
    if window > allowed || window > limits.max_uncompressed.max(1 << 20) {
        return Err(Diagnostic::new(
            codes::DECOMPRESSION_LIMIT,
            format!("ZSTD frame asks for a {window}-byte window to produce {expected} bytes"),
        ));
    }
    Ok(())
}

/// Compresses for the writer. The output is valid for the codec but not
/// byte-identical to `fatbinary`'s: LZ4 (block and frame) comes from lz4_flex,
/// ZSTD from ruzstd, zlib from miniz_oxide, not from NVIDIA's builds of the
/// reference libraries.
pub fn compress(codec: Codec, input: &[u8]) -> Option<Vec<u8>> {
    match codec {
        Codec::None => Some(input.to_vec()),
        Codec::Lz4Block => Some(lz4_flex::block::compress(input)),
        Codec::Zstd => Some(ruzstd::encoding::compress_to_vec(input, ruzstd::encoding::CompressionLevel::Fastest)),
        Codec::Zlib => Some(miniz_oxide::deflate::compress_to_vec_zlib(input, 6)),
        Codec::Lz4Frame => {
            use std::io::Write;
            let mut encoder = lz4_flex::frame::FrameEncoder::new(Vec::new());
            encoder.write_all(input).ok()?;
            encoder.finish().ok()
        }
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn round_trips_and_refuses_bombs() {
        let data: Vec<u8> = (0..5000u32).map(|i| (i % 251) as u8).collect();
        for codec in [Codec::Lz4Block, Codec::Zstd, Codec::Zlib, Codec::Lz4Frame] {
            let packed = compress(codec, &data).expect("codec");
            let back = decompress(codec, &packed, data.len() as u64, &Limits::default()).expect("round trip");
            assert_eq!(back, data);
            // Declared too small or too large: a size error, not a panic or a long read.
            assert!(decompress(codec, &packed, data.len() as u64 - 1, &Limits::default()).is_err());
            assert!(decompress(codec, &packed, data.len() as u64 + 1, &Limits::default()).is_err());
        }
        let zeros = vec![0u8; 8 << 20];
        let packed = compress(Codec::Zstd, &zeros).expect("zstd");
        let error = decompress(Codec::Zstd, &packed, zeros.len() as u64, &Limits::default()).expect_err("bomb");
        assert_eq!(error.code, codes::DECOMPRESSION_LIMIT);
        let huge = decompress(Codec::Lz4Block, &[0x10, 0], 1 << 40, &Limits::default()).expect_err("huge");
        assert_eq!(huge.code, codes::DECOMPRESSION_LIMIT);
    }
}
