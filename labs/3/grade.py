# Grader of lab 3 (stage 3): one-page stacks. Run by labs/grade.sh in gdb
# batch mode.
import re

from grading import (answer, check, continue_to, cpu, current,
                     interrupted_kernel_task_stack, run, start_lab, val)

INTERRUPTS = 10    # interrupts to measure the room left over

start_lab(3)
ts = val('sizeof(init_stack)')
check(ts == 4096, 'stage 3 stacks are one page (THREAD_SIZE %d)' % ts)
answer('thread_size', ts)
# check_stack_overflow(): sp & (THREAD_SIZE-1) < sizeof(struct
# thread_info) + STACK_WARN, STACK_WARN being THREAD_SIZE/8.
warn = val('sizeof(struct thread_info)') + ts // 8
answer('warning_line', warn)
check(val('$pc') == val('&common_interrupt'), 'break do_IRQ stopped at common_interrupt')

# Interrupts of kernel code on an ordinary task's stack (not dd's, which
# the workload sends deep on purpose).
def ordinary():
    return (interrupted_kernel_task_stack() and
            current(cpu())['comm'].string() != 'dd')


# 2.6's thread_info address, and what is there in 6.1, at an interrupt
# of kernel code on a task stack (the lab's first stop may have caught
# one that came while a softirq ran on the softirq stack).
if not ordinary():
    continue_to('common_interrupt', ordinary)
sp = val('$sp')
task = current(cpu())
base = int(task['stack'])
info = run('ks-thread-info')
check(base <= sp < base + ts and (sp & ~(ts - 1)) == base and
      '= %#x' % base in info and 'STACK_END_MAGIC intact' in info and
      val('*(unsigned long *)%d' % base) == 0x57ac6e9d,
      'sp & ~(THREAD_SIZE-1) = %#x is the task stack\'s bottom, which holds '
      'STACK_END_MAGIC, as ks-thread-info says' % base)

# The room left when such interrupts arrive.
least = None
for _ in range(INTERRUPTS):
    if not continue_to('common_interrupt', ordinary):
        break
    stack = int(current(cpu())['stack'])
    room = val('$sp') - stack
    least = room if least is None else min(least, room)
where = run('ks-where')
m = re.search(r'(-?\d+) above the warning line \((\d+) above', where)
check(m and int(m.group(2)) == warn and
      int(m.group(1)) == val('$sp') - int(current(cpu())['stack']) - warn,
      'ks-where gives the room above the warning line (%d bytes above the '
      'bottom)' % warn)
check(least is not None and warn < least < ts,
      'over %d interrupts from kernel code, the least room left below esp '
      'was %s bytes, above the warning line' % (INTERRUPTS, least))
answer('least_room', least, 50)

# The interrupt-entry check firing: the workload's dd recurses in the lab
# module until little room is left and waits; a serial interrupt arriving
# then finds sp & (THREAD_SIZE-1) below the warning line, and
# __handle_irq() calls print_stack_overflow() on the hardirq stack.
fired = continue_to('print_stack_overflow')
c = cpu()
task = current(c)
base = int(task['stack'])
hard = val('$lx_per_cpu("hardirq_stack_ptr", %d)' % c)
saved = val('*(unsigned long *)%d' % hard)
check(fired and hard <= val('$sp') < hard + ts,
      'the check fired: print_stack_overflow() runs on CPU %d\'s hardirq stack' % c)
room = saved - base
check(base <= saved < base + warn,
      'the interrupted esp %#x (saved at the hardirq stack\'s bottom) had only '
      '%d bytes above the end of %s\'s stack: under the %d-byte line'
      % (saved, room, task['comm'].string(), warn))
answer('room_at_warning', room, 50)
irqstacks = run('ks-irqstacks')
check(re.search(r'^%d\s+hardirq\s+\S+\s+yes\s+%#x\s' % (c, saved), irqstacks, re.M),
      'ks-irqstacks shows CPU %d on its hardirq stack with saved esp %#x' % (c, saved))
run('finish')
log = run('lx-dmesg')
check('low stack detected by irq handler' in log and 'descend' in log,
      'the kernel log has the report, "low stack detected by irq handler", '
      'and its call trace names the recursing function, descend')
