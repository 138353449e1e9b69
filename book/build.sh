#!/bin/sh
# book/build.sh: render the workbook (make book) to build/book/index.html
# and build/book/index.pdf. Fails if a transcript, table or figure it
# includes is missing, if a kernel symbol it marks does not exist in its
# stage (book/symcheck.sh), or if asciidoctor warns (an include that does
# not resolve is a warning). Transcripts and lab 2's figure come from
# 'make transcripts'; the tables from labs 4 and 5's experiments.
. "$(dirname "$0")/../vm/build/lib.sh"

out=$BUILD/book
# Each book/transcripts/NAME.gdb makes transcripts/NAME.txt (lab 6's
# crash session comes from labs/6/crash.cmds), and lab 2's run its figure.
for f in $(cd "$TOP/book" && ls transcripts/*.gdb | sed 's/\.gdb$/.txt/') \
	 transcripts/lab6.txt figures/irq-stacks.svg figures/guard-page.svg; do
	[ -s "$out/$f" ] || die "the book needs $out/$f: run 'make transcripts'"
done
for f in lab4-overflow.adoc lab4-overflow.tsv lab5-memory.adoc lab5-memory.tsv lab7-lkdtm.adoc; do
	n=${f#lab}
	[ -s "$BUILD/results/$f" ] || die "the book needs $BUILD/results/$f: run labs/${n%%-*}/experiment.py (make check does)"
done
for f in exercise2-skeleton exercise2-solution exercise3-skeleton exercise3-solution exercise4-skeleton exercise4-solution; do
	[ -s "$BUILD/results/$f.txt" ] || die "the book needs $BUILD/results/$f.txt: run tests/checks/88-exercises.py (make check does)"
done
for n in 0 1 5 6 7; do
	[ -s "$BUILD/results/task$n-skeleton.txt" ] || die "the book needs $BUILD/results/task$n-skeleton.txt: run tests/checks/84-tasks.py (make check does)"
done
[ -s "$BUILD/results/postmortem-never-stored.txt" ] || die "the book needs $BUILD/results/postmortem-never-stored.txt: run tests/checks/89-postmortem.py (make check does)"
"$TOP/book/reference.sh"
python3 "$TOP/book/plots.py" "$BUILD/results" "$out/figures" || die "the plots of labs 4 and 5 failed"
python3 "$TOP/book/figure26.py" "$out/figures" || die "the figure of 2.6's stacks failed"
python3 "$TOP/book/modelfigs.py" "$out/figures" || die "the model chapter's figures failed"
"$TOP/book/symcheck.sh" || die "the workbook names symbols its stage's kernel does not have (above)"

attrs="-a transcripts=$out/transcripts -a results=$BUILD/results -a generated=$out -a patches=$TOP/patches"
# The transcripts' [source,session] blocks: prompts and commands set apart.
attrs="$attrs -r $TOP/book/session_lexer.rb"
say "rendering HTML"
# shellcheck disable=SC2086
asciidoctor --failure-level WARN $attrs -D "$out" "$TOP/book/index.adoc" ||
	die "asciidoctor failed (warnings count as failures)"
command -v asciidoctor-pdf >/dev/null || die "no asciidoctor-pdf: run 'make deps'"
say "rendering PDF"
# shellcheck disable=SC2086
asciidoctor-pdf --failure-level WARN $attrs -a imagesdir="$out" -D "$out" "$TOP/book/index.adoc" ||
	die "asciidoctor-pdf failed (warnings count as failures)"
echo "$out/index.html"
