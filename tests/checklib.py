"""Helpers for tests/checks/*.py, as tests/lib.sh is for the shell checks.

A check reports on stdout, one line per check: "ok - WHAT" or
"not ok - WHAT (got: ...)". Everything else goes to stderr, which
tests/run.sh keeps in build/check/NAME.log. The guests and gdb are
vm/session/session.py's; what each stage should show is vm/session/facts.py's.
"""
import os
import sys

TOP = os.environ.get('TOP') or os.path.dirname(os.path.dirname(
    os.path.abspath(__file__)))
os.environ['TOP'] = TOP                     # vm/ modules read it too

from vm.session import facts                                 # noqa: F401
from vm.session import results                               # noqa: F401
from vm.session.session import BUILD, TIMEOUT, Guest, GuestError  # noqa: F401
from book.layout import WIDTH, WRAP_MARK

CHECK = os.path.join(BUILD, 'check')         # this run's logs and tables
PROBES = os.path.join(TOP, 'tests', 'gdb')   # the gdb-side probes


def ok(what):
    print('ok - %s' % what, flush=True)


def not_ok(what):
    print('not ok - %s' % what, flush=True)


def skip(what, why):
    """A check this machine cannot run, and why (KTAP's SKIP)."""
    print('skip - %s: %s' % (what, why), flush=True)


def expect(good, what, got=None):
    """One check line: ok if GOOD, else not ok with what was got."""
    if good:
        ok(what)
    else:
        not_ok(what if got is None else '%s (got: %s)' % (what, got))
    return bool(good)


def log(*lines):
    """Evidence for the log (stderr), never a check line."""
    for line in lines:
        print(line, file=sys.stderr, flush=True)


def in_guest(what, steps):
    """STEPS() (a function of a guest's waits); what it returns, or None
    when the guest failed: the error goes to the log, and WHAT fails with
    the error's first line."""
    try:
        return steps()
    except GuestError as e:
        log(str(e))
        not_ok('%s (got: %s)' % (what, str(e).splitlines()[0]))
        return None


def stages():
    """The stage numbers, in order, from vm/stages.toml."""
    return sorted(facts.stages())


def probe(guest, name, timeout=TIMEOUT, env=None, args=()):
    """Run the gdb-side probe tests/gdb/NAME on GUEST in batch mode; its
    GdbRun. gdb's output goes to the log, the probe's findings are the
    run's records (vm/session/results.py)."""
    run = guest.gdb(list(args) + ['-x', os.path.join(PROBES, name)],
                    timeout, env)
    n = guest.gdb_runs
    log('--- gdb %s on stage %s (exit %s; log %s, records %s):' % (
        name, guest.stage, run.rc, guest.path('gdb-%d.log' % n),
        guest.path('gdb-%d.jsonl' % n)), run.output.rstrip())
    if run.timed_out:
        log('(gdb was stopped after %d s)' % timeout)
    return run


def records(run, kind):
    return [r for r in run.records if r['kind'] == kind]


def record(run, kind):
    """The one record of KIND the probe emitted, or None."""
    found = records(run, kind)
    return found[0] if found else None


def fit(lines, width=WIDTH):
    """LINES broken to the PDF's width for the workbook, each break
    marked as the transcripts mark theirs, and the build folder's path
    said as a learner's clone says it (build/...)."""
    fitted = []
    for line in lines:
        line = line.replace(BUILD + '/', 'build/')
        while len(line) > width:
            cut = line.rfind(' ', width // 2, width - 1) + 1 or width - 1
            fitted.append(line[:cut] + WRAP_MARK)
            line = '        ' + line[cut:]
        fitted.append(line)
    return fitted


def experiment(n):
    """Run labs/N/experiment.py, log what it read its rows from, and
    return its rows (build/results/TABLE.tsv, TABLE the lab's
    experiment_table, by column name); a failed run is one failed check,
    and the check ends there."""
    import subprocess
    rc = subprocess.call([sys.executable, '-m', 'labs.%d.experiment' % n], cwd=TOP,
                         stdout=sys.stderr)
    if rc:
        not_ok('labs/%d/experiment.py ran to its end (got: exit %d)' % (n, rc))
        sys.exit(0)
    base = os.path.join(BUILD, 'results', facts.lab(n)['experiment_table'])
    with open(base + '.log') as f:
        log(f.read().rstrip())
    return results.read_table(base + '.tsv')


def exercises_in(name):
    """The learners' trees and files of this check: build/NAME, not the
    learner's build/exercises (vm/session/ks and exercise.py read
    $EXERCISES)."""
    os.environ['EXERCISES'] = os.path.join(BUILD, name)
    return os.environ['EXERCISES']


def ks(*args, exercise=True, stdin=b'', env=None):
    """vm/session/ks ARGS as make runs it, EXERCISE=1 (the learner's kernel)
    unless EXERCISE is false; STDIN: what gdb reads (make lab), ENV: more
    variables. Logged; (exit status, output, seconds)."""
    import subprocess
    import time
    t0 = time.time()
    p = subprocess.run([sys.executable, '-m', 'vm.session.ks'] + [str(a) for a in args],
                       cwd=TOP, input=stdin, env=dict(os.environ, EXERCISE='1' if exercise
                                             else '0', **(env or {})),
                       stdout=subprocess.PIPE, stderr=subprocess.STDOUT)
    out = p.stdout.decode(errors='replace')
    took = time.time() - t0
    log('--- vm/session/ks %s (exit %d, %.0f s):' % (' '.join(map(str, args)),
                                            p.returncode, took), out.rstrip())
    return p.returncode, out, took

