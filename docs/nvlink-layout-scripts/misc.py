"""Rules 7d-7h, 9, 6c: notes, compat, rel.action, callgraph, dead code, symbol values."""
import collections, struct, elf

def al(x, a):
    return (x + a - 1) // a * a if a > 1 else x

def main():
    c = collections.Counter(); ra = collections.Counter(); tk = collections.Counter()
    for e, o, ins in elf.links():
        k = e['kind'] + ('/merc' if '.nv.merc.symtab' in o.byname else '')
        c[(k, 'total')] += 1
        # tkinfo: one nvlink note first (exec only?) then the input notes concatenated in input order
        on = elf.notes(o.byname['.note.nv.tkinfo'].data)
        inn = [n for i in ins if '.note.nv.tkinfo' in i.byname for n in elf.notes(i.byname['.note.nv.tkinfo'].data)]
        if on[1:] == inn:
            desc = on[0][2]
            strs = desc[24:].split(b'\0')
            tk[(k, 'nvlink note + inputs in order', on[0][0], on[0][1], desc[:24].hex(), tuple(x.decode() for x in strs[:5]))] += 1
        elif on == inn:
            tk[(k, 'inputs only')] += 1
        else:
            # dedup?
            tk[(k, 'other', len(on), len(inn))] += 1
        # cuinfo: identical to first input's
        c[(k, 'cuinfo == cuinfo of first ABI-8 input')] += o.byname['.note.nv.cuinfo'].data == [i for i in ins if i.abiver == 8][0].byname['.note.nv.cuinfo'].data
        # compat
        if '.nv.compat' in o.byname:
            same = [i.byname['.nv.compat'].data for i in ins if '.nv.compat' in i.byname]
            c[(k, 'compat == every input compat' if all(x == o.byname['.nv.compat'].data for x in same) else 'compat differs from some input')] += 1
        else:
            c[(k, 'no compat; inputs with compat: %d/%d' % (sum('.nv.compat' in i.byname for i in ins), len(ins)))] += 1
        if '.nv.rel.action' in o.byname:
            ra[o.byname['.nv.rel.action'].data.hex()] += 1
        # callgraph: entries
        cg = o.byname['.nv.callgraph'].data
        ents = [struct.unpack_from('<ii', cg, j) for j in range(0, len(cg), 8)]
        def nm(x):
            return (o.symname(x) if x < len(o.syms) else '#%d' % x) if x >= 0 else '%#x' % (x & 0xffffffff)
        ocg = [(nm(a), nm(b)) for a, b in ents]
        mk = [x for x in ents if x[1] < 0]
        pairs = [x for x in ents if x[1] >= 0]
        c[(k, 'callgraph = (0,-1), call pairs, (0,-2), (0,-3), (0,-4)')] += ents == [(0, -1)] + pairs + [(0, -2), (0, -3), (0, -4)]
        c[(k, 'callgraph pairs sorted by caller symbol index (stable)')] += [a for a, b in pairs] == sorted(a for a, b in pairs)
        # dead functions
        idef = {y.name for i in ins for y in i.syms if y.type == 2 and y.shndx}
        odef = {y.name for y in o.syms if y.type == 2 and y.shndx}
        dead = idef - odef
        c[(k, 'functions dropped: %s' % ('none' if not dead else 'some'))] += 1
        # symbol values of data objects in merged sections
        for y in o.syms:
            if y.type in (1, 13) and y.shndx and y.bind == 1:
                sec = o.secs[y.shndx].name
                cur = 0; found = None
                for i in ins:
                    if sec not in i.byname:
                        continue
                    s = i.byname[sec]; base = al(cur, s.align); cur = base + s.size
                    for z in i.syms:
                        if z.name == y.name and z.shndx == s.idx and found is None:
                            found = z.value + base
                if found is not None:
                    c[(k, 'global data symbol value = input value + contribution base')] += found == y.value
                    c[(k, 'global data symbols checked')] += 1
    for key, v in sorted(c.items(), key=str):
        print(v, key)
    for key, v in sorted(tk.items(), key=str):
        print(v, key)
    for key, v in ra.items():
        print(v, 'rel.action bytes', key)

if __name__ == '__main__':
    main()
