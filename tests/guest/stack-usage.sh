# Guest workload for the stack-usage figures: a short, ordinary workload
# (walk the root file system, read every sysfs file (-xdev keeps out
# debugfs and tracefs, whose trace_pipe would block), fork a few hundred
# processes), then the kernel's own measures:
#  - "used greatest stack depth" lines (DEBUG_STACK_USAGE) go to the
#    console by themselves whenever an exiting task sets a new record;
#  - KernelStack from /proc/meminfo with the thread count read right after
#    it, with shell builtins only, so no task is created in between.
# Not the ftrace stack tracer: switching it on or off patches kernel text
# on a running SMP guest, and under QEMU's multi-threaded TCG the other
# CPU sometimes still executes the int3 of the patching ("int3: 0000
# [#1] SMP" at a function's first byte, then a panic).
find / -xdev > /dev/null 2>&1
find /sys -xdev -type f 2>/dev/null | while read -r f; do cat "$f" > /dev/null 2>&1; done
i=0
while [ $i -lt 200 ]; do /bin/true; i=$((i + 1)); done

while read -r name kb unit; do
	[ "$name" = KernelStack: ] && stack_kb=$kb
done < /proc/meminfo
set -- /proc/[0-9]*/task/[0-9]*
echo "stack-usage: KernelStack ${stack_kb} kB threads $# cpus $(nproc)"
