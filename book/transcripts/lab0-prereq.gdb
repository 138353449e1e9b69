# The walk of book/chapters/prereq.adoc, after lab 0's stop (labs/0/lab.toml): the
# first instruction of __handle_irq(), on whichever CPU took the
# interrupt. Each warm-up is a region of the transcript between
# "// tag::NAME[]" and "// end::NAME[]" lines, which the chapter
# includes by tag; trace-commands is off while they are echoed, so that
# no command line shows for them.
set trace-commands off
echo // tag::frame[]\n
set trace-commands on
x/3i $pc
x/wx $esp
info symbol *(unsigned long *)$esp
x/8wx $ebp
info symbol *(unsigned long *)($ebp + 4)
x/2wx *(unsigned long *)$ebp
info symbol *(unsigned long *)(*(unsigned long *)$ebp + 4)
set trace-commands off
echo // end::frame[]\n
echo // tag::regparm[]\n
set trace-commands on
p desc
p/x $eax
p regs
p/x $edx
p/x &((struct pt_regs *)0)->cs
x/12i $pc
set trace-commands off
echo // end::regparm[]\n
echo // tag::asm[]\n
set trace-commands on
list arch/x86/kernel/irq_32.c:58,67
disassemble do_softirq_own_stack
set trace-commands off
echo // end::asm[]\n
echo // tag::percpu[]\n
set trace-commands on
p &softirq_stack_ptr
p softirq_stack_ptr
p $_thread
p/x __per_cpu_offset[0]
p/x __per_cpu_offset[1]
p/x $fs_base
p *(struct irq_stack **)((char *)&softirq_stack_ptr + $fs_base)
p $lx_per_cpu("softirq_stack_ptr", 0)
p $lx_per_cpu("softirq_stack_ptr", 1)
set trace-commands off
echo // end::percpu[]\n
