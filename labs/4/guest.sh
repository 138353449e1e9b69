# Guest workload of lab 4: one descent deep into a task's stack while
# interrupts arrive, then the guest ends (or the kernel stops it).
#
# The kernel command line chooses the descent (labs/4/experiment.sh sets
# it; the lab's default is the first): ks_mode=frames ks_n=25 recurses 25
# frames of 256 bytes, the same chain at every stage; ks_mode=room ks_n=300
# recurses until about 300 bytes are left. The serial port's interrupt goes
# to CPU 0, where dd descends; once stackdeep says dd waits at its deepest
# point, a writer on CPU 1 sends a short burst of lines: a bounded number
# of interrupts, landing while dd is deep (each one that finds the stack
# low prints a long report, and reports on the serial console are slow
# under TCG).
mode=${ks_mode:-frames} n=${ks_n:-25}
insmod /lib/modules/stackdeep.ko || exit 1
echo 1 > /proc/irq/4/smp_affinity
echo "lab 4: descending, $mode $n, on CPU 0"
echo "$n" | taskset 1 dd of=/sys/kernel/debug/stackdeep/"$mode" 2>/dev/null &
descent=$!
taskset 2 sh -c 'i=0
	until [ "$(cat /sys/kernel/debug/stackdeep/deep)" = Y ] || [ $i -ge 5000 ]; do i=$((i + 1)); done
	i=0; while [ $i -lt 30 ]; do echo "lab 4: serial traffic from CPU 1"; i=$((i + 1)); done'
wait $descent
echo "lab 4: the descent returned"
