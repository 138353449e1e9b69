"""vm/session/submission.py: a learner's work as one folder a course
collects (make submission), and read back when the class is graded.

    SUBMISSION/              build/submission/ID by default
      learner                the learner's id (LEARNER: their variant)
      answers/labN.txt       their answers files
      tasks/N/NAME           each task's file (labs 0, 1, 5, 6 and 7)
      kernels/N.patch        each kernel exercise, as the diff of its tree
                             from the tag "skeleton" (labs 2, 3 and 4)

A learner hands in the folder (a tar of it, or a git repository of it);
the teacher grades a folder of such folders (vm/session/classgrade.py).
"""
import os
import re
import shutil
import subprocess

from vm.session import exercise, facts, folders, variant
from vm.session.session import BUILD, GuestError, say

# What a grading reads, at most: a submission is a stranger's.
MAX_BYTES = 1 << 20


def write(dest=None, labs=None):
    """The learner's submission, written afresh to DEST (default
    build/submission/ID) from their answers folder and exercises; the
    folder. LABS: only those labs."""
    who = variant.learner()
    dest = os.path.abspath(dest or os.path.join(BUILD, 'submission', who))
    kept = folders.read()
    answers = os.environ.get('ANSWERS') or kept.get('ANSWERS') or 'answers'
    if os.path.exists(dest):
        shutil.rmtree(dest)
    os.makedirs(dest)
    with open(os.path.join(dest, 'learner'), 'w') as f:
        f.write(who + '\n')
    made = []
    for n in labs or facts.labs():
        lab = facts.lab(n)
        mine = os.path.join(answers, 'lab%d.txt' % n)
        if os.path.isfile(mine):
            os.makedirs(os.path.join(dest, 'answers'), exist_ok=True)
            shutil.copyfile(mine, os.path.join(dest, 'answers', 'lab%d.txt' % n))
            made.append('answers/lab%d.txt' % n)
        if 'exercise' not in lab or not exercise.started(n):
            continue
        if exercise.is_task(lab):
            name = os.path.basename(lab['exercise']['skeleton'])
            os.makedirs(os.path.join(dest, 'tasks', str(n)), exist_ok=True)
            shutil.copyfile(exercise.task_file(n), os.path.join(dest, 'tasks', str(n), name))
            made.append('tasks/%d/%s' % (n, name))
        else:
            diff = subprocess.run(['git', '-C', exercise.tree(n), 'diff', 'skeleton'],
                                  capture_output=True, text=True)
            if diff.returncode:
                raise GuestError('lab %d: git diff skeleton failed in %s: %s'
                                 % (n, exercise.tree(n), diff.stderr.strip()))
            os.makedirs(os.path.join(dest, 'kernels'), exist_ok=True)
            with open(os.path.join(dest, 'kernels', '%d.patch' % n), 'w') as f:
                f.write(diff.stdout)
            made.append('kernels/%d.patch' % n)
    say('submission of %s in %s: %s' % (who, dest, ' '.join(made) or 'nothing yet'))
    return dest


class Submission:
    """A learner's folder, read as a stranger's: its id checked, each file
    at most MAX_BYTES, no link followed out of it."""

    def __init__(self, folder):
        self.folder = os.path.abspath(folder)
        self.id = self._id()
        self.problems = {}       # lab: why its part could not be graded

    def _id(self):
        name = os.path.basename(self.folder)
        try:
            with open(os.path.join(self.folder, 'learner')) as f:
                said = f.read(100).strip()
        except OSError:
            said = name
        if not variant.VALID.match(said):
            raise GuestError("%s: its learner file names no id (%r)" % (self.folder, said[:40]))
        return said

    def _file(self, *parts):
        """PATH in the folder, if it is a regular file within MAX_BYTES
        (else None, and the lab's problem said)."""
        path = os.path.join(self.folder, *parts)
        if not os.path.lexists(path):
            return None
        real = os.path.realpath(path)
        if os.path.islink(path) or not real.startswith(self.folder + os.sep) or \
                not os.path.isfile(real):
            raise GuestError('%s is not a file of the submission' % os.path.join(*parts))
        if os.path.getsize(real) > MAX_BYTES:
            raise GuestError('%s is %d bytes: more than the %d a submission\'s file may have'
                             % (os.path.join(*parts), os.path.getsize(real), MAX_BYTES))
        return real

    def answers(self, n):
        return self._file('answers', 'lab%d.txt' % n)

    def task(self, n):
        name = os.path.basename(facts.lab(n)['exercise']['skeleton'])
        return self._file('tasks', str(n), name)

    def kernel_patch(self, n):
        """kernels/N.patch, if it only changes the tree's C files and
        headers: what a build compiles, never what it runs (a Makefile,
        Kconfig or script would run on the grading machine), and no link
        or rename that could reach past the tree."""
        path = self._file('kernels', '%d.patch' % n)
        if path:
            with open(path, errors='replace') as f:
                for line in f:
                    m = re.match(r'^(?:\+\+\+|---) (?:[ab]/)?(\S+)', line)
                    if m and m.group(1) != '/dev/null' and (
                            m.group(1).startswith('/') or '..' in m.group(1).split('/')):
                        raise GuestError('kernels/%d.patch touches %s, outside the kernel '
                                         'tree' % (n, m.group(1)))
                    if m and m.group(1) != '/dev/null' and not m.group(1).endswith(('.c', '.h')):
                        raise GuestError('kernels/%d.patch changes %s: a kernel exercise '
                                         'changes only C files and headers' % (n, m.group(1)))
                    if re.match(r'(new file mode|new mode|deleted file mode) 12|'
                                r'(rename|copy) (from|to) |GIT binary patch', line):
                        raise GuestError('kernels/%d.patch has a link, a rename or a '
                                         'binary: a kernel exercise changes only C files '
                                         'and headers, as text' % n)
        return path

if __name__ == '__main__':
    # make submission [SUBMISSION=folder] [N=k]
    import sys
    try:
        write(sys.argv[1] or None, [int(n) for n in sys.argv[2:]])
    except (GuestError, facts.Unknown, variant.BadLearner) as e:
        sys.exit('submission: %s' % e)
