# Stack use per stage, as the kernel itself reports it after a boot and a
# short workload (tests/guest/stack-usage.sh): the smallest "bytes left" of
# DEBUG_STACK_USAGE, and KernelStack per thread. The figures go to build/check/stack-usage.txt;
# the checks hold them against the stage's THREAD_SIZE:
#  - KernelStack divided by the stacks it counts (every thread in /proc,
#    plus the idle threads of the other CPUs; the boot CPU's idle stack is
#    static) is THREAD_SIZE, to the nearest KiB (vmstat counters lag by a
#    few pages per CPU);
#  - no task came closer to its stack's end than THREAD_SIZE allows.
. "$TOP/vm/lib.sh"
. "$TOP/vm/run.sh"
. "$TOP/tests/lib.sh"
trap 'vm_stop' EXIT

table=$BUILD/check/stack-usage.txt
printf '%-6s %-12s %-17s %-14s %s\n' stage THREAD_SIZE "least bytes left" "deepest use" "KernelStack (threads)" > "$table"

for k in $(stages); do
	ts=$(if [ "$k" -ge 3 ]; then echo 4096; else echo 8192; fi)
	vm_start "$k" running /tests/stack-usage.sh
	if ! vm_wait_for 'KSTACK-DONE status=' 180; then
		not_ok "stage $k: the stack-usage workload finishes"
		vm_stop
		continue
	fi
	vm_wait_exit
	log=$RUN/serial.log
	left=$(sed -n 's/.*used greatest stack depth: \([0-9]*\) bytes left.*/\1/p' "$log" | sort -n | head -n 1)
	set -- $(sed -n 's/^stack-usage: KernelStack \([0-9]*\) kB threads \([0-9]*\) cpus \([0-9]*\).*/\1 \2 \3/p' "$log")
	kb=${1:-0} threads=${2:-0} cpus=${3:-1}
	stacks=$((threads + cpus - 1))
	printf '%-6s %-12s %-17s %-14s %s\n' "$k" "$ts" "${left:-none}" "$((ts - ${left:-ts}))" "$kb kB ($threads)" >> "$table"
	echo "stage $k: least bytes left $left, KernelStack $kb kB for $stacks stacks" >&2

	per=$(( (kb * 1024 + stacks * 512) / (stacks > 0 ? stacks : 1) / 1024 ))
	if [ "$GUEST_STATUS" = 0 ] && [ "$per" = $((ts / 1024)) ]; then
		ok "stage $k: KernelStack is $ts bytes per thread ($kb kB for $stacks stacks)"
	else
		not_ok "stage $k: KernelStack is $ts bytes per thread (got ${per} KiB: $kb kB for $stacks stacks, status $GUEST_STATUS)"
	fi
	if [ -n "$left" ] && [ "$left" -gt 0 ] && [ "$left" -lt "$ts" ]; then
		ok "stage $k: deepest task stack use $((ts - left)) of $ts bytes ($left left)"
	else
		not_ok "stage $k: DEBUG_STACK_USAGE reports fewer than $ts bytes left (got '${left:-nothing}')"
	fi
	vm_stop
done
cat "$table" >&2
