# The walk of book/chapters/lab2.adoc, after labs/2/lab.gdb's stop.
set trace-commands on
ks-where
ks-watch-switch stop
continue
p $sp
p $ebx
stepi
ks-where
ks-irqstacks
ks-watch-switch off
break handle_irq_event
continue
ks-bt
delete
