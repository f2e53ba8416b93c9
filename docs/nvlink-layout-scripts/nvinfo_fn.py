"""Rule 7b: per-function .nv.info.<fn>: output = reverse(input records of the winning definition)
with some attributes dropped / added / rewritten.  Prints statistics of the differences."""
import collections, elf

NAMES = {0x0a: 'PARAM_CBANK', 0x0f: 'EXTERNS', 0x1e: 'CRS_STACK_SIZE', 0x12: 'MIN_STACK_SIZE', 0x17: 'KPARAM_INFO',
         0x19: 'CBANK_PARAM_SIZE', 0x1c: 'EXIT_INSTR_OFFSETS', 0x37: 'CUDA_API_VERSION', 0x4c: 'NUM_BARRIERS',
         0x5f: 'ATTR_5F', 0x23: 'MAX_STACK_SIZE', 0x2f: 'REGCOUNT', 0x11: 'FRAME_SIZE', 0x38: 'NUM_MBARRIERS',
         0x50: 'SPARSE_MMA_MASK', 0x1b: 'MAXREG_COUNT', 0x36: 'SW_WAR', 0x41: 'RESERVED_SMEM_USED', 0x42: 'RESERVED_SMEM_0_SIZE',
         0x05: 'MAX_THREADS', 0x10: 'REQNTID', 0x04: 'CTAIDZ_USED', 0x34: 'INDIRECT_BRANCH_TARGETS', 0x28: 'COOP_GROUP_INSTR_OFFSETS',
         0x29: 'COOP_GROUP_MASK_REGIDS', 0x2b: 'WMMA_USED', 0x31: 'INT_WARP_WIDE_INSTR_OFFSETS', 0x27: 'ATOM_SYS_INSTR_OFFSETS',
         0x46: 'SYSCALL_OFFSETS', 0x14: 'BINDLESS_IMAGE_OFFSETS', 0x15: 'BINDLESS_TEXTURE_BANK', 0x16: 'BINDLESS_SURFACE_BANK',
         0x02: 'IMAGE_SLOT', 0x3d: 'CTA_PER_CLUSTER', 0x3e: 'EXPLICIT_CLUSTER', 0x3f: 'MAX_CLUSTER_RANK', 0x45: 'KPARAM_INFO_V2',
         0x54: 'REG_RECONFIG', 0x5b: 'BLOCKS_ARE_CLUSTERS', 0x18: 'SMEM_PARAM_SIZE', 0x32: 'SHARED_SCRATCH'}

def nm(a):
    return NAMES.get(a, hex(a))

def main():
    c = collections.Counter(); samples = {}
    for e, o, ins in elf.links():
        k = e['kind'] + ('/merc' if '.nv.merc.symtab' in o.byname else '')
        for s in o.secs:
            if not s.name.startswith('.nv.info.'):
                continue
            src = None
            for i in ins:
                if s.name in i.byname:
                    src = i.byname[s.name]; break
            if src is None:
                c[(k, 'created without input section')] += 1
                continue
            out = [(f, a) for f, a, v in elf.tlvs(s.data)]
            inp = [(f, a) for f, a, v in elf.tlvs(src.data)][::-1]
            c[(k, 'total')] += 1
            if out == inp:
                c[(k, 'attr sequence == reversed input')] += 1
                continue
            # classify: removed attrs and added attrs, and whether the order of the common ones is preserved
            removed = tuple(sorted({nm(a) for f, a in inp if (f, a) not in out}))
            added = tuple(sorted({nm(a) for f, a in out if (f, a) not in inp}))
            common_in = [x for x in inp if x in out]
            common_out = [x for x in out if x in inp]
            c[(k, 'removed', removed, 'added', added, 'common order kept', common_in == common_out)] += 1
            samples.setdefault((k, removed, added), (e['path'], s.name, [nm(a) for f, a in out], [nm(a) for f, a in inp]))
    for key, v in sorted(c.items(), key=str):
        print(v, key)
    for key, v in samples.items():
        print(key, '\n   ', v[0], v[1], '\n    out', v[2], '\n    rev-in', v[3])

if __name__ == '__main__':
    main()
