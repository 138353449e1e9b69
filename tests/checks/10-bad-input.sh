# Bad lab numbers are refused before anything is built or started: one
# line that names the valid labs, a non-zero exit, and no run folder.
. "$TOP/vm/lib.sh"
. "$TOP/tests/lib.sh"

valid=$("$TOP/labs/valid.sh" x 2>&1 | sed -n 's/.*valid labs: \([0-9 ]*\).*/\1/p')
for n in 9 x ''; do
	before=$(ls "$BUILD/run" 2>/dev/null | wc -l)
	rc=0
	out=$(make -s -C "$TOP" lab N="$n" 2>&1) || rc=$?
	after=$(ls "$BUILD/run" 2>/dev/null | wc -l)
	echo "make lab N='$n' -> exit $rc: $out" >&2
	if [ $rc != 0 ] && echo "$out" | grep -q "valid labs: $valid" \
	   && [ "$(echo "$out" | grep -vc '^make')" = 1 ] && [ "$before" = "$after" ]; then
		ok "make lab N='$n' is refused with the list of labs ($valid)"
	else
		not_ok "make lab N='$n' is refused with the list of labs"
	fi
done
