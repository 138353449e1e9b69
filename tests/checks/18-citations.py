# The workbook's citations of the 6.1 tree hold (book/citations.py): every
# cited file exists in the tree of its text's stage, and a cited identifier
# is in it, and with a line, in its code (not only in a comment or a
# preprocessor line) at the cited line give or take a few; found a few
# lines off, the shift is logged as a note. One line per text that cites
# the tree; then the check proves it can fail, on a scratch copy of one
# chapter with planted citations, and that it follows a function moved in
# a scratch copy of its file, and fails when it is gone. No guest, no
# kernel build: the extracted tree is enough.
import os
import re
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
# its own: the real line of a real identifier, then wrong ones (among them
# a line where only a comment, or only an #if, names the identifier).
chapter = 'book/chapters/model.adoc'
fork = os.path.join(citations.PRISTINE, 'kernel', 'fork.c')
# They cite the installed tree's own lines: they are held to the rule of
# the book's own release, whichever 6.1 this machine has (on another, a
# line 100 off would be a shift, not a wrong line).
citations.BOOK_RELEASE = citations.release(citations.PRISTINE) or citations.BOOK_RELEASE
with open(fork) as f:
    fork_lines = f.read().splitlines(True)
raw = [line.rstrip('\n') for line in fork_lines]
code = citations.code(fork, raw)
n = next(i for i, line in enumerate(raw, 1) if line.startswith('void set_task_stack_end_magic('))


def named_only_outside_code(name, test):
    """The first line of fork.c that names NAME where TEST(raw line) holds
    and no line of code within the slack does (0 if none)."""
    code_at = [i for i, line in enumerate(code, 1) if re.search(r'\b%s\b' % name, line)]
    return next((i for i, line in enumerate(raw, 1) if re.search(r'\b%s\b' % name, line)
                 and test(line) and not any(abs(i - j) <= citations.SLACK for j in code_at)), 0)


# dup_task_struct() named in a comment far from its code (copy_process()'s
# "/* Must remain after dup_task_struct() */"); SPLIT_RSS_COUNTING only
# ever in an #if line.
in_comment = named_only_outside_code('dup_task_struct', lambda line: '/*' in line)
in_directive = named_only_outside_code('SPLIT_RSS_COUNTING', lambda line: line.startswith('#'))
fn = '`set_task_stack_end_magic()`'
planted = {
    'right, with its line': '%s (`kernel/fork.c:%d`)' % (fn, n),
    'right, without a line': '%s in `kernel/fork.c`' % fn,
    'wrong line': '%s (`kernel/fork.c:%d`)' % (fn, n + 100),
    'a wrong line after a right one': '%s (`kernel/fork.c:%d`), used at line %d' % (fn, n, n + 100),
    'no such file': '%s (`kernel/no_such_file.c`)' % fn,
    'not in the file': '%s (`kernel/exit.c`)' % fn,
    'at a line where only a comment names it': '`dup_task_struct()` (`kernel/fork.c:%d`)'
    % in_comment,
    'at a line where only a preprocessor line names it':
    '`SPLIT_RSS_COUNTING` (`kernel/fork.c:%d`)' % in_directive,
}
caught = {'wrong line': 'is not within', 'a wrong line after a right one': 'is not within',
          'no such file': 'no such file', 'not in the file': 'is not in kernel/exit.c',
          'at a line where only a comment names it': 'only a comment or a preprocessor line',
          'at a line where only a preprocessor line names it':
          'only a comment or a preprocessor line'}
expect(in_comment and in_directive, 'kernel/fork.c has a comment naming dup_task_struct() '
       'and an #if naming SPLIT_RSS_COUNTING, each far from any code naming it, to plant '
       'citations on', 'comment line %d, #if line %d' % (in_comment, in_directive))
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
# (One planted sentence holds two citations: a line and a "line N".)
expect(len(after) - len(new) == len(before) and
       sum(c.line >= first for c in found) == len(planted) + 1,
       'the copy fails just as %s does, besides the planted citations' % chapter,
       '%d failures before, %d after; %d planted found' % (
           len(before), len(after), sum(c.line >= first for c in found)))

# A tree where the cited function moved down a few lines (as a later 6.1
# release may move it): the citation passes, and the shift is a note. A
# tree without the function: it fails (its one call is far below).
# Each is a scratch tree with only kernel/fork.c, read by a scratch text
# with only the one citation.
moved = 3
function_end = next(i for i in range(n, len(raw) + 1) if raw[i - 1] == '}')
far = 60      # another point release moves lines further (6.1.176: up to 57)
trees = {
    'moved': fork_lines[:n - 1] + ['\n'] * moved + fork_lines[n - 1:],
    'deleted': fork_lines[:n - 1] + fork_lines[function_end:],
    # The same far move in a tree of another point release (its Makefile
    # says 6.1.176), and in one of the book's own (6.1.192).
    'another release': fork_lines[:n - 1] + ['\n'] * far + fork_lines[n - 1:],
    "the book's release": fork_lines[:n - 1] + ['\n'] * far + fork_lines[n - 1:],
}
other = '176' if citations.BOOK_RELEASE != '176' else '175'
releases = {'another release': other, "the book's release": citations.BOOK_RELEASE}
said = '%s (`kernel/fork.c:%d`)' % (fn, n)
with tempfile.TemporaryDirectory() as scratch:
    os.makedirs(os.path.join(scratch, 'text', 'book', 'chapters'))
    with open(os.path.join(scratch, 'text', chapter), 'w') as f:
        f.write('= Planted\n\n%s.\n' % said)
    result = {}
    for what, lines in trees.items():
        root = os.path.join(scratch, what)
        os.makedirs(os.path.join(root, 'kernel'))
        with open(os.path.join(root, 'kernel', 'fork.c'), 'w') as f:
            f.writelines(lines)
        if what in releases:
            with open(os.path.join(root, 'Makefile'), 'w') as f:
                f.write('VERSION = 6\nPATCHLEVEL = 1\nSUBLEVEL = %s\n' % releases[what])
        result[what] = citations.run([chapter], top=os.path.join(scratch, 'text'), root=root)
cites, failed, notes = result['moved']
for c, note in notes:
    log('note: %s: %s' % (citations.describe(c), note))
shift = 'cited line %d, found on line %d (+%d)' % (n, n + moved, moved)
expect(len(cites) == 1 and not failed and any(shift in note for _, note in notes),
       'a citation of a function moved %d lines down in a scratch kernel/fork.c passes, the '
       'shift noted: %s' % (moved, said),
       '; '.join(why for _, why in failed) or 'notes: %s' % [note for _, note in notes])
cites, failed, _ = result['deleted']
expect(len(cites) == 1 and failed and 'is not within' in failed[0][1],
       'the same citation fails once the function is deleted from the scratch kernel/fork.c',
       failed[0][1] if failed else 'passed')
cites, failed, notes = result['another release']
expect(len(cites) == 1 and not failed and any(
    'on 6.1.%s' % other in note and '(+%d)' % far in note for _, note in notes),
       'in a tree of another point release, the function %d lines down still passes, the '
       'release and the shift noted' % far,
       '; '.join(why for _, why in failed) or [note for _, note in notes])
cites, failed, _ = result["the book's release"]
expect(len(cites) == 1 and failed, "in a tree of the book's own release, the same %d-line "
       'move fails: the book\'s line is wrong there' % far, 'passed')
