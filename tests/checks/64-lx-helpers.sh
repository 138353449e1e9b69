# The kernel's own gdb helpers work in every stage, as a kernel developer
# expects: every lx- command and $lx_ function 6.1 defines is run at a
# stop with a module loaded (tests/gdb/lx_helpers.py), and the failures
# are counted. A helper for hardware a PC lacks (device tree, common
# clock, power domains) counts as absent only when the kernel's own
# config says so. $lx_current() and lx-timerlist's walk are the
# project's (gdb-scripts/kstack/lxfixes.py): 6.1's fail on i386.
. "$TOP/vm/lib.sh"
. "$TOP/vm/run.sh"
. "$TOP/tests/lib.sh"
trap 'vm_stop' EXIT
export KS_CHECK_DIR=$BUILD/check

for k in $(stages); do
	vm_start "$k" halted /tests/lx.sh
	out=$(gdb_batch "$k" "$TOP/tests/gdb/lx_helpers.py" 120 2>&1)
	vm_stop
	{ echo "=== stage $k"; echo "$out"; } >&2
	found=$(echo "$out" | sed -n 's/^lx found //p')
	good=$(echo "$out" | grep -c '^lx ok ' || true)
	absent=$(echo "$out" | sed -n 's/^lx absent \([^:]*\):.*(\(.*\) is off)/\1 (\2)/p' | tr '\n' ' ')
	failed=$(echo "$out" | sed -n 's/^lx failed //p')
	if [ -z "$found" ]; then
		not_ok "stage $k: the lx- helpers were run (no list; log above)"
	elif [ -n "$failed" ]; then
		not_ok "stage $k: $(echo "$failed" | wc -l) lx- helper(s) fail: $(echo "$failed" | tr '\n' ';')"
	else
		ok "stage $k: $found: $good work, 0 fail; absent on a PC: $absent"
	fi
done
