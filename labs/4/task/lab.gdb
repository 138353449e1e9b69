# Lab 4's task (make lab N=4 EXERCISE=1): the learner's own
# check_stack_overflow(), in stage 2 plus their check.
#
# Loaded by vm/session/ks for make lab (and by the grader, labs/4/task/grade.py).
# The guest runs this lab's workload (labs/4/guest.sh) again and again,
# leaving 1300 bytes, then 700 (ks_descents=room:1300,room:700): dd waits
# deep in its stack while a few serial interrupts arrive. The stop is the first device
# interrupt's __handle_irq(), where the check runs, on the stack it
# arrived on: during boot (-boot), so that a check that fires on every
# interrupt is seen at its first report, not after a boot drowned in them.

ks-lab-stop -boot __handle_irq

echo \n
echo ==== Lab 4's task: your overflow check (stage 2 + your check_stack_overflow) ====\n
echo Stopped in __handle_irq(), before the check, on the stack the interrupt arrived on.\n
echo Try:\n
echo \  ks-where                  room left below $sp, and the check's line\n
echo \  break print_stack_overflow   then continue: does your check fire, and when?\n
echo \  ks-bt                     at the report: what was deep in its stack?\n
echo \  tbreak __handle_irq       then continue: the next interrupt\n
echo Graded by: make grade N=4 EXERCISE=1   (hints: make hint N=4)\n
