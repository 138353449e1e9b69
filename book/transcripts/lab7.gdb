# The walk of book/chapters/lab7.adoc, after labs/7/lab.gdb's stop.
set trace-commands on
ks-where
info registers rip
ks-irqstacks
continue
ks-where
bt 3
continue
p/x fault_address
p/x $lx_current().stack
