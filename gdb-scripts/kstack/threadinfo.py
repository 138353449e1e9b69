# ks-thread-info and $current_thread_info(): where 2.6 kept thread_info,
# and where 6.1 keeps it.
#
# 2.6 put struct thread_info at the bottom (lowest address) of every
# THREAD_SIZE-aligned stack, so current_thread_info() was one instruction:
# esp & ~(THREAD_SIZE - 1). Its IRQ stacks (union irq_ctx) began with a
# thread_info of their own for the same reason. Since 4.9 x86 keeps
# thread_info inside task_struct (CONFIG_THREAD_INFO_IN_TASK) and the
# bottom word of a task stack holds STACK_END_MAGIC instead.
import gdb

from vm.session import facts
from kstack import stacks

# A macro, so not in the kernel's DWARF: vm/stages.toml has it.
STACK_END_MAGIC = facts.kernel()['stack_end_magic']


def running_on(task):
    """The CPU TASK is current on, or None. (Tasks from the kernel's
    task_lists() helper have no .address: compare their stacks.)"""
    for cpu in range(stacks.nr_cpus()):
        if int(stacks.current_task(cpu)['stack']) == int(task['stack']):
            return cpu
    return None


class KsThreadInfo(stacks.Command):
    """Show where a task's thread_info is, in 2.6 and in 6.1.

Usage: ks-thread-info [PID]    (default: the task current on the
                                selected CPU)

Prints the task's stack pointer ($sp of its CPU if it is running, else
the one saved at its last switch, thread.sp), the address 2.6 computed
for thread_info from it (sp & ~(THREAD_SIZE-1)) and what 6.1 keeps at
that address, then where 6.1's thread_info really is (the first member
of task_struct), end_of_stack() and whether STACK_END_MAGIC is intact."""

    NAME = 'ks-thread-info'
    KIND = gdb.COMMAND_DATA

    def run(self, arg):
        if arg:
            task = stacks.task_by_pid(arg)
        else:
            task = stacks.current_task(stacks.selected_cpu())
        ts = stacks.thread_size()
        base = int(task['stack'])
        if not base:
            raise stacks.KstackError('pid %d has exited: its stack is freed'
                                     % int(task['pid']))
        cpu = running_on(task)
        if cpu is None:
            sp, how = int(task['thread']['sp']), 'thread.sp, saved at its last switch'
        else:
            sp, how = stacks.sp_of(cpu), '$sp of CPU %d, where it runs' % cpu
        w = gdb.write
        w('pid %d (%s): stack %#x-%#x, THREAD_SIZE %d\n' % (
            int(task['pid']), task['comm'].string(), base, base + ts, ts))
        w('  sp            %#x  (%s)\n' % (sp, how))
        old = sp & ~(ts - 1)
        area = stacks.find_area(sp, cpu if cpu is not None else 0)
        w('2.6: thread_info = sp & ~(THREAD_SIZE-1) = %#x\n' % old)
        if area is not None and area.kind in ('hardirq', 'softirq'):
            w('  sp is on %s: 2.6 found that irq_ctx\'s own\n'
              '  thread_info there; 6.1 keeps the interrupted esp in that '
              'word: %#x\n' % (area.name(), stacks.word(area.base)))
        elif old == base:
            w('  6.1 keeps there: end_of_stack(), the STACK_END_MAGIC word\n')
        else:
            w('  sp is not on this task\'s stack (%s)\n'
              % (area.name() if area else 'unknown area'))
        ti = task['thread_info']
        offset = int(gdb.parse_and_eval(
            '(unsigned long)&((struct task_struct *)0)->thread_info'))
        w('6.1: thread_info = &task->thread_info = %#x (task_struct + %d)\n'
          % (int(ti.address) if ti.address else 0, offset))
        w('  flags %#x, cpu %d\n' % (int(ti['flags']), int(ti['cpu'])))
        magic = stacks.word(base)
        w('  end_of_stack() %#x: %#x, STACK_END_MAGIC %s\n' % (
            base, magic, 'intact' if magic == STACK_END_MAGIC
            else 'OVERWRITTEN (want %#x)' % STACK_END_MAGIC))


class CurrentThreadInfo(gdb.Function):
    """$current_thread_info([CPU]): the thread_info of the task current on
CPU (default: the selected one), as a struct thread_info pointer.

2.6's current_thread_info() masked esp with ~(THREAD_SIZE-1); 6.1 keeps
thread_info in task_struct, so this is &current->thread_info. Try
p *$current_thread_info()."""

    def __init__(self):
        super(CurrentThreadInfo, self).__init__(
            stacks.registered(stacks.FUNCTIONS, 'current_thread_info'))

    def invoke(self, cpu=None):
        return stacks.checked(self.thread_info, cpu)

    def thread_info(self, cpu):
        cpu = stacks.selected_cpu() if cpu is None else int(cpu)
        return stacks.current_task(cpu)['thread_info'].address


KsThreadInfo()
CurrentThreadInfo()
