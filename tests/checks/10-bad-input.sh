# Bad lab numbers are refused before anything is built or started: one
# line that names the valid labs, a non-zero exit, and no run folder.
# And the one table of stage facts (vm/stages.toml) names exactly the
# stages the build makes from patches/ (vm/host/lib.sh's stages()).
. "$TOP/vm/host/lib.sh"
. "$TOP/tests/lib.sh"

valid=$(python3 -m vm.session.ks valid x 2>&1 | sed -n 's/.*valid labs: \([0-9 ]*\).*/\1/p')
# The list named must be every lab there is (labs/N/lab.toml), not empty.
labs=$(cd "$TOP/labs" && ls -d [0-9]*/ | tr -d / | sort -n | tr '\n' ' ' | sed 's/ $//')
if [ -n "$valid" ] && [ "$(echo $valid)" = "$labs" ]; then
	ok "ks names the valid labs, every one of labs/ ($labs)"
else
	not_ok "ks names the valid labs, every one of labs/ (wanted '$labs', got '$valid')"
fi
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

# make replay N=9 is refused as make lab's is; lab 6, a post-mortem in
# crash, has no gdb session to replay: refused in one line that names the
# labs that do, with nothing recorded.
rc=0
out=$(make -s -C "$TOP" replay N=9 2>&1) || rc=$?
echo "make replay N=9 -> exit $rc: $out" >&2
if [ $rc != 0 ] && echo "$out" | grep -q "valid labs: $valid"; then
	ok "make replay N=9 is refused with the list of labs"
else
	not_ok "make replay N=9 is refused with the list of labs"
fi
before=$(ls "$BUILD/run" 2>/dev/null | wc -l)
rc=0
out=$(make -s -C "$TOP" replay N=6 2>&1) || rc=$?
after=$(ls "$BUILD/run" 2>/dev/null | wc -l)
echo "make replay N=6 -> exit $rc: $out" >&2
if [ $rc != 0 ] && echo "$out" | grep -q "post-mortem in crash.*make replay N=k for k in 0 1 2 3 4 5 7" \
   && [ "$before" = "$after" ]; then
	ok "make replay N=6 is refused in one line naming the labs with a gdb session, nothing started"
else
	not_ok "make replay N=6 is refused in one line naming the labs with a gdb session (got: $out)"
fi

# The stages the project at TOP makes from TOP/patches (vm/host/lib.sh), and
# those its vm/stages.toml describes (read by vm/session/facts.py).
made_stages() { TOP=$1 "$1/vm/host/info.sh" stages | tr '\n' ' ' | sed 's/ $//'; }
table_stages() {
	TOP=$1 python3 -c 'from vm.session import facts
print(*sorted(facts.stages()))'
}
made=$(made_stages "$TOP") table=$(table_stages "$TOP")
if [ -n "$made" ] && [ "$made" = "$table" ]; then
	ok "vm/stages.toml describes exactly the stages patches/ makes ($made)"
else
	not_ok "vm/stages.toml describes exactly the stages patches/ makes ($made) (got: stages.toml names '$table')"
fi
# The comparison can fail: a copy of the project with one more stage's
# patches, which its stages.toml does not describe.
fake=$BUILD/check/extra-stage
rm -rf "$fake"
mkdir -p "$fake/vm/host"
cp "$TOP/vm/host/lib.sh" "$TOP/vm/host/info.sh" "$fake/vm/host/"
cp "$TOP/vm/stages.toml" "$fake/vm/"
cp -r "$TOP/patches" "$fake/patches"
extra=$(( $(echo "$made" | tr ' ' '\n' | tail -n 1) + 1 ))
mkdir -p "$fake/patches/$extra"
echo 'a new stage' > "$fake/patches/$extra/0001-new.patch"
fmade=$(made_stages "$fake") ftable=$(table_stages "$fake")
echo "with patches/$extra: made '$fmade', table '$ftable'" >&2
if [ "$fmade" = "$made $extra" ] && [ "$fmade" != "$ftable" ]; then
	ok "the comparison catches a stage ($extra) that vm/stages.toml lacks"
else
	not_ok "the comparison catches a stage ($extra) that vm/stages.toml lacks (made '$fmade', table '$ftable')"
fi
rm -rf "$fake"

# An answers file that is not text gets one line and a non-zero exit,
# before anything is built or booted (no Python traceback).
bin=$BUILD/check/binary-answers
mkdir -p "$BUILD/check"
printf 'why_round_down = \377\376\n' > "$bin"
rc=0
out=$(python3 -m vm.session.ks grade 0 "$bin" 2>&1) || rc=$?
echo "ks grade 0 $bin -> exit $rc: $out" >&2
if [ $rc != 0 ] && [ "$(echo "$out" | wc -l)" = 1 ] && echo "$out" | grep -q 'is not text'; then
	ok "a binary answers file gets one line ('$out') and exit $rc"
else
	not_ok "a binary answers file gets one clear line and a non-zero exit (exit $rc: $out)"
fi
rm -f "$bin"
