#!/bin/sh
# labs/6/grade.sh [ANSWERS]: grade lab 6 (make grade N=6): run crash on
# the lab's dump (vm/crash.sh, which makes it if needed) with the lab's
# commands (labs/6/crash.cmds) and check what it shows. ANSWERS: lines of
# "key = value" (panic_task, cpus), checked against the same run.
. "$(dirname "$0")/../../vm/lib.sh"

answers=${1:-}
stage=$(cat "$TOP/labs/6/stage")
log=$BUILD/run/lab6-crash.log
mkdir -p "$BUILD/run"
"$TOP/vm/crash.sh" "$stage" "$TOP/labs/6/crash.cmds" > "$log" 2>&1 || true

results=
check() { if eval "$1"; then results="${results}ok - $2
"; else results="${results}not ok - $2
"; fi; }
has() { grep -q -- "$1" "$log"; }
# section NAME: the output of the command after "echo ==== NAME".
section() { awk -v h="==== $1" '$0 == h { on = 1; next } /^==== / { on = 0 } on' "$log"; }
value() { sed -n "s/^ *$1: *//p" "$log" | head -n 1; }

panic=$(value PANIC)
cpus=$(value CPUS)
tasks=$(value TASKS)
task=$(sed -n 's/^PID: *[0-9]* *TASK: [0-9a-f]* *CPU: [0-9]* *COMMAND: "\(.*\)"/\1/p' "$log" | head -n 1)
check 'echo "$panic" | grep -q "low stack detected by irq handler"' \
	"crash's sys names the panic: ${panic:-none}"
check '[ "$task" = dd ]' "bt shows the panicking task: ${task:-none}"
frames=$(section "bt -T" | grep -c ' descend at ' || true)
check '[ "$frames" -ge 10 ]' \
	"bt -T finds the recursing function on dd's stack ($frames descend return addresses)"
# The overflowed stack itself: task gives its lowest address, rd (a second
# crash run: commands cannot take values from earlier ones) its lowest
# 2 KB. STACK_END_MAGIC must still be there (the check panicked before
# anything ran off the end) and descend's 0x5a bytes lie within the IRQ-
# entry check's line above it (sizeof(thread_info) + THREAD_SIZE/8 = 1040).
stack=$(section task | sed -n 's/^ *stack = \(0x[0-9a-f]*\),*$/\1/p' | head -n 1)
if [ -n "$stack" ]; then
	printf 'echo ==== rd\nrd %s 512\nquit\n' "$stack" > "$BUILD/run/lab6-rd.cmds"
	"$TOP/vm/crash.sh" "$stage" "$BUILD/run/lab6-rd.cmds" >> "$log" 2>&1 || true
fi
bottom=$(section rd | awk 'NR == 1 { print $2 }')
# The first 0x5a word: its line's address and its place on the line.
first=$(section rd | awk '{ for (i = 2; i <= 5; i++) if ($i == "5a5a5a5a") {
	a = $1; sub(":", "", a); print a, (i - 2) * 4; exit } }')
pad=
[ -z "$first" ] || pad=$(( 0x${first% *} + ${first#* } - stack ))
check '[ "$bottom" = 57ac6e9d ] && [ -n "$pad" ] && [ "$pad" -lt 1040 ]' \
	"rd at dd's stack ${stack:-?}: the end magic ${bottom:-?} intact, descend's 0x5a bytes from ${pad:-?} bytes above it"
check 'section log | grep -q "low stack detected by irq handler" && section log | grep -q "descend+"' \
	"crash's log has the IRQ-entry check's report with descend in its trace"
# panic() took the other CPU offline before the dump (stop_this_cpu()
# clears it from cpu_online_mask): crash counts online CPUs.
check '[ "$cpus" = 1 ]' "sys counts the CPUs left online by panic(): ${cpus:-none}"
# crash's own task table (sys, ps) holds only the active and idle tasks
# here, although the kernel's task list is intact: see labs/6/README.md.
listed=$(section tasks | grep -c '^ *pid = ' || true)
check '[ "$listed" -gt 20 ] && section tasks | grep -q "comm = \"dd"' \
	"walking init_task.tasks finds every task, dd among them ($listed; crash's sys says TASKS: ${tasks:-none})"
# Why: this 6.1.y tree ends struct pid in a flexible numbers[] (the 6.5
# change, backported), so sizeof(struct pid) stops where numbers[0]
# begins. crash 8.0.2 reads sizeof(struct pid) bytes of each pid in the
# IDR and takes numbers[0].ns from past them: no pid matches init_pid_ns.
pid_size=$(section 'struct pid' | sed -n 's/^SIZE: *//p')
numbers_at=$(section 'struct pid' | sed -n 's/^ *\[\([0-9]*\)\] struct upid numbers\[\];.*/\1/p')
check '[ -n "$pid_size" ] && [ "$numbers_at" = "$pid_size" ] && [ "${tasks:-0}" -lt "$listed" ]' \
	"struct pid ends in numbers[] at offset ${numbers_at:-?} = its size ${pid_size:-?}: crash 8.0.2 reads upid past the pid, so its table keeps ${tasks:-?} of $listed tasks"

if [ -n "$answers" ]; then
	while IFS= read -r line; do
		case $line in ''|'#'*) continue ;; esac
		key=$(echo "${line%%=*}" | tr -d ' \t'); given=$(echo "${line#*=}" | tr -d ' \t')
		case $key in
		panic_task) want=$task ;;
		cpus) want=$cpus ;;
		*) results="${results}not ok - answer $key: lab 6 asks no such question (it asks: panic_task cpus)
"; continue ;;
		esac
		if [ "$given" = "$want" ]; then
			results="${results}ok - answer $key = $given
"
		else
			results="${results}not ok - answer $key = $given, but crash shows $want
"
		fi
	done < "$answers"
fi

printf '%s' "$results"
p=$(printf '%s' "$results" | grep -c '^ok - ' || true)
f=$(printf '%s' "$results" | grep -c '^not ok - ' || true)
echo "lab 6: $p passed, $f failed (log: $log)"
[ "$f" -eq 0 ]
