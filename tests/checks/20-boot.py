# Every stage boots to the ready marker and exits cleanly through the
# guest's qemu-exit, and the kernel that ran is that stage's (uname -r
# carries the stage, set by vm/host/kernel.sh): its banner, build number and
# time included, is the one in the vmlinux that gdb reads (a bzImage
# once carried an older kernel: see vm/host/cc).
import os
import time

from tests.checklib import Guest, expect, in_guest, log, stages
from vm.session.session import READY_MARKER, stage_obj


def banner(vmlinux):
    """The kernel's linux_banner, as the vmlinux holds it."""
    with open(vmlinux, 'rb') as f:
        data = f.read()
    # The first "Linux version" is a format ("#%s"); the banner is whole.
    at = data.find(b'Linux version ', data.find(b'Linux version ') + 1)
    return data[at:data.index(b'\n', at)].decode(errors='replace')


def boot(k):
    """Boot stage K to its exit: (its ready line, its exit status, its
    console)."""
    with Guest(k, 'exit') as guest:
        ready = guest.wait_for(r'%s [^ ]*-stage%d cpus=%d' % (
            READY_MARKER, k, guest.cpus)).group(0)
        return ready, guest.wait_exit(), guest.serial()


for k in stages():
    t0 = time.time()
    booted = in_guest('stage %d boots to the ready marker' % k, lambda: boot(k))
    if booted is None:
        continue
    ready, status, serial = booted
    log('stage %d: %s, status %s, %.2f s' % (k, ready, status, time.time() - t0))
    expect(status == 0,
           'stage %d boots to the ready marker and exits with status 0' % k,
           'status %s' % status)
    mine = banner(os.path.join(stage_obj(k), 'vmlinux'))
    expect(mine in serial, 'stage %d: the kernel that booted is the '
           'vmlinux gdb reads (%s)' % (k, mine.split(' SMP ')[-1]),
           'the vmlinux says "%s"' % mine)
