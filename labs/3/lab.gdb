# Lab 3, 4K only (stage 3: one-page stacks, per-CPU IRQ stacks).
#
# Loaded by vm/session/ks for make lab (and by the grader, labs/3/grade.py). Waits for boot
# to finish, then stops at the next device interrupt's do_IRQ (6.1's
# common_interrupt) that came from kernel code on a task's stack, not
# dd's: the case the walk below describes, on every run (an interrupt
# from user mode, or one that finds a CPU running softirqs on its softirq
# stack, is let pass). The stop is set on common_interrupt, do_IRQ's
# address, where gdb knows its argument regs. The test joins its parts
# with & rather than &&: gdb does not call a $function (here the kernel's
# $lx_per_cpu) in the right side of && or ||, and fails there. The menu's hints are each run by
# tests/checks/32-lab3-hints.py: a new hint needs a check there.

ks-lab-stop common_interrupt if ((((struct pt_regs *)regs)->cs & 3) == 0) & (((unsigned long)regs - (unsigned long)($lx_per_cpu("current_task")->stack)) < sizeof(init_stack)) & !$_streq($lx_per_cpu("current_task")->comm, "dd")

echo \n
echo ==== Lab 3: 4K only (stage 3: one page per stack) ====\n
echo Stopped at do_IRQ (6.1: common_interrupt): an interrupt of kernel code, on a task's stack.\n
echo Try:\n
echo \  p sizeof(init_stack)      THREAD_SIZE: 4096\n
echo \  ks-where                  room left below $sp, and the warning line\n
echo \  ks-thread-info            2.6's sp & ~(THREAD_SIZE-1), and 6.1's\n
echo \  ks-stack-picture          this stack, drawn\n
echo \  ks-stack-use              how close every stack has come to its end\n
echo Walk do_IRQ (an interrupt of kernel code: ks-where says a task stack):\n
echo \  step                      until gdb shows line 100, the asm with the xchg\n
echo \                            (ten steps: __common_interrupt, handle_irq,\n
echo \                            __handle_irq, the check, the asm)\n
echo \  x/5i $pc                  at line 100: stepi to the xchg, ks-where, stepi, ks-where\n
echo \  tbreak do_IRQ             then continue: the next interrupt; how much room now?\n
echo The workload sends `dd` deep into its stack (lab module stackdeep):\n
echo \  break print_stack_overflow   continue: the IRQ-entry check fired\n
echo \  ks-irqstacks              the saved esp: how little room was left\n
echo \  ks-bt                     the recursion (descend) under the interrupt\n
echo \  finish                    then lx-dmesg: the kernel's report\n
echo \  delete / quit\n
echo See labs/3/README.md and the workbook's chapter "Lab 3".\n
