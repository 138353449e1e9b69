# No QEMU outlives its lab session: open lab 0 as a learner would (gdb at
# the lab's stop, waiting for commands), then kill gdb with SIGKILL; and
# again, kill the lab's session itself (vm/session/ks) with SIGKILL, which leaves
# it no cleanup to run. Both times the guest's QEMU must be gone within a
# few seconds.
. "$TOP/vm/host/lib.sh"
. "$TOP/tests/lib.sh"

if open_lab killed-gdb 7; then
	kill -9 "$GDB"
	expect "QEMU is gone within 5 s of gdb being killed" gone_within "$QEMU" 5
	exec 7>&-
	wait $LAB 2>/dev/null || true
else
	not_ok "lab 0 opens and stops at its first stop"
fi

if open_lab killed-lab 7; then
	kill -9 "$LAB"
	expect "QEMU is gone within 5 s of the lab's vm/session/ks being killed" gone_within "$QEMU" 5
	kill "$GDB" 2>/dev/null || true
	exec 7>&-
else
	not_ok "lab 0 opens and stops at its first stop"
fi
