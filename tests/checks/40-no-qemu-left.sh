# No QEMU outlives its lab session: open lab 0 as a learner would (gdb at
# the lab's stop, waiting for commands), then kill gdb with SIGKILL; and
# again, kill the lab script itself with SIGKILL, which leaves it no trap
# to run. Both times the guest's QEMU must be gone within a few seconds.
. "$TOP/vm/lib.sh"
. "$TOP/tests/lib.sh"

gone_within() { # PID SECONDS
	i=0
	while kill -0 "$1" 2>/dev/null; do
		i=$((i + 1))
		[ $i -le $(($2 * 10)) ] || return 1
		sleep 0.1
	done
}

# open_lab: start labs/lab.sh 0 with a silent, open stdin and wait for gdb
# to reach the lab's stop; sets LAB (its pid), QEMU and GDB.
open_lab() {
	log=$BUILD/check/lab0-$1.log
	mkfifo "$log.stdin"
	"$TOP/labs/lab.sh" 0 < "$log.stdin" > "$log" 2>&1 &
	LAB=$!
	exec 9> "$log.stdin"      # hold the fifo open: gdb waits for input
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
	echo "$1: lab.sh $LAB, gdb $GDB, qemu $QEMU" >&2
}

if open_lab killed-gdb; then
	kill -9 "$GDB"
	expect "QEMU is gone within 5 s of gdb being killed" gone_within "$QEMU" 5
	exec 9>&-
	wait $LAB 2>/dev/null || true
else
	not_ok "lab 0 opens and stops at its first stop"
fi

if open_lab killed-lab; then
	kill -9 "$LAB"
	expect "QEMU is gone within 5 s of the lab script being killed" gone_within "$QEMU" 5
	kill "$GDB" 2>/dev/null || true
	exec 9>&-
else
	not_ok "lab 0 opens and stops at its first stop"
fi
