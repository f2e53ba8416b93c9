//! The stable diagnostic codes of the zebin reader: `Z00xx` structure, `Z01xx`
//! references, `Z02xx` semantics (what NEO's section classifier accepts), `Z03xx`
//! target, `Z04xx` metadata (notes and `.ze_info`).
//!
//! Severities follow NEO's decoder (compute-runtime `zebin_decoder.cpp`,
//! `zeinfo_decoder.cpp`, `elf_decoder.cpp`): what makes it fail is an error here,
//! what it appends to its warning string is a warning. Codes are never renumbered.

use crate::diagnostic_codes;

diagnostic_codes!(ZEBIN_CODES {
    NOT_ZEBIN_TYPE = ("Z0001", Structure, Error, "e_type is neither ET_REL nor ET_ZEBIN_EXE (NEO: \"Unhandled elf type\")"),
    SECTION_OUT_OF_BOUNDS = ("Z0002", Structure, Error, "a section's bytes run past the end of the file"),
    BAD_SYMTAB_ENTRY_SIZE = ("Z0003", Structure, Error, "the symbol table's sh_entsize is not the symbol size (24 for ELF64)"),
    BAD_REL_ENTRY_SIZE = ("Z0004", Structure, Error, "a SHT_REL section's sh_entsize is not 16 (ELF64) / 8 (ELF32)"),
    BAD_RELA_ENTRY_SIZE = ("Z0005", Structure, Error, "a SHT_RELA section's sh_entsize is not 24 (ELF64) / 12 (ELF32)"),
    NOTE_OUT_OF_SECTION = ("Z0006", Structure, Error, "a note in .note.intelgt.compat runs past the end of its section"),
    SEGMENT_OUT_OF_BOUNDS = ("Z0007", Structure, Error, "a program header's bytes run past the end of the file"),
    ZEINFO_TOO_LARGE = ("Z0008", Structure, Error, ".ze_info is larger than develf's 16 MiB bound"),
    BAD_SHSTRNDX = ("Z0100", References, Error, "e_shstrndx is 0 or past the section table"),
    BAD_SECTION_NAME = ("Z0101", References, Warning, "a section name offset does not point into the name table"),
    BAD_RELOCATION_SYMBOL = ("Z0102", References, Error, "a relocation's symbol index is outside the symbol table"),
    RELOCATION_OUT_OF_SECTION = ("Z0103", References, Error, "a relocation's offset is outside the section it patches"),
    BAD_RELOCATION_TARGET = ("Z0104", References, Error, "a relocation section's sh_info does not name a section"),
    BAD_SYMBOL_SECTION = ("Z0105", References, Error, "a symbol's st_shndx names no section"),
    UNHANDLED_SECTION_TYPE = ("Z0200", Semantics, Error, "a section type NEO's zebin decoder does not handle"),
    UNHANDLED_PROGBITS = ("Z0201", Semantics, Error, "a SHT_PROGBITS section whose name NEO does not accept"),
    DUPLICATE_SECTION = ("Z0202", Semantics, Error, "a section that may appear at most once appears more often"),
    UNHANDLED_NOTE_SECTION = ("Z0203", Semantics, Warning, "a SHT_NOTE section other than .note.intelgt.compat (NEO skips it)"),
    UNHANDLED_MISC_SECTION = ("Z0204", Semantics, Warning, "a SHT_ZEBIN_MISC section other than .misc.buildOptions"),
    UNHANDLED_NOBITS = ("Z0205", Semantics, Warning, "a SHT_NOBITS section other than .bss.const / .bss.global"),
    UNHANDLED_GTPIN_SECTION = ("Z0206", Semantics, Warning, "a SHT_ZEBIN_GTPIN_INFO section not named .gtpin_info.<kernel>"),
    MISSPELLED_SECTION = ("Z0207", Semantics, Warning, ".data.global_const, which NEO reads as .data.const"),
    UNKNOWN_RELOCATION_TYPE = ("Z0208", Semantics, Warning, "a relocation type that is not an R_ZE type"),
    MISSING_KERNEL_SYMBOL = ("Z0209", Semantics, Warning, "a .text.<kernel> section has no symbol named after the kernel"),
    BAD_MACHINE = ("Z0210", Semantics, Warning, "e_machine is neither EM_INTELGT nor a known product family / GFX core"),
    NO_ZEINFO = ("Z0211", Semantics, Warning, "no .ze_info section (NEO loads no kernels)"),
    MISSING_KERNEL_TEXT = ("Z0212", Semantics, Error, "a .ze_info kernel has no .text.<kernel> section"),
    TARGET_MISMATCH = ("Z0300", Target, Error, "the binary does not target the requested device"),
    UNKNOWN_DEVICE = ("Z0301", Target, Error, "the requested device name is not one develf knows"),
    STEPPING_MISMATCH = ("Z0302", Target, Warning, "same IP arch and release as the device, different revision"),
    POINTER_SIZE_MISMATCH = ("Z0303", Target, Error, "a 64-bit zebin for a device limited to 32-bit pointers"),
    BAD_NOTE_OWNER = ("Z0400", Metadata, Warning, "an IntelGT note with another owner name (NEO ignores it)"),
    UNTERMINATED_VERSION_NOTE = ("Z0401", Metadata, Warning, "NT_INTELGT_ZEBIN_VERSION is not NUL-terminated (NEO ignores it)"),
    BAD_VERSION = ("Z0402", Metadata, Error, "a zebin/.ze_info version is not MAJOR.MINOR"),
    UNSUPPORTED_MAJOR_VERSION = ("Z0403", Metadata, Error, "the .ze_info major version is not 1"),
    NEWER_MINOR_VERSION = ("Z0404", Metadata, Warning, "the .ze_info minor version is newer than develf knows"),
    UNKNOWN_NOTE_TYPE = ("Z0405", Metadata, Warning, "an IntelGT note type develf does not know"),
    BAD_NOTE_SIZE = ("Z0406", Metadata, Error, "an IntelGT note whose descriptor is not 4 bytes where a word is expected"),
    ZEINFO_SYNTAX = ("Z0407", Metadata, Error, ".ze_info is not valid YAML or not the shape Intel documents"),
    UNKNOWN_ZEINFO_KEY = ("Z0408", Metadata, Warning, "a .ze_info key Intel's spec does not document (kept)"),
    MISSING_ZEINFO_KEY = ("Z0409", Metadata, Error, "a required .ze_info key is missing"),
    BAD_ZEINFO_VALUE = ("Z0410", Metadata, Error, "a .ze_info value NEO rejects (enum, size, offset)"),
    VERSION_MISMATCH = ("Z0411", Metadata, Warning, "the version in the note and in .ze_info differ"),
});

#[cfg(test)]
mod tests {
    #[test]
    fn ids_are_unique() {
        let mut ids: Vec<_> = super::ZEBIN_CODES.iter().map(|c| c.id).collect();
        ids.sort_unstable();
        let len = ids.len();
        ids.dedup();
        assert_eq!(ids.len(), len);
    }
}
