# gdb side of tests/checks/35-old-names.py: 2.6 names in a 6.1 session.
# `break do_IRQ` (what gdb-scripts says when it is set, and where the
# guest stops), and $hardirq_ctx(0) / $softirq_ctx(0) beside CPU 0's
# per-CPU stack pointers read raw; one record for the host.
import gdb

from vm.session import results
from labs.gdbutil import run, val

said = run('break do_IRQ')
gdb.execute('continue')


def raw(name):
    return val('*(unsigned long *)((char *)&%s + __per_cpu_offset[0])' % name)


results.emit('old-names', said=said, pc=val('$pc'),
             common_interrupt=val('&common_interrupt'),
             vector=val('(unsigned char) error_code'),
             hardirq_ctx0=val('$hardirq_ctx(0)'),
             raw_hardirq0=raw('hardirq_stack_ptr'),
             softirq_ctx0=val('$softirq_ctx(0)'),
             raw_softirq0=raw('softirq_stack_ptr'))
