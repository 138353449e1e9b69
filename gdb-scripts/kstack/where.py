# ks-where: which stack is this CPU on?
import gdb

from kstack import stacks


class KsWhere(gdb.Command):
    """Say which stack a CPU's stack pointer is on.

Usage: ks-where [CPU]    (default: the CPU of the selected gdb thread)

Prints the area $sp lies in: a task's stack (with its pid and comm), the
CPU's hardirq stack or softirq stack, or unknown (an exception or entry
stack, say, which ks-where does not map). Then the area's base and top,
the bytes in use above $sp and free below it, and how far $sp is from the
line where the interrupt-entry overflow check warns (STACK_WARN above the
bottom). On a stage without IRQ stacks (stage 1) it says so."""

    def __init__(self):
        super(KsWhere, self).__init__('ks-where', gdb.COMMAND_STACK)

    def invoke(self, arg, from_tty):
        stacks.require_symbols()
        cpu = int(arg) if arg.strip() else stacks.selected_cpu()
        if not 0 <= cpu < stacks.nr_cpus():
            raise stacks.KstackError('no CPU %d (the guest has %d)'
                                     % (cpu, stacks.nr_cpus()))
        sp = stacks.sp_of(cpu)
        if stacks.irq_stack('hardirq', cpu) is None:
            gdb.write('This stage has no IRQ stacks: interrupts run on '
                      'the interrupted task\'s stack.\n')
        elif not stacks.irq_stack('hardirq', cpu):
            gdb.write('CPU %d\'s IRQ stacks are not allocated yet '
                      '(early boot).\n' % cpu)
        area = stacks.find_area(sp, cpu)
        if area is None:
            gdb.write('CPU %d: $sp %#x is on no task or IRQ stack '
                      '(unknown: an exception or entry stack?)\n' % (cpu, sp))
            return
        used, free = area.top - sp, sp - area.base
        warn = stacks.stack_warn()
        gdb.write('CPU %d: $sp %#x is on %s\n' % (cpu, sp, area.name()))
        gdb.write('  area %#x-%#x (%d bytes): %d used, %d free, '
                  '%d above the STACK_WARN line (%d)\n'
                  % (area.base, area.top, area.size, used, free,
                     free - warn, warn))


KsWhere()
