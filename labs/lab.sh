#!/bin/sh
# labs/lab.sh N: open lab N (make lab N=N, after the kernel and initramfs
# are built): boot the lab's stage halted, attach gdb, run the lab's
# lab.gdb up to its first stop, and hand gdb to the learner.
#
# Serial output: in tmux, a pane below follows it; elsewhere the path of the
# log is printed. Quitting gdb ends QEMU; so does every other way out (the
# EXIT trap here, and vm/run.sh's watcher if this script is killed).
#
# The lab's stop is guarded (labs/guard.py): if the guest dies before it,
# or shows no stop within LAB_TIMEOUT seconds (120), gdb ends, the cause
# is printed from the serial log, and this script exits non-zero.
. "$(dirname "$0")/../vm/lib.sh"
. "$TOP/vm/run.sh"

n=${1:?usage: lab.sh N}
"$TOP/labs/valid.sh" "$n"
stage=$(cat "$TOP/labs/$n/stage")
# A lab that is not a gdb session (lab 6: crash) has its own entry.
[ -x "$TOP/labs/$n/lab.sh" ] && exec "$TOP/labs/$n/lab.sh"
guest=
[ -f "$TOP/labs/$n/guest.sh" ] && guest=/labs/$n/guest.sh

trap 'vm_stop' EXIT
trap 'exit 130' INT TERM HUP

vm_start "$stage" halted "$guest"
say "lab $n: stage $stage halted, gdb port $GDB_PORT, run folder $RUN"
vm_deadline "${LAB_TIMEOUT:-120}"
export KS_RUN=$RUN
# The next lab's stage builds while this one is studied (AHEAD=0: not).
"$TOP/vm/ahead.sh" "$n"

if [ -n "${TMUX:-}" ] && command -v tmux >/dev/null; then
	# tail --pid ends the pane when QEMU ends.
	tmux split-window -v -d -l 10 "tail --pid=$QEMU_PID -n +1 -f $RUN/serial.log"
else
	say "serial console: tail -f $RUN/serial.log  (inside tmux it opens in a pane)"
fi

# With a terminal, run gdb as a job of its own (set -m) so Ctrl-C reaches
# gdb alone, which stops the guest, instead of also killing make and us.
[ -t 0 ] && set -m
rc=0
vm_gdb "$stage" -x "$TOP/labs/guard.py" -x "$TOP/labs/$n/lab.gdb" -ex 'python lab_reached()' || rc=$?
set +m

if [ ! -f "$RUN/lab-stopped" ]; then
	vm_explain "lab $n: the guest never reached the lab's stop"
	[ $rc != 0 ] || rc=1
elif ! kill -0 "$QEMU_PID" 2>/dev/null; then
	vm_explain "the guest ended while gdb was attached"
fi
exit $rc
