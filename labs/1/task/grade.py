# Grader of lab 1's task (make grade N=1 EXERCISE=1): my-xbt, the
# learner's backtrace across stacks (build/exercises/1/my_xbt.py, made
# from labs/1/task/my_xbt.py by make exercise N=1). Stage 1, lab 1's
# kernel, has no IRQ stacks to cross, so the task is graded on stage 0
# (lab 0's kernel; lab 2 builds its stacks again), with the checks'
# interrupt workload (tests/guest/irq-load.sh: device interrupts on both
# CPUs). Run by vm/session/ks in gdb batch mode against a fresh guest.
#
# At each stop the learner's frames() must give ks-bt's frames (gdb-
# scripts/kstack/frames.py): the same return addresses, each on the same
# kind of stack, across the switches from the hardirq and softirq stacks
# and through each interrupt's pt_regs to the code it interrupted. Then,
# at one more stop in a handler, the grader breaks the hardirq stack's
# lowest word (the esp the switch saved) for a moment, so that it points
# into the softirq stack: the frame chain still leads to the task's stack,
# but a walk that asks the IRQ stack where it came from must now stop at
# its top. ks-bt follows the chain alone; the task's walk must not.
import tasklib
from gdbutil import continue_to, cpu, irq_stack, run, stack_kind, val, word
from gradelib import Fail, expect_true, run_tests, test
from kstack import frames as ksbt

MASK = 0xffffffff


def saved_on(kind, want_cpu=None):
    """At a handler: the esp saved in this CPU's hardirq stack's lowest
    word is on a stack of KIND (the interrupt came there)."""
    def accept():
        c = cpu()
        return (want_cpu is None or c == want_cpu) and stack_kind(
            word(irq_stack('hardirq', c)), c) == kind
    return accept


def sp_on(kind, want_cpu):
    def accept():
        return cpu() == want_cpu and stack_kind(val('$sp'), cpu()) == kind
    return accept


# (what the stop is, where, when it counts)
STOPS = [
    ('the first device interrupt after boot, at handle_irq_event',
     'handle_irq_event', None),
    ('handle_irq_event on CPU 0, from the task stack', 'handle_irq_event',
     saved_on('task', 0)),
    ('handle_irq_event on CPU 1, from the task stack', 'handle_irq_event',
     saved_on('task', 1)),
    ('run_timer_softirq on CPU 0, on its softirq stack', 'run_timer_softirq',
     sp_on('softirq', 0)),
    ('run_timer_softirq on CPU 1, on its softirq stack', 'run_timer_softirq',
     sp_on('softirq', 1)),
    ('handle_irq_event in a hardirq taken during a softirq (hardirq -> '
     'softirq -> task)', 'handle_irq_event', saved_on('softirq')),
]
TAMPERED = len(STOPS)       # the stop where the lowest word is broken
SOLUTIONS = tasklib.solutions()
SEEN = {}          # stop index: {'cpu', 'expected', label: (frames, error)}


def ks_frames():
    """ks-bt's frames here: [(pc, function, stack kind)]; the kind is None
    for a frame on no stack ks-bt knows (the outermost frame of CPU 0's
    idle task, at the very top of init_stack): any is taken there."""
    return [(f.pc & MASK, ksbt.stacks.symbol(f.pc - (i > 0)).split('+')[0],
             f.area.kind if f.area else None)
            for i, f in enumerate(ksbt.walk(cpu()))]


def everyone():
    """Each loaded solution's frames() here: {label: (frames, error)}."""
    return {sol.label: tasklib.call(sol.module['frames']) for sol in SOLUTIONS
            if sol.module and callable(sol.module.get('frames'))}


def tampered():
    """At a handler on the hardirq stack, from the task stack: each
    solution's frames with the hardirq stack's lowest word pointing into
    the softirq stack, then the word as it was."""
    c = cpu()
    base = irq_stack('hardirq', c)
    saved = word(base)
    SEEN[TAMPERED] = {'cpu': c, 'expected': ks_frames(), 'word': saved,
                      'base': base}
    run('set var *(unsigned int *)%d = %d' % (base, irq_stack('softirq', c) + 64))
    try:
        SEEN[TAMPERED].update(everyone())
    finally:
        run('set var *(unsigned int *)%d = %d' % (base, saved))
    expect_true(word(base) == saved, 'the lowest word, put back', '%#x' % saved,
                '%#x' % word(base))


@test('the guest reaches the stops (stage 0, interrupts on both CPUs)')
def stops():
    for sol in SOLUTIONS:
        tasklib.load(sol, 'my_xbt')
    reached = 0
    for k, (what, location, accept) in enumerate(STOPS):
        if k == 0:
            run('ks-lab-stop %s' % location)
        elif not continue_to(location, accept or (lambda: True), max_hits=2000):
            continue
        reached += 1
        SEEN[k] = {'cpu': cpu(), 'expected': ks_frames()}
        SEEN[k].update(everyone())
    if continue_to('handle_irq_event', saved_on('task'), max_hits=2000):
        reached += 1
        tampered()
    expect_true(0 in SEEN, 'the first stop', 'handle_irq_event after boot',
                'not reached')
    return '%d of %d stops' % (reached, len(STOPS) + 1)


def loaded(sol):
    return lambda: tasklib.expect_defined(sol, 'frames', 'frames()')


def show(frames):
    return '\n'.join('#%-2d 0x%08x %-26s %s' % (i, pc, name or '??', kind)
                     for i, (pc, name, kind) in enumerate(frames)) or '(no frames)'


def theirs(seen, sol):
    """SOL's frames at SEEN's stop, as [(pc, function, stack)]."""
    expect_true(seen is not None, 'the stop', 'reached by the grader',
                'not reached in 2000 hits (not your code: run it again)')
    frames, error = seen[sol.label]
    expect_true(error is None, 'frames() at this stop', 'it returns the frames',
                error)
    try:
        return [(int(pc) & MASK, name, stack) for pc, name, stack in frames]
    except (TypeError, ValueError):
        raise Fail('what frames() returned', 'a list of (pc, function, stack)',
                   repr(frames)[:200])


def judged(sol, k):
    def check():
        seen = SEEN.get(k)
        got = theirs(seen, sol)
        want = seen['expected']
        where = 'my-xbt on CPU %d: ks-bt\'s frames (%d), against yours (%d)' % (
            seen['cpu'], len(want), len(got))
        for i in range(max(len(want), len(got))):
            if i >= len(got):
                raise Fail(where + '; yours ends after frame #%d%s' % (
                    i - 1, ', where the chain leaves the %s stack' % got[-1][2]
                    if got and want[i][2] != got[-1][2] else ''),
                    show(want), show(got))
            if i >= len(want):
                raise Fail(where + '; yours goes on past frame #%d, where '
                           'ks-bt\'s chain ends' % (i - 1), show(want), show(got))
            if got[i][0] != want[i][0]:
                raise Fail(where + '; frame #%d differs' % i, show(want), show(got))
            if want[i][2] is not None and got[i][2] != want[i][2]:
                raise Fail(where + "; frame #%d's stack differs" % i,
                           show(want), show(got))
        switches = sum(1 for i in range(1, len(got)) if got[i][2] != got[i - 1][2])
        return '%d frames, %d switch%s of stack, CPU %d' % (
            len(got), switches, 'es' * (switches != 1), seen['cpu'])
    return check


def judged_tampered(sol):
    def check():
        seen = SEEN.get(TAMPERED)
        got = theirs(seen, sol)
        want = seen['expected']
        # The frames on the hardirq stack, then (allowed, not required)
        # the return address read from its top frame.
        on_irq = next((i for i, f in enumerate(want) if f[2] != 'hardirq'),
                      len(want))
        ok = (len(got) in (on_irq, on_irq + 1) and
              [f[0] for f in got] == [f[0] for f in want[:len(got)]])
        expect_true(ok, "my-xbt on CPU %d with the hardirq stack's lowest word "
                    "changed from %#x to an address on the softirq stack: the "
                    "frame chain still leads to the task's stack, the IRQ stack "
                    "says it came from elsewhere" % (seen['cpu'], seen['word']),
                    'the walk ends at the hardirq stack\'s top:\n' +
                    show(want[:on_irq]) + '\n(and at most #%d, the return address '
                    'read there)' % on_irq, show(got))
        return 'ends after %d frames' % len(got)
    return check


for sol in SOLUTIONS:
    loads = test(sol.title('my_xbt.py loads in gdb and defines frames()'),
                 parent=stops)(loaded(sol))
    for k, stop in enumerate(STOPS):
        test(sol.title('my-xbt at %s' % stop[0]), parent=loads)(judged(sol, k))
    test(sol.title("my-xbt trusts the hardirq stack's lowest word, not the "
                   "frame chain alone"), parent=loads)(judged_tampered(sol))

run_tests()
