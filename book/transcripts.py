#!/usr/bin/env python3
"""book/transcripts.py: make the workbook's transcripts (make transcripts).

For each book/transcripts/labN.gdb (or labN-NAME.gdb, another walk from
the same lab's stop): boot lab N's stage as `make lab` does, run
the lab to its stop (labs/N/lab.toml) and then the walk in gdb batch mode, and write the
session to build/book/transcripts/labN.txt (labN-NAME.txt), headed by
what it was run on. A walk's `echo <K>\n` after a command puts callout K
on that command's line, for the chapter to explain. Addresses and pids are kept as they were, and labelled so. Where lab
2's walk ends (a CPU on its hardirq stack), the same session draws the
figure of the stacks (book/stackfig.py). Lab 6 is a crash session: its
commands, without the kernel log.

A transcript shows what the learner's terminal shows: each command after
its prompt, "(gdb) " or "crash> " (gdb's batch mode prints a command as a
"+cmd" trace line instead), and its output. One thing differs: a source
path in a kernel tree of the build folder is shown relative to that tree
(kernel/irq/handle.c:206), as a kernel developer quotes it, and any other
path in the build folder as build/..., not with the absolute path of the
folder this book was built in (a reader's differs). gdb itself still
sees the absolute paths, so a lab finds its sources. Lines longer than
the PDF's page is wide are broken, the break marked with WRAP_MARK. The
workbook shows them as [source,session] blocks (book/session_lexer.rb).
"""
import glob
import os
import platform
import re
import subprocess
import sys
import textwrap
from datetime import datetime, timezone

HERE = os.path.dirname(os.path.abspath(__file__))

from vm.session import crash
from book.layout import WIDTH, WRAP_MARK  # a longer line is broken, continued two spaces in
from vm.session import facts
from vm.session.session import BUILD, GUARD, TIMEOUT, TOP, Guest, GuestError, arch, lab_scripts, say

OUT = os.path.join(BUILD, 'book', 'transcripts')
FIGURES = os.path.join(BUILD, 'book', 'figures')
# What draws a figure at the end of a lab's walk (lab.toml's figure).
FIGURE_OF = {n: os.path.join(TOP, facts.lab(n)['figure']['draw'])
             for n in facts.labs() if 'figure' in facts.lab(n)}
# What crash's batch output gets before each command, to be replaced by
# its prompt.
CRASH_MARK = '@@ks-command@@ '


def build_paths(build):
    """The spellings of the build folder's absolute path a transcript
    may hold: as given, and with symbolic links resolved."""
    return sorted({os.path.abspath(build), os.path.realpath(build)},
                  key=len, reverse=True)


def relative_paths(line, build=BUILD):
    """LINE with the build folder's absolute path gone: a path inside a
    kernel source tree (the extracted tarball, a stage's or an exercise's
    src/) relative to that tree, anything else under the folder as
    build/..."""
    for b in build_paths(build):
        line = re.sub(re.escape(b) + r'/(?:src/linux|stage-\d+/src|'
                      r'exercises/\d+/src)/', '', line)
        line = line.replace(b + '/', 'build/').replace(b, 'build')
    return line


def fitted(line):
    """LINE as lines of at most WIDTH characters, each piece but the last
    ending in WRAP_MARK: broken after a space in its second half, or else
    after a slash (paths are long), or else anywhere. Comment lines
    continue as comments."""
    if line.startswith('# '):
        return textwrap.wrap(line, WIDTH, subsequent_indent='#   ')
    pieces, indent = [], ''
    while len(indent + line) > WIDTH:
        room = WIDTH - len(indent) - 1
        cut = (line.rfind(' ', room // 2, room) + 1 or
               line.rfind('/', room // 2, room) + 1 or room)
        pieces.append(indent + line[:cut] + WRAP_MARK)
        line, indent = line[cut:], '  '
    return pieces + [indent + line]


def terminal(lines, prompt, trace='+'):
    """Raw session lines as the terminal shows them: a command's trace
    line (gdb's "+cmd") becomes PROMPT + cmd; "++cmd", a command run
    inside another, is not shown, since nobody typed it."""
    out = []
    for i, line in enumerate(lines):
        if line.startswith(trace * 2):
            continue
        # gdb's reverse-stepi ARGS runs "stepi ARGS" (reverse-continue,
        # "continue ", and so on), and traces it as if typed.
        before = lines[i - 1] if i else ''
        if before.startswith(trace + 'reverse-'):
            command, _, args = before[len(trace + 'reverse-'):].partition(' ')
            if line == '%s%s %s' % (trace, command, args):
                continue
        if line.startswith(trace):
            line = prompt + line[len(trace):]
        out += fitted(line)
    return out


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


def callouts(lines):
    """Lines with each "<K>" printed by a walk's `echo <K>\\n` moved to
    the end of the command line before it, its own trace line dropped."""
    out = []
    for line in lines:
        if re.fullmatch(r'\+echo <\d+>\\n', line):
            continue
        if re.fullmatch(r'<\d+>', line):
            i = max(i for i, l in enumerate(out)
                    if l.startswith('+') and not l.startswith('++'))
            out[i] += '  ' + line
            continue
        out.append(line)
    return out


def replayed(lab, walk):
    """The walk on a replay of LAB's recorded run (make replay): it
    starts at the death the recording ended in."""
    from vm.session import replay
    info = replay.record(lab)
    replay.said(info)
    if not info['died']:
        raise GuestError("lab %d's recording did not die (its console: %s): a replay "
                         'walk starts at the death' % (lab['number'], os.path.join(
                             info['folder'], 'serial.log')))
    with replay.replay_guest(lab) as guest:
        # KS_INTERACTIVE: at the death the guard leaves gdb there, for the
        # walk, as it leaves a learner.
        run = guest.gdb(['-x', GUARD, '-ex', 'ks-open-replay -died %d' % lab['number'],
                         '-x', walk], env={'KS_REPLAY': '1', 'KS_INTERACTIVE': '1'})
        if run.rc:
            print('\n'.join(run.output.splitlines()[-5:]), file=sys.stderr)
            raise GuestError(guest.explain("lab %d's replay transcript: gdb failed (exit %d)"
                                           % (lab['number'], run.rc)))
    return run


def gdb_session(n, walk):
    lab = facts.lab(n)
    name = os.path.basename(walk)[:-len('.gdb')]
    if name.endswith('-replay'):
        run = replayed(lab, walk)
        session = run.output[run.output.index('==== the kernel died'):]
        return write_session(lab, name, session, ', a replay of its recording (one CPU)')
    args = lab_scripts(lab) + ['-x', walk]
    if n in FIGURE_OF and name == 'lab%d' % n:
        args += ['-ex', 'set trace-commands off', '-x', FIGURE_OF[n]]
    # A session that fails gets one more fresh guest, as a learner would
    # start again: a lab whose workload can end its guest by chance
    # (lab.toml's guest_may_die: lab 3) may die, and on a loaded host a
    # walk's step can land elsewhere (seen: lab 3's first step, in
    # apic_ack_edge, then an oops in that guest). A second failure is the
    # transcript's failure.
    for attempt in (1, 2):
        with Guest(lab['stage'], lab['guest_path'], halted=True) as guest:
            run = guest.gdb(args, env={'KS_FIGURES': FIGURES})
            # (Not after a timeout: a hang takes the whole limit again.)
            if run.rc and not run.timed_out and attempt == 1:
                said = guest.path('postmortem.txt')
                say("lab %d's session for %s failed (gdb exit %d; %s): once "
                    'more, on a fresh guest' % (n, name, run.rc, said if os.path.exists(
                        said) else guest.path('gdb-%d.log' % guest.gdb_runs)))
                continue
            if run.rc:
                print('\n'.join(run.output.splitlines()[-5:]), file=sys.stderr)
                raise GuestError(guest.explain("lab %d's transcript: gdb failed (exit %d%s)" % (
                    n, run.rc, ': no end within %d s' % TIMEOUT if run.timed_out else '')))
            break
    # From the lab's banner on: the boot and attach lines are noise.
    write_session(lab, name, run.output[run.output.index('==== Lab '):])


def write_session(lab, name, session, how=''):
    noise = ('[Inferior 1 (process 1) detached]', '+set trace-commands off')
    lines = callouts([relative_paths(l) for l in session.splitlines()
                      if l not in noise])
    head = ['# A real session: stage %s in %s%s, on a host running %s %s,' % (
                lab['stage'], first_line(['qemu-system-' + arch(lab['stage']), '--version']),
                how, platform.system(), platform.release()),
            '# %s, %s. Addresses and pids are this run\'s.' % (
                first_line([facts.host()['gdb'], '--version']), today())]
    write(name + '.txt', '\n'.join(terminal(head + lines, '(gdb) ')) + '\n')


def crash_session(n):
    """The lab's crash commands (labs/N/crash.cmds, without its echo
    lines and the kernel log, which is long and is lab 4's), each after
    crash's prompt. crash prints a task's comm as all its 16 bytes, the
    unused ones as \\000: they are cut, and the head says so."""
    stage = facts.lab(n)['stage']
    with open(os.path.join(TOP, 'labs', str(n), 'crash.cmds')) as f:
        commands = [c for c in f.read().splitlines()
                    if c and not c.startswith('echo ') and c not in ('log', 'quit')]
    out = crash.run(stage, [line for c in commands
                            for line in ('echo ' + CRASH_MARK + c, c)])
    head = ['# A real crash session: stage %s, crash 8.0.2 (Debian i386, run by '
            'qemu-i386), %s. The \\000 bytes that pad each comm are cut.'
            % (stage, today())]
    lines = [relative_paths(re.sub(r'(\\000)+"', '"', line))
             for line in out.splitlines()]
    write('lab%d.txt' % n,
          '\n'.join(terminal(head + lines, 'crash> ', CRASH_MARK)) + '\n')


def main():
    os.makedirs(OUT, exist_ok=True)
    os.makedirs(FIGURES, exist_ok=True)
    for walk in sorted(glob.glob(os.path.join(HERE, 'transcripts', 'lab*.gdb'))):
        gdb_session(int(re.search(r'lab(\d+)(-[\w-]+)?\.gdb$', walk).group(1)), walk)
    for n in facts.labs():
        if facts.lab(n)['kind'] == 'crash':
            crash_session(n)


if __name__ == '__main__':
    try:
        main()
    except GuestError as e:
        sys.exit('transcripts.py: error: %s' % e)
