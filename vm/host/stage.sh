#!/bin/sh
# vm/host/stage.sh K: stage K's kernel, then the lab modules built against
# it: what every lab and check needs of a stage (each step a no-op when
# nothing changed). Each runs in a subshell of this script, with its
# arguments, rather than as a program of its own: a warm `make lab`
# starts as few programs as it can. (Not in an && list: POSIX lets a
# shell ignore set -e there, and a failed step could go unnoticed.)
here=$(dirname "$0")
(. "$here/kernel.sh")
rc=$?
[ "$rc" = 0 ] || exit "$rc"
. "$here/modules.sh"
