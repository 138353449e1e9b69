#!/bin/sh
# vm/host/tree.sh K: make sure stage K's kernel source tree exists and matches
# its inputs (the tarball and patches/1..K).
#
# The tarball is extracted once into build/src/linux and never touched again.
# A stage tree, stage 0's too, is a hard-link copy of it (seconds, almost
# no disk) with the stage's patches applied (none for stage 0). patch(1)
# writes each changed file anew and renames it into place, so a patched
# file stops sharing its inode with the pristine tree and the pristine
# copy stays clean.
#
# Every tree is built under a temporary name and renamed only once complete,
# and its stamp (the fingerprint of its inputs) is written last: an
# interrupted run leaves nothing a later run could mistake for finished.
. "$(dirname "$0")/lib.sh"

k=${1:?usage: tree.sh STAGE}
valid_stage "$k" || die "unknown stage '$k' (stages: $(stages | tr '\n' ' '))"

extract_pristine() {
	key=$(tarball_key)
	[ -f "$PRISTINE.stamp" ] && [ "$(cat "$PRISTINE.stamp")" = "$key" ] && return 0
	mkdir -p "$BUILD/src"
	rm -rf "$PRISTINE" "$PRISTINE.tmp" "$PRISTINE.stamp"
	mkdir "$PRISTINE.tmp"
	run_logged "$BUILD/src/extract.log" "extracting $TARBALL" \
		tar -xJf "$TARBALL" -C "$PRISTINE.tmp" --strip-components=1
	mv "$PRISTINE.tmp" "$PRISTINE"
	echo "$key" > "$PRISTINE.stamp"
}

# apply_patches DIR: apply stage k's patches to DIR; stop at the first that
# does not apply cleanly, naming it and showing the rejected hunks.
apply_patches() {
	for p in $(stage_patches "$k"); do
		name=${p#"$TOP"/}
		log=$1.patch.log
		if ! "$(dirname "$0")/apply-patch.sh" "$1" "$p" "$1.rej" > "$log" 2>&1; then
			cat "$log" >&2
			[ -f "$1.rej" ] && { echo "--- rejected hunks:" >&2; cat "$1.rej" >&2; }
			rm -rf "$1" "$1.rej"
			die "stage $k: patch $name does not apply without fuzz to $(tree_version). The series applies to 6.1.192-3 (the book's) and 6.1.176-1: install one of them while Debian's archive has it (apt-get install linux-source-6.1=6.1.192-3), or refresh the patch against this tree."
		fi
	done
}

# relink_unchanged DIR: a file that the patches leave as it was in the
# pristine tree (stage 2 undoes stage 1's changes) becomes the pristine
# file again, with its mtime: make then takes it as unchanged, and a stage
# started from stage 0's objects (vm/host/seed-obj.sh) rebuilds only what
# really differs. Only for a stage with no objects yet: objects built from
# an earlier version of the file are newer than the pristine one, and
# make would keep them.
relink_unchanged() {
	for f in $(patched_files "$k"); do
		if [ -f "$PRISTINE/$f" ] && cmp -s "$PRISTINE/$f" "$1/$f"; then
			ln -f "$PRISTINE/$f" "$1/$f"
		fi
	done
}

build_lock
extract_pristine

dir=$(stage_dir "$k")
key=$(tree_key "$k")
[ -f "$dir/src.stamp" ] && [ "$(cat "$dir/src.stamp")" = "$key" ] && exit 0

mkdir -p "$dir"
rm -rf "$dir/src" "$dir/src.tmp" "$dir/src.stamp"
say "stage $k: hard-link copy of the pristine tree, then $(stage_patches "$k" | wc -l) patch(es)"
cp -al "$PRISTINE" "$dir/src.tmp"
apply_patches "$dir/src.tmp"
[ -e "$(stage_obj "$k")" ] || relink_unchanged "$dir/src.tmp"
mv "$dir/src.tmp" "$dir/src"
echo "$key" > "$dir/src.stamp"
