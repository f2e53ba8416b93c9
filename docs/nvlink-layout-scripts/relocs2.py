"""Rule 8b/6b: relocation order model and merged-section contribution offsets.
For a merged output section X, input i's X is placed at base_i = align_up(cur, align_i), cur = base_i + size_i
(inputs in command-line order; for .text.* only the winning definition).  The output .rel[a].X list equals
reverse(concat_i(input list of i, offsets + base_i)) minus the dropped relocations."""
import collections, struct, elf
from relocs import rnames

def rl(f, s):
    if s.type == 4:
        return [(a, b, f.symname(c), d) for a, b, c, d in f.relocs(s)]
    out = []
    for j in range(s.size // 16):
        a, b = struct.unpack_from('<QQ', s.data, 16 * j)
        out.append((a, b & 0xffffffff, f.symname(b >> 32), None))
    return out

def al(x, a):
    return (x + a - 1) // a * a if a > 1 else x

def is_subseq(sub, seq):
    it = iter(seq)
    return all(any(x == y for y in it) for x in sub)

def main():
    RN = rnames()
    c = collections.Counter()
    for e, o, ins in elf.links():
        k = e['kind'] + ('/merc' if '.nv.merc.symtab' in o.byname else '')
        for s in o.secs:
            if s.type not in (4, 9) or s.name.startswith('.nv.merc'):
                continue
            tgt = o.secs[s.info]
            out = [(a, b, n) for a, b, n, d in rl(o, s)]
            cat = []; cur = 0
            for i in ins:
                if tgt.name not in i.byname:
                    continue
                isec = i.byname[tgt.name]
                base = al(cur, isec.align) if not tgt.name.startswith('.text.') else 0
                cur = base + isec.size
                for r in i.secs:
                    if r.type in (4, 9) and i.secs[r.info].name == tgt.name and not r.name.startswith('.nv.merc'):
                        cat += [(a + base, b, n) for a, b, n, d in rl(i, r)]
                if tgt.name.startswith('.text.'):
                    break   # first definition wins (weak)
            if not cat:
                c[(k, 'rel section without input relocations', s.name.split('.')[2] if s.name.count('.') > 1 else s.name)] += 1
                continue
            c[(k, 'total')] += 1
            ok = is_subseq(out, cat[::-1])
            c[(k, 'output = subsequence of reverse(concat(inputs))')] += ok
            if not ok and c[(k, 'shown')] < 3:
                c[(k, 'shown')] += 1
                print('EXC', e['path'], s.name, [(hex(a), RN.get(b), n) for a, b, n in out][:6], [(hex(a), RN.get(b), n) for a, b, n in cat[::-1]][:8])
            c[(k, 'merged size == concat with alignment')] += (cur == tgt.size) or tgt.name.startswith('.text.')
    for key, v in sorted(c.items(), key=str):
        print(v, key)

if __name__ == '__main__':
    main()
