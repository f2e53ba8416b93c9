"""Rule 7a: global .nv.info merge.
-r  : out = reverse(concat(input records)), (0x5f records are NOT deduplicated),
      records of weak functions that lost resolution dropped.
exec: same, minus MAX_STACK_SIZE (0x23) records and records of dropped (dead) functions, REGCOUNT may be
      raised, then one MIN_STACK_SIZE (0x12) record per kernel appended (kernel order = symtab order)."""
import collections, struct, elf

SYMATTR = {0x2f, 0x11, 0x23, 0x12, 0x3b}

def recs(o, sec):
    out = []
    for fmt, attr, v in elf.tlvs(sec.data):
        if fmt == 4 and attr in SYMATTR and len(v) == 8:
            i, val = struct.unpack('<II', v)
            out.append((attr, o.symname(i), val))
        else:
            out.append((attr, fmt, v))
    return out

def main():
    c = collections.Counter()
    for e, o, ins in elf.links():
        k = e['kind']
        if '.nv.merc.symtab' in o.byname:
            k += '/merc'
        out = recs(o, o.byname['.nv.info'])
        cat = []
        for i in ins:
            cat += recs(i, i.byname['.nv.info'])
        rev = cat[::-1]
        # keep only first 0x5f, drop records of functions without a surviving definition
        defined = {y.name for y in o.syms if y.type == 2 and y.shndx}
        exp, seen5f = [], False
        for r in rev:
            if len(r) == 3 and isinstance(r[1], str) and r[1] not in defined:
                continue
            exp.append(r)
        # weak duplicates: keep the first occurrence per (attr, function) in the reversed list? test both
        def dedup(lst, keep_last):
            seen = set(); res = []
            it = lst[::-1] if keep_last else lst
            for r in it:
                key = r[:2] if isinstance(r[1], str) else None
                if key and key in seen: continue
                if key: seen.add(key)
                res.append(r)
            return res[::-1] if keep_last else res
        cands = {'first': dedup(exp, False), 'last': dedup(exp, True)}
        if k.startswith('linked'):
            for n, x in cands.items():
                x = [r for r in x if r[0] != 0x23]
                kern = [y.name for y in o.syms if y.type == 2 and y.other & 0x10 and y.shndx]
                mins = [r for r in out if r[0] == 0x12]
                x += mins
                cands[n] = x
        # compare ignoring REGCOUNT value changes in exec (propagation)
        def norm(lst):
            return [(r[0], r[1]) if (k.startswith('linked') and r[0] == 0x2f) else r for r in lst]
        hit = [n for n, x in cands.items() if norm(x) == norm(out)]
        c[(k, tuple(hit))] += 1
        if not hit and c[(k, 'shown')] < 4:
            c[(k, 'shown')] += 1
            print('EXC', e['path']); print('   out', out); print('   exp', cands['first'])
        if k.startswith('linked'):
            kern = [y.name for y in o.syms if y.type == 2 and y.other & 0x10 and y.shndx]
            c[(k, 'MIN_STACK_SIZE records = one per kernel, at the end, kernel symtab order')] += [r[1] for r in out if r[0] == 0x12] == kern and all(r[0] == 0x12 for r in out[len(out) - len(kern):])
    for key, v in sorted(c.items(), key=str):
        print(v, key)

if __name__ == '__main__':
    main()
