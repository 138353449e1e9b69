# book/stackdraw.py: draw stack areas side by side, high addresses at the
# top, with marks on them and arrows between them (the workbook's stack
# layout figures). Used by book/stackfig.py (from a live kernel, in gdb)
# and book/figure26.py (2.6's layout, from its sources).
#
# Every label is wrapped to fit inside its column (svg.wrap); arrows run
# only through the gaps between columns, from one column's edge to the
# next one's, so they cross no label.
import os

from book.svg import COLORS, SMALL, TEXT, Svg, wrap

MARGIN, COL_W, COL_GAP, HEIGHT = 12, 162, 54, 330
STEP = TEXT + 3                      # baseline to baseline


class Column:
    """One stack area: a title, its size, where its used part starts
    (0 = lowest address, 1 = highest) and marks at places in it."""

    def __init__(self, title, subtitle, kind, top_label, base_label,
                 used_from=None):
        self.title, self.subtitle, self.kind = title, subtitle, kind
        self.top_label, self.base_label = top_label, base_label
        self.used_from = used_from
        self.marks = []              # (place, text, color, below)

    def mark(self, place, text, color=COLORS['line'], below=False):
        """A line at PLACE, labelled above it; with below=True, the part
        under the line is a structure of its own, labelled inside."""
        self.marks.append((place, text, color, below))


def draw(path, title, note, columns, links):
    """columns: Column list, left to right; links: (from column index,
    place, to column index, place) arrows. TITLE (bold) and NOTE head the
    figure, wrapped to its width; an empty TITLE (the chapter's caption
    says it) draws none."""
    width = 2 * MARGIN + len(columns) * COL_W + (len(columns) - 1) * COL_GAP
    heading = wrap(title, width - 2 * MARGIN, TEXT + 1) if title else []
    notes = wrap(note, width - 2 * MARGIN, TEXT)
    # Above each column: its title (up to two lines), subtitle, top label.
    heads = [wrap(c.title, COL_W + COL_GAP - 10, TEXT + 1) for c in columns]
    head_lines = max(len(h) for h in heads) + 2
    top = 14 + STEP * (len(heading) + len(notes)) + 10 + STEP * head_lines
    svg = Svg(width, top + HEIGHT + 30, title or note)
    y = svg.lines(MARGIN, 18, heading, TEXT + 1, STEP, bold=True)
    svg.lines(MARGIN, y, notes, TEXT, STEP)

    def x_of(i):
        return MARGIN + i * (COL_W + COL_GAP)

    def y_of(place):
        return top + HEIGHT * (1 - place)

    for i, col in enumerate(columns):
        x = x_of(i)
        mid = x + COL_W / 2
        y = top - 6 - STEP * (head_lines - 1)
        y = svg.lines(mid, y, heads[i], TEXT, STEP, anchor='middle', bold=True)
        y = top - 6 - STEP
        svg.text(mid, y, col.subtitle, SMALL, 'middle')
        svg.text(x, top - 6, col.top_label, SMALL, mono=True)
        svg.rect(x, top, COL_W, HEIGHT, COLORS['faint'], COLORS['line'])
        if col.used_from is not None:
            svg.rect(x, y_of(1), COL_W, y_of(col.used_from) - y_of(1),
                     COLORS[col.kind], COLORS['line'])
        svg.text(x, top + HEIGHT + 16, col.base_label, SMALL, mono=True)
        for place, text, color, below in col.marks:
            y = y_of(place)
            lines = wrap(text, COL_W - 8, SMALL)
            if below:
                svg.rect(x, y, COL_W, y_of(0) - y, '#dadaeb', color)
            # Labels go above their line, except near the top of the area
            # (where the column's title is) and inside a structure: there
            # they go under it.
            if below or place > 0.85:
                first = y + STEP
            else:
                first = y - 5 - (SMALL + 3) * (len(lines) - 1)
            svg.line(x, y, x + COL_W, y, color, width=2)
            svg.lines(x + 5, first, lines, SMALL, SMALL + 3, color=color)
    for a, pa, b, pb in links:
        # From column a's edge facing b to b's edge facing a, through the
        # gap between them only.
        xa = x_of(a) + (COL_W if b > a else 0)
        xb = x_of(b) + (0 if b > a else COL_W)
        ya, yb = y_of(pa), y_of(pb)
        mid = (xa + xb) / 2
        svg.path('M%.1f,%.1f C%.1f,%.1f %.1f,%.1f %.1f,%.1f' % (
            xa, ya, mid, ya, mid, yb, xb, yb), arrow=True)
    svg.write(path)


def live(figure, name, who):
    """In gdb, at a lab's stop: FIGURE(path) draws the live figure NAME into
    the folder KS_FIGURES names (make transcripts sets it); WHO says whose
    error it is."""
    import gdb
    from kstack import stacks
    out = os.environ.get('KS_FIGURES')
    if not out:
        raise gdb.GdbError('%s: set KS_FIGURES to the output folder' % who)
    os.makedirs(out, exist_ok=True)
    stacks.checked(figure, os.path.join(out, name))
