#!/bin/sh
# book/build.sh: render the workbook (make book) to build/book/index.html
# and build/book/index.pdf, with no kernel built and no guest booted.
#
# The real-run material (transcripts, tables, lab 2's and lab 7's
# figures, grader outputs) comes from the copies kept in book/runs/
# (book/kept.py). KS_BOOK_FROM=run renders this build folder's own
# material instead, as make check makes it (tests/checks/90-book.sh),
# which also looks up the symbols the chapters mark (book/symcheck.sh,
# which needs the kernels). Fails if a piece is missing or if
# asciidoctor warns (an include that does not resolve is a warning).
. "$(dirname "$0")/../vm/host/lib.sh"

out=$BUILD/book
mkdir -p "$out/figures"
command -v asciidoctor >/dev/null || die "no asciidoctor: run 'sh vm/host/setup.sh'"
source=${KS_BOOK_FROM:-kept}
case $source in
kept)
	from=${KS_KEPT:-$TOP/book/runs}
	transcripts=$from/transcripts results=$from/results
	fix="the repository's book/runs/ is incomplete: 'git status book/runs' (a checkout lost it), or 'make check' then 'make promote'"
	# The figures drawn from runs join the ones drawn below.
	for f in "$from"/figures/*.svg; do
		[ -s "$f" ] && cp "$f" "$out/figures/"
	done ;;
run)
	transcripts=$out/transcripts results=$BUILD/results
	fix="'make check' makes it (or 'make transcripts' and the check that runs it)" ;;
*) die "KS_BOOK_FROM is 'kept' (book/runs/) or 'run' (this build folder), not '$source'" ;;
esac
py book.kept list | while read -r kept; do
	case $source:$kept in
	*:screens/*) continue ;;	# make serve's pictures: the README's, not the book's
	run:transcripts/*|run:figures/*) f=$out/$kept ;;
	run:results/*) f=$BUILD/$kept ;;
	*) f=$from/$kept ;;
	esac
	[ -s "$f" ] || die "the book needs $f: $fix"
done || exit 1
"$TOP/book/reference.sh"
# The labs' chapters, in the order of the lab folders (labs/N/lab.toml):
# a new lab's chapter joins the book with no list to edit.
for n in $(ls "$TOP/labs" | grep -x '[0-9]*' | sort -n); do
	[ -f "$TOP/labs/$n/lab.toml" ] && [ -f "$TOP/book/chapters/lab$n.adoc" ] || continue
	printf 'include::%s[leveloffset=+1]\n\n' "$TOP/book/chapters/lab$n.adoc"
done > "$out/labs.adoc"
py book.plots "$results" "$out/figures" || die "the plots of labs 4 and 5 failed"
py book.figure26 "$out/figures" || die "the figure of 2.6's stacks failed"
py book.modelfigs "$out/figures" || die "the model chapter's figures failed"

attrs="-a transcripts=$transcripts -a results=$results -a generated=$out -a patches=$TOP/patches"
# The transcripts' [source,session] blocks: prompts and commands set apart.
attrs="$attrs -r $TOP/book/session_lexer.rb"
say "rendering HTML"
# shellcheck disable=SC2086
asciidoctor --failure-level WARN $attrs -D "$out" "$TOP/book/index.adoc" ||
	die "asciidoctor failed (warnings count as failures)"
command -v asciidoctor-pdf >/dev/null || die "no asciidoctor-pdf: run 'sh vm/host/setup.sh'"
say "rendering PDF"
# shellcheck disable=SC2086
asciidoctor-pdf --failure-level WARN $attrs -a imagesdir="$out" -D "$out" "$TOP/book/index.adoc" ||
	die "asciidoctor-pdf failed (warnings count as failures)"
echo "$out/index.html"
