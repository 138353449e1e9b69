"""The learner's tasks of labs 0, 1, 5, 6 and 7 (make exercise N=k, then
make grade N=k EXERCISE=1): a file of the learner's own, graded by
labs/k/task/grade.py with labs/gradelib.py's checks.

vm/session/ks names the file in $KS_TASK. tests/checks/84-tasks.py names several
there at once, separated by os.pathsep (the reference solution, the
skeleton, wrong solutions), so that one guest grades them all: each check
is then registered once per file, its title starting with the file's
label in brackets (the name of the folder that holds it). With one file,
the titles are the plain ones a learner reads.

No gdb in here: the host graders (labs 5 and 6) use it too.
"""
import os
import sys
import traceback
import types

from labs.gradelib import Missed, expect_true, test


class Solution:
    def __init__(self, path, label):
        self.path, self.label = path, label
        self.module = None      # its names, once loaded (load())
        self.error = None       # why it did not load

    def title(self, text):
        """A check's title for this file."""
        return '[%s] %s' % (self.label, text) if self.label else text

    def check(self, text, parent, fn):
        """Register FN as this file's check titled TEXT, under PARENT."""
        return test(self.title(text), parent=parent)(fn)

    def loads(self, name, how, parent):
        """Register the check that this file loads and defines a function
        NAME; HOW is the call the grader makes, for the learner to read."""
        return self.check('%s loads and defines %s' % (
            os.path.basename(self.path), how), parent,
            lambda: expect_defined(self, name, how))


def solutions(load_as=None):
    """The files to grade, from $KS_TASK; each loaded (load()) as a module
    named LOAD_AS, if given."""
    paths = [p for p in os.environ.get('KS_TASK', '').split(os.pathsep) if p]
    if not paths:
        raise SystemExit('tasklib: no file to grade: KS_TASK is empty '
                         '(make grade N=k EXERCISE=1 sets it)')
    found = ([Solution(paths[0], '')] if len(paths) == 1 else
             [Solution(p, os.path.basename(os.path.dirname(p))) for p in paths])
    for solution in found if load_as else []:
        load(solution, load_as)
    return found


def load(solution, name='task'):
    """Run SOLUTION's Python file as a module of its own; its names, or
    None with solution.error saying why (the learner's own traceback
    line, not ours)."""
    try:
        # As a module of its own, named NAME, while it runs (a dataclass
        # looks its module up); its file name stays in tracebacks, and
        # read as bytes, its coding line is honoured.
        with open(solution.path, 'rb') as f:
            code = compile(f.read(), solution.path, 'exec')
        module = types.ModuleType(name)
        module.__file__ = solution.path
        was = sys.modules.get(name)
        sys.modules[name] = module
        try:
            exec(code, module.__dict__)
        finally:
            if was is None:
                sys.modules.pop(name, None)
            else:
                sys.modules[name] = was
        solution.module = module.__dict__
    except BaseException as e:     # SyntaxError, SystemExit, gdb.error...
        where = [f for f in traceback.extract_tb(e.__traceback__)
                 if f.filename == solution.path]
        at = ' (line %d)' % where[-1].lineno if where else (
            ' (line %s)' % e.lineno if isinstance(e, SyntaxError) else '')
        solution.error = '%s%s: %s' % (type(e).__name__, at, e)
    return solution.module


def expect_defined(solution, name, how):
    """Fail the check unless SOLUTION loaded and defines a function NAME;
    HOW is the call the grader makes, for the learner to read."""
    expect_true(solution.module is not None, 'loading %s' % solution.path,
                'no error', solution.error)
    expect_true(callable(solution.module.get(name)), 'its names',
                'a function %s (the grader calls it)' % how, 'none')


def at_stop(solutions, name, args=(), **seen):
    """What a grader records at one of its stops: SEEN (its own view), and
    call() of the function NAME, on ARGS, of each loaded solution that
    defines it, under the solution's label."""
    seen.update({s.label: call(s.module[name], *args) for s in solutions
                 if s.module and callable(s.module.get(name))})
    return seen


def returned(seen, solution, how):
    """What SOLUTION's call HOW returned at a stop the grader recorded
    (at_stop()) as SEEN, or None: fail the check if the grader did not
    reach the stop, or if the call raised."""
    if seen is None:
        raise Missed('the grader did not reach this stop in 2000 hits')
    result, error = seen[solution.label]
    expect_true(error is None, '%s at this stop' % how, 'it returns', error)
    return result


def call(fn, *args):
    """(FN(*ARGS), None), or (None, the exception it raised in one line,
    with the lines of the learner's file it came through, outermost
    first)."""
    try:
        return fn(*args), None
    except Exception as e:
        mine = fn.__code__.co_filename
        lines = [str(f.lineno) for f in traceback.extract_tb(e.__traceback__)
                 if f.filename == mine]
        at = ' (%s line%s %s)' % (os.path.basename(mine), 's' * (len(lines) > 1),
                                  ' -> '.join(lines)) if lines else ''
        return None, '%s%s: %s' % (type(e).__name__, at, e)
