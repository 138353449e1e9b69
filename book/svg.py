# book/svg.py: the few SVG pieces the workbook's figures are made of.
# Plain text out, no plotting library: a teacher can read every coordinate.
#
# Legibility: the PDF prints a figure across the text width, 499 pt on A4
# (book/workbook-theme.yml's page), so a figure drawn WIDTH units wide
# scales its text by 499 / WIDTH. The smallest text is SMALL (11) units,
# so a figure may be 686 units wide at most (Svg.write checks): 8 pt on
# paper. Those drawn here are about 620 wide: 8.9 pt.
# The HTML shows them at their own size (a unit is a pixel), smaller on a
# narrow screen. The fonts are the DejaVu ones, which Debian installs and
# the PDF theme registers, so the PDF embeds them.
import math
import re
import textwrap
from xml.sax.saxutils import escape

FONT = 'font-family="DejaVu Sans, sans-serif"'
MONO = 'font-family="DejaVu Sans Mono, monospace"'
TEXT, SMALL = 12, 11                 # label and smallest text sizes
PDF_WIDTH_PT, MIN_PT = 499, 8        # what book check 90 holds them to
COLORS = {'task': '#9ecae1', 'hardirq': '#fdae6b', 'softirq': '#a1d99b',
          'past': '#de2d26', 'frame': '#3182bd', 'line': '#444444',
          'faint': '#eeeeee', 'magic': '#756bb1', 'ist': '#fcbba1'}


def text_width(s, size, mono=False):
    """About how wide S is at SIZE: DejaVu Sans averages 0.55 em a
    character in these labels (0.58 keeps them inside their boxes),
    DejaVu Sans Mono is 0.602 em exactly."""
    return len(s) * size * (0.602 if mono else 0.58)


def wrap(s, width, size, mono=False):
    """S broken into lines (at its newlines and between words) that fit
    WIDTH units at SIZE."""
    chars = max(8, int(width / (size * (0.602 if mono else 0.58))))
    return [line for part in s.split('\n')
            for line in (textwrap.wrap(part, chars) or [''])]


class Svg:
    """An SVG document of a fixed size, built from rectangles, lines and text."""

    def __init__(self, width, height, title):
        self.width, self.height = width, height
        self.parts = ['<title>%s</title>' % escape(title)]

    def rect(self, x, y, w, h, fill, stroke='none'):
        self.parts.append('<rect x="%.1f" y="%.1f" width="%.1f" height="%.1f" '
                          'fill="%s" stroke="%s"/>' % (x, y, w, h, fill, stroke))

    def line(self, x1, y1, x2, y2, color=COLORS['line'], dash=False,
             arrow=False, width=1):
        self.parts.append('<line x1="%.1f" y1="%.1f" x2="%.1f" y2="%.1f" '
                          'stroke="%s" stroke-width="%s"%s/>' % (
                              x1, y1, x2, y2, color, width,
                              ' stroke-dasharray="4 3"' if dash else ''))
        if arrow:
            self.arrow_head(x1, y1, x2, y2, color)

    def path(self, d, color=COLORS['line'], arrow=False, width=1.5):
        self.parts.append('<path d="%s" fill="none" stroke="%s" '
                          'stroke-width="%s"/>' % (d, color, width))
        if arrow:
            # The head points along the path's last piece: from its last
            # control point (or previous point) to its end.
            xs = [float(n) for n in re.findall(r'-?[0-9.]+', d)]
            self.arrow_head(xs[-4], xs[-3], xs[-2], xs[-1], color)

    def arrow_head(self, x1, y1, x2, y2, color):
        """A filled triangle with its tip at (x2, y2), pointing away from
        (x1, y1). Drawn, not an SVG marker: the PDF's SVG renderer
        (prawn-svg) leaves markers out."""
        length = math.hypot(x2 - x1, y2 - y1) or 1.0
        ux, uy = (x2 - x1) / length, (y2 - y1) / length
        bx, by = x2 - 9 * ux, y2 - 9 * uy
        self.parts.append('<polygon points="%.1f,%.1f %.1f,%.1f %.1f,%.1f" '
                          'fill="%s"/>' % (x2, y2, bx - 4 * uy, by + 4 * ux,
                                           bx + 4 * uy, by - 4 * ux, color))

    def text(self, x, y, s, size=TEXT, anchor='start', mono=False, bold=False,
             color='#000000'):
        assert size >= SMALL, 'text under %d units is not legible in the PDF' % SMALL
        self.parts.append('<text x="%.1f" y="%.1f" font-size="%d" '
                          'text-anchor="%s" fill="%s" %s%s>%s</text>' % (
                              x, y, size, anchor, color, MONO if mono else FONT,
                              ' font-weight="bold"' if bold else '', escape(s)))

    def lines(self, x, y, lines, size=TEXT, step=None, **kw):
        """LINES one under another from baseline Y; returns the baseline
        after the last."""
        step = step or size + 3
        for line in lines:
            self.text(x, y, line, size, **kw)
            y += step
        return y

    def write(self, path):
        assert SMALL * PDF_WIDTH_PT / self.width >= MIN_PT, \
            '%d units wide: text under %d pt in the PDF' % (self.width, MIN_PT)
        with open(path, 'w') as f:
            f.write('<svg xmlns="http://www.w3.org/2000/svg" '
                    'viewBox="0 0 %d %d" width="%d" height="%d">\n' % (
                        self.width, self.height, self.width, self.height))
            f.write('<rect width="100%" height="100%" fill="white"/>\n')
            f.write('\n'.join(self.parts))
            f.write('\n</svg>\n')
