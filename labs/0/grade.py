# Grader of lab 0 (stage 0): run by labs/grade.sh in gdb batch mode.
# Checks what the lab asks the learner to find, each against the kernel's
# data read a second way.
import re

from grading import (answer, area_of, check, cpu, current, frame_name,
                     run, start_lab, val)

start_lab(0)
here = cpu()
check(frame_name() == '__handle_irq' and val('system_state') ==
      val('SYSTEM_RUNNING'), 'the lab stops in __handle_irq after boot '
      '(CPU %d)' % here)

# current on each CPU: the per-CPU current_task, and lx-ps names the same
# task for that pid.
ncpus = val('nr_cpu_ids')
online = val('__num_online_cpus.counter')
check(ncpus == 2 and online == 2, 'the guest runs %d of %d CPUs' % (online, ncpus))
answer('cpus', online)
ps = run('lx-ps')
for c in range(ncpus):
    task = current(c)
    pid, comm = int(task['pid']), task['comm'].string()
    if pid == 0:
        # An idle CPU runs its idle task, swapper/N; only swapper/0
        # (init_task) heads the task list that lx-ps walks.
        check(comm == 'swapper/%d' % c,
              'CPU %d is idle: current is its idle task swapper/%d' % (c, c))
        continue
    listed = re.search(r'^0x[0-9a-f]+\s+%d\s+(\S+)' % pid, ps, re.M)
    check(listed and listed.group(1) == comm,
          'current on CPU %d is pid %d (%s), as lx-ps lists it' % (c, pid, comm))

# The modern kernel already has IRQ stacks: one hardirq and one softirq
# stack per CPU, THREAD_SIZE each, distinct.
ts = val('sizeof(init_stack)')
answer('thread_size', ts)
bases = []
for c in range(ncpus):
    for kind in ('hardirq', 'softirq'):
        base = val('$lx_per_cpu("%s_stack_ptr", %d)' % (kind, c))
        check(base and val('$%s_ctx(%d)' % (kind, c)) == base,
              'CPU %d has a %s stack at %#x ($%s_ctx(%d))' % (c, kind, base, kind, c))
        bases.append(base)
check(len(set(bases)) == len(bases) and
      all(abs(a - b) >= ts for a in bases for b in bases if a != b),
      'the %d IRQ stacks are distinct and do not overlap' % len(bases))
answer('hardirq_stack_cpu0', '%#x' % bases[0])

# Where this CPU is now (before the switch, which __handle_irq is about
# to do): ks-where agrees with the raw $sp.
sp = val('$sp')
where = run('ks-where')
base, top = area_of(where)
check(base is not None and base <= sp <= top,
      'ks-where names an area holding $sp %#x: %s' % (sp, where.splitlines()[0]))

# Where thread_info lives: in task_struct (offset 0), not at the stack's
# bottom, where 6.1 keeps the end magic instead.
off = val('&((struct task_struct *)0)->thread_info')
answer('thread_info_offset', off)
task = current(here)
check(off == 0 and val('$current_thread_info()') == int(task['thread_info'].address),
      'thread_info is the first member of task_struct: $current_thread_info() '
      '= &current->thread_info')
check(val('*(unsigned long *)%d' % int(task['stack'])) == 0x57ac6e9d,
      'the bottom word of the current task\'s stack is STACK_END_MAGIC')

# The kernel log says which kernel this is.
log = run('lx-dmesg')
check('Linux version 6.1' in log and '-stage0' in log,
      'lx-dmesg shows the stage 0 kernel\'s banner')

# The switch __handle_irq is about to make: onto this CPU's hardirq stack.
# Other switches (softirqs, the other CPU) may come first: every timer
# tick's softirqs on each CPU are one, while the shell's output, which
# makes the serial interrupts, takes the guest a few hundred of them.
run('ks-watch-switch stop')
for _ in range(600):
    out = run('continue')
    m = re.search(r'ks-switch CPU(\d+) onto: esp (0x[0-9a-f]+) '
                  r'\(task .*-> (0x[0-9a-f]+) \(hardirq cpu\1\)', out)
    if m:
        break
run('ks-watch-switch off')
hard = val('$lx_per_cpu("hardirq_stack_ptr", %d)' % cpu())
check(m and int(m.group(3), 16) == hard + ts,
      'continuing, ks-watch-switch sees esp move from a task stack onto the '
      'hardirq stack (%s)' % (m.group(0) if m else out.strip()[:200]))
