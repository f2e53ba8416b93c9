//! The stable diagnostic codes of the container readers: `F00xx`.
//!
//! Codes are never renumbered; retired ones stay reserved.

use develf_parse::diagnostic_codes;

diagnostic_codes!(FATBIN_CODES {
    NOT_FATBIN = ("F0001", Structure, Error, "the bytes do not start with the fatbin magic 0xBA55ED50"),
    TRUNCATED_FATBIN_HEADER = ("F0002", Structure, Error, "a fatbin header is cut short"),
    BAD_FATBIN_HEADER_SIZE = ("F0003", Structure, Error, "a fatbin header size is smaller than 16 bytes"),
    FATBIN_OUT_OF_BOUNDS = ("F0004", Structure, Error, "a fatbin's declared size runs past the end of its section or file"),
    TRUNCATED_ENTRY = ("F0005", Structure, Error, "an entry header or payload runs past the end of its fatbin"),
    BAD_ENTRY_HEADER_SIZE = ("F0006", Structure, Error, "an entry header size is smaller than 64 bytes or not a multiple of 8"),
    BAD_ENTRY_FIELD = ("F0007", Structure, Error, "an entry's identifier, options or compressed size lie outside the entry"),
    UNSUPPORTED_CODEC = ("F0008", Semantics, Error, "an entry uses a compression codec develf does not decode"),
    DECOMPRESSION_FAILED = ("F0009", Structure, Error, "a compressed payload is malformed"),
    DECOMPRESSED_SIZE_MISMATCH = ("F0010", Structure, Error, "a payload decompresses to a size other than the declared one"),
    DECOMPRESSION_LIMIT = ("F0011", Structure, Error, "a payload would decompress past develf's limits (a decompression bomb)"),
    UNKNOWN_ENTRY_KIND = ("F0012", Semantics, Warning, "an entry kind is not one the CUDA tools are known to write"),
    BAD_CONCATENATED_ENTRY = ("F0013", Structure, Error, "a concatenated entry's member table is malformed"),
    TRAILING_BYTES = ("F0014", Structure, Warning, "non-zero bytes follow the last fatbin in a section"),
    BAD_WRAPPER = ("F0015", Structure, Warning, "a .nvFatBinSegment wrapper has the wrong magic or size"),
    NO_DEVICE_CODE = ("F0016", Semantics, Warning, "a host object or archive carries no fatbin"),
    UNSUPPORTED_FATBIN_VERSION = ("F0017", Semantics, Warning, "a fatbin header version is not 1"),
    OBFUSCATED_PAYLOAD = ("F0018", Semantics, Error, "a payload is obfuscated (flag 0x10000) and cannot be decoded"),
    BAD_HOST_OBJECT = ("F0019", Structure, Error, "a host ELF object cannot be read"),
    NESTED_ARCHIVE = ("F0020", Semantics, Warning, "an archive member is itself an archive; develf does not descend"),
    WRITE_ERROR = ("F0021", Semantics, Error, "an entry cannot be written into a fatbin"),
});

#[cfg(test)]
mod tests {
    #[test]
    fn ids_are_unique_and_prefixed() {
        use develf_parse::codes::CUBIN_CODES;
        use develf_parse::{ar::AR_CODES, diag::duplicate_ids, zebin::codes::ZEBIN_CODES};
        assert!(super::FATBIN_CODES.iter().all(|c| c.id.starts_with('F') && c.id.len() == 5));
        let families = [super::FATBIN_CODES, CUBIN_CODES, ZEBIN_CODES, AR_CODES];
        assert_eq!(duplicate_ids(&families), Vec::<&str>::new());
    }
}
