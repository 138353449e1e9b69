# Lab 1's task (make lab N=1 EXERCISE=1): my-xbt, the learner's walk
# across stacks, tried where it is graded: stage 0, whose device
# interrupts and softirqs run on per-CPU stacks (lab 1's own stage has
# none to cross). vm/session/ks loads the learner's file after this.

ks-lab-stop handle_irq_event

echo \n
echo ==== Lab 1's task: my-xbt, a backtrace across stacks (stage 0: per-CPU IRQ stacks) ====\n
echo Stopped in handle_irq_event(), a device interrupt's handler, on a hardirq stack.\n
echo Try:\n
echo \  my-xbt                    your walk: does it cross to the interrupted stack?\n
echo \  ks-bt                     the walk to compare with, and where it crosses\n
echo \  ks-irqstacks              each IRQ stack's lowest word: the esp it came from\n
echo \  break run_timer_softirq   continue: a softirq, on the softirq stack\n
echo Graded by: make grade N=1 EXERCISE=1   (hints: make hint N=1)\n
