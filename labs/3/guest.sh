# Guest workload of lab 3: interrupts that find a task stack nearly full.
#
# The serial port's interrupt goes to CPU 0; a writer on CPU 1 keeps the
# port busy, so its interrupts keep arriving on CPU 0. Every second `dd`,
# on CPU 0, asks the lab module stackdeep (vm/guest/modules/) to recurse until
# only 350 to 620 bytes of its 4K stack are left and to wait there 100 ms:
# the serial interrupts that arrive then meet check_stack_overflow(),
# whose line is stage 3's warning_line in vm/stages.toml.
# ks_frame=B (a learner's variant, labs/3/lab.toml): B bytes of locals a
# call, not 256: the descent stops at another depth.
insmod /lib/modules/stackdeep.ko frame=${ks_frame:-256} || exit 1
# The check's reports go to the kernel's log, not to the console. Each is
# a stack dump of some forty lines, which the console prints from the
# interrupt itself; while the writer keeps the port busy, interrupts that
# find dd deep come faster than CPU 0 can print their reports, and a storm
# of thousands starves the guest (seen: three of one make check's lab 3
# guests, each grade out of its time). dmesg and lx-dmesg still read
# them; a panic still reaches the console (console_loglevel 1: KERN_EMERG
# only).
echo 1 > /proc/sys/kernel/printk
echo 1 > /proc/irq/4/smp_affinity
taskset 2 sh -c 'while :; do echo "lab 3: serial traffic from CPU 1"; done' &
echo "lab 3: stackdeep loaded, serial IRQ on CPU 0"
# The first descent comes two seconds later, so that the lab's first
# interrupts (and the grader's measure of ordinary ones) come before it:
# a descent can end the guest. The local APIC timer's interrupt runs on
# dd's stack too (6.1's system vectors do not switch stacks), and now and
# then one needs more than the ~450 bytes left: it overwrites the end
# magic, and the scheduler panics when dd returns ("corrupted stack end
# detected inside scheduler"; lab 4 takes that apart).
sleep 2
while :; do
	echo 300 | taskset 1 dd of=/sys/kernel/debug/stackdeep/room 2>/dev/null
	sleep 1
done
