"""Rule 2b: .text.<fn> sh_info = (X << 24) | symidx(fn); check X against the output REGCOUNT and input sh_info."""
import collections, struct, elf
def main():
    c = collections.Counter()
    for e, o, ins in elf.links():
        k = e['kind'][:5] + ('/merc' if '.nv.merc.symtab' in o.byname else '')
        regs = {}
        for f, a, v in elf.tlvs(o.byname['.nv.info'].data):
            if a == 0x2f and f == 4:
                i, r = struct.unpack('<II', v); regs[o.symname(i)] = r
        for s in o.secs:
            if not s.name.startswith('.text.'): continue
            fn = s.name[6:]
            idx = next(y.idx for y in o.syms if y.name == fn and y.type == 2)
            src = next(i.byname[s.name] for i in ins if s.name in i.byname)
            c[(k, 'low 24 bits = output symidx(fn)')] += (s.info & 0xffffff) == idx
            c[(k, 'high byte == high byte of the input .text sh_info')] += (s.info >> 24) == (src.info >> 24)
            c[(k, 'sh_flags == input sh_flags')] += s.flags == src.flags
            c[(k, 'total')] += 1
    for key, v in sorted(c.items()): print(v, key)
if __name__ == '__main__': main()
