#!/bin/sh
# vm/host/seed-obj.sh FROM TO: start kernel TO's object folder, which does
# not exist yet, as a copy of kernel FROM's, which is built: Kbuild then
# rebuilds only what differs between their trees and configs, as it does
# after a developer's `git checkout`. Stage 2's tree is stage 0's again
# (vm/host/tree.sh keeps the files its patches leave unchanged as the
# pristine ones), so stage 2 after stage 0 compiles only the few files
# that print the kernel's name (LOCALVERSION) and relinks; an exercise
# (TO = eN), seeded as its tree is made, starts from its base stage's
# objects and rebuilds the files its skeleton changed.
#
# What Kbuild keeps beside the objects names the folders by their
# absolute paths: the command lines it compares before reusing an object
# (.*.cmd), Kconfig's list of its inputs, symlinks into the tree. They
# are rewritten from FROM's folder to TO's. The kernel's objects name no
# folder (vm/host/kmake.sh's -fdebug-prefix-map); the few built without
# those flags (host tools, the real-mode boot code) keep FROM's folder in
# their own debug info, which no lab reads (gdb reads vmlinux).
#
# The copy is made under a temporary name and renamed when complete: an
# interrupted seed leaves no object folder, and the build starts cold.
. "$(dirname "$0")/lib.sh"

from=${1:?usage: seed-obj.sh FROM TO} to=${2:?usage: seed-obj.sh FROM TO}
obj=$(stage_obj "$to")
# Not while FROM is being rebuilt (by a build ahead, say), nor TO built.
build_lock
[ ! -e "$obj" ] || die "$obj exists: a seed only starts a kernel's first build"
[ -f "$(stage_obj "$from")/kernel.stamp" ] || die "kernel $from is not built: nothing to seed $to from"
mkdir -p "$(stage_dir "$to")"
# Real paths, as Kbuild writes them (kmake.sh gives it real paths).
old=$(cd "$(stage_dir "$from")" && pwd -P)/
new=$(cd "$(stage_dir "$to")" && pwd -P)/
tmp=$obj.tmp
rm -rf "$tmp"
name() { case $1 in e*) echo "lab ${1#e}'s exercise" ;; *) echo "stage $1" ;; esac; }
say "$(name "$to"): its first build starts from a copy of $(name "$from")'s objects"
cp -a "$(stage_obj "$from")" "$tmp"
# FROM's own records: TO is configured and stamped by its own build, and
# lists its own exports for its modules (modules.sh).
rm -f "$tmp/kernel.stamp" "$tmp/kernel.sizes" "$tmp/config.key" "$tmp/.config" \
	"$tmp/config.log" "$tmp/build.log" "$tmp/Module.symvers" "$tmp/symvers.log"
pattern=$(printf '%s' "$old" | sed 's/[][\.*^$|]/\\&/g')
grep -rlIF "$old" "$tmp" > "$tmp.list" || true
# Kbuild's command lines (.*.cmd) are read, never compared by mtime: they
# are rewritten together. The few other files keep their mtimes: make
# compares some of them (asm-offsets.s, say) with what is made from them.
grep '/\.[^/]*\.cmd$' "$tmp.list" | xargs -d '\n' -r sed -i "s|$pattern|$new|g"
grep -v '/\.[^/]*\.cmd$' "$tmp.list" | while IFS= read -r f; do
	sed -i "s|$pattern|$new|g" "$f"
	touch -r "$(stage_obj "$from")/${f#"$tmp"/}" "$f"
done
rm -f "$tmp.list"
find "$tmp" -type l | while IFS= read -r l; do
	case $(readlink "$l") in "$old"*) ln -sfn "$new$(readlink "$l" | cut -c$((${#old} + 1))-)" "$l" ;; esac
done
# A file that TO's patches changed may be older than FROM's objects (its
# tree was made before FROM was last built): it is touched, so that make
# takes it as newer and rebuilds what depends on it. (A file they leave
# unchanged is the pristine file, shared by every tree: never touched.
# cmp, not the link count, says which: an older tree has its own copies.)
case $to in
e*) ;;   # an exercise's tree was copied just now: its changes are newer
*)	for f in $(patched_files "$to"); do
		src=$(stage_src "$to")/$f
		[ -f "$src" ] && ! cmp -s "$src" "$(stage_src "$from")/$f" && touch "$src"
	done ;;
esac
mv "$tmp" "$obj"
