# Guest workload of lab 6: a panic to take apart with crash.
#
# Lab 4's 25-frame descent (labs/4/guest.sh) at stage 2, where it ends
# within the IRQ-entry check's line, with kernel.panic_on_stackoverflow=1:
# the check's report then ends in panic() while dd is deep in the
# recursion. vm/session/crash.py boots the kernel with panic=0, so that the guest
# waits after the panic and QEMU can dump its memory.
echo 1 > /proc/sys/kernel/panic_on_stackoverflow
. /labs/4/guest.sh
