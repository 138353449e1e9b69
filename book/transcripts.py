#!/usr/bin/env python3
"""book/transcripts.py: make the workbook's transcripts (make transcripts).

For each book/transcripts/labN.gdb: boot lab N's stage as `make lab` does,
run labs/N/lab.gdb and then the walk in gdb batch mode, and write the
session to build/book/transcripts/labN.txt, headed by what it was run
on. Addresses and pids are kept as they were, and labelled so. Where lab
2's walk ends (a CPU on its hardirq stack), the same session draws the
figure of the stacks (book/stackfig.py). Lab 6 is a crash session: its
commands, without the kernel log.
"""
import glob
import os
import platform
import re
import subprocess
import sys
from datetime import datetime, timezone

HERE = os.path.dirname(os.path.abspath(__file__))
sys.path.insert(0, os.path.join(os.path.dirname(HERE), 'vm'))

import crash                                      # noqa: E402
import facts                                      # noqa: E402
from session import BUILD, TOP, Guest, GuestError, say  # noqa: E402

OUT = os.path.join(BUILD, 'book', 'transcripts')
FIGURES = os.path.join(BUILD, 'book', 'figures')
# What draws a figure at the end of a lab's walk.
FIGURE_OF = {2: os.path.join(HERE, 'stackfig.py')}


def first_line(argv):
    return subprocess.run(argv, stdout=subprocess.PIPE, text=True).stdout.splitlines()[0]


def today():
    return datetime.now(timezone.utc).strftime('%Y-%m-%d')


def write(name, text):
    path = os.path.join(OUT, name)
    with open(path + '.tmp', 'w') as f:
        f.write(text)
    os.replace(path + '.tmp', path)
    say(path)


def gdb_session(n, walk):
    lab = facts.lab(n)
    args = ['-x', os.path.join(TOP, 'labs', 'guard.py'),
            '-x', os.path.join(lab['folder'], 'lab.gdb'), '-x', walk]
    if n in FIGURE_OF:
        args += ['-ex', 'set trace-commands off', '-x', FIGURE_OF[n]]
    with Guest(lab['stage'], lab['guest_path'], halted=True) as guest:
        run = guest.gdb(args, timeout=120, env={'KS_FIGURES': FIGURES})
        if run.rc:
            print('\n'.join(run.output.splitlines()[-5:]), file=sys.stderr)
            raise GuestError(guest.explain("lab %d's transcript: gdb failed (exit %d%s)" % (
                n, run.rc, ': no end within 120 s' if run.timed_out else '')))
    # From the lab's banner on: the boot and attach lines are noise.
    session = run.output[run.output.index('==== Lab '):]
    noise = ('[Inferior 1 (process 1) detached]', '+set trace-commands off')
    lines = [l for l in session.splitlines() if l not in noise]
    head = ['# A real session: stage %s, %s %s host, %s,' % (
                lab['stage'], platform.system(), platform.release(),
                first_line(['qemu-system-i386', '--version'])),
            '# %s, %s. Addresses and pids are this run\'s.' % (
                first_line(['gdb', '--version']), today())]
    write('lab%d.txt' % n, '\n'.join(head + lines) + '\n')


def crash_session(n):
    stage = facts.lab(n)['stage']
    with open(os.path.join(TOP, 'labs', str(n), 'crash.cmds')) as f:
        out = crash.run(stage, f.read().splitlines())
    out = out[:out.index('==== log\n')] if '==== log\n' in out else out
    head = '# A real crash session: stage %s, crash 8.0.2 (Debian i386, run by ' \
           'qemu-i386), %s.\n' % (stage, today())
    write('lab%d.txt' % n, head + out)


def main():
    os.makedirs(OUT, exist_ok=True)
    os.makedirs(FIGURES, exist_ok=True)
    for walk in sorted(glob.glob(os.path.join(HERE, 'transcripts', 'lab*.gdb'))):
        gdb_session(int(re.search(r'lab(\d+)\.gdb$', walk).group(1)), walk)
    for n in facts.labs():
        if facts.lab(n)['kind'] == 'crash':
            crash_session(n)


if __name__ == '__main__':
    try:
        main()
    except GuestError as e:
        sys.exit('transcripts.py: error: %s' % e)
