# The way to the gdb prompt is short: a warm `make lab N=3` starts at most
# 4 of the project's own programs before gdb (make, then each script of
# the checkout with its first argument: tests/programs.sh counts them),
# and the lab still stops where it begins. Every kernel is built when the
# checks run, so the build ahead finds nothing to do. Then the counter
# proves it can see more: the same log with one more script planted.
. "$TOP/vm/host/lib.sh"
. "$TOP/tests/lib.sh"

MOST=4
log=$BUILD/check/way-to-prompt.strace
out=$(echo quit | strace -f -s 300 -e trace=execve -o "$log" make -s -C "$TOP" lab N=3 2>&1) && rc=0 || rc=$?
programs=$("$TOP/tests/programs.sh" "$log")
count=$(echo "$programs" | grep -c .)
echo "make lab N=3 (exit $rc) started, before gdb:" >&2
echo "$programs" >&2
if [ "$rc" = 0 ] && [ "$count" -le "$MOST" ] && echo "$out" | grep -q '^==== Lab 3'; then
	ok "a warm make lab N=3 starts $count of the project's programs before gdb (at most $MOST): $(echo "$programs" | tr '\n' ',' | sed 's/,$//; s/,/, /g')"
else
	not_ok "a warm make lab N=3 starts at most $MOST of the project's programs before gdb, and stops at the lab (exit $rc, $count: $(echo "$programs" | tr '\n' ' '))"
fi

planted=$BUILD/check/way-to-prompt-planted.strace
{
	echo "99999 execve(\"$TOP/vm/host/kernel.sh\", [\"$TOP/vm/host/kernel.sh\", \"3\"], 0x0 /* 1 var */) = 0"
	cat "$log"
} > "$planted"
more=$("$TOP/tests/programs.sh" "$planted" | grep -c .)
expect "the count sees a planted vm/host/kernel.sh 3 ($count, then $more)" [ "$more" -eq $((count + 1)) ]
