#!/usr/bin/env python3
"""Check the rendered workbook as a reader sees it (tests/checks/90-book.sh).

usage: python3 book/rendercheck.py BOOK SHOTS

BOOK is book/build.sh's output folder (index.html, index.pdf, figures/,
transcripts/). Prints one line per check, "ok - WHAT" or "not ok - WHAT
(got: ...)", and exits 1 if one failed. SHOTS receives what a person
should look at, and the log lists it: a screenshot of each chapter's
start and of each figure in Chromium at a phone's width (420 px), and
the PDF's page of each figure (pdftoppm, 60 dpi).

What it checks, beyond what book/codespans.py does for inline code:
- transcripts: each command after its prompt, as the terminal shows it;
  no gdb "+cmd" trace lines, no padded \\000 strings, no line wider than
  the PDF's page;
- figures: all text at least svg.MIN_PT points at the PDF's width, every
  figure numbered, and each image's alt text whole;
- the HTML: self-contained (nothing fetched from the web: no web fonts),
  a table of contents three levels deep; at 420 px nothing wider than
  the screen outside a box that scrolls by itself, and every screenshot
  shows something;
- the PDF: every font embedded (no substituted Courier), each figure on
  a page with its caption and its own text, and no word of a table
  broken across lines.
"""
import glob
import html.parser
import json
import os
import re
import shutil
import struct
import subprocess
import sys
import zlib

HERE = os.path.dirname(os.path.abspath(__file__))
from book import svg
from book import transcripts

PHONE = 420                          # px: the narrow screen
failed = 0


def check(good, what, got=None):
    global failed
    if good:
        print('ok - %s' % what, flush=True)
    else:
        failed += 1
        print('not ok - %s%s' % (what, '' if got is None else ' (got: %s)' % got),
              flush=True)


def log(line):
    print(line, file=sys.stderr, flush=True)


# ---- transcripts --------------------------------------------------------

def check_transcripts(book):
    for path in sorted(glob.glob(os.path.join(book, 'transcripts', 'lab*.txt'))):
        name = os.path.basename(path)
        with open(path) as f:
            lines = f.read().splitlines()
        prompts = [l for l in lines if l.startswith(('(gdb) ', 'crash> '))]
        traces = [l for l in lines if l.startswith('+')]
        padded = [l for l in lines if '\\000\\000' in l]
        wide = [l for l in lines if len(l) > transcripts.WIDTH]
        check(prompts and not traces and not padded and not wide,
              '%s shows %d commands after their prompt, as the terminal does '
              '(no "+cmd" lines, no padded \\000, none over %d characters)'
              % (name, len(prompts), transcripts.WIDTH),
              '%d trace lines, %d padded, %d wide: %s' % (
                  len(traces), len(padded), len(wide),
                  (traces + padded + wide + [''])[0][:60]))


# ---- figures and the HTML's structure -----------------------------------

def check_figure_text(book):
    """Each SVG's smallest text, scaled to the PDF's text width."""
    for path in sorted(glob.glob(os.path.join(book, 'figures', '*.svg'))):
        with open(path) as f:
            text = f.read()
        width = float(re.search(r'viewBox="0 0 ([0-9.]+)', text).group(1))
        smallest = min(float(s) for s in re.findall(r'font-size="([0-9.]+)"', text))
        pt = smallest * svg.PDF_WIDTH_PT / width
        check(pt >= svg.MIN_PT, '%s: its smallest text is %.1f pt in the PDF '
              '(%g units in %g), at least %d' % (os.path.basename(path), pt,
                                                   smallest, width, svg.MIN_PT),
              '%.1f pt' % pt)


class Page(html.parser.HTMLParser):
    """What the checks need from index.html: chapters, figures, images,
    table cells, the table of contents' levels, remote resources."""

    def __init__(self):
        super().__init__(convert_charrefs=True)
        self.chapters, self.figures, self.images = [], [], []
        self.cells, self.toc_levels, self.remote = [], set(), []
        self.cell, self.figure, self.title = None, None, None
        self.listings, self.listing = [], None     # [lang, text] of <code>s

    def handle_starttag(self, tag, attrs):
        a = dict(attrs)
        classes = (a.get('class') or '').split()
        if tag == 'h2' and a.get('id'):
            self.chapters.append(a['id'])
        if tag == 'div' and 'imageblock' in classes:
            self.figure = {'id': a.get('id'), 'title': ''}
            self.figures.append(self.figure)
        if tag == 'div' and 'title' in classes and self.figure is not None:
            self.title = self.figure
        if tag == 'img':
            self.images.append((a.get('src'), a.get('alt')))
            if self.figure is not None:
                self.figure['src'] = a.get('src')
        if tag in ('td', 'th'):
            self.cell = []
        if tag == 'code' and a.get('data-lang'):
            self.listing = [a['data-lang'], '']
            self.listings.append(self.listing)
        for level in re.findall(r'sectlevel(\d)', a.get('class') or ''):
            self.toc_levels.add(int(level))
        url = a.get('href') if tag == 'link' else a.get('src')
        if tag in ('link', 'script', 'img') and url and re.match(r'(https?:)?//', url):
            self.remote.append(url)

    def handle_endtag(self, tag):
        if tag in ('td', 'th') and self.cell is not None:
            self.cells.append(''.join(self.cell))
            self.cell = None
        if tag == 'div' and self.title is not None:
            self.title = self.figure = None
        if tag == 'code':
            self.listing = None

    def handle_data(self, data):
        if self.listing is not None:
            self.listing[1] += data
        if self.cell is not None:
            self.cell.append(data)
        if self.title is not None:
            self.title['title'] += data


def image_alts(sources):
    """{target: alt} of the image macros in SOURCES: the alt text is all
    of the attribute list before its first name=value, unquoted. Unquoted
    text with a comma is cut by asciidoctor at the comma: the check
    catches that."""
    alts = {}
    for path in sources:
        with open(path) as f:
            for target, attrs in re.findall(r'^image::([^\[]+)\[(.*)\]$', f.read(), re.M):
                alt = re.split(r',\s*[\w-]+=', attrs)[0].strip()
                alts[target] = alt[1:-1] if alt.startswith('"') else alt
    return alts


def check_html(page, sources):
    check(not page.remote, 'the HTML fetches nothing from the web (no web '
          'fonts, no icon font)', page.remote)
    check(3 in page.toc_levels, 'the table of contents goes three levels deep',
          sorted(page.toc_levels))
    numbered = [f for f in page.figures if re.match(r'Figure \d+\. ', f['title'])]
    check(page.figures and len(numbered) == len(page.figures) and
          all(f['id'] for f in page.figures),
          'each of the %d figures has a numbered caption and an id the text '
          'refers to' % len(page.figures),
          [f['title'][:40] for f in page.figures if f not in numbered])
    # A transcript shows as a session block: prompts grey, commands bold
    # (book/session_lexer.rb), not as plain text.
    sessions = [lang for lang, text in page.listings
                if re.search(r'^(\(gdb\)|crash>) ', text, re.M)]
    # ... as many as the chapters include, and every transcript that
    # book/transcripts/*.gdb makes among them.
    text = ''
    for path in sources:
        with open(path) as f:
            text += f.read()
    blocks = len(re.findall(r'^\[source[^\]]*,session\]', text, re.M))
    made = sorted(os.path.basename(p)[:-4] for p in
                  glob.glob(os.path.join(HERE, 'transcripts', '*.gdb')))
    left_out = [m for m in made if '{transcripts}/%s.txt' % m not in text]
    check(sessions and set(sessions) == {'session'} and
          len(sessions) == blocks and not left_out,
          '%d transcripts in the HTML are [source,session] blocks, commands '
          'set apart: the %d the chapters include, among them the %d that '
          'book/transcripts/*.gdb make' % (len(sessions), blocks, len(made)),
          {'kinds': sorted(set(sessions)), 'in the HTML': len(sessions),
           'in the chapters': blocks, 'made but not included': left_out})
    alts = image_alts(sources)
    # asciidoctor curls the apostrophes of an alt text: that is no cut.
    cut = [(src, alt) for src, alt in page.images
           if src in alts and alt.replace('\u2019', "'") != alts[src]]
    check(alts and not cut, 'every image keeps its whole alt text (%d)' % len(alts),
          cut)


# ---- the HTML in Chromium ------------------------------------------------

# Added to a copy of the page: every folded block opened; with ?target=ID,
# everything before element ID is removed, so that the first screen
# shows it (Chromium's headless
# screenshot does not scroll to a #fragment); ?measure notes what sticks
# out of a PHONE-wide page, outside a box that scrolls by itself.
# (Headless Chromium's window is 500 px at the least in --dump-dom mode, so
# the page is made PHONE wide there; no style of the book changes between
# 420 and 500 px.)
PROBE = '''<script>
window.addEventListener('load', function () {
  // The folded blocks (the labs' sessions and what you should have
  // seen), open, as a reader who has run the lab has them.
  document.querySelectorAll('details').forEach(function (d) { d.open = true; });
  var q = new URLSearchParams(location.search);
  var target = q.get('target');
  if (target) {
    var el = document.getElementById(target);
    for (var n = el; n && n !== document.body; n = n.parentNode)
      while (n.previousSibling) n.previousSibling.remove();
  }
  if (q.has('measure')) {
    var width = %d;
    document.documentElement.style.width = width + 'px';
    var wide = [];
    document.querySelectorAll('body *').forEach(function (e) {
      for (var a = e.parentElement; a && a !== document.body; a = a.parentElement)
        if (getComputedStyle(a).overflowX !== 'visible') return;
      var r = e.getBoundingClientRect();
      if (r.width && r.right > width + 1)
        wide.push(e.tagName.toLowerCase() + (e.id ? '#' + e.id : '') +
                  (e.className ? '.' + String(e.className).split(' ').join('.') : '') +
                  ' to ' + Math.round(r.right) + ' px');
    });
    document.body.setAttribute('data-wide', JSON.stringify(wide));
  }
});
</script>''' % PHONE


def chromium(*args):
    return subprocess.run(['chromium', '--headless', '--no-sandbox', '--disable-gpu',
                           '--hide-scrollbars', '--virtual-time-budget=5000',
                           '--window-size=%d,900' % PHONE] + list(args),
                          stdout=subprocess.PIPE, stderr=subprocess.DEVNULL,
                          text=True, timeout=120).stdout


def ink(png):
    """The fraction of a PNG's pixels that are not the page's white.
    Chromium writes 8-bit RGB(A), not interlaced: undo each row's filter."""
    with open(png, 'rb') as f:
        data = f.read()
    width, height, depth, color = struct.unpack('>IIBB', data[16:26])
    channels = {2: 3, 6: 4}[color]
    assert depth == 8, depth
    idat, pos = b'', 8
    while pos < len(data):
        length, kind = struct.unpack('>I4s', data[pos:pos + 8])
        if kind == b'IDAT':
            idat += data[pos + 8:pos + 8 + length]
        pos += 12 + length
    raw, stride = zlib.decompress(idat), width * channels
    prev, marked = bytearray(stride), 0
    for y in range(height):
        start = y * (stride + 1)
        kind, row = raw[start], bytearray(raw[start + 1:start + 1 + stride])
        for i in range(stride):
            a = row[i - channels] if i >= channels else 0
            b, c = prev[i], prev[i - channels] if i >= channels else 0
            if kind == 1:
                row[i] = (row[i] + a) & 255
            elif kind == 2:
                row[i] = (row[i] + b) & 255
            elif kind == 3:
                row[i] = (row[i] + (a + b) // 2) & 255
            elif kind == 4:
                p = a + b - c
                pa, pb, pc = abs(p - a), abs(p - b), abs(p - c)
                row[i] = (row[i] + (a if pa <= pb and pa <= pc else b if pb <= pc else c)) & 255
        marked += sum(1 for x in range(0, stride, channels) if min(row[x:x + 3]) < 240)
        prev = row
    return marked / (width * height)


def check_screens(book, page, shots):
    if not shutil.which('chromium'):
        check(False, 'Chromium is installed for the screenshots', "no 'chromium': run 'make deps'")
        return
    probe = os.path.join(os.path.abspath(book), '.probe.html')
    with open(os.path.join(book, 'index.html')) as f:
        text = f.read()
    with open(probe, 'w') as f:
        f.write(text.replace('</body>', PROBE + '</body>'))
    try:
        measure_and_shoot(probe, page, shots)
    finally:
        os.unlink(probe)


def measure_and_shoot(probe, page, shots):
    url = 'file://' + probe
    dom = chromium('--dump-dom', url + '?measure')
    m = re.search(r'data-wide="([^"]*)"', dom)
    wide = json.loads(html.unescape(m.group(1))) if m else ['no measure']
    check(not wide, 'at %d px nothing pushes the page sideways (wide tables '
          'and transcripts scroll inside their own box)' % PHONE, wide[:5])
    targets = [('chapter', c) for c in page.chapters] + \
              [('figure', f['id']) for f in page.figures]
    blank = []
    for kind, target in targets:
        png = os.path.join(shots, 'html-%s-%s.png' % (kind, target.strip('_')))
        chromium('--screenshot=' + png, '%s?target=%s' % (url, target))
        share = ink(png) if os.path.exists(png) else 0
        log('%s: %s at %d px, %.0f%% ink' % (png, target, PHONE, share * 100))
        if share < 0.02:
            blank.append(target)
    check(targets and not blank, '%d screenshots at %d px (each chapter\'s start '
          'and each figure, in %s) show the page' % (len(targets), PHONE, shots),
          'blank: %s' % blank)


# ---- the PDF --------------------------------------------------------------

def run(*argv):
    return subprocess.run(argv, stdout=subprocess.PIPE, text=True, check=True).stdout


def check_pdf(book, page, shots):
    pdf = os.path.join(book, 'index.pdf')
    fonts = run('pdffonts', pdf).splitlines()[2:]
    loose = [l.split()[0] for l in fonts if ' no ' in l[60:70] or 'Courier' in l]
    check(fonts and not loose, 'the PDF embeds all %d of its fonts (no '
          'substituted Courier)' % len(fonts), loose)
    pages = int(re.search(r'^Pages:\s+(\d+)', run('pdfinfo', pdf), re.M).group(1))
    texts = [run('pdftotext', '-layout', '-f', str(p), '-l', str(p), pdf, '-')
             for p in range(1, pages + 1)]
    log('%s: %d pages' % (pdf, pages))
    missing = []
    for n, figure in enumerate(page.figures, 1):
        # The page with the caption, which must also have the figure's
        # last piece of text (prawn-svg draws SVG text as text).
        on = [p for p, t in enumerate(texts, 1) if re.search(r'^\s*Figure %d\. ' % n, t, re.M)]
        with open(os.path.join(book, figure['src'])) as f:
            last = html.unescape(re.findall(r'<text[^>]*>([^<]+)</text>', f.read())[-1])
        if len(on) != 1 or last.split()[0] not in texts[on[0] - 1]:
            missing.append('Figure %d (%s): caption on pages %s' % (n, figure['src'], on))
            continue
        base = os.path.join(shots, 'pdf-figure-%d' % n)
        run('pdftoppm', '-png', '-r', '60', '-singlefile', '-f', str(on[0]),
            '-l', str(on[0]), pdf, base)
        log('%s.png: page %d of the PDF, %s' % (base, on[0], figure['src']))
    check(page.figures and not missing, 'each of the %d figures is in the PDF on '
          'a page with its caption, its own text drawn as text' % len(page.figures),
          missing)
    tokens = set(' '.join(texts).split())
    # Words of four letters and more, footnote marks ([3]) left out, and
    # the zero-width space asciidoctor puts after an ellipsis, which the
    # PDF's text leaves out.
    words = {w for cell in page.cells
             for w in re.sub(r'\[\d+\]', ' ', cell.replace('\u200b', '')).split()
             if len(w) > 3}
    broken = sorted(w for w in words if w not in tokens)
    check(words and not broken, 'no word of the %d in the tables is broken '
          'across lines in the PDF' % len(words), broken[:8])


def main(argv):
    if len(argv) != 3:
        sys.exit(__doc__.strip().split('\n')[2])
    book, shots = argv[1], argv[2]
    os.makedirs(shots, exist_ok=True)
    page = Page()
    with open(os.path.join(book, 'index.html')) as f:
        page.feed(f.read())
    sources = glob.glob(os.path.join(HERE, '*.adoc')) + \
        glob.glob(os.path.join(HERE, 'chapters', '*.adoc'))
    check_transcripts(book)
    check_figure_text(book)
    check_html(page, sources)
    check_pdf(book, page, shots)
    check_screens(book, page, shots)
    return 1 if failed else 0


if __name__ == '__main__':
    sys.exit(main(sys.argv))
