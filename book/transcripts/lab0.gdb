# The walk of book/chapters/lab0.adoc, after labs/0/lab.gdb's stop.
set trace-commands on
bt 6
info threads
p $lx_per_cpu("current_task", 0)->comm
p $lx_per_cpu("current_task", 1)->comm
ks-where
ks-irqstacks
ks-thread-info
ks-watch-switch stop
continue
stepi
ks-where
ks-watch-switch off
