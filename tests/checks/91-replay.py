# Back in time from a death. Lab 4's descent on stage 3, recorded on one
# CPU and replayed as a learner opens it (vm/session/ks replay 4; gdb reads
# the commands below from its input, as from a learner), reaches a gdb
# prompt at the "corrupted stack end" panic. There ks-who-wrote, with no
# watchpoint set before the run, must leave gdb just before the write
# that smashed dd's end magic: the word holds STACK_END_MAGIC there and
# not one instruction later. It must name that instruction as gdb does
# (function+offset, file:line), and stepi and reverse-stepi must move
# QEMU's instruction count by one each way. Which write it is (descend's
# frame, or an interrupt that came while dd was deep) is the recording's.
# Lab 7's replay (x86_64, VMAP_STACK) reaches its death too, and there
# ks-who-wrote shows what lab 7's chapter says: no write of the descent
# landed on dd's end magic before a write under the stack faulted, so its
# last write is the fork's.
import re
import subprocess

from tests.checklib import expect, facts, ks, log

MAGIC = facts.kernel()['stack_end_magic']
COMMANDS = b'''ks-who-wrote
echo ==before\\n
output/x *(unsigned long *)$ks_wrote
echo \\n
info symbol $pc
info line *$pc
monitor info replay
stepi
echo ==after\\n
output/x *(unsigned long *)$ks_wrote
echo \\n
monitor info replay
reverse-stepi
monitor info replay
watch -l *(unsigned long *)$ks_wrote
reverse-continue
'''

rc, out, took = ks('replay', 4, exercise=False, stdin=COMMANDS)
recorded = re.search(r'recorded on one CPU in [0-9.]+ s: .*', out)
log('recording: %s' % (recorded.group(0) if recorded else None))
expect('Kernel panic - not syncing: corrupted stack end detected' in out and
       'the kernel died' in out and 'A replay' in out,
       'make replay N=4 records the descent and opens gdb on its replay at the '
       'panic, with the replay\'s banner (%.0f s)' % took, out[-800:])

said = re.search(r'ks-who-wrote: the write that smashed the end magic of the task '
                 r'stack of pid \d+ \(dd\) \((0x[0-9a-f]+)\).*\n  by ([\w.]+\+\d+)\b.*\((\S+):(\d+)\)'
                 r', on CPU 0.*\n(?:      .*\n)?  it writes (0x[0-9a-f]+) over (0x[0-9a-f]+) '
                 r'\(STACK_END_MAGIC\)', out)
expect(said and int(said.group(6), 16) == MAGIC and int(said.group(5), 16) != MAGIC,
       'ks-who-wrote names the write that smashed dd\'s end magic: function, '
       'file:line, the magic it overwrote', out[-1500:])
before = re.search(r'==before\n(?:\(gdb\) )*(0x[0-9a-f]+)', out)
after = re.search(r'==after\n(?:\(gdb\) )*(0x[0-9a-f]+)', out)
expect(before and after and int(before.group(1), 16) == MAGIC and
       int(after.group(1), 16) != MAGIC,
       'gdb is left just before that write: the word is the magic, and one '
       'stepi later it is not', (before and before.group(1), after and after.group(1)))
symbol = re.search(r'\n(?:\(gdb\) )*(\w+) \+ (\d+) in section', out)
line = re.search(r'Line (\d+) of "([^"]+)"', out)
expect(said and symbol and line and said.group(2) == '%s+%s' % symbol.groups() and
       said.group(4) == line.group(1) and line.group(2).endswith(said.group(3).split('/')[-1]),
       'the function+offset and file:line ks-who-wrote names are gdb\'s own for $pc',
       (said and said.groups()[1:4], symbol and symbol.groups(), line and line.groups()))
counts = [int(c) for c in re.findall(r'instruction count = (\d+)', out)]
expect(len(counts) == 3 and counts[1] == counts[0] + 1 and counts[2] == counts[0],
       'stepi and reverse-stepi there move QEMU\'s instruction count by one each way',
       counts)
# A learner's own watchpoint, run backwards: QEMU's stop names none (a
# plain SIGTRAP), and the guard says which it was.
expect(re.search(r'ks: watchpoint \d+ \(-location \*\(unsigned long \*\)\$ks_wrote\)'
                 r' was hit: the write just before here', out),
       'a watch -l then reverse-continue stops with a line naming the watchpoint',
       out[-800:])


def qemus_left(arch):
    """The recording or replaying QEMUs of ARCH still running."""
    return subprocess.run(['pgrep', '-f', 'qemu-system-%s.*rr=re' % arch],
                          stdout=subprocess.PIPE).stdout.decode().split()


left = qemus_left('i386')
expect(rc == 0 and not left, 'gdb ends at the end of its input, and no QEMU is '
       'left (exit %d, QEMUs %s)' % (rc, left))

rc, out, took = ks('replay', 7, exercise=False, stdin=b'''monitor info snapshots
ks-who-wrote
monitor info replay
reverse-stepi
monitor info replay
''')
expect('BUG: TASK stack guard page was hit' in out and
       'the kernel died. gdb is where it died' in out and 'A replay' in out,
       'make replay N=7 records dd\'s descent on x86_64 and opens gdb on its '
       'replay at the death, with the replay\'s banner (%.0f s)' % took, out[-800:])
# The snapshots a step back starts from: the replay took them on its way
# (vm/session/replay.py), one every half second of its run.
snapshots = re.findall(r'^\S*\s+(rr\d+)\s', out, re.M)
expect(len(snapshots) >= 2, 'lab 7: the replay took its snapshots on its way to '
       'the death (monitor info snapshots: %s)' % ' '.join(snapshots), out[-1500:])
fork = re.search(r'ks-who-wrote: the last write to 0x[0-9a-f]+ \(the end magic of the task '
                 r'stack of pid (\d+) \(dd\)\) before here:\n  by (copy_process\+\d+), in '
                 r'set_task_stack_end_magic \(inlined\) .*in pid (\d+) \((\w+)\)\n'
                 r'(?:      .*\n)?  it writes (0x[0-9a-f]+) over', out)
expect(fork and int(fork.group(5), 16) == MAGIC and fork.group(1) != fork.group(3)
       and fork.group(4) == 'sh',
       'lab 7: the last write to dd\'s end magic before its death is the fork\'s '
       '(set_task_stack_end_magic, in the shell that started dd): the descent '
       'never wrote it, the guard page faulted first', fork and fork.groups() or out[-1500:])
counts = [int(c) for c in re.findall(r'instruction count = (\d+)', out)]
expect(len(counts) == 2 and counts[1] == counts[0] - 1,
       'lab 7: reverse-stepi there goes back one instruction', counts)
left = qemus_left('x86_64')
expect(rc == 0 and not left, 'lab 7: gdb ends at the end of its input, and no QEMU '
       'is left (exit %d, QEMUs %s)' % (rc, left))
