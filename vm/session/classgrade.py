"""vm/session/classgrade.py: a class graded at once (make grade-class).

    python3 -m vm.session.classgrade SUBMISSIONS OUT [LAB...]
    python3 -m vm.session.classgrade --one I SUBMISSIONS OUT [LAB...]
    python3 -m vm.session.classgrade --single SUBMISSION RESULTS [LAB...]

SUBMISSIONS holds one folder per learner (vm/session/submission.py's
layout). Each learner is graded as make grade grades one, against their
own variant (LEARNER: the id the folder names), lab by lab: their
answers file, their task's file with the task's grader, and their
kernel patch, applied to the lab's skeleton in the class's exercise
tree, built and graded with the lab's grader. Each grade runs in a
bubblewrap sandbox: the machine read-only, the network gone (loopback
only, for gdb's link to QEMU), no other learner's folder in sight (the
submissions folder is empty there but for this learner's, read only),
the learner's own scratch folder the only place to write (the run
folders and the task's work folder of the build cache are bound to it;
a kernel's build also writes its exercise tree's objects and the
compile cache), and a time limit. A stranger's gdb command runs as
code: it can spoil its own grade, and nothing else.

The learners are graded CLASS_JOBS at a time (default: the machine's cores),
each by a process of its own (--one I: the I-th folder, in name order),
or, with SCHEDULER=slurm, by the tasks of one Slurm array job (the
cluster's nodes see this checkout and its build cache at the same
path). Either way each learner's result is OUT/ID/row.json, gathered
into the same gradebook. --single grades one submission into a
Gradescope results.json (make autograder's run_autograder).

OUT gets, per learner, OUT/ID/results.json (Gradescope's format: tests
with name, score, max_score, output, visibility), OUT/ID/grade.txt (what
make grade printed) and OUT/ID/ktap/ (each grade's KTAP report); for the
class, OUT/gradebook.csv (a row a learner, a column a lab's task and
its questions) and OUT/summary.html.

Points (labs/N/lab.toml's [points], default task = 5, question = 1): a
task or kernel exercise passed earns its points whole; each question
answered right, one question's.
"""
import csv
import fcntl
import html
import json
import os
import re
import shlex
import shutil
import subprocess
import sys
import time

from vm.session import exercise, facts
from vm.session.answers import why
from vm.session.kernels import build
from vm.session.session import BUILD, TOP, GuestError, initramfs, initrd, say
from vm.session.submission import Submission

# Seconds one lab's grade may take in the sandbox; a task that loops
# forever is ended there.
LIMIT = int(os.environ.get('KS_CLASS_LIMIT') or 600)
# Address space of each process in the sandbox: QEMU, gdb, the grader.
MEMORY = int(os.environ.get('KS_CLASS_MEMORY') or 8 << 30)
# Where the class's kernel exercises are built, one tree a lab, each
# learner's patch applied to its skeleton in turn: only what a patch
# changes is rebuilt.
CLASS_EXERCISES = os.environ.get('CLASS_EXERCISES') or os.path.join(BUILD, 'class-exercises')


def points(n):
    return dict({'task': 5, 'question': 1}, **facts.lab(n).get('points', {}))


def questions(n):
    """Lab N's scored questions: observations and "why"s (predictions are
    never scored)."""
    return [k for k in facts.lab(n)['questions'] if not k.startswith('predict_')]


def sandboxed(argv, env, scratch, sub, root, name, writable=()):
    """ARGV run in the sandbox (module docstring); (exit status, output).
    NAME: its run folder's, scratch/runs/NAME (in its own pid namespace
    every grade is pid 2, which names the build cache's run folders).
    WRITABLE: more paths it may write (a kernel's build)."""
    runs = os.path.join(scratch, 'runs', name)
    shutil.rmtree(runs, ignore_errors=True)
    for d in ('task', 'ktap', 'home'):
        os.makedirs(os.path.join(scratch, d), exist_ok=True)
    os.makedirs(runs)
    box = ['bwrap', '--ro-bind', '/', '/', '--dev', '/dev', '--proc', '/proc',
           '--tmpfs', '/tmp'] + [a for p in (TOP, BUILD) if p.startswith('/tmp/')
                                 for a in ('--ro-bind', p, p)] + [
           '--unshare-net', '--unshare-pid', '--unshare-ipc',
           '--die-with-parent', '--new-session',
           '--tmpfs', root, '--ro-bind', sub, sub,
           '--bind', scratch, scratch] + [a for w in writable for a in ('--bind', w, w)] + [
           '--bind', runs, os.path.join(BUILD, 'run'),
           '--bind', os.path.join(scratch, 'task'), os.path.join(BUILD, 'task'),
           '--chdir', TOP]
    env = dict({k: v for k, v in os.environ.items() if k in (
        'PATH', 'LANG', 'TOP', 'BUILD', 'ACCEL', 'CPUS', 'MEM', 'CCACHE_DIR')},
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
            passed, said, cell = kernel_exercise(sub, n, env, scratch, root)
            if said.startswith('$'):
                text.append(said)
            tests.append({'name': 'lab %d: kernel exercise' % n,
                          'score': pts['task'] if passed else 0, 'max_score': pts['task'],
                          'output': said[-20000:], 'visibility': 'visible'})
            cells['lab%d task' % n] = cell
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


def kernel_exercise(sub, n, env, scratch, root):
    """SUB's kernel patch for lab N, applied to the skeleton in the
    class's tree, built and graded in the sandbox: (passed, output, the
    gradebook's cell). One learner's kernel at a time per lab (a lock on
    its tree): the next learner's patch goes on the same skeleton."""
    try:
        patch = sub.kernel_patch(n)
    except GuestError as e:
        return False, 'not ok - %s' % e, 'not ok - %s' % e
    if not patch:
        return False, 'no kernels/%d.patch' % n, 'none'
    os.environ['EXERCISES'] = CLASS_EXERCISES
    src = exercise.tree(n)
    folder = os.path.dirname(src)
    with open(os.path.join(folder, 'class.lock'), 'w') as lock:
        fcntl.flock(lock, fcntl.LOCK_EX)
        try:
            skeleton(src)
            try:
                exercise._run(['git', '-C', src, 'apply', '--whitespace=nowarn', patch])
            except GuestError as e:
                said = 'not ok - kernels/%d.patch does not apply to lab %d\'s skeleton: %s' % (
                    n, n, str(e).splitlines()[-1])
                return False, said, 'not ok - does not apply'
            ccache = os.environ.get('CCACHE_DIR') or os.path.join(BUILD, 'ccache')
            os.makedirs(ccache, exist_ok=True)
            # What a kernel's build writes outside its tree's objects: the
            # build lock and its line (shared with every other build), the
            # compile cache.
            shared = [os.path.join(BUILD, f) for f in ('.build.lock', '.build.what',
                                                        'kernel-build.seconds')]
            for f in shared:
                open(f, 'a').close()
            rc, said = sandboxed(['python3', '-m', 'vm.session.ks', 'grade', str(n)],
                                 dict(env, EXERCISE='1', EXERCISES=CLASS_EXERCISES,
                                      CCACHE_DIR=ccache),
                                 scratch, sub.folder, root, 'lab%d-kernel' % n,
                                 writable=[folder, ccache] + shared)
        finally:
            skeleton(src)
    checks, _ = verdicts(said)
    passed = rc == 0 and bool(checks) and all(c.startswith('ok - ') for c in checks)
    return passed, '$ make grade N=%d EXERCISE=1 LEARNER=%s (kernels/%d.patch)\n%s' % (
        n, sub.id, n, said), 'passed' if passed else 'not passed'


def skeleton(src):
    """The class's exercise tree back at its skeleton, untracked files
    gone."""
    exercise.git(src, 'checkout', '-q', '-f', 'skeleton')
    exercise.git(src, 'clean', '-q', '-fd')


def results_json(tests, path):
    """Gradescope's results.json: the tests, and their sum as the score."""
    with open(path + '.tmp', 'w') as f:
        json.dump({'score': sum(t['score'] for t in tests), 'tests': tests,
                   'visibility': 'visible', 'stdout_visibility': 'hidden'}, f, indent=1)
    os.replace(path + '.tmp', path)


def prepare(labs, folders):
    """What the sandbox cannot make, made first: each lab's kernel and
    initramfs, lab 6's dump of each learner's variant, and the class's tree of each
    kernel exercise some learner hands in."""
    subs = []
    for folder in folders:
        try:
            subs.append(Submission(folder))
        except GuestError:
            pass
    for n in labs:
        stage = facts.lab(n)['stage']
        build(stage)
        # Its initramfs joined to its modules, which a guest would make at
        # its start, where the build cache is read-only.
        initrd(stage, initramfs(stage))
    for n in [n for n in labs if facts.lab(n)['kind'] == 'crash']:
        from vm.session import crash
        appends = set()
        for sub in subs:
            os.environ['LEARNER'] = sub.id
            appends.add(facts.lab(n)['append'])
        os.environ.pop('LEARNER', None)
        for append in sorted(appends):
            crash.dump(facts.lab(n)['stage'], append)
    for n in [n for n in labs if 'base' in facts.lab(n).get('exercise', {})]:
        if not any(os.path.lexists(os.path.join(s.folder, 'kernels', '%d.patch' % n))
                   for s in subs):
            continue
        os.environ['EXERCISES'] = CLASS_EXERCISES
        if exercise.started(n) and exercise.stale(n):
            shutil.rmtree(os.path.dirname(exercise.tree(n)))
        if not exercise.started(n):
            exercise.make(n)


def row_file(out, folder):
    return os.path.join(out, 'rows', os.path.basename(folder) + '.json')


def grade_one(folder, root, out, labs):
    """The learner in FOLDER graded into OUT/ID/ and their gradebook row
    into OUT/rows/: what each process of the class (a local job, a
    Slurm array task) does."""
    try:
        sub = Submission(folder)
    except GuestError as e:
        row = {'learner': os.path.basename(folder), 'problem': str(e)}
    else:
        mine = os.path.join(out, sub.id)
        os.makedirs(mine, exist_ok=True)
        try:
            tests, cells = grade_learner(sub, labs, root, mine)
        except (GuestError, facts.Unknown, OSError) as e:
            # The class's machinery, not the learner's work: said in the
            # row, the others go on.
            row = {'learner': sub.id, 'problem': 'not graded: %s' % e}
        else:
            results_json(tests, os.path.join(mine, 'results.json'))
            row = dict(cells, learner=sub.id, score='%d/%d' % (
                sum(t['score'] for t in tests), sum(t['max_score'] for t in tests)))
    path = row_file(out, folder)
    os.makedirs(os.path.dirname(path), exist_ok=True)
    with open(path + '.tmp', 'w') as f:
        json.dump(row, f)
    os.replace(path + '.tmp', path)


def progress(folder, out, done, total, start):
    try:
        with open(row_file(out, folder)) as f:
            row = json.load(f)
    except (OSError, ValueError):
        row = {'learner': os.path.basename(folder), 'problem': 'its grading ended without '
               'a result: see its log in %s/logs or %s/slurm' % (out, out)}
    spent = time.time() - start
    say('class: %d of %d: %s, %s (%s) in %.0f s; about %.0f s to go' % (
        done, total, row['learner'], row.get('score', 'not graded'), row.get('problem') or ', '.join(
            '%s %s' % kv for kv in sorted(row.items()) if kv[0] not in ('learner', 'score')),
        spent, spent / done * (total - done)))
    return row


def one_argv(i, root, out, labs):
    return ['python3', '-m', 'vm.session.classgrade', '--one', str(i), root, out] + [
        str(n) for n in labs]


def run_local(folders, root, out, labs):
    """Each learner by a process of their own, CLASS_JOBS at a time."""
    jobs = int(os.environ.get('CLASS_JOBS') or os.cpu_count() or 1)
    say('class: %d learners, %d at a time' % (len(folders), jobs))
    os.makedirs(os.path.join(out, 'logs'), exist_ok=True)
    pending, running, rows, start = list(enumerate(folders)), {}, [], time.time()
    while pending or running:
        while pending and len(running) < jobs:
            i, folder = pending.pop(0)
            with open(os.path.join(out, 'logs', os.path.basename(folder) + '.log'), 'w') as log:
                running[subprocess.Popen(one_argv(i, root, out, labs), cwd=TOP, stdout=log,
                                         stderr=subprocess.STDOUT)] = folder
        time.sleep(0.2)
        for p in [p for p in running if p.poll() is not None]:
            rows.append(progress(running.pop(p), out, len(rows) + 1, len(folders), start))
    return rows


def run_slurm(folders, root, out, labs):
    """One Slurm array job, a task a learner; its nodes see this checkout
    and its build cache at the same paths. SBATCH_* variables (a
    partition, an account) reach sbatch as they always do."""
    folder = os.path.join(out, 'slurm')
    os.makedirs(folder, exist_ok=True)
    script = os.path.join(folder, 'grade.sh')
    with open(script, 'w') as f:
        f.write('#!/bin/sh\n#SBATCH --job-name=kstack-class\n#SBATCH --output=%s/%%a.log\n'
                'exec %s\n' % (folder, ' '.join('"$SLURM_ARRAY_TASK_ID"' if a == 'INDEX' else
                                                 shlex.quote(a) for a in
                                                 one_argv('INDEX', root, out, labs))))
    try:
        p = subprocess.run(['sbatch', '--parsable', '--chdir=' + TOP,
                            '--array=0-%d' % (len(folders) - 1), script],
                           capture_output=True, text=True)
    except OSError:
        raise GuestError('SCHEDULER=slurm: no sbatch on this machine (Debian\'s slurm-client)')
    if p.returncode:
        raise GuestError('sbatch refused the class\'s job: %s' % p.stderr.strip())
    job = p.stdout.strip().split(';')[0]
    say('class: Slurm job %s, %d tasks (one a learner); their logs in %s' % (
        job, len(folders), folder))
    seen, rows, start = set(), [], time.time()
    while True:
        q = subprocess.run(['squeue', '-h', '-j', job, '-o', '%i'], capture_output=True,
                           text=True)
        over = q.returncode != 0 or not q.stdout.strip()
        for i, f in enumerate(folders):
            if f not in seen and (over or os.path.exists(row_file(out, f))):
                seen.add(f)
                rows.append(progress(f, out, len(rows) + 1, len(folders), start))
        if over:
            return rows
        time.sleep(1)


def gradebook(rows, labs, out):
    columns = ['learner', 'score'] + ['lab%d %s' % (n, part) for n in labs
                                      for part in ('task', 'questions')
                                      if part == 'questions' or 'exercise' in facts.lab(n)]
    columns.append('problem')
    rows = sorted(rows, key=lambda r: r['learner'])
    with open(os.path.join(out, 'gradebook.csv'), 'w', newline='') as f:
        w = csv.DictWriter(f, columns, restval='', extrasaction='ignore')
        w.writeheader()
        for row in rows:
            w.writerow(row)
    with open(os.path.join(out, 'summary.html'), 'w') as f:
        f.write('<!DOCTYPE html><meta charset="utf-8"><title>kstack-workbook: the class'
                '</title><table border="1" cellpadding="4"><tr>%s</tr>\n' % ''.join(
                    '<th>%s</th>' % html.escape(c) for c in columns))
        for row in rows:
            f.write('<tr>%s</tr>\n' % ''.join('<td>%s</td>' % html.escape(str(row.get(c, '')))
                                            for c in columns))
        f.write('</table>\n')


def single(folder, results, labs):
    """Gradescope's run_autograder: the submission in FOLDER (its own
    root: no other learner's beside it) graded into RESULTS; a
    submission that cannot be graded gets one failed test saying why."""
    try:
        sub = Submission(folder)
        prepare(labs, [sub.folder])
        tests, _ = grade_learner(sub, labs, sub.folder, os.path.join(BUILD, 'autograder', 'run',
                                                                     sub.id))
    except (GuestError, facts.Unknown) as e:
        tests = [{'name': 'the submission', 'score': 0, 'max_score': 0,
                  'output': 'not ok - %s' % e, 'visibility': 'visible'}]
    os.makedirs(os.path.dirname(os.path.abspath(results)), exist_ok=True)
    results_json(tests, results)
    say('graded %s: %d of %d points, in %s' % (folder, sum(t['score'] for t in tests),
                                               sum(t['max_score'] for t in tests), results))
    return 0


def main(argv):
    mode = argv.pop(0) if argv[:1] in (['--one'], ['--single']) else None
    index = int(argv.pop(0)) if mode == '--one' and argv else None
    if len(argv) < 2:
        sys.exit(__doc__.strip())
    root, out = os.path.abspath(argv[0]), os.path.abspath(argv[1])
    labs = [int(a) for a in argv[2:]] or facts.labs()
    for n in labs:
        facts.lab(n)
    if mode == '--single':
        return single(root, out, labs)
    if not os.path.isdir(root):
        raise GuestError("SUBMISSIONS=%s is not a folder (one folder per learner: make "
                         "submission makes one)" % root)
    folders = sorted(os.path.join(root, d) for d in os.listdir(root)
                     if os.path.isdir(os.path.join(root, d)))
    if not folders:
        raise GuestError('SUBMISSIONS=%s holds no learner\'s folder' % root)
    if mode == '--one':
        grade_one(folders[index], root, out, labs)
        return 0
    scheduler = os.environ.get('SCHEDULER') or 'local'
    if scheduler not in ('local', 'slurm'):
        raise GuestError('SCHEDULER=%s: the schedulers are local (this machine, CLASS_JOBS at a '
                         'time) and slurm (one array job)' % scheduler)
    prepare(labs, folders)
    shutil.rmtree(os.path.join(out, 'rows'), ignore_errors=True)
    os.makedirs(out, exist_ok=True)
    start = time.time()
    rows = (run_slurm if scheduler == 'slurm' else run_local)(folders, root, out, labs)
    gradebook(rows, labs, out)
    say('class: %d learners graded in %.0f s; gradebook %s, summary %s, each learner\'s '
        'results.json in %s/ID/' % (len(rows), time.time() - start,
                                    os.path.join(out, 'gradebook.csv'),
                                    os.path.join(out, 'summary.html'), out))
    return 0


if __name__ == '__main__':
    try:
        sys.exit(main(sys.argv[1:]))
    except (GuestError, facts.Unknown) as e:
        sys.exit('grade-class: %s' % e)
