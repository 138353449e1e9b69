# gdb-scripts' 2.6 names: `break do_IRQ` stops at the C entry of a device
# interrupt (common_interrupt, compared by address) and says which 6.1
# function it stands for; $hardirq_ctx(0) and $softirq_ctx(0) equal CPU 0's
# per-CPU stack pointers read raw. Stage 0, gdb in batch mode.
. "$TOP/vm/lib.sh"
. "$TOP/vm/run.sh"
. "$TOP/tests/lib.sh"
trap 'vm_stop' EXIT

vm_start 0 halted exit
out=$(gdb_batch 0 "$TOP/tests/gdb/old-names.gdb" 2>&1 || true)
echo "$out" >&2
get() { echo "$out" | sed -n "s/^$1=//p"; }

pc=$(get pc)
if [ -n "$pc" ] && [ "$pc" = "$(get common_interrupt)" ] && [ "$(get vector)" -ge 32 ] \
   && echo "$out" | grep -q '^(break do_IRQ stops at common_interrupt.)'; then
	ok "break do_IRQ stops at common_interrupt ($pc, vector $(get vector)) and names it"
else
	not_ok "break do_IRQ stops at common_interrupt (pc ${pc:-none}, common_interrupt $(get common_interrupt))"
fi
for kind in hardirq softirq; do
	mine=$(get ${kind}_ctx0) raw=$(get raw_${kind}0)
	if [ -n "$raw" ] && [ "$raw" != 0 ] && [ "$mine" = "$raw" ]; then
		ok "\$${kind}_ctx(0) is CPU 0's ${kind}_stack_ptr ($raw)"
	else
		not_ok "\$${kind}_ctx(0) ($mine) is CPU 0's ${kind}_stack_ptr ($raw)"
	fi
done
