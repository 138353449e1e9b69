# A new lab is its folder and its chapter (issue 48): a toy lab 8, added
# to a scratch clone of the checkout as a maintainer adds one (labs/8/ from
# lab 5's files with its exercise and experiment taken out, and
# book/chapters/lab8.adoc), shows up in make help, make grade's table,
# the book's table of contents and the lists the checks run over, with
# no other file edited (git status in the clone: the two new paths only).
# No guest boots: the table grades no lab that is not started.
import os
import re
import shutil
import subprocess
import tempfile

from tests.checklib import TOP, expect, log

with tempfile.TemporaryDirectory() as scratch:
    clone = os.path.join(scratch, 'kstack')
    subprocess.run(['git', 'clone', '-q', '--no-hardlinks', TOP, clone], check=True)
    # The lab: lab 5's grader, README and guest, its own title; no
    # exercise and no experiment (those need material that only a run of
    # the checks keeps, book/runs/).
    lab8 = os.path.join(clone, 'labs', '8')
    shutil.copytree(os.path.join(clone, 'labs', '5'), lab8,
                    ignore=shutil.ignore_patterns('task', 'experiment.py'))
    with open(os.path.join(lab8, 'lab.toml')) as f:
        toml = f.read()
    toml = re.sub(r'^title = .*$', 'title = "a toy lab"', toml, count=1, flags=re.M)
    toml = re.sub(r'^experiment_\w+ = .*$', '', toml, flags=re.M)
    toml = toml[:toml.index('\n[exercise]')] if '\n[exercise]' in toml else toml
    with open(os.path.join(lab8, 'lab.toml'), 'w') as f:
        f.write(toml + '\n')
    with open(os.path.join(clone, 'book', 'chapters', 'lab8.adoc'), 'w') as f:
        f.write('= Lab 8: a toy lab\n\n== Goal\n\nA lab added as its folder and its '
                'chapter.\n\n== Questions\n\ninclude::../../labs/8/README.md[tag=questions]\n')
    status = subprocess.run(['git', 'status', '--porcelain', '--untracked-files=normal'],
                            cwd=clone, capture_output=True, text=True).stdout.split('\n')
    expect(sorted(l for l in status if l) == ['?? book/chapters/lab8.adoc', '?? labs/8/'],
           'the toy lab 8 is two new paths in the clone, and no other file changed',
           ' | '.join(status))
    env = dict(os.environ, TOP=clone, BUILD=os.path.join(scratch, 'build'))
    env.pop('ANSWERS', None)

    def make(*args):
        p = subprocess.run(['make', '-s', '-C', clone] + list(args), env=env,
                           capture_output=True, text=True)
        log('$ make %s\n%s%s' % (' '.join(args), p.stdout, p.stderr))
        return p

    helped = make('help').stdout
    expect(re.search(r'labs: 0 1 2 3 4 5 6 7 8\b', helped),
           'make help lists lab 8 among the labs', helped[:300])
    os.mkdir(os.path.join(scratch, 'answers'))      # a learner's, empty
    table = make('grade', 'ANSWERS=%s' % os.path.join(scratch, 'answers'))
    expect(re.search(r'^8\s+a toy lab\s+not started', table.stdout, re.M),
           "make grade's table has lab 8's row, not started (and boots nothing for it)",
           table.stdout.strip()[-400:] + table.stderr.strip()[-200:])
    lists = subprocess.run(
        ['python3', '-c', 'from vm.session import facts; from book import kept\n'
         'print(facts.labs(), facts.task_labs(), [n for n in facts.labs() '
         'if facts.lab(n)["kind"] == "gdb"])'],
        cwd=clone, env=env, capture_output=True, text=True)
    expect(lists.returncode == 0 and lists.stdout.startswith('[0, 1, 2, 3, 4, 5, 6, 7, 8]'),
           "the lists the checks run over (facts.labs(): the graders' check 85, the "
           "answers' check 11, the variants' check 96) hold lab 8",
           (lists.stdout + lists.stderr).strip())
    book = make('book')
    html = os.path.join(scratch, 'build', 'book', 'index.html')
    toc = open(html).read() if os.path.exists(html) else ''
    expect(book.returncode == 0 and re.search(r'<li><a href="#[^"]*">[^<]*Lab 8: a toy lab</a>', toc),
           "the book's table of contents has lab 8's chapter, with no list edited",
           (book.stderr or book.stdout).strip()[-300:])
