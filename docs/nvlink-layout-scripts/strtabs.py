"""Rule 4: .shstrtab / .strtab contents."""
import collections, elf

def build(names):
    """NUL first, then each distinct name once, in the given order, no suffix sharing."""
    out = bytearray(b'\0'); pos = {'': 0}
    for n in names:
        if n not in pos:
            pos[n] = len(out); out += n.encode('latin1') + b'\0'
    return bytes(out), pos

def main():
    c = collections.Counter()
    for e, o, ins in elf.links():
        k = e['kind']
        names = [s.name for s in o.secs[1:]]
        exp, pos = build(names)
        good = o.secs[o.e_shstrndx].data == exp and all(s.name_off == pos[s.name] for s in o.secs[1:])
        c[(k, 'shstrtab = NUL + section names in header order')] += good
        if not good:
            print('EXC shstrtab', e['path'])
        # .strtab: hypothesis: NUL + symbol names in symtab order (section symbols have no name)
        strd = o.secs[o.symtab.link].data
        syms = [y.name for y in o.syms[1:] if y.name]
        exp2, pos2 = build(syms)
        good2 = strd == exp2 and all(y.name_off == pos2[y.name] for y in o.syms if y.name)
        c[(k, 'strtab = NUL + symbol names in symtab order')] += good2
        if not good2:
            # how does it differ?
            have = strd.split(b'\0')
            print('EXC strtab', e['path'], len(strd), len(exp2), have[:8], syms[:6])
        c[(k, 'section symbols have st_name 0')] += all(y.name_off == 0 for y in o.syms if y.type == 3)
        c[(k, 'total')] += 1
    for k, v in sorted(c.items()):
        print(v, k)

if __name__ == '__main__':
    main()
