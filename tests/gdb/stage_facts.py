# Collect raw facts about a running guest's stacks, for tests/checks/60-*.
# Sourced by gdb in batch mode after it attached; prints "fact ..." lines
# and leaves all judging to the shell check, which knows what each stage
# should show. The facts come from plain gdb expressions and the kernel's
# own scripts/gdb helpers only, never from gdb-scripts/, whose output they
# must be able to test; that output is printed beside them as "fact
# ks-where" lines.
import gdb
from linux import tasks

MAX_HITS = 400


def val(expr):
    return int(gdb.parse_and_eval(expr))


def per_cpu(name, cpu):
    """Per-CPU pointer variable NAME on CPU, or None if the kernel lacks it."""
    try:
        return int(gdb.parse_and_eval('$lx_per_cpu("%s", %d)' % (name, cpu)))
    except gdb.error:
        return None


def current(cpu):
    # The kernel's $lx_current() only knows x86-64 ("x86" in the gdb
    # architecture name); on i386 read the per-CPU current_task directly.
    return gdb.parse_and_eval('$lx_per_cpu("current_task", %d)' % cpu).dereference()


def fmt(v):
    return 'none' if v is None else '%#x' % v


def report(kind, cpu):
    cur = current(cpu)
    hard = per_cpu('hardirq_stack_ptr', cpu)
    soft = per_cpu('softirq_stack_ptr', cpu)
    own = hard if kind == 'hardirq' else soft
    saved = None if own is None else val('*(unsigned long *)%d' % own)
    print('fact %s cpu=%d sp=%#x task_stack=%#x pid=%d comm=%s '
          'hardirq=%s softirq=%s saved_esp=%s' % (
              kind, cpu, val('$sp'), int(cur['stack']), int(cur['pid']),
              cur['comm'].string(), fmt(hard), fmt(soft), fmt(saved)))
    # What the project's commands say here, for the checks to hold against
    # the raw facts above (the only uses of gdb-scripts/ in this file).
    for line in gdb.execute('ks-where %d' % cpu, to_string=True).splitlines():
        if line.startswith('CPU ') or line.startswith('  area '):
            print('fact ks-where %s cpu=%d: %s' % (kind, cpu, line.strip()))
    # Raw facts for the other commands: where current's thread_info is,
    # the word at the bottom of its stack, and gdb's own (DWARF) unwind:
    # the function and $sp of each frame, to hold ks-bt's frame-pointer
    # walk against.
    print('fact raw %s cpu=%d: thread_info=%#x end_word=%#x' % (
        kind, cpu, val('&$lx_per_cpu("current_task", %d)->thread_info' % cpu),
        val('*(unsigned long *)%d' % int(cur['stack'])) & 0xffffffff))
    frame, n = gdb.newest_frame(), 0
    while frame is not None and n < 12:
        print('fact dwarf %s cpu=%d: %s sp=%#x' % (
            kind, cpu, frame.name(), int(frame.read_register('sp')) & 0xffffffff))
        frame, n = frame.older(), n + 1
    print('fact ks current_thread_info %s cpu=%d: %#x' % (
        kind, cpu, val('$current_thread_info(%d)' % cpu)))
    for command in ('ks-irqstacks', 'ks-bt', 'ks-thread-info',
                    'ks-stack-picture', 'ks-stack-use'):
        for line in gdb.execute(command, to_string=True).splitlines():
            print('fact %s %s cpu=%d: %s' % (command, kind, cpu, line.strip()))


def stop_in(location, cpu, accept):
    """Continue until LOCATION is hit on CPU in a context ACCEPT likes."""
    bp = gdb.Breakpoint(location, internal=True)
    bp.condition = '$_thread == %d' % (cpu + 1)
    try:
        for _ in range(MAX_HITS):
            gdb.execute('continue', to_string=True)
            if accept(cpu):
                return True
        return False
    finally:
        bp.delete()


def interrupted_task_code(cpu):
    # An interrupt from user mode finds the task stack empty, and 6.1 does
    # not switch stacks for it; one that arrives during softirq processing
    # interrupts the softirq stack. Only kernel-mode interruptions of the
    # task's own stack tell the stages apart: the pt_regs that the entry
    # code pushed (__irq_regs) must lie in the current task's stack.
    regs = per_cpu('__irq_regs', cpu)
    if val('((struct pt_regs *)%d)->cs' % regs) & 3:
        return False
    stack = int(current(cpu)['stack'])
    return stack <= regs < stack + val('sizeof(init_stack)')


def not_ksoftirqd(cpu):
    # ksoftirqd runs softirqs in task context, on its own stack, at every
    # stage: only softirqs run on the way out of an interrupt count.
    comm = current(cpu)['comm'].string()
    return not comm.startswith('ksoftirqd')


for t in tasks.task_lists():
    print('fact task pid=%d comm=%s stack=%#x sp0=%#x' % (
        int(t['pid']), t['comm'].string(), int(t['stack']),
        int(t['thread']['sp0'])))

ncpus = int(gdb.parse_and_eval('nr_cpu_ids'))
print('fact cpus=%d' % ncpus)
for cpu in range(ncpus):
    if stop_in('serial8250_interrupt', cpu, interrupted_task_code):
        report('hardirq', cpu)
    else:
        print('fact hardirq cpu=%d not-seen' % cpu)
    if stop_in('__do_softirq', cpu, not_ksoftirqd):
        report('softirq', cpu)
    else:
        print('fact softirq cpu=%d not-seen' % cpu)

# The kernel's own stack-usage reports (DEBUG_STACK_USAGE), from its log,
# read at the last stop, where ks-stack-use last read the kernel's record.
for line in gdb.execute('lx-dmesg', to_string=True).splitlines():
    if 'greatest stack depth' in line:
        print('fact dmesg: %s' % line)

# ks-watch-switch: what it prints at a switch onto a hardirq stack, or
# why it cannot watch (stage 1). In its stop mode gdb stops at each switch
# instruction; the first that is __handle_irq's xchg from the current
# task's stack (raw facts: the pc's function and $sp) is the one to report.
# (Waiting instead for a given handler with the watch printing meanwhile
# stalled under load: each switch is a stop, so the guest crawls.)
try:
    gdb.execute('ks-watch-switch', to_string=True)
except gdb.error as e:
    print('fact ks-watch-switch error: %s' % e)
else:
    gdb.execute('ks-watch-switch stop', to_string=True)
    for _ in range(MAX_HITS):
        out = gdb.execute('continue', to_string=True)
        cpu = gdb.selected_thread().num - 1
        cur = current(cpu)
        stack, sp = int(cur['stack']), val('$sp') & 0xffffffff
        where = gdb.execute('info symbol $pc', to_string=True)
        if where.startswith('__handle_irq ') and \
           stack <= sp < stack + val('sizeof(init_stack)'):
            break
    for line in out.splitlines():
        if line.startswith('ks-switch'):
            print('fact ks-watch-switch: %s' % line)
    print('fact watched cpu=%d sp=%#x ebx=%#x task_stack=%#x pid=%d '
          'hardirq=%s' % (cpu, sp, val('$ebx') & 0xffffffff, stack,
                          int(cur['pid']),
                          fmt(per_cpu('hardirq_stack_ptr', cpu))))
    gdb.execute('ks-watch-switch off')
