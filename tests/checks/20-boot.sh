# Every stage boots to the ready marker and exits cleanly through the
# guest's qemu-exit, and the kernel that ran is that stage's (uname -r
# carries the stage, set by vm/kernel.sh).
. "$TOP/vm/lib.sh"
. "$TOP/vm/run.sh"
. "$TOP/tests/lib.sh"
trap 'vm_stop' EXIT

for k in $(stages); do
	t0=$(date +%s.%N)
	vm_start "$k" running exit
	if vm_wait_for "$READY_MARKER [^ ]*-stage$k cpus=$CPUS" && vm_wait_exit; then
		t1=$(date +%s.%N)
		echo "stage $k: $(grep "$READY_MARKER" "$RUN/serial.log"), status $GUEST_STATUS, $(echo "$t1 - $t0" | bc) s" >&2
		if [ "$GUEST_STATUS" = 0 ]; then
			ok "stage $k boots to the ready marker and exits with status 0"
		else
			not_ok "stage $k exits with status 0 (got $GUEST_STATUS)"
		fi
	else
		not_ok "stage $k boots to the ready marker"
	fi
	vm_stop
done
