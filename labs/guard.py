# Loaded before every lab's lab.gdb, by vm/ks (make lab, make grade) and
# book/transcripts.py (gdb -x): a lab never shows its banner for a stop it
# did not reach.
#
# lab.gdb continues the guest to the lab's stop and then prints what to
# try. If the guest dies on the way (a kernel panic reboots it, and QEMU's
# -no-reboot ends QEMU; a triple fault; the guest's own exit), gdb would
# say "[Inferior 1 (process 1) exited normally]" and go on to the banner,
# and the learner would get a prompt with no guest behind it. Instead:
#
# - the guest ending while armed quits gdb at once with status 3;
# - a stop made by Ctrl-C (SIGINT) before the lab's stop does the same:
#   the stop the banner describes was not reached;
# - vm/ks lab calls lab_reached() once lab.gdb is done (gdb -ex): if no
#   guest is attached then (QEMU was ended by Guest.deadline() for a
#   hung guest, and lab.gdb stopped at the lost connection), quit with
#   status 3; otherwise the lab's stop was reached: disarm, and leave the
#   file lab-stopped in the run folder (KS_RUN) for the deadline watcher.
#
# The host side (Guest.explain() in vm/session.py) then tells why, in the kernel's
# own words from the serial log. Graders and transcripts never call
# lab_reached(): the guard stays armed, so a guest that dies mid-grading
# ends gdb the same way.
import os

import gdb

GUEST_ENDED = 3      # vm/ks reads this exit status
armed = True


def give_up(why):
    global armed
    armed = False
    gdb.write('\nks: %s; no lab stop to show.\n' % why, gdb.STDERR)
    gdb.flush(gdb.STDERR)
    gdb.execute('quit %d' % GUEST_ENDED)


def on_exited(event):
    if armed:
        give_up('the guest ended before the lab\'s stop')


def on_stop(event):
    if (armed and isinstance(event, gdb.SignalEvent)
            and event.stop_signal == 'SIGINT'):
        give_up('interrupted (Ctrl-C) before the lab\'s stop')


def lab_reached():
    global armed
    if not armed:
        return
    if gdb.selected_inferior().pid == 0:
        give_up('the guest is gone before the lab\'s stop')
    armed = False
    run = os.environ.get('KS_RUN')
    if run:
        open(os.path.join(run, 'lab-stopped'), 'w').close()


def on_gdb_exiting(event):
    # gdb's own quit detaches from the guest, which gdb reports as the
    # inferior's exit: that is the session ending, not the guest.
    global armed
    armed = False


gdb.events.exited.connect(on_exited)
gdb.events.gdb_exiting.connect(on_gdb_exiting)
gdb.events.stop.connect(on_stop)
