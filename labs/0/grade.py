# Grader of lab 0 (stage 0): run by vm/session/ks (make grade N=0) in gdb batch
# mode. Checks what the lab asks the learner to find, each against the
# kernel's data read a second way.
import re

from vm.session import facts
from labs.gdbutil import (NONE, area_of, continue_to, cpu, current, entry_cost,
                          frame_name, from_kernel_mode, irq_regs, run, stack_kind,
                          start_lab, val, word)
from labs.gradelib import (answer, expect, expect_in, expect_true, lab_number,
                           run_tests, test)

STAGE = facts.lab(lab_number())['stage_facts']
MAGIC = facts.kernel()['stack_end_magic']
# Where handler_bytes is measured: the learner's variant (lab.toml).
HANDLER_AT = facts.lab(lab_number())['variant']['handler_at']
PF_EXITING = 0x4       # include/linux/sched.h


@test('the lab stops in __handle_irq after boot')
def stop():
    start_lab()
    expect(frame_name(), '__handle_irq', 'the function gdb stopped in')
    expect(val('system_state'), val('SYSTEM_RUNNING'), 'system_state')
    return 'CPU %d' % cpu()


@test('the guest runs 2 CPUs', parent=stop)
def cpus():
    online = val('__num_online_cpus.counter')
    expect(val('nr_cpu_ids'), 2, 'nr_cpu_ids')
    expect(online, 2, 'CPUs online (__num_online_cpus)')


@test("current on each CPU is the task lx-ps lists for its pid (or the "
      "CPU's idle task)", parent=cpus, reads='lx-ps')
def current_tasks(ps):
    seen = []
    for c in range(2):
        task = current(c)
        pid, comm = int(task['pid']), task['comm'].string()
        if pid == 0:
            # An idle CPU runs its idle task, swapper/N; only swapper/0
            # (init_task) heads the task list that lx-ps walks.
            expect(comm, 'swapper/%d' % c, 'CPU %d\'s idle task' % c)
        else:
            listed = re.search(r'^0x[0-9a-f]+\s+%d\s+(\S+)' % pid, ps, re.M)
            # A task that has exited and been reaped is off the task list
            # while its CPU still runs its last steps (PF_EXITING).
            exiting = int(task['flags']) & PF_EXITING or int(task['exit_state'])
            if listed or not exiting:
                expect(listed and listed.group(1), comm,
                       'the command lx-ps lists for pid %d, current on CPU %d' % (pid, c))
        seen.append('CPU %d: %s' % (c, comm))
    return ', '.join(seen)


@test('each CPU has a hardirq and a softirq stack of THREAD_SIZE, all '
      'distinct', parent=cpus)
def irq_stacks():
    ts = expect(val('sizeof(init_stack)'), STAGE['thread_size'],
                'THREAD_SIZE (sizeof(init_stack))')
    bases = []
    for c in range(2):
        for kind in ('hardirq', 'softirq'):
            base = val('$lx_per_cpu("%s_stack_ptr", %d)' % (kind, c))
            expect_true(base, 'CPU %d\'s %s_stack_ptr' % (c, kind),
                        'a stack address', 'NULL')
            expect(val('$%s_ctx(%d)' % (kind, c)), base,
                   '$%s_ctx(%d), against the per-CPU pointer' % (kind, c))
            bases.append(base)
    overlap = [(a, b) for a in bases for b in bases if a != b and abs(a - b) < ts]
    expect_true(len(set(bases)) == 4 and not overlap, 'the four stacks',
                'four stacks, %d bytes apart at least' % ts,
                ' '.join('%#x' % b for b in bases))
    # bases: CPU 0's hardirq and softirq stacks, then CPU 1's.
    answer('hardirq_stacks', len(bases[0::2]))


@test('ks-where names an area holding $sp', parent=stop)
def where():
    # Before the switch, which __handle_irq is about to do.
    sp = val('$sp')
    out = run('ks-where')
    base, top = area_of(out)
    expect_true(base is not None, 'ks-where\'s area line', 'area 0x...-0x...',
                out.strip())
    expect_in(sp, base, top + 1, '$sp, against ks-where\'s area %#x-%#x' % (base, top))
    answer('stop_stack', stack_kind(sp, cpu()))
    return out.splitlines()[0]


@test('an interrupt from kernel mode: regs->sp (the interrupted esp) lies '
      'above $sp in __handle_irq, on the same stack', parent=stop)
def entry_bytes():
    # The lab's stop may have interrupted user mode, where regs->sp is the
    # user's esp: then the next stop in __handle_irq that did not.
    if not from_kernel_mode(irq_regs(cpu())):
        expect_true(continue_to('__handle_irq', lambda: from_kernel_mode(
            irq_regs(cpu()))), 'a stop in __handle_irq', 'an interrupt from '
            'kernel mode', NONE)
    sp, cost = val('$sp'), entry_cost(cpu())
    expect_in(cost, val('sizeof(struct pt_regs)'), 1024,
              'regs->sp - $sp, in bytes (the interrupted esp, above $sp)')
    expect(stack_kind(sp + cost, cpu()), stack_kind(sp, cpu()),
           'the stack regs->sp is on, against the stack $sp is on')
    answer('entry_bytes', cost)
    # The bytes are a question of the lab's (entry_bytes): not shown.
    return 'on the %s stack' % stack_kind(sp, cpu())


@test('thread_info is the first member of task_struct: $current_thread_info() '
      '= &current->thread_info', parent=stop)
def thread_info():
    off = val('&((struct task_struct *)0)->thread_info')
    expect(off, 0, 'offsetof(struct task_struct, thread_info)')
    expect(val('$current_thread_info()'),
           int(current(cpu())['thread_info'].address),
           '$current_thread_info(), against &current->thread_info')


@test("the bottom word of the current task's stack is STACK_END_MAGIC",
      parent=stop)
def end_magic():
    bottom = word(int(current(cpu())['stack']))
    answer('stack_bottom', {MAGIC: 'end_magic', 0: 'zero'}.get(bottom, '%#x' % bottom))
    expect(bottom, MAGIC, 'the word at current->stack')


@test("lx-dmesg shows the stage 0 kernel's banner", parent=stop,
      reads='lx-dmesg')
def dmesg(log):
    banner = re.search(r'Linux version \S+', log)
    expect_true(banner and '-stage0' in banner.group(0),
                'the kernel log\'s banner', 'Linux version 6.1...-stage0',
                banner.group(0) if banner else 'no banner')


@test('continuing, ks-watch-switch sees esp move from a task stack onto the '
      'hardirq stack', parent=irq_stacks)
def switch():
    # Other switches (softirqs, the other CPU) may come first: every timer
    # tick's softirqs on each CPU are one, while the shell's output, which
    # makes the serial interrupts, takes the guest a few hundred of them.
    run('ks-watch-switch stop')
    out = ''
    for _ in range(600):
        out = run('continue')
        m = re.search(r'ks-switch CPU(\d+) onto: esp (0x[0-9a-f]+) '
                      r'\(task .*-> (0x[0-9a-f]+) \(hardirq cpu\1\)', out)
        if m:
            break
    run('ks-watch-switch off')
    expect_true(m, 'ks-watch-switch\'s report', 'a switch onto a hardirq stack',
                out.strip()[:200])
    hard = val('$lx_per_cpu("hardirq_stack_ptr", %d)' % cpu())
    before, after = int(m.group(2), 16), int(m.group(3), 16)
    task = int(current(cpu())['stack'])
    answer('switch_target', 'same_stack' if task <= after <= task + STAGE['thread_size']
           and task <= before < task + STAGE['thread_size'] else 'other_stack')
    expect(after, hard + STAGE['thread_size'],
           'the esp it reports, against the top of CPU %d\'s hardirq stack' % cpu())
    return m.group(0)


@test("from __handle_irq, advance to %s (the learner's variant): it starts "
      "on the hardirq stack, a few frames below its top" % HANDLER_AT, parent=irq_stacks)
def handler_bytes():
    # A serial port's interrupt (the variant's functions are on its path)
    # of kernel code on a task or softirq stack: one from user mode, or
    # one nested on the hardirq stack, is not switched.
    expect_true(continue_to('__handle_irq', lambda: from_kernel_mode(irq_regs(cpu()))
                            and stack_kind(val('$sp'), cpu()) != 'hardirq'
                            and val('desc->action->handler == serial8250_interrupt')),
                'a stop in __handle_irq', "a serial port's interrupt of kernel code, "
                'off the hardirq stack', NONE)
    run('advance *%s' % HANDLER_AT)
    c, sp = cpu(), val('$sp')
    expect(frame_name(), HANDLER_AT, 'the function advance stopped in')
    expect(stack_kind(sp, c), 'hardirq', 'the stack $sp is on at %s' % frame_name())
    top = val('$lx_per_cpu("hardirq_stack_ptr", %d)' % c) + STAGE['thread_size']
    expect_in(top - sp, 1, 1024, 'the top of CPU %d\'s hardirq stack - $sp, in bytes' % c)
    answer('handler_bytes', top - sp)
    # The bytes are a question of the lab's (handler_bytes): not shown.
    return 'in %s, on CPU %d\'s hardirq stack' % (frame_name(), c)


run_tests()
