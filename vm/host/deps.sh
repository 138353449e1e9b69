#!/bin/sh
# vm/host/deps.sh: make sure the host has what the project needs.
#
# Debian packages are checked with one dpkg-query call (under a second when
# all are present). The guest's busybox is the i386 static build, fetched
# with 'apt-get download' and unpacked into the build cache: nothing is
# installed on the host for it.
. "$(dirname "$0")/lib.sh"

# What the scripts call that a minimal Debian may lack, besides the build
# tools: patch (stage trees), xz-utils (the tarball), perl (checkpatch.pl),
# procps (pgrep), binutils (strings), strace (the check that nothing i386
# runs on the host). The i386 libraries are what the i386 crash (lab 6)
# runs on: crash:i386 itself is only unpacked into the build cache, since
# installing it would remove the host's gcc and binutils. No i386 program
# ever runs on the host itself: many kernels have no IA32 emulation, so
# crash runs under QEMU's user-mode emulator (qemu-user's qemu-i386) on
# every host, and the guest's busybox only ever runs in the guest. Lab
# 7's x86_64 dump is read by Debian's own crash and drgn, host programs.
# bubblewrap is make grade-class's sandbox; slurmctld, slurmd,
# slurm-client and munge its SCHEDULER=slurm (check 98 starts a node of
# its own, vm/host/slurm-node.sh; on a systemd host Debian starts
# munged, a local daemon, and leaves slurmctld and slurmd off until
# /etc/slurm/slurm.conf exists). python3-terminado and node-xterm are
# make serve's terminals (book/serve/).
PACKAGES="linux-source-6.1 qemu-system-x86 qemu-user make
flex bison bc libelf-dev libssl-dev dwarves cpio ccache asciidoctor patch
xz-utils perl procps binutils python3 strace ruby-rouge ruby-asciidoctor-pdf chromium poppler-utils
crash python3-drgn bubblewrap slurmctld slurmd slurm-client munge python3-terminado node-xterm
${KS_EXTRA_PACKAGES:-}"
# This host's compilers and gdb (vm/hosts.toml's record: the host's gcc
# and gdb on amd64, cross compilers and gdb-multiarch on arm64).
PACKAGES="$PACKAGES $(py vm.session.facts host packages | tr '\n' ' ')"
PACKAGES="$PACKAGES libc6:i386 libgcc-s1:i386 liblzo2-2:i386 libncursesw6:i386
libsnappy1v5:i386 libstdc++6:i386 libtinfo6:i386 libzstd1:i386"
CRASH=$BUILD/deps/crash/usr/bin/crash

# A package counts as present when dpkg has its files on disk: installed,
# or unpacked / half-configured / awaiting triggers while another apt run
# upgrades it (the second letter of the status). Only "not installed" and
# "config files only" are missing; a transient state never starts an
# install of its own.
missing_packages() {
	# shellcheck disable=SC2086
	dpkg-query -W -f='${db:Status-Abbrev} ${Package} ${binary:Package}\n' $PACKAGES 2>/dev/null |
		awk -v want="$PACKAGES" 'substr($1, 2, 1) ~ /[iUFWtH]/ { have[$2]; have[$3] }
			END { n = split(want, w); for (i = 1; i <= n; i++) if (!(w[i] in have)) print w[i] }'
}

# The guests' busyboxes and the i386 libraries need apt to know their
# architectures (vm/hosts.toml's foreign: i386; amd64 too on arm64).
for arch in $(py vm.session.facts host foreign); do
	dpkg --print-foreign-architectures | grep -qx "$arch" && continue
	[ "$(id -u)" = 0 ] || die "the $arch architecture is not enabled in apt (a guest's busybox, or lab 6's crash, is $arch). Run:
    sudo dpkg --add-architecture $arch && sudo apt-get update"
	say "enabling the $arch architecture in apt"
	dpkg --add-architecture "$arch"
	sh "$TOP/vm/host/apt-update.sh"
done

need=$(missing_packages | tr '\n' ' ')
if [ -n "$need" ]; then
	need=${need% }
	if [ "$(id -u)" != 0 ]; then
		die "missing Debian packages: $need. Install them with:
    sudo apt-get install $need"
	fi
	say "installing Debian packages: $need"
	# Another apt (unattended-upgrades, say) may hold dpkg's lock: wait for
	# it rather than fail.
	sh "$TOP/vm/host/apt-update.sh"
	# shellcheck disable=SC2086
	DEBIAN_FRONTEND=noninteractive apt-get -o DPkg::Lock::Timeout=600 install -y -q $need
	need=$(missing_packages | tr '\n' ' ')
	[ -z "$need" ] || die "apt-get did not install: $need"
fi

# fetch_deb PACKAGE FOLDER: download a Debian package and unpack it into
# the build cache (nothing is installed).
# apt downloads as its own user, _apt, which must be able to write the
# folder: a fresh one under /tmp, given to _apt when root runs this (in
# the build folder, apt would warn "Download is performed unsandboxed as
# root" for each package).
fetch_deb() {
	rm -rf "$2" "$2.tmp"
	mkdir -p "$(dirname "$2")"
	dl=$(mktemp -d)
	[ "$(id -u)" != 0 ] || ! id _apt > /dev/null 2>&1 || chown _apt "$dl"
	say "fetching $1 into $BUILD/deps"
	(cd "$dl" && apt-get download -q "$1") || {
		rm -rf "$dl"
		die "could not download $1; if apt says it is unknown, run: sudo apt-get update"
	}
	dpkg -x "$dl"/*.deb "$2.tmp"
	mv "$2.tmp" "$2"
	rm -rf "$dl"
}

# Each machine's guest runs its own busybox-static (vm/stages.toml's
# records: the package, and the folder under build/deps).
busyboxes=$(py vm.session.facts busyboxes)
set -- $busyboxes
while [ $# -ge 2 ]; do
	dir=$BUILD/deps/$1 pkg=$2
	shift 2
	[ ! -x "$dir/bin/busybox" ] || continue
	fetch_deb "$pkg" "$dir" < /dev/null
	[ -x "$dir/bin/busybox" ] || die "$pkg did not contain bin/busybox"
done

if [ ! -x "$CRASH" ]; then
	fetch_deb crash:i386 "$BUILD/deps/crash"
	[ -x "$CRASH" ] || die "crash:i386 did not contain usr/bin/crash"
fi

# Under sudo, hand the cache back to the learner, who runs the labs
# without root.
if [ -n "${SUDO_UID:-}" ]; then
	chown "$SUDO_UID:$SUDO_GID" "$BUILD"
	chown -R "$SUDO_UID:$SUDO_GID" "$BUILD/deps"
fi
