#!/usr/bin/env python3
"""Check that the workbook's inline code survives asciidoctor unchanged.

usage: python3 book/codespans.py HTML ADOC...

Asciidoctor applies its text substitutions inside `backtick` spans too:
two `__` in one paragraph become emphasis, `->` becomes an arrow, and a
span closed by a backtick followed by 's does not close, so the code font
runs on. The page still looks plausible, but a command copied from it
fails in gdb. Code that must stay verbatim goes in `+...+` (but not a
[.sym]`name`: book/symcheck.sh reads those raw, so a paragraph may hold
only one such name with `__`).

This script takes every inline code span of the AsciiDoc sources (also in
the files and tagged regions they include, such as the labs' README
questions; spans with an attribute reference like {transcripts}, and
what ifdef::backend-pdf[] keeps for the PDF, are skipped), and checks
that each one is the whole text of a <code> element of the rendered
HTML, as many times as the sources have it. It prints
each span that falls short with its file and line (all occurrences of it,
since which one was mangled is not known), and exits 1 if there is one,
else 0.
"""
import collections
import html.parser
import os
import re
import sys

from vm.session.session import BUILD

# Delimited blocks whose content is not inline text: listing, literal,
# comment and passthrough blocks.
VERBATIM = re.compile(r"^(-{4,}|\.{4,}|/{4,}|\+{4,})\s*$")
INCLUDE = re.compile(r"^include::([^\[]+)\[(.*)\]\s*$")
# An include's tag=NAME or tags=A;B;!C, and the tag directives in a file.
TAGS = re.compile(r"\btags?=([^,\]]+)")
TAG_LINE = re.compile(r"\b(tag|end)::([\w-]+)\[\]")
# Preprocessor conditionals: what is inside ifdef::backend-pdf[] (the
# appendix of patches, say) is not in the HTML; ifndef::backend-pdf[] is.
CONDITION = re.compile(r"^(ifdef|ifndef)::([\w-]+)\[\]\s*$")
HTML_ATTRIBUTES = {"backend-html5", "basebackend-html"}
# At each backtick, in this order: ``unconstrained``, `+literal+`, `plain`.
SPAN = re.compile(r"``(.+?)``|`\+(.+?)\+`|`([^`]+)`", re.S)
ATTRIBUTE = re.compile(r"\{[\w-]+\}")
# What book/build.sh writes for the sources ({generated}: the build
# folder's book/).
GENERATED = os.path.join(BUILD, "book")


def source_lines(path, tags=None):
    """(where, text) for the lines of path that asciidoctor treats as
    inline text, with includes expanded. TAGS, an include's tags=
    selection ("questions;!why"), keeps the lines inside a named region
    and outside a "!" one, as asciidoctor does."""
    with open(path, encoding="utf-8") as f:
        lines = f.read().split("\n")
    names = tags.split(";") if tags else []
    wanted = {n for n in names if not n.startswith("!")}
    unwanted = {n[1:] for n in names if n.startswith("!")}
    regions = set()                  # the tag regions open at this line
    verbatim = None
    shown = []                       # one bool per open conditional
    for number, line in enumerate(lines, 1):
        directive = TAG_LINE.search(line)
        if directive and tags is not None:
            (regions.add if directive.group(1) == "tag" else regions.discard)(directive.group(2))
            continue
        if wanted and not regions & wanted or regions & unwanted:
            continue
        condition = CONDITION.match(line)
        if condition and not verbatim:
            defined = condition.group(2) in HTML_ATTRIBUTES
            shown.append(defined == (condition.group(1) == "ifdef"))
            yield None, ""
            continue
        if line.startswith("endif::") and shown and not verbatim:
            shown.pop()
            yield None, ""
            continue
        if not all(shown):
            continue
        block = VERBATIM.match(line)
        if block and verbatim in (None, block.group(1)):
            verbatim = None if verbatim else block.group(1)
            yield None, ""
            continue
        if verbatim or line.startswith("//"):
            yield None, ""
            continue
        include = INCLUDE.match(line)
        if include and include.group(1).startswith("{generated}/"):
            # The list of the labs' chapters book/build.sh writes.
            target = os.path.join(GENERATED, include.group(1)[len("{generated}/"):])
            yield from source_lines(target)
            continue
        if include and "{" not in include.group(1):
            target = os.path.join(os.path.dirname(path), include.group(1))
            selection = TAGS.search(include.group(2))
            yield from source_lines(target, selection and selection.group(1))
            continue
        yield "%s:%d" % (path, number), line


def spans(path):
    """(where, text) of every inline code span, paragraph by paragraph."""
    paragraph = []
    for where, line in list(source_lines(path)) + [(None, "")]:
        if line.strip():
            paragraph.append((where, line))
            continue
        text = "\n".join(l for _, l in paragraph)
        for m in SPAN.finditer(text):
            literal = m.group(2) is not None
            body = next(g for g in m.groups() if g is not None)
            if not literal and ATTRIBUTE.search(body):
                continue
            yield paragraph[text.count("\n", 0, m.start())][0], body
        paragraph = []


class CodeTexts(html.parser.HTMLParser):
    """The text of every <code> element, entities decoded."""

    def __init__(self):
        super().__init__(convert_charrefs=True)
        self.texts, self.open = [], []

    def handle_starttag(self, tag, attrs):
        if tag == "code":
            self.open.append([])

    def handle_endtag(self, tag):
        if tag == "code" and self.open:
            self.texts.append("".join(self.open.pop()))

    def handle_data(self, data):
        for text in self.open:
            text.append(data)


def squeeze(text):
    return " ".join(text.split())


def main(argv):
    if len(argv) < 3:
        sys.exit(__doc__.strip().split("\n")[2])
    parser = CodeTexts()
    with open(argv[1], encoding="utf-8") as f:
        parser.feed(f.read())
    rendered = collections.Counter(squeeze(t) for t in parser.texts)
    wanted = collections.defaultdict(list)
    for path in argv[2:]:
        for where, body in spans(path):
            wanted[body].append(where)
    missing = 0
    for body, wheres in wanted.items():
        found = rendered[squeeze(body)]
        if found < len(wheres):
            # Which occurrence was mangled is not known: name them all.
            for where in wheres:
                print("%s: `%s` (a <code> element of the HTML %d of %d times)"
                      % (where, body, found, len(wheres)))
            missing += 1
    if missing:
        print("%d code span(s) not in %s verbatim: write them as `+...+`"
              % (missing, argv[1]))
    return 1 if missing else 0

if __name__ == "__main__":
    sys.exit(main(sys.argv))
