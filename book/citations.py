#!/usr/bin/env python3
"""Check the workbook's citations of the Linux 6.1 tree against the tree.

usage: python3 book/citations.py [TEXT...]   (default: every text below)

The texts: book/chapters/*.adoc, book/appendix.adoc, labs/README.md,
labs/*/README.md, labs/*/lab.toml and labs/*/task/* (not solution.patch).
AsciiDoc and Markdown are "markup" texts; the others are "plain" (hints in
TOML strings, comments in code).

What a citation is
  A path in the kernel tree: its first part is a top-level folder of the
  tree (arch/, kernel/, include/, ...), it is not the tail of a longer
  path (vm/guest/init, a/arch/... in a patch), and it may be wrapped at a
  "/" onto the next line. build/stage-K/src/PATH cites PATH in stage K's
  tree. A bare file name, `irq_32.c` or asm/asm.h, is a citation when it
  resolves: to the nearest full path of that name the same text cites
  (before it, else after it), else to the one such path all the texts
  cite, else in the tree (asm/X, linux/X: arch/x86/include/X, then
  include/X; a plain name: the one file of that name under arch/x86/, as
  the workbook's kernels are x86). A name that does not resolve
  (predict.c, grade.py) is a project file, not a citation.

  Its line, if any: PATH:N or PATH:N-M, `PATH` ~N, or a phrase "line N",
  "lines N-M", "around line N" later in the same sentence, which cites
  the identifier nearest before it (table cells say "`softirq.c`: `a()`
  (line 416), `b()` (line 484)": two citations). After PATH:N such a
  phrase is a citation of its own ("unwind_frame.c:80-87, through
  `b()`, called at line 276": `b()` at 276).

  Not read: a second line of the same file with no "line" before it
  ("`traps.c:421` and `:492`", "unwind_frame.c:80-87 and 295"), a
  top-level file without a folder (Makefile, Kconfig: too common a word
  to be sure of).

  2.6 citations are not checked: paths under arch/i386/ or include/asm-
  (layouts 6.1 does not have) and citations whose identifier follows
  "2.6's" or "2.6.18's" (kernel/irq/handle.c's 2.6 handle_IRQ_event()).

Which identifier a citation is paired with
  An identifier is a code span (`name`, `name()`, `name(args)`,
  `struct name`, `+name()+`) holding one C name; in plain texts also a
  bare word with "()" or an underscore (THREAD_SIZE_ORDER, per_cpu). Not
  x86_64, i386, x86: those name machines. The search stays in the
  citation's sentence: it ends at ". ", ";", a blank line, a list item,
  a table cell ("|") and a footnote's start. In that sentence:
    1. "PATH: `name`" or "PATH's `name`": that name (table cells, and
       "kernel/exit.c:123's `foo`");
    2. else the nearest identifier before the path ("`foo()`
       (kernel/exit.c)", "`foo()` in kernel/exit.c");
    3. else the first one after it, if only words lie between
       ("`arch/x86/Kconfig` selects `X`"; not across a comma or a
       parenthesis).
  A citation with no identifier is "unpaired": only its file is checked
  (and its line against the file's length); main lists them apart.

What is checked, in the tree of the text's stage (book/chapters/labN.adoc
and labs/N/...: lab N's stage, as vm/session/ks stage N says, x86_64 being
stage 0's tree; every other text: stage 0, as book/symcheck.sh does)
  - the file exists (a folder is fine: "arch/x86");
  - the identifier is in the file, as a whole word (in a Kconfig file
    without its CONFIG_ prefix), and with a line, in the code on one of
    lines N-SLACK to M+SLACK: cited lines drift as the tree is patched
    and from one 6.1 release to the next, a few lines of slack keep a
    citation true while it still points at the code. In the code: not in
    a C comment (/* */, //) nor in a preprocessor line, but for the name
    a #define defines and a CONFIG_ option (C tests those in #if lines);
    a comment that names a function is not where the function is.
    Found on another line than the cited one(s), the citation holds, and
    a note names the cited line and the line found (the shift); it
    fails when the identifier is gone from around the cited line.
  A stage tree not built yet: the pristine tree (build/src/linux) stands
  in for it. For a file the stage's patches change that is only an
  approximation, and the citation carries a note saying so.

run(..., root=DIR) reads every citation in the tree DIR instead (check
18's scratch copy of a file, with a function moved or deleted).

main prints one line per failure, the notes, the unpaired citations, and
"checked N citations in M files (K with a line number)", M counting the
texts that hold a citation; it exits 1 if a citation failed.
"""
import bisect
import collections
import glob
import os
import re
import subprocess
import sys

from vm.session import facts
from vm.session import session

TOP = facts.TOP
PRISTINE = os.path.join(session.BUILD, 'src', 'linux')   # vm/host/lib.sh's
SLACK = 8
# The 6.1 tree's top-level folders: a path that starts with one cites the tree.
TOPDIRS = ('Documentation arch block certs crypto drivers fs include init '
           'io_uring ipc kernel lib mm net rust samples scripts security '
           'sound tools usr virt').split()
HISTORIC = re.compile(r'arch/i386/|include/asm-')
STOP = {'x86_64', 'i386', 'x86'}

# A path: a top folder, then /parts; a part may follow a "/" that ends a
# line (the next line's comment marks and indent are not part of it).
PART = r'[\w+-]+(?:\.[\w+-]+)*'
PATH = re.compile(r'(?<![\w/.-])(?:build/stage-(\d+)/src/)?((?:%s)(?:/(?:\n[ \t#*]*)?%s)+)'
                  r'(?::(\d+)(?:-(\d+))?)?' % ('|'.join(TOPDIRS), PART))
BARE = re.compile(r'(?<![\w/.-])((?:asm/|linux/)?[A-Za-z_][\w-]*\.[chS])(?![\w/])'
                  r'(?::(\d+)(?:-(\d+))?)?')
LINE_PHRASE = re.compile(r'\b(?:around )?lines? (\d+)(?:-(\d+))?\b')
SPAN = re.compile(r'``(.+?)``|`([^`]+)`', re.S)
IDENT = re.compile(r'(?:struct |union |enum )?([A-Za-z_]\w*)(?:\(.*\))?', re.S)
BARE_IDENT = re.compile(r'(?<![\w$/.-])([A-Za-z_]\w*)(\(\))?')
HISTORIC_IDENT = re.compile(r"2\.\d+(?:\.\d+)?'s\s*$")
# Where a sentence ends (found in a copy with code spans and paths
# blanked, so their dots and bars do not count).
BOUNDARY = re.compile(r'[.!?](?=\s)|;|\||\n[ \t]*\n|footnote:\[|'
                      r'\n[ \t]*(?:[-*]+|\.+|\d+\.)[ \t]|\n[ \t]*"')
# Comment marks at a line's start in plain texts (and a patch's +/-).
COMMENT = re.compile(r'^[+-]?[ \t]*(?:/\*+|\*+(?!/)|#+|//)', re.M)

Citation = collections.namedtuple(
    'Citation', 'text line said path first last ident stage pos')


def texts(top=TOP):
    """The workbook's texts that may cite the tree, relative to TOP."""
    names = sorted(glob.glob('book/chapters/*.adoc', root_dir=top))
    names += ['book/appendix.adoc', 'labs/README.md']
    names += sorted(glob.glob('labs/*/README.md', root_dir=top))
    names += sorted(glob.glob('labs/*/lab.toml', root_dir=top))
    names += sorted(n for n in glob.glob('labs/*/task/*', root_dir=top)
                    if not n.endswith('solution.patch') and
                    os.path.isfile(os.path.join(top, n)))
    return names


def stage_of(name):
    """The stage a text is about (see the docstring)."""
    m = re.match(r'book/chapters/lab(\d+)\.adoc$|labs/(\d+)/', name)
    return str(facts.lab(int(m.group(1) or m.group(2)))['stage']) if m else '0'


def blank(s):
    return re.sub(r'\S', 'x', s)


class Text:
    """One text: its code spans, identifiers and sentences."""

    def __init__(self, name, raw):
        self.name, self.raw = name, raw
        self.markup = name.endswith(('.adoc', '.md'))
        text = raw if self.markup else COMMENT.sub(lambda m: ' ' * len(m.group()), raw)
        self.text = text
        self.spans = [(m.start(), m.end(), m.group(1) or m.group(2))
                      for m in SPAN.finditer(text)]
        # A path right after a word broken at a hyphen ("gdb-" at a line's
        # end, then "scripts/...") is the tail of another name.
        self.paths = [m for m in PATH.finditer(text)
                      if not re.search(r'-\n[ \t]*$', text[max(0, m.start() - 40):m.start()])]
        self.bares = [m for m in BARE.finditer(text)
                      if not any(p.start() <= m.start() < p.end() for p in self.paths)]
        # File names, resolved or not, are not identifiers.
        self.covered = ([(s, e) for s, e, _ in self.spans] +
                        [m.span() for m in self.paths + self.bares])
        masked = text
        for a, b in self.covered:
            masked = masked[:a] + blank(masked[a:b]) + masked[b:]
        self.masked = masked
        self.bounds = [m.start() for m in BOUNDARY.finditer(masked)]
        self.idents = []                         # (start, end, name)
        for s, e, body in self.spans:
            m = IDENT.fullmatch(body.strip('+').strip())
            if m and m.group(1) not in STOP:
                self.idents.append((s, e, m.group(1)))
        if not self.markup:
            # Bare words outside code spans and paths.
            for m in BARE_IDENT.finditer(text):
                if any(a <= m.start() < b for a, b in self.covered):
                    continue
                if (m.group(2) or '_' in m.group(1)) and m.group(1) not in STOP:
                    self.idents.append((m.start(), m.end(), m.group(1)))
        self.idents.sort()

    def sentence(self, pos):
        return bisect.bisect_right(self.bounds, pos)

    def line(self, pos):
        return self.raw.count('\n', 0, pos) + 1

    def outer(self, a, b):
        """The code span around [a, b), or [a, b) itself."""
        for s, e, _ in self.spans:
            if s <= a and b <= e:
                return s, e
        return a, b

    def pair(self, a, b):
        """The identifier paired with a path at [a, b) (the rules of the
        docstring), as (start, end, name), or None."""
        a, b = self.outer(a, b)
        same = [i for i in self.idents if self.sentence(i[0]) == self.sentence(a)
                and (i[1] <= a or i[0] >= b)]
        after = [i for i in same if i[0] >= b]
        if after and re.fullmatch(r"\s*(?::|'s)\s*", self.text[b:after[0][0]]):
            return after[0]
        before = [i for i in same if i[1] <= a]
        if before:
            return before[-1]
        # After the path only with nothing but words between ("`Kconfig`
        # selects `X`"), not across a comma or another parenthesis.
        if after and re.fullmatch(r"[\w\s'-]*", self.masked[b:after[0][0]]):
            return after[0]
        return None

    def historic(self, ident):
        return ident and HISTORIC_IDENT.search(self.text[max(0, ident[0] - 12):ident[0]])


def scan(name, raw, stage):
    """The citations of one text whose path is written out in full
    (bare names are resolved by resolve()), and the Text."""
    t = Text(name, raw)
    found = []
    for m in t.paths:
        path = re.sub(r'\n[ \t#*]*', '', m.group(2)).rstrip('.')
        if HISTORIC.match(path):
            continue
        cite(t, found, m, path, m.group(3), m.group(4), m.group(1) or stage)
    return t, found


def cite(t, found, m, path, first, last, stage):
    """Add the citation of path match M, and those of "line N" phrases
    that follow it in its sentence."""
    ident = t.pair(m.start(), m.end())
    if t.historic(ident):
        return
    a, b = t.outer(m.start(), m.end())
    tilde = re.match(r'[ \t]*~ ?(\d+)\b', t.text[b:])     # "`path` ~N"
    if tilde and not first:
        first = last = tilde.group(1)
    first = int(first) if first else None
    last = int(last) if last else first
    said = re.sub(r'\n[ \t#*]*', '', m.group(0))
    own = Citation(t.name, t.line(m.start()), said, path, first,
                   last, ident and ident[2], stage, m.start())
    lined = first is not None
    for ph in LINE_PHRASE.finditer(t.masked, b):
        # The phrase is this path's if no other path comes between.
        if t.sentence(ph.start()) != t.sentence(b) or any(
                b <= p.start() < ph.start() for p in t.paths + t.bares):
            break
        between = [i for i in t.idents if b <= i[0] and i[1] <= ph.start()]
        name = between[-1][2] if between else own.ident
        n, last = int(ph.group(1)), int(ph.group(2) or ph.group(1))
        c = own._replace(first=n, last=last, ident=name, said='%s ... %s' % (
            said, t.text[ph.start():ph.end()]), line=t.line(ph.start()))
        if name == own.ident and not lined:
            own, lined = c._replace(line=own.line), True
        else:
            found.append(c)
    found.append(own)


def resolve(t, bare, full, everywhere):
    """The full path a bare file name stands for, or None (docstring)."""
    name = bare.group(1)
    mine = [c for c in full if c.path == name or c.path.endswith('/' + name)]
    before = [c for c in mine if c.pos < bare.start()]
    if mine:
        return (before[-1] if before else mine[0]).path
    paths = {p for p in everywhere if p.endswith('/' + name)}
    if len(paths) == 1:
        return paths.pop()
    if '/' in name:
        for d in ('arch/x86/include', 'include'):
            if os.path.isfile(os.path.join(PRISTINE, d, name)):
                return '%s/%s' % (d, name)
        return None
    hits = x86_files().get(name, [])
    return hits[0] if len(hits) == 1 else None


_X86 = None


def x86_files():
    """{file name: [paths]} under the pristine tree's arch/x86/ (read once)."""
    global _X86
    if _X86 is None:
        _X86 = collections.defaultdict(list)
        for d, _, files in os.walk(os.path.join(PRISTINE, 'arch', 'x86')):
            for f in files:
                _X86[f].append(os.path.relpath(os.path.join(d, f), PRISTINE))
    return _X86


def find(sources):
    """Every citation of SOURCES, {name: text}, in text order."""
    scanned = {name: scan(name, raw, stage_of(name)) for name, raw in sources.items()}
    everywhere = {c.path for _, found in scanned.values() for c in found}
    cites = []
    for name, (t, full) in scanned.items():
        found = list(full)
        for m in t.bares:
            path = resolve(t, m, full, everywhere)
            if path:
                cite(t, found, m, path, m.group(2), m.group(3), stage_of(name))
        cites += sorted(found, key=lambda c: c.pos)
    return cites


_PATCHED, _FILES = {}, {}


def patched_files(k):
    """The files stage K's patches write (vm/host/lib.sh's patched_files)."""
    if k not in _PATCHED:
        out = subprocess.run(['sh', '-c', '. "$TOP/vm/host/lib.sh"; patched_files "$1"',
                              'patched', k], env=dict(os.environ, TOP=TOP),
                             stdout=subprocess.PIPE, text=True, check=True)
        _PATCHED[k] = set(out.stdout.split())
    return _PATCHED[k]


def tree(stage, path, root=None):
    """(the tree to read PATH in, a note or None) for a text of STAGE;
    ROOT, if given, stands in for every tree (a scratch copy)."""
    if root:
        return root, None
    k = str(facts.stage(stage)['tree'])
    src = session.stage_src(k)
    if os.path.isdir(src):
        return src, None
    if path in patched_files(k):
        return PRISTINE, ("stage %s's tree is not built ('make kernel N=%s'): read in the "
                          "pristine tree, which stage %s's patches change" % (k, k, k))
    return PRISTINE, None


# C's comments and literals, in one pass (a "/*" inside a string is not a
# comment, nor a quote inside a comment a string).
C_TOKEN = re.compile(r'/\*.*?\*/|//[^\n]*|"(?:\\.|[^"\\\n])*"|\'(?:\\.|[^\'\\\n])*\'', re.S)
DIRECTIVE = re.compile(r'^[ \t]*#[ \t]*(\w*)(.*)$')


def code(path, lines):
    """LINES of the file PATH as code: in C and assembler (.c, .h, .S,
    .lds), comments blanked (a /* */ comment keeps its line breaks, so
    line numbers hold) and preprocessor lines blanked but for the name a
    #define defines; in a Kconfig file its # comments blanked. Other
    files (Documentation, Makefiles) as they are. CONFIG_ options are
    looked for in the raw lines (C tests them in #if lines)."""
    base = os.path.basename(path)
    if base.startswith('Kconfig'):
        return [re.sub(r'#.*', '', line) for line in lines]
    if not base.endswith(('.c', '.h', '.S', '.lds')):
        return lines
    text = C_TOKEN.sub(lambda m: (re.sub(r'[^\n]', ' ', m.group()) if m.group()[0] == '/'
                                  else m.group()), '\n'.join(lines))
    out = []
    for line in text.split('\n'):
        d = DIRECTIVE.match(line)
        if d:
            # "#define NAME": the macro stands there; the rest is not code.
            m = re.match(r'\s*(\w+)', d.group(2)) if d.group(1) == 'define' else None
            line = m.group(1) if m else ''
        out.append(line)
    return out


def read_lines(f):
    """(the raw lines of file F, the same as code()), read once."""
    if f not in _FILES:
        with open(f, errors='replace') as fh:
            raw = fh.read().splitlines()
        _FILES[f] = raw, code(f, raw)
    return _FILES[f]


# The point release the book's line numbers are 6.1.N's (SUBLEVEL). In
# another release's tree (the machine's Debian installed another
# linux-source-6.1) lines move by more than SLACK: there the identifier
# decides, anywhere within ANOTHER_RELEASE lines of the cited line, and
# the note gives the shift; gone, the citation fails (the code the book
# explains changed).
BOOK_RELEASE = '192'
ANOTHER_RELEASE = 400


def release(base):
    """The 6.1 point release (SUBLEVEL) of the tree at BASE, or None."""
    try:
        with open(os.path.join(base, 'Makefile')) as f:
            m = re.search(r'^SUBLEVEL = (\d+)$', f.read(4096), re.M)
        return m and m.group(1)
    except OSError:
        return None


def check(c, root=None):
    """(why citation C fails or None, a note or None). With a line, the
    identifier must stand in the code within SLACK lines of it (not only
    in a comment or a preprocessor test there); found on another line
    than the cited one(s), the note names both."""
    base, note = tree(c.stage, c.path, root)
    f = os.path.join(base, c.path)
    where = ('the tree given' if root else 'the pristine tree' if base == PRISTINE
             else tree_name(c.stage))
    if not os.path.exists(f):
        return 'no such file in %s (%s)' % (where, base), note
    if os.path.isdir(f) or (c.ident is None and c.first is None):
        return None, note
    raw, lines = read_lines(f)
    if c.ident is None:
        ok = c.last <= len(raw)
        return None if ok else 'line %d is past its end (%d lines)' % (c.last, len(raw)), note
    name = c.ident
    if os.path.basename(c.path).startswith('Kconfig') and name.startswith('CONFIG_'):
        name = name[len('CONFIG_'):]
    word = re.compile(r'(?<!\w)%s(?!\w)' % re.escape(name))
    at = [i + 1 for i, line in enumerate(raw) if word.search(line)]
    if not at:
        return '`%s` is not in %s' % (name, c.path), note
    if c.first is None:
        return None, note
    cited = c.first if c.first == c.last else '%d-%d' % (c.first, c.last)
    # Where the name stands in the code (a CONFIG_ option: where C tests it).
    where_code = at if name.startswith('CONFIG_') else \
        [i for i in at if word.search(lines[i - 1])]
    slack = SLACK
    if release(base) not in (None, BOOK_RELEASE):
        slack = ANOTHER_RELEASE
        note = '; '.join(n for n in (note, 'on 6.1.%s (the book cites 6.1.%s)' % (
            release(base), BOOK_RELEASE)) if n)
    near = [i for i in where_code if c.first - slack <= i <= c.last + slack]
    if not near:
        only = [i for i in at if c.first - slack <= i <= c.last + slack]
        if only:
            return ('`%s` is not in the code within %d lines of line %s: only a comment or a '
                    'preprocessor line names it there (line %s); in the code it is on line %s' % (
                        name, slack, cited, ', '.join(map(str, only)),
                        listed(where_code) or 'none')), note
        return '`%s` is not within %d lines of line %s (it is on line %s)' % (
            name, slack, cited, listed(at)), note
    if not any(c.first <= i <= c.last for i in near):
        found = min(near, key=lambda i: min(abs(i - c.first), abs(i - c.last)))
        shift = found - (c.first if found < c.first else c.last)
        moved = 'cited line %s, found on line %d (%+d)' % (cited, found, shift)
        note = '; '.join(n for n in (note, moved) if n)
    return None, note


def listed(lines):
    return ', '.join(map(str, lines[:6])) + (', ...' if len(lines) > 6 else '')


def run(names, top=TOP, root=None):
    """Check the citations of the texts NAMES (relative to TOP): the
    citations and [(citation, why)] failures, [(citation, note)] notes.
    ROOT: a kernel tree to read every citation in instead of the stages'
    (check 18's scratch copy)."""
    sources = {}
    for name in names:
        with open(os.path.join(top, name), errors='replace') as f:
            sources[name] = f.read()
    cites = find(sources)
    failures, notes = [], []
    for c in cites:
        why, note = check(c, root)
        if why:
            failures.append((c, why))
        if note:
            notes.append((c, note))
    return cites, failures, notes


def tree_name(stage):
    k = facts.stage(stage)['tree']
    return ("stage %s's tree (the %s kernel)" % (k, stage) if str(k) != str(stage)
            else "stage %s's tree" % stage)


def describe(c):
    """A citation as a report line names it: where, what it said, the
    path it stands for, its identifier and its tree."""
    return '%s:%d: %s%s (%s, %s)' % (
        c.text, c.line, c.said, '' if c.said.startswith(c.path) else ' = ' + c.path,
        '`%s`' % c.ident if c.ident else 'no identifier', tree_name(c.stage))


def main(argv):
    if not os.path.isdir(os.path.join(PRISTINE, 'kernel')):
        print("citations: the kernel tree %s is missing: run 'make kernel N=0' (it "
              "extracts it)" % PRISTINE)
        return 1
    cites, failures, notes = run(argv or texts())
    for c, why in failures:
        print('%s: %s' % (describe(c), why))
    for c, note in notes:
        print('note: %s: %s' % (describe(c), note))
    for c in cites:
        if c.ident is None:
            print('unpaired (file checked only): %s' % describe(c))
    print('checked %d citations in %d files (%d with a line number)' % (
        len(cites), len({c.text for c in cites}), sum(c.first is not None for c in cites)))
    return 1 if failures else 0


if __name__ == '__main__':
    sys.exit(main(sys.argv[1:]))
