#!/bin/sh
# book/build.sh: render the workbook (make book) to build/book/index.html.
# Fails if a transcript or table it includes is missing or if asciidoctor
# warns (an include that does not resolve is a warning).
. "$(dirname "$0")/../vm/lib.sh"

out=$BUILD/book
"$TOP/book/reference.sh"
for f in transcripts/lab0.txt transcripts/lab1.txt transcripts/lab2.txt transcripts/lab3.txt \
	 transcripts/lab4.txt transcripts/lab6.txt reference.adoc; do
	[ -s "$out/$f" ] || die "the book needs $out/$f: run 'make transcripts'"
done
for n in 4 5; do
	f=$(ls "$BUILD"/results/lab$n-*.adoc 2>/dev/null | head -n 1)
	[ -s "$f" ] || die "the book needs lab $n's table in $BUILD/results: run labs/$n/experiment.sh (make check does)"
done
asciidoctor --failure-level WARN -a transcripts="$out/transcripts" -a results="$BUILD/results" \
	-a generated="$out" -a patches="$TOP/patches" -D "$out" "$TOP/book/index.adoc" || die "asciidoctor failed (warnings count as failures)"
echo "$out/index.html"
