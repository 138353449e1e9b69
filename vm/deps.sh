#!/bin/sh
# vm/deps.sh: make sure the host has what the project needs.
#
# Debian packages are checked with one dpkg-query call (under a second when
# all are present). The guest's busybox is the i386 static build, fetched
# with 'apt-get download' and unpacked into the build cache: nothing is
# installed on the host for it.
. "$(dirname "$0")/lib.sh"

# The issue's list, plus what the scripts call that a minimal Debian may
# lack: patch (stage trees), xz-utils (the tarball), perl (checkpatch.pl),
# procps (pgrep), binutils (strings).
PACKAGES="linux-source-6.1 qemu-system-x86 gdb gcc gcc-multilib make flex bison
bc libelf-dev libssl-dev dwarves cpio ccache asciidoctor patch xz-utils perl
procps binutils python3 ${KSTACK_EXTRA_PACKAGES:-}"
BUSYBOX=$BUILD/deps/busybox/bin/busybox

missing_packages() {
	# shellcheck disable=SC2086
	installed=$(dpkg-query -W -f='${db:Status-Abbrev} ${Package}\n' $PACKAGES 2>/dev/null |
		awk '$1 == "ii" { print $2 }')
	for p in $PACKAGES; do
		echo "$installed" | grep -qx "$p" || echo "$p"
	done
}

need=$(missing_packages | tr '\n' ' ')
if [ -n "$need" ]; then
	need=${need% }
	if [ "$(id -u)" != 0 ]; then
		die "missing Debian packages: $need. Install them with:
    sudo apt-get install $need"
	fi
	say "installing Debian packages: $need"
	apt-get update -q
	# shellcheck disable=SC2086
	DEBIAN_FRONTEND=noninteractive apt-get install -y -q $need
	need=$(missing_packages | tr '\n' ' ')
	[ -z "$need" ] || die "apt-get did not install: $need"
fi

if [ ! -x "$BUSYBOX" ]; then
	if ! dpkg --print-foreign-architectures | grep -qx i386; then
		[ "$(id -u)" = 0 ] || die "the i386 architecture is not enabled in apt (the guest needs busybox-static:i386). Run:
    sudo dpkg --add-architecture i386 && sudo apt-get update"
		dpkg --add-architecture i386
		apt-get update -q
	fi
	dl=$BUILD/deps/download
	rm -rf "$dl" "$BUILD/deps/busybox"
	mkdir -p "$dl"
	say "fetching busybox-static:i386 into $BUILD/deps"
	(cd "$dl" && apt-get download -q busybox-static:i386) ||
		die "could not download busybox-static:i386; if apt says it is unknown, run: sudo apt-get update"
	dpkg -x "$dl"/busybox-static_*_i386.deb "$BUILD/deps/busybox.tmp"
	mv "$BUILD/deps/busybox.tmp" "$BUILD/deps/busybox"
	rm -rf "$dl"
	[ -x "$BUSYBOX" ] || die "busybox-static:i386 did not contain bin/busybox"
	# Under sudo, hand the cache back to the learner, who runs the labs
	# without root.
	if [ -n "${SUDO_UID:-}" ]; then
		chown "$SUDO_UID:$SUDO_GID" "$BUILD"
		chown -R "$SUDO_UID:$SUDO_GID" "$BUILD/deps"
	fi
fi

