# Lab 1's task: my-xbt, your backtrace across stacks.
#
# Your copy is build/exercises/1/my_xbt.py (make exercise N=1 made it).
# Grade it with make grade N=1 EXERCISE=1. Stage 1, the lab's kernel, has
# no IRQ stacks: everything runs on the task's stack, and there is
# nothing to cross. So the task is graded on stage 0, the kernel of lab
# 0, whose per-CPU hardirq and softirq stacks lab 2 builds again: the
# grader boots it with interrupts coming on both CPUs, stops in
# interrupt handlers and softirqs on each CPU (and in a handler that
# interrupted a softirq), calls your frames() and compares it with
# ks-bt's frames. Try it: make lab N=1 EXERCISE=1 boots stage 0 with
# this file loaded: `my-xbt` beside `ks-bt` (after an edit: `source` it).
#
# Start from your lab 0 walk (my-bt). What is new (labs/1/README.md,
# "Task"; make hint N=1 gives one hint at a time):
#   - every frame is on a stack, and you say which: the stack that holds
#     its function's frame (the ebp it pushed); frame 0's, at a first
#     instruction, is the stack $sp is on;
#   - on one stack, the chain climbs: each saved ebp is above the last;
#   - the chain may leave a hardirq or softirq stack, and only that way:
#     to the stack whose esp the switch saved in the IRQ stack's lowest
#     word, and at or above that esp. Anything else ends the walk (a
#     post-mortem must not follow a broken chain into random memory);
#   - an interrupt's entry leaves in ebp the address of the registers it
#     saved (pt_regs), with the top bit cleared: the walk goes on with
#     the interrupted code's ip and ebp, unless it came from user mode.
import gdb

# Given (labs/taskgdb.py): the guest's words and registers, and
# the function that holds an address.
from labs.taskgdb import (KERNEL_START, MAX_FRAMES, at_first_instruction,
                          command, function_of, reg, word)


def cpu():
    """The selected CPU (gdb's thread N is CPU N-1)."""
    return gdb.selected_thread().num - 1


def stacks(cpu_nr):
    """The stacks CPU_NR can be on: {'task': (base, top), 'hardirq':
    (base, top), 'softirq': (base, top)}; the current task's stack, and
    the CPU's own IRQ stacks. The lowest word of each IRQ stack is at
    its base."""
    size = int(gdb.parse_and_eval('sizeof(init_stack)'))   # THREAD_SIZE
    task = gdb.parse_and_eval('$lx_per_cpu("current_task", %d)' % cpu_nr)
    found = {'task': int(task['stack'])}
    for kind in ('hardirq', 'softirq'):
        found[kind] = int(gdb.parse_and_eval('$lx_per_cpu("%s_stack_ptr", %d)'
                                             % (kind, cpu_nr)))
    return {kind: (base, base + size) for kind, base in found.items()}


def stack_of(addr, known):
    """Which of KNOWN's stacks (stacks()) holds ADDR: 'task', 'hardirq',
    'softirq', or None."""
    for kind, (base, top) in known.items():
        if base <= addr < top:
            return kind
    return None


def interrupted(regs):
    """What the interrupt entry whose pt_regs are at REGS saved of the
    code it interrupted: (ip, ebp, from_user_mode)."""
    r = gdb.parse_and_eval('*(struct pt_regs *)%d' % regs)
    return (int(r['ip']) & 0xffffffff, int(r['bp']) & 0xffffffff,
            bool(int(r['cs']) & 3))


def frames():
    """The selected CPU's frames, innermost first, as a list of (pc,
    function, stack) triples, stack being 'task', 'hardirq' or
    'softirq'. The grader calls this."""
    known = stacks(cpu())
    pc, sp, ebp = reg('pc'), reg('sp'), reg('ebp')
    found = [(pc, function_of(pc), stack_of(sp, known))]
    # TODO: the walk of lab 0, with each frame's stack; across from an
    # IRQ stack only as its lowest word allows; through an interrupt's
    # pt_regs to the code it interrupted.
    return found


def line(i, found):
    """my-xbt's line for frame I of FOUND, after the crossing that led
    to it, if any."""
    pc, name, stack = found[i]
    crossed = ''
    if i and stack != found[i - 1][2]:
        crossed = '   -- %s was reached from %s below\n' % (found[i - 1][2], stack)
    return crossed + '#%-2d 0x%08x %-32s %s\n' % (i, pc, name or '??', stack)


command('my-xbt', "my-xbt: the selected CPU's backtrace across stacks (lab "
        "1's task).", frames, line)
