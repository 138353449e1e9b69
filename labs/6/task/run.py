"""python3 -m labs.6.task.run [FILE], from the top of the checkout: your
post-mortem script (FILE, by default your copy, build/exercises/6/
postmortem.py) on lab 6's dump, made first if it is missing or stale:
prints what its overflowed(crash) returns. make grade N=6 EXERCISE=1
judges it."""
import sys

from labs import tasklib
from vm.session import crash, exercise, facts

STAGE = facts.lab(6)['stage']
path = sys.argv[1] if len(sys.argv) > 1 else exercise.task_file(6)
solution = tasklib.Solution(path, '')
mine = tasklib.load(solution)
if mine is None:
    sys.exit('%s did not load: %s%s' % (path, solution.error, '' if exercise.started(6)
                                        else ' (make exercise N=6 makes your copy)'))
if 'overflowed' not in mine:
    sys.exit('%s defines no overflowed(crash)' % path)
crash.dump(STAGE)
print(mine['overflowed'](lambda commands: crash.run(STAGE, commands)))
