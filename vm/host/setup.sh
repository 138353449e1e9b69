#!/bin/sh
# vm/host/setup.sh: first-time set-up on Debian 12, the README's first command.
# Installs make and python3, then runs 'make deps' (Debian packages, the guest's
# busybox, lab 6's crash) with root rights: directly in a root shell
# (where sudo is often not installed), through sudo otherwise.
set -eu
cd "$(dirname "$0")/../.."

if [ "$(id -u)" = 0 ]; then
	as_root() { "$@"; }
elif command -v sudo >/dev/null; then
	as_root() { sudo "$@"; }
else
	echo "setup.sh: error: installing Debian packages needs root, and sudo is not installed. Run this as root (su -c 'sh vm/host/setup.sh'), then run the labs as yourself." >&2
	exit 1
fi

# make, and python3, which make asks for the project's facts before
# deps.sh can install anything (a minimal Debian has neither).
need=
for p in make python3; do command -v $p >/dev/null || need="$need $p"; done
if [ -n "$need" ]; then
	echo "[setup.sh] installing$need" >&2
	as_root sh vm/host/apt-update.sh
	# shellcheck disable=SC2086
	as_root env DEBIAN_FRONTEND=noninteractive apt-get -o DPkg::Lock::Timeout=600 install -y -q $need
fi
as_root make deps
