# Guest workload of lab 5: what 4K stacks buy, measured (run at stages 2
# and 3 by labs/5/experiment.py; `make lab N=5` runs it at stage 3).
#
# Part 1: threads until the kernel refuses or free memory falls under 8 MB
# (vm/guest/threads.c), with the pid and thread limits raised so that
# memory is the limit.
# Part 2: the same after vm/guest/fragment.c has left almost no free pair
# of pages. threads is the OOM killer's first choice (oom_score_adj 1000)
# and prints its count as it goes, so the count survives an OOM kill.
# With the learner's programs in /task/5/bin (make grade N=5 EXERCISE=1),
# it runs those, then threads as part 1 does, and stops there.
mkdir -p /tmp
echo 4 > /proc/sys/kernel/printk      # console: errors only, keeps OOM reports short
echo 32768 > /proc/sys/kernel/pid_max
echo 1000000 > /proc/sys/kernel/threads-max
memfree() { sed -n 's/^MemFree: *\([0-9]*\).*/\1/p' /proc/meminfo; }
# Lab 5's task: first some 18 MB of the kernel's reclaimable caches
# (vm/guest/dentries.c), which MemAvailable counts and MemFree does not.
[ ! -d /task/5/bin ] || dentries /sys 150000
start=$(memfree)

# Lab 5's task (labs/5/task/grade.py packs the learner's programs into
# /task/5/bin): run each, wait until the memory of its sample threads is
# back, then threads as in part 1, and stop there.
if [ -d /task/5/bin ]; then
	for p in /task/5/bin/*; do
		name=$(basename "$p")
		echo "task5: run $name"
		# The OOM killer's first choice, should it come to that.
		sh -c "echo 1000 > /proc/self/oom_score_adj; exec $p"
		echo "task5: end $name status $?"
		# The sample's threads are freed after an RCU grace period (sleep
		# returns at once in this guest: a bounded number of looks).
		i=0
		while [ "$(memfree)" -lt $((start - 256)) ] && [ $i -lt 5000 ]; do
			i=$((i + 1))
		done
		echo "task5: MemFree $(memfree) kB again, of $start"
	done
	echo "task5: threads, MemFree $(memfree) kB"
	sh -c 'echo 1000 > /proc/self/oom_score_adj; exec threads'
	echo "task5: done"
	exit 0
fi
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
