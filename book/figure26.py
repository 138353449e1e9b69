#!/usr/bin/env python3
# book/figure26.py OUT: 2.6's i386 stack layout with CONFIG_4KSTACKS, as
# its do_IRQ() left it (arch/i386/kernel/irq.c, 2.6.x): a schematic, since
# no 2.6 kernel runs in the labs. Writes OUT/irq-ctx-2.6.svg.
import os
import sys

from book.stackdraw import Column, draw

out = sys.argv[1]
os.makedirs(out, exist_ok=True)

task = Column('task stack', 'one page, THREAD_SIZE 4096', 'task',
              'high addresses', 'esp & ~(THREAD_SIZE-1)', 0.55)
task.mark(0.55, 'esp when the interrupt came')
task.mark(0.15, 'struct thread_info\n(task, flags, cpu, ...)',
          '#756bb1', below=True)

hard = Column('hardirq_ctx[cpu]', 'union irq_ctx, one page', 'hardirq',
              'isp: first esp here', 'the same page', 0.7)
hard.mark(0.7, 'esp after the xchgl,\nin __do_IRQ')
hard.mark(0.15, 'tinfo: thread_info\n(task copied, previous_esp)', '#756bb1',
          below=True)

soft = Column('softirq_ctx[cpu]', 'union irq_ctx, one page', 'softirq',
              '', '')
soft.mark(0.15, 'tinfo: thread_info\n(previous_esp)', '#756bb1', below=True)

# The arrow: the hardirq stack's previous_esp, back to where the task was.
# No title: the chapter's caption is the figure's title.
draw(os.path.join(out, 'irq-ctx-2.6.svg'), '',
     "A schematic of 2.6's do_IRQ(), not to scale. current_thread_info() "
     "rounds esp down, so each IRQ stack carries its own thread_info.",
     [task, hard, soft], [(1, 0.07, 0, 0.55)])
