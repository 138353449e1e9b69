# Helpers for tests/checks/*.sh: sourced after vm/lib.sh and vm/run.sh.
# A check reports on stdout with ok/not_ok; everything else it prints goes
# to stderr, which the runner keeps in build/check/NAME.log.

ok() { echo "ok - $*"; }
not_ok() { echo "not ok - $*"; }

# expect WHAT COMMAND...: one check line from a command's exit status.
expect() {
	what=$1; shift
	if "$@" >&2; then ok "$what"; else not_ok "$what"; fi
}

# gdb_batch STAGE SCRIPT [TIMEOUT]: run a gdb script in batch mode against
# the guest started with vm_start; its output goes to stdout. A hung gdb is
# killed after TIMEOUT seconds (default 60).
gdb_batch() {
	timeout -k 5 "${3:-60}" sh -c '. "$TOP/vm/lib.sh"; . "$TOP/vm/run.sh"; GDB_PORT=$1; vm_gdb "$2" -batch -x "$3"' \
		gdb_batch "$GDB_PORT" "$1" "$2" < /dev/null
}
