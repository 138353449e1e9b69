#!/usr/bin/env python3
"""book/kept.py: the workbook's real-run material, kept in the repository.

usage: book/kept.py list         (the pieces, as paths under book/runs/)
       book/kept.py compare      (make check: this run's material against the kept copies)
       book/kept.py promote      (make promote: this run's material becomes the kept copies)
       book/kept.py normalise FILE   (FILE as compare sees it)

Every transcript, table, figure and grader output the book shows comes
from a real run (book/transcripts.py, labs/N/experiment.py, checks 84, 88
and 89). `make check` makes them again in the build folder; book/runs/
keeps the copies that `make book` renders from, with no kernel and no
guest, and MANIFEST there says which run made each one.

compare holds the two the way expect-test tools hold a test's output:
the values that differ from one run to the next (the KINDS below, each
seen to vary between two runs of the same commit) are replaced by a
placeholder in both, and any other difference fails, with a unified diff
and the command that accepts it. A change to a lab, a patch or a gdb
command that changes what the learner sees is thus a diff of book/runs/
in review.
"""
import datetime
import difflib
import os
import platform
import re
import shutil
import subprocess
import sys

from book.layout import WRAP_MARK
from vm.session import facts

HERE = os.path.dirname(os.path.abspath(__file__))
TOP = os.path.dirname(HERE)
BUILD = os.environ.get('BUILD') or os.path.join(TOP, 'build')
KEPT = os.environ.get('KS_KEPT') or os.path.join(HERE, 'runs')
PROMOTE = 'make promote'

# Each piece: its path under book/runs/ and under the build folder, and
# the run that makes it.
TRANSCRIPT_RUN = 'book/transcripts.py (make transcripts)'
RUNS = {
    'exercise': 'tests/checks/88-exercises.py',
    'task': 'tests/checks/84-tasks.py',
    'postmortem': 'tests/checks/89-postmortem.py',
    'serve': 'tests/checks/93-serve.py',
}
# The pieces `compare` leaves to the check that makes them, since that
# check runs after the book's (90): make serve's pictures need the
# rendered book, and check 93 holds them to being pictures itself.
LATER = (RUNS['serve'],)


def pieces(build=BUILD):
    """(kept path, built path, the run that makes it) for every piece,
    named from book/transcripts/ (one transcript per walk, and lab 6's
    crash session) and the tables and grader outputs the chapters
    include."""
    walks = sorted(f[:-4] for f in os.listdir(os.path.join(HERE, 'transcripts'))
                   if f.endswith('.gdb'))
    out = [('transcripts/%s.txt' % w, 'book/transcripts/%s.txt' % w, TRANSCRIPT_RUN)
           for w in walks + ['lab6']]
    out += [('figures/%s.svg' % f, 'book/figures/%s.svg' % f, TRANSCRIPT_RUN)
            for f in [facts.lab(n)['figure']['svg'] for n in facts.labs()
                      if 'figure' in facts.lab(n)]]
    names = [('%s.%s' % (lab['experiment_table'], ext),
              'labs/%s/experiment.py (make check)' % n)
             for n, lab in ((n, facts.lab(n)) for n in facts.labs())
             if 'experiment_table' in lab for ext in lab['experiment_keep']]
    names += [('exercise%d-%s.txt' % (n, w), RUNS['exercise'])
              for n in facts.kernel_exercise_labs() for w in ('skeleton', 'solution')]
    names += [('task%d-skeleton.txt' % n, RUNS['task']) for n in facts.task_labs()]
    names += [('postmortem-never-stored.txt', RUNS['postmortem'])]
    for name, run in names:
        out.append(('results/' + name, 'results/' + name, run))
    # make serve's pages with their live sessions, for the README.
    out += [('screens/serve-lab%d.png' % n, 'results/serve-lab%d.png' % n, RUNS['serve'])
            for n in facts.labs() if facts.lab(n).get('screenshot')]
    return [(k, os.path.join(build, b), run) for k, b, run in out]


# What differs from run to run, each kind with what it matches, in the
# order they are applied. A guest of 2 vCPUs under TCG runs at the host's
# pace, so which code an interrupt finds, and what it measures there,
# differs between runs of one commit (QEMU's -icount, which would make a
# run repeatable, hangs 7.2's i386 guests at "Booting SMP
# configuration"). Commands (prompt lines, whole), function names from a
# lab's stop down to the interrupt's entry frame, the pt_regs line and
# how a chain ends, stack kinds, THREAD_SIZE and stack sizes, source
# file names and every word are compared; a source line number is a kind
# (cited lines move between 6.1 point releases, as book/citations.py
# allows too), but the function named beside it is a word.
WRAP = re.compile(r'%s\n *' % WRAP_MARK)
FRAME = re.compile(r'^\s*(?:#N|\[ADDR\])\s')
# A frame of the entry code, in ks-bt's, a grader's or crash's listing or
# in the kernel's own call trace: what follows it is the code it found.
ENTRY = re.compile(r'^\s*(?:(?:#N|\[ADDR\])\s+(?:ADDR\s+)?|(?:\? )?)(?:asm_\w+|'
                   r'handle_exception|entry_\w+)(?:\b(?!\+ADDR/)|\+ADDR/ADDR$)')
# The kernel's own account of the code under the entry: its trace lines
# and its registers there.
KFRAME = re.compile(r'^\s*(?:\? )?[\w.]+\+ADDR/ADDR$|^\s*(?:EIP|EAX|ESI|DS|CR\d|DR\d)[: ]|'
                    r'^\s*</?\w+>$')
INTERRUPTED = '    (frames of the code the interrupt found)'
CRASH_BT = "    (what crash's bt read on a stack it cannot follow)"
PROMPT = ('(gdb) ', 'crash> ')
# The lines a list may hold any number of (a recursion's frames, a table
# of tasks, crash's task list): a run of the same one is kept once.
ITEM = re.compile(r'^\s*(?:#N|\[ADDR\])\s|^task PID TASK |^ *(?:comm = TASK,|pid = N,|ADDR)$')

KINDS = [
    ('the provenance head (date, host kernel, versions)',
     re.compile(r'^# A real (?:crash )?session: .*(?:\n#.*)*', re.M), '# A real session: HEAD'),
    ("a grade made again on a second guest (lab 3's workload may end its first)",
     re.compile(r', on a second guest'), ''),
    ("the build folder of make check-release's run (build-VERSION/)",
     re.compile(r'\bbuild-[0-9][\w.~+-]*/'), 'build/'),
    ('run folders', re.compile(r'build/run/[\w.-]+'), 'build/run/RUN'),
    ("the learner's exercise folder a next step names (EXERCISES=..., a check's own)",
     re.compile(r' EXERCISES=\S+'), ''),
    ("source line numbers (kernel/sched/core.c:5816, gdb's 'at file.c:123': "
     "another 6.1 point release, or a patch, moves the lines)",
     re.compile(r'\b([\w.-]+\.(?:c|h|S)):\d+(?:-\d+)?\b'), r'\1:LINE'),
    ("the 6.1 point release (6.1.192: whichever linux-source-6.1 the machine's "
     "Debian installed)", re.compile(r'\b6\.1\.\d+\b'), '6.1.N'),
    ('times of day', re.compile(r'\b\d{1,2}:\d\d:\d\d\b'), 'HH:MM:SS'),
    ("dates (crash's DATE, the kernel's build date in VERSION: the weekday and "
     "month change with the day the run was made)",
     re.compile(r'\b(?:Mon|Tue|Wed|Thu|Fri|Sat|Sun) (?:Jan|Feb|Mar|Apr|May|Jun|Jul|'
                r'Aug|Sep|Oct|Nov|Dec) +\d{1,2}\b'), 'DAY'),
    ('addresses (hex numbers, with or without 0x)',
     re.compile(r'\b(?:0x[0-9a-f]+|[0-9a-f]{8}(?:[0-9a-f]{8})?)\b'), 'ADDR'),
    ('printk times', re.compile(r'\[ *\d+\.\d+\]'), '[TIME]'),
    ('which CPU', re.compile(r'\b(CPU:? ?|CPU#|cpu ?|CPUs? )\d+\b'), r'\1N'),
    ('the task (pid and name) an interrupt found, and the order of task lists',
     re.compile(r'\b(pid |PID: |task )\d+( \([^)]*\)| [\w/:.-]+)?|(comm = )"[^"]*"|'
                r'\([\w/:.-]+( on CPU N\))'),
     lambda m: m.group(3) + 'TASK' if m.group(3) else '(TASK' + m.group(4) if m.group(4)
     else m.group(1) + 'PID' + (' TASK' if m.group(2) else '')),
    ('counts (bytes used and free, threads, hits, frame numbers; not a command\'s, a '
     'stack\'s size or THREAD_SIZE)',
     re.compile(r'^(?:\(gdb\) |crash> ).*$|\(\d+ bytes\)|THREAD_SIZE \d+|'
                r'(?<![\w.:/+-])(?<!stage )(?<!Stage )(?<!lab )(?<!Lab )-?\d+(?:\.\d+)?(?![\w.])',
                re.M),
     lambda m: m.group(0) if m.group(0).startswith(('(', 'crash> ', 'THREAD_SIZE'))
     else 'N'),
    ("where the other CPU was and whether it ran or halted (info threads), and "
     "ks-irqstacks' last use of each IRQ stack",
     re.compile(r'(\[(?:running|halted ?)\]\) ).*|^(N +(?:hardirq|softirq) +ADDR-ADDR) +(?:yes|-) +ADDR +.*$',
                re.M),
     lambda m: '[STATE]) PLACE' if m.group(1) else m.group(2) + ' SP? ADDR TAKEN-ON'),
    ("the task current on a CPU (p ...->comm)",
     re.compile(r'(->comm\n\$N = )"[^"]*"'), r'\1"TASK"'),
    ("lab 4's room descents, where a timer tick decides the outcome (where it "
     "wrote, whether the check reported, which panic)",
     re.compile(r'^(\|N \|room N ).*$|^(N\troom N\t).*$', re.M),
     lambda m: (m.group(1) or m.group(2)) + 'OUTCOME'),
    ("what came of lab 4's descent where the IRQ-entry check reported on the task "
     "stack (stage 1: the report itself runs off the end, and what lies under the "
     "stack decides whether it faults there or the scheduler panics later)",
     re.compile(r'^(\|N \|frames N \|)(?=.*\|N \(task\) \|).*$|'
                r'^(N\tframes N\t)(?=.*\ttask\t).*$', re.M),
     lambda m: (m.group(1) or m.group(2)) + 'OUTCOME, the check on the task stack'),
    ("stackdeep's own report of lab 4's descent where the recursion itself runs "
     "off the end (stage 3): whether the kernel lives to print it before the "
     "scheduler's panic depends on what an interrupt at the deepest point does",
     re.compile(r'^(\|N \|frames N \|)(?=.*, in descend \|).*?(\|panic: .*)$|'
                r'^(N\tframes N\t)(?=.*\tdescend\t).*?(\t[^\t]*\t[^\t]*)$', re.M),
     lambda m: (m.group(1) + 'REPORT ' + m.group(2) if m.group(1)
                else m.group(3) + 'REPORT' + m.group(4))),
    ("what came of an LKDTM recursion that no guard page stopped (EXHAUST_STACK "
     "on a kernel without one: what its writes under the stack hit decides)",
     re.compile(r'^(\|[^|]*\|EXHAUST_STACK \|)(?!`BUG: TASK stack guard page was hit)'
                r'.*$', re.M),
     r'\1OUTCOME'),
    ('a byte the lab 7 test read past the stack',
     re.compile(r'\(byte: (?:[0-9a-f]+|N)\)'), '(byte: BYTE)'),
    ("the kernel's '?' guesses in a call trace (stale words its scan found)",
     re.compile(r'^ *\? [\w.]+\+ADDR/ADDR\n', re.M), ''),
    ('the function a timer tick was in when it overwrote the end magic (lab 4)',
     re.compile(r'OVERWRITTEN(, in |\t)(?!descend\b)[\w.]+(?: \(in [\w.]+\)|\t[\w.]+)?'),
     r'OVERWRITTEN\1FUNCTION'),
    ("crash's frames (which functions a tick ran through on the dumped stacks)",
     re.compile(r'^( *\[ADDR\]) [\w.]+ at ADDR', re.M), r'\1 FRAME at ADDR'),
    ("a figure's label of the interrupted task (one line or two, by its name's length)",
     re.compile(r'^<text[^>]*>\([\w/:.-]+\)</text>\n|(pid PID) TASK(?=</text>)', re.M),
     lambda m: m.group(1) or ''),
    ("the CPU's clock as the kernel calibrated it (crash's sys; 'unknown' when the "
     "guest's TSC calibration failed)",
     re.compile(r'\((?:N|unknown) Mhz\)'), '(CLOCK Mhz)'),
    ("gdb's note that the stop came on the other CPU",
     re.compile(r'^\[Switching to Thread N\]\n', re.M), ''),
    ("what dd was doing when the scheduler's end-magic check panicked (lab 4's "
     "replay: going back to user mode after its write, or after a timer interrupt "
     "or a page fault)",
     re.compile(r'^( *#N +ADDR +__schedule\+\d+\b.*\n)(?: *(?:#N |pt_regs at |saved ebp ).*\n)*',
                re.M), r'\1    (what called the scheduler)\n'),
    ('column widths', re.compile(r'[ \t]+'), ' '),
]
# ks-who-wrote's account of the write that smashed an end magic, up to
# the next ks-who-wrote: what it found, and what stepping there shows.
SMASHED = re.compile(r'^ks-who-wrote: the write that smashed ')
WRITER = "  (the writer: its function, line, stack and frames, and its instruction)"
SHAPES = ("which write smashed the end magic in lab 4's replay (descend's own frame, "
          "or an interrupt that came while dd was deep: the recording decides)",
          'the code an interrupt found (the frames under its entry frame, '
          'user or kernel, and how that chain ends)',
          "what crash's bt makes of a stack it cannot follow (a stale system "
          "call's trace, 'cannot resolve', or 'in user space': whatever words "
          "the last calls left where it looks)",
          'how deep a recursion went, and how many of a kind a list had '
          '(repeated lines or groups of lines, once)')


def interrupted(lines):
    """LINES with what lies under an interrupt's entry frame made one line:
    the frames of the code it found, the pt_regs line that says whether
    that was user or kernel code, and the line that says how that chain
    ends. Commands and everything after the listing are kept."""
    out, skipping = [], False
    for line in lines:
        if skipping and (FRAME.match(line) or KFRAME.match(line) or line.lstrip().startswith(
                ('pt_regs at', 'saved ebp', 'saved rbp', 'ebp ', 'rbp ', '-- below'))):
            continue
        skipping = False
        out.append(line)
        if ENTRY.match(line):
            out.append(INTERRUPTED)
            skipping = True
    return out


def smashed(lines):
    """LINES with ks-who-wrote's account of the write that smashed an
    end magic cut to what every recording shows: the commands, the
    headline, the magic the write overwrote, where it leaves gdb and the
    word's value after each step; the writer is made one line."""
    out, inside = [], False
    for line in lines:
        if line.startswith('(gdb) ks-who-wrote'):
            inside = False
        if inside and not (line.startswith(PROMPT) or re.match(
                r' *it writes ADDR over ADDR|You are just before|instruction back|'
                r'ADDR: ADDR$', line)):
            continue
        out.append(line)
        if SMASHED.match(line):
            out.append(WRITER)
            inside = True
    return out


def crash_bt(lines):
    """LINES with the output of crash's plain `bt` made one line: lab 6's
    dump stops on a hardirq stack crash cannot find, so `bt` reads
    whatever the last calls left on the task's stack."""
    out, skipping = [], False
    for line in lines:
        if skipping and not line.startswith(PROMPT):
            continue
        skipping = False
        out.append(line)
        if line == 'crash> bt':
            out.append(CRASH_BT)
            skipping = True
    return out


def once(lines, longest=4):
    """LINES with each run of a repeated list ITEM, or group of up to
    LONGEST items, kept once; any other line is kept as often as it
    comes."""
    out = []
    for line in lines:
        out.append(line)
        for k in range(1, longest + 1):
            group = out[-k:]
            if len(out) >= 2 * k and group == out[-2 * k:-k] and \
                    all(ITEM.match(g) for g in group):
                del out[-k:]
                break
    return out


def normalise(text):
    """TEXT as compare sees it: wrapped lines joined, every KIND replaced
    by its placeholder, then the SHAPES made one."""
    text = WRAP.sub('', text)
    for _, pattern, placeholder in KINDS:
        text = pattern.sub(placeholder, text)
    lines = [line.rstrip() for line in text.split('\n')]
    return '\n'.join(once(interrupted(crash_bt(smashed(lines))))) + '\n'


def read(path):
    with open(path, errors='replace') as f:
        return f.read()


def picture(path):
    """Whether PATH is a picture of a live session, as a PNG of a page
    (not an empty or blank one) is: what it shows is the run's own (its
    addresses, its terminal), so it is held to being a picture."""
    with open(path, 'rb') as f:
        return f.read(8) == b'\x89PNG\r\n\x1a\n' and os.path.getsize(path) > 20000


def compare(build=BUILD, kept=KEPT):
    """Print one "ok -" or "not ok -" line per piece (but those LATER
    checks make and hold), and under each failure its diff; return the
    number of failures."""
    print('# normalised before comparing: ' + '; '.join(
        [k for k, _, _ in KINDS] + list(SHAPES)))
    failed = 0
    for name, built, run in pieces(build):
        if run in LATER:
            print('# book/runs/%s: held by %s, which makes it after this' % (name, run))
            continue
        mine = os.path.join(kept, name)
        if not os.path.exists(built):
            print('not ok - book/runs/%s: this run did not make it (%s)' % (name, run))
            failed += 1
            continue
        if not os.path.exists(mine):
            print('not ok - book/runs/%s: no kept copy; `%s` keeps this run\'s' % (name, PROMOTE))
            failed += 1
            continue
        a, b = normalise(read(mine)).splitlines(), normalise(read(built)).splitlines()
        diff = list(difflib.unified_diff(a, b, 'book/runs/' + name, built, lineterm='', n=2))
        if diff:
            print('not ok - book/runs/%s: this run differs from the kept copy; if the '
                  'change is meant, `%s` keeps it' % (name, PROMOTE))
            print('\n'.join('    ' + line for line in diff[:60]))
            if len(diff) > 60:
                print('    ... (%d more lines of diff)' % (len(diff) - 60))
            failed += 1
        else:
            print('ok - book/runs/%s is what this run made (%s)' % (name, run))
    return failed


def commit():
    r = subprocess.run(['git', '-C', TOP, 'describe', '--always', '--dirty'],
                       stdout=subprocess.PIPE, stderr=subprocess.DEVNULL, text=True)
    return r.stdout.strip() or 'unknown'


def promote(build=BUILD, kept=KEPT):
    """Copy this run's material into book/runs/ and write MANIFEST;
    refuse if a piece is missing, naming the run that makes it."""
    missing = [(n, run) for n, built, run in pieces(build) if not os.path.exists(built)]
    if missing:
        sys.exit('kept.py: error: this build folder lacks %s; run `make check` (or the '
                 'named runs) first' % ', '.join('%s (%s)' % m for m in missing))
    host = '%s %s' % (platform.system(), platform.release())
    lines = ['# The runs that made each kept piece (book/kept.py promote): the',
             '# run, when it wrote the piece, the commit it was kept at, the host.',
             '# piece\trun\twritten\tkept at\thost']
    for name, built, run in pieces(build):
        dest = os.path.join(kept, name)
        os.makedirs(os.path.dirname(dest), exist_ok=True)
        written = datetime.datetime.fromtimestamp(os.path.getmtime(built)).strftime(
            '%Y-%m-%d %H:%M')
        shutil.copyfile(built, dest + '.tmp')
        os.replace(dest + '.tmp', dest)
        lines.append('\t'.join((name, run, written, commit(), host)))
    with open(os.path.join(kept, 'MANIFEST'), 'w') as f:
        f.write('\n'.join(lines) + '\n')
    print('kept.py: %d pieces kept in %s; `git diff %s` shows what changed'
          % (len(lines) - 3, kept, os.path.relpath(kept, TOP)))


if __name__ == '__main__':
    verb = sys.argv[1] if len(sys.argv) > 1 else ''
    if verb == 'list':
        print('\n'.join(name for name, _, _ in pieces()))
    elif verb == 'compare':
        sys.exit(1 if compare() else 0)
    elif verb == 'promote':
        promote()
    elif verb == 'normalise' and len(sys.argv) == 3:
        sys.stdout.write(normalise(read(sys.argv[2])))
    else:
        sys.exit(__doc__.split('\n\n')[1])
