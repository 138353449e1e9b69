#!/usr/bin/env python3
# book/modelfigs.py OUT: the figures of the workbook's model chapter
# (book/chapters/model.adoc), drawn from the 6.1 and 2.6 sources that the
# chapter cites, and the table of each stage's stack budget, from
# vm/stages.toml. Writes OUT/hw-entry.svg, OUT/irq-path.svg,
# OUT/thread-union.svg, OUT/stage-budget.svg and OUT/../stages.adoc.
#
# Schematics, not measurements: where a figure gives a size, it is a
# stage's fact from vm/stages.toml, never a number of its own. Sizes and
# widths follow book/svg.py's rules for a legible PDF.
import os
import sys

HERE = os.path.dirname(os.path.abspath(__file__))

from vm.session import facts
from book.svg import COLORS, SMALL, TEXT, Svg, wrap

WIDTH = 660
STEP = SMALL + 4                     # baseline to baseline, small text
# Who wrote a word of the interrupt frame, and the stacks' colours.
CPU, STUB, ENTRY = '#fee391', '#fdd49e', '#c6dbef'
STACK = {'task': COLORS['task'], 'hardirq': COLORS['hardirq'],
         'softirq': COLORS['softirq'], 'entry': '#d9d9d9'}
STRUCT = '#f2f0f7'


def heading(svg, title, note):
    """The figure's bold title and its note, wrapped; the y below them."""
    y = svg.lines(12, 20, wrap(title, WIDTH - 24, TEXT + 2), TEXT + 2,
                  TEXT + 6, bold=True)
    return svg.lines(12, y, wrap(note, WIDTH - 24, SMALL), SMALL, STEP) + 4


def words(svg, x, y, w, rows, h=20):
    """A column of stack words from Y down: rows of (text, fill)."""
    for i, (text, fill) in enumerate(rows):
        svg.rect(x, y + i * h, w, h, fill, COLORS['line'])
        svg.text(x + w / 2, y + i * h + 14, text, SMALL, 'middle', mono=True)
    return y + len(rows) * h


def legend(svg, x, y, items, width):
    for fill, text in items:
        svg.rect(x, y - 10, 14, 12, fill, COLORS['line'])
        y = svg.lines(x + 20, y, wrap(text, width - 20, SMALL), SMALL, STEP)
    return y


def note(svg, x, y, text, width, **kw):
    return svg.lines(x, y, wrap(text, width, SMALL), SMALL, STEP, **kw)


def hw_entry(out):
    """What the CPU and the entry code put on a stack at a device
    interrupt, from kernel mode and from user mode (i386, 6.1)."""
    svg = Svg(WIDTH, 530, 'i386 at an interrupt, from kernel mode and from '
              'user mode')
    top = heading(svg, 'i386 at a device interrupt: what the CPU pushes, and '
                  'what 6.1\'s entry code adds',
                  'High addresses at the top; a stack grows down. The words '
                  'from the vector down make struct pt_regs with the CPU\'s '
                  '(arch/x86/entry/entry_32.S, arch/x86/include/asm/ptrace.h).')
    regs = [('vector (orig_ax)', STUB), ('gs slot, fs', ENTRY),
            ('es, ds', ENTRY), ('eax, ebp, edi', ENTRY),
            ('esi, edx, ecx, ebx', ENTRY)]
    w, gap = 170, 56
    xs = [12, 12 + w + gap, 12 + 2 * (w + gap)]
    # The column titles.
    y0 = top + 14
    svg.text(xs[0], y0, 'From kernel mode', TEXT, bold=True)
    note(svg, xs[0], y0 + STEP, 'no switch: it stays on the stack it was on',
         w + gap - 10)
    svg.text(xs[1], y0, 'From user mode', TEXT, bold=True)
    note(svg, xs[1], y0 + STEP, 'the CPU loads ss:esp from the TSS (sp0): '
         'the top of this CPU\'s entry stack; the entry code moves the '
         'frame to the task\'s stack', 2 * w + gap)
    top = y0 + 4 * STEP + 14
    svg.text(xs[1] + w / 2, top - 6, 'entry stack', SMALL, 'middle', bold=True)
    svg.text(xs[2] + w / 2, top - 6, 'the task\'s stack', SMALL, 'middle',
             bold=True)

    # From kernel mode: the same stack.
    svg.rect(xs[0], top, w, 40, STACK['task'], COLORS['line'])
    svg.lines(xs[0] + w / 2, top + 16, ['frames of the', 'interrupted code'],
              SMALL, STEP - 1, anchor='middle')
    y = words(svg, xs[0], top + 40, w, [('EFLAGS', CPU), ('CS', CPU),
                                        ('EIP', CPU)] + regs)
    svg.text(xs[0] + w / 2, y + 16, '\u2191 esp = &pt_regs', SMALL, 'middle',
             mono=True)
    note(svg, xs[0], y + 16 + STEP, 'The entry code also copies the frame '
         'once, to add sp and ss, so that pt_regs is whole (FIXUP_FRAME).', w)

    # From user mode: the entry stack, then the task's stack.
    y = words(svg, xs[1], top, w, [('SS (user)', CPU), ('ESP (user)', CPU),
                                   ('EFLAGS', CPU), ('CS', CPU), ('EIP', CPU)]
              + regs)
    note(svg, xs[1], y + 16, 'A page per CPU, in the CPU entry area; left '
         'at once.', w)
    y2 = words(svg, xs[2], top, w, [('SS, ESP (user)', STACK['task']),
                                    ('EFLAGS, CS, EIP', STACK['task']),
                                    ('vector, segments', STACK['task']),
                                    ('the registers', STACK['task'])])
    svg.text(xs[2] + w / 2, y2 + 16, '\u2191 esp = &pt_regs', SMALL, 'middle',
             mono=True)
    note(svg, xs[2], y2 + 16 + STEP, 'The handler runs here, on the top of '
         'the task\'s (empty) kernel stack: __handle_irq sees user_mode(regs) '
         'and does not switch.', w)
    ya, yb = top + 120, top + 40
    svg.path('M%d,%d C%d,%d %d,%d %d,%d' % (xs[1] + w, ya, xs[1] + w + 40, ya,
                                            xs[2] - 40, yb, xs[2], yb), arrow=True)
    svg.lines(xs[1] + w + gap / 2, ya + 22, ['copies', 'pt_regs'], SMALL, STEP,
              anchor='middle')

    legend(svg, 12, 500, [(CPU, 'pushed by the CPU'),
                          (STUB, 'pushed by the vector\'s stub')], 300)
    legend(svg, 330, 500, [(ENTRY, 'pushed by the entry code (SAVE_ALL)'),
                           (STACK['task'], 'on the task\'s kernel stack')], 320)
    svg.write(os.path.join(out, 'hw-entry.svg'))


# The 32-bit path of a device interrupt in 6.1: (function, what it does,
# the stack it runs on; 'switch' and 'soft-switch' end with the xchg).
PATH = [
    ('irq_entries_start', 'the vector\'s stub: pushl $vector', 'task'),
    ('asm_common_interrupt', 'entry_32.S: SAVE_ALL builds pt_regs', 'task'),
    ('common_interrupt', 'irq.c, 2.6\'s do_IRQ: irqentry_enter, '
                         'irq_enter_rcu', 'task'),
    ('__common_interrupt', 'desc = vector_irq[vector]', 'task'),
    ('handle_irq', 'inlined; on x86_32 it calls __handle_irq', 'task'),
    ('__handle_irq', 'irq_32.c: check_stack_overflow()', 'task'),
    ('execute_on_irq_stack', 'inlined: esp into the stack\'s bottom word, '
                             'then xchgl %ebx,%esp', 'switch'),
    ('desc->handle_irq', 'handle_edge_irq, for the serial port', 'hardirq'),
    ('handle_irq_event', 'then __handle_irq_event_percpu', 'hardirq'),
    ('action->handler', 'the driver: serial8250_interrupt', 'hardirq'),
    ('movl %ebx,%esp', 'still in __handle_irq: back on the interrupted '
                       'stack', 'task'),
    ('irq_exit_rcu', 'softirqs pending: invoke_softirq', 'task'),
    ('do_softirq_own_stack', 'esp into the stack\'s bottom word, then the '
                             'xchgl (call_on_stack)', 'soft-switch'),
    ('__do_softirq', 'the softirq handlers, interrupts on', 'softirq'),
    ('irqentry_exit', 'then the entry code\'s iret', 'task'),
]
# Notes beside the path: (the box they stand by, text).
PATH_NOTES = {
    '__handle_irq': 'Warns ("low stack detected by irq handler") when esp & '
                    '(THREAD_SIZE-1) is under sizeof(struct thread_info) + '
                    'STACK_WARN.',
    'execute_on_irq_stack': 'No switch from user mode, nor when already on '
                            'the hardirq stack.',
    'irq_exit_rcu': 'Not when the interrupt came in a softirq; what is left '
                    'goes to ksoftirqd, on its own stack.',
}


def irq_path(out):
    box_w, gap, x = 330, 12, 12
    side_x, side_w = x + box_w + 18, WIDTH - box_w - 42
    boxes = [(name, wrap(what, box_w - 16, SMALL), kind)
             for name, what, kind in PATH]
    height = sum(24 + STEP * len(lines) + gap for _, lines, _ in boxes)
    svg = Svg(WIDTH, height + 230, "6.1's 32-bit path of a device interrupt")
    y = heading(svg, '6.1, x86_32: a device interrupt, from its vector to '
                'the driver and back',
                'Each box\'s colour is the stack it runs on. Sources: '
                'arch/x86/entry/entry_32.S, arch/x86/kernel/irq.c and '
                'irq_32.c, kernel/irq/, kernel/softirq.c.')
    y = legend(svg, x, y + 14, [
        (STACK['task'], 'the interrupted stack: a task\'s (or this CPU\'s '
                        'softirq stack, when the interrupt came in a softirq)'),
        (STACK['hardirq'], 'this CPU\'s hardirq stack'),
        (STACK['softirq'], 'this CPU\'s softirq stack')], WIDTH - 24) + 6
    for i, (name, lines, kind) in enumerate(boxes):
        h = 24 + STEP * len(lines)
        fill = STACK[{'switch': 'task', 'soft-switch': 'task'}.get(kind, kind)]
        svg.rect(x, y, box_w, h, fill, COLORS['line'])
        svg.text(x + 8, y + 16, name, TEXT, mono=True, bold=True)
        svg.lines(x + 8, y + 16 + STEP, lines, SMALL, STEP)
        if kind in ('switch', 'soft-switch'):
            to = 'hardirq' if kind == 'switch' else 'softirq'
            svg.line(x, y + h, x + box_w, y + h, COLORS[to], width=5)
            svg.text(side_x, y + h + 4, '\u2190 the switch to the %s stack'
                     % to, SMALL, bold=True)
            if name in PATH_NOTES:
                note(svg, side_x, y + h + 4 + STEP, PATH_NOTES[name], side_w)
        elif name in PATH_NOTES:
            note(svg, side_x, y + 14, PATH_NOTES[name], side_w)
        y += h + gap
        if i < len(boxes) - 1:
            svg.line(x + 30, y - gap, x + 30, y, arrow=True)
    y = note(svg, x, y + 8, 'System vectors (the local APIC timer, IPIs) enter '
         'through their own sysvec_ functions and never reach __handle_irq: '
         'on 32-bit they run on the interrupted stack '
         '(arch/x86/include/asm/irq_stack.h).', WIDTH - 24)
    svg.height = int(y)
    svg.write(os.path.join(out, 'irq-path.svg'))


def thread_union(out):
    """2.6's thread_union (thread_info at the stack's bottom) beside 6.1's
    stack and task_struct (thread_info inside the task_struct)."""
    svg = Svg(WIDTH, 540, "2.6's thread_union beside 6.1's stack and "
              "task_struct")
    top = heading(svg, 'Where thread_info lives: 2.6 (i386) and 6.1 (x86_32)',
                  'High addresses at the top. 2.6: include/asm-i386/'
                  'thread_info.h; 6.1: arch/x86/include/asm/thread_info.h, '
                  'include/linux/sched.h.') + 40
    h, w, bw = 290, 150, 124

    def stack(x, title, size):
        svg.text(x, top - 26, title, TEXT, bold=True)
        svg.text(x, top - 6, size, SMALL, mono=True)
        svg.rect(x, top, w, h, COLORS['faint'], COLORS['line'])
        svg.rect(x, top, w, 110, STACK['task'], COLORS['line'])
        svg.lines(x + w / 2, top + 50, ['the kernel', 'stack (grows', 'down)'],
                  SMALL, STEP, anchor='middle')
        svg.text(x + 4, top + 126, '\u2190 esp', SMALL, mono=True)

    # 2.6: union thread_union { struct thread_info; unsigned long stack[]; }
    x = 12
    stack(x, '2.6: union thread_union', 'THREAD_SIZE: 8K or 4K')
    svg.rect(x, top + h - 70, w, 70, '#dadaeb', COLORS['magic'])
    svg.lines(x + 6, top + h - 52, ['struct thread_info', 'task, flags, cpu,',
                                    'preempt_count, ...'], SMALL, STEP,
              color=COLORS['magic'])
    svg.lines(x, top + h + 18, ['esp & ~(THREAD_SIZE-1)',
                                '= current_thread_info()'], SMALL, STEP,
              mono=True)
    tx = x + w + 30
    svg.rect(tx, top + 140, bw, 48, STRUCT, COLORS['line'])
    svg.lines(tx + bw / 2, top + 160, ['task_struct', '(a slab object)'],
              SMALL, STEP, anchor='middle')
    svg.path('M%d,%d C%d,%d %d,%d %d,%d' % (x + w, top + h - 35, tx + 20,
                                            top + h - 35, tx + 40, top + 220,
                                            tx + 40, top + 188), arrow=True)
    svg.text(tx + 46, top + 230, 'task: current', SMALL, mono=True)

    # 6.1: the stack alone; task_struct holds thread_info.
    x = 12 + WIDTH // 2
    stack(x, '6.1: the stack, and task_struct', 'THREAD_SIZE')
    svg.text(x + w / 2, top + 16, 'user entry\'s pt_regs', SMALL, 'middle')
    svg.line(x, top + h - 3, x + w, top + h - 3, COLORS['magic'], width=4)
    svg.lines(x + 6, top + h - 26, ['STACK_END_MAGIC,', 'one word'], SMALL,
              STEP - 2, color=COLORS['magic'])
    svg.text(x, top + h + 18, 'end_of_stack()', SMALL, mono=True)
    tx = x + w + 30
    svg.rect(tx, top + 40, bw, 40, STRUCT, COLORS['line'])
    svg.lines(tx + bw / 2, top + 56, ['per-CPU', 'current_task'], SMALL, STEP,
              anchor='middle', mono=True)
    svg.line(tx + bw / 2, top + 80, tx + bw / 2, top + 120, arrow=True)
    svg.text(tx + bw / 2 + 6, top + 104, 'current', SMALL, mono=True)
    svg.rect(tx, top + 120, bw, 110, STRUCT, COLORS['line'])
    svg.text(tx + bw / 2, top + 136, 'task_struct', SMALL, 'middle', bold=True)
    svg.rect(tx + 6, top + 144, bw - 12, 46, '#dadaeb', COLORS['magic'])
    svg.lines(tx + 12, top + 160, ['thread_info', 'flags, cpu, ...'], SMALL,
              STEP, color=COLORS['magic'])
    svg.text(tx + 12, top + 214, 'stack', SMALL, mono=True)
    svg.path('M%d,%d C%d,%d %d,%d %d,%d' % (tx, top + 210, tx - 20, top + 210,
                                            x + w + 20, top + h - 3, x + w,
                                            top + h - 3), arrow=True)
    y = note(svg, 12, top + h + 60, 'IRQ stacks hold no thread_info since 3.15; since 4.9 '
         '(THREAD_INFO_IN_TASK) a task\'s is in its task_struct, where '
         'rounding esp down no longer leads, and the word at a stack\'s end is only '
         'a canary, which the scheduler checks.',
         WIDTH - 24)
    svg.height = int(y)
    svg.write(os.path.join(out, 'thread-union.svg'))


def stage_budget(out, stages):
    """Each stage's stacks, to scale: what the task stack must hold, and
    the per-CPU stacks that take the rest."""
    col = (WIDTH - 24) // len(stages)
    scale = 280 / max(s['thread_size'] for s in stages.values())
    svg = Svg(WIDTH, 560, 'Each stage\'s stack budget')
    top = heading(svg, 'Each stage\'s stacks, to scale',
                  'From vm/stages.toml. Blue: a task\'s stack; the red band at '
                  'its end is under the IRQ-entry check\'s line (lab 3 works '
                  'out how high). Orange and '
                  'green: each CPU\'s hardirq and softirq stacks, where the '
                  'stage has them.')
    base, bottom = top + 60 + 280, 0
    for i, (k, s) in enumerate(sorted(stages.items())):
        x = 12 + i * col
        ts, line = s['thread_size'], s['warning_line']
        svg.text(x, top + 20, 'stage %d' % k, TEXT, bold=True)
        h = ts * scale
        svg.rect(x, base - h, 56, h, STACK['task'], COLORS['line'])
        svg.rect(x, base - line * scale, 56, line * scale, '#fcbba1',
                 COLORS['line'])
        svg.text(x + 28, base - h - 6, 'task', SMALL, 'middle', bold=True)
        for j, kind in enumerate(('hardirq', 'softirq')):
            if s['%s_stacks' % kind]:
                hx = x + 64 + j * 34
                svg.rect(hx, base - h, 28, h, STACK[kind], COLORS['line'])
                svg.text(hx + 14, base - h - 6, kind[:4], SMALL, 'middle')
        svg.text(x, base + 16, '%d bytes' % ts, SMALL, mono=True)
        holds = ('the task, and what runs without a switch: exceptions, '
                 'system vectors' if s['hardirq_stacks'] else
                 'the task, a hardirq handler and the softirqs, at once')
        y = note(svg, x, base + 16 + STEP, holds, col - 10)
        bottom = max(bottom, y)
    svg.height = int(bottom)
    svg.write(os.path.join(out, 'stage-budget.svg'))


def budget_table(path, stages):
    """The same, as an AsciiDoc table for the model chapter."""
    # The check's line in bytes is left out: lab 3 asks for it.
    rows = ['[cols="2,3,8,4",options="header"]', '|===',
            '|stage |`THREAD_SIZE` |what shares a task\'s stack '
            '|IRQ stacks, per CPU']
    for k, s in sorted(stages.items()):
        if s['hardirq_stacks']:
            runs = ('the task\'s own calls, and what runs on the interrupted '
                    'stack: system vectors, exceptions, NMIs, a device '
                    'interrupt from user mode')
            irq = 'hardirq and softirq, %d bytes each' % s['thread_size']
        else:
            runs = ('the task\'s own calls, one device interrupt\'s handler '
                    'on top of them, and the softirqs run on its way out')
            irq = 'none'
        rows.append('|%d |%d |%s |%s' % (k, s['thread_size'], runs, irq))
    rows.append('|===')
    with open(path, 'w') as f:
        f.write('// Made by book/modelfigs.py from vm/stages.toml.\n')
        f.write('\n'.join(rows) + '\n')


def main():
    out = sys.argv[1]
    os.makedirs(out, exist_ok=True)
    stages = facts.stages()
    hw_entry(out)
    irq_path(out)
    thread_union(out)
    stage_budget(out, stages)
    budget_table(os.path.join(os.path.dirname(os.path.abspath(out)),
                              'stages.adoc'), stages)


if __name__ == '__main__':
    main()
