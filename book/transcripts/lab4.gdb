# The walk of book/chapters/lab4.adoc, after lab 4's stop (labs/4/lab.toml).
python
from labs.gdbutil import fail_on_a_stop_again
fail_on_a_stop_again('lab4.gdb')
end
set trace-commands on
ks-thread-info
continue
bt 3
ks-where
ks-stack-use
