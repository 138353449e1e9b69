# Grader of lab 4's task: the learner's check_stack_overflow(), in their
# kernel (stage 2 plus their check), run by vm/session/ks (make grade N=4
# EXERCISE=1) in gdb batch mode against a fresh guest running this lab's
# workload again and again (dd waits with about 1300 bytes of its 8K
# stack left, then 700).
#
# The check is judged where it runs, interrupt by interrupt: in
# __handle_irq(), past its prologue, where the check reads esp, the grader
# reads how many bytes lie below $sp on the stack the interrupt arrived
# on, then lets the interrupt run and sees whether print_stack_overflow()
# was called before __handle_irq() returned. Interrupts within MARGIN
# bytes of the line are not judged (a check written otherwise may read
# esp a few pushes lower). A check that reports with room to spare makes
# a storm of reports (each one's console output raises the next serial
# interrupt): the later checks need the quiet one.
import gdb

from labs.gdbutil import NONE, continue_to, cpu, run, start_lab, thread_size, val
from labs.gradelib import expect, expect_true, run_tests, test

MARGIN = 64
QUIET = 20          # interrupts with room to spare that must not report
DESCENTS = 20       # descents to look at for an interrupt deep enough


def line():
    """2.6's warning line, in bytes above a stack's lowest address."""
    return val('sizeof(struct thread_info)') + thread_size() // 8


def room():
    """Bytes below $sp on the stack it is on (every stack this kernel has
    is THREAD_SIZE bytes, THREAD_SIZE-aligned)."""
    return val('$sp') & (thread_size() - 1)


def reported():
    """From a stop in __handle_irq, before the check: let the interrupt
    run; True if print_stack_overflow() was called on this CPU before
    __handle_irq() returned."""
    thread = gdb.selected_thread()
    back = gdb.Breakpoint('*%#x' % gdb.selected_frame().older().pc(),
                          internal=True)
    report = gdb.Breakpoint('print_stack_overflow', internal=True)
    for bp in (back, report):
        bp.thread = thread.num
    try:
        run('continue')
        # Reported: on to __handle_irq's caller, the report printed. gdb
        # can report the stop in print_stack_overflow() twice (seen once,
        # in check 88: the line was then missing from lx-dmesg): go on
        # until the caller is reached.
        for _ in range(5):
            if not report.hit_count or back.hit_count:
                break
            run('continue')
        return report.hit_count > 0
    finally:
        back.delete()
        report.delete()


@test('the lab stops in __handle_irq, before the check')
def stop():
    start_lab()
    expect(gdb.selected_frame().name(), '__handle_irq', 'the function gdb stopped in')
    return 'CPU %d, %d bytes below $sp' % (cpu(), room())


def verdict(low):
    """Judge the check at this stop: it must report iff LOW."""
    here, c = room(), cpu()
    comm = gdb.parse_and_eval('$lx_per_cpu("current_task", %d)->comm' % c).string()
    said = reported()
    expect_true(said == low, 'your check, on an interrupt arriving with %d '
                'bytes free below $sp (CPU %d, %s; the line is %d bytes)'
                % (here, c, comm, line()),
                'print_stack_overflow() called (%d < %d)' % (here, line()) if low
                else 'no report (%d >= %d)' % (here, line()),
                'a report: print_stack_overflow() was called' if said else
                '__handle_irq() returned without calling print_stack_overflow()')
    return here, comm


def in_range(least, most):
    """gdb's test of an interrupt's room: more than LEAST and at most MOST
    bytes free below $sp."""
    free = '((unsigned long)$sp & %d)' % (thread_size() - 1)
    return '%s > %d && %s <= %d' % (free, least, free, most)


def deep_interrupt(least, most):
    """Continue to an interrupt that arrives while dd waits at the bottom
    of a descent (in stackdeep's wait_at_bottom()), with more than LEAST
    and at most MOST bytes free; True if one came within DESCENTS
    descents. Its breakpoint is set only while dd waits there: set all the
    time, every interrupt of the workload's serial traffic would stop the
    guest for gdb to test it, and on a loaded host the descents then
    came too slowly (seen: none deep enough within 120 s)."""
    bottom = gdb.Breakpoint('wait_at_bottom', internal=True)
    try:
        for _ in range(DESCENTS):
            run('continue')
            if not bottom.hit_count:
                return False
            bottom.hit_count = 0
            thread = gdb.selected_thread().num
            irq = back = None
            try:
                irq = gdb.Breakpoint('__handle_irq', internal=True)
                irq.thread = thread
                irq.condition = in_range(least, most)
                back = gdb.Breakpoint('*%#x' % gdb.selected_frame().older().pc(),
                                      internal=True)
                back.thread = thread
                run('continue')
                if irq.hit_count and least < room() <= most:
                    return True
            finally:
                for bp in (irq, back):
                    if bp is not None:
                        bp.delete()
        return False
    finally:
        bottom.delete()


def judge(n, low, least, most, deep=False):
    """Continue to N interrupts that arrive with more than LEAST and at
    most MOST bytes free, judging the check on each (LOW: it must
    report); the rooms seen. DEEP: such rooms come only while dd waits
    deep in a descent."""
    seen = []
    for _ in range(n):
        if deep:
            ok, none = deep_interrupt(least, most), 'none in %d descents' % DESCENTS
        else:
            # (Python judges the stop again: a stop of the other CPU, at
            # the same breakpoint, can be reported in its place.)
            ok, none = continue_to('__handle_irq', lambda: least < room() <= most,
                                   condition=in_range(least, most)), NONE
        expect_true(ok, 'an interrupt arriving with %d to %d bytes free'
                    % (least + 1, most), 'one', none)
        seen.append(verdict(low))
    return seen


@test('quiet with room to spare: %d interrupts arriving with more than '
      'twice the line free, none reported' % QUIET, parent=stop)
def quiet():
    seen = judge(QUIET, False, 2 * line(), thread_size())
    return 'from %d to %d bytes free' % (min(r for r, _ in seen),
                                         max(r for r, _ in seen))


@test('quiet just above the line: an interrupt arriving with between the '
      'line + %d bytes and twice the line free is not reported' % MARGIN,
      parent=quiet)
def just_above():
    (here, comm), = judge(1, False, line() + MARGIN, 2 * line(), deep=True)
    return '%d bytes free, in %s' % (here, comm)


@test('fires when the stack is low: an interrupt arriving with fewer than '
      'the line - %d bytes free is reported' % MARGIN, parent=quiet)
def fires():
    (here, comm), = judge(1, True, 0, line() - MARGIN - 1, deep=True)
    return '%d bytes free, in %s' % (here, comm)


@test('the kernel\'s report follows: "low stack detected by irq handler" '
      'in lx-dmesg', parent=fires, reads='lx-dmesg')
def dmesg(log):
    said = 'low stack detected by irq handler'
    expect_true(said in log, 'lx-dmesg', 'a line with "%s"' % said,
                'none; its last lines: ' + ' | '.join(log.splitlines()[-4:]))


run_tests()
