#!/bin/sh
# book/reference.sh: the gdb command reference of the workbook, from the
# commands' own help texts (their class docstrings), into
# build/book/reference.adoc. The help texts are the project's, not the
# kernel's: gdb loads the commands with no vmlinux (they say so, once,
# before the first help text, which the awk below skips).
. "$(dirname "$0")/../vm/host/lib.sh"

out=$BUILD/book
mkdir -p "$out"
# The commands and functions as they registered themselves, in that order.
commands=$("$TOP/gdb-scripts/registry.sh" COMMANDS)
functions=$("$TOP/gdb-scripts/registry.sh" FUNCTIONS)
[ -n "$commands" ] || die "gdb listed no ks- command (see gdb-scripts/)"
args=
for c in $commands; do args="$args -ex 'echo ==== $c\\n' -ex 'help $c'"; done
for f in $functions; do args="$args -ex 'echo ==== \$$f\\n' -ex 'help function $f'"; done
eval "$(host_gdb)" -q -nx -batch \
	-x "$TOP/gdb-scripts/load.py" $args </dev/null 2>/dev/null |
awk '/^==== / { if (open) print "...."; print ""; print "=== `" $2 "`"; print ""; print "...."; open = 1; next }
     open { print }
     END { if (open) print "...." }' > "$out/reference.adoc.tmp"
grep -q '^=== `ks-where`' "$out/reference.adoc.tmp" || die "no help text from gdb (see gdb-scripts/)"
mv "$out/reference.adoc.tmp" "$out/reference.adoc"
