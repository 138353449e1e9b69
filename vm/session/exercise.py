"""A learner's exercise tree (make exercise N=k), or a task's file.

Lab k's facts (labs/k/lab.toml, [exercise]) name the stage the exercise
starts from (base), a patch of TODO comments on top of it (skeleton), and
the project's patches that solve it (solution). The tree is a kernel
source tree of the learner's own, EXERCISES/k/src (EXERCISES: build/
exercises), and a git repository whose first commit, tagged "skeleton",
is base + skeleton: commits, diffs and starting over are git's. Its
objects go to EXERCISES/k/obj, built by vm/host/kernel.sh ek.

The skeleton patch changes only .c files and adds no code: it builds and
boots as the base stage does, and the solution's patches still apply to
it. (A comment in a header would make every file that includes it
recompile; in a .c file, only that file: the first build starts from the
base stage's objects, vm/host/seed-obj.sh: lab 4's took 55 s here; labs
2 and 3, whose first builds also recompile what includes a header their
given patches change, 106-114 s.)

A task (labs 0, 1, 5, 6, 7: an [exercise] with no base) is one file of the
learner's own, EXERCISES/k/NAME, copied from the lab's skeleton (labs/k/
task/...) and graded by the task's grader (labs/k/task/grade.py).
"""
import os
import subprocess
import sys

from vm.session import facts
from vm.session.session import TOP, GuestError, say, stage_dir, stage_obj, stage_src


def tree(n):
    return stage_src('e%d' % n)


def is_task(lab):
    """LAB's exercise is a task (labs 0, 1, 5, 6, 7): a file of the
    learner's own, not a kernel (no base stage)."""
    return 'exercise' in lab and 'base' not in lab['exercise']


def task_file(n):
    """Where the learner's file for lab N's task is: EXERCISES/N/ and the
    skeleton's name (build/exercises/0/my_bt.py)."""
    return os.path.join(stage_dir('e%d' % n), os.path.basename(
        facts.lab(n)['exercise']['skeleton']))


def started(n):
    """The learner has made lab N's exercise (its tree, or its task's
    file)."""
    if is_task(facts.lab(n)):
        return os.path.isfile(task_file(n))
    return os.path.isdir(os.path.join(tree(n), '.git'))


def make_task(n):
    """Lab N's task file, copied from the lab's skeleton if it does not
    exist yet; never overwritten."""
    lab = facts.lab(n)
    mine = task_file(n)
    if os.path.exists(mine):
        say('your file for lab %d\'s task is already there, left as it is: %s'
            % (n, mine))
        say('start over with: cp %s %s' % (os.path.relpath(os.path.join(
            lab['folder'], lab['exercise']['skeleton'])), mine))
        return mine
    os.makedirs(os.path.dirname(mine), exist_ok=True)
    with open(os.path.join(lab['folder'], lab['exercise']['skeleton'])) as f:
        text = f.read()
    # The skeleton names its copy's usual place; EXERCISES may move it.
    folder = os.path.dirname(mine)
    shown = os.path.relpath(folder, TOP)
    text = text.replace('build/exercises/%d/' % n, (
        folder if shown.startswith('..') else shown) + '/')
    with open(mine + '.tmp', 'w') as f:
        f.write(text)
    os.rename(mine + '.tmp', mine)
    return mine


def task_reference(n):
    """The text of lab N's reference solution: its skeleton with the
    task's solution patch applied (labs/N/task/solution.patch), as
    check 84 grades it."""
    import tempfile
    ex = facts.lab(n)['exercise']
    folder = facts.lab(n)['folder']
    with tempfile.TemporaryDirectory() as tmp:
        path = os.path.join(tmp, os.path.basename(ex['skeleton']))
        with open(os.path.join(folder, ex['skeleton'])) as src, open(path, 'w') as dst:
            dst.write(src.read())
        apply(tmp, os.path.join(folder, ex['solution']))
        with open(path) as f:
            return f.read()


def _run(argv, cwd=None):
    p = subprocess.run(argv, cwd=cwd, stdout=subprocess.PIPE,
                       stderr=subprocess.STDOUT)
    if p.returncode:
        raise GuestError('%s failed:\n%s' % (' '.join(argv), p.stdout.decode(
            errors='replace').rstrip()))
    return p.stdout.decode(errors='replace')


def git(src, *args):
    return _run(['git', '-C', src, '-c', 'user.name=kstack-workbook',
                 '-c', 'user.email=kstack-workbook@example.org'] + list(args))


def apply(src, patch):
    """Apply PATCH (a path) to SRC as vm/host/tree.sh applies the series:
    exactly, no fuzz."""
    p = subprocess.run([os.path.join(TOP, 'vm', 'host', 'apply-patch.sh'), src, patch],
                       stdout=subprocess.PIPE, stderr=subprocess.STDOUT)
    if p.returncode:
        raise GuestError('%s does not apply to %s:\n%s' % (
            os.path.relpath(patch, TOP), src, p.stdout.decode(errors='replace')))


def skeleton_key(n):
    """A fingerprint of what lab N's exercise tree is made from, besides
    its base stage: the given patches and the skeleton."""
    import hashlib
    ex = facts.lab(n)['exercise']
    h = hashlib.sha256()
    for path in [os.path.join(TOP, p) for p in ex.get('given', [])] + [
            os.path.join(facts.lab(n)['folder'], ex['skeleton'])]:
        with open(path, 'rb') as f:
            h.update(f.read())
    return h.hexdigest()[:16]


def stale(n):
    """Lab N's exercise tree was made from other patches than today's."""
    try:
        with open(os.path.join(os.path.dirname(tree(n)), 'skeleton.key')) as f:
            return f.read().strip() != skeleton_key(n)
    except OSError:
        return True


def make(n):
    """Lab N's exercise tree, made if it does not exist yet."""
    lab = facts.lab(n)
    if 'exercise' not in lab:
        raise facts.Unknown('lab %d has no exercise (labs with one: %s)' % (
            n, ' '.join(str(k) for k in facts.labs()
                        if 'exercise' in facts.lab(k))))
    ex = lab['exercise']
    if is_task(lab):
        return make_task(n)
    src = tree(n)
    if os.path.isdir(os.path.join(src, '.git')):
        say('your exercise tree is already there, left as it is: %s' % src)
        if stale(n):
            # Its skeleton tag is the old skeleton: git cannot start over.
            say('it was made from an older skeleton than lab %d\'s today; to '
                'start from today\'s: rm -rf %s, then make exercise N=%d '
                '(keep your work with git diff skeleton first)'
                % (n, os.path.dirname(src), n))
        else:
            say('start over with: git -C %s checkout -f skeleton && git -C %s '
                'clean -fd' % (src, src))
        return src
    base = str(ex['base'])
    subprocess.check_call([os.path.join(TOP, 'vm', 'host', 'tree.sh'), base])
    base_src = stage_src(base)
    tmp = src + '.tmp'
    _run(['rm', '-rf', tmp])
    os.makedirs(os.path.dirname(src), exist_ok=True)
    # A real copy (the stage trees are hard links to one pristine tree,
    # which an editor writing in place would change for every stage).
    say('lab %d\'s exercise: copying stage %s\'s tree (about a minute)' % (n, base))
    _run(['cp', '-a', base_src, tmp])
    # What the exercise gives (the project's patches the learner should
    # not have to write: a header every file includes, say), then the
    # TODOs.
    for patch in ex.get('given', []):
        apply(tmp, os.path.join(TOP, patch))
    apply(tmp, os.path.join(lab['folder'], ex['skeleton']))
    # Debian's tree ends its .gitignore with "ignore everything at the top
    # level" (for its own packaging repository): this repository tracks
    # the tree.
    ignore = os.path.join(tmp, '.gitignore')
    with open(ignore) as f:
        text = f.read()
    with open(ignore, 'w') as f:
        f.write(text.split('\n#\n# Debian packaging')[0].rstrip('\n') + '\n')
    say('lab %d\'s exercise: its git repository (the first commit is the '
        'skeleton)' % n)
    git(tmp, 'init', '-q')
    git(tmp, 'add', '-A')
    git(tmp, 'commit', '-q', '-m', 'Lab %d exercise: the skeleton (stage %s '
        'and its TODOs)' % (n, base))
    git(tmp, 'tag', 'skeleton')
    os.rename(tmp, src)
    with open(os.path.join(os.path.dirname(src), 'skeleton.key'), 'w') as f:
        f.write(skeleton_key(n) + '\n')
    # Its first build starts from its base stage's objects, when they are
    # built: Kbuild then rebuilds only what the skeleton changed.
    build = os.path.join(TOP, 'vm', 'host')
    if not os.path.exists(stage_obj('e%d' % n)) and subprocess.call(
            [os.path.join(build, 'kernel.sh'), '--built', base]) == 0:
        print(_run([os.path.join(build, 'seed-obj.sh'), base, 'e%d' % n]).strip(),
              file=sys.stderr)
    return src
