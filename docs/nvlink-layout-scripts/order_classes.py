"""Rule 1a: the output section order is a fixed class rank (stable, ties broken by rule 1b)."""
import collections, elf, classes

RANK = ['.shstrtab', '.strtab', '.symtab', 'debug', '.note.nv.tkinfo', '.note.nv.cuinfo', '.nv.info',
        '.nv.compat', '.nv.info.F', '.nv.callgraph', '.nv.prototype', '.nv.rel.action', 'rela',
        'const', 'text', 'global.init', 'shared', 'global', 'const0-merc',
        'MERC:.symtab', 'MERC:debug', 'MERC:.nv.info', 'MERC:.nv.info.F', 'MERC:.nv.callgraph',
        'MERC:.nv.prototype', 'MERC:rela', 'MERC:const', 'MERC:other:.capmerc', 'MERC:global.init']

def is_merc(o):
    return any(s.name == '.nv.merc.symtab' for s in o.secs)

def key(o, s):
    c = classes.cls(s)
    if c == 'const' and is_merc(o) and s.name.startswith('.nv.constant0.'):
        c = 'const0-merc'
    return RANK.index(c)

def main():
    ok = collections.Counter(); tot = collections.Counter()
    for e, o, ins in elf.links():
        ks = [key(o, s) for s in o.secs[1:]]
        k = (e['kind'], 'merc' if is_merc(o) else 'non-merc')
        tot[k] += 1
        if ks == sorted(ks):
            ok[k] += 1
        else:
            print('  EXC', e['path'], [(s.name, RANK[key(o, s)]) for s, a, b in zip(o.secs[1:], ks, ks[1:] + [99]) if a > b])
    for k in sorted(tot):
        print(k, f'{ok[k]}/{tot[k]}')

if __name__ == '__main__':
    main()
