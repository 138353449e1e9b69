#!/bin/sh
# book/symcheck.sh: every kernel symbol the workbook marks must exist in
# the vmlinux of the stage its chapter is about (book/build.sh runs it).
#
# The mark is an AsciiDoc role on monospace text: [.sym]`common_interrupt`
# (a trailing "()" is allowed). Chapter labN.adoc is about lab N's stage;
# the other chapters about stage 0, today's kernel. The names are looked
# up in the stage's System.map, which lists every symbol of its vmlinux.
# Prints one line per chapter; fails naming every symbol not found.
. "$(dirname "$0")/../vm/host/lib.sh"

missing= total=0
# KS_CHAPTERS: another folder of chapters (the check of this check).
for chapter in "${KS_CHAPTERS:-$TOP/book/chapters}"/*.adoc; do
	name=$(basename "$chapter" .adoc)
	case $name in
	lab[0-9]*) stage=$(python3 -m vm.session.ks stage "${name#lab}") ;;
	*) stage=0 ;;
	esac
	map=$(stage_obj "$stage")/System.map
	[ -f "$map" ] || die "the symbol check needs stage $stage's kernel: run 'make kernel N=$stage'"
	syms=$(grep -o '\[\.sym\]`[^`]*`' "$chapter" | sed 's/^\[\.sym\]`//; s/`$//; s/()$//' | sort -u)
	n=0
	for s in $syms; do
		n=$((n + 1))
		awk -v s="$s" '$3 == s { found = 1; exit } END { exit !found }' "$map" ||
			missing="$missing  $name.adoc: $s (not in stage $stage's vmlinux)
"
	done
	total=$((total + n))
	echo "$name.adoc: $n marked symbols, looked up in stage $stage's System.map"
done
if [ -n "$missing" ]; then
	printf 'the workbook names kernel symbols that do not exist:\n%s' "$missing" >&2
	exit 1
fi
echo "all $total marked symbols exist"
