#!/bin/sh
# labs/4/experiment.sh: lab 4's experiment, the overflow table.
#
# For stages 1, 2 and 3 and two descents (the same 25-frame call chain at
# every stage; a descent to about 300 bytes from the end), boot the stage
# with labs/4/guest.sh, watch the end magic from gdb (labs/4/watch.py),
# and record from the kernel's own output what caught the overflow, or
# not. Writes build/results/lab4-overflow.{txt,adoc,log}.
. "$(dirname "$0")/../../vm/lib.sh"
. "$TOP/vm/run.sh"

out=$BUILD/results
mkdir -p "$out"
log=$out/lab4-overflow.log
: > "$log"
trap 'vm_stop' EXIT

# field NAME TEXT: the value of NAME=... in TEXT.
field() { echo "$2" | tr ' ' '\n' | sed -n "s/^$1=//p" | head -n 1; }

rows=
for descent in "frames 25" "room 300"; do
	for k in 1 2 3; do
		# (not "mode": vm_start uses that name)
		how=${descent% *} n=${descent#* }
		KS_APPEND="ks_mode=$how ks_n=$n" vm_start "$k" halted /labs/4/guest.sh
		res=$(timeout -k 5 120 "$TOP/vm/gdb.sh" "$k" "$GDB_PORT" -batch \
			-x "$TOP/labs/4/watch.py" </dev/null 2>&1 || true)
		vm_wait_exit 60 || true
		serial=$(grep -a -v 'serial traffic' "$RUN/serial.log" | tr -d '\r' || true)
		vm_stop
		{ echo "=== stage $k, $how $n"; echo "$res" | grep '^result'; echo "$serial" | grep -a -e stackdeep -e 'low stack' -e 'Kernel panic' -e 'lab 4' -e KSTACK-DONE; } >> "$log"

		r=$(echo "$res" | grep '^result ' | tr '\n' ' ')
		deep=$(echo "$serial" | sed -n 's/.*stackdeep: \([0-9]*\) frames.*, \([0-9]*\) bytes \(PAST\|left above\) the stack.s end.*/\1 frames, \2 \3 end/p' | head -n 1)
		checks=$(echo "$serial" | grep -c 'low stack detected by irq handler' || true)
		# Where the check's report ran: dump_stack marks IRQ-stack parts <IRQ>.
		where=task
		echo "$serial" | grep -a -A4 'low stack detected' | grep -q '<IRQ>' && where=irq
		[ "$checks" -gt 0 ] || where=-
		panic=$(echo "$serial" | sed -n 's/.*Kernel panic - not syncing: //p' | head -n 1)
		survived=no
		echo "$serial" | grep -q 'lab 4: the descent returned' && survived=yes
		magic=$(echo "$serial" | sed -n 's/.*stackdeep: end magic \([A-Za-z]*\);.*/\1/p' | head -n 1)
		below=$(echo "$serial" | sed -n 's/.*; \([0-9]*\) of the 1024 bytes below the stack changed/\1/p' | head -n 1)
		by=$(field overwritten_by "$r") entry=$(field via "$r")
		# For the plot: THREAD_SIZE, frames and the deepest esp's distance
		# above the stack's end (negative: below it), from the same report.
		frames=$(echo "$deep" | sed -n 's/^\([0-9]*\) frames.*/\1/p')
		left=$(echo "$deep" | sed -n 's/.*frames, \([0-9]*\) left above end/\1/p; s/.*frames, \([0-9]*\) PAST end/-\1/p')
		irqs=$(echo "$serial" | sed -n 's/.*stackdeep: \([0-9]*\) device interrupts.*/\1/p' | head -n 1)
		rows="$rows$k|$how $n|${deep:-no report}|$checks|$where|${magic:-?}|${by:-?}|${entry:--}|${below:-?}|${panic:-none}|$survived|$(thread_size "$k")|${frames:-}|${left:-}|${irqs:-?}
"
	done
done

# The rows as data, for the workbook's plot (book/plots.py).
{
	echo "# stage|descent|deepest|checks|check's stack|end magic|overwritten by|in|bytes below changed|panic|dd returned|THREAD_SIZE|frames|bytes left above the end|device interrupts while deep"
	printf '%s' "$rows"
} > "$out/lab4-overflow.tsv"

# The table, for a terminal and for the workbook.
{
	echo "Lab 4: overflow at each stage ($(date -u +%F), $(uname -m) host, QEMU TCG, 2 CPUs)"
	echo "$rows" | awk -F'|' 'NF > 1 {
		printf "stage %s, %s: deepest %s; %s device interrupts there\n", $1, $2, $3, $15
		printf "  IRQ-entry check fired %s times (report on the %s stack); end magic %s", $4, $5, $6
		if ($7 != "nobody" && $7 != "?") printf ", overwritten in %s%s", $7, ($8 == "none" ? "" : " (in " $8 ")")
		printf "\n  %s of 1024 bytes under the stack changed; panic: %s; dd returned to user: %s\n", $9, $10, $11 }'
} > "$out/lab4-overflow.txt"
{
	echo '[cols="1,2,3,2,3,2,3",options="header"]'
	echo '|==='
	echo '|Stage |Descent |Deepest point (device interrupts there) |IRQ-entry check (report on) |End magic (overwritten in) |Bytes under the stack changed |Outcome'
	echo "$rows" | awk -F'|' 'NF > 1 {
		by = ($7 == "nobody" || $7 == "?") ? "" : " (" $7 ($8 == "none" ? "" : ", in " $8) ")"
		out = ($10 != "none") ? "panic: " $10 : ($11 == "yes") ? "survived" : "dd never returned, no panic message"
		printf "|%s |%s |%s (%s) |%s (%s) |%s%s |%s |%s\n", $1, $2, $3, $15, $4, $5, $6, by, $9, out }'
	echo '|==='
} > "$out/lab4-overflow.adoc"
cat "$out/lab4-overflow.txt"
