# Grader of lab 1 (stage 1): device interrupts and softirqs run on the
# interrupted task's stack. Run by labs/grade.sh in gdb batch mode.
import re

from grading import (answer, check, continue_to, cpu, current,
                     interrupted_kernel_task_stack, run, start_lab, val)

HITS = 20          # handler stops to measure the depth over

start_lab(1)
ts = val('sizeof(init_stack)')
check(ts == 8192, 'stage 1 task stacks are 8K (THREAD_SIZE %d)' % ts)
answer('thread_size', ts)
check(val('$pc') == val('&common_interrupt'),
      'break do_IRQ stopped at common_interrupt')


def on_current_task_stack():
    stack = int(current(cpu())['stack'])
    return stack <= val('$sp') < stack + ts, stack


# At do_IRQ: on the task's stack, which ks-where names.
good, stack = on_current_task_stack()
where = run('ks-where')
check(good and 'on the task stack of pid %d' % int(current(cpu())['pid']) in where,
      'at do_IRQ, $sp is on the interrupted task\'s stack, as ks-where says')
check('This stage has no IRQ stacks' in where, 'ks-where says stage 1 has no IRQ stacks')

# In the handler: still that stack, deeper (one interrupt from kernel
# code, so that the task stack held more than the entry frame).
deepest = 0
for _ in range(HITS):
    if not continue_to('handle_irq_event', interrupted_kernel_task_stack):
        break
    good, stack = on_current_task_stack()
    if not good:
        break
    deepest = max(deepest, stack + ts - val('$sp'))
check(good and deepest, 'in handle_irq_event, %d times: $sp on the '
      'interrupted task\'s stack (deepest %d bytes from the top)' % (HITS, deepest))
answer('deepest_handler', deepest, 50)
bt = run('ks-bt')
check('handle_irq_event' in bt and '^^' not in bt.split('pt_regs')[0],
      'ks-bt shows the handler\'s frames on the task stack, no switch')


# A softirq on the way out of an interrupt (not in ksoftirqd): same stack.
def from_irq_exit():
    return not current(cpu())['comm'].string().startswith('ksoftirqd')


check(continue_to('__do_softirq', from_irq_exit), 'a softirq runs on the way out of an interrupt')
good, stack = on_current_task_stack()
bt = run('ks-bt')
check(good and re.search(r'irq_exit_rcu', bt),
      '__do_softirq runs on the interrupted task\'s stack, called from irq_exit_rcu()')
