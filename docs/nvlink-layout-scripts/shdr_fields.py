"""Rule 2: sh_type / sh_flags / sh_link / sh_info / sh_addralign / sh_entsize per class, exec vs -r.
Prints every distinct combination with its count (info/link expressed symbolically)."""
import collections, elf, classes

def main():
    c = collections.Counter()
    for e, o, ins in elf.links():
        merc = '.nv.merc.symtab' in o.byname
        k = e['kind'][:5] + ('/merc' if merc else '')
        symidx = {y.name: y.idx for y in o.syms if y.type == 2}
        for s in o.secs[1:]:
            if s.name.startswith('.nv.merc') or s.name.startswith('.nv.capmerc'):
                continue
            cl = classes.cls(s)
            if cl == 'const':
                cl = s.name.split('.')[2] + ('.F' if s.name.count('.') > 2 else '')
            def sect(i):
                if i == 0: return '0'
                n = o.secs[i].name if i < len(o.secs) else '?'
                if s.name.endswith(n[n.find('.', 1):]) and n != s.name: return 'idx(matching ' + classes.cls(o.secs[i]) + ')'
                return 'idx(' + n + ')' if not n.startswith('.text') else 'idx(.text.*)'
            info = s.info
            if cl == 'text':
                fn = s.name[6:]
                infos = 'symidx(fn)' if symidx.get(fn) == s.info else str(s.info)
                flags = '%#x' % s.flags
            else:
                infos = sect(info) if s.flags & 0x40 or cl in ('.note.nv.cuinfo',) else str(info)
                if cl == '.symtab': infos = '#locals'
                flags = '%#x' % s.flags
            c[(k, cl, '%#x' % s.type, flags, 'link=' + (sect(s.link) if s.link else '0'), 'info=' + infos, 'align=%d' % s.align, 'es=%d' % s.entsize)] += 1
    for key, v in sorted(c.items()):
        print(v, *key)

if __name__ == '__main__':
    main()
