# Grader of lab 7's task (make grade N=7 EXERCISE=1): my-where, the
# learner's answer to "which stack, or which stack's guard page, holds
# this address?" on x86_64 (build/exercises/7/my_where.py, made from
# labs/7/task/my_where.py by make exercise N=7). Run by vm/session/ks in
# gdb batch mode against a fresh guest of lab 7's kernel, running the
# lab's own workload (dd's descent into the guard page).
#
# At each of the lab's stops, and at an interrupt on CPU 0 once the
# lab's guest.sh runs (CPU 1 idle), the learner's where() is asked about
# addresses the stop makes interesting: $rsp, the rsp the hardirq switch
# saved, a sleeping task's stack at its ends, CPU 1's idle task's stack
# (on no task list), a thread's stack (twins, labs/7/guest.sh: its pid is
# not its tgid), the pages under stacks, the IST stacks, the faulting rsp
# and CR2 of the descent. The answer
# each must get comes from the stacks kstack knows (gdb-scripts/kstack/
# stacks.py: every task's, each CPU's hardirq and IST stacks), and from
# whether gdb can read the address: a guard page is an unmapped page
# under a stack.
import gdb

from labs import tasklib
from labs.gdbutil import at_stop, continue_to, cpu, run
from labs.gradelib import Fail, Missed, expect_true, run_tests, test
from kstack import stacks
from linux import tasks
from vm.session import facts

MASK = stacks.mask()
PAGE = facts.machine('x86_64')['page_bytes']
KINDS = ('task', 'hardirq', 'double-fault', 'nmi', 'debug', 'machine-check')
SOLUTIONS = tasklib.solutions(load_as='my_where')
ASKED = {}      # check title: [(what the address is, the stop's record)]


def val(expr):
    return int(gdb.parse_and_eval(expr)) & MASK


def areas():
    """Every stack where() is asked to know: every task's, and each
    CPU's hardirq and IST stacks (not the entry stack)."""
    found = stacks.areas(0) + [a for c in range(1, stacks.nr_cpus())
                               for a in stacks.areas_of_cpu(c)]
    return [a for a in found if a.kind in KINDS]


def owner(area):
    return int(area.owner['pid']) if area.kind == 'task' else area.cpu


def expected(addr, known):
    """What where(ADDR) must return."""
    for a in known:
        if a.base <= addr < a.top:
            return a.kind, owner(a), 'stack'
    for a in known:
        if a.base - PAGE <= addr < a.base and not stacks.readable(addr):
            return a.kind, owner(a), 'guard'
    return None


def ask(title, questions):
    """Record each solution's where() on each of QUESTIONS, [(what the
    address is, addr)], under the check TITLE."""
    known = areas()
    ASKED.setdefault(title, [])
    for what, addr in questions:
        addr &= MASK
        ASKED[title].append((what, at_stop(
            SOLUTIONS, 'where', args=(addr,), addr=addr,
            expected=expected(addr, known))))


def sleeping(known):
    """A task with a stack of its own that no CPU is running, its area."""
    running = [int(stacks.current_task(c)['stack'])
               for c in range(stacks.nr_cpus())]
    return next(a for a in known if a.kind == 'task' and owner(a) > 1
                and a.base not in running)


def idle(c):
    """CPU C runs its idle task."""
    return int(stacks.current_task(c)['pid']) == 0


def thread():
    """The area of a task's stack whose pid is not its tgid: a thread not
    its process's first, or None."""
    return next((a for a in areas() if a.kind == 'task' and
                 int(a.owner['pid']) != int(a.owner['tgid'])), None)


def exited():
    """The pid of a task on the task list whose stack is gone (0): one
    that exited, not yet reaped (twins' child); or None."""
    return next((int(t['pid']) for t in tasks.task_lists() if not int(t['stack'])), None)


def per_cpu_area(known, kind, c):
    return next(a for a in known if a.kind == kind and a.cpu == c)


CHECKS = [
    "$rsp in __common_interrupt: this CPU's hardirq stack",
    "the rsp saved in the hardirq stack's top word: the interrupted task's "
    "stack",
    "the other CPU's hardirq stack, and the page under each hardirq stack",
    "a sleeping task's stack, from its lowest word to its highest, and not "
    "one byte past it",
    "the page under a sleeping task's stack: its guard page",
    "the page under init_stack, the boot task's stack in the kernel's "
    "data: mapped, so no guard page",
    "the other CPU's IST stacks, and the page under this CPU's NMI stack",
    "$rip, kernel code: on no stack",
    "$rsp in exc_double_fault: this CPU's double-fault stack",
    "the rsp that faulted (regs->sp): the guard page under dd's stack",
    "the fault address in handle_stack_overflow() (CR2): the guard page "
    "under dd's stack",
    "the stack of CPU 1's idle task (pid 0, as on every CPU), on no task "
    "list, at an interrupt on CPU 0",
    "a thread's stack (not its process's first thread): named by the "
    "thread's own pid, not its process's (tgid)",
    "an address in the NULL page: on no stack, though a task that exited "
    "and is not yet reaped has a stack of 0",
]


@test('the guest reaches the lab\'s stops: a device interrupt, the double '
      'fault, handle_stack_overflow()')
def stops():
    run('ks-lab-stop')          # the lab's stop (labs/7/lab.toml)
    c = cpu()
    other = (c + 1) % stacks.nr_cpus()
    known = areas()
    mine, theirs = (per_cpu_area(known, 'hardirq', x) for x in (c, other))
    task = sleeping(known)
    init_stack = val('(unsigned long)&init_stack')
    ask(CHECKS[0], [('$rsp', val('$rsp'))])
    ask(CHECKS[1], [("the word at the hardirq stack's top",
                     val('*(unsigned long *)%d' % (mine.top - 8)))])
    ask(CHECKS[2], [("CPU %d's hardirq stack, its top word" % other, theirs.top - 8),
                    ("the word under CPU %d's hardirq stack" % c, mine.base - 8),
                    ("the page under CPU %d's hardirq stack" % other, theirs.base - PAGE)])
    ask(CHECKS[3], [('%s, its lowest word' % task.short(), task.base),
                     ('%s, 12K above its base' % task.short(), task.base + 12288),
                     ('%s, its highest word' % task.short(), task.top - 8),
                     ('%s, its highest byte' % task.short(), task.top - 1),
                     ('%s, one byte past its top' % task.short(), task.top)])
    # The page under the guard page: no guard of this stack's (in this
    # guest, a hole between two stacks in vmalloc space).
    ask(CHECKS[4], [('the word under %s' % task.short(), task.base - 8),
                     ('the page under %s, its highest byte' % task.short(), task.base - 1),
                     ('the page under %s, its lowest byte' % task.short(),
                      task.base - PAGE),
                     ('the word under that page', task.base - PAGE - 8)])
    ask(CHECKS[5], [('the word under init_stack', init_stack - 8)])
    ask(CHECKS[6], [("CPU %d's %s stack, its top word" % (other, a.kind), a.top - 8)
                     for a in known if a.cpu == other and a.kind not in
                     ('task', 'hardirq')] +
        [("the word under CPU %d's NMI stack" % c,
          per_cpu_area(known, 'nmi', c).base - 8)])
    ask(CHECKS[7], [('$rip', val('$rip'))])
    # The lab's stop comes while the guest boots. Once lab 7's guest.sh
    # has run twins (whose second thread's pid is not its tgid, and whose
    # child exited unreaped), its serial lines are CPU 0's interrupts
    # while CPU 1 idles.
    if continue_to('__common_interrupt', lambda: idle(1) and thread() is not None and
                   exited(), cpu_nr=0):
        ask(CHECKS[11], [("the lowest word of CPU 1's idle task's stack",
                          int(stacks.current_task(1)['stack']) & MASK)])
        area = thread()
        ask(CHECKS[12], [('%s, a thread of pid %d, 64 bytes above its base' % (
            area.short(), int(area.owner['tgid'])), area.base + 64)])
        ask(CHECKS[13], [('0x10, in the NULL page (pid %d exited: its stack is 0)'
                          % exited(), 0x10)])
    if continue_to('exc_double_fault'):
        ask(CHECKS[8], [('$rsp', val('$rsp'))])
        ask(CHECKS[9], [('regs->sp', val('regs->sp'))])
    if continue_to('handle_stack_overflow'):
        ask(CHECKS[10], [('fault_address', val('fault_address'))])
    expect_true(len(ASKED) == len(CHECKS), 'the stops', 'all four reached',
                'only %d of %d checks\' addresses asked' % (len(ASKED), len(CHECKS)))
    return 'CPU %d; %d addresses' % (c, sum(len(q) for q in ASKED.values()))


def words(result):
    """where()'s answer, and what it says."""
    if result is None:
        return 'None: on no stack, under none'
    try:
        stack, who, part = result
    except (TypeError, ValueError):
        return repr(result)
    whose = 'pid %s' % who if stack == 'task' else 'CPU %s' % who
    return '%r: %s the %s stack of %s' % (
        tuple(result), 'on' if part == 'stack' else 'in the guard page under'
        if part == 'guard' else '(part %r)' % part, stack, whose)


def judged(sol, title):
    def check():
        for what, seen in ASKED.get(title, []):
            got = tasklib.returned(seen, sol, 'where(%#x)' % seen['addr'])
            if got is not None and not isinstance(got, tuple):
                got = tuple(got) if isinstance(got, list) else got
            if got != seen['expected']:
                raise Fail('where(%#x), %s' % (seen['addr'], what),
                           words(seen['expected']), words(got))
        if title not in ASKED:      # the grader's stop, not the learner's file
            raise Missed('the grader did not reach this stop')
        return ', '.join(words(seen['expected']).split(': ')[1]
                         for _, seen in ASKED[title][:1])
    return check


for sol in SOLUTIONS:
    loads = sol.loads('where', 'where(addr)', stops)
    for title in CHECKS:
        sol.check('my-where: ' + title, loads, judged(sol, title))

run_tests()
