# ks-where: which stack is this CPU on?
import gdb

from kstack import stacks


class KsWhere(stacks.Command):
    """Say which stack a CPU's stack pointer is on.

Usage: ks-where [CPU]    (default: the CPU of the selected gdb thread)

Prints the area $sp lies in: a task's stack (with its pid and comm), the
CPU's hardirq or softirq stack, its entry stack (where the CPU lands from
user mode) or double-fault stack (on x86_64 also the NMI, debug and
machine-check IST stacks), below the end of the current task's stack (an
overflow), or unknown. Then the area's base and top, the bytes in use
above $sp and free below it, what lies under the stack's bottom (mapped
memory, or an unmapped guard page), and on i386 how far $sp is from the
line where the interrupt-entry overflow check warns (the line lies
sizeof(struct thread_info) + STACK_WARN above the stack's bottom). When
$sp is at a stack's top, empty, and that address is also the base of
another of the CPU's stacks (a CPU's hardirq stack often ends where its
softirq stack begins), it says which stack $sp is on and which merely
begins there. On a stage without IRQ stacks (stage 1) it says so."""

    NAME = 'ks-where'

    def run(self, arg):
        cpu, sp = stacks.cpu_and_sp(arg)
        if stacks.irq_stack('hardirq', cpu) is None:
            gdb.write('This stage has no IRQ stacks: interrupts run on '
                      'the interrupted task\'s stack.\n')
        elif not stacks.irq_stack('hardirq', cpu):
            gdb.write(stacks.unset_irq_stack('hardirq', cpu) + '.\n')
        area = stacks.find_area(sp, cpu)
        cur = stacks.current_task(cpu)
        base = int(cur['stack'])
        # Under the current task's stack, and not on one of the CPU's own
        # stacks: an overflow, even where the memory under it is another
        # task's stack ("on the stack of pid X" would hide what happened;
        # outside a context switch, $sp is never on another task's stack).
        if (base - stacks.thread_size() <= sp < base
                and (area is None or (area.kind == 'task' and area.base != base))):
            gdb.write('CPU %d: $sp %#x is %d bytes BELOW the end of the '
                      'task stack of pid %d (%s):\n  the stack has '
                      'overflowed into the memory under it%s\n' % (
                          cpu, sp, base - sp, int(cur['pid']),
                          cur['comm'].string(),
                          ', ' + area.name() if area else ''))
            return
        if area is None:
            gdb.write('CPU %d: $sp %#x is on no stack ks-where knows '
                      '(unknown)\n' % (cpu, sp))
            return
        used, free = area.top - sp, sp - area.base
        gdb.write('CPU %d: $sp %#x is on %s\n' % (cpu, sp, area.name()))
        gdb.write('  area %#x-%#x (%d bytes): %d used, %d free\n' % (
            area.base, area.top, area.size, used, free))
        if sp == area.top:
            for other in self.starting_at(sp, cpu):
                gdb.write('  (an empty stack\'s top: %s begins at this '
                          'address, but $sp is not on it)\n' % other)
        gdb.write('  under its bottom: %s\n' % (
            'mapped memory: a write past the end lands there, unnoticed'
            if stacks.readable(area.base - stacks.word_bytes()) else
            'an unmapped guard page: a write past the end faults at once'))
        if area.kind in ('task', 'hardirq', 'softirq') and not stacks.is_64bit():
            warn = stacks.warn_line()
            gdb.write('  $sp is %d bytes %s the warning line; the line '
                      'is %d bytes above the stack\'s bottom\n'
                      % (abs(free - warn), 'above' if free >= warn else 'below', warn))

    @staticmethod
    def starting_at(addr, cpu):
        """The names of CPU's own stacks (IRQ, entry, double-fault) whose
        base is ADDR. Task stacks are not looked at: that would walk the
        task list."""
        names = []
        for kind in ('hardirq', 'softirq'):
            if stacks.irq_stack(kind, cpu) == addr:
                names.append("CPU %d's %s stack" % (cpu, kind))
        names += [a.name() for a in stacks.entry_areas(cpu) if a.base == addr]
        return names


KsWhere()
