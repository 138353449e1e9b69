#!/bin/sh
# vm/gdb.sh STAGE PORT [GDB ARGS...]: gdb on stage STAGE's vmlinux, attached
# to the QEMU gdbstub on 127.0.0.1:PORT, with the kernel's lx-* helpers
# auto-loaded (the safe path covers the build folder, so no ~/.gdbinit is
# needed) and the project's gdb-scripts/. The caller adds -batch and
# scripts, or nothing for an interactive session. One executable, so that
# timeout(1) and the checks can run it without sourcing anything.
. "$(dirname "$0")/lib.sh"

stage=${1:?usage: gdb.sh STAGE PORT [GDB ARGS...]}
port=${2:?usage: gdb.sh STAGE PORT [GDB ARGS...]}
shift 2
exec gdb -q -nx \
	-iex "add-auto-load-safe-path $BUILD" \
	-iex "set confirm off" \
	-iex "set pagination off" \
	-ex "source $TOP/gdb-scripts/load.py" \
	-ex "target remote 127.0.0.1:$port" \
	"$@" "$(stage_obj "$stage")/vmlinux"
