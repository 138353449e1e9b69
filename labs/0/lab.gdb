# Lab 0, the lab machine: stop at a device interrupt once the guest is up.
#
# Loaded by vm/session/ks for make lab after gdb has attached to the halted guest (and by
# the grader, labs/0/grade.py). It sets the stop, continues to it, prints
# what to try, and gets out of the way.
#
# __handle_irq() is the 32-bit C path of every device interrupt in 6.1
# (asm_common_interrupt -> common_interrupt -> __common_interrupt ->
# handle_irq -> __handle_irq): 2.6's do_IRQ, split in pieces. The first
# stop waits until boot is over (begin_new_exec: the exec of /init has
# passed its point of no return), so both CPUs are up and running tasks.
# A kernel with no init never gets there: it panics, and vm/session/ks says so,
# instead of a lab stopped at an interrupt on the way. (A condition on
# __handle_irq would do the same, but gdb would evaluate it at every boot
# interrupt and slow the boot twentyfold.)

ks-lab-stop __handle_irq

echo \n
echo ==== Lab 0: the lab machine (stage 0: Debian's 6.1 source, our debugging config) ====\n
echo Stopped in __handle_irq(), a device interrupt after boot.\n
echo Try:\n
echo \  bt                        the path from the interrupt entry to here\n
echo \                            (gdb's unwinder stops at the entry code: ?? ())\n
echo \  ks-bt                     the same path by frame pointers, down to the\n
echo \                            interrupted code and across stacks\n
echo \  p desc->irq_data.irq      the IRQ (4 is the serial port)\n
echo \  info threads              one thread per CPU\n
echo \  p $lx_per_cpu("current_task", 1)->comm\n
echo \                            the task running on CPU 1\n
echo \  lx-ps                     every task;  lx-dmesg: the kernel log\n
echo \  ks-where                  which stack this CPU is on\n
echo \  ks-irqstacks              every CPU's hardirq and softirq stacks\n
echo \  ks-thread-info            where thread_info lives, then and now\n
echo \  ks-watch-switch           then continue: see each switch of stacks\n
echo \  break do_IRQ              2.6's name: stops at 6.1's common_interrupt\n
echo \  quit                      ends gdb and the guest\n
echo See labs/0/README.md.\n
