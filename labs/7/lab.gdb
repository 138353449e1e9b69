# Lab 7, what came after (x86_64: the same tree, 64-bit; the banner
# names no outcome the lab asks the learner to predict). Loaded by vm/session/ks for make lab (and by the grader,
# labs/7/grade.py).
#
# The first stop is a device interrupt after boot that came in kernel
# mode (from user mode there is no switch), in __common_interrupt:
# x86_64's C path of every device interrupt, which the entry code
# (run_irq_on_irqstack_cond, arch/x86/include/asm/irq_stack.h) calls
# on the CPU's hardirq stack. Then the guest runs lab 4's descent, deeper
# than the stack: the breakpoints stop at the double fault its first write
# into the guard page causes, and where the kernel says so.

ks-lab-stop __common_interrupt if (((struct pt_regs *)$rdi)->cs & 3) == 0
break exc_double_fault
break handle_stack_overflow

echo \n
echo ==== Lab 7: what came after (x86_64: the same tree, 64-bit) ====\n
echo Stopped in __common_interrupt(), a device interrupt after boot.\n
echo Try:\n
echo \  ks-where                  which stack: on x86_64, the hardirq stack too\n
echo \  ks-bt                     the frames, down to the task stack it came from\n
echo \  p $lx_current().pid       the interrupted task (x86_64's lx helpers work)\n
echo \  info registers rip        a kernel address in the upper half\n
echo \  ks-irqstacks              each CPU's hardirq stack, vmapped\n
echo \  continue                  dd descends 64 x 256 bytes: the double fault\n
echo \                            stops at exc_double_fault, then\n
echo \                            handle_stack_overflow (ks-where at each)\n
echo \  p/x fault_address         (in handle_stack_overflow) the address that\n
echo \                            faulted (the kernel's copy of CR2)\n
echo See labs/7/README.md.\n
