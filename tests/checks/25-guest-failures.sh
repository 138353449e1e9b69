# A guest that goes wrong is reported with its cause, and leaves no QEMU
# behind: a kernel panic (the guest crashes itself through sysrq) is named
# as a panic with the kernel's own message; a guest that never finishes is
# called hung when the timeout passes.
. "$TOP/vm/lib.sh"
. "$TOP/vm/run.sh"
. "$TOP/tests/lib.sh"
trap 'vm_stop' EXIT

vm_start 0 running /tests/panic.sh
pid=$QEMU_PID
msg=$(vm_wait_for 'KSTACK-DONE' 60 2>&1) && rc=0 || rc=$?
echo "$msg" >&2
if [ $rc != 0 ] && echo "$msg" | grep -q 'the kernel panicked' && echo "$msg" | grep -q 'Kernel panic - not syncing'; then
	ok "a panicking guest is reported as a kernel panic, with the kernel's message"
else
	not_ok "a panicking guest is reported as a kernel panic"
fi
vm_stop
expect "no QEMU is left after the panic" sh -c "! kill -0 $pid 2>/dev/null"

vm_start 0 running /tests/hang.sh
pid=$QEMU_PID
vm_wait_for "$READY_MARKER" 30 || true
msg=$(vm_wait_for 'KSTACK-DONE' 3 2>&1) && rc=0 || rc=$?
echo "$msg" >&2
if [ $rc != 0 ] && echo "$msg" | grep -q 'hung guest'; then
	ok "a guest that never finishes is reported as hung after the timeout"
else
	not_ok "a guest that never finishes is reported as hung after the timeout"
fi
vm_stop
expect "no QEMU is left after the timeout" sh -c "! kill -0 $pid 2>/dev/null"
