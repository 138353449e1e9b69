# Grader of lab 4's task: the learner's check_stack_overflow(), in their
# kernel (stage 2 plus their check), run by vm/ks (make grade N=4
# EXERCISE=1) in gdb batch mode against a fresh guest running lab 3's
# workload (dd waits with about 700 bytes of its 8K stack left).
#
# The check is judged where it runs, interrupt by interrupt: at the first
# instruction of __handle_irq() the grader reads how many bytes lie below
# $sp on the stack the interrupt arrived on, then lets the interrupt run
# and sees whether print_stack_overflow() was called before __handle_irq()
# returned. Interrupts within MARGIN bytes of the line are not judged:
# the check reads esp a few pushes below the function's first
# instruction. A check that reports with room to spare makes a storm of
# reports (each one's console output raises the next serial interrupt):
# the later checks need the quiet one.
import gdb

from gdbutil import continue_to, cpu, run, start_lab, thread_size, val, word
from gradelib import expect, expect_true, run_tests, test

MARGIN = 64
QUIET = 20          # interrupts with room to spare that must not report


def line():
    """2.6's warning line, in bytes above a stack's lowest address."""
    return val('sizeof(struct thread_info)') + thread_size() // 8


def room():
    """Bytes below $sp on the stack it is on (every stack this kernel has
    is THREAD_SIZE bytes, THREAD_SIZE-aligned)."""
    return val('$sp') & (thread_size() - 1)


def reported():
    """From a stop at __handle_irq's first instruction: let the interrupt
    run; True if print_stack_overflow() was called on this CPU before
    __handle_irq() returned."""
    thread = gdb.selected_thread()
    back = gdb.Breakpoint('*%#x' % word(val('$sp')), internal=True)
    report = gdb.Breakpoint('print_stack_overflow', internal=True)
    for bp in (back, report):
        bp.thread = thread.num
    try:
        run('continue')
        if report.hit_count:
            run('continue')       # the report printed, back in __handle_irq's caller
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


def judge(n, low, what):
    """Continue to N interrupts for which WHAT(room) holds, judging the
    check on each (LOW: it must report); the rooms seen."""
    seen = []
    for _ in range(n):
        ok = continue_to('__handle_irq', lambda: what(room()))
        expect_true(ok, 'an interrupt with that much room', 'one',
                    'none in 400 stops')
        seen.append(verdict(low))
    return seen


@test('quiet with room to spare: %d interrupts arriving with more than '
      'twice the line free, none reported' % QUIET, parent=stop)
def quiet():
    seen = judge(QUIET, False, lambda r: r > 2 * line())
    return 'from %d to %d bytes free' % (min(r for r, _ in seen),
                                         max(r for r, _ in seen))


@test('quiet just above the line: an interrupt arriving with between the '
      'line + %d bytes and twice the line free is not reported' % MARGIN,
      parent=quiet)
def just_above():
    (here, comm), = judge(1, False, lambda r: line() + MARGIN < r <= 2 * line())
    return '%d bytes free, in %s' % (here, comm)


@test('fires when the stack is low: an interrupt arriving with fewer than '
      'the line - %d bytes free is reported' % MARGIN, parent=quiet)
def fires():
    (here, comm), = judge(1, True, lambda r: r < line() - MARGIN)
    return '%d bytes free, in %s' % (here, comm)


@test('the kernel\'s report follows: "low stack detected by irq handler" '
      'in lx-dmesg', parent=fires)
def dmesg():
    log = run('lx-dmesg')
    said = 'low stack detected by irq handler'
    expect_true(said in log, 'lx-dmesg', 'a line with "%s"' % said,
                'none; its last lines: ' + ' | '.join(log.splitlines()[-4:]))


run_tests()
