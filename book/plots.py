#!/usr/bin/env python3
# book/plots.py RESULTS OUT: the workbook's plots of labs 4 and 5, drawn
# from the tables their experiments wrote (RESULTS/lab4-overflow.tsv,
# RESULTS/lab5-memory.tsv, read by column name) into OUT/lab4-depth.svg and
# OUT/lab5-threads.svg.
import os
import sys

HERE = os.path.dirname(os.path.abspath(__file__))
sys.path.insert(0, os.path.join(HERE, '..', 'vm'))

import facts                         # noqa: E402
from results import read_table       # noqa: E402
from svg import COLORS, Svg          # noqa: E402


def lab4(results, out):
    """One bar per run: the stack, how deep the descent went, past the end."""
    runs = read_table(os.path.join(results, 'lab4-overflow.tsv'))
    lo, hi = -3500, 8192                 # bytes above the stack's end
    left_margin, width, row_h = 150, 560, 46
    svg = Svg(left_margin + width + 20, 70 + row_h * len(runs) + 30,
              'Lab 4: how deep each descent went')

    def x(b):
        return left_margin + (b - lo) * width / (hi - lo)

    svg.text(10, 20, 'Lab 4: the deepest point of each descent, in bytes '
             'above the end of the stack', 14, bold=True)
    svg.text(10, 38, 'blue: the stack dd used; red: past its end; '
             'tick: the IRQ-entry check\'s line', 11)
    top = 60
    for i, r in enumerate(runs):
        stage, descent, size = r['stage'], r['descent'], int(r['thread_size'])
        y = top + i * row_h
        svg.text(10, y + 15, 'stage %s, %s' % (stage, descent.replace(
            'frames', 'frames:').replace('room', 'room:')), 12)
        svg.text(10, y + 30, '%d K stack' % (size // 1024), 11)
        svg.rect(x(0), y + 4, x(size) - x(0), 22, COLORS['faint'],
                 COLORS['line'])
        if r['bytes_left']:
            left = int(r['bytes_left'])
            svg.rect(x(max(left, 0)), y + 4, x(size) - x(max(left, 0)), 22,
                     COLORS['task'])
            if left < 0:
                svg.rect(x(left), y + 4, x(0) - x(left), 22, COLORS['past'])
            svg.text(x(left) - 4, y + 19, '%d' % left, 11, 'end', mono=True)
        else:
            svg.text(x(0) - 4, y + 19, 'no report', 11, 'end')
        warn = facts.stage(stage)['warning_line']
        svg.line(x(warn), y + 1, x(warn), y + 29, COLORS['frame'], width=2)
        outcome = ('panic' if r['panic'] else
                   'dd survived' if r['dd_returned'] == 'yes' else
                   'dd never returned')
        svg.text(x(size), y + 40, 'IRQ-entry check fired %s×; %s' % (
            r['checks_fired'], outcome), 10, 'end')
    axis = top + row_h * len(runs) + 4
    svg.line(x(0), top - 6, x(0), axis, COLORS['magic'], dash=True)
    svg.text(x(0), axis + 14, 'end of stack (STACK_END_MAGIC)', 11, 'middle',
             color=COLORS['magic'])
    for b in (-3000, 4096, 8192):
        svg.text(x(b), axis + 14, '%d' % b, 10, 'middle', mono=True)
    svg.write(os.path.join(out, 'lab4-depth.svg'))


def lab5(results, out):
    """Threads at 8K and 4K, with free memory whole and cut into pages."""
    runs = {int(r['thread_size']): r
            for r in read_table(os.path.join(results, 'lab5-memory.tsv'))}
    big, small = runs[8192], runs[4096]
    svg = Svg(640, 300, 'Lab 5: threads at 8K and 4K stacks')
    svg.text(10, 20, 'Lab 5: threads a 128 MiB guest can create', 14,
             bold=True)
    panels = (('until 8 MB are left free', 'threads'),
              ('with free memory cut into single pages', 'threads_fragmented'))
    for p, (title, col) in enumerate(panels):
        x0, base, h = 30 + p * 310, 250, 180
        n8, n4 = int(big[col]), int(small[col])
        top = max(n8, n4)
        svg.text(x0, 45, title, 12, bold=True)
        for j, (label, n, color) in enumerate((('8K stacks', n8, COLORS['hardirq']),
                                               ('4K stacks', n4, COLORS['task']))):
            bh = h * n / top
            bx = x0 + 30 + j * 120
            svg.rect(bx, base - bh, 80, bh, color, COLORS['line'])
            svg.text(bx + 40, base - bh - 5, '%d' % n, 12, 'middle', mono=True)
            svg.text(bx + 40, base + 16, label, 11, 'middle')
        svg.line(x0 + 20, base, x0 + 270, base)
        svg.text(x0 + 140, base + 36, '4K / 8K = %.1f×' % (n4 / n8), 12,
                 'middle', bold=True)
    svg.write(os.path.join(out, 'lab5-threads.svg'))


if __name__ == '__main__':
    results_dir, out_dir = sys.argv[1], sys.argv[2]
    os.makedirs(out_dir, exist_ok=True)
    lab4(results_dir, out_dir)
    lab5(results_dir, out_dir)
