#!/usr/bin/env python3
"""labs/5/experiment.py: lab 5's experiment, what 4K stacks buy, measured.

Boots stage 2 (8K stacks) and stage 3 (4K) in the same guest (CPUS,
MEM) with labs/5/guest.sh and reads the guest's own reports: threads
created until free memory runs low, KernelStack per thread, and threads
created once fragment has left almost no free pair of pages (buddyinfo
before and after). Writes build/results/lab5-memory.tsv (the rows, by
column name, for book/plots.py and check 87), .txt (for a terminal),
.adoc (the workbook's table) and .log (the lines the rows were read from).
"""
import os
import re
import sys
import time

from vm.session import facts
from vm.session import results
from vm.session.session import BUILD, Guest, GuestError

STAGES = facts.lab(5)['experiment_stages']     # 8K, then 4K
COLUMNS = ('stage', 'thread_size', 'threads', 'kernel_stack_per_thread_kb',
           'threads_ended_by', 'threads_fragmented', 'fragmented_ended_by',
           'buddyinfo_fragmented')
LOGGED = re.compile(r'lab 5|threads: done|Killed process|fragment:')


def parts(serial):
    """The console's lines after "lab 5: part 1" and after "lab 5: part 2"."""
    found, part = {1: [], 2: []}, None
    for line in serial.split('\n'):
        m = re.search(r'lab 5: part (\d)', line)
        if m:
            part = int(m[1])
        elif part:
            found[part].append(line)
    return found


def threads(lines):
    """What vm/guest/threads.c reported in one part: (threads made, the
    last progress report's count and KernelStack kB, how it ended). With
    no "done" line, the OOM killer ended it: its last report counts."""
    last, done = (0, 0), None
    for line in lines:
        words = line.split()
        # threads: N kernelstack_kb: K memfree_kb: F
        if len(words) > 3 and words[0] == 'threads:' and words[1].isdigit():
            last = int(words[1]), int(words[3])
        m = re.match(r'threads: done (\d+) \((.*)\)$', line)
        if m:
            done = int(m[1]), m[2]
    made, ended = done or (last[0], 'killed by the OOM killer')
    return made, last[0], last[1], ended


def experiment(k, log):
    """Lab 5's guest at stage K: its row."""
    with Guest(k, '/labs/5/guest.sh') as guest:
        try:
            guest.wait_exit(300)
        except GuestError as e:
            sys.exit("stage %d: lab 5's guest did not finish:\n%s" % (k, e))
        serial = guest.serial()
    log.write('=== stage %d (run folder %s)\n' % (k, guest.run))
    log.writelines(l + '\n' for l in serial.split('\n') if LOGGED.search(l))
    log.flush()
    if 'lab 5: done' not in serial:
        sys.exit("stage %d: lab 5's guest did not finish its parts (log: %s)"
                 % (k, log.name))
    part = parts(serial)
    made, at, kernel_stack, ended = threads(part[1])
    made2, _, _, ended2 = threads(part[2])
    start = re.search(r'KernelStack (\d+) kB at start', serial)
    if not (start and at):
        sys.exit('stage %d: no KernelStack at start or no progress report '
                 'from threads (log: %s)' % (k, log.name))
    # KernelStack's growth over the threads the last report counted.
    per = (kernel_stack - int(start[1])) / at
    frag = re.search(r'buddyinfo fragmented: Node 0, zone Normal ([\d ]*?) ;',
                     serial)
    return guest, dict(stage=k, thread_size=facts.stage(k)['thread_size'],
                       threads=made, kernel_stack_per_thread_kb='%.2f' % per,
                       threads_ended_by=ended, threads_fragmented=made2,
                       fragmented_ended_by=ended2,
                       buddyinfo_fragmented=frag[1] if frag else '')


def ratios(rows):
    """4K stacks' threads over 8K stacks' (the last stage's over the
    first's), in whole and in fragmented memory: (plain, fragmented).
    ROWS as this script writes them, or as results.read_table reads
    them back (check 87)."""
    by_stage = {int(r['stage']): r for r in rows}
    big, small = by_stage[STAGES[0]], by_stage[STAGES[-1]]
    return tuple(int(small[c]) / int(big[c])
                 for c in ('threads', 'threads_fragmented'))


def text(rows, setup):
    out = ["Lab 5: what 4K stacks buy (%s; guest: %s)"
           % (time.strftime('%F', time.gmtime()), setup)]
    for r in rows:
        out.append('stage %d, %d K stacks: %d threads (%s), %s kB of '
                   'KernelStack each' % (
                       r['stage'], r['thread_size'] // 1024, r['threads'],
                       r['threads_ended_by'], r['kernel_stack_per_thread_kb']))
        out.append('  fragmented (buddyinfo order 0..10: %s): %d threads (%s)'
                   % (r['buddyinfo_fragmented'] or '?', r['threads_fragmented'],
                      r['fragmented_ended_by']))
    plain, frag = ratios(rows)
    out.append('4K/8K: %.2f times the threads; %.1f times with fragmented '
               'memory' % (plain, frag))
    return '\n'.join(out) + '\n'


def adoc(rows):
    return results.adoc_table('1,1,2,2,2,3', [
        'Stage', 'Stack', 'Threads until 8 MB free', 'KernelStack per thread',
        'Threads, fragmented memory',
        'Free blocks by order (0..10), fragmented'], [[
            r['stage'], '%d K' % (r['thread_size'] // 1024), r['threads'],
            '%s kB' % r['kernel_stack_per_thread_kb'],
            '%d (%s)' % (r['threads_fragmented'], r['fragmented_ended_by']),
            r['buddyinfo_fragmented'] or '?'] for r in rows])


def main():
    results.run_experiment(
        os.path.join(BUILD, 'results'), facts.lab(5)['experiment_table'], COLUMNS,
        [lambda log, k=k: experiment(k, log) for k in STAGES], text, adoc)


if __name__ == '__main__':
    main()
