# Guest workload of lab 4: one descent deep into a task's stack while
# interrupts arrive, then the guest ends (or the kernel stops it).
#
# The kernel command line chooses the descent (labs/4/experiment.py sets
# it; the lab's default is the first): ks_mode=frames ks_n=25 recurses 25
# frames of 256 bytes, the same chain at every stage; ks_mode=room ks_n=300
# recurses until about 300 bytes are left. The serial port's interrupt goes
# to CPU 0, where dd descends. stackdeep (loaded with irqs=1) keeps dd at
# its deepest point until a device interrupt has reached its CPU (and
# 100 ms have passed); once it is there, a writer on CPU 1 sends ten lines
# to the serial port (the 8250 driver sends them 16 bytes an interrupt:
# stackdeep counted 18 to 26 while dd waited). So interrupts land while
# dd is deep, on a loaded host as on a quiet one. (Each one that finds the stack low prints a long report, and
# the report's own console output can raise the next serial interrupt:
# more lines would make a storm of reports.)
#
# ks_descents=MODE:N,MODE:N,... instead makes several descents, one after
# the other, and ks_repeat=yes makes them again and again (lab 4's task
# judges its check on them, labs/4/lab.toml).
descents=$(echo "${ks_descents:-${ks_mode:-frames}:${ks_n:-25}}" | tr , ' ')
d=/sys/kernel/debug/stackdeep
# ks_irqs=0 (make replay: one CPU, so no writer) descends without waiting.
irqs=${ks_irqs:-1}
# ks_frame=B (a learner's variant, labs/4/lab.toml): B bytes of locals a
# call, not 256; a descent of N frames then makes as many calls as keeps
# its depth that of N calls of 256 (a call costs about 20 bytes more).
frame=${ks_frame:-256}
insmod /lib/modules/stackdeep.ko irqs=$irqs frame=$frame || exit 1
[ "$irqs" = 0 ] || echo 1 > /proc/irq/4/smp_affinity
# This shell, and all it starts but dd, runs on CPU 1. CPU 0 spins in
# the kernel in dd's descent, which nothing preempts (PREEMPT_NONE),
# until the writer's interrupts come: a writer forked there, which
# taskset must then move with CPU 0's stopper thread, would wait for dd,
# and dd for it, until hold_ms ran out (10 s per descent).
[ "$irqs" = 0 ] || taskset -p 2 $$ > /dev/null

# ks_writer=cat (lab 6's task graded on a dump of its own): the descent is
# cat's, not dd's; ks_forks=N forks N times first, so that its pid (and
# its stack) are not the book's either. And two decoys, one older than
# cat and one newer: each a task whose stack went as deep as cat's will,
# but with its CPU's interrupts off (stackdeep's still=1), so that none
# went deeper still, as they will in cat's; then asleep. So the task
# with the fewest never-used bytes is cat, and not the first or the
# newest under the IRQ-entry check's line.
decoy() {
	echo 0 > /sys/module/stackdeep/parameters/irqs
	echo 1 > /sys/module/stackdeep/parameters/still
	[ -p /tmp/never ] || mkfifo /tmp/never
	rm -f /tmp/decoy
	# After its descent it waits for ever to open a FIFO no one writes.
	# (A decoy that ended stays a zombie here: the wait is bounded.)
	taskset 2 sh -c "echo $2 > $d/$1 || exit 1; echo > /tmp/decoy; read x < /tmp/never" &
	i=0
	until [ -e /tmp/decoy ] || [ $i -ge 200000 ]; do i=$((i + 1)); done
	[ -e /tmp/decoy ] || echo "lab 4: the decoy $! did not descend"
	echo 0 > /sys/module/stackdeep/parameters/still
	echo "$irqs" > /sys/module/stackdeep/parameters/irqs
}
i=0
while [ "$i" -lt "${ks_forks:-0}" ]; do sh -c :; i=$((i + 1)); done

descend() {
	mode=$1 n=$2
	[ "$mode" != frames ] || n=$(((n * 276 + frame + 19) / (frame + 20)))
	echo "lab 4: descending, $mode $n, on CPU 0"
	if [ "${ks_writer:-dd}" = cat ]; then
		# The older decoy; cat, waiting for its number in a FIFO; the
		# newer decoy; then cat's descent.
		decoy "$mode" "$n"
		rm -f /tmp/n && mkfifo /tmp/n
		taskset 1 cat < /tmp/n > $d/"$mode" 2>/dev/null &
		descent=$!
		decoy "$mode" "$n"
		echo "$n" > /tmp/n
	else
		echo "$n" | taskset 1 dd of=$d/"$mode" 2>/dev/null &
		descent=$!
	fi
	# The writer uses shell builtins only (read, echo, test): a fork, exec
	# or exit on CPU 1 can wait for CPU 0 (which spins in the kernel, in
	# dd) and would stall the writer until dd gives up.
	[ "$irqs" = 0 ] || taskset 2 sh -c 'i=0 deep=N
		until [ "$deep" = Y ] || [ $i -ge 20000 ]; do read -r deep < $1/deep; i=$((i + 1)); done
		i=0
		while [ $i -lt 10 ]; do echo "lab 4: serial traffic from CPU 1"; i=$((i + 1)); done' x $d
	wait $descent
	echo "lab 4: the descent returned"
}

while :; do
	for one in $descents; do
		descend "${one%%:*}" "${one#*:}"
	done
	[ "${ks_repeat:-no}" = yes ] || break
done
