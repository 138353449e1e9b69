# book/stackfig.py: the workbook's figure of 6.1's stacks at a device
# interrupt, drawn from a live kernel. Sourced in gdb (book/transcripts.py)
# where lab 2's walk ends: a CPU in handle_irq_event, on its hardirq stack.
# Writes $KS_FIGURES/irq-stacks.svg; prints nothing else.
#
# The figure follows the saved esp at the bottom of the hardirq stack to
# the stack the interrupt came from: usually a task stack, but when the
# interrupt arrived during a softirq, the softirq stack, whose own saved
# esp then leads to the task stack. Both happen in real runs.

import gdb

from kstack import stacks
from book.stackdraw import Column, draw, live


def place(addr, area):
    return (addr - area.base) / area.size


def chain_from(hard, sp, cpu, known):
    """[(area, esp in it)] from the hardirq stack back to the task stack,
    following each IRQ stack's saved esp (its bottom word); KNOWN is
    stacks.areas(cpu)."""
    chain = [(hard, sp)]
    while chain[-1][0].kind != 'task':
        saved = stacks.word(chain[-1][0].base)
        area = stacks.find_area(saved, cpu, known)
        if area is None or area.kind not in ('task', 'softirq') or \
           area.base in [a.base for a, _ in chain]:
            raise gdb.GdbError('stackfig: the saved esp %#x at %#x leads to '
                               'no task stack' % (saved, chain[-1][0].base))
        chain.append((area, saved))
    return chain


def column(area, cpu, esp):
    """A Column for AREA; ESP is where it is in use from (None: unused)."""
    size = area.size
    if area.kind == 'task':
        title = 'task stack: pid %d (%s)' % (int(area.owner['pid']),
                                             area.owner['comm'].string())
        col = Column(title, '%d bytes, THREAD_SIZE' % size, 'task',
                     '%#x' % area.top, '%#x' % area.base,
                     place(esp, area) if esp else None)
        col.mark(0.0, 'end magic %#x' % stacks.word(area.base), '#756bb1')
        return col
    col = Column('%s stack, CPU %d' % (area.kind, cpu),
                 '%s_stack_ptr' % area.kind, area.kind, '%#x' % area.top,
                 '%#x' % area.base, place(esp, area) if esp else None)
    saved = stacks.word(area.base)
    if esp:
        col.mark(0.0, 'saved esp %#x' % saved)
    else:
        col.mark(0.0, 'saved esp %#x\n(left by the last softirq)' % saved
                 if saved else 'saved esp: never used')
    return col


def figure(path):
    cpu, sp, known, hard = stacks.stopped_on('hardirq', 'stackfig')
    fn = stacks.symbol(stacks.regs_of(cpu, 'pc')[0])
    chain = chain_from(hard, sp, cpu, known)

    # Left to right: where the interrupt came from, then each stack the
    # CPU went onto; an arrow from each saved esp (an IRQ stack's bottom
    # word) to the place in the column before it that it points to.
    order = list(reversed(chain))
    columns, links = [], []
    for i, (area, esp) in enumerate(order):
        col = column(area, cpu, esp)
        if area is hard:
            col.mark(place(sp, hard), '$sp now %#x\nin %s' % (sp, fn))
        elif order[i + 1][0].kind == 'hardirq':
            col.mark(place(esp, area), 'esp when the interrupt came\n%#x'
                     % esp)
        else:
            col.mark(place(esp, area), 'esp when the softirqs began\n%#x'
                     % esp)
        if i:
            before, its_esp = order[i - 1]
            links.append((i, 0.0, i - 1, place(its_esp, before)))
        columns.append(col)
    # The softirq stack, when the chain did not pass through it: unused now.
    if all(a.kind != 'softirq' for a, _ in chain):
        columns += [column(a, cpu, None) for a in known
                    if a.kind == 'softirq']
    owner = chain[-1][0].owner
    note = ('A real stop (stage 2, %d-byte stacks). Each arrow starts at a '
            'saved esp. thread_info is not on the stack: it is the first '
            'member of task_struct, at %#x.'
            % (hard.size, int(owner['thread_info'].address)))
    draw(path, "A device interrupt on CPU %d: the switch onto the hardirq "
         "stack" % cpu, note, columns, links)


live(figure, 'irq-stacks.svg', 'stackfig')
