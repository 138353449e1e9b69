"""vm/session/classgrade.py: a class graded at once (make grade-class).

    python3 -m vm.session.classgrade SUBMISSIONS OUT [LAB...]

SUBMISSIONS holds one folder per learner (vm/session/submission.py's
layout). Each learner is graded as make grade grades one, against their
own variant (LEARNER: the id the folder names), lab by lab: their
answers file, then their task's file with the task's grader. Each grade
runs in a bubblewrap sandbox: the machine read-only, the network gone
(loopback only, for gdb's link to QEMU), no other learner's folder in
sight (the submissions folder is empty there but for this learner's, read
only), the learner's own scratch folder the only place to write (the
run folders and the task's work folder of the build cache are bound to
it), and a time limit. A stranger's gdb command runs as code: it can
spoil its own grade, and nothing else.

OUT gets, per learner, OUT/ID/results.json (Gradescope's format: tests
with name, score, max_score, output, visibility), OUT/ID/grade.txt (what
make grade printed) and OUT/ID/ktap/ (each grade's KTAP report); for the
class, OUT/gradebook.csv (a row a learner, a column a lab's task and
its questions) and OUT/summary.html.

Points (labs/N/lab.toml's [points], default task = 5, question = 1): a
task passed earns its points whole; each question answered right, one
question's. A kernel exercise (labs 2, 3, 4) is not graded here yet: its
column says so.
"""
import csv
import html
import json
import os
import re
import shutil
import subprocess
import sys
import time

from vm.session import facts
from vm.session.answers import why
from vm.session.kernels import build
from vm.session.session import BUILD, TOP, GuestError, say
from vm.session.submission import Submission

# Seconds one lab's grade may take in the sandbox; a task that loops
# forever is ended there.
LIMIT = int(os.environ.get('KS_CLASS_LIMIT') or 600)
# Address space of each process in the sandbox: QEMU, gdb, the grader.
MEMORY = int(os.environ.get('KS_CLASS_MEMORY') or 8 << 30)


def points(n):
    return dict({'task': 5, 'question': 1}, **facts.lab(n).get('points', {}))


def questions(n):
    """Lab N's scored questions: observations and "why"s (predictions are
    never scored)."""
    return [k for k in facts.lab(n)['questions'] if not k.startswith('predict_')]


def sandboxed(argv, env, scratch, sub, root, name):
    """ARGV run in the sandbox (module docstring); (exit status, output).
    NAME: its run folder's, scratch/runs/NAME (in its own pid namespace
    every grade is pid 2, which names the build cache's run folders)."""
    runs = os.path.join(scratch, 'runs', name)
    shutil.rmtree(runs, ignore_errors=True)
    for d in ('task', 'ktap', 'home'):
        os.makedirs(os.path.join(scratch, d), exist_ok=True)
    os.makedirs(runs)
    box = ['bwrap', '--ro-bind', '/', '/', '--dev', '/dev', '--proc', '/proc',
           '--tmpfs', '/tmp', '--unshare-net', '--unshare-pid', '--unshare-ipc',
           '--die-with-parent', '--new-session',
           '--tmpfs', root, '--ro-bind', sub, sub,
           '--bind', scratch, scratch,
           '--bind', runs, os.path.join(BUILD, 'run'),
           '--bind', os.path.join(scratch, 'task'), os.path.join(BUILD, 'task'),
           '--chdir', TOP]
    env = dict({k: v for k, v in os.environ.items() if k in (
        'PATH', 'LANG', 'TOP', 'BUILD', 'ACCEL', 'CPUS', 'MEM')},
        HOME=os.path.join(scratch, 'home'), TMPDIR='/tmp',
        KS_KTAP_DIR=os.path.join(scratch, 'ktap'), **env)
    limits = ['prlimit', '--as=%d' % MEMORY, '--']
    try:
        p = subprocess.run(['timeout', '-k', '10', str(LIMIT)] + box + limits + argv,
                           env=env, stdout=subprocess.PIPE, stderr=subprocess.STDOUT,
                           text=True, errors='replace')
    except OSError as e:
        raise GuestError('cannot start the sandbox (%s): run make deps (package bubblewrap)' % e)
    out = p.stdout
    if p.returncode in (124, 137):
        out += '\nnot ok - the grade did not end within %d s: ended (a task that never ' \
               'returns, or a hung guest)\n' % LIMIT
    return p.returncode, out


def verdicts(out):
    """make grade's own checks and its answers, from its output."""
    checks = [l for l in out.splitlines() if re.match(r'(ok|not ok|skip) - ', l)
              and not re.match(r'(ok|not ok|skip) - answer ', l)]
    right = {m.group(1) for m in re.finditer(r'^ok - answer (\w+)', out, re.M)}
    return checks, right


def grade_learner(sub, labs, root, out):
    """SUB graded, lab by lab: (Gradescope tests, gradebook cells)."""
    scratch = os.path.join(out, 'scratch')
    shutil.rmtree(scratch, ignore_errors=True)
    tests, cells, text = [], {}, []
    env = {'LEARNER': sub.id}
    for n in labs:
        lab, pts = facts.lab(n), points(n)
        asked = questions(n)
        # The answers file, against a fresh guest of the learner's variant.
        try:
            answers = sub.answers(n)
        except GuestError as e:
            answers, problem = None, str(e)
        else:
            problem = None
        if answers:
            rc, said = sandboxed(['python3', '-m', 'vm.session.ks', 'grade', str(n), answers],
                                 env, scratch, sub.folder, root, 'lab%d-answers' % n)
            _, right = verdicts(said)
            got = len([k for k in asked if k in right])
            text.append('$ make grade N=%d LEARNER=%s ANSWERS=answers/lab%d.txt\n%s'
                        % (n, sub.id, n, said))
        else:
            got, said = 0, problem or 'no answers/lab%d.txt' % n
        tests.append({'name': 'lab %d: questions (%d asked)' % (n, len(asked)),
                      'score': got * pts['question'], 'max_score': len(asked) * pts['question'],
                      'output': said[-20000:], 'visibility': 'visible'})
        cells['lab%d questions' % n] = '%d/%d' % (got, len(asked))
        if 'exercise' not in lab:
            continue
        if 'base' in lab['exercise']:
            # A kernel exercise: built and graded per learner, in minutes.
            try:
                have = sub.kernel_patch(n)
                note = ('not graded by grade-class yet: make grade N=%d EXERCISE=1 in a '
                        'checkout grades it' % n) if have else 'no kernels/%d.patch' % n
            except GuestError as e:
                note = 'not ok - %s' % e
            cells['lab%d task' % n] = note.split(':')[0]
            tests.append({'name': 'lab %d: kernel exercise' % n, 'score': 0,
                          'max_score': 0, 'output': note, 'visibility': 'visible'})
            continue
        try:
            mine = sub.task(n)
        except GuestError as e:
            mine, said = None, 'not ok - %s' % e
        else:
            said = 'no tasks/%d/%s' % (n, os.path.basename(lab['exercise']['skeleton']))
        passed = False
        if mine:
            folder = os.path.join(scratch, 'exercises', str(n))
            os.makedirs(folder, exist_ok=True)
            shutil.copyfile(mine, os.path.join(folder, os.path.basename(mine)))
            rc, said = sandboxed(['python3', '-m', 'vm.session.ks', 'grade', str(n)],
                                 dict(env, EXERCISE='1',
                                      EXERCISES=os.path.join(scratch, 'exercises')),
                                 scratch, sub.folder, root, 'lab%d-task' % n)
            checks, _ = verdicts(said)
            passed = rc == 0 and checks and all(c.startswith('ok - ') for c in checks)
            text.append('$ make grade N=%d EXERCISE=1 LEARNER=%s\n%s' % (n, sub.id, said))
        tests.append({'name': 'lab %d: task (%s)' % (n, os.path.basename(
            lab['exercise']['skeleton'])), 'score': pts['task'] if passed else 0,
            'max_score': pts['task'], 'output': said[-20000:], 'visibility': 'visible'})
        cells['lab%d task' % n] = 'passed' if passed else 'not passed' if mine else 'none'
    os.makedirs(os.path.join(out, 'ktap'), exist_ok=True)
    for f in os.listdir(os.path.join(scratch, 'ktap')) if os.path.isdir(
            os.path.join(scratch, 'ktap')) else []:
        shutil.copyfile(os.path.join(scratch, 'ktap', f), os.path.join(out, 'ktap', f))
    with open(os.path.join(out, 'grade.txt'), 'w') as f:
        f.write('\n'.join(text))
    return tests, cells


def results_json(tests, path):
    """Gradescope's results.json: the tests, and their sum as the score."""
    with open(path + '.tmp', 'w') as f:
        json.dump({'score': sum(t['score'] for t in tests), 'tests': tests,
                   'visibility': 'visible', 'stdout_visibility': 'hidden'}, f, indent=1)
    os.replace(path + '.tmp', path)


def prepare(labs, ids):
    """What the sandbox cannot make, made first: each lab's kernel, and
    lab 6's dump of each learner's variant."""
    for n in labs:
        build(facts.lab(n)['stage'])
    if any(facts.lab(n)['kind'] == 'crash' for n in labs):
        from vm.session import crash
        for n in [n for n in labs if facts.lab(n)['kind'] == 'crash']:
            appends = set()
            for who in ids:
                os.environ['LEARNER'] = who
                appends.add(facts.lab(n)['append'])
            os.environ.pop('LEARNER', None)
            for append in sorted(appends):
                crash.dump(facts.lab(n)['stage'], append)


def main(argv):
    if len(argv) < 2:
        sys.exit(__doc__.strip())
    root, out = os.path.abspath(argv[0]), os.path.abspath(argv[1])
    labs = [int(a) for a in argv[2:]] or facts.labs()
    for n in labs:
        facts.lab(n)
    if not os.path.isdir(root):
        raise GuestError("SUBMISSIONS=%s is not a folder (one folder per learner: make "
                         "submission makes one)" % root)
    folders = sorted(os.path.join(root, d) for d in os.listdir(root)
                     if os.path.isdir(os.path.join(root, d)))
    if not folders:
        raise GuestError('SUBMISSIONS=%s holds no learner\'s folder' % root)
    subs, rows = [], []
    for folder in folders:
        try:
            subs.append(Submission(folder))
        except GuestError as e:
            rows.append({'learner': os.path.basename(folder), 'problem': str(e)})
            say('class: %s: not graded: %s' % (os.path.basename(folder), e))
    prepare(labs, [s.id for s in subs])
    os.makedirs(out, exist_ok=True)
    start = time.time()
    for i, sub in enumerate(subs):
        mine = os.path.join(out, sub.id)
        os.makedirs(mine, exist_ok=True)
        tests, cells = grade_learner(sub, labs, root, mine)
        results_json(tests, os.path.join(mine, 'results.json'))
        score = sum(t['score'] for t in tests)
        most = sum(t['max_score'] for t in tests)
        rows.append(dict(cells, learner=sub.id, score='%d/%d' % (score, most)))
        spent = time.time() - start
        say('class: %d of %d: %s, %d of %d points (%s) in %.0f s; about %.0f s to go'
            % (i + 1, len(subs), sub.id, score, most, ', '.join(
                '%s %s' % kv for kv in sorted(cells.items())), spent,
               spent / (i + 1) * (len(subs) - i - 1)))
    columns = ['learner', 'score'] + ['lab%d %s' % (n, part) for n in labs
                                      for part in ('task', 'questions')
                                      if part == 'questions' or 'exercise' in facts.lab(n)]
    columns.append('problem')
    with open(os.path.join(out, 'gradebook.csv'), 'w', newline='') as f:
        w = csv.DictWriter(f, columns, restval='')
        w.writeheader()
        for row in sorted(rows, key=lambda r: r['learner']):
            w.writerow(row)
    with open(os.path.join(out, 'summary.html'), 'w') as f:
        f.write('<!DOCTYPE html><meta charset="utf-8"><title>kstack-workbook: the class'
                '</title><table border="1" cellpadding="4"><tr>%s</tr>\n' % ''.join(
                    '<th>%s</th>' % html.escape(c) for c in columns))
        for row in sorted(rows, key=lambda r: r['learner']):
            f.write('<tr>%s</tr>\n' % ''.join('<td>%s</td>' % html.escape(str(row.get(c, '')))
                                            for c in columns))
        f.write('</table>\n')
    say('class: %d learners graded in %.0f s; gradebook %s, summary %s, each learner\'s '
        'results.json in %s/ID/' % (len(subs), time.time() - start,
                                    os.path.join(out, 'gradebook.csv'),
                                    os.path.join(out, 'summary.html'), out))
    return 0


if __name__ == '__main__':
    try:
        sys.exit(main(sys.argv[1:]))
    except (GuestError, facts.Unknown) as e:
        sys.exit('grade-class: %s' % e)
