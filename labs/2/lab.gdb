# Lab 2, IRQ stacks (stage 2: per-CPU hardirq and softirq stacks, 8K).
#
# Loaded by vm/session/ks for make lab (and by the grader, labs/2/grade.py). Waits for boot
# to finish, then stops at the next device interrupt's do_IRQ (6.1's
# common_interrupt), still on the interrupted stack.

ks-lab-stop do_IRQ

echo \n
echo ==== Lab 2: IRQ stacks (stage 2: per-CPU hardirq and softirq stacks) ====\n
echo Stopped at do_IRQ (6.1: common_interrupt), before the switch.\n
echo Try:\n
echo \  ks-where                  still on the interrupted stack\n
echo \  ks-watch-switch stop      then continue: stops at the xchg onto the\n
echo \                            IRQ stack; p $sp and p/x $ebx, then stepi\n
echo \  ks-where                  now on this CPU's hardirq stack\n
echo \  x/x $hardirq_ctx($_thread - 1)   the saved esp at its bottom\n
echo \  ks-irqstacks              both CPUs' stacks and saved esps\n
echo \  break handle_irq_event    continue, then ks-bt: across two stacks\n
echo \  continue                  (a switch in do_softirq_own_stack is the\n
echo \                            softirq stack; one on thread 2 is CPU 1)\n
echo \  ks-watch-switch off / delete / quit\n
echo See labs/2/README.md.\n
