# vm/run.sh: start, watch and stop one QEMU guest. Sourced (after lib.sh)
# by vm/boot.sh, labs/lab.sh and the tests; never run on its own.
#
# Each run gets its own folder, build/run/STAGE-PID/, holding the serial log,
# QEMU's pid, the gdb port and the monitor socket, so two runs in one clone
# never collide. A run never outlives the script that started it: vm_stop
# runs from the caller's exit trap, and a watcher process kills QEMU if that
# script is killed outright (SIGKILL leaves no trap to run).

ACCEL=${ACCEL:-tcg}
CPUS=${CPUS:-2}
MEM=${MEM:-128}
BOOT_TIMEOUT=${BOOT_TIMEOUT:-30}

READY_MARKER=KSTACK-READY

# port_listening PORT: is something listening on 127.0.0.1:PORT? Read from
# /proc/net/tcp rather than by connecting: a connection to QEMU's gdbstub
# would stop the guest.
port_listening() {
	awk -v want="$(printf '0100007F:%04X' "$1")" \
		'$2 == want && $4 == "0A" { found = 1 } END { exit !found }' /proc/net/tcp
}

random_port() {
	echo $(( 20000 + $(od -An -N2 -tu2 /dev/urandom) % 40000 ))
}

# vm_start STAGE MODE [KS_RUN]
#   MODE halted:  QEMU in the background, CPUs stopped until gdb continues;
#   MODE running: QEMU in the background, guest boots at once;
#   MODE console: QEMU in the foreground, serial console on this terminal
#                 (Ctrl-A X quits); returns when QEMU exits.
#   KS_RUN: what the guest's /init does (see vm/init); empty = a shell.
# Sets RUN (the run folder), QEMU_PID and GDB_PORT.
vm_start() {
	stage=$1 mode=$2 ks_run=${3:-}
	obj=$(stage_obj "$stage")
	# KS_INITRAMFS: another guest image (the checks boot broken ones).
	initramfs=${KS_INITRAMFS:-$BUILD/initramfs.cpio}
	[ -f "$obj/arch/x86/boot/bzImage" ] || die "stage $stage has no kernel: run 'make kernel N=$stage'"
	[ -f "$initramfs" ] || die "no initramfs: run 'make initramfs'"
	command -v qemu-system-i386 >/dev/null || die "qemu-system-i386 not found: run 'make deps'"
	[ "$ACCEL" != kvm ] || [ -w /dev/kvm ] ||
		die "ACCEL=kvm, but this machine has no usable /dev/kvm; leave ACCEL unset (TCG)"

	_vm_prune_runs
	RUN=$BUILD/run/$stage-$$
	rm -rf "$RUN"
	mkdir -p "$RUN"
	# The stage's lab modules (vm/modules.sh) ride along as a second cpio
	# archive: the kernel unpacks concatenated archives in order. The pair
	# is joined once per stage and shared by its runs (renamed into place,
	# so a run never sees half of it).
	initrd=$initramfs
	mods=$(stage_dir "$stage")/modules.cpio
	if [ -f "$mods" ] && [ -z "${KS_INITRAMFS:-}" ]; then
		initrd=$(stage_dir "$stage")/initrd.cpio
		key=$(stat -c '%s %y' "$initramfs" "$mods")
		if [ ! -f "$initrd" ] || [ "$(cat "$initrd.key" 2>/dev/null)" != "$key" ]; then
			cat "$initramfs" "$mods" > "$initrd.$$"
			mv "$initrd.$$" "$initrd"
			echo "$key" > "$initrd.key"
		fi
	fi
	append="console=ttyS0 panic=-1"
	[ -z "$ks_run" ] || append="$append ks_run=$ks_run"
	# KS_APPEND: more name=value words, which the kernel hands to /init
	# (and so to the guest script) as environment variables.
	[ -z "${KS_APPEND:-}" ] || append="$append $KS_APPEND"

	# One CPU per socket: without ACPI the kernel finds CPUs in SeaBIOS's
	# MP table, which lists only the first CPU of each socket; QEMU's
	# default topology (all cores in one socket) would leave CPU 1 unseen.
	set -- qemu-system-i386 -M pc -accel "$ACCEL" -smp "$CPUS,sockets=$CPUS" -m "$MEM" \
		-nic none -display none -no-reboot \
		-kernel "$obj/arch/x86/boot/bzImage" -initrd "$initrd" \
		-append "$append" \
		-device isa-debug-exit,iobase=0xf4,iosize=0x04 \
		-monitor "unix:$RUN/monitor.sock,server=on,wait=off" \
		-pidfile "$RUN/qemu.pid" \
		-D "$RUN/qemu-debug.log" -d cpu_reset,guest_errors
	[ "$mode" = halted ] && set -- "$@" -S
	if [ "$mode" = console ]; then
		# mux=on gives the Ctrl-A escapes (Ctrl-A X quits); signal=off
		# sends Ctrl-C to the guest's shell instead of killing QEMU.
		set -- "$@" -chardev "stdio,id=con,mux=on,signal=off,logfile=$RUN/serial.log" \
			-serial chardev:con
	else
		set -- "$@" -serial "file:$RUN/serial.log"
	fi

	# Pick a free loopback port; if another process takes it first, QEMU
	# fails to bind and we try another.
	for try in 1 2 3 4 5; do
		GDB_PORT=$(random_port)
		port_listening "$GDB_PORT" && continue
		echo "$GDB_PORT" > "$RUN/gdb.port"
		# The whole command line, quoted for a shell, for whoever wants to
		# see or rerun it (SHOW=1 prints it).
		for a in "$@" -gdb "tcp:127.0.0.1:$GDB_PORT"; do
			case $a in *[!A-Za-z0-9_./:,=+-]*) printf "'%s' " "$a" ;; *) printf '%s ' "$a" ;; esac
		done > "$RUN/qemu.cmd"
		[ -z "${SHOW:-}" ] || say "QEMU: $(cat "$RUN/qemu.cmd")"
		if [ "$mode" = console ]; then
			say "stage $stage: serial console below, gdb port $GDB_PORT; Ctrl-A X quits"
			rc=0
			"$@" -gdb "tcp:127.0.0.1:$GDB_PORT" || rc=$?
			# An odd code is the guest's qemu-exit: status (rc - 1) / 2.
			[ $((rc % 2)) = 0 ] || rc=$(( (rc - 1) / 2 ))
			return $rc
		fi
		"$@" -gdb "tcp:127.0.0.1:$GDB_PORT" > "$RUN/qemu.log" 2>&1 &
		QEMU_PID=$!
		_vm_watch "$$" "$QEMU_PID"
		i=0
		while kill -0 "$QEMU_PID" 2>/dev/null; do
			port_listening "$GDB_PORT" && return 0
			i=$((i + 1))
			[ $i -lt 200 ] || { vm_stop; die "QEMU did not open its gdb port within 10 s ($RUN/qemu.log)"; }
			sleep 0.05
		done
		wait "$QEMU_PID" 2>/dev/null || true
		grep -q 'Address already in use' "$RUN/qemu.log" || {
			cat "$RUN/qemu.log" >&2
			die "QEMU failed to start (log: $RUN/qemu.log)"
		}
	done
	die "no free gdb port found after 5 tries"
}

# _vm_prune_runs: keep the newest KS_KEEP_RUNS (30) run folders: they hold
# only logs (serial console, QEMU's command line and log, gdb's), which is
# what a failure needs; older ones go.
_vm_prune_runs() {
	[ -d "$BUILD/run" ] || return 0
	ls -1t "$BUILD/run" | tail -n +"$(( ${KS_KEEP_RUNS:-30} + 1 ))" |
		while read -r old; do
			pid=$(cat "$BUILD/run/$old/qemu.pid" 2>/dev/null || true)
			[ -n "$pid" ] && kill -0 "$pid" 2>/dev/null && continue
			rm -rf "${BUILD:?}/run/$old"
		done
}

# vm_deadline SECONDS: a lab's first stop must come within SECONDS. A
# detached watcher ends QEMU if the guard (labs/guard.py) has not marked
# the stop reached by then (RUN/lab-stopped), and says so in
# RUN/deadline-passed for vm_explain. A guest hung before the stop thus
# ends the lab with a cause, instead of a gdb that waits for ever.
vm_deadline() {
	# Started from a subshell, so that it is no job of the caller's: a lab
	# runs gdb with job control, which would print "[N] + Done" at quit.
	( (
		trap '' INT HUP
		i=0
		while [ $i -lt $(($1 * 10)) ]; do
			[ -f "$RUN/lab-stopped" ] && exit 0
			kill -0 "$QEMU_PID" 2>/dev/null || exit 0
			sleep 0.1; i=$((i + 1))
		done
		echo "$1" > "$RUN/deadline-passed"
		kill "$QEMU_PID" 2>/dev/null
	) > /dev/null 2>&1 & )
}

# _vm_watch OWNER QEMU: a detached watcher that kills QEMU once OWNER is
# gone. It kills only a process whose command line names this run's
# folder: once QEMU has exited, its PID may belong to anything.
_vm_watch() {
	(
		trap '' INT HUP
		while kill -0 "$1" 2>/dev/null && kill -0 "$2" 2>/dev/null; do
			sleep 1
		done
		if tr '\0' ' ' < "/proc/$2/cmdline" 2>/dev/null | grep -qF "$RUN/qemu.pid"; then
			kill "$2"
		fi
	) > /dev/null 2>&1 &
}

# vm_wait_for PATTERN [TIMEOUT]: wait until the serial log shows PATTERN (an
# extended regex). Fails, with the log's tail, if QEMU exits first or the
# timeout (seconds, default BOOT_TIMEOUT) passes.
vm_wait_for() {
	limit=$(( $(date +%s) + ${2:-$BOOT_TIMEOUT} ))
	until grep -Eq "$1" "$RUN/serial.log" 2>/dev/null; do
		if ! kill -0 "$QEMU_PID" 2>/dev/null; then
			vm_explain "QEMU exited before the guest printed '$1'"
			return 1
		fi
		if [ "$(date +%s)" -ge "$limit" ]; then
			vm_explain "no '$1' from the guest within ${2:-$BOOT_TIMEOUT} s (hung guest?)"
			return 1
		fi
		sleep 0.05
	done
}

# vm_explain WHAT: say what went wrong, with the reason the serial log gives.
vm_explain() {
	printf '%s: %s\n' "${0##*/}" "$1" >&2
	# cpu_reset logging: a triple fault (a fault while handling a double
	# fault: a blown stack, say) resets the CPU, and -no-reboot ends QEMU
	# without a word from the kernel.
	if grep -q 'Triple fault' "$RUN/qemu-debug.log" 2>/dev/null; then
		printf '  the guest CPU triple-faulted (see %s)\n' "$RUN/qemu-debug.log" >&2
	fi
	if [ -f "$RUN/deadline-passed" ]; then
		printf '  no stop within %s s: the guest hung before it (LAB_TIMEOUT sets the limit)\n' \
			"$(cat "$RUN/deadline-passed")" >&2
	fi
	if grep -q 'Kernel panic' "$RUN/serial.log" 2>/dev/null; then
		printf '  the kernel panicked:\n' >&2
		grep -A3 'Kernel panic' "$RUN/serial.log" | head -n 4 | sed 's/^/    /' >&2
	fi
	if [ ! -s "$RUN/serial.log" ]; then
		printf '  the kernel printed nothing: it never reached its console (MEM=%s MiB;\n' "$MEM" >&2
		printf '  it is loaded at 16 MiB and the labs give it 128)\n' >&2
		return
	fi
	printf '  last lines of %s:\n' "$RUN/serial.log" >&2
	tail -n 8 "$RUN/serial.log" 2>/dev/null | sed 's/^/    /' >&2
}

# vm_wait_exit [TIMEOUT]: wait for QEMU to exit by itself and set
# GUEST_STATUS to the guest's status (from qemu-exit), or to "qemu:RC" when
# QEMU ended otherwise (a panic reboots, and -no-reboot turns that into
# exit code 0). Not in $(...): only this shell can reap QEMU.
vm_wait_exit() {
	limit=$(( $(date +%s) + ${1:-$BOOT_TIMEOUT} ))
	while kill -0 "$QEMU_PID" 2>/dev/null; do
		if [ "$(date +%s)" -ge "$limit" ]; then
			vm_explain "the guest did not exit within ${1:-$BOOT_TIMEOUT} s"
			vm_stop
			return 1
		fi
		sleep 0.05
	done
	rc=0
	wait "$QEMU_PID" 2>/dev/null || rc=$?
	if [ $((rc % 2)) = 1 ]; then
		GUEST_STATUS=$(( (rc - 1) / 2 ))
	else
		GUEST_STATUS=qemu:$rc
	fi
	QEMU_PID=
}

# vm_stop: end QEMU if it still runs (TERM, then KILL) and reap it.
vm_stop() {
	[ -n "${QEMU_PID:-}" ] || return 0
	if kill -0 "$QEMU_PID" 2>/dev/null; then
		kill "$QEMU_PID" 2>/dev/null || true
		i=0
		while kill -0 "$QEMU_PID" 2>/dev/null && [ $i -lt 40 ]; do
			sleep 0.05; i=$((i + 1))
		done
		kill -9 "$QEMU_PID" 2>/dev/null || true
	fi
	wait "$QEMU_PID" 2>/dev/null || true
	rm -f "$RUN/monitor.sock"
	QEMU_PID=
}

# vm_gdb STAGE [GDB ARGS...]: vm/gdb.sh on the running guest (GDB_PORT).
vm_gdb() {
	stage=$1; shift
	"$TOP/vm/gdb.sh" "$stage" "$GDB_PORT" "$@"
}

# vm_monitor COMMAND: run a QEMU monitor command on the running guest and
# print its answer (python3's socket: no socat or nc needed).
vm_monitor() {
	python3 - "$RUN/monitor.sock" "$1" <<'PY'
import socket, sys, time
s = socket.socket(socket.AF_UNIX)
s.connect(sys.argv[1])
s.settimeout(120)
def until_prompt():
    data = b''
    while not data.endswith(b'(qemu) '):
        chunk = s.recv(4096)
        if not chunk:
            break
        data += chunk
    return data.decode(errors='replace')
until_prompt()                      # the banner
s.sendall(sys.argv[2].encode() + b'\n')
out = until_prompt()
print('\n'.join(l for l in out.splitlines()[1:] if not l.startswith('(qemu)')))
PY
}
