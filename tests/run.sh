#!/bin/sh
# tests/run.sh: the test runner behind `make check`, in the manner of
# kselftest's runner: its output is KTAP (Documentation/dev-tools/ktap.rst),
# which the kernel's own parser reads (tools/testing/kunit/kunit_parser.py;
# check 95 holds this runner's output to it).
#
# Runs every tests/checks/*.sh (with sh) and *.py (with python3 -m), all in
# name order; CHECKS=regex runs those whose names match. The plan is the
# number of scripts; each script is one test, its check lines its
# subtests. A script prints one line per check, "ok - WHAT", "not ok -
# WHAT" or "skip - WHAT: WHY" (tests/lib.sh and tests/checklib.py have the
# helpers); its other output goes to build/check/NAME.log. A script that
# exits non-zero without a "not ok" line counts as one failure, so a
# crashed check can never pass silently; one that runs longer than
# KS_CHECK_TIMEOUT seconds (1800) is ended, with its QEMUs, and is not ok
# by name. Each script's result line gives its time; the slowest five
# are listed at the end, and the last line is "N passed, M failed".
. "$(dirname "$0")/../vm/host/lib.sh"

cd "$TOP"	# every check runs from the top, where the project's Python imports from
logs=$BUILD/check
# A run of some checks (CHECKS=...) keeps the other checks' logs: two
# such runs may go on at once.
[ -n "${CHECKS:-}" ] || rm -rf "$logs"
mkdir -p "$logs"
# Every grade's KTAP report is copied here, for check 95 (vm/session/grading.py);
# a whole run starts with none.
export KS_KTAP_DIR=$logs/ktap
[ -n "${CHECKS:-}" ] || rm -rf "$KS_KTAP_DIR"
limit=${KS_CHECK_TIMEOUT:-1800}
# The book's variant of the numbers the labs ask (vm/session/variant.py):
# the runs the book keeps are made here. A check that wants a learner's
# sets LEARNER itself.
export LEARNER=book
# A grade blanks its answers once judged (vm/session/grading.py forget_answers);
# checks 85 and 96 read them to answer as a learner would.
export KS_KEEP_ANSWERS=1
# The folders ks remembers for the learner's make grade table
# (build/learner-folders) are put back after the run: the checks' own
# EXERCISES are not the learner's.
folders=$BUILD/learner-folders
rm -f "$logs/learner-folders"
[ ! -f "$folders" ] || cp -p "$folders" "$logs/learner-folders"
put_folders_back() {
	if [ -f "$logs/learner-folders" ]; then cp -p "$logs/learner-folders" "$folders"; else rm -f "$folders"; fi
}
trap 'put_folders_back' EXIT
# Ctrl-C (or make's TERM) ends the check running too, whose session the
# terminal's signal does not reach, and puts the folders back (EXIT).
trap '[ -z "${_pid:-}" ] || /bin/kill -TERM -- "-$_pid" 2>/dev/null
	[ -z "${_watch:-}" ] || kill "$_watch" 2>/dev/null; exit 130' INT TERM HUP
passed=0 failed=0 skipped=0
start=$(date +%s)
times=$logs/times

scripts=
for script in "$TOP"/tests/checks/*; do
	case $script in *.sh|*.py) ;; *) continue ;; esac
	name=$(basename "$script")
	name=${name%.*}
	[ -z "${CHECKS:-}" ] || echo "$name" | grep -Eq "$CHECKS" || continue
	scripts="$scripts $script"
done
echo 'KTAP version 1'
echo "1..$(echo $scripts | wc -w)"
: > "$times"

# in_session NAME CMD...: CMD in a session of its own (so that a timeout
# ends it and every process it started, QEMUs among them), its output
# in NAME's files, ended after $limit seconds; its exit status, 124 if
# it was ended.
in_session() {
	_n=$1; shift
	setsid -w "$@" > "$logs/$_n.out" 2> "$logs/$_n.log" &
	_pid=$!
	(
		sleep "$limit" & _sleep=$!
		trap 'kill $_sleep 2>/dev/null; exit 0' TERM
		wait $_sleep
		echo "$limit" > "$logs/$_n.timeout"
		# The group: the program kill(1), whose -- the shell's own lacks.
		/bin/kill -TERM -- "-$_pid" 2>/dev/null
		sleep 10
		/bin/kill -KILL -- "-$_pid" 2>/dev/null
	) &
	_watch=$!
	_rc=0
	wait $_pid || _rc=$?
	kill $_watch 2>/dev/null
	wait $_watch 2>/dev/null || true
	[ ! -f "$logs/$_n.timeout" ] || _rc=124
	return $_rc
}

n=0
for script in $scripts; do
	n=$((n + 1))
	name=$(basename "$script")
	name=${name%.*}
	t0=$(date +%s)
	rm -f "$logs/$name.out" "$logs/$name.log" "$logs/$name.timeout"
	rc=0
	case $script in
	*.sh) in_session "$name" sh "$script" || rc=$? ;;
	*) in_session "$name" python3 -m "tests.checks.$name" || rc=$? ;;	# the project's modules import from the top
	esac
	took=$(( $(date +%s) - t0 ))
	echo "$took $name" >> "$times"
	if [ "$rc" = 124 ]; then
		echo "not ok - $name: ran out of its time, $limit s (KS_CHECK_TIMEOUT), and was ended" >> "$logs/$name.out"
	fi
	p=$(grep -c '^ok - ' "$logs/$name.out" || true)
	f=$(grep -c '^not ok - ' "$logs/$name.out" || true)
	s=$(grep -c '^skip - ' "$logs/$name.out" || true)
	if [ "$rc" != 0 ] && [ "$f" = 0 ]; then
		echo "not ok - $name: the check script itself failed (exit $rc)" >> "$logs/$name.out"
		f=1
	fi
	if [ $((p + f + s)) = 0 ]; then
		echo "not ok - $name: ran no check" >> "$logs/$name.out"
		f=1
	fi
	# Its checks, as subtests; '#' starts a directive in KTAP, so a
	# title's own '#' is written 'no.'.
	echo '    KTAP version 1'
	echo "    # Subtest: $name"
	echo "    1..$((p + f + s))"
	grep -E '^((not )?ok|skip) - ' "$logs/$name.out" | sed 's/#/no./g' | awk '{
		i++
		if (sub(/^skip - /, "")) {
			# WHAT: WHY, split at the last ": " (a title may name file.c:N)
			k = 0
			for (j = 1; j < length($0); j++) if (substr($0, j, 2) == ": ") k = j
			what = k ? substr($0, 1, k - 1) : $0; why = k ? substr($0, k + 2) : "no reason given"
			printf "    ok %d %s # SKIP %s\n", i, what, why
		} else if (sub(/^not ok - /, "")) printf "    not ok %d %s\n", i, $0
		else { sub(/^ok - /, ""); printf "    ok %d %s\n", i, $0 }
	}'
	if [ "$f" != 0 ]; then
		echo "# --- last lines of $logs/$name.log:"
		tail -n 15 "$logs/$name.log" | sed 's/^/# | /'
		echo "not ok $n $name # ${took}s"
	elif [ "$s" != 0 ] && [ "$p" = 0 ]; then
		echo "ok $n $name # SKIP all its checks were skipped (${took}s)"
	else
		echo "ok $n $name # ${took}s"
	fi
	passed=$((passed + p)) failed=$((failed + f)) skipped=$((skipped + s))
done

# Every failure again, a line each, last: a CI that keeps only the
# output's tail still shows them all.
if [ "$failed" != 0 ]; then
	echo "# the failures:"
	for script in $scripts; do
		name=$(basename "$script")
		name=${name%.*}
		grep '^not ok - ' "$logs/$name.out" | cut -c1-300 | sed "s|^not ok - |#   $name: |"
	done
fi
echo "# the slowest checks:"
sort -rn "$times" | head -n 5 | awk '{ printf "#   %5d s  %s\n", $1, $2 }'
echo "# checks took $(( $(date +%s) - start ))s; logs in $logs; the stages' tree: $(tree_version)"
if [ "$skipped" = 0 ]; then
	echo "$passed passed, $failed failed"
else
	echo "$passed passed, $failed failed, $skipped skipped"
fi
[ "$failed" = 0 ]
