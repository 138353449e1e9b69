# Lab 7's table (labs/7/experiment.py), made in this run: the kernel's
# own stack tests (LKDTM) on every kernel of lab 7's experiment_stages
# (the i386 stages, lab 7's x86_64 kernel), a fresh guest each.
#   a row for every test on every kernel;
#   on a kernel with guard pages (x86_64's VMAP_STACK) the reads just
#   outside the stack fault at once, and the recursion that exhausts the
#   stack hits the guard page;
#   on any other the same reads succeed: "FAIL: accessed page", no guard
#   page there. (What EXHAUST_STACK does there is whatever its writes
#   under the stack hit: the table shows it, no check holds it.)
# The table is read by column name (vm/session/results.py).
from vm.session import facts
from tests.checklib import expect, experiment

# The kernels and the tests the experiment runs (labs/7/lab.toml).
STAGES, TESTS = (facts.lab(7)['experiment_%s' % k] for k in ('stages', 'tests'))
table = experiment(7)
rows = {(r['stage'], r['test']): r for r in table}
want = [(str(k), t) for t in TESTS for k in STAGES]
expect(sorted(rows) == sorted(want), 'the LKDTM table has a row for each of '
       '%d tests on each of %d kernels' % (len(TESTS), len(STAGES)),
       'rows: %s' % sorted(rows))


def row(k, test):
    return rows.get((str(k), test), {})


def kernel_name(k):
    return 'stage %s' % k if str(k).isdigit() else k


# A kernel with guard pages (vm/stages.toml's guard_pages: lab 7's
# x86_64, VMAP_STACK) faults at once, in these words: the page under a
# stack is a guard page the fault handler knows; the one above it is the
# unmapped end of its area. Any other reads the memory there.
SAID = {'STACK_GUARD_PAGE_LEADING': 'BUG: TASK stack guard page was hit',
        'STACK_GUARD_PAGE_TRAILING': 'BUG: unable to handle page fault'}
guarded = [k for k in STAGES if facts.stage(k).get('guard_pages')]
expect(guarded, 'the table has a kernel with guard pages', 'none of %s' % STAGES)
for test in ('STACK_GUARD_PAGE_LEADING', 'STACK_GUARD_PAGE_TRAILING'):
    for k in guarded:
        r = row(k, test)
        expect(r.get('said', '').startswith(SAID[test]) and
               r.get('noticed', '').startswith('at once'), '%s: %s faults at '
               'once: "%s"' % (k, test, SAID[test]), '%s / %s' % (r.get('said'), r.get('noticed')))
    for k in [k for k in STAGES if k not in guarded]:
        r = row(k, test)
        expect(r.get('said', '').startswith('FAIL: accessed page'),
               '%s: %s reads the memory outside the stack ("FAIL: '
               'accessed page ...": no guard page)' % (kernel_name(k), test), r.get('said'))
for k in guarded:
    r = row(k, 'EXHAUST_STACK')
    expect('guard page was hit' in r.get('said', ''), '%s: EXHAUST_STACK hits '
           'the guard page ("BUG: TASK stack guard page was hit")' % k, r.get('said'))
# A kernel that panicked noticed something: no row may say "never" then.
wrong = ['%s %s: %s / %s' % (r['stage'], r['test'], r['noticed'], r['survived'])
         for r in table if 'panic' in r.get('survived', '')
         and r.get('noticed', '').startswith('never')]
expect(not wrong, 'every row whose kernel panicked says when it noticed (%d such '
       'rows)' % sum('panic' in r.get('survived', '') for r in table),
       '; '.join(wrong))
