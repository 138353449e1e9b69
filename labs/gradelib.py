"""Grading, in the style of xv6's gradelib: a grader declares its checks
as functions, in order, and this module runs them.

    @test('the lab stops in __handle_irq after boot')
    def stop():
        expect(frame_name(), '__handle_irq', 'the function gdb stopped in')

    @test('ks-where names the stack $sp is on', parent=stop, reads='ks-where')
    def where(output): ...

    run_tests()

- A check passes when its function returns; it fails when an expect...()
  inside it fails, which says what was expected and what was got. A
  string the function returns is shown after its title.
- A check whose parent did not pass is skipped, with the reason.
- A check that READS a command gets the command's output as its
  argument; when it fails, its report names the command, for the
  learner to run at the same stop.
- answer(KEY, VALUE) records what this run found for a question of the
  lab's answers file (labs/N/lab.toml); vm/session/ks compares the learner's.
- Every outcome is also a record (vm/session/results.py) for vm/session/ks to read,
  after a plan record (how many checks there are), from which ks writes
  the run's KTAP report (results.ktap()) and fails a run whose results
  fall short of its plan.

No gdb in here: lab 6's grader, which reads crash's output on the host,
uses it as the gdb graders do.
"""
import os
import traceback

from vm.session import facts
from vm.session import results
from vm.session.results import indent

TESTS = []
# Where the grader stood when a check stopped with an error (gdbutil
# sets it: " (gdb stopped in FUNCTION at FILE:LINE)"); None on the host.
WHERE = None
# How a check's READS command is run (gdbutil sets it: gdb's output).
READ = None


class Fail(Exception):
    def __init__(self, what, expected, got):
        super().__init__(what)
        self.what, self.expected, self.got = what, expected, got


class Missed(Exception):
    """The grader did not reach a stop it needs (an interrupt from user
    mode that did not come in 2000 hits, say): not the learner's
    failure. The check is skipped with this reason, and vm/session/ks
    grades once more on a fresh guest; missed again, the grade is
    incomplete ("run it again"), never a pass and never a fail."""


def test(title, parent=None, reads=None):
    def register(fn):
        fn.title, fn.parent, fn.reads, fn.status = title, parent, reads, None
        TESTS.append(fn)
        return fn
    return register


def lab_number():
    """The lab being graded: vm/session/ks says which in $KS_LAB."""
    return int(os.environ['KS_LAB'])


def show(v):
    return '%#x' % v if isinstance(v, int) and not isinstance(v, bool) \
        and v > 0xffff else str(v)


def expect(got, expected, what):
    """WHAT (got) must equal EXPECTED."""
    if got != expected:
        raise Fail(what, show(expected), show(got))
    return got


def expect_in(got, low, high, what):
    """LOW <= WHAT (got) < HIGH."""
    if got is None or not low <= got < high:
        raise Fail(what, '%s to %s' % (show(low), show(high)), show(got))
    return got


def expect_true(good, what, expected, got):
    """A check of any other shape: GOOD, else fail with EXPECTED and GOT
    in words."""
    if not good:
        raise Fail(what, expected, got)


def answer(key, value):
    """This run's answer to the lab's question KEY, with the tolerance
    (percent) that labs/N/lab.toml gives it."""
    n = lab_number()
    results.emit('answer', key=key, value=show(value),
                 tolerance=facts.tolerance(n, key))


def _report(fn, status, detail='', why=None):
    fn.status = status
    line = '%s - %s%s' % ({'ok': 'ok', 'fail': 'not ok', 'skip': 'skip'}[status],
                         fn.title, ' (%s)' % detail if detail else '')
    print(line)
    fields = dict(title=fn.title, status=status, detail=detail)
    if isinstance(why, Fail):
        print('    %s\n      expected: %s\n      got:      %s' % (
            why.what, indent(why.expected), indent(why.got)))
        if fn.reads:
            print('    (it read the output of %s)' % fn.reads)
        fields.update(what=why.what, expected=why.expected, got=why.got)
    elif why:
        print('    ' + why.replace('\n', '\n    '))
        fields.update(reason=why)
    results.emit('test', **fields)


def run_tests():
    results.emit('plan', tests=len(TESTS), titles=[fn.title for fn in TESTS])
    for fn in TESTS:
        if fn.parent is not None and fn.parent.status != 'ok':
            _report(fn, 'skip', why='skipped: it needs "%s", which did not '
                    'pass' % fn.parent.title)
            continue
        try:
            detail = fn(READ(fn.reads)) if fn.reads else fn()
        except Fail as f:
            _report(fn, 'fail', why=f)
        except Missed as m:
            _report(fn, 'skip', why='missed: %s (not your code: the grader runs '
                    'again on a fresh guest, once)' % m)
        except Exception as e:      # the grader's own bug, or gdb's error
            _report(fn, 'fail', why='the check stopped with an error: %s: %s%s'
                    % (type(e).__name__, e, WHERE() if WHERE else ''))
            # Indented, for the log: vm/session/ks takes a bare "Traceback" for a
            # grader that crashed outside its checks.
            print(''.join('    | ' + line for line in traceback.format_exc()
                          .splitlines(True)))
        else:
            _report(fn, 'ok', detail or '')
    # The grader got to its end: vm/session/ks fails a run without this record.
    results.emit('done', tests=len(TESTS))
