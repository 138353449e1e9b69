# Grader of lab 1's task (make grade N=1 EXERCISE=1): my-xbt, the
# learner's backtrace across stacks (build/exercises/1/my_xbt.py, made
# from labs/1/task/my_xbt.py by make exercise N=1). Stage 1, lab 1's
# kernel, has no IRQ stacks to cross, so the task is graded on stage 0
# (lab 0's kernel; lab 2 builds its stacks again), with the checks'
# interrupt workload (tests/guest/irq-load.sh: device interrupts on both
# CPUs, and a user-mode loop on each, lab.toml's irq_load_spin=yes). Run
# by vm/session/ks in gdb batch mode against a fresh guest.
#
# At each stop the learner's frames() must give ks-bt's frames (gdb-
# scripts/kstack/frames.py): the same return addresses, each on the same
# kind of stack, across the switches from the hardirq and softirq stacks
# and through each interrupt's pt_regs to the code it interrupted. Every
# run puts the kernel in each case a walk must handle, or fails naming
# the one it could not reach:
#   - a handler on the hardirq stack, from a task's stack, on each CPU;
#   - a softirq on the softirq stack, on each CPU;
#   - a hardirq taken during a softirq (hardirq -> softirq -> task);
#   - an interrupt from user mode (its pt_regs hold user CS: the walk
#     ends there);
#   - a kernel thread's bottom: schedule() in a kernel thread, whose
#     chain ends at ret_from_fork over the all-zero pt_regs that
#     copy_thread() made (a walk that follows them goes on to ip 0);
#   - a system call's bottom: ksys_write() in a user task, whose last
#     kernel frame holds the user's ebp (no entry code marked it).
# Then, at one more stop in a handler, the grader changes the hardirq
# stack's two ends for a moment: its lowest word (the esp the switch
# saved) points into the softirq stack, its top word to where the
# lowest pointed. The frame chain still leads to the task's stack, but a
# walk that asks the lowest word where the stack came from must now stop
# at its top; one that reads the top word crosses, and fails. ks-bt
# follows the chain alone; the task's walk must not.
from labs import tasklib
from labs.gdbutil import continue_to, cpu, current, irq_stack, run, stack_kind, val, word
from labs.gradelib import Fail, expect_true, run_tests, test
from kstack import frames as ksbt

MASK = 0xffffffff


def saved_on(kind, want_cpu=None):
    """At a handler: the esp saved in this CPU's hardirq stack's lowest
    word is on a stack of KIND (the interrupt came there)."""
    def accept():
        # $sp on the hardirq stack first: an interrupt from user mode does
        # not switch, and the lowest word then still holds the esp of the
        # last switch, which would say nothing of this interrupt.
        c = cpu()
        return ((want_cpu is None or c == want_cpu) and
                stack_kind(val('$sp'), c) == 'hardirq' and
                stack_kind(word(irq_stack('hardirq', c)), c) == kind)
    accept.says = ('in a hardirq taken during a softirq (hardirq -> softirq '
                   '-> task)' if kind == 'softirq' else 'from the %s stack' % kind)
    if want_cpu is not None:
        accept.says = 'on CPU %d, %s' % (want_cpu, accept.says)
    return accept


def sp_on(kind, want_cpu):
    def accept():
        return cpu() == want_cpu and stack_kind(val('$sp'), cpu()) == kind
    accept.says = 'on CPU %d, on its %s stack' % (want_cpu, kind)
    return accept


def first():
    # From a task's stack, like the two stops after it but on any CPU:
    # the frames a learner first compares are the same kind every run.
    return saved_on('task')()


first.says = "the first device interrupt after boot from a task's stack"

# include/linux/sched.h: the task_struct.flags bit of a kernel thread.
PF_KTHREAD = 0x00200000


def from_user():
    """A handler whose interrupt came from user mode: the pt_regs the
    entry code saved (the per-CPU __irq_regs) hold a user CS."""
    return val('((struct pt_regs *)$lx_per_cpu("__irq_regs"))->cs') & 3 != 0


from_user.says = 'an interrupt from user mode'


def kernel_thread():
    """Not the idle task (no ret_from_fork under it): a kernel thread
    that copy_thread() started."""
    task = current(cpu())
    return int(task['flags']) & PF_KTHREAD and int(task['pid']) != 0


kernel_thread.says = "in a kernel thread, down to its bottom (ret_from_fork)"


def user_task():
    return not int(current(cpu())['flags']) & PF_KTHREAD


user_task.says = "in a system call, down to its bottom (the user's ebp)"

# (where, when the stop counts: says how, for the check's title)
STOPS = [
    ('handle_irq_event', first),
    ('handle_irq_event', saved_on('task', 0)),
    ('handle_irq_event', saved_on('task', 1)),
    ('run_timer_softirq', sp_on('softirq', 0)),
    ('run_timer_softirq', sp_on('softirq', 1)),
    ('handle_irq_event', saved_on('softirq')),
    ('handle_irq_event', from_user),
    ('schedule', kernel_thread),
    ('ksys_write', user_task),
]
TAMPERED = len(STOPS)       # the stop where the lowest word is broken
SOLUTIONS = tasklib.solutions(load_as='my_xbt')
SEEN = {}          # stop index: {'cpu', 'expected', label: (frames, error)}


def ks_frames():
    """ks-bt's frames here: [(pc, function, stack kind)]; the kind is None
    for a frame on no stack ks-bt knows (the outermost frame of CPU 0's
    idle task, at the very top of init_stack): any is taken there."""
    return [(f.pc & MASK, ksbt.stacks.symbol(f.pc - (i > 0)).split('+')[0],
             f.area.kind if f.area else None)
            for i, f in enumerate(ksbt.walk(cpu()))]


def tampered():
    """At a handler on the hardirq stack, from the task stack: each
    solution's frames with the hardirq stack's lowest word pointing into
    the softirq stack and its top word to the task stack (where the
    lowest word pointed), then both words as they were."""
    c = cpu()
    base = irq_stack('hardirq', c)
    top = base + val('sizeof(init_stack)') - 4
    saved, was_top = word(base), word(top)
    expected = ks_frames()
    # The ebp on the task stack that the hardirq stack's last frame holds:
    # where the chain leads, which the walk must refuse.
    leads = next((f.where for f in ksbt.walk(c) if f.area and f.area.kind != 'hardirq'),
                 None)
    moved = irq_stack('softirq', c) + 64
    run('set var *(unsigned int *)%d = %d' % (base, moved))
    run('set var *(unsigned int *)%d = %d' % (top, saved))
    try:
        SEEN[TAMPERED] = tasklib.at_stop(SOLUTIONS, 'frames', cpu=c, word=saved,
                                         moved=moved, top=top, leads=leads,
                                         expected=expected)
    finally:
        run('set var *(unsigned int *)%d = %d' % (base, saved))
        run('set var *(unsigned int *)%d = %d' % (top, was_top))
    expect_true((word(base), word(top)) == (saved, was_top),
                'the lowest and top words, put back', '%#x %#x' % (saved, was_top),
                '%#x %#x' % (word(base), word(top)))


@test('the guest reaches the stops (stage 0, interrupts on both CPUs)')
def stops():
    for k, (location, accept) in enumerate(STOPS):
        if k == 0:
            run('ks-lab-stop %s' % location)
            if not accept() and not continue_to(location, accept, max_hits=2000):
                continue
        elif not continue_to(location, accept, max_hits=2000):
            continue
        SEEN[k] = tasklib.at_stop(SOLUTIONS, 'frames', cpu=cpu(),
                                  expected=ks_frames())
    if continue_to('handle_irq_event', saved_on('task'), max_hits=2000):
        tampered()
    expect_true(0 in SEEN, 'the first stop', 'handle_irq_event after boot',
                'not reached')
    return '%d of %d stops' % (len(SEEN), len(STOPS) + 1)


def show(frames):
    return '\n'.join('#%-2d 0x%08x %-26s %s' % (i, pc, name or '??', kind or '(any stack)')
                     for i, (pc, name, kind) in enumerate(frames)) or '(no frames)'


def theirs(k, sol):
    """The grader's record of stop K, ks-bt's frames there and SOL's, as
    [(pc, function, stack)]."""
    seen = SEEN.get(k)
    frames = tasklib.returned(seen, sol, 'frames()')
    try:
        got = [(int(pc) & MASK, name, stack) for pc, name, stack in frames]
    except (TypeError, ValueError):
        raise Fail('what frames() returned', 'a list of (pc, function, stack)',
                   repr(frames)[:200])
    return seen, seen['expected'], got


def judged(sol, k):
    def check():
        seen, want, got = theirs(k, sol)
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
        seen, want, got = theirs(TAMPERED, sol)
        # The frames on the hardirq stack, then (allowed, not required)
        # the return address read from its top frame: the top word, which
        # the grader changed too (to the task stack's esp).
        on_irq = next((i for i, f in enumerate(want) if f[2] != 'hardirq'),
                      len(want))
        pcs = [f[0] for f in got]
        ok = (pcs[:on_irq] == [f[0] for f in want[:on_irq]] and
              (len(got) == on_irq or len(got) == on_irq + 1 and pcs[-1] == seen['word']))
        expect_true(ok, "my-xbt on CPU %d with the hardirq stack's lowest word "
                    "changed from %#x to %#x, on the softirq stack, and its top "
                    "word (at %#x) set to %#x: the frame chain still leads to "
                    "the task's stack (ebp %s), but the lowest word says the "
                    "stack came from elsewhere" % (
                        seen['cpu'], seen['word'], seen['moved'], seen['top'],
                        seen['word'], '%#x' % seen['leads'] if seen['leads'] else '?'),
                    'the walk ends at the hardirq stack\'s top:\n' +
                    show(want[:on_irq]) + '\n(and at most #%d, the return address '
                    'read at its top word, now %#x)' % (on_irq, seen['word']), show(got))
        return 'ends after %d frames' % len(got)
    return check


for sol in SOLUTIONS:
    loads = sol.loads('frames', 'frames()', stops)
    for k, (location, accept) in enumerate(STOPS):
        sol.check('my-xbt at %s, %s' % (location, accept.says), loads,
                  judged(sol, k))
    sol.check("my-xbt trusts the hardirq stack's lowest word, not the frame "
              "chain alone", loads, judged_tampered(sol))

run_tests()
