# book/svg.py: the few SVG pieces the workbook's figures are made of.
# Plain text out, no plotting library: a teacher can read every coordinate.
import math
import re
from xml.sax.saxutils import escape

FONT = 'font-family="DejaVu Sans, Arial, sans-serif"'
MONO = 'font-family="DejaVu Sans Mono, monospace"'
COLORS = {'task': '#9ecae1', 'hardirq': '#fdae6b', 'softirq': '#a1d99b',
          'past': '#de2d26', 'frame': '#3182bd', 'line': '#444444',
          'faint': '#eeeeee', 'magic': '#756bb1'}


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

    def path(self, d, color=COLORS['line'], arrow=False):
        self.parts.append('<path d="%s" fill="none" stroke="%s"/>' % (d, color))
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
        bx, by = x2 - 8 * ux, y2 - 8 * uy
        self.parts.append('<polygon points="%.1f,%.1f %.1f,%.1f %.1f,%.1f" '
                          'fill="%s"/>' % (x2, y2, bx - 3.5 * uy, by + 3.5 * ux,
                                           bx + 3.5 * uy, by - 3.5 * ux, color))

    def text(self, x, y, s, size=12, anchor='start', mono=False, bold=False,
             color='#000000'):
        self.parts.append('<text x="%.1f" y="%.1f" font-size="%d" '
                          'text-anchor="%s" fill="%s" %s%s>%s</text>' % (
                              x, y, size, anchor, color, MONO if mono else FONT,
                              ' font-weight="bold"' if bold else '', escape(s)))

    def write(self, path):
        with open(path, 'w') as f:
            f.write('<svg xmlns="http://www.w3.org/2000/svg" '
                    'viewBox="0 0 %d %d" width="%d" height="%d">\n' % (
                        self.width, self.height, self.width, self.height))
            f.write('<rect width="100%" height="100%" fill="white"/>\n')
            f.write('\n'.join(self.parts))
            f.write('\n</svg>\n')
