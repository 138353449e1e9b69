# Guest script for the failure checks: crash the kernel on purpose
# (sysrq 'c' dereferences NULL in the kernel; an oops in process context
# with panic_on_oops set panics), as a broken stage would.
echo 1 > /proc/sys/kernel/panic_on_oops
echo c > /proc/sysrq-trigger
