#!/bin/sh
# vm/host/initramfs.sh OUT: pack the guest's initramfs (the same for every stage):
# busybox-static:i386 and its /bin/sh link, vm/guest/init (which makes the other
# applet links in the guest), the C guest programs from vm/guest/
# (this host's compiler for the machine, vm/hosts.toml: i686-linux-gnu-gcc
# -m32 -static for i386), each lab's guest script as /labs/N/guest.sh, and the
# checks' guest scripts as /tests/NAME.sh. The archive is made with the
# kernel's own gen_init_cpio, which can create /dev/console without root.
#
# Nothing here runs an i386 program: the host may have no IA32 emulation.
# vm/host/check-initramfs.py reads the finished archive instead, and a guest
# that could not start (no /init, no /bin/sh, no usable busybox) stops the
# build here, naming what is missing, rather than panicking at boot.
. "$(dirname "$0")/lib.sh"

out=${1:?usage: initramfs.sh OUT [MACHINE]}
# MACHINE (vm/stages.toml's [machine.NAME], i386 by default) says which
# busybox, how the guest programs are compiled and which of them go in.
arch=${2:-i386}
record() { py vm.session.facts record "$arch" "$1"; }
cflags=$(record cflags)
cc=$(py vm.session.facts toolchain "$arch" programs)gcc
programs=$(record programs)
# One packer at a time per output; a kernel build may go on meanwhile.
mkdir -p "$(dirname "$out")"
exec 8> "$out.lock"
flock 8
work=$out.d
busybox=$BUILD/deps/$(record busybox)/bin/busybox
[ -x "$busybox" ] || die "no busybox in $BUILD/deps: run 'make deps'"
[ -f "$PRISTINE/usr/gen_init_cpio.c" ] || "$TOP/vm/host/tree.sh" 0

rm -rf "$work"
mkdir -p "$work/bin"
gcc -O2 -o "$work/gen_init_cpio" "$PRISTINE/usr/gen_init_cpio.c"
if [ "$programs" = all ]; then
	set -- "$TOP"/vm/guest/*.c
else
	set --
	for p in $programs; do set -- "$@" "$TOP/vm/guest/$p.c"; done
fi
for c; do
	"$cc" $cflags -static -O2 -Wall -Werror -o "$work/bin/$(basename "$c" .c)" "$c"
done

{
	for d in /bin /sbin /usr /usr/bin /usr/sbin /dev /proc /sys /tmp /root /labs; do
		echo "dir $d 0755 0 0"
	done
	echo "nod /dev/console 0600 0 0 c 5 1"
	echo "file /init $TOP/vm/guest/init 0755 0 0"
	echo "file /bin/busybox $busybox 0755 0 0"
	echo "slink /bin/sh /bin/busybox 0777 0 0"
	for prog in "$work"/bin/*; do
		echo "file /bin/$(basename "$prog") $prog 0755 0 0"
	done
	for g in "$TOP"/labs/*/guest.sh; do
		[ -f "$g" ] || continue
		lab=$(basename "$(dirname "$g")")
		echo "dir /labs/$lab 0755 0 0"
		echo "file /labs/$lab/guest.sh $g 0755 0 0"
	done
	echo "dir /tests 0755 0 0"
	for g in "$TOP"/tests/guest/*.sh; do
		echo "file /tests/$(basename "$g") $g 0755 0 0"
	done
} > "$work/list"

# INITRAMFS_LIST_HOOK: a command that edits the list (the checks use it
# to make a broken image on purpose).
[ -z "${INITRAMFS_LIST_HOOK:-}" ] || sh -c "$INITRAMFS_LIST_HOOK" hook "$work/list"
"$work/gen_init_cpio" "$work/list" > "$out.tmp"
if ! python3 "$TOP/vm/host/check-initramfs.py" "$out.tmp" "$arch"; then
	rm -f "$out.tmp"
	die "the initramfs would not start a guest (above); nothing was written to $out"
fi
mv "$out.tmp" "$out"
rm -rf "$work"
