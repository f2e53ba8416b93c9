"""Rule 3: file offsets.  off = 0x40; for each section in header order (skipping aliases):
off = align_up(off, sh_addralign); sh_offset = off; off += size (0 for NOBITS).
NOBITS-like types (8, CUDA_GLOBAL, CUDA_LOCAL, CUDA_SHARED, CUDA_SHARED_RESERVED) get an
aligned offset but do not advance off.  Then e_merc = '.nv.merc.symtab' in o.byname
        shoff = off if merc else al(off, 8) (no alignment); e_phoff = e_shoff + 64*e_shnum (exec) else 0."""
import collections, elf

NOBITS = {8, 0x70000007, 0x70000009, 0x7000000a, 0x70000015}

def al(x, a):
    return (x + a - 1) // a * a if a > 1 else x

def alias_target(o, s):
    """.nv.merc.X sections that share their bytes with a non-merc section."""
    m = {'.nv.merc.nv.constant.user': '.nv.constant3', '.nv.merc.nv.global.init': '.nv.global.init'}
    t = m.get(s.name)
    if t is None and s.name.startswith('.nv.merc.nv_debug_ptx_txt.'):
        t = s.name[len('.nv.merc'):]
    return o.byname.get(t) if t else None

def main():
    ok = collections.Counter(); tot = collections.Counter(); exc = []
    for e, o, ins in elf.links():
        k = e['kind']
        off = 0x40
        good = True
        why = ''
        for s in o.secs[1:]:
            t = alias_target(o, s)
            if t is not None:
                if s.offset != t.offset or s.size != t.size or s.data != t.data:
                    good = False; why = f'alias {s.name}'
                continue
            exp = al(off, s.align)
            if s.offset != exp:
                good = False; why = f'{s.name} off={s.offset:#x} exp={exp:#x}'
                break
            off = exp + (0 if s.type in NOBITS else s.size)
        tot[k] += 1
        merc = '.nv.merc.symtab' in o.byname
        shoff = off if merc else al(off, 8)
        if good and o.e_shoff != shoff:
            good = False; why = f'e_shoff {o.e_shoff:#x} exp {shoff:#x}'
        ph = o.e_shoff + 64 * o.e_shnum if o.e_type == 2 else 0
        if good and o.e_phoff != ph:
            good = False; why = f'e_phoff {o.e_phoff:#x} exp {ph:#x}'
        if good and len(o.data) != (ph + 56 * o.e_phnum if o.e_type == 2 else o.e_shoff + 64 * o.e_shnum):
            good = False; why = f'file size {len(o.data):#x}'
        if good:
            ok[k] += 1
        else:
            exc.append((e['path'], why))
    for k in tot:
        print(k, f'{ok[k]}/{tot[k]}')
    for x in exc:
        print('  EXC', *x)

if __name__ == '__main__':
    main()
