"""The PDF's page, as the text the book's tools lay out for it sees it:
a transcript or grader line fits across the page in WIDTH characters of
the code font (book/workbook-theme.yml); a longer one is broken, the
break marked with WRAP_MARK (book/transcripts.py, tests/checklib.py)."""
WIDTH = 86
WRAP_MARK = '\u21a9'
