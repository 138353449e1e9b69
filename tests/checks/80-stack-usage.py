# Stack use per stage, as the kernel itself reports it after a boot and a
# short workload (tests/guest/stack-usage.sh): the smallest "bytes left" of
# DEBUG_STACK_USAGE, and KernelStack per thread. The figures go to the
# table build/check/stack-usage.tsv; the checks hold them against the
# stage's THREAD_SIZE (vm/stages.toml):
#  - KernelStack divided by the stacks it counts (every thread in /proc,
#    plus the idle threads of the other CPUs; the boot CPU's idle stack is
#    static) is THREAD_SIZE, to the nearest KiB (vmstat counters lag by a
#    few pages per CPU);
#  - the deepest use is over 1 KiB (the workload ran) and no task came
#    closer to its stack's end than the IRQ-entry check's warning line.
import os
import re

from vm.session.session import DONE_MARKER
from tests.checklib import (CHECK, Guest, expect, facts, in_guest, log, results,
                            stages)

def plausible(left, ts, line):
    """The least bytes LEFT on a TS-byte stack says the workload ran (over
    1 KiB used) and stayed above the warning LINE."""
    return left is not None and line <= left <= ts - 1024


# The bound can fail: no report, a stack barely used, one under the line.
expect(not plausible(None, 4096, 528) and not plausible(4000, 4096, 528) and
       not plausible(500, 4096, 528) and plausible(2000, 4096, 528),
       'the bound fails no report, 96 bytes used, 500 left under a 528-byte '
       'line, and passes 2000 left')

rows = []
for k in stages():
    ts = facts.stage(k)['thread_size']
    with Guest(k, '/tests/stack-usage.sh') as guest:
        status = in_guest('stage %d: the stack-usage workload finishes' % k,
                          lambda: guest.wait_for(DONE_MARKER + ' status=', 180)
                          and guest.wait_exit())
        if status is None:
            continue
        serial = guest.serial()
    # The kernel's own words on the console.
    lefts = [int(n) for n in re.findall(
        r'used greatest stack depth: (\d+) bytes left', serial)]
    left = min(lefts) if lefts else None
    m = re.search(r'^stack-usage: KernelStack (\d+) kB threads (\d+) cpus (\d+)',
                  serial, re.M)
    kb, threads, cpus = map(int, m.groups()) if m else (0, 0, 1)
    stacks = threads + cpus - 1
    rows.append({'stage': k, 'thread_size': ts, 'least_bytes_left': left,
                 'deepest_use': None if left is None else ts - left,
                 'kernelstack_kb': kb, 'threads': threads})
    log('stage %d: least bytes left %s, KernelStack %d kB for %d stacks'
        % (k, left, kb, stacks))

    per = (kb * 1024 + stacks * 512) // max(stacks, 1) // 1024
    expect(status == 0 and per == ts // 1024,
           'stage %d: KernelStack is %d bytes per thread (%d kB for %d stacks)'
           % (k, ts, kb, stacks),
           '%d KiB per stack, status %s' % (per, status))
    # The workload forks, execs and reads files: its deepest chain takes
    # well over 1 KiB, and an ordinary workload stays above the line of
    # the IRQ-entry check (a deeper one would have warned).
    line = facts.stage(k)['warning_line']
    expect(plausible(left, ts, line),
           'stage %d: deepest task stack use %s of %d bytes (%s left): over '
           '1 KiB, above the %d-byte warning line'
           % (k, None if left is None else ts - left, ts, left, line),
           'DEBUG_STACK_USAGE reported %s bytes left'
           % ('nothing' if left is None else left))

table = os.path.join(CHECK, 'stack-usage.tsv')
os.makedirs(CHECK, exist_ok=True)
results.write_table(table, ['stage', 'thread_size', 'least_bytes_left',
                            'deepest_use', 'kernelstack_kb', 'threads'], rows)
with open(table) as f:
    log(f.read())
