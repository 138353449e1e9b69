# Guest script for the lx- helpers check: load the lab module (so that
# $lx_module and lx-lsmod have one to find), then read /proc/version, where
# the check's gdb stops (version_proc_show), and end.
insmod /lib/modules/stackdeep.ko || exit 1
cat /proc/version
