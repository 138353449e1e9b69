# A guest that goes wrong is reported with its cause, and leaves no QEMU
# behind: a kernel panic (the guest crashes itself through sysrq) is named
# as a panic with the kernel's own message; a guest that never finishes is
# called hung when the timeout passes. The report is the one every
# session gives (vm/session/session.py: GuestError, from Guest.explain).
import os

from tests.checklib import Guest, GuestError, expect, log
from vm.session.session import DONE_MARKER, READY_MARKER


def report(guest, pattern, timeout):
    """What waiting for PATTERN reports (None if the guest printed it)."""
    try:
        guest.wait_for(pattern, timeout)
        return None
    except GuestError as e:
        log(str(e))
        return str(e)


def gone(pid):
    try:
        os.kill(pid, 0)
        return False
    except ProcessLookupError:
        return True


with Guest(0, '/tests/panic.sh') as guest:
    said = report(guest, DONE_MARKER, 60)
expect(said and 'the kernel panicked' in said and
       'Kernel panic - not syncing' in said,
       "a panicking guest is reported as a kernel panic, with the kernel's message",
       said)
expect(gone(guest.qemu.pid), 'no QEMU is left after the panic',
       'QEMU %d still runs' % guest.qemu.pid)

# Hung, not merely slow to boot: the guest must have come up (its ready
# marker) before the short wait for its end runs out.
with Guest(0, '/tests/hang.sh') as guest:
    booted = report(guest, READY_MARKER, 30)
    said = report(guest, DONE_MARKER, 3)
expect(booted is None and said and 'hung guest' in said,
       'a guest that booted and never finishes is reported as hung after the '
       'timeout', 'booted: %s; then: %s' % (booted or 'yes', said))
expect(gone(guest.qemu.pid), 'no QEMU is left after the timeout',
       'QEMU %d still runs' % guest.qemu.pid)

# The verdict can fail: a guest that never comes up (8 MiB: too little
# for the kernel to reach its console) is not a booted guest that hung.
os.environ['MEM'] = '8'
with Guest(0, '/tests/hang.sh') as guest:
    booted = report(guest, READY_MARKER, 5)
del os.environ['MEM']
expect(booted is not None, 'a guest that never booted is not taken for a booted '
       'one that hung (its ready marker never came)', booted)
