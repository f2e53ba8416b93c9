"""Rule 1b': within a class, the header order equals the order of the names in .shstrtab
(= nvlink's internal section creation order, which also lists sections that were created and
later dropped)."""
import collections, elf, classes
from order_classes import key

def main():
    ok = collections.Counter(); tot = collections.Counter()
    for e, o, ins in elf.links():
        sh = [x.decode('latin1') for x in o.secs[o.e_shstrndx].data.split(b'\0')]
        rank = {}
        for i, n in enumerate(sh):
            rank.setdefault(n, i)
        secs = o.secs[1:]
        exp = sorted(secs, key=lambda s: (key(o, s), rank[s.name]))
        k = e['kind']
        tot[k] += 1
        if [s.name for s in exp] == [s.name for s in secs]:
            ok[k] += 1
        else:
            bad = [(a.name, b.name) for a, b in zip(secs, exp) if a.name != b.name]
            print('EXC', e['path'], bad[:3])
    for k in tot:
        print(k, f'{ok[k]}/{tot[k]}')

if __name__ == '__main__':
    main()
