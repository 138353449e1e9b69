# Helpers for tests/checks/*.sh: sourced after vm/host/lib.sh (tests/checklib.py
# is the Python checks' counterpart). A check reports on stdout with
# ok/not_ok; everything else it prints goes to stderr, which the runner
# keeps in build/check/NAME.log. Checks that build in a kernel tree get
# kernel_make and kernel_config from here.
. "$TOP/vm/host/kmake.sh"

ok() { echo "ok - $*"; }
not_ok() { echo "not ok - $*"; }
# skip WHAT WHY: a check this machine cannot run, and why (KTAP's SKIP).
skip() { echo "skip - $1: $2"; }

# expect WHAT COMMAND...: one check line from a command's exit status.
expect() {
	what=$1; shift
	if "$@" >&2; then ok "$what"; else not_ok "$what"; fi
}

# gone_within PID SECONDS: wait for a process to end.
gone_within() {
	i=0
	while kill -0 "$1" 2>/dev/null; do
		i=$((i + 1))
		[ $i -le $(($2 * 10)) ] || return 1
		sleep 0.1
	done
}

# open_lab NAME FD: start `vm/session/ks lab 0` as `make lab N=0` does, its stdin
# a fifo held open on FD (so gdb waits for commands; close FD to end it),
# and wait for gdb to reach the lab's stop. Sets LAB (the pid of vm/session/ks),
# QEMU, GDB and PORT, read from the guest's run folder (vm/session/session.py:
# build/run/0-PID-N, PID being vm/session/ks's).
open_lab() {
	log=$BUILD/check/lab0-$1.log
	mkfifo "$log.stdin"
	python3 -m vm.session.ks lab 0 < "$log.stdin" > "$log" 2>&1 &
	LAB=$!
	eval "exec $2> \"\$log.stdin\""
	rm -f "$log.stdin"
	i=0
	until grep -q '==== Lab 0' "$log"; do
		i=$((i + 1))
		if [ $i -gt 600 ] || ! kill -0 $LAB 2>/dev/null; then
			cat "$log" >&2
			return 1
		fi
		sleep 0.1
	done
	run=$(ls -d "$BUILD/run/0-$LAB-"* | head -n 1)
	QEMU=$(cat "$run/qemu.pid")
	GDB=$(pgrep -P $LAB -x gdb)
	PORT=$(cat "$run/gdb.port")
	echo "$1: vm/session/ks $LAB, gdb $GDB, qemu $QEMU, port $PORT, run folder $run" >&2
}
