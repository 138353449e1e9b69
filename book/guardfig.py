# book/guardfig.py: the workbook's figure of x86_64's guard page, drawn
# from a live kernel. Sourced in gdb (book/transcripts.py) where lab 7's
# walk ends: in handle_stack_overflow(), after dd's descent wrote into
# the page under its stack and the CPU went onto its double-fault stack.
# Writes $KS_FIGURES/guard-page.svg; prints nothing else.
#
# Left, dd's task stack with the page under it, drawn to scale; right,
# the CPU's double-fault stack (an IST stack), with an arrow from the
# registers the CPU saved there to the guard page its rsp was in.

import gdb

from vm.session import facts
from kstack import stacks
from book.stackdraw import Column, draw, live

PAGE = facts.machine_record('x86_64')['page_bytes']    # the figure is x86_64's


def val(expr):
    return int(gdb.parse_and_eval(expr)) & stacks.mask()


def figure(path):
    cpu, sp, _, ist = stacks.stopped_on('double-fault', 'guardfig')
    task = stacks.current_task(cpu)
    base, size = int(task['stack']) & stacks.mask(), stacks.thread_size()
    fault, regs, regs_sp = (val('fault_address'), val('regs'),
                            val('regs->sp'))
    if stacks.readable(base - 8) or not base - PAGE <= fault < base:
        raise gdb.GdbError('guardfig: no fault in an unmapped page under '
                           'the stack at %#x' % base)

    # The task's column holds the guard page too: its places run from
    # base - PAGE (0) to the stack's top (1).
    low, span = base - PAGE, size + PAGE

    def on_task(addr):
        return (addr - low) / span

    stack = Column('task stack: pid %d (%s)' % (int(task['pid']),
                                                 task['comm'].string()),
                   '%d bytes in vmalloc space' % size, 'task',
                   '%#x' % (base + size), '%#x' % low, on_task(base))
    magic = stacks.word(base)
    stack.mark(on_task(base), 'end magic %#x: %s' % (magic, 'intact' if magic ==
               facts.kernel()['stack_end_magic'] else 'overwritten'), '#756bb1')
    stack.mark(on_task(base) - 0.001, 'guard page (unmapped)\nrsp %#x\nCR2 %#x'
               % (regs_sp, fault), '#de2d26', below=True)

    def on_ist(addr):
        return (addr - ist.base) / ist.size

    df = Column("CPU %d's double-fault stack" % cpu, '%d bytes, IST' % ist.size,
                'ist', '%#x' % ist.top,
                '%#x' % ist.base, on_ist(sp))
    df.mark(on_ist(sp), '$rsp now %#x, in %s' % (sp, stacks.symbol(
        stacks.regs_of(cpu, 'pc')[0]).split('+')[0]))
    draw(path, '', "A real stop (lab 7's x86_64 kernel). The arrow starts at "
         "the registers the CPU saved on the double-fault stack (pt_regs at "
         "%#x) and ends at the rsp it saved there, in the guard page. The "
         "double-fault stack lies in the CPU entry area." % regs, [stack, df], [(1, on_ist(regs), 0, on_task(regs_sp))])


live(figure, 'guard-page.svg', 'guardfig')
