#!/bin/sh
# tests/arm64-chroot.sh [DIR]: a maintainer's test of an arm64 host, outside
# make check: an arm64 Debian 12 userland made with debootstrap, run on
# this amd64 machine through qemu-user-static and binfmt_misc, with this
# checkout copied in; in it, the README's first command and lab 0 as a
# learner meets them:
#   sh vm/host/setup.sh && make lab N=0 (quit at the gdb prompt), then
#   make grade N=0.
# Everything in it is emulated (and the guest twice): slow. Each step's
# time goes to DIR/times, its output to DIR/STEP.log. As root; DIR
# defaults to /var/tmp/kstack-arm64 and is kept for the next run (an
# existing userland is not made again). Stop it with: umount DIR/proc
# DIR/sys DIR/dev; the binfmt handler stays registered until reboot.
set -eu
dir=${1:-/var/tmp/kstack-arm64}
top=$(cd "$(dirname "$0")/.." && pwd)
mirror=${MIRROR:-http://deb.debian.org/debian}
[ "$(id -u)" = 0 ] || { echo "arm64-chroot.sh: run it as root" >&2; exit 1; }
mkdir -p "$dir"
step() {
	name=$1
	shift
	t0=$(date +%s)
	echo "[arm64-chroot] $name ..." >&2
	if "$@" > "$dir/$name.log" 2>&1; then
		echo "$name $(( $(date +%s) - t0 )) s" | tee -a "$dir/times" >&2
	else
		echo "$name FAILED after $(( $(date +%s) - t0 )) s: see $dir/$name.log" | tee -a "$dir/times" >&2
		tail -n 5 "$dir/$name.log" >&2
		exit 1
	fi
}
# The emulator, for arm64 programs only: i386 programs keep the host's
# own answer (a host without IA32 emulation must stay one).
install_emulator() {
	DEBIAN_FRONTEND=noninteractive apt-get install -y -q qemu-user-static debootstrap binfmt-support < /dev/null
	mountpoint -q /proc/sys/fs/binfmt_misc || mount -t binfmt_misc binfmt_misc /proc/sys/fs/binfmt_misc
	update-binfmts --enable qemu-aarch64
}
step emulator install_emulator
root=$dir/root
[ -x "$root/bin/sh" ] || step debootstrap debootstrap --arch=arm64 --variant=minbase bookworm "$root" "$mirror"
# The security suite too, as a Debian 12 host has it: its linux-source-6.1
# is the one the series is checked against.
cat > "$root/etc/apt/sources.list" <<EOF
deb $mirror bookworm main
deb $mirror bookworm-updates main
deb http://deb.debian.org/debian-security bookworm-security main
EOF
cp /etc/resolv.conf "$root/etc/resolv.conf"
for m in proc sys dev; do mountpoint -q "$root/$m" || mount --bind "/$m" "$root/$m"; done
# The checkout as it is (its uncommitted changes too); its build folder
# stays, so that a run cut short goes on where it stopped.
ref=$(git -C "$top" stash create)
step copy sh -c "mkdir -p '$root/work' && find '$root/work' -mindepth 1 -maxdepth 1 ! -name build -exec rm -rf {} + && git -C '$top' archive ${ref:-HEAD} | tar -x -C '$root/work'"
in_root() { chroot "$root" /usr/bin/env -i PATH=/usr/sbin:/usr/bin:/sbin:/bin HOME=/root LANG=C.UTF-8 "$@"; }
step uname in_root uname -m
step setup in_root sh -c 'cd /work && apt-get update && sh vm/host/setup.sh'
# AHEAD=0: no build of lab 1's stage in the background, which would go
# on, emulated, after this script.
step lab in_root env AHEAD=0 sh -c 'cd /work && echo quit | make lab N=0'
# The guest runs emulated twice here, several times slower than on a
# real arm64 host: the grader gets 900 s, not the 120 s a learner's has.
step grade in_root env KS_GRADE_TIMEOUT=900 sh -c 'cd /work && make grade N=0 ANSWERS=/dev/null'
cat "$dir/times"
