# 2.6 names in a 6.1 session: break do_IRQ, and $hardirq_ctx(0) against
# CPU 0's hardirq_stack_ptr read raw from the per-CPU area.
break do_IRQ
continue
printf "pc=%#x\n", $pc
printf "common_interrupt=%#x\n", &common_interrupt
printf "vector=%d\n", (unsigned char) error_code
printf "hardirq_ctx0=%#x\n", $hardirq_ctx(0)
printf "raw_hardirq0=%#x\n", *(unsigned long *)((char *)&hardirq_stack_ptr + __per_cpu_offset[0])
printf "softirq_ctx0=%#x\n", $softirq_ctx(0)
printf "raw_softirq0=%#x\n", *(unsigned long *)((char *)&softirq_stack_ptr + __per_cpu_offset[0])
