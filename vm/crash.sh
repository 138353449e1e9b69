#!/bin/sh
# vm/crash.sh K [COMMANDS]: open a dump of stage K's kernel with crash
# (make crash N=k). Without COMMANDS, crash is interactive; with a file,
# crash runs its commands and exits (the lab 6 check).
#
# The dump (build/stage-K/vmcore) is made once per kernel: boot stage K
# with lab 6's workload (labs/6/guest.sh: a stack overflow that panics),
# wait for the panic, and have QEMU write the guest's memory as an ELF
# core (monitor: dump-guest-memory). crash is Debian's i386 build,
# unpacked into the build cache by vm/deps.sh. It runs under QEMU's
# user-mode emulator (qemu-i386) on every host, whether or not the host's
# kernel can run i386 programs itself: one path for every machine.
#
# crash 8.0.2 looks up sys_open, sys_fork and sys_read while probing how
# an x86 kernel was built; 6.1 names them __ia32_sys_*. A copy of
# System.map with those three names added lets it start.
. "$(dirname "$0")/lib.sh"
. "$TOP/vm/run.sh"

k=${1:?usage: crash.sh STAGE [COMMANDS]}
commands=${2:-}
obj=$(stage_obj "$k")
crash=$BUILD/deps/crash/usr/bin/crash
vmcore=$(stage_dir "$k")/vmcore
map=$(stage_dir "$k")/crash.map
[ -x "$crash" ] || die "crash is not in the build cache: run 'make deps'"
command -v qemu-i386 >/dev/null || die "qemu-i386 not found (package qemu-user): run 'make deps'"
[ -f "$obj/vmlinux" ] || die "stage $k has no kernel: run 'make kernel N=$k'"

mods=$(stage_dir "$k")/modules.cpio
if [ ! -f "$vmcore" ] || [ "$obj/vmlinux" -nt "$vmcore" ] || [ "$BUILD/initramfs.cpio" -nt "$vmcore" ] \
   || { [ -f "$mods" ] && [ "$mods" -nt "$vmcore" ]; }; then
	trap 'vm_stop; rm -f "$vmcore.tmp"' EXIT
	rm -f "$vmcore" "$vmcore.tmp"
	KS_APPEND="panic=0" vm_start "$k" running /labs/6/guest.sh
	say "stage $k: waiting for lab 6's panic (serial log: $RUN/serial.log)"
	vm_wait_for 'Kernel panic - not syncing' 120 ||
		die "stage $k did not panic: see $RUN/serial.log"
	say "stage $k: $(sed -n 's/.*\(Kernel panic - not syncing: .*\)/\1/p' "$RUN/serial.log" | head -n 1 | tr -d '\r')"
	vm_monitor "dump-guest-memory $vmcore.tmp" >&2
	[ -s "$vmcore.tmp" ] || die "QEMU wrote no dump"
	mv "$vmcore.tmp" "$vmcore"
	vm_stop
	trap - EXIT
	say "stage $k: dump in $vmcore ($(du -m "$vmcore" | cut -f1) MB)"
fi

awk '{ print }
     $3 == "__ia32_sys_open" { print $1, $2, "sys_open" }
     $3 == "__ia32_sys_fork" { print $1, $2, "sys_fork" }
     $3 == "__ia32_sys_read" { print $1, $2, "sys_read" }' "$obj/System.map" > "$map"

if [ -n "$commands" ]; then
	qemu-i386 "$crash" -s "$map" "$obj/vmlinux" "$vmcore" < "$commands"
else
	exec qemu-i386 "$crash" "$map" "$obj/vmlinux" "$vmcore"
fi
