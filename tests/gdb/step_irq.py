# gdb side of tests/checks/33-step-do-irq.py: from lab 3's stop (run by
# lab 3's stop before this file), step as a learner would and hand the
# host, as records, where each command left the CPU. All judging is the
# host's.
#
# The learner's walk needs an interrupt of kernel code on a task stack
# (one from user mode, or from a softirq on its own stack, takes another
# path), of a task other than dd, which the lab's workload sends deep
# enough to trip the overflow check: the probe continues to the next such
# interrupt at common_interrupt, as `tbreak do_IRQ`, `continue` would.
#
# Records:
#   next    frames: the function names gdb's backtrace shows after one
#           `next` from the stop
#   step    n, frames, line (file:line), sp, at_switch (the xchg onto the
#           IRQ stack lies ahead on this line): after the n-th `step`
#   switch  cpu, hardirq (this CPU's hardirq stack), task_stack (the
#           interrupted task's), before, after: esp just before the xchg
#           and after the stepi over it; stepis, how many stepi that
#           took (gdbutil.stepi_off; null if none left the xchg)
import gdb

from vm.session import results
from labs.gdbutil import (continue_to, cpu, current, irq_stack, ordinary_interrupt,
                          run, stepi_off, val)

STEPS = 12
XCHG = 'xchg %ebx,%esp'



def frames():
    names, f = [], gdb.newest_frame()
    while f is not None and len(names) < 12:
        names.append(f.name() or '??')
        f = f.older()
    return names


def insns(start, end):
    arch = gdb.selected_frame().architecture()
    return [(i['addr'], ' '.join(i['asm'].split()))
            for i in arch.disassemble(start, end - 1)] if end > start else []


def switch_ahead():
    """The address of the xchg onto the IRQ stack if it lies between $pc
    and the end of the current line, else None."""
    pc = int(gdb.selected_frame().pc())
    sal = gdb.find_pc_line(pc)
    end = sal.last + 1 if sal.last else pc + 1
    for addr, text in insns(pc, end):
        if text == XCHG:
            return addr
    return None


def where():
    sal = gdb.selected_frame().find_sal()
    name = sal.symtab.filename.split('/')[-1] if sal.symtab else '??'
    return '%s:%d' % (name, sal.line)


if not ordinary_interrupt():
    continue_to('common_interrupt', ordinary_interrupt)
run('next')
results.emit('next', frames=frames())

continue_to('common_interrupt', ordinary_interrupt)
c = cpu()
task_stack = int(current(c)['stack'])
for n in range(1, STEPS + 1):
    run('step')
    xchg = switch_ahead()
    results.emit('step', n=n, frames=frames(), line=where(), sp=val('$sp'),
                 at_switch=xchg is not None)
    if xchg is not None:
        for _ in range(8):          # the asm's first movs, then the xchg
            if int(gdb.selected_frame().pc()) == xchg:
                break
            run('stepi')
        before = val('$sp')
        stepis = stepi_off(xchg)
        results.emit('switch', cpu=c, hardirq=irq_stack('hardirq', c),
                     task_stack=task_stack, before=before, after=val('$sp'),
                     stepis=stepis)
        break
