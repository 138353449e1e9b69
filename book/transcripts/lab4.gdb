# The walk of book/chapters/lab4.adoc, after labs/4/lab.gdb's stop.
set trace-commands on
ks-thread-info
continue
bt 3
ks-where
ks-stack-use
