# The walk of book/chapters/lab2.adoc, after lab 2's stop (labs/2/lab.toml).
#
# The walk shows an interrupt of kernel code on a task's stack (one from
# user mode is not switched; one taken on a softirq stack is the
# exercise's nested case): if the lab's stop is not one, go on to the
# next that is, as `continue` would, without printing the stops. Only the
# stopped CPU runs from there on (scheduler-locking): otherwise the first
# switch the walk's `continue` meets is, in some runs, the other CPU's,
# onto its softirq stack (the lab's banner tells the learner so). A
# stepi that runs nothing makes the walk again (fail_on_a_stop_again).
python
from labs.gdbutil import fail_on_a_stop_again, interrupted_kernel_task_stack
bp = gdb.Breakpoint('common_interrupt', internal=True)
bp.silent = True
while not interrupted_kernel_task_stack():
    gdb.execute('continue')
bp.delete()
gdb.execute('set scheduler-locking on')
fail_on_a_stop_again('lab2.gdb')
end
set trace-commands on
ks-where
ks-watch-switch stop
continue
p $sp
p $ebx
stepi
ks-where
ks-irqstacks
ks-watch-switch off
break handle_irq_event
continue
ks-bt
delete
