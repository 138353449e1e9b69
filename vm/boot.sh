#!/bin/sh
# vm/boot.sh K: boot stage K to a shell on this terminal (make boot).
# The serial console is the terminal; Ctrl-A X quits QEMU, 'exit' in the
# guest's shell ends the run too.
. "$(dirname "$0")/lib.sh"
. "$TOP/vm/run.sh"

k=${1:?usage: boot.sh STAGE}
valid_stage "$k" || die "unknown stage '$k' (stages: $(stages | tr '\n' ' '))"
vm_start "$k" console
