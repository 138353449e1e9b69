# The workbook's citations of the 6.1 tree hold (book/citations.py): every
# cited file exists in the tree of its text's stage, and a cited identifier
# is in it, at the cited line give or take a few. One line per text that
# cites the tree; then the check proves it can fail, on a scratch copy of
# one chapter with planted citations. No guest, no kernel build: the
# extracted tree is enough.
import os
import shutil
import sys
import tempfile

from book import citations
from tests.checklib import TOP, expect, log

if not os.path.isdir(os.path.join(citations.PRISTINE, 'kernel')):
    expect(False, 'the kernel tree the citations are checked in is there',
           "%s is missing: run 'make kernel N=0', which extracts it" % citations.PRISTINE)
    sys.exit(0)

cites, failures, notes = citations.run(citations.texts())
for c, note in notes:
    log('note: %s: %s' % (citations.describe(c), note))
for c in cites:
    if c.ident is None:
        log('unpaired (file checked only): %s' % citations.describe(c))
for name in sorted({c.text for c in cites}):
    mine = [c for c in cites if c.text == name]
    bad = [(c, why) for c, why in failures if c.text == name]
    expect(not bad, "%s: its %d citation%s of %s hold" % (
        name, len(mine), 's' * (len(mine) != 1), citations.tree_name(mine[0].stage)),
        '; '.join('line %d, %s: %s' % (c.line, c.said, why) for c, why in bad))
# (A count that fell would mean the texts, or the reader of them, lost
# their citations.)
expect(len(cites) >= 100, 'checked %d citations of the 6.1 tree in %d texts (%d with a '
       'line number, %d with no identifier to pair: file only)' % (
           len(cites), len({c.text for c in cites}), sum(c.first is not None for c in cites),
           sum(c.ident is None for c in cites)))

# Planted citations in a copy of model.adoc (stage 0), each a paragraph of
# its own: the real line of a real identifier, then three wrong ones.
chapter = 'book/chapters/model.adoc'
with open(os.path.join(citations.PRISTINE, 'kernel', 'fork.c')) as f:
    n = next(i for i, line in enumerate(f, 1)
             if line.startswith('void set_task_stack_end_magic('))
fn = '`set_task_stack_end_magic()`'
planted = {
    'right, with its line': '%s (`kernel/fork.c:%d`)' % (fn, n),
    'right, without a line': '%s in `kernel/fork.c`' % fn,
    'wrong line': '%s (`kernel/fork.c:%d`)' % (fn, n + 100),
    'no such file': '%s (`kernel/no_such_file.c`)' % fn,
    'not in the file': '%s (`kernel/exit.c`)' % fn,
}
caught = {'wrong line': 'is not within', 'no such file': 'no such file',
          'not in the file': 'is not in kernel/exit.c'}
_, before, _ = citations.run([chapter])
with tempfile.TemporaryDirectory() as scratch:
    os.makedirs(os.path.join(scratch, 'book', 'chapters'))
    copy = os.path.join(scratch, chapter)
    shutil.copy(os.path.join(TOP, chapter), copy)
    with open(copy) as f:
        text = f.read()
    first = text.count('\n') + 2             # the planted paragraphs' lines
    with open(copy, 'a') as f:
        f.write(''.join('\nPlanted, %s: %s.\n' % kv for kv in planted.items()))
    found, after, _ = citations.run([chapter], top=scratch)
new = {c.line: (c, why) for c, why in after if c.line >= first}
for i, (what, said) in enumerate(planted.items()):
    line = first + 2 * i
    c, why = new.get(line, (None, None))
    if what in caught:
        expect(why and caught[what] in why, 'a planted citation, %s, fails: %s' % (what, said),
               why or 'passed')
    else:
        expect(line not in new, 'a planted citation, %s, passes: %s' % (what, said),
               why)
expect(len(after) - len(new) == len(before) and
       sum(c.line >= first for c in found) == len(planted),
       'the copy fails just as %s does, besides the planted citations' % chapter,
       '%d failures before, %d after; %d planted found' % (
           len(before), len(after), sum(c.line >= first for c in found)))
