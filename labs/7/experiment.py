#!/usr/bin/env python3
"""labs/7/experiment.py: lab 7's table, the kernel's own stack tests
(LKDTM) on every i386 stage and on lab 7's x86_64 kernel.

Each test runs in a fresh guest (labs/7/guest.sh, with ks_lkdtm=TEST):
a test that kills the kernel must not hide what the next one does. The
row says what the kernel said first, when it noticed, and what
survived, read from the console. Writes build/results/lab7-lkdtm.tsv (by column name, for check
83), .txt (for a terminal), .adoc (the workbook's table) and .log (the
lines the rows were read from).
"""
import os
import re

from vm.session import facts
from vm.session import results
from vm.session.session import BUILD, Guest, GuestError

STAGES = facts.lab(7)['experiment_stages']
TESTS = facts.lab(7)['experiment_tests']
COLUMNS = ('stage', 'thread_size', 'test', 'said', 'noticed', 'survived')
# What the kernel says, in the order of a run: the first found is "said".
SAYINGS = [
    (r'BUG: TASK stack guard page was hit', 'at once: a fault in the guard '
     'page under the stack'),
    (r'BUG: unable to handle page fault', 'at once: a fault (an unmapped '
     'page)'),
    (r'FAIL: accessed page (before|after) stack', 'never: the read succeeds'),
    (r'corrupted stack end detected inside scheduler', 'later: the '
     "scheduler's end-magic check"),
    (r'FAIL: survived without exhausting stack', 'never: the recursion '
     'returns'),
    (r'Stack offset: -?\d+', 'nothing to notice: it reports how far a '
     "local lies from the same local in this pid's first call (the "
     "per-syscall offset, off here)"),
    # Any other oops: die() heads each with its words, an error code and
    # its count ("general protection fault, ...: 0000 [#1] ..."), where
    # the overflow's damage was met, in whatever code met it.
    (r'\S.*: [0-9a-f]{4} \[#\d+\]', 'later: an oops, where code met '
     'what the writes under the stack had damaged'),
]
LOGGED = re.compile(r'lab 7|lkdtm|BUG:|FAIL:|Kernel panic|Stack offset|'
                    r'corrupted stack')


def said(serial):
    """The kernel's first saying of SAYINGS after the test began, and when
    the kernel noticed: at the first saying that is a noticing (a test's
    own "FAIL: ..." is not: the scheduler's check may still notice
    later); ('', '') if none."""
    found = []
    # Where two sayings find one line, the first of SAYINGS names it.
    for rank, (pattern, noticed) in enumerate(SAYINGS):
        m = re.search(r'^.*%s.*$' % pattern, serial, re.M)
        if m:
            found.append((m.start(), rank, m.group(0), noticed))
    if not found:
        return '', ''
    found.sort()
    line = found[0][2]
    noticed = next((n for _, _, _, n in found if not n.startswith('never')),
                   found[0][3])
    # A fault after the test's own "FAIL: ..." (the recursion returned)
    # came at a later use of what it overwrote, not at the write itself.
    if found[0][3].startswith('never') and noticed.startswith('at once: '):
        noticed = 'later: ' + noticed[len('at once: '):]
    line = re.sub(r'^\[[ \d.]+\] (lkdtm: )?', '', line).strip()
    # %p prints a hashed pointer; the log's next lines have the address.
    line = re.sub(r' at \(____ptrval____\).*', ' at ...', line)
    offsets = re.findall(r'Stack offset: (-?\d+)', serial)
    if line.startswith('Stack offset') and len(offsets) > 1:
        line = 'Stack offset: %s' % ', then '.join(offsets)
    return line, noticed


def survived(serial, status, triple=False):
    """Whether the guest ran on after the test; TRIPLE: QEMU's debug log
    saw the CPU triple-fault (a reset without a word from the kernel)."""
    m = re.search(r'Kernel panic - not syncing: (.*)$', serial, re.M)
    if m:
        return 'no: panic, "%s"' % m.group(1).strip()
    if triple:
        return 'no: triple fault'
    if 'lab 7: the guest runs on' in serial and status == 0:
        m = re.search(r'ended with status (\d+)', serial)
        return 'yes' + (', but its shell was killed' if m and m.group(1) != '0'
                        else '')
    return 'no: %s' % status


def experiment(k, test, log):
    """TEST in a fresh guest of kernel K: its row."""
    with Guest(k, '/labs/7/guest.sh', append='ks_lkdtm=%s' % test) as guest:
        try:
            status = guest.wait_exit(60)
        except GuestError as e:
            status = str(e).splitlines()[0]
        serial = guest.serial()
        try:
            with open(guest.path('qemu-debug.log')) as f:
                triple = 'Triple fault' in f.read()
        except OSError:
            triple = False
    serial = serial[serial.find('lab 7: lkdtm'):]
    log.write('=== %s, %s (run folder %s; guest exit %s)\n'
              % (k, test, guest.run, status))
    log.writelines(l + '\n' for l in serial.split('\n') if LOGGED.search(l))
    log.flush()
    line, noticed = said(serial)
    return guest, dict(stage=k, thread_size=facts.stage(k)['thread_size'],
                       test=test, said=line, noticed=noticed,
                       survived=survived(serial, status, triple))


def text(rows, setup):
    out = ["Lab 7: the kernel's own stack tests (LKDTM), a fresh guest each "
           "(%s)" % setup]
    for r in rows:
        out.append('%-7s %-26s %s' % (r['stage'], r['test'], r['said'] or '-'))
        out.append('%-34s noticed: %s; survived: %s' % ('', r['noticed'] or '-',
                                                        r['survived']))
    return '\n'.join(out) + '\n'


def adoc(rows):
    cells = [['%s (%dK)' % (r['stage'], r['thread_size'] // 1024), r['test'],
              '`%s`' % r['said'] if r['said'] else 'nothing',
              r['noticed'] or '-', r['survived']] for r in rows]
    header = ['Kernel', 'Test', 'What the kernel said first', 'Noticed',
              'Survived']
    return results.adoc_table('1,3,4,3,3', header, cells)


def main():
    results.run_experiment(
        os.path.join(BUILD, 'results'), facts.lab(7)['experiment_table'], COLUMNS,
        [lambda log, k=k, test=test: experiment(k, test, log)
         for test in TESTS for k in STAGES], text, adoc)


if __name__ == '__main__':
    main()
