# The walk of book/chapters/lab3.adoc, after labs/3/lab.gdb's stop.
set trace-commands on
p sizeof(init_stack)
ks-where
ks-thread-info
break print_stack_overflow
continue
ks-irqstacks
ks-bt
delete
