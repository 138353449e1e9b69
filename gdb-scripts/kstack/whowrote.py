# ks-who-wrote: on a replay, back in time to the write that changed a word.
import os
import re

import gdb

from kstack import death, stacks, threadinfo

NOT_REPLAY = ('ks-who-wrote runs the guest backwards, which gdb can do only '
              'on a replay: make replay N=' + os.environ.get('KS_LAB', 'k') +
              ' records the lab\'s run and opens gdb on it (%s)')
# The most writes one ks-who-wrote goes back over to find the one that
# smashed the end magic (a memset writes it a byte at a time).
MOST_WRITES = 64


def end_magic(cpu):
    """The address of the end magic of the task current on CPU: the
    lowest word of its stack (end_of_stack()), which the scheduler's
    check reads."""
    return int(stacks.current_task(cpu)['stack'])


def named(addr, cpu):
    """ADDR, said for a learner: the end magic of whose stack, or where
    on a stack it lies, if it does."""
    for area in stacks.each_area(cpu):
        if area.kind == 'task' and addr == area.base:
            return 'the end magic of %s' % area.name()
        if area.holds(addr):
            return '%d bytes above the bottom of %s' % (addr - area.base, area.name())
    return 'on no stack'


def step(direction):
    gdb.execute('%sstepi' % direction, to_string=True)


def instructions():
    """How many instructions the replay has run: QEMU's count, 0 at the
    start of the recording."""
    out = gdb.execute('monitor info replay', to_string=True)
    m = re.search(r'instruction count = (\d+)', out)
    if not m:
        raise stacks.KstackError(NOT_REPLAY % out.strip())
    return int(m.group(1))


def back_to_write(addr):
    """reverse-continue (a watchpoint on ADDR is set) to the last write to
    ADDR, and stop just before it, where $pc is the instruction that
    makes it (a rep stos too, which writes one element a step). Returns
    (None, the word before, after), or (what gdb said, None, None) at the
    start of the recording (or before the kernel mapped ADDR). QEMU
    stops with the write made, and running backwards its stop reply
    never names the watchpoint: it replays forwards from the snapshot
    before, notes each write the watchpoint covers without stopping,
    seeks to just after the last one and reports a plain SIGTRAP
    (replay_reverse_continue() in QEMU 7.2's replay/replay-debugging.c).
    So a write is found by the word itself: it differs one step back.
    Other stops (a breakpoint of the learner's) are passed."""
    while True:
        try:
            out = gdb.execute('reverse-continue', to_string=True)
        except gdb.error as e:
            raise stacks.KstackError(NOT_REPLAY % e)
        if 'No more reverse-execution history' in out or not instructions():
            return out, None, None
        try:
            after = stacks.word(addr)
        except gdb.error:
            return out, None, None        # not mapped yet: before the kernel ran
        step('reverse-')
        if stacks.word(addr) != after:
            return None, stacks.word(addr), after


def quietly(action):
    """ACTION(), with what gdb prints of each stop on the way ("Program
    received signal SIGTRAP", which neither to_string nor gdb's logging
    catches) sent to /dev/null: gdb's standard output is pointed there."""
    gdb.flush()
    saved = os.dup(1)
    null = os.open(os.devnull, os.O_WRONLY)
    os.dup2(null, 1)
    try:
        return action()
    finally:
        gdb.flush()
        os.dup2(saved, 1)
        os.close(saved)
        os.close(null)


def default_word(cpu):
    """(the address ks-who-wrote watches without ADDR, what it is), from
    what the kernel died of, if it died; a KstackError that says what to
    give it where the death names no word."""
    cause = death.cause
    said = cause and cause['words'] or 'its death'
    magic = end_magic(cpu)
    # An end magic gone is the most telling write, whatever the kernel
    # died of after it (the scheduler's check, or an oops in code that
    # met the damage).
    if (cause is None or stacks.word(magic) != threadinfo.STACK_END_MAGIC or any(
            w in said for w in ('stack end', 'Thread overran stack', 'stack guard page'))):
        return magic, 'end magic'
    address = cause['address']
    if 'NULL pointer dereference' in said:    # the kernel's own word for it
        raise stacks.KstackError(
            'the kernel died of a NULL pointer dereference ("%s"): it used '
            'address %#x, which nothing writes. Who wrote the NULL pointer is '
            'the question: give ks-who-wrote the address of the pointer the '
            'faulting line read (ks-death shows the line; e.g. ks-who-wrote '
            '&p->next, with the names of that line, in the frame where it '
            'faulted)' % (said, address or 0))
    if address is not None:
        return address, 'faulting address'
    raise stacks.KstackError(
        'the kernel died ("%s"), and its words name no address to watch: '
        'give ks-who-wrote one (ks-who-wrote ADDR; ks-death says where it '
        'died)' % said)


class KsWhoWrote(stacks.Command):
    """Go back in time to the write that changed a word, and say who made it.

Usage: ks-who-wrote [ADDR]

On a replay only (make replay N=k), where gdb runs the guest backwards.
ADDR is an expression for the word's address. Without it: the end
magic of the current task's stack (the lowest word, which the
scheduler's end check reads), and, if the magic is gone, the write that
overwrote it, however many writes to the word came after; run again
without ADDR, the same word's write before.

gdb goes backwards (reverse-continue, with a watchpoint on the word) to
the write, and this prints the instruction's function and source line,
the value before and after, the stack the CPU was on, and ks-bt there.
You are left just before that write: stepi makes it, reverse-stepi goes
one instruction further back, reverse-finish back to the call; continue
goes forwards. Run again, it finds the write before. $ks_wrote is the
word's address (p/x *$ks_wrote)."""

    NAME = 'ks-who-wrote'
    KIND = gdb.COMMAND_RUNNING
    last = None                  # the word the last ks-who-wrote watched

    def run(self, arg):
        cpu = stacks.selected_cpu()
        again = not arg.strip() and KsWhoWrote.last is not None
        kind = 'end magic'
        if arg.strip():
            addr = int(gdb.parse_and_eval(arg)) & stacks.mask()
        elif again:
            addr = KsWhoWrote.last
        else:
            addr, kind = default_word(cpu)
        KsWhoWrote.last = addr
        gdb.set_convenience_variable('ks_wrote', addr)     # p/x *$ks_wrote
        try:
            what = named(addr, cpu)
        except (gdb.error, gdb.MemoryError):
            what = 'on a stack this kernel cannot list here'
        magic = threadinfo.STACK_END_MAGIC
        # The first time without ADDR, the magic gone: the write that took it.
        smashed = (not arg.strip() and not again and kind == 'end magic'
                   and stacks.word(addr) != magic)
        if kind == 'faulting address':
            gdb.write('ks-who-wrote: the kernel faulted at %#x (%s): back to the '
                      'last write there\n' % (addr, death.cause['words']))
        start = instructions()
        watch = gdb.Breakpoint('*(unsigned long *)%#x' % addr, gdb.BP_WATCHPOINT,
                               gdb.WP_WRITE, internal=True)

        def find():
            for writes in range(1, MOST_WRITES + 1):
                out, before, after = back_to_write(addr)
                if out is not None or not smashed or before == magic:
                    return out, before, after, writes
            return None, before, after, writes
        try:
            out, before, after, writes = quietly(find)
        finally:
            watch.delete()
        if out is not None:
            # Back where it started: QEMU stops the replay at that count.
            gdb.execute('monitor replay_break %d' % start, to_string=True)
            quietly(lambda: gdb.execute('continue', to_string=True))
            gdb.write('ks-who-wrote: nothing wrote %#x (%s) from the start of the '
                      'recording to here\n' % (addr, what))
            if instructions() != start:
                gdb.write('  (and gdb stopped at instruction %d on the way back, '
                          'not at %d, where it started)\n' % (instructions(), start))
            return
        if smashed and before != magic:
            gdb.write('ks-who-wrote: %d writes to %#x back, the end magic is '
                      'still not there; each ks-who-wrote again goes one write further\n'
                      % (writes, addr))
        pc = int(gdb.selected_frame().pc())
        sp = int(gdb.parse_and_eval('$sp')) & stacks.mask()
        if smashed:
            gdb.write('ks-who-wrote: the write that smashed %s (%#x):\n' % (what, addr))
        else:
            gdb.write('ks-who-wrote: the last write to %#x (%s) before here:\n'
                      % (addr, what))
        gdb.write('  by %s, on CPU %d, in %s\n' % (death.source_of(pc), cpu,
                                                  death.current_of(cpu)))
        line = death.source_line(pc)
        if line:
            gdb.write('      %s\n' % line)
        gdb.write('  it writes %#010x over %#010x%s\n' % (
            after, before, ' (STACK_END_MAGIC)' if before == magic else ''))
        try:
            gdb.write('  %s %#x: %s\n' % (stacks.reg_names()[1], sp, stacks.describe(sp, cpu)))
            gdb.execute('ks-bt %d' % cpu)
        except (gdb.error, gdb.MemoryError) as e:
            # Early in boot (before the per-CPU areas), the stacks are not
            # all known yet.
            gdb.write('  (its stack and frames cannot be told this early in the '
                      'boot: %s)\n' % e)
        gdb.write('You are just before that write: stepi makes it, reverse-stepi '
                  'goes one more\ninstruction back, continue goes forwards; '
                  'ks-who-wrote again finds the write before.\n')


KsWhoWrote()
