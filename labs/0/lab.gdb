# Lab 0, the lab machine: stop at the first device interrupt.
#
# Loaded by labs/lab.sh after gdb has attached to the halted guest. It sets
# the stop, continues to it, prints what to try, and gets out of the way.
#
# __handle_irq() is the 32-bit C path of every device interrupt in 6.1
# (asm_common_interrupt -> common_interrupt -> __common_interrupt ->
# handle_irq -> __handle_irq): 2.6's do_IRQ, split in pieces.

break __handle_irq
continue

echo \n
echo ==== Lab 0: the lab machine (stage 0: Linux 6.1 as Debian ships it) ====\n
echo Stopped in __handle_irq(), the first device interrupt of the boot.\n
echo Try:\n
echo \  bt                        the path from the interrupt entry to here\n
echo \  p desc->irq_data.irq      the IRQ (0 is the PIT timer)\n
echo \  frame function common_interrupt\n
echo \  p/d (u8) error_code        the vector it came in on (48 is IRQ 0)\n
echo \  p $sp                     the stack pointer, before the IRQ-stack switch\n
echo \  p $lx_per_cpu("current_task")->comm\n
echo \                            the task this interrupt landed on\n
echo \  ks-where                  which stack this CPU is on (help ks-where)\n
echo \  ks-irqstacks              every CPU's hardirq and softirq stacks\n
echo \  break do_IRQ              2.6's name: stops at 6.1's common_interrupt\n
echo \  info threads              one thread per CPU\n
echo \  lx-dmesg                  the kernel log so far\n
echo \  continue                  on to the next device interrupt\n
echo \  quit                      ends gdb and the guest\n
echo See labs/0/README.md.\n
