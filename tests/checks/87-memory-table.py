# Lab 5's experiment (labs/5/experiment.py), measured in this run: 4K
# stacks (stage 3) against 8K (stage 2) in the same guest.
#   KernelStack per thread is THREAD_SIZE at each stage;
#   4K stacks fit more threads in the same memory (between 1.4 and 2 times:
#   the task_struct and the rest of a thread do not shrink);
#   with memory fragmented into single pages, 4K stacks fit at least 5
#   times as many threads as 8K stacks, which need free pairs.
# The table is read by column name (vm/session/results.py); THREAD_SIZE is
# vm/stages.toml's.
import sys

from tests.checklib import expect, experiment, facts, not_ok

# Its stages, 8K then 4K (labs/5/lab.toml).
STAGES = facts.lab(5)['experiment_stages']
BIG, SMALL = STAGES[0], STAGES[-1]
table = experiment(5)
rows = {int(r['stage']): r for r in table}
if sorted(rows) != sorted(STAGES):
    not_ok('the table has a row for each of stages %s (got: stages %s)'
           % (STAGES, sorted(rows)))
    sys.exit(0)

for k in STAGES:
    per = float(rows[k]['kernel_stack_per_thread_kb'])
    want = facts.stage(k)['thread_size'] / 1024
    expect(want - 0.2 < per < want + 0.2,
           'stage %d: KernelStack grows by THREAD_SIZE, %g kB, per thread '
           '(seen: %.2f kB)' % (k, want, per))


# 4K stacks' threads over 8K stacks', in whole and in fragmented memory.
plain, frag = (int(rows[SMALL][c]) / int(rows[BIG][c])
               for c in ('threads', 'threads_fragmented'))


def shown(column, value):
    return '%s / %s threads = %.2f' % (rows[SMALL][column], rows[BIG][column], value)


seen = shown('threads', plain)
expect(1.4 <= plain <= 2, '4K stacks fit 1.4 to 2 times the threads of 8K '
       'stacks in the same memory (seen: %s)' % seen)
seen = shown('threads_fragmented', frag)
expect(frag >= 5, 'with fragmented memory, 4K stacks fit at least 5 times '
       'the threads of 8K stacks (seen: %s)' % seen)
