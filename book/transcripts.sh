#!/bin/sh
# book/transcripts.sh: make the workbook's transcripts (make transcripts).
#
# For each book/transcripts/labN.gdb: boot lab N's stage as `make lab`
# does, run labs/N/lab.gdb and then the walk in gdb batch mode, and write
# the session to build/book/transcripts/labN.txt, headed by what it was
# run on. Addresses and pids are kept as they were, and labelled so.
. "$(dirname "$0")/../vm/lib.sh"
. "$TOP/vm/run.sh"

out=$BUILD/book/transcripts
KS_FIGURES=$BUILD/book/figures
export KS_FIGURES
mkdir -p "$out" "$KS_FIGURES"
trap 'vm_stop' EXIT
for walk in "$TOP"/book/transcripts/lab*.gdb; do
	n=$(basename "$walk" .gdb); n=${n#lab}
	stage=$(cat "$TOP/labs/$n/stage")
	guest=
	[ -f "$TOP/labs/$n/guest.sh" ] && guest=/labs/$n/guest.sh
	# Where lab 2's walk ends (a CPU on its hardirq stack), the same session
	# draws the figure of the stacks (book/stackfig.py, silent).
	figure=
	[ "$n" = 2 ] && figure=$TOP/book/stackfig.py
	vm_start "$stage" halted "$guest"
	rc=0
	session=$(timeout -k 5 120 "$TOP/vm/gdb.sh" "$stage" "$GDB_PORT" -batch \
		-x "$TOP/labs/guard.py" -x "$TOP/labs/$n/lab.gdb" -x "$walk" \
		${figure:+-ex "set trace-commands off" -x "$figure"} </dev/null 2>&1) || rc=$?
	if [ $rc != 0 ]; then
		echo "$session" | tail -n 5 >&2
		vm_explain "lab $n's transcript: gdb failed (exit $rc$([ $rc != 124 ] || echo ': no end within 120 s'))"
		exit 1
	fi
	vm_stop
	{
		echo "# A real session: stage $stage, $(uname -r -s) host, $(qemu-system-i386 --version | head -n 1),"
		echo "# $(gdb --version | head -n 1), $(date -u +%F). Addresses and pids are this run's."
		# From the lab's banner on: the boot and attach lines are noise.
		echo "$session" | sed -n '/^==== Lab /,$p' | grep -a -v -e '^\[Inferior 1 (process 1) detached\]' -e '^+set trace-commands off$'
	} > "$out/lab$n.txt.tmp"
	mv "$out/lab$n.txt.tmp" "$out/lab$n.txt"
	say "lab $n: $out/lab$n.txt"
done

# Lab 6 is a crash session: its commands, without the kernel log.
stage=$(cat "$TOP/labs/6/stage")
{
	echo "# A real crash session: stage $stage, crash 8.0.2 (Debian i386, run by qemu-i386), $(date -u +%F)."
	"$TOP/vm/crash.sh" "$stage" "$TOP/labs/6/crash.cmds" 2>&1 | awk '/^==== log$/ { exit } { print }'
} > "$out/lab6.txt.tmp" || die "lab 6's transcript: crash failed"
mv "$out/lab6.txt.tmp" "$out/lab6.txt"
say "lab 6: $out/lab6.txt"
