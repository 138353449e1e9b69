# Stop at the first device interrupt and print what the check compares:
# the IRQ of the descriptor, the vector the CPU took (common_interrupt's
# error_code: on 32-bit the entry code sets orig_ax to -1 after reading the
# vector from that slot), the CPU (gdb thread - 1),
# and the descriptor this CPU's vector_irq table holds for that vector,
# read raw from the per-CPU area with plain gdb expressions.
break __handle_irq
continue
set $irq = desc->irq_data.irq
set $desc = desc
frame function common_interrupt
set $vec = (unsigned char) error_code
set $cpu = $_thread - 1
printf "irq=%d\n", $irq
printf "vector=%d\n", $vec
printf "cpu=%d\n", $cpu
printf "desc=%#x\n", $desc
printf "vector_irq_desc=%#x\n", (*(vector_irq_t *)((char *)&vector_irq + __per_cpu_offset[$cpu]))[$vec]
bt
