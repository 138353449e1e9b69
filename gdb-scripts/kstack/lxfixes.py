# Two of 6.1's own gdb helpers (scripts/gdb/linux), made to work on i386,
# without patching the kernel's scripts: a kernel developer expects every
# lx- helper to work in a lab session (check 64 runs them all).
#
# $lx_current([CPU]): linux/cpus.py finds the current task only when gdb's
# architecture name contains "x86"; gdb names 32-bit x86 "i386", so on
# every i386 kernel it stops with "not yet supported with this arch". On
# i386, as on x86-64, 6.1 keeps the running task in the per-CPU variable
# current_task: $lx_current is registered again, under the kernel's name,
# reading it through the kernel's own per_cpu().
#
# lx-timerlist: linux/timerlist.py still walks a timerqueue_head as the
# list it was before 5.x ("There is no member named next."); 6.1's is an
# rb_root_cached, whose leftmost node is the first timer. The helper's
# walk is replaced with one that starts there (as later kernels do).
import gdb

try:
    from linux import cpus, rbtree, timerlist
except ImportError:        # no vmlinux-gdb.py: load.py has said so
    cpus = None


class LxCurrent(gdb.Function):
    """Return the current task (i386 as well as x86-64).

$lx_current([CPU]): the task_struct running on CPU (default: the CPU of
the selected gdb thread; gdb thread N is CPU N-1)."""

    def __init__(self):
        super(LxCurrent, self).__init__('lx_current')

    def invoke(self, cpu=None):
        cpu = cpus.get_current_cpu() if cpu is None else int(cpu)
        var = gdb.parse_and_eval('&current_task')
        return cpus.per_cpu(var, cpu).dereference()


def print_active_timers(base):
    """A hrtimer base's timers, earliest first (timerlist.py's walk)."""
    node = base['active']['rb_root']['rb_leftmost']
    idx = 0
    while node:
        yield timerlist.print_timer(node, idx)
        node = rbtree.rb_next(node)
        idx += 1


if cpus is not None:
    LxCurrent()
    timerlist.print_active_timers = print_active_timers
