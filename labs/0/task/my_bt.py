# Lab 0's task: my-bt, a backtrace of your own, by frame pointers.
#
# Your copy is build/exercises/0/my_bt.py (make exercise N=0 made it).
# Grade it with make grade N=0 EXERCISE=1: it boots stage 0 with
# interrupts coming on both CPUs, stops at several places (a function's
# first instruction, the middle of one, the hardirq and softirq stacks,
# each CPU), calls your frames() there and compares it with gdb's own
# frames. Try it in a lab: make lab N=0 EXERCISE=1 loads this file, then
# `my-bt` beside `bt` and `ks-bt` (after an edit: `source` this file).
#
# What you have to work out (the first warm-up of "Before the labs"
# reads one frame by hand; make hint N=0 gives one hint at a time):
#   - the kernels are built with frame pointers: every function begins
#     with push %ebp; mov %esp,%ebp. Where, from ebp, are the caller's
#     ebp and the return address into the caller?
#   - a breakpoint on a function stops at its first instruction, before
#     that push: what is different there?
#   - where does the chain end, and how does a word tell you so?
#   - a return address lies in the caller, just after its call: which
#     function should it be named after when that call is the caller's
#     last instruction?
import gdb

# Given (labs/taskgdb.py): the guest's words and registers, and
# the function that holds an address.
from labs.taskgdb import (KERNEL_START, MAX_FRAMES, at_first_instruction,
                          command, function_of, reg, word)


def frames():
    """The selected CPU's frames, innermost first, as a list of (pc,
    function) pairs: frame 0 is where the CPU is ($pc), every other one
    a return address into a caller. The grader calls this."""
    pc, sp, ebp = reg('pc'), reg('sp'), reg('ebp')
    found = [(pc, function_of(pc))]
    # TODO: the frames of the callers, by the chain of saved ebp words
    # (and the caller whose frame is not built yet, at a first
    # instruction).
    return found


def line(i, found):
    """my-bt's line for frame I of FOUND."""
    pc, name = found[i]
    return '#%-2d 0x%08x %s\n' % (i, pc, name or '??')


command('my-bt', "my-bt: the selected CPU's backtrace, by frame pointers "
        "(lab 0's task).", frames, line)
