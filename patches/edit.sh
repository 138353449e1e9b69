#!/bin/sh
# patches/edit.sh open [FILE...] | export
#
# A place to work on the series with git. `open` makes build/patchwork, a
# git repository holding the pristine 6.1 copies of every file the series
# touches (plus any FILE given, for a patch that will touch a new one),
# applies the series with git am and tags the end of each stage stage-K
# (stage-0 is the pristine commit). Edit, commit, rebase there; move a
# stage-K tag if a stage gains or loses a patch. `export` writes the
# series back: patches/K/ gets stage-(K-1)..stage-K in git format-patch
# form, with fixed headers so that an unchanged patch stays byte-identical.
. "$(dirname "$0")/../vm/host/lib.sh"

work=$BUILD/patchwork
pw() { git -C "$work" "$@"; }

case ${1:-} in
open)
	shift
	[ ! -e "$work" ] || die "$work exists: export it first, or remove it"
	"$TOP/vm/host/tree.sh" 0
	mkdir -p "$work"
	files=$(cat "$TOP"/patches/*/*.patch | sed -n 's|^+++ b/||p' | sort -u)
	for f in $files "$@"; do
		[ -f "$PRISTINE/$f" ] || continue
		mkdir -p "$work/$(dirname "$f")"
		cp "$PRISTINE/$f" "$work/$f"
	done
	pw init -q
	pw config user.name "The kstack-workbook project"
	pw config user.email "kstack-workbook@example.org"
	pw add -A
	pw commit -qm "pristine $(sed -n 's/^SUBLEVEL = /6.1./p' "$PRISTINE/Makefile") (Debian linux-source-6.1)"
	pw tag stage-0
	for k in $(stages | grep -v '^0$'); do
		pw am -q "$TOP"/patches/"$k"/*.patch
		pw tag "stage-$k"
	done
	say "series opened in $work; 'patches/edit.sh export' writes it back"
	;;
export)
	[ -d "$work/.git" ] || die "no $work: run 'patches/edit.sh open' first"
	k=1
	while pw rev-parse -q --verify "stage-$k" >/dev/null; do
		rm -f "$TOP/patches/$k/"*.patch
		mkdir -p "$TOP/patches/$k"
		pw format-patch -q --zero-commit --no-signature \
			-o "$TOP/patches/$k" "stage-$((k - 1))..stage-$k"
		k=$((k + 1))
	done
	say "exported stages 1..$((k - 1)) to patches/"
	;;
*)
	die "usage: patches/edit.sh open [FILE...] | export"
	;;
esac
