# Guest workload for the stack-usage figures: a short, ordinary workload
# (walk the root file system, read every sysfs file (-xdev keeps out debugfs
# and tracefs, whose trace_pipe would block), fork a few hundred
# processes) with the ftrace stack tracer on, then the kernel's own
# measures:
#  - "used greatest stack depth" lines (DEBUG_STACK_USAGE) go to the
#    console by themselves whenever an exiting task sets a new record;
#  - the stack tracer's deepest task-stack use (stack_max_size);
#  - KernelStack from /proc/meminfo with the thread count read right after
#    it, with shell builtins only, so no task is created in between.
echo 1 > /proc/sys/kernel/stack_tracer_enabled
find / -xdev > /dev/null 2>&1
find /sys -xdev -type f 2>/dev/null | while read -r f; do cat "$f" > /dev/null 2>&1; done
i=0
while [ $i -lt 200 ]; do /bin/true; i=$((i + 1)); done
echo 0 > /proc/sys/kernel/stack_tracer_enabled
echo "stack-usage: stack_max_size $(cat /sys/kernel/tracing/stack_max_size)"

while read -r name kb unit; do
	[ "$name" = KernelStack: ] && stack_kb=$kb
done < /proc/meminfo
set -- /proc/[0-9]*/task/[0-9]*
echo "stack-usage: KernelStack ${stack_kb} kB threads $# cpus $(nproc)"
