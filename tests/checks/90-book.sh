# The workbook, built from this run: transcripts made now (book/
# transcripts.py), the tables and plots of labs 4 and 5 from checks 86 and
# 87, lab 2's figure drawn from its session; the build fails on a missing
# piece or an asciidoctor warning, every symbol a chapter marks must exist
# in its stage (book/symcheck.sh), and a transcript may not show the build
# folder's absolute path. This run's material must be what book/runs/
# keeps, the addresses and other run-to-run values aside (book/kept.py),
# and `make book` must render from book/runs/ alone, with no kernel. Then
# how it renders, as a reader sees it: code spans verbatim in the HTML
# (book/codespans.py), and transcripts, figures, tables, fonts, the HTML
# on a phone in Chromium and the PDF's figure pages (book/rendercheck.py,
# which leaves its screenshots in build/book/screens for a person to see).
. "$TOP/vm/host/lib.sh"
. "$TOP/tests/lib.sh"

book=$BUILD/book
rm -rf "$book/transcripts" "$book/figures" "$book/screens" "$book/index.html" "$book/index.pdf"

if python3 -m book.transcripts >&2; then
	n=0
	for f in "$book"/transcripts/lab*.txt; do
		lab=$(basename "$f" .txt)
		k=${lab#lab}
		# Each one is a real session: the lab's banner (or crash's sys,
		# or a replay's banner after the death it starts at);
		# lab3-step.txt is a second walk of lab 3.
		if grep -q "^==== Lab ${k%%-*}:" "$f" || grep -q '^ *PANIC: ' "$f" ||
			{ grep -q '^==== the kernel died' "$f" && grep -q '^==== A replay: ' "$f"; }; then
			n=$((n + 1))
		else
			not_ok "transcript $lab.txt shows its lab's session (see $f)"
		fi
	done
	ok "book/transcripts.py wrote $n transcripts of real sessions"
else
	not_ok "book/transcripts.py ran to its end"
fi

# No transcript shows the absolute path of the folder the book was built
# in: book/transcripts.py shows a source path relative to its kernel tree
# (kernel/irq/handle.c:206) and anything else in the build folder as
# build/..., since a reader's folder is elsewhere. abs_paths FILE... prints
# each line that still holds it, a wrapped line joined to its rest first
# (a long path may be broken across two).
abs_paths() {
	python3 - "$TOP/book" "$BUILD" "$@" <<-'EOF'
	import sys
	
	from book import transcripts as t
	for name in sys.argv[3:]:
	    text = open(name).read().replace(t.WRAP_MARK + '\n  ', '')
	    for line in text.splitlines():
	        if any(b in line for b in t.build_paths(sys.argv[2])):
	            print('%s: %s' % (name, line))
	EOF
}
leaks=$(abs_paths "$book"/transcripts/*.txt 2>&1)
echo "$leaks" >&2
expect "no transcript shows the build folder's absolute path ($BUILD)" [ -z "$leaks" ]

# Lab 2's figure is drawn from the same stop as the end of its transcript:
# the CPU whose hardirq stack ks-bt's first frame is on there, and that
# CPU's hardirq stack as ks-irqstacks lists it.
t=$book/transcripts/lab2.txt
cpu=$(sed -n '/^(gdb) ks-bt$/,$p' "$t" 2>/dev/null | sed -n 's/^#0 .* hardirq cpu\([0-9]*\)$/\1/p' | head -n 1)
base=$(awk -v c="$cpu" '$1 == c && $2 == "hardirq" { split($3, a, "-"); print a[1]; exit }' "$t" 2>/dev/null)
if [ -n "$base" ] && grep -q ">$base<" "$book/figures/irq-stacks.svg" 2>/dev/null &&
   grep -q "on CPU $cpu:" "$book/figures/irq-stacks.svg"; then
	ok "lab 2's figure draws CPU $cpu's hardirq stack ($base), where its transcript ends"
else
	not_ok "lab 2's figure draws the hardirq stack its transcript ends on (cpu '$cpu', base '$base')"
fi

# Lab 7's figure is drawn from the stop its transcript ends at: the CR2
# it marks in the guard page is the fault_address the transcript prints.
fault=$(sed -n '/^(gdb) p\/x fault_address$/{n;s/^\$[0-9]* = //p;}' "$book/transcripts/lab7.txt" 2>/dev/null | head -n 1)
if [ -n "$fault" ] && grep -q ">CR2 $fault<" "$book/figures/guard-page.svg" 2>/dev/null; then
	ok "lab 7's figure marks CR2 $fault in the guard page, the fault address its transcript ends with"
else
	not_ok "lab 7's figure marks the fault address its transcript ends with (fault_address '$fault')"
fi

if KS_BOOK_FROM=run "$TOP/book/build.sh" > "$BUILD/check/book-build.log" 2>&1 &&
   [ -s "$book/index.html" ] && [ -s "$book/index.pdf" ]; then
	ok "the book renders this run's material to HTML and PDF without an asciidoctor warning"
else
	not_ok "the book renders to HTML and PDF (see $BUILD/check/book-build.log)"
fi
cat "$BUILD/check/book-build.log" >&2
"$TOP/book/symcheck.sh" > "$BUILD/check/book-symbols.log" 2>&1 || true
cat "$BUILD/check/book-symbols.log" >&2
total=$(sed -n 's/^all \([0-9]*\) marked symbols exist$/\1/p' "$BUILD/check/book-symbols.log")
if [ "${total:-0}" -gt 10 ]; then
	ok "all $total kernel symbols the chapters mark exist in their stages' vmlinux"
else
	not_ok "the chapters' marked symbols exist in their stages (log: $BUILD/check/book-symbols.log)"
fi

# This run's material against the copies book/runs/ keeps: one line per
# piece; a difference beyond the run-to-run values is shown as a diff.
rc=0
python3 -m book.kept compare > "$BUILD/check/book-kept.log" 2>&1 || rc=$?
grep -E '^(not )?ok - |^# ' "$BUILD/check/book-kept.log" || true
grep '^    ' "$BUILD/check/book-kept.log" >&2 || true
# A crash of the comparison names no piece: a failure of its own.
if [ $rc != 0 ] && ! grep -q '^not ok - ' "$BUILD/check/book-kept.log"; then
	tail -n 5 "$BUILD/check/book-kept.log" >&2
	not_ok "book/kept.py compare ran to its end (exit $rc: see the log)"
fi

html=$book/index.html
# Nothing of the source left raw; the generated parts in place.
raw=$(grep -c -e 'include::' -e '\[source' -e '{transcripts}' -e '{results}' -e '\[\.sym\]' "$html" 2>/dev/null || true)
expect "the HTML shows no raw AsciiDoc (includes, attributes, roles): $raw found" [ "${raw:-1}" = 0 ]
threads=$(python3 -m vm.session.results "$BUILD/results/lab5-memory.tsv" threads 2>/dev/null | head -n 1)
expect "the HTML has a table of contents and this run's lab 5 count ($threads threads)" \
	sh -c 'grep -q "id=\"toc\"" "$1" && grep -q ">$2<" "$1"' x "$html" "${threads:-none}"
for f in hw-entry irq-path thread-union stage-budget irq-ctx-2.6 irq-stacks guard-page lab4-depth lab5-threads; do
	if grep -q "figures/$f.svg" "$html" && [ -s "$book/figures/$f.svg" ]; then
		ok "the HTML shows figure $f.svg, drawn in this run"
	else
		not_ok "the HTML shows figure $f.svg, drawn in this run"
	fi
done

# The checks can fail: a chapter about stage 1 that names stage 2's
# hardirq_stack_ptr, and a build without transcripts.
tmp=$(mktemp -d)
trap 'rm -rf "$tmp"' EXIT
printf '= Lab 1\n\n[.sym]`hardirq_stack_ptr` and [.sym]`common_interrupt()`\n' > "$tmp/lab1.adoc"
if KS_CHAPTERS=$tmp "$TOP/book/symcheck.sh" > "$tmp/out" 2>&1; then
	not_ok "the symbol check rejects stage 2's hardirq_stack_ptr in a stage 1 chapter (it passed)"
else
	expect "the symbol check rejects stage 2's hardirq_stack_ptr in a stage 1 chapter, and only it" \
		sh -c 'grep -q "lab1.adoc: hardirq_stack_ptr (not in stage 1" "$1" && ! grep -q "common_interrupt (not" "$1"' x "$tmp/out"
fi
mkdir -p "$tmp/build" "$tmp/no-runs"
if KS_BOOK_FROM=run BUILD=$tmp/build "$TOP/book/build.sh" > "$tmp/out" 2>&1; then
	not_ok "the book build from a run fails without its transcripts (it passed)"
else
	expect "the book build from a run fails without its transcripts, naming the fix" grep -q "'make check' makes it" "$tmp/out"
fi
if KS_KEPT=$tmp/no-runs BUILD=$tmp/build "$TOP/book/build.sh" > "$tmp/out" 2>&1; then
	not_ok "make book fails without book/runs/ (it passed)"
else
	expect "make book fails without book/runs/, naming the fix" grep -q "make promote" "$tmp/out"
fi

# make book, as a newcomer runs it right after set-up: from book/runs/
# alone, in a build folder with no kernel, no transcript and no result,
# starting no QEMU and no kernel build (every program it starts is
# traced).
rm -rf "$tmp/build"
t0=$(date +%s)
if strace -f -qq -e trace=execve -o "$tmp/execs" env BUILD="$tmp/build" \
	"$TOP/book/build.sh" > "$tmp/out" 2>&1 && [ -s "$tmp/build/book/index.html" ] &&
   [ -s "$tmp/build/book/index.pdf" ]; then
	secs=$(( $(date +%s) - t0 ))
	started=$(grep -o 'execve("[^"]*' "$tmp/execs" | sed 's/^execve("//' | sort -u)
	echo "make book started: $(echo $started)" >&2
	heavy=$(echo "$started" | grep -E 'qemu-system|/(kernel|stage|modules|tree|initramfs)\.sh$|/(cc1|ld)$' || true)
	expect "make book renders book/runs/ with no kernel (${secs}s, traced: no QEMU, no kernel build, no compiler)" [ -z "$heavy" ]
	# Every transcript, table and figure of this run's book is in it.
	for f in $(grep -o 'figures/[a-z0-9-]*\.svg' "$html" | sort -u); do
		grep -q "$f" "$tmp/build/book/index.html" && [ -s "$tmp/build/book/$f" ] || echo "$f" >> "$tmp/lacks"
	done
	n=$(grep -c '<pre class="rouge highlight"' "$html" || true)
	m=$(grep -c '<pre class="rouge highlight"' "$tmp/build/book/index.html" || true)
	t=$(grep -c '<table class="tableblock' "$html" || true)
	u=$(grep -c '<table class="tableblock' "$tmp/build/book/index.html" || true)
	expect "make book's HTML shows what this run's does: $m of $n listings, $u of $t tables, every figure" \
		sh -c '[ "$1" = "$2" ] && [ "$3" = "$4" ] && [ ! -s "$5" ]' x "$m" "$n" "$u" "$t" "$tmp/lacks"
else
	cat "$tmp/out" >&2
	not_ok "make book renders from book/runs/ alone (see the log)"
fi

# The comparison can fail, and only where it should: a kept transcript
# with one function renamed fails; one with every address changed passes.
cp -r "$TOP/book/runs" "$tmp/kept"
python3 - "$tmp/kept/transcripts/lab2.txt" <<'EOF2'
import re, sys
path = sys.argv[1]
text = open(path).read()
open(path + '.renamed', 'w').write(text.replace('__handle_irq', '__handle_irk', 1))
open(path + '.moved', 'w').write(re.sub(r'0xc[0-9a-f]{7}', lambda m: '0xc%07x' % (int(m.group(0), 16) % 0x1000000 + 0x10), text))
EOF2
mv "$tmp/kept/transcripts/lab2.txt.renamed" "$tmp/kept/transcripts/lab2.txt"
KS_KEPT=$tmp/kept python3 -m book.kept compare > "$tmp/renamed" 2>&1 || true
mv "$tmp/kept/transcripts/lab2.txt.moved" "$tmp/kept/transcripts/lab2.txt"
KS_KEPT=$tmp/kept python3 -m book.kept compare > "$tmp/moved" 2>&1 || true
expect "the comparison fails on a kept transcript with a function renamed (__handle_irk), with a diff and 'make promote'" \
	sh -c 'grep -q "^not ok - book/runs/transcripts/lab2.txt:.*make promote" "$1" && grep -q "^    [-+].*__handle_irk" "$1"' x "$tmp/renamed"
expect "the comparison passes a kept transcript whose addresses all differ" \
	grep -q '^ok - book/runs/transcripts/lab2.txt' "$tmp/moved"
# A source line number is a kind (another 6.1 point release moves the
# lines), the function named beside it is not: lab 4's replay with every
# file.c:N moved 3 lines down normalises as the kept one does; with the
# function at kernel/sched/core.c:N renamed too, it does not.
lines=$(python3 - "$TOP/book/runs/transcripts/lab4-replay.txt" <<'EOF2'
import re, sys

from book import kept
text = open(sys.argv[1]).read()
shifted = re.sub(r'(\.[ch]):(\d+)', lambda m: '%s:%d' % (m.group(1), int(m.group(2)) + 3), text)
renamed = shifted.replace('schedule_debug (inlined) (kernel/sched/core.c',
                          'schedule_debuf (inlined) (kernel/sched/core.c')
print(shifted != text and renamed != shifted,
      kept.normalise(shifted) == kept.normalise(text),
      kept.normalise(renamed) != kept.normalise(text))
EOF2
)
expect "the comparison holds a kept transcript with its source line numbers moved (lab4-replay.txt, kernel/sched/core.c:N+3), and fails it with a function beside one renamed: $lines" \
	[ "$lines" = "True True True" ]
# The path check can fail: a gdb line with the absolute path of a stage's
# source is caught, also when the line is broken inside the path as a
# transcript may break a long one; the same line as book/transcripts.py
# writes it shows kernel/irq/handle.c:206 and passes.
python3 - "$TOP/book" "$BUILD" "$tmp" <<'EOF'
import os, sys

from book import transcripts as t
path = os.path.join(sys.argv[2], 'stage-2', 'src', 'kernel', 'irq', 'handle.c')
line = '#3  0xc10a1b2c in handle_irq_event (desc=0xc1a0e400) at %s:206' % path
cut = line.index(path) + len(sys.argv[2]) // 2
broken = line[:cut] + t.WRAP_MARK + '\n  ' + line[cut:]
fixed = '\n'.join(t.fitted(t.relative_paths(line, sys.argv[2])))
for name, text in (('raw.txt', line), ('broken.txt', broken), ('fixed.txt', fixed)):
    with open(os.path.join(sys.argv[3], name), 'w') as f:
        f.write(text + '\n')
EOF
if [ -n "$(abs_paths "$tmp/raw.txt")" ] && [ -n "$(abs_paths "$tmp/broken.txt")" ] &&
   [ -z "$(abs_paths "$tmp/fixed.txt")" ] && grep -q ' at kernel/irq/handle\.c:206$' "$tmp/fixed.txt"; then
	ok "the path check catches an absolute build path in a transcript, even broken inside the path, and passes kernel/irq/handle.c:206"
else
	not_ok "the path check catches an absolute build path in a transcript (raw: $(cat "$tmp/raw.txt" 2>/dev/null); fixed: $(cat "$tmp/fixed.txt" 2>/dev/null))"
fi

# Rendering damage: every inline code span of the sources is, verbatim,
# a <code> element of the HTML (book/codespans.py). The check can fail:
# lab 0's old 2.6 -> 6.1 mapping row, whose paired __ became emphasis.
spans=$(python3 -m book.codespans "$html" "$TOP/book/index.adoc" 2>&1) && rc=0 || rc=$?
echo "$spans" >&2
if [ $rc = 0 ]; then
	ok "every code span of the book's sources is in its HTML verbatim (no arrows, no eaten emphasis)"
else
	not_ok "every code span of the book's sources is in its HTML verbatim: $(echo "$spans" | tail -n 1)"
fi
# The three damages issue 14 found: lab 0's old row (paired __ became
# emphasis), a gdb command whose -> became an arrow, and `dd`'s, whose
# code font ran on.
printf '%s\n' '= Old row' '' '|===' '| 2.6 | 6.1' \
	'| `do_IRQ()` | `common_interrupt()` -> `__common_interrupt()` -> `__handle_irq()`' '|===' '' \
	'Type `p &((struct task_struct *)0)->thread_info` in `dd`'"'"'s stack.' > "$tmp/row.adoc"
asciidoctor -o "$tmp/row.html" "$tmp/row.adoc"
if python3 -m book.codespans "$tmp/row.html" "$tmp/row.adoc" > "$tmp/out" 2>&1; then
	not_ok "the code-span check catches lab 0's old mapping row (it passed)"
else
	cat "$tmp/out" >&2
	expect "the code-span check catches lab 0's old mapping row, an arrowed -> and \`dd\`'s" \
		sh -c 'grep -q "__common_interrupt()" "$1" && grep -q "thread_info\`" "$1" && grep -q "\`dd\`" "$1"' x "$tmp/out"
fi

# The rendering as a reader sees it (book/rendercheck.py prints its own
# ok / not ok lines; its log lists the screenshots and pages to look at).
# A crash before its lines would make its checks vanish: that fails too.
# crashed RC FILE: rendercheck exited RC without naming a failed check.
crashed() { [ "$1" != 0 ] && ! grep -q '^not ok - ' "$2"; }
rc=0
python3 -m book.rendercheck "$book" "$book/screens" > "$tmp/render" || rc=$?
cat "$tmp/render"
if crashed $rc "$tmp/render"; then
	not_ok "book/rendercheck.py ran to its end (exit $rc, no failed check named: see the log)"
elif [ $rc != 0 ]; then
	echo "book/rendercheck.py: see the lines above and build/book/screens" >&2
fi
# ... and a crash is caught: rendercheck on a book that is not there.
rc=0
python3 -m book.rendercheck "$tmp/no-book" "$tmp/no-screens" > "$tmp/render-none" || rc=$?
if crashed $rc "$tmp/render-none"; then
	ok "a crash of book/rendercheck.py is a failure, not silence (exit $rc on a missing book)"
else
	not_ok "a crash of book/rendercheck.py is a failure, not silence (exit $rc, lines: $(cat "$tmp/render-none"))"
fi
# ... and it can fail: an old transcript (gdb's "+cmd" lines, crash's
# padded comm) and an old figure (860 units wide, 10-unit text: 5.8 pt).
mkdir -p "$tmp/old/transcripts" "$tmp/old/figures"
printf '%s\n' '+bt 6' '#0  __handle_irq (desc=0xc010d500)' '  comm = "dd\000\000\000",' > "$tmp/old/transcripts/lab9.txt"
printf '%s\n' '<svg viewBox="0 0 860 550"><text font-size="10">esp</text></svg>' > "$tmp/old/figures/old.svg"
python3 -c 'import sys; from book import rendercheck as r
r.check_transcripts(sys.argv[2]); r.check_figure_text(sys.argv[2])' "$TOP/book" "$tmp/old" > "$tmp/out" 2>&1
cat "$tmp/out" >&2
expect "the rendering check catches an old transcript and an old figure" \
	sh -c '[ "$(grep -c "^not ok - " "$1")" = 2 ]' x "$tmp/out"

# The answers stay folded: in every lab of the HTML, "What you should have
# seen" and "Why" are inside their folds (book/foldcheck.py), and the
# check catches a paragraph planted outside the fold of lab 7's Why.
rc=0
python3 -m book.foldcheck "$html" > "$tmp/folds-real" 2>&1 || rc=$?
cat "$tmp/folds-real"
if crashed $rc "$tmp/folds-real"; then
	not_ok "book/foldcheck.py ran to its end (exit $rc: $(tail -n 1 "$tmp/folds-real"))"
fi
python3 - "$html" "$tmp/unfolded.html" <<'EOF2'
import re, sys
text = open(sys.argv[1]).read()
lab7 = re.search(r'<h2 id="[^"]*">[\d.]* ?Lab 7:', text).end()
why = re.compile(r'<h3 id="[^"]*">(?:[\d.]+ )?Why</h3>').search(text, lab7)
open(sys.argv[2], 'w').write(text[:why.end()] + '<div class="paragraph"><p>planted: the '
                             'guard page caught it</p></div>' + text[why.end():])
EOF2
python3 -m book.foldcheck "$tmp/unfolded.html" > "$tmp/folds" 2>&1 || true
expect "the fold check catches a paragraph outside the fold of lab 7's Why" \
	grep -q '^not ok - lab 7 keeps "Why" folded (outside its fold: "planted' "$tmp/folds"
