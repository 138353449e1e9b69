# The walk of book/chapters/lab0.adoc, after lab 0's stop (labs/0/lab.toml).
#
# The walk shows an interrupt of kernel code on a task's stack, and its
# switch onto the hardirq stack: if the lab's stop is not such an
# interrupt (one from user mode is not switched; one taken on a softirq
# stack is switched from there), go on to the next that is, as `continue`
# would, without printing the stops. Only the stopped CPU runs from there
# on (scheduler-locking): otherwise the first switch the walk's `continue`
# meets is, in some runs, the other CPU's, onto its softirq stack. A
# stepi that runs nothing makes the walk again (fail_on_a_stop_again).
python
from labs.gdbutil import fail_on_a_stop_again, interrupted_kernel_task_stack
bp = gdb.Breakpoint('__handle_irq', internal=True)
bp.silent = True
while not interrupted_kernel_task_stack():
    gdb.execute('continue')
bp.delete()
gdb.execute('set scheduler-locking on')
fail_on_a_stop_again('lab0.gdb')
end
set trace-commands on
bt 6
info threads
p $lx_per_cpu("current_task", 0)->comm
p $lx_per_cpu("current_task", 1)->comm
ks-where
ks-irqstacks
ks-thread-info
ks-watch-switch stop
continue
stepi
ks-where
ks-watch-switch off
