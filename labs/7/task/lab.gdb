# Lab 7's task (make lab N=7 EXERCISE=1): my-where, tried where it is
# graded: lab 7's x86_64 kernel, at the lab's stops. vm/session/ks loads
# the learner's file after this.

ks-lab-stop __common_interrupt if (((struct pt_regs *)$rdi)->cs & 3) == 0
break exc_double_fault
break handle_stack_overflow

echo \n
echo ==== Lab 7's task: my-where, which stack (or which stack's guard page) ====\n
echo Stopped in __common_interrupt(), a device interrupt after boot, on a hardirq stack.\n
echo Try:\n
echo \  my-where                  your answer for $rsp; ks-where says which stack\n
echo \  my-where *(unsigned long *)($lx_per_cpu("hardirq_stack_ptr", 0))\n
echo \                            the rsp the switch saved (CPU 0's hardirq stack)\n
echo \  my-where init_stack       the boot task's stack; my-where (char *)init_stack - 8\n
echo \                            the word under it\n
echo \  continue                  the double fault: my-where, my-where regs->sp\n
echo \  continue                  handle_stack_overflow: my-where fault_address\n
echo Graded by: make grade N=7 EXERCISE=1   (hints: make hint N=7)\n
