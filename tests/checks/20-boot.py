# Every stage boots to the ready marker and exits cleanly through the
# guest's qemu-exit, and the kernel that ran is that stage's (uname -r
# carries the stage, set by vm/kernel.sh).
import os
import sys
import time

sys.path.insert(0, os.path.dirname(os.path.dirname(os.path.abspath(__file__))))
from checklib import Guest, GuestError, expect, log, not_ok, stages  # noqa: E402
from session import READY_MARKER                                      # noqa: E402

for k in stages():
    t0 = time.time()
    try:
        with Guest(k, 'exit') as guest:
            ready = guest.wait_for(r'%s [^ ]*-stage%d cpus=%d' % (
                READY_MARKER, k, guest.cpus)).group(0)
            status = guest.wait_exit()
    except GuestError as e:
        log(str(e))
        not_ok('stage %d boots to the ready marker (got: %s)'
               % (k, str(e).splitlines()[0]))
        continue
    log('stage %d: %s, status %s, %.2f s' % (k, ready, status, time.time() - t0))
    expect(status == 0,
           'stage %d boots to the ready marker and exits with status 0' % k,
           'status %s' % status)
