# Lab 5's experiment (labs/5/experiment.sh), measured in this run: 4K
# stacks (stage 3) against 8K (stage 2) in the same guest.
#   KernelStack per thread is THREAD_SIZE at each stage;
#   4K stacks fit more threads in the same memory (between 1.4 and 2 times:
#   the task_struct and the rest of a thread do not shrink);
#   with memory fragmented into single pages, 4K stacks fit at least 5
#   times as many threads as 8K stacks, which need free pairs.
. "$TOP/vm/lib.sh"
. "$TOP/tests/lib.sh"

"$TOP/labs/5/experiment.sh" >&2 || { not_ok "labs/5/experiment.sh ran to its end"; exit 0; }
table=$BUILD/results/lab5-memory.txt
cat "$BUILD/results/lab5-memory.log" >&2

for k in 2 3; do
	line=$(grep "^stage $k, " "$table" || true)
	per=$(echo "$line" | sed -n 's/.*), \([0-9.]*\) kB of KernelStack each.*/\1/p')
	want=$(($(thread_size "$k") / 1024))
	if [ -n "$per" ] && [ "$(echo "$per > $want - 0.2 && $per < $want + 0.2" | bc)" = 1 ]; then
		ok "stage $k: KernelStack grows by $per kB per thread, THREAD_SIZE $want kB"
	else
		not_ok "stage $k: KernelStack grows by THREAD_SIZE $want kB per thread (table: $line)"
	fi
done
ratios=$(grep '^4K/8K: ' "$table" || true)
plain=$(echo "$ratios" | sed -n 's/^4K\/8K: \([0-9.]*\) times the threads.*/\1/p')
frag=$(echo "$ratios" | sed -n 's/.*; \([0-9.]*\) times with fragmented memory.*/\1/p')
if [ -n "$plain" ] && [ "$(echo "$plain >= 1.4 && $plain <= 2" | bc)" = 1 ]; then
	ok "4K stacks fit $plain times the threads of 8K stacks in the same memory"
else
	not_ok "4K stacks fit 1.4-2 times the threads of 8K stacks (table: ${ratios:-none})"
fi
if [ -n "$frag" ] && [ "$(echo "$frag >= 5" | bc)" = 1 ]; then
	ok "with fragmented memory, 4K stacks fit $frag times the threads of 8K stacks"
else
	not_ok "with fragmented memory, 4K stacks fit at least 5 times the threads (table: ${ratios:-none})"
fi
