# Grader of lab 0's task (make grade N=0 EXERCISE=1): my-bt, the
# learner's backtrace by frame pointers (build/exercises/0/my_bt.py, made
# from labs/0/task/my_bt.py by make exercise N=0). Run by vm/session/ks in gdb
# batch mode against a fresh guest of stage 0 running the checks'
# interrupt workload (tests/guest/irq-load.sh: device interrupts on both
# CPUs). At each stop it calls the learner's frames() and compares it,
# frame by frame, with gdb's own frames: the same return addresses, the
# same function names, as far as the chain of saved ebp words goes (to
# the interrupt's entry, whose ebp holds its pt_regs pointer with the top
# bit cleared, as ks-bt marks it). Inlined functions are gdb's own idea
# of a frame, without a frame of their own on the stack: they are left
# out of gdb's list. At the first stop, once more with its return address
# planted just past a call that ends its function; in the middle of
# handle_edge_irq, once more with the word at [esp] (a word of its frame,
# not a return address) set to a code address (planted()). While the
# learner's frames() runs, gdb's own unwinder stops at frame #0 and
# kstack's walk refuses (gdbutil.at_stop): the walk is the learner's.
import gdb

from labs import tasklib
from labs.gdbutil import (asks_gdb_frames, at_stop, continue_to, cpu, past_last_call, run,
                          stack_kind, val, word)
from labs.gradelib import Fail, Missed, expect_true, run_tests, test
from kstack import frames as ksbt

MASK = ksbt.stacks.mask()
# (what the stop is, where, on which CPU (None: the first to get there),
# on which stack (None: any), a command to run there first)
STOPS = [
    ("the first device interrupt after boot, at __handle_irq's first "
     "instruction", '__handle_irq', None, None, None),
    ('handle_irq_event on CPU 0, on its hardirq stack', 'handle_irq_event',
     0, 'hardirq', None),
    ("the middle of handle_edge_irq, once handle_irq_event returned (finish)",
     None, None, None, 'finish'),
    ('handle_irq_event on CPU 1', 'handle_irq_event', 1, 'hardirq', None),
    ('run_timer_softirq on CPU 0, on its softirq stack', 'run_timer_softirq',
     0, 'softirq', None),
    ('run_timer_softirq on CPU 1, on its softirq stack', 'run_timer_softirq',
     1, 'softirq', None),
    # No interrupt: the whole chain, down to start_secondary(), whose last
    # instruction is its call of cpu_startup_entry(), which never returns.
    ('default_idle_call on CPU 1, in the idle task (its chain passes a '
     'call that never returns)', 'default_idle_call', 1, None, None),
]
SOLUTIONS = tasklib.solutions(load_as='my_bt')
SEEN = {}          # stop index: {'cpu', 'expected', label: (frames, error)}


def function(name):
    """The function part of 'function+offset' (or of gdb's name)."""
    return str(name).split('+')[0].strip() if name else None


def gdb_frames():
    """gdb's frames here, innermost first, as (pc, function), as far as
    ks-bt's chain of saved ebp words goes before the interrupt's pt_regs
    (gdb's unwinder goes on past the entry code with guesses: ?? ())."""
    walked = ksbt.walk(cpu())
    n = next((i + 1 for i, f in enumerate(walked) if 'pt_regs' in f.note),
             len(walked))
    found, frame = [], gdb.newest_frame()
    while frame is not None and len(found) < n:
        if frame.type() != gdb.INLINE_FRAME:
            found.append((int(frame.pc()) & MASK, frame.name()))
        try:
            frame = frame.older()
        except gdb.error:
            break
    if [pc for pc, _ in found] != [f.pc for f in walked[:n]]:
        # Not expected: gdb's unwinder and the frame pointers disagree.
        # The frame pointers are what the task walks.
        found = [(f.pc, function(ksbt.stacks.symbol(f.pc if i == 0 else f.pc - 1)))
                 for i, f in enumerate(walked[:n])]
    return found


def reach(k):
    what, location, want, kind, then = STOPS[k]
    if location is None:
        if k - 1 not in SEEN:
            return False
    elif k == 0:
        run('ks-lab-stop %s' % location)
    elif not continue_to(location, lambda: (want is None or cpu() == want) and (
            kind is None or stack_kind(val('$sp'), cpu()) == kind), max_hits=2000):
        return False
    if then:
        run(then)
    return True


def theirs(**seen):
    """SEEN, and each solution's frames() here (gdbutil.at_stop: gdb's own
    unwinder gives frame #0 only, and kstack refuses, meanwhile)."""
    return at_stop(SOLUTIONS, 'frames', **seen)


# At the first stop, a function's first instruction, the return address
# at [esp] is set for a moment to just past start_secondary()'s last
# instruction, a call that never returns: a return address that only the
# byte before it names right (start_secondary, not the function after).
# In the middle of a function, [esp] is no return address (the function
# has pushed its frame and more since): set to code, it must stay unread.
PLANTED = ("__handle_irq's first instruction, its return address set to just "
           "past start_secondary()'s last instruction, a call")
MIDDLE = ("the middle of handle_edge_irq, the word at [esp] (a word of its frame) "
          "set to a code address")


def planted(key):
    sp = val('$sp') & MASK
    expect_true(key == PLANTED or sp < val('$ebp') & MASK, 'where [esp] is, in the middle '
                'of a function', 'under its saved ebp', '$sp %#x, $ebp %#x' % (sp, val('$ebp')))
    was, end = word(sp), past_last_call('start_secondary')
    run('set var *(unsigned int *)%d = %d' % (sp, end))
    try:
        # gdb's frames with the word planted: at a first instruction, the
        # planted return address is frame #1; in the middle, no frame.
        SEEN[key] = theirs(cpu=cpu(), expected=gdb_frames(), planted=(sp, end))
    finally:
        run('set var *(unsigned int *)%d = %d' % (sp, was))
    expect_true(word(sp) == was, 'the word the grader changed, put back',
                '%#x' % was, '%#x' % word(sp))


@test('the guest reaches the stops (stage 0, interrupts on both CPUs)')
def stops():
    for k in range(len(STOPS)):
        if reach(k):
            SEEN[k] = theirs(cpu=cpu(), expected=gdb_frames())
            if k == 0:
                planted(PLANTED)
            elif STOPS[k][4] == 'finish':
                planted(MIDDLE)
    if 0 not in SEEN:       # the grader's stop, not the learner's file
        raise Missed('its first stop, __handle_irq after boot, was not reached')
    return '%d of %d stops' % (len(SEEN), len(STOPS))


def show(frames):
    return '\n'.join('#%-2d 0x%08x %s' % (i, pc, function(name) or '??')
                     for i, (pc, name) in enumerate(frames)) or '(no frames)'


def judged(sol, k):
    def check():
        seen = SEEN.get(k)
        frames = tasklib.returned(seen, sol, 'frames()')
        try:
            got = [(int(pc) & MASK, name) for pc, name in frames]
        except (TypeError, ValueError):
            raise Fail('what frames() returned', 'a list of (pc, name) pairs',
                       repr(frames)[:200])
        want = seen['expected']
        where = 'my-bt on CPU %d: the frames gdb finds (%d), against ' \
                'yours (%d)' % (seen['cpu'], len(want), len(got))
        if asks_gdb_frames(sol):
            where += (" (your file asks gdb for frames: while the grader calls "
                      "frames(), gdb gives frame #0 only; the walk of saved ebp "
                      "words is yours to write)")
        for i in range(max(len(want), len(got))):
            if i >= len(got):
                raise Fail(where + '; yours ends after frame #%d' % (i - 1),
                           show(want), show(got))
            if i >= len(want):
                raise Fail(where + '; yours goes on past frame #%d, where the '
                           'chain of saved ebp words ends' % (i - 1),
                           show(want), show(got))
            if got[i][0] != want[i][0]:
                why = ''
                if not function(got[i][1]):
                    why = ' (yours, %#x, is in no function: is it code?)' % got[i][0]
                elif i + 1 < len(want) and got[i][0] == want[i + 1][0]:
                    why = " (yours skips gdb's #%d, %s)" % (i, function(want[i][1]))
                elif 'planted' in seen and got[i][0] == seen['planted'][1]:
                    why = (' (yours is the word at [esp], %#x, which the grader set to '
                           'code: is it a return address here?)' % seen['planted'][0])
                raise Fail(where + '; frame #%d differs%s' % (i, why),
                           show(want), show(got))
            if function(got[i][1]) != function(want[i][1]):
                raise Fail(where + "; frame #%d's function differs" % i,
                           show(want), show(got))
        return '%d frames, CPU %d' % (len(got), seen['cpu'])
    return check


for sol in SOLUTIONS:
    loads = sol.loads('frames', 'frames()', stops)
    for k, stop in enumerate(STOPS):
        sol.check('my-bt at %s' % stop[0], loads, judged(sol, k))
    sol.check('my-bt at %s' % PLANTED, loads, judged(sol, PLANTED))
    sol.check('my-bt at %s' % MIDDLE, loads, judged(sol, MIDDLE))

run_tests()
