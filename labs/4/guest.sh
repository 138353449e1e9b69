# Guest workload of lab 4: one descent deep into a task's stack while
# interrupts arrive, then the guest ends (or the kernel stops it).
#
# The kernel command line chooses the descent (labs/4/experiment.sh sets
# it; the lab's default is the first): ks_mode=frames ks_n=25 recurses 25
# frames of 256 bytes, the same chain at every stage; ks_mode=room ks_n=300
# recurses until about 300 bytes are left. The serial port's interrupt goes
# to CPU 0, where dd descends; once stackdeep says dd waits at its deepest
# point, a writer on CPU 1 sends lines until /proc/interrupts shows that
# three serial interrupts have reached CPU 0, and then releases dd: a small
# number of interrupts, all landing while dd is deep, on a loaded host as
# on a quiet one (each one that finds the stack low prints a long report,
# and reports on the serial console are slow under TCG).
mode=${ks_mode:-frames} n=${ks_n:-25}
d=/sys/kernel/debug/stackdeep
# hold_ms: dd waits at its deepest point until released (10 s at most).
insmod /lib/modules/stackdeep.ko hold_ms=10000 || exit 1
echo 1 > /proc/irq/4/smp_affinity
echo "lab 4: descending, $mode $n, on CPU 0"
echo "$n" | taskset 1 dd of=$d/"$mode" 2>/dev/null &
descent=$!
taskset 2 sh -c '
	# serial_irqs_cpu0: the count of IRQ 4 on CPU 0.
	serial_irqs_cpu0() { awk "\$1 == \"4:\" { print \$2 }" /proc/interrupts; }
	i=0
	until [ "$(cat $1/deep)" = Y ] || [ $i -ge 5000 ]; do i=$((i + 1)); done
	before=$(serial_irqs_cpu0) i=0
	until [ $(($(serial_irqs_cpu0) - before)) -ge 3 ] || [ $i -ge 200 ]; do
		echo "lab 4: serial traffic from CPU 1"; i=$((i + 1))
	done
	echo "lab 4: $(($(serial_irqs_cpu0) - before)) serial interrupts on CPU 0 while dd was deep"
	echo Y > $1/release' x $d
wait $descent
echo "lab 4: the descent returned"
