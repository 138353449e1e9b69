# Lab 1, the 8K kernel (stage 1: interrupts on the interrupted task's stack).
#
# Loaded by vm/session/ks for make lab (and by the grader, labs/1/grade.py). Waits for boot
# to finish (begin_new_exec: the exec of /init cannot fail any more), then
# stops at the C entry of the next device interrupt: `break do_IRQ`, the
# 2.6 name, which gdb-scripts maps onto 6.1's common_interrupt().

ks-lab-stop do_IRQ

echo \n
echo ==== Lab 1: the 8K kernel (stage 1: no IRQ stacks, 8K task stacks) ====\n
echo Stopped at do_IRQ (6.1: common_interrupt), a device interrupt.\n
echo Try:\n
echo \  ks-where                  which stack: the interrupted task's own\n
echo \  p $sp                     remember it, then step towards the handler:\n
echo \  break handle_irq_event    continue; ks-where again: same stack, deeper\n
echo \  ks-bt                     the handler's frames on the task's frames\n
echo \  break __do_softirq        continue: a softirq from irq_exit_rcu()\n
echo \  ks-bt                     ... still on the same task stack\n
echo \  ks-stack-use              how deep every stack has been so far\n
echo \  ks-stack-picture          a drawing of this stack\n
echo \  delete / continue / quit\n
echo See labs/1/README.md.\n
