# A lab never shows a stop it did not reach. Lab 0 is opened as `make lab`
# opens it (vm/session/ks lab), with a guest that dies before the lab's stop in
# each way a guest can:
#   panic:   an image with no /init ("No working init found");
#   exit:    an /init that ends the run at once (qemu-exit 7);
#   hang:    an /init that spins: no device interrupt ever comes, and the
#            lab's deadline (LAB_TIMEOUT) ends it;
#   no RAM:  MEM=8, too little memory for the kernel to reach its
#            console (it prints nothing; the deadline ends it);
# and the graders of lab 0 and lab 3 (vm/session/ks grade), in batch mode, with
# the image that panics.
# Each must exit non-zero, print no lab banner and no gdb "Error in sourced
# command file" (the guard has said why), say why (the kernel's own
# words where it said any), and leave no QEMU behind.
. "$TOP/vm/host/lib.sh"
. "$TOP/tests/lib.sh"

tmp=$BUILD/check/guest-death
rm -rf "$tmp"
mkdir -p "$tmp/root"

# An archive with no /init: made with cpio directly, since vm/host/initramfs.sh
# refuses to write one (check 14).
echo 'not an init' > "$tmp/root/hello"
(cd "$tmp/root" && echo hello | cpio -o -H newc --quiet) > "$tmp/no-init.cpio"

# image NAME SCRIPT: the guest image with SCRIPT as its /init.
image() {
	printf '#!/bin/busybox sh\n%s\n' "$2" > "$tmp/$1.init"
	INITRAMFS_LIST_HOOK="sed -i 's|^file /init .*|file /init $tmp/$1.init 0755 0 0|' \$1" \
		"$TOP/vm/host/initramfs.sh" "$tmp/$1.cpio" >&2
}
image exit '/bin/qemu-exit 7'
image hang 'while :; do :; done'

# problem RC OUT WORDS LEFT: what is wrong with a run that should have
# died (exit RC, output OUT, WORDS a regular expression it must print,
# LEFT the QEMUs it left), or nothing.
problem() {
	if [ "$1" = 0 ]; then
		echo "exits non-zero (it exited 0)"
	elif echo "$2" | grep -q '==== Lab'; then
		echo "shows no lab banner (it did)"
	elif echo "$2" | grep -q 'Error in sourced command file'; then
		echo "shows no gdb 'Error in sourced command file' after the guard's report (it did)"
	elif ! echo "$2" | grep -Eq "$3"; then
		echo "says why ('$3' not in its output)"
	elif [ -n "$4" ]; then
		echo "leaves no QEMU (left: $4)"
	fi
}

# died WHAT WORDS CMD...: CMD fails, shows no banner, prints WORDS, and
# leaves no QEMU: none of those running after it that were not before.
died() {
	what=$1 words=$2; shift 2
	before=$(pgrep -f qemu-system-i386 || true)
	rc=0
	out=$("$@" < /dev/null 2>&1) || rc=$?
	echo "=== $what (exit $rc)" >&2
	echo "$out" >&2
	left=$(for p in $(pgrep -f qemu-system-i386 || true); do
		echo "$before" | grep -qx "$p" || echo "$p"; done)
	wrong=$(problem "$rc" "$out" "$words" "$left")
	if [ -n "$wrong" ]; then
		not_ok "$what: $wrong"
	else
		ok "$what: exit $rc, no banner, says '$(echo "$out" | grep -Eo "$words" | head -n 1)', no QEMU left"
	fi
}

died "lab 0 with no /init (panic)" 'panic\("No working init found|Kernel panic - not syncing: No working init found' \
	env KS_INITRAMFS="$tmp/no-init.cpio" python3 -m vm.session.ks lab 0
died "lab 0 whose guest exits first" 'ended before the lab.s stop' \
	env KS_INITRAMFS="$tmp/exit.cpio" python3 -m vm.session.ks lab 0
died "lab 0 whose guest hangs" 'no stop within 15 s' \
	env KS_INITRAMFS="$tmp/hang.cpio" LAB_TIMEOUT=15 python3 -m vm.session.ks lab 0
died "lab 0 with MEM=8" 'the kernel printed nothing' \
	env MEM=8 LAB_TIMEOUT=15 python3 -m vm.session.ks lab 0
died "lab 0's grader with no /init (panic)" 'panic\("No working init found|Kernel panic - not syncing: No working init found' \
	env KS_INITRAMFS="$tmp/no-init.cpio" python3 -m vm.session.ks grade 0
# `died` leaves its command's output in $out. Lab 0's guest never dies
# by chance, so its grader fails at once; lab 3's workload can end its
# guest (lab.toml: guest_may_die), so a guest that dies during its
# grading gets one more run, and one that always dies fails after two.
again=$(echo "$out" | grep -c 'grading lab 0 again' || true)
if [ "$again" = 0 ]; then
	ok "lab 0's grader with no /init: fails on its first guest"
else
	not_ok "lab 0's grader with no /init: fails on its first guest (it graded again)"
fi
died "lab 3's grader with no /init (panic)" 'panic\("No working init found|Kernel panic - not syncing: No working init found' \
	env KS_INITRAMFS="$tmp/no-init.cpio" python3 -m vm.session.ks grade 3
again=$(echo "$out" | grep -c 'grading lab 3 again, once' || true)
if [ "$again" = 1 ] && echo "$out" | grep -q '^lab 3: .*, on a second guest'; then
	ok "lab 3's grader with no /init: grades once more on a fresh guest, says so, then fails"
else
	not_ok "lab 3's grader with no /init: grades once more on a fresh guest (said so $again times)"
fi

# A damaged build is not a dead kernel: stage 1's vmlinux cut short is
# found by its size, rebuilt (a relink), and the lab reaches its stop.
vmlinux=$(stage_obj 1)/vmlinux
truncate -s 1000000 "$vmlinux"
out=$(echo quit | AHEAD=0 LAB_TIMEOUT=60 python3 -m vm.session.ks lab 1 2>&1) || true
echo "=== lab 1 with its vmlinux cut short" >&2
echo "$out" >&2
if echo "$out" | grep -q 'vmlinux (1000000 bytes) is not the size it was built with' &&
	echo "$out" | grep -q '==== Lab 1' && ! echo "$out" | grep -q 'hung'; then
	ok "lab 1 with its vmlinux cut short: says so, rebuilds it, reaches the lab's stop"
else
	not_ok "lab 1 with its vmlinux cut short: says so, rebuilds it, reaches the lab's stop"
fi
# The verdict can fail: on this run, which reached its banner, each of
# its tests is told apart.
said=$(problem 1 "$out" 'x' '')
said=$said/$(problem 0 'x' 'x' '')/$(problem 1 'x' 'y' '')/$(problem 1 'x' 'x' 123)
want="shows no lab banner (it did)/exits non-zero (it exited 0)/says why ('y' not in its output)/leaves no QEMU (left: 123)"
if [ "$said" = "$want" ]; then
	ok "the verdict on a run that should have died fails a banner, exit 0, a missing reason, a QEMU left"
else
	not_ok "the verdict on a run that should have died fails a banner, exit 0, a missing reason, a QEMU left (got: $said)"
fi
