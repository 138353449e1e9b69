# Guest workload of this lab: device interrupts and softirqs on both CPUs
# (the serial port's IRQ steered to each CPU in turn; see the script).
# A spinning shell loop on each CPU is in user mode whenever the writer
# waits for the UART: the grader needs device interrupts that come from
# user mode too.
for cpu in $(seq 0 $(($(nproc) - 1))); do
	taskset "$((1 << cpu))" sh -c 'while :; do :; done' &
done
exec sh /tests/irq-load.sh
