# The guided step of book/chapters/lab3.adoc, after lab 3's stop (labs/3/lab.toml):
# from do_IRQ (6.1's common_interrupt) to the xchg onto the hardirq stack,
# into the driver, and back to the interrupted stack. `echo <K>\n` puts
# callout K on the command before it (book/transcripts.py).
#
# The walk needs an interrupt of the serial port (IRQ 4, which the
# chapter's callouts describe) that came in kernel code on an ordinary
# task's stack (one from user mode does not switch stacks; dd's stack is
# the overflow part of the lab): if the lab's stop is not one, go on to
# the next that is, as `tbreak do_IRQ`, `continue` would, without
# printing the stops.
python
from labs.gdbutil import cpu, current, fail_on_a_stop_again, interrupted_kernel_task_stack, val
VECTOR_IRQ = '(*(vector_irq_t *)((char *)&vector_irq + __per_cpu_offset[%d]))[%d]'


def wanted():
    if not interrupted_kernel_task_stack() or \
            current(cpu())['comm'].string() == 'dd':
        return False
    desc = val(VECTOR_IRQ % (cpu(), val('(unsigned char) error_code')))
    try:
        return val('((struct irq_desc *)%d)->irq_data.irq' % desc) == 4
    except gdb.error:          # no descriptor for the vector
        return False


bp = gdb.Breakpoint('common_interrupt', internal=True)
bp.silent = True
while not wanted():
    gdb.execute('continue')
bp.delete()
fail_on_a_stop_again('lab3-step.gdb')
end
set trace-commands on
ks-where
echo <1>\n
step
echo <2>\n
p vector
p desc->irq_data.irq
p desc->action->name
ks-where
step
echo <3>\n
ks-where
step
echo <4>\n
ks-where
step
ks-where
step
echo <5>\n
ks-where
step
echo <6>\n
ks-where
step
ks-where
step
ks-where
step
ks-where
step
echo <7>\n
ks-where
x/5i $pc
stepi 3
echo <8>\n
x/i $pc
p/x $ebx
stepi
echo <9>\n
ks-where
x/x $lx_per_cpu("hardirq_stack_ptr", $_thread - 1)
echo <10>\n
step
echo <11>\n
ks-where
advance *desc->action->handler
echo <12>\n
ks-bt
echo <13>\n
frame function handle_edge_irq
finish
echo <14>\n
x/i $pc
stepi
echo <15>\n
ks-where
