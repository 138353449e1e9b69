#!/bin/sh
# labs/6/lab.sh: lab 6 is a post-mortem, not a gdb session: make the dump
# of the lab's stage (once) and open it with crash (vm/crash.sh).
. "$(dirname "$0")/../../vm/lib.sh"
cat <<'TXT'
==== Lab 6: post-mortem with crash (stage 2: an overflow panic) ====
Try:  sys              the panic message, CPUs, tasks
      ps               the tasks crash finds (see README: only 2)
      list -o task_struct.tasks -s task_struct.comm,pid -h init_task
                       every task, from the kernel's own task list
      bt               the panicking task's stack at the panic
      bt -t            every text address on that stack: the recursion
      task             its task_struct;  rd -s ADDR 32: words as symbols
      log | tail -40   the kernel log, with the IRQ-entry check's report
      quit
See labs/6/README.md.
TXT
exec "$TOP/vm/crash.sh" "$(cat "$TOP/labs/6/stage")"
