"""make mutants: is every task's grader mutation-tested?

A task's wrong solutions are data in its lab's lab.toml: each
[[exercise.wrong]] is the reference solution with one plausible mistake
(labs/README.md explains the keys). A grader passes this test when each
wrong solution fails the check that names its mistake, and the reference
passes every check, every time: make mutants grades each ROUNDS times
(3), the file tasks (labs 0, 1, 5, 6, 7) in one guest per lab and round
(labs/tasklib.py grades several files at once), and prints one row per
solution, its verdict in each round (python3 -m tests.mutants N...: only
labs N...). MUTANTS_KERNEL=1 adds the kernel exercises' (labs 3 and 4),
each a kernel built incrementally: left out by default. It ends
non-zero if a wrong solution passed once, or the reference failed once.

Check 84 (file tasks) and check 88 (kernel exercises) grade them once,
with the helpers here.
"""
import contextlib
import os
import re
import subprocess
import sys
import time

from vm.session import exercise, facts
from vm.session.session import BUILD, TOP

ROUNDS = 3
WORK = os.path.join(BUILD, 'mutants')


def wrong(n):
    """Lab N's wrong solutions, from its lab.toml: each a dict of label,
    what, edits ([old, new] pairs), fails, passes (default none) and,
    for a kernel exercise, file (the tree's file the edits are made in)."""
    return [dict({'passes': []}, **w)
            for w in facts.lab(n).get('exercise', {}).get('wrong', [])]


def made(text, edits):
    """TEXT with each [old, new] of EDITS made (every occurrence), or None
    when an old text is not in it (the reference moved on)."""
    for old, new in edits:
        if old not in text:
            return None
        text = text.replace(old, new)
    return text


def task_files(n):
    """{label: text} of lab N's task: 'reference', then each wrong
    solution (its text None when its edits no longer apply)."""
    reference = exercise.task_reference(n)
    files = {'reference': reference}
    for w in wrong(n):
        files[w['label']] = made(reference, w['edits'])
    return files


def write(n, files, folder):
    """FILES ({label: text}) as FOLDER/LABEL/NAME (the skeleton's name: the
    label is the folder's name, tasklib's); KS_TASK naming them all."""
    name = os.path.basename(facts.lab(n)['exercise']['skeleton'])
    paths = []
    for label, text in files.items():
        path = os.path.join(folder, label, name)
        os.makedirs(os.path.dirname(path), exist_ok=True)
        with open(path, 'w') as f:
            f.write(text)
        paths.append(path)
    return os.pathsep.join(paths)


def checks_of(out, label):
    """{title: (status, the failure's lines)} of LABEL's checks in OUT
    (status: ok, not ok or skip); LABEL '' for a grader's plain titles."""
    found, lines = {}, out.splitlines()
    prefix = '[%s] ' % label if label else ''
    for i, line in enumerate(lines):
        m = re.match(r'(ok|not ok|skip) - (.*)$', line)
        if not m or not m.group(2).startswith(prefix):
            continue
        title = m.group(2)[len(prefix):]
        detail = []
        for more in lines[i + 1:]:
            if not more.startswith('    '):
                break
            detail.append(more.strip())
        found[title] = (m.group(1), detail)
    return found


def verdict(checks, w=None):
    """One word for a grade: 'pass' (every check ok), 'fail' (for a wrong
    solution W: its check failed and those it passes passed), 'other'
    (W failed elsewhere, or failed a check it must pass), 'miss' (a
    check was skipped: a stop the grader missed) or 'none' (no checks)."""
    if not checks:
        return 'none'
    status = {s for s, _ in checks.values()}
    if 'not ok' not in status:
        return 'pass' if status == {'ok'} else 'miss'
    if w is None:
        return 'fail'
    named = [t for t, (s, _) in checks.items() if s == 'not ok' and w['fails'] in t]
    kept = [t for t, (s, _) in checks.items()
            if s != 'ok' and any(p in t for p in w['passes'])]
    return 'fail' if named and not kept else 'other'


def ks(*args, env=None):
    """python3 -m vm.session.ks ARGS, EXERCISE=1 unless ENV (more
    variables) says otherwise: (exit status, output)."""
    environ = dict(os.environ, EXERCISE='1')
    environ.update(env or {})
    p = subprocess.run([sys.executable, '-m', 'vm.session.ks'] + [str(a) for a in args],
                       cwd=TOP, env=environ, stdout=subprocess.PIPE, stderr=subprocess.STDOUT)
    return p.returncode, p.stdout.decode(errors='replace')


def log(name, out):
    os.makedirs(WORK, exist_ok=True)
    with open(os.path.join(WORK, name), 'w') as f:
        f.write(out)


def grade_tasks(n, r):
    """Round R of lab N's task: its reference and wrong solutions in one
    guest; {label: verdict}."""
    files = task_files(n)
    good = {label: text for label, text in files.items() if text is not None}
    rc, out = ks('grade', n, env={'KS_TASK': write(n, good, os.path.join(
        WORK, 'files', str(n)))})
    log('lab%d-round%d.log' % (n, r), out)
    byname = {w['label']: w for w in wrong(n)}
    return {label: 'edit?' if label not in good else
            verdict(checks_of(out, label), byname.get(label)) for label in files}


@contextlib.contextmanager
def edited(src, w):
    """The kernel tree SRC with wrong solution W's edits made in its file
    (yields whether they applied), then as it was."""
    path = os.path.join(src, w['file'])
    with open(path) as f:
        text = f.read()
    changed = made(text, w['edits'])
    if changed is not None:
        with open(path, 'w') as f:
            f.write(changed)
    try:
        yield changed is not None
    finally:
        if changed is not None:     # (a file written again is rebuilt)
            with open(path, 'w') as f:
                f.write(text)


def grade_kernels(n, r):
    """Round R of lab N's kernel exercise: the reference (the skeleton with
    its solution's patches), then each wrong solution, each a kernel of
    its own; {label: verdict}."""
    ex = facts.lab(n)['exercise']
    if exercise.stale(n):
        # Made from older patches: start again (as check 88 does).
        subprocess.call(['rm', '-rf', os.path.dirname(exercise.tree(n))])
    rc, out = ks('exercise', n, env={'EXERCISE': '0'})
    if rc:
        raise SystemExit('mutants: make exercise N=%d failed:\n%s' % (n, out[-600:]))
    src = exercise.tree(n)
    exercise.git(src, 'checkout', '-q', '-f', 'skeleton')
    exercise.git(src, 'clean', '-fdq')
    for patch in ex['solution']:
        exercise.apply(src, os.path.join(TOP, patch))
    rc, out = ks('grade', n)
    log('lab%d-round%d-reference.log' % (n, r), out)
    found = {'reference': verdict(checks_of(out, ''))}
    for w in wrong(n):
        with edited(src, w) as applied:
            rc, out = ks('grade', n) if applied else (1, '')
        log('lab%d-round%d-%s.log' % (n, r, w['label']), out)
        found[w['label']] = verdict(checks_of(out, ''), w) if applied else 'edit?'
    return found


def learner_folders_kept():
    """The function that puts the learner's remembered folders
    (build/learner-folders, which ks writes when EXERCISES is given) back
    as they are now: the folders of a check or of make mutants are not
    the learner's, whose make grade table must not find them."""
    kept = os.path.join(BUILD, 'learner-folders')
    remembered = open(kept).read() if os.path.exists(kept) else None

    def restore():
        if remembered is None:
            with contextlib.suppress(FileNotFoundError):
                os.unlink(kept)
        else:
            with open(kept, 'w') as f:
                f.write(remembered)
    return restore


def main(only=()):
    """Grade the wrong solutions of every lab (or of the labs ONLY names)."""
    kernels = os.environ.get('MUTANTS_KERNEL') == '1'
    labs = [n for n in facts.labs() if wrong(n) and (not only or n in only) and
            (kernels or exercise.is_task(facts.lab(n)))]
    # The file tasks need no EXERCISES (KS_TASK), the kernels a folder
    # of ours, never the learner's.
    os.environ.pop('EXERCISES', None)
    t0 = time.time()
    rows = {}       # (lab, label): [verdict per round]
    restore = learner_folders_kept()
    try:
        for r in range(1, ROUNDS + 1):
            for n in labs:
                t = time.time()
                if exercise.is_task(facts.lab(n)):
                    got = grade_tasks(n, r)
                else:
                    os.environ['EXERCISES'] = os.path.join(WORK, 'exercises')
                    got = grade_kernels(n, r)
                    del os.environ['EXERCISES']
                for label, v in got.items():
                    rows.setdefault((n, label), []).append(v)
                print('mutants: round %d of %d, lab %d: %d solutions (%.0f s)' % (
                    r, ROUNDS, n, len(got), time.time() - t), file=sys.stderr, flush=True)
    finally:
        restore()
    whats = {(n, w['label']): w['what'] for n in labs for w in wrong(n)}
    bad = 0
    width = max(len(label) for _, label in rows)
    cells = max(len('verdicts'), 6 * ROUNDS - 1)
    print('lab  %-*s  %-*s  as it must  what' % (width, 'label', cells, 'verdicts'))
    for (n, label), verdicts in rows.items():
        want = 'pass' if label == 'reference' else 'fail'
        ok = verdicts == [want] * ROUNDS
        bad += not ok
        print('%-3d  %-*s  %-*s  %-10s  %s' % (
            n, width, label, cells, ' '.join('%-5s' % v for v in verdicts).rstrip(),
            'yes' if ok else 'NO', whats.get((n, label), 'the reference solution')))
    print('mutants: %d solutions of %d labs, %d rounds: %s (%.0f s; logs in %s)' % (
        len(rows), len(labs), ROUNDS, 'each as it must' if not bad else
        '%d not as it must' % bad, time.time() - t0, WORK))
    return 1 if bad else 0


if __name__ == '__main__':
    sys.exit(main([int(n) for n in sys.argv[1:]]))
