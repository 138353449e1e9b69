# Lab 7's task: my-where, which stack (or which stack's guard page) an
# address is on, on x86_64.
#
# Your copy is build/exercises/7/my_where.py (make exercise N=7 made it).
# Grade it with make grade N=7 EXERCISE=1: it boots lab 7's x86_64
# kernel, stops where the lab stops (a device interrupt after boot, then
# the double fault of dd's descent and handle_stack_overflow()), calls
# your where() on addresses there and compares it with the stacks ks-where
# knows. Try it: make lab N=7 EXERCISE=1 loads this file, then `my-where`
# beside `ks-where` (after an edit: `source` this file).
#
# Which stack holds an address, or under which it lies: the kernel's
# get_stack_guard_info() (arch/x86/include/asm/stacktrace.h:41) asks it
# of the current task's and this CPU's stacks only. What you have to
# work out (labs/7/README.md, "Task"; make hint N=7 gives one hint at a
# time):
#   - how big a task stack is here, and where each task's begins;
#   - where each CPU's hardirq stack begins: hardirq_stack_ptr does not
#     point where i386's did;
#   - the stacks the CPU switches to by itself, whatever rsp was (the IST
#     stacks: double fault, NMI, debug, machine check);
#   - the page under a stack is its guard page only if nothing is mapped
#     there: on x86_64 that holds for vmalloc'd stacks, not for all.
import gdb

from linux import tasks

PAGE = 4096
MASK = (1 << 64) - 1
# x86_64's IST stacks (struct cea_exception_stacks, arch/x86/include/asm/
# cpu_entry_area.h): member prefix, the name where() gives them.
IST = (('DF', 'double-fault'), ('NMI', 'nmi'), ('DB', 'debug'),
       ('MCE', 'machine-check'))


def val(expr):
    """A gdb expression's value in the guest, as an unsigned integer."""
    return int(gdb.parse_and_eval(expr)) & MASK


def readable(addr):
    """The word at ADDR can be read: something is mapped there."""
    try:
        gdb.parse_and_eval('*(unsigned long *)%d' % addr).fetch_lazy()
        return True
    except gdb.MemoryError:
        return False


def cpus():
    return range(val('nr_cpu_ids'))


def per_cpu(name, cpu):
    """CPU's copy of the per-CPU variable NAME (a gdb.Value)."""
    return gdb.parse_and_eval('$lx_per_cpu("%s", %d)' % (name, cpu))


def current(cpu):
    """The task running on CPU (struct task_struct *)."""
    return per_cpu('current_task', cpu)


def cpu():
    """The selected CPU (gdb's thread N is CPU N-1)."""
    return gdb.selected_thread().num - 1


def where(addr):
    """Which stack holds ADDR, or under which stack ADDR lies, as
    (stack, owner, part):
      stack  'task', 'hardirq', or an IST stack's name (IST above);
      owner  the task's pid for 'task', else the CPU's number;
      part   'stack' if ADDR is on the stack (base <= ADDR < top), or
             'guard' if ADDR is in the page under its base and nothing
             is mapped there;
    None if neither, for every task's stack and every CPU's own. The
    grader calls this."""
    # TODO: every task's stack (tasks.task_lists() walks the tasks; a
    # task's stack begins at task['stack']), each CPU's hardirq stack and
    # its IST stacks: is ADDR on one, or in the page under one?
    return None


class MyWhere(gdb.Command):
    """my-where [ADDR]: which stack ADDR (default: $rsp) is on, or
    which stack's guard page (lab 7's task)."""

    def __init__(self):
        super(MyWhere, self).__init__('my-where', gdb.COMMAND_STACK)

    def invoke(self, arg, from_tty):
        value = gdb.parse_and_eval(arg or '$rsp')
        if value.type.strip_typedefs().code == gdb.TYPE_CODE_ARRAY:
            value = value.address      # an array (init_stack): its first byte
        addr = int(value) & MASK
        found = where(addr)
        if found is None:
            gdb.write('%#x: on no stack, and under none\n' % addr)
            return
        stack, owner, part = found
        whose = 'pid %d' % owner if stack == 'task' else 'CPU %d' % owner
        gdb.write('%#x: %s the %s stack of %s\n' % (
            addr, 'on' if part == 'stack' else 'in the guard page under',
            stack, whose))


MyWhere()
