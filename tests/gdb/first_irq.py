# gdb side of tests/checks/30-gdb-first-irq.py: stop at the first device
# interrupt and hand the host, as one record, what the check compares:
# the IRQ of the descriptor, the vector the CPU took (common_interrupt's
# error_code: on 32-bit the entry code sets orig_ax to -1 after reading
# the vector from that slot), the CPU, and the descriptor this CPU's
# vector_irq table holds for that vector, read raw from the per-CPU area
# with plain gdb expressions.
import gdb

from vm.session import results
from labs.gdbutil import cpu, frame_name, run, val

run('break __handle_irq')
gdb.execute('continue')                  # its "Breakpoint 1, ..." line: the log
stop = dict(function=frame_name(), cpu=cpu(),
            irq=val('desc->irq_data.irq'), desc=val('desc'))
run('frame function common_interrupt')
stop['vector'] = val('(unsigned char) error_code')
stop['vector_irq_desc'] = val(
    '(*(vector_irq_t *)((char *)&vector_irq + __per_cpu_offset[%d]))[%d]'
    % (stop['cpu'], stop['vector']))
results.emit('first-irq', **stop)
gdb.execute('bt')
