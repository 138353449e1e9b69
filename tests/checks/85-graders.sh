# Every lab's grader, as `make grade N=k` runs it (vm/ks grade), against a
# fresh guest of the lab's stage; then the learner's answers file on lab
# 0: the answers the grader found itself must pass, a wrong one must fail
# by name.
. "$TOP/vm/lib.sh"
. "$TOP/tests/lib.sh"

log0=
for d in "$TOP"/labs/[0-9]*/; do
	n=$(basename "$d")
	[ -f "$d/lab.toml" ] || continue
	start=$(date +%s)
	out=$("$TOP/vm/ks" grade "$n" 2>&1) && rc=0 || rc=$?
	echo "$out" >&2
	echo "$out" | grep -e '^ok - ' -e '^not ok - ' | sed "s/^\(not ok\|ok\) - /\1 - lab $n: /"
	last=$(echo "$out" | tail -n 1)
	# A skipped check did not pass either: "P passed, 0 failed" alone.
	case $rc/$last in
	"0/lab $n: "*" passed, 0 failed (log: "*) ok "make grade N=$n passes, exit $rc, in $(($(date +%s) - start)) s" ;;
	*) not_ok "make grade N=$n passes (exit $rc: $last)" ;;
	esac
	[ "$n" != 0 ] || log0=$(echo "$last" | sed -n 's/.*(log: \(.*\))$/\1/p')
done

# Answers: what lab 0's grader found in its run above, as a learner would
# write them down. The grader's answers are its "answer" records, kept
# beside its log (vm/results.py).
answers=$BUILD/check/lab0.answers
python3 -c 'import sys; sys.path.insert(0, sys.argv[1]); import results
for r in results.read(sys.argv[2], "answer"):
    print("%s = %s" % (r["key"], r["value"]))' "$TOP/vm" "${log0%.log}.jsonl" > "$answers"
cat "$answers" >&2
n=$(grep -c . "$answers")
out=$("$TOP/vm/ks" grade 0 "$answers" 2>&1) && rc=0 || rc=$?
echo "$out" >&2
if [ "$n" -gt 0 ] && [ $rc = 0 ] && [ "$(echo "$out" | grep -c '^ok - answer ')" = "$n" ]; then
	ok "lab 0 accepts correct answers ($n of them)"
else
	not_ok "lab 0 accepts correct answers ($n of them; exit $rc)"
fi
# A learner's slip: half the THREAD_SIZE the grader found.
right=$(sed -n 's/^thread_size = //p' "$answers")
right=${right:-0}
sed "s/^thread_size = .*/thread_size = $((right / 2))/" "$answers" > "$answers.wrong"
out=$("$TOP/vm/ks" grade 0 "$answers.wrong" 2>&1) && rc=0 || rc=$?
echo "$out" >&2
if [ $rc -ne 0 ] && echo "$out" | grep -q "^not ok - answer thread_size = $((right / 2)), but this run found $right"; then
	ok "lab 0 rejects a wrong answer by name (thread_size = $((right / 2)))"
else
	not_ok "lab 0 rejects a wrong answer by name (thread_size = $((right / 2)); exit $rc)"
fi
