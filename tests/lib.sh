# Helpers for tests/checks/*.sh: sourced after vm/lib.sh and vm/run.sh.
# A check reports on stdout with ok/not_ok; everything else it prints goes
# to stderr, which the runner keeps in build/check/NAME.log.

ok() { echo "ok - $*"; }
not_ok() { echo "not ok - $*"; }

# expect WHAT COMMAND...: one check line from a command's exit status.
expect() {
	what=$1; shift
	if "$@" >&2; then ok "$what"; else not_ok "$what"; fi
}

# gdb_batch STAGE SCRIPT [TIMEOUT]: run a gdb script in batch mode against
# the guest started with vm_start; its output goes to stdout. A hung gdb is
# killed after TIMEOUT seconds (default 60).
gdb_batch() {
	timeout -k 5 "${3:-60}" "$TOP/vm/gdb.sh" "$1" "$GDB_PORT" -batch -x "$2" < /dev/null
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

# open_lab NAME FD: start labs/lab.sh 0 as a learner would, its stdin a
# fifo held open on FD (so gdb waits for commands; close FD to end it), and
# wait for gdb to reach the lab's stop. Sets LAB (its pid), QEMU, GDB and
# PORT.
open_lab() {
	log=$BUILD/check/lab0-$1.log
	mkfifo "$log.stdin"
	"$TOP/labs/lab.sh" 0 < "$log.stdin" > "$log" 2>&1 &
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
	QEMU=$(cat "$BUILD/run/0-$LAB/qemu.pid")
	GDB=$(pgrep -P $LAB -x gdb)
	PORT=$(cat "$BUILD/run/0-$LAB/gdb.port")
	echo "$1: lab.sh $LAB, gdb $GDB, qemu $QEMU, port $PORT" >&2
}
