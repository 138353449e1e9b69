# Every grade make check ran (checks 84, 85, 88, 89...) left a KTAP report
# (vm/session/ks copies each to build/check/ktap/): the kernel's own KTAP
# parser, tools/testing/kunit/kunit_parser.py of the 6.1 tree, must read
# each without an error, with as many results as its plan. Every lab's
# grader and every task's grader must have reported at least once. Then
# the parser and gradelib are shown to catch a short report and an empty
# plan.
import glob
import io
import os
import re
import sys

from checklib import CHECK, TOP, expect, log
import facts
import gradelib
from session import BUILD

KUNIT = os.path.join(BUILD, 'src', 'linux', 'tools', 'testing', 'kunit')
sys.path.insert(0, KUNIT)
import kunit_parser                                                   # noqa: E402
import kunit_printer                                                  # noqa: E402


def parse(text):
    """(subtests, plan, errors) of a KTAP report, by the kernel's parser
    (its own progress lines, which it prints through the Printer it took
    at import, go to the log)."""
    out = io.StringIO()
    kunit_parser.stdout = kunit_printer.Printer(out)
    test = kunit_parser.parse_run_tests(text.splitlines(True))
    log(out.getvalue())
    errors = list(test.log if test.status != kunit_parser.TestStatus.SUCCESS and
                  not test.subtests else [])
    bad = test.counts.errors or test.status in (
        kunit_parser.TestStatus.NO_TESTS, kunit_parser.TestStatus.FAILURE_TO_PARSE_TESTS)
    return len(test.subtests), test.expected_count, bad, errors


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
# plan, and a plan of nothing; gradelib says the same of both.
two = [dict(title='a', status='ok'), dict(title='b', status='fail')]
short = gradelib.ktap(3, two)          # as a grader that crashed would leave it
n, plan, bad, _ = parse(short)
expect(bad or n != plan, 'kunit_parser refuses a report with 2 results of a plan of 3',
       short)
n, plan, bad, _ = parse(gradelib.ktap(0, []))
expect(bad, 'kunit_parser refuses a report whose plan is 0')
expect(gradelib.short_of_plan(3, two) and gradelib.short_of_plan(0, []) and
       not gradelib.short_of_plan(2, two),
       'make grade refuses a run short of its plan or with an empty plan, and passes a whole one',
       [gradelib.short_of_plan(3, two), gradelib.short_of_plan(0, []),
        gradelib.short_of_plan(2, two)])
skipped = gradelib.ktap(1, [dict(title='c # 2', status='skip', reason='skipped: it needs x')])
n, plan, bad, _ = parse(skipped)
expect(not bad and n == 1 and '# SKIP skipped' in skipped,
       'a skipped check is a KTAP SKIP directive, and a title\'s own # does not start one',
       skipped)
