# Grader of lab 6's task (make grade N=6 EXERCISE=1): the learner's post-
# mortem script (build/exercises/6/postmortem.py, made from labs/6/task/
# postmortem.py by make exercise N=6), which finds in lab 6's dump the
# task whose stack overflowed. Run by vm/session/ks on the host, not in gdb.
#
# The grader finds that task its own way, the way the switch left (a way
# the learner's overflowed() may not take: its crash() answers only
# list, rd, echo and the like, learners_crash()): the
# IRQ-entry check that panicked ran on the panicking CPU's hardirq stack,
# whose lowest word holds the esp the interrupt came from; the task
# whose stack holds that esp is the one. It reads that stack and counts
# its unused bytes as the kernel's stack_not_used() does. Then it calls
# the learner's overflowed(crash) and compares: the task (pid and
# command), its stack, its unused bytes.
#
# The dump is not the book's, nor the one the learner's run.py reads: its
# workload (lab.toml's [exercise] append) has cat, not dd, overflow its
# stack, with another pid: an answer copied from the book, or a search
# for dd, does not find it.
#
# crash(commands) runs crash on the dump (vm/session/crash.py's run(); each run
# starts crash under qemu-i386, about 12 s). A list of commands asked
# for twice is answered from the first run: tests/checks/84-tasks.py
# grades several scripts at once, which mostly ask the same.
import re
import sys

from vm.session import crash
from vm.session import facts
from labs import tasklib
from labs.gradelib import (Fail, expect_true,
                           lab_number, run_tests, test)
from vm.session.session import GuestError

LAB = facts.lab(lab_number())
THREAD_SIZE = LAB['stage_facts']['thread_size']
MAGIC = facts.kernel()['stack_end_magic']
SOLUTIONS = tasklib.solutions()
CACHE = {}         # tuple of commands: crash's output
FOUND = {}         # the grader's own answer


def key(commands):
    return tuple(c for c in commands if c.strip() != 'quit')


def run(commands):
    """crash's output for COMMANDS, once per list of commands."""
    if key(commands) not in CACHE:
        CACHE[key(commands)] = crash.run(LAB['stage'], list(key(commands)), LAB['append'])
    return CACHE[key(commands)]


def prefetch(*lists):
    """Several lists of commands in one crash run, each answered later
    by run() as if run alone."""
    mark = '==== tasks-grader %d'
    text = crash.run(LAB['stage'], [c for i, cs in enumerate(lists)
                                    for c in ['echo ' + mark % i] + list(key(cs))],
                     LAB['append'])
    parts = re.split(r'^==== tasks-grader (\d+)$', text, flags=re.M)
    for i, part in zip(parts[1::2], parts[2::2]):
        CACHE[key(lists[int(i)])] = part


def dump():
    """The dump, made now if missing or stale: lab 6's workload panics by
    chance (an interrupt must come while dd is deepest), so a guest that
    did not panic gets one more try."""
    try:
        return crash.dump(LAB['stage'], LAB['append'])
    except GuestError as e:
        print('tasks: no panic on the first guest, one more (%s)'
              % str(e).splitlines()[0], file=sys.stderr)
        return crash.dump(LAB['stage'], LAB['append'])


def used_from(stack, text):
    """stack_not_used() of the stack at STACK, from crash's rd of it."""
    words = crash.rd_words(text)
    expect_true(words and words[0] == (stack, MAGIC), 'the lowest word of the '
                'stack at %#x' % stack, 'STACK_END_MAGIC %#x' % MAGIC,
                words[0] if words else 'nothing read')
    first = next((addr for addr, value in words[1:] if value), None)
    expect_true(first is not None, 'the words of the stack at %#x' % stack,
                'one that is not zero', 'none')
    return first - stack


@test("the grader finds the task whose stack the panicking interrupt came "
      "from (the hardirq stack's lowest word)")
def own():
    dump()
    # The task list as the skeleton's tasks() asks for it: one run less.
    listing = ['list -o task_struct.tasks -s task_struct.comm,pid,stack '
               '-h init_task']
    mine = ['bt', 'p hardirq_stack_ptr:a', 'p/x *(unsigned long *)$']
    prefetch(mine, listing)
    text = run(mine) + run(listing)
    cpu = re.search(r'^PID: *\d+ +TASK: \S+ +CPU: (\d+)', text, re.M)
    expect_true(cpu, "crash's bt", 'the panicking CPU', text.strip()[-300:])
    base = re.search(r'per_cpu\(hardirq_stack_ptr, %s\) = \$\d+ = '
                     r'\(struct irq_stack \*\) (0x[0-9a-f]+)\n\$\d+ = (0x[0-9a-f]+)'
                     % cpu.group(1), text)
    expect_true(base, "the hardirq stack of CPU %s and its lowest word"
                % cpu.group(1), 'its address and the word there',
                text.strip()[-300:])
    saved = int(base.group(2), 16)
    tasks = re.findall(r'comm = "([^"\\]*)[^"]*",\s*pid = (\d+),\s*stack = '
                       r'(0x[0-9a-f]+)', text)
    owner = [(int(pid), comm, int(stack, 16)) for comm, pid, stack in tasks
             if int(stack, 16) <= saved < int(stack, 16) + THREAD_SIZE]
    expect_true(len(owner) == 1, 'the task whose stack holds the saved esp '
                '%#x' % saved, 'one task', owner or 'none')
    pid, comm, stack = owner[0]
    rd = run(['rd %#x %d' % (stack, THREAD_SIZE // 4)])
    FOUND.update(pid=pid, comm=comm, stack=stack, not_used=used_from(stack, rd))
    # Not shown: the answer a learner's file must find for itself.
    return 'found (not shown: yours is judged against it)'


# What overflowed(crash) may ask: the task list, words and structures
# (not who panicked: bt, ps, log, p panic_cpu; nor the IRQ stacks the
# grader's own answer starts from). The task is a search of every task's
# stack.
ALLOWED = ('list', 'rd', 'echo', 'struct', 'whatis', 'ptype')


def learners_crash(commands):
    """run(), for the learner's overflowed(): a command not ALLOWED raises."""
    refused = [c for c in commands if '\n' in c or c.split()[:1] and c.split()[0] not in ALLOWED]
    if refused:
        raise ValueError("crash(): %r is not the task's to ask (only %s): find the task "
                         "by its stack's unused bytes, every task's (tasks(), rd)"
                         % (refused[0], ', '.join(ALLOWED)))
    return run(commands)


def loaded(sol):
    def check():
        tasklib.load(sol, 'postmortem')
        tasklib.expect_defined(sol, 'overflowed', 'overflowed(crash)')
        sol.answer, error = tasklib.call(sol.module['overflowed'], learners_crash)
        expect_true(error is None, 'overflowed(crash)', 'it returns', error)
        ok = isinstance(sol.answer, (tuple, list)) and len(sol.answer) == 4
        expect_true(ok, 'what overflowed(crash) returned', '(pid, comm, stack, '
                    'not_used)', repr(sol.answer))
    return check


def same_task(sol):
    """The grader's task, told without naming it: a learner's file must
    find it, not read it here."""
    def check():
        pid, comm = sol.answer[0], sol.answer[1]
        expect_true(str(pid) == str(FOUND['pid']) and comm == FOUND['comm'],
                    'the task your script found',
                    'the task whose stack overflowed: of all the tasks, the one whose stack '
                    'has the fewest bytes never used', 'pid %s (%s), %s bytes never used'
                    % (pid, comm, sol.answer[3]))
    return check


def same_stack(sol):
    def check():
        try:
            stack = int(sol.answer[2])
        except (TypeError, ValueError):
            raise Fail('its stack', "the task's stack: task_struct.stack, a number",
                       repr(sol.answer[2]))
        expect_true(stack == FOUND['stack'], 'its stack (the lowest address)',
                    "the task's stack: task_struct.stack", '%#x' % stack)
        try:
            off = int(sol.answer[3]) - FOUND['not_used']
        except (TypeError, ValueError):
            raise Fail("the bytes at its stack's end that were never used", 'a number',
                       repr(sol.answer[3]))
        expect_true(off == 0, "the bytes at its stack's end that were never used",
                    "stack_not_used()'s count: from the stack's lowest address, the end "
                    "magic counted, to the first word that is not zero",
                    '%s: %s' % (sol.answer[3], 'a word more' if off == 4 else 'a word fewer'
                                if off == -4 else 'less than a word off' if abs(off) < 4
                                else 'more than a word off' if off else ''))
        return 'the same count'
    return check


for sol in SOLUTIONS:
    sol.answer = None
    runs = sol.check('postmortem.py runs and overflowed(crash) returns (pid, '
                     'comm, stack, not_used)', own, loaded(sol))
    task = sol.check('it finds the task whose stack overflowed', runs,
                     same_task(sol))
    sol.check('and its stack, and how much of it was never used', task,
              same_stack(sol))

run_tests()
