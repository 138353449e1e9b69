# gdb-scripts where its commands cannot work: each ks- command and $
# function says what is missing, never a Python traceback. Four places:
# gdb without a kernel; stage 0 halted at reset (paging off); stage 0 at
# start_kernel (per-CPU areas not set up); stage 1 in an interrupt (no
# IRQ stacks, so nothing to switch and no $hardirq_ctx).
. "$TOP/vm/lib.sh"
. "$TOP/vm/run.sh"
. "$TOP/tests/lib.sh"
trap 'vm_stop' EXIT

# said PHASE OUTPUT: the "said" lines of tests/gdb/errors.py, or gdb's
# own output for the no-kernel case.
expect_said() {
	phase=$1 command=$2 want=$3 out=$4
	line=$(echo "$out" | grep -F "said $command: " || true)
	if echo "$line" | grep -qF "$want" && ! echo "$line" | grep -q 'Error occurred in Python'; then
		ok "$phase: $command says '$want'"
	else
		not_ok "$phase: $command says '$want' (it said: ${line:-nothing})"
	fi
}

out=$(gdb -q -nx -batch -x "$TOP/gdb-scripts/load.py" -ex 'ks-where' -ex 'ks-bt' </dev/null 2>&1 || true)
echo "$out" >&2
n=$(echo "$out" | grep -c '^no kernel symbols' || true)
if [ "$n" = 2 ] && ! echo "$out" | grep -q -e Traceback -e 'Python Exception'; then
	ok "without a kernel: ks- commands say 'no kernel symbols'"
else
	not_ok "without a kernel: ks- commands say 'no kernel symbols' (said: $out)"
fi

run_phase() {
	vm_start "$1" halted
	timeout -k 5 120 "$TOP/vm/gdb.sh" "$1" "$GDB_PORT" -batch \
		-ex "set \$ks_phase=\"$2\"" -x "$TOP/tests/gdb/errors.py" </dev/null 2>&1 || true
	vm_stop
}

out=$(run_phase 0 reset); echo "$out" >&2
for c in ks-where ks-irqstacks ks-bt ks-thread-info ks-stack-use ks-stack-picture \
	 ks-watch-switch 'p $hardirq_ctx(0)' 'p $current_thread_info(0)'; do
	# At reset the CPU runs the BIOS with paging off: no kernel address
	# can be read (or, if gdb reads physical memory, it finds zeros).
	if echo "$out" | grep -F "said $c: " | grep -q 'per-CPU areas are not set up'; then
		expect_said "at reset" "$c" "per-CPU areas are not set up" "$out"
	else
		expect_said "at reset" "$c" "cannot read the guest's memory" "$out"
	fi
done

out=$(run_phase 0 start_kernel); echo "$out" >&2
for c in ks-where ks-irqstacks ks-bt ks-thread-info ks-stack-use ks-stack-picture \
	 ks-watch-switch 'p $hardirq_ctx(0)' 'p $current_thread_info(0)'; do
	expect_said "at start_kernel" "$c" "per-CPU areas are not set up yet" "$out"
done

out=$(run_phase 1 running); echo "$out" >&2
expect_said "stage 1" ks-watch-switch "this stage never switches stacks" "$out"
expect_said "stage 1" 'p $hardirq_ctx(0)' "this stage has no hardirq stacks" "$out"
expect_said "stage 1" ks-irqstacks "This stage has no IRQ stacks" "$out"
