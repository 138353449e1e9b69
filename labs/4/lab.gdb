# Lab 4, overflow (stage 3: 4K stacks): watch a stack's end get overwritten.
#
# Loaded by vm/session/ks for make lab (and by the grader, labs/4/grade.py). The guest loads
# the lab module stackdeep and has dd recurse 25 frames of 256 bytes into
# it: more than a 4K stack holds. The stop is where that descent starts;
# a hardware watchpoint then guards the task's STACK_END_MAGIC word.

set breakpoint pending on
ks-lab-stop frames_write
watch -l *(unsigned long *)$lx_per_cpu("current_task")->stack

echo \n
echo ==== Lab 4: overflow (stage 3: 4K stacks) ====\n
echo Stopped in frames_write(): dd is about to recurse 25 x 256 bytes.\n
echo A watchpoint guards its stack's end magic (info watchpoints).\n
echo Try:\n
echo \  ks-thread-info            the end magic, intact for now\n
echo \  continue                  runs until the magic is overwritten\n
echo \  bt 3                      who wrote it: descend(), at which depth?\n
echo \  ks-where                  $sp is below the end of the stack\n
echo \  ks-bt                     the frames, down past the end\n
echo \  delete                    then continue: what catches it?\n
echo \                            (the serial log shows the kernel's verdict)\n
echo See labs/4/README.md; the table: labs/4/experiment.py.\n
