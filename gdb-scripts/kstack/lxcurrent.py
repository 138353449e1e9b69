# $lx_current([CPU]) that works on i386.
#
# 6.1's scripts/gdb (linux/cpus.py) finds the current task only when gdb's
# architecture name contains "x86"; gdb names 32-bit x86 "i386", so on
# every i386 kernel the kernel's own $lx_current() stops with "not yet
# supported with this arch". On i386, as on x86-64, 6.1 keeps the running
# task in the per-CPU variable current_task. This registers $lx_current
# again, under the kernel's name, reading that variable through the
# kernel's own per_cpu(); the kernel's scripts are not changed.
import gdb

try:
    from linux import cpus
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


if cpus is not None:
    LxCurrent()
