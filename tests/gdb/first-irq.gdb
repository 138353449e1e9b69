# Stop at the first device interrupt and print what the check compares:
# the IRQ of the descriptor, the vector the CPU took (the entry stub pushes
# it as a sign-extended byte: orig_ax & 0xff), the CPU (gdb thread - 1),
# and the descriptor this CPU's vector_irq table holds for that vector,
# read raw from the per-CPU area with plain gdb expressions.
break __handle_irq
continue
set $vec = regs->orig_ax & 0xff
set $cpu = $_thread - 1
printf "irq=%d\n", desc->irq_data.irq
printf "vector=%d\n", $vec
printf "cpu=%d\n", $cpu
printf "desc=%#x\n", desc
printf "vector_irq_desc=%#x\n", (*(vector_irq_t *)((char *)&vector_irq + __per_cpu_offset[$cpu]))[$vec]
bt
