# The walk of book/chapters/lab7.adoc, after lab 7's stop (labs/7/lab.toml).
python
from labs.gdbutil import fail_on_a_stop_again
fail_on_a_stop_again('lab7.gdb')
end
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
