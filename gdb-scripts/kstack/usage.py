# ks-stack-use: how deep each stack has ever been, the way the kernel's
# DEBUG_STACK_USAGE measures it.
#
# Stacks are allocated zeroed (THREADINFO_GFP has __GFP_ZERO), so the
# lowest non-zero word is as deep as the stack has ever reached. The
# kernel's stack_not_used() (include/linux/sched/task_stack.h) starts at
# end_of_stack(), skips that word (the STACK_END_MAGIC canary) and counts
# the zero bytes above it. An IRQ stack's bottom word holds the saved esp,
# skipped the same way.
import struct

import gdb

from kstack import stacks


def not_used(area):
    """Bytes above the bottom word that were never written."""
    data = bytes(gdb.selected_inferior().read_memory(area.base, area.size))
    w = stacks.word_bytes()
    words = struct.unpack('<%d%s' % (area.size // w, 'Q' if w == 8 else 'I'),
                          data)
    n = 1                                    # skip the canary/saved esp
    while n < len(words) and not words[n]:
        n += 1
    return n * w - w


def lowest_stack():
    """The kernel's own record: check_stack_usage() in kernel/exit.c keeps
    the least unused stack of any task that exited in a function-local
    static, lowest_to_date, which the compiler emits as lowest_to_date.N
    (the function is inlined, so gdb cannot scope the name). None if this
    kernel has none."""
    for n in range(10):
        try:
            return int(gdb.parse_and_eval("*(int *)&'lowest_to_date.%d'" % n))
        except gdb.error:
            continue
    return None


def all_areas():
    """Every IRQ stack (all CPUs) and every live task's stack, once each."""
    found, seen = [], set()
    for cpu in range(stacks.nr_cpus()):
        for area in stacks.areas(cpu):
            if area.kind in ('task', 'hardirq', 'softirq') and \
                    area.base not in seen:
                seen.add(area.base)
                found.append(area)
    return found


class KsStackUse(stacks.Command):
    """Show the deepest use of stacks so far (their high-water mark).

Usage: ks-stack-use          every task's stack and every IRQ stack
       ks-stack-use PID      one task's stack

For each stack: its size, the bytes never written (the kernel's
stack_not_used(): zero words above the bottom word, which holds the
STACK_END_MAGIC canary of a task stack or the saved esp of an IRQ stack),
the deepest use, and whether that reached below the interrupt-entry
warning line. Also prints the kernel's own record for tasks that have
exited (check_stack_usage()'s lowest_to_date: the "used greatest stack
depth: N bytes left" lines in the kernel log)."""

    NAME = 'ks-stack-use'

    def run(self, arg):
        if arg:
            task = stacks.task_by_pid(arg)
            chosen = [stacks.Area('task', int(task['stack']),
                                  stacks.thread_size(), owner=task)]
        else:
            chosen = all_areas()
        # The warning line is the i386 IRQ-entry check's; x86_64 has none.
        warn = None if stacks.is_64bit() else stacks.warn_line()
        width = 2 + 2 * stacks.word_bytes()  # an address: 0x and its digits
        gdb.write('%-24s %-*s %6s %6s %6s  %s\n' % (
            'stack', width, 'base', 'size', 'unused', 'deepest',
            'below warning line?' if warn else ''))
        for area in chosen:
            if not area.base:
                continue                     # an exited task, stack freed
            free = not_used(area)
            below = ('' if warn is None else 'YES'
                     if free + stacks.word_bytes() < warn else 'no')
            gdb.write('%-24s %#0*x %6d %6d %6d  %s\n' % (
                area.short()[:24], width, area.base, area.size, free,
                area.size - free, below))
        low = lowest_stack()
        if low is not None:
            gdb.write('kernel record (lowest_to_date): an exited task left %d '
                      'bytes unused\n' % low)


KsStackUse()
