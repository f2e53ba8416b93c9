"""Rule 3c: program headers of executables, recomputed from the section headers."""
import collections, elf
from offsets import NOBITS

def al(x, a):
    return (x + a - 1) // a * a if a > 1 else x

def expected(o):
    merc = '.nv.merc.symtab' in o.byname
    alloc = [s for s in o.secs[1:] if s.flags & 2 and not s.flags & 0x10000000]
    def perm(s):
        if s.flags & 1:
            return 6                      # SHF_WRITE -> PF_R|PF_W
        if s.flags & 4 or not merc:
            return 5                      # text (and, before sm_100, constant banks) -> PF_R|PF_X
        return 4                          # sm_100+: read-only constant banks -> PF_R
    runs = []
    for s in alloc:
        p = perm(s)
        if runs and runs[-1][0] == p:
            runs[-1][1].append(s)
        else:
            runs.append((p, [s]))
    segs = []
    for p, ss in runs:
        start = ss[0].offset
        fend = start
        mem = start                       # memory image simulated at the file offsets
        for s in ss:
            mem = al(mem, s.align) + s.size
            # file size ends at the last PROGBITS end, or at the (aligned) offset of a later NOBITS section
            fend = max(fend, s.offset + (0 if s.type in NOBITS else s.size))
        segs.append((1, p, start, 0, 0, fend - start, mem - start, 8))
    n = len(segs) + 2
    pf = 4 if merc else 5
    ph = (6, pf, o.e_phoff, 0, 0, 56 * n, 56 * n, 8)
    ld = (1, pf, o.e_phoff, 0, 0, 56 * n, 56 * n, 8)
    return [ph, ld] + segs if merc else [ph] + segs + [ld]

def main():
    ok = collections.Counter(); tot = collections.Counter()
    for e, o, ins in elf.links('linked'):
        k = e['arch']
        tot[k] += 1
        x = expected(o)
        if [tuple(p) for p in o.phdrs] == x:
            ok[k] += 1
        else:
            print('EXC', e['path'])
            for a, b in zip(o.phdrs, x):
                print('   got', ' '.join('%x' % v for v in a), '\n   exp', ' '.join('%x' % v for v in b))
    print('exec links:', sum(ok.values()), '/', sum(tot.values()), dict(ok))

if __name__ == '__main__':
    main()
