# A patch that no longer applies (as after a Debian update to a newer
# 6.1.y) stops the build with the patch's name, the stage and the rejected
# hunk, and leaves no stage tree behind. Run against a scratch copy of the
# project whose stage-1 patch has one context line changed.
. "$TOP/vm/host/lib.sh"
. "$TOP/tests/lib.sh"

fake=$BUILD/check/bad-patch
rm -rf "$fake"
mkdir -p "$fake/top/patches/1" "$fake/build/src"
cp -al "$PRISTINE" "$fake/build/src/linux"
cp "$PRISTINE.stamp" "$fake/build/src/linux.stamp"
good=$(ls "$TOP"/patches/1/*.patch | head -n 1)
# Change the first context line of the first hunk, as a newer tree would.
awk '!done && /^@@/ { hunk = 1; print; next }
     hunk && !done && /^ / { print " /* changed upstream */"; done = 1; next }
     { print }' "$good" > "$fake/top/patches/1/0001-broken.patch"

# The stage tree is a hard-link copy of the pristine one: patching must
# never write through the links into it.
touched=$(sed -n 's|^+++ b/||p' "$good")
sums() { (cd "$PRISTINE" && sha256sum $touched); }
before=$(sums)

rc=0
out=$(TOP=$fake/top BUILD=$fake/build KS_LOCKED=1 "$TOP/vm/host/tree.sh" 1 2>&1) || rc=$?
echo "$out" >&2
if [ $rc != 0 ] && echo "$out" | grep -q 'stage 1: patch patches/1/0001-broken.patch does not apply' \
   && echo "$out" | grep -q '^--- rejected hunks:' && echo "$out" | grep -q '^@@'; then
	ok "a patch that does not apply is named, with its stage and the rejected hunk"
else
	not_ok "a patch that does not apply is named, with its stage and the rejected hunk"
fi
if [ ! -e "$fake/build/stage-1/src" ] && [ ! -e "$fake/build/stage-1/src.tmp" ] && [ ! -e "$fake/build/stage-1/src.stamp" ]; then
	ok "the failed stage leaves no tree a later run could take for complete"
else
	not_ok "the failed stage leaves no tree behind ($(ls "$fake/build/stage-1"))"
fi
if [ "$(sums)" = "$before" ]; then
	ok "the pristine tree is untouched: the $(echo $touched | wc -w) files the patch touches keep their checksums"
else
	not_ok "the pristine tree is untouched by the failed patching"
fi
rm -rf "$fake"
