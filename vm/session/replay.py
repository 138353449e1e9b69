"""Record a lab's run once, then replay it under gdb, backwards too
(make replay N=k).

QEMU's record/replay (docs/system/replay.rst in QEMU's tree) runs the
guest on an instruction counter (-icount) instead of the host's clock,
and writes to a log every input that is not a function of the guest's
own state: when interrupts come, what the clocks read, the serial
port's bytes. Replayed from that log, the run is the same, instruction
for instruction. gdb's reverse-stepi, reverse-continue and watchpoints
run backwards on top of it: to go back, QEMU loads the last snapshot
before the target and replays forwards to it. So the replay takes
snapshots as gdb runs it forwards to the death or the lab's stop (every
SNAPSHOT_EVERY seconds): a step back costs at most that much replay.
(Up to there: from the death, a step forwards and back again starts
from the last one before it.) The recording takes none but the one at
its start: lab 7 recordings that took one every half second failed to
replay to their death in 3 replays of 8 (the replay stopped advancing,
in the idle loop or in the middle of the kernel's report); replays that
took them reached it in 14 of 14.

QEMU 7.2 records one CPU, under TCG: a replay's guest has one CPU.
"""
import contextlib
import os
import re
import shutil
import subprocess
import threading
import time

from vm.session import kernelwords
from vm.session.session import BUILD, Guest, GuestError, say, stage_dir

# Seconds between snapshots while replaying, and the longest recording
# (about 45 s of the guest's clock, which runs faster under -icount).
SNAPSHOT_EVERY = 0.5
RECORD_SECONDS = float(os.environ.get('KS_RECORD_SECONDS') or 10)
LOG = 'replay.bin'
SNAPSHOTS = 'snapshots.qcow2'


def folder(lab):
    """Where lab LAB's recording is kept: one per lab and kernel; an
    exercise kernel's in its own folder (EXERCISES/k/replay), so that two
    learners' folders never share one."""
    stage = str(lab['stage'])
    if stage.startswith('e'):
        return os.path.join(stage_dir(stage), 'replay')
    return os.path.join(BUILD, 'replay', 'lab%d-%s' % (lab['number'], stage))


def _guest(lab, where, mode, **kw):
    # The same command line both times: a replay of another machine
    # diverges from its log.
    append = ' '.join(a for a in (lab['append'], lab.get('replay_append', '')) if a)
    return Guest(lab['stage'], lab['guest_path'], append=append, rr=(mode, where), **kw)


def _snapshot(guest, name):
    """savevm NAME; False if QEMU refused ("does not allow making snapshot
    right now": it takes one only between two of the log's events) or
    ended meanwhile."""
    try:
        answer = guest.monitor('savevm %s' % name, timeout=60)
    except OSError:
        return False
    return not answer.strip()


def _run(guest, tmp):
    """Run GUEST (recording into TMP) to its end, or for RECORD_SECONDS if
    it runs on (a lab's workload that waits for gdb never ends). Returns
    (seconds, whether it was still running). GuestError if the log is
    empty."""
    t0 = time.time()
    running = False
    with guest:
        while guest.alive():
            if time.time() - t0 > RECORD_SECONDS:
                running = True
                try:
                    guest.monitor('quit')      # QEMU closes the log whole
                except OSError:
                    pass
                guest.qemu.wait(30)
                break
            time.sleep(0.1)
        seconds = time.time() - t0
        shutil.copy(guest.path('serial.log'), os.path.join(tmp, 'serial.log'))
    if not os.path.getsize(os.path.join(tmp, LOG)):
        with open(guest.path('qemu.log'), errors='replace') as f:
            raise GuestError('the recording is empty: QEMU said: %s (%s)'
                             % (f.read().strip() or 'nothing', guest.path('qemu.log')))
    return seconds, running


def record(lab):
    """Run lab LAB's workload once, recorded, until the guest ends (its
    workload's end, or a death: panic=-1 and -no-reboot end QEMU) or
    RECORD_SECONDS pass. The recording replaces the last one only once
    it is whole. Returns what it measured: {seconds, log_bytes,
    died (the kernel's first words of its death, or None),
    running (the guest was still running at the end), folder}."""
    out = folder(lab)
    tmp = out + '.new'
    shutil.rmtree(tmp, ignore_errors=True)
    os.makedirs(tmp)
    subprocess.run(['qemu-img', 'create', '-q', '-f', 'qcow2',
                    os.path.join(tmp, SNAPSHOTS), '1G'], check=True)
    try:
        seconds, running = _run(_guest(lab, tmp, 'record'), tmp)
    except BaseException:
        shutil.rmtree(tmp, ignore_errors=True)   # no half-written recording
        raise
    with open(os.path.join(tmp, 'serial.log'), errors='replace') as f:
        words = kernelwords.kernel_words(f.read())
    shutil.rmtree(out, ignore_errors=True)
    os.replace(tmp, out)
    return dict(seconds=seconds, log_bytes=os.path.getsize(os.path.join(out, LOG)),
                died=words[0] if words else None,
                running=running, folder=out)


@contextlib.contextmanager
def replay_guest(lab):
    """The guest that replays lab LAB's recording, halted for gdb, which
    takes its snapshots on the way (_snapshots_on_the_way)."""
    with _guest(lab, folder(lab), 'replay', halted=True) as guest:
        threading.Thread(target=_snapshots_on_the_way, args=(guest,),
                         daemon=True).start()
        yield guest


def _snapshots_on_the_way(guest):
    """While gdb runs GUEST's replay forwards, until the guard says it
    reached the death or the lab's stop (labs/guard.py: lab-died,
    lab-stopped), take a snapshot every SNAPSHOT_EVERY seconds, if the
    replay's instruction count moved since the last one (gdb may hold
    it at a breakpoint; a stalled replay holds it too): the snapshots a
    step back starts from."""
    def reached():
        return any(os.path.exists(guest.path(f)) for f in ('lab-died', 'lab-stopped'))
    taken, last = 0, None
    while guest.alive() and not reached():
        time.sleep(SNAPSHOT_EVERY)
        try:
            count = re.search(r'instruction count = (\d+)',
                              guest.monitor('info replay', timeout=30))
        except OSError:
            return
        if count and count[1] != last and not reached() and _snapshot(
                guest, 'rr%d' % (taken + 1)):
            taken, last = taken + 1, count[1]


def said(info):
    """What a recording measured, for the learner."""
    say('recorded on one CPU in %.1f s: a %.1f MB log (%s)'
        % (info['seconds'], info['log_bytes'] / 1e6, info['folder']))
    if info['running']:
        say('the guest still ran after %g s: the recording ends there' % RECORD_SECONDS)
    say('the kernel died: %s' % info['died'] if info['died'] else
        'the kernel did not die on one CPU (a death that needs a second CPU '
        'cannot happen here): the replay stops where the lab stops')
