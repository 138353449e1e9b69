# Grader of lab 2 (stage 2): the switch onto per-CPU IRQ stacks. Run by
# labs/grade.sh in gdb batch mode.
import re

import gdb
from kstack import switch

from grading import (answer, check, continue_to, cpu, current,
                     interrupted_kernel_task_stack, run, start_lab, val)

start_lab(2)
ts = val('sizeof(init_stack)')
answer('irq_stack_size', ts)
for kind in ('hardirq', 'softirq'):
    answer('%s_stack_cpu0' % kind, '%#x' % val('$lx_per_cpu("%s_stack_ptr", 0)' % kind))


def irq_top(kind, c):
    return val('$lx_per_cpu("%s_stack_ptr", %d)' % (kind, c)) + ts


def stack_of(addr, c):
    """'hardirq', 'softirq' or 'task' (the current task's), from raw data."""
    for kind in ('hardirq', 'softirq'):
        if irq_top(kind, c) - ts <= addr <= irq_top(kind, c):
            return kind
    stack = int(current(c)['stack'])
    return 'task' if stack <= addr < stack + ts else 'other'


# The switch instructions, as ks-watch-switch finds them; one CPU and one
# function at a time, so that the grader stops only where it looks.
seen = {}                      # (cpu, function) -> observations
for c in (0, 1):
    for function, kind in (('__handle_irq', 'hardirq'), ('do_softirq_own_stack', 'softirq')):
        bps = []
        for addr, fn, what in switch.switch_points():
            if fn == function and what == 'onto':
                bps.append(gdb.Breakpoint('*%#x' % addr, internal=True))
                bps[-1].thread = c + 1
        for _ in range(200):
            run('continue')
            if cpu() == c:
                break
        before, after = val('$sp'), val('$ebx')
        run('stepi')
        seen[(c, function)] = dict(
            before=before, after=after, now=val('$sp'),
            saved=val('*(unsigned long *)%d' % (irq_top(kind, c) - ts)),
            from_stack=stack_of(before, c))
        for bp in bps:
            bp.delete()

for c in (0, 1):
    for function, kind in (('__handle_irq', 'hardirq'), ('do_softirq_own_stack', 'softirq')):
        s = seen.get((c, function))
        if not s:
            check(False, 'a switch onto CPU %d\'s %s stack was seen' % (c, kind))
            continue
        check(s['after'] == irq_top(kind, c) and s['now'] == s['after'],
              'CPU %d, %s: the xchg moves esp %#x -> %#x, the top of its %s stack'
              % (c, function, s['before'], s['now'], kind))
        # A device interrupt can also land while a softirq runs on the
        # softirq stack; softirqs are only ever entered from a task stack.
        came = ('task', 'softirq') if kind == 'hardirq' else ('task',)
        check(s['saved'] == s['before'] and s['from_stack'] in came,
              'CPU %d: the %s stack\'s bottom word holds the esp it came from, '
              '%#x (on the %s stack)' % (c, kind, s['saved'], s['from_stack']))

# A backtrace across stacks, in a handler that interrupted kernel code
# (an interrupt from user mode finds the task stack empty and is not
# switched: see __handle_irq()).
continue_to('handle_irq_event', interrupted_kernel_task_stack)
bt = run('ks-bt')
check(re.search(r'\^\^ hardirq cpu%d was reached from task' % cpu(), bt),
      'ks-bt in handle_irq_event crosses from the hardirq stack to the task '
      'stack: ' + ' '.join(l.strip() for l in bt.splitlines() if '^^' in l))
