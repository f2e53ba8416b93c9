"""Minimal stdlib-only ELF64 reader for cubins (used by the nvlink-layout checks)."""
import json, os, struct

FIX = os.path.join(os.path.dirname(os.path.abspath(__file__)), '..', '..', 'tests', 'fixtures')
FIX = os.path.normpath(FIX)


class Sec:
    pass


class Sym:
    def __repr__(self):
        return f"Sym({self.idx},{self.name!r},v={self.value:#x},sz={self.size:#x},b={self.bind},t={self.type},o={self.other:#x},shn={self.shndx})"


class Elf:
    def __init__(self, path):
        self.path = path
        d = self.data = open(path, 'rb').read()
        assert d[:4] == b'\x7fELF' and d[4] == 2
        self.osabi, self.abiver = d[7], d[8]
        (self.e_type, self.e_machine, self.e_version, self.e_entry, self.e_phoff, self.e_shoff,
         self.e_flags, self.e_ehsize, self.e_phentsize, self.e_phnum, self.e_shentsize,
         self.e_shnum, self.e_shstrndx) = struct.unpack_from('<HHIQQQIHHHHHH', d, 16)
        self.secs = []
        for i in range(self.e_shnum):
            s = Sec()
            s.idx = i
            (s.name_off, s.type, s.flags, s.addr, s.offset, s.size, s.link, s.info, s.align,
             s.entsize) = struct.unpack_from('<IIQQQQIIQQ', d, self.e_shoff + 64 * i)
            s.data = d[s.offset:s.offset + s.size] if s.type != 8 else b''
            self.secs.append(s)
        shs = self.secs[self.e_shstrndx].data
        for s in self.secs:
            s.name = cstr(shs, s.name_off)
        self.byname = {s.name: s for s in self.secs}
        self.phdrs = []
        for i in range(self.e_phnum):
            self.phdrs.append(struct.unpack_from('<IIQQQQQQ', d, self.e_phoff + 56 * i))
        self.syms = []
        st = [s for s in self.secs if s.type == 2]
        self.symtab = st[0] if st else None
        if self.symtab:
            strd = self.secs[self.symtab.link].data
            for i in range(self.symtab.size // 24):
                y = Sym()
                y.idx = i
                y.name_off, info, y.other, y.shndx, y.value, y.size = struct.unpack_from(
                    '<IBBHQQ', self.symtab.data, 24 * i)
                y.bind, y.type = info >> 4, info & 15
                y.name = cstr(strd, y.name_off)
                self.syms.append(y)

    def relocs(self, s):
        out = []
        for i in range(s.size // 24):
            off, info, add = struct.unpack_from('<QQq', s.data, 24 * i)
            out.append((off, info & 0xffffffff, info >> 32, add))
        return out

    def symname(self, i):
        y = self.syms[i]
        if y.type == 3 and not y.name:
            return self.secs[y.shndx].name
        return y.name


def cstr(b, off):
    e = b.index(b'\0', off)
    return b[off:e].decode('latin1')


def tlvs(data):
    """EIATTR / compat TLVs: list of (fmt, attr, value_or_payload)."""
    out, p = [], 0
    while p + 4 <= len(data):
        fmt, attr, v = struct.unpack_from('<BBH', data, p)
        if fmt == 4:
            out.append((fmt, attr, data[p + 4:p + 4 + v]))
            p += 4 + v
        else:
            out.append((fmt, attr, v))
            p += 4
    return out


def notes(data):
    out, p = [], 0
    while p + 12 <= len(data):
        nsz, dsz, typ = struct.unpack_from('<III', data, p)
        name = data[p + 12:p + 12 + nsz]
        q = p + 12 + ((nsz + 3) & ~3)
        desc = data[q:q + dsz]
        out.append((name, typ, desc))
        p = q + ((dsz + 3) & ~3)
    return out


def manifest():
    return json.load(open(os.path.join(FIX, 'manifest.json')))


def links(kind=None):
    """Yield (entry, output Elf, [input Elf...]) for every link in the manifest."""
    for e in manifest():
        if e['kind'] not in ('linked', 'relocatable-link'):
            continue
        if kind and e['kind'] != kind:
            continue
        yield e, Elf(os.path.join(FIX, e['path'])), [Elf(os.path.join(FIX, p)) for p in e['inputs']]
