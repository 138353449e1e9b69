# Guest workload of this lab: device interrupts and softirqs on both CPUs
# (the serial port's IRQ steered to each CPU in turn; see the script).
exec sh /tests/irq-load.sh
