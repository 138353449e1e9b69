# Grader of lab 3 (stage 3): one-page stacks. Run by labs/grade.sh in gdb
# batch mode.
import re

from grading import (answer, check, continue_to, cpu, current,
                     interrupted_kernel_task_stack, run, start_lab, val)

INTERRUPTS = 20    # interrupts to measure the room left over

start_lab(3)
ts = val('sizeof(init_stack)')
check(ts == 4096, 'stage 3 stacks are one page (THREAD_SIZE %d)' % ts)
answer('thread_size', ts)
# check_stack_overflow(): sp & (THREAD_SIZE-1) < sizeof(struct
# thread_info) + STACK_WARN, STACK_WARN being THREAD_SIZE/8.
warn = val('sizeof(struct thread_info)') + ts // 8
answer('warning_line', warn)
check(val('$pc') == val('&common_interrupt'), 'break do_IRQ stopped at common_interrupt')

# 2.6's thread_info address, and what is there in 6.1, at an interrupt
# of kernel code on a task stack (the lab's first stop may have caught
# one that came while a softirq ran on the softirq stack).
if not interrupted_kernel_task_stack():
    continue_to('common_interrupt', interrupted_kernel_task_stack)
sp = val('$sp')
task = current(cpu())
base = int(task['stack'])
info = run('ks-thread-info')
check(base <= sp < base + ts and (sp & ~(ts - 1)) == base and
      '= %#x' % base in info and 'STACK_END_MAGIC intact' in info and
      val('*(unsigned long *)%d' % base) == 0x57ac6e9d,
      'sp & ~(THREAD_SIZE-1) = %#x is the task stack\'s bottom, which holds '
      'STACK_END_MAGIC, as ks-thread-info says' % base)

# The room left when interrupts arrive from kernel code.
least = None
for _ in range(INTERRUPTS):
    if not continue_to('common_interrupt', interrupted_kernel_task_stack):
        break
    stack = int(current(cpu())['stack'])
    room = val('$sp') - stack
    least = room if least is None else min(least, room)
where = run('ks-where')
m = re.search(r'(-?\d+) above the warning line \((\d+)\)', where)
check(m and int(m.group(2)) == warn and
      int(m.group(1)) == val('$sp') - int(current(cpu())['stack']) - warn,
      'ks-where gives the room above the warning line (%d bytes above the '
      'bottom)' % warn)
check(least is not None and warn < least < ts,
      'over %d interrupts from kernel code, the least room left below esp '
      'was %s bytes, above the warning line' % (INTERRUPTS, least))
answer('least_room', least, 50)
