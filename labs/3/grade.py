# Grader of lab 3 (stage 3): one-page stacks. Run by vm/session/ks (make grade
# N=3) in gdb batch mode against a fresh guest.
import os
import re

import gdb

from vm.session import facts
from vm.session.session import TOP, stage_obj
from labs.gdbutil import (stop_check, thread_size_check, NONE, continue_to, cpu, current, entry_cost, irq_stack,
                          ordinary_interrupt, run, stack_kind, thread_size,
                          val, word)
from labs.gradelib import (answer, expect, expect_in, expect_true, lab_number,
                           run_tests, test)

STAGE = facts.lab(lab_number())['stage_facts']
MAGIC = facts.kernel()['stack_end_magic']
# check_stack_overflow(): sp & (THREAD_SIZE-1) < sizeof(struct
# thread_info) + STACK_WARN, STACK_WARN being THREAD_SIZE/8: the table
# has the line; ks-where says where the running kernel draws it.
WARN = STAGE['warning_line']
INTERRUPTS = 10    # interrupts to measure the room left over
# The room dd's descents ask stackdeep for (guest.sh).
ROOM = 300



stop = stop_check('break do_IRQ stops at common_interrupt', 'common_interrupt')


stack_size = thread_size_check('stacks are one page: THREAD_SIZE as '
                               'vm/stages.toml says', stop)


@test('one stack size, no choice: the kernel was configured without a '
      '4KSTACKS option (its .config)', parent=stop)
def no_choice():
    # The seed patch's point: the option goes, its 4K side stays. A
    # Kconfig that still declares it shows in .config as "not set".
    config = os.path.join(stage_obj(facts.lab(lab_number())['stage']), '.config')
    with open(config) as f:
        said = [l.strip() for l in f if '4KSTACKS' in l]
    expect_true(not said, 'the lines of %s that name 4KSTACKS'
                % os.path.relpath(config, TOP), 'none', ' | '.join(said))
    magic = gdb.parse_and_eval('vermagic').string()
    return 'module vermagic "%s"' % magic


@test('a stop at an interrupt of kernel code on an ordinary task\'s stack',
      parent=stop)
def ordinary_stop():
    # The lab's first stop may have caught one that came while a softirq
    # ran on the softirq stack, or one from user mode.
    if not ordinary_interrupt():
        expect_true(continue_to('common_interrupt', ordinary_interrupt),
                    'a stop in common_interrupt', 'an interrupt of kernel code '
                    'on a task stack other than dd\'s', NONE)
    return '%s on CPU %d' % (current(cpu())['comm'].string(), cpu())


@test('sp & ~(THREAD_SIZE-1) is the task stack\'s bottom, which holds '
      'STACK_END_MAGIC, as ks-thread-info says', parent=ordinary_stop)
def thread_info():
    # 2.6's thread_info address, and what is there in 6.1.
    sp, ts = val('$sp'), thread_size()
    base = int(current(cpu())['stack'])
    expect_in(sp, base, base + ts, '$sp, against the current task\'s stack')
    expect(sp & ~(ts - 1), base, 'sp & ~(THREAD_SIZE-1)')
    info = run('ks-thread-info')
    for said in ('= %#x' % base, 'STACK_END_MAGIC intact'):
        expect_true(said in info, 'ks-thread-info\'s words', said, info.strip())
    expect(word(base), MAGIC, 'the word at the task stack\'s bottom')
    return '%#x' % base


@test('over up to %d interrupts from kernel code, the least room left below '
      'esp is above the warning line' % INTERRUPTS, parent=ordinary_stop)
def least_room():
    # While dd waits deep in its stack, every serial interrupt lands on
    # dd (a storm of reports, each raising the next): then fewer come.
    rooms = []
    while len(rooms) < INTERRUPTS and continue_to('common_interrupt', ordinary_interrupt):
        rooms.append(val('$sp') - int(current(cpu())['stack']))
    expect_true(rooms, 'interrupts of kernel code on a task stack other than '
                'dd\'s', 'one or more', NONE)
    least = expect_in(min(rooms), WARN + 1, thread_size(),
                      'the least room below esp, in bytes')
    answer('least_room', least)
    return '%d bytes, over %d interrupts' % (least, len(rooms))


@test('ks-where gives the warning line of vm/stages.toml and the room '
      'above it', parent=least_room, reads='ks-where')
def where_room(where):
    m = re.search(r'(\d+) bytes (above|below) the warning line; the line is '
                  r'(\d+) bytes above', where)
    expect_true(m, 'ks-where\'s warning line', 'N bytes above (or below) the '
                'warning line; the line is M bytes above the stack\'s bottom',
                where.strip())
    line = expect(int(m.group(3)), WARN, 'the warning line ks-where draws, in '
                  'bytes above the bottom')
    answer('warning_line', line)
    room = int(m.group(1)) * (1 if m.group(2) == 'above' else -1)
    expect(room, val('$sp') - int(current(cpu())['stack']) - WARN,
           'the room above the line ks-where gives, against $sp - '
           'current->stack - %d' % WARN)
    return '%s %s the line' % (m.group(1), m.group(2))


def check_reads_esp():
    """The address of the instruction of __handle_irq() where its inlined
    check_stack_overflow() reads esp, or None."""
    text = gdb.execute('disassemble __handle_irq', to_string=True)
    for m in re.finditer(r'^\s*(?:=> )?(0x[0-9a-f]+) <\+\d+>:\s+(\w+)\s+%esp,(%\w+)$',
                         text, re.M):
        if (m.group(2), m.group(3)) != ('mov', '%ebp'):
            return int(m.group(1), 16)
    return None


@test('in __handle_irq, where the check reads esp: the least room an '
      'interrupted task needs for no warning is the line plus what the '
      'interrupt has put on its stack', parent=ordinary_stop)
def quiet_room():
    # check_stack_overflow() warns when esp, read in __handle_irq(), is
    # under the line: the interrupted esp must be the line plus the
    # entry's cost above the stack's bottom for it to stay quiet. The
    # cost is taken where the check reads esp (inlined: the first
    # instruction after the prologue with %esp as its source, `and
    # %esp,%eax` here), not at the breakpoint gdb puts after the prologue:
    # the pushes between the two are the check's cost too (seen: 20 bytes).
    reads = check_reads_esp()
    expect_true(reads, 'the instruction of __handle_irq where the check reads esp',
                'an instruction with %esp as its source, after the prologue',
                'none in: disassemble __handle_irq')
    expect_true(continue_to('*%#x' % reads, ordinary_interrupt),
                'a stop where the check reads esp (%#x)' % reads,
                'an interrupt of kernel code on a task stack other than dd\'s',
                NONE)
    cost = expect_in(entry_cost(cpu()), val('sizeof(struct pt_regs)'), 1024,
                     'regs->sp - $sp where the check reads esp, in bytes')
    answer('quiet_room', WARN + cost)
    # The sum is a question of the lab's (quiet_room): not shown.


# On a kernel whose stacks are not one page (an exercise's skeleton), the
# descent runs into reports long before its bottom, and the guest dies or
# hangs in them: the room is the lab's 4K stacks' question only.
@test("where dd's descent stopped: stackdeep's deepest esp, in bytes above the "
      "end of dd's stack (the learner's variant: descend()'s frame)", parent=stack_size)
def descent_room():
    # At the bottom of the first descent: descend() has just set
    # deepest_sp and calls wait_at_bottom() (a report can come before that,
    # from the last frame, so not at a report; and the reports' storm can
    # keep the descent there for good, so before the check fires).
    expect_true(continue_to('wait_at_bottom'), 'a stop in wait_at_bottom', 'one', NONE)
    base, deepest = int(current(cpu())['stack']), val('deepest_sp')
    room = expect_in(deepest - base, ROOM, thread_size(),
                     "stackdeep's deepest_sp - the end of %s's stack, in bytes "
                     '(it asks for %d)' % (current(cpu())['comm'].string(), ROOM))
    answer('descent_room', room)
    # The room is a question of the lab's (descent_room): not shown.


# The interrupt-entry check firing: the workload's dd recurses in the lab
# module until little room is left and waits; a serial interrupt arriving
# then finds sp & (THREAD_SIZE-1) below the warning line, and
# __handle_irq() calls print_stack_overflow() on the hardirq stack.
FIRED = {}


@test('the check fires: print_stack_overflow() runs on the CPU\'s hardirq '
      'stack', parent=stop)
def fired():
    hit = continue_to('print_stack_overflow')
    answer('check_fires', 'yes' if hit else 'no')
    expect_true(hit, 'a stop in print_stack_overflow', 'one', NONE)
    c = cpu()
    answer('report_stack', stack_kind(val('$sp'), c))
    hard = irq_stack('hardirq', c)
    expect_in(val('$sp'), hard, hard + thread_size(),
              '$sp, against CPU %d\'s hardirq stack' % c)
    task = current(c)
    FIRED.update(cpu=c, base=int(task['stack']), comm=task['comm'].string(),
                 saved=word(hard))
    return 'CPU %d, %s' % (c, FIRED['comm'])


@test('the interrupted esp (saved at the hardirq stack\'s bottom) lies under '
      'the warning line', parent=fired)
def room_at_warning():
    base, saved = FIRED['base'], FIRED['saved']
    expect_in(saved, base, base + WARN, 'the interrupted esp, against the '
              'end of %s\'s stack + the %d-byte line' % (FIRED['comm'], WARN))
    return '%d bytes above the end of the stack' % (saved - base)


@test('ks-irqstacks shows the CPU on its hardirq stack with that saved esp',
      parent=fired)
def irqstacks():
    c, saved = FIRED['cpu'], FIRED['saved']
    out = run('ks-irqstacks')
    row = re.search(r'^%d\s+hardirq\s+.*$' % c, out, re.M)
    expect_true(re.search(r'^%d\s+hardirq\s+\S+\s+yes\s+%#x\s' % (c, saved), out, re.M),
                'ks-irqstacks\' row for CPU %d\'s hardirq stack' % c,
                '%d hardirq AREA yes %#x ...' % (c, saved),
                row.group(0) if row else out.strip())


@test('the kernel log has the report, "low stack detected by irq handler", '
      'and its call trace names the recursing function, descend', parent=fired)
def dmesg():
    run('finish')
    log = run('lx-dmesg')
    for said in ('low stack detected by irq handler', 'descend'):
        expect_true(said in log, 'lx-dmesg', 'a line with "%s"' % said,
                    'none; its last lines: ' + ' | '.join(log.splitlines()[-4:]))


run_tests()
