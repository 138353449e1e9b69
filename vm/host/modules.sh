#!/bin/sh
# vm/host/modules.sh K: build the lab modules (vm/guest/modules/*.c) against stage K's
# kernel and pack them as build/stage-K/modules.cpio (/lib/modules/*.ko),
# which vm/session/session.py appends to the initramfs of every stage-K guest. Modules
# are per stage: each must match its kernel's vermagic. They are loaded in
# the guest only.
#
# Inputs: the stage's kernel (its kernel.stamp), vm/guest/modules/ and this
# script; their fingerprint is written to modules.stamp last.
# vm/host/stage.sh runs it in a subshell, as it runs kernel.sh.
me=modules.sh
. "$(dirname "$0")/lib.sh"
. "$(dirname "$0")/kmake.sh"

k=${1:?usage: modules.sh STAGE}
obj=$(stage_obj "$k")
KARCH=$(karch "$k")
out=$(stage_dir "$k")/modules
[ -f "$obj/kernel.stamp" ] || die "stage $k has no kernel: run 'make kernel N=$k'"
key=$({ cat "$obj/kernel.stamp"; cat "$TOP"/vm/guest/modules/*; cat "$TOP/vm/host/modules.sh"; } | sha256sum | cut -c1-16)
# The stamp vouches for the archive only while it has the size it was
# made with: one cut short is made again.
built() {
	[ -f "$out/modules.stamp" ] && [ "$(cat "$out/modules.stamp")" = "$key" ] &&
		[ "$(stat -c %s "$out.cpio" 2>/dev/null)" = "$(cat "$out/modules.size" 2>/dev/null)" ]
}
built && exit 0

build_lock
built && exit 0
class_cache_check
echo "stage $k's modules|$out/build.log" > "$BUILD/.build.what"
rm -rf "$out" "$out.cpio"
mkdir -p "$out/src" "$out/root/lib/modules"
cp "$TOP"/vm/guest/modules/* "$out/src/"
kmake() { kernel_make "$(stage_src "$k")" "$obj" LOCALVERSION="$(localversion "$k")" "$@"; }
# Module.symvers (the kernel's exported symbols) comes from the kernel's
# own `make modules`, which kernel.sh runs with its build; without it
# modpost cannot check the modules' symbols.
[ -f "$obj/Module.symvers" ] || run_logged "$obj/symvers.log" \
	"stage $k: list the kernel's exports (make modules)" kmake -j"$JOBS" modules
run_logged "$out/build.log" "stage $k: build lab modules" kmake M="$out/src" modules
cp "$out"/src/*.ko "$out/root/lib/modules/"
# cpio in the newc format the kernel unpacks, appended after the main one.
(cd "$out/root" && find . | LC_ALL=C sort | cpio -o -H newc --quiet) > "$out.cpio.tmp"
mv "$out.cpio.tmp" "$out.cpio"
stat -c %s "$out.cpio" > "$out/modules.size"
echo "$key" > "$out/modules.stamp"
