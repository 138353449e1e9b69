# 2.6 names for readers of old books: `break do_IRQ` in a 6.1 kernel.
#
# 6.1 has no do_IRQ: the C entry of a device interrupt is common_interrupt()
# (DEFINE_IDTENTRY_IRQ in arch/x86/kernel/irq.c), called by the entry code
# asm_common_interrupt. gdb ignores absolute symbols for breakpoints, so
# the old name is given a body: a one-byte function "do_IRQ" in a tiny i386
# object, loaded with add-symbol-file at common_interrupt's address. The
# kernel itself is not changed.
import os
import subprocess
import textwrap

import gdb

from kstack import stacks

OLD_NAMES = {
    # old name: (6.1 function it stands for, what to tell the reader)
    'do_IRQ': ('common_interrupt',
               'do_IRQ is the 2.6 name: in 6.1 the C entry of a device '
               'interrupt is common_interrupt() (arch/x86/kernel/irq.c), '
               'which calls __common_interrupt() -> handle_irq() -> '
               '__handle_irq(), where the switch to the IRQ stack happens.'),
}


def _object_path():
    obj = stacks.obj_folder()
    return obj and os.path.join(obj, 'ks-oldnames.o')


def _assemble(path):
    asm = ''.join('.globl %s\n.type %s, @function\n%s:\n\tnop\n.size %s, 1\n'
                  % (old, old, old, old) for old in OLD_NAMES)
    # Under a temporary name first: two labs may start at once.
    tmp = '%s.%d' % (path, os.getpid())
    subprocess.run(['as', '--32', '-o', tmp, '-'], input=asm.encode(),
                   check=True)
    os.replace(tmp, path)


def load_old_names():
    path = _object_path()
    if path is None:
        return
    try:
        new = OLD_NAMES['do_IRQ'][0]
        addr = int(gdb.parse_and_eval('&%s' % new))
        if not os.path.exists(path):
            _assemble(path)
        gdb.execute('add-symbol-file %s -s .text %#x' % (path, addr),
                    to_string=True)
    except (gdb.error, OSError, subprocess.CalledProcessError) as e:
        gdb.write('gdb-scripts: 2.6 names (break do_IRQ) are off: %s\n' % e)


def _explain(bp):
    for old, (new, text) in OLD_NAMES.items():
        if bp.location and bp.location.strip() == old:
            gdb.write(textwrap.fill(text, 78) +
                      '\n(break %s stops at %s.)\n' % (old, new))


load_old_names()
gdb.events.breakpoint_created.connect(_explain)
