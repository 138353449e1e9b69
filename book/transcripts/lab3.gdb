# The walk of book/chapters/lab3.adoc, after lab 3's stop (labs/3/lab.toml).
python
from labs.gdbutil import fail_on_a_stop_again
fail_on_a_stop_again('lab3.gdb')
end
set trace-commands on
p sizeof(init_stack)
ks-where
ks-thread-info
break print_stack_overflow
continue
ks-irqstacks
ks-bt
delete
