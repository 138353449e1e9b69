#!/bin/sh
# vm/host/ahead.sh K: build stage K (its kernel and lab modules) in the
# background. vm/session/ks runs it for the next lab's stage while a learner works
# in a lab, so that `make lab N=N+1` finds it built. AHEAD=0 turns it off.
#
# The build runs detached (setsid), so quitting the lab does not end it.
# It yields the machine to the guest and gdb:
# - the SCHED_IDLE policy (chrt --idle), where the kernel allows it: a
#   sliver of a busy core (weight 3 against a normal task's 1024), and a
#   waking guest thread takes the core from it at once;
# - nice 19 (what ps and top show) and ionice idle, for its disk I/O;
# - a new session is a new scheduling autogroup (Debian's kernels group
#   tasks by session), and the group itself is niced too: otherwise the
#   group, and so the build, would get half the machine whatever its
#   tasks' priority.
# At a gdb prompt the guest is halted, and the build gets the idle cores.
# It takes the same build lock as any build: a `make lab` that needs the
# stage waits for it, showing its progress, instead of starting a second
# build. vm/host/kernel.sh writes the stage's stamp last, so a build stopped
# half-way is never taken for complete.
# Log: build/ahead.log.
. "$(dirname "$0")/lib.sh"

# ahead.sh --build K: the build itself, in its new session.
if [ "${1:-}" = --build ]; then
	[ ! -w /proc/self/autogroup ] || echo 19 > /proc/self/autogroup
	idle=
	! chrt --idle 0 true 2>/dev/null || idle='chrt --idle 0'
	exec $idle nice -n 19 ionice -c 3 "$TOP/vm/host/stage.sh" "$2"
fi

k=${1:?usage: ahead.sh STAGE}
[ "${AHEAD:-1}" != 0 ] || exit 0
(set -- --built "$k"; . "$TOP/vm/host/kernel.sh") && exit 0

say "the next lab's stage $k is not built yet: building it in the background (log: $BUILD/ahead.log; AHEAD=0 turns this off)"
setsid "$0" --build "$k" > "$BUILD/ahead.log" 2>&1 < /dev/null &
