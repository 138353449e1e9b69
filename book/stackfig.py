# book/stackfig.py: the workbook's figure of 6.1's stacks at a device
# interrupt, drawn from a live kernel. Sourced in gdb (book/transcripts.sh)
# where lab 2's walk ends: a CPU in handle_irq_event, on its hardirq stack.
# Writes $KS_FIGURES/irq-stacks.svg; prints nothing else.
import os
import sys

import gdb

sys.path.insert(0, os.path.dirname(os.path.abspath(__file__)))
from kstack import stacks                      # noqa: E402
from stackdraw import Column, draw             # noqa: E402


def place(addr, base, size):
    return (addr - base) / size


def figure(path):
    cpu = stacks.selected_cpu()
    size = stacks.thread_size()
    sp = stacks.sp_of(cpu)
    hard = stacks.irq_stack('hardirq', cpu)
    soft = stacks.irq_stack('softirq', cpu)
    if not hard or not hard <= sp < hard + size:
        raise gdb.GdbError('stackfig: CPU %d is not on its hardirq stack' % cpu)
    saved = stacks.word(hard)
    task = stacks.find_area(saved, cpu)
    if task is None or task.kind != 'task':
        raise gdb.GdbError('stackfig: the saved esp %#x is on no task stack'
                           % saved)
    pid, comm = int(task.owner['pid']), task.owner['comm'].string()
    fn = stacks.symbol(stacks.regs_of(cpu, 'pc')[0])

    col_task = Column('task stack: pid %d (%s)' % (pid, comm),
                      '%d bytes, THREAD_SIZE' % size, 'task',
                      '%#x' % task.top, '%#x' % task.base,
                      place(saved, task.base, size))
    col_task.mark(place(saved, task.base, size),
                  'esp when the interrupt came\n%#x' % saved)
    col_task.mark(0.0, 'end magic %#x' % stacks.word(task.base),
                  '#756bb1')
    col_hard = Column('hardirq stack, CPU %d' % cpu, 'hardirq_stack_ptr',
                      'hardirq', '%#x' % (hard + size), '%#x' % hard,
                      place(sp, hard, size))
    col_hard.mark(place(sp, hard, size), '$sp now %#x\nin %s' % (sp, fn))
    col_hard.mark(0.0, 'saved esp %#x' % saved)
    columns, links = [col_task, col_hard], [(1, 0.0, 0, place(saved, task.base,
                                                               size),
                                              'saved esp')]
    if soft:
        col_soft = Column('softirq stack, CPU %d' % cpu, 'softirq_stack_ptr',
                          'softirq', '%#x' % (soft + size), '%#x' % soft)
        last = stacks.word(soft)
        col_soft.mark(0.0, 'saved esp %#x\n(left by the last softirq)' % last
                      if last else 'saved esp: never used')
        columns.append(col_soft)
    owner = task.owner
    note = ('A real stop (stage 2, %d-byte stacks). thread_info is not on '
            'the stack: it is the first member of task_struct, at %#x.'
            % (size, int(owner['thread_info'].address)))
    draw(path, "A device interrupt on CPU %d: the switch onto the hardirq "
         "stack" % cpu, note, columns, links)


out = os.environ.get('KS_FIGURES')
if not out:
    raise gdb.GdbError('stackfig: set KS_FIGURES to the output folder')
os.makedirs(out, exist_ok=True)
stacks.checked(figure, os.path.join(out, 'irq-stacks.svg'))
