#!/bin/sh
# labs/5/experiment.sh: lab 5's experiment, what 4K stacks buy, measured.
#
# Boots stage 2 (8K stacks) and stage 3 (4K) in the same guest (CPUS,
# MEM) with labs/5/guest.sh and reads the guest's own reports: threads
# created until free memory runs low, KernelStack per thread, and threads
# created once fragment has left almost no free pair of pages (buddyinfo
# before and after). Writes build/results/lab5-memory.{txt,adoc,log}.
. "$(dirname "$0")/../../vm/lib.sh"
. "$TOP/vm/run.sh"

out=$BUILD/results
mkdir -p "$out"
log=$out/lab5-memory.log
: > "$log"
trap 'vm_stop' EXIT

# count PART SERIAL: for part 1 or 2, "THREADS N KERNELSTACK_KB": the
# threads made (the final count, or the last report if the OOM killer
# ended the program), and the last report's count and KernelStack.
count() {
	echo "$2" | awk -v part="$1" '
		/lab 5: part 2/ { p = 2 }
		/lab 5: part 1/ { p = 1 }
		p == part && $1 == "threads:" && $2 ~ /^[0-9]+$/ { n = $2; ks = $4 }
		p == part && $1 == "threads:" && $2 == "done" { done = $3 }
		END { print (done ? done : n) + 0, n + 0, ks + 0 }'
}

rows=
for k in 2 3; do
	vm_start "$k" running /labs/5/guest.sh
	vm_wait_exit 300 || die "stage $k: lab 5's guest did not finish (serial log: $RUN/serial.log)"
	serial=$(tr -d '\r' < "$RUN/serial.log")
	{ echo "=== stage $k"; echo "$serial" | grep -a -e 'lab 5' -e 'threads: done' -e 'Killed process' -e fragment:; } >> "$log"
	echo "$serial" | grep -q 'lab 5: done' || die "stage $k: lab 5's guest did not finish its parts (log: $log)"
	ts=$(($(thread_size "$k") / 1024))
	set -- $(count 1 "$serial"); n1=$1 at=$2 ks1=$3
	set -- $(count 2 "$serial"); n2=$1
	start_ks=$(echo "$serial" | sed -n 's/.*KernelStack \([0-9]*\) kB at start.*/\1/p')
	per=$(echo "scale=2; ($ks1 - $start_ks) / $at" | bc)
	how1=$(echo "$serial" | sed -n 's/^threads: done [0-9]* (\(.*\))$/\1/p' | sed -n 1p)
	how2=$(echo "$serial" | awk '/lab 5: part 2/ { p = 1 } p && /^threads: done/' | sed 's/^threads: done [0-9]* (\(.*\))$/\1/')
	[ -n "$how2" ] || how2="killed by the OOM killer"
	frag=$(echo "$serial" | sed -n 's/.*buddyinfo fragmented: Node 0, zone Normal \(.*\) ;/\1/p')
	rows="$rows$k|$ts|$n1|$per|$how1|$n2|$how2|$frag
"
done

# The rows as data, for the workbook's plot (book/plots.py).
{
	echo "# stage|stack kB|threads|KernelStack kB per thread|how it ended|threads, fragmented|how it ended|buddyinfo, fragmented"
	printf '%s' "$rows"
} > "$out/lab5-memory.tsv"
{
	echo "Lab 5: what 4K stacks buy ($(date -u +%F); guest: ${CPUS:-2} CPUs, ${MEM:-128} MiB, QEMU TCG)"
	echo "$rows" | awk -F'|' 'NF > 1 {
		printf "stage %s, %s K stacks: %s threads (%s), %s kB of KernelStack each\n", $1, $2, $3, $5, $4
		printf "  fragmented (buddyinfo order 0..10: %s): %s threads (%s)\n", $8, $6, $7
		n1[NR] = $3; n2[NR] = $6 }
		END { if (n1[1] && n2[1]) printf "4K/8K: %.2f times the threads; %.1f times with fragmented memory\n", n1[2] / n1[1], n2[2] / n2[1] }'
} > "$out/lab5-memory.txt"
{
	echo '[cols="1,1,2,2,2,3",options="header"]'
	echo '|==='
	echo '|Stage |Stack |Threads until 8 MB free |KernelStack per thread |Threads, fragmented memory |Free blocks by order (0..10), fragmented'
	echo "$rows" | awk -F'|' 'NF > 1 { printf "|%s |%s K |%s |%s kB |%s (%s) |%s\n", $1, $2, $3, $4, $6, $7, $8 }'
	echo '|==='
} > "$out/lab5-memory.adoc"
cat "$out/lab5-memory.txt"
