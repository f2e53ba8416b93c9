"""Rule 1b: within each section class the output order equals first appearance over the
inputs (input files in command-line order, sections in section-header order), restricted
to the names that survive into the output."""
import collections, elf, classes

def check(verbose=False):
    ok = collections.Counter(); tot = collections.Counter(); bad = collections.defaultdict(list)
    for e, o, ins in elf.links():
        outnames = [s.name for s in o.secs[1:]]
        bycls = collections.defaultdict(list)
        for s in o.secs[1:]:
            bycls[classes.cls(s)].append(s.name)
        for c, names in bycls.items():
            if len(names) < 2:
                continue
            seen = []
            for i in ins:
                for s in i.secs[1:]:
                    if s.name in names and s.name not in seen:
                        seen.append(s.name)
            new = [n for n in names if n not in seen]
            exp = seen + new
            key = (e['kind'][:5], c)
            tot[key] += 1
            if exp == names:
                ok[key] += 1
            else:
                bad[key].append((e['path'], names, exp))
    for k in sorted(tot):
        print(f"{k}: {ok[k]}/{tot[k]}")
        if verbose:
            for p, n, x in bad[k][:3]:
                print('   ', p, '\n      out', n, '\n      exp', x)
    return bad

if __name__ == '__main__':
    import sys
    check('-v' in sys.argv)
