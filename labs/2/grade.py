# Grader of lab 2 (stage 2): the switch onto per-CPU IRQ stacks. Run by
# vm/session/ks (make grade N=2) in gdb batch mode against a fresh guest.
import re

import gdb
from kstack import switch
from kstack import stacks

from vm.session import facts
from labs.gdbutil import (stop_check, NONE, continue_to, cpu, current, entry_cost,
                          interrupted_kernel_task_stack, irq_stack, run,
                          stepi_off, thread_size, val, word)
from labs.gradelib import (answer, expect, expect_in, expect_true, lab_number,
                           run_tests, test)

STAGE = facts.lab(lab_number())['stage_facts']
MAGIC = facts.kernel()['stack_end_magic']
SWITCHES = (('__handle_irq', 'hardirq'), ('do_softirq_own_stack', 'softirq'))
# Where handler_depth is measured: the learner's variant (lab.toml).
DEPTH_AT = facts.lab(lab_number())['variant']['depth_at']


def irq_top(kind, c):
    return irq_stack(kind, c) + thread_size()


def stack_of(addr, c):
    """'hardirq', 'softirq' or 'task' (the current task's), from raw data."""
    for kind in ('hardirq', 'softirq'):
        if irq_top(kind, c) - thread_size() <= addr <= irq_top(kind, c):
            return kind
    stack = int(current(c)['stack'])
    return 'task' if stack <= addr < stack + thread_size() else 'other'


stop = stop_check('break do_IRQ stops at common_interrupt', 'common_interrupt')


# What this kernel is meant to have: stage 2 both kinds, the exercise's
# kernel the hardirq stack alone (lab.toml [exercise] stage_facts).
KINDS = ' and a '.join(k for k in ('hardirq', 'softirq') if STAGE['%s_stacks' % k])
LACKS = ''.join(', no %s stack' % k for k in ('hardirq', 'softirq')
                if not STAGE['%s_stacks' % k])


@test('each CPU has a %s stack of THREAD_SIZE%s, as its facts say' % (KINDS, LACKS),
      parent=stop)
def irq_stacks():
    expect(thread_size(), STAGE['thread_size'], 'THREAD_SIZE (sizeof(init_stack))')
    for c in (0, 1):
        for kind in ('hardirq', 'softirq'):
            base = irq_stack(kind, c)
            want = STAGE['%s_stacks' % kind]
            expect_true(bool(base) == want, "CPU %d's %s_stack_ptr" % (c, kind),
                        'a stack\'s address' if want else 'none (this kernel '
                        'has no %s stack)' % kind, '%#x' % base if base else
                        'none (no %s_stack_ptr, or NULL)' % kind)
    expect(val('sizeof(struct irq_stack)'), STAGE['thread_size'],
           'an IRQ stack\'s size (sizeof(struct irq_stack))')


def switch_tests(c, function, kind):
    """Two checks for the switch onto CPU C's KIND stack in FUNCTION: the
    xchg's move, then what it left at the stack's bottom."""
    seen = {}

    @test("CPU %d, %s: the xchg moves esp to the top of CPU %d's %s stack"
          % (c, function, c, kind), parent=irq_stacks)
    def onto():
        # The switch instructions, as ks-watch-switch finds them; one CPU
        # and one function at a time, so that the grader stops only where
        # it looks.
        bps = []
        try:
            for addr, fn, what in switch.switch_points():
                if fn == function and what == 'onto':
                    bps.append(gdb.Breakpoint('*%#x' % addr, internal=True))
                    bps[-1].thread = c + 1
            expect_true(bps, 'the xchg onto the %s stack in %s' % (kind, function),
                        'one or more', 'none')
            for _ in range(200):
                run('continue')
                if cpu() == c:
                    break
            expect(cpu(), c, 'the CPU of the stop at the xchg')
            seen.update(before=val('$sp'), after=val('$ebx'), xchg=val('$pc'))
            if function == '__handle_irq':
                seen['desc'] = irq_desc_here()
            if function == '__handle_irq':
                # Still on the interrupted stack: what the interrupt has
                # cost it so far (a device interrupt from kernel mode:
                # from user mode, __handle_irq does not switch).
                seen['cost'] = entry_cost(c)
            stepi_off(val('$pc'))
        finally:
            for bp in bps:
                bp.delete()
        seen.update(now=val('$sp'), saved=word(irq_stack(kind, c)))
        seen['from_stack'] = stack_of(seen['before'], c)
        expect(seen['after'], irq_top(kind, c),
               '$ebx at the xchg (the esp it moves to), against the top of '
               'the %s stack' % kind)
        expect(seen['now'], seen['after'], '$sp after the xchg (stepi)')
        if c == 0:
            top = irq_top(kind, c)
            if kind == 'hardirq':
                answer('ebx_at_xchg', {top: 'hardirq_top', top - thread_size():
                                       'hardirq_base', seen['before']:
                                       'interrupted_esp'}.get(seen['after'],
                                                              '%#x' % seen['after']))
                answer('hardirq_used', top - seen['now'])
        if 'cost' in seen:
            expect_in(seen['cost'], val('sizeof(struct pt_regs)'), 1024,
                      'regs->sp - $sp at the xchg, in bytes (the interrupted '
                      'esp, above $sp)')
            if c == 0:
                answer('entry_cost', seen['cost'])
        # The cost is a question of the lab's (entry_cost): not shown.
        return 'esp %#x -> %#x' % (seen['before'], seen['now'])

    @test("CPU %d: the %s stack's bottom word holds the esp it came from"
          % (c, kind), parent=onto)
    def saved():
        if c == 0:
            answer('hardirq_bottom' if kind == 'hardirq' else 'softirq_bottom',
                   {seen['before']: 'interrupted_esp', MAGIC: 'end_magic',
                    0: 'zero'}.get(seen['saved'], '%#x' % seen['saved']))
        expect(seen['saved'], seen['before'], "the word at the %s stack's "
               "bottom, against esp before the xchg" % kind)
        # A device interrupt can also land while a softirq runs on the
        # softirq stack; softirqs are only ever entered from a task stack.
        came = ('task', 'softirq') if kind == 'hardirq' else ('task',)
        expect_true(seen['from_stack'] in came, 'the stack that esp %#x is on'
                    % seen['before'], ' or '.join(came), seen['from_stack'])
        return '%#x, on the %s stack' % (seen['saved'], seen['from_stack'])

    if (c, kind) == (0, 'hardirq'):
        @test('CPU 0: an interrupt that finds the CPU on its hardirq stack '
              'already is not switched again (gdb makes the nested call)',
              parent=onto)
        def nested():
            return nested_call(c, seen['xchg'], seen['desc'])


def irq_desc_here():
    """The interrupt's desc at a stop on the xchg: __handle_irq()'s first
    argument, read from the innermost frame that names it (the switch
    may be in a helper of the learner's, inlined or not); else %eax,
    where the call after the xchg passes it (-mregparm=3)."""
    frame = gdb.selected_frame()
    while frame is not None:
        try:
            return int(frame.read_var('desc')) & stacks.mask()
        except (ValueError, gdb.error):
            frame = frame.older()
    return val('$eax')


def nested_call(c, xchg, desc):
    """At the stop just after the xchg onto CPU C's hardirq stack, call
    __handle_irq() again for the same interrupt, as a nested interrupt
    would (6.1 never lets one come: its handlers run with interrupts
    off). The call is made by hand, as the i386 kernel calls (regparm:
    desc in %eax, regs in %edx), since gdb's own `call` would pass them
    on the stack. A right solution sees that this CPU is on its hardirq
    stack and runs the handler where it is; a wrong one reaches the xchg
    again, which would throw away the frames at the stack's top and the
    saved esp at its bottom. Everything is put back afterwards."""
    top = irq_top('hardirq', c)
    expect(val('$sp'), top, '$sp at the stop after the xchg (the stack\'s top)')
    names = ('eax', 'ecx', 'edx', 'ebx', 'esp', 'ebp', 'esi', 'edi', 'eip', 'eflags')
    before = {n: val('$' + n) for n in names}
    bottom = word(irq_stack('hardirq', c))
    regs = val('$lx_per_cpu("__irq_regs", %d)' % c)
    inferior = gdb.selected_inferior()
    inferior.write_memory(top - 4, before['eip'].to_bytes(4, 'little'))
    for name, value in (('esp', top - 4), ('eax', desc), ('edx', regs),
                        ('eip', val('&__handle_irq'))):
        run('set $%s = %d' % (name, value))
    stops = [gdb.Breakpoint('*%#x' % a, internal=True) for a in (xchg, before['eip'])]
    for bp in stops:
        bp.thread = c + 1
    try:
        # Both CPUs run (the breakpoints stop only this one): the handler
        # takes desc->lock and the serial port's locks, which the other
        # CPU may hold (the workload's writer, its smp_affinity writes);
        # with the other CPU held, this one would spin on them for ever.
        run('continue')
        pc, sp = val('$pc'), val('$sp')
    finally:
        for bp in stops:
            bp.delete()
        inferior.write_memory(irq_stack('hardirq', c), bottom.to_bytes(4, 'little'))
        for name in names:
            run('set $%s = %d' % (name, before[name]))
    expect_true(pc != xchg, 'where the nested call went', 'not the xchg again '
                '(the CPU is on its hardirq stack already)', 'the xchg at %#x, '
                'with $sp %#x on the hardirq stack' % (xchg, sp))
    expect(pc, before['eip'], "where the nested call returned ($pc)")
    expect(sp, top, 'where the nested call returned ($sp)')
    return 'IRQ %d: handled where it was' % val('((struct irq_desc *)%d)->irq_data.irq' % desc)


# Only the stacks this kernel is meant to have (an exercise may ask for
# the hardirq stack alone).
for c in (0, 1):
    for function, kind in SWITCHES:
        if STAGE['%s_stacks' % kind]:
            switch_tests(c, function, kind)


def from_user_mode():
    """The interrupt being handled on this CPU came from user mode."""
    regs = val('$lx_per_cpu("__irq_regs", %d)' % cpu())
    return regs and val('((struct pt_regs *)%d)->cs' % regs) & 3


@test('an interrupt from user mode is not switched: its handler runs on the '
      'task stack, which the entry code left empty', parent=irq_stacks)
def user_mode():
    # gdb itself skips the interrupts of kernel code (the condition): the
    # workload's loops in user mode make the others frequent.
    expect_true(continue_to('handle_irq_event', from_user_mode, condition=(
        '((struct pt_regs *)$lx_per_cpu("__irq_regs", $_thread - 1))->cs & 3')),
                'a stop in handle_irq_event', 'an interrupt from user mode',
                NONE)
    expect(stack_of(val('$sp'), cpu()), 'task', 'the stack $sp is on in '
           'handle_irq_event, for an interrupt from user mode')
    return 'CPU %d, %s' % (cpu(), current(cpu())['comm'].string())


# A backtrace across stacks, in a handler that interrupted kernel code
# (an interrupt from user mode finds the task stack empty and is not
# switched: see __handle_irq()).
@test('a stop in handle_irq_event, interrupting kernel code on a task stack',
      parent=stop)
def handler():
    expect_true(continue_to('handle_irq_event', interrupted_kernel_task_stack),
                'a stop in handle_irq_event', 'an interrupt of kernel code '
                'on a task stack', NONE)


@test('ks-bt in handle_irq_event crosses from the hardirq stack to the task '
      'stack', parent=handler, reads='ks-bt')
def bt_across(bt):
    answer('bt_stacks', 1 + sum('^^' in line for line in bt.splitlines()))
    crossing = '^^ hardirq cpu%d was reached from task' % cpu()
    expect_true(re.search(re.escape(crossing), bt), 'ks-bt\'s crossings',
                crossing + ' ...', ' '.join(l.strip() for l in bt.splitlines()
                                            if '^^' in l) or
                # No crossing: ks-bt's first frames, whole lines.
                '\n'.join(bt.strip().splitlines()[:6]))
    return ' '.join(l.strip() for l in bt.splitlines() if '^^' in l)


@test("from __handle_irq, advance to %s (the learner's variant): the bytes "
      "of the hardirq stack in use there" % DEPTH_AT, parent=irq_stacks)
def handler_depth():
    # A serial port's interrupt (the variant's functions are on its path)
    # of kernel code off the hardirq stack: one from user mode, or one
    # nested on the hardirq stack, is not switched.
    expect_true(continue_to('__handle_irq', lambda: interrupted_kernel_task_stack()
                            and val('desc->action->handler == serial8250_interrupt')),
                'a stop in __handle_irq', "a serial port's interrupt of kernel code "
                'on a task stack', NONE)
    run('advance *%s' % DEPTH_AT)
    c, sp = cpu(), val('$sp')
    expect(gdb.selected_frame().name(), DEPTH_AT, 'the function advance stopped in')
    depth = expect_in(irq_top('hardirq', c) - sp, 1, 1024, "the top of CPU %d's "
                      'hardirq stack - $sp, in bytes' % c)
    answer('handler_depth', depth)
    # The bytes are a question of the lab's (handler_depth): not shown.


run_tests()
