"""Rule 8: which input relocations survive, and how they are rewritten."""
import collections, re, os, elf

def rnames():
    src = open(os.path.join(elf.FIX, '..', '..', 'crates', 'develf-format', 'src', 'reloc.rs')).read()
    return {int(v): n for n, v in re.findall(r'(R_(?:CUDA|MERCURY)_\w+)\s*=\s*(0x[0-9a-fA-F]+|\d+)', src) for v in [v if not v.startswith('0x') else str(int(v, 16))]}

def main():
    RN = rnames()
    c = collections.Counter(); order = collections.Counter()
    for e, o, ins in elf.links():
        k = e['kind'] + ('/merc' if '.nv.merc.symtab' in o.byname else '')
        # input contribution offsets for merged sections: concatenation in input order with alignment
        outrel = {}
        for s in o.secs:
            if s.type in (4, 9) and not s.name.startswith('.nv.merc'):
                tgt = o.secs[s.info].name
                rs = o.relocs(s) if s.type == 4 else [(a, b, cc, 0) for a, b, cc, _ in o.relocs(s)]
                if s.type == 9:
                    import struct
                    rs = [struct.unpack_from('<QQ', s.data, 16 * j) for j in range(s.size // 16)]
                    rs = [(a, b & 0xffffffff, b >> 32, None) for a, b in rs]
                offs = [r[0] for r in rs]
                order[(k, 'sorted by offset' if offs == sorted(offs) else 'NOT sorted')] += 1
                for r in rs:
                    outrel.setdefault(tgt, []).append((r[0], r[1], o.symname(r[2]), r[3]))
        base = collections.Counter()
        for i in ins:
            for s in i.secs:
                if s.type in (4, 9) and not s.name.startswith('.nv.merc'):
                    tgt = i.secs[s.info].name
                    if s.type == 4:
                        rs = i.relocs(s)
                    else:
                        import struct
                        rs = [struct.unpack_from('<QQ', s.data, 16 * j) for j in range(s.size // 16)]
                        rs = [(a, b & 0xffffffff, b >> 32, None) for a, b in rs]
                    for r in rs:
                        t = RN.get(r[1], str(r[1]))
                        have = outrel.get(tgt, [])
                        kept = any(x[1] == r[1] and x[2] == i.symname(r[2]) for x in have)
                        c[(k, t, 'kept' if kept else 'gone')] += 1
    for key, v in sorted(c.items()):
        print(v, key)
    for key, v in sorted(order.items()):
        print(v, key)

if __name__ == '__main__':
    main()
