# Every grade make check ran (checks 84, 85, 88, 89...) left a KTAP report
# (vm/session/grading.py copies each to build/check/ktap/): the kernel's own KTAP
# parser, tools/testing/kunit/kunit_parser.py of the 6.1 tree, must read
# each without an error, with as many results as its plan. Every lab's
# grader and every task's grader must have reported at least once. Then
# the parser and results.py are shown to catch a short report and an empty
# plan.
import glob
import json
import os
import re
import subprocess
import sys

from tests.checklib import CHECK, TOP, expect, log
from vm.session import facts
from vm.session import results
from vm.session.session import BUILD

KUNIT = os.path.join(BUILD, 'src', 'linux', 'tools', 'testing', 'kunit')
# The parser runs in its own folder, where Python finds the tree's modules
# (a program's first search path is its current folder): it reads the
# report on stdin and prints what it made of it. Its own progress lines,
# which it prints through the Printer it took at import, go to the log.
PARSE = """
import io, json, sys
import kunit_parser, kunit_printer
out = io.StringIO()
kunit_parser.stdout = kunit_printer.Printer(out)
test = kunit_parser.parse_run_tests(sys.stdin.read().splitlines(True))
S = kunit_parser.TestStatus
print(json.dumps(dict(
    n=len(test.subtests), plan=test.expected_count, log=out.getvalue(),
    bad=bool(test.counts.errors or test.status in (S.NO_TESTS, S.FAILURE_TO_PARSE_TESTS)),
    errors=list(test.log if test.status != S.SUCCESS and not test.subtests else []))))
"""


def parse(text):
    """(subtests, plan, bad, errors) of a KTAP report, by the kernel's
    parser."""
    p = subprocess.run([sys.executable, '-c', PARSE], cwd=KUNIT, input=text,
                       stdout=subprocess.PIPE, text=True, check=True)
    got = json.loads(p.stdout)
    log(got['log'])
    return got['n'], got['plan'], got['bad'], got['errors']


reports = sorted(glob.glob(os.path.join(CHECK, 'ktap', '*.ktap')))
seen = set()
for path in reports:
    name = os.path.basename(path)
    lab, kind = re.match(r'lab(\d+)-(grade|task)-', name).groups()
    seen.add((int(lab), kind))
    with open(path) as f:
        text = f.read()
    n, plan, bad, errors = parse(text)
    expect(not bad and n == plan and plan,
           "kunit_parser reads lab %s's %s report %s: %s results, plan %s"
           % (lab, 'task grader' if kind == 'task' else 'grader', name, n, plan),
           errors or text.splitlines()[:3])

wanted = set()
for k in facts.labs():
    wanted.add((k, 'grade'))
    if os.path.exists(os.path.join(TOP, 'labs', str(k), 'task', 'grade.py')):
        wanted.add((k, 'task'))
missing = sorted(wanted - seen)
expect(reports and not missing, 'every grader and task grader left a KTAP report (%d reports)'
       % len(reports), 'none from %s' % ', '.join('lab %d %s' % m for m in missing))

# The parser catches what make grade must refuse: fewer results than the
# plan, and a plan of nothing; results.py says the same of both.
two = [dict(title='a', status='ok'), dict(title='b', status='fail')]
short = results.ktap(3, two)          # as a grader that crashed would leave it
n, plan, bad, _ = parse(short)
expect(bad or n != plan, 'kunit_parser refuses a report with 2 results of a plan of 3',
       short)
n, plan, bad, _ = parse(results.ktap(0, []))
expect(bad, 'kunit_parser refuses a report whose plan is 0')
expect(results.short_of_plan(3, two) and results.short_of_plan(0, []) and
       not results.short_of_plan(2, two),
       'make grade refuses a run short of its plan or with an empty plan, and passes a whole one',
       [results.short_of_plan(3, two), results.short_of_plan(0, []),
        results.short_of_plan(2, two)])
skipped = results.ktap(1, [dict(title='c # 2', status='skip', reason='skipped: it needs x')])
n, plan, bad, _ = parse(skipped)
expect(not bad and n == 1 and '# SKIP skipped' in skipped,
       'a skipped check is a KTAP SKIP directive, and a title\'s own # does not start one',
       skipped)

# make check's own output (tests/run.sh) is KTAP too: planted checks in a
# scratch checkout, one that passes, one that fails, one that skips and
# one that never ends (a per-check timeout of 3 s ends it), read by the
# same parser: a result for each of the plan's checks, the timed-out one
# not ok by name, the slowest listed, the last line the count.
import shutil      # noqa: E402
import tempfile    # noqa: E402
PLANTED = {
    '10-passes.sh': 'echo "ok - it holds"\n',
    '20-fails.sh': 'echo "ok - one holds"\necho "not ok - one does not"\n',
    '30-skips.sh': 'echo "skip - it needs a thing: this machine has none"\n',
    '40-hangs.sh': 'echo "ok - it began"\nsleep 600\n',
}
with tempfile.TemporaryDirectory() as scratch:
    os.makedirs(os.path.join(scratch, 'tests', 'checks'))
    os.makedirs(os.path.join(scratch, 'vm', 'host'))
    shutil.copy(os.path.join(TOP, 'vm', 'host', 'lib.sh'), os.path.join(scratch, 'vm', 'host'))
    shutil.copy(os.path.join(TOP, 'tests', 'run.sh'), os.path.join(scratch, 'tests'))
    for name, text in PLANTED.items():
        with open(os.path.join(scratch, 'tests', 'checks', name), 'w') as f:
            f.write(text)
    env = {k: v for k, v in os.environ.items() if k not in ('CHECKS', 'TOP', 'BUILD')}
    p = subprocess.run(['sh', os.path.join(scratch, 'tests', 'run.sh')], cwd=scratch,
                       env=dict(env, KS_CHECK_TIMEOUT='3'), stdout=subprocess.PIPE,
                       stderr=subprocess.STDOUT, text=True, timeout=120)
    out = p.stdout
    log(out)
    n, plan, bad, _ = parse(out)
    lines = out.strip().splitlines()
    expect(n == plan == 4 and lines[-1] == '3 passed, 2 failed, 1 skipped' and p.returncode != 0,
           "make check's runner writes KTAP the kernel's parser reads: 4 results of a plan "
           "of 4, and its last line is the count", (n, plan, lines[-1:]))
    expect(re.search(r'^    not ok \d+ 40-hangs: ran out of its time, 3 s', out, re.M) and
           re.search(r'^not ok 4 40-hangs # \d+s$', out, re.M) and
           re.search(r'^    ok 1 it needs a thing # SKIP this machine has none$', out, re.M) and
           re.search(r'^ok 3 30-skips # SKIP', out, re.M) and
           re.search(r'^#\s+\d+ s\s+40-hangs$', out, re.M),
           'a check that runs out of its time is ended and not ok by name, a skip is a '
           'SKIP with its reason, and the slowest checks are listed', out[-600:])

# A stop the grader misses is not the learner's failure (labs/gradelib.py's
# Missed): its check is a SKIP with its reason, which vm/session/grading.py takes
# for a grade to run again on a fresh guest, and at last for an
# incomplete one; a plain failure is not taken for one.
from vm.session import grading    # noqa: E402
GRADER = """
from labs.gradelib import Missed, expect, run_tests, test
@test('a stop it needs')
def missed():
    raise Missed('the grader did not reach this stop in 2000 hits')
@test('a check that fails')
def fails():
    expect(1, 2, 'a number')
run_tests()
"""
with tempfile.TemporaryDirectory() as scratch:
    records = os.path.join(scratch, 'records.jsonl')
    subprocess.run([sys.executable, '-c', GRADER], cwd=TOP, stdout=subprocess.DEVNULL,
                   env=dict(os.environ, KS_RESULTS=records, KS_LAB='0'), check=True)
    tests = results.read(records, 'test')
    report = results.ktap(2, tests)
expect([t['status'] for t in tests] == ['skip', 'fail'] and
       grading.missed(tests) == ['a stop it needs'] and
       '# SKIP missed: the grader did not reach this stop' in report,
       'a missed stop is a SKIP with its reason, which make grade grades again (and '
       'calls incomplete), and a failure is not one', (tests, report))
