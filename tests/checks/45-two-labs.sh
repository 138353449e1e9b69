# Two `make lab` at once in one clone both work: each gets its own run
# folder and gdb port, both reach the lab's stop, and quitting one leaves
# the other's guest running.
. "$TOP/vm/host/lib.sh"
. "$TOP/tests/lib.sh"

if open_lab first 7; then
	lab1=$LAB qemu1=$QEMU port1=$PORT
	if open_lab second 8; then
		lab2=$LAB qemu2=$QEMU port2=$PORT
		if [ "$port1" != "$port2" ] && [ "$qemu1" != "$qemu2" ]; then
			ok "two labs at once both stop at the lab's start (gdb ports $port1 and $port2)"
		else
			not_ok "two labs at once get their own QEMU and port ($port1, $port2)"
		fi
		echo quit >&7
		exec 7>&-
		expect "quitting the first lab ends its QEMU" gone_within "$qemu1" 10
		expect "the second lab's QEMU still runs" kill -0 "$qemu2"
		echo quit >&8
		exec 8>&-
		expect "quitting the second lab ends its QEMU" gone_within "$qemu2" 10
		wait "$lab2" 2>/dev/null || true
	else
		not_ok "a second lab opens while the first runs"
		exec 7>&-
	fi
	wait "$lab1" 2>/dev/null || true
else
	not_ok "lab 0 opens and stops at its first stop"
fi
