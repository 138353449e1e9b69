# Guest workload of lab 5: what 4K stacks buy, measured (run at stages 2
# and 3 by labs/5/experiment.py; `make lab N=5` runs it at stage 3).
#
# Part 1: threads until the kernel refuses or free memory falls under 8 MB
# (vm/guest/threads.c), with the pid and thread limits raised so that
# memory is the limit.
# Part 2: the same after vm/guest/fragment.c has left almost no free pair
# of pages. threads is the OOM killer's first choice (oom_score_adj 1000)
# and prints its count as it goes, so the count survives an OOM kill.
mkdir -p /tmp
echo 4 > /proc/sys/kernel/printk      # console: errors only, keeps OOM reports short
echo 32768 > /proc/sys/kernel/pid_max
echo 1000000 > /proc/sys/kernel/threads-max
memfree() { sed -n 's/^MemFree: *\([0-9]*\).*/\1/p' /proc/meminfo; }
start=$(memfree)
echo "lab 5: $(nproc) CPUs, MemFree $start kB, KernelStack $(sed -n 's/^KernelStack: *//p' /proc/meminfo) at start"
echo "lab 5: part 1: threads until the kernel refuses"
sh -c 'echo 1000 > /proc/self/oom_score_adj; exec threads'
# The dead threads' task_structs are freed after an RCU grace period:
# wait until the memory is back (at most 20 s).
i=0
while [ "$(memfree)" -lt $((start * 9 / 10)) ] && [ $i -lt 200 ]; do sleep 0.1; i=$((i + 1)); done
echo "lab 5: MemFree $(memfree) kB again"
echo "lab 5: buddyinfo before fragmenting: $(cat /proc/buddyinfo | tr -s ' ' | tr '\n' ';')"
echo "lab 5: part 2: fragmented memory"
fragment 8 > /tmp/fragment.out &
holder=$!
until grep -q ready /tmp/fragment.out 2>/dev/null; do
	kill -0 $holder 2>/dev/null || { echo "lab 5: fragment failed"; cat /tmp/fragment.out; exit 1; }
	sleep 0.1
done
cat /tmp/fragment.out
echo "lab 5: buddyinfo fragmented: $(cat /proc/buddyinfo | tr -s ' ' | tr '\n' ';')"
# With no free pair of pages, an 8K stack can only come from the OOM
# killer: it takes threads first (oom_score_adj 1000), and may take a
# second victim while threads is still dying: then the biggest process
# left, fragment, not this little script.
sh -c 'echo 1000 > /proc/self/oom_score_adj; exec threads 8192 10'
echo "lab 5: buddyinfo after: $(cat /proc/buddyinfo | tr -s ' ' | tr '\n' ';')"
kill $holder 2>/dev/null || echo "lab 5: fragment was the OOM killer's second victim"
echo "lab 5: done"
