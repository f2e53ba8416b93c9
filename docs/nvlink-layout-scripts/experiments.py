"""Re-run the order/offset/phdr/.nv.info checks on ad-hoc nvlink runs made in /tmp/nlx
(see the commands in the doc)."""
import elf, os, sys
EXP = [
    ('/tmp/nlx/calls_swap.cubin', 'linked', ['obj/sm_90/calls_lib.cubin', 'obj/sm_90/calls_main.cubin']),
    ('/tmp/nlx/calls_swap_r.cubin', 'relocatable-link', ['obj/sm_90/calls_lib.cubin', 'obj/sm_90/calls_main.cubin']),
    ('/tmp/nlx/sys_swap100.cubin', 'linked', ['obj/sm_100/sys_util.cubin', 'obj/sm_100/sys_main.cubin']),
    ('/tmp/nlx/shared_sys.cubin', 'linked', ['obj/sm_90/shared_a.cubin', 'obj/sm_90/shared_b.cubin', 'obj/sm_90/sys_main.cubin', 'obj/sm_90/sys_util.cubin']),
    ('/tmp/nlx/weak_swap.cubin', 'linked', ['obj/sm_90/weak_b.cubin', 'obj/sm_90/weak_a.cubin']),
    ('/tmp/nlx/calls_pres.cubin', 'linked', ['obj/sm_90/calls_main.cubin', 'obj/sm_90/calls_lib.cubin']),
    ('/tmp/nlx/calls_ku.cubin', 'linked', ['obj/sm_90/calls_main.cubin', 'obj/sm_90/calls_lib.cubin']),
]
def links(kind=None):
    for p, k, ins in EXP:
        if not os.path.exists(p) or (kind and k != kind):
            continue
        yield {'path': p, 'kind': k, 'arch': 'x', 'inputs': ins}, elf.Elf(p), [elf.Elf(os.path.join(elf.FIX, i)) for i in ins]
elf.links = links
import order_classes, order_creation, offsets, phdrs, nvinfo, header
for m in (order_classes, order_creation, offsets, phdrs, nvinfo):
    print('==', m.__name__); m.main()
print('== e_flags'); header.flags_rule()
