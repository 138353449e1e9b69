# The walk of book/chapters/lab4.adoc, after lab 4's stop (labs/4/lab.toml).
set trace-commands on
ks-thread-info
continue
bt 3
ks-where
ks-stack-use
