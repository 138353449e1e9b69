# The exercises (make exercise N=k, then make grade N=k EXERCISE=1), as a
# learner meets them, for every lab whose facts have one:
#  - the untouched skeleton builds, boots and fails the lab's grader, which
#    says what it expected and what it got;
#  - (lab 2) a kernel that does not compile gets one line naming the
#    compiler's error;
#  - the project's own patches for that stage (the reference solution)
#    apply to the skeleton without fuzz, and the grader passes them;
#  - (labs 3 and 4) wrong solutions, each the reference with one
#    plausible mistake, fail the check that names it;
#  - `make exercise` on an existing tree leaves the learner's work alone.
# So the grader can fail, and the skeleton and the series cannot drift
# apart. The trees live in build/exercise-check (not the learner's
# build/exercises) and are reset to the skeleton with git each run, so
# that only what changed is rebuilt. The grader's output on the skeleton
# and on the solution goes to build/results/exerciseN-*.txt, for the
# workbook.
import os
import subprocess

from tests import checklib
from tests.checklib import TOP, expect, exercises_in, facts, fit
from vm.session import exercise

exercises_in('exercise-check')



def ks(*args, exercise_on=True):
    """vm/session/ks ARGS (EXERCISE=1: on the learner's kernel); (rc, output)."""
    return checklib.ks(*args, exercise=exercise_on)[:2]


def keep(n, name, out):
    """The grader's lines of OUT, for the workbook's exercise chapter."""
    results = os.path.join(os.environ.get('BUILD') or os.path.join(TOP, 'build'), 'results')
    os.makedirs(results, exist_ok=True)
    lines = [l for l in out.splitlines()
             if l.startswith(('ok - ', 'not ok - ', 'skip - ', '    ', 'lab '))]
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


# Wrong solutions of a kernel exercise, each the reference with one
# plausible mistake: (label, the mistake, file, the reference's text, its
# replacement, a title substring of the check that must fail).
LINE = 'return sp < (sizeof(struct thread_info) + STACK_WARN);'
IRQ = 'arch/x86/kernel/irq_32.c'
OPTION = ('config 4KSTACKS\n\tbool "Use 4Kb for kernel stacks instead of 8Kb"\n'
          '\tdepends on X86_32 && DEBUG_KERNEL\n\n')
WRONG = {
    3: [('option-kept', 'makes THREAD_SIZE one page but keeps the option',
         'arch/x86/Kconfig.debug', 'config CPA_DEBUG\n',
         OPTION + 'config CPA_DEBUG\n', 'one stack size, no choice'),
        ('still-8k', 'removes the option but keeps THREAD_SIZE_ORDER 1',
         'arch/x86/include/asm/page_32_types.h', '#define THREAD_SIZE_ORDER\t0\n',
         '#define THREAD_SIZE_ORDER\t1\n', 'stacks are one page')],
    4: [('wrong-sign', 'compares the other way (reports with room to spare)',
         IRQ, LINE, LINE.replace('sp <', 'sp >'), 'quiet with room to spare'),
        ('line-too-high', 'draws the line at a quarter of the stack',
         IRQ, LINE, 'return sp < THREAD_SIZE / 4;', 'quiet just above the line'),
        ('bytes-used', 'compares the bytes used, not the bytes left',
         IRQ, LINE, 'return THREAD_SIZE - sp < (sizeof(struct thread_info) + '
         'STACK_WARN);', 'quiet with room to spare')],
}

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

    for label, mistake, name, was, now, fails in WRONG.get(n, []):
        path = os.path.join(src, name)
        with open(path) as f:
            text = f.read()
        if not expect(was in text, 'lab %d: the wrong solution "%s" is made '
                      'from the reference by its edit' % (n, label), name):
            continue
        with open(path, 'w') as f:
            f.write(text.replace(was, now))
        rc, out = ks('grade', n)
        with open(path, 'w') as f:
            f.write(text)
        failure = first_failure(out) or ''
        expect(rc != 0 and fails in failure and 'expected:' in failure,
               'lab %d: a wrong solution (%s: %s) fails "%s": %s'
               % (n, label, mistake, fails, failure), out.strip()[-300:])
