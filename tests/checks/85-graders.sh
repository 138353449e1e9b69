# Every lab's grader, as `make grade N=k` runs it, against a fresh guest of
# the lab's stage; then the learner's answers file on lab 0: the answers
# the grader found itself must pass, a wrong one must fail by name.
. "$TOP/vm/lib.sh"
. "$TOP/tests/lib.sh"

for d in "$TOP"/labs/[0-9]*/; do
	n=$(basename "$d")
	[ -f "$d/grade.py" ] || [ -x "$d/grade.sh" ] || continue
	start=$(date +%s)
	out=$("$TOP/labs/grade.sh" "$n" 2>&1) && rc=0 || rc=$?
	echo "$out" >&2
	echo "$out" | grep -e '^ok - ' -e '^not ok - ' | sed "s/^\(not ok\|ok\) - /\1 - lab $n: /"
	last=$(echo "$out" | tail -n 1)
	case $last in
	"lab $n: "*" 0 failed"*) ok "make grade N=$n passes, exit $rc, in $(($(date +%s) - start)) s" ;;
	*) not_ok "make grade N=$n passes (exit $rc: $last)" ;;
	esac
done

# Answers: what lab 0's grader found in a run of its own, as a learner
# would write them down.
out=$("$TOP/labs/grade.sh" 0 2>&1 || true)
log=$(echo "$out" | tail -n 1 | sed -n 's/.*(log: \(.*\))$/\1/p')
answers=$BUILD/check/lab0.answers
grep '^answer ' "$log" | awk '{ print $2 " = " $3 }' > "$answers"
cat "$answers" >&2
if [ -s "$answers" ] && out=$("$TOP/labs/grade.sh" 0 "$answers" 2>&1); then
	ok "lab 0 accepts correct answers ($(wc -l < "$answers") of them)"
else
	echo "$out" >&2
	not_ok "lab 0 accepts correct answers"
fi
sed 's/^thread_size = .*/thread_size = 4096/' "$answers" > "$answers.wrong"
out=$("$TOP/labs/grade.sh" 0 "$answers.wrong" 2>&1) && rc=0 || rc=$?
echo "$out" >&2
if [ $rc -ne 0 ] && echo "$out" | grep -q '^not ok - answer thread_size = 4096, but this run found 8192'; then
	ok "lab 0 rejects a wrong answer by name (thread_size = 4096)"
else
	not_ok "lab 0 rejects a wrong answer by name (exit $rc)"
fi
