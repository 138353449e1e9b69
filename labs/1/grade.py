# Grader of lab 1 (stage 1): device interrupts and softirqs run on the
# interrupted task's stack. Run by vm/session/ks (make grade N=1) in gdb batch
# mode against a fresh guest.
import re

import gdb

from vm.session import facts
from labs.gdbutil import (stop_check, thread_size_check, NONE, continue_to, cpu, current, entry_cost,
                          interrupted_kernel_task_stack, on_current_stack, run,
                          stack_kind, thread_size, val)
from labs.gradelib import (answer, expect, expect_in, expect_true, lab_number,
                           run_tests, test)

STAGE = facts.lab(lab_number())['stage_facts']
HITS = 20          # handler stops to measure the depth over
COST_HITS = 8      # stops to measure handler_cost over
# Where handler_cost is measured: the learner's variant (lab.toml).
COST_AT = facts.lab(lab_number())['variant']['cost_at']


stop = stop_check('break do_IRQ stops at common_interrupt', 'common_interrupt')


stack_size = thread_size_check('task stacks are THREAD_SIZE (vm/stages.toml)',
                               stop)


@test("at do_IRQ, $sp is on the interrupted task's stack, as ks-where says",
      parent=stop)
def at_do_irq():
    c = cpu()
    sp = val('$sp')
    stack = int(current(c)['stack'])
    expect_true(on_current_stack(sp, c), '$sp at do_IRQ',
                "on the current task's stack, %#x-%#x" % (stack, stack + thread_size()),
                '%#x' % sp)
    where = run('ks-where')
    said = 'on the task stack of pid %d' % int(current(c)['pid'])
    expect_true(said in where, "ks-where's words", said, where.strip())


@test('ks-where says whether the stage has IRQ stacks, as vm/stages.toml '
      'does (stage 1: none)', parent=stop, reads='ks-where')
def no_irq_stacks(where):
    says = ('no IRQ stacks' if 'This stage has no IRQ stacks' in where
            else 'IRQ stacks')
    expect(says, 'IRQ stacks' if STAGE['hardirq_stacks'] else 'no IRQ stacks',
           'what ks-where says of the IRQ stacks')


@test("in handle_irq_event, %d times: $sp on the interrupted task's stack"
      % HITS, parent=stop)
def handler():
    # Each time an interrupt of kernel code, so that the task stack held
    # more than the entry frame.
    deepest = 0
    for hit in range(HITS):
        expect_true(continue_to('handle_irq_event', interrupted_kernel_task_stack),
                    'stop %d of %d in handle_irq_event' % (hit + 1, HITS),
                    'an interrupt of kernel code on a task stack', NONE)
        c, sp = cpu(), val('$sp')
        stack = int(current(c)['stack'])
        if not hit:
            answer('handler_stack', stack_kind(sp, c))
        expect_true(on_current_stack(sp, c), '$sp in handle_irq_event, stop %d'
                    % (hit + 1), "on the interrupted task's stack, %#x-%#x"
                    % (stack, stack + thread_size()), '%#x' % sp)
        deepest = max(deepest, stack + thread_size() - sp)
    answer('deepest_handler', deepest)
    return 'deepest %d bytes from the top' % deepest


@test("ks-bt shows the handler's frames on the task stack, no switch",
      parent=handler, reads='ks-bt')
def handler_bt(bt):
    expect_true('handle_irq_event' in bt, 'ks-bt in handle_irq_event',
                'a handle_irq_event frame', bt.strip()[:300])
    before_regs = bt.split('pt_regs')[0]
    answer('bt_switch', 'yes' if '^^' in before_regs else 'no')
    expect_true('^^' not in before_regs, 'ks-bt above the pt_regs',
                'no "^^" stack switch', before_regs.strip()[:300])


def from_irq_exit():
    # A softirq on the way out of an interrupt: __do_softirq called (through
    # the inlined invoke_softirq) by __irq_exit_rcu. Not one run by
    # ksoftirqd, nor by __local_bh_enable_ip when a task turns bottom
    # halves back on.
    frame, names = gdb.selected_frame(), []
    for _ in range(4):
        frame = frame.older()
        if frame is None:
            break
        names.append(frame.name())
    return '__irq_exit_rcu' in names or 'irq_exit_rcu' in names


@test('a softirq runs on the way out of an interrupt', parent=stop)
def softirq():
    expect_true(continue_to('__do_softirq', from_irq_exit),
                'a stop in __do_softirq called from irq_exit_rcu', 'one',
                NONE)


@test("__do_softirq runs on the interrupted task's stack, called from "
      "irq_exit_rcu()", parent=softirq)
def softirq_stack():
    c, sp = cpu(), val('$sp')
    stack = int(current(c)['stack'])
    answer('softirq_stack', stack_kind(sp, c))
    expect_true(on_current_stack(sp, c), '$sp in __do_softirq',
                "on the interrupted task's stack, %#x-%#x"
                % (stack, stack + thread_size()), '%#x' % sp)
    bt = run('ks-bt')
    expect_true(re.search(r'irq_exit_rcu', bt), 'ks-bt in __do_softirq',
                'an irq_exit_rcu frame', bt.strip()[:300])


def serial_port():
    """The interrupt is the serial port's, where the stop's function has
    the irq_desc at hand (desc); the serial driver's own functions serve
    only it."""
    try:
        return bool(val('desc->action->handler == serial8250_interrupt'))
    except gdb.error:
        return True


@test("in %s (the learner's variant), at interrupts of kernel code: what "
      "the interrupt has cost the task's stack there" % COST_AT, parent=stop)
def handler_cost():
    # What the interrupt has put on the task's stack by then: the
    # interrupted esp (regs->sp) minus $sp. The same path, the same cost,
    # for every serial interrupt from kernel code: the most common, should
    # a stop's desc be out of gdb's reach.
    costs = []
    for hit in range(COST_HITS):
        expect_true(continue_to(COST_AT, lambda: interrupted_kernel_task_stack()
                                and serial_port()),
                    'stop %d of %d in %s' % (hit + 1, COST_HITS, COST_AT),
                    'an interrupt of kernel code on a task stack', NONE)
        costs.append(entry_cost(cpu()))
    cost = max(set(costs), key=costs.count)
    expect_in(cost, val('sizeof(struct pt_regs)'), 2048,
              "the interrupt's cost to the task's stack in %s, regs->sp - $sp" % COST_AT)
    answer('handler_cost', cost)
    # The cost is a question of the lab's (handler_cost): not shown.


run_tests()
