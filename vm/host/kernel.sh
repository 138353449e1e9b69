#!/bin/sh
# vm/host/kernel.sh K: build stage K's kernel (bzImage, vmlinux with DWARF, and
# the kernel's gdb helpers, what M= module builds need) in
# build/stage-K/obj, unless nothing changed.
# vm/host/kernel.sh --built K: only say (exit status) whether it is up to date.
# vm/host/kernel.sh eN: build lab N's exercise, the learner's tree (vm/host/lib.sh's
# stage_src eN), incrementally.
# vm/host/kernel.sh NAME: a kernel beside the series (vm/stages.toml's
# [kernels.NAME]: lab 7's x86_64), its row's tree for its machine, with its
# config fragments merged over vm/host/kernel.config.
#
# Inputs: the stage's source tree (tarball + patches), vm/host/kernel.config,
# this script, the compiler wrapper vm/host/cc and how a kernel is
# configured and compiled, vm/host/kmake.sh.
# Their fingerprint is written to kernel.stamp after a successful build;
# while it matches, this script returns at once without running make.
#
# vm/host/stage.sh and ahead.sh run it in a subshell of their own, not
# as a program (`(. kernel.sh)`, with their arguments): so it names
# itself by its path, never by $0, and finds lib.sh beside its caller.
me=kernel.sh
. "$(dirname "$0")/lib.sh"
. "$(dirname "$0")/kmake.sh"

only_ask=
[ "${1:-}" != --built ] || { only_ask=1; shift; }
k=${1:?usage: kernel.sh [--built] STAGE}
src=$(stage_src "$k")
obj=$(stage_obj "$k")
KARCH=$(karch "$k")
fragment=$TOP/vm/host/kernel.config
named=vm/host/kernel.config
case $k in [0-9]*|e*) more= ;; *) more=$(kfact "$k" config) ;; esac
if [ -n "$more" ]; then
	# A kernel beside the series: one fragment, its own lines winning,
	# which kernel_config merges and config_missing checks.
	set -- "$fragment"
	for f in $more; do
		named="$named + $f"
		set -- "$@" "$TOP/$f"
	done
	mkdir -p "$obj"
	merge_fragments "$@" > "$obj/fragment.config"
	fragment=$obj/fragment.config
fi
case $k in
e*)	# The learner edits this tree: no fingerprint of it, Kbuild's own
	# dependencies decide what to rebuild (a one-file change: seconds).
	[ -z "$only_ask" ] || exit 1
	[ -d "$src/.git" ] || die "no exercise tree at $src: run 'make exercise N=${k#e}'"
	key=$(sha256sum < "$fragment" | cut -c1-16) ;;
*)	key=$(printf '%s %s %s %s %s\n' "$(tree_key "$(tree_of "$k")")" "$(sha256sum < "$fragment")" "$(sha256sum < "$TOP/vm/host/kernel.sh")" \
		"$(sha256sum < "$TOP/vm/host/cc")" "$(sha256sum < "$TOP/vm/host/kmake.sh")" | sha256sum | cut -c1-16) ;;
esac
# Built by a cross compiler (vm/hosts.toml): another kernel than the host
# gcc's, whose key stays as it was.
cross=$(cross_of "$KARCH")
key=$key${cross:+-${cross%-}}

built() {
	# The tree too: objects built from a tree elsewhere are not this one's.
	[ -f "$src/Makefile" ] && [ -f "$obj/kernel.stamp" ] && [ "$(cat "$obj/kernel.stamp")" = "$key" ] \
		&& [ -f "$obj/arch/x86/boot/bzImage" ] && [ -f "$obj/vmlinux-gdb.py" ] \
		&& whole
}
# What the stamp vouches for, with the size each had when it was built: a
# file cut short (a full disk, a copy interrupted) is not trusted, and is
# removed so that make links it again (its mtime would tell make it is
# newer than its objects).
PRODUCTS="vmlinux arch/x86/boot/bzImage vmlinux-gdb.py"
sizes() { (cd "$obj" && stat -c '%s %n' $PRODUCTS 2>/dev/null); }
whole() {
	[ -f "$obj/kernel.sizes" ] || return 0
	[ "$(sizes)" = "$(cat "$obj/kernel.sizes")" ] && return 0
	sizes | diff - "$obj/kernel.sizes" | sed -n 's/^< \([0-9]*\) \(.*\)/\2 (\1 bytes)/p' |
	while read -r damaged; do
		say "$obj/$damaged is not the size it was built with: damaged, rebuilding it"
	done
	(cd "$obj" && rm -f $PRODUCTS kernel.sizes)
	return 1
}
# Up to date: return at once, even while another stage builds. Otherwise
# wait for the lock, and look again: the build we waited for may have
# been this one.
case $k in e*) whole || true ;; *)
	built && exit 0
	[ -z "$only_ask" ] || exit 1 ;;
esac
build_lock
case $k in
e*)	what="lab ${k#e}'s exercise kernel" ;;
[!0-9]*) what="the $k kernel (stage $(tree_of "$k")'s tree for $KARCH)"
	built && exit 0
	"$TOP/vm/host/tree.sh" "$(tree_of "$k")" ;;
*)	what="stage $k's kernel"
	built && exit 0
	"$TOP/vm/host/tree.sh" "$k"
	# A first build starts from stage 0's objects, when they are built:
	# Kbuild then rebuilds what the stage's patches change (stage 2's,
	# nothing: the files that print its name, then the link).
	if [ "$k" != 0 ] && [ ! -e "$obj" ] && (set -- --built 0; . "$TOP/vm/host/kernel.sh"); then
		"$TOP/vm/host/seed-obj.sh" 0 "$k"
	fi ;;
esac
# Something to build: a class cache that does not answer is left out now.
class_cache_check
# Reconfigure when the fragment changed, and only then: a new .config
# makes Kbuild rebuild everything.
config_key=$(sha256sum < "$fragment" | cut -c1-16)
[ "$(cat "$obj/config.key" 2>/dev/null)" = "$config_key" ] || rm -f "$obj/.config"
echo "$what|$obj/build.log" > "$BUILD/.build.what"
rm -f "$obj/kernel.stamp"
mkdir -p "$obj"

# LOCALVERSION puts the stage into uname -r, so a guest says which it is.
kmake() { kernel_make "$src" "$obj" LOCALVERSION="$(localversion "$k")" "$@"; }

if [ ! -f "$obj/.config" ]; then
	run_logged "$obj/config.log" "$what: configure (tinyconfig + $named)" \
		kernel_config "$src" "$obj" "$fragment"
	# Kconfig silently drops an option whose dependencies are unmet.
	missing=$(config_missing "$obj/.config" "$fragment")
	[ -z "$missing" ] || die "$what: Kconfig dropped options of $named (unmet dependencies?):$missing"
	echo "$config_key" > "$obj/config.key"
fi
# modules_prepare: so that a module (the checks' vermagic probe, a lab's
# module) can be built against this stage with M=; modules: the kernel's
# exports (Module.symvers), which modpost checks those modules against,
# listed in the same walk of the tree (a walk of its own took 8-10 s).
# The progress line's estimate is this machine's own last cold build.
timing=$BUILD/kernel-build.seconds
[ "$KARCH" = i386 ] || timing=$BUILD/kernel-build-$KARCH.seconds
last=$(cat "$timing" 2>/dev/null || true)
t0=$(date +%s) m0=$(ccache_misses)
run_logged "$obj/build.log" "$what: build (make -j$JOBS${last:+; a cold build took ${last}s here})" \
	kmake -j"$JOBS" bzImage scripts_gdb modules_prepare modules
# Only a cold build (most files compiled, not handed back by ccache)
# makes the estimate for the next.
[ $(( $(ccache_misses) - m0 )) -lt 500 ] || echo $(( $(date +%s) - t0 )) > "$timing"
# An index of vmlinux's debug info (.gdb_index, gdb's own), added each
# time Kbuild links it anew: gdb and crash then look a name up in the
# index instead of scanning the DWARF. Measured on stage 2: gdb's first
# lookup of struct pt_regs (lab 3's stop) 1.3 s without, 0.03 s with;
# crash's start under qemu-i386 (lab 6) 11.9 s without, 4.3 s with.
# vmlinux keeps its mtime, so that make does not take it for a new
# kernel and make bzImage again.
if ! readelf -S "$obj/vmlinux" | grep -q '\.gdb_index'; then
	touch -r "$obj/vmlinux" "$obj/vmlinux.linked"
	# gdb-add-index runs $GDB: this host's (vm/hosts.toml), which reads
	# this machine's objects; and $OBJCOPY, the binutils of the compiler
	# that built the kernel (an arm64 host's own objcopy knows no i386).
	run_logged "$obj/index.log" "$what: index its debug info for gdb and crash" \
		env GDB="$(host_gdb)" OBJCOPY="${cross}objcopy" gdb-add-index "$obj/vmlinux"
	touch -r "$obj/vmlinux.linked" "$obj/vmlinux"
	rm -f "$obj/vmlinux.linked"
	readelf -S "$obj/vmlinux" | grep -q '\.gdb_index' ||
		say "$what: gdb-add-index made no index (see $obj/index.log): gdb and crash will be slower"
fi
# An exercise's stamp changes with every build: its modules follow it.
case $k in e*) key="$key $(stat -c %Y "$obj/vmlinux")" ;; esac
sizes > "$obj/kernel.sizes"
echo "$key" > "$obj/kernel.stamp"
