#!/bin/sh
# vm/host/other-release.sh VERSION|FILE.deb: another 6.1 point release's
# tree, for a maintainer's `make check-release LINUX_SOURCE=...`: the
# linux-source-6.1 package of that version (apt-get download, while
# Debian's archive has it) or the .deb given, unpacked into the build
# cache. Prints "VERSION TARBALL": the package's version, and the
# tarball the stages are then built from (lib.sh's TARBALL).
. "$(dirname "$0")/lib.sh"

want=${1:?usage: other-release.sh VERSION|FILE.deb}
cache=$BUILD/deps/linux-source
mkdir -p "$cache"
case $want in
*.deb)	[ -r "$want" ] || die "no such package file: $want"
	deb=$(cd "$(dirname "$want")" && pwd)/$(basename "$want") ;;
*)	deb=$(ls "$cache"/linux-source-6.1_"$want"_all.deb 2>/dev/null || true)
	if [ -z "$deb" ]; then
		say "fetching linux-source-6.1=$want from Debian's archive"
		(cd "$cache" && apt-get download "linux-source-6.1=$want" </dev/null >&2) ||
			die "apt-get download linux-source-6.1=$want failed: the archive may no longer have that version (apt-cache policy linux-source-6.1 lists those it has)"
		deb=$(ls "$cache"/linux-source-6.1_"$want"_all.deb)
	fi ;;
esac
version=$(dpkg-deb -f "$deb" Version) || die "$deb is not a Debian package"
[ "$(dpkg-deb -f "$deb" Package)" = linux-source-6.1 ] || die "$deb is not linux-source-6.1"
out=$cache/$version
if [ ! -f "$out/usr/src/linux-source-6.1.tar.xz" ]; then
	rm -rf "$out.tmp"
	rm -rf "$out"
	dpkg-deb -x "$deb" "$out.tmp" && mv "$out.tmp" "$out"
fi
echo "$version $out/usr/src/linux-source-6.1.tar.xz"
