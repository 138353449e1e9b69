# The tasks of labs 0, 1, 5, 6 and 7 (make exercise N=k, make grade N=k
# EXERCISE=1, make hint N=k), as a learner meets them:
#  - make grade before make exercise says to run make exercise first;
#    make exercise copies the skeleton, and run again leaves the
#    learner's file alone; make hint gives one more hint each time
#    (the first call two: the README has the first);
#  - three sides of each task's grader, on one guest per lab (the
#    graders take several files at once, labs/tasklib.py): the untouched
#    skeleton fails, a failed check saying what it expected and what it
#    got; the reference solution (labs/k/task/solution.patch on the
#    skeleton) passes every
#    check; wrong solutions, each made from the reference by one
#    plausible mistake, fail, and fail the check that names the mistake
#    (and, where said, pass the others). The wrong solutions are the
#    labs' own ([[exercise.wrong]] in lab.toml), which make mutants
#    grades three times each (tests/mutants.py).
# The learner's files live in build/task-check (EXERCISES), not in the
# learner's build/exercises. The skeleton's lines of each grader's output
# go to build/results/taskN-skeleton.txt, for the workbook.
import atexit
import os
import re
import shutil

TESTS = os.path.dirname(os.path.dirname(os.path.abspath(__file__)))
from tests import checklib, mutants
from tests.checklib import BUILD, expect, facts, fit
from vm.session import exercise

WORK = os.path.join(BUILD, 'task-check')
RESULTS = os.path.join(BUILD, 'results')


def ks(*args, exercise_on=True, task=None):
    """vm/session/ks ARGS on this check's files (TASK: the files to grade,
    else the learner's file); (rc, output, seconds)."""
    return checklib.ks(*args, exercise=exercise_on, env={
        'EXERCISES': os.path.join(WORK, 'exercises'), 'KS_TASK': task or ''})


def first_failure(checks):
    for title, (status, detail) in checks.items():
        if status == 'not ok':
            return title, detail
    return None, []


def said(title, detail):
    """A failure in one line: its title, what, expected and got (first
    lines)."""
    text = [title or 'no check failed'] + [d for d in detail
                                           if not d.startswith('skipped')]
    return ' / '.join(t[:160] for t in text[:4])


def keep(n, out):
    """The lines a learner would see for the skeleton (the shared checks,
    then the skeleton's, its label taken off), for the workbook: every
    check's line, and what the first failure expected and got (the
    others' are alike)."""
    kept, details = [], 0
    lines = out.splitlines()
    take = False
    for line in lines:
        m = re.match(r'(ok|not ok|skip) - (\[([^]]+)\] )?', line)
        if m:
            take = m.group(3) in (None, 'skeleton')
            if take:
                line = line.replace('[skeleton] ', '', 1)
                if line.startswith('ok - '):
                    # What a passing check found (the thread count, the
                    # overflowed task) is the task's answer: not printed.
                    line = re.sub(r' \((?:[^()]|\([^()]*\))*\)$', '', line)
                details += line.startswith('not ok - ')
        elif not line.startswith('    '):
            take = False
        elif details > 1:
            continue
        if take:
            kept.append(line)
    if details > 1:
        kept.append('(what the other failures expected and got: left out here)')
    os.makedirs(RESULTS, exist_ok=True)
    with open(os.path.join(RESULTS, 'task%d-skeleton.txt' % n), 'w') as f:
        f.write('$ make grade N=%d EXERCISE=1\n' % n + '\n'.join(fit(kept)) + '\n')


shutil.rmtree(WORK, ignore_errors=True)
# ks remembers the EXERCISES given (build/learner-folders): this check's
# are not the learner's, whose make grade table must not find them.
atexit.register(mutants.learner_folders_kept())
TASKS = [k for k in facts.labs() if 'exercise' in facts.lab(k)
         and 'base' not in facts.lab(k)['exercise']]
expect(TASKS and all(mutants.wrong(n) for n in TASKS), 'every task (labs %s) has '
       'wrong solutions in its lab.toml' % ', '.join(map(str, TASKS)),
       [n for n in TASKS if not mutants.wrong(n)])

# The commands, without a guest.
for n in TASKS:
    ex = facts.lab(n)['exercise']
    name = os.path.basename(ex['skeleton'])
    mine = os.path.join(WORK, 'exercises', str(n), name)
    rc, out, took = ks('grade', n)
    # (The learner's EXERCISES, not the default: the line names it.)
    expect(rc != 0 and "run 'make exercise N=%d EXERCISES=%s' first" % (
        n, os.path.join(WORK, 'exercises')) in out and 'not ok' not in out and took < 20,
           'lab %d: make grade N=%d EXERCISE=1 before make exercise says to run '
           'it first, with the EXERCISES given (%.0f s)' % (n, n, took), out.strip()[-200:])
    rc, out, _ = ks('exercise', n, exercise_on=False)
    with open(os.path.join(facts.lab(n)['folder'], ex['skeleton'])) as f:
        skeleton = f.read()
    # The copy names where it is (EXERCISES moves it), not build/exercises.
    here = os.path.relpath(os.path.dirname(mine), checklib.TOP)
    here = (os.path.dirname(mine) if here.startswith('..') else here) + '/'
    want = skeleton.replace('build/exercises/%d/' % n, here)
    same = os.path.isfile(mine) and open(mine).read() == want
    expect(rc == 0 and same, 'lab %d: make exercise N=%d copies the skeleton to '
           'exercises/%d/%s, naming itself %s' % (n, n, n, name, here + name),
           out.strip()[-200:])
    with open(mine, 'a') as f:
        f.write('\n# my work\n' if not name.endswith('.c') else '\n/* my work */\n')
    rc, out, _ = ks('exercise', n, exercise_on=False)
    expect(rc == 0 and 'my work' in open(mine).read() and 'left as it is' in out,
           'lab %d: make exercise again leaves the file alone and says so' % n,
           out.strip()[-200:])
    firsts = []
    for _ in range(2):
        rc, out, _ = ks('hint', n, exercise_on=False)
        firsts.append(out)
    # The README gives the first: the first make hint adds the second.
    expect(firsts[0].startswith('1. ') and '\n2. ' in firsts[0] and
           '\n3. ' not in firsts[0] and '\n3. ' in firsts[1] and
           '(3 of %d hints' % len(ex['hints']) in firsts[1],
           'lab %d: make hint N=%d gives one more hint each time (%d in all)'
           % (n, n, len(ex['hints'])), (firsts[0][:100], firsts[1][-100:]))

# make grade with no N: one table of every lab, as a learner who has
# started lab 0's task (its untouched skeleton, which fails) and answered
# two "why" questions, one right (lab 0) and one wrong (lab 3), sees it.
# One guest in all: the other labs are not started, and a "why" is
# judged without one.
ALL = os.path.join(WORK, 'grade-all')
first = facts.lab(0)['exercise']['skeleton']
mine = os.path.join(ALL, 'exercises', '0', os.path.basename(first))
os.makedirs(os.path.dirname(mine))
shutil.copy(os.path.join(facts.lab(0)['folder'], first), mine)
os.makedirs(os.path.join(ALL, 'answers'))
right = {0: facts.lab(0)['questions']['why_round_down']['answer'],
         3: 'a' if facts.lab(3)['questions']['why_warn_relic']['answer'] != 'a' else 'b'}
for n, key in ((0, 'why_round_down'), (3, 'why_warn_relic')):
    with open(os.path.join(ALL, 'answers', 'lab%d.txt' % n), 'w') as f:
        f.write('%s = %s\n' % (key, right[n]))
rc, out, took = checklib.ks('grade-all', os.path.join(ALL, 'answers'), exercise=False,
                            env={'EXERCISES': os.path.join(ALL, 'exercises'), 'KS_TASK': ''})
rows = {int(l.split()[0]): l for l in out.splitlines() if re.match(r'\d+ ', l)}
asked = {n: len([k for k in facts.lab(n)['questions'] if not k.startswith('predict_')])
         for n in facts.labs()}
expect(rc == 0 and sorted(rows) == facts.labs(),
       'make grade with no N prints a row for every lab (%.0f s)' % took, out.strip()[-600:])
expect(re.search(r'exercise not passed \((\d+) of (\d+) checks\)  +1/%d right' % asked[0],
                 rows.get(0, '')) and 'not passed: lab 0, exercise: ' in out and
       "lab 0: grading your task's file (make grade N=0 EXERCISE=1 EXERCISES=%s)"
       % os.path.join(ALL, 'exercises') in out,
       "make grade with no N: lab 0's started task is graded, its failed checks "
       "named, its right \"why\" counted", (rows.get(0), out.strip()[-600:]))
expect('exercise not started (make exercise N=3 EXERCISES=%s)' % os.path.join(
    ALL, 'exercises') in rows.get(3, '') and ' 0/%d right' % asked[3] in rows.get(3, '') and
       'exercise not started (make exercise N=2 EXERCISES=' in rows.get(2, ''),
       'make grade with no N: labs 2 and 3 not started, lab 3\'s wrong "why" not counted',
       (rows.get(2), rows.get(3)))

# The three sides, one guest per lab.
for n in TASKS:
    lab = facts.lab(n)
    ex = lab['exercise']
    folder = lab['folder']
    reference = exercise.task_reference(n)
    files = {'skeleton': open(os.path.join(folder, ex['skeleton'])).read(),
             'reference': reference}
    for w in mutants.wrong(n):
        text = mutants.made(reference, w['edits'])
        if expect(text is not None, 'lab %d: the wrong solution "%s" is made from '
                  'the reference by its edits' % (n, w['label']),
                  'the reference no longer holds the text it edits'):
            files[w['label']] = text
    rc, out, took = ks('grade', n, task=mutants.write(n, files, os.path.join(WORK, str(n))))
    keep(n, out)
    graded = {label: mutants.checks_of(out, label) for label in files}

    title, detail = first_failure(graded['skeleton'])
    expect(title and any(d.startswith('expected:') for d in detail) and
           any(d.startswith('got:') for d in detail),
           'lab %d: the untouched skeleton fails, saying what it expected and '
           'got: %s' % (n, said(title, detail)), out.strip()[-400:])

    ref = graded['reference']
    bad = [t for t, (status, _) in ref.items() if status != 'ok']
    expect(ref and not bad, 'lab %d: the reference solution (labs/%d/%s) passes '
           'all %d checks, on one guest with the others (%.0f s)'
           % (n, n, ex['solution'], len(ref), took),
           '; '.join(said(t, ref[t][1]) for t in bad) or out.strip()[-400:])

    for w in mutants.wrong(n):
        if w['label'] not in graded:
            continue
        checks = graded[w['label']]
        failed = [t for t, (status, _) in checks.items()
                  if status == 'not ok' and w['fails'] in t]
        title = failed[0] if failed else None
        expect(mutants.verdict(checks, w) == 'fail', 'lab %d: a solution that %s '
               '("%s") fails: %s%s' % (
                   n, w['what'], w['label'], said(title, checks[title][1]) if title else '',
                   '; it passes "%s"' % '", "'.join(w['passes']) if w['passes'] else ''),
               'no failed check with "%s" in its title, or one it must pass '
               'failed; %s' % (w['fails'], '; '.join(
                   '%s: %s' % (t, s) for t, (s, _) in checks.items())))
