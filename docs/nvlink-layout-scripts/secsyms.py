"""Rule 5b: which output sections get an STT_SECTION symbol (per class, exec vs -r)."""
import collections, elf, classes
def main():
    c = collections.Counter()
    for e, o, ins in elf.links():
        k = e['kind'][:5] + ('/merc' if '.nv.merc.symtab' in o.byname else '')
        have = {y.shndx for y in o.syms if y.type == 3}
        for s in o.secs[1:]:
            if s.name.startswith('.nv.merc') or s.name.startswith('.nv.capmerc'): continue
            c[(k, classes.cls(s), s.idx in have)] += 1
    for key, v in sorted(c.items()): print(v, key)
if __name__ == '__main__': main()
