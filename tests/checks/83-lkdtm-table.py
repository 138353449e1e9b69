# Lab 7's table (labs/7/experiment.py), made in this run: the kernel's
# own stack tests (LKDTM) on every i386 stage and on lab 7's x86_64
# kernel, a fresh guest each.
#   a row for every test on every kernel;
#   on x86_64 (VMAP_STACK) the reads just outside the stack fault at once,
#   and the recursion that exhausts the stack hits the guard page;
#   on the i386 stages the same reads succeed: "FAIL: accessed page", no
#   guard page there. (What EXHAUST_STACK does on i386 is whatever its
#   writes under the stack hit: the table shows it, no check holds it.)
# The table is read by column name (vm/session/results.py).
import importlib.machinery
import os

from checklib import TOP, expect, experiment

lab7 = importlib.machinery.SourceFileLoader(
    'lab7_experiment', os.path.join(TOP, 'labs', '7', 'experiment.py')).load_module()
table = experiment(7, 'lab7-lkdtm')
rows = {(r['stage'], r['test']): r for r in table}
want = [(str(k), t) for t in lab7.TESTS for k in lab7.STAGES]
expect(sorted(rows) == sorted(want), 'the LKDTM table has a row for each of '
       '%d tests on each of %d kernels' % (len(lab7.TESTS), len(lab7.STAGES)),
       'rows: %s' % sorted(rows))


def row(k, test):
    return rows.get((str(k), test), {})


# x86_64's words for each read: the page under a stack is a guard page the
# fault handler knows; the one above it is the unmapped end of its area.
SAID = {'STACK_GUARD_PAGE_LEADING': 'BUG: TASK stack guard page was hit',
        'STACK_GUARD_PAGE_TRAILING': 'BUG: unable to handle page fault'}
for test in ('STACK_GUARD_PAGE_LEADING', 'STACK_GUARD_PAGE_TRAILING'):
    r = row('x86_64', test)
    expect(r.get('said', '').startswith(SAID[test]) and
           r.get('noticed', '').startswith('at once'), 'x86_64: %s faults at '
           'once: "%s"' % (test, SAID[test]), '%s / %s' % (r.get('said'), r.get('noticed')))
    for k in [k for k in lab7.STAGES if k != 'x86_64']:
        r = row(k, test)
        expect(r.get('said', '').startswith('FAIL: accessed page'),
               'stage %s: %s reads the memory outside the stack ("FAIL: '
               'accessed page ...": no guard page)' % (k, test), r.get('said'))
r = row('x86_64', 'EXHAUST_STACK')
expect('guard page was hit' in r.get('said', ''), 'x86_64: EXHAUST_STACK hits '
       'the guard page ("BUG: TASK stack guard page was hit")', r.get('said'))
# A kernel that panicked noticed something: no row may say "never" then.
wrong = ['%s %s: %s / %s' % (r['stage'], r['test'], r['noticed'], r['survived'])
         for r in table if 'panic' in r.get('survived', '')
         and r.get('noticed', '').startswith('never')]
expect(not wrong, 'every row whose kernel panicked says when it noticed (%d such '
       'rows)' % sum('panic' in r.get('survived', '') for r in table),
       '; '.join(wrong))
