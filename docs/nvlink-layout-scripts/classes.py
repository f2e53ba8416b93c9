"""Section classes used by the order checks."""
import re

def cls(s):
    n = s.name
    if n.startswith('.nv.merc.') or n.startswith('.nv.capmerc'):
        return 'MERC:' + cls_base(n[len('.nv.merc'):] if n.startswith('.nv.merc.') else '.capmerc')
    return cls_base(n, s)

def cls_base(n, s=None):
    if n in ('.shstrtab', '.strtab', '.symtab', '.symtab_shndx'):
        return n
    if n.startswith('.rela') or n.startswith('.rel.') or n.startswith('.nv.resolvedrela'):
        return 'rela'
    if n.startswith('.debug_') or n.startswith('.nv_debug'):
        if n.startswith('.nv_debug.shared'):
            return 'shared'
        return 'debug'
    if n.startswith('.note'):
        return n
    if n == '.nv.info':
        return '.nv.info'
    if n.startswith('.nv.info.'):
        return '.nv.info.F'
    if n in ('.nv.compat', '.nv.callgraph', '.nv.prototype', '.nv.rel.action', '.nv.uft.entry', '.nv.udt.entry', '.nv.uft', '.nv.udt'):
        return n
    if n.startswith('.nv.constant'):
        return 'const'
    if n.startswith('.text.'):
        return 'text'
    if n.startswith('.nv.global.init'):
        return 'global.init'
    if n.startswith('.nv.global'):
        return 'global'
    if n.startswith('.nv.shared.reserved'):
        return 'shared.reserved'
    if n.startswith('.nv.shared'):
        return 'shared'
    if n.startswith('.nv.local'):
        return 'local'
    if n.startswith('.nv.reservedSmem'):
        return 'reservedSmem'
    return 'other:' + n

def runs(seq):
    out = []
    for x in seq:
        if not out or out[-1] != x:
            out.append(x)
    return out
