# gdb side of tests/checks/21-x86-64-stacks.py: on lab 7's x86_64 kernel,
# stop in a system call of the guest's /init (its first mount) and hand
# the host what a task stack is there, read with plain gdb expressions:
# the current task's stack (task_struct.stack) and THREAD_SIZE, where rsp
# is, the word at the stack's lowest address, whether the words just
# outside each end can be read at all (a guard page cannot), and each
# CPU's hardirq stack pointer.
import gdb

import results
from gdbutil import cpu, run

MASK = (1 << 64) - 1           # gdbutil's readers are i386's: 32 bits


def val(expr):
    return int(gdb.parse_and_eval(expr)) & MASK


def readable(addr):
    try:
        gdb.parse_and_eval('*(unsigned long *)%d' % addr).fetch_lazy()
        return True
    except gdb.MemoryError:
        return False


run('break __x64_sys_mount')
gdb.execute('continue')
task = gdb.parse_and_eval('$lx_current()')
base = int(task['stack']) & MASK
size = val('sizeof(init_stack)')
sp = val('(unsigned long)$rsp')
results.emit('x86_64-stack', cpu=cpu(), pid=int(task['pid']),
             comm=task['comm'].string(), base=base, size=size, sp=sp,
             magic=val('*(unsigned long *)%d' % base),
             below_readable=readable(base - 8),
             above_readable=readable(base + size),
             hardirq_stack_ptr=[val('$lx_per_cpu("hardirq_stack_ptr", %d)' % c)
                                for c in range(2)])
