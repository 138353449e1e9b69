# No host-side step runs an i386 program: the host's kernel may have no
# IA32 emulation, and a project that runs one only works on some machines.
# Packing the initramfs, lab 6's crash session and lab 0's grader run under
# strace, which logs every program the host starts (tried or done); none
# may be a 32-bit x86 ELF (tests/i386-execs.py). The same inspection must
# catch the old way of listing busybox's applets, running the i386 busybox
# on the host, or it proves nothing.
. "$TOP/vm/host/lib.sh"
. "$TOP/tests/lib.sh"

logs=$BUILD/check/execs
rm -rf "$logs"
mkdir -p "$logs"
traced() {
	name=$1; shift
	strace -f --seccomp-bpf -qq -s 4096 -e trace=execve,execveat -o "$logs/$name.strace" "$@" >&2
}

busybox=$BUILD/deps/busybox/bin/busybox
traced old-busybox-list sh -c '"$1" --list-full > /dev/null' x "$busybox" || true
if ! python3 "$TOP/tests/i386-execs.py" "$logs/old-busybox-list.strace" >&2; then
	ok "the inspection catches the host running the i386 busybox (the old initramfs script)"
else
	not_ok "the inspection catches the host running the i386 busybox (the old initramfs script)"
fi

traced initramfs "$TOP/vm/host/initramfs.sh" "$logs/initramfs.cpio" ||
	not_ok "make initramfs's script runs under strace"
# Lab 6's crash session as vm/session/crash.py runs it in batch (lab 6's grader
# does the same), on lab 6's stage: it must show crash's report of the
# panic (sys: PANIC).
traced crash python3 -c 'import sys; 
from vm.session import crash, facts
with open(sys.argv[2]) as f:
    out = crash.run(facts.lab(6)["stage"], f.read().splitlines())
print(out)
sys.exit("PANIC:" not in out)' "$TOP/vm" "$TOP/labs/6/crash.cmds" > /dev/null ||
	not_ok "lab 6's crash session runs under strace"
traced grade0 python3 -m vm.session.ks grade 0 > /dev/null ||
	not_ok "lab 0's grader runs under strace and passes"
for step in initramfs crash grade0; do
	bad=$(python3 "$TOP/tests/i386-execs.py" "$logs/$step.strace" 2>&1) && rc=0 || rc=$?
	echo "$step: $bad" >&2
	if [ $rc = 0 ]; then
		ok "$step: no i386 program run on the host ($(echo "$bad" | tail -n 1))"
	else
		not_ok "$step: no i386 program run on the host ($bad)"
	fi
done
