# A class graded at once (make grade-class, vm/session/classgrade.py), each
# learner in a bubblewrap sandbox. A class of ten made from the labs'
# own solutions: two honest learners (lab 0's and lab 1's reference tasks,
# lab 2's kernel exercise (the project's patch) and right "why"s; a wrong
# solution of each task from lab.toml, lab 2's patch without the saved esp
# at the hardirq stack's bottom, and wrong "why"s), and eight hostile
# ones: lab 0's reference with one thing added (reading another learner's
# answers, writing outside its folder, opening a network socket, a loop
# that never ends), an answers file of 100 MB, and kernel patches that
# climb out of the tree, change a Makefile, or make a header a link. The
# gradebook must say what each should get, point by point; each hostile
# act is contained (the other learners' rows are those of the honest run,
# the file it reached for is untouched or unseen) and its part graded not
# ok with why.
# Then the same class's file tasks again through a Slurm node of this
# machine (vm/host/slurm-node.sh): the same rows. Then Gradescope's
# run_autograder, from make autograder's bundle unpacked in a root laid
# out as Gradescope's, on the honest pair: results.json as documented.
import csv
import json
import os
import re
import shutil
import socket
import stat
import subprocess
import tempfile
import zipfile

from tests import classes
from tests.checklib import BUILD, TOP, expect, facts, log, skip
from tests.classes import why
from tests.mutants import task_files

LIMIT = 60          # seconds a grade may take here (the looping task's)
with tempfile.TemporaryDirectory(dir=BUILD) as scratch:
    root, out = os.path.join(scratch, 'submissions'), os.path.join(scratch, 'out')
    lab0, lab1 = task_files(0), task_files(1)
    wrong1 = next(k for k in lab1 if k != 'reference')
    wrong0 = next(k for k in lab0 if k != 'reference')

    def learner(who, task0=None, task1=None, answers=None, patch=None):
        return classes.learner(root, who, task0, task1, answers, patch)

    secret = os.path.join(root, 'ada', 'answers', 'lab0.txt')
    # A port this check listens on, on the machine's loopback: a task that
    # reaches it has the machine's network (the sandbox has a loopback of
    # its own, with nothing listening).
    listener = socket.socket()
    listener.bind(('127.0.0.1', 0))
    listener.listen(1)
    listener.setblocking(False)
    port = listener.getsockname()[1]
    outside = os.path.join(TOP, 'labs', '0', 'README.md')
    before = open(outside).read()
    # Lab 2's kernel: the project's patch (a format-patch, as the learner's
    # git would make), and the same without the line that saves the
    # interrupted esp at the bottom of the hardirq stack.
    right2, wrong2 = classes.kernel_patches()
    learner('ada', lab0['reference'], lab1['reference'], {0: why(0), 1: why(1)}, right2)
    learner('bob', lab0[wrong0], lab1[wrong1], {0: why(0, False), 1: why(1, False)}, wrong2)
    hostile = {
        'eve': "print('SEEN: ' + open(%r).read())\n" % secret,
        'mallory': "open(%r, 'a').write('# mallory was here\\n')\n" % outside,
        'net': "import socket\nsocket.create_connection(('127.0.0.1', %d), timeout=5)\n" % port,
        'loop': "while True:\n    pass\n",
    }
    for who, act in hostile.items():
        learner(who, act + lab0['reference'])
    learner('big', answers={0: 'why_round_down = c\n' + '#' * (100 << 20) + '\n'})
    learner('climber', patch='--- a/../../etc/passwd\n+++ b/../../etc/passwd\n@@ -1 +1 @@\n-x\n+y\n')
    # A kernel patch that would run on the grading machine (a Makefile's
    # commands), and one that links a header to a file of the machine's.
    learner('maker', patch='--- a/Makefile\n+++ b/Makefile\n@@ -1 +1 @@\n-x\n+y\n')
    learner('linker', patch='diff --git a/x.h b/x.h\nnew file mode 120000\n--- /dev/null\n'
                            '+++ b/x.h\n@@ -0,0 +1 @@\n+/etc/shadow\n')
    p = subprocess.run(['make', '-s', '-C', TOP, 'grade-class', 'SUBMISSIONS=' + root,
                        'CLASS_OUT=' + out, 'LABS=0 1 2'], capture_output=True, text=True,
                       env=dict(os.environ, KS_CLASS_LIMIT=str(LIMIT), CLASS_EXERCISES=os.path.join(
                           BUILD, 'exercise-check')))
    log(p.stdout + p.stderr)
    rows = {}
    if os.path.exists(os.path.join(out, 'gradebook.csv')):
        with open(os.path.join(out, 'gradebook.csv')) as f:
            rows = {r['learner']: r for r in csv.DictReader(f)}
    log(json.dumps(rows, indent=1))
    whys = {n: sum('answer' in q for q in facts.lab(n)['questions'].values()) for n in (0, 1)}
    asked = {n: len([k for k in facts.lab(n)['questions'] if not k.startswith('predict_')])
             for n in (0, 1, 2)}
    expect(p.returncode == 0 and len(rows) == 10, 'make grade-class grades a class of 10 and '
           'writes its gradebook', (p.stdout + p.stderr).strip()[-300:])

    def row(who, **want):
        got = {k: rows.get(who, {}).get(k) for k in want}
        expect(got == want, "the gradebook's row of %s: %s" % (who, ', '.join(
            '%s %s' % kv for kv in want.items())), got)

    row('ada', **{'lab0 task': 'passed', 'lab1 task': 'passed', 'lab2 task': 'passed',
                  'lab0 questions': '%d/%d' % (whys[0], asked[0]),
                  'lab1 questions': '%d/%d' % (whys[1], asked[1]),
                  'lab2 questions': '0/%d' % asked[2],
                  'score': '%d/%d' % (15 + whys[0] + whys[1], 15 + sum(asked.values()))})
    row('bob', **{'lab0 task': 'not passed', 'lab1 task': 'not passed', 'lab2 task': 'not passed',
                  'lab0 questions': '0/%d' % asked[0], 'lab1 questions': '0/%d' % asked[1],
                  'score': '0/%d' % (15 + sum(asked.values()))})
    for who in hostile:
        row(who, **{'lab0 task': 'not passed'})
    eve = open(os.path.join(out, 'eve', 'grade.txt')).read()
    expect('SEEN:' not in eve and 'No such file or directory' in eve,
           "eve's task, reading ada's answers, finds no such file in its sandbox",
           eve.strip()[-300:])
    expect(open(outside).read() == before and 'Read-only file system' in open(
        os.path.join(out, 'mallory', 'grade.txt')).read(),
           "mallory's task, writing to the checkout, is refused (read-only) and the file is "
           'unchanged', open(os.path.join(out, 'mallory', 'grade.txt')).read().strip()[-300:])
    net = open(os.path.join(out, 'net', 'grade.txt')).read()
    try:
        listener.accept()
        reached = True
    except BlockingIOError:
        reached = False
    expect('Connection refused' in net and not reached,
           "net's task, connecting to a port this check listens on, is refused: the "
           "sandbox's loopback is not the machine's", net.strip()[-300:])
    loop = open(os.path.join(out, 'loop', 'grade.txt')).read()
    expect('did not end within %d s' % LIMIT in loop,
           "loop's task, which never returns, is ended at the limit and said so", loop.strip()[-300:])
    big = json.load(open(os.path.join(out, 'big', 'results.json')))
    expect(rows.get('big', {}).get('lab0 questions') == '0/%d' % asked[0] and any(
        'more than the' in t['output'] for t in big['tests']),
           "big's 100 MB answers file is refused by its size, graded nothing",
           [t['output'][:100] for t in big['tests']])
    climber = rows.get('climber', {}).get('lab2 task', '')
    expect(climber.startswith('not ok') and 'outside the kernel tree' in climber,
           "climber's kernel patch, which climbs out of the tree (../), is refused",
           climber)
    for who, why_refused, what in (('maker', 'changes Makefile', 'changes a Makefile'),
                                   ('linker', 'has a link', 'makes a header a link')):
        cell = rows.get(who, {}).get('lab2 task', '')
        expect(cell.startswith('not ok') and why_refused in cell,
               "%s's kernel patch, which %s, is refused" % (who, what), cell)
    ada = json.load(open(os.path.join(out, 'ada', 'results.json')))
    expect(all({'name', 'score', 'max_score', 'output', 'visibility'} <= set(t)
               for t in ada['tests']) and ada['score'] == sum(t['score'] for t in ada['tests']),
           "each results.json has Gradescope's fields: tests with name, score, max_score, "
           'output, visibility, and their sum as the score', ada.get('score'))
    bob = open(os.path.join(out, 'bob', 'grade.txt')).read()
    expect(re.search(r'^not ok - .*', bob.split('(kernels/2.patch)')[-1], re.M),
           "bob's lab 2 kernel, which never saves the interrupted esp, is built and fails a "
           'check of its own', bob.split('(kernels/2.patch)')[-1].strip()[-400:])

    # The file tasks again, through Slurm: the same rows.
    node = os.path.join(scratch, 'slurm')
    if os.getuid() != 0:
        skip('the class through a Slurm node of this machine gets the same rows',
             "a Slurm node's daemons run as root, and this check does not")
    else:
        start = subprocess.run([os.path.join(TOP, 'vm', 'host', 'slurm-node.sh'), 'start', node],
                               capture_output=True, text=True)
        log(start.stdout + start.stderr)
        try:
            out2 = os.path.join(scratch, 'out-slurm')
            p = subprocess.run(['make', '-s', '-C', TOP, 'grade-class', 'SUBMISSIONS=' + root,
                                'CLASS_OUT=' + out2, 'LABS=0 1', 'SCHEDULER=slurm'],
                               capture_output=True, text=True, env=dict(
                                   os.environ, KS_CLASS_LIMIT=str(LIMIT),
                                   SLURM_CONF=os.path.join(node, 'slurm.conf')))
            log(p.stdout + p.stderr)
        finally:
            subprocess.run([os.path.join(TOP, 'vm', 'host', 'slurm-node.sh'), 'stop', node])
        slurm = {}
        if os.path.exists(os.path.join(out2, 'gradebook.csv')):
            with open(os.path.join(out2, 'gradebook.csv')) as f:
                slurm = {r['learner']: r for r in csv.DictReader(f)}
        cols = ['lab0 task', 'lab1 task', 'lab0 questions', 'lab1 questions']
        differ = {w: ({c: rows[w].get(c) for c in cols}, {c: slurm.get(w, {}).get(c) for c in cols})
                  for w in rows if {c: rows[w].get(c) for c in cols} !=
                  {c: slurm.get(w, {}).get(c) for c in cols}}
        expect(start.returncode == 0 and p.returncode == 0 and 'Slurm job' in p.stderr and
               len(slurm) == 10 and not differ,
               'the class graded through a Slurm node of this machine (one array job) gets the '
               'same rows for labs 0 and 1', differ or (start.stderr + p.stderr).strip()[-300:])
        left = subprocess.run(['pgrep', '-f', node], capture_output=True, text=True).stdout
        expect(not left, "the Slurm node's daemons are stopped after", left)

    # Gradescope: the bundle unpacked as Gradescope does, then run_autograder.
    bundle = os.path.join(BUILD, 'autograder')
    p = subprocess.run(['make', '-s', '-C', TOP, 'autograder', 'LABS=0'], capture_output=True,
                       text=True)
    log(p.stdout + p.stderr)
    graded = {}
    for who in ('ada', 'bob'):
        ag = os.path.join(scratch, 'gradescope-' + who)
        with zipfile.ZipFile(os.path.join(bundle, 'autograder.zip')) as z:
            for info in z.infolist():
                z.extract(info, os.path.join(ag, 'source'))
                mode = info.external_attr >> 16
                if mode & stat.S_IXUSR:
                    os.chmod(os.path.join(ag, 'source', info.filename), mode & 0o777)
        shutil.copytree(os.path.join(root, who), os.path.join(ag, 'submission'))
        os.makedirs(os.path.join(ag, 'results'))
        run = subprocess.run([os.path.join(ag, 'source', 'run_autograder')], capture_output=True,
                             text=True, env=dict(os.environ, AUTOGRADER_ROOT=ag, BUILD=BUILD))
        log(run.stdout + run.stderr)
        try:
            graded[who] = json.load(open(os.path.join(ag, 'results', 'results.json')))
        except (OSError, ValueError):
            graded[who] = {}
    fields = {'name': str, 'score': (int, float), 'max_score': (int, float), 'output': str,
              'visibility': str}

    def valid(r):
        return isinstance(r.get('tests'), list) and r['tests'] and all(
            set(fields) <= set(t) and all(isinstance(t[k], fields[k]) for k in fields) and
            t['visibility'] in ('hidden', 'after_due_date', 'after_published', 'visible')
            for t in r['tests']) and r.get('score') == sum(t['score'] for t in r['tests'])

    most = 5 + asked[0]
    expect(p.returncode == 0 and valid(graded['ada']) and graded['ada']['score'] == 5 + whys[0]
           and sum(t['max_score'] for t in graded['ada']['tests']) == most,
           "Gradescope: make autograder's bundle, unpacked and run as Gradescope runs it, "
           "writes ada's results.json, valid, %d of %d points" % (5 + whys[0], most),
           graded['ada'].get('score', (p.stdout + p.stderr)[-300:]))
    expect(valid(graded['bob']) and graded['bob']['score'] == 0,
           "Gradescope: and bob's, valid, 0 points", graded['bob'].get('score'))
