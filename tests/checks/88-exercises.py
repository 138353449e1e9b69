# The exercises (make exercise N=k, then make grade N=k EXERCISE=1), as a
# learner meets them, for every lab whose facts have one:
#  - the untouched skeleton builds, boots and fails the lab's grader, which
#    says what it expected and what it got;
#  - (lab 2) a kernel that does not compile gets one line naming the
#    compiler's error;
#  - the project's own patches for that stage (the reference solution)
#    apply to the skeleton without fuzz, and the grader passes them;
#  - wrong solutions, each the reference with one plausible mistake in
#    one file (the lab's own, [[exercise.wrong]] in lab.toml; labs 3 and
#    4 have them), fail the check that names it;
#  - `make exercise` on an existing tree leaves the learner's work alone.
# So the grader can fail, and the skeleton and the series cannot drift
# apart. The trees live in build/exercise-check (not the learner's
# build/exercises) and are reset to the skeleton with git each run, so
# that only what changed is rebuilt. The grader's output on the skeleton
# and on the solution goes to build/results/exerciseN-*.txt, for the
# workbook.
import atexit
import os
import subprocess

from tests import checklib, mutants
from tests.checklib import TOP, expect, exercises_in, facts, fit
from vm.session import exercise

exercises_in('exercise-check')
# ks remembers the EXERCISES given (build/learner-folders): this check's
# are not the learner's, whose make grade table must not find them.
atexit.register(mutants.learner_folders_kept())



def ks(*args, exercise_on=True):
    """vm/session/ks ARGS (EXERCISE=1: on the learner's kernel); (rc, output)."""
    return checklib.ks(*args, exercise=exercise_on)[:2]


def keep(n, name, out):
    """The grader's lines of OUT, for the workbook's exercise chapter."""
    results = os.path.join(os.environ.get('BUILD') or os.path.join(TOP, 'build'), 'results')
    os.makedirs(results, exist_ok=True)
    lines = [l for l in out.splitlines()
             if l.startswith(('ok - ', 'not ok - ', 'skip - ', '    ', 'lab '))]
    # From its first result: what comes before is a first guest's death,
    # which a lab whose workload may end its guest (lab 3) is graded again
    # after, now and then.
    first = next((i for i, l in enumerate(lines)
                  if l.startswith(('ok - ', 'not ok - ', 'skip - '))), 0)
    lines = lines[first:]
    fitted = fit(lines)
    with open(os.path.join(results, 'exercise%d-%s.txt' % (n, name)), 'w') as f:
        f.write('$ make grade N=%d EXERCISE=1\n' % n + '\n'.join(fitted) + '\n')


def first_failure(out):
    """The first failed check, with its expected and got lines."""
    lines = out.splitlines()
    for i, line in enumerate(lines):
        if line.startswith('not ok - '):
            return ' / '.join(l.strip() for l in lines[i:i + 4])
    return None


WITH = [k for k in facts.labs() if 'exercise' in facts.lab(k)]
# The kernel exercises (a base stage); the other labs' tasks are check 84's.
KERNELS = [k for k in WITH if 'base' in facts.lab(k)['exercise']]
# Bad input: an unknown lab; an exercise not made yet.
rc, out = ks('exercise', 99, exercise_on=False)
expect(rc != 0 and "unknown lab N='99'" in out,
       'make exercise N=99 is refused: no such lab', out.strip())
saved = os.environ['EXERCISES']
os.environ['EXERCISES'] = os.path.join(saved, 'none-here')
rc, out = ks('grade', 2)
os.environ['EXERCISES'] = saved
expect(rc != 0 and "run 'make exercise N=2'" in out and 'not ok' not in out,
       'make grade N=2 EXERCISE=1 with no tree says to make it first',
       out.strip()[-200:])

for n in KERNELS:
    ex = facts.lab(n)['exercise']
    if exercise.stale(n):
        # Made from an older skeleton or given patches: start again,
        # objects too (a fresh copy keeps the base's old mtimes, which
        # make would take as older than the objects of the last solution).
        subprocess.call(['rm', '-rf', os.path.dirname(exercise.tree(n))])
    rc, out = ks('exercise', n, exercise_on=False)
    src = exercise.tree(n)
    if not expect(rc == 0 and os.path.isdir(os.path.join(src, '.git')),
                  'lab %d: make exercise makes a git tree at stage %s plus the '
                  'skeleton' % (n, ex['base']), out.strip()[-300:]):
        continue
    exercise.git(src, 'checkout', '-q', '-f', 'skeleton')
    exercise.git(src, 'clean', '-fdq')

    # The learner's work survives a second `make exercise`.
    mine = os.path.join(src, 'my-notes.txt')
    with open(mine, 'w') as f:
        f.write('work in progress\n')
    rc, out = ks('exercise', n, exercise_on=False)
    expect(rc == 0 and os.path.exists(mine) and 'left as it is' in out,
           'lab %d: make exercise again leaves the tree alone and says so' % n,
           out.strip()[-200:])
    os.unlink(mine)

    rc, out = ks('grade', n)
    keep(n, 'skeleton', out)
    failure = first_failure(out)
    expect(rc != 0 and failure and 'expected:' in failure and 'got:' in failure,
           'lab %d: the skeleton builds, boots and fails the grader with expected '
           'and got: %s' % (n, failure), out.strip()[-300:])

    if n == 2:
        irq = os.path.join(src, 'arch/x86/kernel/irq_32.c')
        with open(irq, 'a') as f:
            f.write('\nthis is not C;\n')
        rc, out = ks('grade', n)
        said = [l for l in out.splitlines() if 'error:' in l and 'irq_32.c' in l]
        expect(rc != 0 and said and 'not ok' not in out,
               'lab %d: a kernel that does not compile is named in one line: %s'
               % (n, said[0].strip() if said else None), out.strip()[-300:])
        exercise.git(src, 'checkout', '-q', '-f', 'skeleton')

    try:
        for patch in ex['solution']:
            exercise.apply(src, os.path.join(TOP, patch))
        applied = None
    except Exception as e:  # GuestError: the patch's own words
        applied = str(e)
    if not expect(applied is None, 'lab %d: the reference solution (%s) applies '
                  'to the skeleton without fuzz' % (n, ', '.join(
                      os.path.basename(p)[:4] for p in ex['solution'])), applied):
        continue
    rc, out = ks('grade', n)
    keep(n, 'solution', out)
    last = out.strip().splitlines()[-1] if out.strip() else ''
    expect(rc == 0 and ' 0 failed' in last, 'lab %d: the grader passes the '
           'reference solution: %s' % (n, last), first_failure(out) or last)

    for w in mutants.wrong(n):
        with mutants.edited(src, w) as applied:
            if expect(applied, 'lab %d: the wrong solution "%s" is made from the '
                      'reference by its edits' % (n, w['label']), w['file']):
                rc, out = ks('grade', n)
        if not applied:
            continue
        failure = first_failure(out) or ''
        expect(rc != 0 and w['fails'] in failure and 'expected:' in failure,
               'lab %d: a wrong solution (%s: %s) fails "%s": %s'
               % (n, w['label'], w['what'], w['fails'], failure), out.strip()[-300:])
