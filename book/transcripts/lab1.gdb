# The walk of book/chapters/lab1.adoc, after lab 1's stop (labs/1/lab.toml).
python
from labs.gdbutil import fail_on_a_stop_again
fail_on_a_stop_again('lab1.gdb')
end
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
