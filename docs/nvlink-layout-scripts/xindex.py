"""Rule 3.6: extended section numbering (SHN_XINDEX) in nvlink's output.

Generates objects of N tiny device functions called by one kernel (each
function gives `.text.<f>` and `.nv.info.<f>`; on sm_100+ also the merc
copies), assembles them with ptxas, links sets of them with nvlink around the
thresholds and prints, per output: e_shnum, e_shstrndx, section 0's
sh_size/sh_link, the `SHT_SYMTAB_SHNDX` sections (header index, fields), how
the symbols encode their section (direct, SHN_XINDEX, raw reserved values)
and the program headers. With --develf PATH it also links with develf and
says whether the bytes are the same.

usage: python3 xindex.py WORKDIR [--nvlink DIR] [--develf PATH] [--quick]
(DIR holds ptxas and nvlink; default target/toolchains/cuda13/nvidia/cu13/bin.
--quick: only the sm_90 links around the `.symtab_shndx` threshold.)
"""
import os, struct, subprocess, sys
from concurrent.futures import ThreadPoolExecutor

ROOT = os.path.normpath(os.path.join(os.path.dirname(os.path.abspath(__file__)), '..', '..'))
FULL = 800


def ptx(j, nf, calls=0, globs=0, arch='sm_90', lineinfo=False):
    o = [f".version 9.0\n.target {arch}\n.address_size 64\n"]
    if lineinfo:
        o.append('.file 1 "x.cu"\n')
    o += [f".visible .global .align 4 .b32 gv_{j}_{g};\n" for g in range(globs)]
    o += [f".visible .func f_{j}_{i}(.param .b64 p);\n" for i in range(nf)]
    loc = " .loc 1 3 0\n" if lineinfo else ""
    for i in range(nf):
        o.append(f".visible .func f_{j}_{i}(.param .b64 p)\n{{\n .reg .b64 %rd<2>;\n{loc} ld.param.b64 %rd1, [p];\n"
                 f" st.global.u32 [%rd1+{4*i}], {i};\n")
        if i < calls:  # one call more: a `.rela.text.<f>` more, no symbol more
            o.append(f" {{ .param .b64 a; st.param.b64 [a], %rd1; call.uni f_{j}_{nf-1}, (a); }}\n")
        o.append(" ret;\n}\n")
    o.append(f".visible .entry k_{j}(.param .b64 q)\n{{\n .reg .b64 %rd<2>;\n{loc} ld.param.b64 %rd1, [q];\n")
    o += [f" {{ .param .b64 a; st.param.b64 [a], %rd1; call.uni f_{j}_{i}, (a); }}\n" for i in range(nf)]
    o += [f" st.global.u32 [gv_{j}_{g}], {g};\n" for g in range(globs)]
    o.append(" ret;\n}\n")
    return "".join(o)


def cstr(b, o):
    return b[o:b.index(b'\0', o)].decode('latin1')


def report(path):
    d = open(path, 'rb').read()
    (et, _, _, _, phoff, shoff, _, _, _, phnum, _, shnum, shstrndx) = struct.unpack_from('<HHIQQQIHHHHHH', d, 16)
    s0 = struct.unpack_from('<IIQQQQIIQQ', d, shoff)
    n = shnum or s0[5]
    secs = [struct.unpack_from('<IIQQQQIIQQ', d, shoff + 64 * i) for i in range(n)]
    strx = s0[6] if shstrndx == 0xffff else shstrndx
    shs = d[secs[strx][4]:secs[strx][4] + secs[strx][5]]
    names = [cstr(shs, s[0]) for s in secs]
    out = [f"  e_shnum={shnum} e_shstrndx={shstrndx:#x} s0.sh_size={s0[5]} s0.sh_link={s0[6]} sections={n}"]
    tables = {i: s for i, s in enumerate(secs) if s[1] == 18}
    if not tables:
        out.append("  no SHT_SYMTAB_SHNDX")
    for i, x in tables.items():
        # the gap nvlink leaves after .symtab (sm_90): zeros of the table's size
        st = secs[x[6]]
        gap = d[st[4] + st[5]:st[4] + st[5] + x[5]]
        entries = struct.unpack_from(f'<{x[5] // 4}I', d, x[4])
        out.append(f"  [{i}] {names[i]} after [{i-1}] {names[i-1]}: flags={x[2]:#x} off={x[4]:#x} size={x[5]} "
                   f"link={x[6]} ({names[x[6]]}) info={x[7]} align={x[8]} entsize={x[9]}; "
                   f"zero gap of its size after {names[x[6]]}: {not any(gap) and len(gap) == x[5]}")
        kinds = {}
        for k in range(st[5] // 24):
            raw = struct.unpack_from('<H', d, st[4] + 24 * k + 6)[0]
            e = entries[k]
            if raw == 0xffff:
                key = f"SHN_XINDEX, entry>=0xff00: {e >= 0xff00}"
            elif raw >= 0xff00:
                key = f"raw {raw:#x}, entry {e}"
            elif raw == 0:
                key = f"SHN_UNDEF, entry {e}"
            else:
                key = f"direct, entry == st_shndx: {e == raw}, entry 0: {e == 0}"
            kinds[key] = kinds.get(key, 0) + 1
        for key, count in sorted(kinds.items()):
            out.append(f"      {names[x[6]]} symbols: {key}: {count}")
    for i in range(phnum):
        out.append("  phdr " + str(struct.unpack_from('<IIQQQQQQ', d, phoff + 56 * i)))
    return "\n".join(out)


def main():
    args = sys.argv[1:]
    if not args:
        sys.exit(__doc__)
    work = args[0]
    bindir = os.path.join(ROOT, 'target/toolchains/cuda13/nvidia/cu13/bin')
    develf = None
    if '--nvlink' in args:
        bindir = args[args.index('--nvlink') + 1]
    if '--develf' in args:
        develf = args[args.index('--develf') + 1]
    quick = '--quick' in args
    os.makedirs(work, exist_ok=True)

    def obj(arch, j, nf, calls=0, globs=0, lineinfo=False):
        name = os.path.join(work, f"{arch}_{j}_{nf}_{calls}_{globs}{'_g' if lineinfo else ''}")
        if not os.path.exists(name + '.cubin'):
            open(name + '.ptx', 'w').write(ptx(j, nf, calls, globs, arch, lineinfo))
            cmd = [os.path.join(bindir, 'ptxas'), f'-arch={arch}', '-m64', '--compile-only', name + '.ptx', '-o', name + '.cubin']
            if lineinfo:
                cmd.insert(-2, '-lineinfo')
            subprocess.run(cmd, check=True)
        return name + '.cubin'

    full90 = lambda n: [(('sm_90', j, FULL), {}) for j in range(n)]
    full100 = lambda n: [(('sm_100', j, FULL), {}) for j in range(n)]
    links = [  # (label, arch, -r, objects)
        ('40 x 800', 'sm_90', False, full90(40)),
        ('40 x 800 + 509', 'sm_90', False, full90(40) + [(('sm_90', 40, 509), {})]),
        ('40 x 800 + 510', 'sm_90', False, full90(40) + [(('sm_90', 40, 510), {})]),
        ('40 x 800 + 531', 'sm_90', True, full90(40) + [(('sm_90', 40, 531), {})]),
        ('40 x 800 + 532', 'sm_90', True, full90(40) + [(('sm_90', 40, 532), {})]),
        ('40 x 800 + 551 (65,280 sections)', 'sm_90', False, full90(40) + [(('sm_90', 40, 551), {})]),
        ('40 x 800 + 552', 'sm_90', False, full90(40) + [(('sm_90', 40, 552), {})]),
    ]
    if not quick:
        links += [
            ('41 x 800', 'sm_90', False, full90(41)),
            ('41 x 800', 'sm_90', True, full90(41)),
            ('40 x 800 + 679 (65,536)', 'sm_90', False, full90(40) + [(('sm_90', 40, 679), {})]),
            ('40 x 800 + 680', 'sm_90', False, full90(40) + [(('sm_90', 40, 680), {})]),
            ('39 x 800 + 400 + 910', 'sm_90', False, full90(39) + [(('sm_90', 39, 400), {}), (('sm_90', 40, 910), {})]),
            ('39 x 800 + 400 + 909 (1 call)', 'sm_90', False,
             full90(39) + [(('sm_90', 39, 400), {}), (('sm_90', 40, 909, 1), {})]),
            ('39 x 800 + 400 + 931', 'sm_90', True, full90(39) + [(('sm_90', 39, 400), {}), (('sm_90', 40, 931), {})]),
            ('39 x 800 + 400 + 931 (1 call)', 'sm_90', True,
             full90(39) + [(('sm_90', 39, 400), {}), (('sm_90', 40, 931, 1), {})]),
            ('40 x 800 + 552 -lineinfo', 'sm_90', False, full90(40) + [(('sm_90', 40, 552), {'lineinfo': True})]),
            ('20 x 800', 'sm_100', False, full100(20)),
            ('20 x 800 + 278 (1 call)', 'sm_100', False, full100(20) + [(('sm_100', 20, 278, 1), {})]),
            ('20 x 800 + 278 (1 call)', 'sm_100', True, full100(20) + [(('sm_100', 20, 278, 1), {})]),
            ('20 x 800 + 279', 'sm_100', False, full100(20) + [(('sm_100', 20, 279), {})]),
            ('20 x 800 + 279', 'sm_100', True, full100(20) + [(('sm_100', 20, 279), {})]),
            ('22 x 800', 'sm_100', False, full100(22)),
        ]
    wanted = sorted({(a, kw.get('lineinfo', False)) for _, _, _, objs in links for a, kw in objs})
    with ThreadPoolExecutor(max_workers=os.cpu_count() or 2) as pool:
        list(pool.map(lambda w: obj(*w[0], lineinfo=w[1]), wanted))
    for label, arch, relocatable, objs in links:
        inputs = [obj(*a, **kw) for a, kw in objs]
        mode = ['-r'] if relocatable else []
        out = os.path.join(work, 'nvlink.cubin')
        subprocess.run([os.path.join(bindir, 'nvlink'), f'-arch={arch}', *mode, *inputs, '-o', out], check=True)
        print(f"{arch} {'-r' if relocatable else 'exec'} {label}:")
        print(report(out))
        if develf:
            mine = os.path.join(work, 'develf.cubin')
            r = subprocess.run([develf, 'nvlink', f'-arch={arch}', *mode, *inputs, '-o', mine], capture_output=True)
            same = r.returncode == 0 and open(mine, 'rb').read() == open(out, 'rb').read()
            print(f"  develf: {'byte-identical' if same else 'DIFFERENT: ' + r.stderr.decode()[-200:]}")


if __name__ == '__main__':
    main()
