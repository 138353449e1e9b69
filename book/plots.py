#!/usr/bin/env python3
# book/plots.py RESULTS OUT: the workbook's plots of labs 4 and 5, drawn
# from the tables their experiments wrote (RESULTS/lab4-overflow.tsv,
# RESULTS/lab5-memory.tsv, read by column name) into OUT/lab4-depth.svg and
# OUT/lab5-threads.svg. Their titles are the chapters' figure captions.
import os
import sys

HERE = os.path.dirname(os.path.abspath(__file__))

from vm.session import facts
from vm.session.results import read_table
from book.svg import COLORS, SMALL, TEXT, Svg, text_width


def legend(svg, x, y, items):
    """Colour swatches with their meaning, left to right from (x, y)."""
    for color, what in items:
        svg.rect(x, y - 10, 14, 12, color, COLORS['line'])
        svg.text(x + 19, y, what, SMALL)
        x += 19 + text_width(what, SMALL) + 16


def lab4(results, out):
    """One bar per run: the stack, how deep the descent went, past the end."""
    runs = read_table(os.path.join(results, 'lab4-overflow.tsv'))
    lo, hi = -3584, 8192                 # bytes above the stack's end
    left, right, row_h, bar_h = 112, 604, 50, 20
    top = 62
    axis = top + row_h * len(runs) + 2
    svg = Svg(right + 12, axis + 52, 'Lab 4: how deep each descent went')

    def x(b):
        return left + (b - lo) * (right - left) / (hi - lo)

    legend(svg, 12, 18, ((COLORS['task'], "the stack dd's descent used"),
                         (COLORS['past'], 'past its end'),
                         (COLORS['faint'], 'unused')))
    svg.line(12, 32, 24, 32, COLORS['frame'], width=3)
    svg.text(31, 36, "the IRQ-entry check's line: it reports when an "
             "interrupt finds esp under it", SMALL)
    # The end of every stack, where STACK_END_MAGIC is: one line for all.
    svg.line(x(0), top - 8, x(0), axis, COLORS['magic'], dash=True)
    svg.text(x(0), top - 12, 'end of the stack (STACK_END_MAGIC)', SMALL,
             'middle', color=COLORS['magic'])
    for i, r in enumerate(runs):
        stage, size = r['stage'], int(r['thread_size'])
        y = top + i * row_h
        svg.text(12, y + 14, 'stage %s, %dK' % (stage, size // 1024), TEXT,
                 bold=True)
        svg.text(12, y + 30, r['descent'].replace('frames', 'frames:')
                 .replace('room', 'room:'), SMALL)
        svg.rect(x(0), y, x(size) - x(0), bar_h, COLORS['faint'], COLORS['line'])
        base = y + bar_h - 6              # text baseline inside the bar
        if r['bytes_left']:
            deepest = int(r['bytes_left'])
            svg.rect(x(max(deepest, 0)), y, x(size) - x(max(deepest, 0)),
                     bar_h, COLORS['task'], COLORS['line'])
            if deepest < 0:
                # Past the end: the number inside the red part when it
                # fits there, else just left of it.
                label = '%d bytes past' % -deepest
                svg.rect(x(deepest), y, x(0) - x(deepest), bar_h,
                         COLORS['past'], COLORS['line'])
                if text_width(label, SMALL) + 8 < x(0) - x(deepest):
                    svg.text(x(deepest) + 4, base, label, SMALL, color='#ffffff')
                else:
                    svg.text(x(deepest) - 4, base, label, SMALL, 'end')
            else:
                # At the right end of the used part, clear of the check's
                # line, which lies near the stack's end.
                svg.text(x(size) - 4, base, '%d bytes left' % deepest, SMALL,
                         'end')
        else:
            svg.text(x(size) - 4, base, 'no report of its depth', SMALL, 'end')
        warn = facts.stage(stage)['warning_line']
        svg.line(x(warn), y - 3, x(warn), y + bar_h + 3, COLORS['frame'], width=3)
        outcome = ('panic' if r['panic'] else
                   'dd survived' if r['dd_returned'] == 'yes' else
                   'dd never returned')
        svg.text(x(0) + 4, y + bar_h + 14, 'the check fired %s×; %s' % (
            r['checks_fired'], outcome), SMALL)
    # The axis: bytes above the stack's end, a tick every 1024.
    svg.line(x(lo), axis, x(hi), axis)
    for b in range(-3072, hi + 1, 1024):
        svg.line(x(b), axis, x(b), axis + (6 if b % 2048 == 0 else 3))
        if b % 2048 == 0:
            svg.text(x(b), axis + 19, '%d' % b, SMALL, 'middle', mono=True)
    svg.text((x(lo) + x(hi)) / 2, axis + 38, 'bytes above the end of the '
             'stack (negative: past it)', SMALL, 'middle')
    svg.write(os.path.join(out, 'lab4-depth.svg'))


def lab5(results, out):
    """Threads at 8K and 4K, with free memory whole and cut into pages,
    both panels on one scale."""
    runs = {int(r['stage']): r
            for r in read_table(os.path.join(results, 'lab5-memory.tsv'))}
    stages = facts.lab(5)['experiment_stages']     # 8K, then 4K
    big, small = runs[stages[0]], runs[stages[-1]]
    panels = (('until 8 MB are left free', 'threads'),
              ('free memory cut into single pages', 'threads_fragmented'))
    values = [int(r[col]) for _, col in panels for r in (big, small)]
    step = 5000
    top_value = -(-max(values) // step) * step          # round up
    svg = Svg(600, 330, 'Lab 5: threads at 8K and 4K stacks')
    left, base, h = 62, 260, 200

    def y(n):
        return base - h * n / top_value

    svg.text(12, 18, 'Threads created, on one scale for both panels', TEXT,
             bold=True)
    for n in range(0, top_value + 1, step):
        svg.line(left - 5, y(n), left, y(n))
        svg.line(left, y(n), 588, y(n), '#dddddd')
        svg.text(left - 8, y(n) + 4, '%d' % n, SMALL, 'end', mono=True)
    svg.line(left, base, left, y(top_value))
    for p, (title, col) in enumerate(panels):
        x0 = left + 14 + p * 264
        n8, n4 = int(big[col]), int(small[col])
        svg.text(x0 + 115, 42, title, TEXT, 'middle', bold=True)
        for j, (label, n, color) in enumerate((('8K stacks', n8, COLORS['hardirq']),
                                               ('4K stacks', n4, COLORS['task']))):
            bx = x0 + 20 + j * 120
            svg.rect(bx, y(n), 80, base - y(n), color, COLORS['line'])
            svg.text(bx + 40, y(n) - 5, '%d' % n, TEXT, 'middle', mono=True)
            svg.text(bx + 40, base + 17, label, SMALL, 'middle')
        svg.text(x0 + 115, base + 40, '4K / 8K = %.1f×' % (n4 / n8), TEXT,
                 'middle', bold=True)
    svg.line(left, base, 588, base)
    svg.write(os.path.join(out, 'lab5-threads.svg'))


if __name__ == '__main__':
    results_dir, out_dir = sys.argv[1], sys.argv[2]
    os.makedirs(out_dir, exist_ok=True)
    lab4(results_dir, out_dir)
    lab5(results_dir, out_dir)
