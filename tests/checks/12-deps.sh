# make deps: with everything present it does nothing; run by a
# user who is not root while a package is missing, it prints the exact
# sudo line and stops (the missing package is a made-up name added with
# KS_EXTRA_PACKAGES, so nothing is ever installed).
. "$TOP/vm/host/lib.sh"
. "$TOP/tests/lib.sh"

# "Quickly" is measured, not asserted (a loaded host is slow too): what
# must hold is that nothing is run, the apt commands above all.
t0=$(date +%s%N)
out=$("$TOP/vm/host/deps.sh" 2>&1) && rc=0 || rc=$?
ms=$(( ($(date +%s%N) - t0) / 1000000 ))
if [ $rc = 0 ] && [ -z "$out" ]; then
	ok "make deps with everything present does nothing, silently ($ms ms)"
else
	not_ok "make deps with everything present does nothing, silently (exit $rc, $ms ms: $out)"
fi

if [ "$(id -u)" = 0 ]; then
	as_user() { setpriv --reuid=nobody --regid=nogroup --clear-groups "$@"; }
else
	as_user() { "$@"; }
fi
out=$(as_user env KS_EXTRA_PACKAGES=kstack-no-such-package "$TOP/vm/host/deps.sh" 2>&1) && rc=0 || rc=$?
echo "$out" >&2
if [ $rc != 0 ] && echo "$out" | grep -qx '    sudo apt-get install kstack-no-such-package'; then
	ok "a missing package, not root: the exact sudo apt-get line, and a stop"
else
	not_ok "a missing package, not root: the exact sudo apt-get line, and a stop (exit $rc)"
fi
