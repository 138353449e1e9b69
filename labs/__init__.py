"""The labs' shared helpers: gdb-side grading (gradelib, gdbutil, guard,
tasklib, taskgdb) and each lab's folder, labs.N."""
