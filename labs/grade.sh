#!/bin/sh
# labs/grade.sh N [ANSWERS]: grade lab N (make grade N=N [ANSWERS=file]).
#
# Boots a fresh guest of the lab's stage, runs the lab's grader
# (labs/N/grade.py) in gdb batch mode, and prints its "ok - " / "not ok - "
# lines. With ANSWERS, also checks the learner's answers file, lines of
# "key = value", against what this run found (the grader's "answer" lines).
# Exits 1 if anything failed.
. "$(dirname "$0")/../vm/lib.sh"
. "$TOP/vm/run.sh"

n=${1:?usage: grade.sh N [ANSWERS]}
answers=${2:-}
"$TOP/labs/valid.sh" "$n"
# A lab that is not a gdb session (lab 6: crash) has its own grader.
[ -x "$TOP/labs/$n/grade.sh" ] && exec "$TOP/labs/$n/grade.sh" "$answers"
[ -f "$TOP/labs/$n/grade.py" ] || die "lab $n has no grader (labs/$n/grade.py)"
[ -z "$answers" ] || [ -r "$answers" ] || die "cannot read the answers file '$answers'"
stage=$(cat "$TOP/labs/$n/stage")
guest=
[ -f "$TOP/labs/$n/guest.sh" ] && guest=/labs/$n/guest.sh

trap 'vm_stop' EXIT
trap 'exit 130' INT TERM HUP
vm_start "$stage" halted "$guest"
limit=${KSTACK_GRADE_TIMEOUT:-120}
rc=0
out=$(timeout -k 5 "$limit" "$TOP/vm/gdb.sh" "$stage" "$GDB_PORT" -batch \
	-ex "python import sys; sys.path.insert(0, \"$TOP/labs\")" \
	-x "$TOP/labs/guard.py" -x "$TOP/labs/$n/grade.py" </dev/null 2>&1) || rc=$?
echo "$out" > "$RUN/grade.log"
if [ $rc = 124 ] || [ $rc = 137 ]; then
	vm_explain "lab $n's grader did not finish within $limit s (hung guest?)"
elif ! kill -0 "$QEMU_PID" 2>/dev/null; then
	vm_explain "the guest ended during grading"
fi

results=$(echo "$out" | grep -e '^ok - ' -e '^not ok - ' || true)
if [ -z "$results" ]; then
	echo "$out" | tail -n 20 >&2
	results="not ok - lab $n's grader ran to its end (no results; log above)"
elif echo "$out" | grep -q -e '^Traceback' -e '^Python Exception' -e 'Error occurred in Python'; then
	echo "$out" | grep -A5 -e '^Traceback' -e 'Python Exception' -e 'Error occurred in Python' >&2
	results="$results
not ok - lab $n's grader ran to its end (it failed: log above)"
fi

# same_answer GIVEN WANTED TOLERANCE: equal text, or numbers (decimal or
# 0x hex) at most TOLERANCE percent apart.
same_answer() {
	[ "$1" = "$2" ] && return 0
	is_number "$1" && is_number "$2" || return 1
	d=$(($1 - $2)); [ $d -ge 0 ] || d=$((-d))
	[ $((d * 100)) -le $(($2 * $3)) ]
}
is_number() { case $1 in 0x*) case ${1#0x} in *[!0-9a-fA-F]*|'') return 1 ;; esac ;; *[!0-9]*|'') return 1 ;; esac; }

# The learner's answers: each key must be one this run answered; numbers
# must match, within the grader's tolerance (percent) where it gives one.
if [ -n "$answers" ]; then
	found=$(echo "$out" | grep '^answer ' || true)
	while IFS= read -r line; do
		case $line in ''|'#'*) continue ;; esac
		key=$(echo "${line%%=*}" | tr -d ' \t')
		given=$(echo "${line#*=}" | tr -d ' \t')
		set -- $(echo "$found" | awk -v k="$key" '$2 == k { print $3, $4 }')
		if [ $# -eq 0 ]; then
			results="$results
not ok - answer $key: lab $n asks no such question (it asks: $(echo "$found" | awk '{print $2}' | tr '\n' ' '))"
		elif same_answer "$given" "$1" "${2:-0}"; then
			results="$results
ok - answer $key = $given (this run: $1)"
		else
			results="$results
not ok - answer $key = $given, but this run found $1$([ "${2:-0}" = 0 ] || echo " (tolerance $2%)")"
		fi
	done < "$answers"
fi

echo "$results"
p=$(echo "$results" | grep -c '^ok - ' || true)
f=$(echo "$results" | grep -c '^not ok - ' || true)
echo "lab $n: $p passed, $f failed (log: $RUN/grade.log)"
[ "$f" -eq 0 ]
