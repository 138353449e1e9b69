# book/stackdraw.py: draw stack areas side by side, high addresses at the
# top, with marks on them and arrows between them (the workbook's stack
# layout figures). Used by book/stackfig.py (from a live kernel, in gdb)
# and book/figure26.py (2.6's layout, from its sources).
from svg import COLORS, Svg

COL_W, COL_GAP, TOP, HEIGHT = 170, 110, 110, 380


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
    place, to column index, place, text) arrows."""
    width = 20 + len(columns) * (COL_W + COL_GAP)
    svg = Svg(width, TOP + HEIGHT + 60, title)
    svg.text(10, 22, title, 15, bold=True)
    svg.text(10, 42, note, 11)

    def x_of(i):
        return 20 + i * (COL_W + COL_GAP)

    def y_of(place):
        return TOP + HEIGHT * (1 - place)

    for i, col in enumerate(columns):
        x = x_of(i)
        svg.text(x + COL_W / 2, TOP - 20, col.title, 12, 'middle', bold=True)
        svg.text(x + COL_W / 2, TOP - 6, col.subtitle, 10, 'middle')
        svg.rect(x, TOP, COL_W, HEIGHT, COLORS['faint'], COLORS['line'])
        if col.used_from is not None:
            svg.rect(x, y_of(1), COL_W, y_of(col.used_from) - y_of(1),
                     COLORS[col.kind], COLORS['line'])
        svg.text(x, TOP + HEIGHT + 14, col.base_label, 10, mono=True)
        svg.text(x, TOP - 36, col.top_label, 10, mono=True)
        for place, text, color, below in col.marks:
            y = y_of(place)
            lines = text.split('\n')
            if below:
                svg.rect(x, y, COL_W, y_of(0) - y, '#dadaeb', color)
            # Labels go above their line, except near the top of the area,
            # where the title is: there they go under it.
            if below or place > 0.85:
                first = y + 13
            else:
                first = y - 4 - 12 * (len(lines) - 1)
            svg.line(x, y, x + COL_W, y, color, width=2)
            for j, part in enumerate(lines):
                svg.text(x + 4, first + 12 * j, part, 10, color=color)
    for a, pa, b, pb, text in links:
        xa = x_of(a) + (COL_W if b > a else 0)
        xb = x_of(b) + (0 if b > a else COL_W)
        ya, yb = y_of(pa), y_of(pb)
        mid = (xa + xb) / 2
        svg.path('M%.1f,%.1f C%.1f,%.1f %.1f,%.1f %.1f,%.1f' % (
            xa, ya, mid, ya, mid, yb, xb, yb), arrow=True)
        svg.text(mid, (ya + yb) / 2 - 6, text, 10, 'middle')
    svg.write(path)
