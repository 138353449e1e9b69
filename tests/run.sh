#!/bin/sh
# tests/run.sh: the test runner behind `make check`.
#
# Runs every tests/checks/*.sh (with sh) and *.py (with python3 -m), all in
# name order. A check script prints one line per check, "ok - WHAT" or
# "not ok - WHAT" (tests/lib.sh and tests/checklib.py have the helpers),
# and its other output goes to build/check/NAME.log. A script that exits
# non-zero without a "not ok" line counts as one failure, so a crashed
# check can never pass silently. Ends with "N passed, M failed".
. "$(dirname "$0")/../vm/host/lib.sh"

cd "$TOP"	# every check runs from the top, where the project's Python imports from
logs=$BUILD/check
# A run of some checks (CHECKS=...) keeps the other checks' logs: two
# such runs may go on at once.
[ -n "${CHECKS:-}" ] || rm -rf "$logs"
mkdir -p "$logs"
# Every grade's KTAP report is copied here, for check 95 (vm/session/ks);
# a whole run starts with none.
export KS_KTAP_DIR=$logs/ktap
[ -n "${CHECKS:-}" ] || rm -rf "$KS_KTAP_DIR"
passed=0 failed=0
start=$(date +%s)

for script in "$TOP"/tests/checks/*; do
	case $script in
	*.sh) run=sh ;;
	*.py) run=python3 ;;
	*) continue ;;
	esac
	name=$(basename "$script")
	name=${name%.*}
	[ -z "${CHECKS:-}" ] || echo "$name" | grep -Eq "$CHECKS" || continue
	t0=$(date +%s)
	rm -f "$logs/$name.out" "$logs/$name.log"
	rc=0
	case $run in
	sh) sh "$script" ;;
	*) python3 -m "tests.checks.$name" ;;	# the project's modules import from the top
	esac > "$logs/$name.out" 2> "$logs/$name.log" || rc=$?
	p=$(grep -c '^ok - ' "$logs/$name.out" || true)
	f=$(grep -c '^not ok - ' "$logs/$name.out" || true)
	if [ "$rc" != 0 ] && [ "$f" = 0 ]; then
		echo "not ok - $name: the check script itself failed (exit $rc)" >> "$logs/$name.out"
		f=1
	fi
	if [ $((p + f)) = 0 ]; then
		echo "not ok - $name: ran no check" >> "$logs/$name.out"
		f=1
	fi
	grep -E '^(not )?ok - ' "$logs/$name.out" | sed "s/\$/  [$name, $(( $(date +%s) - t0 ))s]/"
	if [ "$f" != 0 ]; then
		echo "  --- last lines of $logs/$name.log:"
		tail -n 15 "$logs/$name.log" | sed 's/^/  | /'
	fi
	passed=$((passed + p)) failed=$((failed + f))
done

echo "checks took $(( $(date +%s) - start ))s; logs in $logs; the stages' tree: $(tree_version)"
echo "$passed passed, $failed failed"
[ "$failed" = 0 ]
