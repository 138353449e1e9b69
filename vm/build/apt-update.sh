#!/bin/sh
# vm/build/apt-update.sh: 'apt-get update', retried while the mirror syncs.
#
# A Debian mirror in the middle of a sync serves an index whose size does
# not match its Release file ("File has unexpected size ... Mirror sync in
# progress?"), and apt-get update exits 100. Minutes later it is whole
# again. So try a few times, waiting longer each time; if it still fails,
# say so and go on with the lists apt has: the install that follows names
# what it cannot find.
set -u
wait=15
for try in 1 2 3 4 5; do
	apt-get -o DPkg::Lock::Timeout=600 update -q && exit 0
	[ "$try" = 5 ] && break
	echo "[apt-update.sh] apt-get update failed (try $try of 5); a mirror sync may be in progress: trying again in $wait s" >&2
	sleep "$wait"
	wait=$((wait * 2))
done
echo "[apt-update.sh] warning: apt-get update still fails after 5 tries; going on with the package lists apt already has" >&2
exit 0
