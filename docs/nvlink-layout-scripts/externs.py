"""Rule 7c: EIATTR_EXTERNS (0x0f) in .nv.info.<fn>."""
import collections, struct, elf
F = {0x19, 0x0a, 0x36, 0x6b, 0x6d}
def main():
    c = collections.Counter()
    for e, o, ins in elf.links():
        merc = '.nv.merc.symtab' in o.byname
        k = e['kind'] + ('/merc' if merc else '')
        for s in o.secs:
            if not s.name.startswith('.nv.info.'): continue
            src = next(i for i in ins if s.name in i.byname)
            it = elf.tlvs(src.byname[s.name].data)
            iext = [v for f, a, v in it if a == 0x0f]
            if not iext: continue
            isyms = [src.symname(x) for x in struct.unpack('<%dI' % (len(iext[0]) // 4), iext[0])]
            rec = elf.tlvs(s.data)
            oext = [(j, v) for j, (f, a, v) in enumerate(rec) if a == 0x0f]
            undef_in_out = [n for n in isyms if not any(y.name == n and y.shndx for y in o.syms)]
            if not oext:
                c[(k, 'EXTERNS dropped', 'all externs defined in output' if not undef_in_out else 'SOME UNDEFINED')] += 1
                continue
            j, v = oext[0]
            osyms = [o.symname(x) for x in struct.unpack('<%dI' % (len(v) // 4), v)]
            ntail = sum(1 for f, a, _ in rec if a in F) if merc else 0
            c[(k, 'EXTERNS kept', 'lists exactly the still-undefined externs' if osyms == undef_in_out else ('same list' if osyms == isyms else 'other'),
               'position: last before Mercury group' if j == len(rec) - 1 - ntail else 'pos %d/%d' % (j, len(rec)))] += 1
    for key, v in sorted(c.items(), key=str): print(v, key)
if __name__ == '__main__': main()
