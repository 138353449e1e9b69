# A learner's variant of the numbers (vm/session/variant.py, labs/N/lab.toml's
# [variant]): an answer copied from the book or from a classmate does not
# pass, one's own does.
#  - each variant table holds together (the book's value is none of a
#    learner's choices), a learner's pick is the same in every process,
#    and the id is made once and kept when LEARNER is not given;
#  - two learners, A and B, whose variants differ in every lab that has
#    one: lab by lab, the answers A's own run found pass A's grade on a
#    fresh guest (lab 6: on A's dump), and fail B's by name.
import os
import subprocess
import tempfile

from tests.checklib import CHECK, TOP, expect, facts, log
from tests.variants import grade as graded, own_checks_passed
from vm.session import variant


def grade(n, who, answers=None):
    """tests/variants.py's grade, its output kept in this check's log."""
    out, found = graded(n, who, answers)
    log(out)
    return out, found


LIVE = [0, 1, 2, 3, 4, 5, 6, 7]
tables = {n: facts._lab_file(n).get('variant', {}) for n in facts.labs()}
tables = {n: t for n, t in tables.items() if t}
expect(set(LIVE) <= set(tables), 'labs %s have a learner\'s variant' % LIVE,
       ' '.join(map(str, tables)))

for n, table in tables.items():
    bad = [k for k, e in table.items()
           if e['book'] in e['choices'] or len(set(e['choices'])) != len(e['choices'])
           or len(e['choices']) < 4 or not e['says']]
    expect(not bad, "lab %d's variant: four choices or more, none the book's, and a "
           'banner line for each' % n, ' '.join(bad))

# Two learners that differ in every key (the first pair of these names).
NAMES = ['ada', 'grace', 'edsger', 'barbara', 'ken', 'dennis', 'frances', 'linus']
pair = next(((a, b) for a in NAMES for b in NAMES if a < b and all(
    variant.of(n, t, a)[k] != variant.of(n, t, b)[k]
    for n, t in tables.items() for k in t)), None)
expect(pair, 'two learners whose variants differ in every key of every lab',
       'none among %s' % NAMES)
A, B = pair or ('ada', 'grace')

# The pick, from another process, and the id kept when none is given.
with tempfile.TemporaryDirectory() as scratch:
    env = dict(os.environ, BUILD=scratch)
    env.pop('LEARNER', None)
    ask = ['python3', '-c', 'from vm.session import facts; '
           'print(facts.lab(4)["variant"], facts.lab(4)["banner"].splitlines()[-1])']
    first = subprocess.run(ask, env=env, cwd=TOP, capture_output=True, text=True)
    again = subprocess.run(ask, env=env, cwd=TOP, capture_output=True, text=True)
    kept = open(os.path.join(scratch, 'learner')).read().strip() if os.path.exists(
        os.path.join(scratch, 'learner')) else None
    expect(first.returncode == 0 and first.stdout == again.stdout and kept
           and ('LEARNER=%s)' % kept) in first.stdout,
           'with no LEARNER, an id is made once, kept in the build folder, and named '
           'by the banner', (first.stdout + first.stderr + again.stdout).strip())
bad = subprocess.run(['python3', '-m', 'vm.session.ks', 'grade', '4'], cwd=TOP,
                     env=dict(os.environ, LEARNER='../other'), capture_output=True, text=True)
expect(bad.returncode != 0 and "LEARNER='../other' is not an id" in bad.stdout + bad.stderr,
       'LEARNER=../other is refused, and the message says what an id is',
       (bad.stdout + bad.stderr).strip()[-300:])


for n in LIVE:
    asked = [k for k, q in facts.lab(n)['questions'].items()
             if not k.startswith('predict_') and 'answer' not in q and 'require' not in q]
    _, mine = grade(n, A)
    path = os.path.join(CHECK, 'lab%d.%s' % (n, A))
    with open(path, 'w') as f:
        f.write(''.join('%s = %s\n' % (k, mine[k]) for k in asked if k in mine))
    own, _ = grade(n, A, path)
    other, theirs = grade(n, B, path)
    varies = [k for k in asked if k in mine and k in theirs and mine[k] != theirs[k]]
    expect(all(k in mine for k in asked) and all('ok - answer %s = %s' % (k, mine[k]) in own
                                                 for k in asked)
           and own_checks_passed(own),
           "lab %d: %s's answers from %s's own run pass on a fresh guest of %s's variant, "
           "and the lab's own checks pass there" % (n, A, A, A), ' '.join('%s=%s' % kv for kv in mine.items() if kv[0] in asked))
    expect(varies and all('not ok - answer %s = %s' % (k, mine[k]) in other for k in varies),
           "lab %d: %s's answers fail %s's variant by name (%s)" % (n, A, B, ' '.join(
               '%s %s, not %s' % (k, mine[k], theirs[k]) for k in varies)), other.strip()[-400:])
