"""tests/classbench.py KIND COUNT: a class graded with make grade-class, for
make bench (tests/bench.sh); prints its seconds, then a line per learner.

    files N     N learners of lab 0's and lab 1's tasks and answers (the
                reference and a wrong solution, in turn): LABS="0 1"
    kernels N   N learners of lab 2's kernel exercise (the project's patch
                and one that never saves the esp, in turn): LABS=2, in
                check 88's exercise tree (warm: each learner rebuilds
                what their patch and the last one changed)
"""
import os
import subprocess
import sys
import tempfile
import time

from tests import classes
from tests.checklib import BUILD, TOP
from tests.mutants import task_files

kind, count = sys.argv[1], int(sys.argv[2])
with tempfile.TemporaryDirectory(dir=BUILD) as scratch:
    root, out = os.path.join(scratch, 'submissions'), os.path.join(scratch, 'out')
    if kind == 'files':
        lab0, lab1 = task_files(0), task_files(1)
        wrong0 = [k for k in lab0 if k != 'reference']
        wrong1 = [k for k in lab1 if k != 'reference']
        for i in range(count):
            right = i % 2 == 0
            classes.learner(root, 'learner%02d' % i,
                            lab0['reference' if right else wrong0[i % len(wrong0)]],
                            lab1['reference' if right else wrong1[i % len(wrong1)]],
                            {0: classes.why(0, right), 1: classes.why(1, right)})
        labs = '0 1'
    else:
        right, wrong = classes.kernel_patches()
        for i in range(count):
            classes.learner(root, 'learner%02d' % i, patch=right if i % 2 == 0 else wrong)
        labs = '2'
    t0 = time.time()
    p = subprocess.run(['make', '-s', '-C', TOP, 'grade-class', 'SUBMISSIONS=' + root,
                        'CLASS_OUT=' + out, 'LABS=' + labs], capture_output=True, text=True,
                       env=dict(os.environ, CLASS_EXERCISES=os.path.join(BUILD, 'exercise-check')))
    spent = time.time() - t0
    sys.stderr.write(p.stdout + p.stderr)
    if p.returncode:
        sys.exit('make grade-class failed')
    print('%.0f' % spent)
    print(open(os.path.join(out, 'gradebook.csv')).read())
