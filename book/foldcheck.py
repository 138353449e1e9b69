#!/usr/bin/env python3
"""book/foldcheck.py: in the HTML, every lab keeps its answers folded.

usage: python3 book/foldcheck.py INDEX.HTML

A lab chapter asks first and shows after: its "What you should have
seen" (the reference session and what it should have shown) and its
"Why" (the reasons the "why" questions ask for) stay inside folds
(asciidoctor's [%collapsible] blocks, <details> in the HTML), so that a
reader who scrolls past does not read the answers before answering. The
PDF has no folds; it is read the same way as the book's sources, after
the lab.

Prints one "ok -" or "not ok -" line per lab; a "not ok" names the
section and the first words that stand outside a fold. Exits 1 if one
failed.
"""
import html.parser
import re
import sys

FOLDED = ('What you should have seen', 'Why')


class Folds(html.parser.HTMLParser):
    """Per lab chapter (its h2 "Lab N: ..."): the words of each FOLDED
    section (its h3) that are not inside a <details>."""

    def __init__(self):
        super().__init__(convert_charrefs=True)
        self.labs = {}                  # lab number: {section: [words outside]}
        self.seen = {}                  # lab number: the FOLDED sections found
        self.lab = self.section = None
        self.heading = None             # 'h2' or 'h3' while inside one
        self.title = ''
        self.details = 0

    def handle_starttag(self, tag, attrs):
        if tag in ('h2', 'h3'):
            self.heading, self.title = tag, ''
            if tag == 'h2':
                self.lab = None
            self.section = None
        elif tag == 'details':
            self.details += 1

    def handle_endtag(self, tag):
        if tag == 'details':
            self.details -= 1
        elif tag == self.heading:
            title = ' '.join(self.title.split())
            self.heading = None
            if tag == 'h2':
                m = re.match(r'(?:\d+\. )?Lab (\d+):', title)
                self.lab = int(m.group(1)) if m else None
                if self.lab is not None:
                    self.labs[self.lab] = {s: [] for s in FOLDED}
            elif self.lab is not None:
                bare = re.sub(r'^[\d.]+ ', '', title)
                self.section = bare if bare in FOLDED else None
                if self.section:
                    self.seen.setdefault(self.lab, set()).add(bare)

    def handle_data(self, data):
        if self.heading:
            self.title += data
        elif self.section and not self.details and data.strip():
            self.labs[self.lab][self.section].append(data.strip())


def main(path):
    page = Folds()
    with open(path) as f:
        page.feed(f.read())
    failed = 0
    if not page.labs:
        print('not ok - the HTML has lab chapters to check (found none in %s)' % path)
        return 1
    for lab, sections in sorted(page.labs.items()):
        outside = [(s, ' '.join(w)[:70]) for s, w in sections.items() if w]
        missing = [s for s in FOLDED if s not in page.seen.get(lab, ())]
        if missing:
            failed += 1
            print('not ok - lab %d has a "%s" section to keep folded (none found)'
                  % (lab, missing[0]))
        elif outside:
            failed += 1
            print('not ok - lab %d keeps "%s" folded (outside its fold: "%s")'
                  % (lab, outside[0][0], outside[0][1]))
        else:
            print('ok - lab %d keeps "What you should have seen" and "Why" inside '
                  'their folds' % lab)
    return 1 if failed else 0


if __name__ == '__main__':
    sys.exit(main(sys.argv[1]))
