# Guest workload for the stack checks: keep device interrupts and softirqs
# coming on every CPU until the host ends the run.
#
# The serial port's interrupt (IRQ 4) is steered to each CPU in turn, and a
# writer pinned to that CPU prints lines, so the UART's transmit interrupts
# land there. Each round forks and reaps a process on that CPU, which
# feeds RCU callbacks and so softirqs.
echo "irq-load: $(nproc) CPUs"
n=$(nproc)
# irq_load_spin=yes on the kernel's command line (lab 1's task grader): a
# loop in user mode on each CPU (this busybox has no nice: the loop
# shares its CPU with the writer), and every other pair of rounds the
# writer on the next CPU, not the one the interrupt goes to: there only
# the loop runs, so the interrupts come from user mode.
spin=
if [ "${irq_load_spin:-}" = yes ] && [ "$n" -gt 1 ]; then
	spin=yes
	i=0
	while [ "$i" -lt "$n" ]; do
		taskset $((1 << i)) sh -c 'while :; do :; done' &
		i=$((i + 1))
	done
fi
round=0
cpu=0
while :; do
	mask=$((1 << cpu))
	echo "$mask" > /proc/irq/4/smp_affinity
	[ -n "$spin" ] && [ $(( (round / n) % 2 )) = 1 ] && mask=$((1 << ((cpu + 1) % n)))
	round=$((round + 1))
	taskset "$mask" sh -c "i=0; while [ \$i -lt 40 ]; do echo irq-load cpu$cpu \$i; i=\$((i + 1)); done"
	cpu=$(( (cpu + 1) % n ))
done
