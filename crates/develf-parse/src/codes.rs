//! The stable diagnostic codes of the ELF and cubin readers.
//!
//! `E01xx` structure, `E02xx` references, `E03xx` semantics, `E04xx` target,
//! `E05xx` metadata. Codes are never renumbered; retired ones stay reserved.

use crate::diagnostic_codes;

diagnostic_codes!(CUBIN_CODES {
    NOT_ELF = ("E0100", Structure, Error, "the file is not ELF"),
    BAD_CLASS = ("E0101", Structure, Error, "EI_CLASS is neither ELF32 nor ELF64"),
    BAD_DATA_ENCODING = ("E0102", Structure, Error, "EI_DATA is neither little- nor big-endian"),
    TRUNCATED_HEADER = ("E0103", Structure, Error, "the file is shorter than its ELF header"),
    BAD_HEADER_SIZE = ("E0104", Structure, Error, "e_ehsize does not match the class"),
    BAD_SECTION_HEADER_SIZE = ("E0105", Structure, Error, "e_shentsize does not match the class"),
    SECTION_TABLE_OUT_OF_BOUNDS = ("E0106", Structure, Error, "the section header table runs past the end of the file"),
    BAD_PROGRAM_HEADER_SIZE = ("E0107", Structure, Error, "e_phentsize does not match the class"),
    PROGRAM_TABLE_OUT_OF_BOUNDS = ("E0108", Structure, Error, "the program header table runs past the end of the file"),
    SECTION_OUT_OF_BOUNDS = ("E0109", Structure, Error, "a section's bytes run past the end of the file"),
    BAD_ALIGNMENT = ("E0110", Structure, Error, "sh_addralign is not 0 or a power of two"),
    SECTION_OVERLAPS_HEADERS = ("E0111", Structure, Warning, "a section's bytes overlap the ELF header or the section header table"),
    SEGMENT_OUT_OF_BOUNDS = ("E0112", Structure, Error, "a segment's file bytes run past the end of the file"),
    BAD_ENTRY_SIZE = ("E0113", Structure, Error, "a table section's sh_entsize is not the record size"),
    PARTIAL_ENTRY = ("E0114", Structure, Error, "a table section's size is not a multiple of its record size"),
    BAD_NOTE = ("E0115", Structure, Error, "a note runs past the end of its section"),
    BAD_SHSTRNDX = ("E0200", References, Error, "e_shstrndx does not name a string table"),
    BAD_SECTION_NAME = ("E0201", References, Error, "a section name offset is outside the name table or not NUL-terminated"),
    BAD_LINK = ("E0202", References, Error, "sh_link names a section that does not exist or has the wrong type"),
    BAD_INFO = ("E0203", References, Error, "sh_info names a section or symbol that does not exist"),
    UNTERMINATED_STRTAB = ("E0204", References, Error, "a string table does not end with NUL"),
    BAD_SYMBOL_NAME = ("E0205", References, Error, "a symbol name offset is outside its string table"),
    BAD_SYMBOL_SECTION = ("E0206", References, Error, "st_shndx names a section that does not exist"),
    BAD_RELOCATION_SYMBOL = ("E0207", References, Error, "a relocation's symbol index is outside its symbol table"),
    RELOCATION_OUT_OF_SECTION = ("E0208", References, Error, "a relocation's offset is outside the section it patches"),
    BAD_MACHINE = ("E0300", Semantics, Error, "e_machine is not EM_CUDA (190)"),
    UNKNOWN_OSABI = ("E0301", Semantics, Warning, "EI_OSABI is not one the CUDA tools write"),
    UNKNOWN_ABI_VERSION = ("E0302", Semantics, Warning, "EI_ABIVERSION is not 7 or 8"),
    OSABI_ABI_MISMATCH = ("E0303", Semantics, Warning, "EI_OSABI and EI_ABIVERSION belong to different layouts"),
    UNKNOWN_FILE_TYPE = ("E0304", Semantics, Error, "e_type is not a cubin type"),
    UNKNOWN_RELOCATION_TYPE = ("E0305", Semantics, Error, "a relocation type is not an R_CUDA or R_MERCURY type"),
    UNKNOWN_SECTION_TYPE = ("E0306", Semantics, Warning, "a section type is not one the CUDA tools write"),
    BAD_SYMBOL_KIND = ("E0307", Semantics, Error, "a symbol's type, binding or st_other contradicts its section"),
    SYMBOL_OUTSIDE_SECTION = ("E0308", Semantics, Error, "a symbol's value and size run past the end of its section"),
    LOCAL_AFTER_GLOBAL = ("E0309", Semantics, Warning, "a local symbol follows the first global one given by the symtab's sh_info"),
    NO_SYMTAB = ("E0310", Semantics, Warning, "the cubin has sections but no symbol table"),
    SECTION_KIND_MISMATCH = ("E0311", Semantics, Warning, "a section's name and type disagree"),
    ARCH_MISMATCH = ("E0400", Target, Error, "the architecture stated in e_flags, notes and .nv.compat disagree"),
    VIRTUAL_ABOVE_REAL = ("E0401", Target, Error, "the virtual SM is newer than the real SM"),
    CUINFO_INDEX_MISMATCH = ("E0402", Target, Warning, "ABI 8 e_flags' top byte does not name .note.nv.cuinfo"),
    UNKNOWN_SM = ("E0403", Target, Warning, "the SM number is not one NVIDIA has shipped"),
    RECORD_PAST_SECTION = ("E0500", Metadata, Error, "an .nv.info/.nv.compat record runs past its section"),
    UNKNOWN_RECORD_FORMAT = ("E0501", Metadata, Error, "an .nv.info/.nv.compat record has an unknown EIFMT format"),
    BAD_CUINFO = ("E0502", Metadata, Error, ".note.nv.cuinfo has the wrong size"),
    RECORD_WRONG_FORMAT = ("E0503", Metadata, Warning, "a known attribute is written with another EIFMT format than the tools use"),
    RECORD_WRONG_SIZE = ("E0504", Metadata, Error, "a known attribute's payload has the wrong size for its shape"),
    RECORD_UNKNOWN_SYMBOL = ("E0505", Metadata, Error, "a metadata record names a symbol past the end of the symbol table"),
    RECORD_NOT_A_FUNCTION = ("E0506", Metadata, Error, "a metadata record names a symbol that must be a function and is not"),
    RECORD_UNKNOWN_STRING = ("E0507", Metadata, Warning, "a metadata string offset names no string"),
    MALFORMED_METADATA = ("E0508", Metadata, Error, "a metadata section's layout is wrong (call-graph markers, sizes)"),
});

#[cfg(test)]
mod tests {
    use crate::diag::duplicate_ids;

    // Every family develf-parse defines: cubin, zebin and archive codes.
    #[test]
    fn ids_are_unique_across_families() {
        let families = [super::CUBIN_CODES, crate::zebin::codes::ZEBIN_CODES, crate::ar::AR_CODES];
        assert_eq!(duplicate_ids(&families), Vec::<&str>::new());
    }
}
