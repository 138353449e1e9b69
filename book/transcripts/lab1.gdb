# The walk of book/chapters/lab1.adoc, after lab 1's stop (labs/1/lab.toml).
set trace-commands on
ks-where
p $sp
break handle_irq_event
continue
ks-where
ks-bt
delete
break __do_softirq
continue
ks-bt
delete
