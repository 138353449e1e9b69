# Every lab's grader, as `make grade N=k ANSWERS=file` runs it (vm/session/ks
# grade), against a fresh guest of the lab's stage, with an answers file
# that answers each of the lab's "why" questions twice: rightly, which
# must pass, and wrongly, which must fail by name (and be the run's only
# failures). Then the learner's answers file on lab 0: the answers the
# grader found itself must pass, a wrong one must fail by name.
. "$TOP/vm/host/lib.sh"
. "$TOP/tests/lib.sh"

# why_answers N FILE: write lab N's "why" questions (labs/N/lab.toml) to
# FILE, each answered twice: the right choice (or the question's first
# right sample, labs/N/lab.toml), then the next choice (or its first
# wrong sample). Prints them as "key<TAB>right<TAB>wrong" lines.
why_answers() {
	python3 - "$TOP/vm" "$1" "$2" <<'EOF'
import sys

from vm.session import facts
n, path = int(sys.argv[2]), sys.argv[3]
with open(path, 'w') as f:
    for key, q in facts.lab(n)['questions'].items():
        if 'answer' in q:
            right = q['answer']
            wrong = 'abcd'[('abcd'.index(right) + 1) % 4]
        elif 'right' in q:
            right, wrong = q['right'][0], q['wrong'][0]
        else:
            continue
        f.write('%s = %s\n%s = %s\n' % (key, right, key, wrong))
        print('%s\t%s\t%s' % (key, right, wrong))
EOF
}

log0=
for d in "$TOP"/labs/[0-9]*/; do
	n=$(basename "$d")
	[ -f "$d/lab.toml" ] || continue
	start=$(date +%s)
	answers=$BUILD/check/lab$n.why
	whys=$(why_answers "$n" "$answers")
	cat "$answers" >&2
	wrong=$(echo "$whys" | grep -c . || true)
	# The file answers only the "why"s: each observation it leaves out is
	# a failure too, by name ("not answered").
	unanswered=$(python3 -c 'import sys; from vm.session import facts
from vm.session.answers import why
print(" ".join(k for k, q in facts.lab(int(sys.argv[1]))["questions"].items()
               if not k.startswith("predict_") and not why(q)))' "$n")
	wrong=$((wrong + $(echo $unanswered | wc -w)))
	out=$(python3 -m vm.session.ks grade "$n" "$answers" 2>&1) && rc=0 || rc=$?
	echo "$out" >&2
	# The grader's own checks; the answers are judged below.
	echo "$out" | grep -e '^ok - ' -e '^not ok - ' | grep -v -e '^ok - answer ' -e '^not ok - answer ' |
		sed "s/^\(not ok\|ok\) - /\1 - lab $n: /"
	last=$(echo "$out" | tail -n 1)
	# A skipped check did not pass either: "P passed, W failed" alone, the
	# W failures being the wrong answers.
	case $last in
	# Lab 3's workload can end its first guest (lab.toml guest_may_die):
	# graded on a second, it says so.
	# At least one check passed: a grader that registers none fails.
	"lab $n: "[1-9]*" passed, $wrong failed ("*"; answers: "*" given, "*"; log: "*|"lab $n: "[1-9]*" passed, $wrong failed, on a second guest ("*"; answers: "*"; log: "*) ok "make grade N=$n passes; its failures are the wrong \"why\" answers it was given and the observations it left unanswered, $wrong (exit $rc), in $(($(date +%s) - start)) s" ;;
	*) not_ok "make grade N=$n passes; its failures are the wrong \"why\" answers it was given and the observations it left unanswered, $wrong (exit $rc: $last)" ;;
	esac
	for key in $unanswered; do
		what="lab $n: $key, left unanswered, is not ok by name"
		if echo "$out" | grep -qF "not ok - answer $key: not answered"; then
			ok "$what"
		else
			not_ok "$what"
		fi
	done
	echo "$whys" | while IFS='	' read -r key right bad; do
		[ -n "$key" ] || continue
		what="lab $n: $key: the right answer ($right) passes, a wrong one ($bad) fails by name"
		if echo "$out" | grep -qxF "ok - answer $key = $right" &&
		   echo "$out" | grep -qF "not ok - answer $key = $bad: not the reason"; then
			ok "$what"
		else
			not_ok "$what"
		fi
	done
	[ "$n" != 0 ] || log0=$(echo "$last" | sed -n 's/.*; log: \(.*\))$/\1/p')
done

# Answers: what lab 0's grader found in its run above, as a learner would
# write them down. The grader's answers are its "answer" records, kept
# beside its log (vm/session/results.py); those of its questions (the others are
# what its predictions are shown beside).
answers=$BUILD/check/lab0.answers
python3 -c 'import sys; from vm.session import facts, results
asked = facts.lab(0)["questions"]
for r in results.read(sys.argv[2], "answer"):
    if r["key"] in asked:
        print("%s = %s" % (r["key"], r["value"]))' "$TOP/vm" "${log0%.log}.jsonl" > "$answers"
# and the right "why"s (the first of each pair check 85 wrote above).
awk -F' = ' '!seen[$1]++' "$BUILD/check/lab0.why" >> "$answers"
cat "$answers" >&2
n=$(grep -c . "$answers")
out=$(python3 -m vm.session.ks grade 0 "$answers" 2>&1) && rc=0 || rc=$?
echo "$out" >&2
if [ "$n" -gt 0 ] && [ $rc = 0 ] && [ "$(echo "$out" | grep -c '^ok - answer ')" = "$n" ]; then
	ok "lab 0 accepts correct answers ($n of them)"
else
	not_ok "lab 0 accepts correct answers ($n of them; exit $rc)"
fi
# A learner's slip: half the hardirq stack's bytes the grader found.
right=$(sed -n 's/^handler_bytes = //p' "$answers")
right=${right:-0}
sed "s/^handler_bytes = .*/handler_bytes = $((right / 2))/" "$answers" > "$answers.wrong"
out=$(python3 -m vm.session.ks grade 0 "$answers.wrong" 2>&1) && rc=0 || rc=$?
echo "$out" >&2
# It is told how far off, in kind, and never the value this run found.
said=$(echo "$out" | grep "^not ok - answer handler_bytes = $((right / 2)): ")
if [ $rc -ne 0 ] && echo "$said" | grep -q "not what this run measured (about half of what it is)" &&
   ! echo "$said" | grep -qw "$right"; then
	ok "lab 0 rejects a wrong answer by name (handler_bytes = $((right / 2))), says it is about half, and does not give the value"
else
	not_ok "lab 0 rejects a wrong answer by name (handler_bytes = $((right / 2))), says it is about half, and does not give the value (exit $rc: $said)"
fi

# Predictions: lab 0's, one as the run saw it and one not, are shown
# beside what the run observed, the second marked, and neither is scored
# (the run passes with both).
predicted=$answers.predict
{ cat "$answers"; echo 'predict_hardirq_stacks = 2'; echo 'predict_stack_bottom = thread_info'; } > "$predicted"
out=$(python3 -m vm.session.ks grade 0 "$predicted" 2>&1) && rc=0 || rc=$?
echo "$out" >&2
if [ $rc = 0 ] && echo "$out" | grep -q '^  predict_hardirq_stacks  *2  *2  *exactly$' &&
   echo "$out" | grep -q '^  predict_stack_bottom  *thread_info  *end_magic  *the same choice  *<- differs$'; then
	ok "lab 0 shows predictions beside what its run saw, marks the one that differs, and does not score them"
else
	not_ok "lab 0 shows predictions beside what its run saw, marks the one that differs, and does not score them (exit $rc)"
fi
