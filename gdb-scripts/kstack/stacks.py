# Where the kernel's stacks are, read from the running guest.
#
# A stack area is (kind, base, size, owner): kind is "task", "hardirq" or
# "softirq"; owner is the task for a task stack, the CPU for an IRQ stack.
# Everything is read from kernel data (per-CPU pointers, task_struct.stack)
# and from DWARF (array sizes); no address is assumed.
import gdb

from linux import cpus, tasks


class KstackError(gdb.GdbError):
    """An error the learner can act on, printed without a traceback."""


def require_symbols():
    try:
        gdb.parse_and_eval('init_task')
    except gdb.error:
        raise KstackError('no kernel symbols: load the stage\'s vmlinux '
                          '(make lab does)')


def thread_size():
    # init_stack is declared as unsigned long[THREAD_SIZE / sizeof(long)],
    # so its size in DWARF is the THREAD_SIZE this kernel was built with.
    return int(gdb.parse_and_eval('sizeof(init_stack)'))


def stack_warn():
    # arch/x86/include/asm/thread_info.h: STACK_WARN (THREAD_SIZE/8); a
    # macro, so not in DWARF.
    return thread_size() // 8


def nr_cpus():
    return int(gdb.parse_and_eval('nr_cpu_ids'))


def _per_cpu_ptr(name, cpu):
    try:
        var = gdb.parse_and_eval('&' + name)
    except gdb.error:
        return None          # this stage has no such variable
    return int(cpus.per_cpu(var, cpu))


def current_task(cpu):
    # The kernel's $lx_current() only knows x86-64; on i386 read the
    # per-CPU current_task.
    var = gdb.parse_and_eval('&current_task')
    return cpus.per_cpu(var, cpu).dereference()


def irq_stack(kind, cpu):
    """Base of CPU's hardirq or softirq stack; None if the stage has none,
    0 if it is not allocated yet (early boot)."""
    return _per_cpu_ptr(kind + '_stack_ptr', cpu)


def sp_of(cpu):
    """$sp of CPU (gdb thread cpu + 1 under QEMU's gdbstub)."""
    selected = gdb.selected_thread()
    for thread in gdb.selected_inferior().threads():
        if thread.num == cpu + 1:
            break
    else:
        raise KstackError('no gdb thread for CPU %d' % cpu)
    try:
        thread.switch()      # unlike the "thread" command, prints nothing
        return int(gdb.parse_and_eval('$sp')) & 0xffffffff
    finally:
        if selected is not None:
            selected.switch()


def selected_cpu():
    return gdb.selected_thread().num - 1


class Area:
    def __init__(self, kind, base, size, owner=None, cpu=None):
        self.kind, self.base, self.size = kind, base, size
        self.owner, self.cpu = owner, cpu

    @property
    def top(self):
        return self.base + self.size

    def holds(self, addr):
        # An empty stack has sp == top: that still belongs to the area.
        return self.base <= addr <= self.top

    def name(self):
        if self.kind == 'task':
            return 'the task stack of pid %d (%s)' % (
                int(self.owner['pid']), self.owner['comm'].string())
        return "CPU %d's %s stack" % (self.cpu, self.kind)


def areas(cpu):
    """The stack areas to look in for CPU: its IRQ stacks, then every
    task's stack (current first)."""
    ts = thread_size()
    found = []
    for kind in ('hardirq', 'softirq'):
        base = irq_stack(kind, cpu)
        if base:
            found.append(Area(kind, base, ts, cpu=cpu))
    cur = current_task(cpu)
    found.append(Area('task', int(cur['stack']), ts, owner=cur, cpu=cpu))
    for t in tasks.task_lists():
        if int(t['stack']) and int(t['stack']) != int(cur['stack']):
            found.append(Area('task', int(t['stack']), ts, owner=t))
    return found


def find_area(addr, cpu):
    for area in areas(cpu):
        if area.holds(addr):
            return area
    return None
