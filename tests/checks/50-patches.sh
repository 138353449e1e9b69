# The patch series itself: every patch passes the tree's checkpatch.pl
# (no errors; warnings only where the commit message explains them) and
# applies to the pristine tree, in order, exactly (no fuzz, no offset).
# One checkpatch error is expected and let through: MISSING_SIGN_OFF. The
# patches carry no Signed-off-by on purpose: a sign-off certifies the
# Developer's Certificate of Origin, which only a person can give, and
# these patches are teaching material, not submissions (patches/README.md).
# So a patch must have no Signed-off-by line, and the error passes only
# for such a patch.
# Stage 2 must end where 6.1 is: every file the series touches is the same
# in stage 2's tree as in the pristine one.
. "$TOP/vm/host/lib.sh"
. "$TOP/tests/lib.sh"

last=$(stages | tail -n 1)
[ "$last" != 0 ] || { not_ok "patches/ holds a patch series"; exit 0; }

for p in $(stage_patches "$last"); do
	name=${p#"$TOP"/patches/}
	out=$(cd "$PRISTINE" && perl scripts/checkpatch.pl --no-color --show-types "$p" 2>&1 || true)
	echo "$out" >&2
	errors=$(echo "$out" | sed -n 's/^total: \([0-9]*\) errors, \([0-9]*\) warnings.*/\1/p')
	warnings=$(echo "$out" | sed -n 's/^total: \([0-9]*\) errors, \([0-9]*\) warnings.*/\2/p')
	if grep -q '^Signed-off-by:' "$p"; then
		not_ok "checkpatch: $name carries a Signed-off-by (the series is not signed off: patches/README.md)"
		continue
	fi
	if [ -n "$errors" ] && echo "$out" | grep -q '^ERROR:MISSING_SIGN_OFF:'; then
		errors=$((errors - 1))
	fi
	if [ "$errors" = 0 ] && { [ "$warnings" = 0 ] || grep -q '^checkpatch.pl warns' "$p"; }; then
		ok "checkpatch: $name ($errors errors besides the sign-off the series leaves out, $warnings warnings)"
	else
		not_ok "checkpatch: $name (${errors:-?} errors besides the missing sign-off, ${warnings:-?} warnings)"
	fi
done

tree=$BUILD/check/series-tree
rm -rf "$tree"
cp -al "$PRISTINE" "$tree"
for p in $(stage_patches "$last"); do
	name=${p#"$TOP"/patches/}
	out=$("$TOP/vm/host/apply-patch.sh" "$tree" "$p" 2>&1) && rc=0 || rc=$?
	echo "$name: exit $rc: $out" >&2
	# The tool's status first: a missing tree or "Only garbage was found
	# in the patch input" says no FAILED, yet applies nothing.
	if [ "$rc" != 0 ] || echo "$out" | grep -Eq 'FAILED|fuzz|offset|malformed|Reversed|garbage'; then
		not_ok "applies exactly: $name (exit $rc: $(echo "$out" | tail -n 1))"
	else
		ok "applies exactly (no fuzz, no offset): $name"
	fi
done
rm -rf "$tree"

if valid_stage 2; then
	files=$(cat $(stage_patches 2) | sed -n 's|^+++ b/||p' | sort -u)
	differ=
	for f in $files; do
		cmp -s "$PRISTINE/$f" "$(stage_src 2)/$f" || differ="$differ $f"
	done
	if [ -z "$differ" ]; then
		ok "stage 2 ends at 6.1: the $(echo "$files" | wc -w) files the series touches equal the pristine tree"
	else
		not_ok "stage 2 ends at 6.1 (differs:$differ)"
	fi
fi
