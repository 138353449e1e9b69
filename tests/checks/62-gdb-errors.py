# gdb-scripts where its commands cannot work: each ks- command and $
# function says what is missing, never a Python traceback. Four places:
# gdb without a kernel; stage 0 halted at reset (paging off); stage 0 at
# start_kernel (per-CPU areas not set up); a stage without IRQ stacks
# (vm/stages.toml: stage 1) in an interrupt, so nothing to switch and no
# $hardirq_ctx. tests/gdb/errors.py runs the commands. Then a guest that
# is gone: at lab 0's stop, its QEMU killed (TERM, then KILL), every
# command says in one line that the guest is gone and why.
import os
import re
import subprocess

from tests.checklib import (TOP, Guest, expect, facts, log, not_ok, probe,
                            records)
from vm.session.session import lab_scripts

COMMANDS = ('ks-where', 'ks-irqstacks', 'ks-bt', 'ks-thread-info',
            'ks-stack-use', 'ks-stack-picture', 'ks-watch-switch',
            'p $hardirq_ctx(0)', 'p $current_thread_info(0)')

out = subprocess.run([facts.host()['gdb'], '-q', '-nx', '-batch', '-x',
                      os.path.join(TOP, 'gdb-scripts', 'load.py'),
                      '-ex', 'ks-where', '-ex', 'ks-bt'],
                     stdin=subprocess.DEVNULL, stdout=subprocess.PIPE,
                     stderr=subprocess.STDOUT).stdout.decode(errors='replace')
log(out)
said = sum(line.startswith('no kernel symbols') for line in out.splitlines())
expect(said == 2 and 'Traceback' not in out and 'Python Exception' not in out,
       "without a kernel: ks- commands say 'no kernel symbols'", out.strip())


def phase(stage, name):
    """{command: what it said} in phase NAME on a halted STAGE guest (a
    shell: nothing runs but what gdb lets run). A command that printed a
    Python traceback in that phase says that instead."""
    with Guest(stage, halted=True) as guest:
        run = probe(guest, 'errors.py', env={'KS_PHASE': name})
    said = {r['command']: r['message'] for r in records(run, 'said')}
    if 'Traceback' in run.output or 'Python Exception' in run.output:
        said = {c: 'a Python traceback (see the log)' for c in said}
    return said


def expect_said(where, said, command, want):
    message = said.get(command)
    expect(message and want in message and
           'Error occurred in Python' not in message,
           "%s: %s says '%s'" % (where, command, want), message or 'nothing')


said = phase(0, 'reset')
for c in COMMANDS:
    # At reset the CPU runs the BIOS with paging off: no kernel address
    # can be read (or, if gdb reads physical memory, it finds zeros).
    if 'per-CPU areas are not set up' in (said.get(c) or ''):
        expect_said('at reset', said, c, 'per-CPU areas are not set up')
    else:
        expect_said('at reset', said, c, "cannot read the guest's memory")

said = phase(0, 'start_kernel')
for c in COMMANDS:
    expect_said('at start_kernel', said, c, 'per-CPU areas are not set up yet')

plain = [k for k, s in sorted(facts.stages().items()) if not s['hardirq_stacks']]
if not plain:
    not_ok('a stage without IRQ stacks to run the commands on (vm/stages.toml)')
else:
    k = plain[0]
    said = phase(k, 'running')
    where = 'stage %d' % k
    expect_said(where, said, 'ks-watch-switch', 'this stage never switches stacks')
    expect_said(where, said, 'p $hardirq_ctx(0)', 'this stage has no hardirq stacks')
    expect_said(where, said, 'ks-irqstacks', 'This stage has no IRQ stacks')

# The guest gone: QEMU ended under gdb by a signal, as a learner's
# machine might end it. Each command's one line names the death and its
# cause, from QEMU's own end (vm/session/session.py's qemu.exit).
GONE = ('ks-where', 'ks-bt', 'ks-irqstacks', 'step', 'next')
for sig, cause in (('TERM', 'terminating on signal 15'), ('KILL', 'killed by signal 9 (SIGKILL)')):
    lab = facts.lab(0)
    with Guest(0, lab['guest_path'], halted=True) as guest:
        run = guest.gdb(lab_scripts(lab) + [
            '-ex', 'echo ==== killing QEMU\\n',
            '-ex', 'shell kill -%s $(cat $KS_RUN/qemu.pid); sleep 1' % sig] + [
            a for c in GONE for a in ('-ex', c)], 120)
    log(run.output)
    after = run.output.split('==== killing QEMU\n', 1)[-1].splitlines()
    gone = [line for line in after if line.startswith('the guest is gone: ')]
    expect(len(after) == len(GONE) and len(gone) == len(GONE) and
           all(cause in line for line in gone),
           'QEMU killed with SIG%s under gdb: %s each say in one line that the guest is '
           'gone, and why (%s)' % (sig, ', '.join(GONE), cause), after)
