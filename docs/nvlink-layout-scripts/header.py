"""Rule 3d: ELF header fields of the output."""
import collections, elf

def main():
    c = collections.Counter()
    fl = collections.defaultdict(set)
    for e, o, ins in elf.links():
        abi8 = [i for i in ins if i.abiver == 8]
        c[('ident', o.data[4:16].hex(), o.e_version, o.e_entry, o.e_ehsize, o.e_phentsize if o.e_type == 2 else None, o.e_shentsize, o.e_shstrndx)] += 1
        c[('type', e['kind'], o.e_type)] += 1
        c[('flags == flags of every ABI-8 input', all(i.e_flags == o.e_flags for i in abi8), 'mixed' if len(abi8) != len(ins) else 'abi8')] += 1
        fl[e['arch']].add((hex(o.e_flags), tuple(sorted({hex(i.e_flags) for i in ins}))))
    for k, v in sorted(c.items(), key=str):
        print(v, k)
    for a, s in sorted(fl.items()):
        print(a, sorted(s))

if __name__ == '__main__':
    main()

def flags_rule():
    """e_flags = (index of .note.nv.cuinfo) << 24 | (low 24 bits of every ABI-8 input's e_flags)."""
    ok = n = 0
    for e, o, ins in elf.links():
        n += 1
        cu = o.byname['.note.nv.cuinfo'].idx
        low = {i.e_flags & 0xffffff for i in ins if i.abiver == 8}
        ins_ok = all((i.e_flags >> 24) == i.byname['.note.nv.cuinfo'].idx for i in ins if i.abiver == 8)
        if len(low) == 1 and o.e_flags == (cu << 24 | low.pop()) and ins_ok:
            ok += 1
        else:
            print('EXC', e['path'], hex(o.e_flags), cu)
    print(f'e_flags rule: {ok}/{n}')

if __name__ == '__main__':
    flags_rule()
