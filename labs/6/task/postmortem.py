#!/usr/bin/env python3
"""Lab 6's task: in lab 6's dump, find the task whose stack overflowed.

Your copy is build/exercises/6/postmortem.py (make exercise N=6 made it).
make grade N=6 EXERCISE=1 calls overflowed() below on lab 6's dump and
compares what it returns with what the grader finds its own way. Run it
yourself, from the top of the checkout, with python3 -m labs.6.task.run
(each call of crash() starts crash on the dump, about 12 s under
qemu-i386: ask for many commands in one call).

Lab 6's kernel panicked when the IRQ-entry check found a task's stack
nearly used up. Which task? crash's ps and bt know only two tasks in
this dump (labs/6/README.md says why), so do not ask them: look at
every task's stack, as the kernel's CONFIG_DEBUG_STACK_USAGE does
(stack_not_used() in include/linux/sched/task_stack.h). A stack is
zeroed when it is allocated and grows down towards its end, the lowest
address, which holds STACK_END_MAGIC; the bytes between the end and the
lowest word that is not zero were never used. The task with the fewest
such bytes came closest to the end.

labs/6/README.md, "Task", says more; make hint N=6 gives one hint at a
time.
"""
import re

# vm/session/crash.py reads an rd output as words.
from vm.session.crash import rd_words  # noqa: F401

THREAD_SIZE = 8192             # stage 2's stacks (vm/stages.toml)
STACK_END_MAGIC = 0x57ac6e9d   # the word at every task stack's end


def tasks(crash):
    """Every task in the dump, from the kernel's own task list, as (pid,
    comm, stack) triples; stack is the lowest address of its stack (0
    for a task that has exited and lost it)."""
    text = crash(['list -o task_struct.tasks -s task_struct.comm,pid,stack '
                  '-h init_task'])
    found = re.findall(r'comm = "([^"\\]*)[^"]*",\s*pid = (\d+),\s*'
                       r'stack = (0x[0-9a-f]+)', text)
    return [(int(pid), comm, int(stack, 16)) for comm, pid, stack in found]


def overflowed(crash):
    """The task whose stack came closest to its end, as (pid, comm,
    stack, not_used): not_used is the number of bytes from the stack's
    end (its lowest address) to the lowest word that is not zero, the
    end magic not counted as used, as stack_not_used() counts them.

    crash(commands) runs a list of crash commands on lab 6's dump and
    returns crash's output, as vm/session/crash.py's run() does. Its "echo TEXT"
    prints TEXT: a way to tell apart the outputs of several commands
    asked for at once. "rd ADDR COUNT" prints COUNT words from ADDR."""
    # TODO: every task's stack, its unused bytes, the task with fewest.
    return None

