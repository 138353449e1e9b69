# Guest workload of this lab: device interrupts and softirqs on both CPUs
# (the serial port's IRQ steered to each CPU in turn; see the script), so
# that the grader finds every kind of interrupt it waits for.
exec sh /tests/irq-load.sh
