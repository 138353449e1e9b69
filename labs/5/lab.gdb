# Lab 5, what 4K stacks buy (stage 3; labs/5/experiment.py compares it
# with stage 2's 8K stacks).
#
# Loaded by vm/session/ks for make lab (and by the grader, labs/5/grade.py). The guest runs
# threads (vm/guest/threads.c), which clones threads until memory runs low. The stop
# is in copy_process(), making the first of them.

ks-lab-stop copy_process if $_streq($lx_per_cpu("current_task")->comm, "threads")

echo \n
echo ==== Lab 5: what 4K stacks buy (stage 3: one page per thread) ====\n
echo Stopped in copy_process(): the program threads is cloning a thread.\n
echo Try:\n
echo \  finish                    copy_process returns the new task: $\n
echo \  p $->stack                its kernel stack: one page\n
echo \  p $$->pid                 then: ks-thread-info PID\n
echo \  p $lx_per_cpu("current_task")->signal->nr_threads\n
echo \  continue                  let the experiment run (the serial log shows\n
echo \                            the counts; Ctrl-C to stop it again)\n
echo \  ks-stack-use PID          how deep a fresh thread's stack has been\n
echo See labs/5/README.md; the table: labs/5/experiment.py.\n
