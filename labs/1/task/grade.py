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
# kind of stack and in the same function (a return address named by the
# byte before it, $pc and an interrupted ip by themselves), across the
# switches from the hardirq and softirq stacks
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
#     kernel frame holds the user's ebp (no entry code marked it);
#   - the first function on the hardirq stack, at its first instruction:
#     $sp is there, $ebp still on the stack the CPU came from.
# Then, at one more stop in a handler and one in a softirq, the grader
# changes a word or two for a moment, asks every walk again, and puts
# them back. Each change serves one check and touches nothing else (a
# return address the walk reads stays code, say), so a walk fails a check
# only for what that check is about. ks-bt follows the chain alone; the
# task's walk must not:
#   - the hardirq stack's lowest word names the softirq stack: the chain
#     still leads to the task's stack, but the walk must stop at the
#     hardirq stack's top;
#   - it names the task's stack, a word above where the chain lands: the
#     walk must stop there too (at or above the saved esp, never below);
#   - it names exactly where the chain lands: the walk must cross;
#   - in a softirq, the softirq stack's lowest word names the hardirq
#     stack: the walk must stop at the softirq stack's top;
#   - a return address of the chain is set just past a call that is its
#     function's last instruction (start_secondary()'s call of
#     cpu_startup_entry(), which never returns): the frame must be named
#     by the byte before it, the calling function, not the next one; and
#     the same at [esp], at the stop's first instruction;
#   - a saved ebp points under itself, then at itself: a chain on one
#     stack climbs, so the walk ends there;
#   - the saved ebp that leads out of the hardirq stack is set to the
#     interrupt's pt_regs on the task's stack, encoded: a pt_regs on
#     another stack than the walk's, so the walk ends there;
#   - a saved ebp on the task's stack is set to a frame made up on the
#     hardirq stack: a chain never leaves a task's stack, so it ends;
#   - the ip an interrupt saved in the chain's pt_regs is set to a
#     function's first instruction: the frame is named by that function
#     (a place the CPU was, not a return address);
#   - once handle_irq_event returned (finish), in the middle of
#     handle_edge_irq, the word at [esp] is set to code: a walk reads
#     [esp] as a return address only at a function's first instruction.

import re

from labs import tasklib
from labs.gdbutil import (at_stop, continue_to, cpu, current, irq_stack, past_last_call, run,
                          stack_kind, val, word)
from labs.gradelib import Fail, Missed, expect_true, run_tests, test
from kstack import frames as ksbt

MASK = ksbt.stacks.mask()


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

def entered_hardirq():
    """The first function on the hardirq stack (the IRQ's flow handler,
    which call_on_stack() called there), at its first instruction: $sp
    is on the hardirq stack, $ebp still on the stack it came from."""
    c = cpu()
    return (stack_kind(val('$sp'), c) == 'hardirq' and
            stack_kind(val('$ebp'), c) not in (None, 'hardirq'))


entered_hardirq.says = ("the first function on the hardirq stack, $ebp still on "
                        "the stack it came from")

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
    ('handle_edge_irq', entered_hardirq),
]
SOLUTIONS = tasklib.solutions(load_as='my_xbt')
SEEN = {}          # stop index or tamper: {'cpu', 'expected', label: (frames, error)}


def ks_frames():
    """ks-bt's frames here: [(pc, function, stack kind)]; the kind is None
    for a frame on no stack ks-bt knows (the outermost frame of CPU 0's
    idle task, at the very top of init_stack): any is taken there. A
    return address is named by the byte before it; $pc, and an ip an
    interrupt saved (the frame after a pt_regs), by itself."""
    walked = ksbt.walk(cpu())
    return [(f.pc & MASK, ksbt.stacks.symbol(f.pc - returns(walked, i)).split('+')[0],
             f.area.kind if f.area else None)
            for i, f in enumerate(walked)]


def returns(walked, i):
    """Whether frame I of ks-bt's walk is a return address (1) or a place
    the CPU was (0)."""
    return int(i > 0 and not walked[i - 1].note.startswith('pt_regs at'))


def changed(key, words, **seen):
    """SEEN[KEY]: each solution's frames, and ks-bt's, with the guest's
    WORDS ({address: value}) changed for a moment, then put back."""
    was = {a: word(a) for a in words}
    for a, v in words.items():
        run('set var *(unsigned int *)%d = %d' % (a, v))
    try:
        SEEN[key] = at_stop(SOLUTIONS, 'frames', cpu=cpu(), changed=words,
                                    expected=ks_frames(), **seen)
    finally:
        for a, v in was.items():
            run('set var *(unsigned int *)%d = %d' % (a, v))
    expect_true(all(word(a) == v for a, v in was.items()),
                'the words the grader changed, put back',
                ' '.join('%#x' % v for v in was.values()),
                ' '.join('%#x' % word(a) for a in was))


def lands(kind):
    """The ebp on another stack that the chain leads to out of this CPU's
    KIND stack (ks-bt's walk, which follows the chain alone)."""
    return next((f.where for f in ksbt.walk(cpu()) if f.area and f.area.kind != kind),
                None)


def plant_slot():
    """(the address of a return address the chain reads at ebp+4 here,
    the index of its frame in ks-bt's walk)."""
    walked = ksbt.walk(cpu())
    for i in range(len(walked) - 1):
        slot = walked[i].where + 4
        if walked[i].area and word(slot) == walked[i + 1].pc & MASK:
            return slot, i + 1
    raise Fail('a return address on the chain', 'one read at ebp+4', 'none')


def handler_tampers():
    """At a handler on the hardirq stack, from the task stack: its
    lowest word changed three ways, then a return address."""
    c = cpu()
    lowest, target = irq_stack('hardirq', c), lands('hardirq')
    expect_true(target is not None, "the chain out of the hardirq stack",
                "an ebp on the task's stack", 'none')
    changed('elsewhere', {lowest: irq_stack('softirq', c) + 64}, cut='hardirq',
            lowest=lowest, target=target)
    changed('below', {lowest: target + 4}, cut='hardirq', lowest=lowest, target=target)
    changed('at', {lowest: target}, lowest=lowest, target=target)
    slot, k = plant_slot()
    end = past_last_call('start_secondary')
    changed('last-call', {slot: end}, frame=k, slot=slot, ret=end)
    # The same at [esp], here at handle_irq_event's first instruction,
    # where the return address is read before any frame is built.
    sp = val('$sp')
    expect_true('+' not in ksbt.stacks.symbol(val('$pc')), 'the stop',
                "handle_irq_event's first instruction", ksbt.stacks.symbol(val('$pc')))
    changed('first-last-call', {sp: end}, frame=1, slot=sp, ret=end)
    # A saved ebp that leads down its own stack, to a frame that looks
    # whole (a saved ebp that climbs on, a return address into code): a
    # chain on one stack only climbs, and ks-bt ends the walk there.
    walked = ksbt.walk(c)
    i = next((i for i in range(1, len(walked) - 1) if walked[i].area and walked[i + 1].area
              and walked[i].area.kind == walked[i + 1].area.kind), None)
    expect_true(i is not None, 'two frames on one stack', 'a pair', 'none')
    ebp = walked[i].where
    changed('descends', {ebp: ebp - 8, ebp - 8: walked[i + 1].where, ebp - 4: word(ebp + 4)},
            frame=i, ebp=ebp)
    # A saved ebp that points at itself: it does not climb either.
    changed('itself', {ebp: ebp}, frame=i, ebp=ebp)
    # The saved ebp that leads out of the hardirq stack set to the
    # interrupt's own pt_regs on the task's stack, encoded as the entry
    # code encodes one (its top bit cleared): an entry's pt_regs lie on
    # the stack the walk is on, so the walk ends at the hardirq stack's top.
    regs = next(int(m.group(1), 16) for m in (re.match(r'pt_regs at (0x[0-9a-f]+): kernel entry',
                                                        f.note) for f in walked) if m)
    top = next(f for f, g in zip(walked, walked[1:]) if f.area and g.area and
               f.area.kind == 'hardirq' and g.area.kind == 'task')
    changed('regs-elsewhere', {top.where: regs & 0x7fffffff}, cut='hardirq', start=0,
            says="the saved ebp at %#x (the hardirq stack's last frame) set to %#x, "
                 "the interrupt's own pt_regs on the task's stack, encoded: a pt_regs "
                 "on another stack than the walk's" % (top.where, regs & 0x7fffffff))
    # A saved ebp on the task's stack set to a frame made up on the hardirq
    # stack (a return address into code, and an ebp of 0): the chain leaves
    # a task's stack for no other, so the walk ends there.
    j = next(j for j in range(len(walked) - 1) if walked[j].area and walked[j + 1].area and
             walked[j].area.kind == walked[j + 1].area.kind == 'task' and
             not walked[j].note)
    fake = irq_stack('hardirq', c) + 256
    changed('task-left', {walked[j].where: fake, fake: 0, fake + 4: end}, cut='task',
            start=next(i for i, f in enumerate(walked) if f.area and f.area.kind == 'task'),
            says="the saved ebp at %#x, on the task's stack, set to %#x, a frame made up "
                 "on the hardirq stack: a chain that leaves a task's stack" % (
                     walked[j].where, fake))
    # The ip the interrupt saved in the chain's pt_regs, set to the first
    # instruction of schedule(): a place the CPU was, named by itself (the
    # byte before it is the function before).
    ip, start = val('(unsigned long)&((struct pt_regs *)%d)->ip' % regs), val('(unsigned long)schedule')
    changed('ip-first', {ip: start}, regs=regs, ip=start)
    # Out of handle_irq_event, in the middle of handle_edge_irq: there the
    # word at [esp] is a word of its frame, not a return address; set to
    # code, it must stay unread.
    run('finish')
    sp, here = val('$sp'), ksbt.stacks.symbol(val('$pc'))
    expect_true(here.startswith('handle_edge_irq+') and sp < val('$ebp'),
                'after finish, where [esp] is', 'in the middle of handle_edge_irq, '
                'under its saved ebp', '%s, $sp %#x, $ebp %#x' % (here, sp, val('$ebp')))
    changed('middle', {sp: past_last_call('start_secondary')}, sp=sp)


def softirq_tamper():
    """In a softirq on its own stack: its lowest word names the hardirq
    stack."""
    c = cpu()
    lowest = irq_stack('softirq', c)
    changed('softirq', {lowest: irq_stack('hardirq', c) + 64}, cut='softirq',
            lowest=lowest, target=lands('softirq'))


def softirq_from_task():
    c = cpu()
    return (stack_kind(val('$sp'), c) == 'softirq' and
            stack_kind(word(irq_stack('softirq', c)), c) == 'task')


@test('the guest reaches the stops (stage 0, interrupts on both CPUs)')
def stops():
    for k, (location, accept) in enumerate(STOPS):
        if k == 0:
            run('ks-lab-stop %s' % location)
            if not accept() and not continue_to(location, accept, max_hits=2000):
                continue
        elif not continue_to(location, accept, max_hits=2000):
            continue
        SEEN[k] = at_stop(SOLUTIONS, 'frames', cpu=cpu(),
                                  expected=ks_frames())
    if continue_to('handle_irq_event', saved_on('task'), max_hits=2000):
        handler_tampers()
    if continue_to('run_timer_softirq', softirq_from_task, max_hits=2000):
        softirq_tamper()
    if 0 not in SEEN:       # the grader's stop, not the learner's file
        raise Missed('its first stop, handle_irq_event after boot, was not reached')
    return "%d of %d stops" % (len(SEEN), len(STOPS) + 12)


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


def compare(where, want, got):
    """Fail unless GOT has WANT's frames: the same return addresses, each
    on the same kind of stack, in the same function."""
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
        if named(want[i][1]) and (got[i][1] or '').split('+')[0].strip() != want[i][1]:
            raise Fail(where + "; frame #%d's function differs" % i,
                       show(want), show(got))


def named(function):
    """Whether ks-bt found a symbol for a frame (not an address)."""
    return bool(function) and not function.startswith(('0x', '??'))


def judged(sol, k):
    def check():
        seen, want, got = theirs(k, sol)
        compare('my-xbt on CPU %d: ks-bt\'s frames (%d), against yours (%d)' % (
            seen['cpu'], len(want), len(got)), want, got)
        switches = sum(1 for i in range(1, len(got)) if got[i][2] != got[i - 1][2])
        return '%d frames, %d switch%s of stack, CPU %d' % (
            len(got), switches, 'es' * (switches != 1), seen['cpu'])
    return check


def judged_cut(sol, key, says):
    """The walk must end where the chain leaves the stack seen['cut']: its
    frames there, then (allowed, not required) the return address read at
    that stack's top word, which the grader left as it was."""
    def check():
        seen, want, got = theirs(key, sol)
        on = next((i for i, f in enumerate(want) if f[2] != seen['cut']), len(want))
        pcs = [f[0] for f in got]
        ok = (pcs[:on] == [f[0] for f in want[:on]] and
              (len(got) == on or len(got) == on + 1 and on < len(want) and
               pcs[-1] == want[on][0]))
        expect_true(ok, "my-xbt on CPU %d with the %s stack's lowest word (at %#x) "
                    "set to %#x, %s: the frame chain still leads on (to ebp %s), "
                    "but the lowest word says the stack came from elsewhere" % (
                        seen['cpu'], seen['cut'], seen['lowest'],
                        seen['changed'][seen['lowest']], says, '%#x' % seen['target']
                        if seen['target'] else '?'),
                    "the walk ends at the %s stack's top:\n" % seen['cut'] +
                    show(want[:on]) + '\n(and at most #%d, the return address '
                    'read at its top word)' % on, show(got))
        return 'ends after %d frames' % len(got)
    return check


def judged_ends(sol, key):
    """The walk must end where the chain, from frame seen['start'] on,
    leaves the stack seen['cut']: its frames to there, then (allowed, not
    required) the return address read at that stack's last frame."""
    def check():
        seen, want, got = theirs(key, sol)
        on = next((i for i in range(seen['start'], len(want)) if want[i][2] != seen['cut']),
                  len(want))
        pcs = [f[0] for f in got]
        ok = (pcs[:on] == [f[0] for f in want[:on]] and
              (len(got) == on or len(got) == on + 1 and on < len(want) and
               pcs[-1] == want[on][0]))
        expect_true(ok, 'my-xbt on CPU %d with %s' % (seen['cpu'], seen['says']),
                    "the walk ends at the %s stack's last frame:\n" % seen['cut'] +
                    show(want[:on]) + '\n(and at most #%d, the return address read '
                    'there)' % on, show(got))
        return 'ends after %d frames' % len(got)
    return check


def judged_at(sol):
    """The lowest word names exactly the ebp the chain lands on: at or
    above the saved esp, so the walk crosses, as at any handler."""
    def check():
        seen, want, got = theirs('at', sol)
        compare("my-xbt on CPU %d with the hardirq stack's lowest word set to "
                "%#x, the very ebp the chain lands on (at or above the saved "
                "esp: the walk crosses)" % (seen['cpu'], seen['target']), want, got)
        return '%d frames' % len(got)
    return check


def judged_descends(sol):
    """Frame seen['frame']'s saved ebp points 8 bytes under itself: the
    walk ends there."""
    def check():
        seen, want, got = theirs('descends', sol)
        compare("my-xbt on CPU %d with the saved ebp at %#x set to %#x, under "
                "itself on the same stack (a chain that climbs no more ends)"
                % (seen['cpu'], seen['ebp'], seen['ebp'] - 8), want, got)
        return '%d frames' % len(got)
    return check


def judged_itself(sol):
    """Frame seen['frame']'s saved ebp points at itself: the walk ends
    there."""
    def check():
        seen, want, got = theirs('itself', sol)
        compare("my-xbt on CPU %d with the saved ebp at %#x set to itself (a chain "
                "that does not climb ends)" % (seen['cpu'], seen['ebp']), want, got)
        return '%d frames' % len(got)
    return check


def judged_changed(sol, key, where):
    """At the change KEY, ks-bt's frames; WHERE(seen): what changed."""
    def check():
        seen, want, got = theirs(key, sol)
        compare(where(seen), want, got)
        return '%d frames' % len(got)
    return check


def judged_name(sol, key):
    """Frame seen['frame']'s return address is just past its function's
    last instruction, a call: named by the byte before it."""
    def check():
        seen, want, got = theirs(key, sol)
        where = ("my-xbt on CPU %d with frame #%d's return address (at %#x) set "
                 "to %#x, just past the call that ends start_secondary()" % (
                     seen['cpu'], seen['frame'], seen['slot'], seen['ret']))
        compare(where, want, got)
        k = seen['frame']
        name = (got[k][1] or '').split('+')[0].strip()
        expect_true(name == want[k][1], where + "; frame #%d's function" % k,
                    '%s (the function that holds the call: the byte before '
                    'the return address)' % want[k][1], got[k][1])
        return 'frame #%d named %s' % (k, name)
    return check


CUTS = [('elsewhere', "my-xbt trusts the hardirq stack's lowest word, not the frame "
         "chain alone", 'on the softirq stack'),
        ('below', "my-xbt leaves the hardirq stack only at or above the esp its "
         "lowest word saved", "on the task's stack, a word above where the chain lands"),
        ('softirq', "my-xbt trusts the softirq stack's lowest word too",
         'on the hardirq stack')]

for sol in SOLUTIONS:
    loads = sol.loads('frames', 'frames()', stops)
    for k, (location, accept) in enumerate(STOPS):
        sol.check('my-xbt at %s, %s' % (location, accept.says), loads,
                  judged(sol, k))
    for key, title, says in CUTS:
        sol.check(title, loads, judged_cut(sol, key, says))
    sol.check('my-xbt crosses where the chain lands exactly at the esp the lowest '
              'word saved', loads, judged_at(sol))
    sol.check('my-xbt names a return address by the call before it, at a '
              "function's last instruction", loads, judged_name(sol, 'last-call'))
    sol.check('my-xbt names the return address at [esp], at a first instruction, by '
              'the call before it', loads, judged_name(sol, 'first-last-call'))
    sol.check('my-xbt ends the walk where a saved ebp leads down its stack',
              loads, judged_descends(sol))
    sol.check('my-xbt ends the walk where a saved ebp points at itself',
              loads, judged_itself(sol))
    sol.check('my-xbt follows a pt_regs only on the stack it is on', loads,
              judged_ends(sol, 'regs-elsewhere'))
    sol.check("my-xbt never leaves a task's stack", loads, judged_ends(sol, 'task-left'))
    sol.check("my-xbt names an interrupted ip by itself, at a function's first "
              'instruction', loads, judged_changed(sol, 'ip-first', lambda seen: (
                  'my-xbt on CPU %d with the ip saved in the pt_regs at %#x set to %#x, '
                  "schedule()'s first instruction (where the CPU was, not a return "
                  'address)' % (seen['cpu'], seen['regs'], seen['ip']))))
    sol.check("my-xbt reads [esp] as a return address only at a function's first "
              'instruction', loads, judged_changed(sol, 'middle', lambda seen: (
                  'my-xbt on CPU %d in the middle of handle_edge_irq, the word at [esp] '
                  '(%#x: a word of its frame, not a return address) set to code'
                  % (seen['cpu'], seen['sp']))))

run_tests()
