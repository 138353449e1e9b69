#!/bin/sh
# gdb-scripts/registry.sh COMMANDS|FUNCTIONS: the workbook's ks- gdb commands,
# or its $ functions, as they registered themselves when gdb loaded them
# (gdb-scripts/kstack/stacks.py's COMMANDS and FUNCTIONS), on one line, in
# that order. book/reference.sh and make help list them from here; gdb
# loads the commands with no vmlinux, so it runs anywhere.
# This host's gdb (vm/hosts.toml): make's HOST_GDB, else asked.
gdb=${HOST_GDB:-$(cd "$(dirname "$0")/.." && python3 -m vm.session.facts host gdb)}
"$gdb" -q -nx -batch -x "$(dirname "$0")/load.py" \
	-ex "python from kstack import stacks; print(' '.join(stacks.${1:?usage: registry.sh COMMANDS|FUNCTIONS}))" \
	</dev/null 2>/dev/null | tail -n 1
