# Guest workload of lab 7 (x86_64): lab 4's descent, 64 frames of 256
# bytes, 16 KiB of locals: more than the whole of a 16K stack, so the
# recursion itself runs off its end. First a few lines to the serial
# port, so that device interrupts come while the lab waits at its first
# stop (__common_interrupt, after boot); the descent starts a second
# later, when the learner has continued.
#
# With ks_lkdtm=TEST on the kernel command line (labs/7/experiment.py,
# on every stage and on the x86_64 kernel), instead one of the kernel's
# own stack tests (LKDTM, drivers/misc/lkdtm/bugs.c), asked for twice by
# one shell of its own through debugfs (REPORT_STACK's second report is
# its stack offset against the first). Then the guest goes on for a
# second, long enough for the scheduler's end-magic check to run, and
# says it did.
if [ -n "${ks_lkdtm:-}" ]; then
	echo "lab 7: lkdtm $ks_lkdtm"
	d=/sys/kernel/debug/provoke-crash/DIRECT
	sh -c "echo $ks_lkdtm > $d; echo $ks_lkdtm > $d"
	echo "lab 7: the shell that asked for it ended with status $?"
	sleep 1
	echo "lab 7: the guest runs on"
	exit 0
fi

# Until the descent, this shell and the serial port's interrupt are on
# CPU 0, so that its lines are interrupts on CPU 0 while CPU 1 idles:
# there lab 7's task asks about CPU 1's idle task, on no task list.
taskset -p 1 $$ > /dev/null
echo 1 > /proc/irq/4/smp_affinity
# A process of two threads, asleep (vm/guest/twins.c): its second thread
# is a task of its own, with a pid that is not its tgid, and a stack.
twins || echo "lab 7: twins did not start"
i=0
while [ $i -lt 5 ]; do echo "lab 7: serial traffic before the descent"; i=$((i + 1)); done
sleep 1
# The descent runs on CPU 0 (lab 4's guest.sh pins dd there), so that
# the panic does: a dump's reader that asks for the crashed thread
# (drgn's prog.crashed_thread()) takes CPU 0's registers when no kdump
# kernel recorded the crashing CPU.
ks_mode=frames ks_n=64 . /labs/4/guest.sh
