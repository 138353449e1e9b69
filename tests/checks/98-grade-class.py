# A class graded at once (make grade-class, vm/session/classgrade.py), each
# learner in a bubblewrap sandbox. A class of eight made from the labs'
# own solutions: two honest learners (lab 0's and lab 1's reference tasks
# and right "why"s; a wrong solution of each from lab.toml and wrong
# "why"s), and six hostile ones, each lab 0's reference with one thing
# added: reading another learner's answers, writing outside its folder,
# opening a network socket, a loop that never ends, an answers file of
# 100 MB, a kernel patch that climbs out of the tree. The gradebook must
# say what each should get, point by point; each hostile act is contained
# (the other learners' rows are those of the honest run, the file it
# reached for is untouched or unseen) and its part graded not ok with why.
import csv
import json
import os
import socket
import subprocess
import tempfile

from tests.checklib import BUILD, TOP, expect, facts, log
from tests.mutants import task_files

LIMIT = 60          # seconds a grade may take here (the looping task's)
with tempfile.TemporaryDirectory(dir=BUILD) as scratch:
    root, out = os.path.join(scratch, 'submissions'), os.path.join(scratch, 'out')
    lab0, lab1 = task_files(0), task_files(1)
    wrong1 = next(k for k in lab1 if k != 'reference')
    wrong0 = next(k for k in lab0 if k != 'reference')

    def why(n, right=True):
        lines = []
        for key, q in facts.lab(n)['questions'].items():
            if 'answer' in q:
                a = q['answer'] if right else 'abcd'[('abcd'.index(q['answer']) + 1) % 4]
                lines.append('%s = %s\n' % (key, a))
        return ''.join(lines)

    def learner(who, task0=None, task1=None, answers=None, patch=None):
        d = os.path.join(root, who)
        os.makedirs(d)
        with open(os.path.join(d, 'learner'), 'w') as f:
            f.write(who + '\n')
        for n, text, name in ((0, task0, 'my_bt.py'), (1, task1, 'my_xbt.py')):
            if text is not None:
                os.makedirs(os.path.join(d, 'tasks', str(n)))
                with open(os.path.join(d, 'tasks', str(n), name), 'w') as f:
                    f.write(text)
        for n, text in (answers or {}).items():
            os.makedirs(os.path.join(d, 'answers'), exist_ok=True)
            with open(os.path.join(d, 'answers', 'lab%d.txt' % n), 'w') as f:
                f.write(text)
        if patch:
            os.makedirs(os.path.join(d, 'kernels'))
            with open(os.path.join(d, 'kernels', '2.patch'), 'w') as f:
                f.write(patch)

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
    learner('ada', lab0['reference'], lab1['reference'], {0: why(0), 1: why(1)})
    learner('bob', lab0[wrong0], lab1[wrong1], {0: why(0, False), 1: why(1, False)})
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
    p = subprocess.run(['make', '-s', '-C', TOP, 'grade-class', 'SUBMISSIONS=' + root,
                        'CLASS_OUT=' + out, 'LABS=0 1 2'], capture_output=True, text=True,
                       env=dict(os.environ, KS_CLASS_LIMIT=str(LIMIT)))
    log(p.stdout + p.stderr)
    rows = {}
    if os.path.exists(os.path.join(out, 'gradebook.csv')):
        with open(os.path.join(out, 'gradebook.csv')) as f:
            rows = {r['learner']: r for r in csv.DictReader(f)}
    log(json.dumps(rows, indent=1))
    whys = {n: sum('answer' in q for q in facts.lab(n)['questions'].values()) for n in (0, 1)}
    asked = {n: len([k for k in facts.lab(n)['questions'] if not k.startswith('predict_')])
             for n in (0, 1, 2)}
    expect(p.returncode == 0 and len(rows) == 8, 'make grade-class grades a class of 8 and '
           'writes its gradebook', (p.stdout + p.stderr).strip()[-300:])

    def row(who, **want):
        got = {k: rows.get(who, {}).get(k) for k in want}
        expect(got == want, "the gradebook's row of %s: %s" % (who, ', '.join(
            '%s %s' % kv for kv in want.items())), got)

    row('ada', **{'lab0 task': 'passed', 'lab1 task': 'passed',
                  'lab0 questions': '%d/%d' % (whys[0], asked[0]),
                  'lab1 questions': '%d/%d' % (whys[1], asked[1]),
                  'lab2 questions': '0/%d' % asked[2],
                  'score': '%d/%d' % (10 + whys[0] + whys[1], 10 + sum(asked.values()))})
    row('bob', **{'lab0 task': 'not passed', 'lab1 task': 'not passed',
                  'lab0 questions': '0/%d' % asked[0], 'lab1 questions': '0/%d' % asked[1]})
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
    ada = json.load(open(os.path.join(out, 'ada', 'results.json')))
    expect(all({'name', 'score', 'max_score', 'output', 'visibility'} <= set(t)
               for t in ada['tests']) and ada['score'] == sum(t['score'] for t in ada['tests']),
           "each results.json has Gradescope's fields: tests with name, score, max_score, "
           'output, visibility, and their sum as the score', ada.get('score'))
