# Every lab's facts file (labs/N/lab.toml) holds together, before any
# guest boots: its stage is one vm/stages.toml describes; the files its
# kind needs are there (lab.gdb for a gdb lab, grade.py, the guest
# workload it names); and the questions its README asks a learner are
# exactly the ones its grader answers (the [questions] of lab.toml), so
# that `make grade ANSWERS=...` accepts every key the README lists; and a
# lab with an exercise has its skeleton patch, and its README gives the
# first of the hints `make hint` gives.
import os
import re
import sys

sys.path.insert(0, os.path.dirname(os.path.dirname(os.path.abspath(__file__))))
from checklib import expect, facts, log  # noqa: E402


def readme_questions(folder):
    """The keys the README's questions block lists: each item starts
    "- `key`: ..." or "- `key`, `key`: ..."."""
    with open(os.path.join(folder, 'README.md')) as f:
        text = f.read()
    block = re.search(r'tag::questions\[\](.*?)end::questions', text, re.S)
    if not block:
        return None
    heads = re.findall(r'^- (.*?):', block.group(1), re.M)
    return {key for head in heads for key in re.findall(r'`(\w+)`', head)}


for n in facts.labs():
    try:
        lab = facts.lab(n)
    except (facts.Unknown, KeyError, ValueError) as e:
        expect(False, 'lab %d: labs/%d/lab.toml names a known stage' % (n, n), e)
        continue
    need = ['grade.py'] + (['lab.gdb'] if lab['kind'] == 'gdb' else [])
    need += [lab['guest']] if lab['guest'] else []
    missing = [f for f in need if not os.path.isfile(os.path.join(lab['folder'], f))]
    expect(lab['kind'] in ('gdb', 'crash') and not missing,
           'lab %d: a %s lab of stage %d with %s' % (n, lab['kind'], lab['stage'],
                                                     ', '.join(need)),
           'kind %s, missing %s' % (lab['kind'], missing))
    asked = readme_questions(lab['folder'])
    answered = set(lab['questions'])
    log('lab %d: README asks %s; lab.toml has %s' % (n, asked, sorted(answered)))
    expect(asked == answered,
           'lab %d: the README asks the questions lab.toml lists (%s)'
           % (n, ' '.join(sorted(answered))),
           'README: %s' % (' '.join(sorted(asked)) if asked else 'no questions block'))
    ex = lab.get('exercise')
    if ex:
        with open(os.path.join(lab['folder'], 'README.md')) as f:
            readme = ' '.join(f.read().split())
        first = ' '.join(ex['hints'][0].split())
        expect(os.path.isfile(os.path.join(lab['folder'], ex['skeleton'])) and
               first in readme, 'lab %d: its exercise has its skeleton (%s) and '
               'the README gives its first hint' % (n, ex['skeleton']),
               'skeleton %s; first hint in README: %s' % (
                   os.path.isfile(os.path.join(lab['folder'], ex['skeleton'])),
                   first in readme))
