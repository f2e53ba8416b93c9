"""Rules 4b/5/6: .strtab order, .symtab structure, addresses."""
import collections, elf

UFT = {'__UDT_OFFSET', '__UFT_OFFSET', '__UFT_CANONICAL', '__UDT_CANONICAL', '__UFT', '__UDT', '__UFT_END', '__UDT_END'}

def strs(b):
    return [x.decode('latin1') for x in b.split(b'\0')[1:-1]]

def main():
    c = collections.Counter()
    def chk(k, name, cond, path):
        c[(k, name)] += bool(cond)
        if not cond and c[('x', k, name)] < 3:
            c[('x', k, name)] += 1
            print('  EXC', name, path)
    for e, o, ins in elf.links():
        k = e['kind']; p = e['path']
        c[(k, 'total')] += 1
        syms = o.syms
        nloc = sum(1 for y in syms if y.bind == 0)
        chk(k, 'locals first, sh_info = #locals', all(y.bind == 0 for y in syms[:nloc]) and o.symtab.info == nloc, p)
        chk(k, 'all sh_addr == 0', all(s.addr == 0 for s in o.secs), p)
        names = {y.name for y in syms}
        if k == 'linked':
            chk(k, 'exec: no __UFT*/__UDT* symbols', not (names & UFT), p)
        else:
            chk(k, '-r: all 8 __UFT*/__UDT* kept, STB_GLOBAL', all(any(y.name == u and y.bind == 1 for y in syms) for u in UFT), p)
        chk(k, 'no STB_WEAK symbol', all(y.bind != 2 for y in syms), p)
        sh = strs(o.secs[o.e_shstrndx].data)
        # section symbols: order follows creation (shstrtab) order
        ss = [o.secs[y.shndx].name for y in syms if y.type == 3]
        chk(k, 'section symbols in creation order', ss == sorted(ss, key=sh.index), p)
        chk(k, 'section symbol st_name -> section name', all(o.symname(y.idx) == o.secs[y.shndx].name and y.name == o.secs[y.shndx].name for y in syms if y.type == 3), p)
        # each local non-section symbol comes after its section's section symbol
        good = True; cur = None
        for y in syms[1:nloc]:
            if y.type == 3:
                cur = y.shndx
            elif y.shndx != cur:
                good = False
        chk(k, 'local data symbols follow their section symbol', good, p)
        # strtab layout
        st = strs(o.secs[o.symtab.link].data)
        protos = [x for x in st if x.startswith('#')]
        chk(k, 'strtab starts with the prototype strings', st[:len(protos)] == protos, p)
        rest = st[len(protos):]
        secnames = [x for x in rest if x in sh]
        sw = list(sh)
        for i in range(len(sw) - 1):
            if sw[i + 1] in ('.rel' + sw[i], '.rela' + sw[i]) and sw[i].startswith('.nv.constant'):
                sw[i], sw[i + 1] = sw[i + 1], sw[i]
        chk(k, 'strtab section names = shstrtab names (.rel.nv.constantN.X swapped before .nv.constantN.X)', secnames == sw, p)
        glob = [y.name for y in syms[nloc:]]
        tail = rest[len(rest) - len([x for x in rest if x in set(glob) | UFT and x not in sh]):]
        chk(k, 'strtab ends with global names in symtab order (exec: incl. dropped __UFT/__UDT)', [x for x in tail if x not in UFT or k != 'linked'] == glob, p)
        chk(k, 'no duplicate strings in strtab', len(st) == len(set(st)), p)
        chk(k, 'no duplicate strings in shstrtab', len(sh) == len(set(sh)), p)
    for key, v in sorted(c.items(), key=str):
        if key[0] != 'x':
            print(v, key)

if __name__ == '__main__':
    main()
