"""Rule 7b (model): per-function .nv.info.<fn>.
base = reverse(input records) without EXTERNS (0x0f)
 exec, non-Mercury: + EXTERNS (only if an extern stays undefined, listing those) + NUM_BARRIERS (0x4c) if added
 Mercury (sm_100+): the 'finalizer group' F = {CBANK_PARAM_SIZE 0x19, PARAM_CBANK 0x0a, SW_WAR 0x36, 0x6b, 0x6d}
   is taken out of the reversal and re-appended in input order; exec may append BINDLESS_*_BANK after it."""
import collections, struct, elf

F = {0x19, 0x0a, 0x36, 0x6b, 0x6d}

def main():
    c = collections.Counter()
    for e, o, ins in elf.links():
        merc = '.nv.merc.symtab' in o.byname
        k = e['kind'] + ('/merc' if merc else '')
        for s in o.secs:
            if not s.name.startswith('.nv.info.'):
                continue
            src = next((i.byname[s.name] for i in ins if s.name in i.byname), None)
            out = [a for f, a, v in elf.tlvs(s.data)]
            inp = [a for f, a, v in elf.tlvs(src.data)]
            if merc:
                exp = [a for a in inp[::-1] if a not in F and a != 0x0f]
                tail = [a for a in inp if a in F]
            else:
                exp = [a for a in inp[::-1] if a != 0x0f]; tail = []
            added = [a for a in out if a not in inp]
            core = [a for a in out if a in inp and a != 0x0f]
            c[(k, 'total')] += 1
            c[(k, 'model holds (ignoring appended attrs and EXTERNS)')] += core == exp + tail
            if core != exp + tail:
                print('EXC', e['path'], s.name, out, exp + tail)
            if 0x0f in out:
                c[(k, 'EXTERNS kept (as last record before the Mercury group)')] += 1
            for a in added:
                c[(k, 'appended attr %#x' % a)] += 1
            n = len(tail)
            body = out[:len(out) - n - len([a for a in added if a in (0x15, 0x16)])] if merc else out
            c[(k, 'appended attrs come after the reversed records')] += all(a in added or a == 0x0f for a in body[len(exp):])
    for key, v in sorted(c.items(), key=str):
        print(v, key)

if __name__ == '__main__':
    main()
