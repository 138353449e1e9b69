# Lab 2's exercise (make lab N=2 EXERCISE=1, and its grader): the
# learner's kernel, stage 1 plus the per-CPU hardirq stack the exercise
# asks for, and no softirq stack (the exercise does not ask for one: its
# softirqs still run on the interrupted task's stack). The stop is lab
# 2's: the next device interrupt's do_IRQ (6.1's common_interrupt),
# before the switch.

ks-lab-stop do_IRQ

echo \n
echo ==== Lab 2's exercise: your kernel (stage 1 and your per-CPU hardirq stack) ====\n
echo Stopped at do_IRQ (6.1: common_interrupt), before the switch.\n
echo Try:\n
echo \  ks-where                  still on the interrupted stack\n
echo \  ks-watch-switch stop      then continue: stops at your switch onto\n
echo \                            the hardirq stack; p $sp and p/x $ebx, then stepi\n
echo \  ks-where                  now on this CPU's hardirq stack, if you switched\n
echo \  x/x $hardirq_ctx($_thread - 1)   the saved esp at its bottom\n
echo \  ks-irqstacks              both CPUs' hardirq stacks and saved esps\n
echo \  break handle_irq_event    continue, then ks-bt: across two stacks\n
echo \  ks-watch-switch off / delete / quit\n
echo Graded by: make grade N=2 EXERCISE=1   (hints: make hint N=2)\n
