# Grader of lab 7 (lab 7's x86_64 kernel, not one of the i386 stages):
# 16K task stacks in vmalloc space between guard pages, and an overflow
# that faults at once. Run by vm/session/ks (make grade N=7) in gdb batch
# mode against a fresh guest.
#
# Its readers are x86_64's, written here with plain gdb expressions
# (gdbutil's are i386's, and kstack is what the checks judge): the
# hardirq stack from hardirq_stack_ptr (its top less 8), the double-fault
# stack from cea_exception_stacks, vmalloc space from the tree's own map
# (Documentation/x86/x86_64/mm.rst, 4-level paging, no KASLR).
import os
import re

import gdb

from vm.session import facts
from labs.gdbutil import continue_to, cpu, current, stop_check, thread_size_check
from labs.gradelib import answer, expect, expect_true, lab_number, run_tests, test
from vm.session.session import stage_src

LAB = facts.lab(lab_number())
STAGE = LAB['stage_facts']
MAGIC = facts.kernel()['stack_end_magic']
MASK = (1 << 8 * facts.machine(LAB['stage'])['word_bytes']) - 1
PAGE = facts.machine(LAB['stage'])['page_bytes']

with open(os.path.join(stage_src(LAB['stage']), 'Documentation', 'x86',
                       'x86_64', 'mm.rst')) as f:
    m = re.search(r'^\s*([0-9a-f]{16}) \|[^|]*\| ([0-9a-f]{16}) \|[^|]*\| '
                  r'vmalloc/ioremap space', f.read(), re.M)
VMALLOC = (int(m.group(1), 16), int(m.group(2), 16))


def val(expr):
    return int(gdb.parse_and_eval(expr)) & MASK


def readable(addr):
    try:
        gdb.parse_and_eval('*(unsigned long *)%d' % addr).fetch_lazy()
        return True
    except gdb.MemoryError:
        return False


def hardirq_stack(c):
    """(base, top) of CPU C's hardirq stack: hardirq_stack_ptr is its top
    less 8 (arch/x86/kernel/irq_64.c)."""
    top = val('$lx_per_cpu("hardirq_stack_ptr", %d)' % c) + 8
    return top - STAGE['irq_stack_size'], top


def df_stack(c):
    """(base, top) of CPU C's double-fault IST stack."""
    stack = gdb.parse_and_eval('$lx_per_cpu("cea_exception_stacks", %d)->DF_stack' % c)
    base = int(stack.address) & MASK
    return base, base + stack.type.sizeof


def task_stack(task):
    base = int(task['stack']) & MASK
    return base, base + STAGE['thread_size']


SEEN = {}

stop = stop_check('the lab stops at a device interrupt after boot, in '
                  '__common_interrupt', '__common_interrupt')
size = thread_size_check('task stacks are 16K: THREAD_SIZE as vm/stages.toml '
                         'says', stop)


@test("__common_interrupt runs on the CPU's hardirq stack, which is vmapped",
      parent=stop)
def on_hardirq():
    base, top = hardirq_stack(cpu())
    c, sp = cpu(), val('$sp')
    expect_true(base <= sp < top, '$rsp', "on CPU %d's hardirq stack %#x-%#x"
                % (c, base, top), '%#x' % sp)
    expect_true(VMALLOC[0] <= base < VMALLOC[1], "the hardirq stack's base",
                'in vmalloc space (%#x-%#x)' % VMALLOC, '%#x' % base)
    answer('stack_kb', val('sizeof(init_stack)') // 1024)   # THREAD_SIZE
    return 'CPU %d, %d bytes below its top' % (c, top - sp)


def ks_where_names(kind, parent):
    """Register the check that ks-where names this CPU's KIND stack."""
    def check(where):
        said = "CPU %d's %s stack" % (cpu(), kind)
        expect_true(said in where, "ks-where's words", said, where.strip())
    test('ks-where names the %s stack' % kind, parent=parent,
         reads='ks-where')(check)


ks_where_names('hardirq', on_hardirq)


@test("the switch saved the interrupted rsp in the hardirq stack's top word, "
      "on the interrupted task's stack", parent=on_hardirq)
def saved_rsp():
    c = cpu()
    base, top = hardirq_stack(c)
    saved = val('*(unsigned long *)%d' % (top - 8))
    task = current(c)
    low, high = task_stack(task)
    expect_true(low <= saved < high, "the word at the hardirq stack's top",
                'an rsp on the stack of pid %d (%s), %#x-%#x' % (
                    int(task['pid']), task['comm'].string(), low, high), '%#x' % saved)
    return '%#x, pid %d' % (saved, int(task['pid']))


@test("init's stack lies in vmalloc space, 16K-aligned, STACK_END_MAGIC at "
      "its lowest word, and the words just outside it cannot be read",
      parent=stop)
def guard_pages():
    low, high = task_stack(gdb.parse_and_eval('$lx_task_by_pid(1)'))
    expect_true(VMALLOC[0] <= low < VMALLOC[1] and low % STAGE['thread_size'] == 0,
                "init's stack", 'in vmalloc space (%#x-%#x), aligned to %d'
                % (VMALLOC[0], VMALLOC[1], STAGE['thread_size']), '%#x' % low)
    expect(val('*(unsigned long *)%d' % low), MAGIC, 'the lowest word of the stack')
    expect((readable(low - 8), readable(high)), (False, False),
           '(the word below the stack can be read, the word above it can)')
    return '%#x-%#x' % (low, high)


@test("continuing, dd's descent double-faults onto the DF stack", parent=stop)
def double_fault():
    hit = continue_to('exc_double_fault')
    c = cpu()
    base, top = df_stack(c)
    sp = val('$sp')
    where = ('double_fault' if base <= sp < top else
             'hardirq' if hardirq_stack(c)[0] <= sp < hardirq_stack(c)[1] else 'task')
    answer('caught_by', 'fault' if hit else 'nothing')
    answer('fault_stack', where)
    expect_true(hit, 'a stop in exc_double_fault', 'one', 'none')
    expect(where, 'double_fault', "the stack $rsp is on (CPU %d's DF stack is "
           '%#x-%#x; $rsp %#x)' % (c, base, top, sp))
    task = current(c)
    low, _ = task_stack(task)
    regs_sp = val('regs->sp')
    SEEN.update(cpu=c, low=low, comm=task['comm'].string(), regs_sp=regs_sp)
    expect(SEEN['comm'], 'dd', 'the task that overflowed (current)')
    expect_true(low - PAGE <= regs_sp < low, "the faulting rsp (regs->sp)",
                'in the page under the stack of %s, %#x' % (SEEN['comm'], low),
                '%#x' % regs_sp)
    # How far under: near fault_below_base, a question of the lab's: not shown.
    return 'CPU %d, %s: rsp under its stack' % (c, SEEN['comm'])


ks_where_names('double-fault', double_fault)


@test('handle_stack_overflow() follows, its fault address in the guard page '
      "under dd's stack", parent=double_fault)
def overflow():
    expect_true(continue_to('handle_stack_overflow'), 'a stop in '
                'handle_stack_overflow', 'one', 'none')
    fault = val('fault_address')
    low = SEEN['low']
    answer('fault_below_base', low - fault)
    expect_true(low - PAGE <= fault < low, 'fault_address', 'in the page '
                'under the stack, %#x-%#x' % (low - PAGE, low), '%#x' % fault)
    # On to die(), which handle_stack_overflow() calls once it has
    # printed its line: the line is in the log, and the kernel not dead yet.
    expect_true(continue_to('die'), 'a stop in die()', 'one', 'none')
    # The bytes are a question of the lab's (fault_below_base): not shown.


@test('the kernel says so: "BUG: TASK stack guard page was hit" in lx-dmesg',
      parent=overflow, reads='lx-dmesg')
def dmesg(log):
    said = re.search(r'BUG: TASK stack guard page was hit at (\S+)', log)
    expect_true(said, 'lx-dmesg', 'a line "BUG: TASK stack guard page was hit '
                'at ..."', ' | '.join(log.splitlines()[-3:]))
    return said.group(0)


run_tests()
