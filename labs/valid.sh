#!/bin/sh
# labs/valid.sh N: succeed quietly when N names a lab whose stage can be
# built; otherwise name the valid labs and fail. Run before anything is
# built or started, so a typo costs nothing.
. "$(dirname "$0")/../vm/lib.sh"

labs() {
	for d in "$TOP"/labs/[0-9]*/; do
		n=$(basename "$d")
		{ [ -f "$d/lab.gdb" ] || [ -x "$d/lab.sh" ]; } &&
			valid_stage "$(cat "$d/stage" 2>/dev/null)" && echo "$n"
	done | sort -n | tr '\n' ' '
}

n=${1:-}
case $n in ''|*[!0-9]*) ;; *) [ -d "$TOP/labs/$n" ] && labs | grep -qw "$n" && exit 0 ;; esac
die "unknown lab N='$n'; valid labs: $(labs)(e.g. make lab N=0)"
