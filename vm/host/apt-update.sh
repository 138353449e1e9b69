#!/bin/sh
# vm/host/apt-update.sh: 'apt-get update', retried while the mirror syncs.
#
# A Debian mirror in the middle of a sync serves an index whose size does
# not match its Release file ("File has unexpected size ... Mirror sync in
# progress?"), and apt-get update exits 100, although every other index
# came down. The mirror may be whole a minute later, or only after its
# next sync. So try three times, waiting longer each time (a minute in
# all); if it still fails, say so and go on with the lists apt has: the
# install that follows names what it cannot find.
set -u
wait=20
for try in 1 2 3; do
	apt-get -o DPkg::Lock::Timeout=600 update -q && exit 0
	[ "$try" = 3 ] && break
	echo "[apt-update.sh] apt-get update failed (try $try of 3); a mirror sync may be in progress: trying again in $wait s" >&2
	sleep "$wait"
	wait=$((wait * 2))
done
echo "[apt-update.sh] warning: apt-get update still fails after 3 tries; going on with the package lists apt already has" >&2
exit 0
