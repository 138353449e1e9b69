# gdb side of tests/checks/60-stage-stacks.py: raw facts about a running
# guest's stacks, handed to the host as records (vm/session/results.py); all
# judging is the host's (60-stage-stacks.py and check_commands.py), which
# knows from vm/stages.toml what each stage should show.
#
# The facts come from plain gdb expressions and the kernel's own
# scripts/gdb helpers only, never from gdb-scripts/, whose output they
# must be able to test; that output is recorded beside them, at the same
# stop (the "said" field), the only use of gdb-scripts/ in this file.
#
# Records:
#   task          pid, comm, stack, sp0: every task on the task list
#   cpus          count
#   stop          handler (hardirq or softirq), cpu, seen; where seen:
#                 sp, task_stack, pid, comm (current), hardirq, softirq
#                 (this CPU's IRQ stack pointers, None if the kernel has
#                 none), saved_esp (the bottom word of the handler's own
#                 stack), thread_info (&current->thread_info), end_word
#                 (the word at current->stack), dwarf ([function, sp] of
#                 gdb's own unwind), current_thread_info, said (command:
#                 what it printed)
#   dmesg         lines: the kernel's "greatest stack depth" reports;
#                 said: ks-stack-use at the same stop; exiting: the CPUs
#                 inside check_stack_usage() there
#   watch-switch  error (why it cannot watch), or said (its ks-switch
#                 lines) and the stop it reports: cpu, sp, ebx,
#                 task_stack, pid, hardirq
import gdb
from linux import tasks
from kstack import stacks

from vm.session import results
from labs.gdbutil import (MAX_HITS, continue_to, current, interrupted_kernel_task_stack,
                          per_cpu, run, val)

COMMANDS = ('ks-where', 'ks-irqstacks', 'ks-bt', 'ks-thread-info',
            'ks-stack-picture', 'ks-stack-use')


def unwind(depth=12):
    """gdb's own (DWARF) unwind: [function, $sp] per frame, to hold ks-bt's
    frame-pointer walk against."""
    frames, frame = [], gdb.newest_frame()
    while frame is not None and len(frames) < depth:
        frames.append([frame.name(), int(frame.read_register('sp')) & stacks.mask()])
        frame = frame.older()
    return frames


def report(handler, cpu):
    cur = current(cpu)
    stacks = {kind: per_cpu('%s_stack_ptr' % kind, cpu)
              for kind in ('hardirq', 'softirq')}
    own = stacks[handler]
    said = {c: run('ks-where %d' % cpu if c == 'ks-where' else c)
            for c in COMMANDS}
    results.emit(
        'stop', handler=handler, cpu=cpu, seen=True, sp=val('$sp'),
        task_stack=int(cur['stack']), pid=int(cur['pid']),
        comm=cur['comm'].string(), **stacks,
        saved_esp=None if own is None else val('*(unsigned long *)%d' % own),
        thread_info=val('&$lx_per_cpu("current_task", %d)->thread_info' % cpu),
        end_word=val('*(unsigned long *)%d' % int(cur['stack'])),
        dwarf=unwind(),
        current_thread_info=val('$current_thread_info(%d)' % cpu),
        said=said)


def cpus_in(function, depth=64):
    """The CPUs with FUNCTION among their frames (gdb's own unwind, which
    shows an inlined function as a frame of its own)."""
    found, was = [], gdb.selected_thread()
    for thread in gdb.selected_inferior().threads():
        thread.switch()
        frame, n = gdb.newest_frame(), 0
        while frame is not None and n < depth:
            if frame.name() == function:
                found.append(thread.num - 1)
                break
            try:
                frame, n = frame.older(), n + 1
            except gdb.error:
                break
    was.switch()
    return found


def not_ksoftirqd(cpu):
    # ksoftirqd runs softirqs in task context, on its own stack, at every
    # stage: only softirqs run on the way out of an interrupt count.
    return not current(cpu)['comm'].string().startswith('ksoftirqd')


for t in tasks.task_lists():
    results.emit('task', pid=int(t['pid']), comm=t['comm'].string(),
                 stack=int(t['stack']), sp0=int(t['thread']['sp0']))

ncpus = val('nr_cpu_ids')
results.emit('cpus', count=ncpus)
for cpu in range(ncpus):
    for handler, location, accept in (
            ('hardirq', 'serial8250_interrupt', interrupted_kernel_task_stack),
            ('softirq', '__do_softirq', not_ksoftirqd)):
        if continue_to(location, lambda: accept(cpu), cpu_nr=cpu):
            report(handler, cpu)
        else:
            results.emit('stop', handler=handler, cpu=cpu, seen=False)

# The kernel's own stack-usage reports (DEBUG_STACK_USAGE): its log and
# its record of exited tasks as ks-stack-use reads it, both at this one
# stop, and the CPUs stopped inside check_stack_usage() (kernel/exit.c),
# which logs a new low before it stores it: while a CPU is between the
# two, the log may hold a line lower than the record.
results.emit('dmesg', lines=[line for line in run('lx-dmesg').splitlines()
                             if 'greatest stack depth' in line],
             said=run('ks-stack-use'), exiting=cpus_in('check_stack_usage'))

# ks-watch-switch: what it prints at a switch onto a hardirq stack, or
# why it cannot watch (stage 1). In its stop mode gdb stops at each switch
# instruction; the first that is __handle_irq's xchg from the current
# task's stack (raw facts: the pc's function and $sp) is the one to report.
# (Waiting instead for a given handler with the watch printing meanwhile
# stalled under load: each switch is a stop, so the guest crawls.)
try:
    run('ks-watch-switch')
except gdb.error as e:
    results.emit('watch-switch', error=str(e))
else:
    run('ks-watch-switch stop')
    for _ in range(MAX_HITS):
        out = run('continue')
        cpu = gdb.selected_thread().num - 1
        cur = current(cpu)
        stack, sp = int(cur['stack']), val('$sp')
        if run('info symbol $pc').startswith('__handle_irq ') and \
           stack <= sp < stack + val('sizeof(init_stack)'):
            break
    results.emit('watch-switch', error=None,
                 said=[line for line in out.splitlines()
                       if line.startswith('ks-switch')],
                 cpu=cpu, sp=sp, ebx=val('$ebx'), task_stack=stack,
                 pid=int(cur['pid']), hardirq=per_cpu('hardirq_stack_ptr', cpu))
    run('ks-watch-switch off')
